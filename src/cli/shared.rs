//! Argument groups several commands share: the game files read, how the
//! commands that pick games write them, and the plain output formats.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::parse::parse_game_size;

/// Game files to read.
#[derive(Debug, Args)]
pub struct Inputs {
    /// PGN files (plain, .gz, .zst, .bz2 or .xz, detected by content; UTF-8,
    /// Windows-1252 (Latin-1), or UTF-16 with a BOM), or zip archives of them (each .pgn
    /// member is an input), or directories, searched recursively for such
    /// files (.pgn, .pgn.gz/.zst/.bz2/.xz, .zip; hidden ones skipped, in
    /// name order); `-` or nothing reads stdin.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Only the games whose number in the run (counted from 0 over all the
    /// inputs, in order) is K modulo N: `--shard 0/4` to `--shard 3/4` cut
    /// the games into four parts, the same as the files of `split --shards
    /// 4` (file K+1). The other games are only framed, never replayed;
    /// games keep their numbers within their file.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<pgnkit::frame::shard::Shard>,
}

/// What the commands that pick games (filter, dedup, split) share: how the
/// games they keep are written, and the checking options of `validate`.
#[derive(Debug, Args)]
pub struct PickArgs {
    /// Write the games as `convert --to pgn` does (replayed, tags in
    /// export order, SAN regenerated) instead of as they were read.
    #[arg(long)]
    pub normalize: bool,
    /// Exit 1 on warnings too (in the games that are replayed).
    #[arg(long)]
    pub deny_warnings: bool,
    /// Games larger than this many MiB (1 to 1024) are cut and reported.
    #[arg(long, value_name = "MIB", default_value_t = 32, value_parser = parse_game_size)]
    pub max_game_size: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Jsonl,
    Csv,
}
