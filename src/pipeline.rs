//! The one loop every game command runs: inputs -> batches of framed games ->
//! work on a rayon pool -> results handed to a sink in input order.
//!
//! While the pool works on one batch, framing the next batch is one more task
//! in the same pool (`rayon::join`), so N threads stay busy with N cores and
//! no extra reader thread competes with them. Two batch buffers alternate, so
//! memory stays at two batches whatever the input size. With one thread the
//! same steps run in order on the calling thread.
//!
//! `--shard K/N` is applied here, once for every command: a game is framed
//! (its end must be found to find the next one) but handed to the work only
//! when its number in the run is K modulo N, so the other games cost only
//! their framing.

use std::{io, str::FromStr, sync::Arc};

use indicatif::ProgressBar;
use pgnkit::{
    input::{self, Source},
    split::{Batch, RawGame, SplitOptions, Splitter},
};
use rayon::prelude::*;

use crate::progress;

/// Where the pipeline reports to.
pub trait Sink<R> {
    /// One game's result, in input order.
    fn result(&mut self, result: R) -> io::Result<()>;
    /// An input could not be opened or failed part-way (after its games).
    fn input_error(&mut self, source: &Source, error: &io::Error);
    /// A batch was done (for progress messages).
    fn batch_done(&mut self) {}
    /// Whether the sink wants no more games (`filter --limit`): reading
    /// stops after the batch that made it so.
    fn finished(&self) -> bool {
        false
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
/// With a pool, the sink takes the results of one batch while the pool
/// works on the next (and frames the one after), so printing does not hold
/// the workers up.
///
/// # Errors
///
/// Only errors of the sink (writing the output); input errors go to
/// [`Sink::input_error`] and the run continues with the next input.
pub fn run<S, R, I, W>(opts: &Options<'_>, init: I, work: W, sink: &mut (impl Sink<R> + Send)) -> io::Result<()>
where
    R: Send,
    I: Fn() -> S + Sync + Send,
    W: Fn(&mut S, &Arc<str>, RawGame<'_>) -> R + Sync + Send,
{
    let names: Vec<Arc<str>> = opts.sources.iter().map(|s| Arc::from(s.to_string())).collect();
    let pool = if opts.threads > 1 {
        Some(rayon::ThreadPoolBuilder::new().num_threads(opts.threads).build().map_err(io::Error::other)?)
    } else {
        None
    };
    // Per-thread state for the inline path; the pool makes its own.
    let mut state = pool.is_none().then(&init);
    let mut batches = Batches::new(opts);
    let wanted = |number: u64| opts.shard.is_none_or(|shard| shard.holds(number));
    // Games framed before the current batch: the run-wide number of its first.
    let mut framed: u64 = 0;
    let (mut current, mut spare) = (Batch::default(), Batch::default());
    // Results of the batch before, not yet handed to the sink.
    let mut pending: Vec<R> = Vec::new();
    let mut next = batches.next(&mut current);
    loop {
        let source = match next {
            Next::Done => return drain(sink, pending),
            Next::Failed(index, err) => {
                // Games read before the failure come first.
                drain(sink, std::mem::take(&mut pending))?;
                sink.input_error(&opts.sources[index], &err);
                next = batches.next(&mut current);
                continue;
            }
            Next::Games(source) => source,
        };
        let name = &names[source];
        let batch = &current;
        let (following, results) = match &pool {
            None => {
                drain(sink, std::mem::take(&mut pending))?;
                if sink.finished() {
                    return Ok(());
                }
                let state = state.as_mut().expect("made for the inline path");
                let results: Vec<R> = (framed..)
                    .zip(batch.games())
                    .filter(|(number, _)| wanted(*number))
                    .map(|(_, game)| work(state, name, game))
                    .collect();
                (batches.next(&mut spare), results)
            }
            Some(pool) => {
                let earlier = std::mem::take(&mut pending);
                let ((following, drained), results) = pool.install(|| {
                    rayon::join(
                        || (batches.next(&mut spare), drain(sink, earlier)),
                        || {
                            batch
                                .frames()
                                .par_iter()
                                .enumerate()
                                .filter(|(i, _)| wanted(framed + *i as u64))
                                .map_init(&init, |state, (_, frame)| work(state, name, batch.game(frame)))
                                .collect::<Vec<R>>()
                        },
                    )
                });
                drained?;
                if sink.finished() {
                    return Ok(());
                }
                (following, results)
            }
        };
        pending = results;
        framed += current.len() as u64;
        std::mem::swap(&mut current, &mut spare);
        next = following;
    }
}

/// Hands one batch's results to the sink, in order.
fn drain<R>(sink: &mut impl Sink<R>, results: Vec<R>) -> io::Result<()> {
    if results.is_empty() {
        return Ok(());
    }
    for result in results {
        sink.result(result)?;
    }
    sink.batch_done();
    Ok(())
}
