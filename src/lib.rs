//! pgnkit's library half: read chess games, replay them, report what is wrong.
//!
//! * Parsing and legality are separate steps: pgn-reader tokenizes, shakmaty
//!   replays, and pgnkit's own framer decides where each game starts and ends.
//! * Everything works one game at a time on owned bytes, so the binary can run
//!   games in parallel and still print them in input order.
//! * Nothing here prints, exits or knows about the command line.
//!
//! # Data flow
//!
//! Each module imports only modules above it in this list (no import cycles):
//!
//! 1. [`input`]: open a file or stdin and decompress it (gzip, zstd, bzip2).
//!    `notation::read`: a move token read in any notation before any
//!    position is known (what the framer asks of a token: is it a move?).
//! 2. [`frame`]: cut the stream into games, each with its line number
//!    (`frame::lexer` is the tokenizer it shares with [`frame::locate`], which
//!    finds tokens, lines and columns; [`frame::shard`] is `--shard K/N`).
//! 3. [`codes`]: the table of finding codes (name, default severity,
//!    meaning), which the notation and the report both name. [`notation`]:
//!    moves in SAN, UCI and long algebraic, read and written (and the null
//!    move played); SAN resolved to a legal move fast ([`notation::resolve`])
//!    and an illegal move explained ([`notation::explain`]). [`tag_values`]:
//!    the one reading of an Elo tag and of the Variant tag; [`aliases`]:
//!    the one reading of an `--aliases` file and its matching rule.
//! 4. [`report`]: findings and per-game reports (data); [`game`]: a game in
//!    full, for writing it again (data).
//! 5. [`check`]: parse a game with pgn-reader, replay it on shakmaty and report
//!    every finding; the checker's stages are one file each.
//! 6. [`output`]: writers, one file per format: the findings of `validate` and
//!    `fen check` ([`output::findings`]), whole games ([`output::games`]).
//! 7. What commands make of checked games: [`keys`] (the keys of `--by`,
//!    one table), [`stats`] (with its groups and the SVG report), [`filter`], [`dedup`], [`ratings`], [`split_files`]
//!    (the files of `split` and their names), [`openings`]; [`baseline`]:
//!    fingerprints of findings and the baseline files of `--baseline`;
//!    [`fix`]: what `fix` repairs in a game.
//!
//! Positions take a shorter road: [`fen_check`] reads a FEN or EPD record
//! field by field and explains every defect of the position it describes;
//! [`diagram`] draws a position as a text board or an SVG diagram, and
//! [`perft`] counts legal-move trees and checks perft suites. [`text`]
//! decodes game bytes (UTF-8, else Windows-1252) for all of them.
//! [`udiff`], which imports none of them, writes the unified diff of a
//! text and its rewrite as the rewrite comes (`fix --diff`).
//!
//! ```
//! use pgnkit::{frame::{Batch, Framer}, check::Checker};
//!
//! let pgn = b"[White \"Morphy\"]\n\n1. e4 e5 2. Ke3 *\n\n1. d4 d5 *\n";
//! let mut framer = Framer::new(&pgn[..]);
//! let mut batch = Batch::default();
//! let mut checker = Checker::default();
//! let mut reports = Vec::new();
//! while framer.next_batch(&mut batch).unwrap() {
//!     reports.extend(batch.games().map(|game| checker.check(&"example.pgn".into(), game)));
//! }
//! assert_eq!(reports.len(), 2);
//! assert_eq!(reports[0].diagnostics[0].code.as_str(), "illegal-move");
//! assert_eq!((reports[0].diagnostics[0].line, reports[0].diagnostics[0].column), (3, 13));
//! assert!(reports[1].valid);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs, missing_debug_implementations)]

pub mod aliases;
pub mod baseline;
pub mod book;
pub mod check;
pub mod codes;
pub mod dedup;
pub mod diagram;
pub mod fen_check;
pub mod filter;
pub mod fix;
pub mod frame;
#[doc(hidden)]
pub mod fuzzing;
pub mod game;
pub mod input;
pub mod keys;
pub mod notation;
pub mod openings;
pub mod output;
pub mod perft;
pub mod ratings;
pub mod report;
pub mod split_files;
pub mod stats;
pub mod tag_values;
pub mod text;
pub mod udiff;

#[cfg(test)]
mod test_rng;
