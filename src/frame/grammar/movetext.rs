//! The grammar in a game's movetext: the framer's hot loop, and the one
//! walk over the movetext's tokens. Besides where the game ends, it counts
//! the tokens as [`locate::count_from`] does (for the parser's skipped
//! tokens), keeps the move tokens (for the checker), notes the long
//! comments (for the parser to be spared them) and, when asked, where every
//! comment, NAG and `(` is (for the writers of notes), so that no later
//! pass reads the game again.

use pgn_reader::{KnownOutcome, Outcome};
use shakmaty::Color;

use super::{Grammar, Input, LINE_START_STOP, State, Step};
use crate::frame::{
    batch::{FrameFlags, Framed},
    kept::{MoveAt, OFFSET_LIMIT},
    lexer::{self, MOVE_START, TokenClass, classify_token, is_blank, is_token_end, token_len},
    locate,
};

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
    /// At a tag after the result on its line: a new game's tag section.
    NewTags,
    /// After a result.
    Result,
}

/// One movetext run: where it is and what it saw, written back to the
/// grammar and the open game when it stops.
struct Run {
    pos: usize,
    depth: u32,
    /// The line before this one was blank.
    blank_line: bool,
    /// Whether a token running to the window's end is whole: at end of
    /// input, or when the window holds more than a game from here (the
    /// last line or comment read) on, worked out only then, as it is rare.
    complete_from: usize,
    counts: locate::Counts,
    /// A token was cut by the window: the counts are redone.
    uncounted: bool,
    /// A move token or a blank was not kept as pgn-reader reads it.
    unkept: bool,
    /// Stopped inside a token too long to be a result.
    mid_token: bool,
    /// Where the open game starts (`None` for the dropped rest of a cut
    /// game, which keeps no comments).
    game_start: Option<usize>,
    /// How long the list of moves may grow: up to the game's cap, at
    /// offsets a `u32` holds.
    moves_cap: usize,
    /// How long the list of notes may grow: 0 when they are not kept.
    notes_cap: usize,
}

impl Run {
    /// The move token of `len` bytes at `pos` in `data`, read quickly
    /// (`quick`) or not: counted, and kept for the checker.
    #[inline(always)]
    fn move_token(&mut self, out: &mut Framed, data: &[u8], len: usize, quick: bool) {
        if self.depth == 0 {
            self.counts.mainline += 1;
        } else {
            self.counts.variations += 1;
        }
        // Sliced only when read slowly: the quick path is most tokens.
        if !quick && lexer::parser_skips(&data[self.pos..self.pos + len]) {
            // Nothing to keep: the checker finds it missing from what was
            // read, as it would from the parser's reading, and a game of
            // junk tokens stays within its list's cap.
        } else if out.kept.moves.len() < self.moves_cap
            && let Some(start) = self.game_start
        {
            let (offset, len) = ((self.pos - start) as u32, len.min(usize::from(u16::MAX)) as u16);
            out.kept.moves.push(MoveAt { offset, len, variation: self.depth > 0 });
        } else {
            self.unkept = true;
        }
    }

    /// Keeps where the note at `pos` starts ([`crate::frame::NoteAt`]).
    #[inline(always)]
    fn note(&self, out: &mut Framed, len: usize) {
        if let Some(start) = self.game_start {
            out.kept.note(self.notes_cap, self.pos - start, len);
        }
    }
}

/// A token as the quick look tells it.
enum Quick {
    /// A move number and the dots after it, up to here.
    Number(usize),
    /// A move token of this length.
    Move(usize),
    /// Anything else: read with the general token reading.
    Other,
}

/// Move numbers and moves, most tokens, told apart at `pos` as `token_len`
/// and `classify_token` would tell them.
#[inline(always)]
fn quick_token(data: &[u8], pos: usize) -> Quick {
    let b = data[pos];
    if b.is_ascii_digit() {
        let mut end = pos + 1;
        while end < data.len() && data[end].is_ascii_digit() {
            end += 1;
        }
        if end < data.len() && is_token_end(data[end]) {
            while data.get(end) == Some(&b'.') {
                end += 1;
            }
            return Quick::Number(end);
        }
        Quick::Other
    } else if MOVE_START[usize::from(b)] {
        let mut end = pos + 1;
        while end < data.len() && !is_token_end(data[end]) {
            end += 1;
        }
        let len = end - pos;
        if end < data.len() && (len >= 3 || (len == 2 && !matches!(&data[pos..end], b"ep" | b"RR"))) {
            Quick::Move(len)
        } else {
            Quick::Other
        }
    } else {
        Quick::Other
    }
}

impl Grammar {
    /// Reads movetext up to the end of the line, a comment that goes on
    /// past it, a result or a new game.
    pub(super) fn movetext_run(&mut self, input: &Input<'_>, out: &mut Framed) -> Step {
        if self.state == State::AfterResult {
            return self.after_result_run(input, out);
        }
        let data = input.bytes;
        let mut run = self.run_from(data);
        let stop = loop {
            let Some(&b) = data.get(run.pos) else { break Stop::End };
            // Spaces and move-number dots are most of the bytes between
            // tokens, and most other bytes start one: both are settled
            // before the `match`, whose jump table mispredicts.
            if b == b' ' || b == b'.' {
                run.pos += 1;
                continue;
            }
            let byte = MOVETEXT[usize::from(b)];
            // A `)` that closes nothing is a token, as in pgn-reader.
            let stop = if byte == Byte::Token || (byte == Byte::Close && run.depth == 0) {
                // Move numbers and moves, most tokens, go straight on to
                // the next byte: through a returned `None` they took 2%
                // more instructions (fat LTO, sample10).
                match quick_token(data, run.pos) {
                    Quick::Number(end) => {
                        run.pos = end;
                        continue;
                    }
                    Quick::Move(len) => {
                        run.move_token(out, data, len, true);
                        run.pos += len;
                        continue;
                    }
                    Quick::Other => self.token(input, out, &mut run),
                }
            } else {
                self.between_tokens(input, out, &mut run, byte)
            };
            if let Some(stop) = stop {
                break stop;
            }
        };
        self.run_ends(&run);
        self.end_run(input, out, stop)
    }

    /// A run from `pos`, stepping over the rest of a token the last one
    /// stopped in.
    #[inline(always)]
    fn run_from(&self, data: &[u8]) -> Run {
        let mut run = Run {
            pos: self.pos,
            depth: self.depth,
            blank_line: self.prev_blank,
            complete_from: self.pos,
            counts: locate::Counts::default(),
            uncounted: false,
            unkept: false,
            mid_token: false,
            game_start: self.open.as_ref().map(|open| open.frame.start),
            moves_cap: match &self.open {
                Some(open) if self.max_game_bytes < OFFSET_LIMIT => open.kept_from.moves_cap(),
                _ => 0,
            },
            notes_cap: self.notes_cap(),
        };
        if self.mid_token {
            run.pos += data[run.pos..].iter().position(|&b| is_token_end(b)).unwrap_or(data.len() - run.pos);
            run.mid_token = run.pos == data.len();
        }
        run
    }

    /// The token at `run.pos` that is neither a move number nor a quick
    /// move, stepped over; where the run stops, if it does (at a result,
    /// or a token the window cuts).
    #[inline(always)]
    fn token(&mut self, input: &Input<'_>, out: &mut Framed, run: &mut Run) -> Option<Stop> {
        let (data, pos) = (input.bytes, run.pos);
        let complete = || input.eof || data.len() - run.complete_from > self.max_game_bytes;
        let Some(len) = token_len(&data[pos..], complete) else {
            if run.depth == 0
                && let Some(len) = glued_result(&data[pos..])
            {
                return Some(self.glued_result(data, run, len));
            }
            if data.len() - pos > LONGEST_RESULT {
                // Not a result, and not read whole: the window never grows
                // for one token; the count is redone.
                (run.pos, run.mid_token, run.uncounted) = (data.len(), true, true);
                return Some(Stop::End);
            }
            return Some(Stop::NeedMore);
        };
        match classify_token(&data[pos..pos + len]) {
            TokenClass::Move
                if run.depth == 0
                    && let Some(len) = glued_result(&data[pos..pos + len]) =>
            {
                return Some(self.glued_result(data, run, len));
            }
            TokenClass::Move => run.move_token(out, data, len, false),
            TokenClass::Result if run.depth == 0 => {
                self.marker(&data[pos..pos + len]);
                run.pos += len;
                return Some(Stop::Result);
            }
            // A `$n` NAG: the others read as such are move numbers.
            TokenClass::Ignored if data[pos] == b'$' => run.note(out, len),
            TokenClass::Result | TokenClass::Ignored => {}
            TokenClass::Annotation => run.counts.annotation = true,
            TokenClass::BadNag => run.counts.bad_nag = true,
            TokenClass::EnPassantMark => run.counts.en_passant_mark = true,
        }
        run.pos += len;
        None
    }

    /// A termination marker of `len` bytes at `run.pos` with a `[` right
    /// after it (`0-1[Event "b"]`, files joined by `cat`): it ends the game,
    /// and the `[` is read after it.
    #[cold]
    #[inline(never)]
    fn glued_result(&mut self, data: &[u8], run: &mut Run, len: usize) -> Stop {
        self.marker(&data[run.pos..run.pos + len]);
        run.pos += len;
        Stop::Result
    }

    /// The open game's termination marker, as pgn-reader reads it.
    #[inline]
    fn marker(&mut self, token: &[u8]) {
        let outcome = match token {
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
    }

    /// The byte at `run.pos`, of kind `byte`, that is no token: stepped
    /// over (with a comment closed on its line); where the run stops, if
    /// it does.
    #[inline(always)]
    fn between_tokens(&mut self, input: &Input<'_>, out: &mut Framed, run: &mut Run, byte: Byte) -> Option<Stop> {
        let data = input.bytes;
        match byte {
            Byte::Newline => {
                // Most lines of movetext go on with more moves, and then
                // `line_start` would find nothing to do: read on here.
                if run.blank_line || !self.reads_on_after(data, run.pos + 1) {
                    return Some(Stop::Newline);
                }
                run.pos += 1;
                self.line += 1;
                self.line_begin = input.base + run.pos as u64;
                run.blank_line = false;
                run.complete_from = run.pos;
            }
            Byte::Comment => {
                // A comment that closes on its own line is stepped over
                // here, as `in_line` would: engine games have one per move.
                let Some(end) = closing_brace(data, run.pos + 1) else {
                    self.comment_at = run.game_start.map(|start| run.pos - start);
                    run.pos += 1;
                    return Some(Stop::Comment);
                };
                if let Some(start) = run.game_start {
                    out.kept.comment(run.pos - start, end - run.pos);
                }
                run.note(out, end - run.pos);
                run.pos = end;
                run.complete_from = run.pos;
            }
            Byte::LineComment => {
                run.note(out, 0);
                return Some(Stop::LineComment);
            }
            Byte::Open => {
                run.note(out, 1);
                run.depth += 1;
                run.pos += 1;
            }
            Byte::Nag => {
                // A run of `!` and `?` is one NAG, kept at its first byte:
                // the byte before it is in the window, as the open game is.
                if run.notes_cap != 0
                    && run.game_start.is_some_and(|start| run.pos == start || !is_nag_byte(data[run.pos - 1]))
                {
                    run.note(out, 0);
                }
                run.pos += 1;
            }
            Byte::Close => {
                run.depth -= 1;
                run.pos += 1;
            }
            Byte::Star => {
                run.pos += 1;
                if run.depth == 0 {
                    if let Some(open) = &mut self.open {
                        open.frame.outcome = Some(Outcome::Unknown);
                    }
                    return Some(Stop::Result);
                }
            }
            Byte::OddBlank => {
                // Blank to the framer, the start of a token to pgn-reader.
                run.unkept = true;
                run.pos += 1;
            }
            Byte::Skip | Byte::Token => run.pos += 1,
        }
        None
    }

    /// What a run read goes to the grammar and the open game.
    #[inline(always)]
    fn run_ends(&mut self, run: &Run) {
        self.pos = run.pos;
        self.depth = run.depth;
        self.prev_blank = run.blank_line;
        self.mid_token = run.mid_token;
        if let Some(open) = &mut self.open {
            let (total, counts) = (&mut open.frame.counts, &run.counts);
            total.mainline += counts.mainline;
            total.variations += counts.variations;
            total.annotation |= counts.annotation;
            total.bad_nag |= counts.bad_nag;
            total.en_passant_mark |= counts.en_passant_mark;
            if run.uncounted {
                open.frame.flags.insert(FrameFlags::UNCOUNTED);
            }
            if run.unkept {
                open.frame.flags.insert(FrameFlags::UNKEPT);
            }
        }
    }

    /// A movetext comment that spanned lines closed just before `pos`.
    pub(super) fn long_comment_ends(&mut self, out: &mut Framed) {
        let Some(at) = self.comment_at.take() else { return };
        if let Some(open) = &self.open
            && self.state == State::Movetext
        {
            let len = self.pos - open.frame.start - at;
            out.kept.comment(at, len);
            out.kept.note(self.notes_cap(), at, len);
        }
    }

    /// After the result: blanks and comments on the same line belong to
    /// the game; anything else starts the next one.
    fn after_result_run(&mut self, input: &Input<'_>, out: &mut Framed) -> Step {
        let data = input.bytes;
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
            Some(b'[') => match self.tag_at(input, pos) {
                Some(true) => Stop::NewTags,
                Some(false) => Stop::NewGame,
                None => return Step::NeedMore,
            },
            Some(_) => Stop::NewGame,
        };
        self.end_run(input, out, stop)
    }

    /// Whether the skim can go on at `next`, the start of a movetext line:
    /// a byte that needs no look at the line's start (not blank, `%`, `[` or
    /// a byte order mark) and a game under the size cap.
    #[inline(always)]
    fn reads_on_after(&self, data: &[u8], next: usize) -> bool {
        next < data.len()
            && !LINE_START_STOP[usize::from(data[next])]
            && self.open.as_ref().is_some_and(|open| next - open.frame.start <= self.max_game_bytes)
    }

    /// What comes after a movetext run, by where it stopped.
    #[inline(always)]
    fn end_run(&mut self, input: &Input<'_>, out: &mut Framed, stop: Stop) -> Step {
        match stop {
            Stop::End => {}
            Stop::NeedMore => return Step::NeedMore,
            Stop::Newline => {
                self.newline(input);
                if self.state == State::AfterResult && !self.in_comment && !self.over_cap() {
                    // The game ends here, as at the next line's start;
                    // blank lines after it are stepped over as between
                    // games.
                    self.close(input, out, self.pos);
                    while self.skip_blank_line(input) {}
                }
            }
            Stop::Comment => self.in_comment = true,
            Stop::LineComment => self.to_eol = true,
            Stop::NewGame => {
                // Anything but a comment after the marker starts a new game.
                self.close(input, out, self.pos);
                self.begin(input, out, self.pos, State::Movetext);
            }
            Stop::NewTags => {
                // A tag on the marker's line: the next game's first, as if
                // it started the line (files joined by `cat`, the first
                // without a final line break), with a word about it.
                self.close(input, out, self.pos);
                self.begin(input, out, self.pos, State::Tags);
                self.flag(FrameFlags::GLUED);
            }
            Stop::Result => {
                self.result_token();
                if self.state == State::AfterResult && !self.over_cap() {
                    return self.after_result_run(input, out);
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

/// The length of the termination marker `token` starts with when a `[`
/// follows it directly (`0-1[Event`), which no move does.
#[inline]
fn glued_result(token: &[u8]) -> Option<usize> {
    if !matches!(token.first(), Some(b'0' | b'1' | 0xc2)) {
        return None;
    }
    let at = memchr::memchr(b'[', &token[..token.len().min(LONGEST_RESULT)])?;
    lexer::is_result(&token[..at]).then_some(at)
}

/// Just past the `}` that closes a comment opened before `from`, when it
/// closes on the same line.
#[inline(always)]
fn closing_brace(data: &[u8], from: usize) -> Option<usize> {
    let i = memchr::memchr2(b'}', b'\n', &data[from..])?;
    (data[from + i] == b'}').then_some(from + i + 1)
}

/// Whether `b` is of a run of `!` and `?`, a NAG.
#[inline(always)]
fn is_nag_byte(b: u8) -> bool {
    b == b'!' || b == b'?'
}

/// What a byte of movetext is to [`Grammar::movetext_run`], as
/// [`locate::count_from`] reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Byte {
    /// White space and `.`, between tokens.
    Skip,
    /// `!` or `?`: a NAG, between tokens.
    Nag,
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
    let skip = b" \t\r.";
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
    table[b'!' as usize] = Byte::Nag;
    table[b'?' as usize] = Byte::Nag;
    table
};
