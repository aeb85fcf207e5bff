//! One module per subcommand; this file only dispatches.

mod book;
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

use std::path::Path;

use pgnkit::output::file::{FilesRead, refuse_standard_outputs};

use crate::{
    cli::{BookCommand, Cli, Command, FenCommand, StatsCommand, inputs_and_openings},
    exit::ExitStatus,
};

/// Runs the chosen subcommand.
pub fn run(cli: &Cli) -> anyhow::Result<ExitStatus> {
    pgnkit::output::csv_cells::write_raw(cli.global.raw_csv);
    crate::sink::show_findings(!cli.global.silent());
    // Before anything is read or written: `pgnkit fix s.pgn >> s.pgn` would
    // read its own output back for ever.
    refuse_standard_outputs(|| files_read(&cli.command))?;
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
        Command::Book(args) => book::run(args, &cli.global),
        Command::Completions { shell } => man::completions(*shell),
        Command::Man { command } => man::page(command),
    }
}

/// Every file `command` reads: its games (stdin among them, as `-` or no
/// path), and the tables, baselines, partials, aliases and suites it is
/// given. Names files (`--player @FILE`) are read while the command line
/// is parsed, before anything is written.
fn files_read(command: &Command) -> FilesRead {
    let with = |mut inputs: FilesRead, path: Option<&Path>| {
        if let Some(path) = path {
            inputs.add_path(path);
        }
        inputs
    };
    match command {
        Command::Validate(args) => with(FilesRead::of_args(&args.inputs.paths), args.baseline.baseline.as_deref()),
        Command::Stats(args) => match &args.merge {
            Some(StatsCommand::Merge(merge)) => FilesRead::of_args(&merge.files),
            None => with(inputs_and_openings(&args.inputs.paths, args.openings.as_ref()), args.aliases.as_deref()),
        },
        Command::Convert(args) => {
            with(inputs_and_openings(&args.inputs.paths, args.openings.as_ref()), args.aliases.as_deref())
        }
        Command::Filter(args) => {
            with(inputs_and_openings(&args.inputs.paths, args.openings.as_ref()), args.aliases.as_deref())
        }
        Command::Fix(args) => {
            with(inputs_and_openings(&args.inputs.paths, args.openings.as_ref()), args.aliases.as_deref())
        }
        Command::Dedup(args) => inputs_and_openings(&args.inputs.paths, args.openings.as_ref()),
        Command::Book(args) => match &args.merge {
            Some(BookCommand::Merge(merge)) => FilesRead::of_args(&merge.files),
            None => FilesRead::of_args(&args.inputs.paths),
        },
        Command::Split(args) => {
            with(inputs_and_openings(&args.inputs.paths, args.openings.as_ref()), args.aliases.as_deref())
        }
        Command::Ratings(args) => with(FilesRead::of_args(&args.inputs.paths), args.aliases.as_deref()),
        Command::Fen(fen) => match &fen.command {
            FenCommand::Check(args) => fen_check::read_files(args),
            FenCommand::Show(_) => FilesRead::none(),
        },
        Command::Moves(args) if args.moves.is_empty() || args.moves == ["-"] => FilesRead::of_args(&[]),
        Command::Perft(args) => {
            args.suite.as_deref().map_or_else(FilesRead::none, |suite| FilesRead::of_args(&[suite.into()]))
        }
        Command::Moves(_) | Command::Completions { .. } | Command::Man { .. } => FilesRead::none(),
    }
}
