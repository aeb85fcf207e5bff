//! The openings table built in (lichess's chess-openings, CC0): it is the
//! shared copy row for row, and it names games by position by default in
//! `stats`, `filter` and `split`, where `--openings` and `PGNKIT_OPENINGS`
//! still choose another table or the games' own tags; `convert --to pgn`
//! adds tags from it only when asked.

use std::path::PathBuf;

use crate::support::{Scratch, corpus, pgnkit, root, run};

/// Two games without ECO or Opening tags that reach the Najdorf, the
/// second by another move order (1. Nf3 c5 2. e4), and a third whose tags
/// say something the table does not.
const GAMES: &str = "testdata/openings/transposed.pgn";

const NAJDORF: &str = "Sicilian Defense: Najdorf Variation";

/// The group keys and games of `stats --by KEY --format json`.
fn groups(args: &[&str], env: &[(&str, &str)]) -> Vec<(String, u64)> {
    let mut cmd = pgnkit();
    cmd.args(["stats", "-q", "--format", "json"]).args(args).arg(GAMES);
    for (name, value) in env {
        cmd.env(name, value);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = json["groups"]["rows"].as_array().unwrap();
    let mut groups: Vec<(String, u64)> =
        rows.iter().map(|r| (r["key"][0].as_str().unwrap().to_owned(), r["games"].as_u64().unwrap())).collect();
    groups.sort();
    groups
}

fn group(key: &str, games: u64) -> (String, u64) {
    (key.to_owned(), games)
}

#[test]
fn the_built_in_table_is_the_shared_copy_row_for_row() {
    let Some(corpus) = corpus() else { return };
    let dir = corpus.join("eco/chess-openings");
    let mut expected = vec!["eco\tname\tpgn".to_owned()];
    for letter in ["a", "b", "c", "d", "e"] {
        let text = std::fs::read_to_string(dir.join(format!("{letter}.tsv"))).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("eco\tname\tpgn"), "{letter}.tsv");
        expected.extend(lines.map(str::to_owned));
    }
    let built_in = zstd::decode_all(pgnkit::openings::BUILTIN_TABLE).unwrap();
    let built_in: Vec<&str> = std::str::from_utf8(&built_in).unwrap().lines().collect();
    assert_eq!(built_in, expected);
    assert_eq!(pgnkit::openings::Openings::builtin().len(), expected.len() - 1);
    // Its README names the snapshot the shared copy was taken from.
    let sources = std::fs::read_to_string(corpus.join("SOURCES.md")).unwrap();
    let line = sources.lines().find(|l| l.starts_with("| lichess-org/chess-openings |")).unwrap();
    let commit = line.split('`').nth(1).unwrap();
    let readme = std::fs::read_to_string(root().join("data/openings/README.md")).unwrap();
    assert!(readme.contains(commit), "data/openings/README.md does not name {commit}");
}

#[test]
fn the_rebuild_script_gives_the_same_bytes_from_the_shared_copy() {
    let Some(corpus) = corpus() else { return };
    if std::process::Command::new("zstd").arg("--version").output().is_err() {
        crate::support::skip("zstd is not installed (apt-get install zstd)");
        return;
    }
    let dir = Scratch::new("openings-table");
    let out_file = dir.path("table.tsv.zst");
    let out = std::process::Command::new(root().join("scripts/openings_table.sh"))
        .arg(corpus.join("eco/chess-openings"))
        .arg(&out_file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rebuilt = std::fs::read(&out_file).unwrap();
    // Another zstd version may compress otherwise; the rows are checked
    // above whatever the bytes.
    if rebuilt != std::fs::read(root().join("data/openings/chess-openings.tsv.zst")).unwrap() {
        crate::support::skip("this zstd compresses the table to other bytes than the committed file's");
    }
}

#[test]
fn a_game_without_eco_tags_gets_lichess_name_by_position_in_stats_transpositions_too() {
    assert_eq!(
        groups(&["--by", "opening"], &[]),
        [group("Queen's Pawn Game", 1), group(NAJDORF, 2)],
        "both move orders reach the Najdorf"
    );
    assert_eq!(groups(&["--by", "eco"], &[]), [group("B90", 2), group("D00", 1)]);
    // The games' own tags, as before the table was built in.
    assert_eq!(groups(&["--by", "opening", "--openings", "tags"], &[]), [group("?", 2), group("Mine", 1)]);
    assert_eq!(groups(&["--by", "eco"], &[("PGNKIT_OPENINGS", "tags")]), [group("?", 2), group("A00", 1)]);
}

#[test]
fn a_table_file_or_pgnkit_openings_overrides_the_built_in_table_and_builtin_overrides_them() {
    let sample = "testdata/stats/openings.tsv";
    // The sample has no Sicilian and no 1. d4.
    assert_eq!(groups(&["--by", "opening", "--openings", sample], &[]), [group("?", 3)]);
    assert_eq!(groups(&["--by", "opening"], &[("PGNKIT_OPENINGS", sample)]), [group("?", 3)]);
    let built_in = [group("Queen's Pawn Game", 1), group(NAJDORF, 2)];
    assert_eq!(groups(&["--by", "opening", "--openings", "builtin"], &[("PGNKIT_OPENINGS", sample)]), built_in);
    let missing = run(&["stats", "--by", "eco", "--openings", "no/such/table.tsv", GAMES], None);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("openings table no/such/table.tsv"), "{}", missing.stderr);
    // Read only where a key names openings.
    assert_eq!(run(&["stats", "-q", "--by", "white", "--openings", "no/such/table.tsv", GAMES], None).code, 0);
}

#[test]
fn filter_eco_and_opening_name_games_by_position_or_with_openings_tags_by_their_tags() {
    let count = |args: &[&str]| {
        let out = run(&[&["filter", "-q", "--count"][..], args, &[GAMES]].concat(), None);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout.trim().to_owned()
    };
    assert_eq!(count(&["--eco", "B90"]), "2");
    assert_eq!(count(&["--eco", "A00-B99"]), "2");
    assert_eq!(count(&["--opening", "Sicilian Defense"]), "2");
    assert_eq!(count(&["--opening", "sicilian defense: najdorf", "-i"]), "2");
    assert_eq!(count(&["--opening", "Mine"]), "0");
    assert_eq!(count(&["--eco", "A00", "--openings", "tags"]), "1");
    assert_eq!(count(&["--opening", "Mine", "--openings", "tags"]), "1");
    // By tags alone nothing is replayed; by position every game is.
    let summary = |args: &[&str]| run(&[&["filter", "--count"][..], args, &[GAMES]].concat(), None).stderr;
    assert!(summary(&["--eco", "A00", "--openings", "tags"]).contains("; 0 replayed"));
    assert!(summary(&["--eco", "A00"]).contains("; 3 replayed"));
}

#[test]
fn split_by_eco_and_opening_files_games_under_lichess_names() {
    let dir = Scratch::new("openings-split");
    let files = |args: &[&str]| -> Vec<String> {
        let _ = std::fs::remove_dir_all(&dir);
        let out_dir = dir.to_str().unwrap();
        let out = run(&[&["split", "-q", "--out-dir", out_dir][..], args, &[GAMES]].concat(), None);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| {
                let path = e.unwrap().path();
                let games = std::fs::read_to_string(&path).unwrap().matches("[White ").count();
                format!("{} {games}", path.file_name().unwrap().to_str().unwrap())
            })
            .collect();
        names.sort();
        names
    };
    assert_eq!(files(&["--by", "eco"]), ["B90.pgn 2", "D00.pgn 1"]);
    assert_eq!(files(&["--by", "opening"]), ["Queen_s_Pawn_Game.pgn 1", "Sicilian_Defense_Najdorf_Variation.pgn 2"]);
    assert_eq!(files(&["--by", "eco", "--openings", "tags"]), ["A00.pgn 1", "unknown.pgn 2"]);
    // The games are written as read: no tag is added without --normalize.
    files(&["--by", "eco"]);
    assert!(!std::fs::read_to_string(dir.join("B90.pgn")).unwrap().contains("[ECO"));
}

#[test]
fn convert_adds_opening_tags_only_when_asked_and_its_csv_columns_need_no_table_argument() {
    let pgn = |args: &[&str]| {
        let out = run(&[&["convert", "-q", "--to", "pgn"][..], args, &[GAMES]].concat(), None);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    let plain = pgn(&[]);
    assert_eq!(plain.matches("[ECO ").count(), 1, "only the game that has one: {plain}");
    assert_eq!(pgn(&["--openings", "tags"]), plain);
    let named = pgn(&["--openings", "builtin"]);
    assert_eq!(named.matches(&format!("[Opening \"{NAJDORF}\"]")).count(), 2, "{named}");
    assert_eq!(named.matches("[ECO \"B90\"]").count(), 2, "{named}");
    // The table's name replaces the game's own.
    assert!(named.contains("[ECO \"D00\"]") && !named.contains("Mine"), "{named}");
    // Added where convert writes tags: the rest is the same.
    let without = |text: &str| text.lines().filter(|l| !l.starts_with("[ECO") && !l.starts_with("[Opening")).count();
    assert_eq!(without(&named), without(&plain));

    let csv = run(&["convert", "-q", "--to", "csv", "--columns", "White,opening_eco,opening_name", GAMES], None);
    assert_eq!(
        csv.stdout,
        format!("White,opening_eco,opening_name\nA,B90,{NAJDORF}\nB,B90,{NAJDORF}\nC,D00,Queen's Pawn Game\n")
    );
    let refused = run(&["convert", "--to", "csv", "--columns", "opening_eco", "--openings", "tags", GAMES], None);
    assert_eq!(refused.code, 2);
    assert!(refused.stderr.contains("the columns ECO and Opening"), "{}", refused.stderr);
}

#[test]
fn normalize_writes_the_tables_names_and_openings_alone_still_needs_a_use() {
    let out = run(&["filter", "-q", "--normalize", "--openings", "builtin", "--eco", "B9", GAMES], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.matches(&format!("[Opening \"{NAJDORF}\"]")).count(), 2, "{}", out.stdout);
    // The criterion uses the table: no --normalize needed, nothing added.
    let out = run(&["filter", "-q", "--openings", "builtin", "--eco", "B9", GAMES], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stdout.contains("[Opening"), "{}", out.stdout);
    // --normalize alone keeps the games' tags.
    let out = run(&["filter", "-q", "--normalize", "--eco", "B9", GAMES], None);
    assert!(!out.stdout.contains("[Opening"), "{}", out.stdout);
    for command in [&["filter"][..], &["dedup"], &["split", "--games", "5", "--out-dir", "unused"]] {
        let out = run(&[command, &["--openings", "builtin", GAMES]].concat(), None);
        assert_eq!(out.code, 2, "{command:?}");
        assert!(out.stderr.contains("it needs --normalize"), "{command:?}: {}", out.stderr);
    }
    assert!(!PathBuf::from("unused").exists());
}
