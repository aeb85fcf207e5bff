//! `path:line:col: severity[code]: message` lines, one per finding.

use std::io::Write as _;

use super::ReportWriter;
use crate::report::{Diagnostic, GameReport};

/// The default human-readable format; games without findings print nothing
/// unless `verbose`.
#[derive(Debug, Default)]
pub struct TextWriter {
    /// Also one line per game: players, result, plies, how it ended.
    pub verbose: bool,
}

impl ReportWriter for TextWriter {
    fn game(&self, report: &GameReport, out: &mut Vec<u8>) {
        if self.verbose {
            game_line(report, out);
        }
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

/// `path:line: game N: White - Black, 1-0, 33 plies, checkmate, valid`.
fn game_line(report: &GameReport, out: &mut Vec<u8>) {
    let name = |tag: &Option<String>| escape_controls(tag.as_deref().unwrap_or("?"));
    let _ = write!(
        out,
        "{}:{}: game {}: {} - {}, {}, {} {}",
        report.file,
        report.line,
        report.game,
        name(&report.white),
        name(&report.black),
        name(&report.result),
        report.plies,
        if report.plies == 1 { "ply" } else { "plies" },
    );
    if let Some(end) = report.termination {
        let _ = write!(out, ", {}", end.as_str());
    }
    if let Some(reason) = report.draw_reason.filter(|r| report.termination.is_none_or(|t| t.as_str() != r.as_str())) {
        let _ = write!(out, ", drawn by {}", reason.as_str());
    }
    let rules = [
        ("threefold at ply", report.threefold_ply),
        ("fivefold at ply", report.fivefold_ply),
        ("50 moves at ply", report.fifty_moves_ply),
        ("75 moves at ply", report.seventyfive_moves_ply),
    ];
    for (what, ply) in rules {
        if let Some(ply) = ply {
            let _ = write!(out, ", {what} {ply}");
        }
    }
    let _ = writeln!(out, ", {}", if report.valid { "valid" } else { "invalid" });
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

/// `text` cut to its first `max` characters, saying how long it was: a
/// junk token or line can be megabytes long.
pub fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}... ({} bytes)", &text[..cut], text.len()),
        None => text.to_owned(),
    }
}

/// A PGN can carry terminal escape sequences; show them as `\u{1b}`.
pub fn escape_controls(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_owned();
    }
    s.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}
