//! `pgnkit moves`: every output notation, mixed input notations, errors that
//! leave the other lines alone, and a SAN/UCI/LAN round trip over a corpus
//! file checked against `validate`'s final positions.

use std::collections::HashMap;

use crate::support::{corpus, json_lines, run};

fn moves(args: &[&str], stdin: Option<&str>) -> crate::support::Run {
    let mut all = vec!["moves"];
    all.extend_from_slice(args);
    run(&all, stdin.map(str::as_bytes))
}

/// `Ruy Lopez, exchange variation` written in three notations at once.
const MIXED: &[&str] =
    &["1.", "e4", "e7e5", "2.", "Ng1-f3", "Nb8c6", "3.Bb5", "a7-a6", "4.", "Bb5xc6", "dxc6", "5.", "0-0"];

#[test]
fn each_output_notation_writes_the_same_moves() {
    let cases = [
        ("uci", "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5c6 d7c6 e1g1\n"),
        ("san", "e4 e5 Nf3 Nc6 Bb5 a6 Bxc6 dxc6 O-O\n"),
        ("lan", "e2-e4 e7-e5 Ng1-f3 Nb8-c6 Bf1-b5 a7-a6 Bb5xc6 d7xc6 O-O\n"),
        ("pgn", "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O\n"),
        ("fen", "r1bqkbnr/1pp2ppp/p1p5/4p3/4P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 1 5\n"),
    ];
    for (to, want) in cases {
        let mut args = vec!["--to", to];
        args.extend_from_slice(MIXED);
        let out = moves(&args, None);
        assert_eq!((out.code, out.stdout.as_str(), out.stderr.as_str()), (0, want, ""), "--to {to}");
    }
}

#[test]
fn uci_is_the_default_and_one_quoted_argument_is_a_whole_game() {
    let out = moves(&["1. d4 Nf6 2. c4 e6 3. Nc3 Bb4"], None);
    assert_eq!((out.code, out.stdout.as_str()), (0, "d2d4 g8f6 c2c4 e7e6 b1c3 f8b4\n"));
}

#[test]
fn fen_every_prints_the_position_after_each_ply() {
    let out = moves(&["--to", "fen", "--every", "e4", "c5", "Nf3"], None);
    let want = "\
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1
rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2
rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2
";
    assert_eq!((out.code, out.stdout.as_str()), (0, want));
    // From stdin, an empty line ends each game's positions.
    let out = moves(&["--to", "fen", "--every"], Some("e4\nd4 d5\n"));
    let want = "\
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1

rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1
rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2

";
    assert_eq!((out.code, out.stdout.as_str()), (0, want));
}

#[test]
fn every_without_fen_output_is_a_usage_error() {
    let out = moves(&["--to", "san", "--every", "e4"], None);
    assert_eq!(out.code, 2);
    assert_eq!(out.stderr, "pgnkit: error: --every prints positions: it needs --to fen\n");
}

#[test]
fn pgn_numbers_moves_from_the_fen_and_keeps_the_result() {
    let fen = "4k3/8/8/8/8/8/8/4K2R b K - 0 30";
    let out = moves(&["--to", "pgn", "--fen", fen, "30...", "Kd7", "31.", "O-O", "Ke6", "1/2-1/2"], None);
    assert_eq!((out.code, out.stdout.as_str()), (0, "30... Kd7 31. O-O Ke6 1/2-1/2\n"));
}

#[test]
fn chess960_castling_from_a_shredder_fen_is_king_takes_rook_in_uci() {
    let fen = "rbbq1k1r/pppppppp/8/8/8/8/PPPPPPPP/RBBQ1K1R w HAha - 0 1";
    let out = moves(&["--fen", fen, "O-O", "O-O"], None);
    assert_eq!((out.code, out.stdout.as_str()), (0, "f1h1 f8h8\n"));
    let out = moves(&["--fen", fen, "--to", "san", "f1h1", "f8h8"], None);
    assert_eq!((out.code, out.stdout.as_str()), (0, "O-O O-O\n"));
}

#[test]
fn an_unreadable_fen_is_a_usage_error() {
    let out = moves(&["--fen", "8/8/9/8/8/8/8/8 w - - 0 1", "e4"], None);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr,
        "pgnkit: error: --fen `8/8/9/8/8/8/8/8 w - - 0 1` is not a usable FEN: board-char: row 3 (rank 6) `9` has \
         `9`, which is not a piece letter (KQRBNP for White, kqrbnp for Black) or a count of empty squares (1 to 8)\n"
    );
    let out = moves(&["--fen", "8/8/8/8/8/8/8/8 w - - 0 1", "e4"], None);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.starts_with("pgnkit: error: --fen `8/8/8/8/8/8/8/8 w - - 0 1` is not a usable FEN: missing-king"),
        "{}",
        out.stderr
    );
}

#[test]
fn stdin_lines_are_games_and_empty_lines_stay_empty() {
    let input = "1. e4 e5 2. Nf3 *\n\n\r\nd2d4 d7-d5 c4 1-0\r\n";
    let out = moves(&["--to", "san"], Some(input));
    assert_eq!((out.code, out.stdout.as_str(), out.stderr.as_str()), (0, "e4 e5 Nf3\n\n\nd4 d5 c4\n", ""));
}

#[test]
fn an_illegal_move_names_its_line_ply_and_reason_and_the_next_line_still_converts() {
    let input = "e4 e5 Nf3 Nc6\ne4 e5 Ke2 Bc5 Ke3\ne4 e5 g1e3\nd4 Nf6 0-0\nd4 Xq7\ne4 --\nd4 1-0 d5\ne4 \x1b[2J\nc4\n";
    let out = moves(&["--to", "san"], Some(input));
    assert_eq!(out.code, 1);
    // One output line per input line: an empty one for each that failed.
    assert_eq!(out.stdout, "e4 e5 Nf3 Nc6\n\n\n\n\n\n\n\nc4\n");
    let want = "\
pgnkit: line 2: error[illegal-move]: the king cannot move to e3: the square is attacked (ply 5: 3. Ke3)
pgnkit: line 3: error[illegal-move]: the White knight on g1 cannot move to e3 (ply 3: 2. g1e3)
pgnkit: line 4: error[illegal-move]: White cannot castle kingside: there are pieces between the king and the rook (f1, g1) (ply 3: 2. 0-0)
pgnkit: line 5: error[invalid-san]: `Xq7` is not a move in SAN, UCI or long algebraic notation (ply 2: 1... Xq7)
pgnkit: line 6: error[null-move]: a null move (a pass) is not a move that can be played (ply 2: 1... --)
pgnkit: line 7: error[invalid-san]: a move after the result `1-0` (ply 2: 1... d5)
pgnkit: line 8: error[invalid-san]: `\\u{1b}[2J` is not a move in SAN, UCI or long algebraic notation (ply 2: 1... \\u{1b}[2J)
";
    assert_eq!(out.stderr, want);
}

#[test]
fn a_move_onto_an_enemy_piece_is_a_capture_without_x_only_when_a_piece_could_take_there() {
    // After 1. Nf3, no black knight reaches f3: the x is not what is wrong.
    let out = moves(&[], Some("e4\nNf3 Nf3\nd4\n"));
    assert_eq!((out.code, out.stdout.as_str()), (1, "e2e4\n\nd2d4\n"));
    assert!(!out.stderr.contains("written with x"), "{}", out.stderr);
    assert!(out.stderr.starts_with("pgnkit: line 2: error[illegal-move]: "), "{}", out.stderr);
    // After 1. e4 d5, the pawn on e4 takes on d5: read as the capture, as
    // `validate` reads it, with its warning.
    let out = moves(&["e4", "d5", "ed5"], None);
    assert_eq!((out.code, out.stdout.as_str()), (0, "e2e4 d7d5 e4d5\n"));
    let want = "pgnkit: warning[unmarked-capture]: a capture written without `x`; read as exd5 \
                (later captures of this line written so are read the same way, without a warning) (ply 3: 2. ed5)\n";
    assert_eq!(out.stderr, want);
}

#[test]
fn a_move_after_mate_in_the_arguments_prints_nothing_and_exits_1() {
    let out = moves(&["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#", "Ke7"], None);
    assert_eq!((out.code, out.stdout.as_str()), (1, ""));
    let want =
        "pgnkit: error[moves-after-end]: the game was already over (checkmate) before this move (ply 8: 4... Ke7)\n";
    assert_eq!(out.stderr, want);
}

/// The movetext of every game of a PGN file on one line, comments removed.
fn movetext_lines(pgn: &str) -> Vec<String> {
    let mut games = Vec::new();
    let mut current: Option<String> = None;
    for line in pgn.lines() {
        if line.starts_with('[') {
            games.extend(current.take());
        } else if !line.trim().is_empty() {
            let text = current.get_or_insert_with(String::new);
            text.push(' ');
            text.push_str(line);
        }
    }
    games.extend(current);
    games
        .into_iter()
        .map(|text| {
            let mut out = String::new();
            let mut depth = 0;
            for c in text.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ if depth == 0 => out.push(c),
                    _ => {}
                }
            }
            out.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect()
}

/// The moves of a movetext line as written, without numbers, result or
/// annotation glyphs.
fn written_sans(line: &str) -> String {
    let sans: Vec<&str> = line
        .split_whitespace()
        .filter(|t| !t.ends_with('.') && !matches!(*t, "1-0" | "0-1" | "1/2-1/2" | "*"))
        .map(|t| t.trim_end_matches(['!', '?']))
        .collect();
    sans.join(" ")
}

fn convert(to: &str, lines: &[String]) -> Vec<String> {
    let input = lines.join("\n") + "\n";
    let out = moves(&["--to", to], Some(&input));
    assert_eq!((out.code, out.stderr.as_str()), (0, ""), "--to {to}");
    out.stdout.lines().map(str::to_owned).collect()
}

#[test]
fn san_to_uci_to_san_round_trip_keeps_every_corpus_game() {
    let Some(corpus) = corpus() else { return };
    let path = corpus.join("pgn/shakmaty/lichess_db_1000k.pgn");
    let pgn = std::fs::read_to_string(&path).expect("corpus file");
    let lines = movetext_lines(&pgn);
    assert!(lines.len() > 400, "{} games", lines.len());

    let san = convert("san", &lines);
    assert_eq!(san.len(), lines.len());
    // lichess writes normalized SAN: reading and writing it changes nothing.
    for (i, (got, line)) in san.iter().zip(&lines).enumerate() {
        assert_eq!(got, &written_sans(line), "game {}", i + 1);
    }
    let uci = convert("uci", &san);
    assert_eq!(convert("san", &uci), san, "SAN -> UCI -> SAN");
    let lan = convert("lan", &uci);
    assert_eq!(convert("san", &lan), san, "UCI -> LAN -> SAN");

    let fens = convert("fen", &lines);
    // A game without moves gives an empty SAN line, and an empty line gives
    // an empty line whatever the output.
    let from_moves: Vec<String> =
        fens.iter().zip(&san).map(|(fen, san)| if san.is_empty() { String::new() } else { fen.clone() }).collect();
    assert_eq!(convert("fen", &uci), from_moves, "the same final positions from UCI");
    assert_eq!(convert("fen", &lan), from_moves, "the same final positions from LAN");
    // `validate` replays the PGN itself: its final FENs must agree.
    let report = run(&["validate", "-q", "--format", "jsonl", path.to_str().unwrap()], None);
    let reports = json_lines(&report.stdout);
    assert_eq!(reports.len(), fens.len());
    let by_game: HashMap<usize, &str> =
        reports.iter().map(|r| (r["game"].as_u64().unwrap() as usize, r["final_fen"].as_str().unwrap())).collect();
    for (i, fen) in fens.iter().enumerate() {
        assert_eq!(by_game[&(i + 1)], fen, "game {}", i + 1);
    }
}

#[test]
fn a_byte_order_mark_before_the_first_line_is_not_a_move() {
    let out = moves(&["--to", "san"], Some("\u{feff}e2e4 e7e5\ng1f3\n"));
    assert_eq!((out.code, out.stdout.as_str()), (0, "e4 e5\nNf3\n"), "{}", out.stderr);
}

#[test]
fn startpos_is_the_standard_start_wherever_a_fen_is_taken() {
    let out = moves(&["--fen", "startpos", "e4"], None);
    assert_eq!((out.code, out.stdout.as_str()), (0, "e2e4\n"), "{}", out.stderr);
    let out = crate::support::run(&["perft", "startpos", "2"], None);
    assert_eq!((out.code, out.stdout.as_str()), (0, "400\n"), "{}", out.stderr);
    let out = crate::support::run(&["fen", "show", "--ascii", "startpos"], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("1 | R N B Q K B N R |"), "{}", out.stdout);
    // Every game passes through the start position.
    let out =
        crate::support::run(&["filter", "-q", "--count", "--fen", "startpos", "testdata/valid/opera-game.pgn"], None);
    assert_eq!((out.code, out.stdout.as_str()), (0, "1\n"), "{}", out.stderr);
}

/// What one reader made of a line's last token: the SAN of the whole line
/// when it was played, else the error's code; and the warning codes (of
/// `unmarked-capture`, the one `moves` gives: coordinates are no fault
/// there).
type Verdict = (Result<String, String>, Vec<String>);

fn moves_verdict(line: &str) -> Verdict {
    let out = moves(&["--to", "san"], Some(&format!("{line}\n")));
    let codes = |severity: &str| -> Vec<String> {
        out.stderr
            .lines()
            .filter_map(|l| l.split_once(&format!(": {severity}[")))
            .map(|(_, rest)| rest.split(']').next().unwrap_or_default().to_owned())
            .collect()
    };
    let played = if out.code == 0 { Ok(out.stdout.trim().to_owned()) } else { Err(codes("error").join(",")) };
    (played, codes("warning"))
}

/// The verdict of `validate` and `convert --to san` on the same line as a
/// game's main line, and the verdict on its last token in a variation
/// (`alternative` played in its place in the main line).
fn game_verdicts(line: &str, alternative: &str) -> (Verdict, Result<(), String>, Vec<String>) {
    let errors = |f: &[(String, String)]| -> Result<(), String> {
        let codes: Vec<&str> = f.iter().filter(|(s, _)| s == "error").map(|(_, c)| c.as_str()).collect();
        if codes.is_empty() { Ok(()) } else { Err(codes.join(",")) }
    };
    let findings = |pgn: &str| -> Vec<(String, String)> {
        let out = run(&["validate", "--format", "jsonl", "-"], Some(pgn.as_bytes()));
        json_lines(&out.stdout)[0]["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .map(|d| (d["severity"].as_str().unwrap().to_owned(), d["code"].as_str().unwrap().to_owned()))
            .collect()
    };
    let unmarked = |f: &[(String, String)]| -> Vec<String> {
        f.iter().filter(|(_, code)| code == "unmarked-capture").map(|(_, code)| code.clone()).collect()
    };
    let main = findings(&format!("{line} *\n"));
    let converted = run(&["convert", "--to", "san", "-"], Some(format!("{line} *\n").as_bytes()));
    let played = errors(&main).map(|()| converted.stdout.trim().to_owned());
    let (before, token) = line.rsplit_once(' ').expect("a line of two moves at least");
    let in_variation = findings(&format!("{before} {alternative} ({token}) *\n"));
    ((played, unmarked(&main)), errors(&in_variation), unmarked(&in_variation))
}

#[test]
fn moves_validate_convert_and_variations_give_the_same_verdict_on_odd_tokens() {
    // (the line, a legal move in place of its last, what is played: the
    // SAN of the line, or the error's code).
    let castle = "e4 e5 Nf3 Nc6 Bc4 Bc5";
    let cases: &[(&str, &str, Result<&str, &str>)] = &[
        ("e4 e5 Nf3", "Nc3", Ok("e4 e5 Nf3")),
        ("e4 e5 f4 ef4", "Nc6", Ok("e4 e5 f4 exf4")),
        ("e4 d5 ed5", "Nc3", Ok("e4 d5 exd5")),
        ("e4 d5 e4-d5", "Nc3", Ok("e4 d5 exd5")),
        ("e4 f5 ef5", "d4", Ok("e4 f5 exf5")),
        ("e4 e5 Nf3 Nc6 Nf3e5", "d4", Ok("e4 e5 Nf3 Nc6 Nxe5")),
        ("e4 e5 Ng1-f3", "d4", Ok("e4 e5 Nf3")),
        (&format!("{castle} e1-g1"), "d3", Ok("e4 e5 Nf3 Nc6 Bc4 Bc5 O-O")),
        (&format!("{castle} e1g1"), "d3", Ok("e4 e5 Nf3 Nc6 Bc4 Bc5 O-O")),
        (&format!("{castle} Ke1-g1"), "d3", Ok("e4 e5 Nf3 Nc6 Bc4 Bc5 O-O")),
        ("e4 Nf6 e5 d5 exd6ep", "d4", Ok("e4 Nf6 e5 d5 exd6")),
        ("e4 Nf6 e5 d5 exd6e.p.", "d4", Ok("e4 Nf6 e5 d5 exd6")),
        ("e4 e5 Qxf7++", "d4", Err("illegal-move")),
        ("e4 e5 e1-g1", "d4", Err("illegal-move")),
        ("e4 e5 Nf4", "d4", Err("illegal-move")),
        ("e4 e5 Nxf3", "d4", Err("illegal-move")),
        ("e4 e5 Xq7", "d4", Err("invalid-san")),
    ];
    for &(ref line, alternative, want) in cases {
        let line = line.to_string();
        let (moves_said, moves_warned) = moves_verdict(&line);
        let ((game_said, game_warned), variation, variation_warned) = game_verdicts(&line, alternative);
        assert_eq!(moves_said, want.map(str::to_owned).map_err(str::to_owned), "moves on {line}");
        assert_eq!(game_said, moves_said, "validate and convert on {line}");
        assert_eq!(game_warned, moves_warned, "warnings on {line}");
        assert_eq!(variation.is_ok(), want.is_ok(), "in a variation: {line}: {variation:?}");
        if want.is_ok() {
            assert_eq!(variation_warned, moves_warned, "warnings in a variation on {line}");
        }
    }
}
