//! A game's comments, NAGs and variations as one flat tape of bytes, in the
//! order PGN writes them: no input can make it deep (nothing walks it by
//! recursion) or heavy (a `{c}` takes 3 bytes, a move of a variation 3).
//!
//! The tape holds, in input order:
//! * `MAIN`: the next move of the main line (the moves themselves are the
//!   main line's nodes); what follows it, up to the next `MAIN`, is that
//!   move's notes;
//! * a move of a variation (3 bytes, first byte `0x80` and up) or `NULL`;
//! * `NAG n`, `COMMENT len text` (text as written, white space collapsed);
//! * `OPEN len` then the variation's own items (`len` bytes of them, in
//!   one byte when under 256, else four, so a reader steps over a variation
//!   at once): a variation of the move just before it, played from the
//!   position before that move;
//! * `STOP`: why a variation stops early (its last item), as the token that
//!   could not be played, so that the note is made again only when written.
//!
//! Comments before the first move of a line come before it on the tape.

use std::{borrow::Cow, cell::RefCell};

use shakmaty::{Chess, Move, Position, Role, Square, san::San};

use crate::{
    notation::{self, Leniency, pass, read_move_at, strip_move_number},
    text::token_text,
};

const MAIN: u8 = 1;
const NAG: u8 = 2;
const COMMENT: u8 = 3;
/// `COMMENT` of ASCII text: read back with no check of its UTF-8.
const COMMENT_ASCII: u8 = 8;
/// `COMMENT_ASCII` of text with no quote, backslash, control character or
/// `}`: copied into a JSON string as it is, with no look for what to
/// escape, and into a PGN comment with no look for a `}` that would end it.
const COMMENT_PLAIN: u8 = 9;
const OPEN: u8 = 4;
const NULL: u8 = 5;
const STOP: u8 = 6;
/// `OPEN` with a one-byte length, for a variation of under 256 bytes.
const OPEN_SHORT: u8 = 7;
/// A variation move's first byte has this bit set.
const MOVE: u8 = 0x80;

/// Bytes of an `OPEN` item: the tag and the length of what follows.
const OPEN_LEN: usize = 5;

/// Flags of a `STOP` item.
const STOP_TOO_DEEP: u8 = 1;
const STOP_UTF8: u8 = 2;
const STOP_GLUED_EP: u8 = 4;

/// Variations nested deeper than this are not read: each open one holds
/// its positions while it is read and written, so a `((((...` of millions
/// would take gigabytes. Real games nest a dozen deep at most.
pub const MAX_DEPTH: usize = 1000;

/// The largest tape kept for the next game ([`Notes::recycle`]).
const SPARE_TAPE_MAX: usize = 1 << 16;

thread_local! {
    /// The tape of the last game this thread was done with, emptied.
    static SPARE_TAPE: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The comments, NAGs and variations of a game (see the module's doc).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Notes {
    tape: Vec<u8>,
    /// A variation was opened on the tape.
    variations: bool,
}

/// One item of the tape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item<'a> {
    /// The next main-line move; its notes follow.
    Main,
    /// A move of a variation (`None`: a null move).
    Move(Option<Move>),
    /// A NAG of the move before it.
    Nag(u8),
    /// A comment (after the move before it, or before a line's first move).
    Comment(Comment<'a>),
    /// A variation: its items are `body` (tape offsets).
    Open {
        /// Where its items start and end on the tape.
        body: std::ops::Range<usize>,
    },
    /// Why the variation stops here.
    Stop(Stop<'a>),
}

/// A comment's text on the tape: a writer that meets it several times
/// checks its UTF-8 only where it reads it as text, and an ASCII one never.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Comment<'a> {
    bytes: &'a [u8],
    ascii: bool,
    plain: bool,
}

impl<'a> Comment<'a> {
    /// The text, white space collapsed.
    pub fn text(self) -> &'a str {
        // Written from a `&str` only.
        std::str::from_utf8(self.bytes).unwrap_or_default()
    }

    /// The text when it is ASCII: words apart by single spaces, none at
    /// either end.
    pub fn ascii(self) -> Option<&'a [u8]> {
        self.ascii.then_some(self.bytes)
    }

    /// The text when it is ASCII and holds no quote, backslash, control
    /// character or `}`: nothing a JSON string escapes, nothing that ends a
    /// PGN comment.
    pub fn plain(self) -> Option<&'a [u8]> {
        self.plain.then_some(self.bytes)
    }
}

/// Why a variation stops early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stop<'a> {
    flags: u8,
    token: &'a [u8],
}

impl Stop<'_> {
    /// The note written where the variation stops, made again from the
    /// position the token was read in, as when it was read.
    pub fn note(&self, pos: &Chess) -> String {
        if self.flags & STOP_TOO_DEEP != 0 {
            return format!("pgnkit: variations nested more than {MAX_DEPTH} deep are not read");
        }
        let mut bytes = self.token.to_vec();
        if self.flags & STOP_GLUED_EP != 0 {
            bytes.extend_from_slice(b".p.");
        }
        let shown = token_text(self.token, self.flags & STOP_UTF8 != 0);
        match read_move_at(&bytes, 0, self.token.len()) {
            None => format!("pgnkit: `{shown}` is not a move"),
            Some(san) => match variation_move(pos, san.san, self.token) {
                Err(why) => format!("pgnkit: `{shown}` cannot be played: {why}"),
                // Not reached: the token was refused in this position.
                Ok(_) => format!("pgnkit: `{shown}` is not read"),
            },
        }
    }
}

/// The white space of `char::is_whitespace` in ASCII: tab, line feed,
/// vertical tab, form feed, carriage return and space.
fn blank(b: u8) -> bool {
    b == b' ' || (b'\t'..=b'\r').contains(&b)
}

/// Bytes of `len` in LEB128.
fn leb128_len(len: usize) -> usize {
    (usize::BITS - len.leading_zeros()).div_ceil(7).max(1) as usize
}

impl Notes {
    pub(crate) fn main(&mut self) {
        self.tape.push(MAIN);
    }

    pub(crate) fn step(&mut self, step: Option<Move>) {
        match step {
            None => self.tape.push(NULL),
            Some(m) => {
                let bits = pack(m);
                self.tape.extend_from_slice(&[MOVE | (bits >> 16) as u8, (bits >> 8) as u8, bits as u8]);
            }
        }
    }

    pub(crate) fn nag(&mut self, nag: u8) {
        self.tape.extend_from_slice(&[NAG, nag]);
    }

    /// A tape of `moves` main-line moves and no notes: what the scan of a
    /// game with no comment, NAG or variation writes.
    pub(crate) fn mains(moves: usize) -> Notes {
        let mut notes = Notes::reusing();
        notes.more_mains(moves);
        notes
    }

    /// Empty, on the tape of a game this thread is done with when there is
    /// one ([`Notes::recycle`]): a command that writes every game's notes
    /// then pays no allocation a game for them.
    pub(crate) fn reusing() -> Notes {
        Notes { tape: SPARE_TAPE.with_borrow_mut(std::mem::take), variations: false }
    }

    /// Gives the tape back for the next game's notes on this thread (a
    /// long game's is not kept for the games after it).
    pub(crate) fn recycle(self) {
        let mut tape = self.tape;
        if tape.capacity() <= SPARE_TAPE_MAX {
            tape.clear();
            SPARE_TAPE.set(tape);
        }
    }

    /// [`Notes::main`] `moves` times.
    pub(crate) fn more_mains(&mut self, moves: usize) {
        self.tape.resize(self.tape.len() + moves, MAIN);
    }

    /// A comment, its white space collapsed as
    /// [`normalize_comment`](crate::game::normalize_comment) collapses it,
    /// straight onto the tape (no string made on the way); nothing when no
    /// word is left.
    pub(crate) fn comment(&mut self, text: &str) {
        if !self.ascii_comment(text.as_bytes()) {
            self.unicode_comment(text);
        }
    }

    /// [`Notes::comment`] of text that is not ASCII: split at Unicode white
    /// space.
    pub(crate) fn unicode_comment(&mut self, text: &str) {
        let words = || text.split_whitespace();
        let Some(len) = words().map(|word| word.len() + 1).sum::<usize>().checked_sub(1) else { return };
        self.tape.push(COMMENT);
        self.length(len);
        self.tape.reserve(len);
        for (i, word) in words().enumerate() {
            if i > 0 {
                self.tape.push(b' ');
            }
            self.tape.extend_from_slice(word.as_bytes());
        }
    }

    /// Opens a variation; returns where, for [`Notes::close`].
    pub(crate) fn open(&mut self) -> usize {
        self.variations = true;
        let at = self.tape.len();
        self.tape.extend_from_slice(&[OPEN, 0, 0, 0, 0]);
        at
    }

    /// Closes the variation opened at `at`; one with nothing in it is
    /// dropped.
    pub(crate) fn close(&mut self, at: usize) {
        let len = self.tape.len() - at - OPEN_LEN;
        if len == 0 {
            self.tape.truncate(at);
            return;
        }
        // A short one's length takes one byte: `(d4)` takes 5 bytes, not 8.
        // Moving it back costs at most 255 bytes a variation.
        if let Ok(short) = u8::try_from(len) {
            self.tape[at] = OPEN_SHORT;
            self.tape[at + 1] = short;
            self.tape.copy_within(at + OPEN_LEN.., at + 2);
            self.tape.truncate(at + 2 + len);
            return;
        }
        // A game is at most 4 GiB (`--max-game-size`), its tape as much.
        let len = u32::try_from(len).unwrap_or(u32::MAX);
        self.tape[at + 1..at + OPEN_LEN].copy_from_slice(&len.to_le_bytes());
    }

    /// A variation stops before `token` (its bytes as written; `glued_ep`:
    /// an `e.p.` followed it without a space).
    pub(crate) fn stop(&mut self, token: &[u8], utf8: bool, glued_ep: bool) {
        let flags = if utf8 { STOP_UTF8 } else { 0 } | if glued_ep { STOP_GLUED_EP } else { 0 };
        self.tape.extend_from_slice(&[STOP, flags]);
        self.text(token);
    }

    /// A variation stops as it is nested too deep.
    pub(crate) fn stop_too_deep(&mut self) {
        self.tape.extend_from_slice(&[STOP, STOP_TOO_DEEP]);
        self.text(b"");
    }

    /// A length (LEB128) and the bytes.
    fn text(&mut self, bytes: &[u8]) {
        self.length(bytes.len());
        self.tape.extend_from_slice(bytes);
    }

    /// [`Notes::comment`] of ASCII text; false, and nothing written, when
    /// `raw` is not ASCII. Most comments are ASCII, and splitting them at
    /// Unicode white space cost more than reading the game; most are one
    /// line, words apart by one space, and most of those take 8 to 16
    /// bytes (`{ [%clk 0:05:00] }`): read as two words of 8 that overlap,
    /// which tell whether the text is ASCII, has white space to collapse
    /// or bytes to escape ([`TextShape::of_words`]) and are copied as they
    /// are, but for one space at either end, with no loop and no call.
    #[inline(always)]
    pub(crate) fn ascii_comment(&mut self, raw: &[u8]) -> bool {
        let len = raw.len();
        let (Some(head), Some(tail)) = (raw.first_chunk::<8>(), raw.last_chunk::<8>()) else {
            return self.any_ascii_comment(raw);
        };
        if len > 16 {
            return self.any_ascii_comment(raw);
        }
        let (first, last) = (u64::from_le_bytes(*head), u64::from_le_bytes(*tail));
        let shape = TextShape::of_words(first, last, len);
        if shape.high || shape.rewrite {
            return self.any_ascii_comment(raw);
        }
        // No blank but single spaces, so at most one at either end, and
        // of 8 bytes at least 4 are left.
        let space_first = usize::from(first as u8 == b' ');
        let space_last = usize::from((last >> 56) as u8 == b' ');
        let text_len = len - space_first - space_last;
        let mut item = [0; 18];
        item[2 - space_first..][..8].copy_from_slice(head);
        item[2 - space_first + len - 8..][..8].copy_from_slice(tail);
        item[0] = if shape.escapes { COMMENT_ASCII } else { COMMENT_PLAIN };
        item[1] = text_len as u8;
        let at = self.tape.len();
        self.tape.extend_from_slice(&item);
        self.tape.truncate(at + 2 + text_len);
        true
    }

    /// [`Notes::ascii_comment`] of any length and shape.
    #[inline(never)]
    fn any_ascii_comment(&mut self, raw: &[u8]) -> bool {
        let shape = TextShape::of(raw);
        if shape.high {
            return false;
        }
        if !shape.rewrite {
            // No blank but single spaces: at most one at either end.
            let text = raw.strip_prefix(b" ").unwrap_or(raw);
            let text = text.strip_suffix(b" ").unwrap_or(text);
            if !text.is_empty() {
                self.comment_text(if shape.escapes { COMMENT_ASCII } else { COMMENT_PLAIN }, text);
            }
            return true;
        }
        // Blanks at the ends only (`{ ev=0.00, ... R50=50,  }` of engine
        // games) leave a text copied whole.
        let Some(first) = raw.iter().position(|&b| !blank(b)) else { return true };
        let last = raw.iter().rposition(|&b| !blank(b)).unwrap_or(first);
        let text = &raw[first..=last];
        match TextShape::of(text) {
            shape if !shape.rewrite => {
                self.comment_text(if shape.escapes { COMMENT_ASCII } else { COMMENT_PLAIN }, text)
            }
            _ => self.collapsed_comment(text),
        }
        true
    }

    /// `tag`, then `text`'s length and bytes; one of up to 16 bytes copied
    /// as two words overlapping, where a copy of any length is a call.
    fn comment_text(&mut self, tag: u8, text: &[u8]) {
        const SHORT: usize = 16;
        let len = text.len();
        if len > SHORT {
            self.tape.push(tag);
            self.text(text);
            return;
        }
        let mut item = [0; SHORT + 2];
        item[0] = tag;
        item[1] = len as u8;
        if let (Some(head), Some(tail)) = (text.first_chunk::<8>(), text.last_chunk::<8>()) {
            item[2..10].copy_from_slice(head);
            item[len - 6..][..8].copy_from_slice(tail);
        } else if let (Some(head), Some(tail)) = (text.first_chunk::<4>(), text.last_chunk::<4>()) {
            item[2..6].copy_from_slice(head);
            item[len - 2..][..4].copy_from_slice(tail);
        } else {
            // One to three bytes: the first, the middle and the last are all.
            for at in [0, len / 2, len.saturating_sub(1)] {
                item[2 + at] = text.get(at).copied().unwrap_or_default();
            }
        }
        let at = self.tape.len();
        self.tape.extend_from_slice(&item);
        self.tape.truncate(at + 2 + len);
    }

    /// [`Notes::ascii_comment`] of ASCII text that starts and ends with a
    /// byte that is not blank and holds a control character (the blanks
    /// but space among them) or two spaces in a row: collapsed a byte at a
    /// time, in place after room for the longest length, moved back when
    /// its length takes less.
    fn collapsed_comment(&mut self, text: &[u8]) {
        let at = self.tape.len();
        let room = leb128_len(text.len());
        self.tape.resize(at + 1 + room + text.len(), 0);
        let out = &mut self.tape[at + 1 + room..];
        let mut len = 0;
        let mut gap = false;
        for &b in text {
            if blank(b) {
                gap = true;
                continue;
            }
            if gap && len > 0 {
                out[len] = b' ';
                len += 1;
            }
            gap = false;
            out[len] = b;
            len += 1;
        }
        if len == 0 {
            self.tape.truncate(at);
            return;
        }
        self.tape.truncate(at + 1 + room + len);
        // Collapsed, it may hold nothing to escape after all.
        let shape = TextShape::of(&self.tape[at + 1 + room..]);
        self.tape[at] = if shape.rewrite || shape.escapes { COMMENT_ASCII } else { COMMENT_PLAIN };
        let used = leb128_len(len);
        if used < room {
            self.tape.copy_within(at + 1 + room.., at + 1 + used);
            self.tape.truncate(at + 1 + used + len);
        }
        let mut rest = len;
        for byte in &mut self.tape[at + 1..at + 1 + used] {
            *byte = rest as u8 | if rest >= 0x80 { 0x80 } else { 0 };
            rest >>= 7;
        }
    }

    /// A length (LEB128).
    fn length(&mut self, mut len: usize) {
        while len >= 0x80 {
            self.tape.push(len as u8 | 0x80);
            len >>= 7;
        }
        self.tape.push(len as u8);
    }

    /// The item at `at` and where the next one starts; a variation's next
    /// is the first of its items.
    pub fn item(&self, at: usize) -> (Item<'_>, usize) {
        let tape = &self.tape;
        let tag = tape[at];
        match tag {
            MAIN => (Item::Main, at + 1),
            NULL => (Item::Move(None), at + 1),
            NAG => (Item::Nag(tape[at + 1]), at + 2),
            OPEN => {
                let len = u32::from_le_bytes([tape[at + 1], tape[at + 2], tape[at + 3], tape[at + 4]]) as usize;
                let start = at + OPEN_LEN;
                (Item::Open { body: start..start + len }, start)
            }
            OPEN_SHORT => {
                let start = at + 2;
                (Item::Open { body: start..start + usize::from(tape[at + 1]) }, start)
            }
            COMMENT | COMMENT_ASCII | COMMENT_PLAIN => {
                let (bytes, next) = self.bytes_at(at + 1);
                (Item::Comment(Comment { bytes, ascii: tag != COMMENT, plain: tag == COMMENT_PLAIN }), next)
            }
            STOP => {
                let (token, next) = self.bytes_at(at + 2);
                (Item::Stop(Stop { flags: tape[at + 1], token }), next)
            }
            _ => {
                let bits = u32::from(tag & !MOVE) << 16 | u32::from(tape[at + 1]) << 8 | u32::from(tape[at + 2]);
                (Item::Move(Some(unpack(bits))), at + 3)
            }
        }
    }

    fn bytes_at(&self, mut at: usize) -> (&[u8], usize) {
        let (mut len, mut shift) = (0usize, 0);
        loop {
            let byte = self.tape[at];
            at += 1;
            len |= usize::from(byte & 0x7f) << shift;
            shift += 7;
            if byte < 0x80 {
                break;
            }
        }
        (&self.tape[at..at + len], at + len)
    }

    /// Every item, variations' included, in tape order.
    pub fn items(&self) -> impl Iterator<Item = Item<'_>> {
        let mut at = 0;
        std::iter::from_fn(move || {
            (at < self.tape.len()).then(|| {
                let (item, next) = self.item(at);
                at = next;
                item
            })
        })
    }

    /// The items of one line from `at` to `end`, variations stepped over
    /// (given as one `Open` each), with where each starts.
    pub fn line(&self, at: usize, end: usize) -> impl Iterator<Item = (usize, Item<'_>)> {
        let mut at = at;
        std::iter::from_fn(move || {
            (at < end).then(|| {
                let (item, next) = self.item(at);
                let here = at;
                at = match &item {
                    Item::Open { body } => body.end,
                    _ => next,
                };
                (here, item)
            })
        })
    }

    /// The main line's notes (variations stepped over, given as one `Open`
    /// each), each with the number of main-line moves before it. A run of
    /// moves without notes, most of a tape, is passed at once.
    pub fn main_notes(&self) -> impl Iterator<Item = (usize, Item<'_>)> {
        let (mut at, mut ply) = (0, 0);
        std::iter::from_fn(move || {
            // Notes after every move, as of clock times, leave runs of no
            // move or one: told without the search for a long run.
            let mains = match self.tape.get(at..at + 2) {
                Some([MAIN, MAIN]) => leading_mains(&self.tape[at..]),
                Some([MAIN, _]) => 1,
                _ => usize::from(self.tape.get(at) == Some(&MAIN)),
            };
            at += mains;
            ply += mains;
            (at < self.tape.len()).then(|| {
                let (item, next) = self.item(at);
                at = match &item {
                    Item::Open { body } => body.end,
                    _ => next,
                };
                (ply, item)
            })
        })
    }

    /// Whether the tape holds a variation (or held one, left empty).
    pub fn has_variations(&self) -> bool {
        self.variations
    }

    /// The end of the tape.
    pub fn end(&self) -> usize {
        self.tape.len()
    }

    /// How many main-line moves from the one at `at` have no notes (a
    /// `MAIN` followed by the next move's, or by the end): a writer steps
    /// over them at once.
    #[inline]
    pub fn bare_mains(&self, at: usize, end: usize) -> usize {
        let tape = self.tape.get(at..end).unwrap_or_default();
        // The first move has notes (a clock time after every move of an
        // online game): told without counting.
        if tape.get(1).is_some_and(|&b| b != MAIN) {
            return 0;
        }
        let mains = leading_mains(tape);
        if mains < tape.len() { mains.saturating_sub(1) } else { mains }
    }

    /// The text of the one note of a main-line move at `at`, when that
    /// note is an ASCII comment of under 128 bytes (`{ [%clk 0:05:00] }`
    /// after every move of an online game), and where the item after it
    /// starts: read without decoding items.
    #[inline]
    pub fn main_comment(&self, at: usize, end: usize) -> Option<(Comment<'_>, usize)> {
        let tape = self.tape.get(..end)?;
        let (&[MAIN, tag @ (COMMENT_ASCII | COMMENT_PLAIN), len], _) = tape.get(at..)?.split_first_chunk::<3>()? else {
            return None;
        };
        let next = at + 3 + usize::from(len);
        let bytes = tape.get(at + 3..next).filter(|_| len < 0x80)?;
        let comment = Comment { bytes, ascii: true, plain: tag == COMMENT_PLAIN };
        (next == end || tape.get(next) == Some(&MAIN)).then_some((comment, next))
    }
}

/// How many `MAIN`s `tape` starts with: tested 16 at a time, each test
/// without an early exit (vector code).
fn leading_mains(tape: &[u8]) -> usize {
    const RUN: usize = 16;
    let mut mains = 0;
    for run in tape.chunks_exact(RUN) {
        if !run.iter().fold(true, |all, &b| all & (b == MAIN)) {
            break;
        }
        mains += RUN;
    }
    mains + tape[mains..].iter().take_while(|&&b| b == MAIN).count()
}

/// What one pass over a comment's bytes tells, each byte told exactly:
/// whether one is not ASCII (`high`: 0x80 and up); whether its white
/// space must be collapsed (`rewrite`: a control character, under 0x20,
/// which takes in the blanks but space, or a space after a space); and
/// whether one is a quote, a backslash or a `}` (`escapes`: what JSON
/// escapes but controls, and what ends a PGN comment).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct TextShape {
    high: bool,
    rewrite: bool,
    escapes: bool,
}

/// `byte` in each of a word's 8 lanes.
const fn lanes(byte: u8) -> u64 {
    u64::from_ne_bytes([byte; 8])
}

/// Each lane's top bit.
const TOP: u64 = lanes(0x80);

impl TextShape {
    /// Up to 16 bytes (most comments: a clock time) in two words of 8
    /// ([`TextShape::of_words`]); more as windows of 16 lanes, which the
    /// compiler makes vector code: 8 bytes a word cost five times what
    /// they cost a lane for the comments of hundreds of bytes.
    fn of(text: &[u8]) -> TextShape {
        let len = text.len();
        if len > 16 {
            return TextShape::of_long(text);
        }
        let word = |at: usize| text.get(at..).and_then(<[u8]>::first_chunk).map_or(0, |w| u64::from_le_bytes(*w));
        if len >= 8 {
            return TextShape::of_words(word(0), word(len - 8), len);
        }
        // Filled out with a letter, which changes nothing.
        let mut bytes = [b'a'; 8];
        if let (Some(head), Some(tail)) = (text.first_chunk::<4>(), text.last_chunk::<4>()) {
            bytes[..4].copy_from_slice(head);
            bytes[len - 4..len].copy_from_slice(tail);
        } else {
            // Up to three bytes: the first, the middle and the last.
            for at in [0, len / 2, len.saturating_sub(1)] {
                if let Some(&b) = text.get(at) {
                    bytes[at] = b;
                }
            }
        }
        let word = u64::from_le_bytes(bytes);
        TextShape::of_words(word, word, 8)
    }

    /// Of the `len` bytes (8 to 16) whose first 8 are `first` and last 8
    /// `last` (the first byte in the low lane), by SWAR: what is asked is
    /// whether any byte is one, and `(v - 0x01…) & !v` has a lane's top bit
    /// set for a zero lane of `v` (and maybe for lanes above one, where
    /// the borrow goes), for no lane when none is zero: exact for "any".
    #[inline(always)]
    fn of_words(first: u64, last: u64, len: usize) -> TextShape {
        let zero = |v: u64| v.wrapping_sub(lanes(1)) & !v;
        // Under 0x20, by the same borrow: a lane of 0x80 and up is not
        // (its own top bit), and is told as `high`.
        let control = |v: u64| v.wrapping_sub(lanes(0x20)) & !v;
        let escape = |v: u64| zero(v ^ lanes(b'"')) | zero(v ^ lanes(b'\\')) | zero(v ^ lanes(b'}'));
        // A lane that is zero for a space and the byte after it: the top
        // lane takes `next`, the byte after the word's last, else a byte
        // that is not zero.
        let pair = |v: u64, next: u64| {
            let spaces = v ^ lanes(b' ');
            zero(spaces | spaces >> 8 | next)
        };
        let no_pair = 0xff << 56;
        // The last word's first byte follows the first's last only when
        // they do not overlap (16 bytes); else that pair is in the last.
        let after_first = if len == 16 { (last ^ lanes(b' ')) << 56 } else { no_pair };
        let rewrite = control(first) | control(last) | pair(first, after_first) | pair(last, no_pair);
        TextShape {
            high: (first | last) & TOP != 0,
            rewrite: rewrite & TOP != 0,
            escapes: (escape(first) | escape(last)) & TOP != 0,
        }
    }

    /// [`TextShape::of`] more than 16 bytes: 16 at a time, each with the
    /// byte after it, by folds of fixed length without an early exit.
    fn of_long(text: &[u8]) -> TextShape {
        const HIGH: u8 = 1;
        const REWRITE: u8 = 2;
        const ESCAPES: u8 = 4;
        let byte = |b: u8| {
            (u8::from(b >= 0x80) * HIGH)
                | (u8::from(b < 0x20) * REWRITE)
                | (u8::from((b == b'"') | (b == b'\\') | (b == b'}')) * ESCAPES)
        };
        // Bytes `at..at + 16`, each with its next: 17 bytes from `at`. The
        // flags are kept a lane a byte, put together once at the end.
        let window = |lanes: &mut [u8; 16], bytes: &[u8; 17]| {
            for (i, lane) in lanes.iter_mut().enumerate() {
                let (b, after) = (bytes[i], bytes[i + 1]);
                *lane |= byte(after) | (u8::from((b == b' ') & (after == b' ')) * REWRITE);
            }
        };
        let mut lanes = [0; 16];
        // The first byte is no byte's next.
        lanes[0] = text.first().map_or(0, |&b| byte(b));
        let len = text.len();
        let read =
            |at: usize| -> [u8; 17] { text.get(at..).and_then(<[u8]>::first_chunk).copied().unwrap_or([b'a'; 17]) };
        for at in (0..len.saturating_sub(16)).step_by(16) {
            window(&mut lanes, &read(at));
        }
        // The last bytes, in a window overlapping the one before.
        window(&mut lanes, &read(len.saturating_sub(17)));
        let flags = lanes.iter().fold(0, |flags, &lane| flags | lane);
        TextShape { high: flags & HIGH != 0, rewrite: flags & REWRITE != 0, escapes: flags & ESCAPES != 0 }
    }
}

/// A move in 23 bits: its kind (2), then its squares and roles.
fn pack(m: Move) -> u32 {
    let sq = |s: Square| s as u32;
    let role = |r: Option<Role>| r.map_or(0, |r| r as u32);
    match m {
        Move::Normal { role: r, from, capture, to, promotion } => {
            (r as u32) << 18 | sq(from) << 12 | role(capture) << 9 | sq(to) << 3 | role(promotion)
        }
        Move::EnPassant { from, to } => 1 << 21 | sq(from) << 6 | sq(to),
        Move::Castle { king, rook } => 2 << 21 | sq(king) << 6 | sq(rook),
        // Not a move of chess: written as a null move would be, never
        // made by the checker.
        Move::Put { .. } => 3 << 21,
    }
}

fn unpack(bits: u32) -> Move {
    let sq = |shift: u32| Square::new((bits >> shift) & 63);
    let role = |shift: u32| Role::try_from((bits >> shift) & 7).ok();
    match bits >> 21 {
        0 => Move::Normal {
            role: role(18).unwrap_or(Role::Pawn),
            from: sq(12),
            capture: role(9),
            to: sq(3),
            promotion: role(0),
        },
        1 => Move::EnPassant { from: sq(6), to: sq(0) },
        2 => Move::Castle { king: sq(6), rook: sq(0) },
        _ => Move::Put { role: Role::Pawn, to: Square::A1 },
    }
}

/// Plays a move or, for `None`, a null move; false when a null move cannot
/// be played (the side to move is in check).
pub fn play(pos: &mut Chess, step: Option<Move>) -> bool {
    match step {
        Some(m) => {
            pos.play_unchecked(m);
            true
        }
        None => match pass(pos) {
            Some(next) => {
                *pos = next;
                true
            }
            None => false,
        },
    }
}

/// The variation move `san`, written `raw`, in `pos` (`None`: a null
/// move), read as the main line's moves are ([`notation::read_in`]), with
/// what was let through to read it; or why it cannot be played there.
pub(crate) fn variation_move(pos: &Chess, san: San, raw: &[u8]) -> Result<(Option<Move>, Option<Leniency>), String> {
    if san == San::Null {
        return if pos.is_check() { Err("a null move while in check".to_owned()) } else { Ok((None, None)) };
    }
    let token = || Cow::Borrowed(strip_move_number(raw));
    notation::read_in(pos, Some(san), None, token).map(|read| (Some(read.m), read.leniency)).map_err(|err| err.message)
}

#[cfg(test)]
mod tests {
    use shakmaty::{Chess, Position};

    use super::{Item, Notes, TextShape, pack, unpack};
    use crate::test_rng::Rng;

    #[test]
    fn a_move_is_bare_only_when_the_next_item_is_a_move_or_the_end() {
        let mut notes = Notes::default();
        notes.main();
        notes.main();
        notes.nag(1);
        notes.main();
        notes.ascii_comment(b"last");
        notes.main();
        let end = notes.end();
        let bare: Vec<usize> = [0, 1, 2, 4, end - 1].iter().map(|&at| notes.bare_mains(at, end)).collect();
        // The second and third moves have notes; the fourth ends the tape.
        assert_eq!(bare, [1, 0, 0, 0, 1]);
        assert_eq!(notes.bare_mains(0, 1), 1, "a line ending after its first move");
    }

    #[test]
    fn a_run_of_bare_moves_ends_before_the_first_move_with_notes_or_at_the_end() {
        let mut notes = Notes::default();
        for _ in 0..40 {
            notes.main();
        }
        notes.nag(1);
        notes.main();
        let end = notes.end();
        assert_eq!(notes.bare_mains(0, end), 39, "the fortieth move has a NAG");
        assert_eq!(notes.bare_mains(3, end), 36);
        assert_eq!(notes.bare_mains(end - 1, end), 1);
        assert_eq!(notes.bare_mains(0, 20), 20, "a line ending after its twentieth move");
    }

    #[test]
    fn an_ascii_comment_goes_on_the_tape_as_normalize_comment_collapses_it() {
        let mut rng = Rng(0x0c0f_fee0_5eed_0001);
        let alphabet = b"  \t\n\r\x0b\x0cab}[%";
        for len in 0..400 {
            let text: Vec<u8> = (0..len % 12).map(|_| alphabet[rng.below(alphabet.len())]).collect();
            let mut notes = Notes::default();
            notes.ascii_comment(&text);
            let expected = crate::game::normalize_comment(std::str::from_utf8(&text).unwrap());
            let written: Vec<String> = notes.items().map(|item| shown(&item)).collect();
            let wanted = if expected.is_empty() { vec![] } else { vec![format!("{{{expected}}}")] };
            assert_eq!(written, wanted, "{text:?}");
        }
    }

    #[test]
    fn a_moves_one_comment_is_read_at_once_only_when_it_is_its_only_note_short_and_ascii() {
        let mut notes = Notes::default();
        let mut starts = Vec::new();
        for note in [&["[%clk 0:05:00]"][..], &["a", "b"], &["é"], &["x".repeat(200).as_str()], &[], &["last"]] {
            starts.push(notes.end());
            notes.main();
            for comment in note {
                notes.comment(comment);
            }
        }
        let end = notes.end();
        let read: Vec<Option<(String, usize)>> =
            starts.iter().map(|&at| notes.main_comment(at, end).map(|(c, next)| (c.text().to_owned(), next))).collect();
        let some = |text: &str, next: usize| Some((text.to_owned(), next));
        assert_eq!(read, [some("[%clk 0:05:00]", starts[1]), None, None, None, None, some("last", end)]);
        // A line ending inside the comment: not read as one.
        assert_eq!(notes.main_comment(starts[5], end - 1).map(|(_, next)| next), None);
    }

    /// An item as a test compares it: a comment as `{text}`.
    fn shown(item: &Item<'_>) -> String {
        match item {
            Item::Comment(comment) => format!("{{{}}}", comment.text()),
            Item::Main => "main".to_owned(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn every_move_of_random_games_packs_and_unpacks_to_itself() {
        let mut rng = Rng(0x7a9e_0000_1234_5678);
        let mut moves = 0;
        for _ in 0..200 {
            rng.random_game(200, |_, legal| {
                for &m in legal {
                    assert_eq!(unpack(pack(m)), m);
                    moves += 1;
                }
            });
        }
        assert!(moves > 100_000, "only {moves} moves");
    }

    /// Written straight onto the tape, a comment is what it was when
    /// normalized first: Unicode white space collapsed, nothing left of
    /// a blank one, lengths of one LEB128 byte and of two.
    #[test]
    fn a_comment_goes_on_the_tape_normalized() {
        let long = "word \u{a0} ".repeat(40);
        let mut texts: Vec<String> =
            ["", "  \n\t ", "a", " a  b\r\nc ", "\u{3000}x\u{2028}y\u{a0}", "é  ½\u{85}💥", &long]
                .map(String::from)
                .to_vec();
        texts.push("x\u{b}y\u{c}z\u{1}\u{1f}\u{7f}".to_owned());
        // Lengths about where LEB128 takes a byte more, written and left.
        for n in [126, 127, 128, 129, 16_383, 16_384, 16_385] {
            texts.push("a".repeat(n));
            texts.push(format!("  {}  ", "b".repeat(n)));
            texts.push(format!("{} {}", "c".repeat(n), "d"));
            texts.push(" e".repeat(n / 2));
        }
        for text in &texts {
            let mut tape = Notes::default();
            tape.comment(text);
            tape.main();
            let want = crate::game::normalize_comment(text);
            let items: Vec<String> = tape.items().map(|item| shown(&item)).collect();
            match want.as_str() {
                "" => assert_eq!(items, ["main"], "{text:?}"),
                want => assert_eq!(items, [format!("{{{want}}}"), "main".to_owned()], "{text:?}"),
            }
            let ascii = tape.items().find_map(|item| match item {
                Item::Comment(c) => Some(c.ascii().is_some()),
                _ => None,
            });
            // ASCII text is read back with no check of its UTF-8.
            assert_eq!(ascii, (!want.is_empty()).then_some(text.is_ascii()), "{text:?}");
        }
    }

    /// A comment is marked plain exactly when it is ASCII, JSON escapes
    /// none of its bytes and none ends a PGN comment (no quote, backslash,
    /// control character or `}` left once its white space is collapsed),
    /// whatever its length and wherever such a byte stands: at either end,
    /// inside an 8-byte word, on the edge between two.
    #[test]
    fn a_comment_is_marked_plain_exactly_when_json_escapes_none_of_its_bytes_and_it_has_no_closing_brace() {
        let pieces: [&[u8]; 14] = [
            b"a",
            b"b",
            b" ",
            b"  ",
            b"\"",
            b"\\",
            b"}",
            b"{",
            b"\t",
            b"\n",
            b"\x01",
            b"\x1f",
            b"\x7f",
            "\u{e9}".as_bytes(),
        ];
        let mut rng = Rng(0x9c0d_0000_0000_0046);
        let mut seen = [0; 2];
        for _ in 0..20_000 {
            let mut raw = Vec::new();
            for _ in 0..rng.below(48) {
                // Mostly letters, so that many comments are plain.
                let piece = if rng.below(4) == 0 { pieces[rng.below(pieces.len())] } else { pieces[rng.below(2)] };
                raw.extend_from_slice(piece);
            }
            let text = String::from_utf8(raw).unwrap();
            let mut tape = Notes::default();
            tape.comment(&text);
            let want = crate::game::normalize_comment(&text);
            let plain = tape.items().find_map(|item| match item {
                Item::Comment(c) => Some(c.plain().map(<[u8]>::to_vec)),
                _ => None,
            });
            let escapes = want.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\' || b == b'}');
            let expected = (!want.is_empty()).then(|| (want.is_ascii() && !escapes).then(|| want.clone().into_bytes()));
            assert_eq!(plain, expected, "{text:?}");
            seen[usize::from(matches!(plain, Some(Some(_))))] += 1;
        }
        assert!(seen.iter().all(|&n| n > 1000), "{seen:?}");
    }

    /// A comment of single spaces between its words comes back whole, but
    /// for a space at either end, at every length about the short ones
    /// copied in words.
    #[test]
    fn a_comment_of_any_length_comes_back_whole_but_for_a_space_at_either_end() {
        let words: Vec<u8> = (0..40u8).map(|i| if i % 5 == 4 { b' ' } else { b'a' + i % 26 }).collect();
        for len in 1..words.len() {
            let text = &words[..len];
            for (before, after) in [("", ""), (" ", ""), ("", " "), (" ", " ")] {
                let raw = [before.as_bytes(), text, after.as_bytes()].concat();
                let mut notes = Notes::default();
                assert!(notes.ascii_comment(&raw));
                let want = std::str::from_utf8(text).unwrap().trim();
                let items: Vec<String> = notes.items().map(|item| shown(&item)).collect();
                assert_eq!(items, [format!("{{{want}}}")], "{raw:?}");
            }
        }
        assert!(!Notes::default().ascii_comment("caf\u{e9}".as_bytes()), "not ASCII");
    }

    /// [`TextShape::of`] by its definition, a byte at a time.
    fn shape_of_each_byte(text: &[u8]) -> TextShape {
        TextShape {
            high: text.iter().any(|&b| b >= 0x80),
            rewrite: text.iter().any(|&b| b < 0x20) || text.windows(2).any(|pair| pair == b"  "),
            escapes: text.iter().any(|&b| b == b'"' || b == b'\\' || b == b'}'),
        }
    }

    /// The shape read 8 bytes at a time is the shape read a byte at a
    /// time: every byte value at every place of every length up to 40 in
    /// letters, two spaces at every place (across the edge of two words
    /// among them), and random texts of the bytes near each one told.
    #[test]
    fn a_texts_shape_read_a_word_at_a_time_is_its_shape_read_a_byte_at_a_time() {
        let check = |text: &[u8]| assert_eq!(TextShape::of(text), shape_of_each_byte(text), "{text:?}");
        for len in 0..=40 {
            let letters = vec![b'a'; len];
            check(&letters);
            for at in 0..len {
                for byte in 0..=255 {
                    let mut text = letters.clone();
                    text[at] = byte;
                    check(&text);
                }
                for gap in 1..len - at {
                    let mut text = letters.clone();
                    text[at] = b' ';
                    text[at + gap] = b' ';
                    check(&text);
                }
            }
        }
        let near: &[u8] = b" !\"#[\\]|}~\x7f\x80\xff\x00\x01\x1f\t\na";
        let mut rng = Rng(0x5fa2_0000_0000_0046);
        let mut seen = [0; 2];
        for _ in 0..100_000 {
            // Mostly letters and spaces, so that many have no flag or one.
            let byte =
                |rng: &mut Rng| if rng.below(4) == 0 { near[rng.below(near.len())] } else { b"a "[rng.below(2)] };
            let text: Vec<u8> = (0..rng.below(41)).map(|_| byte(&mut rng)).collect();
            check(&text);
            seen[usize::from(TextShape::of(&text) == TextShape::default())] += 1;
        }
        assert!(seen.iter().all(|&n| n > 10_000), "{seen:?}");
    }

    #[test]
    fn items_come_back_as_written_and_a_variation_is_stepped_over_whole() {
        let e4 = Chess::default().legal_moves().into_iter().find(|m| m.to().to_string() == "e4").unwrap();
        let mut notes = Notes::default();
        notes.comment("before");
        notes.main();
        notes.nag(1);
        let open = notes.open();
        notes.step(Some(e4));
        let long = ["long"; 100].join(" ");
        notes.comment(&long);
        let inner = notes.open();
        notes.step(None);
        notes.close(inner);
        let empty = notes.open();
        notes.close(empty);
        notes.close(open);
        notes.main();
        let all: Vec<Item<'_>> = notes.items().collect();
        assert_eq!(all.len(), 9, "{all:?}");
        assert_eq!(shown(&all[0]), "{before}");
        assert_eq!(shown(&all[5]), format!("{{{long}}}"));
        let main: Vec<Item<'_>> = notes.line(0, notes.end()).map(|(_, item)| item).collect();
        assert_eq!(main.len(), 5, "{main:?}");
        assert!(matches!(main[3], Item::Open { ref body } if body.end == notes.end() - 1));
        assert_eq!(main[4], Item::Main);
    }

    /// The main line's notes with the moves before each are the items of
    /// the line read one at a time, the moves counted: runs of moves
    /// without notes shorter and longer than the 16 tested at once, notes
    /// first and last, variations among them.
    #[test]
    fn main_notes_are_the_line_read_an_item_at_a_time() {
        let e4 = Chess::default().legal_moves().into_iter().find(|m| m.to().to_string() == "e4").unwrap();
        let mut rng = Rng(0x0a11_4a1e_0000_0046);
        for _ in 0..2000 {
            let mut notes = Notes::default();
            for _ in 0..rng.below(12) {
                match rng.below(5) {
                    0 => notes.comment(["c", " ", "a  b", "é"][rng.below(4)]),
                    1 => notes.nag(rng.below(256) as u8),
                    2 => {
                        let open = notes.open();
                        notes.step(Some(e4));
                        notes.main();
                        notes.close(open);
                    }
                    _ => (0..[1, 15, 16, 17, 33, 100][rng.below(6)]).for_each(|_| notes.main()),
                }
            }
            let mut ply = 0;
            let mut want = Vec::new();
            for (_, item) in notes.line(0, notes.end()) {
                match item {
                    Item::Main => ply += 1,
                    item => want.push((ply, shown(&item))),
                }
            }
            let got: Vec<(usize, String)> = notes.main_notes().map(|(ply, item)| (ply, shown(&item))).collect();
            assert_eq!(got, want);
        }
    }
}
