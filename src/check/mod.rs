//! Checks one framed game: parse it with pgn-reader, replay the main line on
//! shakmaty, and report every finding with its location.
//!
//! [`Checker::check`] is pure apart from reusing its own buffers, so the
//! binary runs one checker per thread and stays deterministic.

pub(crate) mod replay;
mod result;

use std::{
    io::Read,
    ops::ControlFlow,
    sync::{Arc, Mutex, PoisonError},
};

use pgn_reader::{KnownOutcome, Outcome, RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::{CastlingMode, Chess, Position, fen::Fen};

use self::replay::Replay;
use crate::{
    frame::{
        FrameFlags, RawGame,
        lexer::strip_move_number,
        locate::{self, TokenKind, Tokens},
    },
    notation,
    report::{Code, Diagnostic, GameReport, Severity, Termination},
};

/// A tag value kept between games so that its buffer is reused.
#[derive(Debug, Default)]
pub(crate) struct TagSlot {
    present: bool,
    value: Vec<u8>,
}

impl TagSlot {
    pub(crate) fn get(&self) -> Option<&[u8]> {
        self.present.then_some(&self.value[..])
    }

    fn set(&mut self, value: &[u8]) {
        self.present = true;
        self.value.clear();
        self.value.extend_from_slice(value);
    }
}

/// Tags as bytes in one buffer: names and values back to back, and where
/// each ends (two allocations per game, not two per tag).
#[derive(Debug, Default)]
pub(crate) struct RawTags {
    pub(crate) bytes: Vec<u8>,
    /// End of each name and of its value in `bytes`.
    pub(crate) ends: Vec<(usize, usize)>,
}

impl RawTags {
    pub(crate) fn push(&mut self, name: &[u8], value: &[u8]) {
        self.bytes.extend_from_slice(name);
        let name_end = self.bytes.len();
        self.bytes.extend_from_slice(value);
        self.ends.push((name_end, self.bytes.len()));
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }
}

/// The tags and moves pgn-reader hands over for one game.
#[derive(Debug, Default)]
pub(crate) struct Collected {
    white: TagSlot,
    black: TagSlot,
    pub(crate) result: TagSlot,
    fen: TagSlot,
    variant: TagSlot,
    pub(crate) termination: TagSlot,
    mainline: Vec<SanPlus>,
    variation_moves: u32,
    stray_closes: u32,
    depth: u32,
    pub(crate) outcome: Option<Outcome>,
    /// Keep every tag in `tags`.
    /// Keep the tags in `tags`: all (`Some` of an empty list) or those named.
    record_tags: Option<Vec<Vec<u8>>>,
    /// The tags kept (name, unescaped value) in input order.
    tags: RawTags,
}

impl Collected {
    fn clear(&mut self) {
        for slot in [
            &mut self.white,
            &mut self.black,
            &mut self.result,
            &mut self.fen,
            &mut self.variant,
            &mut self.termination,
        ] {
            slot.present = false;
        }
        self.mainline.clear();
        self.variation_moves = 0;
        self.stray_closes = 0;
        self.depth = 0;
        self.outcome = None;
        self.tags.clear();
    }
}

impl Visitor for Collected {
    type Tags = ();
    type Movetext = ();
    type Output = ();

    // A framed game may come in several parser games (pgn-reader stops at
    // blank lines inside movetext); all state lives in `self` and is cleared
    // by the checker, so those pieces simply continue the same game.
    fn begin_tags(&mut self) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }

    fn tag(&mut self, _: &mut (), name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
        if let Some(names) = &self.record_tags
            && (names.is_empty() || names.iter().any(|n| n == name))
        {
            self.tags.push(name, &value.decode());
        }
        let slot = match name {
            b"White" => &mut self.white,
            b"Black" => &mut self.black,
            b"Result" => &mut self.result,
            b"FEN" => &mut self.fen,
            b"Variant" => &mut self.variant,
            b"Termination" => &mut self.termination,
            _ => return ControlFlow::Continue(()),
        };
        slot.set(&value.decode());
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, _: ()) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }

    fn san(&mut self, _: &mut (), san_plus: SanPlus) -> ControlFlow<()> {
        if self.depth == 0 {
            self.mainline.push(san_plus);
        } else {
            self.variation_moves += 1;
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _: &mut ()) -> ControlFlow<(), Skip> {
        self.depth += 1;
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self, _: &mut ()) -> ControlFlow<()> {
        match self.depth.checked_sub(1) {
            Some(depth) => self.depth = depth,
            None => self.stray_closes += 1,
        }
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, _: &mut (), outcome: Outcome) -> ControlFlow<()> {
        if self.depth == 0 {
            self.outcome = Some(outcome);
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, _: ()) {}
}

/// The bytes a long-lived pgn-reader `Reader` reads next. Building a reader
/// per game would allocate and zero its 16 KiB buffer every time, which
/// dominates on files of many short games.
#[derive(Debug, Clone, Default)]
struct Feed(Arc<Mutex<FeedState>>);

/// The game being read, in place in its batch buffer or as `elided`, and
/// how far.
#[derive(Debug, Default)]
struct FeedState {
    batch: Option<Arc<Vec<u8>>>,
    range: std::ops::Range<usize>,
    /// The game without its long comments, when it has any (else empty):
    /// see [`locate::count_eliding_comments`].
    elided: Vec<u8>,
    pos: usize,
}

impl FeedState {
    fn game(&self) -> &[u8] {
        if !self.elided.is_empty() {
            return &self.elided;
        }
        self.batch.as_deref().map_or(&[][..], |b| &b[self.range.clone()])
    }
}

/// After each game the feed supplies a blank line and a `%` escape line:
/// pgn-reader asks for a token's worth of look-ahead before every token and
/// would otherwise shift its buffer and call `read` again for each of the
/// last tokens of every game. The blank line ends the game, and the escape
/// line is skipped with one `memchr`.
const PADDING: &[u8; 264] = &{
    let mut padding = [b'%'; 264];
    padding[0] = b'\n';
    padding[1] = b'\n';
    padding[263] = b'\n';
    padding
};

impl Feed {
    fn lock(&self) -> std::sync::MutexGuard<'_, FeedState> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts the tokens of `game` (see [`locate::count_from`]) and makes
    /// it the next bytes read, without its long comments if it has any.
    fn count_and_set(&self, game: RawGame<'_>) -> locate::Counts {
        let mut feed = self.lock();
        let (batch, range) = game.shared();
        feed.pos = 0;
        feed.batch = Some(batch);
        feed.range = range;
        locate::count_eliding_comments(game.bytes, game.frame.movetext as usize, &mut feed.elided)
    }

    /// Lets go of the batch buffer so that it can be reused.
    fn release(&self) {
        let mut feed = self.lock();
        feed.batch = None;
        feed.elided.clear();
    }
}

impl Read for Feed {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut feed = self.lock();
        let (game, done) = (feed.game(), feed.pos);
        let rest = match game.get(done..).filter(|rest| !rest.is_empty()) {
            Some(rest) => rest,
            None => &PADDING[(done - game.len()).min(PADDING.len())..],
        };
        let n = buf.len().min(rest.len());
        buf[..n].copy_from_slice(&rest[..n]);
        feed.pos += n;
        Ok(n)
    }
}

/// Tag lines up to pgn-reader's default length go through the shared
/// reader; longer ones get a reader of their own.
const SHARED_TAG_LINE: usize = 255;

/// Checks games; keep one per thread to reuse its buffers.
#[derive(Debug)]
pub struct Checker {
    collected: Collected,
    replay: Replay,
    feed: Feed,
    reader: Reader<Feed>,
    full_reports: bool,
    final_fen: bool,
    /// The position the last game started from, when recording.
    start: Option<Chess>,
    /// Whether the last game's bytes are UTF-8 (else Latin-1).
    pub(crate) utf8: bool,
}

impl Default for Checker {
    fn default() -> Self {
        let feed = Feed::default();
        let reader = Reader::new(feed.clone());
        Checker {
            collected: Collected::default(),
            replay: Replay::default(),
            feed,
            reader,
            full_reports: true,
            final_fen: false,
            start: None,
            utf8: true,
        }
    }
}

/// Per-game context for building diagnostics.
pub(crate) struct Ctx<'a> {
    pub(crate) game: RawGame<'a>,
    /// Whether the game's bytes are UTF-8 (else Latin-1).
    pub(crate) utf8: bool,
    tokens: Option<Tokens>,
    mainline: Option<Vec<(usize, usize)>>,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl Ctx<'_> {
    pub(crate) fn tokens(&mut self) -> &Tokens {
        let bytes = self.game.bytes;
        self.tokens.get_or_insert_with(|| locate::tokens(bytes))
    }

    fn line_column(&self, offset: usize) -> (u64, u32) {
        let frame = self.game.frame;
        locate::line_column(self.game.bytes, offset, frame.line, frame.column, self.utf8)
    }

    pub(crate) fn push(&mut self, severity: Severity, code: Code, offset: usize, message: String) -> &mut Diagnostic {
        let (line, column) = self.line_column(offset);
        self.diagnostics.push(Diagnostic {
            severity,
            code,
            line,
            column,
            ply: None,
            san: None,
            fen: None,
            message,
            reason: None,
        });
        self.diagnostics.last_mut().expect("just pushed")
    }

    /// Offsets and lengths of the main-line tokens read as moves, in order.
    fn mainline(&mut self) -> &[(usize, usize)] {
        if self.mainline.is_none() {
            let bytes = self.game.bytes;
            let moves = self
                .tokens()
                .tokens
                .iter()
                .filter(|t| t.depth == 0 && t.kind == TokenKind::Move)
                .filter(|t| read_move_at(bytes, t.offset, t.len).is_some())
                .map(|t| (t.offset, t.len))
                .collect();
            self.mainline = Some(moves);
        }
        self.mainline.as_deref().expect("just computed")
    }

    /// Byte offset and text of the `index`-th main-line move token (0-based).
    pub(crate) fn mainline_offset(&mut self, index: usize) -> Option<(usize, String)> {
        let (bytes, utf8) = (self.game.bytes, self.utf8);
        let &(offset, len) = self.mainline().get(index)?;
        Some((offset, text(&bytes[offset..offset + len], utf8)))
    }

    /// Offset of the end of the last non-blank byte (for game-wide findings).
    pub(crate) fn end_offset(&self) -> usize {
        let bytes = self.game.bytes;
        bytes.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(0, |i| i + 1)
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
        self.collected.record_tags = yes.then(Vec::new);
        self
    }

    /// Keeps only the tags named (for [`Checker::read`]), which is cheaper
    /// than keeping all when a command needs a few; an empty list keeps all.
    #[must_use]
    pub fn with_tags(mut self, names: &[&str]) -> Self {
        self.collected.record_tags = Some(names.iter().map(|n| n.as_bytes().to_vec()).collect());
        self
    }

    /// What the last checked game recorded (see [`Checker::with_record`]):
    /// its tags as bytes, its start position (`None` when it could not be
    /// replayed) and the moves played.
    pub(crate) fn recorded(&self) -> (&RawTags, Option<&Chess>, &[Option<shakmaty::Move>]) {
        let played = if self.start.is_some() { &self.replay.played[..] } else { &[] };
        (&self.collected.tags, self.start.as_ref(), played)
    }

    /// Moves of the last checked game that gave check (when recording).
    pub(crate) fn checks(&self) -> u32 {
        if self.start.is_some() { self.replay.checks } else { 0 }
    }

    /// The last checked game's termination marker (main line), if any.
    pub(crate) fn outcome(&self) -> Option<Outcome> {
        self.collected.outcome
    }

    /// The last checked game's Result tag (the last one, if given twice).
    pub(crate) fn result_tag(&self) -> Option<String> {
        self.collected.result.get().map(|v| String::from_utf8_lossy(v).into_owned())
    }

    /// Parses, replays and checks one game.
    pub fn check(&mut self, file: &Arc<str>, game: RawGame<'_>) -> GameReport {
        let frame = game.frame;
        // Most games are ASCII, and that test is cheaper than UTF-8 validation.
        let utf8_error = if game.bytes.is_ascii() { None } else { std::str::from_utf8(game.bytes).err() };
        self.utf8 = utf8_error.is_none();
        let mut ctx = Ctx { game, utf8: self.utf8, tokens: None, mainline: None, diagnostics: Vec::new() };
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
        let counted = self.feed.count_and_set(game);
        self.collected.clear();
        let parse_error = self.parse(game);

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
        let collected = &self.collected;
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
            report.termination = replay::termination(&replay.pos, replay.final_repetitions);
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

    /// Runs pgn-reader over the game as [`Feed::count_and_set`] left it
    /// (without its long comments); continues over blank lines it stops at.
    fn parse(&mut self, game: RawGame<'_>) -> Option<std::io::Error> {
        let tag_line = game.frame.max_tag_line as usize + 2;
        let mut own_reader;
        let reader = if tag_line > SHARED_TAG_LINE {
            own_reader = Reader::build(self.feed.clone()).set_supported_tag_line_length(tag_line).finish();
            &mut own_reader
        } else {
            &mut self.reader
        };
        let err = read_all(reader, &mut self.collected);
        self.feed.release();
        if err.is_some() {
            // After an error the reader may hold part of this game: start afresh.
            self.feed = Feed::default();
            self.reader = Reader::new(self.feed.clone());
        }
        err
    }
}

/// Reads every parser game in the reader's input into one collection.
fn read_all<R: Read>(reader: &mut Reader<R>, collected: &mut Collected) -> Option<std::io::Error> {
    loop {
        match reader.read_game(collected) {
            Ok(Some(())) => {}
            Ok(None) => return None,
            Err(err) => return Some(err),
        }
    }
}

/// What [`report_skipped_tokens`] found.
#[derive(Debug, Default)]
struct Skipped {
    /// Main-line moves before the first token that is not a move (the
    /// replay stops there).
    stop_at: Option<usize>,
    /// Moves pgn-reader skipped but that read as SAN once repaired (`e8Q`,
    /// `exd6e.p.`), with their index in the main line.
    repaired: Vec<(usize, SanPlus)>,
}

/// Reports the tokens the parser could not read as moves.
fn report_skipped_tokens(ctx: &mut Ctx<'_>) -> Skipped {
    let bytes = ctx.game.bytes;
    let tokens = ctx.tokens().tokens.clone();
    let mut valid_mainline = 0;
    let mut skipped = Skipped::default();
    let mut ep_glued_at = None;
    for token in tokens {
        let raw = &bytes[token.offset..token.offset + token.len];
        let shown = token_text(raw, ctx.utf8);
        if token.kind == TokenKind::Annotation {
            continue;
        }
        if token.kind == TokenKind::StrayClose {
            ctx.push(
                Severity::Error,
                Code::UnmatchedParenthesis,
                token.offset,
                "this `)` closes no variation".to_owned(),
            );
            continue;
        }
        if ep_glued_at == Some(token.offset) {
            // The `p` of an `e.p.` glued to the capture before it.
            continue;
        }
        // What pgn-reader read: SAN, and castling with zeros.
        let token_text = strip_move_number(raw);
        if SanPlus::from_ascii(token_text).is_ok() || token_text.starts_with(b"0-0") {
            valid_mainline += usize::from(token.depth == 0);
            continue;
        }
        let end = token.offset + token.len;
        if raw.ends_with(b"e") && bytes[end..].starts_with(b".p.") {
            // `exd6e.p.` splits at its dots: `exd6e`, then `p`, skipped here.
            ep_glued_at = Some(end + 1);
        }
        if let Some(san) = read_move_at(bytes, token.offset, token.len) {
            if token.depth == 0 {
                skipped.repaired.push((valid_mainline, san));
                valid_mainline += 1;
            }
            continue;
        }
        let place = if token.depth == 0 { "the main line" } else { "a variation" };
        let diag = ctx.push(
            Severity::Error,
            Code::InvalidSan,
            token.offset,
            format!("`{shown}` in {place} is not a move, move number, annotation or result"),
        );
        diag.san = Some(shown);
        if token.depth == 0 {
            diag.ply = Some(valid_mainline as u32 + 1);
            skipped.stop_at.get_or_insert(valid_mainline);
        }
    }
    skipped
}

/// Reads the token at `offset` as a move, including an `e.p.` glued to a
/// capture (`exd6e.p.`, which tokenizes as `exd6e`, `p`).
pub(crate) fn read_move_at(bytes: &[u8], offset: usize, len: usize) -> Option<SanPlus> {
    let raw = &bytes[offset..offset + len];
    match raw.strip_suffix(b"e") {
        Some(capture) if bytes[offset + len..].starts_with(b".p.") => read_move_token(capture),
        _ => read_move_token(raw),
    }
}

/// Reads a movetext token as a move: plain SAN, castling with zeros (which
/// pgn-reader reads), or a promotion without `=` (`e8Q`), which pgn-reader
/// skips but players and old exports write.
fn read_move_token(raw: &[u8]) -> Option<SanPlus> {
    notation::san(strip_move_number(raw))
}

/// The main line with the repaired moves put back in their places.
fn with_repaired(read: &[SanPlus], repaired: &[(usize, SanPlus)]) -> Vec<SanPlus> {
    let mut out = Vec::with_capacity(read.len() + repaired.len());
    let mut read = read.iter().copied();
    let mut repaired = repaired.iter().peekable();
    loop {
        if let Some(&(_, san)) = repaired.next_if(|&&(index, _)| index == out.len()) {
            out.push(san);
        } else if let Some(san) = read.next() {
            out.push(san);
        } else {
            // Repaired moves after the last read one.
            out.extend(repaired.map(|&(_, san)| san));
            return out;
        }
    }
}

/// The position the game starts from, or `None` (with a diagnostic) when
/// it cannot be replayed.
fn start_position(ctx: &mut Ctx<'_>, collected: &Collected) -> Option<Chess> {
    let chess960 = match collected.variant.get().map(|v| text(v, true).to_ascii_lowercase()) {
        None => false,
        Some(v)
            if matches!(
                v.trim(),
                "" | "standard" | "normal" | "regular" | "chess" | "from position" | "from_position"
            ) =>
        {
            false
        }
        Some(v) if v.contains("960") || v.contains("fischer") || v.contains("freestyle") => true,
        Some(v) => {
            ctx.push(
                Severity::Warning,
                Code::UnsupportedVariant,
                0,
                format!("variant `{}` is not standard chess or Chess960; its moves were not checked", v.trim()),
            );
            return None;
        }
    };
    let Some(fen) = collected.fen.get() else {
        return Some(Chess::default());
    };
    let fen_text = text(fen, ctx.utf8);
    let at = memchr::memmem::find(ctx.game.bytes, b"[FEN").unwrap_or(0);
    let parsed = match Fen::from_ascii(fen_text.trim().as_bytes()) {
        Ok(parsed) => parsed,
        Err(err) => {
            ctx.push(
                Severity::Error,
                Code::InvalidFenTag,
                at,
                format!("the FEN tag `{fen_text}` cannot be read: {err}"),
            );
            return None;
        }
    };
    let mode = if chess960 { CastlingMode::Chess960 } else { CastlingMode::detect(parsed.as_setup()) };
    match parsed.into_position(mode) {
        Ok(pos) => Some(pos),
        Err(err) => {
            ctx.push(
                Severity::Error,
                Code::InvalidFenTag,
                at,
                format!("the FEN tag `{fen_text}` is not a legal position: {err}"),
            );
            None
        }
    }
}

/// A token as shown in a finding: a junk token can be megabytes long.
fn token_text(raw: &[u8], utf8: bool) -> String {
    crate::output::findings::shorten(&text(raw, utf8), 40)
}

/// Text of a tag or token: UTF-8 when the game is, else Latin-1.
pub(crate) fn text(bytes: &[u8], utf8: bool) -> String {
    if utf8 { String::from_utf8_lossy(bytes).into_owned() } else { bytes.iter().map(|&b| char::from(b)).collect() }
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
    fn promotions_without_equals_and_castling_with_zeros_read_as_san() {
        let read = |token: &[u8]| super::read_move_token(token).map(|san| san.to_string());
        assert_eq!(read(b"e8Q").as_deref(), Some("e8=Q"));
        assert_eq!(read(b"dxe1n+").as_deref(), Some("dxe1=N+"));
        assert_eq!(read(b"0-0-0#").as_deref(), Some("O-O-O#"));
        assert_eq!(read(b"Nf3").as_deref(), Some("Nf3"));
        assert_eq!(read(b"e8X"), None);
        assert_eq!(read(b"Ke8Q"), None);
        assert_eq!(read(b"p"), None);
    }

    #[test]
    fn an_en_passant_suffix_glued_to_its_capture_reads_as_the_capture() {
        let text = b"exd6e.p. e6";
        assert_eq!(super::read_move_at(text, 0, 5).map(|san| san.to_string()).as_deref(), Some("exd6"));
        assert_eq!(super::read_move_at(b"exd6e f5", 0, 5), None);
    }

    #[test]
    fn repaired_moves_go_back_to_their_places_in_the_main_line() {
        use pgn_reader::SanPlus;
        let san = |s: &str| SanPlus::from_ascii(s.as_bytes()).expect("SAN");
        let read = [san("e4"), san("e5"), san("Nf3")];
        let repaired = [(0, san("d4")), (3, san("c4")), (5, san("h4"))];
        let merged: Vec<String> = super::with_repaired(&read, &repaired).iter().map(ToString::to_string).collect();
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
