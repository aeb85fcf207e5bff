//! `pgnkit book`'s arguments: what is kept, how it is written, and `book
//! merge`'s.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::{parse::parse_game_size, shared::Inputs};

#[derive(Debug, Args)]
pub struct BookArgs {
    #[command(subcommand)]
    pub merge: Option<BookCommand>,
    #[command(flatten)]
    pub inputs: Inputs,
    #[command(flatten)]
    pub out: BookOutput,
    /// Count only the first N plies of each game.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    pub max_ply: u32,
    /// Only the games of this player (the White or Black tag, trimmed, as
    /// written), and only the moves the player made: the tree from the
    /// player's side.
    #[arg(long, value_name = "NAME")]
    pub player: Option<String>,
    /// With --player: only the games the player had White (or Black) in
    /// (`--color` is the terminal's colours).
    #[arg(long, value_enum, requires = "player", value_name = "COLOR")]
    pub side: Option<BookColor>,
    /// Hold at most about SIZE bytes of counts in memory (`512M`, `4G`;
    /// K, M, G and T are powers of 1024; at least 1M); past it, sorted runs go to
    /// temporary files (TMPDIR) and are merged at the end.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size)]
    pub max_memory: u64,
    /// Games larger than this many MiB (1 to 1024) are cut and reported.
    #[arg(long, value_name = "MIB", default_value_t = 32, value_parser = parse_game_size)]
    pub max_game_size: usize,
}

/// What is kept and where it is written, shared with `book merge`.
#[derive(Debug, Args)]
pub struct BookOutput {
    /// Write to FILE (a `bin` book is never written to a terminal).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// `bin`: a Polyglot book; `csv` or `jsonl`: the opening tree, a row
    /// per (position, move) kept (with --shard, every one, as a partial for
    /// `book merge`).
    #[arg(long, value_enum, default_value_t = BookFormat::Bin)]
    pub format: BookFormat,
    /// Leave out (position, move) pairs played fewer than N times.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub min_games: u32,
    /// Leave out pairs scoring less than S percent for the side to move
    /// (0 to 100; a win 1, a draw 1/2).
    #[arg(long, value_name = "S", default_value_t = 0.0, value_parser = parse_score)]
    pub min_score: f64,
    /// Keep only White's moves.
    #[arg(long, conflicts_with = "only_black")]
    pub only_white: bool,
    /// Keep only Black's moves.
    #[arg(long)]
    pub only_black: bool,
    /// Every kept move weighs the same.
    #[arg(long)]
    pub uniform: bool,
}

#[derive(Debug, Subcommand)]
pub enum BookCommand {
    /// Add up the partial trees of shards (`book --shard K/N --format
    /// jsonl`) into the book or tree of all their games.
    ///
    /// The result is the one run's over the games of all the shards,
    /// except where a position's move was played 16384 times or more:
    /// polyglot then halves the counts in the order the games come, which
    /// shards do not keep; such positions' weights are halved from the
    /// totals instead, and a note on stderr counts them.
    #[command(after_help = super::examples::BOOK_MERGE)]
    Merge(BookMergeArgs),
}

#[derive(Debug, Args)]
pub struct BookMergeArgs {
    /// Partials written by `book --shard K/N --format jsonl` (`-` reads
    /// stdin).
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub out: BookOutput,
    /// Hold at most about SIZE bytes in memory, as for `book`.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size)]
    pub max_memory: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BookFormat {
    Bin,
    Csv,
    Jsonl,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BookColor {
    White,
    Black,
}

/// `512M`, `4G`, `1048576`: bytes, with K, M, G or T for powers of 1024
/// (a trailing `B` or `iB` allowed).
fn parse_size(text: &str) -> Result<u64, String> {
    let upper = text.trim().to_ascii_uppercase();
    let digits = upper.trim_end_matches("IB").trim_end_matches('B');
    let (number, shift) = match digits.chars().last() {
        Some('K') => (&digits[..digits.len() - 1], 10),
        Some('M') => (&digits[..digits.len() - 1], 20),
        Some('G') => (&digits[..digits.len() - 1], 30),
        Some('T') => (&digits[..digits.len() - 1], 40),
        _ => (digits, 0),
    };
    let usage = || format!("`{text}` is not a size: a whole number of bytes, or with K, M, G or T (512M, 4G)");
    let n: u64 = number.trim().parse().map_err(|_| usage())?;
    let bytes = n.checked_mul(1 << shift).ok_or_else(usage)?;
    // Less would write a run to disk every few games.
    if bytes < 1 << 20 {
        return Err(format!("`{text}` is less than the least, 1M"));
    }
    Ok(bytes)
}

fn parse_score(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if (0.0..=100.0).contains(&s) => Ok(s),
        _ => Err(format!("`{text}` is not a percentage from 0 to 100")),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_read_with_binary_suffixes() {
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size("1024KiB"), Ok(1 << 20));
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert!(parse_size("64K").is_err());
        assert!(parse_size("0").is_err());
        assert!(parse_size("lots").is_err());
    }
}
