//! Framing: cuts a byte stream into games, with the line where each starts.
//!
//! pgn-reader alone is not a safe framer for dirty files: after an
//! unterminated `{` it swallows the games that follow, and it knows no line
//! numbers. The [`Framer`] finds game boundaries itself with a small state
//! machine that understands tags, comments, variations, `%` escape lines and
//! termination markers, and hands each game to the parser as its own slice.
//!
//! What counts as a game (the rule the rest of pgnkit relies on):
//! * a game starts at a tag line, or at any other non-blank text outside a
//!   game (tag-less movetext); comments between games are skipped, and so
//!   is tag-less text that holds no move ([`StrayText`], reported on the
//!   game before it);
//! * it ends after its termination marker (`1-0`, `0-1`, `1/2-1/2`, `*`) and
//!   any comments on the rest of that line, at a line starting with `[`
//!   outside a comment, at a blank line followed by a tag line inside an
//!   unterminated comment, at a blank line followed by a tag name already seen
//!   in its tag section, at a blank line followed by `1.` when it already has
//!   moves, or at the end of the input;
//! * blank lines inside a tag section or inside movetext do not end a game.
//!
//! The framer's walk is the only one over a game's bytes: it also counts
//! the tokens, notes the long comments, and keeps the tags and move tokens
//! as pgn-reader would read them ([`Frame::counts`],
//! [`RawGame::long_comments`], [`RawGame::tags`], [`RawGame::moves`]), so
//! that the checker reads most games without the parser.
//!
//! Memory is bounded: the framer keeps one batch of games plus the game it
//! is reading, and a game larger than the cap is cut and flagged.

mod batch;
mod kept;
pub(crate) mod lexer;
pub mod locate;
pub mod shard;

#[cfg(test)]
pub(crate) use self::kept::MAX_KEPT_MOVES;
pub use self::{
    batch::{Batch, Frame, FrameFlags, RawGame, StrayText, Strays},
    kept::{MoveAt, TagAt},
};

use self::batch::Framed;
use self::kept::{KeptAt, OFFSET_LIMIT};
use self::lexer::{
    MOVE_START, TokenClass, byte_set, classify_token, is_blank, is_token_end, pgn_reader_spans, plain_tag_line,
    scan_tag_line_with, tag_name, token_len,
};
use pgn_reader::{KnownOutcome, Outcome};
use shakmaty::Color;

use std::{
    io::{self, Read},
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
};

/// Limits of the framer.
#[derive(Debug, Clone, Copy)]
pub struct FrameOptions {
    /// A game larger than this is cut and flagged [`FrameFlags::TOO_LARGE`].
    pub max_game_bytes: usize,
    /// A batch is handed out once its games hold this many bytes.
    pub batch_bytes: usize,
    /// ... or this many games.
    pub batch_games: usize,
}

impl Default for FrameOptions {
    fn default() -> Self {
        FrameOptions { max_game_bytes: 32 << 20, batch_bytes: 64 << 10, batch_games: 1024 }
    }
}

const CHUNK: usize = 1 << 16;
/// UTF-8's byte order mark.
const BOM: &[u8] = b"\xef\xbb\xbf";
/// How far a line start is inspected to recognise a tag line.
const LOOKAHEAD: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between games.
    Idle,
    /// Inside a comment between games (skipped).
    IdleComment,
    /// In the tag section of a game.
    Tags,
    /// In the movetext of a game.
    Movetext,
    /// After the termination marker, absorbing comments on the same line.
    AfterResult,
}

/// What a line starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Blank,
    Percent,
    /// First non-blank byte is `[`.
    Bracket,
    /// Anything else; `move_one` when it starts with the move number `1.`
    /// (White's first move, not `1...`).
    Other {
        move_one: bool,
    },
}

#[derive(Debug, Default)]
struct Open {
    frame: Frame,
    /// Where its entries start in the framer's [`Kept`] lists.
    kept_from: KeptAt,
}

enum Step {
    Go,
    NeedMore,
    /// Blanks were stepped over to the window's end: more input is
    /// needed, and games waiting behind them go out.
    Skipped,
}

/// Where a line whose leading blanks were stepped over starts, as stream
/// offsets (they outlast the window's moves).
#[derive(Debug, Clone, Copy)]
struct Indent {
    /// Whose it is: [`Framer::line_begin`] of its line (it is stale once
    /// another line is read).
    line: u64,
    /// The line's first byte.
    line_at: u64,
    /// Its first byte after a byte order mark, if it starts with one.
    from: u64,
}

/// Where a movetext run stopped, and so what the framer does next.
enum Stop {
    /// At the end of the window, every token read.
    End,
    /// Inside a token at the end of the window: it is read again whole.
    NeedMore,
    /// At a line end that needs the line-start look.
    Newline,
    /// In a `{` comment that goes on past the line.
    Comment,
    /// At a `;` comment.
    LineComment,
    /// At text after the result: a new game.
    NewGame,
    /// After a result.
    Result,
}

/// Cuts a stream into [`Batch`]es of games.
#[derive(Debug)]
pub struct Framer<R> {
    reader: R,
    opts: FrameOptions,
    data: Vec<u8>,
    /// Bytes of `data` read so far (the rest is scratch space).
    end: usize,
    /// Next byte to look at.
    pos: usize,
    /// Bytes of `data` that may be scanned (a trailing `\r` waits for the
    /// next read to know whether it is half of `\r\n`).
    limit: usize,
    eof: bool,
    error: Option<io::Error>,
    started: bool,
    /// The games framed since the last batch went out.
    framed: Framed,
    state: State,
    open: Option<Open>,
    next_index: u64,
    line: u64,
    /// Stream offset of `data[0]`.
    base: u64,
    /// Stream offset of the first byte of the current line.
    line_begin: u64,
    at_line_start: bool,
    prev_blank: bool,
    /// The blanks that start a line ran to the window's end and were
    /// stepped over ([`Framer::step_over_indent`]): where that line starts.
    indent: Option<Indent>,
    in_comment: bool,
    depth: u32,
    /// Skip to the end of the line (`;` comments, `%` escapes, tag lines).
    to_eol: bool,
    /// The rest of a game cut for size is being read and dropped: its
    /// state goes on as if it were open, so that its end is found where it
    /// would have been and the game after it is framed as usual.
    discard: bool,
    /// The last movetext run stopped inside a token too long to be a
    /// result; the next one starts by stepping over the rest of it.
    mid_token: bool,
    /// The batch going out keeps its last game back: stray text or a
    /// comment after it, still to come, is noted on it.
    hold_last: bool,
    /// Where the `{` of the movetext comment being read is, as an offset
    /// in the open game.
    comment_at: Option<usize>,
    /// Workers waiting for this framer (see [`Framer::share`]).
    waiting: Option<Arc<AtomicUsize>>,
}

impl<R: Read> Framer<R> {
    /// A framer with default limits.
    pub fn new(reader: R) -> Self {
        Self::with_options(reader, FrameOptions::default())
    }

    /// A framer with the given limits.
    pub fn with_options(reader: R, opts: FrameOptions) -> Self {
        Framer {
            reader,
            opts,
            data: Vec::new(),
            end: 0,
            pos: 0,
            limit: 0,
            eof: false,
            error: None,
            started: false,
            framed: Framed::default(),
            state: State::Idle,
            open: None,
            next_index: 1,
            line: 1,
            base: 0,
            line_begin: 0,
            at_line_start: true,
            prev_blank: false,
            indent: None,
            in_comment: false,
            depth: 0,
            to_eol: false,
            discard: false,
            mid_token: false,
            hold_last: false,
            comment_at: None,
            waiting: None,
        }
    }

    /// Shares the framer between workers that each frame their own batch
    /// in turn, `waiting` counting those waiting for it: while any wait, a
    /// batch goes out at an eighth of its size, at the next game that has
    /// begun with tags, for the framing worker to give to a waiting one.
    /// (Handed out at a quarter, a batch kept the waiting worker idle for
    /// 30 to 40 µs a time at -j2.)
    #[must_use]
    pub fn share(mut self, waiting: Arc<AtomicUsize>) -> Self {
        self.waiting = Some(waiting);
        self
    }

    /// Fills `batch` (its buffers are reused) with the next games. Returns
    /// `Ok(false)` when the input is exhausted and `batch` is empty.
    ///
    /// # Errors
    ///
    /// An I/O or decompression error of the input. The games read before
    /// it, including the one it interrupted (flagged
    /// [`FrameFlags::INPUT_ERROR`]), are returned first; the error comes
    /// with the following call.
    pub fn next_batch(&mut self, batch: &mut Batch) -> io::Result<bool> {
        batch.clear();
        loop {
            if self.scan() {
                break;
            }
            if self.eof {
                self.finish_input();
                break;
            }
            self.fill();
        }
        if self.framed.frames.is_empty() {
            if let Some(err) = self.error.take() {
                return Err(err);
            }
            return Ok(false);
        }
        self.hand_over(batch);
        Ok(true)
    }

    /// Moves the finished games into `batch` and keeps the unfinished tail
    /// (and, when [`Framer::hold_last`], the last finished game).
    fn hand_over(&mut self, batch: &mut Batch) {
        let frames = &mut self.framed.frames;
        // A long game is not held: it would be copied whole into the next
        // window.
        let hold = std::mem::take(&mut self.hold_last)
            && frames.len() >= 2
            && frames.last().is_some_and(|last| last.end - last.start <= CHUNK);
        let held = if hold { frames.pop() } else { None };
        let mut keep = match &self.open {
            Some(open) => open.frame.start.min(self.pos),
            None => self.pos,
        };
        if let Some(held) = &held {
            keep = keep.min(held.start);
        }
        let tail = self.end - keep;
        let recycled = batch.recycled_buffer();
        // The smaller side is copied: the tail into the batch's buffer,
        // which becomes the window, or (a batch handed out early, before
        // its window is read) the games into it, the window staying as it
        // is, its start dropped at the next `compact`.
        let games = match (&held, frames.first(), frames.last()) {
            (None, Some(first), Some(last)) if last.end - first.start < tail => first.start..last.end,
            _ => 0..0,
        };
        // How far back the window's bytes move.
        let shift = if games.is_empty() {
            if recycled.len() < tail + CHUNK {
                recycled.resize(tail + CHUNK, 0);
            }
            recycled[..tail].copy_from_slice(&self.data[keep..self.end]);
            std::mem::swap(recycled, &mut self.data);
            keep
        } else {
            if recycled.len() < games.len() {
                recycled.resize(games.len(), 0);
            }
            recycled[..games.len()].copy_from_slice(&self.data[games.clone()]);
            self.framed.shift(games.start);
            0
        };
        // What the held and the open game kept stays; the rest goes with
        // its games.
        let stays_from = match (&held, &self.open) {
            (Some(held), _) => held.kept.start,
            (None, Some(open)) => open.kept_from,
            (None, None) => self.framed.kept.at(),
        };
        self.framed.hand_over(batch, held, stays_from, shift);
        if let Some(open) = &mut self.open {
            open.kept_from = open.kept_from.since(stays_from);
            open.frame.start -= shift;
        }
        self.end -= shift;
        self.pos -= shift;
        self.limit -= shift;
        self.base += shift as u64;
    }

    /// Reads more input into `data[end..]`. Out of line: once a window, and
    /// inlined it moved the scan's code.
    #[inline(never)]
    fn fill(&mut self) {
        self.compact();
        // Grow the window with the unscanned tail so a long line or token
        // that needs look-ahead is rescanned a logarithmic number of times.
        let want = CHUNK.max(self.end - self.pos);
        if self.data.len() < self.end + want {
            self.data.resize(self.end + want, 0);
        }
        let old = self.end;
        let mut got = 0;
        // A read from a pipe gives what the pipe holds (64 KiB) whatever is
        // asked: the window grew by that much a refill, and a long line (a
        // tag line of 30 MB) was read again at each, in time quadratic up
        // to the cap. When the window is to grow, reads go on until it has.
        loop {
            match self.reader.read(&mut self.data[old + got..old + want]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => {
                    got += n;
                    if want == CHUNK || got == want {
                        break;
                    }
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => {
                    self.error = Some(err);
                    self.eof = true;
                    break;
                }
            }
        }
        self.end = old + got;
        if !self.started && (self.end >= 3 || self.eof) {
            self.started = true;
            if self.data[..self.end].starts_with(BOM) {
                self.pos = 3;
                self.line_begin = 3;
            }
        }
        if !self.started {
            return;
        }
        // Old Mac files end lines with a lone `\r`; the parser only knows `\n`.
        // Rewriting it in place keeps every offset and column.
        let mut from = self.limit.max(self.pos);
        while let Some(i) = memchr::memchr(b'\r', &self.data[from..self.end]).map(|i| i + from) {
            if i + 1 < self.end {
                if self.data[i + 1] != b'\n' {
                    self.data[i] = b'\n';
                }
            } else if self.eof {
                self.data[i] = b'\n';
            }
            from = i + 1;
        }
        self.limit = match self.data[..self.end].last() {
            Some(b'\r') if !self.eof => self.end - 1,
            _ => self.end,
        };
    }

    /// Drops the bytes that no game and no scan needs any more, so that
    /// what is skipped (a huge comment or `%` line between games, the rest
    /// of a cut game) never piles up. Only when at least as much is freed
    /// as is moved, so that each byte is moved a bounded number of times.
    fn compact(&mut self) {
        let mut keep = self.framed.frames.first().map_or(self.pos, |f| f.start.min(self.pos));
        if let Some(open) = &self.open {
            keep = keep.min(open.frame.start);
        }
        if keep < CHUNK || keep < self.end - keep {
            return;
        }
        self.data.copy_within(keep..self.end, 0);
        self.framed.shift(keep);
        if let Some(open) = &mut self.open {
            open.frame.start -= keep;
        }
        self.end -= keep;
        self.pos -= keep;
        self.limit -= keep;
        self.base += keep as u64;
    }

    /// Scans as far as the data allows; `true` when a batch is full.
    fn scan(&mut self) -> bool {
        loop {
            let framed = &self.framed;
            if framed.frames.len() >= self.opts.batch_games
                || framed.bytes >= self.opts.batch_bytes
                || (!framed.frames.is_empty() && framed.bytes >= self.opts.batch_bytes / 8 && self.others_wait())
            {
                // A full batch goes out once the next game has begun with
                // tags: text after its last game may still prove stray, and
                // is then reported on that game. It also waits for the
                // window to be read to its end (up to twice full), so that
                // what the next window keeps of this one, which is copied,
                // is the open game alone, unless another worker waits for
                // the framer. Tag-less games can only overfill it four
                // times over.
                let over = |times: usize| {
                    framed.frames.len() >= times * self.opts.batch_games
                        || framed.bytes >= times * self.opts.batch_bytes
                };
                let window_read = self.pos >= self.limit || over(2) || self.others_wait();
                if window_read && self.open.as_ref().is_some_and(|open| self.has_tags(open)) {
                    return true;
                }
                if over(4) {
                    // The last game stays for what may still follow it.
                    self.hold_last = true;
                    return true;
                }
            }
            if self.pos >= self.limit {
                return self.waiting_behind_skip();
            }
            if self.over_cap() {
                self.cut_oversized();
                continue;
            }
            let step = if self.at_line_start { self.line_start() } else { self.in_line() };
            match step {
                Step::Go => {}
                Step::NeedMore => return false,
                Step::Skipped => return self.waiting_behind_skip(),
            }
        }
    }

    /// Whether games wait behind a long stretch that is skipped: they are
    /// handed out rather than keep it in memory.
    fn waiting_behind_skip(&self) -> bool {
        let needed = self.open.as_ref().map_or(self.pos, |open| open.frame.start);
        self.framed.frames.last().is_some_and(|last| needed - last.end > CHUNK)
    }

    /// Whether another worker waits for this framer. Out of line, off the
    /// framer's hot code: inlined, it moved the movetext walk's code, and
    /// a game of junk tokens took 8% longer for the same instructions.
    #[inline(never)]
    fn others_wait(&self) -> bool {
        self.waiting.as_ref().is_some_and(|waiting| waiting.load(Ordering::Relaxed) > 0)
    }

    fn finish_input(&mut self) {
        if self.error.is_some() {
            self.flag(FrameFlags::INPUT_ERROR);
        }
        self.close(self.limit);
        // Stray text no game came after, with no game before it in this
        // batch: an input of text that holds no game (or, after games
        // handed out before a long skip, ends in such text). Never dropped
        // silently: the input's error.
        if let Some(first) = self.framed.stray.kept.first() {
            let what = if self.next_index == 1 { "holds no game: only" } else { "ends in" };
            let message = format!(
                "{what} text that is not PGN, from line {} column {}: `{}`",
                first.line,
                first.column,
                String::from_utf8_lossy(&first.text)
            );
            self.framed.stray = Strays::default();
            self.error.get_or_insert_with(|| io::Error::new(io::ErrorKind::InvalidData, message));
        }
    }

    /// Whether the open game has grown past the size cap at `pos`.
    fn over_cap(&self) -> bool {
        self.open.as_ref().is_some_and(|open| self.pos.saturating_sub(open.frame.start) > self.opts.max_game_bytes)
    }

    fn flag(&mut self, flag: FrameFlags) {
        if let Some(open) = &mut self.open {
            open.frame.flags.insert(flag);
        }
    }

    /// Hands out the open game as it is so far, flagged, and drops the
    /// rest of it as it is read: a cut neither loses the game after it
    /// (tags or not) nor makes a game of the rest of its own tag section.
    fn cut_oversized(&mut self) {
        self.flag(FrameFlags::TOO_LARGE);
        let (state, in_comment, depth, to_eol) = (self.state, self.in_comment, self.depth, self.to_eol);
        self.close(self.pos);
        (self.state, self.in_comment, self.depth, self.to_eol) = (state, in_comment, depth, to_eol);
        self.discard = true;
    }

    /// Starts a game at `at`, which lies on the current line.
    fn begin(&mut self, at: usize, state: State) {
        debug_assert!(self.open.is_none());
        let index = self.next_index;
        self.next_index += 1;
        let column = u32::try_from(self.base + at as u64 - self.line_begin + 1).unwrap_or(u32::MAX);
        let mut frame = Frame { start: at, end: at, index, line: self.line, column, ..Frame::default() };
        // Movetext that starts with `[` or `%` (after a result on the same
        // line) is a tag or escape line to the token walk: let it count.
        if state == State::Movetext && matches!(self.data.get(at), Some(b'[' | b'%')) {
            frame.flags.insert(FrameFlags::UNCOUNTED);
        }
        self.open = Some(Open { frame, kept_from: self.framed.kept.at() });
        self.comment_at = None;
        self.state = state;
        self.in_comment = false;
        self.depth = 0;
        self.prev_blank = false;
        self.to_eol = false;
    }

    /// The tags of the open game end at `at`.
    fn enter_movetext(&mut self, at: usize) {
        self.state = State::Movetext;
        if let Some(open) = &mut self.open {
            open.frame.movetext = u32::try_from(at - open.frame.start).unwrap_or(u32::MAX);
        }
    }

    /// Ends the open game at `end` (or the dropped rest of a cut one).
    fn close(&mut self, end: usize) {
        if let Some(open) = self.open.take() {
            self.push_frame(open, end);
        }
        self.state = State::Idle;
        self.in_comment = false;
        self.depth = 0;
        self.to_eol = false;
        self.discard = false;
    }

    /// Whether the open game began with a tag section.
    fn has_tags(&self, open: &Open) -> bool {
        self.state == State::Tags || open.frame.movetext > 0
    }

    /// Whether the game ending at `end` is stray text: no tags, no move
    /// (only results, brackets, words), read whole.
    fn is_stray(&self, open: &Open, end: usize) -> bool {
        let frame = &open.frame;
        if self.has_tags(open) || frame.flags.contains(FrameFlags::TOO_LARGE) || self.error.is_some() {
            return false;
        }
        let bytes = &self.data[frame.start..end.max(frame.start)];
        // `Event "Name"]`: a tag line that lost its `[`, a broken game.
        let first_line = bytes.split(|&b| b == b'\n').next().unwrap_or_default().trim_ascii();
        let name = first_line.iter().take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_').count();
        if name > 0 && first_line[name..].trim_ascii_start().starts_with(b"\"") || first_line.ends_with(b"\"]") {
            return false;
        }
        let mut moves = false;
        locate::scan(bytes, |event| {
            if let locate::Event::Token(t) = event
                && !moves
                && t.kind == locate::TokenKind::Move
            {
                moves = crate::notation::read_move_at(bytes, t.offset, t.len).is_some();
            }
        });
        !moves
    }

    fn push_frame(&mut self, open: Open, end: usize) {
        if self.is_stray(&open, end) {
            let frame = &open.frame;
            let stray = StrayText::new(frame.line, frame.column, &self.data[frame.start..end.max(frame.start)]);
            // Not a game: its number goes to the next one.
            self.next_index -= 1;
            self.framed.kept.truncate(open.kept_from);
            self.framed.note_stray(stray);
            return;
        }
        let mut frame = open.frame;
        frame.kept = open.kept_from..self.framed.kept.at();
        if self.state == State::Tags {
            frame.movetext = u32::try_from(end.max(frame.start) - frame.start).unwrap_or(u32::MAX);
        }
        if self.in_comment {
            frame.flags.insert(FrameFlags::UNTERMINATED_COMMENT);
        }
        if self.depth > 0 {
            frame.flags.insert(FrameFlags::UNTERMINATED_VARIATION);
        }
        debug_assert!(end >= frame.start, "a game cannot end before it starts");
        frame.end = end.max(frame.start);
        self.framed.push(frame);
    }

    /// Decides what the line starting at `pos` means for the framing.
    fn line_start(&mut self) -> Step {
        // A byte order mark at the start of a line is where a second file
        // begins (`cat a.pgn b.pgn`): the line is read after it, and a game
        // it starts begins after it, as at the start of the input.
        let line_at = self.pos;
        let rest = &self.data[self.pos..self.limit];
        let bom = rest.starts_with(BOM);
        if !bom && !self.eof && rest.len() < BOM.len() && !rest.is_empty() && BOM.starts_with(rest) {
            return Step::NeedMore;
        }
        if bom {
            self.pos += BOM.len();
            self.line_begin += BOM.len() as u64;
            // The token count reads it as a token; the framer skips it.
            self.flag(FrameFlags::UNCOUNTED);
        }
        // A comment spans lines: only a tag line after a blank line stops it.
        let kind = match self.classify_line() {
            Some(kind) => kind,
            None if self.pos < self.limit && self.first_non_blank() == self.limit => {
                return self.step_over_indent(line_at);
            }
            None => {
                self.pos = line_at;
                if bom {
                    self.line_begin -= BOM.len() as u64;
                }
                return Step::NeedMore;
            }
        };
        // A `%` line between games is noted (`idle_line`) once it is in
        // the window up to where the note cuts it.
        let between_games = self.state == State::Idle || (self.state == State::AfterResult && !self.in_comment);
        if kind == LineKind::Percent && between_games && self.excerpt_incomplete(self.pos) {
            self.pos = line_at;
            if bom {
                self.line_begin -= BOM.len() as u64;
            }
            return Step::NeedMore;
        }
        let from = self.pos;
        self.line_is(kind, line_at, from)
    }

    /// The line at `line_at` holds only blanks up to the window's end:
    /// they are stepped over but the last, rather than held and read again
    /// at each refill (which made a line of a GB of spaces quadratic in
    /// time and whole in memory), and the line is told from that blank
    /// (never a `%` or a byte order mark at the line's start) as it would
    /// have been from its start, which is kept ([`Framer::line_bounds`]).
    #[cold]
    #[inline(never)]
    fn step_over_indent(&mut self, line_at: usize) -> Step {
        // A line after a result ends the game, whatever it holds: ended
        // here, the game is not held (nor cut) while its blanks are read.
        if self.state == State::AfterResult && !self.in_comment {
            self.close(line_at);
        }
        if self.indent.is_none_or(|indent| indent.line != self.line_begin) {
            let (line_at, from) = (self.base + line_at as u64, self.base + self.pos as u64);
            self.indent = Some(Indent { line: self.line_begin, line_at, from });
        }
        self.pos = self.limit - 1;
        Step::Skipped
    }

    /// Where the current line starts (`line_at`) and starts after a byte
    /// order mark (`from`): as [`Framer::line_start`] found them, unless
    /// its leading blanks were stepped over while a game is open, which
    /// keeps them in the window (and the cap bounds them): then where they
    /// were. A game read on from `from` reads the line as if its blanks
    /// had never been stepped over.
    #[inline(always)]
    fn line_bounds(&self, line_at: usize, from: usize) -> (usize, usize) {
        match &self.indent {
            Some(indent) if indent.line == self.line_begin && self.open.is_some() => self.indent_bounds(indent),
            _ => (line_at, from),
        }
    }

    #[cold]
    #[inline(never)]
    fn indent_bounds(&self, indent: &Indent) -> (usize, usize) {
        let at = |offset: u64| usize::try_from(offset - self.base).expect("an open game keeps its lines");
        (at(indent.line_at), at(indent.from))
    }

    /// Does what a line of `kind` means in the current state; the line
    /// starts at `line_at`, `from` after a byte order mark.
    #[inline(always)]
    fn line_is(&mut self, kind: LineKind, line_at: usize, from: usize) -> Step {
        let was_blank = self.prev_blank;
        self.prev_blank = kind == LineKind::Blank;
        self.at_line_start = false;
        match self.state {
            State::Idle => self.idle_line(kind),
            State::IdleComment => {
                if was_blank && (kind == LineKind::Bracket && self.looks_like_tag()) {
                    self.in_comment = false;
                    self.state = State::Idle;
                    self.idle_line(kind);
                }
            }
            State::AfterResult => {
                let resync = was_blank && (kind == LineKind::Bracket && self.looks_like_tag());
                if !self.in_comment || resync {
                    self.close(self.line_bounds(line_at, from).0);
                    self.idle_line(kind);
                }
            }
            State::Tags => match kind {
                LineKind::Blank => {}
                LineKind::Percent => self.to_eol = true,
                LineKind::Bracket => {
                    if was_blank && self.repeats_a_tag() {
                        self.close(self.line_bounds(line_at, from).0);
                        self.begin_tags();
                    } else {
                        self.pos = self.line_bounds(line_at, from).1;
                    }
                }
                LineKind::Other { .. } => {
                    self.pos = self.line_bounds(line_at, from).1;
                    self.enter_movetext(self.pos);
                }
            },
            State::Movetext => self.movetext_line(kind, was_blank, line_at, from),
        }
        Step::Go
    }

    /// A line that starts inside a game's movetext: a tag line (after a
    /// blank line, within a comment) or `1.` after a blank line when the game
    /// has moves starts the next game.
    #[inline]
    fn movetext_line(&mut self, kind: LineKind, was_blank: bool, line_at: usize, from: usize) {
        if self.in_comment {
            if was_blank && (kind == LineKind::Bracket && self.looks_like_tag()) {
                self.close(self.line_bounds(line_at, from).0);
                self.begin_tags();
            }
            return;
        }
        match kind {
            LineKind::Blank => {}
            LineKind::Percent => self.to_eol = true,
            LineKind::Bracket => {
                self.close(self.line_bounds(line_at, from).0);
                self.begin_tags();
            }
            LineKind::Other { move_one } => {
                let (line_at, from) = self.line_bounds(line_at, from);
                // Rare (a blank line inside movetext): read the moves so far.
                let has_moves = |o: &Open| crate::frame::locate::count(&self.data[o.frame.start..from]).moves() > 0;
                if was_blank && move_one && self.depth == 0 && self.open.as_ref().is_some_and(has_moves) {
                    self.close(line_at);
                    self.pos = self.first_non_blank();
                    self.begin(self.pos, State::Movetext);
                } else {
                    self.pos = from;
                }
            }
        }
    }

    /// Starts a game at the tag line at `pos`, at its `[`: the blanks
    /// before it are no game's, as those before a tag-less game's first
    /// token are not (a line of them can be any length).
    #[inline(always)]
    fn begin_tags(&mut self) {
        if self.data[self.pos] != b'[' {
            self.pos = self.first_non_blank();
        }
        self.begin(self.pos, State::Tags);
    }

    /// Whether the line at `pos` looks like a tag (`[Name "`), not just any
    /// text in brackets.
    fn looks_like_tag(&self) -> bool {
        let line = &self.data[self.first_non_blank()..self.limit];
        tag_name(&line[..line.len().min(LOOKAHEAD)]).is_some()
    }

    /// Whether the tag on the line at `pos` names a tag the open game
    /// already has (then a blank line before it separated two games).
    fn repeats_a_tag(&self) -> bool {
        let Some(open) = &self.open else { return false };
        let line = &self.data[self.first_non_blank()..self.limit];
        let Some(name) = tag_name(&line[..line.len().min(LOOKAHEAD)]) else {
            return false;
        };
        let section = &self.data[open.frame.start..self.pos];
        memchr::memmem::find_iter(section, name).any(|i| {
            let before = section[..i].iter().rev().find(|b| !is_blank(**b));
            let after = section.get(i + name.len());
            before == Some(&b'[') && after.is_some_and(|&b| is_blank(b) || b == b'"')
        })
    }

    fn idle_line(&mut self, kind: LineKind) {
        match kind {
            LineKind::Blank => {}
            LineKind::Percent => {
                self.note_skipped(self.pos);
                self.to_eol = true;
            }
            LineKind::Bracket => self.begin_tags(),
            LineKind::Other { .. } => {
                // Leave the game to start at its first token (in_line).
                self.pos = self.first_non_blank();
            }
        }
    }

    /// Whether the window holds less of the line at `at` than a note of it
    /// shows, and more input may follow: the note waits for it, so that it
    /// does not depend on how the input was read.
    #[cold]
    #[inline(never)]
    fn excerpt_incomplete(&self, at: usize) -> bool {
        let rest = &self.data[at..self.limit];
        !self.eof && rest.len() < StrayText::SHOWN && memchr::memchr(b'\n', rest).is_none()
    }

    /// A comment or escape line between games starts at `at`: noted on the
    /// game before it (or, with none in this batch, on the next).
    // Out of the scan's way: rare, and the scan's code is hot.
    #[cold]
    #[inline(never)]
    fn note_skipped(&mut self, at: usize) {
        let column = u32::try_from(self.base + at as u64 - self.line_begin + 1).unwrap_or(u32::MAX);
        self.framed.note_skipped(StrayText::new(self.line, column, &self.data[at..self.limit]));
    }

    fn first_non_blank(&self) -> usize {
        let line = &self.data[self.pos..self.limit];
        self.pos + line.iter().position(|&b| !is_blank(b)).unwrap_or(line.len())
    }

    /// Looks at the start of the line at `pos`; `None` if more input is
    /// needed to tell.
    fn classify_line(&self) -> Option<LineKind> {
        let window = &self.data[self.pos..self.limit];
        let complete = self.eof;
        let Some(first) = window.iter().position(|&b| !is_blank(b)) else {
            return if complete { Some(LineKind::Blank) } else { None };
        };
        let rest = &window[first..];
        Some(match rest[0] {
            b'\n' => LineKind::Blank,
            b'%' if first == 0 => LineKind::Percent,
            b'[' => {
                if rest.len() < LOOKAHEAD && !complete && memchr::memchr(b'\n', rest).is_none() {
                    return None;
                }
                LineKind::Bracket
            }
            b'1' => {
                if rest.len() < 3 && !complete {
                    return None;
                }
                let digits_end = rest.iter().position(|b| !b.is_ascii_digit()).unwrap_or(rest.len());
                // `1.` but not `1...`, Black's first move continuing a game.
                LineKind::Other {
                    move_one: digits_end == 1 && rest.get(1) == Some(&b'.') && rest.get(2) != Some(&b'.'),
                }
            }
            _ => LineKind::Other { move_one: false },
        })
    }

    fn newline(&mut self) {
        self.pos += 1;
        self.line += 1;
        self.line_begin = self.base + self.pos as u64;
        self.at_line_start = true;
        self.to_eol = false;
    }

    /// Scans within the current line, up to and including its `\n`.
    fn in_line(&mut self) -> Step {
        if self.to_eol {
            match memchr::memchr(b'\n', &self.data[self.pos..self.limit]) {
                Some(i) => {
                    self.pos += i;
                    self.newline();
                }
                None => self.pos = self.limit,
            }
            return Step::Go;
        }
        if self.in_comment {
            let rest = &self.data[self.pos..self.limit];
            match memchr::memchr2(b'}', b'\n', rest) {
                Some(i) if rest[i] == b'}' => {
                    self.pos += i + 1;
                    self.in_comment = false;
                    if self.state == State::IdleComment {
                        self.state = State::Idle;
                    }
                    self.long_comment_ends();
                }
                Some(i) => {
                    self.pos += i;
                    self.newline();
                }
                None => self.pos = self.limit,
            }
            return Step::Go;
        }
        match self.state {
            State::Idle | State::IdleComment => self.idle_byte(),
            State::Tags => self.tag_line(),
            State::Movetext | State::AfterResult => self.movetext_run(),
        }
    }

    fn idle_byte(&mut self) -> Step {
        match self.data[self.pos] {
            b'\n' => self.newline(),
            b if is_blank(b) => self.pos += 1,
            b'{' | b';' => return self.comment_between_games(),
            b'[' => self.begin(self.pos, State::Tags),
            _ => self.begin(self.pos, State::Movetext),
        }
        Step::Go
    }

    /// A `{` or `;` comment between games: noted, then skipped.
    #[cold]
    #[inline(never)]
    fn comment_between_games(&mut self) -> Step {
        if self.excerpt_incomplete(self.pos) {
            return Step::NeedMore;
        }
        self.note_skipped(self.pos);
        if self.data[self.pos] == b'{' {
            self.pos += 1;
            self.in_comment = true;
            self.state = State::IdleComment;
        } else {
            self.to_eol = true;
        }
        Step::Go
    }

    /// Scans the tag lines from `pos` on.
    fn tag_line(&mut self) -> Step {
        // The line after a tag line is most often the next tag line, which
        // needs none of `line_start`'s looks (a `[` right after a line that
        // was not blank): it is read on here.
        loop {
            if let Step::NeedMore = self.one_tag_line() {
                return Step::NeedMore;
            }
            let next_is_tag = self.at_line_start
                && !self.prev_blank
                && self.data[..self.limit].get(self.pos) == Some(&b'[')
                && self.open.as_ref().is_some_and(|open| self.pos - open.frame.start <= self.opts.max_game_bytes);
            if !next_is_tag {
                return self.movetext_after_tags();
            }
            self.at_line_start = false;
        }
    }

    /// After the tag lines, blank lines and then a movetext line that needs
    /// none of `line_start`'s looks (most games): read on here, as
    /// `line_start` would read them.
    fn movetext_after_tags(&mut self) -> Step {
        let Some(open) = &self.open else { return Step::Go };
        let start = open.frame.start;
        if !self.at_line_start || self.state != State::Tags || self.opts.max_game_bytes >= OFFSET_LIMIT {
            return Step::Go;
        }
        let max = self.opts.max_game_bytes;
        let under_cap = |pos: usize| pos - start <= max;
        while under_cap(self.pos) && self.skip_blank_line() {}
        match self.data[..self.limit].get(self.pos) {
            Some(&b) if !LINE_START_STOP[usize::from(b)] && under_cap(self.pos) => {
                self.prev_blank = false;
                self.at_line_start = false;
                self.enter_movetext(self.pos);
                self.movetext_run()
            }
            _ => Step::Go,
        }
    }

    /// Steps over the line at `pos` if it is empty (`\n` or `\r\n`), as
    /// `line_start` would in the tags or between games.
    fn skip_blank_line(&mut self) -> bool {
        let len = match &self.data[self.pos..self.limit] {
            [b'\n', ..] => 1,
            [b'\r', b'\n', ..] => 2,
            _ => return false,
        };
        self.pos += len - 1;
        self.prev_blank = true;
        self.newline();
        true
    }

    /// Scans one tag line; text after the last `]` switches to movetext.
    fn one_tag_line(&mut self) -> Step {
        let rest = &self.data[self.pos..self.limit];
        if rest.first() == Some(&b'\n') && self.opts.max_game_bytes < OFFSET_LIMIT {
            // The blank line after the tags.
            self.newline();
            return Step::Go;
        }
        if let Some(open) = &mut self.open
            && let Some((name, value, end)) = plain_tag_line(rest)
            && self.opts.max_game_bytes < OFFSET_LIMIT
            && self.framed.kept.tags.len() < open.kept_from.tags_cap()
        {
            self.framed.kept.tags.push(TagAt::on_line(self.pos - open.frame.start, name, value));
            open.frame.max_tag_line = open.frame.max_tag_line.max(u32::try_from(end).unwrap_or(u32::MAX));
            self.pos += end;
            self.newline();
            return Step::Go;
        }
        let Some(end) = memchr::memchr(b'\n', rest) else {
            if self.discard {
                // Nothing of a dropped tag line is needed but where it ends.
                self.to_eol = true;
                return Step::Go;
            }
            if !self.eof && rest.len() <= self.opts.max_game_bytes {
                return Step::NeedMore;
            }
            // Not read here: the parser reads it.
            self.flag(FrameFlags::UNKEPT);
            self.pos = self.limit;
            return Step::Go;
        };
        // Offsets in a game are kept as `u32`.
        let mut kept = self.opts.max_game_bytes < OFFSET_LIMIT;
        let (scan, blanks_read_alike) = match &self.open {
            Some(open) => {
                let (at, tags) = (self.pos - open.frame.start, &mut self.framed.kept.tags);
                let cap = open.kept_from.tags_cap();
                scan_tag_line_with(&rest[..end], |line, tag| match pgn_reader_spans(line, tag) {
                    Some((name, value)) if kept && tags.len() < cap => tags.push(TagAt::on_line(at, name, value)),
                    _ => kept = false,
                })
            }
            None => scan_tag_line_with(&rest[..end], |_, _| {}),
        };
        let i = scan.tags_end;
        if scan.problem.is_some() {
            self.flag(FrameFlags::BAD_TAG);
        }
        if !kept || !blanks_read_alike {
            self.flag(FrameFlags::UNKEPT);
        }
        let line_len = u32::try_from(end).unwrap_or(u32::MAX);
        if let Some(open) = &mut self.open {
            open.frame.max_tag_line = open.frame.max_tag_line.max(line_len);
        }
        if i < end {
            self.pos += i;
            self.enter_movetext(self.pos);
        } else {
            self.pos += end;
            self.newline();
        }
        Step::Go
    }

    /// Reads movetext up to the end of the line, a comment that goes on
    /// past it, a result or a new game.
    ///
    /// The hot loop of the framer, and the one walk over the movetext's
    /// tokens: besides where the game ends, it counts the tokens as
    /// [`locate::count_from`] does (for the parser's skipped tokens) and
    /// notes the long comments (for the parser to be spared them), so that
    /// no later pass reads the game again.
    fn movetext_run(&mut self) -> Step {
        if self.state == State::AfterResult {
            return self.after_result_run();
        }
        // Whether a token running to the window's end is whole: at end of
        // input, or when the window holds more than a game from the last
        // line or comment on (worked out only then, as it is rare).
        let mut complete_from = self.pos;
        let mut pos = self.pos;
        let mut depth = self.depth;
        let mut blank_line = self.prev_blank;
        let mut counts = locate::Counts::default();
        let mut uncounted = false;
        // The dropped rest of a cut game keeps no comments.
        let game_start = self.open.as_ref().map(|open| open.frame.start);
        // Moves are kept up to the game's cap, at offsets a `u32` holds.
        let moves_cap = match &self.open {
            Some(open) if self.opts.max_game_bytes < OFFSET_LIMIT => open.kept_from.moves_cap(),
            _ => 0,
        };
        let mut unkept = false;
        let data = &self.data[..self.limit];
        let mut mid_token = false;
        if self.mid_token {
            pos += data[pos..].iter().position(|&b| is_token_end(b)).unwrap_or(data.len() - pos);
            mid_token = pos == data.len();
        }
        let stop = loop {
            let Some(&b) = data.get(pos) else { break Stop::End };
            // Spaces and move-number dots are most of the bytes between
            // tokens, and most other bytes start one: both are settled
            // before the `match`, whose jump table mispredicts.
            if b == b' ' || b == b'.' {
                pos += 1;
                continue;
            }
            let byte = MOVETEXT[usize::from(b)];
            if byte == Byte::Token || (byte == Byte::Close && depth == 0) {
                // A token (a `)` that closes nothing is one, as in pgn-reader).
                // Move numbers and moves, most tokens, are told apart here
                // as `token_len` and `classify_token` would tell them.
                let quick = if b.is_ascii_digit() {
                    let mut end = pos + 1;
                    while end < data.len() && data[end].is_ascii_digit() {
                        end += 1;
                    }
                    if end < data.len() && is_token_end(data[end]) {
                        // A move number, and the dots after it.
                        pos = end;
                        while data.get(pos) == Some(&b'.') {
                            pos += 1;
                        }
                        continue;
                    }
                    None
                } else if MOVE_START[usize::from(b)] {
                    let mut end = pos + 1;
                    while end < data.len() && !is_token_end(data[end]) {
                        end += 1;
                    }
                    let len = end - pos;
                    (end < data.len() && (len >= 3 || (len == 2 && !matches!(&data[pos..end], b"ep" | b"RR"))))
                        .then_some((len, TokenClass::Move))
                } else {
                    None
                };
                let quick_move = quick.is_some();
                let (len, class) = match quick {
                    Some(quick) => quick,
                    None => {
                        let complete = || self.eof || self.limit - complete_from > self.opts.max_game_bytes;
                        let Some(len) = token_len(&data[pos..], complete) else {
                            if data.len() - pos > LONGEST_RESULT {
                                // Not a result, and not read whole: the window
                                // never grows for one token; the count is redone.
                                (pos, mid_token, uncounted) = (data.len(), true, true);
                                break Stop::End;
                            }
                            break Stop::NeedMore;
                        };
                        (len, classify_token(&data[pos..pos + len]))
                    }
                };
                match class {
                    TokenClass::Move => {
                        if depth == 0 {
                            counts.mainline += 1;
                        } else {
                            counts.variations += 1;
                        }
                        if !quick_move && lexer::parser_skips(&data[pos..pos + len]) {
                            // Nothing to keep: the checker finds it missing
                            // from what was read, as it would from the parser's
                            // reading, and a game of junk tokens stays within
                            // its list's cap.
                        } else if self.framed.kept.moves.len() < moves_cap
                            && let Some(start) = game_start
                        {
                            let (offset, len) = ((pos - start) as u32, len.min(usize::from(u16::MAX)) as u16);
                            self.framed.kept.moves.push(MoveAt { offset, len, variation: depth > 0 });
                        } else {
                            unkept = true;
                        }
                    }
                    TokenClass::Result if depth == 0 => {
                        let outcome = match &data[pos..pos + len] {
                            b"1-0" => Some(Outcome::Known(KnownOutcome::Decisive { winner: Color::White })),
                            b"0-1" => Some(Outcome::Known(KnownOutcome::Decisive { winner: Color::Black })),
                            b"1/2-1/2" => Some(Outcome::Known(KnownOutcome::Draw)),
                            _ => None,
                        };
                        if let Some(open) = &mut self.open {
                            open.frame.outcome = outcome;
                            if outcome.is_none() {
                                open.frame.flags.insert(FrameFlags::NONSTANDARD_RESULT);
                            }
                        }
                        pos += len;
                        break Stop::Result;
                    }
                    TokenClass::Result | TokenClass::Ignored => {}
                    TokenClass::Annotation => counts.annotation = true,
                    TokenClass::BadNag => counts.bad_nag = true,
                    TokenClass::EnPassantMark => counts.en_passant_mark = true,
                }
                pos += len;
                continue;
            }
            match byte {
                Byte::Newline => {
                    // Most lines of movetext go on with more moves, and then
                    // `line_start` would find nothing to do: read on here.
                    if blank_line || !self.reads_on_after(data, pos + 1) {
                        break Stop::Newline;
                    }
                    pos += 1;
                    self.line += 1;
                    self.line_begin = self.base + pos as u64;
                    blank_line = false;
                    complete_from = pos;
                }
                Byte::Comment => {
                    // A comment that closes on its own line is stepped over
                    // here, as `in_line` would: engine games have one per move.
                    let Some(end) = closing_brace(data, pos + 1) else {
                        self.comment_at = game_start.map(|start| pos - start);
                        pos += 1;
                        break Stop::Comment;
                    };
                    if let Some(start) = game_start {
                        self.framed.kept.comment(pos - start, end - pos);
                    }
                    pos = end;
                    complete_from = pos;
                }
                Byte::LineComment => break Stop::LineComment,
                Byte::Open => {
                    depth += 1;
                    pos += 1;
                }
                Byte::Close => {
                    depth -= 1;
                    pos += 1;
                }
                Byte::Star => {
                    pos += 1;
                    if depth == 0 {
                        if let Some(open) = &mut self.open {
                            open.frame.outcome = Some(Outcome::Unknown);
                        }
                        break Stop::Result;
                    }
                }
                Byte::OddBlank => {
                    // Blank to the framer, the start of a token to pgn-reader.
                    unkept = true;
                    pos += 1;
                }
                Byte::Skip | Byte::Token => pos += 1,
            }
        };
        self.pos = pos;
        self.depth = depth;
        self.prev_blank = blank_line;
        self.mid_token = mid_token;
        if let Some(open) = &mut self.open {
            let total = &mut open.frame.counts;
            total.mainline += counts.mainline;
            total.variations += counts.variations;
            total.annotation |= counts.annotation;
            total.bad_nag |= counts.bad_nag;
            total.en_passant_mark |= counts.en_passant_mark;
            if uncounted {
                open.frame.flags.insert(FrameFlags::UNCOUNTED);
            }
            if unkept {
                open.frame.flags.insert(FrameFlags::UNKEPT);
            }
        }
        self.end_run(stop)
    }

    /// A movetext comment that spanned lines closed just before `pos`.
    fn long_comment_ends(&mut self) {
        let Some(at) = self.comment_at.take() else { return };
        if let Some(open) = &self.open
            && self.state == State::Movetext
        {
            self.framed.kept.comment(at, self.pos - open.frame.start - at);
        }
    }

    /// After the result: blanks and comments on the same line belong to
    /// the game; anything else starts the next one.
    fn after_result_run(&mut self) -> Step {
        let data = &self.data[..self.limit];
        let mut pos = self.pos;
        while pos < data.len() && is_blank(data[pos]) {
            pos += 1;
        }
        self.pos = pos;
        let stop = match data.get(pos) {
            None => Stop::End,
            Some(b'\n') => Stop::Newline,
            Some(b'{') => {
                self.pos += 1;
                Stop::Comment
            }
            Some(b';') => Stop::LineComment,
            Some(_) => Stop::NewGame,
        };
        self.end_run(stop)
    }

    /// Whether the skim can go on at `next`, the start of a movetext line:
    /// a byte that needs no look at the line's start (not blank, `%`, `[` or
    /// a byte order mark) and a game under the size cap.
    #[inline(always)]
    fn reads_on_after(&self, data: &[u8], next: usize) -> bool {
        next < data.len()
            && !LINE_START_STOP[usize::from(data[next])]
            && self.open.as_ref().is_some_and(|open| next - open.frame.start <= self.opts.max_game_bytes)
    }

    /// What comes after a movetext run, by where it stopped.
    #[inline(always)]
    fn end_run(&mut self, stop: Stop) -> Step {
        match stop {
            Stop::End => {}
            Stop::NeedMore => return Step::NeedMore,
            Stop::Newline => {
                self.newline();
                if self.state == State::AfterResult && !self.in_comment && !self.over_cap() {
                    // The game ends here, as at the next line's start;
                    // blank lines after it are stepped over as between
                    // games.
                    self.close(self.pos);
                    while self.skip_blank_line() {}
                }
            }
            Stop::Comment => self.in_comment = true,
            Stop::LineComment => self.to_eol = true,
            Stop::NewGame => {
                // Anything but a comment after the marker starts a new game.
                self.close(self.pos);
                self.begin(self.pos, State::Movetext);
            }
            Stop::Result => {
                self.result_token();
                if self.state == State::AfterResult && !self.over_cap() {
                    return self.after_result_run();
                }
            }
        }
        Step::Go
    }

    fn result_token(&mut self) {
        if self.depth == 0 {
            self.flag(FrameFlags::HAS_RESULT);
            self.state = State::AfterResult;
        }
    }
}

/// Bytes of the longest termination marker (`1/2–1/2` with an en dash),
/// with room to spare: a longer token is not one.
const LONGEST_RESULT: usize = 16;

/// Just past the `}` that closes a comment opened before `from`, when it
/// closes on the same line.
#[inline(always)]
fn closing_brace(data: &[u8], from: usize) -> Option<usize> {
    let i = memchr::memchr2(b'}', b'\n', &data[from..])?;
    (data[from + i] == b'}').then_some(from + i + 1)
}

/// What a byte of movetext is to [`Framer::movetext_run`], as
/// [`locate::count_from`] reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Byte {
    /// White space, `.`, and `!` or `?` (annotations, between tokens).
    Skip,
    /// A vertical tab or form feed: white space to the framer, not to
    /// pgn-reader.
    OddBlank,
    Newline,
    Comment,
    LineComment,
    Open,
    Close,
    Star,
    /// The start of a token.
    Token,
}

const MOVETEXT: [Byte; 256] = {
    let mut table = [Byte::Token; 256];
    let skip = b" \t\r.!?";
    let mut i = 0;
    while i < skip.len() {
        table[skip[i] as usize] = Byte::Skip;
        i += 1;
    }
    table[0x0b] = Byte::OddBlank;
    table[0x0c] = Byte::OddBlank;
    table[b'\n' as usize] = Byte::Newline;
    table[b'{' as usize] = Byte::Comment;
    table[b';' as usize] = Byte::LineComment;
    table[b'(' as usize] = Byte::Open;
    table[b')' as usize] = Byte::Close;
    table[b'*' as usize] = Byte::Star;
    table
};

/// First bytes of a line that [`Framer::line_start`] must look at in
/// movetext after a line that is not blank: a blank line, a `%` escape, a
/// tag, a byte order mark (and white space, before any of these).
const LINE_START_STOP: [bool; 256] = byte_set(b" \t\r\x0b\x0c\n%[\xef");

#[cfg(test)]
pub(crate) mod tests {
    use std::{io::Read, path::Path};

    use super::{Batch, FrameFlags, FrameOptions, Framer};
    use crate::frame::locate;

    /// Hands out at most `chunk` bytes per read, as a pipe may.
    pub(crate) struct Chunked<'a> {
        pub(crate) bytes: &'a [u8],
        pub(crate) chunk: usize,
    }

    impl Read for Chunked<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.chunk).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    /// Everything the framer says about one game: index, line, column,
    /// bytes, flags and where its movetext starts.
    type Seen = (u64, u64, u32, Vec<u8>, FrameFlags, u32);

    fn frames(input: &[u8], chunk: usize, opts: FrameOptions) -> Vec<Seen> {
        let mut framer = Framer::with_options(Chunked { bytes: input, chunk }, opts);
        let mut batch = Batch::default();
        let mut out = Vec::new();
        while framer.next_batch(&mut batch).unwrap_or(false) {
            for game in batch.games() {
                let f = game.frame;
                out.push((f.index, f.line, f.column, game.bytes.to_vec(), f.flags, f.movetext));
            }
        }
        out
    }

    pub(crate) fn fixtures() -> Vec<Vec<u8>> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        let mut inputs = Vec::new();
        for dir in ["valid", "invalid"] {
            let mut paths: Vec<_> =
                std::fs::read_dir(root.join(dir)).expect("testdata").map(|e| e.expect("entry").path()).collect();
            paths.sort();
            // As a run feeds them to the framer: UTF-16 decoded, and
            // without the files that are not text at all.
            for path in paths {
                let raw = Box::new(std::fs::File::open(&path).expect("fixture"));
                if let Ok((_, mut text)) = crate::input::decode(raw) {
                    let mut bytes = Vec::new();
                    std::io::Read::read_to_end(&mut text, &mut bytes).expect("fixture");
                    inputs.push(bytes);
                }
            }
        }
        inputs.extend(TRICKY.iter().map(|s| s.as_bytes().to_vec()));
        inputs
    }

    /// Small inputs for the framing rules.
    const TRICKY: &[&str] = &[
        "1. e4 e5 1-0\n1. d4 d5 0-1\n",
        "[Event \"a\"]\n[Result \"*\"]\n\n[Event \"b\"]\n[Result \"*\"]\n",
        "[Event \"a\"]\n\n[Site \"b\"]\n\n1. e4 *\n",
        "1. e4 {never closed\n\n[Event \"next\"]\n\n1. d4 *\n",
        "1. e4 ( 1. d4\n[Event \"next\"]\n1. c4 *",
        "\u{feff}1. e4 e5 *",
        "1. e4\r\n\r\n1... e5 *\r\n",
        "% escape\n1. e4 ; comment 1-0\n e5 *\n",
        "1. e4 e5 1-0 {after} 1. d4 *",
        "1. e4\n\n1. d4 *\n",
        "[A \"x\"] 1. e4 *\n[B \"y\"]\n1. d4",
        "{a comment between games}\n[Event \"x\"]\n1. e4 *",
        "exd6 e.p. e.p 1/2 ½-½ 1–0\n",
        "\r\r\r[",
        "",
        "1. e4 $1-0 )1-0 }1-0 e4\x0b1-0 \x0b1-0 (e5 1-0) --  1–0",
        "1. e4 (e5 (d5 *) 1-0) e6 ( 0-1 ) 2. d4 1/2-1/2",
        "[Event \"a\"]\n1. e4\n\u{feff}[Event \"b\"]\n1. d4 *\n\u{feff}\n\u{feff}1. c4 *\n\u{feff}",
        "1. e4 {c}1-0 e5 {1-0} {a}{b}-- 0-1 {x\ny}1/2-1/2 d4 {(}(e5 {)} *) {-}\n",
        // Comments glued to tokens, in tags, variations, `;` and `%` lines.
        "[Event \"a{b\"]\n\n1.e4{c}e5 2.Nf3{c\n\n[Event \"x\"]\nd}Nc6 1-0\n",
        "1.e4 e5 ; {c\n2.Nf3 {c}Nc6{c}*\n1.e4 e5 (1...c5{c}2.Nf3)(2.Nf3{c}) 2.Nf3{c}1-0{c}\n",
        "1.e4{c}\n%escape {c\n{c}\n\n2.e5 *\n1.e4 {c}}e5 {c}xx 2.Nf3?!{c}$1{c}Nc6 {c}\n",
        // Lines that start with blanks, longer than a small read: told by
        // what follows them in every state, wherever a read ends.
        "[Event \"a\"]\n1. e4 *\n          \n      [Event \"b\"]\n         \n       1. d4 *\n",
        "[Event \"a\"]\n         [Site \"s\"]\n\n         [Event \"b\"]\n        \x0b 1. e4\n\n      1. d4\n        [Event \"c\"]",
        "1. e4 {never closed\n         \n        [Event \"x\"]\n1. d4 *\n        %not an escape\n          ",
        "1. e4 *\n\u{feff}          [Event \"a\"]\n1. d4 *\n \x0c        e5 {c\n        } *\n\t\t\t\t\t\t\t\t1-0",
    ];

    #[test]
    fn comments_and_escape_lines_between_games_are_noted_on_the_game_before_them_at_any_batch_size() {
        let input = b"{ intro }\n[Event \"a\"]\n\n1. e4 * {same line}\n%esc\n; semi\n  {two\nlines}\n\n[Event \"b\"]\n\n1. d4 *\n{end}\n";
        for batch_games in [1, 2, 1024] {
            for chunk in [1, 5, 4096] {
                let opts = FrameOptions { batch_games, ..FrameOptions::default() };
                let mut framer = Framer::with_options(Chunked { bytes: input, chunk }, opts);
                let mut batch = Batch::default();
                let mut seen = Vec::new();
                while framer.next_batch(&mut batch).unwrap_or(false) {
                    for game in batch.games() {
                        let skipped: Vec<(u64, u32, String)> = game
                            .skipped()
                            .kept
                            .iter()
                            .map(|s| (s.line, s.column, String::from_utf8_lossy(&s.text).into_owned()))
                            .collect();
                        assert!(game.stray().kept.is_empty(), "no stray text");
                        seen.push((game.frame.index, skipped));
                    }
                }
                let note = |line, column, text: &str| (line, column, text.to_owned());
                let want = vec![
                    (1, vec![note(1, 1, "{ intro }"), note(5, 1, "%esc"), note(6, 1, "; semi"), note(7, 3, "{two")]),
                    (2, vec![note(13, 1, "{end}")]),
                ];
                assert_eq!(seen, want, "batches of {batch_games}, reads of {chunk}");
            }
        }
    }

    /// A batch of tag-less games goes out when overfull: it keeps its last
    /// game back, so that what follows that game is still noted on it.
    #[test]
    fn text_after_the_last_of_many_tagless_games_is_noted_on_it_at_any_batch_size() {
        for (games, batch_games) in (1..=16).flat_map(|games| (1..=4).map(move |b| (games, b))) {
            let mut input = "1. e4 e5 *\n".repeat(games);
            input.push_str("{end}\nFrom: me\n");
            let opts = FrameOptions { batch_games, ..FrameOptions::default() };
            let mut framer = Framer::with_options(input.as_bytes(), opts);
            let mut batch = Batch::default();
            let mut seen = Vec::new();
            while framer.next_batch(&mut batch).expect("in-memory input") {
                for game in batch.games() {
                    let skipped = game.skipped().kept.len();
                    seen.push((game.frame.index, game.frame.line, skipped, game.stray().kept.len()));
                }
            }
            let mut want: Vec<_> = (1..=games as u64).map(|i| (i, i, 0, 0)).collect();
            want[games - 1].2 = 1;
            want[games - 1].3 = 1;
            assert_eq!(seen, want, "{games} games, batches of {batch_games}");
        }
    }

    #[test]
    fn stray_text_goes_to_the_game_before_it_at_any_batch_size_and_takes_no_number() {
        let input = b"[Event \"a\"]\n\n1. e4 *\n* *\n\nFrom: me\n\n[Event \"b\"]\n\n1. d4 *\n\n(+)-(-)\n\n1. c4 *\n";
        for batch_games in [1, 2, 3, 1024] {
            let opts = FrameOptions { batch_games, ..FrameOptions::default() };
            let mut framer = Framer::with_options(Chunked { bytes: input, chunk: 5 }, opts);
            let mut batch = Batch::default();
            let mut seen = Vec::new();
            while framer.next_batch(&mut batch).unwrap_or(false) {
                for game in batch.games() {
                    let strays: Vec<(u64, u32)> = game.stray().kept.iter().map(|s| (s.line, s.column)).collect();
                    seen.push((game.frame.index, game.frame.line, strays));
                }
            }
            let want = vec![(1, 1, vec![(4, 1), (4, 3), (6, 1)]), (2, 8, vec![(12, 1)]), (3, 14, vec![])];
            assert_eq!(seen, want, "batches of {batch_games}");
        }
    }

    #[test]
    fn splitting_at_any_read_size_finds_the_same_games() {
        for input in fixtures() {
            let whole = frames(&input, usize::MAX, FrameOptions::default());
            for chunk in [1, 2, 3, 5, 8, 13, 64, 1000] {
                assert_eq!(frames(&input, chunk, FrameOptions::default()), whole, "chunk {chunk}: {input:?}");
            }
            for batch_games in [1, 2, 3] {
                let opts = FrameOptions { batch_games, batch_bytes: 7, ..FrameOptions::default() };
                assert_eq!(frames(&input, 5, opts), whole, "batch of {batch_games}: {input:?}");
            }
        }
    }

    /// A framer shared with a worker that waits for it hands its batches
    /// out early, and the games, what is noted on them and what they keep
    /// come out as they do unshared.
    #[test]
    fn a_framer_another_worker_waits_for_cuts_batches_early_and_finds_the_same_games() {
        use std::sync::{Arc, atomic::AtomicUsize};
        // Each game as the checker sees it, and how many batches there were.
        let framed = |input: &[u8], opts: FrameOptions, waiting: Option<usize>| {
            let framer = Framer::with_options(Chunked { bytes: input, chunk: 4096 }, opts);
            let mut framer = match waiting {
                Some(n) => framer.share(Arc::new(AtomicUsize::new(n))),
                None => framer,
            };
            let mut batch = Batch::default();
            let (mut games, mut batches) = (Vec::new(), 0);
            while framer.next_batch(&mut batch).unwrap_or(false) {
                batches += 1;
                for game in batch.games() {
                    let f = game.frame;
                    let notes = (game.stray().clone(), game.skipped().clone(), f.counts, f.outcome);
                    let kept = (game.long_comments.to_vec(), game.tags.to_vec(), game.moves.to_vec());
                    games.push((f.index, f.line, f.column, game.bytes.to_vec(), f.flags, f.movetext, notes, kept));
                }
            }
            (games, batches)
        };
        let mut cut_early = 0;
        let mut inputs = fixtures();
        inputs.push("[Event \"x\"]\n\n1. e4 {a comment} e5 2. Nf3 *\n\n".repeat(2000).into_bytes());
        for input in inputs {
            for batch_bytes in [64, 1000, 64 << 10] {
                let opts = FrameOptions { batch_bytes, ..FrameOptions::default() };
                let (alone, batches) = framed(&input, opts, None);
                assert_eq!(framed(&input, opts, Some(0)), (alone.clone(), batches), "nobody waits");
                let (shared, shared_batches) = framed(&input, opts, Some(1));
                assert_eq!(shared, alone, "batches of {batch_bytes} bytes: {input:?}");
                assert!(shared_batches >= batches);
                cut_early += usize::from(shared_batches > batches);
            }
        }
        assert!(cut_early >= 3, "batches were cut early {cut_early} times");
    }

    /// Calls `check` with every game the framer finds in the fixtures.
    pub(crate) fn each_fixture_game(mut check: impl FnMut(&[u8], super::RawGame<'_>)) {
        for input in fixtures() {
            let mut framer = Framer::new(&input[..]);
            let mut batch = Batch::default();
            while framer.next_batch(&mut batch).unwrap_or(false) {
                batch.games().for_each(|game| check(&input, game));
            }
        }
    }

    #[test]
    fn the_locator_finds_the_result_the_framer_skimmed_to() {
        each_fixture_game(|input, game| {
            let tokens = locate::tokens(game.bytes);
            let has_result = game.frame.flags.contains(FrameFlags::HAS_RESULT);
            assert_eq!(has_result, tokens.result_at.is_some(), "{:?} in {input:?}", game.bytes);
            let marker = tokens.result_at.map(|at| {
                let rest = &game.bytes[at..];
                &rest[..super::lexer::token_len(rest, || true).unwrap_or(rest.len())]
            });
            let nonstandard = marker.is_some_and(|m| !matches!(m, b"1-0" | b"0-1" | b"1/2-1/2" | b"*"));
            assert_eq!(
                game.frame.flags.contains(FrameFlags::NONSTANDARD_RESULT),
                nonstandard,
                "{:?} in {input:?}",
                game.bytes
            );
        });
    }

    #[test]
    fn counting_from_the_movetext_skips_only_the_tags() {
        each_fixture_game(|input, game| {
            let from = locate::count_from(game.bytes, game.frame.movetext as usize);
            assert_eq!(from, locate::count(game.bytes), "{:?} in {input:?}", game.bytes);
        });
    }

    #[test]
    fn short_and_unclosed_comments_stay_and_long_ones_become_a_space() {
        let long = "x".repeat(64);
        let game = format!("[C \"{{{long}}}\"]\n\n1.e4{{{long}}}e5 {{short}} ; {{{long}\n2.Nf3 {{{long}");
        let movetext = game.find("1.e4").expect("movetext");
        let mut elided = Vec::new();
        let counts = locate::count_eliding_comments(game.as_bytes(), movetext, &mut elided);
        let expected = format!("[C \"{{{long}}}\"]\n\n1.e4 e5 {{short}} ; {{{long}\n2.Nf3 {{{long}");
        assert_eq!(String::from_utf8(elided).expect("ASCII"), expected);
        assert_eq!(counts.mainline, 3);
    }

    #[test]
    fn only_whole_result_tokens_end_a_game() {
        let count = |s: &str| frames(s.as_bytes(), usize::MAX, FrameOptions::default()).len();
        for glued in ["1. e4 $1-0 e5 *\n", "1. e4 )1-0 e5 *\n", "1. e4 }1-0 e5 *\n", "1. e4 O-O-O 21-0 e5 *\n"] {
            assert_eq!(count(glued), 1, "{glued:?}");
        }
        for ended in ["1. e4 e5.1-0 e5 *\n", "1. e4 (1. d4) 0-1 e5 *\n", "1. e4!1/2-1/2 e5 *\n", "1. e4 ½–½ e5 *\n"]
        {
            assert_eq!(count(ended), 2, "{ended:?}");
        }
        // After a comment, on its line or not, a token starts as in
        // pgn-reader; a result inside a comment is text.
        for ended in ["1. e4 {c}1-0 e5 *\n", "1. e4 {a}{b} 1-0 e5 *\n", "1. e4 {a\nb}1-0 e5 *\n"] {
            assert_eq!(count(ended), 2, "{ended:?}");
        }
        for commented in ["1. e4 {1-0} e5 *\n", "1. e4 {c} {1-0\n0-1} e5 *\n"] {
            assert_eq!(count(commented), 1, "{commented:?}");
        }
    }

    #[test]
    fn games_end_at_results_tag_lines_and_repeated_tags() {
        let count = |s: &str| frames(s.as_bytes(), usize::MAX, FrameOptions::default()).len();
        assert_eq!(count(TRICKY[0]), 2, "a result ends a tag-less game");
        assert_eq!(count(TRICKY[1]), 2, "a repeated tag after a blank line starts a game");
        assert_eq!(count(TRICKY[2]), 1, "a blank line inside a tag section does not");
        assert_eq!(count(TRICKY[3]), 2, "a tag line after a blank line ends an open comment");
        assert_eq!(count(TRICKY[4]), 2, "a tag line ends an open variation");
        assert_eq!(count(TRICKY[8]), 2, "a comment after the result stays with its game");
        assert_eq!(count(TRICKY[9]), 2, "`1.` after a blank line starts a game");
        assert_eq!(count(TRICKY[11]), 1, "a comment between games is not a game");
        assert_eq!(count("1. e4 {long}\n\n1... e5\n\n2. Nf3 *\n"), 1, "`1...` after a blank line continues a game");
        let joined =
            frames("[Event \"a\"]\n1. e4 *\n\u{feff}[Event \"b\"]\n1. d4 *".as_bytes(), 3, FrameOptions::default());
        let starts: Vec<&[u8]> = joined.iter().map(|g| &g.3[..9]).collect();
        assert_eq!(starts, [b"[Event \"a", b"[Event \"b"], "a byte order mark starts a line, not a game");
    }

    #[test]
    fn movetext_lines_read_on_keep_their_numbers_and_stop_where_a_line_start_matters() {
        let input = "1. e4 e5\n2. Nf3 Nc6\n%escape 1-0\n3. Bb5 a6\n\n1. d4 d5\n  [Event \"b\"]\n1. c4 *\n\n2. Nc3\n";
        let seen = frames(input.as_bytes(), usize::MAX, FrameOptions::default());
        let lines: Vec<(u64, u64, &str)> =
            seen.iter().map(|g| (g.0, g.1, std::str::from_utf8(&g.3).expect("ASCII"))).collect();
        assert_eq!(
            lines,
            [
                (1, 1, "1. e4 e5\n2. Nf3 Nc6\n%escape 1-0\n3. Bb5 a6\n\n"),
                (2, 6, "1. d4 d5\n"),
                // The blanks before a tag line are no game's.
                (3, 7, "[Event \"b\"]\n1. c4 *\n"),
                (4, 10, "2. Nc3\n"),
            ]
        );
        // An oversized game is cut at the first line start past the limit,
        // as when every line start was looked at.
        let long = "1. e4 e5\n".repeat(20);
        let opts = FrameOptions { max_game_bytes: 50, ..FrameOptions::default() };
        let cut = frames(format!("{long}*\n\n[Event \"n\"]\n1. d4 *\n").as_bytes(), usize::MAX, opts);
        assert_eq!(cut[0].3, b"1. e4 e5\n".repeat(6), "cut after the line that crossed 50 bytes");
        assert!(cut[0].4.contains(FrameFlags::TOO_LARGE));
        assert_eq!((cut.len(), cut[1].1), (2, 23), "the next game is found after the cut");
    }

    #[test]
    fn line_and_column_count_crlf_cr_and_bom() {
        let got = frames(b"\xef\xbb\xbf1. e4 *\r\n\r\n1. d4 *\r\r1. c4 *", usize::MAX, FrameOptions::default());
        let places: Vec<(u64, u64, u32)> = got.iter().map(|g| (g.0, g.1, g.2)).collect();
        assert_eq!(places, [(1, 1, 1), (2, 3, 1), (3, 5, 1)]);
    }

    #[test]
    fn an_oversized_game_is_cut_flagged_and_the_next_game_found() {
        let mut input = b"[Event \"big\"]\n\n1. e4 {".to_vec();
        input.extend(std::iter::repeat_n(b'x', 10_000));
        input.extend_from_slice(b"} *\n\n[Event \"next\"]\n\n1. d4 *\n");
        let opts = FrameOptions { max_game_bytes: 1000, ..FrameOptions::default() };
        let got = frames(&input, 100, opts);
        assert_eq!(got.len(), 2);
        assert!(got[0].4.contains(FrameFlags::TOO_LARGE));
        assert_eq!(got[1].1, 5);
    }

    /// The games of `input` as (line, flags, text), read `chunk` bytes at a
    /// time with a cap of 1000 bytes.
    fn cut_games(input: &[u8], chunk: usize) -> Vec<(u64, FrameFlags, String)> {
        let opts = FrameOptions { max_game_bytes: 1000, ..FrameOptions::default() };
        frames(input, chunk, opts).into_iter().map(|g| (g.1, g.4, String::from_utf8_lossy(&g.3).into_owned())).collect()
    }

    #[test]
    fn the_rest_of_a_cut_game_is_dropped_and_a_tagless_game_after_it_is_still_read() {
        let x = "x".repeat(3000);
        for chunk in [7, 100, usize::MAX] {
            let input = format!("[Event \"big\"]\n\n1. e4 {{{x}}} e5 1-0\n1. d4 d5 *\n\n2. c4 *\n");
            let got = cut_games(input.as_bytes(), chunk);
            let texts: Vec<&str> = got.iter().map(|g| g.2.as_str()).collect();
            assert_eq!(texts.len(), 3, "chunk {chunk}: {texts:?}");
            assert!(got[0].1.contains(FrameFlags::TOO_LARGE));
            assert_eq!((got[1].0, texts[1]), (4, "1. d4 d5 *\n"));
            assert_eq!((got[2].0, texts[2]), (6, "2. c4 *\n"));
        }
    }

    #[test]
    fn a_cut_inside_a_tag_section_is_one_game_not_two() {
        let x = "x".repeat(3000);
        for chunk in [7, 100, usize::MAX] {
            let input = format!(
                "[Event \"a\"]\n[Site \"{x}\"]\n[White \"w\"]\n[Black \"b\"]\n\n1. e4 *\n\n[Event \"n\"]\n1. d4 *\n"
            );
            let got = cut_games(input.as_bytes(), chunk);
            assert_eq!(got.len(), 2, "chunk {chunk}: {got:?}");
            assert!(got[0].1.contains(FrameFlags::TOO_LARGE));
            assert_eq!((got[1].0, got[1].2.as_str()), (8, "[Event \"n\"]\n1. d4 *\n"));
        }
    }

    #[test]
    fn a_single_long_token_is_cut_at_the_cap_like_any_game() {
        let token = "x".repeat(100_000);
        let input = format!("1. {token} *\n\n[Event \"n\"]\n1. d4 *\n");
        let got = cut_games(input.as_bytes(), 100);
        assert_eq!(got.len(), 2);
        assert!(got[0].1.contains(FrameFlags::TOO_LARGE));
        assert!(got[0].2.len() < 1000 + super::CHUNK, "cut after {} bytes", got[0].2.len());
        assert_eq!(got[1].0, 3);
    }

    /// Bytes from a generator, without holding them: `head`, then `len`
    /// copies of `fill`, then `tail`.
    struct Generated {
        head: Vec<u8>,
        fill: u8,
        len: usize,
        tail: Vec<u8>,
        at: usize,
    }

    impl Read for Generated {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let total = self.head.len() + self.len + self.tail.len();
            let n = buf.len().min(total - self.at);
            for (i, b) in buf[..n].iter_mut().enumerate() {
                let at = self.at + i;
                *b = if at < self.head.len() {
                    self.head[at]
                } else if at < self.head.len() + self.len {
                    self.fill
                } else {
                    self.tail[at - self.head.len() - self.len]
                };
            }
            self.at += n;
            Ok(n)
        }
    }

    #[test]
    fn what_is_skipped_or_dropped_never_piles_up_in_memory() {
        let game = b"[Event \"a\"]\n\n1. e4 *\n\n".to_vec();
        let cases: [(&[u8], u8, &[u8]); 9] = [
            (b"{", b'x', b"}\n\n"),
            (b"%", b'x', b"\n\n"),
            (b";", b'x', b"\n\n"),
            (b"[Event \"b\"]\n\n1. e4 {", b'x', b"} e5 *\n\n"),
            (b"[Event \"b\"]\n\n1. e4 ", b'x', b" *\n\n"),
            (b"", 0, b"\n\n"),
            // A line of spaces (blank, or before a tag), told by its end
            // without being held whole; inside a game, cut.
            (b"", b' ', b"\n\n"),
            (b"", b' ', b"[Event \"b\"]\n\n1. d4 *\n\n"),
            (b"[Event \"b\"]\n", b'\t', b"[Site \"c\"]\n\n1. d4 *\n\n"),
        ];
        for (open, fill, close) in cases {
            let head = [&game[..], open].concat();
            let tail = [close, &game[..]].concat();
            let input = Generated { head, fill, len: 20 << 20, tail, at: 0 };
            let opts = FrameOptions { max_game_bytes: 1 << 20, ..FrameOptions::default() };
            let mut framer = Framer::with_options(input, opts);
            let mut batch = Batch::default();
            let (mut games, mut most) = (0, 0);
            while framer.next_batch(&mut batch).unwrap_or(false) {
                games += batch.len();
                most = most.max(batch.capacity()).max(framer.data.capacity());
            }
            let what = String::from_utf8_lossy(open);
            assert!(most < 3 << 20, "{what:?}: a buffer of {most} bytes");
            assert!(games >= 2, "{what:?}: {games} games");
        }
    }
}
