//! The command line: clap types only; their doc comments are the help text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Fast, strict toolkit for chess games (PGN) and positions (FEN).
#[derive(Debug, Parser)]
#[command(name = "pgnkit", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub global: GlobalArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Replay every game and report illegal moves, broken syntax and bad tags.
    Validate(ValidateArgs),
    /// Count the leaves of the legal-move tree of a position (perft), or
    /// check the counts of a perft suite.
    Perft(PerftArgs),
}

/// Options shared by every command.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Worker threads (default: all cores). Output is the same for every N.
    #[arg(short = 'j', long = "threads", global = true, value_name = "N")]
    pub threads: Option<usize>,
    /// No progress bar and no summary line; findings are still printed.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Per-game detail: with text output, a line for every game (players,
    /// result, plies, how it ended) before its findings. perft: the time
    /// taken and nodes per second, on stderr.
    #[arg(short, long, global = true)]
    pub verbose: bool,
}

impl GlobalArgs {
    /// The number of worker threads to use.
    pub fn threads(&self) -> usize {
        match self.threads {
            Some(0) | None => std::thread::available_parallelism().map_or(1, usize::from),
            Some(n) => n,
        }
    }
}

/// Game files to read.
#[derive(Debug, Args)]
pub struct Inputs {
    /// PGN files (plain, .gz, .zst or .bz2, detected by content); `-` or
    /// nothing reads stdin.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    /// Output format: `text` lines for people and editors, `jsonl` one object
    /// per game, `csv` one row per finding.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Print only games that have findings (jsonl).
    #[arg(long)]
    pub errors_only: bool,
    /// Exit 1 on warnings too (info findings never fail a run).
    #[arg(long)]
    pub deny_warnings: bool,
    /// Also warn about moves written unlike standard SAN: wrong or missing
    /// `+`/`#`, needless or wrong disambiguation, `0-0`, `e8Q`, `e.p.`.
    #[arg(long)]
    pub lint: bool,
    /// Games larger than this many MiB are cut and reported.
    #[arg(long, value_name = "MIB", default_value_t = 32)]
    pub max_game_size: usize,
}

#[derive(Debug, Args)]
pub struct PerftArgs {
    /// The position in FEN, quoted (Shredder-FEN or X-FEN castling rights
    /// make it Chess960), or `startpos`.
    #[arg(required_unless_present = "suite", conflicts_with = "suite")]
    pub fen: Option<String>,
    /// Plies to count.
    #[arg(required_unless_present = "suite", conflicts_with = "suite")]
    pub depth: Option<u32>,
    /// First print the count under each legal move (`e2e4: 600`, UCI, sorted).
    #[arg(long)]
    pub divide: bool,
    /// Check every count of a perft suite (`FEN ;D1 20 ;D2 400`, or blocks of
    /// `epd FEN` and `perft DEPTH NODES` lines); `-` reads stdin. Prints a
    /// line per wrong count or unreadable line and exits 1 if there is any.
    #[arg(long, value_name = "FILE", conflicts_with = "divide")]
    pub suite: Option<PathBuf>,
    /// With --suite: check only the counts up to this depth.
    #[arg(long, value_name = "N", requires = "suite")]
    pub max_depth: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Jsonl,
    Csv,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
