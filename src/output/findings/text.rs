//! `path:line:col: severity[code]: message` lines, one per finding.

use std::io::Write as _;

use super::writer::ReportWriter;
use crate::{
    report::{Diagnostic, GameReport, Severity},
    text::Shown,
};

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
                Shown(&report.file),
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
        Shown(&report.file),
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
/// and bidi controls written as `\u{1b}`, as [`escape_controls`] writes
/// them ([`crate::text::is_shown_escaped`]); tabs and line ends kept. A PGN
/// file can carry such bytes in tag values and comments.
pub fn escape_for_terminal(bytes: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let control = |b: u8| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7f;
    // The UTF-8 of an escaped character of two or three bytes (C1 controls,
    // bidi controls), from its first byte: its length, if it is one.
    let multibyte = |rest: &[u8]| -> Option<(usize, char)> {
        let len = match rest.first()? {
            0xc2 => 2,
            0xe2 => 3,
            _ => return None,
        };
        let c = std::str::from_utf8(rest.get(..len)?).ok()?.chars().next()?;
        crate::text::is_shown_escaped(c).then_some((len, c))
    };
    let escaped = |i: usize| control(bytes[i]) || multibyte(&bytes[i..]).is_some();
    let Some(first) = (0..bytes.len()).find(|&i| escaped(i)) else {
        return std::borrow::Cow::Borrowed(bytes);
    };
    let mut out = Vec::with_capacity(bytes.len() + 16);
    out.extend_from_slice(&bytes[..first]);
    let mut i = first;
    while i < bytes.len() {
        let b = bytes[i];
        if control(b) {
            let _ = write!(out, "\\u{{{b:x}}}");
        } else if let Some((len, c)) = multibyte(&bytes[i..]) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            i += len - 1;
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
        // Bidi controls that would reorder the line; other characters of
        // the same first bytes (an en dash, `ä`) are kept.
        let bidi = "[White \"\u{202e}evil\u{2066}x\u{2069}\"] 1–0 ä\u{85}\n";
        assert_eq!(
            &*escape_for_terminal(bidi.as_bytes()),
            "[White \"\\u{202e}evil\\u{2066}x\\u{2069}\"] 1–0 ä\\u{85}\n".as_bytes()
        );
        assert_eq!(&*escape_for_terminal(b"cut \xe2\x80"), b"cut \xe2\x80", "a character cut short is kept");
    }
}
