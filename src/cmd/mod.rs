//! One module per subcommand; this file only dispatches.

mod fen_check;
mod fen_show;
mod moves;
mod perft;
mod validate;

use crate::{
    cli::{Cli, Command, FenCommand},
    exit::ExitStatus,
};

/// Runs the chosen subcommand.
pub fn run(cli: &Cli) -> anyhow::Result<ExitStatus> {
    match &cli.command {
        Command::Validate(args) => validate::run(args, &cli.global),
        Command::Moves(args) => moves::run(args),
        Command::Fen(fen) => match &fen.command {
            FenCommand::Check(args) => fen_check::run(args, &cli.global),
            FenCommand::Show(args) => fen_show::run(args),
        },
        Command::Perft(args) => perft::run(args, &cli.global),
    }
}
