//! `pgnkit ratings`'s arguments: the scheme, its periods and parameters,
//! and the output.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{
    parse::{parse_draw_rate, parse_game_size, parse_ml_param},
    shared::{Format, Inputs},
};

#[derive(Debug, Args)]
pub struct RatingsArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    /// elo: FIDE's rules, game by game in date order; club: the club points
    /// scheme (start at 0, levels unranked, 30 ... 1); ml: maximum
    /// likelihood over all games at once.
    #[arg(long, value_enum, default_value_t = RatingScheme::Elo)]
    pub scheme: RatingScheme,
    /// Output format: an aligned `text` table, `csv` with a header row, or
    /// `jsonl`, one object per row.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Instead of the standings, one row per rated game (in the order
    /// applied) with both players' ratings before and after it (elo, club).
    #[arg(long)]
    pub history: bool,
    /// List only players with at least N rated games (all are rated).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub min_games: u32,
    /// A CSV file of `alias,name` rows: games of `alias` (trimmed; case and
    /// spaces count) count for `name` (--alias: its earlier name).
    #[arg(long, value_name = "FILE", alias = "alias")]
    pub aliases: Option<PathBuf>,
    /// Replay every game and rate only the valid ones (findings go to
    /// stderr as with convert; exit 1 if a game is invalid).
    #[arg(long)]
    pub valid_only: bool,
    /// Games larger than this many MiB (1 to 1024) are cut (their tags are
    /// still read; with --valid-only the cut is reported).
    #[arg(long, value_name = "MIB", default_value_t = 32, value_parser = parse_game_size)]
    pub max_game_size: usize,
    /// Elo: game (ratings change after every game), day or month (the
    /// games of a period are rated from the ratings at its start, and the
    /// change is applied at its end) [default: game].
    #[arg(long, value_enum, help_heading = "Elo")]
    pub period: Option<RatingPeriod>,
    /// Elo: the rating of a player whose first game has no WhiteElo or
    /// BlackElo tag for them [default: 1500].
    #[arg(long, value_name = "RATING", help_heading = "Elo")]
    pub initial: Option<u32>,
    /// ml: the player whose rating is fixed (at --anchor-rating); the
    /// others are rated from there.
    #[arg(long, value_name = "NAME", help_heading = "Maximum likelihood")]
    pub anchor: Option<String>,
    /// ml: the anchor's rating [default: the --average value].
    #[arg(
        long,
        value_name = "R",
        requires = "anchor",
        allow_negative_numbers = true,
        help_heading = "Maximum likelihood"
    )]
    pub anchor_rating: Option<f64>,
    /// ml: without an anchor, the mean rating of all players [default: 2300].
    #[arg(long, value_name = "R", allow_negative_numbers = true, help_heading = "Maximum likelihood")]
    pub average: Option<f64>,
    /// ml: White's advantage in rating points, or `auto` to estimate it
    /// [default: 0].
    #[arg(long, value_name = "ELO|auto", value_parser = parse_ml_param, allow_negative_numbers = true, help_heading = "Maximum likelihood")]
    pub white_advantage: Option<pgnkit::ratings::ml::Param>,
    /// ml: the chance of a draw between equal opponents (0 to 1), used to
    /// simulate games for the error bars, or `auto` to estimate it
    /// [default: 0.5].
    #[arg(long, value_name = "RATE|auto", value_parser = parse_draw_rate, help_heading = "Maximum likelihood")]
    pub draw_rate: Option<pgnkit::ratings::ml::Param>,
    /// ml: simulations for the error bars (a parametric bootstrap); ERROR is
    /// half the 95% interval [default: 0, no error bars].
    #[arg(long, value_name = "N", help_heading = "Maximum likelihood")]
    pub simulations: Option<u32>,
    /// ml: the seed of the simulations (same seed, same error bars, for any
    /// -j) [default: 1].
    #[arg(long, value_name = "N", help_heading = "Maximum likelihood")]
    pub seed: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RatingScheme {
    /// FIDE Elo: logistic expected score, K = 40/20/10.
    Elo,
    /// The club points scheme.
    Club,
    /// Maximum likelihood over all games (Ordo-style).
    Ml,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RatingPeriod {
    Game,
    Day,
    Month,
}
