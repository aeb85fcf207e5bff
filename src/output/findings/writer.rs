//! What every findings writer is: a formatter of one game report into bytes.

use crate::report::GameReport;

/// Formats game reports.
pub trait ReportWriter: Send + Sync {
    /// Bytes before the first game (a CSV header, say).
    fn header(&self, _out: &mut Vec<u8>) {}
    /// Appends the formatted report of one game.
    fn game(&self, report: &GameReport, out: &mut Vec<u8>);
}
