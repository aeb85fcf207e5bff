//! What the framer hands out: batches of games ([`Batch`]), each game's
//! place and findings ([`Frame`], [`FrameFlags`]) and the text between
//! games that is no game ([`StrayText`]); and the games framed since the
//! last batch went out ([`Framed`]), which the stray text is noted on.

use std::sync::Arc;

use super::{
    kept::{Kept, KeptAt, MoveAt, NoteAt, TagAt},
    locate,
};

/// The framer's findings about one game, for diagnostics later.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameFlags(u16);

impl FrameFlags {
    /// A `{` comment was still open when the game ended.
    pub const UNTERMINATED_COMMENT: FrameFlags = FrameFlags(1);
    /// A `(` variation was still open when the game ended.
    pub const UNTERMINATED_VARIATION: FrameFlags = FrameFlags(2);
    /// The game was larger than the cap and was cut.
    pub const TOO_LARGE: FrameFlags = FrameFlags(4);
    /// The input failed (I/O or decompression error) inside this game.
    pub const INPUT_ERROR: FrameFlags = FrameFlags(8);
    /// A termination marker ended the game.
    pub const HAS_RESULT: FrameFlags = FrameFlags(16);
    /// A tag line that is not `[Name "value"]`.
    pub const BAD_TAG: FrameFlags = FrameFlags(32);
    /// The framer's token counts and comment list are not those of
    /// [`locate::count_eliding_comments`] (a token cut by the window, a byte
    /// order mark inside movetext, movetext that starts with `[` or `%`):
    /// count the game again, as for a cut one.
    pub const UNCOUNTED: FrameFlags = FrameFlags(64);
    /// The termination marker is one pgn-reader reads but the PGN standard
    /// does not write (`½-½`, `1–0` with an en dash).
    pub const NONSTANDARD_RESULT: FrameFlags = FrameFlags(128);
    /// The framer did not keep the game's tags and moves as pgn-reader
    /// reads them ([`RawGame::tags`], [`RawGame::moves`]): a tag line or a
    /// blank pgn-reader reads otherwise, a token too long for its list, a
    /// game of more moves than the list takes.
    pub const UNKEPT: FrameFlags = FrameFlags(256);
    /// The game's first tag follows the termination marker of the game
    /// before it on the same line (`0-1[Event "b"]`: files joined by `cat`,
    /// the first without a final line break).
    pub const GLUED: FrameFlags = FrameFlags(512);
    /// The tag section holds what pgn-reader reads otherwise than pgnkit
    /// does (a byte order mark before a tag line, a value with quotes not
    /// escaped): the parser is given a copy with those mended.
    pub const TAGS_MENDED: FrameFlags = FrameFlags(1024);
    /// The framer kept where the game's comments, NAGs and `(` are
    /// ([`RawGame::annotations`]), all of them: asked for
    /// ([`super::FrameOptions::keep_notes`]), and not past the list's cap.
    /// They stand for the token walk's only in a game that is also
    /// [`FrameFlags::kept`].
    pub const NOTES_KEPT: FrameFlags = FrameFlags(2048);

    /// Whether every flag of `other` is set.
    pub fn contains(self, other: FrameFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether the framer's counts and comment list stand for the game: not
    /// cut, not [`FrameFlags::UNCOUNTED`].
    pub fn counted(self) -> bool {
        self.0 & (Self::UNCOUNTED.0 | Self::TOO_LARGE.0 | Self::INPUT_ERROR.0) == 0
    }

    /// Whether [`RawGame::tags`], [`RawGame::moves`] and
    /// [`Frame::outcome`] are the game as pgn-reader reads it, as far as
    /// the framer can tell (the checker still reads each move): counted,
    /// kept, every tag well formed, every comment and variation closed, a
    /// standard termination marker if any.
    pub fn kept(self) -> bool {
        const NOT_KEPT: u16 = FrameFlags::UNKEPT.0
            | FrameFlags::BAD_TAG.0
            | FrameFlags::UNTERMINATED_COMMENT.0
            | FrameFlags::UNTERMINATED_VARIATION.0
            | FrameFlags::NONSTANDARD_RESULT.0;
        self.counted() && self.0 & NOT_KEPT == 0
    }

    pub(super) fn insert(&mut self, other: FrameFlags) {
        self.0 |= other.0;
    }
}

/// Where one game sits in its batch, and what the framer saw in it.
#[derive(Debug, Clone, Default)]
pub struct Frame {
    pub(super) start: usize,
    pub(super) end: usize,
    /// 1-based number of the game within its input.
    pub index: u64,
    /// 1-based line of the game's first byte.
    pub line: u64,
    /// 1-based column (in bytes) of the game's first byte.
    pub column: u32,
    /// Findings of the framer.
    pub flags: FrameFlags,
    /// Offset of the movetext in the game's bytes, after the tags (the
    /// game's length when it has none).
    pub movetext: u32,
    /// Longest tag line, so the parser can be given a big enough buffer.
    pub max_tag_line: u32,
    /// The movetext's tokens, counted as the framer read them (as
    /// [`locate::count_from`] counts them, unless
    /// [`FrameFlags::UNCOUNTED`]).
    pub counts: locate::Counts,
    /// Its long comments, tags and moves in its batch's lists of them.
    pub(super) kept: std::ops::Range<KeptAt>,
    /// The termination marker that ended the game, as pgn-reader reads it
    /// (`None` for a nonstandard one).
    pub outcome: Option<pgn_reader::Outcome>,
    /// 1 + the index of its [`Notes`] in its batch's list of them; 0 for
    /// none (most games). Kept out of the frame, so that a frame owns no
    /// memory: a batch of short games holds a thousand frames, more than
    /// the first-level cache, and a list of frames that own memory is read
    /// again, frame by frame, to be cleared.
    pub(super) notes: u32,
}

/// What was found between a game and the next: text that is not a game,
/// and what PGN lets a reader skip.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Notes {
    /// Text between games that is not a game, after this one (or, for the
    /// first game of an input, before it too).
    stray: Strays,
    /// Comments, `;` comments and `%` escape lines between games, after
    /// this one (or, for the first game of an input, before it too):
    /// skipped as PGN allows, so no finding of `validate`, but what a
    /// rewrite of the file (`fix`) leaves out and must say so.
    skipped: Strays,
}

/// The stray texts, and skipped ones, of a game that has none.
static NO_STRAYS: Strays = Strays { kept: Vec::new(), more: 0 };

/// The stray texts found after a game: the first [`Strays::KEPT`], and how
/// many more (a stream of `* * *` holds millions).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Strays {
    /// In input order.
    pub kept: Vec<StrayText>,
    /// Stray texts after those, counted.
    pub more: u64,
}

impl Strays {
    /// Stray texts kept per game.
    pub const KEPT: usize = 100;

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty() && self.more == 0
    }

    pub(super) fn push(&mut self, stray: StrayText) {
        if self.kept.len() < Self::KEPT {
            self.kept.push(stray);
        } else {
            self.more += 1;
        }
    }
}

/// Text between games that holds no tag and no move (mail headers between
/// the games of a newsletter, a second result): skipped, not a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrayText {
    /// 1-based line of its first byte.
    pub line: u64,
    /// 1-based column (in bytes) of its first byte.
    pub column: u32,
    /// Its first line, cut at [`StrayText::SHOWN`] bytes.
    pub text: Vec<u8>,
}

impl StrayText {
    /// Bytes of the text kept to show.
    pub const SHOWN: usize = 40;

    /// The note of `text` at `line` and `column`: its first line, without
    /// trailing blanks, cut at [`StrayText::SHOWN`] bytes.
    pub(super) fn new(line: u64, column: u32, text: &[u8]) -> StrayText {
        let first_line = &text[..memchr::memchr(b'\n', text).unwrap_or(text.len())];
        let first_line = first_line.trim_ascii_end();
        StrayText { line, column, text: first_line[..first_line.len().min(Self::SHOWN)].to_vec() }
    }
}

/// A run of consecutive games sharing one buffer (allocated once, recycled).
#[derive(Debug, Default)]
pub struct Batch {
    /// Shared so that the parser can read a game in place (see
    /// [`RawGame::shared`]); unique again once the batch is done.
    data: Arc<Vec<u8>>,
    frames: Vec<Frame>,
    kept: Kept,
    /// The frames' [`Notes`], for those that have any.
    notes: Vec<Notes>,
}

impl Batch {
    /// The games of this batch, in input order.
    pub fn games(&self) -> impl ExactSizeIterator<Item = RawGame<'_>> + '_ {
        self.frames.iter().map(|frame| self.game(frame))
    }

    /// The games of this batch as a slice of frames plus the shared bytes.
    pub fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// The game behind a frame of this batch.
    pub fn game<'a>(&'a self, frame: &'a Frame) -> RawGame<'a> {
        let (from, to) = (frame.kept.start, frame.kept.end);
        RawGame {
            frame,
            bytes: &self.data[frame.start..frame.end],
            shared: &self.data,
            long_comments: &self.kept.comments[from.comments as usize..to.comments as usize],
            tags: &self.kept.tags[from.tags as usize..to.tags as usize],
            moves: &self.kept.moves[from.moves as usize..to.moves as usize],
            // Sliced only when kept: a command that keeps none pays nothing.
            annotations: if frame.flags.contains(FrameFlags::NOTES_KEPT) {
                &self.kept.notes[from.notes as usize..to.notes as usize]
            } else {
                &[]
            },
            notes: frame.notes.checked_sub(1).map(|at| &self.notes[at as usize]),
        }
    }

    /// Number of games.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether the batch has no games.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Bytes its buffer holds on to.
    pub fn capacity(&self) -> usize {
        self.data.capacity()
    }

    /// Empties it of games; its buffers stay, to be reused.
    pub(super) fn clear(&mut self) {
        self.frames.clear();
    }

    /// Its buffer, to be filled again. Buffers keep their length between
    /// uses: only growth is zeroed. A buffer still held (by results that
    /// point into it) is left to them, not copied.
    pub(super) fn recycled_buffer(&mut self) -> &mut Vec<u8> {
        if Arc::get_mut(&mut self.data).is_none() {
            self.data = Arc::default();
        }
        Arc::make_mut(&mut self.data)
    }
}

/// One framed game: its bytes (line endings normalised to `\n` or `\r\n`)
/// and where it came from.
#[derive(Debug, Clone, Copy)]
pub struct RawGame<'a> {
    /// Position and framer findings.
    pub frame: &'a Frame,
    /// The game's text, from its first byte to the end of its last line.
    pub bytes: &'a [u8],
    shared: &'a Arc<Vec<u8>>,
    /// The movetext's long `{...}` comments the framer saw (offset of the
    /// `{`, length with the braces), unless [`FrameFlags::UNCOUNTED`].
    pub long_comments: &'a [(usize, usize)],
    /// Its tags, as pgn-reader reads them, when [`FrameFlags::kept`].
    pub tags: &'a [TagAt],
    /// Its move tokens, main line and variations, when
    /// [`FrameFlags::kept`].
    pub moves: &'a [MoveAt],
    /// Where its comments, NAGs and `(` are, in order, when
    /// [`FrameFlags::NOTES_KEPT`].
    pub annotations: &'a [NoteAt],
    notes: Option<&'a Notes>,
}

impl<'a> RawGame<'a> {
    /// Text between games that is not a game, after this one (or, for the
    /// first game of an input, before it too).
    pub fn stray(&self) -> &'a Strays {
        self.notes.map_or(&NO_STRAYS, |notes| &notes.stray)
    }

    /// Comments, `;` comments and `%` escape lines between games, after
    /// this one (or, for the first game of an input, before it too):
    /// skipped as PGN allows, so no finding of `validate`, but what a
    /// rewrite of the file (`fix`) leaves out and must say so.
    pub fn skipped(&self) -> &'a Strays {
        self.notes.map_or(&NO_STRAYS, |notes| &notes.skipped)
    }

    /// The batch buffer and the game's range in it, for readers that must
    /// own what they read.
    pub fn shared(&self) -> (Arc<Vec<u8>>, std::ops::Range<usize>) {
        (Arc::clone(self.shared), self.frame.start..self.frame.end)
    }
}

/// The games framed since the last batch went out, with what is noted and
/// kept of them: the next batch, being filled.
#[derive(Debug, Default)]
pub(super) struct Framed {
    pub(super) frames: Vec<Frame>,
    /// The [`Notes`] of `frames`.
    notes: Vec<Notes>,
    /// Bytes of the games in `frames`.
    pub(super) bytes: usize,
    /// What is kept of these games and of the one being read (see
    /// [`Kept`]).
    pub(super) kept: Kept,
    /// Stray text with no game before it in this batch (at the start of
    /// the input, or after games already handed out): it goes to the next
    /// game.
    pub(super) stray: Strays,
    /// Comments and escape lines between games no game has been found
    /// before in this batch (see [`RawGame::skipped`]).
    skipped: Strays,
}

impl Framed {
    /// Adds a game, which takes the notes made before it with no game to
    /// go to.
    pub(super) fn push(&mut self, mut frame: Frame) {
        if !self.stray.is_empty() || !self.skipped.is_empty() {
            let (stray, skipped) = (std::mem::take(&mut self.stray), std::mem::take(&mut self.skipped));
            self.notes.push(Notes { stray, skipped });
            frame.notes = u32::try_from(self.notes.len()).expect("a batch's frames fit u32");
        }
        self.bytes += frame.end - frame.start;
        self.frames.push(frame);
    }

    /// Notes stray text on the last game, or (none in this batch) for the
    /// next.
    pub(super) fn note_stray(&mut self, stray: StrayText) {
        match self.last_notes() {
            Some(notes) => notes.stray.push(stray),
            None => self.stray.push(stray),
        }
    }

    /// Notes a comment or escape line between games on the last game, or
    /// (none in this batch) for the next.
    pub(super) fn note_skipped(&mut self, skipped: StrayText) {
        match self.last_notes() {
            Some(notes) => notes.skipped.push(skipped),
            None => self.skipped.push(skipped),
        }
    }

    /// The notes of the last game framed, made when it has none; `None`
    /// when no game has been framed in this batch.
    fn last_notes(&mut self) -> Option<&mut Notes> {
        let last = self.frames.last_mut()?;
        if last.notes == 0 {
            // The last frame's notes are the last made: they stay in order.
            self.notes.push(Notes::default());
            last.notes = u32::try_from(self.notes.len()).expect("a batch's frames fit u32");
        }
        self.notes.get_mut(last.notes as usize - 1)
    }

    /// The games' bytes moved `by` bytes back in the window.
    pub(super) fn shift(&mut self, by: usize) {
        for frame in &mut self.frames {
            frame.start -= by;
            frame.end -= by;
        }
    }

    /// Moves the games into `batch` (whose buffer the caller filled), and
    /// what is kept of them, all but the entries from `stays_from` on (the
    /// game still being read); `held`, a game kept back from the batch,
    /// stays, its bytes `shift` bytes further back.
    pub(super) fn hand_over(&mut self, batch: &mut Batch, held: Option<Frame>, stays_from: KeptAt, shift: usize) {
        std::mem::swap(&mut batch.frames, &mut self.frames);
        batch.notes.clear();
        std::mem::swap(&mut batch.notes, &mut self.notes);
        self.kept.hand_over(stays_from, &mut batch.kept);
        self.bytes = 0;
        if let Some(mut held) = held {
            if held.notes != 0 {
                // The last frame's notes are the last of the list.
                self.notes.extend(batch.notes.pop());
                held.notes = 1;
            }
            held.kept = held.kept.start.since(stays_from)..held.kept.end.since(stays_from);
            (held.start, held.end) = (held.start - shift, held.end - shift);
            self.bytes = held.end - held.start;
            self.frames.push(held);
        }
    }
}
