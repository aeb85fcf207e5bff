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
//! that the checker reads most games without the parser; and, for a
//! command that writes comments and NAGs again, where they are
//! ([`RawGame::annotations`]), so that their tape is made without a walk.
//!
//! Memory is bounded: the framer keeps one batch of games plus the game it
//! is reading, and a game larger than the cap is cut and flagged.
//!
//! Its rooms: `grammar` (the state machine of what makes a game, over the
//! bytes it is given, with `tags` and `movetext` under it), `window` (the
//! bytes read and not yet handed out), `kept` (what a game keeps for the
//! checker), `batch` (what is handed out, and the stray-text notes); the
//! [`Framer`] here reads into the window, runs the grammar over it and
//! hands batches out when its caller's [`HandOut`] policy says.

mod batch;
mod grammar;
mod kept;
pub(crate) mod lexer;
pub mod locate;
pub mod shard;
mod window;

#[cfg(test)]
pub(crate) use self::kept::MAX_KEPT_MOVES;
pub use self::{
    batch::{Batch, Frame, FrameFlags, RawGame, StrayText, Strays},
    kept::{MoveAt, NoteAt, TagAt},
};

use std::{
    io::{self, Read},
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
};

use self::{
    batch::Framed,
    grammar::{Grammar, Step},
    window::{CHUNK, Window},
};

/// Limits of the framer.
#[derive(Debug, Clone, Copy)]
pub struct FrameOptions {
    /// A game larger than this is cut and flagged [`FrameFlags::TOO_LARGE`].
    pub max_game_bytes: usize,
    /// A batch is full once its games hold this many bytes.
    pub batch_bytes: usize,
    /// ... or this many games.
    pub batch_games: usize,
    /// When a batch, full or not, goes out.
    pub hand_out: HandOut,
    /// Keep where each game's comments, NAGs and `(` are
    /// ([`RawGame::annotations`]), for a command that writes them again:
    /// their tape is then made without a walk over the game. Off, the
    /// framer pays nothing for them.
    pub keep_notes: bool,
}

impl Default for FrameOptions {
    fn default() -> Self {
        FrameOptions {
            max_game_bytes: 32 << 20,
            batch_bytes: 64 << 10,
            batch_games: 1024,
            hand_out: HandOut::default(),
            keep_notes: false,
        }
    }
}

/// When the framer hands a batch out: the caller's policy (the pipeline
/// sets it for its threads). A batch goes out at the next game that has
/// begun with tags, so that text after its last game, which may still
/// prove stray, is noted on that game; these say how full it is by then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandOut {
    /// While another worker waits for the framer ([`Framer::share`]), a
    /// batch goes out once its games hold `batch_bytes / early_share`
    /// bytes, for the framing worker to give to the waiting one and frame
    /// on. 8 (8 KiB batches): handed out at a quarter, a batch kept the
    /// waiting worker idle for 30 to 40 µs a time at -j2, and at a
    /// sixteenth `convert --to uci -j2` was 3% slower.
    pub early_share: usize,
    /// A full batch waits for the window to be read to its end, up to this
    /// many times full (or until a worker waits), so that what the next
    /// window keeps of this one, which is copied, is the open game alone,
    /// not the bytes read ahead. 2: `validate -j1` ran 0.7% fewer
    /// instructions on sample10, and 6% fewer on the first 10 MB of the
    /// real games mix, than with no wait.
    pub window_read_within: usize,
    /// Tag-less games, which show no tags to wait for, fill a batch up to
    /// this many times full; then it goes out keeping its last game back,
    /// for what may still follow it to be noted on it. 4: the batch's
    /// memory stays bounded at a few times its size.
    pub overfull: usize,
}

impl Default for HandOut {
    fn default() -> Self {
        HandOut { early_share: 8, window_read_within: 2, overfull: 4 }
    }
}

/// Cuts a stream into [`Batch`]es of games.
#[derive(Debug)]
pub struct Framer<R> {
    reader: R,
    opts: FrameOptions,
    /// The bytes read and not yet handed out.
    window: Window,
    /// Where the framing stands in the window.
    grammar: Grammar,
    /// The games framed since the last batch went out.
    framed: Framed,
    /// The batch going out keeps its last game back: stray text or a
    /// comment after it, still to come, is noted on it.
    hold_last: bool,
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
            window: Window::default(),
            grammar: Grammar::new(opts.max_game_bytes, opts.keep_notes),
            framed: Framed::default(),
            hold_last: false,
            waiting: None,
        }
    }

    /// Shares the framer between workers that each frame their own batch
    /// in turn, `waiting` counting those waiting for it: while any wait, a
    /// batch goes out early ([`HandOut::early_share`]), at the next game
    /// that has begun with tags, for the framing worker to give to a
    /// waiting one.
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
            if self.window.eof {
                self.finish_input();
                break;
            }
            self.fill();
        }
        if self.framed.frames.is_empty() {
            if let Some(err) = self.window.error.take() {
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
        let open = self.grammar.open_game();
        let mut keep = match open {
            Some((start, _)) => start.min(self.grammar.pos()),
            None => self.grammar.pos(),
        };
        if let Some(held) = &held {
            keep = keep.min(held.start);
        }
        // The smaller side is copied: the window from `keep` on into the
        // batch's buffer, which becomes the window, or (a batch handed out
        // early, before its window is read) the games into it, the window
        // staying as it is, its start dropped at the next `compact`.
        let games = match (&held, frames.first(), frames.last()) {
            (None, Some(first), Some(last)) if last.end - first.start < self.window.read_from(keep) => {
                first.start..last.end
            }
            _ => 0..0,
        };
        let shift = self.window.hand_out(keep, games.clone(), batch.recycled_buffer());
        if !games.is_empty() {
            self.framed.shift(games.start);
        }
        // What the held and the open game kept stays; the rest goes with
        // its games.
        let stays_from = match (&held, open) {
            (Some(held), _) => held.kept.start,
            (None, Some((_, kept_from))) => kept_from,
            (None, None) => self.framed.kept.at(),
        };
        self.framed.hand_over(batch, held, stays_from, shift);
        self.grammar.kept_since(stays_from);
        self.grammar.shift(shift);
    }

    /// Reads more input into the window, first dropping from it what no
    /// game and no scan needs any more. Out of line: once a window, and
    /// inlined it moved the scan's code.
    #[inline(never)]
    fn fill(&mut self) {
        let pos = self.grammar.pos();
        let mut keep = self.framed.frames.first().map_or(pos, |f| f.start.min(pos));
        if let Some((start, _)) = self.grammar.open_game() {
            keep = keep.min(start);
        }
        let moved = self.window.compact(keep);
        if moved > 0 {
            self.framed.shift(moved);
            self.grammar.shift(moved);
        }
        if self.window.fill(&mut self.reader, self.grammar.pos()) {
            self.grammar.starts_after_bom();
        }
    }

    /// Scans as far as the data allows; `true` when a batch is full.
    fn scan(&mut self) -> bool {
        let input = self.window.input();
        loop {
            if let Some(hold_last) = self.goes_out(self.grammar.pos() >= input.bytes.len()) {
                self.hold_last = hold_last;
                return true;
            }
            if self.grammar.pos() >= input.bytes.len() {
                return self.waiting_behind_skip();
            }
            match self.grammar.step(&input, &mut self.framed) {
                Step::Go => {}
                Step::NeedMore => return false,
                Step::Skipped => return self.waiting_behind_skip(),
            }
        }
    }

    /// Whether the batch being filled goes out now, by the
    /// [`HandOut`] policy, and if so whether it keeps its last game back;
    /// `window_read`: the window is read to its end.
    #[inline]
    fn goes_out(&self, window_read: bool) -> Option<bool> {
        let (framed, opts) = (&self.framed, &self.opts);
        let over =
            |times: usize| framed.frames.len() >= times * opts.batch_games || framed.bytes >= times * opts.batch_bytes;
        let early = || {
            !framed.frames.is_empty()
                && framed.bytes >= opts.batch_bytes / opts.hand_out.early_share.max(1)
                && self.others_wait()
        };
        if !over(1) && !early() {
            return None;
        }
        let window_read = window_read || over(opts.hand_out.window_read_within) || self.others_wait();
        if window_read && self.grammar.open_has_tags() {
            Some(false)
        } else if over(opts.hand_out.overfull) {
            Some(true)
        } else {
            None
        }
    }

    /// Whether games wait behind a long stretch that is skipped: they are
    /// handed out rather than keep it in memory.
    fn waiting_behind_skip(&self) -> bool {
        let needed = self.grammar.open_game().map_or(self.grammar.pos(), |(start, _)| start);
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
        self.grammar.finish(&self.window.input(), &mut self.framed);
        // Stray text no game came after, with no game before it in this
        // batch: an input of text that holds no game (or, after games
        // handed out before a long skip, ends in such text). Never dropped
        // silently: the input's error.
        if let Some(first) = self.framed.stray.kept.first() {
            let what = if self.grammar.found_a_game() { "ends in" } else { "holds no game: only" };
            let message = format!(
                "{what} text that is not PGN, from line {} column {}: `{}`",
                first.line,
                first.column,
                crate::text::decode(&first.text)
            );
            self.framed.stray = Strays::default();
            self.window.error.get_or_insert_with(|| io::Error::new(io::ErrorKind::InvalidData, message));
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::{io::Read, path::Path};

    use super::{Batch, FrameFlags, FrameOptions, Framer, HandOut};
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
        // Files joined by `cat`: tags glued to a result, byte order marks
        // inside a tag section; quotes not escaped in a value.
        "[Event \"a\"]\n\n1. e4 0-1[Event \"b\"]\n[Site \"x\"]\n\n1. d4 1/2-1/2[EventWithALongName \"c\"] *[Event \"d\"]\n\
         1. c4 1-0 {c} [Event \"e\"] 1-0 [%clk 1] *\n1. e4 (1. d4 0-1[Event \"f\"]) *\n",
        "[Event \"a\"]\n\u{feff}[Site \"b\"]\n\u{feff}\n\u{feff}1. d4 *\n[Event \"LA \"C\"\"]\n[White \"x\" \"y\" ]\n\
         [Black \"a\"b\"] \n[Site \"a\\\\\"b\\\"\"]\n\n1. e4 *\n",
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
    fn framing_at_any_read_size_finds_the_same_games() {
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

    /// Each game of `input` as the checker sees it, and how many batches
    /// there were, framed with `opts` by a framer that `waiting` workers
    /// wait for (`None`: not shared).
    fn framed_in_batches(
        input: &[u8],
        opts: FrameOptions,
        waiting: Option<usize>,
    ) -> (Vec<impl PartialEq + std::fmt::Debug + Clone>, usize) {
        use std::sync::{Arc, atomic::AtomicUsize};
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
    }

    /// A framer shared with a worker that waits for it hands its batches
    /// out early, and the games, what is noted on them and what they keep
    /// come out as they do unshared.
    #[test]
    fn a_framer_another_worker_waits_for_cuts_batches_early_and_finds_the_same_games() {
        let mut cut_early = 0;
        let mut inputs = fixtures();
        inputs.push("[Event \"x\"]\n\n1. e4 {a comment} e5 2. Nf3 *\n\n".repeat(2000).into_bytes());
        for input in inputs {
            for batch_bytes in [64, 1000, 64 << 10] {
                let opts = FrameOptions { batch_bytes, ..FrameOptions::default() };
                let (alone, batches) = framed_in_batches(&input, opts, None);
                assert_eq!(framed_in_batches(&input, opts, Some(0)), (alone.clone(), batches), "nobody waits");
                let (shared, shared_batches) = framed_in_batches(&input, opts, Some(1));
                assert_eq!(shared, alone, "batches of {batch_bytes} bytes: {input:?}");
                assert!(shared_batches >= batches);
                cut_early += usize::from(shared_batches > batches);
            }
        }
        assert!(cut_early >= 3, "batches were cut early {cut_early} times");
    }

    /// The caller's hand-out policy moves where batches end, never the
    /// games: an early share of 1 hands nothing out early, a larger one
    /// smaller batches to a waiting worker, and tag-less games overfill a
    /// batch as many times as the policy lets them.
    #[test]
    fn a_hand_out_policy_moves_where_batches_end_not_the_games() {
        let tagged = "[Event \"x\"]\n\n1. e4 {a comment} e5 2. Nf3 *\n\n".repeat(2000).into_bytes();
        let tagless = "1. e4 e5 *\n{c}\n".repeat(5000).into_bytes();
        for input in [tagged, tagless] {
            let batches = |hand_out: HandOut, waiting: Option<usize>| {
                let opts = FrameOptions { hand_out, ..FrameOptions::default() };
                let (games, batches) = framed_in_batches(&input, opts, waiting);
                assert_eq!(games, framed_in_batches(&input, FrameOptions::default(), None).0, "{hand_out:?}");
                batches
            };
            let policy = HandOut::default();
            let share = |early_share| HandOut { early_share, ..policy };
            assert_eq!(batches(share(1), Some(1)), batches(policy, None));
            let (eighth, sixty_fourth) = (batches(policy, Some(1)), batches(share(64), Some(1)));
            let tags = input.starts_with(b"[");
            assert!(!tags || (eighth > batches(policy, None) && sixty_fourth > eighth), "{eighth} {sixty_fourth}");
            let (within, overfull) = (HandOut { window_read_within: 1, ..policy }, HandOut { overfull: 2, ..policy });
            assert!(batches(within, None) >= batches(policy, None));
            assert!(tags || batches(overfull, None) > batches(policy, None));
        }
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
    fn a_tag_after_a_result_on_its_line_starts_the_next_game_with_its_tag_section() {
        let input = TRICKY[TRICKY.len() - 2].as_bytes();
        for chunk in [usize::MAX, 1, 5] {
            let seen = frames(input, chunk, FrameOptions::default());
            let games: Vec<(&str, bool)> = seen
                .iter()
                .map(|g| (std::str::from_utf8(&g.3).expect("ASCII"), g.4.contains(FrameFlags::GLUED)))
                .collect();
            assert_eq!(
                games,
                [
                    ("[Event \"a\"]\n\n1. e4 0-1", false),
                    ("[Event \"b\"]\n[Site \"x\"]\n\n1. d4 1/2-1/2", true),
                    ("[EventWithALongName \"c\"] *", true),
                    ("[Event \"d\"]\n1. c4 1-0 {c} ", true),
                    // `[%clk 1] *` after it is no tag, and stray text.
                    ("[Event \"e\"] 1-0 ", true),
                    // Inside a variation a result ends nothing.
                    ("1. e4 (1. d4 0-1[Event \"f\"]) *\n", false),
                ],
                "read {chunk} bytes at a time"
            );
        }
    }

    #[test]
    fn a_byte_order_mark_or_a_quote_not_escaped_in_a_tag_section_is_mended_for_the_parser_alone() {
        let seen = frames(TRICKY[TRICKY.len() - 1].as_bytes(), usize::MAX, FrameOptions::default());
        let flags: Vec<(FrameFlags, bool)> =
            seen.iter().map(|g| (g.4, g.4.contains(FrameFlags::TAGS_MENDED))).collect();
        assert_eq!(seen.len(), 2, "{flags:?}");
        for (flags, mended) in flags {
            assert!(mended && flags.kept(), "{flags:?}");
        }
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
        assert!(got[0].2.len() < 1000 + super::window::CHUNK, "cut after {} bytes", got[0].2.len());
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
                most = most.max(batch.capacity()).max(framer.window.capacity());
            }
            let what = String::from_utf8_lossy(open);
            assert!(most < 3 << 20, "{what:?}: a buffer of {most} bytes");
            assert!(games >= 2, "{what:?}: {games} games");
        }
    }
}
