//! `pgnkit stats` and `stats merge`.

use crate::support::{Scratch, corpus, json_lines, run};

fn stats_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["stats", "-q", "--format", "json"];
    all.extend_from_slice(args);
    let out = run(&all, None);
    assert!(out.code <= 1, "{}", out.stderr);
    serde_json::from_str(&out.stdout).expect("one JSON object")
}

#[test]
fn the_summary_counts_results_terminations_and_lengths_of_the_fixture_games() {
    let json = stats_json(&["testdata/valid/famous-games.pgn"]);
    assert_eq!(json["games"], 8);
    assert_eq!(json["valid_games"], 8);
    assert_eq!(json["plies"], 33 + 45 + 47 + 82 + 87 + 37 + 13 + 13);
    assert_eq!(json["results"]["1-0"], 7);
    assert_eq!(json["results"]["0-1"], 1);
    assert_eq!(json["terminations"]["checkmate"], 5);
    assert_eq!(json["length"]["max"], 87);
    assert_eq!(json["promotions"]["rook"], 1);
    assert_eq!(json["promotions"]["underpromotions"], 1);
}

#[test]
fn invalid_games_are_counted_by_finding_and_fail_the_run() {
    let out = run(&["stats", "--format", "json", "testdata/invalid/illegal-move-pinned-knight.pgn"], None);
    assert_eq!(out.code, 1);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["invalid_games"], 1);
    assert_eq!(json["diagnostics"]["illegal-move"], 1);
    assert!(out.stderr.contains("pgnkit: read 1 game in 1 input: 0 valid, 1 invalid"), "{}", out.stderr);
}

#[test]
fn a_game_that_could_not_be_replayed_is_counted_apart_from_the_valid_and_invalid_ones() {
    let out = run(
        &[
            "stats",
            "--format",
            "json",
            "testdata/invalid/unsupported-variant.pgn",
            "testdata/invalid/invalid-fen-tag.pgn",
        ],
        None,
    );
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let counts = [&json["games"], &json["valid_games"], &json["invalid_games"], &json["unchecked_games"]];
    assert_eq!(counts.map(|c| c.as_u64()), [Some(3), Some(1), Some(1), Some(1)]);
    assert!(
        out.stderr
            .ends_with("pgnkit: read 3 games in 2 inputs: 1 valid, 1 invalid, 1 not checked; 1 error, 1 warning\n"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_output_is_the_same_for_every_thread_count_and_format_text_and_csv_agree() {
    let files =
        ["testdata/valid/famous-games.pgn", "testdata/valid/chess960.pgn", "testdata/valid/perpetual-check.pgn"];
    let mut args = vec!["-j1"];
    args.extend(files);
    let one = stats_json(&args);
    args[0] = "-j2";
    assert_eq!(stats_json(&args), one);
    let mut csv_args = vec!["stats", "-q", "--format", "csv"];
    csv_args.extend(files);
    let csv = run(&csv_args, None).stdout;
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let games = rows.iter().find(|r| &r[0] == "games").unwrap();
    assert_eq!(games[1], one["games"].to_string());
    let checkmates = rows.iter().find(|r| &r[0] == "terminations.checkmate").unwrap();
    assert_eq!(checkmates[1], one["terminations"]["checkmate"].to_string());
}

#[test]
fn merging_the_partials_of_two_halves_gives_the_stats_of_the_whole() {
    let Some(corpus) = corpus() else { return };
    let file = corpus.join("pgn/shakmaty/twic1599_1000k.pgn");
    let path = file.to_str().unwrap();
    let whole = run(&["stats", "-q", "--format", "json", path], None).stdout;
    // Cut between two games, where pgnkit says the middle game starts.
    let games = json_lines(&run(&["convert", "-q", "--to", "jsonl", path], None).stdout);
    let middle = games[games.len() / 2]["game_line"].as_u64().unwrap() as usize;
    let text = std::fs::read(&file).unwrap();
    let cut = text.split_inclusive(|&b| b == b'\n').take(middle - 1).map(<[u8]>::len).sum::<usize>();
    let halves = [&text[..cut], &text[cut..]];
    let partials: Vec<String> =
        halves.iter().map(|half| run(&["stats", "-q", "--format", "json", "-"], Some(half)).stdout).collect();
    assert_ne!(partials[0], whole);
    let merged = run(&["stats", "merge", "-"], Some(partials.concat().as_bytes()));
    assert_eq!(merged.stdout, whole);
    assert_eq!(merged.code, 0);
}

#[test]
fn merge_refuses_what_is_not_a_stats_partial() {
    let out = run(&["stats", "merge", "-"], Some(b"{\"games\": 3}\n"));
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("not a stats partial"), "{}", out.stderr);
    let out = run(&["stats", "merge", "testdata/valid/opera-game.pgn"], None);
    assert_eq!(out.code, 2);
}

#[test]
fn white_score_is_written_as_white_score_pct_in_percent_in_every_format() {
    // Famous games: seven won by White, one by Black.
    let json = stats_json(&["testdata/valid/famous-games.pgn"]);
    assert_eq!(json["white_score_pct"], 87.5);
    assert_eq!(json["white_score"], serde_json::Value::Null, "the old name is not written beside it");
    for format in ["csv", "text"] {
        let out = run(&["stats", "-q", "--format", format, "testdata/valid/famous-games.pgn"], None).stdout;
        let line = out.lines().find(|l| l.starts_with("white_score")).unwrap_or_else(|| panic!("{format}: {out}"));
        let (key, value) = line.split_once([',', ' ']).unwrap();
        assert_eq!((key, value.trim()), ("white_score_pct", "87.5"), "{format}");
    }
}

#[test]
fn merge_reads_a_version_1_partial_with_the_old_white_score_as_the_same_counts() {
    let now =
        run(&["stats", "-q", "--format", "json", "--by", "player", "testdata/valid/famous-games.pgn"], None).stdout;
    // What pgnkit wrote before the rename: version 1, `white_score` a
    // fraction.
    let mut old: serde_json::Value = serde_json::from_str(&now).unwrap();
    let object = old.as_object_mut().unwrap();
    object.remove("white_score_pct");
    object.insert("white_score".to_owned(), 0.875.into());
    object.insert("version".to_owned(), 1.into());
    let old = format!("{old}\n");
    let merged_old = run(&["stats", "merge", "-"], Some(old.as_bytes()));
    assert_eq!(merged_old.code, 0, "{}", merged_old.stderr);
    assert_eq!(merged_old.stdout, run(&["stats", "merge", "-"], Some(now.as_bytes())).stdout);
    assert_eq!(merged_old.stdout, now, "the merge writes version 2");
}

#[test]
fn stats_and_merge_take_jsonl_as_another_name_for_json() {
    let args = |format: &'static str| ["stats", "-q", "--format", format, "testdata/valid/famous-games.pgn"];
    let json = run(&args("json"), None);
    let jsonl = run(&args("jsonl"), None);
    assert_eq!((jsonl.code, &jsonl.stdout), (0, &json.stdout));
    assert_eq!(json.stdout.lines().count(), 1, "one object on one line: JSON Lines as well");
    let merged = run(&["stats", "merge", "--format", "jsonl", "-"], Some(json.stdout.as_bytes()));
    assert_eq!((merged.code, merged.stdout), (0, json.stdout));
}

/// A partial of `games` unfinished games of no moves, each counted where
/// such a game is: consistent however big `games` is.
fn empty_games_partial(games: u64) -> serde_json::Value {
    let mut json: serde_json::Value =
        serde_json::from_str(&run(&["stats", "-q", "--format", "json", "-"], Some(b"[Event \"x\"]\n\n*\n")).stdout)
            .unwrap();
    for path in [
        "/games",
        "/valid_games",
        "/results/*",
        "/terminations/none",
        "/length/by_plies/0",
        "/castling/white/none",
        "/castling/black/none",
    ] {
        *json.pointer_mut(path).unwrap() = games.into();
    }
    json
}

#[test]
fn merge_refuses_a_partial_whose_counts_do_not_add_up_or_whose_sum_overflows_naming_the_file() {
    let dir = Scratch::new("stats-merge");
    let good: serde_json::Value = serde_json::from_str(
        &run(&["stats", "-q", "--format", "json", "testdata/valid/famous-games.pgn"], None).stdout,
    )
    .unwrap();
    assert_eq!(good["version"], 2);
    let edited = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut json = good.clone();
        edit(&mut json);
        json
    };
    let cases: Vec<(serde_json::Value, &str)> = vec![
        // Wrapped around to a small number before the check.
        (edited(&|j| j["games"] = u64::MAX.into()), "add up to 8, not to games 18446744073709551615"),
        (edited(&|j| j["invalid_games"] = 1.into()), "is not games 8"),
        (edited(&|j| j["results"]["1-0"] = 0.into()), "the results add up to"),
        (edited(&|j| j["plies"] = 1.into()), "not to plies 1"),
        (edited(&|j| j["checks"] = 10_000.into()), "checks 10000 is more than plies"),
        (
            edited(&|j| j["elo"]["white"] = serde_json::json!({"games": 9, "sum": 18_000, "mean": 2000.0})),
            "elo.white.games 9 is more than games 8",
        ),
        (edited(&|j| j["version"] = 3.into()), "its version 3 is not one this pgnkit reads (1, 2)"),
        (edited(&|j| drop(j.as_object_mut().unwrap().remove("version"))), "it has no `version`"),
    ];
    for (i, (json, message)) in cases.iter().enumerate() {
        let path = dir.join(format!("bad-{i}.json"));
        std::fs::write(&path, json.to_string()).unwrap();
        let out = run(&["stats", "merge", path.to_str().unwrap()], None);
        assert_eq!(out.code, 2, "{message}: {}", out.stderr);
        assert!(out.stdout.is_empty());
        let named = format!("pgnkit: error: {}: not a stats partial: ", path.display());
        assert!(out.stderr.starts_with(&named) && out.stderr.contains(message), "{message}: {}", out.stderr);
    }
    // Each consistent, but together more games than 64 bits count.
    let big = dir.join("big.json");
    std::fs::write(&big, empty_games_partial(1 << 63).to_string()).unwrap();
    let big = big.to_str().unwrap();
    let once = run(&["stats", "merge", big], None);
    assert_eq!(once.code, 0, "{}", once.stderr);
    let twice = run(&["stats", "merge", big, big], None);
    assert_eq!(twice.code, 2);
    assert_eq!(
        twice.stderr,
        format!(
            "pgnkit: error: {big}: cannot be merged with the others: a count is too big to add up (more than 2^64 - 1)\n"
        )
    );
}

#[test]
fn groups_by_player_count_both_sides_and_csv_has_a_row_per_group() {
    let json = stats_json(&["--by", "player", "testdata/valid/famous-games.pgn"]);
    let rows = json["groups"]["rows"].as_array().unwrap();
    let anderssen = rows.iter().find(|r| r["key"][0] == "Anderssen, Adolf").unwrap();
    assert_eq!((anderssen["games"].as_u64(), anderssen["wins"].as_u64()), (Some(2), Some(2)));
    let games: u64 = rows.iter().map(|r| r["games"].as_u64().unwrap()).sum();
    assert_eq!(games, 16, "each game counts for both players");
    let csv = run(
        &["stats", "-q", "--by", "result", "--by", "termination", "--format", "csv", "testdata/valid/famous-games.pgn"],
        None,
    );
    let mut lines = csv.stdout.lines();
    assert!(lines.next().unwrap().starts_with("result,termination,games,wins,draws,losses,score_pct"));
    assert_eq!(lines.next().unwrap().split(',').take(3).collect::<Vec<_>>(), ["1-0", "checkmate", "4"]);
}

#[test]
fn grouped_partials_merge_and_cut_ones_are_refused() {
    let files = ["testdata/valid/famous-games.pgn", "testdata/valid/opera-game.pgn"];
    let whole = run(&["stats", "-q", "--format", "json", "--by", "white", files[0], files[1]], None).stdout;
    let parts: Vec<String> =
        files.iter().map(|f| run(&["stats", "-q", "--format", "json", "--by", "white", f], None).stdout).collect();
    assert_eq!(run(&["stats", "merge", "-"], Some(parts.concat().as_bytes())).stdout, whole);
    let cut = run(&["stats", "-q", "--format", "json", "--by", "white", "--top", "1", files[0]], None).stdout;
    let refused = run(&["stats", "merge", "-"], Some(cut.as_bytes()));
    assert_eq!(refused.code, 2);
    assert!(refused.stderr.contains("filtered"), "{}", refused.stderr);
    let other = run(&["stats", "-q", "--format", "json", "--by", "black", files[1]], None).stdout;
    let mixed = run(&["stats", "merge", "-"], Some(format!("{}{other}", parts[0]).as_bytes()));
    assert_eq!(mixed.code, 2);
}

/// A small table in the chess-openings layout, written for these tests.
fn openings_table() -> Scratch {
    let dir = Scratch::new("openings");
    let table =
        "eco\tname\tpgn\nC41\tPhilidor Defense\t1. e4 e5 2. Nf3 d6\nC40\tKing's Knight Opening\t1. e4 e5 2. Nf3\n";
    std::fs::write(dir.join("a.tsv"), table).unwrap();
    dir
}

#[test]
fn openings_come_from_a_table_by_position_for_groups_and_csv_columns() {
    let table = openings_table();
    let table = table.to_str().unwrap();
    let json = stats_json(&["--by", "opening", "--openings", table, "testdata/valid/opera-game.pgn"]);
    assert_eq!(json["groups"]["rows"][0]["key"][0], "Philidor Defense");
    let csv = run(
        &[
            "convert",
            "-q",
            "--to",
            "csv",
            "--columns",
            "game,opening_eco,opening_name",
            "--openings",
            table,
            "testdata/valid/opera-game.pgn",
        ],
        None,
    );
    assert_eq!(csv.stdout, "game,opening_eco,opening_name\n1,C41,Philidor Defense\n");
}

#[test]
fn the_lichess_openings_table_names_the_corpus_games_like_their_eco_tags() {
    let Some(corpus) = corpus() else { return };
    let table = corpus.join("eco/chess-openings");
    let file = corpus.join("pgn/shakmaty/lichess_db_1000k.pgn");
    let out = run(
        &[
            "convert",
            "-q",
            "--to",
            "csv",
            "--columns",
            "ECO,opening_eco",
            "--openings",
            table.to_str().unwrap(),
            file.to_str().unwrap(),
        ],
        None,
    );
    let rows: Vec<&str> = out.stdout.lines().skip(1).collect();
    assert!(rows.len() > 400);
    let same = rows.iter().filter(|r| r.split_once(',').is_some_and(|(a, b)| a == b)).count();
    // Lichess tags its games from the same table.
    assert!(same * 100 >= rows.len() * 95, "{same} of {}", rows.len());
}

#[test]
fn results_are_counted_by_the_games_result_a_result_tag_that_is_not_one_left_for_the_marker() {
    let json = stats_json(&["testdata/invalid/result-tag-not-a-result.pgn"]);
    assert_eq!(json["results"], serde_json::json!({"1-0": 1, "0-1": 0, "1/2-1/2": 0, "*": 1}));
}

#[test]
fn daily_time_controls_are_correspondence_and_fide_periods_classical() {
    let stats = stats_json(&["--by", "time-control", "testdata/stats/daily-and-fide-time-controls.pgn"]);
    let rows = stats["groups"]["rows"].as_array().unwrap();
    let speeds: Vec<&str> = rows.iter().map(|r| r["key"][0].as_str().unwrap()).collect();
    assert_eq!(speeds, ["classical", "correspondence"], "{stats}");
}

/// The display column (CJK characters take two) where the column after the
/// cell `first` starts on `line`: for checking that text tables line up.
pub fn next_column(line: &str, first: &str) -> usize {
    let end = line.find(first).unwrap_or_else(|| panic!("`{first}` not in `{line}`")) + first.len();
    let rest = &line[end..];
    pgnkit::text::display_width(&line[..end + rest.len() - rest.trim_start().len()])
}

#[test]
fn text_tables_escape_control_characters_and_align_wide_names() {
    let out = run(&["stats", "-q", "--by", "player", "testdata/stats/wide-and-control-character-names.pgn"], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", out.stdout);
    // The games column starts at one display column on every row, and the
    // escape sequence is shown, not sent to the terminal.
    let games = next_column(lines[0], "player");
    for (line, name) in lines[1..].iter().zip(["王皓", "A\\u{1b}[31mred", "Carlsen, Magnus"]) {
        assert_eq!(next_column(line, name), games, "{}", out.stdout);
    }
    assert!(!out.stdout.contains('\x1b'), "{}", out.stdout);
}

/// The grouped tables written row by row as they are formatted, byte for
/// byte as pgnkit wrote them when it held the whole table first.
#[test]
fn grouped_text_and_csv_tables_are_byte_for_byte_those_of_the_whole_table_held() {
    let text = run(&["stats", "-q", "--by", "player", "testdata/stats/wide-and-control-character-names.pgn"], None);
    assert_eq!(
        text.stdout,
        r#"player           games  wins  draws  losses  score_pct  mean_plies  avg_opponent_elo  performance  checkmate  stalemate  insufficient_material  seventyfive_moves  fivefold_repetition  fifty_moves  threefold_repetition  none
王皓             4      2     2      0       75         6.75                                       2          0          0                      0                  0                    0            2                     0
A\u{1b}[31mred   3      0     2      1       33.33      6.67                                       1          0          0                      0                  0                    0            2                     0
Carlsen, Magnus  3      0     2      1       33.33      7.67                                       1          0          0                      0                  0                    0            2                     0
"#
    );
    let args = ["--by", "event", "--by", "player", "--top", "3", "--sort", "score", "--format", "csv"];
    let csv = run(&[&["stats", "-q"][..], &args, &["testdata/valid/famous-games.pgn"]].concat(), None);
    assert_eq!(
        csv.stdout,
        r#"event,player,games,wins,draws,losses,score_pct,mean_plies,avg_opponent_elo,performance,checkmate,stalemate,insufficient_material,seventyfive_moves,fivefold_repetition,fifty_moves,threefold_repetition,none
Berlin casual game,"Anderssen, Adolf",1,1,0,0,100,47,,,1,0,0,0,0,0,0,0
Hoogovens Group A,"Kasparov, Garry",1,1,0,0,100,87,,,0,0,0,0,0,0,0,1
IBM Man-Machine,Deep Blue,1,1,0,0,100,37,,,0,0,0,0,0,0,0,1
"#
    );
}
