//! What the pipeline asks of the commands that run it: the sink it hands
//! results to, in input order ([`Sink`], or [`PerGame`] for a sink that
//! takes the games one at a time), and how it runs ([`Options`]).

use std::{io, sync::atomic::AtomicU64};

use pgnkit::{
    frame::{FrameOptions, shard::Shard},
    input::Source,
};

use crate::progress::Bar;

/// Where the pipeline reports to. With several threads, its calls come
/// from any of them, one at a time, in input order.
pub trait Sink<R> {
    /// One batch's results, gathered on the worker that made them: a worker
    /// can add up or concatenate them there, outside the sink's lock, so
    /// the sink handles one value per batch, not per game.
    type Batch: Send;
    /// An empty batch, for a worker to fill.
    fn new_batch(&self) -> Self::Batch;
    /// Before the work on each game of a batch, on the worker: the batch
    /// may lend that work what it holds (its output, for the game's to be
    /// written onto its end, where a copy of each game's output cost as
    /// much as a tenth of writing it). [`Sink::gather`] takes it back.
    fn lend(_batch: &mut Self::Batch) {}
    /// Adds one game's result to a batch, on the worker that made it.
    fn gather(batch: &mut Self::Batch, result: R);
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

    fn gather(batch: &mut Vec<R>, result: R) {
        batch.push(result);
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
