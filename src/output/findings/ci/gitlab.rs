//! GitLab's Code Quality report: one JSON array of issues, each with a
//! `fingerprint` that stays the same from run to run, so that a merge
//! request shows which findings it adds and which it removes.

use serde::Serialize;

use super::item::{CiWriter, Item, Layout};
use crate::report::Severity;

/// A Code Quality report.
#[derive(Debug, Default)]
pub struct GitlabWriter;

/// One issue, the fields GitLab requires.
#[derive(Serialize)]
struct Issue<'a> {
    description: &'a str,
    check_name: &'a str,
    fingerprint: String,
    severity: &'static str,
    location: Location<'a>,
}

#[derive(Serialize)]
struct Location<'a> {
    path: &'a str,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: u64,
}

/// GitLab's scale has five steps; ours three.
fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Info => "info",
    }
}

impl CiWriter for GitlabWriter {
    fn layout(&self) -> Layout {
        Layout::JsonArray
    }

    fn header(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"[\n");
    }

    fn item(&self, item: &Item<'_>, out: &mut Vec<u8>) {
        for (i, f) in item.findings.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b",\n");
            }
            let issue = Issue {
                description: &f.message,
                check_name: f.code,
                fingerprint: f.fingerprint.to_string(),
                severity: severity(f.severity),
                location: Location { path: item.file, lines: Lines { begin: f.line } },
            };
            serde_json::to_writer(&mut *out, &issue).expect("an issue always serializes");
        }
    }

    fn footer(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"\n]\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::findings::ci::{Finding, Fingerprint, Verdict};

    #[test]
    fn an_issue_per_finding_with_its_fingerprint() {
        let item = Item {
            file: "a.pgn",
            name: "game 1 (? - ?)".to_owned(),
            line: 1,
            verdict: Verdict::Failed,
            findings: vec![Finding {
                severity: Severity::Error,
                code: "illegal-move",
                line: 3,
                column: 5,
                message: "\"Ke3\" cannot be played (game 1)".to_owned(),
                fingerprint: Fingerprint(0x1234),
            }],
        };
        let mut out = Vec::new();
        GitlabWriter.item(&item, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"description\":\"\\\"Ke3\\\" cannot be played (game 1)\",\"check_name\":\"illegal-move\",\
             \"fingerprint\":\"00000000000000000000000000001234\",\"severity\":\"major\",\
             \"location\":{\"path\":\"a.pgn\",\"lines\":{\"begin\":3}}}"
        );
    }
}
