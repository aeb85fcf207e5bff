//! What a check finds: per-game reports, located diagnostics, run summaries.
//!
//! Reports are plain values; writers turn them into text, JSON Lines or CSV,
//! and a [`Summary`] adds them up (it is a monoid, so the thread count cannot
//! change the totals).

use std::{borrow::Cow, fmt, ops::AddAssign, sync::Arc};

use serde::Serialize;

use crate::notation::fen::FenPosition;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing, never a fault (`--deny-warnings` ignores it).
    Info,
    /// Suspicious but the game stays valid (`--deny-warnings` makes it fail).
    Warning,
    /// The game is invalid.
    Error,
}

impl Severity {
    /// `warning` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// An enum of stable kebab-case names: `ALL`, `as_str`, `Display` and
/// serialization as the name.
macro_rules! named {
    ($(#[$meta:meta])* $enum:ident { $($(#[$doc:meta])* $variant:ident => $name:literal,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum $enum {
            $($(#[$doc])* $variant,)*
        }

        impl $enum {
            /// Every value, in declaration order.
            pub const ALL: &'static [$enum] = &[$($enum::$variant,)*];

            /// The stable kebab-case name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($enum::$variant => $name,)*
                }
            }
        }

        impl fmt::Display for $enum {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $enum {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
    };
}

named! {
    /// The kind of a finding; its kebab-case name is stable across formats.
    Code {
        /// A move that cannot be played in the position.
        IllegalMove => "illegal-move",
        /// `convert`: a move in a variation that cannot be played there (the
        /// variation is cut before it; the game stays valid).
        IllegalMoveInVariation => "illegal-move-in-variation",
        /// A move written so that several legal moves match it.
        AmbiguousMove => "ambiguous-move",
        /// A movetext token that is not a move, number, NAG, comment or result.
        InvalidSan => "invalid-san",
        /// A `[FEN]` tag that does not describe a legal position.
        InvalidFenTag => "invalid-fen-tag",
        /// A `[FEN]` tag with castling rights or an en passant square its
        /// position cannot have: they are dropped and the game is replayed.
        FenTagRepaired => "fen-tag-repaired",
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
        /// A Result tag that is not `1-0`, `0-1`, `1/2-1/2` or `*`.
        InvalidResultTag => "invalid-result-tag",
        /// A termination marker pgn-reader reads but the PGN standard does
        /// not write (`½-½`, a dash other than `-`).
        NonstandardResultMarker => "nonstandard-result-marker",
        /// Moves after the game ended on the board: after checkmate or
        /// stalemate (error), after an automatic draw (warning).
        MovesAfterEnd => "moves-after-end",
        /// A win on time for a side that has no mating material (FIDE 6.9 makes
        /// it a draw).
        TimeoutVsInsufficientMaterial => "timeout-vs-insufficient-material",
        /// A game that ended on the board carries no result (`*` or none).
        UnknownResult => "unknown-result",
        /// A null move (`--`, `Z0`).
        NullMove => "null-move",
        /// An evaluation symbol written as text (`+-`, `RR`) where a NAG belongs.
        TextAnnotation => "text-annotation",
        /// A `$` token that is not a NAG (`$256`: the standard's NAGs are 0
        /// to 255), ignored.
        InvalidNag => "invalid-nag",
        /// A move written in another notation than SAN (coordinates `g1f3`,
        /// long algebraic `Ng1-f3`, `o-o`, `++`), read as the move it names.
        NonSanMove => "non-san-move",
        /// A capture written without `x` (`ed5`, `Bc6`), played as the capture.
        UnmarkedCapture => "unmarked-capture",
        /// Text between games that holds no tag and no move, skipped.
        StrayText => "stray-text",
        /// Bytes that are not UTF-8 (decoded as Latin-1).
        NonUtf8 => "non-utf8",
        /// A game larger than the size cap, cut short.
        GameTooLarge => "game-too-large",
        /// The input failed (I/O or decompression) inside this game.
        TruncatedGame => "truncated-game",
        /// `--lint`: a `+` or `#` missing, superfluous or wrong.
        LintCheckSuffix => "lint-check-suffix",
        /// `--lint`: a file or rank given that is not needed, or not the one
        /// SAN asks for.
        LintDisambiguation => "lint-disambiguation",
        /// `--lint`: castling written with zeros (`0-0`).
        LintZeroCastling => "lint-zero-castling",
        /// `--lint`: a promotion without `=` (`e8Q`).
        LintPromotionEquals => "lint-promotion-equals",
        /// `--lint`: an `e.p.` after an en passant capture.
        LintEnPassantSuffix => "lint-en-passant-suffix",
        /// A variation nested deeper than pgnkit reads (1,000 levels): it is
        /// not read, nor any other as deep in the game.
        VariationTooDeep => "variation-too-deep",
    }
}

impl Code {
    /// The severity a finding of this code has and what it means, in a
    /// user's words: the manual pages list every code from here, so that
    /// a new code cannot be left out of them.
    pub fn manual(self) -> (&'static str, &'static str) {
        match self {
            Code::IllegalMove => ("error", "a move that cannot be played, with the rule it breaks (the reason)"),
            Code::IllegalMoveInVariation => {
                ("error", "a move inside a variation that cannot be played from its branch position")
            }
            Code::AmbiguousMove => ("error", "a move several pieces could make, with the candidates"),
            Code::InvalidSan => ("error", "a token that is not a move, move number, NAG, comment or result"),
            Code::InvalidFenTag => ("error", "a FEN tag that cannot be read or is not a legal position"),
            Code::FenTagRepaired => (
                "warning",
                "a FEN tag with castling rights or an en passant square its position cannot have: they are dropped and the game is replayed",
            ),
            Code::UnsupportedVariant => {
                ("warning", "a variant other than standard chess and Chess960: not replayed, counted as not checked")
            }
            Code::InvalidTag => ("error", "a tag line that is not [Name \"value\"]"),
            Code::UnterminatedComment => ("error", "a { comment never closed"),
            Code::UnterminatedVariation => ("error", "a ( variation never closed"),
            Code::UnmatchedParenthesis => ("error", "a ) that closes no variation"),
            Code::VariationTooDeep => {
                ("error", "a variation nested more than 1,000 deep: not read, nor any other as deep in the game")
            }
            Code::MissingResult => ("warning", "no termination marker at the end of the movetext"),
            Code::ResultMismatch => (
                "error",
                "the Result tag and the termination marker disagree, or a mate, stalemate or automatic draw carries another result",
            ),
            Code::InvalidResultTag => ("error", "a Result tag that is not 1-0, 0-1, 1/2-1/2 or *"),
            Code::NonstandardResultMarker => {
                ("warning", "a termination marker the PGN standard does not write (½-½, another dash than -)")
            }
            Code::MovesAfterEnd => (
                "error / warning",
                "a move after checkmate or stalemate (error), or after a fivefold repetition or the 75-move point (warning)",
            ),
            Code::TimeoutVsInsufficientMaterial => {
                ("warning", "a win on time for a side that has no mating material (FIDE 6.9: a draw)")
            }
            Code::UnknownResult => {
                ("info", "the game ended on the board (mate, stalemate, automatic draw) but its result is * or missing")
            }
            Code::NullMove => ("warning (error in check)", "a null move (-- or Z0), played as a pass"),
            Code::TextAnnotation => {
                ("warning", "an evaluation written as text (+-, =, RR) instead of a NAG; once per game")
            }
            Code::InvalidNag => ("warning", "a $ token that is not a NAG ($256: NAGs go from 0 to 255), ignored"),
            Code::NonSanMove => (
                "warning",
                "a move in another notation than SAN (g1f3, Ng1-f3, o-o, Qxf7++), read as the move it names; once per game",
            ),
            Code::UnmarkedCapture => {
                ("warning", "a capture written without x (ed5), played as the capture; once per game")
            }
            Code::StrayText => ("warning", "text between games with no tag and no move, skipped"),
            Code::NonUtf8 => ("warning", "bytes that are not UTF-8, decoded as Latin-1"),
            Code::GameTooLarge => ("error", "a game over --max-game-size MiB, cut short"),
            Code::TruncatedGame => ("error", "the input failed (a truncated compressed file) inside this game"),
            Code::LintCheckSuffix => ("warning, only with --lint", "a + or # missing, superfluous or wrong"),
            Code::LintDisambiguation => {
                ("warning, only with --lint", "a file or rank given that is not needed, or not the one SAN asks for")
            }
            Code::LintZeroCastling => ("warning, only with --lint", "castling written with zeros (0-0)"),
            Code::LintPromotionEquals => ("warning, only with --lint", "a promotion without = (e8Q)"),
            Code::LintEnPassantSuffix => ("warning, only with --lint", "an e.p. after an en passant capture"),
        }
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
    /// For `illegal-move`: which rule the move breaks, in a stable
    /// kebab-case name ([`Reason`]).
    pub reason: Option<Reason>,
}

named! {
    /// Why a move is illegal; the kebab-case name is stable.
    Reason {
        /// No piece of that kind (on the given file or rank) reaches the square.
        NoPieceReaches => "no-piece-reaches",
        /// The piece is pinned to its king.
        Pinned => "pinned",
        /// The side to move is in check and the move does not end it.
        KingLeftInCheck => "king-left-in-check",
        /// The king would step onto an attacked square.
        KingIntoCheck => "king-into-check",
        /// The king or that rook has moved (or the rook was captured).
        CastlingRightsLost => "castling-rights-lost",
        /// Pieces stand between the king and the rook.
        CastlingBlocked => "castling-blocked",
        /// Castling while in check.
        CastlingInCheck => "castling-in-check",
        /// The king would pass through an attacked square.
        CastlingThroughCheck => "castling-through-check",
        /// The king would land on an attacked square.
        CastlingIntoCheck => "castling-into-check",
        /// A pawn reaches the last rank without naming its promotion piece.
        PromotionMissing => "promotion-missing",
        /// Promotion to a king or pawn, by a piece that is not a pawn, or
        /// before the last rank.
        PromotionInvalid => "promotion-invalid",
        /// A pawn captures onto an empty square where en passant is not
        /// available (the enemy pawn did not just advance two squares).
        EnPassantUnavailable => "en-passant-unavailable",
        /// The move is marked as a capture but the square is empty.
        CaptureOfEmptySquare => "capture-of-empty-square",
        /// The move is not marked as a capture but the square holds an enemy
        /// piece.
        CaptureNotMarked => "capture-not-marked",
        /// The square holds one of the mover's own pieces.
        OwnPieceOnSquare => "own-piece-on-square",
        /// A piece drop (`N@f3`), which standard chess does not have.
        PieceDrop => "piece-drop",
    }
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
