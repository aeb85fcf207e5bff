//! What a check finds: per-game reports, located diagnostics, run summaries.
//!
//! Reports are plain values; writers turn them into text, JSON Lines or CSV,
//! and a [`Summary`] adds them up (it is a monoid, so the thread count cannot
//! change the totals).

use std::{fmt, ops::AddAssign, sync::Arc};

use serde::Serialize;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Suspicious but the game stays valid (`--deny-warnings` makes it fail).
    Warning,
    /// The game is invalid.
    Error,
}

impl Severity {
    /// `warning` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident => $name:literal,)*) => {
        /// The kind of a finding; its kebab-case name is stable across formats.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum Code {
            $($(#[$doc])* $variant,)*
        }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The stable kebab-case name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $name,)*
                }
            }
        }
    };
}

codes! {
    /// A move that cannot be played in the position.
    IllegalMove => "illegal-move",
    /// A move written so that several legal moves match it.
    AmbiguousMove => "ambiguous-move",
    /// A movetext token that is not a move, number, NAG, comment or result.
    InvalidSan => "invalid-san",
    /// A `[FEN]` tag that does not describe a legal position.
    InvalidFenTag => "invalid-fen-tag",
    /// A variant this validator does not play (only standard chess and
    /// Chess960 are replayed).
    UnsupportedVariant => "unsupported-variant",
    /// A tag line that cannot be read.
    InvalidTag => "invalid-tag",
    /// A `{` comment never closed.
    UnterminatedComment => "unterminated-comment",
    /// A `(` variation never closed.
    UnterminatedVariation => "unterminated-variation",
    /// A `)` with no open variation.
    UnmatchedParenthesis => "unmatched-parenthesis",
    /// The movetext has no termination marker.
    MissingResult => "missing-result",
    /// The Result tag, the termination marker and the final position disagree.
    ResultMismatch => "result-mismatch",
    /// Moves after checkmate or stalemate ended the game.
    MovesAfterEnd => "moves-after-end",
    /// A null move (`--`, `Z0`).
    NullMove => "null-move",
    /// An evaluation symbol written as text (`+-`, `RR`) where a NAG belongs.
    TextAnnotation => "text-annotation",
    /// A move in coordinates (`g1f3`) instead of SAN, read as coordinates.
    NonSanMove => "non-san-move",
    /// Bytes that are not UTF-8 (decoded as Latin-1).
    NonUtf8 => "non-utf8",
    /// A game larger than the size cap, cut short.
    GameTooLarge => "game-too-large",
    /// The input failed (I/O or decompression) inside this game.
    TruncatedGame => "truncated-game",
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// One located finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// What kind of finding.
    pub code: Code,
    /// 1-based line of the token (the game's first line for game-wide findings).
    pub line: u64,
    /// 1-based column (in characters) of the token.
    pub column: u32,
    /// 1-based ply of the move concerned, if any.
    pub ply: Option<u32>,
    /// The move (or token) as written.
    pub san: Option<String>,
    /// FEN of the position before the move.
    pub fen: Option<String>,
    /// A sentence a player understands.
    pub message: String,
}

/// Which of the game-ending rules holds in the final position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    /// The side to move is mated.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can mate by any sequence of legal moves.
    InsufficientMaterial,
    /// 150 halfmoves without capture or pawn move (automatic draw).
    SeventyfiveMoves,
    /// The position occurred five times (automatic draw).
    FivefoldRepetition,
    /// 100 halfmoves without capture or pawn move (claimable).
    FiftyMoves,
    /// The position occurred three times (claimable).
    ThreefoldRepetition,
}

impl Termination {
    /// The snake_case name used in every output format.
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::InsufficientMaterial => "insufficient_material",
            Termination::SeventyfiveMoves => "seventyfive_moves",
            Termination::FivefoldRepetition => "fivefold_repetition",
            Termination::FiftyMoves => "fifty_moves",
            Termination::ThreefoldRepetition => "threefold_repetition",
        }
    }
}

/// Everything `validate` says about one game (the DESIGN.md jsonl schema).
#[derive(Debug, Clone, Serialize)]
pub struct GameReport {
    /// The input as named on the command line (`<stdin>` for stdin).
    pub file: Arc<str>,
    /// 1-based number of the game in its file.
    pub game: u64,
    /// 1-based line of the game's first byte.
    pub line: u64,
    /// White tag.
    pub white: Option<String>,
    /// Black tag.
    pub black: Option<String>,
    /// Result tag.
    pub result: Option<String>,
    /// Legal mainline moves replayed.
    pub plies: u32,
    /// No diagnostic of severity error.
    pub valid: bool,
    /// The rule that ends the game in its final position, if any.
    pub termination: Option<Termination>,
    /// FEN of the last position reached.
    pub final_fen: Option<String>,
    /// Findings, in the order of the text.
    pub diagnostics: Vec<Diagnostic>,
}

impl GameReport {
    /// Whether any finding has at least the given severity.
    pub fn has(&self, severity: Severity) -> bool {
        self.diagnostics.iter().any(|d| d.severity >= severity)
    }
}

/// Totals over many games; add reports or other summaries to it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games read.
    pub games: u64,
    /// Games without errors.
    pub valid_games: u64,
    /// Games with at least one warning.
    pub games_with_warnings: u64,
    /// Plies replayed.
    pub plies: u64,
    /// Error diagnostics.
    pub errors: u64,
    /// Warning diagnostics.
    pub warnings: u64,
}

impl Summary {
    /// Games with at least one error.
    pub fn invalid_games(&self) -> u64 {
        self.games - self.valid_games
    }
}

impl AddAssign<&GameReport> for Summary {
    fn add_assign(&mut self, report: &GameReport) {
        self.games += 1;
        self.valid_games += u64::from(report.valid);
        self.plies += u64::from(report.plies);
        let warnings = report.diagnostics.iter().filter(|d| d.severity == Severity::Warning).count() as u64;
        self.warnings += warnings;
        self.errors += report.diagnostics.len() as u64 - warnings;
        self.games_with_warnings += u64::from(warnings > 0);
    }
}

impl AddAssign<&Summary> for Summary {
    fn add_assign(&mut self, other: &Summary) {
        self.games += other.games;
        self.valid_games += other.valid_games;
        self.games_with_warnings += other.games_with_warnings;
        self.plies += other.plies;
        self.errors += other.errors;
        self.warnings += other.warnings;
    }
}
