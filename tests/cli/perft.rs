//! `pgnkit perft`: counts from a FEN, `--divide`, suites and their exit codes.

use crate::support::{corpus, files_with_extension, root, run};

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

#[test]
fn the_count_alone_is_printed_for_a_fen_and_a_depth() {
    let out = run(&["perft", KIWIPETE, "3"], None);
    assert_eq!((out.code, out.stdout.as_str(), out.stderr.as_str()), (0, "97862\n", ""));
    let out = run(&["perft", "startpos", "4"], None);
    assert_eq!(out.stdout, "197281\n");
}

#[test]
fn every_thread_count_gives_the_same_count() {
    for threads in ["1", "2", "3"] {
        let out = run(&["perft", "-j", threads, KIWIPETE, "3"], None);
        assert_eq!(out.stdout, "97862\n", "-j{threads}");
    }
}

#[test]
fn divide_prints_each_root_move_sorted_then_the_total() {
    let out = run(&["perft", "--divide", "startpos", "2"], None);
    // python-chess: each of the 20 first moves has 20 replies.
    let moves = [
        "a2a3", "a2a4", "b1a3", "b1c3", "b2b3", "b2b4", "c2c3", "c2c4", "d2d3", "d2d4", "e2e3", "e2e4", "f2f3", "f2f4",
        "g1f3", "g1h3", "g2g3", "g2g4", "h2h3", "h2h4",
    ];
    let expected: String = moves.iter().map(|m| format!("{m}: 20\n")).collect::<String>() + "\n400\n";
    assert_eq!(out.stdout, expected);
    assert_eq!(out.code, 0);
}

#[test]
fn depth_zero_counts_the_position_itself() {
    assert_eq!(run(&["perft", "startpos", "0"], None).stdout, "1\n");
    assert_eq!(run(&["perft", "--divide", "startpos", "0"], None).stdout, "\n1\n");
}

#[test]
fn a_mated_position_has_no_moves_to_divide() {
    // Fool's mate: White is checkmated.
    let out = run(&["perft", "--divide", "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", "3"], None);
    assert_eq!((out.code, out.stdout.as_str()), (0, "\n0\n"));
}

#[test]
fn divide_writes_chess960_castling_king_onto_rook() {
    let out = run(&["perft", "--divide", "4k3/8/8/8/8/8/8/R5KR w HA - 0 1", "2"], None);
    let lines: Vec<&str> = out.stdout.lines().collect();
    // python-chess with chess960=True: 25 moves, 106 nodes.
    assert_eq!(lines.len(), 27, "{}", out.stdout);
    assert!(lines.contains(&"g1a1: 3") && lines.contains(&"g1h1: 3"), "{}", out.stdout);
    assert_eq!(lines.last(), Some(&"106"));
}

#[test]
fn verbose_adds_the_speed_on_stderr_only() {
    let out = run(&["perft", "-v", "startpos", "3"], None);
    assert_eq!(out.stdout, "8902\n");
    assert!(out.stderr.starts_with("pgnkit: 8902 nodes in ") && out.stderr.contains("Mnodes/s"), "{}", out.stderr);
}

#[test]
fn an_unreadable_fen_is_a_usage_error() {
    let out = run(&["perft", "rnbqkbnr/pppppppp/8 w", "3"], None);
    assert_eq!(out.code, 2);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr.starts_with(
            "pgnkit: error: `rnbqkbnr/pppppppp/8 w` is not a usable FEN: board-rows: the board has 3 rows"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn a_fen_without_a_king_is_a_usage_error() {
    let out = run(&["perft", "4k3/8/8/8/8/8/8/8 w - - 0 1", "1"], None);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr,
        "pgnkit: error: `4k3/8/8/8/8/8/8/8 w - - 0 1` is not a usable FEN: missing-king: White has no king; each \
         side has exactly one\n"
    );
}

#[test]
fn a_wrong_count_in_a_suite_is_one_line_and_exit_1() {
    let out = run(&["perft", "--suite", "testdata/perft/wrong-count.epd"], None);
    assert_eq!(
        out.stdout,
        "testdata/perft/wrong-count.epd:5: error[perft-mismatch]: depth 3 of `4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2`: \
         expected 277, got 276\n"
    );
    assert_eq!(
        out.stderr,
        "pgnkit: checked 9 counts of 4 positions in testdata/perft/wrong-count.epd: 1 wrong, 0 invalid lines; \
         23981 nodes\n"
    );
    assert_eq!(out.code, 1);
}

#[test]
fn max_depth_leaves_out_deeper_counts() {
    let out = run(&["perft", "--suite", "testdata/perft/wrong-count.epd", "--max-depth", "2"], None);
    assert_eq!(out.stdout, "");
    assert!(out.stderr.starts_with("pgnkit: checked 6 counts of 4 positions up to depth 2 in "), "{}", out.stderr);
    assert_eq!(out.code, 0);
}

#[test]
fn chess960_suites_in_blocks_pass() {
    let out = run(&["perft", "--suite", "testdata/perft/chess960-blocks.perft"], None);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
    assert!(out.stderr.contains("checked 12 counts of 4 positions"), "{}", out.stderr);
}

#[test]
fn a_suite_from_stdin_is_read() {
    let suite = std::fs::read(root().join("testdata/perft/chess960-blocks.perft")).unwrap();
    let out = run(&["perft", "--suite", "-"], Some(&suite));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("checked 12 counts of 4 positions in <stdin>"), "{}", out.stderr);
}

#[test]
fn an_invalid_fen_in_a_suite_is_reported_and_the_rest_checked() {
    let out = run(&["perft", "--suite", "testdata/perft/invalid-fen-in-suite.epd"], None);
    assert_eq!(
        out.stdout,
        "testdata/perft/invalid-fen-in-suite.epd:2: error[invalid-fen]: `4k3/8/8/8/8/8/8/8 w - - 0 1` is not a legal \
         position: illegal position: missing king\n"
    );
    assert!(out.stderr.contains("checked 3 counts of 1 position in "), "{}", out.stderr);
    assert!(out.stderr.contains("0 wrong, 1 invalid line;"), "{}", out.stderr);
    assert_eq!(out.code, 1);
}

#[test]
fn a_missing_suite_file_is_exit_2() {
    let out = run(&["perft", "--suite", "testdata/perft/no-such-suite.epd"], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.starts_with("pgnkit: error: cannot read testdata/perft/no-such-suite.epd: "), "{}", out.stderr);
}

#[test]
fn a_file_without_counts_is_not_a_suite() {
    let out = run(&["perft", "--suite", "testdata/valid/opera-game.pgn"], None);
    assert_eq!((out.code, out.stdout.as_str()), (2, ""));
    assert!(out.stderr.contains("no perft counts found"), "{}", out.stderr);
}

#[test]
fn fen_and_suite_cannot_be_combined() {
    let out = run(&["perft", "startpos", "3", "--suite", "testdata/perft/wrong-count.epd"], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("cannot be used with"), "{}", out.stderr);
}

/// The counts a suite lists up to `max_depth`, counted without pgnkit's
/// parser: `perft D N` lines, or `D<n> N` operations after a `;`.
fn listed_counts(text: &str, max_depth: u32) -> u64 {
    let shallow = |depth: &str| depth.parse::<u32>().is_ok_and(|d| d <= max_depth);
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
        if let Some(rest) = line.strip_prefix("perft ") {
            n += u64::from(rest.split_whitespace().next().is_some_and(shallow));
        } else {
            for op in line.split(';').skip(1) {
                n += u64::from(
                    op.trim().strip_prefix('D').and_then(|o| o.split_whitespace().next()).is_some_and(shallow),
                );
            }
        }
    }
    n
}

#[test]
fn every_corpus_perft_suite_passes_to_depth_3() {
    let Some(corpus) = corpus() else { return };
    let dir = corpus.join("perft");
    let mut suites = files_with_extension(&dir, "perft");
    suites.extend(files_with_extension(&dir, "epd"));
    assert!(suites.len() >= 5, "{suites:?}");
    for suite in suites {
        let path = suite.to_str().unwrap();
        let text = std::fs::read_to_string(&suite).unwrap();
        // perftsuite2.epd lists nothing below depth 4; its counts are small
        // (at most 3.8 million nodes), so it is checked in full.
        let max_depth = if listed_counts(&text, 3) == 0 { 99 } else { 3 };
        let listed = listed_counts(&text, max_depth);
        assert!(listed > 0, "{path}: no counts found by the test itself");
        let out = run(&["perft", "--suite", path, "--max-depth", &max_depth.to_string()], None);
        assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{path}: {}", out.stderr);
        assert!(
            out.stderr.starts_with(&format!("pgnkit: checked {listed} counts of ")),
            "{path}: {listed} counts listed; {}",
            out.stderr
        );
        assert!(out.stderr.contains(": 0 wrong, 0 invalid lines;"), "{path}: {}", out.stderr);
    }
}
