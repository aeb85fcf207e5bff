//! One CSV row per finding, with stable snake_case columns.

use std::borrow::Cow;

use super::writer::ReportWriter;
use crate::{output::csv_cells, report::GameReport};

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

/// CSV with a header row; games without findings have no rows.
#[derive(Debug, Default)]
pub struct CsvWriter;

impl ReportWriter for CsvWriter {
    fn header(&self, out: &mut Vec<u8>) {
        let mut w = csv_cells::Writer::from_writer(out);
        w.write_record(COLUMNS).expect("writing to memory");
        w.flush().expect("writing to memory");
    }

    fn game(&self, report: &GameReport, out: &mut Vec<u8>) {
        if report.diagnostics.is_empty() {
            return;
        }
        let mut w = csv_cells::Writer::from_writer(out);
        let (game, game_line) = (report.game.to_string(), report.line.to_string());
        fn text(value: Option<&str>) -> Cow<'_, [u8]> {
            Cow::Borrowed(value.unwrap_or_default().as_bytes())
        }
        let number = |n: u64| Cow::Owned(n.to_string().into_bytes());
        for d in &report.diagnostics {
            w.write_record([
                text(Some(&report.file)),
                text(Some(&game)),
                text(Some(&game_line)),
                text(report.white.as_deref()),
                text(report.black.as_deref()),
                text(report.result),
                text(Some(d.severity.as_str())),
                text(Some(d.code.as_str())),
                number(d.line),
                number(u64::from(d.column)),
                d.ply.map_or(Cow::Borrowed(&b""[..]), |ply| number(u64::from(ply))),
                text(d.san.as_deref()),
                text(d.fen.as_deref()),
                text(Some(&d.message)),
                text(d.reason.map(|r| r.as_str())),
            ])
            .expect("writing to memory");
        }
        w.flush().expect("writing to memory");
    }
}
