//! The rules verdicts of `pgnkit validate`: which rule an illegal move
//! breaks, how a game ended (repetitions, 50 and 75 moves, stalemate, dead
//! positions), whether its result agrees, and the `--lint` findings.
//!
//! One fixture per case (testdata/README.md); each test runs
//! `validate --format jsonl` on it and checks the game's verdict and the
//! exact findings. Lines and columns are those of the move token (or of the
//! result, or of the `[Termination` tag) in the fixture text.

use serde_json::Value;

use crate::support::{json_lines, validate};

/// One finding as the JSON Lines output gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Finding<'a> {
    severity: &'a str,
    code: &'a str,
    reason: Option<&'a str>,
    line: u64,
    column: u64,
    ply: Option<u64>,
    san: Option<&'a str>,
}

/// An `illegal-move` error on the move `san` (ply `ply`) at `line:column`.
const fn illegal(reason: &'static str, line: u64, column: u64, ply: u64, san: &'static str) -> Finding<'static> {
    Finding {
        severity: "error",
        code: "illegal-move",
        reason: Some(reason),
        line,
        column,
        ply: Some(ply),
        san: Some(san),
    }
}

/// A finding about the move `san` (ply `ply`) that names no broken rule.
const fn on_move(
    severity: &'static str,
    code: &'static str,
    line: u64,
    column: u64,
    ply: u64,
    san: &'static str,
) -> Finding<'static> {
    Finding { severity, code, reason: None, line, column, ply: Some(ply), san: Some(san) }
}

/// A game-wide finding at `line:column` (the result, a tag).
const fn on_game(severity: &'static str, code: &'static str, line: u64, column: u64) -> Finding<'static> {
    Finding { severity, code, reason: None, line, column, ply: None, san: None }
}

/// What `validate` must say about the single game of a fixture.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Verdict<'a> {
    valid: bool,
    plies: u64,
    termination: Option<&'a str>,
    draw_reason: Option<&'a str>,
    threefold_ply: Option<u64>,
    fivefold_ply: Option<u64>,
    fifty_moves_ply: Option<u64>,
    seventyfive_moves_ply: Option<u64>,
    findings: Vec<Finding<'a>>,
}

/// A case: the fixture (under `testdata/`), whether `--lint` is on, and the
/// expected verdict.
struct Case {
    fixture: &'static str,
    lint: bool,
    valid: bool,
    plies: u64,
    termination: Option<&'static str>,
    draw_reason: Option<&'static str>,
    threefold_ply: Option<u64>,
    fivefold_ply: Option<u64>,
    fifty_moves_ply: Option<u64>,
    seventyfive_moves_ply: Option<u64>,
    findings: &'static [Finding<'static>],
}

/// A valid game that ends without any rule holding and has no findings;
/// cases override what differs.
const CLEAN: Case = Case {
    fixture: "",
    lint: false,
    valid: true,
    plies: 0,
    termination: None,
    draw_reason: None,
    threefold_ply: None,
    fivefold_ply: None,
    fifty_moves_ply: None,
    seventyfive_moves_ply: None,
    findings: &[],
};

/// The verdict on the one game of `fixture`, and the exit code.
fn run(fixture: &str, lint: bool) -> (Value, i32) {
    let path = format!("testdata/{fixture}");
    let mut args = vec!["--format", "jsonl"];
    if lint {
        args.push("--lint");
    }
    args.push(&path);
    let out = validate(&args);
    let mut games = json_lines(&out.stdout);
    assert_eq!(games.len(), 1, "{fixture}: one game expected:\n{}", out.stdout);
    (games.remove(0), out.code)
}

/// A string field that may be null.
fn str_or_null(v: &Value) -> Option<&str> {
    assert!(v.is_null() || v.is_string(), "a string or null: {v}");
    v.as_str()
}

fn verdict(game: &Value) -> Verdict<'_> {
    let ply = |key: &str| game[key].as_u64();
    let findings = game["diagnostics"]
        .as_array()
        .expect("diagnostics is an array")
        .iter()
        .map(|d| Finding {
            severity: d["severity"].as_str().expect("severity"),
            code: d["code"].as_str().expect("code"),
            reason: str_or_null(&d["reason"]),
            line: d["line"].as_u64().expect("line"),
            column: d["column"].as_u64().expect("column"),
            ply: d["ply"].as_u64(),
            san: str_or_null(&d["san"]),
        })
        .collect();
    Verdict {
        valid: game["valid"].as_bool().expect("valid"),
        plies: game["plies"].as_u64().expect("plies"),
        termination: str_or_null(&game["board_termination"]),
        draw_reason: str_or_null(&game["draw_reason"]),
        threefold_ply: ply("threefold_ply"),
        fivefold_ply: ply("fivefold_ply"),
        fifty_moves_ply: ply("fifty_moves_ply"),
        seventyfive_moves_ply: ply("seventyfive_moves_ply"),
        findings,
    }
}

fn check(case: &Case) {
    let expected = Verdict {
        valid: case.valid,
        plies: case.plies,
        termination: case.termination,
        draw_reason: case.draw_reason,
        threefold_ply: case.threefold_ply,
        fivefold_ply: case.fivefold_ply,
        fifty_moves_ply: case.fifty_moves_ply,
        seventyfive_moves_ply: case.seventyfive_moves_ply,
        findings: case.findings.to_vec(),
    };
    let (game, code) = run(case.fixture, case.lint);
    assert_eq!(verdict(&game), expected, "{}: {game}", case.fixture);
    assert_eq!(code, if case.valid { 0 } else { 1 }, "{}: exit code", case.fixture);
    if case.lint {
        // Lint findings are only asked for: without --lint the game is clean.
        let (plain, code) = run(case.fixture, false);
        let plain = verdict(&plain);
        assert_eq!(
            (plain.valid, plain.plies, plain.findings.as_slice()),
            (true, case.plies, &[][..]),
            "{} without --lint",
            case.fixture
        );
        assert_eq!(code, 0, "{} without --lint: exit code", case.fixture);
    }
}

/// One test per case, so that each fails on its own.
macro_rules! cases {
    ($($(#[$doc:meta])* $name:ident: $case:expr;)*) => {
        $(
            $(#[$doc])*
            #[test]
            fn $name() {
                const CASE: Case = $case;
                check(&CASE);
            }
        )*
    };
}

cases! {
    // Illegal moves: the rule each one breaks (`reason`).

    /// `3... Nf6` while the b5 bishop checks the king along the opened diagonal.
    a_move_that_does_not_answer_a_check_is_king_left_in_check: Case {
        fixture: "invalid/illegal-move-king-left-in-check.pgn",
        valid: false,
        plies: 5,
        findings: &[illegal("king-left-in-check", 9, 28, 6, "Nf6")],
        ..CLEAN
    };

    /// `4. Ke2 ... 5. Ke1`: the king is home again but has lost its rights.
    castling_after_the_king_has_moved_is_castling_rights_lost: Case {
        fixture: "invalid/illegal-castling-rights-lost.pgn",
        valid: false,
        plies: 10,
        findings: &[illegal("castling-rights-lost", 9, 56, 11, "O-O")],
        ..CLEAN
    };

    /// `1... d5 2. exd6`: the e5 pawn is pinned by the e8 rook.
    en_passant_by_a_pawn_pinned_on_its_file_is_pinned: Case {
        fixture: "invalid/illegal-en-passant-pinned-on-file.pgn",
        valid: false,
        plies: 1,
        findings: &[illegal("pinned", 11, 12, 2, "exd6")],
        ..CLEAN
    };

    /// `1... d5 2. exd6`: the e5 pawn is pinned by the h8 bishop.
    en_passant_by_a_pawn_pinned_on_a_diagonal_is_pinned: Case {
        fixture: "invalid/illegal-en-passant-pinned-on-diagonal.pgn",
        valid: false,
        plies: 1,
        findings: &[illegal("pinned", 11, 12, 2, "exd6")],
        ..CLEAN
    };

    /// `1... c5 2. bxc6`: both pawns leave the fifth rank, between the a5
    /// king and the h5 rook.
    en_passant_that_opens_the_kings_rank_is_pinned: Case {
        fixture: "invalid/illegal-en-passant-exposes-king-on-rank.pgn",
        valid: false,
        plies: 1,
        findings: &[illegal("pinned", 11, 12, 2, "bxc6")],
        ..CLEAN
    };

    /// `3. O-O` with the bishop still on f1.
    castling_with_a_piece_between_king_and_rook_is_castling_blocked: Case {
        fixture: "invalid/illegal-castling-blocked.pgn",
        valid: false,
        plies: 4,
        findings: &[illegal("castling-blocked", 9, 24, 5, "O-O")],
        ..CLEAN
    };

    /// `4... Bb4+ 5. O-O`.
    castling_out_of_check_is_castling_in_check: Case {
        fixture: "invalid/illegal-castling-in-check.pgn",
        valid: false,
        plies: 8,
        findings: &[illegal("castling-in-check", 9, 46, 9, "O-O")],
        ..CLEAN
    };

    /// The h3 knight attacks g1 but not f1.
    castling_onto_an_attacked_square_is_castling_into_check: Case {
        fixture: "invalid/illegal-castling-into-check.pgn",
        valid: false,
        plies: 10,
        findings: &[illegal("castling-into-check", 9, 56, 11, "O-O")],
        ..CLEAN
    };

    /// The a6 bishop attacks f1 but not g1.
    castling_across_an_attacked_square_is_castling_through_check: Case {
        fixture: "invalid/illegal-castling-through-check.pgn",
        valid: false,
        plies: 8,
        findings: &[illegal("castling-through-check", 9, 45, 9, "O-O")],
        ..CLEAN
    };

    /// `5. b8` with no promotion piece.
    a_pawn_reaching_the_last_rank_without_a_piece_is_promotion_missing: Case {
        fixture: "invalid/illegal-promotion-missing.pgn",
        valid: false,
        plies: 8,
        findings: &[illegal("promotion-missing", 9, 49, 9, "b8")],
        ..CLEAN
    };

    /// `5. bxa8=K`.
    promoting_to_a_king_is_promotion_invalid: Case {
        fixture: "invalid/illegal-promotion-to-king.pgn",
        valid: false,
        plies: 8,
        findings: &[illegal("promotion-invalid", 9, 48, 9, "bxa8=K")],
        ..CLEAN
    };

    /// `2. Nxf3` onto an empty f3.
    a_capture_onto_an_empty_square_is_capture_of_empty_square: Case {
        fixture: "invalid/illegal-move-capture-of-empty-square.pgn",
        valid: false,
        plies: 2,
        findings: &[illegal("capture-of-empty-square", 9, 13, 3, "Nxf3")],
        ..CLEAN
    };

    /// `4. Nf7` onto the f7 pawn, written without `x`: played, as PGN's
    /// import format allows, with one warning.
    a_capture_written_without_x_is_played_with_a_warning: Case {
        fixture: "lenient/capture-written-without-x.pgn",
        plies: 7,
        findings: &[on_move("warning", "unmarked-capture", 9, 34, 7, "Nf7")],
        ..CLEAN
    };

    /// `2. ed5`, `3. dc6` (en passant), `3... bc6`, `5... Qd4`, `6. Qd4`: one
    /// warning for the game, at the first.
    pawn_captures_en_passant_and_a_queen_capture_without_x_are_all_played: Case {
        fixture: "lenient/pawn-captures-and-en-passant-without-x.pgn",
        plies: 11,
        findings: &[on_move("warning", "unmarked-capture", 9, 13, 3, "ed5")],
        ..CLEAN
    };

    /// Every move in long algebraic (`e2-e4`, `Ng1-f3`, `e4xd5`, `Qd1-f3+`).
    long_algebraic_movetext_is_played_with_one_non_san_warning: Case {
        fixture: "lenient/long-algebraic-movetext.pgn",
        plies: 15,
        findings: &[on_move("warning", "non-san-move", 9, 4, 1, "e2-e4")],
        ..CLEAN
    };

    /// `2. d1h5` ... `4. h5f7#`: coordinates, the last with a mate sign.
    coordinate_moves_with_a_mate_sign_are_played: Case {
        fixture: "lenient/coordinate-moves-with-check-marks.pgn",
        plies: 7,
        termination: Some("checkmate"),
        findings: &[on_move("warning", "non-san-move", 9, 17, 3, "d1h5")],
        ..CLEAN
    };

    /// `4. o-o` and `5... o-o`.
    castling_in_lowercase_is_castling: Case {
        fixture: "lenient/castling-in-lowercase.pgn",
        plies: 10,
        findings: &[on_move("warning", "non-san-move", 9, 35, 7, "o-o")],
        ..CLEAN
    };

    /// `4. Qxf7++`, mate written the old way.
    mate_written_with_double_plus_is_mate: Case {
        fixture: "lenient/mate-written-with-double-plus.pgn",
        plies: 7,
        termination: Some("checkmate"),
        findings: &[on_move("warning", "non-san-move", 9, 35, 7, "Qxf7++")],
        ..CLEAN
    };

    /// `2. Nd2` onto White's own d2 pawn.
    a_move_onto_an_own_piece_is_own_piece_on_square: Case {
        fixture: "invalid/illegal-move-own-piece-on-square.pgn",
        valid: false,
        plies: 2,
        findings: &[illegal("own-piece-on-square", 9, 13, 3, "Nd2")],
        ..CLEAN
    };

    /// `2. N@f3` (crazyhouse notation).
    a_piece_drop_is_piece_drop: Case {
        fixture: "invalid/illegal-move-piece-drop.pgn",
        valid: false,
        plies: 2,
        findings: &[illegal("piece-drop", 9, 13, 3, "N@f3")],
        ..CLEAN
    };

    /// `4. Nd5` with the c3 knight pinned by the b4 bishop.
    a_pinned_piece_that_moves_is_pinned: Case {
        fixture: "invalid/illegal-move-pinned-knight.pgn",
        valid: false,
        plies: 6,
        findings: &[illegal("pinned", 9, 35, 7, "Nd5")],
        ..CLEAN
    };

    /// `2. Nf4`: neither knight reaches f4.
    a_square_no_piece_of_that_kind_reaches_is_no_piece_reaches: Case {
        fixture: "invalid/illegal-move-no-piece-reaches.pgn",
        valid: false,
        plies: 2,
        findings: &[illegal("no-piece-reaches", 9, 13, 3, "Nf4")],
        ..CLEAN
    };

    /// `3. Ke3` onto a square the c5 bishop attacks.
    a_king_stepping_onto_an_attacked_square_is_king_into_check: Case {
        fixture: "invalid/illegal-move-king-into-check.pgn",
        valid: false,
        plies: 4,
        findings: &[illegal("king-into-check", 9, 24, 5, "Ke3")],
        ..CLEAN
    };

    /// `4. exf6` two moves after `2... f5`.
    a_late_en_passant_capture_is_en_passant_unavailable: Case {
        fixture: "invalid/illegal-en-passant-expired.pgn",
        valid: false,
        plies: 6,
        findings: &[illegal("en-passant-unavailable", 9, 33, 7, "exf6")],
        ..CLEAN
    };

    /// Castling written `0-0` is a move like any other (docs/chess-semantics.md), so the
    /// finding on a later move points at that move's own token.
    an_illegal_move_after_castling_with_zeros_is_located_at_its_own_token: Case {
        fixture: "invalid/illegal-move-after-zero-castling.pgn",
        valid: false,
        plies: 8,
        findings: &[illegal("no-piece-reaches", 9, 46, 9, "Nf4")],
        ..CLEAN
    };

    // How games end, and whether their results agree.

    /// The position after `2... Nc6` occurs at plies 4, 8 and 12; the one
    /// after `1... e5` at plies 2, 6 and 10, which comes first.
    a_threefold_repetition_drawn_names_the_rule_and_its_first_ply: Case {
        fixture: "valid/threefold-repetition.pgn",
        plies: 12,
        termination: Some("threefold_repetition"),
        draw_reason: Some("threefold_repetition"),
        threefold_ply: Some(10),
        ..CLEAN
    };

    /// Qd8+ and Qd3+ over and over: every White move of the cycle checks.
    a_repetition_in_which_one_side_only_gives_check_is_perpetual_check: Case {
        fixture: "valid/perpetual-check.pgn",
        plies: 9,
        termination: Some("threefold_repetition"),
        draw_reason: Some("perpetual_check"),
        threefold_ply: Some(9),
        ..CLEAN
    };

    /// The start position occurs for the fifth time at ply 16 (`8... Ng8`):
    /// the game is drawn there (FIDE 9.6), so `9. e4` is the first move too
    /// many, and the draw is by fivefold repetition whatever came after.
    moves_after_a_fivefold_repetition_are_a_warning_and_the_draw_keeps_its_reason: Case {
        fixture: "invalid/moves-after-fivefold-repetition.pgn",
        plies: 18,
        draw_reason: Some("fivefold_repetition"),
        threefold_ply: Some(8),
        fivefold_ply: Some(16),
        findings: &[on_move("warning", "moves-after-end", 10, 4, 17, "e4")],
        ..CLEAN
    };

    /// The final position is the fifth occurrence of the start position.
    a_fivefold_repetition_scored_as_a_win_is_a_result_mismatch: Case {
        fixture: "invalid/result-contradicts-fivefold-repetition.pgn",
        valid: false,
        plies: 16,
        termination: Some("fivefold_repetition"),
        threefold_ply: Some(8),
        fivefold_ply: Some(16),
        findings: &[on_game("error", "result-mismatch", 9, 89)],
        ..CLEAN
    };

    /// The game was drawn at ply 16 (FIDE 9.6: at that moment), so the
    /// 1-0 given after two more moves contradicts the board.
    a_win_given_after_a_fivefold_repetition_is_a_result_mismatch: Case {
        fixture: "invalid/decisive-result-after-fivefold.pgn",
        valid: false,
        plies: 18,
        threefold_ply: Some(8),
        fivefold_ply: Some(16),
        findings: &[on_move("warning", "moves-after-end", 10, 4, 17, "e4"), on_game("error", "result-mismatch", 10, 10)],
        ..CLEAN
    };

    /// From a halfmove clock of 95: 100 at ply 5, 101 at the end.
    fifty_moves_without_capture_or_pawn_move_is_a_claimable_draw: Case {
        fixture: "valid/fifty-moves.pgn",
        plies: 6,
        termination: Some("fifty_moves"),
        draw_reason: Some("fifty_moves"),
        fifty_moves_ply: Some(5),
        ..CLEAN
    };

    /// Drawn at the 75-move point (ply 5); 0-1 two moves later is a mismatch.
    a_loss_given_after_the_seventyfive_move_rule_is_a_result_mismatch: Case {
        fixture: "invalid/decisive-result-after-seventyfive-moves.pgn",
        valid: false,
        plies: 7,
        termination: Some("seventyfive_moves"),
        fifty_moves_ply: Some(0),
        seventyfive_moves_ply: Some(5),
        findings: &[on_move("warning", "moves-after-end", 11, 36, 6, "Kb6"), on_game("error", "result-mismatch", 11, 49)],
        ..CLEAN
    };

    /// From a clock of 145: the 50-move point is the start (ply 0), the
    /// 75-move point ply 5 (`122. Kb4`), so `122... Kb6` is one move too many.
    moves_after_the_seventyfive_move_rule_are_a_warning: Case {
        fixture: "invalid/moves-after-seventyfive-moves.pgn",
        plies: 7,
        termination: Some("seventyfive_moves"),
        draw_reason: Some("seventyfive_moves"),
        fifty_moves_ply: Some(0),
        seventyfive_moves_ply: Some(5),
        findings: &[on_move("warning", "moves-after-end", 11, 36, 6, "Kb6")],
        ..CLEAN
    };

    /// The game stops at the 75-move point with 1-0.
    a_seventyfive_move_draw_scored_as_a_win_is_a_result_mismatch: Case {
        fixture: "invalid/result-contradicts-seventyfive-moves.pgn",
        valid: false,
        plies: 5,
        termination: Some("seventyfive_moves"),
        fifty_moves_ply: Some(0),
        seventyfive_moves_ply: Some(5),
        findings: &[on_game("error", "result-mismatch", 11, 36)],
        ..CLEAN
    };

    /// `62. Qb6` leaves the a8 king no move and no check.
    a_stalemate_scored_as_a_win_is_a_result_mismatch: Case {
        fixture: "invalid/result-contradicts-stalemate.pgn",
        valid: false,
        plies: 5,
        termination: Some("stalemate"),
        findings: &[on_game("error", "result-mismatch", 11, 33)],
        ..CLEAN
    };

    /// King and bishop against king after `50. Kxe2`, scored 1-0.
    king_and_bishop_against_king_scored_as_a_win_is_a_result_mismatch: Case {
        fixture: "invalid/result-contradicts-insufficient-material.pgn",
        valid: false,
        plies: 4,
        termination: Some("insufficient_material"),
        findings: &[on_game("error", "result-mismatch", 11, 26)],
        ..CLEAN
    };

    /// The same game, drawn.
    king_and_bishop_against_king_drawn_is_a_draw_by_insufficient_material: Case {
        fixture: "valid/insufficient-material-draw.pgn",
        plies: 4,
        termination: Some("insufficient_material"),
        draw_reason: Some("insufficient_material"),
        ..CLEAN
    };

    /// Knight against knight can still mate (`2. Nc7#` with the b8 knight
    /// boxing its own king in): not a dead position.
    knight_against_knight_is_not_insufficient_material: Case {
        fixture: "valid/knight-against-knight-mate.pgn",
        plies: 2,
        termination: Some("checkmate"),
        ..CLEAN
    };

    /// White (king and knight) wins on time against king and queen: under
    /// FIDE 6.9 that is a draw; the warning points at the Termination tag.
    a_win_on_time_without_mating_material_is_a_warning: Case {
        fixture: "invalid/time-forfeit-without-mating-material.pgn",
        plies: 4,
        findings: &[on_game("warning", "timeout-vs-insufficient-material", 10, 1)],
        ..CLEAN
    };

    /// Scholar's mate with `*`: worth knowing, not a fault.
    a_checkmate_without_a_result_is_an_unknown_result_info: Case {
        fixture: "invalid/checkmate-with-unknown-result.pgn",
        plies: 7,
        termination: Some("checkmate"),
        findings: &[on_game("info", "unknown-result", 9, 41)],
        ..CLEAN
    };

    /// `0-0` and `bxa8Q` are both read as moves; neither is an invalid token.
    castling_with_zeros_and_a_promotion_without_equals_replay_completely: Case {
        fixture: "valid/zero-castling-and-promotion-without-equals.pgn",
        plies: 19,
        ..CLEAN
    };

    // --lint: SAN as written against SAN as the standard writes it.

    /// `3. Bb5` gives check.
    lint_reports_a_check_written_without_a_plus: Case {
        fixture: "invalid/lint-check-suffix.pgn",
        lint: true,
        plies: 6,
        findings: &[on_move("warning", "lint-check-suffix", 9, 23, 5, "Bb5")],
        ..CLEAN
    };

    /// `2. Ngf3`: the b1 knight cannot go to f3.
    lint_reports_a_needless_disambiguation: Case {
        fixture: "invalid/lint-disambiguation.pgn",
        lint: true,
        plies: 4,
        findings: &[on_move("warning", "lint-disambiguation", 9, 13, 3, "Ngf3")],
        ..CLEAN
    };

    /// `1. ee4`: a pawn push names no file; `2... exd4`, a capture, does.
    lint_reports_a_pawn_push_that_names_its_file_and_not_a_capture: Case {
        fixture: "invalid/lint-pawn-push-naming-its-file.pgn",
        lint: true,
        plies: 4,
        findings: &[on_move("warning", "lint-disambiguation", 9, 4, 1, "ee4")],
        ..CLEAN
    };

    /// `4. 0-0`.
    lint_reports_castling_written_with_zeros: Case {
        fixture: "invalid/lint-zero-castling.pgn",
        lint: true,
        plies: 8,
        findings: &[on_move("warning", "lint-zero-castling", 9, 35, 7, "0-0")],
        ..CLEAN
    };

    /// `5. b8Q`.
    lint_reports_a_promotion_without_equals: Case {
        fixture: "invalid/lint-promotion-equals.pgn",
        lint: true,
        plies: 9,
        findings: &[on_move("warning", "lint-promotion-equals", 9, 49, 9, "b8Q")],
        ..CLEAN
    };

    /// `(1... f5 2. ef5)`: a capture without `x` in a variation is read as
    /// in the main line, with the same warning, not an error.
    a_capture_written_without_x_in_a_variation_is_played_with_a_warning: Case {
        fixture: "lenient/capture-without-x-in-variation.pgn",
        plies: 3,
        findings: &[on_move("warning", "unmarked-capture", 9, 22, 3, "ef5")],
        ..CLEAN
    };

    /// `4. e1-g1` and `7... e8-c8`: castling written as the king's move in
    /// long algebraic, with no `K`.
    castling_as_the_kings_move_in_long_algebraic_is_castling: Case {
        fixture: "lenient/castling-as-king-move-long-algebraic.pgn",
        plies: 14,
        findings: &[on_move("warning", "non-san-move", 9, 35, 7, "e1-g1")],
        ..CLEAN
    };

    /// `3. exd6ep`: the mark glued to the capture without its dots.
    an_en_passant_suffix_glued_without_dots_is_read_as_the_capture: Case {
        fixture: "lenient/en-passant-suffix-glued.pgn",
        plies: 6,
        findings: &[on_move("warning", "non-san-move", 9, 23, 5, "exd6ep")],
        ..CLEAN
    };

    /// `(2. f4 1-0)`: PGN allows no termination marker in a variation.
    a_result_inside_a_variation_is_an_error: Case {
        fixture: "invalid/result-inside-variation.pgn",
        valid: false,
        plies: 4,
        findings: &[Finding {
            severity: "error",
            code: "result-in-variation",
            reason: None,
            line: 9,
            column: 24,
            ply: None,
            san: None,
        }],
        ..CLEAN
    };

    /// `2. Nf3 () Nc6`: a variation of no move.
    an_empty_variation_is_a_warning: Case {
        fixture: "invalid/empty-variation.pgn",
        plies: 4,
        findings: &[Finding {
            severity: "warning",
            code: "empty-variation",
            reason: None,
            line: 9,
            column: 17,
            ply: None,
            san: None,
        }],
        ..CLEAN
    };

    /// `3. exd6 e.p.`: read as the capture, with a warning at the mark
    /// (`--lint` adds `lint-en-passant-suffix` on the capture: see
    /// validate.rs).
    an_en_passant_mark_after_a_capture_is_read_with_a_warning: Case {
        fixture: "invalid/lint-en-passant-suffix.pgn",
        plies: 6,
        findings: &[on_move("warning", "non-san-move", 9, 28, 5, "e.p.")],
        ..CLEAN
    };
}
