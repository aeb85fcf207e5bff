//! Every knob of the scheduler in one place: how large a batch is, how
//! many are in flight, how long a worker spins for the framer, what the
//! sink keeps between batches; each with the measurement or the memory
//! bound that chose it.
//!
//! The rule (docs/performance.md): no knob changes, and none is added,
//! without a gain of 5% or more measured as CPU or instructions, or a
//! reason of correctness or memory. The figures are medians of paired,
//! alternated runs on `mix100.pgn` unless said otherwise; the commits named
//! hold the rest (`git log -S NAME`).
//!
//! - Batch size, [`Schedule::batch_bytes`] (64 KiB) and
//!   [`Schedule::batch_games`] (1,024): a batch stays in cache from framing
//!   to checking. 1 MiB batches took more CPU at `-j2` (5d8d1f0); against
//!   64 KiB at 0.533 to 0.536 of `-j1`, 32 KiB gave 0.567, 128 KiB 0.531 to
//!   0.540, 256 KiB 0.533; 16 KiB ran `-j1` 1.6% faster but `-j2` slower
//!   (a long game is copied from window to window). The game count bounds
//!   the frames and results of a batch of tiny games (memory).
//! - In flight, [`Schedule::in_flight`] (4N+2 batches framed and not yet
//!   written): more than N, so that a slow batch holds up the output, not
//!   the workers (e1e2e90); 4N+2 rather than 16N, peak memory at `-j2` a
//!   megabyte lower (cebb406).
//! - [`Schedule::keep_batch`] (a batch buffer grown past 4 batches is
//!   dropped): a batch that held a huge game gives its memory back
//!   (memory, e1e2e90).
//! - [`Schedule::spin`] (200 µs, in pauses of [`Schedule::spin_pauses`]):
//!   a worker that finds the framer held spins before it sleeps; a tag-only
//!   filter at `-j2` took 149 ms against 174 ms without the spin, and 190
//!   ms at `-j1` (4723d1d). 200 µs is about the time to frame a batch at
//!   the speed of reading: past it the holder may be off its core. The
//!   pause instruction stays: spinning without it gave 1.005 of the time.
//! - [`Schedule::max_out_hint`] (1 MiB): a batch's output buffer starts
//!   with room for half as much again as the last batch wrote
//!   (`validate --format jsonl`: 577.1 M to 575.0 M instructions, 263cdae,
//!   kept from before the rule), never more than this, as a batch with a
//!   huge game says nothing of the next (memory).
//! - [`Schedule::fen_batch_lines`] (4,096 lines): `fen check`'s batches on
//!   the pool; enough records to keep the threads busy, few enough that
//!   memory does not grow with the input (memory).
//!
//! - The framer's hand-out, [`Schedule::hand_out`] ([`HandOut`], the
//!   policy [`Framer::share`] follows): while a worker waits for the
//!   framer, a batch goes out at an eighth of [`Schedule::batch_bytes`] (8
//!   KiB) once the next game has begun with tags, and is given to that
//!   worker. At a quarter a batch kept the waiting worker idle 30 to 40 µs
//!   a time; against the build before, `convert --to uci -j2` took 0.984 at
//!   a quarter, 0.990 at an eighth and 1.036 at a sixteenth (51fe41c). A
//!   full batch waits for its window to be read, up to twice
//!   [`Schedule::batch_bytes`], so that the next window copies only the
//!   open game (`validate -j1`: 0.7% fewer instructions on sample10, 6% on
//!   the first 10 MB of the mix), and tag-less games overfill a batch at
//!   most four times (memory).
//!
//! Set elsewhere:
//!
//! - `input::ahead`: the decompressing thread's four chunks of 128 KiB
//!   (memory: a bomb of zeros stays four chunks).
//!
//! [`Framer::share`]: pgnkit::frame::Framer::share
//! [`HandOut`]: pgnkit::frame::HandOut

use std::time::Duration;

use pgnkit::frame::{FrameOptions, HandOut};

/// The scheduler's knobs (the module's documentation gives the reason
/// for each value).
#[derive(Debug, Clone, Copy)]
pub struct Schedule {
    /// A batch is handed out once its games hold this many bytes... (it
    /// stays in cache from framing to checking; 32 and 128 KiB were slower
    /// at `-j2`, 1 MiB took more CPU)
    pub batch_bytes: usize,
    /// ... or this many games (memory: a batch of tiny games).
    pub batch_games: usize,
    /// Batches framed and not yet written, per thread... (more than one, so
    /// that a slow batch holds up the output and not the workers)
    pub in_flight_per_thread: usize,
    /// ... and this many more (4N+2 rather than 16N: a megabyte less at
    /// `-j2`).
    pub in_flight_more: usize,
    /// A worker's batch buffer is kept for its next batch while it holds
    /// at most this many batches' worth of bytes (memory: a huge game's
    /// buffer is given back).
    pub keep_batch: usize,
    /// How long a worker that finds the framer held spins before it
    /// sleeps on the lock (a tag-only filter at `-j2`: 149 ms against 174
    /// without the spin).
    pub spin: Duration,
    /// Pause instructions between two tries of the framer's lock (without
    /// the pause: no faster, 1.005 of the time).
    pub spin_pauses: u32,
    /// The largest output buffer a new batch starts with (memory: a batch
    /// with a huge game says nothing of the next).
    pub max_out_hint: usize,
    /// Lines of `fen check`'s batches (memory: a batch at a time, whatever
    /// the input).
    pub fen_batch_lines: usize,
    /// When the framer hands a batch out to a waiting worker (an eighth of
    /// a batch: the waiting worker idles least), and how far a batch may
    /// outgrow its size (memory).
    pub hand_out: HandOut,
}

/// The schedule every run uses.
pub const SCHEDULE: Schedule = Schedule {
    batch_bytes: 64 << 10,
    batch_games: 1024,
    in_flight_per_thread: 4,
    in_flight_more: 2,
    keep_batch: 4,
    spin: Duration::from_micros(200),
    spin_pauses: 64,
    max_out_hint: 1 << 20,
    fen_batch_lines: 4096,
    hand_out: HandOut { early_share: 8, window_read_within: 2, overfull: 4 },
};

impl Schedule {
    /// Batches framed and not yet written, at most, with `threads` workers.
    pub const fn in_flight(&self, threads: usize) -> usize {
        self.in_flight_per_thread * threads + self.in_flight_more
    }

    /// The framer's limits: this schedule's batches, games cut past
    /// `max_game_bytes`.
    pub const fn frame_options(&self, max_game_bytes: usize) -> FrameOptions {
        FrameOptions {
            max_game_bytes,
            batch_bytes: self.batch_bytes,
            batch_games: self.batch_games,
            hand_out: self.hand_out,
            keep_notes: false,
        }
    }

    /// Whether a batch buffer of `capacity` bytes is kept for the next
    /// batch of a run framed with `opts`.
    pub const fn keeps_batch(&self, capacity: usize, opts: &FrameOptions) -> bool {
        capacity <= self.keep_batch * opts.batch_bytes
    }
}

#[cfg(test)]
mod tests {
    use pgnkit::frame::FrameOptions;

    use super::SCHEDULE;

    #[test]
    fn the_schedules_batches_and_hand_out_are_the_framers_defaults() {
        // The library's default (benchmarks, the fuzzers) frames as runs do.
        let (ours, default) = (SCHEDULE.frame_options(1), FrameOptions::default());
        assert_eq!((ours.batch_bytes, ours.batch_games), (default.batch_bytes, default.batch_games));
        assert_eq!(ours.hand_out, default.hand_out);
    }
}
