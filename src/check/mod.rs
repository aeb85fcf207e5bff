//! Checks one framed game: parse it with pgn-reader, replay the main line on
//! shakmaty, and report every finding with its location.
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
mod variations;

use std::sync::Arc;

use pgn_reader::{KnownOutcome, Outcome};
use shakmaty::{Chess, Position};

use self::{
    context::Ctx,
    movetext::{Skipped, report_skipped_tokens, with_repaired},
    parse::{Parser, TagSlot},
    replay::Replay,
    start::start_position,
};
use crate::{
    frame::{FrameFlags, RawGame, locate::TokenKind},
    game::{Game, Line, Node, RawTags, Tags},
    report::{Code, GameReport, Severity, Termination},
    text::text,
};

/// Checks games; keep one per thread to reuse its buffers.
#[derive(Debug)]
pub struct Checker {
    parser: Parser,
    replay: Replay,
    full_reports: bool,
    final_fen: bool,
    /// The position the last game started from, when recording.
    start: Option<Chess>,
    /// Whether the last game's bytes are UTF-8 (else Latin-1).
    pub(crate) utf8: bool,
}

impl Default for Checker {
    fn default() -> Self {
        Checker {
            parser: Parser::default(),
            replay: Replay::default(),
            full_reports: true,
            final_fen: false,
            start: None,
            utf8: true,
        }
    }
}

impl Checker {
    /// A checker with empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether every report carries its tags and final FEN. When off (for
    /// outputs that show only findings) games without findings get neither
    /// and the final FEN is never formatted, which saves time.
    #[must_use]
    pub fn with_full_reports(mut self, yes: bool) -> Self {
        self.full_reports = yes;
        self
    }

    /// Whether every report carries its final FEN, full reports or not
    /// (`convert` writes the FEN but takes names from the game's tags).
    #[must_use]
    pub fn with_final_fen(mut self, yes: bool) -> Self {
        self.final_fen = yes;
        self
    }

    /// Whether to compare every move as written with its normalized SAN
    /// (`lint-*` warnings: check suffixes, disambiguation, `0-0`, `e8Q`,
    /// `e.p.`).
    #[must_use]
    pub fn with_lint(mut self, yes: bool) -> Self {
        self.replay.lint = yes;
        self
    }

    /// Whether to keep the start position and the moves played, for
    /// [`Checker::read`].
    #[must_use]
    pub fn with_record(mut self, yes: bool) -> Self {
        self.replay.record = yes;
        self
    }

    /// Whether to count the main-line moves that give check (for
    /// [`crate::game::Game::checks`]): a test of the king after every move.
    #[must_use]
    pub fn with_check_count(mut self, yes: bool) -> Self {
        self.replay.count_checks = yes;
        self
    }

    /// Whether to keep every tag, for [`Checker::read`] (the checker itself
    /// needs only a few).
    #[must_use]
    pub fn with_all_tags(mut self, yes: bool) -> Self {
        self.parser.collected.record_tags = yes.then(Vec::new);
        self
    }

    /// Keeps only the tags named (for [`Checker::read`]), which is cheaper
    /// than keeping all when a command needs a few; an empty list keeps all.
    #[must_use]
    pub fn with_tags(mut self, names: &[&str]) -> Self {
        self.parser.collected.record_tags = Some(names.iter().map(|n| n.as_bytes().to_vec()).collect());
        self
    }

    /// What the last checked game recorded (see [`Checker::with_record`]):
    /// its tags as bytes, its start position (`None` when it could not be
    /// replayed) and the moves played.
    pub(crate) fn recorded(&self) -> (&RawTags, Option<&Chess>, &[Option<shakmaty::Move>]) {
        let played = if self.start.is_some() { &self.replay.played[..] } else { &[] };
        (&self.parser.collected.tags, self.start.as_ref(), played)
    }

    /// Moves of the last checked game that gave check (when recording).
    pub(crate) fn checks(&self) -> u32 {
        if self.start.is_some() { self.replay.checks } else { 0 }
    }

    /// The last checked game's termination marker (main line), if any.
    pub(crate) fn outcome(&self) -> Option<Outcome> {
        self.parser.collected.outcome
    }

    /// The last checked game's Result tag (the last one, if given twice).
    pub(crate) fn result_tag(&self) -> Option<String> {
        self.parser.collected.result.get().map(|v| String::from_utf8_lossy(v).into_owned())
    }

    /// Parses, replays and checks one game.
    pub fn check(&mut self, file: &Arc<str>, game: RawGame<'_>) -> GameReport {
        let frame = game.frame;
        // Most games are ASCII, and that test is cheaper than UTF-8 validation.
        let utf8_error = if game.bytes.is_ascii() { None } else { std::str::from_utf8(game.bytes).err() };
        self.utf8 = utf8_error.is_none();
        let mut ctx = Ctx::new(game, self.utf8);
        if let Some(err) = utf8_error {
            ctx.push(
                Severity::Warning,
                Code::NonUtf8,
                err.valid_up_to(),
                "the game contains bytes that are not UTF-8; read as Latin-1".to_owned(),
            );
        }
        if frame.flags.contains(FrameFlags::TOO_LARGE) {
            let end = ctx.end_offset();
            ctx.push(
                Severity::Error,
                Code::GameTooLarge,
                end,
                format!(
                    "the game is larger than --max-game-size; it was cut after {} bytes and the rest skipped",
                    game.bytes.len()
                ),
            );
        }

        // The framer only finds where games end: the tokens are counted here,
        // on the worker threads, before the parser reads the game as counted.
        let counted = self.parser.count_and_set(game);
        let parse_error = self.parser.parse(game);

        // A game cut at the size limit has its comments, variations and
        // tags cut too: `game-too-large` says it all.
        let cut = frame.flags.contains(FrameFlags::TOO_LARGE);
        if frame.flags.contains(FrameFlags::UNTERMINATED_COMMENT) && !cut {
            let at = ctx.tokens().open_comment.unwrap_or_else(|| ctx.end_offset());
            ctx.push(Severity::Error, Code::UnterminatedComment, at, "this `{` comment is never closed".to_owned());
        } else if let Some(err) = parse_error
            && !cut
            && !frame.flags.contains(FrameFlags::BAD_TAG)
        {
            // A broken tag line is reported below, line by line, with why.
            let at = ctx.end_offset();
            ctx.push(Severity::Error, Code::InvalidTag, at, format!("the game cannot be read: {err}"));
        }
        if frame.flags.contains(FrameFlags::UNTERMINATED_VARIATION) && !cut {
            // One finding for the outermost: `((((...` can open thousands.
            let open = &ctx.tokens().open_variations;
            if let Some(&at) = open.first() {
                let message = match open.len() - 1 {
                    0 => "this `(` variation is never closed".to_owned(),
                    1 => "this `(` variation is never closed, nor is 1 opened inside it".to_owned(),
                    n => format!("this `(` variation is never closed, nor are {n} opened inside it"),
                };
                ctx.push(Severity::Error, Code::UnterminatedVariation, at, message);
            }
        }

        if frame.flags.contains(FrameFlags::BAD_TAG) {
            for (at, problem) in ctx.tokens().bad_tags.clone() {
                ctx.push(Severity::Error, Code::InvalidTag, at, problem);
            }
        }
        if counted.annotation {
            let bytes = game.bytes;
            if let Some(t) = ctx.tokens().tokens.iter().find(|t| t.kind == TokenKind::Annotation).copied() {
                let shown = text(&bytes[t.offset..t.offset + t.len], ctx.utf8);
                let message = format!(
                    "`{shown}` is an annotation written as text, not a NAG such as $14; \
                     it (and any like it in this game) is ignored"
                );
                ctx.push(Severity::Warning, Code::TextAnnotation, t.offset, message).san = Some(shown);
            }
        }

        // The framer counted every token the parser should have read as a
        // move; when the counts differ, the parser skipped some silently.
        let collected = &self.parser.collected;
        let mut skipped = Skipped::default();
        let read = collected.mainline.len() + collected.stray_closes as usize + collected.variation_moves as usize;
        if read != counted.moves() as usize || collected.stray_closes > 0 {
            skipped = report_skipped_tokens(&mut ctx);
        }
        let repaired;
        let mainline = if skipped.repaired.is_empty() {
            &collected.mainline[..]
        } else {
            repaired = with_repaired(&collected.mainline, &skipped.repaired);
            &repaired[..]
        };

        let mut report = GameReport {
            file: Arc::clone(file),
            game: frame.index,
            line: frame.line,
            white: None,
            black: None,
            result: None,
            plies: 0,
            valid: true,
            termination: None,
            final_fen: None,
            draw_reason: None,
            threefold_ply: None,
            fivefold_ply: None,
            fifty_moves_ply: None,
            seventyfive_moves_ply: None,
            diagnostics: Vec::new(),
        };

        let replay = &mut self.replay;
        let mut replayed = false;
        self.start = None;
        if let Some(pos) = start_position(&mut ctx, collected) {
            replayed = true;
            if replay.record {
                self.start = Some(pos.clone());
            }
            let limit = skipped.stop_at.unwrap_or(mainline.len()).min(mainline.len());
            replay.run(&mut ctx, pos, &mainline[..limit]);
            report.plies = replay.plies;
            report.termination = rules::termination(&replay.pos, replay.final_repetitions);
            report.threefold_ply = replay.threefold_ply;
            report.fivefold_ply = replay.fivefold_ply;
            report.fifty_moves_ply = replay.fifty_moves_ply;
            report.seventyfive_moves_ply = replay.seventyfive_moves_ply;
            if self.full_reports || self.final_fen {
                report.final_fen = Some(crate::notation::fen(&replay.pos));
            }
            if let Some(d) =
                ctx.diagnostics.iter_mut().find(|d| d.code == Code::InvalidSan && d.fen.is_none() && d.ply.is_some())
            {
                // The replay stopped right before this token.
                d.fen = Some(crate::notation::fen(&replay.pos));
            }
        }

        if let Some(end) = report.termination {
            result::check_result(&mut ctx, collected, end, replay.pos.turn());
        } else {
            result::check_result_tag_against_marker(&mut ctx, collected);
        }
        // Verdicts on how the game ended need the whole game.
        let finished = replayed && replay.complete && skipped.stop_at.is_none();
        if finished {
            let result = result::game_result(collected);
            if result == Some(Outcome::Known(KnownOutcome::Draw)) {
                // An automatic draw before the end drew the game there.
                let end = match &replay.drawn {
                    Some((ply, rule, _)) if *ply < replay.plies => Some(*rule),
                    _ => report.termination,
                };
                report.draw_reason = result::draw_reason(end, replay.perpetual && end == report.termination);
            }
            result::check_timeout(&mut ctx, collected, result, &replay.pos);
            if report.termination.is_some_and(|t| t.ends_game())
                && result.is_none_or(|r| r == Outcome::Unknown)
                && !frame.flags.contains(FrameFlags::TOO_LARGE)
            {
                let at = ctx.tokens().result_at.unwrap_or_else(|| ctx.end_offset());
                let end = report.termination.map_or("", Termination::as_str).replace('_', " ");
                let message = format!("the game ended on the board ({end}) but its result is not given");
                ctx.push(Severity::Info, Code::UnknownResult, at, message);
            }
        }
        if collected.outcome.is_none() && !frame.flags.contains(FrameFlags::TOO_LARGE) {
            let at = ctx.end_offset();
            ctx.push(
                Severity::Warning,
                Code::MissingResult,
                at,
                "the movetext does not end with a result (1-0, 0-1, 1/2-1/2 or *)".to_owned(),
            );
        }
        if frame.flags.contains(FrameFlags::INPUT_ERROR) {
            let at = ctx.end_offset();
            ctx.push(
                Severity::Error,
                Code::TruncatedGame,
                at,
                "the input ends in the middle of this game (read error)".to_owned(),
            );
        }

        let utf8 = ctx.utf8;
        let mut diagnostics = ctx.diagnostics;
        if self.full_reports || !diagnostics.is_empty() {
            let tag = |slot: &TagSlot| slot.get().map(|b| text(b, utf8));
            report.white = tag(&collected.white);
            report.black = tag(&collected.black);
            report.result = tag(&collected.result);
        }
        diagnostics.sort_by_key(|d| (d.line, d.column));
        report.valid = !diagnostics.iter().any(|d| d.severity == Severity::Error);
        report.diagnostics = diagnostics;
        report
    }
}

impl Checker {
    /// Checks one game (as [`Checker::check`]) and keeps its tags and moves;
    /// with `notes`, also its comments, NAGs and variations, replaying the
    /// variations. Needs a checker made [`Checker::with_record`]; its
    /// tags are there only with [`Checker::with_all_tags`].
    pub fn read(&mut self, file: &Arc<str>, game: RawGame<'_>, notes: bool) -> Game {
        let mut report = self.check(file, game);
        let (outcome, checks) = (self.outcome(), self.checks());
        // The Result tag as validate reads it (the last, if given twice).
        let result_tag = self.result_tag();
        let (tags, start, played) = self.recorded();
        let utf8 = self.utf8;
        let tags = Tags::decode(tags, utf8);
        let start = start.cloned();
        let mut mainline = match (&start, notes) {
            (Some(start), true) => variations::annotate(game, utf8, start, played, &mut report.diagnostics),
            _ => Line { nodes: played.iter().map(|&step| Node::new(step)).collect(), ..Line::default() },
        };
        let raw_movetext = start.is_none().then(|| movetext::raw_movetext(game.bytes, utf8));
        if start.is_some() {
            mainline.stopped = stop_note(&report);
        }
        if notes {
            report.diagnostics.sort_by_key(|d| (d.line, d.column));
        }
        let result = result::export_result(result_tag.as_deref().map(str::trim), outcome);
        Game { report, tags, start, mainline, raw_movetext, checks, result }
    }
}

/// Why the main line ends before the movetext does, from the report.
fn stop_note(report: &GameReport) -> Option<String> {
    let stop = report.diagnostics.iter().find(|d| d.severity == Severity::Error && d.ply.is_some())?;
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

    let mut splitter = crate::frame::Splitter::new(pgn.as_bytes());
    let mut batch = crate::frame::Batch::default();
    let mut checker = Checker::new().with_record(true).with_check_count(true).with_all_tags(true);
    let mut out = Vec::new();
    while splitter.next_batch(&mut batch).expect("reading from memory") {
        out.extend(batch.games().map(|g| checker.read(&Arc::from("t.pgn"), g, true)));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::Checker;
    use crate::{
        frame::{Batch, SplitOptions, Splitter},
        test_rng::Rng,
    };

    /// Pieces of PGN (and of things that are not PGN) to glue together.
    const PIECES: &[&[u8]] = &[
        b"[Event \"x\"]\n",
        b"[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n",
        b"[SetUp \"1\"]\n",
        b"[Variant \"Chess960\"]\n",
        b"[FEN \"garbage\"]\n",
        b"[White \"\xe9\"]\n",
        b"\n",
        b"\r\n",
        b"\r",
        b" ",
        b"1.",
        b"1...",
        b"e4",
        b"e5",
        b"Nf3",
        b"Nc6",
        b"O-O",
        b"0-0-0",
        b"exd6",
        b"e.p.",
        b"--",
        b"Z0",
        b"Qxf7#",
        b"e8=Q",
        b"{",
        b"}",
        b"(",
        b")",
        b";",
        b"%",
        b"$12",
        b"!?",
        b"1-0",
        b"0-1",
        b"1/2-1/2",
        b"*",
        b"\xc2\xbd-\xc2\xbd",
        b"Xq9",
        b"[",
        b"]",
        b"\"",
        b"\\",
        b"\0",
        b"\xef\xbb\xbf",
        b"\xff\xfe",
        b"N@f3",
        b"Kxe8",
        b"a8=K",
    ];

    fn check_all(input: &[u8], opts: SplitOptions) -> usize {
        let mut splitter = Splitter::with_options(input, opts);
        let mut batch = Batch::default();
        let mut checker = Checker::new();
        let file: Arc<str> = "fuzz".into();
        let mut games = 0;
        while splitter.next_batch(&mut batch).expect("in-memory input") {
            for game in batch.games() {
                games += 1;
                let report = checker.check(&file, game);
                assert_eq!(report.game, games as u64, "games are numbered in order");
                assert_eq!(
                    report.valid,
                    !report.diagnostics.iter().any(|d| d.severity == crate::report::Severity::Error)
                );
            }
        }
        games
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
            let opts = SplitOptions {
                max_game_bytes: 1 + rng.below(2000),
                batch_games: 1 + rng.below(5),
                ..SplitOptions::default()
            };
            check_all(&input, opts);
        }
    }

    #[test]
    fn arbitrary_random_bytes_never_panic() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for _ in 0..5000 {
            let input: Vec<u8> = (0..rng.below(3000)).map(|_| rng.next() as u8).collect();
            check_all(&input, SplitOptions::default());
        }
    }
}
