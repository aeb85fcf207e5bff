//! `pgnkit filter`'s arguments: the criteria, by tag, by player, by
//! position and by play, and the selection of matches.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use pgnkit::openings::Naming;

use super::{
    parse::{
        NameArg, TerminationArg, naming_parser, parse_date, parse_names, parse_placement, parse_tag_criterion,
        parse_target, parse_termination,
    },
    shared::{Inputs, PickArgs},
};

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("names").multiple(true).args(["white", "black", "player", "winner", "loser", "event", "site", "opening"])))]
pub struct FilterArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    #[command(flatten)]
    pub pick: PickArgs,
    /// White starts with NAME (case-sensitive unless -i, as pgn-extract's
    /// -Tw).
    #[arg(long, value_name = "NAME", value_parser = parse_names, help_heading = "Tags")]
    pub white: Vec<NameArg>,
    /// Black starts with NAME.
    #[arg(long, value_name = "NAME", value_parser = parse_names, help_heading = "Tags")]
    pub black: Vec<NameArg>,
    /// White or Black starts with NAME.
    #[arg(long, value_name = "NAME", value_parser = parse_names, help_heading = "Tags")]
    pub player: Vec<NameArg>,
    /// The player who won starts with NAME: White for 1-0, Black for 0-1
    /// (the result as for --result); draws and `*` match neither.
    #[arg(long, value_name = "NAME", value_parser = parse_names, help_heading = "Tags")]
    pub winner: Vec<NameArg>,
    /// The player who lost starts with NAME.
    #[arg(long, value_name = "NAME", value_parser = parse_names, help_heading = "Tags")]
    pub loser: Vec<NameArg>,
    /// Event starts with TEXT.
    #[arg(long, value_name = "TEXT", value_parser = parse_names, help_heading = "Tags")]
    pub event: Vec<NameArg>,
    /// Site starts with TEXT.
    #[arg(long, value_name = "TEXT", value_parser = parse_names, help_heading = "Tags")]
    pub site: Vec<NameArg>,
    /// Compare --white, --black, --player, --winner, --loser, --event,
    /// --site and --opening without case (`alder` matches `Alder, Ann`).
    #[arg(short = 'i', long, requires = "names", help_heading = "Tags")]
    pub ignore_case: bool,
    /// With --white, --black, --player, --winner, --loser: FILE holds CSV
    /// rows `alias,name`, and a White or Black tag that is `alias`
    /// (trimmed; case and spaces count) is compared as `name`, as is a
    /// NAME given that is an alias.
    #[arg(long, value_name = "FILE", help_heading = "Tags")]
    pub aliases: Option<std::path::PathBuf>,
    /// The opening's ECO code starts with a prefix (`B2`), or lies in a
    /// range (`A00-B99`).
    #[arg(long, value_name = "CODES", value_parser = pgnkit::filter::EcoRange::parse, help_heading = "Opening")]
    pub eco: Option<pgnkit::filter::EcoRange>,
    /// The opening's name starts with NAME (`Sicilian Defense` matches
    /// `Sicilian Defense: Najdorf Variation`; -i ignores case).
    #[arg(long, value_name = "NAME", value_parser = parse_names, help_heading = "Opening")]
    pub opening: Vec<NameArg>,
    /// Where --eco and --opening read a game's opening: `builtin`
    /// (lichess's table, built in: the deepest position of the game it
    /// names), a lichess chess-openings TSV file or folder (likewise), or
    /// `tags` (the game's ECO and Opening tags, without replaying it)
    /// [default: $PGNKIT_OPENINGS, else builtin]. With --normalize, a table
    /// given here also sets the ECO and Opening tags of each game it names.
    #[arg(long, value_name = "TABLE", value_parser = naming_parser(), help_heading = "Opening")]
    pub openings: Option<Naming>,
    /// Date on or after DATE (`2024`, `2024.05`, `2024.05.17`); a Date with
    /// `??` matches only when every day it may stand for does.
    #[arg(long, value_name = "DATE", value_parser = parse_date, help_heading = "Tags")]
    pub date_from: Option<pgnkit::filter::PgnDate>,
    /// Date on or before DATE.
    #[arg(long, value_name = "DATE", value_parser = parse_date, help_heading = "Tags")]
    pub date_to: Option<pgnkit::filter::PgnDate>,
    /// Both WhiteElo and BlackElo at least N.
    #[arg(long, value_name = "N", help_heading = "Tags")]
    pub elo_min: Option<u32>,
    /// Both WhiteElo and BlackElo at most N.
    #[arg(long, value_name = "N", help_heading = "Tags")]
    pub elo_max: Option<u32>,
    /// The mean of WhiteElo and BlackElo at least N.
    #[arg(long, value_name = "N", help_heading = "Tags")]
    pub avg_elo_min: Option<u32>,
    /// The mean of WhiteElo and BlackElo at most N.
    #[arg(long, value_name = "N", help_heading = "Tags")]
    pub avg_elo_max: Option<u32>,
    /// `NAME=VALUE`: the tag has exactly this value; `NAME~REGEX`: its value
    /// contains a match of the regular expression (`(?i)` ignores case).
    /// Repeatable: each must hold (alternatives go in one regular
    /// expression, `Black~^(Dee|Elm)$`).
    #[arg(long, value_name = "NAME=VALUE|NAME~REGEX", value_parser = parse_tag_criterion, help_heading = "Tags")]
    pub tag: Vec<pgnkit::filter::Criterion>,
    /// The tag is present (any value). Repeatable: each must be.
    #[arg(long, value_name = "NAME", help_heading = "Tags")]
    pub has_tag: Vec<String>,
    /// The Variant tag names this variant (`chess960`; no tag: `standard`).
    #[arg(long, value_name = "NAME", help_heading = "Tags")]
    pub variant: Option<String>,
    /// The result: the Result tag, else the movetext's marker.
    #[arg(long, value_parser = ["1-0", "0-1", "1/2-1/2", "*"], help_heading = "Game")]
    pub result: Option<String>,
    /// The rule that ends the game on the board: checkmate, stalemate,
    /// insufficient_material, seventyfive_moves, fivefold_repetition,
    /// fifty_moves, threefold_repetition, or none.
    #[arg(long, value_name = "NAME", value_parser = parse_termination, help_heading = "Game")]
    pub termination: Option<TerminationArg>,
    /// Games with no error when replayed.
    #[arg(long, conflicts_with = "invalid", help_heading = "Game")]
    pub valid: bool,
    /// Games with an error when replayed.
    #[arg(long, help_heading = "Game")]
    pub invalid: bool,
    /// At least N main-line plies (moves replayed).
    #[arg(long, value_name = "N", help_heading = "Game")]
    pub min_plies: Option<u32>,
    /// At most N main-line plies.
    #[arg(long, value_name = "N", help_heading = "Game")]
    pub max_plies: Option<u32>,
    /// Games with a comment.
    #[arg(long, help_heading = "Game")]
    pub has_comments: bool,
    /// Games with a variation.
    #[arg(long, help_heading = "Game")]
    pub has_variations: bool,
    /// A pawn promoted to a rook, bishop or knight in the main line.
    #[arg(long, help_heading = "Game")]
    pub underpromotion: bool,
    /// none: neither player castled; short, long: a player castled so.
    #[arg(long, value_enum, help_heading = "Game")]
    pub castling: Option<CastlingArg>,
    /// The game reaches this position (board, side to move, castling rights,
    /// en passant; the move counters are ignored, as for repetitions).
    #[arg(long, value_name = "FEN", value_parser = parse_target, help_heading = "Positions")]
    pub fen: Option<pgnkit::filter::Target>,
    /// The game reaches this piece placement (the board part of a FEN).
    #[arg(long, value_name = "BOARD", value_parser = parse_placement, help_heading = "Positions")]
    pub placement: Option<shakmaty::Board>,
    /// The game reaches exactly this material: white's pieces, `v`, black's
    /// (`KQRvKR`, `KPvK`; kings may be left out).
    #[arg(long, value_name = "SIGNATURE", value_parser = pgnkit::filter::Material::parse, help_heading = "Positions")]
    pub material: Option<pgnkit::filter::Material>,
    /// Position criteria look at the positions from ply N on (0: the start).
    #[arg(long, value_name = "N", default_value_t = 0, help_heading = "Positions")]
    pub after_ply: u32,
    /// A game matches when any criterion holds (default: all).
    #[arg(long, help_heading = "Selection")]
    pub any: bool,
    /// Select the games that do not match.
    #[arg(long, help_heading = "Selection")]
    pub invert: bool,
    /// Print only how many games match (after --skip, up to --limit: how
    /// many would be written).
    #[arg(long, help_heading = "Selection")]
    pub count: bool,
    /// Stop after N matching games (reading stops there too).
    #[arg(long, value_name = "N", help_heading = "Selection")]
    pub limit: Option<u64>,
    /// Leave out the first N matching games.
    #[arg(long, value_name = "N", default_value_t = 0, help_heading = "Selection")]
    pub skip: u64,
    /// Write the games that do not match to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Selection")]
    pub rejects: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CastlingArg {
    None,
    Short,
    Long,
}
