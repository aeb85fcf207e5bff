//! Writers that turn whole games into other formats: normalized PGN, move
//! lists (SAN, UCI, LAN), positions (FEN, EPD), JSON Lines and CSV; with the
//! `parquet` feature, Parquet.
//!
//! As with [`crate::output::findings`], a writer formats one game into a byte buffer on
//! a worker thread; the output thread only copies the bytes in input order.
//! A game whose output would be too large to hold whole (the EPD of a game
//! of millions of moves) is written as it is made, on the output thread
//! when its turn comes ([`GameWriter::too_large`]).

mod csv;
mod jsonl;
mod lines;
#[cfg(feature = "parquet")]
pub mod parquet;
pub mod pgn;
mod writer;

pub(crate) use self::writer::write_step;
pub use self::{
    csv::{Column, CsvGameWriter, DEFAULT_COLUMNS, Fact, distinct_columns},
    jsonl::JsonlGameWriter,
    lines::{EpdWriter, FinalFenWriter, MovesWriter},
    pgn::{PgnOptions, PgnWriter},
    writer::{GameWriter, HOLD, crlf_from, ends_lines_with_crlf, original_ending, write_original},
};
