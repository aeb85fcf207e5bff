//! What `fen check` says about a record: the finding codes, the findings
//! and the per-record report, and the summary over many records.

use std::{fmt, ops::AddAssign};

use serde::Serialize;
use shakmaty::Chess;

use crate::report::Severity;

macro_rules! fen_codes {
    ($($(#[$doc:meta])* $variant:ident => $name:literal,)*) => {
        /// The kind of a FEN finding; its kebab-case name is stable.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum FenCode {
            $($(#[$doc])* $variant,)*
        }

        impl FenCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [FenCode] = &[$(FenCode::$variant,)*];

            /// The stable kebab-case name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(FenCode::$variant => $name,)*
                }
            }
        }
    };
}

fen_codes! {
    /// The record stops before the side to move, castling or en passant
    /// field (or a halfmove clock has no fullmove number after it).
    MissingField => "missing-field",
    /// The board does not have 8 rows.
    BoardRows => "board-rows",
    /// A board character that is neither a piece letter nor a count 1-8.
    BoardChar => "board-char",
    /// Two empty-square counts side by side (`44`).
    BoardDigits => "board-digits",
    /// A row that does not cover exactly 8 squares.
    BoardRowLength => "board-row-length",
    /// The side to move is not `w` or `b`.
    SideToMove => "side-to-move",
    /// The castling field is not `-` or up to two letters per side, none
    /// twice.
    CastlingField => "castling-field",
    /// The en passant field is not `-` or a square.
    EnPassantField => "en-passant-field",
    /// The halfmove clock is not a whole number.
    HalfmoveClock => "halfmove-clock",
    /// The fullmove number is not a whole number.
    FullmoveNumber => "fullmove-number",
    /// Text after the last field that is neither EPD operations nor a
    /// `;` comment.
    TrailingText => "trailing-text",
    /// An EPD operation that cannot be read (bad opcode, unterminated
    /// string), or wrong operands for a standard opcode (`hmvc`, `fmvn`,
    /// `acd`, `acn`, `acs`, `ce`, `dm`, `rc`, the move opcodes).
    EpdOperation => "epd-operation",
    /// An `am`, `bm`, `pm`, `sm` or `pv` operand that is not a legal move.
    EpdIllegalMove => "epd-illegal-move",
    /// Warning: the last EPD operation of the line has no closing `;`.
    EpdMissingSemicolon => "epd-missing-semicolon",
    /// Warning: an `am`, `bm`, `pm`, `sm` or `pv` move written in UCI
    /// (`e1g1`) rather than SAN, read as such.
    EpdUciMove => "epd-uci-move",
    /// Warning: an EPD opcode given twice (the last one counts).
    EpdRepeatedOpcode => "epd-repeated-opcode",
    /// A side without a king.
    MissingKing => "missing-king",
    /// A side with more than one king.
    TooManyKings => "too-many-kings",
    /// A pawn on the first or last rank.
    PawnOnBackRank => "pawn-on-back-rank",
    /// More than 16 pieces of one side.
    TooManyPieces => "too-many-pieces",
    /// More than 8 pawns of one side.
    TooManyPawns => "too-many-pawns",
    /// More promoted pieces than missing pawns (bishops counted by the
    /// colour of their squares).
    TooManyPromotedPieces => "too-many-promoted-pieces",
    /// The side not to move is in check.
    OppositeCheck => "opposite-check",
    /// More than two pieces give check.
    TooManyCheckers => "too-many-checkers",
    /// A check no last move can have given: two aligned checkers, two
    /// checking knights or pawns, or a check the en passant square rules
    /// out.
    ImpossibleCheck => "impossible-check",
    /// A castling right without its king and rook on their squares.
    CastlingRights => "castling-rights",
    /// The en passant square is not on the rank a double step skips.
    EnPassantWrongRank => "en-passant-wrong-rank",
    /// No pawn stands where the double step would have put it.
    EnPassantNoPawn => "en-passant-no-pawn",
    /// The en passant square, or the square the pawn came from, is occupied.
    EnPassantSquareOccupied => "en-passant-square-occupied",
    /// shakmaty refuses a position that none of the checks above faults (a
    /// pgnkit bug if it ever appears).
    PositionRejected => "position-rejected",
    /// Warning: castling letters out of the usual order (`kqKQ`, `QK`),
    /// read all the same.
    CastlingOrder => "castling-order",
    /// Warning: a counter written with a leading zero (`00`).
    CounterLeadingZero => "counter-leading-zero",
    /// Warning: fullmove number 0 (it starts at 1).
    FullmoveZero => "fullmove-zero",
    /// Warning: an en passant square with a halfmove clock other than 0
    /// (the double step just played resets it).
    HalfmoveClockWithEnPassant => "halfmove-clock-with-en-passant",
    /// Warning: a halfmove clock larger than the number of halfmoves played
    /// before this move number.
    HalfmoveClockTooHigh => "halfmove-clock-too-high",
}

impl FenCode {
    /// The severity of a finding of this code: every one is an error but
    /// the few warnings of the table ([`FenCode::manual`]).
    pub fn severity(self) -> Severity {
        if self.row().0 { Severity::Warning } else { Severity::Error }
    }

    /// The severity of a finding of this code and what it means, in a
    /// user's words: the manual page of `fen check` lists every code from
    /// here, so that a new code cannot be left out of it.
    pub fn manual(self) -> (&'static str, &'static str) {
        (self.severity().as_str(), self.row().1)
    }

    /// Whether the code is a warning, and what it means.
    fn row(self) -> (bool, &'static str) {
        use FenCode::*;
        match self {
            MissingField => (
                false,
                "the record ends before the side to move, castling rights or en passant square (or a halfmove clock has no fullmove number)",
            ),
            BoardRows => (false, "the board has not 8 rows"),
            BoardChar => (false, "a board character that is neither a piece letter nor a count 1-8"),
            BoardDigits => (false, "two empty-square counts side by side (44)"),
            BoardRowLength => (false, "a row that does not cover exactly 8 squares"),
            SideToMove => (false, "the side to move is not w or b"),
            CastlingField => (false, "the castling field is not - or up to two letters per side, none twice"),
            EnPassantField => (false, "the en passant field is not - or a square"),
            HalfmoveClock => (false, "the halfmove clock (or an hmvc operand) is not a whole number"),
            FullmoveNumber => (false, "the fullmove number (or an fmvn operand) is not a whole number"),
            TrailingText => (false, "text after the fields that is neither counters, EPD operations nor a ; comment"),
            EpdOperation => (
                false,
                "an EPD operation that cannot be read (bad opcode, string never closed), or wrong operands for a standard opcode",
            ),
            EpdIllegalMove => {
                (false, "an am, bm, pm or sm operand that is not a legal move, or a pv line that cannot be played")
            }
            EpdMissingSemicolon => (true, "the last EPD operation of the line has no closing ;"),
            EpdUciMove => (true, "an am, bm, pm, sm or pv move written in UCI (e1g1) rather than SAN, read as such"),
            EpdRepeatedOpcode => (true, "an EPD opcode given twice (the last one counts)"),
            MissingKing => (false, "a side without a king"),
            TooManyKings => (false, "a side with more than one king"),
            PawnOnBackRank => (false, "a pawn on the first or last rank"),
            TooManyPieces => (false, "more than 16 pieces of one side"),
            TooManyPawns => (false, "more than 8 pawns of one side"),
            TooManyPromotedPieces => (false, "more pieces beyond the starting set than pawns missing"),
            OppositeCheck => (false, "the side not to move is in check"),
            TooManyCheckers => (false, "three or more pieces give check"),
            ImpossibleCheck => (
                false,
                "a check no last move can have given: two aligned checkers, two checking knights or pawns, or a check the en passant square rules out",
            ),
            CastlingRights => (false, "a castling right without its king and rook on their squares"),
            EnPassantWrongRank => (false, "the en passant square is not on the rank a double step skips"),
            EnPassantNoPawn => (false, "no pawn stands where the double step would have put it"),
            EnPassantSquareOccupied => (false, "the en passant square, or the square the pawn came from, is occupied"),
            PositionRejected => (false, "shakmaty refuses a position none of the checks faults (a pgnkit bug)"),
            CastlingOrder => (true, "castling letters out of the usual order (kqKQ, QK), read all the same"),
            CounterLeadingZero => (true, "a counter written with a leading zero (00)"),
            FullmoveZero => (true, "fullmove number 0 (it starts at 1)"),
            HalfmoveClockWithEnPassant => (true, "an en passant square with a halfmove clock other than 0"),
            HalfmoveClockTooHigh => {
                (true, "a halfmove clock larger than the number of halfmoves played before this move number")
            }
        }
    }
}

impl fmt::Display for FenCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for FenCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// One thing wrong with a record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FenFinding {
    /// Error (the record is invalid) or warning (it stays valid).
    pub severity: Severity,
    /// What kind of defect.
    pub code: FenCode,
    /// 1-based column (in characters) of the field or operation concerned.
    pub column: u32,
    /// A sentence a player understands.
    pub message: String,
}

/// Everything `fen check` says about one record, the line it was read
/// from borrowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FenReport<'a> {
    /// 1-based line of the record in its input.
    pub line: u64,
    /// The record as written, without surrounding whitespace.
    pub fen: &'a str,
    /// No finding of severity error.
    pub valid: bool,
    /// The castling rights make sense only in Chess960 (king or rooks off
    /// their standard squares).
    pub chess960: bool,
    /// For a valid record: its position, with the counters of the record
    /// (for EPD from `hmvc`/`fmvn`, else `0 1`).
    pub position: Option<Chess>,
    /// Findings, errors and warnings, by column (position defects first:
    /// they are located at the board).
    pub findings: Vec<FenFinding>,
}

impl FenReport<'_> {
    /// For a valid record: the canonical FEN (six fields, en passant only
    /// when a capture is legal). Written when asked for: most outputs never
    /// show it.
    pub fn normalized_fen(&self) -> Option<String> {
        self.position.as_ref().map(crate::notation::fen)
    }

    /// The findings of one severity.
    pub fn with_severity(&self, severity: Severity) -> impl Iterator<Item = &FenFinding> {
        self.findings.iter().filter(move |f| f.severity == severity)
    }
}

/// Totals over many records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FenSummary {
    /// Records read (blank and `#` lines are not records).
    pub records: u64,
    /// Records without errors.
    pub valid: u64,
    /// Error findings.
    pub errors: u64,
    /// Warning findings.
    pub warnings: u64,
}

impl FenSummary {
    /// Records with at least one error.
    pub fn invalid(&self) -> u64 {
        self.records - self.valid
    }
}

impl AddAssign<&FenReport<'_>> for FenSummary {
    fn add_assign(&mut self, report: &FenReport<'_>) {
        self.records += 1;
        self.valid += u64::from(report.valid);
        self.errors += report.with_severity(Severity::Error).count() as u64;
        self.warnings += report.with_severity(Severity::Warning).count() as u64;
    }
}

impl AddAssign<&FenSummary> for FenSummary {
    fn add_assign(&mut self, other: &FenSummary) {
        self.records += other.records;
        self.valid += other.valid;
        self.errors += other.errors;
        self.warnings += other.warnings;
    }
}

/// Findings of one record, with columns counted in characters of its line.
pub(super) struct Findings<'a> {
    line: &'a str,
    pub(super) list: Vec<FenFinding>,
}

impl<'a> Findings<'a> {
    pub(super) fn new(line: &'a str) -> Self {
        Findings { line, list: Vec::new() }
    }

    /// Records a finding about the text starting at byte `at` of the line.
    pub(super) fn push(&mut self, severity: Severity, code: FenCode, at: usize, message: String) {
        let column = self.line.get(..at).map_or(at, |before| before.chars().count()) as u32 + 1;
        self.list.push(FenFinding { severity, code, column, message });
    }

    pub(super) fn error(&mut self, code: FenCode, at: usize, message: String) {
        self.push(Severity::Error, code, at, message);
    }

    pub(super) fn warning(&mut self, code: FenCode, at: usize, message: String) {
        self.push(Severity::Warning, code, at, message);
    }

    pub(super) fn has_errors(&self) -> bool {
        self.list.iter().any(|f| f.severity == Severity::Error)
    }
}
