//! `pgnkit book`: Polyglot books byte for byte what `polyglot make-book`
//! writes (when its binary is installed), read back by python-chess, the
//! opening tree's counts, and the same bytes over threads, spilled runs
//! and merged shards.

use std::{path::Path, process::Command};

use shakmaty::{Chess, Position, san::SanPlus};

use crate::support::{Scratch, corpus, run, skip};

const POLYGLOT: &str = "/usr/games/polyglot";
const ILLEGAL: &str = "testdata/book/illegal-move-midway.pgn";
const RATED: &str = "testdata/book/rated-games.pgn";

/// `pgnkit ARGS`, which must exit 0.
fn ok(args: &[&str]) -> String {
    let out = run(args, None);
    assert_eq!(out.code, 0, "pgnkit {args:?}: {}", out.stderr);
    out.stdout
}

/// Games polyglot can read, from the corpus: the valid games from the
/// standard start of `files`, as plain PGN in `scratch`.
fn clean_games(scratch: &Scratch, name: &str, files: &[&Path]) -> String {
    let mut args = vec!["filter", "-q", "--valid"];
    let paths: Vec<&str> = files.iter().map(|p| p.to_str().unwrap()).collect();
    args.extend(&paths);
    let valid = scratch.write(&format!("{name}-valid.pgn"), ok(&args));
    scratch.write(name, ok(&["filter", "-q", "--has-tag", "FEN", "--invert", &valid]))
}

/// `polyglot make-book` on `pgn` with `options`, its book's bytes.
fn polyglot(scratch: &Scratch, pgn: &str, options: &[&str]) -> Vec<u8> {
    let bin = scratch.str("polyglot.bin");
    let out = Command::new(POLYGLOT)
        .args(["make-book", "-pgn", pgn, "-bin", &bin])
        .args(options)
        .output()
        .expect("polyglot runs");
    assert!(out.status.success(), "polyglot {options:?}: {}", String::from_utf8_lossy(&out.stdout));
    std::fs::read(bin).unwrap()
}

/// `pgnkit book` on `pgn` with `options`, its book's bytes.
fn pgnkit_book(scratch: &Scratch, pgn: &str, options: &[&str]) -> Vec<u8> {
    let bin = scratch.str("pgnkit.bin");
    let mut args = vec!["book", "-q", "-o", &bin, pgn];
    args.extend(options);
    ok(&args);
    std::fs::read(bin).unwrap()
}

/// polyglot's options and pgnkit's for the same book.
const OPTION_SETS: [(&[&str], &[&str]); 5] = [
    (&[], &[]),
    (&["-min-game", "1"], &["--min-games", "1"]),
    (&["-max-ply", "20", "-min-game", "2"], &["--max-ply", "20", "--min-games", "2"]),
    (&["-only-white", "-min-score", "50"], &["--only-white", "--min-score", "50"]),
    (&["-only-black", "-uniform", "-min-game", "5"], &["--only-black", "--uniform", "--min-games", "5"]),
];

fn polyglot_installed() -> bool {
    if Path::new(POLYGLOT).exists() {
        true
    } else {
        skip("polyglot is not installed (apt-get install polyglot puts it in /usr/games)");
        false
    }
}

#[test]
fn books_of_real_games_are_byte_identical_to_polyglot_make_book_for_each_option_set() {
    let Some(corpus) = corpus() else { return };
    if !polyglot_installed() {
        return;
    }
    let scratch = Scratch::new("identity");
    let pgn = clean_games(
        &scratch,
        "games.pgn",
        &[&corpus.join("pgn/tcec/TCEC_Season_1_-_Division_1.pgn"), &corpus.join("pgn/stockfish-books/2moves_v2.pgn")],
    );
    for (theirs, ours) in OPTION_SETS {
        let expected = polyglot(&scratch, &pgn, theirs);
        assert!(expected.len() > 16 * 100, "{theirs:?}: a book of some size");
        assert!(expected == pgnkit_book(&scratch, &pgn, ours), "{ours:?}: not polyglot's book");
    }
}

#[test]
fn counts_halved_past_16384_games_are_polyglots_on_two_hundred_thousand_opening_lines() {
    let Some(corpus) = corpus() else { return };
    if !polyglot_installed() {
        return;
    }
    let scratch = Scratch::new("halving");
    let pgn = clean_games(&scratch, "lines.pgn", &[&corpus.join("bench/bjbraams_chessdb_198350_lines.pgn.gz")]);
    let expected = polyglot(&scratch, &pgn, &["-min-game", "1"]);
    assert!(expected == pgnkit_book(&scratch, &pgn, &["--min-games", "1"]), "not polyglot's book");
    // Past the memory given, runs go to disk; the positions played most
    // stay in memory and are still counted in order.
    assert!(expected == pgnkit_book(&scratch, &pgn, &["--min-games", "1", "--max-memory", "16M"]), "spilled");
    // Three tables, each counting its keys on a thread of its own.
    assert!(expected == pgnkit_book(&scratch, &pgn, &["--min-games", "1", "-j3", "--max-memory", "16M"]), "-j3");
}

/// 20,000 games of twelve plies: 2,000 of random moves, in which the
/// position after 1.d4 comes a hundred times or so with a few plays of each
/// reply, then 18,000 of 1.d4 d5 (1...Nf6 one in ten) with random moves
/// after, so that 1.d4 and 1...d5 pass 16384 plays among many new
/// positions. Random moves are drawn from a fixed seed.
fn played_rarely_then_past_16384() -> String {
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut draw = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut pgn = String::new();
    for game in 0..20_000 {
        let opening: &[&str] = match (game < 2000, draw(10)) {
            (true, _) => &[],
            (false, 0) => &["d4", "Nf6"],
            (false, _) => &["d4", "d5"],
        };
        let mut pos = Chess::default();
        let mut sans: Vec<String> = Vec::new();
        for san in opening {
            let m = san.parse::<shakmaty::san::San>().unwrap().to_move(&pos).unwrap();
            sans.push(SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string());
        }
        while sans.len() < 12 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[draw(moves.len())];
            sans.push(SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string());
        }
        let result = match (pos.is_checkmate(), pos.turn()) {
            (true, shakmaty::Color::White) => "0-1",
            (true, shakmaty::Color::Black) => "1-0",
            _ if pos.is_stalemate() => "1/2-1/2",
            _ => ["1-0", "0-1", "1/2-1/2"][draw(3)],
        };
        pgn.push_str(&format!("[Event \"{game}\"]\n[Result \"{result}\"]\n\n"));
        for (i, san) in sans.iter().enumerate() {
            if i % 2 == 0 {
                pgn.push_str(&format!("{}. ", i / 2 + 1));
            }
            pgn.push_str(san);
            pgn.push(' ');
        }
        pgn.push_str(result);
        pgn.push_str("\n\n");
    }
    pgn
}

#[test]
fn a_position_spilled_early_then_played_past_16384_times_halves_in_game_order() {
    let scratch = Scratch::new("spill-halving");
    let pgn = scratch.write("games.pgn", played_rarely_then_past_16384());
    let whole = pgnkit_book(&scratch, &pgn, &["--min-games", "1"]);
    if Path::new(POLYGLOT).exists() {
        assert!(whole == polyglot(&scratch, &pgn, &["-min-game", "1"]), "not polyglot's book");
    }
    // A 1.d4 entry weighs what polyglot's halving in game order leaves,
    // not the whole count: the halving happened.
    let d4 = whole
        .chunks(16)
        .find(|e| e[..8] == 0x463b_9618_1691_fc9c_u64.to_be_bytes() && e[8..10] == ((11_u16 << 6) | 27).to_be_bytes());
    assert!(d4.is_some_and(|e| u16::from_be_bytes([e[10], e[11]]) < 16384), "1.d4 is in the book, halved");
    // With threads, each of the tables that split the keys spills its
    // share of the cap.
    for (cap, threads) in [("1M", "-j1"), ("3M", "-j1"), ("1M", "-j3"), ("3M", "-j2")] {
        let spilled = scratch.str("spilled.bin");
        let out = run(&["book", threads, "--min-games", "1", "--max-memory", cap, "-o", &spilled, &pgn], None);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(!out.stderr.contains("16384"), "{cap} {threads}: {}", out.stderr);
        assert!(whole == std::fs::read(spilled).unwrap(), "{cap} {threads}: spilled, not the same book");
    }
    // The tree of the whole run, as one partial, merges into the same book:
    // its halved positions were halved in game order, each in one count.
    let tree = scratch.str("whole.jsonl");
    ok(&["book", "-q", "--shard", "0/1", "--format", "jsonl", "-o", &tree, &pgn]);
    let merged = scratch.str("merged.bin");
    let out = run(&["book", "merge", "--min-games", "1", "-o", &merged, &tree], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("16384"), "one partial is exact: {}", out.stderr);
    assert!(whole == std::fs::read(merged).unwrap(), "the merged tree is not the same book");
}

#[test]
fn python_chess_reads_the_book_back_with_the_weights_and_moves_of_the_games() {
    let Some(corpus) = corpus() else { return };
    let scratch = Scratch::new("python");
    let pgn = clean_games(&scratch, "games.pgn", &[&corpus.join("pgn/tcec/TCEC_Season_1_-_Division_1.pgn")]);
    let book = scratch.str("book.bin");
    ok(&["book", "-q", "--min-games", "2", "--max-ply", "40", "-o", &book, &pgn]);
    let script = crate::support::root().join("scripts/check_book_python_chess.py");
    let out = Command::new("python3")
        .arg(script)
        .args([&book, &pgn, "--min-games", "2", "--max-ply", "40"])
        .output()
        .expect("python3 runs");
    if out.status.code() == Some(3) {
        skip("python-chess is not installed (pip install chess)");
        return;
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("agree with python-chess"), "{stdout}");
}

#[test]
fn a_game_with_an_illegal_move_counts_its_moves_up_to_it_and_its_finding_goes_to_stderr() {
    let out = run(&["book", "--format", "csv", "--min-games", "1", ILLEGAL], None);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains(":20:24: error[illegal-move]"), "{}", out.stderr);
    // Game 3 is counted up to 3. Ke3: its e4, e5, Nf3 and Nc6 count.
    for row in ["RNBQKBNR w KQkq - 0 1,e4,e2e4,3,1,1,1,0.5,", "PPPP1PPP/RNBQKB1R b KQkq - 1 2,Nc6,b8c6,3,1,1,1,0.5,"] {
        assert!(out.stdout.contains(row), "{row}\n{}", out.stdout);
    }
    assert!(!out.stdout.contains("Ke3"), "{}", out.stdout);
}

#[test]
fn a_game_from_a_set_up_position_is_left_out_with_a_note() {
    let out = run(&["book", "--format", "csv", "--min-games", "1", ILLEGAL], None);
    assert!(
        out.stderr.contains(":22: note: game 4 starts from a set-up position, not the standard start: left out"),
        "{}",
        out.stderr
    );
    // Its 2. Nf3 would have made four games of Nf3.
    assert!(out.stdout.contains(",Nf3,g1f3,3,"), "{}", out.stdout);
}

#[test]
fn the_tree_counts_results_ratings_performance_and_years_of_the_side_to_move() {
    let csv = ok(&["book", "-q", "--format", "csv", "--min-games", "1", "--max-ply", "2", RATED]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "fen,san,uci,games,white_wins,draws,black_wins,score,avg_elo,performance,first_year,last_year"
    );
    // e4 in four games (one without a result): White scored 1.5 of 3;
    // rated 2000 and 1801; against 1800 (won), 2010 (lost) and 2020
    // (drawn): 5830 / 3.
    assert_eq!(
        lines[1],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1,e4,e2e4,4,1,1,1,0.5,1901,1943,2019,2023"
    );
    // Black's e5: lost to 2000, drew with an unrated White.
    assert!(lines.contains(
        &"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1,e5,e7e5,3,1,1,0,0.25,1910,1600,2019,2023"
    ));
    assert_eq!(lines.len(), 4);
}

#[test]
fn a_players_tree_holds_only_the_moves_the_player_made() {
    let csv = ok(&["book", "-q", "--format", "csv", "--min-games", "1", "--max-ply", "2", "--player", "Coach", RATED]);
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 3, "{csv}");
    assert!(
        rows.contains(
            &"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1,e4,e2e4,2,1,0,0,1.0,2000,2200,2019,2023"
        )
    );
    let black = ok(&[
        "book",
        "-q",
        "--format",
        "jsonl",
        "--min-games",
        "1",
        "--max-ply",
        "2",
        "--player",
        "Coach",
        "--side",
        "black",
        RATED,
    ]);
    let rows = crate::support::json_lines(&black);
    assert_eq!(rows.len(), 2, "{black}");
    assert!(rows.iter().all(|row| row["fen"].as_str().unwrap().contains(" b ")), "{black}");
}

#[test]
fn threads_spilled_runs_and_merged_shards_give_the_bytes_of_one_run() {
    let Some(corpus) = corpus() else { return };
    let scratch = Scratch::new("same");
    let games = corpus.join("pgn/tcec/TCEC_Season_1_-_Division_1.pgn");
    let games = games.to_str().unwrap();
    for format in ["bin", "csv", "jsonl"] {
        let one = |extra: &[&str]| {
            let mut args = vec!["book", "-q", "--min-games", "1", "--format", format, "-o", "out", games];
            let out = scratch.str("out");
            args[7] = &out;
            args.extend(extra);
            ok(&args);
            std::fs::read(&out).unwrap()
        };
        let expected = one(&["-j1"]);
        assert!(expected.len() > 1000);
        // Threads count the keys in two or three tables; at 1M each
        // spills runs to disk.
        for threads in ["-j2", "-j3"] {
            assert!(expected == one(&[threads]), "{format}: {threads}");
            assert!(expected == one(&[threads, "--max-memory", "1M"]), "{format}: {threads}, spilled");
        }
        assert!(expected == one(&["-j1", "--max-memory", "1M"]), "{format}: spilled");
        let mut merge = vec!["book", "merge", "-q", "--min-games", "1", "--format", format];
        let parts: Vec<String> = (0..3)
            .map(|k| {
                let shard = format!("{k}/3");
                let partial = ok(&["book", "-q", "-j1", "--shard", &shard, "--format", "jsonl", games]);
                let threaded = ok(&["book", "-q", "-j3", "--shard", &shard, "--format", "jsonl", games]);
                assert!(partial == threaded, "shard {shard}: -j3");
                scratch.write(&format!("part{k}.jsonl"), partial)
            })
            .collect();
        merge.extend(parts.iter().map(String::as_str));
        let merged = scratch.str("merged");
        merge.extend(["-o", &merged]);
        ok(&merge);
        assert!(expected == std::fs::read(&merged).unwrap(), "{format}: merged shards");
    }
}

#[test]
fn a_book_is_never_written_to_a_terminal_and_a_shard_needs_jsonl() {
    let out = run(&["book", "--shard", "0/2", ILLEGAL], None);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("give --format jsonl"), "{}", out.stderr);
    let out = run(&["book", "merge", "/nonexistent/part.jsonl", "-o", "/dev/null"], None);
    assert_eq!(out.code, 2, "{}", out.stderr);
}
