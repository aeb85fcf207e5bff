//! Reading a game's tags and moves for the checker: from what the framer
//! kept of them as it read the game, or, for a game it did not keep, with
//! pgn-reader, through a visitor fed from its batch buffer by a long-lived
//! reader.

use std::{
    borrow::Cow,
    io::Read,
    ops::ControlFlow,
    sync::{Arc, Mutex, PoisonError},
};

use pgn_reader::{Outcome, RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::{
    CastlingSide,
    san::{San, Suffix},
};

use crate::{
    frame::{FrameFlags, RawGame, lexer::mend_tags, locate},
    game::RawTags,
    notation::strip_move_number,
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
    /// Read from what the framer kept (not by pgn-reader): the main line is
    /// then the kept move tokens outside variations, one for one.
    pub(crate) from_kept: bool,
    /// Keep every tag in `tags`.
    /// Keep the tags in `tags`: all (`Some` of an empty list) or those named.
    pub(crate) record_tags: Option<Vec<Vec<u8>>>,
    /// The tags kept (name, unescaped value) in input order.
    pub(crate) tags: RawTags,
    /// The tag names read, each as one bit of [`name_bit`].
    seen_names: u128,
    /// Two tag names read had the same bit: the game may give a tag twice.
    pub(crate) maybe_repeated_tag: bool,
}

/// A bit for a tag name, from its length and three of its bytes: the
/// names real games use (the Seven Tag Roster, lichess's, ChessBase's,
/// some sixty) each get one of their own, so that a game is told to give
/// no tag twice at a few instructions a tag, and only a game that may
/// (two names of one bit) has its tags compared.
#[inline(always)]
fn name_bit(name: &[u8]) -> u128 {
    let (first, before_last, last) = match *name {
        [first, .., before_last, last] => (first, before_last, last),
        [first, last] => (first, first, last),
        [only] => (only, 0, only),
        [] => (0, 0, 0),
    };
    let key = u32::from(first) * 37 + u32::from(last) * 11 + u32::from(before_last) * 29 + name.len() as u32 * 3;
    1 << (key & 127)
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
        self.from_kept = false;
        self.tags.clear();
        self.seen_names = 0;
        self.maybe_repeated_tag = false;
    }
}

impl Collected {
    fn keep_tag(&mut self, name: &[u8], value: RawTag<'_>) {
        let bit = name_bit(name);
        self.maybe_repeated_tag |= self.seen_names & bit != 0;
        self.seen_names |= bit;
        if let Some(names) = &self.record_tags
            && (names.is_empty() || names.iter().any(|n| n == name))
        {
            self.tags.push(name, &unescaped(value));
        }
        let slot = match name {
            b"White" => &mut self.white,
            b"Black" => &mut self.black,
            b"Result" => &mut self.result,
            b"FEN" => &mut self.fen,
            b"Variant" => &mut self.variant,
            b"Termination" => &mut self.termination,
            _ => return,
        };
        slot.set(&unescaped(value));
    }

    /// Collects the game from what the framer kept of it, as pgn-reader
    /// would read it; false (and a partial collection) at a move token
    /// pgn-reader would not read as the move it spells, which is left to
    /// pgn-reader.
    fn read_kept(&mut self, game: RawGame<'_>) -> bool {
        self.clear();
        let bytes = game.bytes;
        for tag in game.tags {
            let span = |r: &std::ops::Range<u32>| &bytes[r.start as usize..r.end as usize];
            self.keep_tag(span(&tag.name), RawTag(span(&tag.value)));
        }
        self.mainline.reserve(game.frame.counts.mainline as usize);
        for token in game.moves {
            let start = token.offset as usize;
            let Some(san) = read_kept_move(&bytes[start..start + usize::from(token.len)]) else {
                return false;
            };
            if token.variation {
                self.variation_moves += 1;
            } else {
                self.mainline.push(san);
            }
        }
        self.outcome = game.frame.outcome;
        self.from_kept = true;
        true
    }
}

/// A tag value with its escapes read, as [`RawTag::decode`] reads them.
/// Most values have none, and are too short to repay the set-up of the
/// search `decode` starts with.
fn unescaped(value: RawTag<'_>) -> Cow<'_, [u8]> {
    if value.0.contains(&b'\\') { value.decode() } else { Cow::Borrowed(value.0) }
}

/// A move token as pgn-reader reads it when it reads the whole token as one
/// move: SAN after any glued move number, or castling written with zeros;
/// `None` for anything else (pgn-reader may read part of such a token, or
/// skip it).
#[inline]
fn read_kept_move(token: &[u8]) -> Option<SanPlus> {
    if !token.first().is_some_and(u8::is_ascii_digit) {
        // Most tokens: no move number glued on, no castling with zeros.
        return crate::notation::plain_san(token);
    }
    let san = strip_move_number(token);
    if san.first() == Some(&b'0') {
        // pgn-reader reads `0-0` and `0-0-0` itself, with a `+` or `#`.
        let (side, rest) = match san {
            [b'0', b'-', b'0', b'-', b'0', rest @ ..] => (CastlingSide::QueenSide, rest),
            [b'0', b'-', b'0', rest @ ..] => (CastlingSide::KingSide, rest),
            _ => return None,
        };
        let suffix = match rest {
            [] => None,
            [b'+'] => Some(Suffix::Check),
            [b'#'] => Some(Suffix::Checkmate),
            _ => return None,
        };
        return Some(SanPlus { san: San::Castle(side), suffix });
    }
    crate::notation::plain_san(san)
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
        self.keep_tag(name, value);
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
        let counts = if game.frame.flags.counted() {
            locate::elide(game.bytes, game.long_comments, &mut feed.elided);
            game.frame.counts
        } else {
            locate::count_eliding_comments(game.bytes, game.frame.movetext as usize, &mut feed.elided)
        };
        if game.frame.flags.contains(FrameFlags::TAGS_MENDED) {
            // The tag section comes before the movetext's long comments.
            let movetext = (game.frame.movetext as usize).min(game.bytes.len());
            let mut mended = Vec::with_capacity(game.bytes.len() + 16);
            mend_tags(&game.bytes[..movetext], &mut mended);
            let elided = std::mem::take(&mut feed.elided);
            mended.extend_from_slice(if elided.is_empty() { &game.bytes[movetext..] } else { &elided[movetext..] });
            feed.elided = mended;
        }
        counts
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
    /// Reads `game` into [`Parser::collected`]: from what the framer kept
    /// when it kept the game (the one walk over its bytes was the
    /// framer's), else with pgn-reader. Returns the game's token counts
    /// (see [`locate::count_from`]) and pgn-reader's error, if any.
    pub(crate) fn read(&mut self, game: RawGame<'_>) -> (locate::Counts, Option<std::io::Error>) {
        if game.frame.flags.kept() && self.collected.read_kept(game) {
            return (game.frame.counts, None);
        }
        let counted = self.feed.count_and_set(game);
        (counted, self.parse(game, counted))
    }

    /// Runs pgn-reader over the game as [`Feed::count_and_set`] left it
    /// (without its long comments); continues over blank lines it stops at.
    fn parse(&mut self, game: RawGame<'_>, counted: locate::Counts) -> Option<std::io::Error> {
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

#[cfg(test)]
pub(crate) mod tests {
    use std::path::{Path, PathBuf};

    use super::{Collected, Parser, TagSlot};
    use crate::check::context::Ctx;
    use crate::{
        frame::{Batch, FrameOptions, Framer, MAX_KEPT_MOVES, tests::Chunked},
        test_rng::{PIECES, Rng},
    };

    /// What a collection holds, to compare two of them.
    fn seen(c: &Collected) -> String {
        let slot = |s: &TagSlot| s.get().map(|v| String::from_utf8_lossy(v).into_owned());
        let moves: Vec<String> = c.mainline.iter().map(ToString::to_string).collect();
        format!(
            "tags {:?}/{:?} {:?} {:?} {:?} {:?} {:?} {:?}; moves {moves:?} + {} in variations, {} stray `)`, depth {}, {:?}",
            c.tags.bytes,
            c.tags.ends,
            slot(&c.white),
            slot(&c.black),
            slot(&c.result),
            slot(&c.fen),
            slot(&c.variant),
            slot(&c.termination),
            c.variation_moves,
            c.stray_closes,
            c.depth,
            c.outcome,
        )
    }

    /// Checks that every game the framer kept and the checker reads from
    /// what was kept reads as pgn-reader reads it; returns how many games
    /// were read each way.
    fn kept_games_read_as_pgn_reader_reads_them(input: &[u8], chunk: usize, opts: FrameOptions) -> (usize, usize) {
        let mut framer = Framer::with_options(Chunked { bytes: input, chunk }, opts);
        let mut batch = Batch::default();
        let (mut kept, mut parsed) = (Parser::default(), Parser::default());
        kept.collected.record_tags = Some(Vec::new());
        parsed.collected.record_tags = Some(Vec::new());
        let (mut from_kept, mut by_parser) = (0, 0);
        while framer.next_batch(&mut batch).unwrap_or(false) {
            for game in batch.games() {
                if !(game.frame.flags.kept() && kept.collected.read_kept(game)) {
                    by_parser += 1;
                    continue;
                }
                from_kept += 1;
                let counted = parsed.feed.count_and_set(game);
                let error = parsed.parse(game, counted);
                let shown = String::from_utf8_lossy(game.bytes);
                assert!(error.is_none(), "pgn-reader fails on a kept game: {error:?}\n{shown}");
                assert_eq!(counted, game.frame.counts, "{shown}");
                assert_eq!(seen(&kept.collected), seen(&parsed.collected), "{shown}");
                let c = &kept.collected;
                if c.mainline.len() + c.variation_moves as usize == counted.moves() as usize {
                    // Nothing skipped: the main line's tokens as the kept
                    // list gives them are those a walk over the bytes finds.
                    let (mut listed, mut scanned) = (Ctx::new(game, true), Ctx::new(game, true));
                    listed.mainline_is_kept(c.variation_moves > 0);
                    for index in 0..=c.mainline.len() {
                        assert_eq!(listed.mainline_token(index), scanned.mainline_token(index), "{index}: {shown}");
                    }
                }
            }
        }
        (from_kept, by_parser)
    }

    fn pgn_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pgn_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "pgn" || e == "gz") {
                out.push(path);
            }
        }
    }

    /// The PGN files under `dir`, as a run feeds them to the framer
    /// (decompressed, UTF-16 decoded; files that are not text left out).
    pub(crate) fn decoded_files(dir: &Path) -> Vec<Vec<u8>> {
        let mut paths = Vec::new();
        pgn_files(dir, &mut paths);
        paths.sort();
        let mut inputs = Vec::new();
        for path in paths {
            let raw = Box::new(std::fs::File::open(&path).expect("readable file"));
            if let Ok((_, mut text)) = crate::input::decode(raw) {
                let mut bytes = Vec::new();
                // A damaged file (a cut `.gz`) gives what came before the damage.
                let _ = std::io::Read::read_to_end(&mut text, &mut bytes);
                inputs.push(bytes);
            }
        }
        inputs
    }

    #[test]
    fn the_tag_names_real_games_use_each_have_a_bit_of_their_own() {
        let names = "Event Site Date Round White Black Result WhiteElo BlackElo ECO Opening TimeControl Termination \
                     UTCDate UTCTime WhiteRatingDiff BlackRatingDiff Variant WhiteTitle BlackTitle EventDate PlyCount \
                     Annotator SetUp FEN WhiteFideId BlackFideId EventType EventRounds EventCountry Source SourceDate \
                     Mode Board WhiteTeam BlackTeam Remark Time GameId LichessURL Link StudyName ChapterName \
                     WhiteClock BlackClock Section Stage WhiteUSCF BlackUSCF WhiteNA BlackNA EventCategory \
                     SourceTitle SourceVersion SourceVersionDate SourceQuality";
        let mut seen = 0u128;
        for name in names.split_whitespace() {
            let bit = super::name_bit(name.as_bytes());
            assert_eq!(seen & bit, 0, "{name} shares a bit");
            seen |= bit;
        }
        let mut collected = Collected::default();
        for name in ["Event", "Site", "White", "Black"] {
            collected.keep_tag(name.as_bytes(), pgn_reader::RawTag(b"x"));
        }
        assert!(!collected.maybe_repeated_tag);
        collected.keep_tag(b"White", pgn_reader::RawTag(b"y"));
        assert!(collected.maybe_repeated_tag);
    }

    #[test]
    fn fixture_games_read_from_what_the_framer_kept_as_pgn_reader_reads_them() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        let (mut kept, mut parsed) = (0, 0);
        for input in decoded_files(&root) {
            for chunk in [usize::MAX, 7] {
                let (k, p) = kept_games_read_as_pgn_reader_reads_them(&input, chunk, FrameOptions::default());
                (kept, parsed) = (kept + k, parsed + p);
            }
        }
        assert!(kept > 400 && parsed > 20, "{kept} games read from what was kept, {parsed} by the parser");
    }

    #[test]
    fn a_game_of_more_junk_tokens_than_the_kept_list_holds_is_read_from_what_was_kept() {
        // pgn-reader skips each of these whole, so the framer keeps none of
        // them: the game stays within the list's cap of moves. (It keeps a
        // token that starts like a move, `Nxx`, as telling those apart would
        // slow its quick path: a game of them is read by the parser.)
        let mut input = b"[Event \"junk\"]\n\n1. e4 ".to_vec();
        for i in 0..MAX_KEPT_MOVES + 1000 {
            input.extend_from_slice([&b"x "[..], b"xx ", b"Xq9 ", b"\" "][i % 4]);
        }
        input.extend_from_slice(b"e5 *\n");
        assert_eq!(kept_games_read_as_pgn_reader_reads_them(&input, usize::MAX, FrameOptions::default()), (1, 0));
        assert_eq!(kept_games_read_as_pgn_reader_reads_them(&input, 4096, FrameOptions::default()), (1, 0));
    }

    /// Pieces of games the framer keeps, with the odd layout among them.
    const WELL_FORMED: &[&[u8]] = &[
        b"[Event \"x\"]\n",
        b"[White \"a \\\"b\\\" c\"]\n",
        b"[Black  \"two spaces\"]\n",
        b"[ Site \"blank first\"]\n",
        b"[Round\"glued\"]",
        b"[Result \"1-0\" ]\n",
        b"  [Date \"?\"]\t\n",
        b"1.",
        b"12.",
        b"3...",
        b"e4",
        b"Nf3",
        b"exd5",
        b"O-O",
        b"0-0",
        b"0-0-0+",
        b"0-0#",
        b"e8=Q+",
        b"--",
        b"{c}",
        b"{long comment with ( and ) and 1-0 inside that goes on past sixty-four bytes}",
        b"(",
        b")",
        b"$3",
        b"!?",
        b"?",
        b";line comment\n",
        b"\n%escape\n",
        b"1-0",
        b"1/2-1/2",
        b"*",
        b"\n",
        b"\r\n",
        b" ",
        b"\t",
    ];

    #[test]
    fn random_games_read_from_what_the_framer_kept_as_pgn_reader_reads_them() {
        let mut rng = Rng(0x5851_f42d_4c95_7f2d);
        let (mut kept, mut parsed) = (0, 0);
        for round in 0..60_000 {
            let mut input = Vec::new();
            // Games mostly of well-formed pieces are kept more often.
            let plain = round % 2 == 1;
            for _ in 0..rng.below(60) {
                let piece = if plain && rng.below(8) != 0 {
                    WELL_FORMED[rng.below(WELL_FORMED.len())]
                } else {
                    PIECES[rng.below(PIECES.len())]
                };
                input.extend_from_slice(piece);
                if rng.below(2) == 0 {
                    input.push(b' ');
                }
            }
            let chunk = if round % 3 == 0 { 1 + rng.below(20) } else { usize::MAX };
            let opts = FrameOptions { batch_games: 1 + rng.below(4), ..FrameOptions::default() };
            let (k, p) = kept_games_read_as_pgn_reader_reads_them(&input, chunk, opts);
            (kept, parsed) = (kept + k, parsed + p);
        }
        assert!(kept > 15_000 && parsed > 10_000, "{kept} games read from what was kept, {parsed} by the parser");
    }

    #[test]
    #[allow(clippy::print_stderr)] // the skip and the figures, for whoever runs the test
    fn corpus_games_read_from_what_the_framer_kept_as_pgn_reader_reads_them() {
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
        if !corpus.is_dir() {
            eprintln!("skipped: {} is absent", corpus.display());
            return;
        }
        let (mut kept, mut parsed) = (0, 0);
        for input in decoded_files(&corpus) {
            let (k, p) = kept_games_read_as_pgn_reader_reads_them(&input, usize::MAX, FrameOptions::default());
            (kept, parsed) = (kept + k, parsed + p);
        }
        assert!(kept > 200_000, "{kept} games read from what was kept, {parsed} by the parser");
        eprintln!("{kept} games read from what the framer kept, {parsed} by the parser");
    }
}
