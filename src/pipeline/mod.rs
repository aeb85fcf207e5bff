//! The one loop every game command runs: inputs -> batches of framed games ->
//! work -> results handed to a sink in input order. This file holds
//! [`run`] with the loop on one thread, and [`Pool`] for work that is not
//! games read from inputs; [`contract`] what the loop asks of its callers
//! ([`Sink`], [`PerGame`], [`Options`]), [`batches`] the inputs cut into
//! batches, [`pooled`] the loop on N threads, and [`schedule`] every number
//! that tunes it (batch sizes, batches in flight, the spin).
//!
//! With N threads every thread frames, works and writes batches in turn
//! (see [`pooled`]); with one thread the same steps run in order on the
//! calling thread. A worker gathers its batch's results as the sink asks
//! ([`Sink::gather`]: most commands concatenate the output and add up the
//! totals there), so the sink takes one value per batch, not one per game.
//!
//! With several threads a compressed input is decompressed on a thread of
//! its own, a few chunks ahead of the framer ([`input::decode_ahead`]): the
//! lock is held for framing, and decompression, most of the work on a
//! `.bz2`, runs beside the workers instead of in turn with them. With N
//! threads a `.bz2`'s blocks are decoded on N threads of their own, as one
//! decompressor would hold up N workers. With one thread it is decompressed
//! in place, so that `-j1` keeps to one core (but for a zip archive's own
//! thread, below).
//! An input is read as the streams [`input::open`] gives: one, or each PGN
//! member of a zip archive, named `ARCHIVE:MEMBER`, whose bytes come
//! decompressed from the archive's own thread.
//!
//! `--shard K/N` is applied here, once for every command: a game is framed
//! (its end must be found to find the next one) but handed to the work only
//! when its number in the run is K modulo N, so the other games cost only
//! their framing.

mod batches;
mod contract;
mod pooled;
pub mod schedule;

use std::{io, sync::Arc};

use pgnkit::frame::{Batch, RawGame};

use batches::{Batches, Next, gather};
pub use contract::{Options, PerGame, Sink};

/// `-j` threads for work that is not games read from inputs (`fen check`'s
/// records, perft suites and counts, `ratings --scheme ml`'s simulations):
/// the one place besides [`run`] that starts worker threads.
pub struct Pool {
    threads: usize,
    pool: std::sync::OnceLock<rayon::ThreadPool>,
}

impl Pool {
    /// A pool of `threads` threads, started when first needed.
    pub fn new(threads: usize) -> Pool {
        Pool { threads: threads.max(1), pool: std::sync::OnceLock::new() }
    }

    /// The pool's threads (`-j`).
    pub fn threads(&self) -> usize {
        self.threads
    }

    fn pool(&self) -> &rayon::ThreadPool {
        self.pool.get_or_init(|| {
            rayon::ThreadPoolBuilder::new().num_threads(self.threads).build().expect("starting worker threads")
        })
    }

    /// Runs `work` on the pool, so that the library's parallel parts
    /// (perft, maximum likelihood) use its threads and no more.
    pub fn install<R: Send>(&self, work: impl FnOnce() -> R + Send) -> R {
        self.pool().install(work)
    }

    /// `work` of every item that gives something, in input order; with one
    /// thread on the calling thread, without starting the pool. Work that is
    /// parallel itself (a perft count) runs this inside [`Pool::install`],
    /// so that it keeps to the pool's threads.
    pub fn filter_map<T: Sync, R: Send>(&self, items: &[T], work: impl Fn(&T) -> Option<R> + Sync + Send) -> Vec<R> {
        use rayon::prelude::*;
        if self.threads == 1 {
            return items.iter().filter_map(work).collect();
        }
        self.install(|| items.par_iter().filter_map(work).collect())
    }
}

/// Runs `work` on every game of every source; `init` makes per-thread state.
///
/// With more than one thread, every thread frames, works and writes
/// batches (see the module's documentation); no step waits for a whole
/// batch to be done on every thread, so a long game holds up one worker,
/// not all of them.
///
/// # Errors
///
/// Only errors of the sink (writing the output); input errors go to
/// [`Sink::input_error`] and the run continues with the next input.
pub fn run<S, R, I, W, K>(opts: &Options<'_>, init: I, work: W, sink: &mut K) -> io::Result<()>
where
    K: Sink<R> + Send,
    S: Send,
    I: Fn() -> S + Sync,
    W: Fn(&mut S, &Arc<str>, RawGame<'_>) -> R + Sync,
{
    let wanted = |number: u64| opts.shard.is_none_or(|shard| shard.holds(number));
    if opts.threads > 1 {
        // The calling thread is one of the N workers.
        return pooled::run(opts, &wanted, &init, &work, sink);
    }
    let mut state = init();
    let mut batches = Batches::new(opts, None);
    let mut framed: u64 = 0;
    let mut batch = Batch::default();
    loop {
        match batches.next(&mut batch) {
            Next::Done => return Ok(()),
            Next::Failed(name, err) => sink.input_error(&name, &err),
            Next::Games(name) => {
                let first = framed;
                framed += batch.len() as u64;
                let results = sink.new_batch();
                if let Some(results) =
                    gather::<R, K>(results, &batch, first, wanted, |game| work(&mut state, &name, game))
                {
                    sink.batch(results)?;
                }
                if sink.finished() {
                    return Ok(());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::{io, panic::AssertUnwindSafe, path::PathBuf, sync::atomic::AtomicU64, time::Duration};

    use crate::progress::Bar;
    use pgnkit::{
        frame::{FrameFlags, FrameOptions, RawGame},
        input::Source,
    };

    use super::{Options, PerGame, run};

    /// A file of `n` small games, each one's number in its Event tag.
    fn games_file(name: &str, n: usize) -> PathBuf {
        let path = std::env::temp_dir().join(format!("pgnkit-pipeline-{name}-{}.pgn", std::process::id()));
        let text: String = (0..n).map(|i| format!("[Event \"{i}\"]\n\n1. e4 e5 *\n\n")).collect();
        std::fs::write(&path, text).unwrap();
        path
    }

    fn event(game: RawGame<'_>) -> String {
        let text = String::from_utf8_lossy(game.bytes);
        text.split('"').nth(1).unwrap_or_default().to_owned()
    }

    fn numbers(range: std::ops::Range<usize>) -> Vec<String> {
        range.map(|i| i.to_string()).collect()
    }

    /// What the sink got, in order: each game's Event, and `error` for an
    /// input that could not be read.
    #[derive(Default)]
    struct Record {
        seen: Vec<String>,
        /// Finished once it has this many.
        limit: Option<usize>,
        /// Fails to write the game after this many.
        fail_at: Option<usize>,
    }

    impl PerGame<String> for Record {
        fn result(&mut self, event: String) -> io::Result<()> {
            if self.fail_at == Some(self.seen.len()) {
                return Err(io::Error::other("disk full"));
            }
            self.seen.push(event);
            Ok(())
        }

        fn input_error(&mut self, _: &str, _: &io::Error) {
            self.seen.push("error".to_owned());
        }

        fn finished(&self) -> bool {
            self.limit.is_some_and(|limit| self.seen.len() >= limit)
        }
    }

    /// Runs with batches of a few games each, so that many are in flight.
    fn run_on(sources: &[Source], threads: usize, sink: &mut Record, work: impl Fn(&str) + Sync) -> io::Result<()> {
        let bar = Bar::hidden();
        let frame = FrameOptions { batch_bytes: 64, ..FrameOptions::default() };
        let opts = Options { sources, threads, frame, bar: &bar, shard: None, extra_inputs: &AtomicU64::new(0) };
        run(
            &opts,
            || (),
            |(), _, game| {
                let event = event(game);
                work(&event);
                event
            },
            sink,
        )
    }

    #[test]
    fn every_thread_count_gives_the_games_and_input_errors_in_input_order() {
        let path = games_file("order", 400);
        let sources =
            [Source::Path(path.clone()), Source::Path("/nonexistent/pgnkit.pgn".into()), Source::Path(path.clone())];
        let mut expected = numbers(0..400);
        expected.push("error".to_owned());
        expected.extend(numbers(0..400));
        for threads in [1, 2, 3, 8] {
            let mut sink = Record::default();
            // Uneven work, so that batches finish out of order.
            let slow = |event: &str| {
                if event.ends_with('7') {
                    std::thread::sleep(Duration::from_micros(300));
                }
            };
            run_on(&sources, threads, &mut sink, slow).unwrap();
            assert_eq!(sink.seen, expected, "{threads} threads");
        }
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn a_compressed_input_cut_short_gives_the_games_before_the_cut_flags_the_one_it_cut_then_fails() {
        use std::io::{Read, Write};
        let path = games_file("cut", 60_000);
        let plain = std::fs::read(&path).unwrap();
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gzip.write_all(&plain).unwrap();
        let mut bzip2 = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
        bzip2.write_all(&plain).unwrap();
        let streams = [gzip.finish().unwrap(), bzip2.finish().unwrap(), zstd::encode_all(&plain[..], 3).unwrap()];
        // Each game's Event, and whether the framer flagged it cut by the input's error.
        let run_marked = |sources: &[Source], threads: usize| {
            let bar = Bar::hidden();
            let frame = FrameOptions { batch_bytes: 4096, ..FrameOptions::default() };
            let opts = Options { sources, threads, frame, bar: &bar, shard: None, extra_inputs: &AtomicU64::new(0) };
            let mut sink = Record::default();
            let work = |(): &mut (), _: &_, game: RawGame<'_>| {
                let cut = game.frame.flags.contains(FrameFlags::INPUT_ERROR);
                format!("{}{}", event(game), if cut { " (cut)" } else { "" })
            };
            run(&opts, || (), work, &mut sink).unwrap();
            sink.seen
        };
        for (format, compressed) in ["gzip", "bzip2", "zstd"].into_iter().zip(streams) {
            let cut = &compressed[..compressed.len() * 3 / 4];
            std::fs::write(&path, cut).unwrap();
            // What the decompressor gives before the cut, as a plain file.
            let (_, mut reader) = pgnkit::input::decode(Box::new(io::Cursor::new(cut.to_vec()))).unwrap();
            let mut before = Vec::new();
            assert!(reader.read_to_end(&mut before).is_err(), "{format}: the cut is an error");
            let before_path = path.with_extension("before.pgn");
            std::fs::write(&before_path, &before).unwrap();
            let mut expected = run_marked(&[Source::Path(before_path.clone())], 1);
            assert!(expected.len() > 1000 && expected.len() < 60_000, "{format}: {} games", expected.len());
            expected.last_mut().unwrap().push_str(" (cut)");
            expected.push("error".to_owned());
            for threads in [1, 2, 4] {
                assert_eq!(run_marked(&[Source::Path(path.clone())], threads), expected, "{format}, {threads} threads");
            }
            std::fs::remove_file(before_path).unwrap();
        }
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn a_panic_in_the_work_reaches_the_caller_after_the_games_before_it() {
        let path = games_file("panic", 400);
        let sources = [Source::Path(path.clone())];
        for threads in [1, 2, 4] {
            let mut sink = Record::default();
            let planted = |event: &str| assert_ne!(event, "300", "a planted panic");
            let result = std::panic::catch_unwind(AssertUnwindSafe(|| run_on(&sources, threads, &mut sink, planted)));
            assert!(result.is_err(), "{threads} threads");
            // Whole batches before the one that panicked, and nothing after.
            assert!(sink.seen.len() <= 300 && sink.seen.len() > 280, "{threads} threads: {}", sink.seen.len());
            assert_eq!(sink.seen, numbers(0..sink.seen.len()));
        }
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn a_finished_sink_stops_the_run() {
        let path = games_file("finished", 400);
        let sources = [Source::Path(path.clone())];
        for threads in [1, 2, 4] {
            let mut sink = Record { limit: Some(10), ..Record::default() };
            run_on(&sources, threads, &mut sink, |_| {}).unwrap();
            assert!((10..20).contains(&sink.seen.len()), "{threads} threads: {}", sink.seen.len());
            assert_eq!(sink.seen, numbers(0..sink.seen.len()));
        }
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn an_error_of_the_sink_stops_the_run_and_is_returned() {
        let path = games_file("error", 400);
        let sources = [Source::Path(path.clone())];
        for threads in [1, 2, 4] {
            let mut sink = Record { fail_at: Some(100), ..Record::default() };
            let err = run_on(&sources, threads, &mut sink, |_| {}).unwrap_err();
            assert_eq!(err.to_string(), "disk full");
            assert_eq!(sink.seen, numbers(0..100), "{threads} threads");
        }
        std::fs::remove_file(path).unwrap();
    }
}
