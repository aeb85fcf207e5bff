//! The CI formats as their consumers read them: SARIF validated against the
//! OASIS schema and JUnit read by junitparser (`scripts/check_ci_formats.py`,
//! which makes a venv of its own under target/; when it cannot, the tests
//! say so and skip), GitHub's workflow commands parsed and unescaped by
//! their documented syntax, GitLab's fingerprints compared from run to run,
//! and `--baseline`.

use std::{
    collections::{BTreeSet, HashMap},
    process::Command,
};

use serde_json::Value;

use crate::support::{Scratch, json_lines, pgnkit, root, run, skip};

/// Games with errors, warnings, an info finding, a game not checked, and
/// valid games.
const GAMES: &[&str] = &[
    "testdata/invalid/illegal-castling-through-check.pgn",
    "testdata/invalid/missing-result.pgn",
    "testdata/invalid/unsupported-variant.pgn",
    "testdata/invalid/checkmate-with-unknown-result.pgn",
    "testdata/invalid/ambiguous-move.pgn",
    "testdata/valid/famous-games.pgn",
];

/// A game with an illegal move, named by its tags.
const BAD: &str = "[Event \"Club\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n\n";

/// `pgnkit ARGS`: (exit code, stdout, stderr).
fn pgnkit_run(args: &[&str]) -> (i32, String, String) {
    let out = run(args, None);
    (out.code, out.stdout, out.stderr)
}

/// What `scripts/check_ci_formats.py KIND` says of `text`, or `None` (and a
/// skip) when it cannot set itself up. A report it rejects fails the test.
fn consumer(scratch: &Scratch, kind: &str, text: &str) -> Option<Value> {
    let report = scratch.write(&format!("report.{kind}"), text);
    let out = Command::new("python3").arg(root().join("scripts/check_ci_formats.py")).args([kind, &report]).output();
    let out = match out {
        Ok(out) => out,
        Err(err) => {
            skip(&format!("python3 cannot run: {err}"));
            return None;
        }
    };
    if out.status.code() == Some(77) {
        skip(&format!("check_ci_formats.py could not make its venv: {}", String::from_utf8_lossy(&out.stderr)));
        return None;
    }
    assert!(out.status.success(), "{kind} rejected:\n{}\n{text}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_slice(&out.stdout).expect("the script prints JSON"))
}

/// Every finding of `validate --format jsonl ARGS`, with its game's `file`.
fn game_findings(args: &[&str]) -> Vec<Value> {
    let mut all = vec!["validate", "-q", "--format", "jsonl"];
    all.extend_from_slice(args);
    let (_, stdout, _) = pgnkit_run(&all);
    let mut findings = Vec::new();
    for game in json_lines(&stdout) {
        for d in game["diagnostics"].as_array().unwrap() {
            let mut d = d.clone();
            d["file"] = game["file"].clone();
            findings.push(d);
        }
    }
    findings
}

#[test]
fn sarif_of_validate_and_fen_check_is_valid_against_the_oasis_schema() {
    let scratch = Scratch::new("sarif");
    // A name that is no URI as it is: a space, a comma, a colon, a `%`.
    let odd = scratch.write("odd, name: 100%.pgn", BAD);
    let mut inputs: Vec<&str> = GAMES.to_vec();
    inputs.push(&odd);
    let mut args = vec!["validate", "-q", "--format", "sarif"];
    args.extend_from_slice(&inputs);
    let (code, sarif, _) = pgnkit_run(&args);
    assert_eq!(code, 1);
    let Some(summary) = consumer(&scratch, "sarif", &sarif) else { return };
    let findings = game_findings(&inputs);
    assert_eq!(summary["results"], findings.len());
    let log: Value = serde_json::from_str(&sarif).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    for (result, finding) in results.iter().zip(&findings) {
        assert_eq!(result["ruleId"], finding["code"]);
        let region = &result["locations"][0]["physicalLocation"]["region"];
        assert_eq!((&region["startLine"], &region["startColumn"]), (&finding["line"], &finding["column"]));
    }
    let uri = &results.last().unwrap()["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
    assert!(uri.as_str().unwrap().ends_with("/odd%2C%20name%3A%20100%25.pgn"), "{uri}");

    let (code, sarif, _) =
        pgnkit_run(&["fen", "check", "-q", "--format", "sarif", "testdata/fen/board-char.fen", "8/8/8 w - -"]);
    assert_eq!(code, 1);
    let Some(summary) = consumer(&scratch, "sarif", &sarif) else { return };
    let (_, jsonl, _) =
        pgnkit_run(&["fen", "check", "-q", "--format", "jsonl", "testdata/fen/board-char.fen", "8/8/8 w - -"]);
    let count: usize = json_lines(&jsonl).iter().map(|r| r["diagnostics"].as_array().unwrap().len()).sum();
    assert_eq!(summary["results"], count);
    assert!(sarif.contains("\"uri\":\"%3Cargs%3E\""));
}

#[test]
fn junit_reads_with_junitparser_a_suite_per_file_and_a_case_per_game() {
    let scratch = Scratch::new("junit");
    // What XML must escape, in a file name, the players' names and a message.
    let odd = scratch.write(
        "a&b <\"c\">.pgn",
        "[White \"Smith & \\\"Jones\\\"\"]\n[Black \"<Doe>\"]\n\n1. e4 e5 2. Ke3 <x&y> *\n\n",
    );
    let mut inputs: Vec<&str> = GAMES.to_vec();
    inputs.push(&odd);
    let mut args = vec!["validate", "-q", "--format", "junit"];
    args.extend_from_slice(&inputs);
    let (code, xml, _) = pgnkit_run(&args);
    assert_eq!(code, 1);
    let Some(suites) = consumer(&scratch, "junit", &xml) else { return };
    let mut args = vec!["validate", "-q", "--format", "jsonl"];
    args.extend_from_slice(&inputs);
    let games = json_lines(&pgnkit_run(&args).1);
    let suites = suites.as_array().unwrap();
    let names: Vec<&str> = suites.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, inputs);
    assert_eq!(games.last().unwrap()["white"], "Smith & \"Jones\"");
    let cases: Vec<&Value> = suites.iter().flat_map(|s| s["cases"].as_array().unwrap()).collect();
    assert_eq!(cases.len(), games.len());
    for (case, game) in cases.iter().zip(&games) {
        let name = |tag: &Value| tag.as_str().unwrap_or("?").to_owned();
        let expected = format!("game {} ({} - {})", game["game"], name(&game["white"]), name(&game["black"]));
        assert_eq!(case["name"], expected.as_str());
        assert_eq!(case["classname"], game["file"]);
        let errors: Vec<&Value> =
            game["diagnostics"].as_array().unwrap().iter().filter(|d| d["severity"] == "error").collect();
        let failures = case["failures"].as_array().unwrap();
        assert_eq!(failures.len(), errors.len(), "{case}");
        for (failure, error) in failures.iter().zip(&errors) {
            assert_eq!(failure["type"], error["code"]);
            assert!(failure["message"].as_str().unwrap().starts_with(error["message"].as_str().unwrap()));
        }
        assert_eq!(case["skipped"], game["checked"] == false && errors.is_empty());
        let findings = game["diagnostics"].as_array().unwrap().len();
        let out_lines = case["system_out"].as_str().map_or(0, |out| out.lines().count());
        assert_eq!(out_lines, findings, "{case}");
    }
    let failures = suites.iter().map(|s| s["failures"].as_u64().unwrap()).sum::<u64>();
    let has_error = |g: &&Value| g["diagnostics"].as_array().unwrap().iter().any(|d| d["severity"] == "error");
    assert_eq!(failures, games.iter().filter(has_error).count() as u64);

    let (code, xml, _) = pgnkit_run(&["fen", "check", "-q", "--format", "junit", "testdata/fen/board-char.fen"]);
    assert_eq!(code, 1);
    let Some(suites) = consumer(&scratch, "junit", &xml) else { return };
    assert_eq!(suites[0]["name"], "testdata/fen/board-char.fen");
    assert_eq!(suites[0]["tests"], suites[0]["cases"].as_array().unwrap().len());
    assert!(suites[0]["cases"][0]["name"].as_str().unwrap().starts_with("line "));
}

/// `%XX` of GitHub's escapes back to the character.
fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let code = rest.get(at + 1..at + 3).expect("two hex digits after %");
        out.push(match code {
            "25" => '%',
            "0D" => '\r',
            "0A" => '\n',
            "3A" => ':',
            "2C" => ',',
            _ => panic!("%{code} is none of GitHub's escapes"),
        });
        rest = &rest[at + 3..];
    }
    out.push_str(rest);
    out
}

/// A workflow command, `::NAME PROPERTIES::DATA`, by the documented
/// syntax: (name, properties, data), all unescaped. A property value or the
/// data holding a raw `%`, line break, or (in a value) `:` or `,` fails.
fn parse_command(line: &str) -> (String, HashMap<String, String>, String) {
    let rest = line.strip_prefix("::").expect("starts with ::");
    let (head, data) = rest.split_once("::").expect("the data after ::");
    let (name, properties) = head.split_once(' ').expect("a name, then properties");
    let mut map = HashMap::new();
    for property in properties.split(',') {
        let (key, value) = property.split_once('=').expect("key=value");
        assert!(!value.contains(':') && !value.contains('\r'), "{value}");
        map.insert(key.to_owned(), unescape(value));
    }
    assert!(!data.contains('\r'), "{data}");
    (name.to_owned(), map, unescape(data))
}

#[test]
fn github_commands_follow_the_documented_syntax_and_unescape_to_the_findings() {
    let scratch = Scratch::new("github");
    // Every character a property must escape, in a file name.
    let odd = scratch.write("odd, name: 100%\r\nend.pgn", BAD);
    let percent = scratch.write("percent.pgn", "[Event \"x\"]\n\n1. e4 50% *\n");
    let mut inputs: Vec<&str> = GAMES.to_vec();
    inputs.extend([odd.as_str(), percent.as_str()]);
    let mut args = vec!["validate", "-q", "--format", "github"];
    args.extend_from_slice(&inputs);
    let (code, stdout, _) = pgnkit_run(&args);
    assert_eq!(code, 1);
    let findings = game_findings(&inputs);
    let lines: Vec<&str> = stdout.split('\n').filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), findings.len(), "{stdout}");
    let mut names = BTreeSet::new();
    for (line, finding) in lines.iter().zip(&findings) {
        let (name, properties, data) = parse_command(line);
        let severity = finding["severity"].as_str().unwrap();
        names.insert(name.clone());
        assert_eq!(name, if severity == "info" { "notice" } else { severity });
        assert_eq!(properties["file"], finding["file"].as_str().unwrap());
        assert_eq!(properties["line"], finding["line"].to_string());
        assert_eq!(properties["col"], finding["column"].to_string());
        assert_eq!(properties["title"], finding["code"].as_str().unwrap());
        assert!(data.starts_with(finding["message"].as_str().unwrap()), "{data}");
    }
    assert_eq!(names, BTreeSet::from(["error".to_owned(), "notice".to_owned(), "warning".to_owned()]));
    assert!(stdout.contains("odd%2C name%3A 100%25%0D%0Aend.pgn"), "{stdout}");
    assert!(stdout.contains("`50%25`"), "{stdout}");

    let (_, stdout, _) = pgnkit_run(&["fen", "check", "--format", "github", "4k3/8/8/8/8/8/8/4K3 w - - 0 0"]);
    assert_eq!(
        stdout,
        "::warning file=<args>,line=1,col=29,title=fullmove-zero::the fullmove number is 0; it starts at 1 and \
         grows after each Black move (read as 1)\n"
    );
}

/// The fingerprints of `validate --format gitlab ARGS`, in order.
fn fingerprints(args: &[&str]) -> (String, Vec<String>) {
    let mut all = vec!["validate", "-q", "--format", "gitlab"];
    all.extend_from_slice(args);
    let (_, stdout, _) = pgnkit_run(&all);
    let issues: Value = serde_json::from_str(&stdout).expect("a JSON array");
    let prints = issues.as_array().unwrap().iter().map(|i| i["fingerprint"].as_str().unwrap().to_owned()).collect();
    (stdout, prints)
}

#[test]
fn gitlab_fingerprints_stay_the_same_across_runs_thread_counts_and_games_added_above() {
    let (one, prints) = fingerprints(&[&["-j1"][..], GAMES].concat());
    let (two, _) = fingerprints(&[&["-j2"][..], GAMES].concat());
    let (again, _) = fingerprints(&[&["-j2"][..], GAMES].concat());
    assert_eq!(one, two);
    assert_eq!(two, again);
    assert_eq!(prints.len(), game_findings(GAMES).len());
    assert_eq!(prints.iter().collect::<BTreeSet<_>>().len(), prints.len(), "fingerprints are unique");
    assert!(prints.iter().all(|p| p.len() == 32 && p.chars().all(|c| c.is_ascii_hexdigit())));

    let scratch = Scratch::new("gitlab");
    let alone = scratch.write("db.pgn", BAD);
    let (_, before) = fingerprints(&[&alone]);
    let other = "[Event \"Club\"]\n[White \"C\"]\n[Black \"D\"]\n\n1. d4 d5 2. Kd2 Ke7 3. Ke4 *\n\n";
    let grown = scratch.write("db.pgn", format!("{other}{BAD}"));
    let (_, after) = fingerprints(&[&grown]);
    assert_eq!(after.len(), 2);
    assert_eq!(after[1], before[0], "a game added above leaves the finding's fingerprint");
    assert_ne!(after[0], before[0]);
}

#[test]
fn a_baseline_hides_the_findings_it_holds_and_only_new_ones_count() {
    let scratch = Scratch::new("baseline");
    let old: String = GAMES.iter().map(|g| std::fs::read_to_string(root().join(g)).unwrap()).collect();
    let db = scratch.write("db.pgn", &old);
    let baseline = scratch.join("baseline.jsonl");
    let baseline = baseline.to_str().unwrap();
    let total = game_findings(&[&db]).len();

    let (code, stdout, stderr) = pgnkit_run(&["validate", "--write-baseline", baseline, &db]);
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert!(stderr.contains(&format!("pgnkit: wrote {total} findings to the baseline {baseline}\n")), "{stderr}");
    let written = std::fs::read_to_string(baseline).unwrap();
    assert_eq!(written.lines().next(), Some("{\"pgnkit_baseline\":1,\"command\":\"validate\"}"));
    assert_eq!(written.lines().count(), total + 1);

    let (code, stdout, stderr) = pgnkit_run(&["validate", "--baseline", baseline, &db]);
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert!(stderr.contains(&format!("pgnkit: {total} findings in the baseline not reported\n")), "{stderr}");
    assert!(stderr.contains(" 0 invalid, 1 not checked; 0 errors, 0 warnings\n"), "{stderr}");

    // A new bad game above the old ones: only its finding is reported,
    // and it fails the run.
    let db = scratch.write("db.pgn", format!("{BAD}{old}"));
    let (code, stdout, stderr) = pgnkit_run(&["validate", "--baseline", baseline, &db]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        stdout,
        format!("{db}:6:13: error[illegal-move]: no White king can move to e3 (game 1, ply 3: 2. Ke3)\n")
    );
    assert!(stderr.contains(&format!("pgnkit: {total} findings in the baseline not reported\n")), "{stderr}");
    let (code, sarif, _) = pgnkit_run(&["validate", "-q", "--format", "sarif", "--baseline", baseline, &db]);
    assert_eq!(code, 1);
    let log: Value = serde_json::from_str(&sarif).unwrap();
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 1);

    // A baseline of the other command, or no baseline at all, is refused.
    let (code, _, stderr) = pgnkit_run(&["fen", "check", "--baseline", baseline, "8/8/8 w - -"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("a baseline of `pgnkit validate`, not of `pgnkit fen check`"), "{stderr}");
    let (code, _, stderr) = pgnkit_run(&["validate", "--baseline", &db, &db]);
    assert_eq!(code, 2);
    assert!(stderr.contains("not a pgnkit baseline"), "{stderr}");

    // fen check: records are matched by their text, not their line.
    let fens = scratch.write("positions.fen", "4k3/8/8/8/8/8/8/4K3 w - - 0 0\n8/8/8/8 w - -\n");
    let fen_baseline = scratch.join("fen-baseline.jsonl");
    let fen_baseline = fen_baseline.to_str().unwrap();
    let (code, _, stderr) = pgnkit_run(&["fen", "check", "--write-baseline", fen_baseline, &fens]);
    assert_eq!(code, 0, "{stderr}");
    let fens = scratch.write(
        "positions.fen",
        "# new first line\n4k3/8/8/8/8/8/8/8 w - -\n4k3/8/8/8/8/8/8/4K3 w - - 0 0\n8/8/8/8 w - -\n",
    );
    let (code, stdout, stderr) = pgnkit_run(&["fen", "check", "--baseline", fen_baseline, &fens]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(stdout, format!("{fens}:2:1: error[missing-king]: White has no king; each side has exactly one\n"));
}

#[test]
fn a_junit_file_of_many_games_lists_every_game_with_counts_that_add_up() {
    // Past the 4 MiB a suite keeps in memory, so its cases wait in a file.
    let scratch = Scratch::new("junit-big");
    let game = "[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5 *\n\n";
    let db = scratch.write("big.pgn", format!("{}{BAD}", game.repeat(60_000)));
    let out = pgnkit().args(["validate", "-q", "--format", "junit", &db]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let xml = String::from_utf8(out.stdout).unwrap();
    assert!(xml.len() > 6 << 20, "{} bytes", xml.len());
    let head = xml.lines().nth(2).unwrap();
    assert_eq!(head, format!("<testsuite name=\"{db}\" tests=\"60001\" failures=\"1\" errors=\"0\" skipped=\"0\">"));
    assert_eq!(xml.matches("<testcase ").count(), 60_001);
    assert!(xml.ends_with("</testcase>\n</testsuite>\n</testsuites>\n"));
}

#[test]
fn every_ci_format_is_the_same_for_every_thread_count_and_names_stdin() {
    for format in ["github", "sarif", "junit", "gitlab"] {
        let report = |threads: &str| {
            let mut args = vec!["validate", "-q", threads, "--format", format];
            args.extend_from_slice(GAMES);
            pgnkit_run(&args).1
        };
        let one = report("-j1");
        assert!(!one.is_empty(), "{format}");
        assert_eq!(report("-j3"), one, "{format}");
        let out = run(&["validate", "-q", "--format", format, "-"], Some(BAD.as_bytes()));
        let stdin = if format == "sarif" { "%3Cstdin%3E" } else { "<stdin>" };
        let stdin = if format == "junit" { "&lt;stdin&gt;" } else { stdin };
        assert!(out.stdout.contains(stdin), "{format}: {}", out.stdout);
    }
}
