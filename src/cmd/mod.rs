//! One module per subcommand; this file only dispatches.

mod convert;
mod dedup;
mod fen_check;
mod fen_show;
mod filter;
mod games;
mod moves;
mod perft;
mod ratings;
mod split_files;
mod stats;
mod validate;

use std::io::Write as _;

use clap::CommandFactory;
use pgnkit::report::Summary;

use crate::{
    cli::{Cli, Command, FenCommand},
    exit::ExitStatus,
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
    pub errors: u64,
    pub warnings: u64,
    pub infos: u64,
    /// Inputs that could not be read.
    pub input_errors: u64,
}

impl Tally {
    /// The tally of a game-reading command.
    pub fn games(verb: &'static str, summary: &Summary, inputs: usize, input_errors: u64) -> Tally {
        Tally {
            verb,
            noun: ("game", "games"),
            items: summary.games,
            inputs: inputs as u64,
            valid: summary.valid_games,
            errors: summary.errors,
            warnings: summary.warnings,
            infos: summary.infos,
            input_errors,
        }
    }

    /// `pgnkit: checked 3 games in 1 input: 2 valid, 1 invalid; 1 error, 0 warnings`.
    pub fn summary_line(&self) -> String {
        let mut line = format!(
            "pgnkit: {} {} in {}: {} valid, {} invalid; {}, {}",
            self.verb,
            plural(self.items, self.noun.0, self.noun.1),
            plural(self.inputs, "input", "inputs"),
            self.valid,
            self.items - self.valid,
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
    /// has a warning, with `deny_warnings`).
    pub fn status(&self, deny_warnings: bool) -> ExitStatus {
        if self.input_errors > 0 {
            ExitStatus::Error
        } else if self.valid < self.items || (deny_warnings && self.warnings > 0) {
            ExitStatus::Failure
        } else {
            ExitStatus::Success
        }
    }
}

/// Runs the chosen subcommand.
pub fn run(cli: &Cli) -> anyhow::Result<ExitStatus> {
    match &cli.command {
        Command::Validate(args) => validate::run(args, &cli.global),
        Command::Stats(args) => stats::run(args, &cli.global),
        Command::Convert(args) => convert::run(args, &cli.global),
        Command::Filter(args) => filter::run(args, &cli.global),
        Command::Moves(args) => moves::run(args),
        Command::Fen(fen) => match &fen.command {
            FenCommand::Check(args) => fen_check::run(args, &cli.global),
            FenCommand::Show(args) => fen_show::run(args),
        },
        Command::Perft(args) => perft::run(args, &cli.global),
        Command::Split(args) => split_files::run(args, &cli.global),
        Command::Ratings(args) => ratings::run(args, &cli.global),
        Command::Dedup(args) => dedup::run(args, &cli.global),
        Command::Completions { shell } => {
            let mut command = Cli::command();
            clap_complete::generate(*shell, &mut command, "pgnkit", &mut std::io::stdout().lock());
            Ok(ExitStatus::Success)
        }
        Command::Man { command } => {
            let mut page = Cli::command();
            let mut name = String::from("pgnkit");
            for word in command {
                page.build();
                let Some(sub) = page.find_subcommand(word).cloned() else {
                    anyhow::bail!("{name} has no command {word:?}");
                };
                name = format!("{name}-{word}");
                page = sub;
            }
            let mut out = std::io::stdout().lock();
            clap_mangen::Man::new(page).title(name).render(&mut out)?;
            out.flush()?;
            Ok(ExitStatus::Success)
        }
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
}
