//! The manual pages: every page says how pgnkit exits and which
//! environment variables it reads, and the pages of the commands that
//! report findings list every finding code with a true severity.

use pgnkit::{fen_check::FenCode, report::Code};

use crate::{
    help::commands,
    support::{files_with_extension, json_lines, root, run},
};

/// The roff text of `pgnkit man WORDS`.
fn page(words: &[String]) -> String {
    let mut args = vec!["man"];
    args.extend(words.iter().map(String::as_str));
    let out = run(&args, None);
    assert_eq!(out.code, 0, "{words:?}: {}", out.stderr);
    out.stdout
}

/// The text of one section (`FINDINGS`, `"EXIT STATUS"`), up to the next,
/// with roff's `\-` read as `-`; empty when the page has none.
fn section(page: &str, name: &str) -> String {
    let heading = format!(".SH {name}\n");
    let Some(start) = page.find(&heading) else { return String::new() };
    let body = &page[start + heading.len()..];
    let end = body.find("\n.SH ").map_or(body.len(), |end| end + 1);
    body[..end].replace("\\-", "-")
}

/// The commands whose pages list validate's codes.
const GAME_FINDINGS: &[&str] = &["validate", "stats", "convert", "fix", "filter", "dedup", "split", "ratings", "book"];

#[test]
fn every_page_has_exit_status_and_environment_and_finding_commands_list_every_code() {
    let mut pages = 0;
    for command in commands() {
        let text = page(&command);
        let exit = section(&text, "\"EXIT STATUS\"");
        for code in ["0", "1", "2", "101", "129, 130, 143"] {
            assert!(exit.contains(&format!(".TP\n\\fB{code}\\fR\n")), "{command:?}: no exit code {code}:\n{exit}");
        }
        assert!(exit.contains("SIGINT") && exit.contains("SIGTERM") && exit.contains("SIGHUP"), "{command:?}");
        assert!(!exit.contains('`') && !exit.contains(" (see "), "{command:?}: markdown left in\n{exit}");
        let environment = section(&text, "ENVIRONMENT");
        for name in ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM"] {
            assert!(environment.contains(&format!("\\fB{name}\\fR")), "{command:?}: no {name}");
        }
        let findings = section(&text, "FINDINGS");
        let words: Vec<&str> = command.iter().map(String::as_str).collect();
        let codes: Vec<&str> = match words.as_slice() {
            ["fen", "check"] => FenCode::ALL.iter().map(|c| c.as_str()).collect(),
            [name] if GAME_FINDINGS.contains(name) => Code::ALL.iter().map(|c| c.as_str()).collect(),
            _ => {
                assert!(findings.is_empty(), "{command:?} lists findings it cannot report");
                Vec::new()
            }
        };
        for code in codes {
            assert!(findings.contains(&format!("\\fB{code}\\fR (")), "{command:?}: no {code} in\n{findings}");
        }
        // The sections come before the examples.
        let order = ["FINDINGS", "\"EXIT STATUS\"", "ENVIRONMENT", "EXTRA"].map(|s| text.find(&format!(".SH {s}\n")));
        let found: Vec<usize> = order.iter().flatten().copied().collect();
        assert!(found.is_sorted(), "{command:?}: sections out of order");
        pages += 1;
    }
    assert!(pages >= 16, "{pages} pages");
}

#[test]
fn a_command_has_its_own_exit_codes_on_its_page() {
    let validate = section(&page(&["validate".to_owned()]), "\"EXIT STATUS\"");
    assert!(validate.contains("a game has an error; with --deny-warnings, also a warning"), "{validate}");
    let perft = section(&page(&["perft".to_owned()]), "\"EXIT STATUS\"");
    assert!(perft.contains("\\fBperft --suite\\fR: a count is wrong"), "{perft}");
    // `as validate` in docs/exit-codes.md is spelled out.
    let stats = section(&page(&["stats".to_owned()]), "\"EXIT STATUS\"");
    assert!(
        stats.contains("a game has an error; with --deny-warnings, also a warning (every game is replayed)"),
        "{stats}"
    );
}

#[test]
fn every_variable_pgnkit_reads_is_in_the_manual() {
    let read = regex::Regex::new(r#"\bvar(?:_os)?\("([A-Z][A-Z0-9_]*)"\)"#).unwrap();
    let mut names = Vec::new();
    for file in files_with_extension(&root().join("src"), "rs") {
        let text = std::fs::read_to_string(&file).unwrap();
        names.extend(read.captures_iter(&text).map(|c| c[1].to_owned()));
    }
    names.sort();
    names.dedup();
    assert!(names.len() >= 5, "{names:?}");
    let overview = section(&page(&[]), "ENVIRONMENT");
    for name in &names {
        assert!(overview.contains(&format!("\\fB{name}\\fR")), "pgnkit(1) does not name {name}:\n{overview}");
    }
    assert!(overview.contains("when --openings is not given (stats, convert, filter, split)"), "{overview}");
    // Where no option of the command reads it, a variable is not listed:
    // dedup's --openings only sets tags, never from the environment.
    for (command, has) in [("stats", true), ("convert", true), ("filter", true), ("validate", false), ("dedup", false)]
    {
        let text = section(&page(&[command.to_owned()]), "ENVIRONMENT");
        assert_eq!(text.contains("PGNKIT_OPENINGS"), has, "{command}");
    }
}

#[test]
fn the_severity_in_the_manual_is_the_one_the_fixtures_show() {
    let manual = |code: &str| -> &'static str {
        let game = Code::ALL.iter().find(|c| c.as_str() == code).map(|c| c.manual().0);
        let fen = FenCode::ALL.iter().find(|c| c.as_str() == code).map(|c| c.manual().0);
        game.or(fen).unwrap_or_else(|| panic!("{code} is no code"))
    };
    let mut seen = 0;
    for file in files_with_extension(&root().join("testdata"), "pgn") {
        let out = run(&["validate", "--lint", "-q", "--format", "jsonl", file.to_str().unwrap()], None);
        for game in json_lines(&out.stdout) {
            for finding in game["diagnostics"].as_array().unwrap() {
                let (code, severity) = (finding["code"].as_str().unwrap(), finding["severity"].as_str().unwrap());
                assert!(manual(code).contains(severity), "{}: {code} is {severity}", file.display());
                seen += 1;
            }
        }
    }
    for file in files_with_extension(&root().join("testdata/fen"), "fen") {
        let out = run(&["fen", "check", "-q", "--format", "jsonl", file.to_str().unwrap()], None);
        for record in json_lines(&out.stdout) {
            for finding in record["diagnostics"].as_array().unwrap() {
                let (code, severity) = (finding["code"].as_str().unwrap(), finding["severity"].as_str().unwrap());
                assert_eq!(manual(code), severity, "{}: {code}", file.display());
                seen += 1;
            }
        }
    }
    assert!(seen >= 100, "only {seen} findings");
}

#[test]
fn a_nested_page_is_named_with_a_hyphen_too() {
    let spaced = page(&["fen".to_owned(), "check".to_owned()]);
    assert_eq!(page(&["fen-check".to_owned()]), spaced);
    assert!(spaced.contains(".TH pgnkit-fen-check 1"));
    let unknown = run(&["man", "fen-nope"], None);
    assert_eq!(unknown.code, 2);
    assert!(unknown.stderr.contains("pgnkit-fen has no command \"nope\""), "{}", unknown.stderr);
}
