//! SARIF 2.1.0, the OASIS format GitHub code scanning and many editors
//! read: one run, its tool with a rule per finding code, a result per
//! finding. The objects are serde-sarif's typed model.
//!
//! The document is written as it goes, not built whole: the envelope (the
//! log, the run, the tool and its rules) is serialized once with an empty
//! `results` array and cut there, and each result is serialized on its own
//! between the two halves.

use std::collections::BTreeMap;

use serde_sarif::sarif::{
    ArtifactLocation, Location, Message, MultiformatMessageString, PhysicalLocation, Region, ReportingConfiguration,
    ReportingDescriptor, Result as SarifResult, ResultLevel, Run, Sarif, Tool, ToolComponent,
};

use super::item::{CiWriter, Item, Layout, Rule};
use crate::report::Severity;

/// The schema the log names, the OASIS standard's (errata 01).
const SCHEMA: &str = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The key of a result's fingerprint in `partialFingerprints`.
const FINGERPRINT_KEY: &str = "pgnkitFinding/v1";

/// A SARIF log.
#[derive(Debug)]
pub struct SarifWriter {
    rules: Vec<Rule>,
    /// The envelope before the results, and after them.
    head: String,
    tail: String,
}

impl SarifWriter {
    /// A log whose tool has `rules` (every code of the command).
    pub fn new(rules: Vec<Rule>) -> SarifWriter {
        let descriptors = rules
            .iter()
            .map(|rule| {
                let text = || MultiformatMessageString::builder().text(rule.help).build();
                ReportingDescriptor::builder()
                    .id(rule.id)
                    .short_description(text())
                    .help(text())
                    .default_configuration(
                        ReportingConfiguration::builder().level(serde_json::json!(level(rule.level))).build(),
                    )
                    .build()
            })
            .collect::<Vec<_>>();
        let driver = ToolComponent::builder()
            .name("pgnkit")
            .version(env!("CARGO_PKG_VERSION"))
            .semantic_version(env!("CARGO_PKG_VERSION"))
            .rules(descriptors)
            .build();
        let run = Run::builder()
            .tool(Tool::builder().driver(driver).build())
            .column_kind(serde_json::json!("unicodeCodePoints"))
            .results(Vec::new())
            .build();
        let log = Sarif::builder().schema(SCHEMA).version(serde_json::json!("2.1.0")).runs(vec![run]).build();
        let text = serde_json::to_string(&log).expect("a SARIF log always serializes");
        // The one place this can be: inside a string a quote is escaped.
        let empty = "\"results\":[]";
        let at = text.find(empty).expect("the run has its empty results") + empty.len() - 1;
        SarifWriter { head: format!("{}\n", &text[..at]), tail: format!("\n{}\n", &text[at..]), rules }
    }
}

/// A severity as a SARIF level.
fn level(severity: Severity) -> ResultLevel {
    match severity {
        Severity::Error => ResultLevel::Error,
        Severity::Warning => ResultLevel::Warning,
        Severity::Info => ResultLevel::Note,
    }
}

/// A file name as given, as the relative URI reference SARIF wants: every
/// byte but the unreserved characters and `/` percent-encoded, so that a
/// space, a `%`, or the `:` of `archive.zip:member.pgn` (which would read
/// as a URI scheme) stays part of the path; stdin's `<stdin>` is
/// `%3Cstdin%3E`.
pub fn uri(file: &str) -> String {
    let mut out = String::with_capacity(file.len());
    for &b in file.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl CiWriter for SarifWriter {
    fn layout(&self) -> Layout {
        Layout::JsonArray
    }

    fn header(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.head.as_bytes());
    }

    fn item(&self, item: &Item<'_>, out: &mut Vec<u8>) {
        let uri = uri(item.file);
        for (i, f) in item.findings.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b",\n");
            }
            let region = Region::builder().start_line(f.line as i64).start_column(i64::from(f.column)).build();
            let physical = PhysicalLocation::builder()
                .artifact_location(ArtifactLocation::builder().uri(uri.as_str()).build())
                .region(region)
                .build();
            let mut result = SarifResult::builder()
                .rule_id(f.code)
                .level(level(f.severity))
                .message(Message::builder().text(f.message.as_str()).build())
                .locations(vec![Location::builder().physical_location(physical).build()])
                .partial_fingerprints(BTreeMap::from([(FINGERPRINT_KEY.to_owned(), f.fingerprint.to_string())]))
                .build();
            result.rule_index = self.rules.iter().position(|rule| rule.id == f.code).map(|i| i as i64);
            serde_json::to_writer(&mut *out, &result).expect("a result always serializes");
        }
    }

    fn footer(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.tail.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::findings::ci::{Finding, Fingerprint, Verdict, game_rules};

    #[test]
    fn names_become_relative_uri_references() {
        assert_eq!(uri("games/ok-1.pgn"), "games/ok-1.pgn");
        assert_eq!(uri("a b%.zip:m.pgn"), "a%20b%25.zip%3Am.pgn");
        assert_eq!(uri("<stdin>"), "%3Cstdin%3E");
        assert_eq!(uri("é"), "%C3%A9");
    }

    #[test]
    fn the_envelope_is_cut_at_its_results_and_a_result_names_its_rule() {
        let writer = SarifWriter::new(game_rules());
        let item = Item {
            file: "a.pgn",
            name: "game 1 (? - ?)".to_owned(),
            line: 1,
            verdict: Verdict::Failed,
            findings: vec![Finding {
                severity: Severity::Warning,
                code: "null-move",
                line: 3,
                column: 5,
                message: "a null move".to_owned(),
                fingerprint: Fingerprint(7),
            }],
        };
        let mut out = Vec::new();
        writer.header(&mut out);
        writer.item(&item, &mut out);
        writer.footer(&mut out);
        let log: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let run = &log["runs"][0];
        let result = &run["results"][0];
        assert_eq!(log["version"], "2.1.0");
        assert_eq!(result["ruleId"], "null-move");
        assert_eq!(run["tool"]["driver"]["rules"][result["ruleIndex"].as_u64().unwrap() as usize]["id"], "null-move");
        assert_eq!(result["level"], "warning");
        assert_eq!(result["locations"][0]["physicalLocation"]["region"]["startColumn"], 5);
        assert_eq!(result["partialFingerprints"][FINGERPRINT_KEY], Fingerprint(7).to_string());
    }
}
