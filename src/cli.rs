//! The command line: clap types only; their doc comments are the help text
//! (the help of `--by` lists the keys' table), their value parsers are in
//! [`parse`], the examples under each help in [`examples`].

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use pgnkit::openings::Naming;
use shakmaty::Square;

use crate::color::{ColorEnv, When};

mod book;
mod convert;
mod examples;
mod filter;
mod parse;
mod ratings;
mod shared;
pub mod single;

use self::parse::{
    naming_parser, parse_arrow, parse_column, parse_count, parse_game_size, parse_group_key, parse_square,
};
pub use self::{
    book::{BookArgs, BookColor, BookCommand, BookFormat, BookMergeArgs, BookOutput},
    filter::{CastlingArg, FilterArgs},
    parse::NameArg,
    ratings::{RatingPeriod, RatingScheme, RatingsArgs},
    shared::{Format, Inputs, PickArgs},
};

/// `--version`: `0.1.0 (commit 1a2b3c4, features: parquet)`, so that a
/// report names the exact build; the commit comes from build.rs.
macro_rules! version {
    ($features:literal) => {
        concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("PGNKIT_COMMIT"), ", features: ", $features, ")")
    };
}
#[cfg(feature = "parquet")]
const VERSION: &str = version!("parquet");
#[cfg(not(feature = "parquet"))]
const VERSION: &str = version!("none");

/// Fast, strict toolkit for chess games (PGN) and positions (FEN).
#[derive(Debug, Parser)]
#[command(name = "pgnkit", version = VERSION, about, propagate_version = true, after_help = examples::PGNKIT)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub global: GlobalArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Replay every game and report illegal moves, broken syntax and bad tags.
    #[command(after_help = examples::VALIDATE)]
    Validate(ValidateArgs),
    /// Statistics over all games: results, how games ended, length, castling,
    /// promotions, ratings and findings; `stats merge` adds up partials.
    ///
    /// `--format json` is a partial that merges exactly: `pgnkit stats merge
    /// a.json b.json` prints what one run over the inputs of both would have
    /// printed, so shards can be counted apart (GNU parallel, Hadoop
    /// Streaming, Spark's `RDD.pipe`) and added up after.
    #[command(after_help = examples::STATS)]
    Stats(StatsArgs),
    /// Write games in another form: normalized PGN, the moves in SAN, UCI or
    /// LAN, positions as FEN or EPD, JSON Lines or CSV.
    ///
    /// Every game is replayed and checked as by `validate`; its findings go
    /// to stderr. A game with an illegal move is written up to its last
    /// legal move (PGN: with a comment saying where it stopped) unless
    /// `--skip-invalid` leaves it out; the exit code is 1 either way.
    #[command(after_help = examples::CONVERT)]
    Convert(ConvertArgs),
    /// Repair what can be repaired in games and say what was done: results,
    /// SAN, Windows-1252 (Latin-1) text, the Seven Tag Roster, FEN tags, stray text.
    ///
    /// Every game is replayed as by `validate`. A game with something to
    /// repair is written as `convert --to pgn` writes it (export format),
    /// with: its Result tag and termination marker set to the result the
    /// board gives (checkmate, stalemate, insufficient material, fivefold
    /// repetition, 75 moves), else to the marker's (the marker wins over
    /// the tag, as with pgn-extract's --fixresulttags), else to the tag's;
    /// a missing marker added; moves in standard SAN (captures with `x`,
    /// `+` and `#`, minimal disambiguation, `O-O`, `=Q`; coordinate and
    /// long algebraic moves too); Windows-1252 (Latin-1) text as UTF-8; the Seven Tag
    /// Roster completed with `?`; castling rights and en passant squares
    /// the FEN tag's position cannot have dropped. Text between games that
    /// is no game is left out. Any other game is written byte for byte as
    /// it was read: one with nothing to repair, and one that cannot be
    /// repaired (an illegal or ambiguous move, a broken FEN tag, broken
    /// syntax, an annotation written as text), whose findings go to stderr
    /// as validate prints them. Fixing fixed games changes nothing.
    ///
    /// Each repair is a line on stderr, `PATH:LINE:COLUMN: fixed[CODE]:
    /// MESSAGE (game N)`, located in the input (-q: none, and no summary);
    /// a game lists 100 of a kind at most, then one line counting the rest.
    /// Exit 1 when a game has an error left (or, with --check, when
    /// something would change), 2 when an input cannot be read or
    /// rewritten.
    #[command(after_help = examples::FIX)]
    Fix(FixArgs),
    /// Select games by their tags, result, how they ended, length,
    /// validity, the positions or material they reach.
    ///
    /// Criteria are ANDed (`--any` ORs them, `--invert` selects the games
    /// that do not match). A name criterion (--white, --black, --player,
    /// --winner, --loser, --event, --site) may be given more than once and
    /// holds when the tag starts with any of its values; a value `@FILE`
    /// stands for the names in FILE, one a line (blank lines and lines
    /// starting with `#` are skipped; `@@NAME` is a name starting with `@`).
    /// The games are written as they were read, byte for byte, in input
    /// order (`--normalize`: as `convert --to pgn` writes them). Tag
    /// criteria are decided from the tags alone: a game is replayed only
    /// when a criterion needs its moves, and then its findings go to stderr
    /// as with `convert`.
    #[command(after_help = examples::FILTER)]
    Filter(Box<FilterArgs>),
    /// Work with positions written as FEN or EPD.
    #[command(after_help = examples::FEN)]
    Fen(FenArgs),
    /// Apply moves (SAN, UCI or long algebraic, mixed) to a position and
    /// print them in one notation, or the positions they reach.
    ///
    /// Moves come from the arguments (one game), or from stdin, one game per
    /// line. Move numbers (`1.`, `1...`, `12.e4`), NAGs (`$1`), annotation
    /// glyphs (`!?`) and a result (`1-0`, `*`) may be mixed in; castling is
    /// `O-O` or `0-0` (or the king's move in UCI); promotions are `e8=Q`,
    /// `e8Q`, `e7e8q` or `e7-e8=Q`.
    ///
    /// Each input line gives one output line (with `--to fen --every`, one per
    /// ply); an empty line gives an empty line. A line with a move that
    /// cannot be played gives an empty line on stdout: the error (its line,
    /// the ply, the move and why) goes to stderr, the other lines are still
    /// converted, and the exit code is 1.
    #[command(after_help = examples::MOVES)]
    Moves(MovesArgs),
    /// Count the leaves of the legal-move tree of a position (perft), or
    /// check the counts of a perft suite.
    #[command(after_help = examples::PERFT)]
    Perft(PerftArgs),
    /// Write the games into several files in --out-dir: N games per file
    /// (--games), one file per tag value (--by) or N shards (--shards).
    ///
    /// Each game is written as it was read, byte for byte (one blank line
    /// after it), unless --normalize writes it as `convert --to pgn` does.
    /// Games are not replayed otherwise; the files are valid PGN, games stay
    /// in input order within each file, every game lands in exactly one
    /// file (--by player: in the files of both its players), and the files
    /// are the same for every -j.
    ///
    /// Files: `part-00001.pgn`, ... (--games); `shard-0001-of-0004.pgn`, ...
    /// (--shards: game 1 to shard 1, game 2 to shard 2, ..., round robin over
    /// the games of the whole run; every shard is created, empty or not);
    /// `<value>.pgn` (--by), where the value keeps letters and digits of any
    /// script (UTF-8 names: `Müller_Jürgen.pgn`, `王皓.pgn`), `.`, `-` and `_`,
    /// other runs of characters become `_`, `.`, `-` and `_` are trimmed from
    /// the ends and the name is cut at 100 bytes; --ascii-names keeps ASCII
    /// only. A missing, empty or `?` value goes to `unknown.pgn`, a Result of
    /// `*` to `unfinished.pgn`, a value with no character left to
    /// `unnamed.pgn`. Two values never share a file: the one seen later whose
    /// name is taken (compared without case or accents) gets `-2`, `-3`, ...
    /// (`Smith_J.pgn`, `Smith_J-2.pgn`); -v lists each file with its value.
    /// With several --by, each value is named so and the names are joined
    /// by `+`, which no name keeps (`Open+Smith_J.pgn`).
    /// --compress adds `.zst` or `.gz`.
    ///
    /// Files are written under temporary names and renamed into place when
    /// the run ends, so a rerun replaces them and a run that fails or is
    /// stopped leaves the folder as it was; files of an earlier run that
    /// this one does not write stay as they were. A second split into a
    /// folder that one is writing is refused. At most 128 files
    /// (32 compressed) are open at a time; a file closed to make room is
    /// reopened in append mode (a compressed file then gets another zstd
    /// frame or gzip member, which every decoder reads on).
    ///
    /// Exit 2 when an input cannot be read (the others are still split) or
    /// an output cannot be written (the run stops); 1 when a game is cut at
    /// --max-game-size or, with --normalize, has an error, as convert.
    #[command(after_help = examples::SPLIT)]
    Split(SplitArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell,
    /// elvish) to stdout.
    ///
    /// bash: `pgnkit completions bash > ~/.local/share/bash-completion/completions/pgnkit`;
    /// zsh: `pgnkit completions zsh > ~/.zfunc/_pgnkit` (with `fpath+=~/.zfunc`
    /// before `compinit` in ~/.zshrc); fish: `pgnkit completions fish >
    /// ~/.config/fish/completions/pgnkit.fish`.
    #[command(after_help = examples::COMPLETIONS)]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print a manual page (roff) to stdout: `pgnkit man > pgnkit.1` for
    /// the overview, `pgnkit man validate > pgnkit-validate.1` (or `fen
    /// check`) for a command; read it with `man ./pgnkit.1`, or install it
    /// in a man1 folder.
    #[command(after_help = examples::MAN)]
    Man {
        /// The command (`validate`, `fen check` or `fen-check`); none: pgnkit
        /// itself.
        #[arg(value_name = "COMMAND")]
        command: Vec<String>,
    },
    #[command(after_help = examples::DEDUP)]
    /// Drop duplicate games: write the first occurrence of each game, in
    /// input order, or list the copies.
    ///
    /// Two games are copies when they start from the same position (as for
    /// repetitions: placement, side to move, castling rights, en passant; not
    /// the move counters) and have the same main-line moves; comments,
    /// variations, NAGs, the result and (unless `--by moves+tags`) the tags
    /// do not count. A game with an error, or one that cannot be replayed (a
    /// variant, a broken FEN tag), is a copy only of a game with the same
    /// start, the same moves up to where it stopped and the same movetext
    /// word for word; a game without moves only of a game with the same
    /// text, tags included. Every copy is compared in full with the first
    /// occurrence: a game is never called a copy of a game it differs from.
    ///
    /// Kept games are written as they were read, byte for byte, or with
    /// `--normalize` as `convert --to pgn` writes them. Every game is
    /// checked as by `validate`: findings go to stderr, and the exit code is
    /// validate's. Memory grows with the distinct games: 75 to 85 bytes for a
    /// game of 80 plies (`-v` prints the figure of a run).
    Dedup(DedupArgs),
    /// Build an opening book: a Polyglot `.bin` book, byte for byte what
    /// `polyglot make-book` writes from the same games and options, or the
    /// opening tree (`--format csv|jsonl`) with results, ratings and years
    /// per move.
    ///
    /// Every game is replayed as by `validate`: a game with an illegal move
    /// counts its moves up to it, and its findings go to stderr (exit 1).
    /// A game from a set-up position other than the standard start (a FEN
    /// tag, Chess960) is left out with a note: a Polyglot book holds
    /// standard chess from the start. Weights are polyglot's: 2 a win and 1
    /// a draw (or a game without a result) for the side to move, all moves
    /// of a position halved when one was played 16384 times. Memory is
    /// bounded by --max-memory; `-j N` writes the same bytes as `-j 1`.
    #[command(after_help = examples::BOOK)]
    Book(Box<BookArgs>),
    #[command(after_help = examples::RATINGS)]
    /// Standings and ratings from the games' results: FIDE Elo (default),
    /// the club points scheme, or maximum likelihood over all games (ml, as
    /// Ordo lays it out).
    ///
    /// Only the tags are read (White, Black, Result, Date, WhiteElo,
    /// BlackElo), and the result marker when the Result tag is not a result:
    /// games are not replayed unless --valid-only asks for it. A game is
    /// rated when its result (the Result tag, else the marker) is 1-0, 0-1
    /// or 1/2-1/2 and both players are named; the others (result `*` or none, a player missing,
    /// empty or `?`, one player on both sides) are counted in the summary
    /// line on stderr. Players are their names as written (trimmed,
    /// case-sensitive); --alias merges spellings. Games are applied in date
    /// order (Date tag; unknown parts sort first), then input order.
    ///
    /// Exit 2 when an input cannot be read (the others are still read) or,
    /// for ml, when the games have no finite ratings (separate pools, a
    /// perfect or zero score); 1 when --valid-only found invalid games;
    /// else 0.
    Ratings(Box<RatingsArgs>),
}

/// Options shared by every command.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Worker threads (default: all cores; at most 256); -j1 decompresses
    /// .gz, .zst, .bz2 and .xz in place, on its one thread. Output is the
    /// same for every N.
    #[arg(short = 'j', long = "threads", global = true, value_name = "N")]
    pub threads: Option<usize>,
    /// No progress bar and no summary line; findings are still printed.
    /// Twice (-qq): no findings on stderr either, only the errors that fail
    /// the run (docs/exit-codes.md, "Quiet runs").
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub quiet: u8,
    /// As -qq: nothing on stderr but the errors that fail the run.
    #[arg(long, global = true)]
    pub silent: bool,
    /// Exit 0 when the data has problems (invalid games or positions,
    /// findings that would exit 1): only a run that failed (an input that
    /// cannot be read, an output that cannot be written, a usage error)
    /// exits 2.
    #[arg(long, global = true)]
    pub exit_zero: bool,
    /// Per-game detail: with text output, a line for every game (players,
    /// result, plies, how it ended) or position (verdict, canonical FEN)
    /// before its findings; perft: the time taken and nodes per second, on
    /// stderr; split: each file written, with its games (and value).
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// Colour findings and messages: auto (on a terminal, unless NO_COLOR is
    /// set or CLICOLOR=0; CLICOLOR_FORCE=1 forces it), always, never.
    #[arg(long, value_enum, global = true, value_name = "WHEN", default_value_t = When::Auto)]
    pub color: When,
    /// Show a progress bar on stderr: auto (when stderr is a terminal),
    /// always, never. --quiet means never.
    #[arg(long, value_enum, global = true, value_name = "WHEN", default_value_t = When::Auto)]
    pub progress: When,
    /// Write CSV cells as they are: without the `'` put before a cell that
    /// a spreadsheet would read as a formula (one starting with =, +, - or
    /// @ that is not a number), for data tools rather than spreadsheets.
    #[arg(long, global = true)]
    pub raw_csv: bool,
}

/// The files a command that reads games and an openings table takes in,
/// which no output of it may replace.
pub fn inputs_and_openings(paths: &[PathBuf], openings: Option<&Naming>) -> pgnkit::output::file::FilesRead {
    let mut inputs = pgnkit::output::file::FilesRead::of_args(paths);
    if let Some(path) = openings_naming(openings).path() {
        inputs.add_path(path);
    }
    inputs
}

/// How games' openings are named where a command names them by position:
/// `--openings`, else `PGNKIT_OPENINGS`, else the built-in table.
pub fn openings_naming(arg: Option<&Naming>) -> Naming {
    let env = || std::env::var_os("PGNKIT_OPENINGS").filter(|v| !v.is_empty()).map(Naming::from);
    arg.cloned().or_else(env).unwrap_or(Naming::Builtin)
}

impl GlobalArgs {
    /// `-q`: no progress bar, summary line or notes.
    pub fn quiet(&self) -> bool {
        self.quiet > 0 || self.silent
    }

    /// `-qq` or `--silent`: no findings on stderr either.
    pub fn silent(&self) -> bool {
        self.quiet > 1 || self.silent
    }

    /// Whether a report written to stdout (`validate`, `fen check`) is
    /// coloured.
    pub fn stdout_color(&self) -> bool {
        ColorEnv::from_env().colors(self.color, std::io::IsTerminal::is_terminal(&std::io::stdout()))
    }

    /// How the progress bar is to be drawn.
    pub fn bar_settings(&self) -> crate::progress::Settings {
        crate::progress::Settings { when: self.progress, quiet: self.quiet(), color: self.stderr_color() }
    }

    /// Whether findings and messages on stderr are coloured.
    pub fn stderr_color(&self) -> bool {
        ColorEnv::from_env().colors(self.color, std::io::IsTerminal::is_terminal(&std::io::stderr()))
    }

    /// The number of worker threads to use: at most [`MAX_THREADS`].
    pub fn threads(&self) -> usize {
        match self.threads {
            Some(0) | None => std::thread::available_parallelism().map_or(1, usize::from),
            Some(n) => n,
        }
        .min(MAX_THREADS)
    }

    /// The note for a `-j` above [`MAX_THREADS`], if one was asked for.
    pub fn threads_note(&self) -> Option<String> {
        let asked = self.threads.filter(|&n| n > MAX_THREADS)?;
        Some(format!("pgnkit: note: -j {asked} is more threads than can help; using {MAX_THREADS}"))
    }
}

/// Most worker threads: far more threads than cores only cost memory and
/// start-up time (`-j 4000` took minutes).
pub const MAX_THREADS: usize = 256;

#[derive(Debug, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    /// Output format: `text` lines for people and editors, `jsonl` one object
    /// per game, `csv` one row per finding; for CI, `github` workflow
    /// commands (annotations), `sarif` (SARIF 2.1.0), `junit` (a test case
    /// per game) or `gitlab` (a Code Quality report).
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    #[command(flatten)]
    pub baseline: BaselineArgs,
    /// Print only the games with an error, with all their findings
    /// (warnings too), in every format; the summary line still counts
    /// every game.
    #[arg(long, conflicts_with = "with_findings")]
    pub errors_only: bool,
    /// Print only the games with a finding of any severity (what
    /// --errors-only did before).
    #[arg(long)]
    pub with_findings: bool,
    /// Exit 1 on warnings too (info findings never fail a run).
    #[arg(long)]
    pub deny_warnings: bool,
    /// Also warn about moves written unlike standard SAN: wrong or missing
    /// `+`/`#`, needless or wrong disambiguation, `0-0`, `e8Q`, `e.p.`.
    #[arg(long)]
    pub lint: bool,
    /// Replay the main line only: moves inside variations are not played
    /// (by default each variation is replayed from its branch position).
    #[arg(long)]
    pub mainline_only: bool,
    /// Games larger than this many MiB (1 to 1024) are cut and reported.
    #[arg(long, value_name = "MIB", default_value_t = 32, value_parser = parse_game_size)]
    pub max_game_size: usize,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct StatsArgs {
    #[command(subcommand)]
    pub merge: Option<StatsCommand>,
    #[command(flatten)]
    pub inputs: Inputs,
    /// Output format: a `text` table, `json` (a mergeable partial) or `csv`
    /// (`key,value` rows; with --by, one row per group).
    #[arg(long, value_enum, default_value_t = StatsFormat::Text)]
    pub format: StatsFormat,
    // Its help lists the keys of the table (keys::KEYS).
    #[arg(long = "by", value_name = "KEY", value_parser = parse_group_key, help = stats_by_help())]
    pub by: Vec<pgnkit::keys::GroupKey>,
    /// Merge the spellings of a player in the groups of white, black and
    /// player: FILE holds CSV rows `alias,name`, and a White or Black tag
    /// that is `alias` (trimmed; case and spaces count) counts as `name`.
    /// The text and CSV tables get a column KEY_aliases after the keys (JSON
    /// an `aliases` field per group): the aliases of the file merged into
    /// each group, `|` between them.
    #[arg(long, value_name = "FILE")]
    pub aliases: Option<PathBuf>,
    /// Where `--by eco|opening` reads a game's opening: `builtin`
    /// (lichess's table, built in: the deepest position of the game it
    /// names), a lichess chess-openings TSV file (eco, name, pgn) or folder
    /// of them (likewise), or `tags` (the game's ECO and Opening tags)
    /// [default: $PGNKIT_OPENINGS, else builtin].
    #[arg(long, value_name = "TABLE", value_parser = naming_parser())]
    pub openings: Option<Naming>,
    #[command(flatten)]
    pub selection: GroupSelection,
    /// Also draw the summary as a self-contained SVG report (results, game
    /// lengths, terminations) into FILE; `-` writes it to stdout in place of
    /// the tables.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Exit 1 on warnings too.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Games larger than this many MiB (1 to 1024) are cut and reported.
    #[arg(long, value_name = "MIB", default_value_t = 32, value_parser = parse_game_size)]
    pub max_game_size: usize,
}

#[derive(Debug, Subcommand)]
pub enum StatsCommand {
    /// Add up `stats --format json` partials (from shards of the games) into
    /// the statistics of all of them.
    ///
    /// Each partial is checked before it is added: its `version` must be one
    /// this pgnkit writes, and its counts must add up as real games' do
    /// (valid, invalid and unchecked games to `games`, and so on). A partial
    /// that fails, or a sum past 2^64 - 1, is an error naming the file (exit
    /// 2).
    #[command(after_help = examples::STATS_MERGE)]
    Merge(StatsMergeArgs),
}

#[derive(Debug, Args)]
pub struct StatsMergeArgs {
    /// JSON partials written by `pgnkit stats --format json`; `-` reads
    /// stdin, which may hold several, one per line.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = StatsFormat::Json)]
    pub format: StatsFormat,
    #[command(flatten)]
    pub selection: GroupSelection,
    /// Also draw the merged summary as an SVG report into FILE; `-` writes
    /// it to stdout in place of the tables.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
}

/// Which groups `stats --by` prints.
#[derive(Debug, Args)]
pub struct GroupSelection {
    /// Only the first N groups (a JSON partial cut so cannot be merged).
    #[arg(long, value_name = "N", help_heading = "Groups")]
    pub top: Option<usize>,
    /// Only groups of at least N games.
    #[arg(long, value_name = "N", default_value_t = 1, help_heading = "Groups")]
    pub min_games: u64,
    /// Order of the groups.
    #[arg(long, value_enum, default_value_t = GroupSort::Games, help_heading = "Groups")]
    pub sort: GroupSort,
}

impl GroupSelection {
    pub fn selection(&self) -> pgnkit::stats::groups::Selection {
        let sort = match self.sort {
            GroupSort::Games => pgnkit::stats::groups::SortBy::Games,
            GroupSort::Score => pgnkit::stats::groups::SortBy::Score,
            GroupSort::Key => pgnkit::stats::groups::SortBy::Key,
            GroupSort::Plies => pgnkit::stats::groups::SortBy::Plies,
        };
        pgnkit::stats::groups::Selection { sort, top: self.top, min_games: self.min_games }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GroupSort {
    /// Most games first.
    Games,
    /// Highest score first.
    Score,
    /// By key.
    Key,
    /// Longest games first (mean plies).
    Plies,
}

/// `stats --by`: the keys of the table, with what some of them mean here.
fn stats_by_help() -> String {
    let keys = pgnkit::keys::described(&[
        ("player", "each player's games from their side"),
        ("opening", "lichess's, by position: see --openings"),
        ("time-control", "lichess's speeds"),
        ("elo-band", "mean rating, by 200"),
    ]);
    format!("Statistics per group: {keys} or {}. Repeat for nested groups", pgnkit::keys::TAG_KEY)
}

/// `split --by`: the keys of `stats --by`.
fn split_by_help() -> String {
    let keys = pgnkit::keys::described(&[("player", "a game goes to both players' files")]);
    format!(
        "One file per value of KEY, the keys of `stats --by`: {keys}, or {} for any tag. Repeat for one file per \
         list of values, its name the values' names joined by `+` (`--by event --by white`: `Open+Smith_J.pgn`)",
        pgnkit::keys::TAG_KEY
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StatsFormat {
    Text,
    // One object on one line is JSON Lines too: the name the other
    // commands use is taken (docs/vocabulary.md).
    #[value(alias = "jsonl")]
    Json,
    Csv,
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    /// What to write.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub to: ConvertFormat,
    /// Write to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Leave out games with an error (an illegal move, a broken FEN tag)
    /// instead of writing them up to their last legal move.
    #[arg(long)]
    pub skip_invalid: bool,
    /// PGN: leave out comments.
    #[arg(long, help_heading = "PGN output")]
    pub no_comments: bool,
    /// PGN: leave out variations.
    #[arg(long, help_heading = "PGN output")]
    pub no_variations: bool,
    /// PGN: leave out NAGs ($1, and !, ? written as NAGs).
    #[arg(long, help_heading = "PGN output")]
    pub no_nags: bool,
    /// PGN: remove `[%clk ...]` and `[%eval ...]` commands from comments.
    #[arg(long, help_heading = "PGN output")]
    pub no_clock: bool,
    /// EPD: also write the game's tags on each line, as pgn-extract's -Wepd:
    /// `c0 "White-Black, Event, Site, Date"; c1 "Result";`.
    #[arg(long, help_heading = "EPD output")]
    pub epd_tags: bool,
    /// PGN: keep only these tags besides the Seven Tag Roster (FEN, SetUp and
    /// Variant are always kept: the game cannot be replayed without them).
    #[arg(long, value_name = "LIST", value_delimiter = ',', help_heading = "PGN output")]
    pub keep_tags: Option<Vec<String>>,
    /// CSV: the columns, in order: file, game, game_line, plies,
    /// board_termination, valid, checked, final_fen, san, uci, opening_eco
    /// and opening_name (by position, see --openings), a tag name (White,
    /// WhiteElo, ...) or Tag:NAME for any tag [default: file, game,
    /// game_line, the Seven Tag Roster, WhiteElo, BlackElo, ECO, Opening,
    /// TimeControl, Termination, plies, board_termination, valid,
    /// final_fen].
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_column, help_heading = "CSV output")]
    pub columns: Option<Vec<pgnkit::output::games::Column>>,
    /// CSV: write the White and Black columns through FILE, CSV rows
    /// `alias,name`: a value that is `alias` (trimmed; case and spaces
    /// count) is written as `name`.
    #[arg(long, value_name = "FILE", help_heading = "CSV output")]
    pub aliases: Option<PathBuf>,
    /// An openings table: `builtin` (lichess's, built in) or a lichess
    /// chess-openings TSV file or folder. With --to pgn each game it names
    /// (by the deepest position it reaches) gets its ECO and Opening tags
    /// from it, replacing the game's own (pgn-extract's -e); without
    /// --openings the tags stay as they are. With --to csv it fills the
    /// columns opening_eco and opening_name [default for CSV:
    /// $PGNKIT_OPENINGS, else builtin].
    #[arg(long, value_name = "TABLE", value_parser = naming_parser())]
    pub openings: Option<Naming>,
    /// Exit 1 on warnings too.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Games larger than this many MiB (1 to 1024) are cut and reported.
    #[arg(long, value_name = "MIB", default_value_t = 32, value_parser = parse_game_size)]
    pub max_game_size: usize,
}

#[derive(Debug, Args)]
pub struct FixArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    /// Rewrite each input file with its games fixed instead of writing them
    /// to stdout: written beside it under a temporary name and renamed over
    /// it (its owner, group and permissions kept, set-user-ID and
    /// set-group-ID bits dropped), and only when something changed and
    /// nothing else wrote to the file meanwhile. Plain PGN files only:
    /// stdin, compressed files, zip archives and UTF-16 files are refused
    /// before anything is written.
    #[arg(long, conflicts_with_all = ["check", "diff", "shard"])]
    pub in_place: bool,
    /// Print a unified diff of each input file against its fixed text
    /// (`--- PATH`, `+++ PATH`: `patch -p0` applies it) instead of the
    /// games; plain PGN files only, as --in-place. Made as the games are
    /// fixed, in a few MB whatever the file's size, and printed once the
    /// file is read to its end (waiting in a temporary file when large).
    #[arg(long, conflicts_with = "shard")]
    pub diff: bool,
    /// Write no games; exit 1 when something would change (as `cargo fmt
    /// --check`), the repairs still listed on stderr.
    #[arg(long)]
    pub check: bool,
    /// An openings table, `builtin` (lichess's, built in) or a lichess
    /// chess-openings TSV file or folder: a game it names whose ECO or
    /// Opening tag differs gets both from it (`set-opening-tags`).
    // Its own id, as `--normalize`'s table: PGNKIT_OPENINGS does not apply
    // where a table changes the games written.
    #[arg(long = "openings", id = "opening_tags", value_name = "TABLE", value_parser = naming_parser())]
    pub openings: Option<Naming>,
    /// FILE holds CSV rows `alias,name`: a White or Black tag that is
    /// `alias` (trimmed; case and spaces count) is set to `name`
    /// (`set-player-name`).
    #[arg(long, value_name = "FILE")]
    pub aliases: Option<PathBuf>,
    /// Games larger than this many MiB (1 to 1024) are cut and reported (a
    /// file with a cut game is not rewritten).
    #[arg(long, value_name = "MIB", default_value_t = 32, value_parser = parse_game_size)]
    pub max_game_size: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConvertFormat {
    /// Normalized PGN (export format): Seven Tag Roster first, other tags
    /// sorted, SAN regenerated, movetext wrapped at 79 columns.
    Pgn,
    /// One game per line: the main line in SAN (`e4 e5 Nf3`).
    San,
    /// One game per line: the main line in UCI (`e2e4 e7e5 g1f3`).
    Uci,
    /// One game per line: the main line in long algebraic (`e2-e4 Ng1-f3`).
    Lan,
    /// One line per game: the FEN of the final position.
    Fen,
    /// One line per position of every game, the start included, with
    /// `id "<file>:<game>:<ply>"`.
    Epd,
    /// One JSON object per game: tags, SAN and UCI moves, comments and NAGs
    /// by ply, result, termination, final FEN.
    Jsonl,
    /// One CSV row per game (see --columns).
    Csv,
    /// Parquet, one row per game: lichess's public dataset columns (Event,
    /// Site, White, Black, Result, titles, Elos, rating changes, UTCDate,
    /// UTCTime, ECO, Opening, Termination, TimeControl, movetext) with its
    /// types, then Date (a date), date_text (the tag as written), Round,
    /// EventDate, base_seconds and increment_seconds (the TimeControl's
    /// clock), file, game, plies, valid, final_fen, board_termination.
    /// Needs --output (or a stdout that is not a terminal).
    // Known without the feature too, so that asking for it says how to get
    // it rather than that no such format exists.
    #[cfg_attr(not(feature = "parquet"), value(hide = true))]
    Parquet,
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

#[derive(Debug, Args)]
pub struct MovesArgs {
    /// Moves in SAN, UCI or long algebraic notation; none (or `-`) reads
    /// stdin, one game per line.
    #[arg(value_name = "MOVE")]
    pub moves: Vec<String>,
    /// The position to start from (default: the standard start). A Shredder
    /// or X-FEN castling field (or king and rooks off their usual squares)
    /// makes it Chess960.
    #[arg(long, value_name = "FEN")]
    pub fen: Option<String>,
    /// What to print for each game.
    #[arg(long, value_enum, default_value_t = MovesFormat::Uci, value_name = "FORMAT")]
    pub to: MovesFormat,
    /// With `--to fen`: the FEN after every ply, one per line (with stdin,
    /// each input line's FENs end with an empty line).
    #[arg(long)]
    pub every: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MovesFormat {
    /// Standard algebraic moves, separated by spaces: `e4 Nf3 O-O exd6 e8=Q+`.
    San,
    /// UCI moves: `e2e4 g1f3 e1g1 e5d6 e7e8q` (Chess960 castling: `e1h1`).
    Uci,
    /// Long algebraic moves: `e2-e4 Ng1-f3 O-O e5xd6 e7-e8=Q+`.
    Lan,
    /// Movetext with move numbers, and the result if one was given:
    /// `1. e4 e5 2. Nf3 1-0`.
    Pgn,
    /// The FEN of the final position (en passant square only when a capture
    /// is legal).
    Fen,
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
    #[command(after_help = examples::FEN_CHECK)]
    Check(FenCheckArgs),
    /// Draw a position: a Unicode (or ASCII) board in the terminal, or an SVG
    /// diagram.
    ///
    /// The text board shows White's pieces as ♔♕♖♗♘♙ and Black's as ♚♛♜♝♞♟
    /// (with `--ascii`, KQRBNP and kqrbnp). Empty dark squares show a `·`,
    /// empty light squares stay blank (with `--ascii`, every empty square is
    /// a `.`). The side to move, castling rights and en passant square follow
    /// the board. A FEN that describes no legal position is still drawn, with
    /// a warning, and the exit code is 1.
    #[command(after_help = examples::FEN_SHOW)]
    Show(FenShowArgs),
}

#[derive(Debug, Args)]
pub struct FenCheckArgs {
    /// FEN strings, or files (plain, .gz, .zst or .bz2) with one FEN or EPD
    /// record per line; blank lines and `#` lines are skipped. A directory
    /// stands for the .fen and .epd files under it. An argument that is not
    /// an existing file is a FEN when it has a space or only board
    /// characters and `/`. `-` or nothing reads stdin.
    #[arg(value_name = "FEN|PATH")]
    pub inputs: Vec<PathBuf>,
    /// Output format: `text` lines for people and editors, `jsonl` one object
    /// per record (its findings in a `diagnostics` list, as `validate`'s),
    /// `csv` one row per finding;
    /// for CI, `github` workflow commands (annotations), `sarif` (SARIF
    /// 2.1.0), `junit` (a test case per record) or `gitlab` (a Code Quality
    /// report).
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    #[command(flatten)]
    pub baseline: BaselineArgs,
    /// Print the canonical FEN of each valid record instead (six fields, en
    /// passant only when a capture is legal, EPD operations dropped, EPD
    /// counters from `hmvc`/`fmvn`); findings go to stderr.
    #[arg(long, conflicts_with_all = ["format", "errors_only", "with_findings"])]
    pub normalize: bool,
    /// Print only the records with an error, with all their findings
    /// (warnings too), in every format; the summary line still counts
    /// every record.
    #[arg(long, conflicts_with = "with_findings")]
    pub errors_only: bool,
    /// Print only the records with a finding of any severity (what
    /// --errors-only did before).
    #[arg(long)]
    pub with_findings: bool,
    /// Exit 1 on warnings too.
    #[arg(long)]
    pub deny_warnings: bool,
}

#[derive(Debug, Args)]
pub struct FenShowArgs {
    /// The position, in FEN, quoted or not (missing fields default to
    /// `w - - 0 1`).
    #[arg(value_name = "FEN", required = true, num_args = 1..)]
    pub fen: Vec<String>,
    /// Black's view: rank 1 at the top, the h-file on the left.
    #[arg(long)]
    pub flip: bool,
    /// Plain letters instead of chess symbols (KQRBNP for White, kqrbnp for
    /// Black, `.` for empty squares).
    #[arg(long, conflicts_with = "svg")]
    pub ascii: bool,
    /// Write an SVG diagram to FILE (`-`: stdout) instead of the text board.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// SVG: arrows, as from and to squares (`e2e4,g1f3`).
    #[arg(long, value_name = "MOVES", value_delimiter = ',', requires = "svg", value_parser = parse_arrow)]
    pub arrows: Vec<(Square, Square)>,
    /// SVG: squares to highlight (`e4,d5`).
    #[arg(long, value_name = "SQUARES", value_delimiter = ',', requires = "svg", value_parser = parse_square)]
    pub highlight: Vec<Square>,
    /// SVG: the last move, shaded on its from and to squares (`e2e4`). A king
    /// in check is marked whatever the options.
    #[arg(long, value_name = "MOVE", requires = "svg", value_parser = parse_arrow)]
    pub last_move: Option<(Square, Square)>,
}

#[derive(Debug, Args)]
pub struct DedupArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    /// What makes two games copies: the start position and the main-line
    /// moves, or also the values of the White, Black, Date and Result tags
    /// (a missing tag equals only a missing tag).
    #[arg(long, value_enum, default_value_t = DedupBy::Moves, value_name = "KEY")]
    pub by: DedupBy,
    /// Print the clusters of copies instead of the games: every game that
    /// has copies, with its copies, first occurrence first; clusters in the
    /// order of their first occurrence.
    #[arg(long, conflicts_with = "normalize")]
    pub list: bool,
    /// With --list: `text` one line per cluster (`file:game` of each copy,
    /// the game's number in its file), `jsonl` one object per cluster
    /// (`cluster`, `copies` with `file`, `game`, `game_line`), `csv` one row
    /// per copy (`cluster,file,game,game_line`).
    #[arg(long, value_enum, default_value_t = Format::Text, requires = "list")]
    pub format: Format,
    #[command(flatten)]
    pub pick: PickArgs,
    /// With --normalize: an openings table, `builtin` (lichess's, built in)
    /// or a lichess chess-openings TSV file or folder; each game it names
    /// gets its ECO and Opening tags from it, replacing the game's own
    /// (pgn-extract's -e).
    // Its own id: PGNKIT_OPENINGS (read where games are named by position)
    // does not apply here, where a table only changes the games written.
    #[arg(long = "openings", id = "opening_tags", value_name = "TABLE", value_parser = naming_parser())]
    pub openings: Option<Naming>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DedupBy {
    /// The start position and the main-line moves.
    Moves,
    /// Also the White, Black, Date and Result tags.
    #[value(name = "moves+tags")]
    MovesTags,
}

/// The formats of `validate` and `fen check`: every command's, and those
/// CI systems read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Text,
    Jsonl,
    Csv,
    Github,
    Sarif,
    Junit,
    Gitlab,
}

/// `--baseline` and `--write-baseline` of `validate` and `fen check`.
#[derive(Debug, Args)]
pub struct BaselineArgs {
    /// Do not report the findings FILE lists, a baseline written by
    /// --write-baseline on an earlier run: they count neither in the
    /// summary nor in the exit code. Findings are matched by file, game
    /// (its Event, Site, Date, Round, White, Black and FEN tags and first
    /// moves; a record by its text), code and move, not by line, so games
    /// added or removed elsewhere do not unmatch them.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write every finding of this run to FILE as a baseline, and report
    /// none of them (the run exits 0 unless an input cannot be read).
    #[arg(long, value_name = "FILE", conflicts_with = "baseline")]
    pub write_baseline: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("layout").required(true).args(["games", "by", "shards"])))]
pub struct SplitArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    /// N games per file: `part-00001.pgn` holds games 1 to N, and so on.
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub games: Option<u64>,
    // Its help lists the keys of the table (keys::KEYS).
    #[arg(long, value_name = "KEY", value_parser = parse_group_key, help = split_by_help())]
    pub by: Vec<pgnkit::keys::GroupKey>,
    /// With --by white, black or player: FILE holds CSV rows `alias,name`,
    /// and a White or Black tag that is `alias` (trimmed; case and spaces
    /// count) goes to the file of `name`.
    #[arg(long, value_name = "FILE")]
    pub aliases: Option<PathBuf>,
    /// With --by: file names in ASCII only. Latin letters lose their accents
    /// by a small table (é is e, ß is ss, Ł is L, Æ is AE); letters of other
    /// scripts (Chinese, Cyrillic, ...) are not transliterated but dropped,
    /// so a value with nothing left is unnamed, unnamed-2, ...
    #[arg(long)]
    pub ascii_names: bool,
    /// N shards of about equal size: game i goes to shard (i - 1) mod N + 1.
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub shards: Option<u64>,
    /// The folder to write into (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out_dir: PathBuf,
    /// Compress the files: zst (Zstandard) or gz (gzip).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub compress: Option<SplitCompression>,
    #[command(flatten)]
    pub pick: PickArgs,
    /// Where `--by eco|opening` reads a game's opening: `builtin`
    /// (lichess's table, built in: the deepest position of the game it
    /// names), a lichess chess-openings TSV file or folder (likewise), or
    /// `tags` (the game's ECO and Opening tags, without replaying it)
    /// [default: $PGNKIT_OPENINGS, else builtin]. With --normalize, a table
    /// given here also sets the ECO and Opening tags of each game it names.
    #[arg(long, value_name = "TABLE", value_parser = naming_parser())]
    pub openings: Option<Naming>,
    /// Files open at a time (default: 128; 32 when compressed).
    #[arg(long, value_name = "N", hide = true, value_parser = parse_count)]
    pub max_open_files: Option<u64>,
}

/// `split --compress`: the formats split offers, as the library names
/// them (which knows no clap).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitCompression(pub pgnkit::input::Compression);

impl ValueEnum for SplitCompression {
    fn value_variants<'a>() -> &'a [SplitCompression] {
        use pgnkit::input::Compression;
        &[SplitCompression(Compression::Zstd), SplitCompression(Compression::Gzip)]
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        use clap::builder::PossibleValue;
        use pgnkit::input::Compression;
        match self.0 {
            Compression::Zstd => Some(PossibleValue::new("zst").alias("zstd").help("Zstandard (`.zst`)")),
            Compression::Gzip => Some(PossibleValue::new("gz").alias("gzip").help("gzip (`.gz`)")),
            Compression::None | Compression::Bzip2 | Compression::Xz => None,
        }
    }
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
