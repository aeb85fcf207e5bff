//! The one loop every game command runs: inputs -> batches of framed games ->
//! work on a rayon pool -> results handed to a sink in input order.
//!
//! With one thread everything runs on the calling thread. With more, a reader
//! thread frames batches while the pool works on the previous one; batch
//! buffers travel back to the reader to be reused, so memory stays at a few
//! batches whatever the input size.

use std::{
    cell::Cell,
    io,
    sync::Arc,
    sync::mpsc::{Receiver, SyncSender, sync_channel},
};

use indicatif::ProgressBar;
use pgnkit::{
    input::{self, Source},
    split::{Batch, RawGame, SplitOptions, Splitter},
};
use rayon::prelude::*;

use crate::progress;

/// What the producer hands to the consumer.
enum Msg {
    /// Games of input `usize`.
    Batch(usize, Batch),
    /// Input `usize` could not be opened or read to its end.
    Failed(usize, io::Error),
}

/// Where the pipeline reports to.
pub trait Sink<R> {
    /// One game's result, in input order.
    fn result(&mut self, result: R) -> io::Result<()>;
    /// An input could not be opened or failed part-way (after its games).
    fn input_error(&mut self, source: &Source, error: &io::Error);
    /// A batch was done (for progress messages).
    fn batch_done(&mut self) {}
}

/// How the pipeline runs.
pub struct Options<'a> {
    pub sources: &'a [Source],
    pub threads: usize,
    pub split: SplitOptions,
    pub bar: &'a ProgressBar,
}

/// Runs `work` on every game of every source; `init` makes per-thread state.
///
/// # Errors
///
/// Only errors of the sink (writing the output); input errors go to
/// [`Sink::input_error`] and the run continues with the next input.
pub fn run<S, R, I, W>(opts: &Options<'_>, init: I, work: W, sink: &mut impl Sink<R>) -> io::Result<()>
where
    R: Send,
    I: Fn() -> S + Sync + Send,
    W: Fn(&mut S, &Arc<str>, RawGame<'_>) -> R + Sync + Send,
{
    let names: Vec<Arc<str>> = opts.sources.iter().map(|s| Arc::from(s.to_string())).collect();
    if opts.threads <= 1 {
        let mut state = init();
        let spare = Cell::new(Some(Batch::default()));
        let mut failure = Ok(());
        produce(
            opts,
            || spare.take().unwrap_or_default(),
            |msg| {
                let outcome = consume(msg, opts.sources, &mut *sink, |source, batch| {
                    let name = &names[source];
                    batch.games().map(|game| work(&mut state, name, game)).collect()
                });
                match outcome {
                    Ok(batch) => {
                        spare.set(batch);
                        true
                    }
                    Err(err) => {
                        failure = Err(err);
                        false
                    }
                }
            },
        );
        return failure;
    }

    let pool = rayon::ThreadPoolBuilder::new().num_threads(opts.threads).build().map_err(io::Error::other)?;
    std::thread::scope(|scope| {
        let (tx, rx) = sync_channel::<Msg>(2);
        let (recycle_tx, recycle_rx) = sync_channel::<Batch>(4);
        scope.spawn(move || producer_thread(opts, &tx, &recycle_rx));
        consumer_loop(opts, &rx, &recycle_tx, &pool, &names, &init, &work, sink)
    })
}

fn producer_thread(opts: &Options<'_>, tx: &SyncSender<Msg>, recycle: &Receiver<Batch>) {
    // An empty or closed recycling channel just means a new buffer.
    let fresh = || recycle.try_recv().unwrap_or_default();
    produce(opts, fresh, |msg| tx.send(msg).is_ok());
}

#[allow(clippy::too_many_arguments)]
fn consumer_loop<S, R, I, W>(
    opts: &Options<'_>,
    rx: &Receiver<Msg>,
    recycle: &SyncSender<Batch>,
    pool: &rayon::ThreadPool,
    names: &[Arc<str>],
    init: &I,
    work: &W,
    sink: &mut impl Sink<R>,
) -> io::Result<()>
where
    R: Send,
    I: Fn() -> S + Sync + Send,
    W: Fn(&mut S, &Arc<str>, RawGame<'_>) -> R + Sync + Send,
{
    for msg in rx {
        let batch = consume(msg, opts.sources, &mut *sink, |source, batch| {
            let name = &names[source];
            pool.install(|| {
                batch.frames().par_iter().map_init(init, |state, frame| work(state, name, batch.game(frame))).collect()
            })
        })?;
        if let Some(batch) = batch {
            // The reader may have finished; then the buffer is simply dropped.
            let _ = recycle.try_send(batch);
        }
    }
    Ok(())
}

/// Handles one message; gives the batch back for reuse.
fn consume<R>(
    msg: Msg,
    sources: &[Source],
    sink: &mut impl Sink<R>,
    mut process: impl FnMut(usize, &Batch) -> Vec<R>,
) -> io::Result<Option<Batch>> {
    match msg {
        Msg::Batch(source, batch) => {
            for result in process(source, &batch) {
                sink.result(result)?;
            }
            sink.batch_done();
            Ok(Some(batch))
        }
        Msg::Failed(source, err) => {
            sink.input_error(&sources[source], &err);
            Ok(None)
        }
    }
}

/// Reads every source in order and delivers its batches; stops early when
/// `deliver` returns false.
fn produce(opts: &Options<'_>, mut fresh: impl FnMut() -> Batch, mut deliver: impl FnMut(Msg) -> bool) {
    for (index, source) in opts.sources.iter().enumerate() {
        let opened = source.open().and_then(|raw| input::decode(progress::wrap(opts.bar, raw)));
        let reader = match opened {
            Ok((_, reader)) => reader,
            Err(err) => {
                if !deliver(Msg::Failed(index, err)) {
                    return;
                }
                continue;
            }
        };
        let mut splitter = Splitter::with_options(reader, opts.split);
        loop {
            let mut batch = fresh();
            match splitter.next_batch(&mut batch) {
                Ok(true) => {
                    if !deliver(Msg::Batch(index, batch)) {
                        return;
                    }
                }
                Ok(false) => break,
                Err(err) => {
                    if !deliver(Msg::Failed(index, err)) {
                        return;
                    }
                    break;
                }
            }
        }
    }
}
