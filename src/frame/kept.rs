//! What the framer keeps of each game as it reads it, for the checker to
//! read the game without pgn-reader: its long comments, its tags and its
//! move tokens, as pgn-reader would read them (the tests here hold them to
//! it); and, for a command that writes comments and NAGs again, where they
//! are.

use std::ops::Range;

use super::locate;

/// A move token as the framer read it: a token pgn-reader reads as a move
/// or tries to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveAt {
    /// Byte offset in its game.
    pub offset: u32,
    /// Length in bytes (at most `u16::MAX`: no move is that long).
    pub len: u16,
    /// Inside a variation.
    pub variation: bool,
}

/// A tag as pgn-reader reads it, as byte offsets in its game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagAt {
    /// The name.
    pub name: Range<u32>,
    /// The value between its quotes, escapes kept.
    pub value: Range<u32>,
}

impl TagAt {
    /// The tag whose name and value are at `name` and `value` in a line
    /// that starts `at` bytes into its game (which [`OFFSET_LIMIT`] keeps
    /// within `u32`).
    #[inline]
    pub(super) fn on_line(at: usize, name: Range<usize>, value: Range<usize>) -> TagAt {
        let span = |r: Range<usize>| (at + r.start) as u32..(at + r.end) as u32;
        TagAt { name: span(name), value: span(value) }
    }
}

/// Where a comment, a NAG or a `(` of a game's movetext starts, as the
/// token walk ([`locate::scan`]) finds it: what a game's notes are made
/// of, kept for a command that writes them again
/// ([`super::FrameOptions::keep_notes`]), so that their tape is made
/// without a walk over the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoteAt {
    /// Byte offset in its game of the `{`, `;`, `$` of a NAG (0 to 255: the
    /// walk's other `$` tokens are nobody's note), first `!` or `?` of a
    /// run of them, or `(`.
    pub offset: u32,
    /// Length in bytes of a `{...}` comment with its braces and of a `$`
    /// token; 0 for the others, whose end is found again where it is read
    /// (the line's end, the run's end).
    pub len: u32,
}

/// What the framer keeps of each game as it reads it, so that no later
/// pass reads the game again: its long comments (for the parser to be
/// spared them), its tags and its moves (for the checker to read without
/// the parser), and where its notes are (for the writers of notes).
#[derive(Debug, Default)]
pub(super) struct Kept {
    /// Offset of the `{` in its game, and length with both braces, of each
    /// comment of [`locate::ELIDED_COMMENT`] bytes or more.
    pub(super) comments: Vec<(usize, usize)>,
    pub(super) tags: Vec<TagAt>,
    pub(super) moves: Vec<MoveAt>,
    pub(super) notes: Vec<NoteAt>,
}

/// Where a game's entries start (or end) in the lists of a [`Kept`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct KeptAt {
    pub(super) comments: u32,
    pub(super) tags: u32,
    pub(super) moves: u32,
    pub(super) notes: u32,
}

impl KeptAt {
    /// Where this entry is once the lists lose those before `from` (handed
    /// out with a batch).
    pub(super) fn since(self, from: KeptAt) -> KeptAt {
        KeptAt {
            comments: self.comments - from.comments,
            tags: self.tags - from.tags,
            moves: self.moves - from.moves,
            notes: self.notes - from.notes,
        }
    }

    /// How long the list of notes may grow for the game whose entries
    /// start here.
    #[inline]
    pub(super) fn notes_cap(self) -> usize {
        self.notes as usize + MAX_KEPT_NOTES
    }

    /// How long the list of moves may grow for the game whose entries
    /// start here.
    #[inline]
    pub(super) fn moves_cap(self) -> usize {
        self.moves as usize + MAX_KEPT_MOVES
    }

    /// How long the list of tags may grow for the game whose entries start
    /// here.
    #[inline]
    pub(super) fn tags_cap(self) -> usize {
        self.tags as usize + MAX_KEPT_TAGS
    }
}

impl Kept {
    pub(super) fn at(&self) -> KeptAt {
        // Lists hold one batch and the game being read, which the caps keep
        // far below `u32::MAX` entries (a game's long comments take 66
        // bytes each, of at most 1 GiB): cast, not checked, as this is done
        // twice a game.
        let len = |n: usize| n as u32;
        KeptAt {
            comments: len(self.comments.len()),
            tags: len(self.tags.len()),
            moves: len(self.moves.len()),
            notes: len(self.notes.len()),
        }
    }

    /// Keeps the comment at `at` in its game, `len` bytes with its braces,
    /// if it is long enough to be worth cutting out before the parser.
    #[inline(always)]
    pub(super) fn comment(&mut self, at: usize, len: usize) {
        if len >= locate::ELIDED_COMMENT + 2 {
            self.comments.push((at, len));
        }
    }

    /// Keeps where a note starts (see [`NoteAt`]) while the list is under
    /// `cap` ([`KeptAt::notes_cap`] of its game, or 0 when notes are not
    /// kept).
    #[inline(always)]
    pub(super) fn note(&mut self, cap: usize, at: usize, len: usize) {
        if self.notes.len() < cap {
            // Within `u32`: games are cut below `OFFSET_LIMIT` when kept.
            self.notes.push(NoteAt { offset: at as u32, len: len as u32 });
        }
    }

    /// Drops what was kept from `at` on.
    pub(super) fn truncate(&mut self, at: KeptAt) {
        self.comments.truncate(at.comments as usize);
        self.tags.truncate(at.tags as usize);
        self.moves.truncate(at.moves as usize);
        self.notes.truncate(at.notes as usize);
    }

    /// Moves the entries before `at` into `into` (emptied first); those
    /// from `at` on move to the front.
    pub(super) fn hand_over(&mut self, at: KeptAt, into: &mut Kept) {
        // `into` takes the whole list, and what stays (the open game's
        // entries, most often a few) is copied back: the batch's entries
        // are not copied.
        fn split<T>(list: &mut Vec<T>, at: u32, into: &mut Vec<T>) {
            std::mem::swap(list, into);
            list.clear();
            list.extend(into.drain(at as usize..));
        }
        split(&mut self.comments, at.comments, &mut into.comments);
        split(&mut self.tags, at.tags, &mut into.tags);
        split(&mut self.moves, at.moves, &mut into.moves);
        split(&mut self.notes, at.notes, &mut into.notes);
    }
}

/// Moves a game keeps in its list at most: past them, the game is read by
/// the parser ([`super::FrameFlags::UNKEPT`]), so that a game of millions
/// of moves costs no list of them.
pub(crate) const MAX_KEPT_MOVES: usize = 1 << 16;

/// Tags a game keeps in its list at most, as [`MAX_KEPT_MOVES`].
pub(super) const MAX_KEPT_TAGS: usize = 1 << 12;

/// Notes a game keeps in its list at most, as [`MAX_KEPT_MOVES`]: past
/// them, its notes are found by a walk over it
/// ([`super::FrameFlags::NOTES_KEPT`] is not set).
pub(super) const MAX_KEPT_NOTES: usize = 1 << 16;

/// Games are cut below this size when anything is kept at `u32` offsets in
/// them (a game grows past the cap by at most a window of input).
pub(super) const OFFSET_LIMIT: usize = u32::MAX as usize / 2;

#[cfg(test)]
mod tests {
    use std::ops::ControlFlow;

    use pgn_reader::{Nag, Outcome, RawTag, Reader, SanPlus, Skip, Visitor};

    use super::{MAX_KEPT_MOVES, MAX_KEPT_TAGS};
    use crate::{
        frame::{
            Batch, FrameFlags, FrameOptions, Framer, RawGame, lexer, locate,
            tests::{Chunked, each_fixture_game, fixtures},
        },
        notation::strip_move_number,
        test_rng::{PIECES, Rng},
    };

    #[test]
    fn games_past_the_kept_lists_caps_are_left_to_the_parser() {
        let many_moves = format!("1. {}*\n", "Nf3 Nf6 Ng1 Ng8 ".repeat(MAX_KEPT_MOVES / 4 + 1));
        let many_tags: String = (0..=MAX_KEPT_TAGS).map(|i| format!("[T{i} \"v\"]\n")).collect();
        let input = format!("{many_moves}\n[Event \"short\"]\n1. e4 *\n\n{many_tags}\n1. d4 *\n");
        let mut framer = Framer::new(input.as_bytes());
        let mut batch = Batch::default();
        let mut seen = Vec::new();
        while framer.next_batch(&mut batch).unwrap_or(false) {
            seen.extend(batch.games().map(|g| (g.frame.flags.kept(), g.tags.len(), g.moves.len().min(2))));
        }
        assert_eq!(seen, [(false, 0, 2), (true, 1, 1), (false, MAX_KEPT_TAGS, 1)]);
    }

    /// Where the framer kept the notes of every game it kept whole, as the
    /// token walk finds them (a comment's `{` or `;`, a NAG's first byte,
    /// a `(`), at any read size; and none kept when not asked for.
    #[test]
    fn the_framer_keeps_where_notes_are_as_the_token_walk_finds_them() {
        let mut rng = Rng(0x3c6e_f372_fe94_f82b);
        let mut inputs = fixtures();
        let notes: &[&[u8]] = &[b"{c}", b";c\n", b"$1", b"!?", b"!", b"(", b")", b"{\n}", b"\n%{\n", b"\xe9"];
        for _ in 0..5000 {
            let mut input = Vec::new();
            for _ in 0..rng.below(120) {
                let piece =
                    if rng.below(3) == 0 { notes[rng.below(notes.len())] } else { PIECES[rng.below(PIECES.len())] };
                input.extend_from_slice(piece);
                if rng.below(3) == 0 {
                    input.push(b' ');
                }
            }
            inputs.push(input);
        }
        let (mut games, mut noted) = (0, 0);
        for input in &inputs {
            for chunk in [1, 7, 100, usize::MAX] {
                for keep_notes in [true, false] {
                    let opts = FrameOptions { keep_notes, ..FrameOptions::default() };
                    let mut framer = Framer::with_options(Chunked { bytes: input, chunk }, opts);
                    let mut batch = Batch::default();
                    while framer.next_batch(&mut batch).unwrap_or(false) {
                        for game in batch.games() {
                            let flags = game.frame.flags;
                            assert_eq!(flags.contains(FrameFlags::NOTES_KEPT), keep_notes);
                            if !keep_notes {
                                assert!(game.annotations.is_empty());
                                continue;
                            }
                            if !flags.kept() {
                                continue;
                            }
                            let mut want = Vec::new();
                            locate::scan(game.bytes, |event| match event {
                                locate::Event::Comment { offset, .. } => want.push(offset - 1),
                                // A `$` token that is no NAG is not one of its notes.
                                locate::Event::Nag { offset, len }
                                    if game.bytes[offset] == b'$'
                                        && lexer::nag_number(&game.bytes[offset..offset + len]).is_none() => {}
                                locate::Event::Nag { offset, .. } | locate::Event::Open(offset) => want.push(offset),
                                _ => {}
                            });
                            let got: Vec<usize> = game.annotations.iter().map(|note| note.offset as usize).collect();
                            assert_eq!(got, want, "chunk {chunk}: {:?} in {input:?}", game.bytes);
                            games += 1;
                            noted += usize::from(!got.is_empty());
                        }
                    }
                }
            }
        }
        assert!(games > 10_000 && noted > 5000, "{games} games kept whole, {noted} with notes");
    }

    /// The framer's counts and long comments of every game it counted, as
    /// the token walk finds them, at any read size: the framer's one walk
    /// stands for the walk it replaced.
    #[test]
    fn the_framer_counts_tokens_and_finds_long_comments_as_the_token_walk_does() {
        let mut rng = Rng(0x0e1f_2a3b_4c5d_6e7f);
        let mut inputs = fixtures();
        for _ in 0..5000 {
            let mut input = Vec::new();
            for _ in 0..rng.below(120) {
                input.extend_from_slice(PIECES[rng.below(PIECES.len())]);
                if rng.below(3) == 0 {
                    input.push(b' ');
                }
            }
            inputs.push(input);
        }
        let (mut counted, mut long) = (0, 0);
        let (mut want, mut got) = (Vec::new(), Vec::new());
        for input in &inputs {
            for chunk in [1, 7, 100, usize::MAX] {
                let mut framer = Framer::new(Chunked { bytes: input, chunk });
                let mut batch = Batch::default();
                while framer.next_batch(&mut batch).unwrap_or(false) {
                    for game in batch.games() {
                        if !game.frame.flags.counted() {
                            continue;
                        }
                        counted += 1;
                        let movetext = game.frame.movetext as usize;
                        let counts = locate::count_eliding_comments(game.bytes, movetext, &mut want);
                        assert_eq!(game.frame.counts, counts, "chunk {chunk}: {:?} in {input:?}", game.bytes);
                        locate::elide(game.bytes, game.long_comments, &mut got);
                        assert_eq!(got, want, "chunk {chunk}: {:?} in {input:?}", game.bytes);
                        long += usize::from(!got.is_empty());
                    }
                }
            }
        }
        assert!(counted > 10_000 && long > 1000, "{counted} games counted, {long} with long comments");
    }

    /// What pgn-reader reads of a game, comments left out.
    #[derive(Default)]
    struct Parsed(Vec<String>);

    impl Visitor for Parsed {
        type Tags = ();
        type Movetext = ();
        type Output = ();

        fn begin_tags(&mut self) -> ControlFlow<(), ()> {
            self.0.push("game".to_owned());
            ControlFlow::Continue(())
        }

        fn tag(&mut self, _: &mut (), name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
            self.0.push(format!("{name:?} {:?}", value.as_bytes()));
            ControlFlow::Continue(())
        }

        fn begin_movetext(&mut self, _: ()) -> ControlFlow<(), ()> {
            ControlFlow::Continue(())
        }

        fn san(&mut self, _: &mut (), san_plus: SanPlus) -> ControlFlow<()> {
            self.0.push(san_plus.to_string());
            ControlFlow::Continue(())
        }

        fn nag(&mut self, _: &mut (), nag: Nag) -> ControlFlow<()> {
            self.0.push(nag.to_string());
            ControlFlow::Continue(())
        }

        fn begin_variation(&mut self, _: &mut ()) -> ControlFlow<(), Skip> {
            self.0.push("(".to_owned());
            ControlFlow::Continue(Skip(false))
        }

        fn end_variation(&mut self, _: &mut ()) -> ControlFlow<()> {
            self.0.push(")".to_owned());
            ControlFlow::Continue(())
        }

        fn outcome(&mut self, _: &mut (), outcome: Outcome) -> ControlFlow<()> {
            self.0.push(format!("{outcome:?}"));
            ControlFlow::Continue(())
        }

        fn end_game(&mut self, _: ()) {}
    }

    /// Reads every game pgn-reader finds in `bytes` into `visitor`; its
    /// error, if any, ends the reading.
    fn read_all<V: Visitor<Output = ()>>(bytes: &[u8], visitor: &mut V) -> Option<std::io::Error> {
        let mut reader = Reader::new(bytes);
        loop {
            match reader.read_game(visitor) {
                Ok(Some(())) => {}
                Ok(None) => return None,
                Err(err) => return Some(err),
            }
        }
    }

    fn parsed(bytes: &[u8]) -> Vec<String> {
        let mut parsed = Parsed::default();
        if let Some(err) = read_all(bytes, &mut parsed) {
            parsed.0.push(format!("error: {err}"));
        }
        parsed.0
    }

    #[test]
    fn without_its_long_comments_a_game_counts_and_parses_the_same() {
        let mut elided = Vec::new();
        let mut cut = 0;
        each_fixture_game(|input, game| {
            // Each fixture as it is, and with every comment made long enough
            // to be cut out (a `{` in a tag or a `;` comment gets the text
            // too, which changes nothing there).
            let long = game.bytes.iter().fold(Vec::new(), |mut out, &b| {
                out.push(b);
                if b == b'{' {
                    out.extend_from_slice(&[b'~'; 70]);
                }
                out
            });
            let movetext = game.frame.movetext as usize;
            let long_movetext = movetext + 70 * game.bytes[..movetext].iter().filter(|&&b| b == b'{').count();
            for (bytes, movetext) in [(game.bytes, movetext), (&long[..], long_movetext)] {
                let counts = locate::count_eliding_comments(bytes, movetext, &mut elided);
                assert_eq!(counts, locate::count_from(bytes, movetext), "{bytes:?} in {input:?}");
                if elided.is_empty() {
                    continue;
                }
                cut += 1;
                assert!(elided.len() < bytes.len(), "{elided:?}");
                assert_eq!(parsed(&elided), parsed(bytes), "{elided:?} from {bytes:?} in {input:?}");
            }
        });
        assert!(cut >= 10, "only {cut} games had a comment cut out");
    }

    /// What pgn-reader hands a visitor of one framed game (which it may read
    /// as several, at blank lines): the tags as written, the moves with
    /// whether each is in a variation, the outcome of the main line.
    #[derive(Debug, Default, PartialEq, Eq)]
    struct Contract {
        tags: Vec<(Vec<u8>, Vec<u8>)>,
        moves: Vec<(SanPlus, bool)>,
        outcome: Option<Outcome>,
        depth: u32,
    }

    impl Visitor for Contract {
        type Tags = ();
        type Movetext = ();
        type Output = ();

        fn begin_tags(&mut self) -> ControlFlow<(), ()> {
            ControlFlow::Continue(())
        }

        fn tag(&mut self, _: &mut (), name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
            self.tags.push((name.to_vec(), value.as_bytes().to_vec()));
            ControlFlow::Continue(())
        }

        fn begin_movetext(&mut self, _: ()) -> ControlFlow<(), ()> {
            ControlFlow::Continue(())
        }

        fn san(&mut self, _: &mut (), san_plus: SanPlus) -> ControlFlow<()> {
            self.moves.push((san_plus, self.depth > 0));
            ControlFlow::Continue(())
        }

        fn begin_variation(&mut self, _: &mut ()) -> ControlFlow<(), Skip> {
            self.depth += 1;
            ControlFlow::Continue(Skip(false))
        }

        fn end_variation(&mut self, _: &mut ()) -> ControlFlow<()> {
            self.depth = self.depth.saturating_sub(1);
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

    /// A kept move token read the way pgn-reader reads a whole token: SAN
    /// after a glued move number, or castling with zeros; `None` for a
    /// token pgn-reader may read only part of (the checker leaves such a
    /// game to pgn-reader).
    fn whole_move(token: &[u8]) -> Option<SanPlus> {
        let san = strip_move_number(token);
        if san.starts_with(b"0-0") {
            let letters: Vec<u8> = san.iter().map(|&b| if b == b'0' { b'O' } else { b }).collect();
            return SanPlus::from_ascii(&letters).ok();
        }
        SanPlus::from_ascii(san).ok()
    }

    /// Holds the framer's tags, moves and outcome of every kept game of
    /// `input` whose move tokens each read whole to what pgn-reader reads
    /// there; returns how many games were compared, and how many were not
    /// kept or held a token that does not read whole.
    fn kept_as_pgn_reader_reads(input: &[u8], chunk: usize) -> (usize, usize) {
        let (mut compared, mut unread) = (0, 0);
        let mut framer = Framer::new(Chunked { bytes: input, chunk });
        let mut batch = Batch::default();
        while framer.next_batch(&mut batch).unwrap_or(false) {
            for game in batch.games() {
                if !game.frame.flags.kept() {
                    unread += 1;
                    continue;
                }
                let mut got = kept(game);
                if got.moves.len() < game.moves.len() {
                    // A token pgn-reader may read in part, or as something
                    // else (`21/2-1/2`, a byte order mark before a tag):
                    // the checker leaves the game to pgn-reader.
                    unread += 1;
                    continue;
                }
                let mut want = Contract::default();
                // What the checker hands pgn-reader: the tag section
                // mended, its values then read alike once unescaped.
                let mended = game.frame.flags.contains(FrameFlags::TAGS_MENDED);
                let mut bytes = Vec::new();
                let movetext = (game.frame.movetext as usize).min(game.bytes.len());
                crate::frame::lexer::mend_tags(&game.bytes[..movetext], &mut bytes);
                bytes.extend_from_slice(&game.bytes[movetext..]);
                let error = read_all(&bytes, &mut want);
                if mended {
                    for tag in got.tags.iter_mut().chain(want.tags.iter_mut()) {
                        tag.1 = RawTag(&tag.1).decode().into_owned();
                    }
                }
                let shown = String::from_utf8_lossy(game.bytes);
                assert!(error.is_none(), "pgn-reader fails on a kept game: {error:?}\n{shown}");
                got.depth = want.depth;
                assert_eq!(got, want, "{shown}");
                compared += 1;
            }
        }
        (compared, unread)
    }

    /// What the framer kept of `game`, read as [`Contract`] (the moves up
    /// to the first that does not read whole).
    fn kept(game: RawGame<'_>) -> Contract {
        let span = |r: &std::ops::Range<u32>| game.bytes[r.start as usize..r.end as usize].to_vec();
        let tags = game.tags.iter().map(|tag| (span(&tag.name), span(&tag.value))).collect();
        let moves = game
            .moves
            .iter()
            .map_while(|m| {
                let token = &game.bytes[m.offset as usize..m.offset as usize + usize::from(m.len)];
                whole_move(token).map(|san| (san, m.variation))
            })
            .collect();
        Contract { tags, moves, outcome: game.frame.outcome, depth: 0 }
    }

    #[test]
    fn the_kept_tags_moves_and_outcome_are_what_pgn_reader_reads() {
        let (mut compared, mut unread) = (0, 0);
        for input in fixtures() {
            for chunk in [usize::MAX, 7] {
                let (c, u) = kept_as_pgn_reader_reads(&input, chunk);
                (compared, unread) = (compared + c, unread + u);
            }
        }
        let mut rng = Rng(0x6a09_e667_f3bc_c908);
        for round in 0..10_000 {
            let mut input = Vec::new();
            // Short games hold no junk token more often.
            for _ in 0..rng.below(if round % 2 == 0 { 60 } else { 12 }) {
                input.extend_from_slice(PIECES[rng.below(PIECES.len())]);
                if rng.below(2) == 0 {
                    input.push(b' ');
                }
            }
            let chunk = if round % 3 == 0 { 1 + rng.below(20) } else { usize::MAX };
            let (c, u) = kept_as_pgn_reader_reads(&input, chunk);
            (compared, unread) = (compared + c, unread + u);
        }
        assert!(compared > 2000 && unread > 5000, "{compared} kept games compared, {unread} left to the parser");
    }
}
