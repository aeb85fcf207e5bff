//! Entry points for fuzzers: each takes arbitrary bytes, runs one part of
//! pgnkit on them (framing, validation, FEN records, move lines, a round
//! trip through PGN) and panics when an invariant breaks. The cargo-fuzz
//! targets under `fuzz/` and the stable driver (`tests/fuzz`) both call
//! these, so both test exactly the same code.

use std::sync::Arc;

use shakmaty::{Chess, EnPassantMode, Position, fen::Fen};

use crate::{
    check::{Checker, GameReader, KeptTags, Options, ReadOptions},
    fen_check,
    frame::{Batch, FrameOptions, Framer},
    game::Game,
    notation,
    output::games::{
        GameWriter, PgnWriter,
        pgn::{self, SEVEN_TAG_ROSTER},
    },
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
pub fn frame(data: &[u8]) {
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
            let Ok(notation::Read { m, .. }) = notation::read_move(&pos, token) else { break };
            assert!(pos.is_legal(m), "{token} read as an illegal move");
            for written in [notation::Notation::San, notation::Notation::Uci, notation::Notation::Lan] {
                let mut copy = pos.clone();
                let mut out = String::new();
                notation::write_and_play(&mut copy, m, written, &mut out);
                let back = notation::read_move(&pos, out.trim());
                assert_eq!(back.ok().map(|read| read.m), Some(m), "{token} written as {out:?} reads back");
            }
            pos.play_unchecked(m);
        }
        let _ = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
    }
}

/// Every game of `input` as `convert --to pgn` reads it: checked as
/// `validate` checks it, every tag kept, comments, NAGs and variations too.
fn read_games(input: &[u8], opts: FrameOptions) -> Vec<Game> {
    let mut framer = Framer::with_options(input, FrameOptions { keep_notes: true, ..opts });
    let mut batch = Batch::default();
    let mut reader = GameReader::new(ReadOptions { tags: KeptTags::All, ..ReadOptions::default() });
    let file: Arc<str> = Arc::from("fuzz");
    let mut games = Vec::new();
    while framer.next_batch(&mut batch).unwrap_or(false) {
        games.extend(batch.games().map(|game| reader.read(&file, game, true)));
    }
    games
}

/// The round trip: games read, written as PGN (`convert --to pgn`) and
/// read again are the same games, each from the same start position (or
/// again not replayed) with the same main line, the same result and the
/// same tags: each name once with the value every reader takes (the
/// last), the Seven Tag Roster completed, the Result tag the game's
/// result. So a converted game replays as `validate` replayed it.
pub fn roundtrip(data: &[u8]) {
    let (opts, input) = options(data);
    let first = read_games(input, opts);
    let mut written = Vec::new();
    for game in &first {
        PgnWriter::default().game(game, &mut written);
    }
    // Written games are longer than read ones (tags completed, SAN
    // regenerated): read back without the size cap the input may have had.
    let again = FrameOptions { max_game_bytes: FrameOptions::default().max_game_bytes, ..opts };
    let second = read_games(&written, again);
    let shown = || String::from_utf8_lossy(&written).into_owned();
    assert_eq!(second.len(), first.len(), "as many games read back as written: {}", shown());
    for (a, b) in first.iter().zip(&second) {
        let start = |game: &Game| game.start.as_ref().map(notation::fen);
        assert_eq!(start(b), start(a), "game {}: the same start position: {}", a.report.game, shown());
        let moves = |game: &Game| game.mainline.nodes.iter().map(|node| node.step).collect::<Vec<_>>();
        assert!(moves(b) == moves(a), "game {}: the same main line: {}", a.report.game, shown());
        assert_eq!(b.result, a.result, "game {}: the same result", a.report.game);
        let roster = |name: &str| SEVEN_TAG_ROSTER.iter().find(|&&(n, _)| n == name).map(|&(_, default)| default);
        for (i, (name, value)) in b.tags.iter().enumerate() {
            assert!(b.tags.iter().take(i).all(|(n, _)| n != name), "game {}: {name} written twice", a.report.game);
            // The last value of the name, as the checker reads it.
            let last = a.tags.iter().filter(|&(n, _)| n == name).map(|(_, v)| v).last();
            let want = if name == "Result" { Some(a.result) } else { last.or_else(|| roster(name)) };
            // A line break in a value (from a tag line left unclosed) is
            // written as a tab: it would end the tag line.
            let want = want.map(|v| v.replace(['\r', '\n'], "\t"));
            assert_eq!(Some(value), want.as_deref(), "game {}: tag {name}: {}", a.report.game, shown());
        }
        for (name, _) in a.tags.iter().filter(|(name, _)| pgn::is_tag_name(name)) {
            assert!(b.tags.get(name).is_some(), "game {}: tag {name} written", a.report.game);
        }
    }
}
