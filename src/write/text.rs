//! `path:line:col: severity[code]: message` lines, one per finding.

use std::io::Write as _;

use super::ReportWriter;
use crate::report::{Diagnostic, GameReport};

/// The default human-readable format; games without findings print nothing.
#[derive(Debug, Default)]
pub struct TextWriter;

impl ReportWriter for TextWriter {
    fn game(&self, report: &GameReport, out: &mut Vec<u8>) {
        for d in &report.diagnostics {
            let _ = write!(
                out,
                "{}:{}:{}: {}[{}]: {}",
                report.file,
                d.line,
                d.column,
                d.severity.as_str(),
                d.code,
                escape_controls(&d.message)
            );
            let _ = write!(out, " (game {}", report.game);
            if let Some(ply) = d.ply {
                let _ = write!(out, ", ply {ply}");
                if let Some(san) = &d.san {
                    let _ = write!(out, ": {}{}", move_number(d), escape_controls(san));
                }
            }
            out.extend_from_slice(b")\n");
        }
    }
}

/// `12. ` or `12... ` from the FEN before the move.
fn move_number(d: &Diagnostic) -> String {
    let Some(fen) = &d.fen else {
        return String::new();
    };
    let fields: Vec<&str> = fen.split(' ').collect();
    match (fields.get(1), fields.get(5)) {
        (Some(&"w"), Some(n)) => format!("{n}. "),
        (Some(&"b"), Some(n)) => format!("{n}... "),
        _ => String::new(),
    }
}

/// A PGN can carry terminal escape sequences; show them as `\u{1b}`.
pub(crate) fn escape_controls(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_owned();
    }
    s.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}
