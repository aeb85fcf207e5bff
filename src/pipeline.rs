//! The one loop every game command runs: inputs -> batches of framed games ->
//! work on a rayon pool -> results handed to a sink in input order.
//!
//! With N threads (the calling thread and N-1 of a rayon pool), each thread
//! in turn frames the next batch of the input under a lock, works it, and
//! hands it over (a thread that finds another framing waits, and the one
//! framing gives it the batch it is framing once that holds 8 KiB of
//! games, then frames on for itself); finished batches go to the sink in
//! input order, written by whichever thread finishes the batch that is
//! next. So the framer's own state moves between cores only when the
//! framer is free, no thread is there only to feed or drain the others,
//! and nothing waits for every thread to finish a batch. A worker gathers
//! its batch's results as the sink asks (most commands concatenate the
//! output and add up the totals there), so the sink takes one value per
//! batch, not one per game. Batch buffers are reused (a worker holds one,
//! and a waiting worker's is left for the one framing to frame on in), and
//! at most 4N+2 batches are framed and not yet written, so memory stays at
//! a few batches per thread whatever the input size. With one thread the
//! same steps run in order on the calling thread.
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

use std::{
    collections::BTreeMap,
    io,
    sync::{
        Arc, Condvar, Mutex, TryLockError,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use pgnkit::{
    frame::{Batch, FrameOptions, Framer, RawGame, shard::Shard},
    input::{self, Source},
};

use crate::progress::Bar;

/// Where the pipeline reports to. With several threads, its calls come
/// from any of them, one at a time, in input order.
pub trait Sink<R> {
    /// One batch's results, gathered on the worker that made them: a worker
    /// can add up or concatenate them there, outside the sink's lock, so
    /// the sink handles one value per batch, not per game.
    type Batch: Gather<R>;
    /// An empty batch, for a worker to fill.
    fn new_batch(&self) -> Self::Batch;
    /// One batch's results, in input order; a batch holds at least one game.
    fn batch(&mut self, batch: Self::Batch) -> io::Result<()>;
    /// An input (named as its findings are: `archive.zip:member.pgn` for
    /// a member of an archive) could not be opened or failed part-way
    /// (after its games).
    fn input_error(&mut self, name: &str, error: &io::Error);
    /// Whether the sink wants no more games (`filter --limit`): reading
    /// stops after the batch that made it so.
    fn finished(&self) -> bool {
        false
    }
}

/// How a batch takes one game's result.
pub trait Gather<R>: Send {
    fn push(&mut self, result: R);
}

impl<R: Send> Gather<R> for Vec<R> {
    fn push(&mut self, result: R) {
        Vec::push(self, result);
    }
}

/// A sink that takes the games one at a time, in input order (each one
/// decides what happens to the next: a limit, a copy, a file).
pub trait PerGame<R> {
    /// One game's result.
    fn result(&mut self, result: R) -> io::Result<()>;
    /// As [`Sink::input_error`].
    fn input_error(&mut self, name: &str, error: &io::Error);
    /// A batch was done (for progress messages).
    fn batch_done(&mut self) {}
    /// As [`Sink::finished`].
    fn finished(&self) -> bool {
        false
    }
}

impl<R: Send, T: PerGame<R>> Sink<R> for T {
    type Batch = Vec<R>;

    fn new_batch(&self) -> Vec<R> {
        Vec::new()
    }

    fn batch(&mut self, results: Vec<R>) -> io::Result<()> {
        for result in results {
            self.result(result)?;
        }
        self.batch_done();
        Ok(())
    }

    fn input_error(&mut self, name: &str, error: &io::Error) {
        PerGame::input_error(self, name, error);
    }

    fn finished(&self) -> bool {
        PerGame::finished(self)
    }
}

/// How the pipeline runs.
pub struct Options<'a> {
    pub sources: &'a [Source],
    pub threads: usize,
    pub frame: FrameOptions,
    pub bar: &'a Bar,
    /// Only this shard of the games (`--shard K/N`).
    pub shard: Option<Shard>,
    /// Counts the streams read beyond one per input (the second and later
    /// members of an archive), so that each member counts as an input.
    pub extra_inputs: &'a AtomicU64,
}

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

/// What reading the next batch gave.
enum Next {
    /// Games of the named input are in the batch.
    Games(Arc<str>),
    /// The named input could not be opened or read to its end.
    Failed(Arc<str>, io::Error),
    /// Every input is read.
    Done,
}

/// The stream being framed, and its name. The framer is boxed, off the
/// cache line of the lock it is shared under: a worker waiting for that
/// lock tries it every microsecond or so, and each try takes the line from
/// the framing worker's core, which, with the framer's state on it, then
/// fetched the line back at its next step (-j2 took 0.97 to 0.98 of its
/// time once it was boxed).
type Current = (Arc<str>, Box<Framer<Box<dyn io::Read + Send>>>);

/// The inputs, opened one after the other, each as the streams it holds
/// (one, or the members of an archive), cut into batches.
struct Batches<'a> {
    opts: &'a Options<'a>,
    /// Workers waiting for the framer, when several share it (see
    /// [`Handoff`]).
    waiting: Option<Arc<AtomicUsize>>,
    next_source: usize,
    /// The streams of the input being read, and how many it gave so far.
    streams: Option<(input::Streams, u64)>,
    current: Option<Current>,
}

impl<'a> Batches<'a> {
    fn new(opts: &'a Options<'a>, waiting: Option<Arc<AtomicUsize>>) -> Self {
        Batches { opts, waiting, next_source: 0, streams: None, current: None }
    }

    /// Fills `batch` with the next games (reusing its buffers).
    fn next(&mut self, batch: &mut Batch) -> Next {
        loop {
            if let Some((name, framer)) = &mut self.current {
                let name = Arc::clone(name);
                match framer.next_batch(batch) {
                    Ok(true) => return Next::Games(name),
                    Ok(false) => self.current = None,
                    Err(err) => {
                        self.current = None;
                        return Next::Failed(name, err);
                    }
                }
                continue;
            }
            if let Some((streams, given)) = &mut self.streams {
                let Some((name, stream)) = streams.next() else {
                    self.streams = None;
                    continue;
                };
                *given += 1;
                if *given > 1 {
                    self.opts.extra_inputs.fetch_add(1, Ordering::Relaxed);
                }
                let name = Arc::from(name);
                match stream {
                    Ok(reader) => {
                        let framer = Framer::with_options(reader, self.opts.frame);
                        let framer = match &self.waiting {
                            Some(waiting) => framer.share(Arc::clone(waiting)),
                            None => framer,
                        };
                        self.current = Some((name, Box::new(framer)));
                    }
                    Err(err) => return Next::Failed(name, err),
                }
                continue;
            }
            let Some(source) = self.opts.sources.get(self.next_source) else { return Next::Done };
            self.next_source += 1;
            self.streams = Some((input::open(source, self.opts.bar.progress(), self.opts.threads), 0));
        }
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
        let pool = rayon::ThreadPoolBuilder::new().num_threads(opts.threads - 1).build().map_err(io::Error::other)?;
        return run_pooled(opts, &pool, &wanted, &init, &work, sink);
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
                if let Some(results) =
                    gather(sink.new_batch(), &batch, first, wanted, |game| work(&mut state, &name, game))
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

/// The results of the wanted games of `batch` (its first game is number
/// `first` in the run), or none when no game is wanted.
fn gather<R, B: Gather<R>>(
    mut results: B,
    batch: &Batch,
    first: u64,
    wanted: impl Fn(u64) -> bool,
    mut work: impl FnMut(RawGame<'_>) -> R,
) -> Option<B> {
    let mut any = false;
    for (number, game) in (first..).zip(batch.games()) {
        if wanted(number) {
            results.push(work(game));
            any = true;
        }
    }
    any.then_some(results)
}

/// What a worker hands back for one numbered batch.
enum Outcome<B> {
    /// The batch's results; none when no game of it was wanted.
    Results(Option<B>),
    /// The named input failed after the batches before this one.
    InputError(Arc<str>, io::Error),
    /// The worker panicked on this batch.
    Panic(Box<dyn std::any::Any + Send>),
}

/// The inputs, cut into numbered batches by whichever worker needs one.
struct SharedFraming<'a> {
    batches: Batches<'a>,
    /// Number of the next batch framed.
    next_seq: u64,
    /// Games framed so far (the number of the next one, for `--shard`).
    framed: u64,
    done: bool,
}

/// The sink and the batches done but not yet handed to it.
struct Output<'s, K, B> {
    sink: &'s mut K,
    finished: BTreeMap<u64, Outcome<B>>,
    /// Number of the next batch the sink takes.
    next_out: u64,
    /// Empty result batches: one for each batch that may be framed and not
    /// yet handed to the sink, so when there is none, workers wait.
    free: Vec<B>,
    /// Workers waiting for a free result batch.
    waiting: usize,
    /// Every input is framed.
    input_done: bool,
    /// The run stops: the sink is finished or failed, or a worker panicked.
    stop: bool,
    error: Option<io::Error>,
    panic: Option<Box<dyn std::any::Any + Send>>,
}

/// The pooled loop of [`run`], on N threads (the calling thread and N-1
/// of the pool): each thread frames its own next batch (under a lock, so
/// in input order; or is given one by the thread framing, see
/// [`Handoff`]), works it, and hands what is done to the sink in input
/// order (under another lock: whoever finishes the next batch writes it,
/// and any after it that are done). No thread only waits on the others. At
/// most 4N+2 batches are framed and not yet written: a long game holds up
/// the output, not the workers, until that many pile up.
fn run_pooled<S, R, I, W, K>(
    opts: &Options<'_>,
    pool: &rayon::ThreadPool,
    wanted: &(impl Fn(u64) -> bool + Sync),
    init: &I,
    work: &W,
    sink: &mut K,
) -> io::Result<()>
where
    K: Sink<R> + Send,
    S: Send,
    I: Fn() -> S + Sync,
    W: Fn(&mut S, &Arc<str>, RawGame<'_>) -> R + Sync,
{
    let limit = 4 * opts.threads + 2;
    let waiting = Arc::new(AtomicUsize::new(0));
    let framing =
        SharedFraming { batches: Batches::new(opts, Some(Arc::clone(&waiting))), next_seq: 0, framed: 0, done: false };
    let framer = Mutex::new(framing);
    let handoff = Handoff::new(waiting);
    let free = (0..limit).map(|_| sink.new_batch()).collect();
    let output = Mutex::new(Output {
        sink,
        finished: BTreeMap::new(),
        next_out: 0,
        free,
        waiting: 0,
        input_done: false,
        stop: false,
        error: None,
        panic: None,
    });
    let room = Condvar::new();
    let worker = || {
        let run = std::panic::AssertUnwindSafe(|| {
            let mut state = None;
            work_batches(opts, &framer, &handoff, &output, &room, |batch, name, first, results| {
                // A name of this worker's own, so that the games' clones
                // of it do not share a count with the other workers.
                let name: Arc<str> = Arc::from(&**name);
                let state = state.get_or_insert_with(init);
                gather(results, batch, first, wanted, |game| work(state, &name, game))
            });
        });
        // A panic outside a batch's work (framing, the sink) stops the run
        // at once; the others then leave their loops.
        if let Err(panic) = std::panic::catch_unwind(run) {
            let mut output = lock(&output);
            output.panic.get_or_insert(panic);
            output.stop = true;
            room.notify_all();
        }
    };
    pool.in_place_scope(|scope| {
        for _ in 1..opts.threads {
            scope.spawn(|_| worker());
        }
        worker();
    });
    let output = output.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(panic) = output.panic {
        std::panic::resume_unwind(panic);
    }
    output.error.map_or(Ok(()), Err)
}

/// One worker's loop: wait for room, frame a batch, work it with `work`
/// (given the batch, its input, the number of its first game in the run
/// and an empty result batch), hand it over; until the input or the run
/// ends.
fn work_batches<R, K: Sink<R>>(
    opts: &Options<'_>,
    framer: &Mutex<SharedFraming<'_>>,
    handoff: &Handoff,
    output: &Mutex<Output<'_, K, K::Batch>>,
    room: &Condvar,
    mut work: impl FnMut(&Batch, &Arc<str>, u64, K::Batch) -> Option<K::Batch>,
) {
    let mut batch = Batch::default();
    loop {
        let results = {
            let mut output = lock(output);
            while output.free.is_empty() && !output.stop && !output.input_done {
                output.waiting += 1;
                output = room.wait(output).unwrap_or_else(std::sync::PoisonError::into_inner);
                output.waiting -= 1;
            }
            match output.free.pop() {
                Some(results) if !output.stop && !output.input_done => results,
                _ => return,
            }
        };
        let (seq, framed) = match framer_or_batch(framer, handoff, &mut batch) {
            Turn::Given(given) => (given.seq, Ok((given.name, given.first))),
            Turn::Frame(mut framer) => loop {
                if framer.done {
                    return;
                }
                let seq = framer.next_seq;
                match framer.batches.next(&mut batch) {
                    Next::Done => {
                        framer.done = true;
                        drop(framer);
                        lock(output).input_done = true;
                        room.notify_all();
                        return;
                    }
                    Next::Failed(name, err) => {
                        framer.next_seq += 1;
                        break (seq, Err((name, err)));
                    }
                    Next::Games(name) => {
                        framer.next_seq += 1;
                        let first = framer.framed;
                        framer.framed += batch.len() as u64;
                        // A worker waits for the framer: this batch is
                        // theirs, and this worker frames on for itself.
                        if handoff.give(&mut batch, Given { seq, name: Arc::clone(&name), first }) {
                            continue;
                        }
                        break (seq, Ok((name, first)));
                    }
                }
            },
        };
        let outcome = match framed {
            Err((name, err)) => Outcome::InputError(name, err),
            Ok((name, first)) => {
                let worked =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&batch, &name, first, results)));
                worked.map_or_else(Outcome::Panic, Outcome::Results)
            }
        };
        // A batch that held a huge game gives its memory back.
        if batch.capacity() > 4 * opts.frame.batch_bytes {
            batch = Batch::default();
        }
        let mut output = lock(output);
        output.finished.insert(seq, outcome);
        deliver(&mut output);
        if output.waiting > 0 {
            room.notify_all();
        }
    }
}

/// Hands the sink every finished batch that is next in input order, each
/// freeing room for one more.
fn deliver<R, K: Sink<R>>(output: &mut Output<'_, K, K::Batch>) {
    while !output.stop {
        let Some(outcome) = output.finished.remove(&output.next_out) else { return };
        output.next_out += 1;
        let written = match outcome {
            Outcome::Results(Some(results)) => output.sink.batch(results),
            Outcome::Results(None) => Ok(()),
            Outcome::InputError(name, err) => {
                output.sink.input_error(&name, &err);
                Ok(())
            }
            Outcome::Panic(panic) => {
                output.panic = Some(panic);
                output.stop = true;
                return;
            }
        };
        if let Err(err) = written {
            output.error = Some(err);
            output.stop = true;
            return;
        }
        if output.sink.finished() {
            output.stop = true;
            return;
        }
        let empty = output.sink.new_batch();
        output.free.push(empty);
    }
}

/// A batch framed by one worker for another.
struct Given {
    seq: u64,
    name: Arc<str>,
    first: u64,
}

/// Where workers that find the framer busy wait for a batch: each leaves
/// an empty batch buffer (a spare), and the worker framing gives its batch
/// in the spare's place as soon as the framer hands it out (early, as
/// [`Framer::share`] says), then frames on for itself. So a waiting worker
/// neither waits for a whole batch to be framed nor then frames one itself
/// on a core the framer's state is not on. (At -j2 framing is a third of
/// the work, and two of three takings of the framer found it busy.)
struct Handoff {
    slots: Mutex<Slots>,
    /// The spares left (the framer hands a batch out early while any are).
    waiting: Arc<AtomicUsize>,
    /// The batches handed out and not yet taken, read without the lock.
    given: AtomicUsize,
}

#[derive(Default)]
struct Slots {
    spares: Vec<Batch>,
    given: Vec<(Batch, Given)>,
}

impl Handoff {
    fn new(waiting: Arc<AtomicUsize>) -> Self {
        Handoff { slots: Mutex::default(), waiting, given: AtomicUsize::new(0) }
    }

    /// Gives `batch` to a waiting worker, if one left a spare, which takes
    /// its place.
    fn give(&self, batch: &mut Batch, given: Given) -> bool {
        if self.waiting.load(Ordering::Relaxed) == 0 {
            return false;
        }
        let mut slots = lock(&self.slots);
        let Some(spare) = slots.spares.pop() else { return false };
        self.waiting.fetch_sub(1, Ordering::Relaxed);
        let full = std::mem::replace(batch, spare);
        slots.given.push((full, given));
        self.given.fetch_add(1, Ordering::Release);
        true
    }

    fn wait(&self, batch: &mut Batch) {
        lock(&self.slots).spares.push(std::mem::take(batch));
        self.waiting.fetch_add(1, Ordering::Relaxed);
    }

    /// Takes back what the worker left: a batch given to it, or else a
    /// spare.
    fn take(&self, batch: &mut Batch) -> Option<Given> {
        let mut slots = lock(&self.slots);
        if let Some((full, given)) = slots.given.pop() {
            self.given.fetch_sub(1, Ordering::Relaxed);
            *batch = full;
            return Some(given);
        }
        *batch = slots.spares.pop().expect("a spare for each waiting worker");
        self.waiting.fetch_sub(1, Ordering::Relaxed);
        None
    }
}

/// What a worker does next.
enum Turn<'m, 'a> {
    /// Frame: it holds the framer.
    Frame(std::sync::MutexGuard<'m, SharedFraming<'a>>),
    /// Work the batch another worker framed for it.
    Given(Given),
}

/// The framer, or a batch framed by the worker that holds it. A worker
/// that finds the framer busy spins a while first: when framing is most
/// of the work (`filter` on tags alone), a worker comes back for the next
/// batch while another is still framing one, and going to sleep and being
/// woken again cost more than the framing left to wait for (a tag-only
/// filter at -j2 was slower than at -j1).
fn framer_or_batch<'m, 'a>(framer: &'m Mutex<SharedFraming<'a>>, handoff: &Handoff, batch: &mut Batch) -> Turn<'m, 'a> {
    // About the time to frame a batch at the speed of reading; more than
    // that and the holder may be off the core, so sleep instead.
    const SPIN: Duration = Duration::from_micros(200);
    let try_framer = || match framer.try_lock() {
        Ok(guard) => Some(guard),
        Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    };
    if let Some(guard) = try_framer() {
        return Turn::Frame(guard);
    }
    handoff.wait(batch);
    let start = Instant::now();
    let guard = loop {
        if handoff.given.load(Ordering::Acquire) > 0 {
            // Taken below, unless another waiting worker takes it first.
            break None;
        }
        if let Some(guard) = try_framer() {
            break Some(guard);
        }
        if start.elapsed() >= SPIN {
            break Some(lock(framer));
        }
        for _ in 0..64 {
            std::hint::spin_loop();
        }
    };
    match handoff.take(batch) {
        Some(given) => Turn::Given(given),
        None => Turn::Frame(guard.unwrap_or_else(|| lock(framer))),
    }
}

/// Locks a mutex of the run; one poisoned by a panic is still usable (the
/// panic itself is reported by the run).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
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
    fn a_waiting_worker_is_given_the_batch_being_framed_and_its_spare_takes_its_place() {
        use pgnkit::frame::{Batch, Framer};
        use std::sync::{Arc, atomic::AtomicUsize};

        use super::{Given, Handoff};

        let one_game = || {
            let mut batch = Batch::default();
            let mut framer = Framer::with_options(&b"[Event \"a\"]\n\n1. e4 *\n"[..], FrameOptions::default());
            assert!(framer.next_batch(&mut batch).unwrap());
            batch
        };
        let given = |seq| Given { seq, name: Arc::from("a.pgn"), first: 3 };
        let handoff = Handoff::new(Arc::new(AtomicUsize::new(0)));
        let waiting = || handoff.waiting.load(std::sync::atomic::Ordering::Relaxed);
        let mut framing = one_game();
        assert!(!handoff.give(&mut framing, given(6)), "nobody waits: the batch stays");
        assert_eq!(framing.len(), 1);

        let mut waiter = Batch::default();
        handoff.wait(&mut waiter);
        assert_eq!(waiting(), 1);
        assert!(handoff.give(&mut framing, given(7)));
        assert_eq!((framing.len(), waiting()), (0, 0), "the framing worker frames on in the spare");
        let taken = handoff.take(&mut waiter).expect("a batch was given");
        assert_eq!((taken.seq, taken.first, waiter.len()), (7, 3, 1));

        // Given nothing (the framer came free first), a worker takes its
        // spare back.
        handoff.wait(&mut waiter);
        assert!(handoff.take(&mut waiter).is_none());
        assert_eq!((waiter.len(), waiting()), (1, 0));
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
