//! The one loop every game command runs: inputs -> batches of framed games ->
//! work on a rayon pool -> results handed to a sink in input order.
//!
//! With N threads, the calling thread frames batches and hands each to a
//! rayon pool of N workers as one task, keeping 2N+2 batches queued; finished
//! batches come back in any order and their results go to the sink in input
//! order. A worker gathers its batch's results as the sink asks (most
//! commands concatenate the output and add up the totals there), so the
//! calling thread takes one value per batch, not one per game. Framing is the lighter part of most commands, so the caller
//! sleeps much of the time and the workers keep the cores busy; nothing
//! waits for every thread to finish a batch. Batch buffers are
//! recycled, so memory stays at a few batches per thread whatever the input
//! size. With one thread the same steps run in order on the calling thread.
//!
//! `--shard K/N` is applied here, once for every command: a game is framed
//! (its end must be found to find the next one) but handed to the work only
//! when its number in the run is K modulo N, so the other games cost only
//! their framing.

use std::{
    collections::BTreeMap,
    io,
    str::FromStr,
    sync::{Arc, Mutex, mpsc},
};

use indicatif::ProgressBar;
use pgnkit::{
    input::{self, Source},
    split::{Batch, RawGame, SplitOptions, Splitter},
};

use crate::progress;

/// Where the pipeline reports to.
pub trait Sink<R> {
    /// One batch's results, gathered on the worker that made them: a worker
    /// can add up or concatenate them there, so the calling thread (which
    /// also frames the input) handles one value per batch, not per game.
    type Batch: Gather<R>;
    /// An empty batch, made on the calling thread for a worker to fill.
    fn new_batch(&self) -> Self::Batch;
    /// One batch's results, in input order; a batch holds at least one game.
    fn batch(&mut self, batch: Self::Batch) -> io::Result<()>;
    /// An input could not be opened or failed part-way (after its games).
    fn input_error(&mut self, source: &Source, error: &io::Error);
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
    fn input_error(&mut self, source: &Source, error: &io::Error);
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

    fn input_error(&mut self, source: &Source, error: &io::Error) {
        PerGame::input_error(self, source, error);
    }

    fn finished(&self) -> bool {
        PerGame::finished(self)
    }
}

/// How the pipeline runs.
pub struct Options<'a> {
    pub sources: &'a [Source],
    pub threads: usize,
    pub split: SplitOptions,
    pub bar: &'a ProgressBar,
    /// Only this shard of the games (`--shard K/N`).
    pub shard: Option<Shard>,
}

/// `--shard K/N`: the games whose 0-based number in the run, counted over
/// all the inputs in order, is K modulo N. `0/N` to `N-1/N` partition the
/// games exactly as `split --shards N` does (its file K+1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    /// Whether the game numbered `number` (0-based, in the run) is in it.
    pub fn holds(self, number: u64) -> bool {
        number % self.count == self.index
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let usage = || "expected K/N: two whole numbers with 0 <= K < N, such as 0/4".to_owned();
        let (k, n) = text.split_once('/').ok_or_else(usage)?;
        let (index, count): (u64, u64) = (k.parse().map_err(|_| usage())?, n.parse().map_err(|_| usage())?);
        if count == 0 {
            return Err("N, the number of shards, must be at least 1".to_owned());
        }
        if index >= count {
            return Err(format!(
                "K counts from 0 and must be less than N: the shards of {count} are 0/{count} to {}/{count}",
                count - 1
            ));
        }
        Ok(Shard { index, count })
    }
}

/// What reading the next batch gave.
enum Next {
    /// Games of input `usize` are in the batch.
    Games(usize),
    /// Input `usize` could not be opened or read to its end.
    Failed(usize, io::Error),
    /// Every input is read.
    Done,
}

/// The inputs, opened one after the other and cut into batches.
struct Batches<'a> {
    opts: &'a Options<'a>,
    next_source: usize,
    current: Option<(usize, Splitter<Box<dyn io::Read + Send>>)>,
}

impl<'a> Batches<'a> {
    fn new(opts: &'a Options<'a>) -> Self {
        Batches { opts, next_source: 0, current: None }
    }

    /// Fills `batch` with the next games (reusing its buffers).
    fn next(&mut self, batch: &mut Batch) -> Next {
        loop {
            if let Some((index, splitter)) = &mut self.current {
                let index = *index;
                match splitter.next_batch(batch) {
                    Ok(true) => return Next::Games(index),
                    Ok(false) => self.current = None,
                    Err(err) => {
                        self.current = None;
                        return Next::Failed(index, err);
                    }
                }
                continue;
            }
            let index = self.next_source;
            let Some(source) = self.opts.sources.get(index) else { return Next::Done };
            self.next_source += 1;
            match source.open().and_then(|raw| input::decode(progress::wrap(self.opts.bar, raw))) {
                Ok((_, reader)) => self.current = Some((index, Splitter::with_options(reader, self.opts.split))),
                Err(err) => return Next::Failed(index, err),
            }
        }
    }
}

/// Runs `work` on every game of every source; `init` makes per-thread state.
///
/// With a pool, each batch is one task: the calling thread frames the
/// batches, hands them to the pool and gives the sink the results of
/// finished batches in input order. No step waits for a whole batch to be
/// done on every thread, so a long game holds up one worker, not all of them.
///
/// # Errors
///
/// Only errors of the sink (writing the output); input errors go to
/// [`Sink::input_error`] and the run continues with the next input.
pub fn run<S, R, I, W, K>(opts: &Options<'_>, init: I, work: W, sink: &mut K) -> io::Result<()>
where
    K: Sink<R>,
    S: Send,
    I: Fn() -> S + Sync,
    W: Fn(&mut S, &Arc<str>, RawGame<'_>) -> R + Sync,
{
    let names: Vec<Arc<str>> = opts.sources.iter().map(|s| Arc::from(s.to_string())).collect();
    let wanted = |number: u64| opts.shard.is_none_or(|shard| shard.holds(number));
    if opts.threads > 1 {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(opts.threads).build().map_err(io::Error::other)?;
        return run_pooled(opts, &pool, &names, &wanted, &init, &work, sink);
    }
    let mut state = init();
    let mut batches = Batches::new(opts);
    let mut framed: u64 = 0;
    let mut batch = Batch::default();
    loop {
        match batches.next(&mut batch) {
            Next::Done => return Ok(()),
            Next::Failed(index, err) => sink.input_error(&opts.sources[index], &err),
            Next::Games(source) => {
                let first = framed;
                framed += batch.len() as u64;
                if let Some(results) =
                    gather(sink.new_batch(), &batch, first, wanted, |game| work(&mut state, &names[source], game))
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

/// A batch the pool is done with, and its results (or its worker's panic).
struct Done<B> {
    seq: u64,
    results: std::thread::Result<Option<B>>,
    batch: Batch,
}

/// The batches in the pool's hands, and the finished ones waiting for those
/// before them.
struct InFlight<B> {
    tx: mpsc::Sender<Done<B>>,
    rx: mpsc::Receiver<Done<B>>,
    /// Number of the next batch handed out, and of the next one to drain.
    next_seq: u64,
    next_out: u64,
    /// Batches handed out and not yet back from the pool.
    working: u64,
    /// Bytes of the batches handed out and not yet drained.
    bytes: usize,
    finished: BTreeMap<u64, Done<B>>,
    /// Emptied batches, for their buffers.
    free: Vec<Batch>,
}

/// How far the framer runs ahead of the sink.
struct Limits {
    /// Batches queued or being worked on: enough that no worker waits.
    working: u64,
    /// Batches not yet drained, finished ones included: a long game holds
    /// up the output, not the workers, until this many pile up.
    undrained: u64,
    /// ... and their bytes (a batch holding a huge game counts in full).
    bytes: usize,
    /// Buffers larger than this are not kept for reuse.
    keep_buffer: usize,
}

impl<B> InFlight<B> {
    fn new() -> Self {
        let (tx, rx) = mpsc::channel();
        InFlight { tx, rx, next_seq: 0, next_out: 0, working: 0, bytes: 0, finished: BTreeMap::new(), free: Vec::new() }
    }

    fn undrained(&self) -> u64 {
        self.next_seq - self.next_out
    }

    fn receive(&mut self, done: Done<B>) {
        self.working -= 1;
        self.finished.insert(done.seq, done);
    }

    /// Gives the sink every finished batch that is next in input order,
    /// waiting for batches while `wait` says there are too many about.
    fn drain<R>(
        &mut self,
        sink: &mut impl Sink<R, Batch = B>,
        limits: &Limits,
        wait: impl Fn(&Self) -> bool,
    ) -> io::Result<()> {
        loop {
            while let Ok(done) = self.rx.try_recv() {
                self.receive(done);
            }
            while let Some(done) = self.finished.remove(&self.next_out) {
                self.next_out += 1;
                // The batch comes back as it went: its games' bytes are those counted.
                self.bytes -= done.batch.bytes();
                match done.results {
                    Ok(Some(results)) => sink.batch(results)?,
                    Ok(None) => {}
                    Err(panic) => std::panic::resume_unwind(panic),
                }
                let mut batch = done.batch;
                // A batch that held a huge game gives its memory back.
                if batch.capacity() > limits.keep_buffer {
                    batch = Batch::default();
                }
                self.free.push(batch);
            }
            if self.working == 0 || !wait(self) || sink.finished() {
                return Ok(());
            }
            // A task always sends (its panic included), so this returns.
            let done = self.rx.recv().expect("the run holds a sender");
            self.receive(done);
        }
    }
}

/// The pooled loop of [`run`].
fn run_pooled<S, R, I, W, K>(
    opts: &Options<'_>,
    pool: &rayon::ThreadPool,
    names: &[Arc<str>],
    wanted: &(impl Fn(u64) -> bool + Sync),
    init: &I,
    work: &W,
    sink: &mut K,
) -> io::Result<()>
where
    K: Sink<R>,
    S: Send,
    I: Fn() -> S + Sync,
    W: Fn(&mut S, &Arc<str>, RawGame<'_>) -> R + Sync,
{
    let threads = opts.threads as u64;
    let limits = Limits {
        working: 2 * threads + 2,
        undrained: 4 * threads + 2,
        bytes: (4 * opts.threads + 2) * opts.split.batch_bytes,
        keep_buffer: 4 * opts.split.batch_bytes,
    };
    let busy = |f: &InFlight<K::Batch>| {
        f.working >= limits.working || f.undrained() >= limits.undrained || f.bytes > limits.bytes
    };
    // Worker state outlives a batch: parsers and buffers are made once per
    // pool thread, and always used by that thread, so they stay in its
    // core's cache.
    let states: Vec<Mutex<Option<S>>> = (0..opts.threads).map(|_| Mutex::new(None)).collect();
    let mut flight = InFlight::new();
    let mut batches = Batches::new(opts);
    let mut framed: u64 = 0;
    pool.in_place_scope_fifo(|scope| {
        loop {
            let mut batch = flight.free.pop().unwrap_or_default();
            let source = match batches.next(&mut batch) {
                Next::Games(source) => source,
                next => {
                    flight.free.push(batch);
                    // Games read before a failure or the end come first.
                    flight.drain(sink, &limits, |f| f.undrained() > 0)?;
                    match next {
                        Next::Failed(index, err) if !sink.finished() => {
                            sink.input_error(&opts.sources[index], &err);
                            continue;
                        }
                        _ => return Ok(()),
                    }
                }
            };
            let (seq, first, name, tx) = (flight.next_seq, framed, &names[source], flight.tx.clone());
            let results = sink.new_batch();
            framed += batch.len() as u64;
            flight.next_seq += 1;
            flight.working += 1;
            flight.bytes += batch.bytes();
            let states = &states;
            scope.spawn_fifo(move |_| {
                let results = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let slot = &states[rayon::current_thread_index().unwrap_or(0) % states.len()];
                    let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
                    let state = slot.get_or_insert_with(init);
                    // The batch's own copy of the name: results clone it for
                    // every game, and one count shared by every thread would
                    // bounce between the cores at each clone and drop.
                    let name: Arc<str> = Arc::from(&**name);
                    gather(results, &batch, first, wanted, |game| work(state, &name, game))
                }));
                // The receiver lives until the scope ends.
                let _ = tx.send(Done { seq, results, batch });
            });
            flight.drain(sink, &limits, busy)?;
            if sink.finished() {
                return Ok(());
            }
        }
    })
}
