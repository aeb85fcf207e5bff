//! Writers that turn game and position reports into bytes: text, JSON Lines
//! and CSV, and the formats of CI systems ([`ci`]).
//!
//! A writer formats one game into a byte buffer, so formatting runs on the
//! worker threads and the output thread only copies bytes in input order.

pub mod ci;
mod csv;
mod fen;
mod jsonl;
mod text;
mod writer;

pub use self::{
    csv::CsvWriter,
    fen::{FEN_COLUMNS, FenCsvWriter, FenJsonlWriter, FenTextWriter, FenWriter, finding_line},
    jsonl::JsonlWriter,
    text::{TextWriter, escape_controls, escape_for_terminal},
    writer::ReportWriter,
};
