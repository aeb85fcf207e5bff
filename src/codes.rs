//! The finding codes of `validate` as one table ([`Code`]): each code's
//! stable name, the severity its findings have by default, and what it
//! means in a user's words, from which the checker, the manual pages and
//! SARIF's rules read them; beside it the severities, and why a move is
//! illegal ([`Reason`]).
//!
//! Below both the notation, which names the code of a move that cannot be
//! played, and the report, which carries the findings: neither imports the
//! other for them.

use std::fmt;

use serde::Serialize;

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

/// The table of codes: per row, the code, its name, its default severity
/// (`error`, `warning` or `info`, with the words the manual adds, as
/// `warning ", only with --lint"`) and its meaning.
macro_rules! codes {
    ($(#[$meta:meta])* $enum:ident {
        $($(#[$doc:meta])* $variant:ident => $name:literal, $severity:ident $($note:literal)?, $meaning:literal,)*
    }) => {
        named! { $(#[$meta])* $enum { $($(#[$doc])* $variant => $name,)* } }

        impl $enum {
            /// The severity a finding of this code has unless the checker
            /// says otherwise where it finds one (`moves-after-end` after
            /// an automatic draw is a warning).
            pub fn severity(self) -> Severity {
                match self {
                    $($enum::$variant => codes!(@severity $severity),)*
                }
            }

            /// The severity in the manual's words and what the code means:
            /// the manual pages list every code from here, so that a new
            /// code cannot be left out of them.
            pub fn manual(self) -> (&'static str, &'static str) {
                match self {
                    $($enum::$variant => (concat!(stringify!($severity) $(, $note)?), $meaning),)*
                }
            }
        }
    };
    (@severity error) => { Severity::Error };
    (@severity warning) => { Severity::Warning };
    (@severity info) => { Severity::Info };
}

codes! {
    /// The kind of a finding; its kebab-case name is stable across formats,
    /// and the order of the table is the order of SARIF's rules.
    Code {
        /// A move that cannot be played in the position.
        IllegalMove => "illegal-move", error,
            "a move that cannot be played, with the rule it breaks (the reason)",
        /// `convert`: a move in a variation that cannot be played there (the
        /// variation is cut before it; the game stays valid).
        IllegalMoveInVariation => "illegal-move-in-variation", error,
            "a move inside a variation that cannot be played from its branch position",
        /// A move written so that several legal moves match it.
        AmbiguousMove => "ambiguous-move", error,
            "a move several pieces could make, with the candidates",
        /// A movetext token that is not a move, number, NAG, comment or result.
        InvalidSan => "invalid-san", error,
            "a token that is not a move, move number, NAG, comment or result",
        /// A `[FEN]` tag that does not describe a legal position.
        InvalidFenTag => "invalid-fen-tag", error,
            "a FEN tag that cannot be read or is not a legal position",
        /// A `[FEN]` tag with castling rights or an en passant square its
        /// position cannot have: they are dropped and the game is replayed.
        FenTagRepaired => "fen-tag-repaired", warning,
            "a FEN tag with castling rights or an en passant square its position cannot have: they are dropped and the game is replayed",
        /// A variant this validator does not play (only standard chess and
        /// Chess960 are replayed).
        UnsupportedVariant => "unsupported-variant", warning,
            "a variant other than standard chess and Chess960: not replayed, counted as not checked",
        /// A tag line that cannot be read.
        InvalidTag => "invalid-tag", error,
            "a tag line that is not [Name \"value\"]",
        /// A `{` comment never closed.
        UnterminatedComment => "unterminated-comment", error,
            "a { comment never closed",
        /// A `(` variation never closed.
        UnterminatedVariation => "unterminated-variation", error,
            "a ( variation never closed",
        /// A `)` with no open variation.
        UnmatchedParenthesis => "unmatched-parenthesis", error,
            "a ) that closes no variation",
        /// The movetext has no termination marker.
        MissingResult => "missing-result", warning,
            "no termination marker at the end of the movetext",
        /// The Result tag, the termination marker and the final position disagree.
        ResultMismatch => "result-mismatch", error,
            "the Result tag and the termination marker disagree, or a mate, stalemate or automatic draw carries another result",
        /// A Result tag that is not `1-0`, `0-1`, `1/2-1/2` or `*`.
        InvalidResultTag => "invalid-result-tag", error,
            "a Result tag that is not 1-0, 0-1, 1/2-1/2 or *",
        /// A termination marker pgn-reader reads but the PGN standard does
        /// not write (`½-½`, a dash other than `-`).
        NonstandardResultMarker => "nonstandard-result-marker", warning,
            "a termination marker the PGN standard does not write (½-½, another dash than -)",
        /// Moves after the game ended on the board: after checkmate or
        /// stalemate (error), after an automatic draw (warning).
        MovesAfterEnd => "moves-after-end", error " / warning",
            "a move after checkmate or stalemate (error), or after a fivefold repetition or the 75-move point (warning)",
        /// A win on time for a side that has no mating material (FIDE 6.9 makes
        /// it a draw).
        TimeoutVsInsufficientMaterial => "timeout-vs-insufficient-material", warning,
            "a win on time for a side that has no mating material (FIDE 6.9: a draw)",
        /// A game that ended on the board carries no result (`*` or none).
        UnknownResult => "unknown-result", info,
            "the game ended on the board (mate, stalemate, automatic draw) but its result is * or missing",
        /// A null move (`--`, `Z0`).
        NullMove => "null-move", warning " (error in check)",
            "a null move (-- or Z0), played as a pass",
        /// An evaluation symbol written as text (`+-`, `RR`) where a NAG belongs.
        TextAnnotation => "text-annotation", warning,
            "an evaluation written as text (+-, =, RR) instead of a NAG; once per game",
        /// A `$` token that is not a NAG (`$256`: the standard's NAGs are 0
        /// to 255), ignored.
        InvalidNag => "invalid-nag", warning,
            "a $ token that is not a NAG ($256: NAGs go from 0 to 255), ignored",
        /// A move written in another notation than SAN (coordinates `g1f3`,
        /// long algebraic `Ng1-f3`, `o-o`, `++`), read as the move it names.
        NonSanMove => "non-san-move", warning,
            "a move in another notation than SAN (g1f3, Ng1-f3, o-o, Qxf7++), read as the move it names; once per game",
        /// A capture written without `x` (`ed5`, `Bc6`), played as the capture.
        UnmarkedCapture => "unmarked-capture", warning,
            "a capture written without x (ed5), played as the capture; once per game",
        /// Text between games that holds no tag and no move, skipped.
        StrayText => "stray-text", warning,
            "text between games with no tag and no move, skipped",
        /// Bytes that are not UTF-8 (decoded as Windows-1252, the Latin-1
        /// of Windows).
        NonUtf8 => "non-utf8", warning,
            "bytes that are not UTF-8, decoded as Windows-1252 (Latin-1)",
        /// A game larger than the size cap, cut short.
        GameTooLarge => "game-too-large", error,
            "a game over --max-game-size MiB, cut short",
        /// The input failed (I/O or decompression) inside this game.
        TruncatedGame => "truncated-game", error,
            "the input failed (a truncated compressed file) inside this game",
        /// `--lint`: a `+` or `#` missing, superfluous or wrong.
        LintCheckSuffix => "lint-check-suffix", warning ", only with --lint",
            "a + or # missing, superfluous or wrong",
        /// `--lint`: a file or rank given that is not needed, or not the one
        /// SAN asks for.
        LintDisambiguation => "lint-disambiguation", warning ", only with --lint",
            "a file or rank given that is not needed, or not the one SAN asks for",
        /// `--lint`: castling written with zeros (`0-0`).
        LintZeroCastling => "lint-zero-castling", warning ", only with --lint",
            "castling written with zeros (0-0)",
        /// `--lint`: a promotion without `=` (`e8Q`).
        LintPromotionEquals => "lint-promotion-equals", warning ", only with --lint",
            "a promotion without = (e8Q)",
        /// `--lint`: an `e.p.` after an en passant capture.
        LintEnPassantSuffix => "lint-en-passant-suffix", warning ", only with --lint",
            "an e.p. after an en passant capture",
        /// A variation nested deeper than pgnkit reads (1,000 levels): it is
        /// not read, nor any other as deep in the game.
        VariationTooDeep => "variation-too-deep", error,
            "a variation nested more than 1,000 deep: not read, nor any other as deep in the game",
        /// A termination marker inside a variation, which PGN (8.2.5) does
        /// not allow: only the game's movetext ends with one.
        ResultInVariation => "result-in-variation", error,
            "a termination marker (1-0, 0-1, 1/2-1/2, *) inside a variation, where PGN allows none",
        /// A variation with no move in it (`()`), which says nothing.
        EmptyVariation => "empty-variation", warning,
            "a variation with no move in it, (); dropped when the game is written again",
        /// A tag value holding quotes that are not escaped, read up to the
        /// last quote before the `]`.
        UnescapedQuote => "unescaped-quote", warning,
            "a tag value with quotes not escaped ([Event \"Tour \"C\"\"]), read up to the last quote before the ]",
        /// A tag of a name the game gives again: the last counts.
        DuplicateTag => "duplicate-tag", warning,
            "a tag the game gives again later: ignored, the last of the name counts",
        /// A game whose first tag follows the last game's termination
        /// marker on its line (`0-1[Event`: files joined by `cat`).
        GluedGame => "glued-game", warning,
            "a game whose first tag follows the game before's termination marker on its line (0-1[Event: files joined by cat)",
    }
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

#[cfg(test)]
mod tests {
    use super::{Code, Reason, Severity};

    #[test]
    fn names_are_distinct_and_the_manual_gives_a_codes_severity_with_its_exceptions() {
        for (i, code) in Code::ALL.iter().enumerate() {
            assert!(Code::ALL[..i].iter().all(|other| other.as_str() != code.as_str()), "{code} twice");
        }
        for (i, reason) in Reason::ALL.iter().enumerate() {
            assert!(Reason::ALL[..i].iter().all(|other| other.as_str() != reason.as_str()), "{reason} twice");
        }
        assert_eq!((Code::IllegalMove.severity(), Code::IllegalMove.manual().0), (Severity::Error, "error"));
        assert_eq!(Code::NullMove.manual().0, "warning (error in check)");
        assert_eq!(Code::LintZeroCastling.manual(), ("warning, only with --lint", "castling written with zeros (0-0)"));
        assert_eq!(Code::UnknownResult.severity(), Severity::Info);
    }
}
