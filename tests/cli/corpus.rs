//! Runs on the real game collections of `../shared/corpus` (read in place;
//! skipped with a message when absent).

use crate::support::{corpus, files_with_extension, json_lines, validate};

#[test]
fn every_corpus_file_is_read_to_the_end_with_consecutive_game_numbers() {
    let Some(corpus) = corpus() else { return };
    let mut files = files_with_extension(&corpus.join("pgn"), "pgn");
    files.extend(files_with_extension(&corpus.join("bad"), "pgn"));
    assert!(files.len() > 100);
    for file in files {
        let path = file.to_str().unwrap();
        let out = validate(&["--format", "jsonl", path]);
        assert!(out.code == 0 || out.code == 1, "{path}: exit {} {}", out.code, out.stderr);
        let games = json_lines(&out.stdout);
        for (i, game) in games.iter().enumerate() {
            assert_eq!(game["game"], i as u64 + 1, "{path}: game numbers");
            let invalid = game["diagnostics"].as_array().unwrap().iter().any(|d| d["severity"] == "error");
            assert_eq!(game["valid"], !invalid, "{path}: valid iff no error");
        }
        assert!(out.stderr.contains(&format!("checked {} game", games.len())), "{path}: {}", out.stderr);
    }
}

#[test]
fn the_benchmark_collections_are_valid_game_for_game() {
    let Some(corpus) = corpus() else { return };
    // Counts from corpus/SOURCES.md (python-chess replays all of them).
    for (file, games) in
        [("bench/real_games_mix.pgn.gz", 3025), ("bench/bjbraams_chessdb_198350_lines.pgn.gz", 198_350)]
    {
        let path = corpus.join(file);
        let out = validate(&[path.to_str().unwrap()]);
        assert_eq!(out.stdout, "", "{file}: no findings");
        assert_eq!(
            out.stderr,
            format!("pgnkit: checked {games} games in 1 input: {games} valid, 0 invalid; 0 errors, 0 warnings\n"),
            "{file}"
        );
        assert_eq!(out.code, 0);
    }
}

#[test]
fn known_illegal_moves_in_the_corpus_are_found() {
    let Some(corpus) = corpus() else { return };
    // SOURCES.md: "0-0-0 through the queen" and "1. e5" in the line-break files.
    for file in ["bad/chess-library/black2move.pgn", "bad/kokopu/linebreak-linux.pgn", "bad/kokopu/linebreak-mac.pgn"] {
        let out = validate(&["--format", "jsonl", corpus.join(file).to_str().unwrap()]);
        let games = json_lines(&out.stdout);
        assert!(
            games.iter().any(|g| g["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "illegal-move")),
            "{file}: {}",
            out.stdout
        );
        assert_eq!(out.code, 1, "{file}");
    }
}

#[test]
fn real_collections_give_the_same_output_with_one_and_four_threads() {
    let Some(corpus) = corpus() else { return };
    let files =
        ["pgn/shakmaty/lichess_db_1000k.pgn", "pgn/shakmaty/twic1599_1000k.pgn", "pgn/pychess/world_matches.pgn"];
    let paths: Vec<String> = files.iter().map(|f| corpus.join(f).to_str().unwrap().to_owned()).collect();
    let run = |threads: &str| {
        let mut args = vec!["-j", threads, "--format", "jsonl"];
        args.extend(paths.iter().map(String::as_str));
        validate(&args).stdout
    };
    let one = run("1");
    assert!(json_lines(&one).len() > 1000);
    assert_eq!(run("4"), one);
}
