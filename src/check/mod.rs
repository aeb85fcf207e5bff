//! Checks one framed game: read its tags and moves (from what the framer
//! kept of them, or with pgn-reader), replay the main line on shakmaty, and
//! report every finding with its location.
//!
//! [`Checker::check`] is pure apart from reusing its own buffers, so the
//! binary runs one checker per thread and stays deterministic.

mod context;
mod lint;
mod movetext;
mod parse;
pub(crate) mod replay;
mod result;
pub(crate) mod rules;
mod start;
mod structure;
mod variations;

use std::sync::Arc;

pub(crate) use self::context::FINDINGS_PER_CODE;
pub use self::result::{game_result, result_of, tag_result};

use self::{
    context::Ctx,
    parse::{Parser, TagSlot},
    replay::Replay,
    start::start_position,
};
use crate::{
    frame::RawGame,
    game::{Game, Line, Node, Notes, Tags},
    notation::FenPosition,
    report::{Code, GameReport, Severity},
    text::text,
};

/// What a checker puts in its reports beyond the findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Every report carries its tags and final FEN. When off (for outputs
    /// that show only findings) games without findings get neither and the
    /// final FEN is never formatted, which saves time.
    pub full_reports: bool,
    /// Every report carries its final FEN, full reports or not (`convert`
    /// writes the FEN but takes names from the game's tags).
    pub final_fen: bool,
    /// Compare every move as written with its normalized SAN (`lint-*`
    /// warnings: check suffixes, disambiguation, `0-0`, `e8Q`, `e.p.`).
    pub lint: bool,
    /// With `lint`, each lint finding's message and the FEN of the
    /// position before its move. Off, a lint finding has only its code,
    /// place, ply and move as written: `fix`, which repairs those moves and
    /// shows none of these findings, asks for no more.
    pub lint_messages: bool,
    /// With `lint`, the lint stops at a game's first finding: for a caller
    /// that asks only whether a game has one (`fix -q`, which shows no
    /// repair, rewrites a game for one finding as for many).
    pub lint_first_only: bool,
    /// Replay the variations too, each from the position before the move
    /// it replaces (`illegal-move-in-variation`); off for
    /// `--mainline-only`.
    pub variations: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            full_reports: true,
            final_fen: false,
            lint: false,
            lint_messages: true,
            lint_first_only: false,
            variations: true,
        }
    }
}

/// Which tags a [`GameReader`] keeps in each [`Game`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeptTags {
    /// None: the game's tags are not needed (they stay in its bytes).
    None,
    /// Every tag, in input order.
    All,
    /// Only these, in input order (cheaper than all when a command needs a
    /// few); an empty list keeps none.
    Named(Vec<String>),
}

impl KeptTags {
    /// The tags named.
    pub fn named(names: &[&str]) -> KeptTags {
        KeptTags::Named(names.iter().map(|&n| n.to_owned()).collect())
    }
}

/// What a [`GameReader`] keeps of each game, beyond what its checker reports
/// (by default: the moves only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOptions {
    /// The checker's own options.
    pub check: Options,
    /// The tags kept in [`Game::tags`].
    pub tags: KeptTags,
    /// Count the main-line moves that give check, for [`Game::checks`]: a
    /// test of the king after every move.
    pub count_checks: bool,
    /// Keep each main-line move's SAN as the replay works it out, in
    /// [`Line::san`], for a writer of SAN: the moves are then not played
    /// again to write them.
    pub san: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions { check: Options::default(), tags: KeptTags::None, count_checks: false, san: false }
    }
}

/// Checks games; keep one per thread to reuse its buffers.
#[derive(Debug)]
pub struct Checker {
    parser: Parser,
    replay: Replay,
    options: Options,
    /// Whether the last game's bytes are UTF-8 (else Windows-1252).
    utf8: bool,
    /// Make the notes of a game whose variations are checked, in the same
    /// scan, into `notes` ([`GameReader::read`] with notes).
    want_notes: bool,
    notes: Option<Notes>,
}

impl Default for Checker {
    fn default() -> Self {
        Checker::new(Options::default())
    }
}

impl Checker {
    /// A checker with empty buffers.
    pub fn new(options: Options) -> Self {
        let mut replay = Replay::default();
        replay.lint_first_only = options.lint_first_only;
        Checker { parser: Parser::default(), replay, options, utf8: true, want_notes: false, notes: None }
    }

    /// Parses, replays and checks one game: a list of stages, each writing
    /// its findings to the game's context.
    pub fn check(&mut self, file: &Arc<str>, game: RawGame<'_>) -> GameReport {
        // Most games are ASCII, and that test is cheaper than UTF-8 validation.
        let utf8_error = if game.bytes.is_ascii() { None } else { std::str::from_utf8(game.bytes).err() };
        self.utf8 = utf8_error.is_none();
        let mut ctx = Ctx::new(game, self.utf8);
        ctx.lint_messages = self.options.lint_messages;
        // Off for a game read unlinted, or after a first finding.
        self.replay.lint = self.options.lint;
        structure::encoding_and_size(&mut ctx, utf8_error);
        structure::stray_text(&mut ctx);
        // The framer counted the tokens (to find any the parser skips) and
        // kept the tags and moves as it read the game.
        let (counted, parse_error) = self.parser.read(game);
        structure::syntax(&mut ctx, parse_error, counted.annotation);
        if self.options.variations {
            structure::variation_shapes(&mut ctx);
        }
        structure::tags(&mut ctx, self.parser.collected.maybe_repeated_tag);
        if counted.bad_nag {
            structure::invalid_nags(&mut ctx);
        }
        if counted.en_passant_mark {
            movetext::en_passant_marks(&mut ctx);
        }
        let collected = &self.parser.collected;
        let (skipped, mainline) = movetext::mainline(&mut ctx, collected, counted.moves() as usize);
        if collected.from_kept && skipped.repaired.is_empty() {
            ctx.mainline_is_kept(collected.variation_moves > 0);
        }
        let mut report = GameReport::new(file, game.frame.index, game.frame.line);
        // The replay stops right before the first token that is not a move.
        let moves = &mainline[..skipped.stop_at.unwrap_or(mainline.len()).min(mainline.len())];
        // Variations are replayed from the main line's positions, which the
        // replay then keeps (only for games that have variation moves).
        // Counted by the framer too: a variation of moves pgn-reader does
        // not read (`(e1-g1)`) is read all the same.
        let variations = self.options.variations && (collected.variation_moves > 0 || counted.variations > 0);
        let recording = self.replay.record;
        self.replay.record |= variations;
        let replayed = replay_mainline(&mut self.replay, self.options, &mut ctx, collected, moves, &mut report);
        if variations && let Some(start) = &self.replay.start {
            if self.want_notes {
                self.notes = Some(variations::check_and_annotate(&mut ctx, start, &self.replay.played));
            } else {
                variations::check(&mut ctx, start, &self.replay.played);
            }
        }
        self.replay.record = recording;
        let finished = replayed && self.replay.complete && skipped.stop_at.is_none();
        report.checked = replayed;
        result::audit(&mut ctx, collected, &self.replay, &mut report, finished);
        structure::ending(&mut ctx, collected.outcome.is_some());
        finish(&mut ctx, collected, self.options.full_reports, &mut report);
        report
    }
}

/// Replays `moves` from the game's start position into `report`; false
/// when the game cannot be replayed (an unsupported variant, a broken FEN
/// tag).
fn replay_mainline(
    replay: &mut Replay,
    options: Options,
    ctx: &mut Ctx<'_>,
    collected: &parse::Collected,
    moves: &[pgn_reader::SanPlus],
    report: &mut GameReport,
) -> bool {
    replay.start = None;
    let Some(pos) = start_position(ctx, collected) else { return false };
    if replay.record {
        replay.start = Some(pos.clone());
    }
    replay.run(ctx, pos, moves);
    report.plies = replay.plies;
    report.termination = rules::termination(&replay.pos, replay.final_repetitions);
    report.threefold_ply = replay.threefold_ply;
    report.fivefold_ply = replay.fivefold_ply;
    report.fifty_moves_ply = replay.fifty_moves_ply;
    report.seventyfive_moves_ply = replay.seventyfive_moves_ply;
    if options.full_reports || options.final_fen {
        report.final_fen = Some(FenPosition::new(&replay.pos));
    }
    if let Some(d) =
        ctx.diagnostics.iter_mut().find(|d| d.code == Code::InvalidSan && d.fen.is_none() && d.ply.is_some())
    {
        // The replay stopped right before this token.
        d.fen = Some(crate::notation::fen(&replay.pos));
    }
    true
}

/// The report with its findings in input order, and the names and result
/// when reports are full or there is a finding to show them with.
fn finish(ctx: &mut Ctx<'_>, collected: &parse::Collected, full_reports: bool, report: &mut GameReport) {
    let utf8 = ctx.utf8;
    let mut diagnostics = ctx.take_diagnostics();
    if full_reports || !diagnostics.is_empty() {
        let tag = |slot: &TagSlot| slot.get().map(|b| text(b, utf8));
        report.white = tag(&collected.white);
        report.black = tag(&collected.black);
        report.result = Some(game_result(collected.result.get(), || collected.outcome));
        report.result_tag = collected.result.get().map(|b| result::tag_text(b, utf8));
        report.result_marker = collected.outcome.map(result::result_text);
    }
    diagnostics.sort_by_key(|d| (d.line, d.column));
    report.valid = report.checked && !diagnostics.iter().any(|d| d.severity == Severity::Error);
    report.diagnostics = diagnostics;
}

/// A checker that keeps what it replayed, to write games again: the only
/// way to a [`Game`], so that no game can come out with its moves or tags
/// silently left out.
#[derive(Debug)]
pub struct GameReader {
    checker: Checker,
    /// The tags of the last game given back ([`GameReader::recycle`]),
    /// whose buffers the next game's tags take.
    spare_tags: Tags,
}

impl GameReader {
    /// A reader keeping the moves played, the tags and checks `options`
    /// ask for.
    pub fn new(options: ReadOptions) -> GameReader {
        let mut checker = Checker::new(options.check);
        checker.replay.record = true;
        checker.replay.count_checks = options.count_checks;
        checker.replay.record_san = options.san;
        // The parser's list: `None` keeps none, an empty list all.
        checker.parser.collected.record_tags = match options.tags {
            KeptTags::None => None,
            KeptTags::All => Some(Vec::new()),
            KeptTags::Named(names) if names.is_empty() => None,
            KeptTags::Named(names) => Some(names.into_iter().map(String::into_bytes).collect()),
        };
        GameReader { checker, spare_tags: Tags::default() }
    }

    /// Checks one game, as [`Checker::check`] does.
    pub fn check(&mut self, file: &Arc<str>, game: RawGame<'_>) -> GameReport {
        self.checker.check(file, game)
    }

    /// [`GameReader::read`] without the lint, whatever the options ask: for
    /// a caller that knows the game's lint findings would change nothing.
    pub fn read_unlinted(&mut self, file: &Arc<str>, game: RawGame<'_>, notes: bool) -> Game {
        let lint = std::mem::replace(&mut self.checker.options.lint, false);
        let read = self.read(file, game, notes);
        self.checker.options.lint = lint;
        read
    }

    /// Checks one game (as [`Checker::check`]) and keeps its tags and moves;
    /// with `notes`, also its comments, NAGs and variations, replaying the
    /// variations.
    pub fn read(&mut self, file: &Arc<str>, game: RawGame<'_>, notes: bool) -> Game {
        let checker = &mut self.checker;
        checker.want_notes = notes;
        let mut report = checker.check(file, game);
        checker.want_notes = false;
        // Made while the variations were checked, if they were.
        let checked_notes = checker.notes.take();
        let checks =
            checker.replay.count_checks.then(|| if checker.replay.start.is_some() { checker.replay.checks } else { 0 });
        let utf8 = checker.utf8;
        let tags = Tags::decode_into(&mut checker.parser.collected.tags, utf8, std::mem::take(&mut self.spare_tags));
        let collected = &checker.parser.collected;
        let start = checker.replay.start.clone();
        let mut mainline = match &start {
            Some(start) => {
                // The moves themselves, not a copy (`Node` is an
                // `Option<Move>`, so the vector is reused in place): a game
                // of millions of moves is held once.
                let played = std::mem::take(&mut checker.replay.played);
                let notes = match checked_notes {
                    Some(checked) => checked,
                    None if notes => variations::annotate(game, utf8, start, &played, collected.from_kept),
                    None => Notes::default(),
                };
                let nodes: Vec<Node> = played.into_iter().map(Node::new).collect();
                // The SAN of every move, or none: a writer works it out
                // again for a game whose SAN was not kept.
                let san = if checker.replay.sans.len() == nodes.len() {
                    std::mem::take(&mut checker.replay.sans)
                } else {
                    Vec::new()
                };
                Line { nodes, notes, stopped: None, san }
            }
            None => Line::default(),
        };
        let raw_movetext = start.is_none().then(|| movetext::raw_movetext(game.bytes, utf8));
        if start.is_some() {
            mainline.stopped = stop_note(&report);
        }
        if notes {
            report.diagnostics.sort_by_key(|d| (d.line, d.column));
        }
        let result = game_result(collected.result.get(), || collected.outcome);
        // The moves as written are done with; a long game's list is not kept
        // beside the game while it is written out (a 30 MB game's was 25 MB).
        if checker.parser.collected.mainline.capacity() > 1 << 16 {
            checker.parser.collected.mainline = Vec::new();
        }
        Game { report, tags, start, mainline, raw_movetext, checks, result }
    }

    /// Takes back a game [`GameReader::read`] made, done with, so that the
    /// next game's moves, SAN, tags and notes go to its buffers instead of
    /// new ones: a command that reads every game then drops it pays no
    /// allocation a game for it. A long game's are not kept for the games
    /// after it.
    pub fn recycle(&mut self, game: Game) {
        let Game { tags, mainline: Line { nodes, notes, san, .. }, .. } = game;
        let replay = &mut self.checker.replay;
        if replay.played.capacity() == 0 && nodes.capacity() <= 1 << 16 {
            // In place: a `Node` is an `Option<Move>`.
            replay.played = nodes.into_iter().map(|node| node.step).collect();
        }
        if replay.sans.capacity() == 0 && san.capacity() <= 1 << 16 {
            let mut san = san;
            san.clear();
            replay.sans = san;
        }
        if tags.recyclable() {
            self.spare_tags = tags;
        }
        notes.recycle();
    }
}

/// Why the main line ends before the movetext does, from the report.
fn stop_note(report: &GameReport) -> Option<String> {
    let stop = report
        .diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error && d.ply.is_some() && d.code != Code::IllegalMoveInVariation)?;
    Some(format!(
        "pgnkit: stopped before ply {} (line {}, column {}): {}",
        stop.ply.unwrap_or_default(),
        stop.line,
        stop.column,
        stop.message
    ))
}

/// Every game of `pgn`, read in full (for tests of what is made of games).
#[cfg(test)]
pub(crate) fn read_all(pgn: &str) -> Vec<Game> {
    use std::sync::Arc;

    let mut framer = crate::frame::Framer::new(pgn.as_bytes());
    let mut batch = crate::frame::Batch::default();
    let mut checker =
        GameReader::new(ReadOptions { tags: KeptTags::All, count_checks: true, ..ReadOptions::default() });
    let mut out = Vec::new();
    while framer.next_batch(&mut batch).unwrap_or(false) {
        out.extend(batch.games().map(|g| checker.read(&Arc::from("t.pgn"), g, true)));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::Checker;
    use crate::{
        frame::{Batch, FrameOptions, Framer},
        test_rng::{PIECES, Rng},
    };

    /// Every game of `pgn`, each read by a reader of its own when `fresh`,
    /// else by one reader that is given back each game once read.
    fn read_recycling(pgn: &[u8], fresh: bool) -> Vec<(Vec<(String, String)>, crate::game::Line)> {
        let options = || super::ReadOptions { tags: super::KeptTags::All, san: true, ..Default::default() };
        let mut framer = Framer::new(pgn);
        let mut batch = Batch::default();
        let mut reader = super::GameReader::new(options());
        let mut read = Vec::new();
        while framer.next_batch(&mut batch).unwrap() {
            for raw in batch.games() {
                if fresh {
                    reader = super::GameReader::new(options());
                }
                let game = reader.read(&Arc::from("t.pgn"), raw, true);
                let tags = game.tags.iter().map(|(n, v)| (n.to_owned(), v.to_owned())).collect();
                read.push((tags, game.mainline.clone()));
                reader.recycle(game);
            }
        }
        read
    }

    #[test]
    fn a_game_given_back_to_the_reader_leaves_nothing_in_the_next_games_tags_moves_or_notes() {
        let mut pgn = b"[Event \"first\"]\n[White \"Zo\xc3\xab\"]\n[Black \"B\"]\n\n\
            1. e4 { a comment } e5 (1... c5 2. Nf3 $1) 2. Nf3 Nc6 3. Bb5 a6 1-0\n\n\
            [Event \"second\"]\n\n1. d4 *\n\n\
            [Event \"caf\xe9\"]\n\n1. c4 {x} 1/2-1/2\n\n"
            .to_vec();
        pgn.extend_from_slice(b"1. Nf3 d5 *\n\n");
        let recycled = read_recycling(&pgn, false);
        assert_eq!(recycled.len(), 4);
        assert_eq!(recycled, read_recycling(&pgn, true));
        assert!(recycled[3].0.is_empty() && recycled[3].1.san.len() == 2);
    }

    fn check_all(input: &[u8], opts: FrameOptions) -> usize {
        let mut framer = Framer::with_options(input, opts);
        let mut batch = Batch::default();
        let mut checker = Checker::default();
        let file: Arc<str> = "fuzz".into();
        let mut games = 0;
        while framer.next_batch(&mut batch).unwrap_or(false) {
            for game in batch.games() {
                games += 1;
                let report = checker.check(&file, game);
                assert_eq!(report.game, games as u64, "games are numbered in order");
                assert_eq!(
                    report.valid,
                    report.checked && !report.diagnostics.iter().any(|d| d.severity == crate::report::Severity::Error)
                );
            }
        }
        games
    }

    /// A reader takes the stretch of reversible moves from the moves it
    /// keeps; a checker keeps a list of its own. Both must see the same
    /// repetitions, also when a pass (`--`) ends a long stretch.
    #[test]
    fn a_reader_reports_the_repetitions_and_draws_a_checker_reports() {
        use super::{GameReader, ReadOptions};
        let shuffle = "Nf3 Nf6 Ng1 Ng8 ";
        let pgn = format!(
            "1. {s}{s}{s}-- Nf6 *\n\n1. e4 e5 {s}{s}Nf3 *\n\n1. e4 e5 {s}{s}-- {b}{b}*\n\n1. {long}*\n",
            s = shuffle,
            b = "Nf6 Nf3 Ng8 Ng1 ",
            long = shuffle.repeat(40)
        );
        let mut framer = Framer::new(pgn.as_bytes());
        let mut batch = Batch::default();
        let mut reader = GameReader::new(ReadOptions::default());
        let mut checker = Checker::default();
        let file: Arc<str> = "t.pgn".into();
        let mut games = 0;
        while framer.next_batch(&mut batch).unwrap_or(false) {
            for raw in batch.games() {
                let (checked, read) = (checker.check(&file, raw), reader.read(&file, raw, false).report);
                let facts = |r: &crate::report::GameReport| {
                    (r.plies, r.termination, r.threefold_ply, r.fivefold_ply, r.seventyfive_moves_ply, r.draw_reason)
                };
                assert_eq!(facts(&read), facts(&checked), "game {}", checked.game);
                let codes = |r: &crate::report::GameReport| r.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>();
                assert_eq!(codes(&read), codes(&checked), "game {}", checked.game);
                assert!(checked.threefold_ply.is_some(), "game {} repeats", checked.game);
                games += 1;
            }
        }
        assert_eq!(games, 4);
    }

    /// The cheap test for a repetition keeps apart positions before and
    /// after a castling, and still finds one after castlings in the stretch.
    #[test]
    fn a_threefold_repetition_after_castlings_in_the_same_stretch_is_found() {
        let pgn = "1. e4 e5 2. Nf3 Nf6 3. Be2 Be7 4. O-O O-O 5. Ne1 Ne8 6. Nf3 Nf6 7. Ne1 Ne8 8. Nf3 Nf6 *\n\n\
                   1. e4 e5 2. Nf3 Nf6 3. Be2 Be7 4. O-O O-O 5. Ne1 Ne8 6. Nf3 Nf6 7. Ne1 Ne8 *\n";
        let mut framer = Framer::new(pgn.as_bytes());
        let mut batch = Batch::default();
        let mut checker = Checker::default();
        let mut seen = Vec::new();
        while framer.next_batch(&mut batch).unwrap_or(false) {
            seen.extend(batch.games().map(|g| checker.check(&Arc::from("t.pgn"), g).threefold_ply));
        }
        assert_eq!(seen, [Some(16), None]);
    }

    #[test]
    fn repaired_moves_go_back_to_their_places_in_the_main_line() {
        use pgn_reader::SanPlus;
        let san = |s: &str| SanPlus::from_ascii(s.as_bytes()).expect("SAN");
        let read = [san("e4"), san("e5"), san("Nf3")];
        let repaired = [(0, san("d4")), (3, san("c4")), (5, san("h4"))];
        let merged: Vec<String> =
            super::movetext::with_repaired(&read, &repaired).iter().map(ToString::to_string).collect();
        assert_eq!(merged, ["d4", "e4", "e5", "c4", "Nf3", "h4"]);
    }

    #[test]
    fn arbitrary_pgn_like_bytes_never_panic() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let mut input = Vec::new();
            for _ in 0..rng.below(200) {
                input.extend_from_slice(PIECES[rng.below(PIECES.len())]);
                if rng.below(3) == 0 {
                    input.push(b' ');
                }
            }
            let opts = FrameOptions {
                max_game_bytes: 1 + rng.below(2000),
                batch_games: 1 + rng.below(5),
                ..FrameOptions::default()
            };
            check_all(&input, opts);
        }
    }

    #[test]
    fn past_100_findings_of_one_code_one_more_counts_the_rest() {
        let mut pgn = b"[Event \"junk\"]\n\n1. e4 ".to_vec();
        for _ in 0..150 {
            pgn.extend_from_slice(b"Zq ");
        }
        pgn.extend_from_slice(b"( ) *\n");
        let mut framer = Framer::new(&pgn[..]);
        let mut batch = Batch::default();
        assert!(framer.next_batch(&mut batch).expect("in-memory input"));
        let report = Checker::default().check(&Arc::from("t.pgn"), batch.games().next().expect("one game"));
        let invalid: Vec<_> = report.diagnostics.iter().filter(|d| d.code == crate::report::Code::InvalidSan).collect();
        assert_eq!(invalid.len(), 101);
        assert!(invalid[..100].iter().all(|d| d.san.as_deref() == Some("Zq")));
        assert_eq!(
            (invalid[100].line, invalid[100].column, invalid[100].message.as_str()),
            (3, 307, "50 more `invalid-san` findings in this game are not shown, from here on (the first 100 are)")
        );
        assert!(!report.valid);
    }

    #[test]
    fn arbitrary_random_bytes_never_panic() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for _ in 0..5000 {
            let input: Vec<u8> = (0..rng.below(3000)).map(|_| rng.next() as u8).collect();
            check_all(&input, FrameOptions::default());
        }
    }
}
