//! GitHub Actions workflow commands: `::error file=F,line=L,col=C,title=CODE::message`,
//! one line per finding, which GitHub shows as annotations on the lines of
//! a pull request.

use super::item::{CiWriter, Item, Layout};
use crate::report::Severity;

/// One workflow command per finding: `::error` for an error, `::warning`
/// for a warning, `::notice` for an info finding.
#[derive(Debug, Default)]
pub struct GithubWriter;

impl CiWriter for GithubWriter {
    fn layout(&self) -> Layout {
        Layout::Stream
    }

    fn item(&self, item: &Item<'_>, out: &mut Vec<u8>) {
        for f in &item.findings {
            let command = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "notice",
            };
            out.extend_from_slice(format!("::{command} file=").as_bytes());
            out.extend_from_slice(escape_property(item.file).as_bytes());
            out.extend_from_slice(format!(",line={},col={},title=", f.line, f.column).as_bytes());
            out.extend_from_slice(escape_property(f.code).as_bytes());
            out.extend_from_slice(b"::");
            out.extend_from_slice(escape_data(&f.message).as_bytes());
            out.push(b'\n');
        }
    }
}

/// The message of a workflow command, escaped as GitHub's toolkit does:
/// `%`, `\r` and `\n` as `%25`, `%0D` and `%0A` (a line break would end the
/// command).
pub fn escape_data(text: &str) -> String {
    escape(text, false)
}

/// A property value (`file=`, `title=`), escaped as [`escape_data`] and
/// also `:` and `,` as `%3A` and `%2C`, which end a value.
pub fn escape_property(text: &str) -> String {
    escape(text, true)
}

fn escape(text: &str, property: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' if property => out.push_str("%3A"),
            ',' if property => out.push_str("%2C"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::findings::ci::{Finding, Fingerprint, Verdict};

    #[test]
    fn values_are_escaped_as_the_toolkit_escapes_them() {
        assert_eq!(escape_data("50% a:b,c\r\nd"), "50%25 a:b,c%0D%0Ad");
        assert_eq!(escape_property("50% a:b,c\r\nd"), "50%25 a%3Ab%2Cc%0D%0Ad");
    }

    #[test]
    fn each_finding_is_one_command_named_by_its_severity() {
        let finding = |severity, code| Finding {
            severity,
            code,
            line: 3,
            column: 7,
            message: "m, 100%".to_owned(),
            fingerprint: Fingerprint(1),
        };
        let item = Item {
            file: "a,b.pgn",
            name: "game 1 (? - ?)".to_owned(),
            line: 1,
            verdict: Verdict::Failed,
            findings: vec![finding(Severity::Error, "illegal-move"), finding(Severity::Info, "unknown-result")],
        };
        let mut out = Vec::new();
        GithubWriter.item(&item, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "::error file=a%2Cb.pgn,line=3,col=7,title=illegal-move::m, 100%25\n\
             ::notice file=a%2Cb.pgn,line=3,col=7,title=unknown-result::m, 100%25\n"
        );
    }
}
