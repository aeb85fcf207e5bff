//! `path:line:col: severity[code]: message` lines, one per finding.

use std::io::Write as _;

use super::writer::ReportWriter;
use crate::report::{Diagnostic, GameReport, Severity};

/// The default human-readable format; games without findings print nothing
/// unless `verbose`.
#[derive(Debug, Default)]
pub struct TextWriter {
    /// Also one line per game: players, result, plies, how it ended.
    pub verbose: bool,
    /// Colour the location and the severity (for a terminal).
    pub color: bool,
}

/// ANSI styles: bold location, severity by colour (red error, yellow
/// warning, cyan info), the rest plain.
pub(crate) fn styles(color: bool, severity: Severity) -> (&'static str, &'static str, &'static str) {
    if !color {
        return ("", "", "");
    }
    let severity = match severity {
        Severity::Error => "\x1b[1;31m",
        Severity::Warning => "\x1b[1;33m",
        Severity::Info => "\x1b[1;36m",
    };
    ("\x1b[1m", severity, "\x1b[0m")
}

impl ReportWriter for TextWriter {
    fn game(&self, report: &GameReport, out: &mut Vec<u8>) {
        if self.verbose {
            game_line(report, out);
        }
        for d in &report.diagnostics {
            let (bold, severity, reset) = styles(self.color, d.severity);
            let _ = write!(
                out,
                "{bold}{}:{}:{}:{reset} {severity}{}{reset}[{}]: {}",
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
        escape_controls(report.result.unwrap_or("?")),
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
    let verdict = if report.valid {
        "valid"
    } else if report.invalid() {
        "invalid"
    } else {
        "not checked"
    };
    let _ = writeln!(out, ", {verdict}");
}

/// `12. ` or `12... ` from the FEN before the move.
pub(super) fn move_number(d: &Diagnostic) -> String {
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

/// Game text for a terminal: control characters that a terminal would act
/// on (ESC starting a colour or cursor sequence, C1 controls, BEL, ...)
/// written as `\u{1b}`, as [`escape_controls`] writes them; tabs and line
/// ends kept. A PGN file can carry such bytes in tag values and comments.
pub fn escape_for_terminal(bytes: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let control = |b: u8| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7f;
    let c1 = |pair: &[u8]| pair[0] == 0xc2 && (0x80..0xa0).contains(&pair[1]);
    if !bytes.iter().any(|&b| control(b)) && !bytes.windows(2).any(c1) {
        return std::borrow::Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len() + 16);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if control(b) {
            let _ = write!(out, "\\u{{{b:x}}}");
        } else if i + 1 < bytes.len() && c1(&bytes[i..i + 2]) {
            let _ = write!(out, "\\u{{{:x}}}", bytes[i + 1]);
            i += 1;
        } else {
            out.push(b);
        }
        i += 1;
    }
    std::borrow::Cow::Owned(out)
}

pub use crate::text::escape_controls;

#[cfg(test)]
mod terminal_tests {
    use super::escape_for_terminal;

    #[test]
    fn escape_sequences_are_shown_not_acted_on() {
        assert_eq!(&*escape_for_terminal(b"[White \"A\"]\r\n1. e4\t*\n"), b"[White \"A\"]\r\n1. e4\t*\n");
        assert_eq!(&*escape_for_terminal(b"{\x1b[31mred\x07}"), b"{\\u{1b}[31mred\\u{7}}");
        assert_eq!(&*escape_for_terminal("{\u{9b}2J é}".as_bytes()), "{\\u{9b}2J é}".as_bytes());
    }
}
