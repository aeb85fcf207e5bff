//! What a check finds: per-game reports, located diagnostics, run summaries.
//!
//! Reports are plain values; writers turn them into text, JSON Lines or CSV,
//! and a [`Summary`] adds them up (it is a monoid, so the thread count cannot
//! change the totals).

use std::{borrow::Cow, ops::AddAssign, sync::Arc};

use serde::Serialize;

pub use crate::codes::{Code, Reason, Severity};
use crate::notation::FenPosition;

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
    /// For `illegal-move`: which rule the move breaks, in a stable
    /// kebab-case name ([`Reason`]).
    pub reason: Option<Reason>,
}

/// Why a drawn game was drawn, when the board says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DrawReason {
    /// See [`Termination::Stalemate`].
    Stalemate,
    /// See [`Termination::InsufficientMaterial`].
    InsufficientMaterial,
    /// See [`Termination::SeventyfiveMoves`].
    SeventyfiveMoves,
    /// See [`Termination::FivefoldRepetition`].
    FivefoldRepetition,
    /// See [`Termination::FiftyMoves`].
    FiftyMoves,
    /// See [`Termination::ThreefoldRepetition`].
    ThreefoldRepetition,
    /// A repetition in which every move of one side gave check.
    PerpetualCheck,
}

impl DrawReason {
    /// The snake_case name used in every output format.
    pub fn as_str(self) -> &'static str {
        match self {
            DrawReason::Stalemate => "stalemate",
            DrawReason::InsufficientMaterial => "insufficient_material",
            DrawReason::SeventyfiveMoves => "seventyfive_moves",
            DrawReason::FivefoldRepetition => "fivefold_repetition",
            DrawReason::FiftyMoves => "fifty_moves",
            DrawReason::ThreefoldRepetition => "threefold_repetition",
            DrawReason::PerpetualCheck => "perpetual_check",
        }
    }
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

    /// The termination named as [`Termination::as_str`] writes it, or
    /// `none` for no rule.
    pub fn parse(name: &str) -> Result<Option<Termination>, String> {
        const ALL: [Termination; 7] = [
            Termination::Checkmate,
            Termination::Stalemate,
            Termination::InsufficientMaterial,
            Termination::SeventyfiveMoves,
            Termination::FivefoldRepetition,
            Termination::FiftyMoves,
            Termination::ThreefoldRepetition,
        ];
        if name == "none" {
            return Ok(None);
        }
        ALL.into_iter().find(|t| t.as_str() == name).map(Some).ok_or_else(|| {
            let names: Vec<&str> = ALL.iter().map(|t| t.as_str()).collect();
            format!("{name:?} is not a termination: {} or none", names.join(", "))
        })
    }

    /// Whether the rule ends the game by itself (mate, stalemate and the
    /// automatic draws), rather than allowing a claim.
    pub fn ends_game(self) -> bool {
        !matches!(self, Termination::FiftyMoves | Termination::ThreefoldRepetition)
    }
}

/// Everything `validate` says about one game (its jsonl fields: docs/output-formats.md).
#[derive(Debug, Clone, Serialize)]
pub struct GameReport {
    /// The input as named on the command line (`<stdin>` for stdin).
    pub file: Arc<str>,
    /// 1-based number of the game in its file.
    pub game: u64,
    /// 1-based line of the game's first byte (`game_line`, as in every
    /// output: a finding's `line` is its own).
    #[serde(rename = "game_line")]
    pub line: u64,
    /// White tag.
    pub white: Option<String>,
    /// Black tag.
    pub black: Option<String>,
    /// The game's result ([`crate::check::game_result`]).
    pub result: Option<&'static str>,
    /// The Result tag as written (its last value); one of the four results
    /// borrowed, as pgnkit writes it.
    pub result_tag: Option<Cow<'static, str>>,
    /// The movetext's termination marker, as a result is written.
    pub result_marker: Option<&'static str>,
    /// Legal mainline moves replayed.
    pub plies: u32,
    /// Replayed and no diagnostic of severity error: a game that could not
    /// be replayed is never valid.
    pub valid: bool,
    /// The main line was replayed from the game's start position; false
    /// for an unsupported variant or an unusable FEN tag (whose moves
    /// nobody checked).
    pub checked: bool,
    /// The rule that ends the game in its final position, if any
    /// (`board_termination`, as in every output: apart from the
    /// Termination tag).
    #[serde(rename = "board_termination")]
    pub termination: Option<Termination>,
    /// The last position reached, written as its FEN (kept as what the FEN
    /// is written from: only the outputs that show it write it).
    pub final_fen: Option<FenPosition>,
    /// For a drawn game (by its result), the rule on the board that draws
    /// it, with repetitions of checks told apart as perpetual check.
    pub draw_reason: Option<DrawReason>,
    /// The first ply (0 = the start position) whose position occurred for
    /// the third time, even if play went on.
    pub threefold_ply: Option<u32>,
    /// The first ply whose position occurred for the fifth time.
    pub fivefold_ply: Option<u32>,
    /// The first ply at which 50 moves had passed without capture or pawn
    /// move (the halfmove clock at 100, the game not over).
    pub fifty_moves_ply: Option<u32>,
    /// The first ply at which 75 moves had passed (clock at 150, not mate).
    pub seventyfive_moves_ply: Option<u32>,
    /// Findings, in the order of the text.
    pub diagnostics: Vec<Diagnostic>,
}

impl GameReport {
    /// The report of a game before it is checked: not replayed yet, no
    /// plies, nothing known of how it ended (the checker sets `checked`
    /// and `valid` once it has tried).
    pub(crate) fn new(file: &Arc<str>, game: u64, line: u64) -> GameReport {
        GameReport {
            file: Arc::clone(file),
            game,
            line,
            white: None,
            black: None,
            result: None,
            result_tag: None,
            result_marker: None,
            plies: 0,
            valid: true,
            checked: false,
            termination: None,
            final_fen: None,
            draw_reason: None,
            threefold_ply: None,
            fivefold_ply: None,
            fifty_moves_ply: None,
            seventyfive_moves_ply: None,
            diagnostics: Vec::new(),
        }
    }

    /// Whether any finding has at least the given severity.
    pub fn has(&self, severity: Severity) -> bool {
        self.diagnostics.iter().any(|d| d.severity >= severity)
    }

    /// Whether the game has an error (checked or not).
    pub fn invalid(&self) -> bool {
        self.has(Severity::Error)
    }

    /// Neither valid nor invalid: not replayed, and no error (an
    /// unsupported variant).
    pub fn unchecked(&self) -> bool {
        !self.checked && !self.invalid()
    }
}

/// Totals over many games; add reports or other summaries to it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games read.
    pub games: u64,
    /// Games replayed without errors.
    pub valid_games: u64,
    /// Games not replayed and without errors (see [`GameReport::unchecked`]).
    pub unchecked_games: u64,
    /// Games with at least one warning.
    pub games_with_warnings: u64,
    /// Plies replayed.
    pub plies: u64,
    /// Error diagnostics.
    pub errors: u64,
    /// Warning diagnostics.
    pub warnings: u64,
    /// Informational diagnostics.
    pub infos: u64,
}

impl Summary {
    /// Games with at least one error.
    pub fn invalid_games(&self) -> u64 {
        self.games - self.valid_games - self.unchecked_games
    }
}

impl AddAssign<&GameReport> for Summary {
    fn add_assign(&mut self, report: &GameReport) {
        self.games += 1;
        self.valid_games += u64::from(report.valid);
        self.unchecked_games += u64::from(report.unchecked());
        self.plies += u64::from(report.plies);
        let count = |severity| report.diagnostics.iter().filter(|d| d.severity == severity).count() as u64;
        let warnings = count(Severity::Warning);
        self.warnings += warnings;
        self.errors += count(Severity::Error);
        self.infos += count(Severity::Info);
        self.games_with_warnings += u64::from(warnings > 0);
    }
}

impl AddAssign<&Summary> for Summary {
    fn add_assign(&mut self, other: &Summary) {
        self.games += other.games;
        self.valid_games += other.valid_games;
        self.unchecked_games += other.unchecked_games;
        self.games_with_warnings += other.games_with_warnings;
        self.plies += other.plies;
        self.errors += other.errors;
        self.warnings += other.warnings;
        self.infos += other.infos;
    }
}

/// Keys of the terminations object: the seven names, then `none`.
pub(crate) const TERMINATIONS: [&str; 8] = [
    "checkmate",
    "stalemate",
    "insufficient_material",
    "seventyfive_moves",
    "fivefold_repetition",
    "fifty_moves",
    "threefold_repetition",
    "none",
];
