//! Writers that turn game and position reports into bytes: text, JSON Lines
//! and CSV.
//!
//! A writer formats one game into a byte buffer, so formatting runs on the
//! worker threads and the output thread only copies bytes in input order.

mod csv;
mod fen;
mod jsonl;
mod text;

pub use self::{
    csv::CsvWriter,
    fen::{FEN_COLUMNS, FenCsvWriter, FenJsonlWriter, FenTextWriter, FenWriter, finding_line},
    jsonl::JsonlWriter,
    text::{TextWriter, escape_controls, escape_for_terminal, shorten},
};

use crate::report::GameReport;

/// Formats game reports.
pub trait ReportWriter: Send + Sync {
    /// Bytes before the first game (a CSV header, say).
    fn header(&self, _out: &mut Vec<u8>) {}
    /// Appends the formatted report of one game.
    fn game(&self, report: &GameReport, out: &mut Vec<u8>);
}
