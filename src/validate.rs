//! Checks one framed game: parse it with pgn-reader, replay the main line on
//! shakmaty, and report every finding with its location.
//!
//! [`Checker::check`] is pure apart from reusing its own buffers, so the
//! binary runs one checker per thread and stays deterministic.

use std::{
    collections::HashMap,
    hash::{BuildHasherDefault, Hasher},
    io::Read,
    ops::ControlFlow,
    sync::{Arc, Mutex, PoisonError},
};

use pgn_reader::{KnownOutcome, Outcome, RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::san::Suffix;
use shakmaty::{
    CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, Position, Role, fen::Fen, san::San, uci::UciMove,
    zobrist::Zobrist64,
};

use crate::{
    explain,
    locate::{self, TokenKind, Tokens},
    notation,
    report::{Code, Diagnostic, DrawReason, GameReport, Severity, Termination},
    resolve,
    split::{FrameFlags, RawGame, strip_move_number},
};

/// A tag value kept between games so that its buffer is reused.
#[derive(Debug, Default)]
struct TagSlot {
    present: bool,
    value: Vec<u8>,
}

impl TagSlot {
    fn get(&self) -> Option<&[u8]> {
        self.present.then_some(&self.value[..])
    }

    fn set(&mut self, value: &[u8]) {
        self.present = true;
        self.value.clear();
        self.value.extend_from_slice(value);
    }
}

/// The tags and moves pgn-reader hands over for one game.
#[derive(Debug, Default)]
struct Collected {
    white: TagSlot,
    black: TagSlot,
    result: TagSlot,
    fen: TagSlot,
    variant: TagSlot,
    termination: TagSlot,
    mainline: Vec<SanPlus>,
    variation_moves: u32,
    stray_closes: u32,
    depth: u32,
    outcome: Option<Outcome>,
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

/// The game being read, in place in its batch buffer, and how far.
#[derive(Debug, Default)]
struct FeedState {
    batch: Option<Arc<Vec<u8>>>,
    range: std::ops::Range<usize>,
    pos: usize,
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
    fn set(&self, game: RawGame<'_>) {
        let mut feed = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let (batch, range) = game.shared();
        feed.pos = range.start;
        feed.batch = Some(batch);
        feed.range = range;
    }

    /// Lets go of the batch buffer so that it can be reused.
    fn release(&self) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).batch = None;
    }
}

impl Read for Feed {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut feed = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let FeedState { batch, range, pos } = &mut *feed;
        let game = batch.as_deref().map_or(&[][..], |b| &b[range.clone()]);
        let done = *pos - range.start;
        if let Some(rest) = game.get(done..).filter(|rest| !rest.is_empty()) {
            let n = buf.len().min(rest.len());
            buf[..n].copy_from_slice(&rest[..n]);
            *pos += n;
            return Ok(n);
        }
        let padding = &PADDING[(done - game.len()).min(PADDING.len())..];
        let n = buf.len().min(padding.len());
        buf[..n].copy_from_slice(&padding[..n]);
        *pos += n;
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
}

impl Default for Checker {
    fn default() -> Self {
        let feed = Feed::default();
        let reader = Reader::new(feed.clone());
        Checker { collected: Collected::default(), replay: Replay::default(), feed, reader, full_reports: true }
    }
}

/// Per-game context for building diagnostics.
struct Ctx<'a> {
    game: RawGame<'a>,
    utf8: bool,
    tokens: Option<Tokens>,
    mainline: Option<Vec<(usize, usize)>>,
    diagnostics: Vec<Diagnostic>,
}

impl Ctx<'_> {
    fn tokens(&mut self) -> &Tokens {
        let bytes = self.game.bytes;
        self.tokens.get_or_insert_with(|| locate::tokens(bytes))
    }

    fn line_column(&self, offset: usize) -> (u64, u32) {
        let frame = self.game.frame;
        locate::line_column(self.game.bytes, offset, frame.line, frame.column, self.utf8)
    }

    fn push(&mut self, severity: Severity, code: Code, offset: usize, message: String) -> &mut Diagnostic {
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
    fn mainline_offset(&mut self, index: usize) -> Option<(usize, String)> {
        let (bytes, utf8) = (self.game.bytes, self.utf8);
        let &(offset, len) = self.mainline().get(index)?;
        Some((offset, text(&bytes[offset..offset + len], utf8)))
    }

    /// Offset of the end of the last non-blank byte (for game-wide findings).
    fn end_offset(&self) -> usize {
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

    /// Whether to compare every move as written with its normalized SAN
    /// (`lint-*` warnings: check suffixes, disambiguation, `0-0`, `e8Q`,
    /// `e.p.`).
    #[must_use]
    pub fn with_lint(mut self, yes: bool) -> Self {
        self.replay.lint = yes;
        self
    }

    /// Parses, replays and checks one game.
    pub fn check(&mut self, file: &Arc<str>, game: RawGame<'_>) -> GameReport {
        let frame = game.frame;
        // Most games are ASCII, and that test is cheaper than UTF-8 validation.
        let utf8_error = if game.bytes.is_ascii() { None } else { std::str::from_utf8(game.bytes).err() };
        let mut ctx = Ctx { game, utf8: utf8_error.is_none(), tokens: None, mainline: None, diagnostics: Vec::new() };
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
                format!("the game is larger than the {} byte limit; the rest of it was skipped", game.bytes.len()),
            );
        }

        self.collected.clear();
        let parse_error = self.parse(game);

        if frame.flags.contains(FrameFlags::UNTERMINATED_COMMENT) {
            let at = ctx.tokens().open_comment.unwrap_or_else(|| ctx.end_offset());
            ctx.push(Severity::Error, Code::UnterminatedComment, at, "this `{` comment is never closed".to_owned());
        } else if let Some(err) = parse_error
            && !frame.flags.contains(FrameFlags::BAD_TAG)
        {
            // A broken tag line is reported below, line by line, with why.
            let at = ctx.end_offset();
            ctx.push(Severity::Error, Code::InvalidTag, at, format!("the game cannot be read: {err}"));
        }
        if frame.flags.contains(FrameFlags::UNTERMINATED_VARIATION) {
            let open = ctx.tokens().open_variations.clone();
            for at in open {
                ctx.push(
                    Severity::Error,
                    Code::UnterminatedVariation,
                    at,
                    "this `(` variation is never closed".to_owned(),
                );
            }
        }

        if frame.flags.contains(FrameFlags::BAD_TAG) {
            for (at, problem) in ctx.tokens().bad_tags.clone() {
                ctx.push(Severity::Error, Code::InvalidTag, at, problem);
            }
        }
        if frame.flags.contains(FrameFlags::TEXT_ANNOTATION) {
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
        let counted = frame.mainline_tokens as usize + frame.variation_tokens as usize;
        if read != counted || collected.stray_closes > 0 {
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
        if let Some(pos) = start_position(&mut ctx, collected) {
            replayed = true;
            let limit = skipped.stop_at.unwrap_or(mainline.len()).min(mainline.len());
            replay.run(&mut ctx, pos, &mainline[..limit]);
            report.plies = replay.plies;
            report.termination = termination(&replay.pos, replay.final_repetitions);
            report.threefold_ply = replay.threefold_ply;
            report.fivefold_ply = replay.fivefold_ply;
            report.fifty_moves_ply = replay.fifty_moves_ply;
            report.seventyfive_moves_ply = replay.seventyfive_moves_ply;
            if self.full_reports {
                report.final_fen = Some(Fen::from_position(&replay.pos, EnPassantMode::Legal).to_string());
            }
            if let Some(d) =
                ctx.diagnostics.iter_mut().find(|d| d.code == Code::InvalidSan && d.fen.is_none() && d.ply.is_some())
            {
                // The replay stopped right before this token.
                d.fen = Some(Fen::from_position(&replay.pos, EnPassantMode::Legal).to_string());
            }
        }

        if let Some(end) = report.termination {
            check_result(&mut ctx, collected, end, replay.pos.turn());
        } else {
            check_result_tag_against_marker(&mut ctx, collected);
        }
        // Verdicts on how the game ended need the whole game.
        let finished = replayed && replay.complete && skipped.stop_at.is_none();
        if finished {
            let result = game_result(collected);
            if result == Some(Outcome::Known(KnownOutcome::Draw)) {
                // An automatic draw before the end drew the game there.
                let end = match &replay.drawn {
                    Some((ply, rule, _)) if *ply < replay.plies => Some(*rule),
                    _ => report.termination,
                };
                report.draw_reason = draw_reason(end, replay.perpetual && end == report.termination);
            }
            check_timeout(&mut ctx, collected, result, &replay.pos);
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

    /// Runs pgn-reader over the game; continues over blank lines it stops at.
    fn parse(&mut self, game: RawGame<'_>) -> Option<std::io::Error> {
        let tag_line = game.frame.max_tag_line as usize + 2;
        if tag_line > SHARED_TAG_LINE {
            let mut reader = Reader::build(game.bytes).set_supported_tag_line_length(tag_line).finish();
            return read_all(&mut reader, &mut self.collected);
        }
        self.feed.set(game);
        let err = read_all(&mut self.reader, &mut self.collected);
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
        let shown = text(raw, ctx.utf8);
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
fn read_move_at(bytes: &[u8], offset: usize, len: usize) -> Option<SanPlus> {
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

/// Replays a main line and keeps what the end-of-game rules need.
///
/// Repetitions can only happen between irreversible moves (captures, pawn
/// moves; the halfmove clock says which), so the replay keeps the position
/// after the last such move and the moves since, and hashes positions only
/// for stretches long enough to repeat a position three times.
#[derive(Debug, Default)]
struct Replay {
    pos: Chess,
    plies: u32,
    /// Every move given was played (no illegal move stopped the replay).
    complete: bool,
    /// `--lint`: compare each move as written with its normalized SAN.
    lint: bool,
    /// Position at the start of the current reversible stretch.
    stretch_start: Chess,
    /// Ply of that position.
    stretch_ply: u32,
    /// Moves played since then.
    stretch: Vec<Move>,
    hashes: Vec<u64>,
    counts: HashMap<u64, u32, BuildHasherDefault<ZobristKey>>,
    /// How often the final position occurred in its stretch.
    final_repetitions: usize,
    /// The final position repeats a cycle in which one side only gave check.
    perpetual: bool,
    threefold_ply: Option<u32>,
    fivefold_ply: Option<u32>,
    fifty_moves_ply: Option<u32>,
    seventyfive_moves_ply: Option<u32>,
    /// The first fivefold repetition or 75-move point (ply, what, FEN), to
    /// warn about moves played after it. Play on after a dead
    /// position (K+B v K) is common in real games and is not flagged.
    drawn: Option<(u32, Termination, String)>,
}

/// Zobrist hashes are already uniformly random, so they serve as their own
/// hash-table keys (SipHash over them was a third of the repetition cost).
#[derive(Debug, Default)]
struct ZobristKey(u64);

impl Hasher for ZobristKey {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A position needs at least 8 plies to occur three times.
const MIN_REPEATING_STRETCH: usize = 8;

impl Replay {
    /// Plays `moves` from `pos`; stops at the first that cannot be played.
    fn run(&mut self, ctx: &mut Ctx<'_>, pos: Chess, moves: &[SanPlus]) {
        self.pos = pos;
        self.plies = 0;
        self.complete = false;
        self.stretch_ply = 0;
        self.stretch_start = self.pos.clone();
        self.stretch.clear();
        self.perpetual = false;
        (self.threefold_ply, self.fivefold_ply, self.fifty_moves_ply, self.seventyfive_moves_ply) =
            (None, None, None, None);
        self.drawn = None;
        self.check_move_rules();
        for (index, san_plus) in moves.iter().enumerate() {
            let m = match san_plus.san {
                San::Null => {
                    if !self.null_move(ctx, index, san_plus) {
                        return self.finish(ctx);
                    }
                    continue;
                }
                san => match resolve::quick_move(&self.pos, san).ok_or(()).or_else(|()| san.to_move(&self.pos)) {
                    Ok(m) => m,
                    Err(err) => {
                        if let Some(m) = self.coordinate_move(ctx, index, san_plus) {
                            m
                        } else if !has_legal_move(&self.pos) {
                            let end = if self.pos.is_check() { "checkmate" } else { "stalemate" };
                            let message = format!("the game was already over ({end}) before this move");
                            self.move_diagnostic(ctx, index, san_plus, Severity::Error, Code::MovesAfterEnd, message);
                            return self.finish(ctx);
                        } else {
                            let (code, reason, message) = explain::san_error(&self.pos, san, &err);
                            self.move_diagnostic(ctx, index, san_plus, Severity::Error, code, message);
                            ctx.diagnostics.last_mut().expect("just pushed").reason = reason;
                            return self.finish(ctx);
                        }
                    }
                },
            };
            if self.lint {
                lint_move(ctx, index, &self.pos, m, san_plus);
            }
            self.pos.play_unchecked(m);
            self.plies += 1;
            if self.pos.halfmoves() == 0 {
                self.end_stretch();
                self.restart_stretch();
            } else {
                self.stretch.push(m);
                if self.pos.halfmoves() >= 100 {
                    self.check_move_rules();
                }
            }
        }
        self.complete = true;
        self.finish(ctx);
    }

    /// Repetitions of the last stretch, and moves played after an
    /// automatic draw.
    fn finish(&mut self, ctx: &mut Ctx<'_>) {
        self.perpetual = false;
        self.final_repetitions = self.end_stretch();
        let Some((ply, rule, fen)) = self.drawn.clone() else { return };
        if ply >= self.plies {
            return;
        }
        let index = ply as usize;
        let (offset, shown) = ctx.mainline_offset(index).unwrap_or_default();
        let message = format!(
            "the game was already drawn ({}) after ply {ply}; the moves from here on do not count",
            rule_name(rule)
        );
        let diag = ctx.push(Severity::Warning, Code::MovesAfterEnd, offset, message);
        diag.ply = Some(ply + 1);
        diag.san = Some(shown);
        diag.fen = Some(fen);
    }

    /// The 50- and 75-move points, once the halfmove clock is at 100.
    fn check_move_rules(&mut self) {
        let clock = self.pos.halfmoves();
        if clock < 100 || self.seventyfive_moves_ply.is_some() || !has_legal_move(&self.pos) {
            return;
        }
        self.fifty_moves_ply.get_or_insert(self.plies);
        if clock >= 150 {
            self.seventyfive_moves_ply = Some(self.plies);
            // Found before any fivefold repetition of this stretch, which is
            // hashed only when the stretch ends.
            let fen = Fen::from_position(&self.pos, EnPassantMode::Legal).to_string();
            self.drawn = Some((self.plies, Termination::SeventyfiveMoves, fen));
        }
    }

    /// Plays a null move as a pass; false when it cannot be played.
    fn null_move(&mut self, ctx: &mut Ctx<'_>, index: usize, san_plus: &SanPlus) -> bool {
        if self.pos.is_check() {
            let message = "a null move while in check: the king would stay in check".to_owned();
            self.move_diagnostic(ctx, index, san_plus, Severity::Error, Code::NullMove, message);
            return false;
        }
        let message = "a null move (a pass): play goes on with the other side to move".to_owned();
        self.move_diagnostic(ctx, index, san_plus, Severity::Warning, Code::NullMove, message);
        // Counters move on as after a real move (as python-chess does).
        let mut setup = self.pos.to_setup(EnPassantMode::Legal);
        setup.swap_turn();
        setup.halfmoves = setup.halfmoves.saturating_add(1);
        if setup.turn == Color::White {
            setup.fullmoves = setup.fullmoves.saturating_add(1);
        }
        match Chess::from_setup(setup, self.pos.castles().mode()) {
            Ok(swapped) => self.pos = swapped,
            Err(_) => return false,
        }
        self.plies += 1;
        // A pass is not a move of the game: repetitions restart after it.
        self.end_stretch();
        self.restart_stretch();
        true
    }

    /// A move written in coordinates (`g1f3`, `e7e8q`), as engines and some
    /// exports do: SAN reads `g1f3` as a pawn move from g1, which fails.
    /// When the token is a legal UCI move, it is played with a warning.
    fn coordinate_move(&self, ctx: &mut Ctx<'_>, index: usize, san_plus: &SanPlus) -> Option<Move> {
        let (_, shown) = ctx.mainline_offset(index)?;
        let token = strip_move_number(shown.as_bytes());
        let is_uci = matches!(token, [b'a'..=b'h', b'1'..=b'8', b'a'..=b'h', b'1'..=b'8', rest @ ..]
            if matches!(rest, [] | [b'q' | b'r' | b'b' | b'n' | b'Q' | b'R' | b'B' | b'N']));
        if !is_uci {
            return None;
        }
        let m = UciMove::from_ascii(&token.to_ascii_lowercase()).ok()?.to_move(&self.pos).ok()?;
        if !ctx.diagnostics.iter().any(|d| d.code == Code::NonSanMove) {
            let san = San::from_move(&self.pos, m);
            let message = format!(
                "`{shown}` is a move in coordinates (UCI), not SAN; read as {san} \
                 (later coordinate moves of this game are read the same way, without a warning)"
            );
            self.move_diagnostic(ctx, index, san_plus, Severity::Warning, Code::NonSanMove, message);
        }
        Some(m)
    }

    fn move_diagnostic(
        &self,
        ctx: &mut Ctx<'_>,
        index: usize,
        san_plus: &SanPlus,
        severity: Severity,
        code: Code,
        message: String,
    ) {
        let (offset, shown) = ctx.mainline_offset(index).unwrap_or_else(|| (0, san_plus.to_string()));
        let fen = Fen::from_position(&self.pos, EnPassantMode::Legal).to_string();
        let diag = ctx.push(severity, code, offset, message);
        diag.ply = Some(self.plies + 1);
        diag.san = Some(shown);
        diag.fen = Some(fen);
    }

    fn restart_stretch(&mut self) {
        self.stretch_start.clone_from(&self.pos);
        self.stretch_ply = self.plies;
        self.stretch.clear();
    }

    /// Hashes the positions of the stretch just ended to find the first
    /// threefold and fivefold repetitions; returns how often its last
    /// position occurred.
    fn end_stretch(&mut self) -> usize {
        if self.stretch.len() < MIN_REPEATING_STRETCH {
            return 1;
        }
        self.hashes.clear();
        self.counts.clear();
        let mut pos = self.stretch_start.clone();
        let mut hash = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal);
        self.hashes.push(hash.0);
        for &m in &self.stretch {
            let next = pos.update_zobrist_hash(hash, m, EnPassantMode::Legal);
            pos.play_unchecked(m);
            hash = next.unwrap_or_else(|| pos.zobrist_hash(EnPassantMode::Legal));
            self.hashes.push(hash.0);
        }
        for (i, &h) in self.hashes.iter().enumerate() {
            let count = self.counts.entry(h).or_insert(0);
            *count += 1;
            let ply = self.stretch_ply + i as u32;
            match *count {
                3 if self.threefold_ply.is_none() => self.threefold_ply = Some(ply),
                5 if self.fivefold_ply.is_none() => {
                    self.fivefold_ply = Some(ply);
                    if self.drawn.as_ref().is_none_or(|&(at, _, _)| ply < at) {
                        let fen = self.fen_at(i);
                        self.drawn = Some((ply, Termination::FivefoldRepetition, fen));
                    }
                }
                _ => {}
            }
        }
        let last = hash.0;
        let repetitions = self.counts[&last] as usize;
        if repetitions >= 3 {
            self.perpetual = self.cycle_is_perpetual_check(last);
        }
        repetitions
    }

    /// FEN of the `i`-th position of the current stretch.
    fn fen_at(&self, i: usize) -> String {
        let mut pos = self.stretch_start.clone();
        for &m in &self.stretch[..i] {
            pos.play_unchecked(m);
        }
        Fen::from_position(&pos, EnPassantMode::Legal).to_string()
    }

    /// Whether, from the first occurrence of the stretch's last position to
    /// its end, every move of one side gave check.
    fn cycle_is_perpetual_check(&self, last: u64) -> bool {
        let Some(first) = self.hashes.iter().position(|&h| h == last) else { return false };
        let mut pos = self.stretch_start.clone();
        for &m in &self.stretch[..first] {
            pos.play_unchecked(m);
        }
        // Checks given by the side to move at `first` and by the other side.
        let mut all_checks = [true, true];
        for (k, &m) in self.stretch[first..].iter().enumerate() {
            pos.play_unchecked(m);
            all_checks[k % 2] &= pos.is_check();
        }
        all_checks[0] || all_checks[1]
    }
}

/// `--lint`: how `m`, about to be played in `pos`, was written, against the
/// SAN the standard asks for.
fn lint_move(ctx: &mut Ctx<'_>, index: usize, pos: &Chess, m: Move, written: &SanPlus) {
    let Some((offset, shown)) = ctx.mainline_offset(index) else { return };
    let raw = strip_move_number(shown.as_bytes());
    let normal = SanPlus::from_move(pos.clone(), m);
    let mut findings: Vec<(Code, String)> = Vec::new();
    let uci = !raw.is_empty() && raw.len() >= 4 && raw[1].is_ascii_digit() && raw[3].is_ascii_digit();
    if uci {
        // Coordinates are reported once per game as `non-san-move`.
        return;
    }
    if raw.first() == Some(&b'0') {
        findings.push((Code::LintZeroCastling, format!("castling is written with the letter O: {normal}")));
    }
    if written.suffix != normal.suffix {
        let message = match (written.suffix, normal.suffix) {
            (_, Some(Suffix::Checkmate)) => format!("the move mates: write {normal}"),
            (_, Some(Suffix::Check)) => format!("the move gives check: write {normal}"),
            (Some(Suffix::Checkmate), None) => format!("the move does not mate or even give check: write {normal}"),
            _ => format!("the move does not give check: write {normal}"),
        };
        findings.push((Code::LintCheckSuffix, message));
    }
    if let (San::Normal { file, rank, .. }, San::Normal { file: f, rank: r, .. }) = (written.san, normal.san)
        && (file, rank) != (f, r)
    {
        let message = if file.is_some_and(|_| f.is_none()) || rank.is_some_and(|_| r.is_none()) {
            // Many programs disambiguate against a pinned piece too; SAN
            // counts only the pieces that can legally move there.
            let others = (pos.our(m.role())
                & shakmaty::attacks::attacks(m.to(), m.role().of(!pos.turn()), pos.board().occupied()))
            .without(m.from().expect("a normal move"));
            match others.first() {
                Some(other) if m.role() != Role::Pawn => format!(
                    "the move names more of its starting square than needed (the {} on {other} cannot legally \
                     move there{}): write {normal}",
                    explain::role_name(m.role()),
                    if pos.is_check() { "" } else { ", it is pinned" }
                ),
                _ => format!("the move names more of its starting square than needed: write {normal}"),
            }
        } else {
            format!(
                "SAN tells the moving piece apart by {}: write {normal}",
                if r.is_some() && f.is_none() { "its rank" } else { "its file" }
            )
        };
        findings.push((Code::LintDisambiguation, message));
    }
    if matches!(written.san, San::Normal { promotion: Some(_), .. }) && !raw.contains(&b'=') {
        findings.push((Code::LintPromotionEquals, format!("a promotion is written with `=`: {normal}")));
    }
    let after = &ctx.game.bytes[offset + shown.len()..];
    let next = after.iter().position(|b| !b.is_ascii_whitespace()).map_or(&[][..], |i| &after[i..]);
    if next.starts_with(b"e.p.") || (raw.ends_with(b"e") && after.starts_with(b".p.")) {
        findings.push((Code::LintEnPassantSuffix, format!("SAN has no `e.p.` suffix: {normal}")));
    }
    for (code, message) in findings {
        let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
        let diag = ctx.push(Severity::Warning, code, offset, message);
        diag.ply = Some(index as u32 + 1);
        diag.san = Some(shown.clone());
        diag.fen = Some(fen);
    }
}

/// A result as written: `1-0`, `0-1`, `1/2-1/2` or `*`.
fn result_text(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Known(KnownOutcome::Decisive { winner: Color::White }) => "1-0",
        Outcome::Known(KnownOutcome::Decisive { winner: Color::Black }) => "0-1",
        Outcome::Known(KnownOutcome::Draw) => "1/2-1/2",
        Outcome::Unknown => "*",
    }
}

/// The Result tag, if it is one of the four results (`?` and the like are
/// not results and are left alone).
fn result_tag(collected: &Collected) -> Option<Outcome> {
    let value = collected.result.get()?;
    Outcome::from_ascii(value.trim_ascii()).ok()
}

/// The game's result: the Result tag when it is one, else the marker.
fn game_result(collected: &Collected) -> Option<Outcome> {
    result_tag(collected).or(collected.outcome)
}

/// Why a drawn game was drawn, by the rule that holds at its end.
fn draw_reason(end: Option<Termination>, perpetual: bool) -> Option<DrawReason> {
    Some(match end? {
        Termination::Checkmate => return None,
        Termination::FivefoldRepetition | Termination::ThreefoldRepetition if perpetual => DrawReason::PerpetualCheck,
        Termination::Stalemate => DrawReason::Stalemate,
        Termination::InsufficientMaterial => DrawReason::InsufficientMaterial,
        Termination::SeventyfiveMoves => DrawReason::SeventyfiveMoves,
        Termination::FivefoldRepetition => DrawReason::FivefoldRepetition,
        Termination::FiftyMoves => DrawReason::FiftyMoves,
        Termination::ThreefoldRepetition => DrawReason::ThreefoldRepetition,
    })
}

/// An automatic draw in words.
fn rule_name(rule: Termination) -> &'static str {
    match rule {
        Termination::SeventyfiveMoves => "75 moves without capture or pawn move",
        Termination::FivefoldRepetition => "fivefold repetition",
        _ => rule.as_str(),
    }
}

/// FIDE 6.9: a flag fall loses only if the opponent could still mate.
fn check_timeout(ctx: &mut Ctx<'_>, collected: &Collected, result: Option<Outcome>, pos: &Chess) {
    let Some(Outcome::Known(KnownOutcome::Decisive { winner })) = result else { return };
    let Some(value) = collected.termination.get() else { return };
    let value = text(value, ctx.utf8).to_ascii_lowercase();
    let value = value.trim();
    let on_time = matches!(value, "time forfeit" | "time" | "timeout" | "time-forfeit" | "flag" | "lost on time")
        || value.ends_with("on time");
    if !on_time || !pos.has_insufficient_material(winner) {
        return;
    }
    let at = memchr::memmem::find(ctx.game.bytes, b"[Termination").unwrap_or(0);
    let name = if winner == Color::White { "White" } else { "Black" };
    let message = format!(
        "{name} is given the win on time but has no material to mate with ({}); \
         under FIDE 6.9 the game is a draw",
        material(pos.board(), winner)
    );
    ctx.push(Severity::Warning, Code::TimeoutVsInsufficientMaterial, at, message);
}

/// A side's pieces as letters, king first (`KN`, `KBB`).
fn material(board: &shakmaty::Board, color: Color) -> String {
    [Role::King, Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn]
        .iter()
        .flat_map(|&role| {
            let n = (board.by_color(color) & board.by_role(role)).count();
            std::iter::repeat_n(role.upper_char(), n)
        })
        .collect()
}

/// Result tag against the movetext's termination marker.
fn check_result_tag_against_marker(ctx: &mut Ctx<'_>, collected: &Collected) {
    let (Some(tag), Some(marker)) = (result_tag(collected), collected.outcome) else { return };
    if tag != marker {
        let at = ctx.tokens().result_at.unwrap_or_else(|| ctx.end_offset());
        let message =
            format!("the Result tag says {} but the movetext ends with {}", result_text(tag), result_text(marker));
        ctx.push(Severity::Error, Code::ResultMismatch, at, message);
    }
}

/// A game that ended on the board (mate, stalemate, an automatic draw) must
/// carry the result the rules give; claimable draws allow any result.
fn check_result(ctx: &mut Ctx<'_>, collected: &Collected, end: Termination, to_move: Color) {
    let required = match end {
        Termination::Checkmate => Outcome::Known(KnownOutcome::Decisive { winner: !to_move }),
        Termination::Stalemate
        | Termination::InsufficientMaterial
        | Termination::SeventyfiveMoves
        | Termination::FivefoldRepetition => Outcome::Known(KnownOutcome::Draw),
        Termination::FiftyMoves | Termination::ThreefoldRepetition => {
            return check_result_tag_against_marker(ctx, collected);
        }
    };
    let why = match end {
        Termination::Checkmate => format!("{} is checkmated", if to_move == Color::White { "White" } else { "Black" }),
        Termination::Stalemate => "the game ends in stalemate".to_owned(),
        Termination::InsufficientMaterial => "neither side has material to mate".to_owned(),
        Termination::SeventyfiveMoves => "75 moves passed without capture or pawn move".to_owned(),
        _ => "the position occurred five times".to_owned(),
    };
    let mut wrong = Vec::new();
    if let Some(tag) = result_tag(collected).filter(|&t| t != required && t != Outcome::Unknown) {
        wrong.push(format!("the Result tag says {}", result_text(tag)));
    }
    if let Some(marker) = collected.outcome.filter(|&m| m != required && m != Outcome::Unknown) {
        wrong.push(format!("the movetext ends with {}", result_text(marker)));
    }
    if wrong.is_empty() {
        return check_result_tag_against_marker(ctx, collected);
    }
    let at = ctx.tokens().result_at.unwrap_or_else(|| ctx.end_offset());
    let message = format!("{why}, so the result is {}, but {}", result_text(required), wrong.join(" and "));
    ctx.push(Severity::Error, Code::ResultMismatch, at, message);
}

/// The first game-ending rule that holds in `pos`, in DESIGN.md's order.
fn termination(pos: &Chess, repetitions: usize) -> Option<Termination> {
    let no_moves = !has_legal_move(pos);
    if no_moves && pos.is_check() {
        Some(Termination::Checkmate)
    } else if no_moves {
        Some(Termination::Stalemate)
    } else if pos.is_insufficient_material() {
        Some(Termination::InsufficientMaterial)
    } else if pos.halfmoves() >= 150 {
        Some(Termination::SeventyfiveMoves)
    } else if repetitions >= 5 {
        Some(Termination::FivefoldRepetition)
    } else if pos.halfmoves() >= 100 {
        Some(Termination::FiftyMoves)
    } else if repetitions >= 3 {
        Some(Termination::ThreefoldRepetition)
    } else {
        None
    }
}

/// Whether the side to move has a legal move; usually settled by a safe
/// king step, which is far cheaper than generating every move.
fn has_legal_move(pos: &Chess) -> bool {
    let us = pos.turn();
    if !pos.is_check()
        && let Some(king) = pos.board().king_of(us)
    {
        // Out of check, no slider aims at the king, so a king step is legal
        // exactly when its target square is not attacked as things stand.
        let occupied = pos.board().occupied();
        let targets = shakmaty::attacks::king_attacks(king) & !pos.board().by_color(us);
        if targets.into_iter().any(|sq| pos.king_attackers(sq, !us, occupied).is_empty()) {
            return true;
        }
    }
    !pos.legal_moves().is_empty()
}

/// Text of a tag or token: UTF-8 when the game is, else Latin-1.
pub(crate) fn text(bytes: &[u8], utf8: bool) -> String {
    if utf8 { String::from_utf8_lossy(bytes).into_owned() } else { bytes.iter().map(|&b| char::from(b)).collect() }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::Checker;
    use crate::split::{Batch, SplitOptions, Splitter};

    /// Deterministic xorshift, so a failure can be replayed.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

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
    fn insufficient_material_is_only_what_fide_calls_dead() {
        use shakmaty::{CastlingMode, Chess, fen::Fen};
        let ending = |fen: &str| {
            let pos: Chess = fen.parse::<Fen>().expect("FEN").into_position(CastlingMode::Standard).expect("legal");
            super::termination(&pos, 1).map(|t| t.as_str())
        };
        let dead = Some("insufficient_material");
        assert_eq!(ending("8/8/8/4k3/8/8/8/4K3 w - - 0 1"), dead, "K v K");
        assert_eq!(ending("8/8/8/4k3/8/8/8/3NK3 w - - 0 1"), dead, "K+N v K");
        assert_eq!(ending("8/8/8/4k3/8/8/8/3BK3 b - - 0 1"), dead, "K+B v K");
        assert_eq!(ending("8/8/2b5/4k3/8/8/8/3BK3 w - - 0 1"), dead, "bishops on one colour");
        assert_eq!(ending("8/8/3b4/4k3/8/8/8/3BK3 w - - 0 1"), None, "bishops on both colours");
        assert_eq!(ending("8/8/3n4/4k3/8/8/8/3NK3 w - - 0 1"), None, "K+N v K+N can still mate");
        assert_eq!(ending("8/8/8/4k3/8/8/8/2NNK3 w - - 0 1"), None, "K+N+N v K can still mate");
        assert_eq!(ending("8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"), None, "a pawn");
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
