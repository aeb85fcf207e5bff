//! `pgnkit fen check`: every defect code on its fixture with exact text,
//! the formats, `--normalize`, FEN arguments and stdin, exit codes, and the
//! position lists of the shared corpus.

use pgnkit::fen_check::FenCode;
use serde_json::Value;

use crate::support::{Scratch, corpus, files_with_extension, json_lines, root, run};

/// `pgnkit fen check ARGS`, with stdin if given.
fn fen_check(args: &[&str], stdin: Option<&[u8]>) -> crate::support::Run {
    let mut all = vec!["fen", "check"];
    all.extend_from_slice(args);
    run(&all, stdin)
}

/// (fixture under testdata/fen, without `.fen`; exit code; text lines
/// without the `testdata/fen/<fixture>.fen:` prefix).
const FINDINGS: &[(&str, i32, &[&str])] = &[
    (
        "board-char",
        1,
        &[
            "2:18: error[board-char]: row 8 (rank 1) `4X3` has `X`, which is not a piece letter \
             (KQRBNP for White, kqrbnp for Black) or a count of empty squares (1 to 8)",
            "3:11: error[board-char]: row 5 (rank 4) `9` has `9`, which is not a piece letter (KQRBNP \
             for White, kqrbnp for Black) or a count of empty squares (1 to 8)",
        ],
    ),
    (
        "board-digits",
        1,
        &["2:11: error[board-digits]: row 5 (rank 4) has the empty-square counts `4` and `4` side \
             by side; write one count for a run of empty squares"],
    ),
    (
        "board-row-length",
        1,
        &[
            "2:11: error[board-row-length]: row 5 (rank 4) `7` covers 7 squares; every row covers \
             exactly 8 (a letter per piece, a digit per run of empty squares)",
            "3:1: error[board-row-length]: row 1 (rank 8) `4k4` covers 9 squares; every row covers \
             exactly 8 (a letter per piece, a digit per run of empty squares)",
        ],
    ),
    (
        "board-rows",
        1,
        &["2:1: error[board-rows]: the board has 7 rows; a FEN board has 8, from rank 8 down to \
             rank 1, separated by `/`"],
    ),
    (
        "castling-field",
        1,
        &[
            "2:27: error[castling-field]: the castling field `KQkx` has `x`: castling rights are \
             written `K` and `Q` (or the file of the rook, `A` to `H`) for White, the same in lower \
             case for Black, or `-` for none",
            "3:27: error[castling-field]: the castling field gives White 3 rights (`KQA`); a side can \
             castle on two wings at most",
            "4:28: error[castling-field]: the castling field `KK` gives `K` more than once",
        ],
    ),
    (
        "castling-order",
        0,
        &[
            "2:27: warning[castling-order]: the castling field `kqKQ` is not in the usual order (White's \
             rights first, each side's kingside first); write `KQkq`",
            "3:27: warning[castling-order]: the castling field `QK` is not in the usual order (White's \
             rights first, each side's kingside first); write `KQ`",
            "4:27: warning[castling-order]: the castling field `AHah` is not in the usual order (White's \
             rights first, each side's kingside first); write `HAha`",
        ],
    ),
    (
        "castling-rights",
        1,
        &[
            "2:23: error[castling-rights]: castling right `K` (kingside) needs a White rook on the \
             first rank to the right of the king on e1 (h1 in standard chess), and there is none",
            "3:25: error[castling-rights]: castling right `C` needs a White rook on c1, but c1 is \
             empty",
            "4:24: error[castling-rights]: castling right `K`: the White king is on e2, off the first \
             rank, so it has moved",
            "5:26: error[castling-rights]: castling rights `H` (h1) and `G` (g1) are both White \
             kingside rights: a side castles once on each wing",
        ],
    ),
    (
        "counter-leading-zero",
        0,
        &["2:27: warning[counter-leading-zero]: the halfmove clock `00` has a leading zero; write \
             `0`"],
    ),
    (
        "crlf-with-bom",
        1,
        &["4:25: error[en-passant-wrong-rank]: with White to move the en passant square is on the \
             sixth rank (the square a Black pawn has just skipped), but e3 is on the third"],
    ),
    (
        "en-passant-field",
        1,
        &["2:25: error[en-passant-field]: the en passant field `e9` is not a square; expected `-` \
             or a square such as `e3` or `d6`"],
    ),
    (
        "en-passant-no-pawn",
        1,
        &["2:25: error[en-passant-no-pawn]: the en passant square d6 says a Black pawn has just \
             moved from d7 to d5, but d5 is empty"],
    ),
    (
        "en-passant-square-occupied",
        1,
        &[
            "2:29: error[en-passant-square-occupied]: the en passant square d6 holds a Black knight, \
             but a pawn that has just skipped it left it empty",
            "3:29: error[en-passant-square-occupied]: d7 holds a Black bishop, but the en passant \
             square d6 says a Black pawn has just left it",
        ],
    ),
    (
        "en-passant-wrong-rank",
        1,
        &["2:27: error[en-passant-wrong-rank]: with White to move the en passant square is on the \
             sixth rank (the square a Black pawn has just skipped), but e3 is on the third"],
    ),
    (
        "epd-illegal-move",
        1,
        &[
            "2:32: error[epd-illegal-move]: the `bm` move `Ke2` is not legal here: e2 holds a Black \
             rook: a capture is written with x",
            "2:36: error[epd-illegal-move]: the `bm` move `Kd2` is not legal here: the White king is \
             in check and cannot escape to d2: that square is attacked too",
            "2:40: error[epd-illegal-move]: the `bm` move `Kf3` is not legal here: no White king can \
             move to f3",
            "3:30: error[epd-illegal-move]: the `bm` operand `1` is not a move in SAN",
            "4:38: error[epd-illegal-move]: move 3 of the `pv` line, `Kd2`, cannot be played after \
             `Kd2 Kd7`: d2 is occupied by a White king",
        ],
    ),
    (
        "epd-uci-move",
        0,
        &[
            "2:35: warning[epd-uci-move]: the `bm` move `e1g1` is written in UCI, not SAN; read as O-O",
            "3:31: warning[epd-uci-move]: the `bm` move `h1h8` is written in UCI, not SAN; read as Rh8+",
            "4:31: warning[epd-uci-move]: the `pv` move `e1g1` is written in UCI, not SAN; read as O-O",
            "4:36: warning[epd-uci-move]: the `pv` move `e8d7` is written in UCI, not SAN; read as Kd7",
        ],
    ),
    (
        "epd-missing-semicolon",
        0,
        &["2:35: warning[epd-missing-semicolon]: the last operation `id \"no-semicolon\"` does not \
             end with `;`"],
    ),
    (
        "epd-operation",
        1,
        &[
            "2:35: error[epd-operation]: `1bm` is not an EPD opcode: an opcode starts with a letter \
             and has only letters, digits and `_`",
            "3:30: error[epd-operation]: the string operand of `id` is not closed with `\"`",
            "4:27: error[epd-operation]: `acn` takes one non-negative integer (the number of nodes \
             analysed), not `35 acd`",
            "5:27: error[epd-operation]: `pm` takes one move in SAN",
        ],
    ),
    (
        "epd-repeated-opcode",
        0,
        &["2:35: warning[epd-repeated-opcode]: the opcode `acn` appears more than once (the last \
             one counts)"],
    ),
    (
        "fullmove-number",
        1,
        &[
            "2:29: error[fullmove-number]: the fullmove number `one` is not a whole number (0, 1, 2, \
             ...)",
            "3:29: error[fullmove-number]: the fullmove number `1.5` is not a whole number (0, 1, 2, \
             ...)",
        ],
    ),
    (
        "fullmove-zero",
        0,
        &["2:29: warning[fullmove-zero]: the fullmove number is 0; it starts at 1 and grows after \
             each Black move (read as 1)"],
    ),
    (
        "halfmove-clock-too-high",
        0,
        &["2:27: warning[halfmove-clock-too-high]: the halfmove clock is 20, but only 8 halfmoves \
             can have been played before move 5 with White to move"],
    ),
    (
        "halfmove-clock-with-en-passant",
        0,
        &["2:31: warning[halfmove-clock-with-en-passant]: the halfmove clock is 5, but the en \
             passant square d6 says the last move was a pawn's double step, which sets it to 0"],
    ),
    (
        "halfmove-clock",
        1,
        &[
            "2:27: error[halfmove-clock]: the halfmove clock `-3` is not a whole number (0, 1, 2, \
             ...)",
            "3:32: error[halfmove-clock]: the halfmove clock `x` is not a whole number (0, 1, 2, ...)",
        ],
    ),
    (
        "impossible-check",
        1,
        &[
            "3:1: error[impossible-check]: Black's king on e5 is in check from the rook on e1 and the \
             rook on e8, which stand on one line through the king: no single move can give both \
             checks",
            "4:1: error[impossible-check]: Black's king on e8 is in check from the knight on d6 and \
             the pawn on d7: a move gives check with one knight or pawn at most (a second check can \
             only be discovered, by a bishop, rook or queen)",
            "5:1: error[impossible-check]: White's king on d4 is in check from the pawn on e5 and the \
             rook on d8, but the en passant square e6 says Black's last move was the double step \
             e7-e5, which cannot give two checks",
            "6:1: error[impossible-check]: White's king on a1 is in check from the rook on a8, but \
             the en passant square e6 says Black's last move was e7-e5, and the king was in check \
             before that move already",
        ],
    ),
    (
        "missing-field",
        1,
        &[
            "2:22: error[missing-field]: the record ends after the side to move: a FEN also needs the \
             castling rights (`KQkq`, some of them, or `-`) and the en passant square (a square or \
             `-`)",
            "3:28: error[missing-field]: the halfmove clock `0` is not followed by the fullmove \
             number",
        ],
    ),
    ("missing-king", 1, &["2:1: error[missing-king]: Black has no king; each side has exactly one"]),
    (
        "opposite-check",
        1,
        &["2:1: error[opposite-check]: Black's king on e8 is in check from the rook on e7, but it \
             is White's turn: the side that has just moved cannot have left its king in check"],
    ),
    (
        "pawn-on-back-rank",
        1,
        &[
            "2:1: error[pawn-on-back-rank]: White has a pawn on h8; pawns never stand on the first or \
             last rank (they start on their second rank and promote on reaching the last)",
            "2:1: error[pawn-on-back-rank]: Black has a pawn on a1; pawns never stand on the first or \
             last rank (they start on their second rank and promote on reaching the last)",
        ],
    ),
    ("side-to-move", 1, &["2:21: error[side-to-move]: the side to move is `W`; expected `w` (White) or `b` (Black)"]),
    (
        "too-many-checkers",
        1,
        &["2:1: error[too-many-checkers]: Black's king on e8 is in check from 3 pieces (the rook on \
             e1, the bishop on b5 and the knight on d6); a move gives check with two pieces at most"],
    ),
    ("too-many-kings", 1, &["2:1: error[too-many-kings]: White has 2 kings (on a1 and e1); each side has exactly one"]),
    (
        "too-many-pawns",
        1,
        &["2:1: error[too-many-pawns]: White has 9 pawns; each side starts with 8 and can never \
             gain any"],
    ),
    (
        "too-many-pieces",
        1,
        &[
            "2:1: error[too-many-pieces]: White has 17 pieces; each side starts with 16 and can never \
             gain any",
            "2:1: error[too-many-promoted-pieces]: White has 14 knights more than its starting set, \
             which only promotions can give, but with 0 pawns on the board only 8 pawns can have \
             promoted",
        ],
    ),
    (
        "too-many-promoted-pieces",
        1,
        &[
            "2:1: error[too-many-promoted-pieces]: White has 1 queen more than its starting set, \
             which only promotions can give, but with 8 pawns on the board none of its pawns can have \
             promoted",
            "3:1: error[too-many-promoted-pieces]: White has 1 dark-squared bishop more than its \
             starting set, which only promotions can give, but with 8 pawns on the board none of its \
             pawns can have promoted",
        ],
    ),
    (
        "trailing-text",
        1,
        &[
            "2:31: error[trailing-text]: `2` follows the fullmove number: a FEN ends there or goes on \
             with EPD operations such as `bm Nf3;`, and a `;` starts a comment",
            "3:27: error[trailing-text]: `!!` follows the en passant square: a FEN goes on with the \
             halfmove clock and the fullmove number, an EPD record with operations such as `bm Nf3;`, \
             and a `;` starts a comment",
        ],
    ),
];

#[test]
fn every_fixture_prints_exactly_its_findings() {
    for &(fixture, code, lines) in FINDINGS {
        let path = format!("testdata/fen/{fixture}.fen");
        let out = fen_check(&["-q", &path], None);
        let expected: String = lines.iter().map(|line| format!("{path}:{line}\n")).collect();
        assert_eq!(out.stdout, expected, "{fixture}");
        assert_eq!(out.code, code, "{fixture}: exit code");
        assert_eq!(out.stderr, "", "{fixture}: -q prints no summary");
    }
}

#[test]
fn every_code_has_a_fixture_named_after_it_that_reports_it() {
    for code in FenCode::ALL {
        let name = code.as_str();
        // Raised only if shakmaty rejects a position all the checks accept:
        // a pgnkit bug, so there is no fixture (the corpus test below makes
        // sure it never appears).
        if name == "position-rejected" {
            continue;
        }
        let path = format!("testdata/fen/{name}.fen");
        assert!(root().join(&path).is_file(), "{path} is missing");
        assert!(FINDINGS.iter().any(|(fixture, _, _)| *fixture == name), "{name} is not in FINDINGS");
        let records = json_lines(&fen_check(&["--format", "jsonl", &path], None).stdout);
        let reported = |severity: &str| {
            records.iter().any(|r| {
                r["diagnostics"].as_array().unwrap().iter().any(|f| f["code"] == name && f["severity"] == severity)
            })
        };
        let (warning, error) = (reported("warning"), reported("error"));
        assert!(warning || error, "{path} does not report {name}");
        // A warning leaves its record valid, an error makes it invalid.
        for record in &records {
            assert_eq!(record["valid"], warning, "{path} line {}", record["line"]);
        }
    }
}

#[test]
fn valid_records_are_read_past_blank_and_comment_lines_with_chess960_and_epd() {
    let out = fen_check(&["--format", "jsonl", "testdata/fen/valid-records.fen"], None);
    let records = json_lines(&out.stdout);
    let summary: Vec<(u64, bool, bool, &str)> = records
        .iter()
        .map(|r| {
            let normalized = r["normalized_fen"].as_str().unwrap();
            (r["line"].as_u64().unwrap(), r["valid"].as_bool().unwrap(), r["chess960"].as_bool().unwrap(), normalized)
        })
        .collect();
    assert_eq!(
        summary,
        [
            (5, true, false, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            (6, true, false, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"),
            (7, true, true, "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1"),
            (8, true, true, "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1"),
            (9, true, false, "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1"),
            (10, true, false, "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 0 1"),
            (11, true, false, "4k3/8/8/8/8/8/8/4K3 b - - 12 40"),
        ]
    );
    assert!(records.iter().all(|r| r["diagnostics"] == Value::Array(vec![])));
    assert_eq!(out.stderr, "pgnkit: checked 7 positions in 1 input: 7 valid, 0 invalid; 0 errors, 0 warnings\n");
    assert_eq!(out.code, 0);
}

#[test]
fn a_fen_with_epd_operations_after_its_counters_is_read_and_its_operations_checked() {
    let path = "testdata/fen/fen-with-epd-operations.epd";
    let out = fen_check(&["--normalize", path], None);
    // The counters of the six fields, not EPD's `0 1`.
    assert_eq!(out.stdout, "4k3/8/8/8/8/8/8/4K2R w K - 0 1\nr3k3/8/8/8/8/8/8/4K3 b q - 3 40\n",);
    assert_eq!(
        out.stderr,
        format!(
            "{path}:4:35: error[epd-illegal-move]: the `bm` move `Kf3` is not legal here: no White king can move \
             to f3\n\
             {path}:5:32: error[epd-operation]: `acd` takes one non-negative integer (the analysis depth), not \
             `x`\n\
             pgnkit: checked 4 positions in 1 input: 2 valid, 2 invalid; 2 errors, 0 warnings\n"
        )
    );
    assert_eq!(out.code, 1);
}

#[test]
fn castling_letters_in_another_order_set_up_the_same_rights() {
    let out = fen_check(&["-q", "--normalize", "testdata/fen/castling-order.fen"], None);
    assert_eq!(
        out.stdout,
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\nr3k2r/8/8/8/8/8/8/R3K2R w KQ - 0 1\nr3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\n"
    );
    assert_eq!(out.code, 0);
}

#[test]
fn jsonl_gives_one_object_per_record_with_its_findings_in_one_diagnostics_list() {
    let out = fen_check(&["--format", "jsonl", "testdata/fen/halfmove-clock-with-en-passant.fen"], None);
    assert_eq!(
        out.stdout,
        "{\"file\":\"testdata/fen/halfmove-clock-with-en-passant.fen\",\"line\":2,\
         \"fen\":\"4k3/8/8/3pP3/8/8/8/4K3 w - d6 5 30\",\"valid\":true,\"chess960\":false,\
         \"normalized_fen\":\"4k3/8/8/3pP3/8/8/8/4K3 w - d6 5 30\",\"diagnostics\":[{\"severity\":\
         \"warning\",\"code\":\"halfmove-clock-with-en-passant\",\"line\":2,\"column\":31,\"ply\":null,\
         \"san\":null,\"fen\":null,\"message\":\"the halfmove clock is \
         5, but the en passant square d6 says the last move was a pawn's double step, which sets it to 0\",\
         \"reason\":null}]}\n"
    );
    let invalid = json_lines(&fen_check(&["--format", "jsonl", "testdata/fen/opposite-check.fen"], None).stdout);
    assert_eq!(invalid[0]["valid"], false);
    assert_eq!(invalid[0]["normalized_fen"], Value::Null);
    assert_eq!(invalid[0]["diagnostics"][0]["code"], "opposite-check");
    assert_eq!(invalid[0]["diagnostics"][0]["severity"], "error");
    // The two lists written before are gone, not kept beside the new one.
    assert_eq!((&invalid[0]["errors"], &invalid[0]["warnings"]), (&Value::Null, &Value::Null));
}

#[test]
fn csv_has_a_header_and_a_row_per_finding() {
    let out =
        fen_check(&["--format", "csv", "testdata/fen/pawn-on-back-rank.fen", "testdata/fen/fullmove-zero.fen"], None);
    assert_eq!(
        out.stdout,
        "file,line,fen,valid,severity,code,column,message\n\
         testdata/fen/pawn-on-back-rank.fen,2,4k2P/8/8/8/8/8/8/p3K3 w - - 0 1,false,error,pawn-on-back-rank,1,\
         White has a pawn on h8; pawns never stand on the first or last rank (they start on their second rank \
         and promote on reaching the last)\n\
         testdata/fen/pawn-on-back-rank.fen,2,4k2P/8/8/8/8/8/8/p3K3 w - - 0 1,false,error,pawn-on-back-rank,1,\
         Black has a pawn on a1; pawns never stand on the first or last rank (they start on their second rank \
         and promote on reaching the last)\n\
         testdata/fen/fullmove-zero.fen,2,4k3/8/8/8/8/8/8/4K3 w - - 0 0,true,warning,fullmove-zero,29,\
         the fullmove number is 0; it starts at 1 and grows after each Black move (read as 1)\n"
    );
    assert_eq!(out.code, 1);
}

#[test]
fn normalize_prints_canonical_fens_and_sends_findings_to_stderr() {
    let out = fen_check(&["--normalize", "testdata/fen/normalize.fen"], None);
    assert_eq!(
        out.stdout,
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\n\
         r1bqkbnr/ppppp1pp/2n5/4Pp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3\n\
         4k3/8/8/8/8/8/8/4K3 w - - 0 1\n\
         bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1\n\
         4k3/8/8/8/8/8/8/4K3 b - - 12 40\n\
         4k3/8/8/8/8/8/8/4K3 w - - 0 1\n"
    );
    assert_eq!(
        out.stderr,
        "testdata/fen/normalize.fen:2:51: warning[castling-order]: the castling field `QKkq` is not in the usual \
         order (White's rights first, each side's kingside first); write `KQkq`\n\
         testdata/fen/normalize.fen:4:29: warning[fullmove-zero]: the fullmove number is 0; it starts at 1 and \
         grows after each Black move (read as 1)\n\
         testdata/fen/normalize.fen:8:1: error[missing-king]: White has no king; each side has exactly one\n\
         testdata/fen/normalize.fen:8:1: error[missing-king]: Black has no king; each side has exactly one\n\
         pgnkit: checked 7 positions in 1 input: 6 valid, 1 invalid; 2 errors, 2 warnings\n"
    );
    assert_eq!(out.code, 1);
}

#[test]
fn normalize_and_format_cannot_be_combined() {
    let out = fen_check(&["--normalize", "--format", "jsonl", "testdata/fen/normalize.fen"], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("cannot be used with"), "{}", out.stderr);
}

#[test]
fn fen_arguments_files_and_stdin_are_read_in_order_and_a_missing_file_exits_2() {
    let stdin = b"4k3/8/8/8/8/8/8/4K3 w - - 0 1\n8/8/8/8/8/8/8/4K3 b - - 0 1\n";
    let out = fen_check(
        &["-v", "4k3/8/8/8/8/8/8/4K3 b - - 0 1", "testdata/fen/no-such-file.fen", "-", "4k3/8/8/8/8/8/8/4K3"],
        Some(stdin),
    );
    assert_eq!(
        out.stdout,
        "<args>:1: valid: 4k3/8/8/8/8/8/8/4K3 b - - 0 1\n\
         <stdin>:1: valid: 4k3/8/8/8/8/8/8/4K3 w - - 0 1\n\
         <stdin>:2: invalid: 8/8/8/8/8/8/8/4K3 b - - 0 1\n\
         <stdin>:2:1: error[missing-king]: Black has no king; each side has exactly one\n\
         <args>:2: invalid: 4k3/8/8/8/8/8/8/4K3\n\
         <args>:2:20: error[missing-field]: the record ends after the board: a FEN also needs the side to move \
         (`w` or `b`), the castling rights (`KQkq`, some of them, or `-`) and the en passant square (a square \
         or `-`)\n"
    );
    assert!(out.stderr.starts_with("pgnkit: error: testdata/fen/no-such-file.fen: "), "{}", out.stderr);
    assert!(
        out.stderr.ends_with(
            "pgnkit: checked 4 positions in 3 inputs: 2 valid, 2 invalid; 2 errors, 0 warnings; \
             1 input could not be read\n"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(out.code, 2, "an unreadable input wins over invalid records");
}

#[test]
fn no_argument_reads_stdin() {
    let out = fen_check(&["-q"], Some(b"# comment\n\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n"));
    assert_eq!((out.code, out.stdout.as_str(), out.stderr.as_str()), (0, "", ""));
    let out = fen_check(&[], Some(b"4k3/8/8/8/8/8/8/4K3 w - - 0 0\n"));
    assert_eq!(out.code, 0, "a warning alone passes");
    assert_eq!(out.stderr, "pgnkit: checked 1 position in 1 input: 1 valid, 0 invalid; 0 errors, 1 warning\n");
}

#[test]
fn deny_warnings_fails_on_a_warning() {
    let out = fen_check(&["-q", "--deny-warnings", "testdata/fen/fullmove-zero.fen"], None);
    assert_eq!(out.code, 1);
}

/// Three records: an error and a warning (fullmove 0), a warning only, no
/// finding.
const ERROR_WARNING_CLEAN: &str =
    "4k3/8/8/8/8/8/8/4K3 w - e3 0 0\n4k3/8/8/8/8/8/8/4K3 w - - 0 0\n4k3/8/8/8/8/8/8/4K3 w - - 0 1\n";

#[test]
fn errors_only_prints_only_records_with_an_error_with_their_warnings_in_every_format() {
    let check = |args: &[&str]| {
        let mut all = args.to_vec();
        all.push("-");
        fen_check(&all, Some(ERROR_WARNING_CLEAN.as_bytes()))
    };
    let jsonl = check(&["--format", "jsonl", "--errors-only"]);
    let records = json_lines(&jsonl.stdout);
    assert_eq!(records.iter().map(|r| r["line"].as_u64().unwrap()).collect::<Vec<_>>(), [1]);
    let csv = check(&["--format", "csv", "--errors-only"]);
    assert_eq!(csv.stdout.lines().skip(1).filter(|row| row.starts_with("<stdin>,1,")).count(), 2, "{}", csv.stdout);
    assert_eq!(csv.stdout.lines().count(), 3, "{}", csv.stdout);
    let text = check(&["--errors-only"]);
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", text.stdout);
    assert!(lines.iter().all(|l| l.starts_with("<stdin>:1:")), "{}", text.stdout);
    assert!(text.stdout.contains("error[en-passant-wrong-rank]") && text.stdout.contains("warning[fullmove-zero]"));
    assert!(text.stderr.contains("checked 3 positions in 1 input: 2 valid, 1 invalid"), "{}", text.stderr);
    let verbose = check(&["-v", "--errors-only"]);
    let verdicts = verbose.stdout.lines().filter(|l| l.contains(": invalid: ") || l.contains(": valid"));
    assert_eq!(verdicts.count(), 1, "{}", verbose.stdout);
    let with_findings = check(&["--format", "jsonl", "--with-findings"]);
    let records = json_lines(&with_findings.stdout);
    assert_eq!(records.iter().map(|r| r["line"].as_u64().unwrap()).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(check(&["--errors-only", "--with-findings"]).code, 2);
    assert_eq!(check(&["--normalize", "--with-findings"]).code, 2);
}

#[test]
fn errors_only_leaves_out_records_without_findings() {
    let out = fen_check(&["--errors-only", "--format", "jsonl", "testdata/fen/crlf-with-bom.fen"], None);
    let records = json_lines(&out.stdout);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["line"], 4);
}

#[test]
fn a_bom_and_crlf_line_ends_do_not_shift_lines_or_columns() {
    let out = fen_check(&["-q", "testdata/fen/crlf-with-bom.fen"], None);
    assert_eq!(
        out.stdout,
        "testdata/fen/crlf-with-bom.fen:4:25: error[en-passant-wrong-rank]: with White to move the en passant \
         square is on the sixth rank (the square a Black pawn has just skipped), but e3 is on the third\n"
    );
}

#[test]
fn output_is_the_same_for_one_and_four_threads_across_batches() {
    // More lines than one batch holds, with a finding every seventh line.
    let mut input = String::new();
    for i in 0..10_000 {
        input.push_str(if i % 7 == 0 { "4k3/8/8/8/8/8/8/4K3 w - e3 0 1\n" } else { "4k3/8/8/8/8/8/8/4K3 w - - 0 1\n" });
    }
    let one = fen_check(&["-j", "1", "--format", "jsonl", "-"], Some(input.as_bytes()));
    let four = fen_check(&["-j", "4", "--format", "jsonl", "-"], Some(input.as_bytes()));
    assert_eq!(json_lines(&one.stdout).len(), 10_000);
    assert_eq!(one.stdout, four.stdout);
    assert_eq!(one.stderr, four.stderr);
    assert_eq!(
        one.stderr,
        "pgnkit: checked 10000 positions in 1 input: 8571 valid, 1429 invalid; 1429 errors, 0 warnings\n"
    );
}

/// Line numbers of the records of a file, by the rules of docs/chess-semantics.md and
/// README.md: not blank, not a `#` comment.
fn record_lines(path: &std::path::Path) -> Vec<u64> {
    let bytes = std::fs::read(path).expect("readable");
    let text = String::from_utf8_lossy(&bytes);
    text.split('\n')
        .enumerate()
        .filter(|(_, line)| {
            let line = line.trim_start_matches('\u{feff}').trim();
            !line.is_empty() && !line.starts_with('#')
        })
        .map(|(i, _)| i as u64 + 1)
        .collect()
}

#[test]
fn every_corpus_record_gets_exactly_one_verdict() {
    let Some(corpus) = corpus() else { return };
    let mut files = Vec::new();
    for ext in ["fen", "epd", "txt", "csv"] {
        files.extend(files_with_extension(&corpus.join("fen"), ext));
    }
    assert!(files.len() >= 20, "{} files", files.len());
    for file in files {
        let path = file.to_str().unwrap();
        let out = fen_check(&["--format", "jsonl", path], None);
        assert!(out.code == 0 || out.code == 1, "{path}: exit {} {}", out.code, out.stderr);
        let records = json_lines(&out.stdout);
        let lines: Vec<u64> = records.iter().map(|r| r["line"].as_u64().unwrap()).collect();
        assert_eq!(lines, record_lines(&file), "{path}: one verdict per record, in order");
        let mut invalid = false;
        for r in &records {
            let errors: Vec<&Value> =
                r["diagnostics"].as_array().unwrap().iter().filter(|f| f["severity"] == "error").collect();
            assert_eq!(r["valid"], errors.is_empty(), "{path}:{}", r["line"]);
            assert_eq!(r["normalized_fen"].is_string(), errors.is_empty(), "{path}:{}", r["line"]);
            assert!(!errors.iter().any(|e| e["code"] == "position-rejected"), "{path}:{}: {errors:?}", r["line"]);
            invalid |= !errors.is_empty();
        }
        assert_eq!(out.code, i32::from(invalid), "{path}: exit 1 iff a record is invalid");
    }
}

#[test]
fn a_directory_stands_for_the_fen_and_epd_files_under_it_in_name_order() {
    let dir = Scratch::new("fen-dir");
    std::fs::create_dir_all(dir.join("b")).unwrap();
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n";
    std::fs::write(dir.join("b/two.EPD"), "8/8/8/8/8/8/8/8 w - -\n").unwrap();
    std::fs::write(dir.join("a.fen"), start).unwrap();
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gzip, start.as_bytes()).unwrap();
    std::fs::write(dir.join("c.fen.gz"), gzip.finish().unwrap()).unwrap();
    // Neither a position file nor visible: left out.
    std::fs::write(dir.join("notes.txt"), "not a position\n").unwrap();
    std::fs::write(dir.join(".hidden.fen"), "not a position\n").unwrap();
    let dir_arg = dir.to_str().unwrap();
    let out = fen_check(&["--format", "jsonl", dir_arg], None);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let files: Vec<String> =
        json_lines(&out.stdout).iter().map(|record| record["file"].as_str().unwrap().to_owned()).collect();
    let under = |name: &str| dir.join(name).to_str().unwrap().to_owned();
    assert_eq!(files, [under("a.fen"), under("b/two.EPD"), under("c.fen.gz")]);
    assert!(out.stderr.contains("in 3 inputs"), "{}", out.stderr);

    let empty = dir.join("b/empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = fen_check(&[empty.to_str().unwrap()], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("a directory with no position file under it"), "{}", out.stderr);
}
