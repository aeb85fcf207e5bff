//! Entry points for fuzzers: each takes arbitrary bytes, runs one part of
//! pgnkit on them (framing, validation, FEN records, move lines) and panics
//! when an invariant breaks. The cargo-fuzz
//! targets under `fuzz/` and the stable driver (`tests/fuzz`) both call
//! these, so both test exactly the same code.

use std::sync::Arc;

use shakmaty::{Chess, EnPassantMode, Position, fen::Fen};

use crate::{
    check::{Checker, Options},
    fen_check,
    frame::{Batch, FrameOptions, Framer},
    notation,
    report::{Code, Severity},
};

/// Options drawn from the input's first byte, so that the fuzzer also
/// explores tiny batches and size caps.
fn options(data: &[u8]) -> (FrameOptions, &[u8]) {
    let Some((&knob, rest)) = data.split_first() else { return (FrameOptions::default(), data) };
    let opts = FrameOptions {
        max_game_bytes: if knob & 0x80 != 0 { 16 + usize::from(knob & 0x3f) * 64 } else { 32 << 20 },
        batch_games: 1 + usize::from(knob & 0x07),
        ..FrameOptions::default()
    };
    (opts, rest)
}

/// Framing: games come in order, numbered from 1, inside the input, and
/// their bytes never overlap.
pub fn split(data: &[u8]) {
    let (opts, input) = options(data);
    let mut framer = Framer::with_options(input, opts);
    let mut batch = Batch::default();
    let mut games = 0;
    while framer.next_batch(&mut batch).unwrap_or(false) {
        for game in batch.games() {
            games += 1;
            assert_eq!(game.frame.index, games, "games are numbered in order");
            assert!(game.bytes.len() <= input.len(), "a game is part of the input");
            assert!(game.frame.line >= 1 && game.frame.column >= 1, "positions are 1-based");
        }
    }
}

/// The whole check of every game: no panic, and a game is valid exactly
/// when it has no error.
pub fn validate(data: &[u8]) {
    let (opts, input) = options(data);
    let mut framer = Framer::with_options(input, opts);
    let mut batch = Batch::default();
    let mut checker = Checker::new(Options { lint: data.first().is_some_and(|b| b & 0x40 != 0), ..Options::default() });
    let file: Arc<str> = Arc::from("fuzz");
    while framer.next_batch(&mut batch).unwrap_or(false) {
        for game in batch.games() {
            let report = checker.check(&file, game);
            let errors = report.diagnostics.iter().any(|d| d.severity == Severity::Error);
            assert_eq!(report.valid, report.checked && !errors, "valid means replayed without an error");
            for d in &report.diagnostics {
                // Stray text before the first game is reported on it.
                assert!(d.line >= report.line || d.code == Code::StrayText, "a finding is not before its game");
                assert!(d.column >= 1, "columns are 1-based");
            }
        }
    }
}

/// FEN and EPD records, one per line: a record is valid exactly when it has
/// no error, and a valid record's normalized FEN is itself valid and
/// normalizes to itself.
pub fn fen(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for (number, line) in text.lines().enumerate() {
        let Some(report) = fen_check::check_record(number as u64 + 1, line) else { continue };
        let errors = report.findings.iter().any(|f| f.severity == Severity::Error);
        assert_eq!(report.valid, !errors, "valid means no error: {line:?}");
        let Some(normal) = report.normalized_fen() else { continue };
        let again = fen_check::check_record(1, &normal).expect("a normalized FEN is a record");
        assert!(again.valid, "the normalized FEN of {line:?} is valid");
        assert_eq!(again.normalized_fen(), Some(normal), "normalizing is idempotent");
    }
}

/// Lines of moves in any notation, played from the start position: every
/// move read is legal, and writing it in each notation reads back as the
/// same move.
pub fn moves(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for line in text.lines() {
        let mut pos = Chess::default();
        for token in notation::tokens(line) {
            let notation::Token::Move(token) = token else { break };
            let Ok(m) = notation::read_move(&pos, token) else { break };
            assert!(pos.is_legal(m), "{token} read as an illegal move");
            for written in [notation::Notation::San, notation::Notation::Uci, notation::Notation::Lan] {
                let mut copy = pos.clone();
                let mut out = String::new();
                notation::write_and_play(&mut copy, m, written, &mut out);
                let back = notation::read_move(&pos, out.trim());
                assert_eq!(back.ok(), Some(m), "{token} written as {out:?} reads back");
            }
            pos.play_unchecked(m);
        }
        let _ = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
    }
}
