//! One CSV row per finding, with stable snake_case columns.

use serde::Serialize;

use super::writer::ReportWriter;
use crate::report::GameReport;

/// The column names, in order.
pub const COLUMNS: &[&str] = &[
    "file",
    "game",
    "game_line",
    "white",
    "black",
    "result",
    "severity",
    "code",
    "line",
    "column",
    "ply",
    "san",
    "fen",
    "message",
    "reason",
];

#[derive(Serialize)]
struct Row<'a> {
    file: &'a str,
    game: u64,
    game_line: u64,
    white: Option<&'a str>,
    black: Option<&'a str>,
    result: Option<&'a str>,
    severity: &'a str,
    code: &'a str,
    line: u64,
    column: u32,
    ply: Option<u32>,
    san: Option<&'a str>,
    fen: Option<&'a str>,
    message: &'a str,
    reason: Option<&'a str>,
}

/// CSV with a header row; games without findings have no rows.
#[derive(Debug, Default)]
pub struct CsvWriter;

impl ReportWriter for CsvWriter {
    fn header(&self, out: &mut Vec<u8>) {
        let mut w = ::csv::Writer::from_writer(out);
        w.write_record(COLUMNS).expect("writing to memory");
        w.flush().expect("writing to memory");
    }

    fn game(&self, report: &GameReport, out: &mut Vec<u8>) {
        if report.diagnostics.is_empty() {
            return;
        }
        let mut w = ::csv::WriterBuilder::new().has_headers(false).from_writer(out);
        for d in &report.diagnostics {
            w.serialize(Row {
                file: &report.file,
                game: report.game,
                game_line: report.line,
                white: report.white.as_deref(),
                black: report.black.as_deref(),
                result: report.result,
                severity: d.severity.as_str(),
                code: d.code.as_str(),
                line: d.line,
                column: d.column,
                ply: d.ply,
                san: d.san.as_deref(),
                fen: d.fen.as_deref(),
                message: &d.message,
                reason: d.reason.map(|r| r.as_str()),
            })
            .expect("writing to memory");
        }
        w.flush().expect("writing to memory");
    }
}
