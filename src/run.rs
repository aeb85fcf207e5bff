//! The run's side of a game-reading command: its inputs and how to read
//! them ([`Run`]), and what it found, for the summary line on stderr and
//! the exit status ([`Tally`]).

#![allow(clippy::print_stderr)]

use std::{
    io::Write,
    sync::atomic::{AtomicU64, Ordering},
};

use pgnkit::{frame::FrameOptions, input::Source, report::Summary};

use crate::{
    cli::{GlobalArgs, Inputs},
    exit::ExitStatus,
    pipeline::{self, schedule::SCHEDULE},
    progress::Bar,
    sink::{Fold, OrderedSink},
};

/// `1 game`, `2 games`.
pub(crate) fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What a checking command (validate, fen check) found, for its summary
/// line on stderr and its exit status.
pub(crate) struct Tally {
    /// What was done: `checked`, `converted`.
    pub verb: &'static str,
    /// What was checked: `("game", "games")`.
    pub noun: (&'static str, &'static str),
    pub items: u64,
    pub inputs: u64,
    pub valid: u64,
    /// Items neither valid nor invalid: games that could not be replayed
    /// and have no error.
    pub unchecked: u64,
    pub errors: u64,
    pub warnings: u64,
    pub infos: u64,
    /// Inputs that could not be read.
    pub input_errors: u64,
}

impl Tally {
    /// The tally of a game-reading command.
    pub fn games(verb: &'static str, summary: &Summary, inputs: u64, input_errors: u64) -> Tally {
        Tally {
            verb,
            noun: ("game", "games"),
            items: summary.games,
            inputs,
            valid: summary.valid_games,
            unchecked: summary.unchecked_games,
            errors: summary.errors,
            warnings: summary.warnings,
            infos: summary.infos,
            input_errors,
        }
    }

    /// Items with an error.
    pub fn invalid(&self) -> u64 {
        self.items - self.valid - self.unchecked
    }

    /// `2 valid, 1 invalid`, and `, 1 not checked` when a game could not
    /// be replayed.
    pub fn validity(&self) -> String {
        let mut counts = format!("{} valid, {} invalid", self.valid, self.invalid());
        if self.unchecked > 0 {
            counts.push_str(&format!(", {} not checked", self.unchecked));
        }
        counts
    }

    /// `pgnkit: checked 3 games in 1 input: 2 valid, 1 invalid; 1 error, 0 warnings`.
    pub fn summary_line(&self) -> String {
        let mut line = format!(
            "pgnkit: {} {} in {}: {}; {}, {}",
            self.verb,
            plural(self.items, self.noun.0, self.noun.1),
            plural(self.inputs, "input", "inputs"),
            self.validity(),
            plural(self.errors, "error", "errors"),
            plural(self.warnings, "warning", "warnings"),
        );
        if self.infos > 0 {
            line.push_str(&format!(", {} info", self.infos));
        }
        if self.input_errors > 0 {
            line.push_str(&format!("; {} could not be read", plural(self.input_errors, "input", "inputs")));
        }
        line
    }

    /// 2 when an input could not be read, else 1 when an item is invalid (or
    /// has a warning, with `deny_warnings`). A game that could not be
    /// replayed fails the run only by its error or warning: an unusable
    /// FEN tag is an error, an unsupported variant a warning, as a reader
    /// that knows only chess does not know whether its moves are legal.
    pub fn status(&self, deny_warnings: bool) -> ExitStatus {
        if self.input_errors > 0 {
            ExitStatus::Error
        } else if self.invalid() > 0 || (deny_warnings && self.warnings > 0) {
            ExitStatus::Failure
        } else {
            ExitStatus::Success
        }
    }
}

/// The inputs of a run, and how to read them.
pub(crate) struct Run {
    pub sources: Vec<Source>,
    pub bar: Bar,
    pub threads: usize,
    pub frame: FrameOptions,
    pub shard: Option<pgnkit::frame::shard::Shard>,
    /// Inputs read beyond the sources: the second and later members of
    /// archives.
    pub extra_inputs: AtomicU64,
}

impl Run {
    /// Stdin when no path is given; games over `max_game_mib` are cut.
    pub fn new(inputs: &Inputs, max_game_mib: usize, global: &GlobalArgs) -> Run {
        let sources: Vec<Source> = if inputs.paths.is_empty() {
            vec![Source::Stdin]
        } else {
            pgnkit::input::expand_paths(&inputs.paths).iter().map(|p| Source::from_arg(p)).collect()
        };
        let total = sources.iter().map(Source::size).sum::<Option<u64>>();
        let bar = Bar::new(total, sources.iter().any(Source::is_typed), global.bar_settings());
        let threads = global.threads();
        let frame = SCHEDULE.frame_options(max_game_mib.saturating_mul(1 << 20));
        Run { sources, bar, threads, frame, shard: inputs.shard, extra_inputs: AtomicU64::new(0) }
    }

    pub fn options(&self) -> pipeline::Options<'_> {
        pipeline::Options {
            sources: &self.sources,
            threads: self.threads,
            frame: self.frame,
            bar: &self.bar,
            shard: self.shard,
            extra_inputs: &self.extra_inputs,
        }
    }

    /// The inputs of the run, for its summary line: each member of an
    /// archive counts as one, as does every input not read (after
    /// `--limit`, say) or not readable.
    pub fn inputs(&self) -> u64 {
        self.sources.len() as u64 + self.extra_inputs.load(Ordering::Relaxed)
    }

    /// Flushes the output, prints the summary line (`checked 3 games ...`,
    /// unless quiet) and gives the exit status.
    pub fn finish<W: Write, F: Fold>(
        &self,
        sink: &mut OrderedSink<W, F>,
        verb: &'static str,
        quiet: bool,
        deny_warnings: bool,
    ) -> anyhow::Result<ExitStatus> {
        // Off the screen before the last output, not left above it.
        self.bar.finish_and_clear();
        sink.finish()?;
        let tally = Tally::games(verb, &sink.summary, self.inputs(), sink.input_errors);
        if !quiet {
            say!("{}", tally.summary_line());
        }
        Ok(tally.status(deny_warnings))
    }
}

#[cfg(test)]
mod tests {
    use super::Tally;
    use crate::exit::ExitStatus;

    fn tally(valid: u64, warnings: u64, input_errors: u64) -> Tally {
        Tally {
            verb: "checked",
            noun: ("position", "positions"),
            items: 3,
            inputs: 2,
            valid,
            unchecked: 0,
            errors: 3 - valid,
            warnings,
            infos: 0,
            input_errors,
        }
    }

    #[test]
    fn the_summary_line_counts_items_and_failed_inputs() {
        assert_eq!(
            tally(2, 1, 1).summary_line(),
            "pgnkit: checked 3 positions in 2 inputs: 2 valid, 1 invalid; 1 error, 1 warning; 1 input could not be read"
        );
    }

    #[test]
    fn an_unreadable_input_wins_over_invalid_items_and_warnings_fail_only_when_denied() {
        assert_eq!(tally(2, 0, 1).status(false), ExitStatus::Error);
        assert_eq!(tally(2, 0, 0).status(false), ExitStatus::Failure);
        assert_eq!(tally(3, 1, 0).status(false), ExitStatus::Success);
        assert_eq!(tally(3, 1, 0).status(true), ExitStatus::Failure);
    }

    #[test]
    fn games_not_checked_are_neither_valid_nor_invalid_and_fail_only_by_their_warnings() {
        let tally = Tally { noun: ("game", "games"), unchecked: 1, errors: 0, ..tally(2, 1, 0) };
        assert_eq!(tally.invalid(), 0);
        assert_eq!(
            tally.summary_line(),
            "pgnkit: checked 3 games in 2 inputs: 2 valid, 0 invalid, 1 not checked; 0 errors, 1 warning"
        );
        assert_eq!(tally.status(false), ExitStatus::Success);
        assert_eq!(tally.status(true), ExitStatus::Failure);
    }
}
