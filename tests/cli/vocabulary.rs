//! One vocabulary across all outputs (docs/vocabulary.md): the same name
//! for the same thing in every command and format, and no CSV header that
//! a case-blind reader (DuckDB, Spark) would have to rename.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::support::{json_lines, run};

const GAMES: &str = "testdata/dedup/copies.pgn";
const ROUND_ROBIN: &str = "testdata/ratings/round-robin.pgn";

/// The header row of a CSV output.
fn header(args: &[&str]) -> Vec<String> {
    header_with_input(args, None)
}

fn header_with_input(args: &[&str], stdin: Option<&[u8]>) -> Vec<String> {
    let out = run(args, stdin);
    assert!(out.code <= 1, "{args:?}: {}", out.stderr);
    let mut reader = csv::Reader::from_reader(out.stdout.as_bytes());
    reader.headers().unwrap_or_else(|e| panic!("{args:?}: {e}")).iter().map(str::to_owned).collect()
}

/// A command's arguments, its stdin, and how many `--by` key columns its
/// CSV starts with (named after the keys, not snake_case).
type CsvCommand<'a> = (Vec<&'a str>, Option<&'a [u8]>, usize);

/// Every CSV that pgnkit writes, by the command that writes it, with the
/// number of `--by` key columns it starts with.
fn every_csv_header() -> Vec<(String, Vec<String>, usize)> {
    let partial = run(&["stats", "-q", "--format", "json", "--by", "result", GAMES], None).stdout;
    let all_facts = "file,game,game_line,plies,board_termination,valid,checked,final_fen,san,uci,White,Termination";
    let commands: Vec<CsvCommand<'_>> = vec![
        (vec!["validate", "-q", "--format", "csv", "testdata/invalid/illegal-move-pinned-knight.pgn"], None, 0),
        (vec!["fen", "check", "-q", "--format", "csv", "testdata/fen/opposite-check.fen"], None, 0),
        (vec!["stats", "-q", "--format", "csv", GAMES], None, 0),
        (vec!["stats", "-q", "--format", "csv", "--by", "result", "--by", "termination", GAMES], None, 2),
        (vec!["stats", "-q", "--format", "csv", "--by", "player", "--by", "time-control", GAMES], None, 2),
        (vec!["stats", "merge", "--format", "csv", "-"], Some(partial.as_bytes()), 1),
        (vec!["convert", "-q", "--to", "csv", GAMES], None, 0),
        (vec!["convert", "-q", "--to", "csv", "--columns", all_facts, GAMES], None, 0),
        (vec!["dedup", "-q", "--list", "--format", "csv", GAMES], None, 0),
        (vec!["ratings", "-q", "--format", "csv", ROUND_ROBIN], None, 0),
        (vec!["ratings", "-q", "--scheme", "club", "--format", "csv", ROUND_ROBIN], None, 0),
        (vec!["ratings", "-q", "--scheme", "ml", "--format", "csv", ROUND_ROBIN], None, 0),
        (vec!["ratings", "-q", "--history", "--format", "csv", ROUND_ROBIN], None, 0),
        (vec!["ratings", "-q", "--scheme", "club", "--history", "--format", "csv", ROUND_ROBIN], None, 0),
    ];
    commands.iter().map(|(args, stdin, keys)| (args.join(" "), header_with_input(args, *stdin), *keys)).collect()
}

#[test]
fn no_csv_header_of_any_command_has_two_columns_that_differ_only_by_case() {
    for (command, header, _) in every_csv_header() {
        let mut seen = BTreeMap::new();
        for column in &header {
            if let Some(other) = seen.insert(column.to_lowercase(), column) {
                panic!("`{command}`: `{other}` and `{column}` differ only by case: {header:?}");
            }
        }
    }
}

#[test]
fn every_column_pgnkit_names_itself_is_snake_case() {
    // Tag columns keep the tag's name, and `--by` key columns the key's.
    let tag = |column: &str| column.starts_with(|c: char| c.is_ascii_uppercase());
    for (command, header, keys) in every_csv_header() {
        for column in header.iter().skip(keys).filter(|c| !tag(c)) {
            let snake = column.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            assert!(snake, "`{command}`: `{column}` is not snake_case");
        }
    }
}

#[test]
fn validate_and_fen_check_write_findings_as_one_diagnostics_list_with_the_same_keys_in_order() {
    let validate = run(&["validate", "--format", "jsonl", "testdata/invalid/illegal-move-pinned-knight.pgn"], None);
    let fen = run(&["fen", "check", "--format", "jsonl", "testdata/fen/opposite-check.fen"], None);
    let keys = |record: &Value| -> Vec<Vec<String>> {
        for old in ["errors", "warnings"] {
            assert_eq!(record[old], Value::Null, "no `{old}` beside `diagnostics`: {record}");
        }
        let findings = record["diagnostics"].as_array().unwrap_or_else(|| panic!("no diagnostics list: {record}"));
        findings.iter().map(|f| f.as_object().unwrap().keys().cloned().collect()).collect()
    };
    let game = keys(&json_lines(&validate.stdout)[0]);
    let record = keys(&json_lines(&fen.stdout)[0]);
    assert!(!game.is_empty() && !record.is_empty(), "both fixtures have findings");
    assert_eq!(game[0], ["severity", "code", "line", "column", "ply", "san", "fen", "message", "reason"]);
    assert!(game.iter().chain(&record).all(|k| *k == game[0]), "validate {game:?}, fen check {record:?}");
    // A record's findings are on its line.
    let record = &json_lines(&fen.stdout)[0];
    assert_eq!(record["diagnostics"][0]["line"], record["line"]);
}

#[test]
fn the_first_line_of_a_game_is_game_line_with_one_value_in_every_command_and_format() {
    let validate: Vec<Value> = json_lines(&run(&["validate", "-q", "--format", "jsonl", GAMES], None).stdout)
        .iter()
        .map(|g| g["game_line"].clone())
        .collect();
    let convert: Vec<Value> = json_lines(&run(&["convert", "-q", "--to", "jsonl", GAMES], None).stdout)
        .iter()
        .map(|g| g["game_line"].clone())
        .collect();
    let csv = run(&["convert", "-q", "--to", "csv", "--columns", "game_line", GAMES], None).stdout;
    let csv: Vec<Value> = csv.lines().skip(1).map(|l| l.parse::<u64>().unwrap().into()).collect();
    assert!(validate.iter().all(Value::is_u64) && validate.len() == 7, "{validate:?}");
    assert_eq!((&convert, &csv), (&validate, &validate));
    let clusters = json_lines(&run(&["dedup", "-q", "--list", "--format", "jsonl", GAMES], None).stdout);
    for copy in clusters.iter().flat_map(|c| c["copies"].as_array().unwrap()) {
        let game = copy["game"].as_u64().unwrap() as usize;
        assert_eq!(copy["game_line"], validate[game - 1], "{copy}");
    }
}

#[test]
fn the_rule_that_ends_a_game_is_board_termination_in_validate_and_convert() {
    let file = "testdata/valid/famous-games.pgn";
    let validate: Vec<Value> = json_lines(&run(&["validate", "-q", "--format", "jsonl", file], None).stdout)
        .iter()
        .map(|g| g["board_termination"].clone())
        .collect();
    let convert: Vec<Value> = json_lines(&run(&["convert", "-q", "--to", "jsonl", file], None).stdout)
        .iter()
        .map(|g| g["board_termination"].clone())
        .collect();
    let csv = run(&["convert", "-q", "--to", "csv", "--columns", "board_termination", file], None).stdout;
    let csv: Vec<Value> =
        csv.lines().skip(1).map(|l| if l.is_empty() { Value::Null } else { l.to_owned().into() }).collect();
    assert!(validate.contains(&"checkmate".into()), "{validate:?}");
    assert_eq!((&convert, &csv), (&validate, &validate));
}

#[test]
fn the_opponents_mean_elo_is_avg_opponent_elo_in_stats_and_ratings_and_club_points_say_so() {
    let stats = header(&["stats", "-q", "--format", "csv", "--by", "player", ROUND_ROBIN]);
    let elo = header(&["ratings", "-q", "--format", "csv", ROUND_ROBIN]);
    let ml = header(&["ratings", "-q", "--scheme", "ml", "--format", "csv", ROUND_ROBIN]);
    let club = header(&["ratings", "-q", "--scheme", "club", "--format", "csv", ROUND_ROBIN]);
    for header in [&stats, &elo, &ml] {
        assert!(header.iter().any(|c| c == "avg_opponent_elo"), "{header:?}");
    }
    assert!(club.iter().any(|c| c == "avg_opponent_points") && !club.iter().any(|c| c == "avg_opponent_elo"));
    for header in [&stats, &elo, &ml, &club] {
        assert!(!header.iter().any(|c| c == "avg_opponent"), "the old name is not written: {header:?}");
    }
}

#[test]
fn every_share_in_percent_is_named_pct_and_scaled_0_to_100() {
    let json: Value =
        serde_json::from_str(&run(&["stats", "-q", "--format", "json", "--by", "player", ROUND_ROBIN], None).stdout)
            .unwrap();
    let ratings = json_lines(&run(&["ratings", "-q", "--format", "jsonl", ROUND_ROBIN], None).stdout);
    let mut shares = vec![json["white_score_pct"].as_f64().unwrap()];
    shares.extend(json["groups"]["rows"].as_array().unwrap().iter().filter_map(|r| r["score_pct"].as_f64()));
    shares.extend(ratings.iter().map(|r| r["score_pct"].as_f64().unwrap()));
    assert!(shares.iter().all(|s| (0.0..=100.0).contains(s)), "{shares:?}");
    // Out of a fraction's range somewhere, so not a fraction by chance.
    assert!(shares.iter().any(|&s| s > 1.0), "{shares:?}");
    assert_eq!(json["white_score"], Value::Null);
}
