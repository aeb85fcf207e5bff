//! JUnit XML: a `<testsuite>` per input file, a `<testcase>` per game or
//! record, a `<failure>` per error; what Jenkins, GitLab and most CI
//! systems read as test results.
//!
//! Written by hand (no crate streams JUnit XML one test case at a time),
//! every attribute and text escaped by [`escape`].

use std::io::Write as _;

use super::item::{CiWriter, Item, Layout, Verdict};
use crate::report::Severity;

/// JUnit XML for the command named `command` (`validate`, `fen check`).
#[derive(Debug)]
pub struct JunitWriter {
    /// The `name` of `<testsuites>`: `pgnkit validate`.
    pub command: &'static str,
}

impl CiWriter for JunitWriter {
    fn layout(&self) -> Layout {
        Layout::Suites
    }

    fn header(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"pgnkit ");
        escape(self.command, out);
        out.extend_from_slice(b"\">\n");
    }

    /// A test case; an error is a `<failure>` (its code the `type`, its
    /// message the `message`), a game not checked is `<skipped>`, and every
    /// finding, errors too, is a line of `<system-out>` as the text format
    /// writes it.
    fn item(&self, item: &Item<'_>, out: &mut Vec<u8>) {
        out.extend_from_slice(b"  <testcase name=\"");
        escape(&item.name, out);
        out.extend_from_slice(b"\" classname=\"");
        escape(item.file, out);
        out.extend_from_slice(b"\" file=\"");
        escape(item.file, out);
        let _ = write!(out, "\" line=\"{}\"", item.line);
        if item.findings.is_empty() && item.verdict != Verdict::Skipped {
            out.extend_from_slice(b"/>\n");
            return;
        }
        out.extend_from_slice(b">\n");
        for f in item.findings.iter().filter(|f| f.severity == Severity::Error) {
            out.extend_from_slice(b"    <failure type=\"");
            escape(f.code, out);
            out.extend_from_slice(b"\" message=\"");
            escape(&f.message, out);
            out.extend_from_slice(b"\">");
            escape(&finding_line(item, f), out);
            out.extend_from_slice(b"</failure>\n");
        }
        if item.verdict == Verdict::Skipped {
            out.extend_from_slice(b"    <skipped message=\"not checked\"/>\n");
        }
        if !item.findings.is_empty() {
            out.extend_from_slice(b"    <system-out>");
            for f in &item.findings {
                escape(&finding_line(item, f), out);
                out.push(b'\n');
            }
            out.extend_from_slice(b"</system-out>\n");
        }
        out.extend_from_slice(b"  </testcase>\n");
    }

    fn footer(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"</testsuites>\n");
    }
}

/// `file:line:column: severity[code]: message`, as the text format.
fn finding_line(item: &Item<'_>, f: &super::item::Finding) -> String {
    format!("{}:{}:{}: {}[{}]: {}", item.file, f.line, f.column, f.severity.as_str(), f.code, f.message)
}

/// The start tag of a file's suite, with its counts: errors (the test
/// harness failing) never happen here, failures are games with an error.
pub(super) fn open_suite(name: &str, tests: u64, failures: u64, skipped: u64, out: &mut Vec<u8>) {
    out.extend_from_slice(b"<testsuite name=\"");
    escape(name, out);
    let _ = writeln!(out, "\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">");
}

/// The end tag of a suite.
pub(super) const CLOSE_SUITE: &[u8] = b"</testsuite>\n";

/// Text for an attribute value (always in double quotes) or an element:
/// `&`, `<`, `>` and `"` as entities, tabs and line breaks as character
/// references (an attribute would fold them into spaces), and the
/// characters XML 1.0 forbids even as references (other controls, U+FFFE,
/// U+FFFF) written as `\u{1b}`, as the text format shows them.
fn escape(text: &str, out: &mut Vec<u8>) {
    for c in text.chars() {
        match c {
            '&' => out.extend_from_slice(b"&amp;"),
            '<' => out.extend_from_slice(b"&lt;"),
            '>' => out.extend_from_slice(b"&gt;"),
            '"' => out.extend_from_slice(b"&quot;"),
            '\t' => out.extend_from_slice(b"&#9;"),
            '\n' => out.extend_from_slice(b"&#10;"),
            '\r' => out.extend_from_slice(b"&#13;"),
            c if c < ' ' || c == '\u{fffe}' || c == '\u{ffff}' => {
                let _ = write!(out, "{}", c.escape_unicode());
            }
            c => {
                let mut buffer = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::findings::ci::{Finding, Fingerprint};

    #[test]
    fn specials_are_entities_and_forbidden_characters_are_spelled_out() {
        let mut out = Vec::new();
        escape("a<b>&\"c'\td\n\u{1b}[1m\u{ffff}é", &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), "a&lt;b&gt;&amp;&quot;c'&#9;d&#10;\\u{1b}[1m\\u{ffff}é");
    }

    #[test]
    fn a_game_with_an_error_and_a_warning_has_one_failure_and_both_in_system_out() {
        let finding = |severity, code: &'static str| Finding {
            severity,
            code,
            line: 9,
            column: 4,
            message: format!("{code} <here>"),
            fingerprint: Fingerprint(0),
        };
        let item = Item {
            file: "a.pgn",
            name: "game 2 (A - B)".to_owned(),
            line: 7,
            verdict: Verdict::Failed,
            findings: vec![finding(Severity::Error, "illegal-move"), finding(Severity::Warning, "null-move")],
        };
        let mut out = Vec::new();
        JunitWriter { command: "validate" }.item(&item, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "  <testcase name=\"game 2 (A - B)\" classname=\"a.pgn\" file=\"a.pgn\" line=\"7\">\n\
             \x20   <failure type=\"illegal-move\" message=\"illegal-move &lt;here&gt;\">a.pgn:9:4: error[illegal-move]: illegal-move &lt;here&gt;</failure>\n\
             \x20   <system-out>a.pgn:9:4: error[illegal-move]: illegal-move &lt;here&gt;\n\
             a.pgn:9:4: warning[null-move]: null-move &lt;here&gt;\n</system-out>\n\
             \x20 </testcase>\n"
        );
    }
}
