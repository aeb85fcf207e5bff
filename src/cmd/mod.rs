//! One module per subcommand; this file only dispatches.

mod perft;
mod validate;

use crate::{
    cli::{Cli, Command},
    exit::ExitStatus,
};

/// Runs the chosen subcommand.
pub fn run(cli: &Cli) -> anyhow::Result<ExitStatus> {
    match &cli.command {
        Command::Validate(args) => validate::run(args, &cli.global),
        Command::Perft(args) => perft::run(args, &cli.global),
    }
}
