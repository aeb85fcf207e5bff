//! `fen check`: read one FEN or EPD record and explain every defect in it.
//!
//! shakmaty's parser stops at the first bad field and its position check
//! only says which kinds of problem it met; a user fixing a position needs
//! every problem, where it is and why it is one. So the record is read here
//! field by field (`syntax`), the position is checked rule by rule
//! (`position`), EPD move operands are replayed (`epd`), and shakmaty
//! still builds the final position (its verdict must agree with ours).
//!
//! ```
//! use pgnkit::fen_check::check_record;
//!
//! let report = check_record(1, "4k3/8/8/8/8/8/8/4K2R b K - 0 1").expect("a record");
//! assert!(report.valid);
//! let report = check_record(2, "4k3/8/8/8/8/8/8/R3K3 w Kq - 3 0").expect("a record");
//! let codes: Vec<&str> = report.findings.iter().map(|f| f.code.as_str()).collect();
//! assert_eq!(codes, ["castling-rights", "castling-rights", "fullmove-zero"]);
//! assert!(!report.valid);
//! ```

mod epd;
mod findings;
mod position;
mod syntax;

use self::findings::Findings;
pub use self::findings::{FenCode, FenFinding, FenReport, FenSummary};

use shakmaty::{CastlingMode, Chess, FromSetup};

use crate::{notation, report::Severity};

/// Whether a line holds a record: blank lines and `#` comment lines do not.
pub fn is_record(line: &str) -> bool {
    record_text(line).is_some()
}

/// The record on a line, without the whitespace around it.
fn record_text(line: &str) -> Option<&str> {
    let text = line.trim();
    (!text.is_empty() && !text.starts_with('#')).then_some(text)
}

/// Checks the record on one line (without its line break); `None` for a
/// blank or `#` comment line.
pub fn check_record(line_number: u64, line: &str) -> Option<FenReport<'_>> {
    let text = record_text(line)?;
    let mut findings = Findings::new(line);
    let record = syntax::parse(line, &mut findings);
    // Each rule runs when the fields it needs could be read, so a bad field
    // does not hide the defects of the others.
    if let Some(board) = &record.board {
        position::check_board(board, record.board_at, &mut findings);
        if let Some(turn) = record.turn {
            position::check_checks(board, turn, record.ep_square(), record.board_at, &mut findings);
        }
        if let Some(castling) = &record.castling {
            position::check_castling(board, castling, &mut findings);
        }
        if let (Some(turn), Some((Some(ep), at))) = (record.turn, record.ep) {
            position::check_en_passant(board, turn, ep, at, &mut findings);
        }
    }
    syntax::check_counters(&record, &mut findings);

    let mut report =
        FenReport { line: line_number, fen: text, valid: false, chess960: false, position: None, findings: Vec::new() };
    build_position(&record, &mut findings, &mut report);
    report.valid = !findings.has_errors();
    if !report.valid {
        report.position = None;
    }
    // In the order of the text, as a reader goes through the record.
    findings.list.sort_by_key(|f| f.column);
    report.findings = findings.list;
    Some(report)
}

/// Why `fen` is not a position pgnkit can use, in `fen check`'s words: its
/// errors, `code: message`, joined by `; ` (`None` when it finds none).
/// Commands that take a FEN argument (`fen show`, `filter --fen`, `moves
/// --fen`, `perft`) explain a bad one so. Such an argument may stop after
/// its board (the rest is taken as White to move, no castling, no en
/// passant), so a missing field is not named.
pub fn explain(fen: &str) -> Option<String> {
    let report = check_record(1, fen)?;
    let errors: Vec<String> = report
        .with_severity(Severity::Error)
        .filter(|f| f.code != FenCode::MissingField)
        .map(|f| format!("{}: {}", f.code.as_str(), f.message))
        .collect();
    (!errors.is_empty()).then(|| errors.join("; "))
}

/// The position a FEN argument gives (`startpos` is the standard start), or
/// why it cannot be used, explained as [`explain`] does.
pub fn argument(fen: &str) -> Result<Chess, String> {
    notation::position(fen).map_err(|err| unusable(fen, &err))
}

/// As [`argument`], but a position shakmaty rejects as impossible that can
/// still be played from is taken ([`notation::playable_position`]: perft).
pub fn playable_argument(fen: &str) -> Result<Chess, String> {
    notation::playable_position(fen).map_err(|err| unusable(fen, &err))
}

fn unusable(fen: &str, err: &notation::FenError) -> String {
    let shown = crate::text::escape_controls(fen.trim());
    match explain(fen) {
        Some(why) => format!("`{shown}` is not a usable FEN: {}", crate::text::escape_controls(&why)),
        None => format!("`{shown}` {err}"),
    }
}

/// Lets shakmaty build the position our checks describe, when the fields
/// could be read: its verdict must agree with ours, and it gives a valid
/// record's position, which EPD move operands are checked against. Whether
/// the castling rights are Chess960's is told of faulty records too.
fn build_position(record: &syntax::Record<'_>, findings: &mut Findings<'_>, report: &mut FenReport<'_>) {
    let Some(setup) = record.setup() else { return };
    // Telling the modes apart sets castling up both ways; without castling
    // rights there is nothing to set up, and the mode is the standard one.
    let mode = if setup.castling_rights.is_empty() { CastlingMode::Standard } else { CastlingMode::detect(&setup) };
    report.chess960 = mode == CastlingMode::Chess960;
    if findings.has_errors() {
        // Faulted already: a verdict of shakmaty's would add nothing.
        return;
    }
    match Chess::from_setup(setup, mode) {
        Ok(pos) => {
            epd::check_moves(&pos, record, findings);
            report.position = Some(pos);
        }
        Err(err) => findings.error(
            FenCode::PositionRejected,
            record.board_at,
            format!("shakmaty rejects this position ({err}) although no check here faults it"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::fen::Fen;

    use super::*;

    fn codes(line: &str) -> Vec<&'static str> {
        check_record(1, line).expect("a record").findings.iter().map(|f| f.code.as_str()).collect()
    }

    #[test]
    fn blank_and_comment_lines_are_not_records() {
        assert!(check_record(1, "   ").is_none());
        assert!(check_record(1, "  # a comment").is_none());
        assert!(check_record(1, "").is_none());
    }

    #[test]
    fn the_start_position_is_valid_and_normalised_unchanged() {
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let report = check_record(7, fen).unwrap();
        assert!(report.valid, "{:?}", report.findings);
        assert_eq!(report.line, 7);
        assert_eq!(report.normalized_fen().as_deref(), Some(fen));
        assert!(!report.chess960);
    }

    #[test]
    fn every_code_has_a_distinct_name() {
        let mut names: Vec<&str> = FenCode::ALL.iter().map(|c| c.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FenCode::ALL.len());
    }

    #[test]
    fn an_empty_board_lacks_both_kings() {
        assert_eq!(codes("8/8/8/8/8/8/8/8 w - - 0 1"), ["missing-king", "missing-king"]);
    }

    #[test]
    fn a_record_with_a_bad_board_still_reports_its_other_fields() {
        assert_eq!(
            codes("8/8/8 x KQkz e9 -1 1"),
            ["board-rows", "side-to-move", "castling-field", "en-passant-field", "halfmove-clock"]
        );
    }

    /// A FEN of a random position with few pieces, so that every rule
    /// fires now and then: kings missing or doubled, pawns on back ranks,
    /// checks, castling letters and en passant squares of every kind.
    fn random_fen(seed: &mut u64) -> String {
        let mut next = |n: u64| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed % n
        };
        let mut squares = [None::<char>; 64];
        let kings = [(0, 'K'), (0, 'k'), (0, 'K'), (0, 'k')];
        for (i, &(_, king)) in kings.iter().enumerate() {
            // One king each nearly always; a second one now and then.
            if (i < 2 && next(20) != 0) || (i >= 2 && next(30) == 0) {
                let back = if king == 'K' { 0 } else { 56 };
                let sq = if next(2) == 0 { back + next(8) as usize } else { next(64) as usize };
                squares[sq] = Some(king);
            }
        }
        for _ in 0..next(8) {
            let piece = b"PNBRQPRpnbrqpr"[next(14) as usize] as char;
            squares[next(64) as usize] = Some(piece);
        }
        let mut board = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match squares[rank * 8 + file] {
                    Some(piece) => {
                        if empty > 0 {
                            board.push_str(&empty.to_string());
                            empty = 0;
                        }
                        board.push(piece);
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                board.push_str(&empty.to_string());
            }
            if rank > 0 {
                board.push('/');
            }
        }
        let turn = if next(2) == 0 { "w" } else { "b" };
        let castling = match next(16) {
            0..6 => "-",
            n => ["K", "Q", "k", "q", "KQkq", "Kq", "H", "C", "hb", "FDfd"][n as usize - 6],
        };
        let files = "abcdefgh".as_bytes();
        let ep = match next(8) {
            0 => format!("{}{}", files[next(8) as usize] as char, ["3", "6"][next(2) as usize]),
            1 => format!("{}{}", files[next(8) as usize] as char, next(8) + 1),
            _ => "-".to_owned(),
        };
        format!("{board} {turn} {castling} {ep} 0 1")
    }

    #[test]
    fn the_verdict_and_the_castling_mode_agree_with_shakmaty_on_random_positions() {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        let mut invalid = 0;
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..20_000 {
            let fen = random_fen(&mut seed);
            let report = check_record(1, &fen).unwrap();
            let setup = Fen::from_ascii(fen.as_bytes()).expect("shakmaty reads it").into_setup();
            let mode = CastlingMode::detect(&setup);
            assert_eq!(report.chess960, mode == CastlingMode::Chess960, "{fen}");
            let shakmaty = setup.position::<Chess>(mode);
            assert_eq!(report.valid, shakmaty.is_ok(), "{fen}: {:?} / {:?}", report.findings, shakmaty.err());
            assert!(!report.findings.iter().any(|f| f.code == FenCode::PositionRejected), "{fen}");
            invalid += usize::from(!report.valid);
            seen.extend(report.findings.iter().map(|f| f.code));
        }
        // Both verdicts are common and every position rule fired, so the
        // agreement means something.
        assert!((1_000..19_000).contains(&invalid), "{invalid} invalid");
        let rules = [
            FenCode::MissingKing,
            FenCode::TooManyKings,
            FenCode::PawnOnBackRank,
            FenCode::OppositeCheck,
            FenCode::TooManyCheckers,
            FenCode::ImpossibleCheck,
            FenCode::CastlingRights,
            FenCode::EnPassantWrongRank,
            FenCode::EnPassantNoPawn,
            FenCode::EnPassantSquareOccupied,
        ];
        let missing: Vec<&FenCode> = rules.iter().filter(|code| !seen.contains(code)).collect();
        assert!(missing.is_empty(), "never seen: {missing:?}");
    }

    #[test]
    fn the_setup_read_from_the_fields_is_the_one_shakmaty_reads_from_the_text() {
        let mut seed = 0x2545_f491_4f6c_dd1d;
        let mut compared = 0;
        for _ in 0..20_000 {
            let fen = random_fen(&mut seed);
            let Some(setup) = syntax::parse(&fen, &mut Findings::new(&fen)).setup() else { continue };
            let shakmaty = Fen::from_ascii(fen.as_bytes()).expect("shakmaty reads what we read").into_setup();
            assert_eq!(setup, shakmaty, "{fen}");
            compared += 1;
        }
        // Most records have well-formed fields (bad castling letters for
        // the board are faults of the position, not of the field).
        assert!(compared > 15_000, "{compared} compared");
    }

    #[test]
    fn operations_after_the_counters_are_read_and_hmvc_gives_the_clock_again() {
        let report = check_record(1, "4k3/8/8/8/8/8/8/4K2R w K - 3 9 bm O-O; id \"x\";").unwrap();
        assert!(report.valid, "{:?}", report.findings);
        assert_eq!(report.normalized_fen().as_deref(), Some("4k3/8/8/8/8/8/8/4K2R w K - 3 9"));
        let report = check_record(1, "4k3/8/8/8/8/8/8/4K2R w K - 3 9 hmvc 7;").unwrap();
        assert_eq!(report.normalized_fen().as_deref(), Some("4k3/8/8/8/8/8/8/4K2R w K - 7 9"));
        assert_eq!(codes("4k3/8/8/8/8/8/8/4K2R w K - 0 1 bm O-O-O;"), ["epd-illegal-move"]);
    }

    #[test]
    fn castling_letters_in_any_order_set_up_the_same_rights_with_a_warning() {
        let ordered = check_record(1, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        for field in ["kqKQ", "QKqk", "qKkQ"] {
            let fen = format!("r3k2r/8/8/8/8/8/8/R3K2R w {field} - 0 1");
            let report = check_record(1, &fen).unwrap();
            assert_eq!(report.position, ordered.position, "{field}");
            assert_eq!(codes(&fen), ["castling-order"], "{field}");
        }
        assert!(codes("r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1").is_empty());
    }

    #[test]
    fn the_summary_counts_records_and_findings() {
        let mut summary = FenSummary::default();
        summary += &check_record(1, "8/8/8/8/8/8/8/8 w - - 0 1").unwrap();
        summary += &check_record(2, "4k3/8/8/8/8/8/8/4K3 w - - 0 0").unwrap();
        assert_eq!(summary, FenSummary { records: 2, valid: 1, errors: 2, warnings: 1 });
        assert_eq!(summary.invalid(), 1);
    }
}
