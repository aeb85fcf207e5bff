//! `pgnkit convert`: every output format, the options, invalid games, and
//! round trips.

use crate::support::{Scratch, corpus, files_with_extension, json_lines, root, run};

fn convert(args: &[&str]) -> crate::support::Run {
    let mut all = vec!["convert"];
    all.extend_from_slice(args);
    run(&all, None)
}

#[test]
fn pgn_export_of_an_annotated_game_matches_the_normalized_fixture() {
    let out = convert(&["--to", "pgn", "testdata/convert/annotated-game.pgn"]);
    let expected = std::fs::read_to_string(root().join("testdata/convert/annotated-game-normalized.pgn")).unwrap();
    assert_eq!(out.stdout, expected);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn pgn_export_keeps_tags_moves_comments_nags_and_variations_and_is_idempotent() {
    let mut files = files_with_extension(&root().join("testdata"), "pgn");
    files.retain(|f| !f.to_str().unwrap().contains("compressed"));
    for file in files {
        let path = file.to_str().unwrap();
        check_round_trip(path);
    }
}

/// Converts `path` to PGN, reads that again: same games, tags, moves,
/// comments and NAGs; converting a second time changes nothing.
fn check_round_trip(path: &str) {
    let first = convert(&["-q", "--to", "pgn", path]);
    assert!(first.code <= 1, "{path}: {}", first.stderr);
    let second = run(&["convert", "-q", "--to", "pgn", "-"], Some(first.stdout.as_bytes()));
    assert_eq!(second.stdout, first.stdout, "{path}: converting twice changes the output");
    let before = json_lines(&convert(&["-q", "--to", "jsonl", path]).stdout);
    let after = json_lines(&run(&["convert", "-q", "--to", "jsonl", "-"], Some(first.stdout.as_bytes())).stdout);
    assert_eq!(before.len(), after.len(), "{path}: game count");
    for (i, (a, b)) in before.iter().zip(&after).enumerate() {
        for key in ["san", "uci", "comments", "nags"] {
            assert_eq!(a[key], b[key], "{path}: game {} {key}", i + 1);
        }
        for (name, value) in a["tags"].as_object().unwrap() {
            if name != "Result" {
                assert_eq!(&b["tags"][name], value, "{path}: game {} tag {name}", i + 1);
            }
        }
    }
}

#[test]
fn a_converted_game_replays_from_the_last_fen_and_variant_tags_as_validate_replayed_it() {
    // Legal from the second FEN only; the first Variant tag is not chess.
    let pgn = "[Variant \"Atomic\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n[Variant \"chess\"]\n\
               [FEN \"4k3/8/8/8/8/8/8/R3K3 w Q - 0 1\"]\n\n1. O-O-O Kf7 *\n";
    let checked = run(&["validate", "-"], Some(pgn.as_bytes()));
    assert_eq!(checked.code, 0, "{}", checked.stderr);
    let converted = run(&["convert", "-q", "--to", "pgn", "-"], Some(pgn.as_bytes()));
    assert!(converted.stdout.contains("[FEN \"4k3/8/8/8/8/8/8/R3K3 w Q - 0 1\"]\n[Variant \"chess\"]\n"));
    assert!(!converted.stdout.contains("Atomic") && !converted.stdout.contains("4K2R"), "{}", converted.stdout);
    let again = run(&["validate", "-"], Some(converted.stdout.as_bytes()));
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stderr.contains("1 valid"), "{}", again.stderr);
}

#[test]
fn every_writer_takes_the_last_of_a_tag_given_twice_as_validate_does() {
    let pgn = "[White \"first\"]\n[Black \"b\"]\n[White \"last\"]\n\n1. e4 *\n";
    let checked = run(&["validate", "--format", "jsonl", "-"], Some(pgn.as_bytes()));
    assert_eq!(json_lines(&checked.stdout)[0]["white"], "last");
    let converted = run(&["convert", "-q", "--to", "pgn", "-"], Some(pgn.as_bytes()));
    assert!(converted.stdout.contains("[White \"last\"]\n") && !converted.stdout.contains("first"));
    let jsonl = run(&["convert", "-q", "--to", "jsonl", "-"], Some(pgn.as_bytes()));
    assert_eq!(json_lines(&jsonl.stdout)[0]["tags"]["White"], "last");
    let csv = run(&["convert", "-q", "--to", "csv", "-"], Some(pgn.as_bytes()));
    assert!(csv.stdout.contains(",,last,b,,"), "{}", csv.stdout);
    let filtered = run(&["filter", "-q", "--white", "last", "-"], Some(pgn.as_bytes()));
    assert!(filtered.stdout.starts_with(pgn), "{}", filtered.stdout);
}

#[test]
fn a_single_byte_variant_tag_is_one_variant_to_validate_stats_and_a_converted_copy() {
    // `\xe9` is `é` in Latin-1: a letter, so another variant. Read as
    // UTF-8 by the checker alone, it was lost, and the game standard chess.
    // `\x9a` is `š` in Windows-1252 (a C1 control, no letter, in Latin-1).
    for (byte, letter) in [(0xe9, "\u{e9}"), (0x9a, "\u{161}")] {
        let pgn = [&b"[Event \"e\"]\n[Variant \""[..], &[byte], b"\"]\n\n1. e4 e5 *\n"].concat();
        let pgn = pgn.as_slice();
        let checked = run(&["validate", "-"], Some(pgn));
        assert!(
            checked.stdout.contains(&format!("warning[unsupported-variant]: variant `{letter}` is not standard chess")),
            "{}",
            checked.stdout
        );
        let stats = run(&["stats", "-q", "--by", "variant", "--format", "csv", "-"], Some(pgn));
        assert!(stats.stdout.contains(&format!("\n{letter},1,")), "{}", stats.stdout);
        let converted = run(&["convert", "-q", "--to", "pgn", "-"], Some(pgn));
        assert!(converted.stdout.contains(&format!("[Variant \"{letter}\"]\n")), "{}", converted.stdout);
        let again = run(&["validate", "-"], Some(converted.stdout.as_bytes()));
        assert!(
            again.stdout.contains(&format!("warning[unsupported-variant]: variant `{letter}`")),
            "{}",
            again.stdout
        );
        let filtered = run(&["filter", "-q", "--normalize", "--variant", letter, "-"], Some(pgn));
        assert!(filtered.stdout.contains(&format!("[Variant \"{letter}\"]\n")), "{}", filtered.stdout);
    }
}

#[test]
fn every_corpus_pgn_file_round_trips_through_pgn_export() {
    let Some(corpus) = corpus() else { return };
    let files = files_with_extension(&corpus.join("pgn"), "pgn");
    assert!(files.len() > 100);
    for file in files {
        check_round_trip(file.to_str().unwrap());
    }
}

#[test]
fn pgn_options_strip_comments_variations_nags_clocks_and_tags() {
    let file = "testdata/convert/annotated-game.pgn";
    let bare = convert(&["--to", "pgn", "--no-comments", "--no-variations", "--no-nags", "--keep-tags", "ECO", file]);
    assert!(!bare.stdout.contains(['{', '(', '$']), "{}", bare.stdout);
    assert!(bare.stdout.contains("[ECO \"C41\"]\n") && !bare.stdout.contains("Annotator"));
    assert!(bare.stdout.contains("\n\n1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5"), "{}", bare.stdout);
    let clocks = convert(&["--to", "pgn", "--no-clock", "testdata/convert/clock-comments.pgn"]);
    assert!(clocks.stdout.contains("\n\n1. f3 e5 2. g4 Qh4# { checkmate } 0-1\n"), "{}", clocks.stdout);
}

#[test]
fn move_lists_come_one_game_per_line_in_each_notation() {
    let file = "testdata/valid/opera-game.pgn";
    let san = convert(&["--to", "san", file]).stdout;
    assert!(san.starts_with("e4 e5 Nf3 d6 d4 Bg4 dxe5 Bxf3 Qxf3 dxe5 Bc4 Nf6 Qb3 Qe7 Nc3 c6 Bg5 b5 Nxb5 cxb5 Bxb5+"));
    assert!(san.ends_with(" Qb8+ Nxb8 Rd8#\n"));
    let uci = convert(&["--to", "uci", file]).stdout;
    assert!(uci.starts_with("e2e4 e7e5 g1f3 d7d6 d2d4 c8g4") && uci.contains(" e1c1 ") && uci.ends_with(" d1d8\n"));
    let lan = convert(&["--to", "lan", file]).stdout;
    assert!(lan.starts_with("e2-e4 e7-e5 Ng1-f3") && lan.ends_with(" Rd1-d8#\n"), "{lan}");
    let games = convert(&["--to", "uci", "testdata/valid/famous-games.pgn"]);
    let count = json_lines(&convert(&["--to", "jsonl", "testdata/valid/famous-games.pgn"]).stdout).len();
    assert_eq!(games.stdout.lines().count(), count);
}

#[test]
fn fen_gives_the_final_position_and_epd_every_position_with_its_id() {
    let file = "testdata/valid/opera-game.pgn";
    let fen = convert(&["--to", "fen", file]).stdout;
    assert_eq!(fen, "1n1Rkb1r/p4ppp/4q3/4p1B1/4P3/8/PPP2PPP/2K5 b k - 1 17\n");
    let epd = convert(&["--to", "epd", file]).stdout;
    let lines: Vec<&str> = epd.lines().collect();
    assert_eq!(lines.len(), 34);
    assert_eq!(
        lines[0],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id \"testdata/valid/opera-game.pgn:1:0\";"
    );
    assert!(lines[33].starts_with("1n1Rkb1r/p4ppp/4q3/4p1B1/4P3/8/PPP2PPP/2K5 b k - id"), "{}", lines[33]);
    assert!(lines[33].ends_with(":1:33\";"));
}

#[test]
fn epd_of_a_game_too_long_to_hold_is_streamed_in_its_place_among_the_games_and_findings() {
    // 140,000 plies of knights out and back (over 4 MiB of EPD, so written
    // as it is made), then an illegal move, between two short games.
    let mut pgn = String::from("1. e4 *\n\n");
    for n in 0..35_000 {
        pgn.push_str(&format!("{}. Nf3 Nf6 {}. Ng1 Ng8\n", 2 * n + 1, 2 * n + 2));
    }
    pgn.push_str("70001. Ke3 *\n\n1. d4 *\n");
    let outs = ["-j1", "-j2"].map(|threads| run(&["convert", threads, "--to", "epd", "-"], Some(pgn.as_bytes())));
    let ids: Vec<&str> = outs[0].stdout.lines().map(|line| line.rsplit(" id ").next().unwrap()).collect();
    assert_eq!(ids.len(), 2 + 140_001 + 2, "{}", outs[0].stderr);
    assert_eq!(ids[..3], ["\"<stdin>:1:0\";", "\"<stdin>:1:1\";", "\"<stdin>:2:0\";"]);
    assert_eq!(ids[2 + 140_000..], ["\"<stdin>:2:140000\";", "\"<stdin>:3:0\";", "\"<stdin>:3:1\";"]);
    assert!(outs[0].stderr.contains("<stdin>:35003:8: error[illegal-move]"), "{}", outs[0].stderr);
    assert_eq!((outs[0].code, &outs[1].stdout, &outs[1].stderr), (1, &outs[0].stdout, &outs[0].stderr));
}

#[test]
fn jsonl_has_tags_moves_and_annotations_by_ply_and_decodes_latin1() {
    let out = convert(&["--to", "jsonl", "testdata/convert/annotated-game.pgn"]);
    let game = &json_lines(&out.stdout)[0];
    assert_eq!(game["tags"]["White"], "Player, A");
    assert_eq!(game["san"][3], "d6");
    assert_eq!(game["uci"][3], "d7d6");
    assert_eq!(
        game["comments"][0],
        serde_json::json!({"ply": 0, "text": "Composed to exercise every kind of annotation."})
    );
    assert_eq!(game["comments"][1]["ply"], 1);
    assert_eq!(game["nags"][0], serde_json::json!({"ply": 4, "nag": 1}));
    assert_eq!((game["result"].as_str(), game["board_termination"].as_str()), (Some("1-0"), Some("checkmate")));
    assert_eq!(game["plies"], 33);
    let latin1 = convert(&["--to", "jsonl", "testdata/valid/latin1-player-name.pgn"]);
    assert_eq!(json_lines(&latin1.stdout)[0]["tags"]["White"], "Réti, Richard");
}

#[test]
fn csv_has_one_row_per_game_with_default_or_chosen_columns() {
    let out = convert(&["--to", "csv", "testdata/valid/famous-games.pgn", "testdata/valid/latin1-player-name.pgn"]);
    let mut reader = csv::Reader::from_reader(out.stdout.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(str::to_owned).collect();
    assert_eq!(header[..4], ["file", "game", "game_line", "Event"]);
    assert_eq!(header[16..], ["plies", "board_termination", "valid", "final_fen"]);
    // No two columns differ only by case (DuckDB and Spark fold case).
    let mut folded: Vec<String> = header.iter().map(|c| c.to_lowercase()).collect();
    folded.sort();
    folded.dedup();
    assert_eq!(folded.len(), header.len(), "{header:?}");
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert!(rows.iter().any(|r| &r[7] == "Réti, Richard"));
    assert!(rows.iter().all(|r| r.len() == 20 && &r[18] == "true"));

    let chosen =
        convert(&["--to", "csv", "--columns", "White,Tag:Annotator,plies,uci", "testdata/convert/annotated-game.pgn"]);
    assert!(
        chosen.stdout.starts_with("White,Annotator,plies,uci\n\"Player, A\",pgnkit tests,33,e2e4 e7e5 g1f3"),
        "{}",
        chosen.stdout
    );
    let checked =
        convert(&["--to", "csv", "--columns", "game,valid,checked,plies", "testdata/invalid/unsupported-variant.pgn"]);
    assert_eq!(checked.stdout, "game,valid,checked,plies\n1,false,false,0\n2,true,true,2\n");
    let wrong = convert(&["--to", "csv", "--columns", "plys", "testdata/valid/opera-game.pgn"]);
    assert_eq!(wrong.code, 2);
    assert!(wrong.stderr.contains("unknown column `plys`"), "{}", wrong.stderr);
}

#[test]
fn a_column_given_twice_or_twice_but_for_case_is_refused_before_any_output() {
    let dir = Scratch::new("convert-columns");
    let out_file = dir.join("games.csv");
    std::fs::write(&out_file, "kept\n").unwrap();
    let out_arg = out_file.to_str().unwrap();
    for (columns, says) in [
        ("White,plies,White", "the column `White` is given twice"),
        ("White,Tag:white", "the columns `White` and `white` differ only in case"),
        ("plies,Tag:Plies", "the columns `plies` and `Plies` differ only in case"),
    ] {
        let out = convert(&["--to", "csv", "--columns", columns, "-o", out_arg, "testdata/valid/opera-game.pgn"]);
        assert_eq!(out.code, 2, "{columns}");
        assert!(out.stderr.contains(says), "{columns}: {}", out.stderr);
        assert_eq!(std::fs::read_to_string(&out_file).unwrap(), "kept\n", "{columns}");
    }
    // The Termination tag and the board's termination are two columns.
    let out = convert(&["--to", "csv", "--columns", "Termination,termination", "testdata/valid/opera-game.pgn"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("Termination,board_termination\n"), "{}", out.stdout);
}

#[test]
fn the_old_column_names_line_and_termination_still_select_game_line_and_board_termination() {
    let file = "testdata/valid/opera-game.pgn";
    let new = convert(&["--to", "csv", "--columns", "game,game_line,board_termination", file]);
    assert_eq!(new.stdout, "game,game_line,board_termination\n1,1,checkmate\n");
    // Read for one release, written under the new names.
    let old = convert(&["--to", "csv", "--columns", "game,line,termination", file]);
    assert_eq!((old.code, old.stdout), (0, new.stdout));
}

#[test]
fn jsonl_names_the_first_line_game_line_and_the_board_rule_board_termination() {
    let out = convert(&["--to", "jsonl", "testdata/valid/opera-game.pgn"]);
    let game = &json_lines(&out.stdout)[0];
    assert_eq!((&game["game_line"], &game["board_termination"]), (&1.into(), &"checkmate".into()));
    assert_eq!(
        (&game["line"], &game["termination"]),
        (&serde_json::Value::Null, &serde_json::Value::Null),
        "not written beside them"
    );
}

#[test]
fn an_invalid_game_is_written_up_to_its_last_legal_move_or_skipped_and_fails_the_run() {
    let file = "testdata/invalid/illegal-move-king-into-check.pgn";
    let out = convert(&["--to", "pgn", file]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("error[illegal-move]"), "{}", out.stderr);
    assert!(out.stdout.contains("{ pgnkit: stopped before ply"), "{}", out.stdout);
    let skipped = convert(&["--to", "pgn", "--skip-invalid", file]);
    assert_eq!((skipped.code, skipped.stdout.as_str()), (1, ""));
    assert!(skipped.stderr.contains("error[illegal-move]"));
}

#[test]
fn an_illegal_move_in_a_variation_is_an_error_that_cuts_the_variation_and_the_main_line_stays_whole() {
    let out = convert(&["--to", "pgn", "testdata/convert/illegal-move-in-variation.pgn"]);
    assert!(out.stdout.contains("\n\n1. e4 e5 (1... c5 { pgnkit: `Ke3` cannot be played:"), "{}", out.stdout);
    assert!(out.stdout.ends_with("}) 2. Nf3 Nc6 *\n\n"), "{}", out.stdout);
    assert!(out.stderr.contains(":4:22: error[illegal-move-in-variation]"), "{}", out.stderr);
    assert_eq!(out.code, 1);
}

#[test]
fn output_is_the_same_for_every_thread_count_and_can_go_to_a_file() {
    let files =
        ["testdata/valid/famous-games.pgn", "testdata/convert/annotated-game.pgn", "testdata/valid/chess960.pgn"];
    let mut args = vec!["convert", "-q", "--to", "pgn", "-j1"];
    args.extend(files);
    let one = run(&args, None).stdout;
    args[4] = "-j2";
    assert_eq!(run(&args, None).stdout, one);
    let dir = Scratch::new("convert");
    let target = dir.join("out.pgn");
    args.extend(["-o", target.to_str().unwrap()]);
    let to_file = run(&args, None);
    assert_eq!(to_file.stdout, "");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), one);
    // Writing over an input is refused, and the input is left whole.
    let target = target.to_str().unwrap();
    let over = run(&["convert", "--to", "pgn", target, "-o", target], None);
    assert_eq!(over.code, 2);
    assert!(over.stderr.contains("is an input: writing it would destroy it"), "{}", over.stderr);
    assert_eq!(std::fs::read_to_string(target).unwrap(), one);
}

#[cfg(feature = "parquet")]
#[test]
fn parquet_has_a_row_per_game_with_tags_and_our_columns() {
    use parquet::{
        file::reader::{FileReader, SerializedFileReader},
        record::Field,
    };

    let dir = Scratch::new("parquet");
    let target = dir.join("games.parquet");
    let out = convert(&["--to", "parquet", "-o", target.to_str().unwrap(), "testdata/valid/famous-games.pgn"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
    let reader = SerializedFileReader::new(std::fs::File::open(&target).unwrap()).unwrap();
    let rows: Vec<parquet::record::Row> = reader.get_row_iter(None).unwrap().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 8);
    let field =
        |row: usize, name: &str| rows[row].get_column_iter().find(|(n, _)| *n == name).map(|(_, f)| f.clone()).unwrap();
    assert_eq!(field(0, "White"), Field::Str("Morphy, Paul".to_owned()));
    assert_eq!(field(0, "plies"), Field::Long(33));
    assert_eq!(field(0, "board_termination"), Field::Str("checkmate".to_owned()));
    assert_eq!(field(7, "game"), Field::Long(8));
    let Field::Str(movetext) = field(0, "movetext") else { panic!("movetext is text") };
    assert!(
        movetext.starts_with("{ The Opera Game,") && movetext.ends_with("16. Qb8+ $3 Nxb8 17. Rd8# 1-0"),
        "{movetext}"
    );
}

#[test]
fn pgn_export_writes_the_games_result_and_says_so_where_the_input_wrote_another() {
    let out = convert(&["--to", "pgn", "testdata/invalid/result-tag-not-a-result.pgn"]);
    let results: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("[Result ")).collect();
    assert_eq!(results, ["[Result \"1-0\"]", "[Result \"*\"]"]);
    assert!(
        out.stdout.contains("\n1. e4 e5 2. Nf3 Nc6 1-0\n") && out.stdout.contains("\n1. d4 d5 *\n"),
        "{}",
        out.stdout
    );
    assert_eq!(
        out.stderr.lines().filter(|l| l.contains("written as")).collect::<Vec<_>>(),
        [
            "testdata/invalid/result-tag-not-a-result.pgn:7:1: error[invalid-result-tag]: the Result tag \"0-0\" is \
             not a result (1-0, 0-1, 1/2-1/2 or *); the game's result is the movetext's 1-0; written as \
             [Result \"1-0\"] (game 1)",
            "testdata/invalid/result-tag-not-a-result.pgn:17:1: error[invalid-result-tag]: the Result tag \"\" is \
             not a result (1-0, 0-1, 1/2-1/2 or *); the game's result is *, as the movetext gives none either; \
             written as [Result \"*\"] (game 2)",
        ]
    );
    assert_eq!(out.code, 1);
    let out = convert(&["--to", "pgn", "testdata/invalid/nonstandard-result-marker.pgn"]);
    assert!(out.stdout.ends_with("\n1. e4 e5 2. Nf3 Nc6 1/2-1/2\n\n"), "{}", out.stdout);
    assert_eq!(
        out.stderr.lines().next(),
        Some(
            "testdata/invalid/nonstandard-result-marker.pgn:9:21: warning[nonstandard-result-marker]: `\u{bd}-\u{bd}` \
             is not a termination marker of the PGN standard (1-0, 0-1, 1/2-1/2 or *); read as 1/2-1/2; written as \
             1/2-1/2 (game 1)"
        )
    );
    // Other formats write the tags as they are: nothing is rewritten.
    let out = convert(&["--to", "jsonl", "testdata/invalid/result-tag-not-a-result.pgn"]);
    assert!(!out.stderr.contains("written as"), "{}", out.stderr);
    let games = json_lines(&out.stdout);
    assert_eq!((games[0]["tags"]["Result"].as_str(), games[0]["result"].as_str()), (Some("0-0"), Some("1-0")));
}

#[test]
fn pgn_export_keeps_the_nags_from_0_to_255_and_warns_about_the_others() {
    let out = convert(&["--to", "pgn", "testdata/invalid/nag-above-255.pgn"]);
    assert!(
        out.stdout.ends_with("\n1. e4 $1 e5 (1... c5) 2. Nf3 $255 { $300 in a comment is text } *\n\n"),
        "{}",
        out.stdout
    );
    assert_eq!(out.stderr.matches("warning[invalid-nag]").count(), 3, "{}", out.stderr);
}

#[cfg(not(feature = "parquet"))]
#[test]
fn parquet_without_the_feature_says_how_to_build_it() {
    let out = run(&["convert", "--to", "parquet", "testdata/valid/opera-game.pgn"], None);
    assert_eq!((out.code, out.stdout.as_str()), (2, ""));
    assert!(
        out.stderr.contains("built without Parquet output") && out.stderr.contains("--features parquet"),
        "{}",
        out.stderr
    );
}

#[test]
fn openings_set_the_eco_and_opening_tags_of_pgn_output_in_place_of_the_games_own() {
    // Philidor Defense by the table, whatever the game says.
    let game = b"[Event \"x\"]\n[ECO \"A00\"]\n[Opening \"Wrong\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 d6 3. d4 *\n";
    let args = ["--to", "pgn", "--openings", "testdata/stats/openings.tsv", "-"];
    let out = run(&[&["convert", "-q"][..], &args].concat(), Some(game));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("[ECO \"C41\"]"), "{}", out.stdout);
    assert!(out.stdout.contains("[Opening \"Philidor Defense\"]"), "{}", out.stdout);
    assert!(!out.stdout.contains("A00") && !out.stdout.contains("Wrong"), "{}", out.stdout);
    // A game the table does not name keeps its tags.
    let other = b"[Event \"y\"]\n[ECO \"A04\"]\n[Result \"*\"]\n\n1. Nf3 *\n";
    let out = run(&[&["convert", "-q"][..], &args].concat(), Some(other));
    assert!(out.stdout.contains("[ECO \"A04\"]") && !out.stdout.contains("Opening"), "{}", out.stdout);
    // filter, dedup and split write them so with --normalize, and only then.
    for command in [&["filter"][..], &["dedup"]] {
        let mut all = command.to_vec();
        all.extend(["-q", "--normalize", "--openings", "testdata/stats/openings.tsv", "-"]);
        let out = run(&all, Some(game));
        assert!(out.stdout.contains("[Opening \"Philidor Defense\"]"), "{command:?}: {}{}", out.stdout, out.stderr);
        all.retain(|a| *a != "--normalize");
        let out = run(&all, Some(game));
        assert_eq!(out.code, 2, "{command:?}");
        assert!(out.stderr.contains("it needs --normalize"), "{}", out.stderr);
    }
}

#[test]
fn epd_tags_put_the_players_event_site_date_and_result_on_every_line_as_fen_check_reads_them() {
    let out = run(&["convert", "-q", "--to", "epd", "--epd-tags", "testdata/valid/opera-game.pgn"], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 34);
    let tags = " c0 \"Morphy, Paul-Duke Karl / Count Isouard, Paris Opera, Paris FRA, 1858.??.??\"; c1 \"1-0\";";
    assert!(lines.iter().all(|line| line.ends_with(tags)), "{}", lines[0]);
    // Each line is still an EPD record without a finding.
    let checked = run(&["fen", "check", "-"], Some(out.stdout.as_bytes()));
    assert_eq!(checked.code, 0, "{}", checked.stdout);
    assert!(checked.stderr.contains("34 valid, 0 invalid; 0 errors, 0 warnings"), "{}", checked.stderr);
    // Without the option, the lines end at their id.
    let plain = run(&["convert", "-q", "--to", "epd", "testdata/valid/opera-game.pgn"], None);
    assert!(!plain.stdout.contains(" c0 ") && plain.stdout.lines().count() == 34, "{}", plain.stdout);
}

/// Two games whose tags and players a spreadsheet would read as formulas,
/// and a negative number, which is data.
const FORMULAS: &str = "[Event \"=1+2\"]\n[Site \"@x\"]\n[Round \"-\"]\n[White \"=HYPERLINK(1)\"]\n\
    [Black \"+cmd\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
    [Event \"=1+2\"]\n[Site \"-5\"]\n[Round \"-2+3\"]\n[White \"+cmd\"]\n[Black \"=HYPERLINK(1)\"]\n[Result \"1-0\"]\n\n\
    1. e4 Zz9 1-0\n";

/// The cells of a CSV, header included.
fn csv_cells(text: &str) -> Vec<String> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(text.as_bytes());
    reader.records().flat_map(|record| record.unwrap().iter().map(str::to_owned).collect::<Vec<_>>()).collect()
}

#[test]
fn every_csv_writes_a_cell_that_would_start_a_formula_after_a_quote_and_raw_csv_as_it_is() {
    let dir = Scratch::new("convert-formulas");
    std::fs::write(dir.join("=a.pgn"), FORMULAS).unwrap();
    let csv = |args: &[&str]| {
        let out = crate::support::pgnkit().current_dir(&dir).args(args).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let outputs = [
        csv(&["convert", "-q", "--to", "csv", "=a.pgn"]),
        csv(&["validate", "-q", "--format", "csv", "=a.pgn"]),
        csv(&["stats", "-q", "--by", "player", "--format", "csv", "=a.pgn"]),
        csv(&["ratings", "-q", "--format", "csv", "=a.pgn"]),
        csv(&["dedup", "-q", "--list", "--format", "csv", "=a.pgn", "=a.pgn"]),
    ];
    let formula =
        |cell: &str| cell.starts_with(['=', '+', '@']) || cell.starts_with('-') && cell.parse::<f64>().is_err();
    for out in &outputs {
        let cells = csv_cells(out);
        assert!(cells.iter().any(|c| c.starts_with('\'')), "{out}");
        assert!(!cells.iter().any(|c| formula(c) && c != "-"), "{out}");
    }
    let games = csv_cells(&outputs[0]);
    for cell in ["'=1+2", "'@x", "-", "'=HYPERLINK(1)", "'+cmd", "-5", "'-2+3"] {
        assert!(games.iter().any(|c| c == cell), "{cell}: {}", outputs[0]);
    }
    assert!(csv_cells(&outputs[4]).iter().any(|c| c == "'=a.pgn"), "{}", outputs[4]);
    let raw = csv_cells(&csv(&["convert", "-q", "--raw-csv", "--to", "csv", "=a.pgn"]));
    for cell in ["=1+2", "@x", "=HYPERLINK(1)", "+cmd", "-2+3"] {
        assert!(raw.iter().any(|c| c == cell), "{cell}");
    }
}
