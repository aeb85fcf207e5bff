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
    /// Work with positions written as FEN or EPD.
    Fen(FenArgs),
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
    /// result, plies, how it ended) or position (verdict, canonical FEN)
    /// before its findings.
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
pub struct FenArgs {
    #[command(subcommand)]
    pub command: FenCommand,
}

#[derive(Debug, Subcommand)]
pub enum FenCommand {
    /// Check FEN and EPD records and explain every defect of each: syntax,
    /// kings, pawns, material, checks, castling rights, en passant, counters
    /// and EPD move operands.
    Check(FenCheckArgs),
}

#[derive(Debug, Args)]
pub struct FenCheckArgs {
    /// FEN strings, or files (plain, .gz, .zst or .bz2) with one FEN or EPD
    /// record per line; blank lines and `#` lines are skipped. An argument
    /// that is not an existing file is a FEN when it has a space or only
    /// board characters and `/`. `-` or nothing reads stdin.
    #[arg(value_name = "FEN|PATH")]
    pub inputs: Vec<PathBuf>,
    /// Output format: `text` lines for people and editors, `jsonl` one object
    /// per record (errors and warnings apart), `csv` one row per finding.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Print the canonical FEN of each valid record instead (six fields, en
    /// passant only when a capture is legal, EPD operations dropped, EPD
    /// counters from `hmvc`/`fmvn`); findings go to stderr.
    #[arg(long, conflicts_with_all = ["format", "errors_only"])]
    pub normalize: bool,
    /// Print only records that have findings (text with -v, jsonl).
    #[arg(long)]
    pub errors_only: bool,
    /// Exit 1 on warnings too.
    #[arg(long)]
    pub deny_warnings: bool,
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
