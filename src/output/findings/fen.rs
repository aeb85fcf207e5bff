//! `fen check` reports as text, JSON Lines or CSV.
//!
//! JSON Lines writes a record's findings as `validate` writes a game's: one
//! `diagnostics` list whose entries have the same keys, so that one reader
//! takes both (docs/vocabulary.md).

use std::io::Write as _;

use serde::Serialize;

use super::text::escape_controls;
use crate::{
    fen_check::{FenFinding, FenReport},
    output::csv_cells,
    report::Severity,
    text::Shown,
};

/// Formats `fen check` reports.
pub trait FenWriter: Send + Sync {
    /// Bytes before the first record (a CSV header, say).
    fn header(&self, _out: &mut Vec<u8>) {}
    /// Appends the formatted report of one record read from `file`.
    fn record(&self, file: &str, report: &FenReport<'_>, out: &mut Vec<u8>);
}

/// `path:line:column: severity[code]: message`, one line per finding.
#[derive(Debug, Default)]
pub struct FenTextWriter {
    /// Also a line per record: its verdict and its normalized FEN.
    pub verbose: bool,
    /// Colour the location and the severity (for a terminal).
    pub color: bool,
}

impl FenWriter for FenTextWriter {
    fn record(&self, file: &str, report: &FenReport<'_>, out: &mut Vec<u8>) {
        if self.verbose {
            let file = Shown(file);
            let _ = match (report.normalized_fen(), report.chess960) {
                (Some(fen), false) => writeln!(out, "{file}:{}: valid: {fen}", report.line),
                (Some(fen), true) => writeln!(out, "{file}:{}: valid (Chess960): {fen}", report.line),
                (None, _) => writeln!(out, "{file}:{}: invalid: {}", report.line, escape_controls(report.fen)),
            };
        }
        for f in &report.findings {
            finding_line(file, report.line, f, self.color, out);
        }
    }
}

/// One text line for a finding (also what `--normalize` writes to stderr).
pub fn finding_line(file: &str, line: u64, f: &FenFinding, color: bool, out: &mut Vec<u8>) {
    let (bold, severity, reset) = super::text::styles(color, f.severity);
    let file = Shown(file);
    let _ = writeln!(
        out,
        "{bold}{file}:{line}:{}:{reset} {severity}{}{reset}[{}]: {}",
        f.column,
        f.severity.as_str(),
        f.code,
        escape_controls(&f.message)
    );
}

#[derive(Serialize)]
struct JsonRecord<'a> {
    file: &'a str,
    line: u64,
    fen: &'a str,
    valid: bool,
    chess960: bool,
    normalized_fen: Option<String>,
    diagnostics: Vec<JsonFinding<'a>>,
}

/// A finding with the keys of `validate`'s: a position has no move, so
/// `ply`, `san`, `fen` and `reason` are null, and `line` is the record's.
#[derive(Serialize)]
struct JsonFinding<'a> {
    severity: Severity,
    code: &'a str,
    line: u64,
    column: u32,
    ply: Option<u32>,
    san: Option<&'a str>,
    fen: Option<&'a str>,
    message: &'a str,
    reason: Option<&'a str>,
}

/// One JSON object per record, in input order.
#[derive(Debug, Default)]
pub struct FenJsonlWriter;

impl FenWriter for FenJsonlWriter {
    fn record(&self, file: &str, report: &FenReport<'_>, out: &mut Vec<u8>) {
        let record = JsonRecord {
            file,
            line: report.line,
            fen: report.fen,
            valid: report.valid,
            chess960: report.chess960,
            normalized_fen: report.normalized_fen(),
            diagnostics: report
                .findings
                .iter()
                .map(|f| JsonFinding {
                    severity: f.severity,
                    code: f.code.as_str(),
                    line: report.line,
                    column: f.column,
                    ply: None,
                    san: None,
                    fen: None,
                    message: &f.message,
                    reason: None,
                })
                .collect(),
        };
        serde_json::to_writer(&mut *out, &record).expect("a record always serializes");
        out.push(b'\n');
    }
}

/// The CSV columns of `fen check`, in order.
pub const FEN_COLUMNS: &[&str] = &["file", "line", "fen", "valid", "severity", "code", "column", "message"];

/// One CSV row per finding, with a header row; records without findings
/// have no rows.
#[derive(Debug, Default)]
pub struct FenCsvWriter;

impl FenWriter for FenCsvWriter {
    fn header(&self, out: &mut Vec<u8>) {
        let mut w = csv_cells::Writer::from_writer(out);
        w.write_record(FEN_COLUMNS).expect("writing to memory");
        w.flush().expect("writing to memory");
    }

    fn record(&self, file: &str, report: &FenReport<'_>, out: &mut Vec<u8>) {
        if report.findings.is_empty() {
            return;
        }
        let mut w = csv_cells::Writer::from_writer(out);
        let (line, valid) = (report.line.to_string(), if report.valid { "true" } else { "false" });
        for f in &report.findings {
            let column = f.column.to_string();
            let row = [file, &line, report.fen, valid, f.severity.as_str(), f.code.as_str(), &column, &f.message];
            w.write_record(row).expect("writing to memory");
        }
        w.flush().expect("writing to memory");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen_check::check_record;

    fn render(writer: &dyn FenWriter, line: &str) -> String {
        let mut out = Vec::new();
        writer.header(&mut out);
        writer.record("a.fen", &check_record(3, line).unwrap(), &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn jsonl_writes_one_diagnostics_list_with_validates_finding_keys() {
        let out = render(&FenJsonlWriter, "4k3/8/8/8/8/8/8/4K3 b - - 0 0");
        assert_eq!(
            out,
            "{\"file\":\"a.fen\",\"line\":3,\"fen\":\"4k3/8/8/8/8/8/8/4K3 b - - 0 0\",\"valid\":true,\
             \"chess960\":false,\"normalized_fen\":\"4k3/8/8/8/8/8/8/4K3 b - - 0 1\",\
             \"diagnostics\":[{\"severity\":\"warning\",\"code\":\"fullmove-zero\",\"line\":3,\"column\":29,\
             \"ply\":null,\"san\":null,\"fen\":null,\"message\":\
             \"the fullmove number is 0; it starts at 1 and grows after each Black move (read as 1)\",\"reason\":null}]}\n"
        );
    }

    #[test]
    fn csv_has_a_row_per_finding_under_the_header() {
        let out = render(&FenCsvWriter, "4k3/8/8/8/8/8/8/8 w - - 0 1");
        assert_eq!(
            out,
            "file,line,fen,valid,severity,code,column,message\n\
             a.fen,3,4k3/8/8/8/8/8/8/8 w - - 0 1,false,error,missing-king,1,White has no king; each side has exactly one\n"
        );
    }

    #[test]
    fn verbose_text_gives_each_record_a_verdict_line() {
        let writer = FenTextWriter { verbose: true, color: false };
        assert_eq!(render(&writer, "4k3/8/8/8/8/8/8/4K3 w - -"), "a.fen:3: valid: 4k3/8/8/8/8/8/8/4K3 w - - 0 1\n");
        assert_eq!(
            render(&writer, "4k3/8/8/8/8/8/8/8 w - -"),
            "a.fen:3: invalid: 4k3/8/8/8/8/8/8/8 w - -\n\
             a.fen:3:1: error[missing-king]: White has no king; each side has exactly one\n"
        );
    }
}
