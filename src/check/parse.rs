//! The pgn-reader side of checking a game: a visitor that keeps the tags and
//! moves the checker needs, fed each game from its batch buffer by a
//! long-lived reader.

use std::{
    io::Read,
    ops::ControlFlow,
    sync::{Arc, Mutex, PoisonError},
};

use pgn_reader::{Outcome, RawTag, Reader, SanPlus, Skip, Visitor};

use crate::{
    frame::{RawGame, locate},
    game::RawTags,
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

/// The tags and moves pgn-reader hands over for one game.
#[derive(Debug, Default)]
pub(crate) struct Collected {
    pub(crate) white: TagSlot,
    pub(crate) black: TagSlot,
    pub(crate) result: TagSlot,
    pub(crate) fen: TagSlot,
    pub(crate) variant: TagSlot,
    pub(crate) termination: TagSlot,
    pub(crate) mainline: Vec<SanPlus>,
    pub(crate) variation_moves: u32,
    pub(crate) stray_closes: u32,
    pub(crate) depth: u32,
    pub(crate) outcome: Option<Outcome>,
    /// Keep every tag in `tags`.
    /// Keep the tags in `tags`: all (`Some` of an empty list) or those named.
    pub(crate) record_tags: Option<Vec<Vec<u8>>>,
    /// The tags kept (name, unescaped value) in input order.
    pub(crate) tags: RawTags,
}

impl Collected {
    pub(crate) fn clear(&mut self) {
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

    /// The tokens of `game` (see [`locate::count_from`]), and makes it the
    /// next bytes read, without its long comments if it has any. The framer
    /// counted them as it read the game; a game it could not count (a cut
    /// one, a token cut by its window) is counted here.
    fn count_and_set(&self, game: RawGame<'_>) -> locate::Counts {
        let mut feed = self.lock();
        let (batch, range) = game.shared();
        feed.pos = 0;
        feed.batch = Some(batch);
        feed.range = range;
        if game.frame.flags.counted() {
            locate::elide(game.bytes, game.long_comments, &mut feed.elided);
            return game.frame.counts;
        }
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

/// pgn-reader over one game at a time, and what it collected of the last.
#[derive(Debug)]
pub(crate) struct Parser {
    pub(crate) collected: Collected,
    feed: Feed,
    reader: Reader<Feed>,
}

impl Default for Parser {
    fn default() -> Self {
        let feed = Feed::default();
        let reader = Reader::new(feed.clone());
        Parser { collected: Collected::default(), feed, reader }
    }
}

impl Parser {
    /// Counts the tokens of `game` (see [`locate::count_from`]) and makes
    /// it the next bytes read, without its long comments if it has any.
    pub(crate) fn count_and_set(&self, game: RawGame<'_>) -> locate::Counts {
        self.feed.count_and_set(game)
    }

    /// Runs pgn-reader over the game as [`Parser::count_and_set`] left it
    /// (without its long comments); continues over blank lines it stops at.
    pub(crate) fn parse(&mut self, game: RawGame<'_>, counted: locate::Counts) -> Option<std::io::Error> {
        self.collected.clear();
        // The count is what the main line holds, or more: a long game's
        // moves are not copied over and over as the list doubles.
        self.collected.mainline.reserve(counted.mainline as usize);
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
