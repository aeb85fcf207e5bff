//! What the CI formats show of a game or a record ([`Item`]), the rules
//! they list, and what a CI writer is ([`CiWriter`]).

use std::fmt;

use crate::{
    fen_check::{FenCode, FenReport},
    report::{Code, Diagnostic, GameReport, Severity},
};

/// What identifies a finding from one run to the next (see
/// [`crate::baseline`]): 128 bits, written as 32 hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(pub u128);

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

/// How a game or record fared, as a test case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// No error.
    Passed,
    /// At least one error.
    Failed,
    /// Not checked and no error (a game of an unsupported variant).
    Skipped,
}

/// One finding as the CI formats show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Error, warning or info.
    pub severity: Severity,
    /// The finding's code, which is its rule.
    pub code: &'static str,
    /// 1-based line in the input.
    pub line: u64,
    /// 1-based column, in characters.
    pub column: u32,
    /// The message, with where in the game it is (`(game 3, ply 5: 3. Bb5)`),
    /// as the text format writes it.
    pub message: String,
    /// Its identity across runs.
    pub fingerprint: Fingerprint,
}

/// A game or a record, with the findings to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item<'a> {
    /// The input, named as everywhere (`<stdin>`, `archive.zip:member.pgn`).
    pub file: &'a str,
    /// The test case's name: `game 3 (Morphy - Anderssen)`, `line 7`.
    pub name: String,
    /// 1-based line of the game's first byte, or of the record.
    pub line: u64,
    /// Its verdict.
    pub verdict: Verdict,
    /// Its findings, in the order of the text.
    pub findings: Vec<Finding>,
}

impl<'a> Item<'a> {
    /// A game of `validate`; `fingerprints` go with its diagnostics, one each.
    pub fn of_game(report: &'a GameReport, fingerprints: &[Fingerprint]) -> Item<'a> {
        let verdict = if report.invalid() {
            Verdict::Failed
        } else if report.unchecked() {
            Verdict::Skipped
        } else {
            Verdict::Passed
        };
        debug_assert_eq!(fingerprints.len(), report.diagnostics.len(), "a fingerprint per finding");
        let names = |tag: &Option<String>| crate::text::escape_controls(tag.as_deref().unwrap_or("?"));
        let findings = report
            .diagnostics
            .iter()
            .zip(fingerprints)
            .map(|(d, &fingerprint)| Finding {
                severity: d.severity,
                code: d.code.as_str(),
                line: d.line,
                column: d.column,
                message: game_message(report, d),
                fingerprint,
            })
            .collect();
        Item {
            file: &report.file,
            name: format!("game {} ({} - {})", report.game, names(&report.white), names(&report.black)),
            line: report.line,
            verdict,
            findings,
        }
    }

    /// A record of `fen check` read from `file`; `fingerprints` go with its
    /// findings, one each.
    pub fn of_record(file: &'a str, report: &FenReport<'_>, fingerprints: &[Fingerprint]) -> Item<'a> {
        debug_assert_eq!(fingerprints.len(), report.findings.len(), "a fingerprint per finding");
        let findings = report
            .findings
            .iter()
            .zip(fingerprints)
            .map(|(f, &fingerprint)| Finding {
                severity: f.severity,
                code: f.code.as_str(),
                line: report.line,
                column: f.column,
                message: crate::text::escape_controls(&f.message),
                fingerprint,
            })
            .collect();
        Item {
            file,
            name: format!("line {}: {}", report.line, crate::text::escape_controls(report.fen)),
            line: report.line,
            verdict: if report.valid { Verdict::Passed } else { Verdict::Failed },
            findings,
        }
    }
}

/// `message (game 3, ply 5: 3. Bb5)`, as the text format ends a finding.
fn game_message(report: &GameReport, d: &Diagnostic) -> String {
    let mut message = format!("{} (game {}", crate::text::escape_controls(&d.message), report.game);
    if let Some(ply) = d.ply {
        message.push_str(&format!(", ply {ply}"));
        if let Some(san) = &d.san {
            message.push_str(&format!(
                ": {}{}",
                crate::output::findings::text::move_number(d),
                crate::text::escape_controls(san)
            ));
        }
    }
    message.push(')');
    message
}

/// A finding code as a rule: what SARIF lists in its tool's `rules`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// The code.
    pub id: &'static str,
    /// The severity its findings have by default (for a code that can have
    /// two, the one its table row gives).
    pub level: Severity,
    /// What it means, in the manual's words.
    pub help: &'static str,
}

/// Every code of `validate`, as rules, in the table's order.
pub fn game_rules() -> Vec<Rule> {
    Code::ALL.iter().map(|&code| Rule { id: code.as_str(), level: code.severity(), help: code.manual().1 }).collect()
}

/// Every code of `fen check`, as rules.
pub fn fen_rules() -> Vec<Rule> {
    FenCode::ALL.iter().map(|&code| Rule { id: code.as_str(), level: code.severity(), help: code.manual().1 }).collect()
}

/// How a format's items go together ([`Document`](super::Document)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// End to end (GitHub's workflow commands).
    Stream,
    /// Elements of a JSON array: a comma between two items that have any.
    JsonArray,
    /// JUnit test cases, in one `<testsuite>` per input file.
    Suites,
}

/// Formats items for a CI system.
pub trait CiWriter: Send + Sync {
    /// How the items' bytes go together.
    fn layout(&self) -> Layout;
    /// Bytes before the first item.
    fn header(&self, _out: &mut Vec<u8>) {}
    /// Appends one item; a JSON format appends its elements with commas
    /// between them, and nothing for an item without findings.
    fn item(&self, item: &Item<'_>, out: &mut Vec<u8>);
    /// Bytes after the last item.
    fn footer(&self, _out: &mut Vec<u8>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_rule_whose_level_is_its_default_severity() {
        let rules = game_rules();
        assert_eq!(rules.len(), Code::ALL.len());
        let level = |id: &str| rules.iter().find(|r| r.id == id).unwrap().level;
        assert_eq!(level("illegal-move"), Severity::Error);
        assert_eq!(level("moves-after-end"), Severity::Error);
        assert_eq!(level("lint-check-suffix"), Severity::Warning);
        assert_eq!(level("unknown-result"), Severity::Info);
        assert_eq!(fen_rules().len(), FenCode::ALL.len());
    }

    #[test]
    fn a_fingerprint_is_32_hex_digits() {
        assert_eq!(Fingerprint(0xab).to_string(), "000000000000000000000000000000ab");
    }
}
