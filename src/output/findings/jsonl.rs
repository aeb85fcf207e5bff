//! One JSON object per game (its fields: docs/output-formats.md).

use super::writer::ReportWriter;
use crate::report::GameReport;

/// JSON Lines, one object per game in input order.
#[derive(Debug, Default)]
pub struct JsonlWriter;

impl ReportWriter for JsonlWriter {
    fn game(&self, report: &GameReport, out: &mut Vec<u8>) {
        serde_json::to_writer(&mut *out, report).expect("a report always serializes");
        out.push(b'\n');
    }
}
