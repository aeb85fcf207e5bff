//! The grammar of what makes a game: where one starts and ends (tags,
//! comments, variations, `%` escape lines, termination markers, blank
//! lines), as a state machine over bytes with no reading of its own.
//!
//! In the shape of csv-core's reader: it is given the window's bytes
//! ([`Input`]) and reads on from where it stopped; it says how far it got
//! ([`Grammar::pos`]) and what it found: the games it ended, with what
//! they keep and what was noted between them, go to the batch being
//! filled ([`Framed`]), and each step says whether it needs more input
//! ([`Step`]). The caller refills the window, moves it ([`Grammar::shift`])
//! and hands batches out; the rules themselves are in the module
//! documentation of [`super`].

mod movetext;
mod tags;

use super::{
    batch::{Frame, FrameFlags, Framed, StrayText},
    kept::{self, KeptAt},
    lexer::{BOM, byte_set, is_blank, tag_name},
    locate,
};
use crate::notation::read::read_move_at;

/// The bytes the grammar is given: the window, up to what may be read.
#[derive(Debug, Clone, Copy)]
pub(super) struct Input<'a> {
    /// The window's bytes that may be read (a trailing `\r` waits for the
    /// next read to know whether it is half of `\r\n`).
    pub(super) bytes: &'a [u8],
    /// Stream offset of `bytes[0]`.
    pub(super) base: u64,
    /// No more bytes follow.
    pub(super) eof: bool,
    /// The input ended in an error.
    pub(super) failed: bool,
}

/// What a step asks of the caller.
pub(super) enum Step {
    /// Read on.
    Go,
    /// More input is needed.
    NeedMore,
    /// Blanks were stepped over to the window's end: more input is
    /// needed, and games waiting behind them go out.
    Skipped,
}

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

/// The game being read.
#[derive(Debug, Default)]
struct Open {
    frame: Frame,
    /// Where its entries start in the [`super::kept::Kept`] lists.
    kept_from: KeptAt,
}

/// Where a line whose leading blanks were stepped over starts, as stream
/// offsets (they outlast the window's moves).
#[derive(Debug, Clone, Copy)]
struct Indent {
    /// Whose it is: [`Grammar::line_begin`] of its line (it is stale once
    /// another line is read).
    line: u64,
    /// The line's first byte.
    line_at: u64,
    /// Its first byte after a byte order mark, if it starts with one.
    from: u64,
}

/// First bytes of a line that [`Grammar::line_start`] must look at in
/// movetext after a line that is not blank: a blank line, a `%` escape, a
/// tag, a byte order mark (and white space, before any of these).
const LINE_START_STOP: [bool; 256] = byte_set(b" \t\r\x0b\x0c\n%[\xef");

/// Where the framing stands in the input: the state machine.
#[derive(Debug)]
pub(super) struct Grammar {
    /// A game larger than this is cut ([`FrameFlags::TOO_LARGE`]).
    max_game_bytes: usize,
    /// Keep where each game's notes are ([`super::FrameOptions::keep_notes`]).
    keep_notes: bool,
    /// Next byte to look at, in the window.
    pos: usize,
    state: State,
    open: Option<Open>,
    /// Number of the next game.
    next_index: u64,
    line: u64,
    /// Stream offset of the first byte of the current line.
    line_begin: u64,
    at_line_start: bool,
    prev_blank: bool,
    /// The blanks that start a line ran to the window's end and were
    /// stepped over ([`Grammar::step_over_indent`]): where that line
    /// starts.
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
    /// Where the `{` of the movetext comment being read is, as an offset
    /// in the open game.
    comment_at: Option<usize>,
}

impl Grammar {
    /// At the start of an input, cutting games larger than
    /// `max_game_bytes`, keeping where notes are if `keep_notes`.
    pub(super) fn new(max_game_bytes: usize, keep_notes: bool) -> Self {
        Grammar {
            max_game_bytes,
            keep_notes,
            pos: 0,
            state: State::Idle,
            open: None,
            next_index: 1,
            line: 1,
            line_begin: 0,
            at_line_start: true,
            prev_blank: false,
            indent: None,
            in_comment: false,
            depth: 0,
            to_eol: false,
            discard: false,
            mid_token: false,
            comment_at: None,
        }
    }

    /// Next byte to look at, in the window.
    #[inline]
    pub(super) fn pos(&self) -> usize {
        self.pos
    }

    /// Where the game being read starts in the window, and its entries in
    /// the kept lists.
    #[inline]
    pub(super) fn open_game(&self) -> Option<(usize, KeptAt)> {
        self.open.as_ref().map(|open| (open.frame.start, open.kept_from))
    }

    /// Whether a game is being read that began with a tag section.
    #[inline]
    pub(super) fn open_has_tags(&self) -> bool {
        self.open.as_ref().is_some_and(|open| self.has_tags(open))
    }

    /// Whether any game was found.
    pub(super) fn found_a_game(&self) -> bool {
        self.next_index > 1
    }

    /// The input starts with a byte order mark: it is no game's.
    pub(super) fn starts_after_bom(&mut self) {
        self.pos = BOM.len();
        self.line_begin = BOM.len() as u64;
    }

    /// The window's bytes moved `by` bytes back.
    pub(super) fn shift(&mut self, by: usize) {
        self.pos -= by;
        if let Some(open) = &mut self.open {
            open.frame.start -= by;
        }
    }

    /// The kept lists lost their entries before `from`.
    pub(super) fn kept_since(&mut self, from: KeptAt) {
        if let Some(open) = &mut self.open {
            open.kept_from = open.kept_from.since(from);
        }
    }

    /// Reads on from [`Grammar::pos`], which is inside `input`: a line's
    /// start, or the line from there. The games it ends go to `out`.
    #[inline]
    pub(super) fn step(&mut self, input: &Input<'_>, out: &mut Framed) -> Step {
        if self.over_cap() {
            self.cut_oversized(input, out);
            return Step::Go;
        }
        if self.at_line_start { self.line_start(input, out) } else { self.in_line(input, out) }
    }

    /// The input ends after `input`: so does the game being read.
    pub(super) fn finish(&mut self, input: &Input<'_>, out: &mut Framed) {
        if input.failed {
            self.flag(FrameFlags::INPUT_ERROR);
        }
        self.close(input, out, input.bytes.len());
    }

    /// How long the list of notes may grow for the open game: 0 when notes
    /// are not kept (then none is), or not at `u32` offsets.
    #[inline(always)]
    fn notes_cap(&self) -> usize {
        match &self.open {
            Some(open) if self.keep_notes && self.max_game_bytes < kept::OFFSET_LIMIT => open.kept_from.notes_cap(),
            _ => 0,
        }
    }

    /// Whether the open game has grown past the size cap at `pos`.
    #[inline]
    fn over_cap(&self) -> bool {
        self.open.as_ref().is_some_and(|open| self.pos.saturating_sub(open.frame.start) > self.max_game_bytes)
    }

    fn flag(&mut self, flag: FrameFlags) {
        if let Some(open) = &mut self.open {
            open.frame.flags.insert(flag);
        }
    }

    /// Hands out the open game as it is so far, flagged, and drops the
    /// rest of it as it is read: a cut neither loses the game after it
    /// (tags or not) nor makes a game of the rest of its own tag section.
    fn cut_oversized(&mut self, input: &Input<'_>, out: &mut Framed) {
        self.flag(FrameFlags::TOO_LARGE);
        let (state, in_comment, depth, to_eol) = (self.state, self.in_comment, self.depth, self.to_eol);
        self.close(input, out, self.pos);
        (self.state, self.in_comment, self.depth, self.to_eol) = (state, in_comment, depth, to_eol);
        self.discard = true;
    }

    /// Starts a game at `at`, which lies on the current line.
    fn begin(&mut self, input: &Input<'_>, out: &Framed, at: usize, state: State) {
        debug_assert!(self.open.is_none());
        let index = self.next_index;
        self.next_index += 1;
        let column = u32::try_from(input.base + at as u64 - self.line_begin + 1).unwrap_or(u32::MAX);
        let mut frame = Frame { start: at, end: at, index, line: self.line, column, ..Frame::default() };
        // Movetext that starts with `[` or `%` (after a result on the same
        // line) is a tag or escape line to the token walk: let it count.
        if state == State::Movetext && matches!(input.bytes.get(at), Some(b'[' | b'%')) {
            frame.flags.insert(FrameFlags::UNCOUNTED);
        }
        self.open = Some(Open { frame, kept_from: out.kept.at() });
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
    fn close(&mut self, input: &Input<'_>, out: &mut Framed, end: usize) {
        if let Some(open) = self.open.take() {
            self.push_frame(input, out, open, end);
        }
        self.state = State::Idle;
        self.in_comment = false;
        self.depth = 0;
        self.to_eol = false;
        self.discard = false;
    }

    /// Whether the open game began with a tag section.
    #[inline]
    fn has_tags(&self, open: &Open) -> bool {
        self.state == State::Tags || open.frame.movetext > 0
    }

    /// Whether the game ending at `end` is stray text: no tags, no move
    /// (only results, brackets, words), read whole.
    fn is_stray(&self, input: &Input<'_>, open: &Open, end: usize) -> bool {
        let frame = &open.frame;
        if self.has_tags(open) || frame.flags.contains(FrameFlags::TOO_LARGE) || input.failed {
            return false;
        }
        let bytes = &input.bytes[frame.start..end.max(frame.start)];
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
                moves = read_move_at(bytes, t.offset, t.len).is_some();
            }
        });
        !moves
    }

    /// The game `open` ends at `end`: it goes to `out`, or, stray text, is
    /// noted there.
    fn push_frame(&mut self, input: &Input<'_>, out: &mut Framed, open: Open, end: usize) {
        if self.is_stray(input, &open, end) {
            let frame = &open.frame;
            let stray = StrayText::new(frame.line, frame.column, &input.bytes[frame.start..end.max(frame.start)]);
            // Not a game: its number goes to the next one.
            self.next_index -= 1;
            out.kept.truncate(open.kept_from);
            out.note_stray(stray);
            return;
        }
        let mut frame = open.frame;
        frame.kept = open.kept_from..out.kept.at();
        // At the cap, a note may have been dropped: the game's are found
        // by a walk.
        let notes_kept = self.keep_notes && self.max_game_bytes < kept::OFFSET_LIMIT;
        if notes_kept && (frame.kept.end.notes as usize) < open.kept_from.notes_cap() {
            frame.flags.insert(FrameFlags::NOTES_KEPT);
        }
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
        out.push(frame);
    }

    /// Decides what the line starting at `pos` means for the framing.
    fn line_start(&mut self, input: &Input<'_>, out: &mut Framed) -> Step {
        // A byte order mark at the start of a line is where a second file
        // begins (`cat a.pgn b.pgn`): the line is read after it, and a game
        // it starts begins after it, as at the start of the input.
        let line_at = self.pos;
        let rest = &input.bytes[self.pos..];
        let bom = rest.starts_with(BOM);
        if !bom && !input.eof && rest.len() < BOM.len() && !rest.is_empty() && BOM.starts_with(rest) {
            return Step::NeedMore;
        }
        if bom {
            self.pos += BOM.len();
            self.line_begin += BOM.len() as u64;
            // The token count reads it as a token, and pgn-reader ends a
            // tag section at it; the framer skips it.
            self.flag(if self.state == State::Tags { FrameFlags::TAGS_MENDED } else { FrameFlags::UNCOUNTED });
        }
        // A comment spans lines: only a tag line after a blank line stops it.
        let kind = match self.classify_line(input) {
            Some(kind) => kind,
            None if self.pos < input.bytes.len() && self.first_non_blank(input) == input.bytes.len() => {
                return self.step_over_indent(input, out, line_at);
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
        if kind == LineKind::Percent && between_games && excerpt_incomplete(input, self.pos) {
            self.pos = line_at;
            if bom {
                self.line_begin -= BOM.len() as u64;
            }
            return Step::NeedMore;
        }
        let from = self.pos;
        self.line_is(input, out, kind, line_at, from)
    }

    /// The line at `line_at` holds only blanks up to the window's end:
    /// they are stepped over but the last, rather than held and read again
    /// at each refill (which made a line of a GB of spaces quadratic in
    /// time and whole in memory), and the line is told from that blank
    /// (never a `%` or a byte order mark at the line's start) as it would
    /// have been from its start, which is kept ([`Grammar::line_bounds`]).
    #[cold]
    #[inline(never)]
    fn step_over_indent(&mut self, input: &Input<'_>, out: &mut Framed, line_at: usize) -> Step {
        // A line after a result ends the game, whatever it holds: ended
        // here, the game is not held (nor cut) while its blanks are read.
        if self.state == State::AfterResult && !self.in_comment {
            self.close(input, out, line_at);
        }
        if self.indent.is_none_or(|indent| indent.line != self.line_begin) {
            let (line_at, from) = (input.base + line_at as u64, input.base + self.pos as u64);
            self.indent = Some(Indent { line: self.line_begin, line_at, from });
        }
        self.pos = input.bytes.len() - 1;
        Step::Skipped
    }

    /// Where the current line starts (`line_at`) and starts after a byte
    /// order mark (`from`): as [`Grammar::line_start`] found them, unless
    /// its leading blanks were stepped over while a game is open, which
    /// keeps them in the window (and the cap bounds them): then where they
    /// were. A game read on from `from` reads the line as if its blanks
    /// had never been stepped over.
    #[inline(always)]
    fn line_bounds(&self, input: &Input<'_>, line_at: usize, from: usize) -> (usize, usize) {
        match &self.indent {
            Some(indent) if indent.line == self.line_begin && self.open.is_some() => indent_bounds(input, indent),
            _ => (line_at, from),
        }
    }

    /// Does what a line of `kind` means in the current state; the line
    /// starts at `line_at`, `from` after a byte order mark.
    #[inline(always)]
    fn line_is(&mut self, input: &Input<'_>, out: &mut Framed, kind: LineKind, line_at: usize, from: usize) -> Step {
        let was_blank = self.prev_blank;
        self.prev_blank = kind == LineKind::Blank;
        self.at_line_start = false;
        let tag_after_blank = |g: &Self| was_blank && kind == LineKind::Bracket && g.looks_like_tag(input);
        match self.state {
            State::Idle => self.idle_line(input, out, kind),
            State::IdleComment => {
                if tag_after_blank(self) {
                    self.in_comment = false;
                    self.state = State::Idle;
                    self.idle_line(input, out, kind);
                }
            }
            State::AfterResult => {
                if !self.in_comment || tag_after_blank(self) {
                    self.close(input, out, self.line_bounds(input, line_at, from).0);
                    self.idle_line(input, out, kind);
                }
            }
            State::Tags => match kind {
                LineKind::Blank => {}
                LineKind::Percent => self.to_eol = true,
                LineKind::Bracket if was_blank && self.repeats_a_tag(input) => {
                    self.close(input, out, self.line_bounds(input, line_at, from).0);
                    self.begin_tags(input, out);
                }
                LineKind::Bracket => self.pos = self.line_bounds(input, line_at, from).1,
                LineKind::Other { .. } => {
                    self.pos = self.line_bounds(input, line_at, from).1;
                    self.enter_movetext(self.pos);
                }
            },
            State::Movetext if self.in_comment => {
                // Only a tag line after a blank line ends a comment.
                if tag_after_blank(self) {
                    self.close(input, out, self.line_bounds(input, line_at, from).0);
                    self.begin_tags(input, out);
                }
            }
            State::Movetext => self.movetext_line(input, out, kind, was_blank, line_at, from),
        }
        Step::Go
    }

    /// A line that starts inside a game's movetext, outside a comment: a
    /// tag line, or `1.` after a blank line when the game has moves, starts
    /// the next game.
    #[inline]
    fn movetext_line(
        &mut self,
        input: &Input<'_>,
        out: &mut Framed,
        kind: LineKind,
        was_blank: bool,
        line_at: usize,
        from: usize,
    ) {
        match kind {
            LineKind::Blank => {}
            LineKind::Percent => self.to_eol = true,
            LineKind::Bracket => {
                self.close(input, out, self.line_bounds(input, line_at, from).0);
                self.begin_tags(input, out);
            }
            LineKind::Other { move_one } => {
                let (line_at, from) = self.line_bounds(input, line_at, from);
                // Rare (a blank line inside movetext): read the moves so far.
                let has_moves = |o: &Open| locate::count(&input.bytes[o.frame.start..from]).moves() > 0;
                if was_blank && move_one && self.depth == 0 && self.open.as_ref().is_some_and(has_moves) {
                    self.close(input, out, line_at);
                    self.pos = self.first_non_blank(input);
                    self.begin(input, out, self.pos, State::Movetext);
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
    fn begin_tags(&mut self, input: &Input<'_>, out: &Framed) {
        if input.bytes[self.pos] != b'[' {
            self.pos = self.first_non_blank(input);
        }
        self.begin(input, out, self.pos, State::Tags);
    }

    /// Whether the text at `at`, a `[` inside a line, looks like a tag
    /// (`[Name "`); `None` when more input is needed to tell.
    fn tag_at(&self, input: &Input<'_>, at: usize) -> Option<bool> {
        let rest = &input.bytes[at..];
        if rest.len() < LOOKAHEAD && !input.eof && memchr::memchr(b'\n', rest).is_none() {
            return None;
        }
        Some(tag_name(&rest[..rest.len().min(LOOKAHEAD)]).is_some())
    }

    /// Whether the line at `pos` looks like a tag (`[Name "`), not just any
    /// text in brackets.
    fn looks_like_tag(&self, input: &Input<'_>) -> bool {
        let line = &input.bytes[self.first_non_blank(input)..];
        tag_name(&line[..line.len().min(LOOKAHEAD)]).is_some()
    }

    /// Whether the tag on the line at `pos` names a tag the open game
    /// already has (then a blank line before it separated two games).
    fn repeats_a_tag(&self, input: &Input<'_>) -> bool {
        let Some(open) = &self.open else { return false };
        let line = &input.bytes[self.first_non_blank(input)..];
        let Some(name) = tag_name(&line[..line.len().min(LOOKAHEAD)]) else {
            return false;
        };
        let section = &input.bytes[open.frame.start..self.pos];
        memchr::memmem::find_iter(section, name).any(|i| {
            let before = section[..i].iter().rev().find(|b| !is_blank(**b));
            let after = section.get(i + name.len());
            before == Some(&b'[') && after.is_some_and(|&b| is_blank(b) || b == b'"')
        })
    }

    fn idle_line(&mut self, input: &Input<'_>, out: &mut Framed, kind: LineKind) {
        match kind {
            LineKind::Blank => {}
            LineKind::Percent => {
                self.note_skipped(input, out, self.pos);
                self.to_eol = true;
            }
            LineKind::Bracket => self.begin_tags(input, out),
            LineKind::Other { .. } => {
                // Leave the game to start at its first token (in_line).
                self.pos = self.first_non_blank(input);
            }
        }
    }

    /// A comment or escape line between games starts at `at`: noted on the
    /// game before it (or, with none in this batch, on the next).
    // Out of the scan's way: rare, and the scan's code is hot.
    #[cold]
    #[inline(never)]
    fn note_skipped(&mut self, input: &Input<'_>, out: &mut Framed, at: usize) {
        let column = u32::try_from(input.base + at as u64 - self.line_begin + 1).unwrap_or(u32::MAX);
        out.note_skipped(StrayText::new(self.line, column, &input.bytes[at..]));
    }

    fn first_non_blank(&self, input: &Input<'_>) -> usize {
        let line = &input.bytes[self.pos..];
        self.pos + line.iter().position(|&b| !is_blank(b)).unwrap_or(line.len())
    }

    /// Looks at the start of the line at `pos`; `None` if more input is
    /// needed to tell.
    fn classify_line(&self, input: &Input<'_>) -> Option<LineKind> {
        let window = &input.bytes[self.pos..];
        let complete = input.eof;
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

    fn newline(&mut self, input: &Input<'_>) {
        self.pos += 1;
        self.line += 1;
        self.line_begin = input.base + self.pos as u64;
        self.at_line_start = true;
        self.to_eol = false;
    }

    /// Scans within the current line, up to and including its `\n`.
    fn in_line(&mut self, input: &Input<'_>, out: &mut Framed) -> Step {
        if self.to_eol {
            match memchr::memchr(b'\n', &input.bytes[self.pos..]) {
                Some(i) => {
                    self.pos += i;
                    self.newline(input);
                }
                None => self.pos = input.bytes.len(),
            }
            return Step::Go;
        }
        if self.in_comment {
            let rest = &input.bytes[self.pos..];
            match memchr::memchr2(b'}', b'\n', rest) {
                Some(i) if rest[i] == b'}' => {
                    self.pos += i + 1;
                    self.in_comment = false;
                    if self.state == State::IdleComment {
                        self.state = State::Idle;
                    }
                    self.long_comment_ends(out);
                }
                Some(i) => {
                    self.pos += i;
                    self.newline(input);
                }
                None => self.pos = input.bytes.len(),
            }
            return Step::Go;
        }
        match self.state {
            State::Idle | State::IdleComment => self.idle_byte(input, out),
            State::Tags => self.tag_lines(input, out),
            State::Movetext | State::AfterResult => self.movetext_run(input, out),
        }
    }

    fn idle_byte(&mut self, input: &Input<'_>, out: &mut Framed) -> Step {
        match input.bytes[self.pos] {
            b'\n' => self.newline(input),
            b if is_blank(b) => self.pos += 1,
            b'{' | b';' => return self.comment_between_games(input, out),
            b'[' => self.begin(input, out, self.pos, State::Tags),
            _ => self.begin(input, out, self.pos, State::Movetext),
        }
        Step::Go
    }

    /// A `{` or `;` comment between games: noted, then skipped.
    #[cold]
    #[inline(never)]
    fn comment_between_games(&mut self, input: &Input<'_>, out: &mut Framed) -> Step {
        if excerpt_incomplete(input, self.pos) {
            return Step::NeedMore;
        }
        self.note_skipped(input, out, self.pos);
        if input.bytes[self.pos] == b'{' {
            self.pos += 1;
            self.in_comment = true;
            self.state = State::IdleComment;
        } else {
            self.to_eol = true;
        }
        Step::Go
    }
}

/// Where a line whose blanks were stepped over starts in the window
/// (see [`Grammar::line_bounds`]).
#[cold]
#[inline(never)]
fn indent_bounds(input: &Input<'_>, indent: &Indent) -> (usize, usize) {
    let at = |offset: u64| usize::try_from(offset - input.base).expect("an open game keeps its lines");
    (at(indent.line_at), at(indent.from))
}

/// Whether the window holds less of the line at `at` than a note of it
/// shows, and more input may follow: the note waits for it, so that it
/// does not depend on how the input was read.
#[cold]
#[inline(never)]
fn excerpt_incomplete(input: &Input<'_>, at: usize) -> bool {
    let rest = &input.bytes[at..];
    !input.eof && rest.len() < StrayText::SHOWN && memchr::memchr(b'\n', rest).is_none()
}
