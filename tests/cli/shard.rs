//! `--shard K/N` on the game-reading commands: the shards partition the run
//! (their union is the unsharded output), stats partials of the shards merge
//! into the single run byte for byte, the games are those of `split
//! --shards`, and bad values are usage errors.

use std::path::PathBuf;

use crate::support::{Scratch, corpus, files_with_extension, pgnkit, root, run};

/// Fixtures of every kind, valid and not, in several inputs so that the
/// run-wide game numbers cross file boundaries.
fn fixtures() -> Vec<String> {
    let mut files = files_with_extension(&root().join("testdata/valid"), "pgn");
    files.extend(files_with_extension(&root().join("testdata/invalid"), "pgn"));
    files.push(root().join("testdata/filter/criteria.pgn"));
    files.iter().map(|p| p.strip_prefix(root()).unwrap().to_str().unwrap().to_owned()).collect()
}

/// `pgnkit ARGS... --shard K/N PATHS...` for every K, each run's stdout.
fn shards(args: &[&str], n: u64, paths: &[String]) -> Vec<String> {
    (0..n)
        .map(|k| {
            let shard = format!("{k}/{n}");
            let mut all: Vec<&str> = args.to_vec();
            all.extend(["--shard", &shard]);
            all.extend(paths.iter().map(String::as_str));
            let out = run(&all, None);
            assert!(out.code == 0 || out.code == 1, "{all:?}: exit {}: {}", out.code, out.stderr);
            out.stdout
        })
        .collect()
}

/// The lines of the shards' outputs put back in run order: the game
/// numbered r (from 0) is line r / N of shard r mod N.
fn interleave(parts: &[String]) -> Vec<&str> {
    let mut lines: Vec<std::str::Lines<'_>> = parts.iter().map(|p| p.lines()).collect();
    let mut out = Vec::new();
    'games: loop {
        for (k, shard) in lines.iter_mut().enumerate() {
            match shard.next() {
                Some(line) => out.push(line),
                None => {
                    // Shards run out in one round: the first k had one more
                    // game than the rest.
                    assert!(lines.iter_mut().all(|rest| rest.next().is_none()), "shard {k} ended early");
                    break 'games;
                }
            }
        }
    }
    out
}

/// `pgnkit ARGS... PATHS...`, its stdout.
fn whole(args: &[&str], paths: &[String]) -> String {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(paths.iter().map(String::as_str));
    let out = run(&all, None);
    assert!(out.code == 0 || out.code == 1, "{all:?}: exit {}: {}", out.code, out.stderr);
    out.stdout
}

#[test]
fn validate_shards_put_back_in_order_are_the_unsharded_run_with_the_original_game_numbers() {
    let paths = fixtures();
    for threads in ["1", "2"] {
        let args = ["validate", "-q", "-j", threads, "--format", "jsonl"];
        let single = whole(&args, &paths);
        assert!(single.lines().count() > 80, "enough games to shard");
        for n in [1, 2, 3, 7] {
            let parts = shards(&args, n, &paths);
            assert_eq!(interleave(&parts), single.lines().collect::<Vec<_>>(), "-j{threads}, {n} shards");
        }
    }
}

#[test]
fn stats_partials_of_the_shards_merge_into_the_single_run_byte_for_byte() {
    let paths = fixtures();
    for by in [&[][..], &["--by", "result", "--by", "termination"][..]] {
        let mut args = vec!["stats", "-q", "--format", "json"];
        args.extend_from_slice(by);
        let single = whole(&args, &paths);
        for n in [2, 5] {
            let scratch = Scratch::new(&format!("shard-stats-{}-{n}", by.len()));
            let files: Vec<PathBuf> = shards(&args, n, &paths)
                .iter()
                .enumerate()
                .map(|(k, partial)| {
                    let file = scratch.join(format!("{k}.json"));
                    std::fs::write(&file, partial).unwrap();
                    file
                })
                .collect();
            let mut merge = vec!["stats", "merge"];
            merge.extend(files.iter().map(|f| f.to_str().unwrap()));
            let merged = run(&merge, None);
            assert_eq!(merged.code, 0, "{}", merged.stderr);
            assert_eq!(merged.stdout, single, "{by:?}, {n} shards");
        }
    }
}

#[test]
fn a_shard_holds_the_games_of_the_split_shard_file_of_the_same_number() {
    let paths = fixtures();
    let dir = Scratch::new("shard-split");
    let mut args = vec!["split", "-q", "--shards", "3", "--out-dir", dir.to_str().unwrap()];
    args.extend(paths.iter().map(String::as_str));
    let out = run(&args, None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // filter without criteria writes every game as read (bytes, not
    // always UTF-8), as split does.
    for k in 0..3 {
        let out = pgnkit()
            .args(["filter", "-q", "--shard", &format!("{k}/3")])
            .args(&paths)
            .output()
            .expect("the binary runs");
        assert_eq!(out.status.code(), Some(0));
        let file = dir.join(format!("shard-000{}-of-0003.pgn", k + 1));
        assert!(out.stdout == std::fs::read(&file).unwrap(), "shard {k} differs from {}", file.display());
    }
}

#[test]
fn convert_and_split_take_only_their_shard() {
    let paths = fixtures();
    let args = ["convert", "-q", "--to", "csv", "--columns", "file,game,plies,valid"];
    let single = whole(&args, &paths);
    let parts = shards(&args, 4, &paths);
    // Each part has its own header line.
    let bodies: Vec<String> = parts.iter().map(|p| p.lines().skip(1).map(|l| format!("{l}\n")).collect()).collect();
    assert!(parts.iter().all(|p| p.starts_with("file,game,plies,valid\n")));
    assert_eq!(interleave(&bodies), single.lines().skip(1).collect::<Vec<_>>());

    // split --shard picks its games first, then lays them out.
    let dir = Scratch::new("shard-split-games");
    let out = run(
        &[
            "split",
            "-q",
            "--shard",
            "1/2",
            "--games",
            "1000",
            "--out-dir",
            dir.to_str().unwrap(),
            "testdata/valid/famous-games.pgn",
        ],
        None,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let written = std::fs::read_to_string(dir.join("part-00001.pgn")).unwrap();
    let odd = run(&["filter", "-q", "--shard", "1/2", "testdata/valid/famous-games.pgn"], None);
    assert_eq!(written, odd.stdout);
    assert_eq!(written.matches("[Event ").count(), 4, "games 2, 4, 6 and 8 of 8");
}

#[test]
fn the_games_of_other_shards_are_not_checked_and_the_summary_counts_only_this_shard() {
    // Game 1 of this file is legal, game 2 has an illegal move.
    let file = "testdata/filter/criteria.pgn";
    let all = run(&["validate", "--format", "jsonl", file], None);
    let games = crate::support::json_lines(&all.stdout);
    let invalid: Vec<u64> = games.iter().filter(|g| g["valid"] == false).map(|g| g["game"].as_u64().unwrap()).collect();
    assert!(!invalid.is_empty(), "the fixture has an invalid game");
    let n = games.len() as u64;
    // Each invalid game makes exactly one one-game shard fail.
    for k in 0..n {
        let out = run(&["validate", "--shard", &format!("{k}/{n}"), file], None);
        let bad = invalid.contains(&(k + 1));
        assert_eq!(out.code, i32::from(bad), "shard {k}/{n}: {}", out.stderr);
        assert_eq!(out.stdout.is_empty(), !bad, "shard {k}/{n}: {}", out.stdout);
        let verdict = if bad { "0 valid, 1 invalid" } else { "1 valid, 0 invalid" };
        assert!(out.stderr.contains(&format!("checked 1 game in 1 input: {verdict}")), "{}", out.stderr);
    }
    // More shards than games: the ones past the end are empty, and fine.
    let out = run(&["validate", "--shard", &format!("{n}/{}", n + 1), file], None);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""));
    assert!(out.stderr.contains("checked 0 games"), "{}", out.stderr);
}

#[test]
fn bad_shard_values_are_usage_errors_that_say_what_is_wrong() {
    for (value, message) in [
        ("3/3", "K counts from 0 and must be less than N: the shards of 3 are 0/3 to 2/3"),
        ("7/3", "must be less than N"),
        ("a/b", "expected K/N: two whole numbers with 0 <= K < N, such as 0/4"),
        ("1", "expected K/N"),
        ("1/2/3", "expected K/N"),
        ("0/0", "N, the number of shards, must be at least 1"),
    ] {
        for command in ["validate", "stats", "convert", "filter", "split", "dedup", "ratings"] {
            let mut args = vec![command, "--shard", value];
            match command {
                "convert" => args.extend(["--to", "uci"]),
                "split" => args.extend(["--shards", "2", "--out-dir", "target/never-written"]),
                _ => {}
            }
            args.push("testdata/valid/famous-games.pgn");
            let out = run(&args, None);
            assert_eq!(out.code, 2, "{args:?}");
            assert!(out.stderr.contains(&format!("invalid value '{value}' for '--shard <K/N>'")), "{}", out.stderr);
            assert!(out.stderr.contains(message), "{value}: {}", out.stderr);
            assert_eq!(out.stdout, "");
        }
    }
}

#[test]
fn corpus_shards_cover_every_game_once_across_many_batches_and_thread_counts() {
    let Some(corpus) = corpus() else { return };
    let file = corpus.join("bench/real_games_mix.pgn.gz").to_str().unwrap().to_owned();
    let paths = [file];
    let args = ["validate", "-q", "--format", "jsonl"];
    let single = whole(&args, &paths);
    assert_eq!(single.lines().count(), 3025);
    for threads in ["1", "2"] {
        let args = ["validate", "-q", "-j", threads, "--format", "jsonl"];
        assert_eq!(interleave(&shards(&args, 3, &paths)), single.lines().collect::<Vec<_>>(), "-j{threads}");
    }
}
