//! `pgnkit validate` on the fixtures: exact diagnostics, exit codes, formats.

use crate::support::{Scratch, json_lines, root, run, validate};

/// One text diagnostic line per finding, then the summary on stderr.
fn text_findings(fixture: &str) -> (i32, String) {
    let out = validate(&[fixture]);
    (out.code, out.stdout)
}

#[test]
fn castling_through_an_attacked_square_is_an_illegal_move() {
    let (code, stdout) = text_findings("testdata/invalid/illegal-castling-through-check.pgn");
    assert_eq!(
        stdout,
        "testdata/invalid/illegal-castling-through-check.pgn:9:45: error[illegal-move]: White cannot castle \
         kingside: the king would pass through f1, which is attacked (game 1, ply 9: 5. O-O)\n"
    );
    assert_eq!(code, 1);
}

#[test]
fn a_pinned_knight_that_moves_is_explained() {
    let (code, stdout) = text_findings("testdata/invalid/illegal-move-pinned-knight.pgn");
    assert_eq!(
        stdout,
        "testdata/invalid/illegal-move-pinned-knight.pgn:9:35: error[illegal-move]: the knight on c3 is pinned: \
         moving it would expose the White king to check (game 1, ply 7: 4. Nd5)\n"
    );
    assert_eq!(code, 1);
}

#[test]
fn a_square_no_piece_of_that_kind_reaches_is_explained() {
    let (_, stdout) = text_findings("testdata/invalid/illegal-move-no-piece-reaches.pgn");
    assert_eq!(
        stdout,
        "testdata/invalid/illegal-move-no-piece-reaches.pgn:9:13: error[illegal-move]: no White knight can \
         move to f4 (game 1, ply 3: 2. Nf4)\n"
    );
}

#[test]
fn a_king_moving_into_check_is_explained() {
    let (_, stdout) = text_findings("testdata/invalid/illegal-move-king-into-check.pgn");
    assert_eq!(
        stdout,
        "testdata/invalid/illegal-move-king-into-check.pgn:9:24: error[illegal-move]: the king cannot move to \
         e3: the square is attacked (game 1, ply 5: 3. Ke3)\n"
    );
}

#[test]
fn an_ambiguous_move_lists_its_candidates() {
    let (code, stdout) = text_findings("testdata/invalid/ambiguous-move.pgn");
    assert_eq!(
        stdout,
        "testdata/invalid/ambiguous-move.pgn:9:24: error[ambiguous-move]: `Nd2` could be any of Nbd2, Nfd2; \
         add the file or rank of the piece that moves (game 1, ply 5: 3. Nd2)\n"
    );
    assert_eq!(code, 1);
}

#[test]
fn a_token_the_parser_skips_is_reported_and_stops_the_replay() {
    let out = validate(&["--format", "jsonl", "testdata/invalid/invalid-san-token.pgn"]);
    let games = json_lines(&out.stdout);
    assert_eq!(games.len(), 1);
    let game = &games[0];
    assert_eq!(game["plies"], 7, "the replay stops before the bad token");
    assert_eq!(game["valid"], false);
    let d = &game["diagnostics"][0];
    assert_eq!(d["code"], "invalid-san");
    assert_eq!((d["line"].as_u64(), d["column"].as_u64(), d["ply"].as_u64()), (Some(9), Some(38), Some(8)));
    assert_eq!(d["san"], "Xq7");
    assert_eq!(d["fen"], "r1bqkbnr/1ppp1ppp/p1n5/4p3/B3P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 1 4");
    assert_eq!(out.code, 1);
}

#[test]
fn a_fen_tag_without_kings_is_an_invalid_fen_tag() {
    let out = validate(&["--format", "jsonl", "testdata/invalid/invalid-fen-tag.pgn"]);
    let game = &json_lines(&out.stdout)[0];
    assert_eq!(game["diagnostics"][0]["code"], "invalid-fen-tag");
    assert_eq!(game["diagnostics"][0]["line"], 9);
    assert_eq!(game["plies"], 0);
    assert!(game["final_fen"].is_null(), "no position was reached");
    assert_eq!(out.code, 1);
}

#[test]
fn impossible_castling_rights_in_a_fen_tag_are_dropped_with_a_warning_and_the_game_replayed() {
    let (code, stdout) = text_findings("testdata/invalid/fen-tag-impossible-castling-rights.pgn");
    assert_eq!(
        stdout,
        "testdata/invalid/fen-tag-impossible-castling-rights.pgn:9:1: warning[fen-tag-repaired]: the FEN tag \
         `4k3/8/8/8/8/8/8/4K2R w KQkq - 0 1` gives the castling rights `Qkq`, whose kings or rooks are not on \
         their squares: left out, the game is replayed from `4k3/8/8/8/8/8/8/4K2R w K - 0 1` (game 1)\n\
         testdata/invalid/fen-tag-impossible-castling-rights.pgn:21:1: warning[fen-tag-repaired]: the FEN tag \
         `4k2r/8/8/8/8/8/4K3/7R b Kk - 0 1` gives the castling right `K`, whose king or rook is not on its \
         square: left out, the game is replayed from `4k2r/8/8/8/8/8/4K3/7R b k - 0 1` (game 2)\n"
    );
    assert_eq!(code, 0);
    let out = validate(&["--format", "jsonl", "testdata/invalid/fen-tag-impossible-castling-rights.pgn"]);
    let games = json_lines(&out.stdout);
    // As python-chess replays them from the same tags.
    let replayed: Vec<_> =
        games.iter().map(|g| (g["plies"].as_u64(), g["valid"].as_bool(), g["final_fen"].as_str())).collect();
    assert_eq!(
        replayed,
        [
            (Some(2), Some(true), Some("8/3k4/8/8/8/8/8/5RK1 w - - 2 2")),
            (Some(2), Some(true), Some("5rk1/8/8/8/8/3K4/8/7R b - - 2 2"))
        ]
    );
    assert_eq!(validate(&["--deny-warnings", "testdata/invalid/fen-tag-impossible-castling-rights.pgn"]).code, 1);
}

#[test]
fn an_impossible_en_passant_square_in_a_fen_tag_is_dropped_with_a_warning_and_the_game_replayed() {
    let (code, stdout) = text_findings("testdata/invalid/fen-tag-impossible-en-passant.pgn");
    assert_eq!(
        stdout,
        "testdata/invalid/fen-tag-impossible-en-passant.pgn:9:1: warning[fen-tag-repaired]: the FEN tag \
         `4k3/8/8/8/8/8/4P3/4K3 w - e6 0 1` gives the en passant square e6, which no pawn of the side that just \
         moved can have skipped: left out, the game is replayed from `4k3/8/8/8/8/8/4P3/4K3 w - - 0 1` (game 1)\n\
         testdata/invalid/fen-tag-impossible-en-passant.pgn:21:1: warning[fen-tag-repaired]: the FEN tag \
         `4k3/4p3/8/8/4P3/8/8/4K3 b - e6 0 1` gives the en passant square e6, which no pawn of the side that just \
         moved can have skipped: left out, the game is replayed from `4k3/4p3/8/8/4P3/8/8/4K3 b - - 0 1` (game 2)\n"
    );
    assert_eq!(code, 0);
    let out = validate(&["--format", "jsonl", "testdata/invalid/fen-tag-impossible-en-passant.pgn"]);
    let fens: Vec<_> = json_lines(&out.stdout).iter().map(|g| g["final_fen"].as_str().map(str::to_owned)).collect();
    assert_eq!(
        fens,
        [Some("8/3k4/8/8/4P3/8/8/4K3 w - - 1 2".to_owned()), Some("4k3/8/8/4p3/4P3/8/3K4/8 b - - 1 2".to_owned())]
    );
}

#[test]
fn a_fen_tag_still_illegal_without_its_impossible_castling_rights_stays_an_invalid_fen_tag() {
    let (code, stdout) = text_findings("testdata/invalid/fen-tag-illegal-after-dropping-castling-rights.pgn");
    assert_eq!(
        stdout,
        "testdata/invalid/fen-tag-illegal-after-dropping-castling-rights.pgn:9:1: error[invalid-fen-tag]: the FEN \
         tag `4k3/8/8/8/8/8/8/r3K3 b KQ - 0 1` is not a legal position: illegal position: invalid castling \
         rights, opposite check (game 1)\n"
    );
    assert_eq!(code, 1);
}

#[test]
fn a_game_of_an_unsupported_variant_is_not_checked_rather_than_valid_and_fails_no_run() {
    let out = validate(&["-v", "testdata/invalid/unsupported-variant.pgn", "testdata/invalid/invalid-fen-tag.pgn"]);
    assert_eq!(
        out.stdout,
        "testdata/invalid/unsupported-variant.pgn:1: game 1: ? - ?, *, 0 plies, not checked\n\
         testdata/invalid/unsupported-variant.pgn:1:1: warning[unsupported-variant]: variant `crazyhouse` is not \
         standard chess or Chess960; its moves were not checked (game 1)\n\
         testdata/invalid/unsupported-variant.pgn:12: game 2: ? - ?, *, 2 plies, valid\n\
         testdata/invalid/invalid-fen-tag.pgn:1: game 1: ? - ?, *, 0 plies, invalid\n\
         testdata/invalid/invalid-fen-tag.pgn:9:1: error[invalid-fen-tag]: the FEN tag `8/8/8/8/8/8/P7/8 w - - 0 1` \
         is not a legal position: illegal position: missing king (game 1)\n"
    );
    assert_eq!(
        out.stderr,
        "pgnkit: checked 3 games in 2 inputs: 1 valid, 1 invalid, 1 not checked; 1 error, 1 warning\n"
    );
    assert_eq!(out.code, 1, "the FEN tag is an error");
    let variant = validate(&["testdata/invalid/unsupported-variant.pgn"]);
    assert_eq!(
        (variant.code, variant.stderr.as_str()),
        (0, "pgnkit: checked 2 games in 1 input: 1 valid, 0 invalid, 1 not checked; 0 errors, 1 warning\n")
    );
    assert_eq!(validate(&["--deny-warnings", "testdata/invalid/unsupported-variant.pgn"]).code, 1);
    let out = validate(&[
        "--format",
        "jsonl",
        "testdata/invalid/unsupported-variant.pgn",
        "testdata/invalid/invalid-fen-tag.pgn",
    ]);
    let verdicts: Vec<_> =
        json_lines(&out.stdout).iter().map(|g| (g["valid"].as_bool(), g["checked"].as_bool())).collect();
    assert_eq!(verdicts, [(Some(false), Some(false)), (Some(true), Some(true)), (Some(false), Some(false))]);
}

#[test]
fn an_unterminated_comment_does_not_swallow_the_next_game() {
    let out = validate(&["--format", "jsonl", "testdata/invalid/unterminated-comment.pgn"]);
    let games = json_lines(&out.stdout);
    assert_eq!(games.len(), 2);
    let codes: Vec<_> = games[0]["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].clone()).collect();
    assert_eq!(codes, ["unterminated-comment", "missing-result"]);
    assert_eq!(
        (games[0]["diagnostics"][0]["line"].as_u64(), games[0]["diagnostics"][0]["column"].as_u64()),
        (Some(9), Some(17))
    );
    assert_eq!(games[0]["plies"], 3);
    assert_eq!(
        (games[1]["game_line"].as_u64(), games[1]["valid"].as_bool(), games[1]["plies"].as_u64()),
        (Some(12), Some(true), Some(3))
    );
}

#[test]
fn an_unterminated_variation_does_not_swallow_the_next_game() {
    let out = validate(&["--format", "jsonl", "testdata/invalid/unterminated-variation.pgn"]);
    let games = json_lines(&out.stdout);
    assert_eq!(games.len(), 2);
    assert_eq!(games[0]["diagnostics"][0]["code"], "unterminated-variation");
    assert_eq!(games[0]["diagnostics"][0]["column"], 7);
    assert_eq!(games[0]["plies"], 1, "moves inside the variation are not main-line moves");
    assert_eq!(games[1]["valid"], true);
}

#[test]
fn a_missing_result_is_a_warning_that_fails_only_with_deny_warnings() {
    let out = validate(&["testdata/invalid/missing-result.pgn"]);
    assert_eq!(
        out.stdout,
        "testdata/invalid/missing-result.pgn:9:20: warning[missing-result]: the movetext does not end with a \
         result (1-0, 0-1, 1/2-1/2 or *) (game 1)\n"
    );
    assert_eq!(out.code, 0);
    assert_eq!(validate(&["--deny-warnings", "testdata/invalid/missing-result.pgn"]).code, 1);
}

#[test]
fn a_null_move_is_a_pass_with_a_warning() {
    let out = validate(&["--format", "jsonl", "testdata/invalid/null-move.pgn"]);
    let game = &json_lines(&out.stdout)[0];
    assert_eq!(game["valid"], true);
    assert_eq!(game["plies"], 4);
    assert_eq!(game["diagnostics"][0]["code"], "null-move");
    assert_eq!(game["diagnostics"][0]["severity"], "warning");
    assert_eq!(game["diagnostics"][0]["ply"], 2);
    assert_eq!(game["final_fen"], "rnbqkbnr/pppp1ppp/8/4p3/3PP3/8/PPP2PPP/RNBQKBNR w KQkq - 0 3");
    assert_eq!(out.code, 0);
}

#[test]
fn a_null_move_while_in_check_is_an_error() {
    let out = validate(&["--format", "jsonl", "testdata/invalid/null-move-in-check.pgn"]);
    let game = &json_lines(&out.stdout)[0];
    assert_eq!(game["diagnostics"][0]["code"], "null-move");
    assert_eq!(game["diagnostics"][0]["severity"], "error");
    assert_eq!(game["plies"], 3);
    assert_eq!(out.code, 1);
}

#[test]
fn an_unmatched_parenthesis_is_reported() {
    let out = validate(&["testdata/invalid/unmatched-parenthesis.pgn"]);
    assert_eq!(
        out.stdout,
        "testdata/invalid/unmatched-parenthesis.pgn:9:10: error[unmatched-parenthesis]: this `)` closes no \
         variation (game 1)\n"
    );
    assert_eq!(out.code, 1);
}

/// (file, plies per game, final FEN per game) as python-chess computes them
/// (testdata/README.md).
const VALID: &[(&str, &[u64], &str)] = &[
    ("opera-game.pgn", &[33], "1n1Rkb1r/p4ppp/4q3/4p1B1/4P3/8/PPP2PPP/2K5 b k - 1 17"),
    ("immortal-game.pgn", &[45], "r1bk3r/p2pBpNp/n4n2/1p1NP2P/6P1/3P4/P1P1K3/q5b1 b - - 1 23"),
    ("evergreen-game.pgn", &[47], "1r3kr1/pbpBBp1p/1b3P2/8/8/2P2q2/P4PPP/3R2K1 b - - 0 24"),
    ("famous-games.pgn", &[33, 45, 47, 82, 87, 37, 13, 13], "2R5/8/8/8/r7/1K6/8/k7 b - - 2 7"),
    ("no-blank-line-between-games.pgn", &[7, 13], "rn1q1bnr/ppp1kB1p/3p2p1/3NN3/4P3/8/PPPP1PPP/R1BbK2R b KQ - 2 7"),
    ("crlf-line-endings.pgn", &[13], "rn1q1bnr/ppp1kB1p/3p2p1/3NN3/4P3/8/PPPP1PPP/R1BbK2R b KQ - 2 7"),
    ("utf8-bom.pgn", &[21], "rnbB1b1r/ppk2ppp/2p5/4q3/4n3/8/PPP2PPP/2KR1BNR b - - 3 11"),
    ("utf16le-bom.pgn", &[21], "rnbB1b1r/ppk2ppp/2p5/4q3/4n3/8/PPP2PPP/2KR1BNR b - - 3 11"),
    ("utf16be-bom.pgn", &[21], "rnbB1b1r/ppk2ppp/2p5/4q3/4n3/8/PPP2PPP/2KR1BNR b - - 3 11"),
    ("concatenated-files-with-bom.pgn", &[21, 33], "1n1Rkb1r/p4ppp/4q3/4p1B1/4P3/8/PPP2PPP/2K5 b k - 1 17"),
    ("latin1-player-name.pgn", &[21], "rnbB1b1r/ppk2ppp/2p5/4q3/4n3/8/PPP2PPP/2KR1BNR b - - 3 11"),
    ("tagless-movetext.pgn", &[7], "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4"),
    ("from-fen-position.pgn", &[9], "1n1Rkb1r/p4ppp/4q3/4p1B1/4P3/8/PPP2PPP/2K5 b k - 1 17"),
    ("chess960.pgn", &[10], "rbbq1rk1/pppp1ppp/3n4/4N3/4n3/3N4/PPPP1PPP/RBBQ1RK1 w - - 0 6"),
    ("escape-and-comments.pgn", &[13], "rn1q1bnr/ppp1kB1p/3p2p1/3NN3/4P3/8/PPPP1PPP/R1BbK2R b KQ - 2 7"),
    ("cr-line-endings.pgn", &[7, 2], "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2"),
    ("tagless-games-one-per-line.pgn", &[7, 4, 4], "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"),
];

#[test]
fn valid_fixtures_replay_completely_with_the_plies_and_fen_python_chess_finds() {
    for (file, plies, last_fen) in VALID {
        let path = format!("testdata/valid/{file}");
        let out = validate(&["--format", "jsonl", &path]);
        let games = json_lines(&out.stdout);
        let got: Vec<u64> = games.iter().map(|g| g["plies"].as_u64().unwrap()).collect();
        assert_eq!(&got, plies, "{file}: plies");
        assert!(games.iter().all(|g| g["valid"] == true), "{file}: {}", out.stdout);
        assert_eq!(games.last().unwrap()["final_fen"], *last_fen, "{file}: final FEN");
        assert_eq!(out.code, 0, "{file}: exit code");
    }
}

#[test]
fn a_latin1_name_is_decoded_and_warned_about_once() {
    let out = validate(&["--format", "jsonl", "testdata/valid/latin1-player-name.pgn"]);
    let game = &json_lines(&out.stdout)[0];
    assert_eq!(game["white"], "R\u{e9}ti, Richard");
    let codes: Vec<_> = game["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].clone()).collect();
    assert_eq!(codes, ["non-utf8"]);
}

#[test]
fn games_report_their_first_line() {
    let out = validate(&["--format", "jsonl", "testdata/valid/famous-games.pgn"]);
    let lines: Vec<u64> = json_lines(&out.stdout).iter().map(|g| g["game_line"].as_u64().unwrap()).collect();
    let text = std::fs::read_to_string(root().join("testdata/valid/famous-games.pgn")).unwrap();
    let event_lines: Vec<u64> =
        text.lines().enumerate().filter(|(_, l)| l.starts_with("[Event ")).map(|(i, _)| i as u64 + 1).collect();
    assert_eq!(lines, event_lines);
}

#[test]
fn compressed_copies_give_the_same_report_as_the_plain_file() {
    let plain = validate(&["--format", "jsonl", "testdata/valid/famous-games.pgn"]);
    let copies = ["famous-games.pgn.gz", "famous-games.pgn.zst", "famous-games.pgn.bz2", "famous-games.pgn.xz"];
    for copy in copies.into_iter().chain(["gzip-named-as-plain.pgn"]) {
        let path = format!("testdata/compressed/{copy}");
        let out = validate(&["--format", "jsonl", &path]);
        assert_eq!(out.stdout.replace(&path, "testdata/valid/famous-games.pgn"), plain.stdout, "{copy}");
        assert_eq!(out.code, 0);
    }
}

#[test]
fn stdin_is_read_when_no_path_or_a_dash_is_given() {
    let bytes = std::fs::read(root().join("testdata/compressed/famous-games.pgn.zst")).unwrap();
    for args in [&["validate", "--format", "jsonl"][..], &["validate", "--format", "jsonl", "-"]] {
        let out = run(args, Some(&bytes));
        let games = json_lines(&out.stdout);
        assert_eq!(games.len(), 8);
        assert_eq!(games[0]["file"], "<stdin>");
        assert_eq!(out.code, 0);
    }
}

#[test]
fn a_truncated_gzip_reports_the_games_before_the_cut_and_exits_2() {
    let out = validate(&["--format", "jsonl", "testdata/compressed/truncated.pgn.gz"]);
    let games = json_lines(&out.stdout);
    assert!(games.len() >= 2, "games before the cut are reported: {}", out.stdout);
    assert!(games[..games.len() - 1].iter().all(|g| g["valid"] == true));
    let last = games.last().unwrap();
    assert!(last["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "truncated-game"));
    assert!(out.stderr.contains("pgnkit: error: testdata/compressed/truncated.pgn.gz:"), "{}", out.stderr);
    assert_eq!(out.code, 2);
}

#[test]
fn a_truncated_zstd_gives_a_clear_error_and_exit_2() {
    let out = validate(&["testdata/compressed/truncated.pgn.zst"]);
    assert!(out.stderr.contains("pgnkit: error: testdata/compressed/truncated.pgn.zst:"), "{}", out.stderr);
    assert_eq!(out.code, 2);
}

/// `games` short games, each with a comment of `letters` pseudo-random
/// letters (from `seed`), which compressors cannot shrink much: a stream
/// of many blocks.
fn games_with_noisy_comments(games: usize, letters: usize, mut seed: u64) -> Vec<u8> {
    let mut plain = Vec::new();
    for index in 0..games {
        let noise: String = (0..letters)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                char::from(b'a' + (seed % 26) as u8)
            })
            .collect();
        plain.extend_from_slice(format!("[Event \"{index}\"]\n\n1. e4 {{{noise}}} e5 *\n\n").as_bytes());
    }
    plain
}

#[test]
fn a_truncated_multi_block_zstd_stream_keeps_the_games_before_the_cut() {
    // Games with noisy comments, so that the encoder writes many blocks.
    let plain = games_with_noisy_comments(3000, 40, 0x2545_f491_4f6c_dd1d);
    let mut compressed = zstd::encode_all(&plain[..], 3).unwrap();
    compressed.truncate(compressed.len() * 3 / 4);
    let out = run(&["validate", "--format", "jsonl", "-"], Some(&compressed));
    let games = json_lines(&out.stdout);
    assert!(games.len() > 100, "only {} games before the cut", games.len());
    assert_eq!(out.code, 2);
}

#[test]
fn a_many_block_bzip2_on_stdin_gives_the_same_report_whatever_the_threads_whole_cut_or_damaged() {
    use std::io::Write;
    let plain = games_with_noisy_comments(12_000, 60, 0x9e37_79b9_7f4a_7c15);
    // Level 1 writes a block per 100 kB: about ten of them.
    let mut encoder = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    encoder.write_all(&plain).unwrap();
    let whole = encoder.finish().unwrap();
    let expected = run(&["validate", "--format", "jsonl", "-"], Some(&plain));
    let mut damaged = whole.clone();
    damaged[whole.len() / 2] ^= 0x20;
    let inputs = [("whole", whole.clone()), ("cut", whole[..whole.len() * 2 / 3].to_vec()), ("damaged", damaged)];
    for (what, bytes) in inputs {
        let one = run(&["validate", "--format", "jsonl", "-j1", "-"], Some(&bytes));
        if what == "whole" {
            assert_eq!(one.stdout, expected.stdout);
            assert_eq!(one.code, 0);
        } else {
            assert!(json_lines(&one.stdout).len() > 1000, "{what}: the games before the damage are reported");
            assert!(one.stderr.contains("pgnkit: error: <stdin>:"), "{what}: {}", one.stderr);
            assert_eq!(one.code, 2, "{what}");
        }
        for threads in ["-j2", "-j4"] {
            let many = run(&["validate", "--format", "jsonl", threads, "-"], Some(&bytes));
            assert!(many.stdout == one.stdout, "{what}, {threads}: the same findings as -j1");
            assert_eq!((many.code, &many.stderr), (one.code, &one.stderr), "{what}, {threads}");
        }
    }
}

#[test]
fn a_missing_file_exits_2_but_the_other_inputs_are_still_read() {
    let out = validate(&["--format", "jsonl", "testdata/no-such-file.pgn", "testdata/valid/opera-game.pgn"]);
    assert_eq!(json_lines(&out.stdout).len(), 1);
    assert!(
        out.stderr.contains("pgnkit: error: testdata/no-such-file.pgn: No such file or directory"),
        "{}",
        out.stderr
    );
    assert_eq!(out.code, 2);
}

#[test]
fn a_directory_is_read_recursively_in_name_order_skipping_hidden_and_other_files() {
    let dir = Scratch::new("dir-input");
    for sub in ["b/deeper", "a", ".hidden", "empty"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    let opera = std::fs::read(crate::support::root().join("testdata/valid/opera-game.pgn")).unwrap();
    let zst = std::fs::read(crate::support::root().join("testdata/compressed/famous-games.pgn.zst")).unwrap();
    for file in ["b/deeper/z.pgn", "b/a.PGN", "a/x.pgn", ".hidden/h.pgn", "a/notes.txt", "top.pgn"] {
        std::fs::write(dir.join(file), &opera).unwrap();
    }
    std::fs::write(dir.join("a/y.pgn.zst"), zst).unwrap();
    // A link to a directory is not followed (no loop, no copy).
    std::os::unix::fs::symlink(&dir, dir.join("b/loop")).unwrap();
    let out = validate(&["-q", "--format", "jsonl", dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut files: Vec<String> = crate::support::json_lines(&out.stdout)
        .iter()
        .map(|g| g["file"].as_str().unwrap().strip_prefix(dir.to_str().unwrap()).unwrap().to_owned())
        .collect();
    files.dedup();
    assert_eq!(files, ["/a/x.pgn", "/a/y.pgn.zst", "/b/a.PGN", "/b/deeper/z.pgn", "/top.pgn"]);
    // A directory with no game file in it is an input error.
    let out = validate(&[dir.join("empty").to_str().unwrap()]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("empty: a directory with no game file under it"), "{}", out.stderr);
}

#[test]
fn exit_2_wins_over_exit_1() {
    let out = validate(&["testdata/no-such-file.pgn", "testdata/invalid/ambiguous-move.pgn"]);
    assert!(out.stdout.contains("error[ambiguous-move]"));
    assert_eq!(out.code, 2);
}

#[test]
fn an_empty_file_has_no_games_and_succeeds() {
    let out = validate(&["--format", "jsonl", "testdata/empty.pgn"]);
    assert_eq!(out.stdout, "");
    assert_eq!(out.code, 0);
}

#[test]
fn the_summary_goes_to_stderr_and_quiet_silences_it() {
    let out = validate(&["testdata/valid/famous-games.pgn"]);
    assert_eq!(out.stdout, "");
    assert_eq!(out.stderr, "pgnkit: checked 8 games in 1 input: 8 valid, 0 invalid; 0 errors, 0 warnings\n");
    let quiet = validate(&["-q", "testdata/valid/famous-games.pgn"]);
    assert_eq!(quiet.stderr, "");
}

#[test]
fn csv_has_one_row_per_finding_with_stable_columns() {
    let out = validate(&["--format", "csv", "testdata/invalid/unterminated-comment.pgn"]);
    let mut lines = out.stdout.lines();
    assert_eq!(
        lines.next(),
        Some("file,game,game_line,white,black,result,severity,code,line,column,ply,san,fen,message,reason")
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 2);
    assert!(
        rows[0].starts_with("testdata/invalid/unterminated-comment.pgn,1,1,?,?,*,error,unterminated-comment,9,17,,,,")
    );
}

#[test]
fn with_findings_leaves_out_games_without_findings() {
    // Game 1 has a warning only (no result marker), game 2 nothing.
    let out = validate(&["--format", "jsonl", "--with-findings", "testdata/invalid/missing-result.pgn"]);
    let games = json_lines(&out.stdout);
    assert_eq!(games.len(), 1);
    assert_eq!(games[0]["game"], 1);
}

/// Three games: one with an error and a warning, one with a warning only,
/// one without findings.
const ERROR_WARNING_CLEAN: &str = "[Event \"Error\"]\n\n1. e4 +/= e5 2. Ke3 *\n\n\
                                   [Event \"Warning\"]\n\n1. d4 +/= d5 *\n\n\
                                   [Event \"Clean\"]\n\n1. c4 *\n";

fn validate_stdin(args: &[&str]) -> crate::support::Run {
    let mut all = vec!["validate"];
    all.extend_from_slice(args);
    all.push("-");
    run(&all, Some(ERROR_WARNING_CLEAN.as_bytes()))
}

#[test]
fn errors_only_prints_only_games_with_an_error_with_their_warnings_in_every_format() {
    let jsonl = validate_stdin(&["--format", "jsonl", "--errors-only"]);
    let games = json_lines(&jsonl.stdout);
    assert_eq!(games.iter().map(|g| g["game"].as_u64().unwrap()).collect::<Vec<_>>(), [1]);
    assert_eq!(games[0]["diagnostics"].as_array().unwrap().len(), 2);
    let csv = validate_stdin(&["--format", "csv", "--errors-only"]);
    let rows: Vec<&str> = csv.stdout.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{}", csv.stdout);
    assert!(rows.iter().all(|row| row.starts_with("<stdin>,1,")), "{}", csv.stdout);
    let text = validate_stdin(&["--errors-only"]);
    assert_eq!(
        text.stdout.lines().map(|l| l.split(' ').nth(1).unwrap()).collect::<Vec<_>>(),
        ["warning[text-annotation]:", "error[illegal-move]:"],
        "{}",
        text.stdout
    );
    assert!(text.stdout.lines().all(|l| l.contains("(game 1")), "{}", text.stdout);
    // The summary line and the exit code still count every game.
    assert!(
        text.stderr.contains("checked 3 games in 1 input: 2 valid, 1 invalid; 1 error, 2 warnings"),
        "{}",
        text.stderr
    );
    assert_eq!(text.code, 1);
    // -v: the game line of the game shown only.
    let verbose = validate_stdin(&["-v", "--errors-only"]);
    assert_eq!(verbose.stdout.lines().filter(|l| l.contains(": game ")).count(), 1, "{}", verbose.stdout);
}

#[test]
fn with_findings_keeps_warning_only_games_and_conflicts_with_errors_only() {
    let jsonl = validate_stdin(&["--format", "jsonl", "--with-findings"]);
    let games = json_lines(&jsonl.stdout);
    assert_eq!(games.iter().map(|g| g["game"].as_u64().unwrap()).collect::<Vec<_>>(), [1, 2]);
    let verbose = validate_stdin(&["-v", "--with-findings"]);
    assert_eq!(verbose.stdout.lines().filter(|l| l.contains(": game ")).count(), 2, "{}", verbose.stdout);
    let both = validate_stdin(&["--errors-only", "--with-findings"]);
    assert_eq!(both.code, 2, "{}", both.stderr);
}

#[test]
fn output_is_identical_for_every_thread_count() {
    let inputs = [
        "testdata/valid/famous-games.pgn",
        "testdata/invalid/unterminated-comment.pgn",
        "testdata/valid/cr-line-endings.pgn",
    ];
    let run_with = |threads: &str| {
        let mut args = vec!["-j", threads, "--format", "jsonl"];
        args.extend(inputs);
        validate(&args).stdout
    };
    let one = run_with("1");
    assert!(!one.is_empty());
    assert_eq!(run_with("4"), one);
    assert_eq!(run_with("2"), one);
}

#[test]
fn a_closed_stdout_pipe_exits_quietly() {
    use std::process::Stdio;
    let game = std::fs::read(root().join("testdata/invalid/ambiguous-move.pgn")).unwrap();
    let many: Vec<u8> = (0..20_000).flat_map(|_| game.iter().copied().chain(*b"\n")).collect();
    let mut child = crate::support::pgnkit()
        .args(["validate", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(&many);
    });
    // Close the read end at once, as `| head -0` would.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn an_unescaped_quote_in_a_tag_value_is_read_to_the_last_quote_with_a_warning() {
    let path = "testdata/lenient/unescaped-quote-in-tag.pgn";
    let out = validate(&[path]);
    assert_eq!(
        out.stdout,
        format!(
            "{path}:1:1: warning[unescaped-quote]: the value of tag `Event` holds quotes that are not escaped: read up \
             to the last quote before the `]`, as `LA CC Handicap Tour \"C\"` (write \\\" inside a value) (game 1)\n\
             {path}:5:1: warning[unescaped-quote]: the value of tag `White` holds quotes that are not escaped: read up \
             to the last quote before the `]`, as `Smith, John \"The King\"` (write \\\" inside a value) (game 1)\n"
        )
    );
    assert_eq!(out.code, 0);
    // Every reader of tags reads the value alike.
    let csv = run(&["convert", "--to", "csv", path], None).stdout;
    assert!(
        csv.contains(",\"LA CC Handicap Tour \"\"C\"\"\",?,????.??.??,?,\"Smith, John \"\"The King\"\"\","),
        "{csv}"
    );
    let kept = run(&["filter", "--white", "Smith, John \"The King\"", path], None);
    assert!(kept.stdout.starts_with("[Event \"LA CC"), "{}", kept.stderr);
    // A `]` before the last quote, or another tag after it: still broken.
    let broken = run(&["validate", "-"], Some(b"[White \"a \"b\"] [Black \"c\"]\n\n1. e4 *\n"));
    assert!(
        broken.stdout.contains("error[invalid-tag]: the value of tag `White` contains a quote"),
        "{}",
        broken.stdout
    );
}

#[test]
fn a_tag_glued_to_the_result_before_it_starts_the_next_game_with_a_warning() {
    let path = "testdata/lenient/glued-games-by-cat.pgn";
    let out = validate(&["--format", "jsonl", path]);
    let games = json_lines(&out.stdout);
    assert_eq!(games.len(), 2);
    assert_eq!((games[0]["valid"].as_bool(), games[0]["diagnostics"].as_array().map(Vec::len)), (Some(true), Some(0)));
    let glued = &games[1]["diagnostics"][0];
    assert_eq!(
        (glued["code"].as_str(), glued["line"].as_u64(), glued["column"].as_u64()),
        (Some("glued-game"), Some(9), Some(24))
    );
    let csv = run(&["convert", "--to", "csv", path], None).stdout;
    assert!(csv.lines().nth(2).is_some_and(|game| game.contains(",2,9,b,x,")), "{csv}");
}

#[test]
fn a_byte_order_mark_before_a_tag_line_is_skipped_and_the_tag_read() {
    let path = "testdata/lenient/bom-before-tag-line.pgn";
    let out = validate(&[path]);
    assert_eq!((out.stdout.as_str(), out.code), ("", 0));
    let csv = run(&["convert", "--to", "csv", path], None).stdout;
    assert!(csv.lines().nth(1).is_some_and(|game| game.contains(",1,1,a,b,")), "{csv}");
    // Also when the game goes to pgn-reader (a comment never closed).
    let piped = run(
        &["convert", "--to", "csv", "-"],
        Some(b"[Event \"a\"]\n\xef\xbb\xbf[Site \"b\"]\n\n1. d4 {never closed *\n"),
    );
    assert!(piped.stdout.lines().nth(1).is_some_and(|game| game.contains(",1,1,a,b,")), "{}", piped.stdout);
}

#[test]
fn a_vertical_tab_or_form_feed_between_tags_loses_no_tag_in_any_game() {
    // pgn-reader skips only spaces, tabs and `\r` between tags; the framer
    // reads every blank, and a lone `\r` ends a line.
    for blank in ["\x0b", "\x0c ", "\r\x0b", "\n\x0b"] {
        for variant in ["", "[Variant \"crazyhouse\"]\n"] {
            let game = format!(
                "[Event \"x\"]\n{variant}[WhiteClock \"0\"]{blank}[BlackClock \"1\"]\n[PlyCount \"1\"]\n\n1. e4 *\n"
            );
            let out = run(&["convert", "-q", "--to", "pgn", "-"], Some(game.as_bytes()));
            let tags: Vec<&str> = out.stdout.lines().filter(|l| l.contains("Clock") || l.contains("e4")).collect();
            assert_eq!(tags, ["[BlackClock \"1\"]", "[WhiteClock \"0\"]", "1. e4 *"], "{blank:?} {variant:?}");
        }
    }
}

#[test]
fn of_a_tag_given_twice_the_last_counts_for_every_command_with_a_warning() {
    let path = "testdata/lenient/duplicate-fen-tag.pgn";
    let out = validate(&[path]);
    assert_eq!(
        out.stdout,
        format!(
            "{path}:8:1: warning[duplicate-tag]: tag `FEN` is given again, and the last one, on line 10, counts: \
             this one is ignored (game 1)\n"
        )
    );
    assert_eq!(out.code, 0);
    let start = "[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]";
    let converted = run(&["convert", "--to", "pgn", path], None).stdout;
    assert!(converted.contains(start) && !converted.contains("K6k"), "{converted}");
    let names = run(&["validate", "-"], Some(b"[White \"a\"]\n[White \"b\"]\n[White \"c\"]\n\n1. e4 *\n")).stdout;
    assert_eq!(
        names.matches("warning[duplicate-tag]: tag `White` is given again, and the last one, on line 3").count(),
        2
    );
    let filtered = run(&["filter", "--white", "c", "-"], Some(b"[White \"a\"]\n[White \"c\"]\n\n1. e4 *\n"));
    assert!(filtered.stdout.starts_with("[White \"a\"]"), "{}", filtered.stderr);
}

#[test]
fn moves_in_coordinates_are_read_with_one_warning() {
    let out = validate(&["--format", "jsonl", "testdata/invalid/coordinate-moves.pgn"]);
    let game = &json_lines(&out.stdout)[0];
    assert_eq!(game["plies"], 5);
    assert_eq!(game["valid"], true);
    assert_eq!(game["final_fen"], "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3");
    let diagnostics = game["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0]["code"], "non-san-move");
    assert_eq!((diagnostics[0]["line"].as_u64(), diagnostics[0]["column"].as_u64()), (Some(9), Some(17)));
}

#[test]
fn an_evaluation_written_as_text_is_a_warning_not_a_broken_move() {
    let out = validate(&["--format", "jsonl", "testdata/invalid/text-annotation.pgn"]);
    let game = &json_lines(&out.stdout)[0];
    assert_eq!(game["plies"], 4);
    assert_eq!(game["valid"], true);
    assert_eq!(game["diagnostics"][0]["code"], "text-annotation");
    assert_eq!(game["diagnostics"][0]["san"], "+/=");
    assert_eq!(out.code, 0);
}

#[test]
fn a_result_tag_that_contradicts_the_marker_is_a_result_mismatch() {
    let out = validate(&["testdata/invalid/result-tag-contradicts-marker.pgn"]);
    assert_eq!(
        out.stdout,
        "testdata/invalid/result-tag-contradicts-marker.pgn:9:21: error[result-mismatch]: the Result tag says 1-0 \
         but the movetext ends with 0-1 (game 1)\n"
    );
    assert_eq!(out.code, 1);
}

#[test]
fn a_win_for_the_mated_side_is_a_result_mismatch() {
    let out = validate(&["testdata/invalid/result-contradicts-checkmate.pgn"]);
    assert_eq!(
        out.stdout,
        "testdata/invalid/result-contradicts-checkmate.pgn:9:21: error[result-mismatch]: White is checkmated, so \
         the result is 0-1, but the Result tag says 1-0 and the movetext ends with 1-0 (game 1)\n"
    );
}

#[test]
fn a_decisive_result_after_an_automatic_draw_before_the_end_names_the_ply_of_the_draw() {
    let out = validate(&[
        "testdata/invalid/decisive-result-after-fivefold.pgn",
        "testdata/invalid/decisive-result-after-seventyfive-moves.pgn",
    ]);
    assert_eq!(
        out.stdout,
        "testdata/invalid/decisive-result-after-fivefold.pgn:10:4: warning[moves-after-end]: the game was already \
         drawn (fivefold repetition) after ply 16; the moves from here on do not count (game 1, ply 17: 9. e4)\n\
         testdata/invalid/decisive-result-after-fivefold.pgn:10:10: error[result-mismatch]: the position occurred \
         five times at ply 16, which drew the game there (FIDE 9.6), so the result is 1/2-1/2, but the Result tag \
         says 1-0 and the movetext ends with 1-0 (game 1)\n\
         testdata/invalid/decisive-result-after-seventyfive-moves.pgn:11:36: warning[moves-after-end]: the game was \
         already drawn (75 moves without capture or pawn move) after ply 5; the moves from here on do not count \
         (game 1, ply 6: 122... Kb6)\n\
         testdata/invalid/decisive-result-after-seventyfive-moves.pgn:11:49: error[result-mismatch]: 75 moves passed \
         without capture or pawn move at ply 5, which drew the game there (FIDE 9.6), so the result is 1/2-1/2, but \
         the Result tag says 0-1 and the movetext ends with 0-1 (game 1)\n"
    );
    assert_eq!(out.code, 1);
}

#[test]
fn a_result_tag_that_is_not_a_result_is_an_error_at_the_tag_naming_the_result_given_instead() {
    let out = validate(&["testdata/invalid/result-tag-not-a-result.pgn"]);
    assert_eq!(
        out.stdout,
        "testdata/invalid/result-tag-not-a-result.pgn:7:1: error[invalid-result-tag]: the Result tag \"0-0\" is \
         not a result (1-0, 0-1, 1/2-1/2 or *); the game's result is the movetext's 1-0 (game 1)\n\
         testdata/invalid/result-tag-not-a-result.pgn:17:1: error[invalid-result-tag]: the Result tag \"\" is not \
         a result (1-0, 0-1, 1/2-1/2 or *); the game's result is *, as the movetext gives none either (game 2)\n\
         testdata/invalid/result-tag-not-a-result.pgn:19:9: warning[missing-result]: the movetext does not end \
         with a result (1-0, 0-1, 1/2-1/2 or *) (game 2)\n"
    );
    assert_eq!(out.code, 1);
}

#[test]
fn a_result_tag_is_a_result_only_when_written_exactly_as_one() {
    for value in ["0-0", "1/2", "\u{bd}-\u{bd}", "1-0 ff", " 1-0", "?", "1-0 (time)"] {
        let pgn = format!("[Result \"{value}\"]\n\n1. e4 e5 1/2-1/2\n");
        let out = run(&["validate", "--format", "jsonl", "-"], Some(pgn.as_bytes()));
        let game = &json_lines(&out.stdout)[0];
        assert_eq!(game["diagnostics"][0]["code"], "invalid-result-tag", "{value:?}");
        assert_eq!((game["result"].as_str(), game["result_marker"].as_str()), (Some("1/2-1/2"), Some("1/2-1/2")));
        assert_eq!(out.code, 1, "{value:?}");
    }
    for value in ["1-0", "0-1", "1/2-1/2", "*"] {
        let pgn = format!("[Result \"{value}\"]\n\n1. e4 e5 {value}\n");
        let out = run(&["validate", "-"], Some(pgn.as_bytes()));
        assert_eq!((out.stdout.as_str(), out.code), ("", 0), "{value}");
    }
}

#[test]
fn jsonl_gives_the_games_result_with_the_tag_and_the_marker_apart() {
    let out = validate(&["--format", "jsonl", "testdata/invalid/result-tag-not-a-result.pgn"]);
    let games = json_lines(&out.stdout);
    fn fields(g: &serde_json::Value) -> (Option<&str>, Option<&str>, Option<&str>) {
        (g["result"].as_str(), g["result_tag"].as_str(), g["result_marker"].as_str())
    }
    assert_eq!(fields(&games[0]), (Some("1-0"), Some("0-0"), Some("1-0")));
    assert_eq!(fields(&games[1]), (Some("*"), Some(""), None));
    let out = run(&["validate", "--format", "jsonl", "-"], Some(b"1. e4 e5 0-1\n"));
    assert_eq!(fields(&json_lines(&out.stdout)[0]), (Some("0-1"), None, Some("0-1")), "no tag: the marker");
}

#[test]
fn a_draw_marker_written_with_one_half_signs_is_read_as_a_draw_with_a_warning() {
    let out = validate(&["testdata/invalid/nonstandard-result-marker.pgn"]);
    assert_eq!(
        out.stdout,
        "testdata/invalid/nonstandard-result-marker.pgn:9:21: warning[nonstandard-result-marker]: `\u{bd}-\u{bd}` is \
         not a termination marker of the PGN standard (1-0, 0-1, 1/2-1/2 or *); read as 1/2-1/2 (game 1)\n"
    );
    assert_eq!(out.code, 0, "the draw agrees with the Result tag");
    let out = run(&["validate", "-"], Some("[Result \"0-1\"]\n\n1. e4 e5 1\u{2013}0\n".as_bytes()));
    assert_eq!(
        out.stdout,
        "<stdin>:3:10: warning[nonstandard-result-marker]: `1\u{2013}0` is not a termination marker of the PGN \
         standard (1-0, 0-1, 1/2-1/2 or *); read as 1-0 (game 1)\n\
         <stdin>:3:10: error[result-mismatch]: the Result tag says 0-1 but the movetext ends with 1-0 (game 1)\n"
    );
}

#[test]
fn a_move_after_checkmate_is_reported_as_such() {
    let out = validate(&["--format", "jsonl", "testdata/invalid/moves-after-checkmate.pgn"]);
    let game = &json_lines(&out.stdout)[0];
    assert_eq!(game["plies"], 4);
    assert_eq!(game["board_termination"], "checkmate");
    assert_eq!(game["diagnostics"][0]["code"], "moves-after-end");
    assert_eq!(game["diagnostics"][0]["ply"], 5);
    assert_eq!(game["diagnostics"].as_array().unwrap().len(), 1, "the 0-1 result matches the mate");
}

#[test]
fn the_corrected_results_of_pgn_extract_pass_and_the_wrong_ones_fail() {
    let Some(corpus) = crate::support::corpus() else { return };
    let wrong =
        validate(&["--format", "jsonl", corpus.join("pgn/pgn-extract/test-fixresulttags-in.pgn").to_str().unwrap()]);
    let games = json_lines(&wrong.stdout);
    assert!(games.iter().all(|g| g["diagnostics"][0]["code"] == "result-mismatch"), "{}", wrong.stdout);
    let fixed = validate(&[corpus.join("pgn/pgn-extract/test-fixresulttags-out.pgn").to_str().unwrap()]);
    assert_eq!((fixed.stdout.as_str(), fixed.code), ("", 0));
}

#[test]
fn an_en_passant_capture_that_would_expose_the_king_names_the_pin_not_the_double_step() {
    let out = validate(&[
        "testdata/invalid/illegal-en-passant-pinned-on-file.pgn",
        "testdata/invalid/illegal-en-passant-pinned-on-diagonal.pgn",
        "testdata/invalid/illegal-en-passant-exposes-king-on-rank.pgn",
    ]);
    assert_eq!(
        out.stdout,
        "testdata/invalid/illegal-en-passant-pinned-on-file.pgn:11:12: error[illegal-move]: exd6 would capture the \
         black pawn on d5 en passant, but the pawn on e5 is pinned: moving it would expose the White king to the \
         black rook on e8 (game 1, ply 2: 2. exd6)\n\
         testdata/invalid/illegal-en-passant-pinned-on-diagonal.pgn:11:12: error[illegal-move]: exd6 would capture \
         the black pawn on d5 en passant, but the pawn on e5 is pinned: moving it would expose the White king to the \
         black bishop on h8 (game 1, ply 2: 2. exd6)\n\
         testdata/invalid/illegal-en-passant-exposes-king-on-rank.pgn:11:12: error[illegal-move]: bxc6 would capture \
         the black pawn on c5 en passant, but both pawns would leave the fifth rank, exposing the White king on a5 \
         to the black rook on h5 (game 1, ply 2: 2. bxc6)\n"
    );
    assert_eq!(out.code, 1);
}

#[test]
fn an_en_passant_capture_one_move_too_late_is_explained() {
    let out = validate(&["testdata/invalid/illegal-en-passant-expired.pgn"]);
    assert_eq!(
        out.stdout,
        "testdata/invalid/illegal-en-passant-expired.pgn:9:33: error[illegal-move]: exf6 captures on f6, but f6 \
         is empty, and en passant is not available: the black pawn on f5 did not just advance two squares \
         (game 1, ply 7: 4. exf6)\n"
    );
}

#[test]
fn verbose_text_gives_every_game_a_line_with_how_it_ended() {
    let out = validate(&["-v", "testdata/valid/opera-game.pgn", "testdata/valid/perpetual-check.pgn"]);
    assert_eq!(
        out.stdout,
        "testdata/valid/opera-game.pgn:1: game 1: Morphy, Paul - Duke Karl / Count Isouard, 1-0, 33 plies, \
         checkmate, valid\n\
         testdata/valid/perpetual-check.pgn:1: game 1: ? - ?, 1/2-1/2, 9 plies, threefold_repetition, \
         drawn by perpetual_check, threefold at ply 9, valid\n"
    );
    assert_eq!(out.code, 0);
}

#[test]
fn variations_are_replayed_from_their_branch_and_an_illegal_move_there_is_an_error() {
    let file = "testdata/invalid/illegal-move-in-variation.pgn";
    let out = validate(&[file]);
    assert_eq!(
        out.stdout,
        format!(
            "{file}:9:14: error[illegal-move-in-variation]: `Ke7` in a variation cannot be played: \
             e7 is occupied by a Black pawn (game 1, ply 2: 1... Ke7)\n\
             {file}:9:54: error[illegal-move-in-variation]: `Ke3` in a variation cannot be played: \
             no White king can move to e3 (game 1, ply 5: 3. Ke3)\n"
        )
    );
    assert_eq!(out.code, 1);
    // The position before the variation move: after 1. d4, not after 1. e4.
    let jsonl = validate(&["--format", "jsonl", file]);
    let game = &json_lines(&jsonl.stdout)[0];
    assert_eq!(game["diagnostics"][0]["fen"], "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1");
    assert_eq!(game["plies"], 4);
}

#[test]
fn mainline_only_does_not_replay_variations() {
    let out = validate(&["--mainline-only", "testdata/invalid/illegal-move-in-variation.pgn"]);
    assert_eq!((out.stdout.as_str(), out.code), ("", 0));
    assert!(out.stderr.contains("1 valid, 0 invalid"), "{}", out.stderr);
}

#[test]
fn stray_text_between_games_is_no_game_and_a_warning_on_the_game_before_it() {
    let file = "testdata/invalid/stray-text-between-games.pgn";
    let out = validate(&[file]);
    let warning = |at: &str, shown: &str, game: u32| {
        format!(
            "{file}:{at}: warning[stray-text]: text between games that is not a game (no tag, no move), \
             skipped: `{shown}` (game {game})\n"
        )
    };
    assert_eq!(
        out.stdout,
        [
            warning("4:45", "*", 1),
            warning("4:47", "*", 1),
            warning("6:1", "From: news@example.com", 1),
            warning("13:1", "(+)-(-)", 2)
        ]
        .concat()
    );
    // Three games: the two tag sections and the tag-less `1. c4 c5 *`.
    assert!(
        out.stderr.contains("checked 3 games in 1 input: 3 valid, 0 invalid; 0 errors, 4 warnings"),
        "{}",
        out.stderr
    );
    assert_eq!(out.code, 0);
}

#[test]
fn an_input_of_text_with_no_game_in_it_is_an_error() {
    let file = "testdata/invalid/no-game-only-text.txt";
    let out = validate(&[file]);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr.starts_with(&format!(
            "pgnkit: error: {file}: holds no game: only text that is not PGN, from line 1 column 1: \
             `From: news@example.com`\n"
        )),
        "{}",
        out.stderr
    );
    assert_eq!(out.code, 2);
}

#[test]
fn a_dollar_token_that_is_not_a_nag_from_0_to_255_is_a_warning_not_dropped_silently() {
    let out = validate(&["testdata/invalid/nag-above-255.pgn"]);
    let finding = |column: u32, nag: &str| {
        format!(
            "testdata/invalid/nag-above-255.pgn:9:{column}: warning[invalid-nag]: `{nag}` is not a NAG, which is \
             `$` and a number from 0 to 255 (the PGN standard's range); it is ignored (game 1)\n"
        )
    };
    assert_eq!(out.stdout, [finding(13, "$256"), finding(27, "$1000"), finding(41, "$x")].concat());
    assert_eq!(out.code, 0);
}

#[test]
fn en_passant_marks_spaced_or_glued_are_read_with_one_warning_and_lint_names_the_capture() {
    let out = validate(&["--format", "csv", "--lint", "testdata/invalid/lint-en-passant-suffix.pgn"]);
    let codes: Vec<&str> = out.stdout.lines().skip(1).map(|row| row.split(',').nth(7).unwrap_or_default()).collect();
    assert_eq!(codes, ["lint-en-passant-suffix", "non-san-move"], "{}", out.stdout);
    let glued = validate(&["--format", "jsonl", "testdata/lenient/en-passant-mark-glued.pgn"]);
    let game = &json_lines(&glued.stdout)[0];
    assert_eq!((game["plies"].as_u64(), game["valid"].as_bool()), (Some(6), Some(true)));
    let d = &game["diagnostics"][0];
    assert_eq!(
        (d["code"].as_str(), d["line"].as_u64(), d["column"].as_u64()),
        (Some("non-san-move"), Some(9), Some(23))
    );
    assert_eq!((d["ply"].as_u64(), d["san"].as_str()), (Some(5), Some("exd6e.p.")));
}

#[test]
fn a_file_that_ends_inside_a_tag_pair_has_an_invalid_tag_as_anywhere_else() {
    for threads in ["-j1", "-j2"] {
        let cut = run(&["validate", threads, "-"], Some(b"[Event \"a\"]\n[White \"b"));
        assert_eq!(cut.code, 1, "{threads}: {}", cut.stderr);
        assert!(
            cut.stdout.contains("<stdin>:2:1: error[invalid-tag]: the value of tag `White` has no closing quote"),
            "{threads}: {}",
            cut.stdout
        );
        // A whole tag pair on the last line, with no newline, is no error.
        let whole = run(&["validate", threads, "-"], Some(b"[Event \"a\"]\n[White \"b\"]"));
        assert_eq!(whole.code, 0, "{threads}: {}", whole.stderr);
    }
}
