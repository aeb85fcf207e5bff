//! pgnkit's library half: read chess games, replay them, report what is wrong.
//!
//! * Parsing and legality are separate steps: pgn-reader tokenizes, shakmaty
//!   replays, and pgnkit's own framer decides where each game starts and ends.
//! * Everything works one game at a time on owned bytes, so the binary can run
//!   games in parallel and still print them in input order.
//! * Nothing here prints, exits or knows about the command line.
//!
//! # Pipeline
//!
//! 1. [`input`]: open a file or stdin and decompress it (gzip, zstd, bzip2).
//! 2. [`split`]: frame the stream into games, each with its line number.
//! 3. [`validate`]: parse a game with pgn-reader and replay it on shakmaty.
//! 4. [`report`]: the findings, located by [`locate`] and explained by
//!    [`explain`].
//! 5. [`write`]: text, JSON Lines or CSV.
//!
//! Positions take a shorter road: [`fen_check`] reads a FEN or EPD record
//! field by field and explains every defect of the position it describes.
//! Beside the pipeline, [`notation`] reads moves written in SAN, UCI or long
//! algebraic notation and writes them in each, and [`diagram`] draws a
//! position as a text board or an SVG diagram.
//! [`perft`] counts legal-move trees and checks perft suites.
//! [`stats`] sums up many games, and [`stats_svg`] draws that summary.
//! [`ratings`] turns game results into standings and ratings (Elo, the club
//! points scheme, maximum likelihood).
//!
//! ```
//! use pgnkit::{frame::{Batch, Splitter}, check::Checker};
//!
//! let pgn = b"[White \"Morphy\"]\n\n1. e4 e5 2. Ke3 *\n\n1. d4 d5 *\n";
//! let mut splitter = Splitter::new(&pgn[..]);
//! let mut batch = Batch::default();
//! let mut checker = Checker::new();
//! let mut reports = Vec::new();
//! while splitter.next_batch(&mut batch).unwrap() {
//!     reports.extend(batch.games().map(|game| checker.check(&"example.pgn".into(), game)));
//! }
//! assert_eq!(reports.len(), 2);
//! assert_eq!(reports[0].diagnostics[0].code.as_str(), "illegal-move");
//! assert_eq!((reports[0].diagnostics[0].line, reports[0].diagnostics[0].column), (3, 13));
//! assert!(reports[1].valid);
//! ```

#![warn(missing_docs, missing_debug_implementations)]

pub mod check;
pub mod dedup;
pub mod diagram;
pub mod fen_check;
pub mod filter;
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
pub mod text;

#[cfg(test)]
mod test_rng;
