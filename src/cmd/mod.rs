//! One module per subcommand; this file only dispatches.

mod ci;
mod convert;
mod dedup;
mod fen_check;
mod fen_show;
mod filter;
mod fix;
mod man;
mod moves;
mod perft;
mod ratings;
mod split;
mod stats;
mod validate;

use crate::{
    cli::{Cli, Command, FenCommand},
    exit::ExitStatus,
};

/// Runs the chosen subcommand.
pub fn run(cli: &Cli) -> anyhow::Result<ExitStatus> {
    pgnkit::output::csv_cells::write_raw(cli.global.raw_csv);
    match &cli.command {
        Command::Validate(args) => validate::run(args, &cli.global),
        Command::Stats(args) => stats::run(args, &cli.global),
        Command::Convert(args) => convert::run(args, &cli.global),
        Command::Filter(args) => filter::run(args, &cli.global),
        Command::Fix(args) => fix::run(args, &cli.global),
        Command::Moves(args) => moves::run(args),
        Command::Fen(fen) => match &fen.command {
            FenCommand::Check(args) => fen_check::run(args, &cli.global),
            FenCommand::Show(args) => fen_show::run(args),
        },
        Command::Perft(args) => perft::run(args, &cli.global),
        Command::Split(args) => split::run(args, &cli.global),
        Command::Ratings(args) => ratings::run(args, &cli.global),
        Command::Dedup(args) => dedup::run(args, &cli.global),
        Command::Completions { shell } => man::completions(*shell),
        Command::Man { command } => man::page(command),
    }
}
