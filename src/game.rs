//! A game in full, for writing it out again: every tag, the moves as
//! replayed, and the comments, NAGs and variations attached to them.
//!
//! Data only: [`GameReader::read`](crate::check::GameReader::read) checks a game
//! exactly as `validate` does, then fills a [`Game`] with what the checker
//! replayed. The main line's moves are the checker's own, so a converted game
//! never disagrees with its validation.

pub mod notes;

use std::{
    hash::{BuildHasher, Hash, RandomState},
    ops::Range,
};

use shakmaty::{Chess, Move};

pub use notes::{Comment, Item, Notes, play};

use crate::{
    frame::lexer::{Reading, Tag, read_tag},
    report::GameReport,
    text::text,
};

/// One game, checked, with everything needed to write it again.
#[derive(Debug, Clone)]
pub struct Game {
    /// The validation report (its diagnostics include problems found in
    /// variations when the notes were read).
    pub report: GameReport,
    /// Every tag, name and unescaped value, in input order (when the
    /// checker keeps them).
    pub tags: Tags,
    /// The position the moves start from; `None` when the game could not be
    /// replayed (a broken FEN tag, a variant other than chess or Chess960).
    pub start: Option<Chess>,
    /// The main line: moves up to the first that cannot be played.
    pub mainline: Line,
    /// For a game that cannot be replayed, its movetext as written (without
    /// its termination marker), so that it can be passed on unchanged.
    pub raw_movetext: Option<String>,
    /// Main-line moves that gave check, when counted
    /// ([`ReadOptions::count_checks`](crate::check::ReadOptions::count_checks));
    /// 0 for a game that could not be replayed.
    pub checks: Option<u32>,
    /// The game's result for export: the Result tag when it is one of the
    /// four results, else the movetext's marker, else `*`.
    pub result: &'static str,
}

/// Tags as bytes in one buffer: names and values back to back, and where
/// each ends (two allocations per game, not two per tag).
#[derive(Debug, Default)]
pub(crate) struct RawTags {
    pub(crate) bytes: Vec<u8>,
    /// End of each name and of its value in `bytes` (a game is under 4 GiB:
    /// `--max-game-size`), 8 bytes a tag.
    pub(crate) ends: Vec<(u32, u32)>,
}

impl RawTags {
    pub(crate) fn push(&mut self, name: &[u8], value: &[u8]) {
        self.bytes.extend_from_slice(name);
        let name_end = offset(self.bytes.len());
        self.bytes.extend_from_slice(value);
        self.ends.push((name_end, offset(self.bytes.len())));
    }

    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }
}

/// A game's tags, names and unescaped values, in input order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tags {
    text: String,
    /// Where each name and each value ends in `text`.
    ends: Vec<(u32, u32)>,
}

/// An offset in a game's tags, which are under 4 GiB as the game is (even
/// decoded from Windows-1252, three bytes a byte at most: `--max-game-size`
/// is at most 1 GiB).
fn offset(at: usize) -> u32 {
    u32::try_from(at).expect("a game's tags are under 4 GiB")
}

impl Tags {
    /// Text from the checker's bytes: UTF-8 when the game is, else
    /// Windows-1252.
    /// Copies, so that the checker keeps its buffers for the next game,
    /// but for a game of thousands of tags, whose buffers are taken: a
    /// hostile game of a million tags is not held twice.
    pub(crate) fn decode(raw: &mut RawTags, utf8: bool) -> Tags {
        Tags::decode_into(raw, utf8, Tags::default())
    }

    /// Whether these tags' buffers are small enough to keep for the next
    /// game's ([`Tags::decode_into`]).
    pub(crate) fn recyclable(&self) -> bool {
        self.text.capacity() <= 1 << 16 && self.ends.capacity() <= 1 << 12
    }

    /// [`Tags::decode`] into the buffers of `tags`, a game's done with: a
    /// command that reads every game's tags then pays no allocation a game
    /// for them.
    pub(crate) fn decode_into(raw: &mut RawTags, utf8: bool, mut tags: Tags) -> Tags {
        tags.text.clear();
        tags.ends.clear();
        if raw.ends.is_empty() {
            // No tag kept (`dedup` keeps none): nothing to copy or check.
            return tags;
        }
        if utf8 {
            if raw.ends.len() > 1 << 12 {
                match String::from_utf8(std::mem::take(&mut raw.bytes)) {
                    Ok(text) => return Tags { text, ends: std::mem::take(&mut raw.ends) },
                    Err(err) => raw.bytes = err.into_bytes(),
                }
            } else if let Ok(text) = std::str::from_utf8(&raw.bytes) {
                tags.text.push_str(text);
                tags.ends.extend_from_slice(&raw.ends);
                return tags;
            }
        }
        let bytes = &raw.bytes;
        // Windows-1252 characters take two or three bytes in UTF-8: the ends
        // move.
        let mut start = 0;
        for &(name_end, value_end) in &raw.ends {
            let (name_end, value_end) = (name_end as usize, value_end as usize);
            tags.text.push_str(&text(&bytes[start..name_end], false));
            let name_end_text = offset(tags.text.len());
            tags.text.push_str(&text(&bytes[name_end..value_end], false));
            tags.ends.push((name_end_text, offset(tags.text.len())));
            start = value_end;
        }
        tags
    }

    /// Reads only the tag section of a framed game, without parsing or
    /// replaying its moves: for commands that select or sort games by their
    /// tags. Tags are read as pgn-reader reads them (so as `validate` and
    /// [`GameReader::read`](crate::check::GameReader::read) see them), and decoded as the checker decodes them:
    /// UTF-8 when the whole game is, else Windows-1252.
    pub fn scan(game: &[u8]) -> Tags {
        Tags::scan_only(game, &[])
    }

    /// As [`Tags::scan`], keeping only the tags named (all when `names` is
    /// empty): decoding and copying the others would be wasted.
    pub fn scan_only(game: &[u8], names: &[&str]) -> Tags {
        let utf8 = game.is_ascii() || std::str::from_utf8(game).is_ok();
        let mut raw = RawTags::default();
        each_tag(game, |_, tag| {
            // `[Name]` or `[Name` with no value: pgn-reader skips it.
            if let Some(value) = tag.value.clone() {
                let name = &game[tag.name.clone()];
                if names.is_empty() || names.iter().any(|n| n.as_bytes() == name) {
                    raw.push(name, &pgn_reader::RawTag(&game[value]).decode());
                }
            }
        });
        Tags::decode(&mut raw, utf8)
    }

    /// Every tag, name and value, in input order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.spans().map(|(name, value)| (&self.text[name], &self.text[value]))
    }

    /// Where each tag's name and value are in [`Tags::text`], in input
    /// order: for a writer that copies them with more of the text.
    pub(crate) fn spans(&self) -> impl Iterator<Item = (Range<usize>, Range<usize>)> {
        let mut start = 0;
        self.ends.iter().map(move |&(name_end, value_end)| {
            let (name_end, value_end) = (name_end as usize, value_end as usize);
            let spans = (start..name_end, name_end..value_end);
            start = value_end;
            spans
        })
    }

    /// The name and value of the `i`-th tag.
    pub(crate) fn nth(&self, i: usize) -> (&str, &str) {
        let start = i.checked_sub(1).map_or(0, |before| self.ends[before].1 as usize);
        let (name_end, value_end) = (self.ends[i].0 as usize, self.ends[i].1 as usize);
        (&self.text[start..name_end], &self.text[name_end..value_end])
    }

    /// The name of the `i`-th tag as bytes (ordered as the string is):
    /// what sorting tags by name compares, without the checks of slicing a
    /// string.
    pub(crate) fn name_bytes(&self, i: usize) -> &[u8] {
        let start = i.checked_sub(1).map_or(0, |before| self.ends[before].1 as usize);
        &self.text.as_bytes()[start..self.ends[i].0 as usize]
    }

    /// The value of the last tag called `name`: of a tag given twice, the
    /// last value counts, for every reader (the checker reads the tags in
    /// order, each overriding the one before, as pgn-extract and
    /// python-chess do).
    pub fn get(&self, name: &str) -> Option<&str> {
        (0..self.len()).rev().map(|i| self.nth(i)).find(|&(n, _)| n == name).map(|(_, v)| v)
    }

    /// Gives every tag called `name` the value `value` (in its place), or
    /// adds the tag at the end when the game has none.
    pub fn set(&mut self, name: &str, value: &str) {
        let mut set = Tags::default();
        let mut found = false;
        for (n, v) in self.iter() {
            found |= n == name;
            set.push(n, if n == name { value } else { v });
        }
        if !found {
            set.push(name, value);
        }
        *self = set;
    }

    pub(crate) fn push(&mut self, name: &str, value: &str) {
        self.text.push_str(name);
        let name_end = offset(self.text.len());
        self.text.push_str(value);
        self.ends.push((name_end, offset(self.text.len())));
    }

    /// Bytes the tags take written as tag lines (`[Name "value"]` and a
    /// line break: 6 bytes each besides the name and value, escapes
    /// aside), for a writer to tell a game too large to hold.
    pub fn lines_len(&self) -> usize {
        self.text.len().saturating_add(self.ends.len().saturating_mul(6))
    }

    /// Every name and value, one after another: for a writer to test them
    /// all at once (for a character to escape, say).
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// How many tags there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

/// Each tag of a game's tag section, with the offset of its `[`, read as
/// pgn-reader reads it (so as `validate` sees it), but a value with quotes
/// not escaped, read as every reader of pgnkit reads it
/// ([`crate::frame::lexer::Tag::loose`]).
pub(crate) fn each_tag(game: &[u8], mut on_tag: impl FnMut(usize, &Tag)) {
    let mut at = skip_space(game, 0, true);
    while game.get(at) == Some(&b'[') {
        let tag = read_tag(game, at, Reading::PgnReader);
        on_tag(at, &tag);
        // Unlike a strict tag line, a section's tags may be spread over
        // lines, with `%` escape lines between them: a `%` opens one only
        // where the tag ended with its line.
        at = skip_space(game, tag.end, game[tag.end - 1] == b'\n');
    }
}

/// Each of `names` that one after it repeats, with the last of that name,
/// as indices in order: of a tag given twice, the last counts. Sorted
/// hashes of the names, not a map of them: a hostile game can hold a
/// million tags, and a map of them took five times their size.
pub(crate) fn earlier_of_a_name<T: Hash + Eq>(names: &[T]) -> Vec<(usize, usize)> {
    let hasher = RandomState::new();
    let mut by_name: Vec<(u64, usize)> = Vec::with_capacity(names.len());
    by_name.extend(names.iter().enumerate().map(|(i, name)| (hasher.hash_one(name), i)));
    by_name.sort_unstable();
    let mut earlier = Vec::new();
    for run in by_name.chunk_by(|a, b| a.0 == b.0) {
        // Names of one hash, each with its last: almost always one.
        let mut lasts: Vec<usize> = Vec::new();
        for &(_, i) in run.iter().rev() {
            match lasts.iter().find(|&&last| names[last] == names[i]) {
                Some(&last) => earlier.push((i, last)),
                None => lasts.push(i),
            }
        }
    }
    earlier.sort_unstable();
    earlier
}

/// Skips blanks, and `%` escape lines at the start of a line, from `at`.
fn skip_space(bytes: &[u8], mut at: usize, mut line_start: bool) -> usize {
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b' ' | b'\t' | b'\r' => at += 1,
            b'\n' => {
                line_start = true;
                at += 1;
            }
            b'%' if line_start => at = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |n| at + n),
            // A byte-order mark before the first tag.
            0xEF if bytes[at..].starts_with(b"\xEF\xBB\xBF") => at += 3,
            _ => break,
        }
    }
    at
}

/// The main line with its annotations.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Line {
    /// The moves that could be played, in order: a plain array of 5-byte
    /// moves, cheap to build and drop and small for a game of millions of
    /// moves.
    pub nodes: Vec<Node>,
    /// Why the line stops early: the rest of it as written could not be
    /// played (any error that stopped the replay).
    pub stopped: Option<String>,
    /// Comments, NAGs and variations, when they are read.
    pub notes: Notes,
    /// The SAN of each of `nodes`, check marks included, as the checker
    /// worked it out when asked to
    /// ([`ReadOptions::san`](crate::check::ReadOptions::san)); empty
    /// otherwise (and for a game of more moves than it keeps them for).
    pub san: Vec<crate::notation::SanText>,
}

/// One move of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    /// The move; `None` is a null move (`--`).
    pub step: Option<Move>,
}

impl Node {
    pub(crate) fn new(step: Option<Move>) -> Node {
        Node { step }
    }
}

/// A comment's text with its white space (line breaks included) collapsed
/// to single spaces and trimmed, as export formats rewrap it.
pub fn normalize_comment(comment: &str) -> String {
    let mut out = String::with_capacity(comment.len());
    for word in comment.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use shakmaty::Chess;

    use super::{Game, Item, RawTags, Tags, normalize_comment};
    use crate::{
        check::{GameReader, KeptTags, ReadOptions},
        frame::{Batch, Framer, lexer::tests::tag_soup},
        test_rng::Rng,
    };

    fn read(pgn: &str) -> Game {
        let mut framer = Framer::new(pgn.as_bytes());
        let mut batch = Batch::default();
        assert!(framer.next_batch(&mut batch).unwrap());
        let mut checker = GameReader::new(ReadOptions { tags: KeptTags::All, ..ReadOptions::default() });
        checker.read(&Arc::from("t.pgn"), batch.games().next().unwrap(), true)
    }

    /// Every game of `pgn`, its tags scanned and as the checker reads them.
    fn scanned_and_checked(pgn: &[u8]) -> Vec<(Tags, Tags)> {
        let mut framer = Framer::new(pgn);
        let mut batch = Batch::default();
        let mut checker = GameReader::new(ReadOptions { tags: KeptTags::All, ..ReadOptions::default() });
        let mut out = Vec::new();
        // A fixture with no game in it ends in an error.
        while framer.next_batch(&mut batch).unwrap_or(false) {
            for game in batch.games() {
                out.push((Tags::scan(game.bytes), checker.read(&Arc::from("t.pgn"), game, false).tags));
            }
        }
        out
    }

    #[test]
    fn scanned_tags_equal_the_checkers_on_every_fixture() {
        let mut games = 0;
        for dir in ["testdata/valid", "testdata/invalid", "testdata/convert", "testdata/stats"] {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_none_or(|e| e != "pgn") {
                    continue;
                }
                for (scanned, checked) in scanned_and_checked(&std::fs::read(&path).unwrap()) {
                    assert_eq!(scanned, checked, "{}", path.display());
                    games += 1;
                }
            }
        }
        assert!(games > 50, "only {games} games read");
    }

    #[test]
    fn scanned_tags_unescape_and_keep_odd_layouts_as_the_parser_does() {
        let pgn = "\u{feff}% escape line\n[Event \"a \\\"quoted\\\" \\\\ b\"]  [Site \"s\"]\n[Bare]\n[Name  \"two spaces\"]\n\
                   [Open \"never closed\n[Round \"1\"]\n\n1. e4 *\n";
        let games = scanned_and_checked(pgn.as_bytes());
        assert_eq!(games.len(), 1);
        let (scanned, checked) = &games[0];
        assert_eq!(scanned, checked);
        assert_eq!(scanned.get("Event"), Some("a \"quoted\" \\ b"));
        assert_eq!(scanned.get("Site"), Some("s"));
    }

    #[test]
    fn scanned_tags_of_a_latin1_game_are_decoded() {
        let games = scanned_and_checked(b"[White \"Ren\xe9\"]\n\n1. e4 *\n");
        assert_eq!(games[0].0.get("White"), Some("Ren\u{e9}"));
        assert_eq!(games[0].0, games[0].1);
    }

    /// `Tags::scan_only` before the tag tokenizer, frozen as the oracle of
    /// the one built on it.
    mod old {
        use super::{RawTags, Tags};

        pub(super) fn scan_only(game: &[u8], names: &[&str]) -> Tags {
            let utf8 = game.is_ascii() || std::str::from_utf8(game).is_ok();
            let mut raw = RawTags::default();
            let mut at = skip_space(game, 0, true);
            while game.get(at) == Some(&b'[') {
                at += 1;
                let rest = &game[at..];
                let quote = match memchr::memchr3(b'"', b'\n', b']', rest) {
                    Some(quote) if rest[quote] == b'"' => quote,
                    Some(end) => {
                        at = skip_ket(game, at + end + 1);
                        continue;
                    }
                    None => break,
                };
                let name_end = if quote > 0 && rest[quote - 1] == b' ' { quote - 1 } else { quote };
                let value = &rest[quote + 1..];
                let (mut end, mut consumed) = (0, value.len());
                while let Some(delta) = memchr::memchr3(b'\\', b'"', b'\n', &value[end..]) {
                    end += delta;
                    match value[end] {
                        b'"' => {
                            consumed = end + 1;
                            break;
                        }
                        b'\n' => {
                            consumed = end;
                            break;
                        }
                        _ => end = (end + 2).min(value.len()),
                    }
                }
                let end = end.min(consumed);
                let name = &rest[..name_end];
                if names.is_empty() || names.iter().any(|n| n.as_bytes() == name) {
                    raw.push(name, &pgn_reader::RawTag(&value[..end]).decode());
                }
                at = skip_ket(game, at + quote + 1 + consumed);
            }
            Tags::decode(&mut raw, utf8)
        }

        fn skip_space(bytes: &[u8], mut at: usize, mut line_start: bool) -> usize {
            while let Some(&byte) = bytes.get(at) {
                match byte {
                    b' ' | b'\t' | b'\r' => at += 1,
                    b'\n' => {
                        line_start = true;
                        at += 1;
                    }
                    b'%' if line_start => at = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |n| at + n),
                    0xEF if bytes[at..].starts_with(b"\xEF\xBB\xBF") => at += 3,
                    _ => break,
                }
            }
            at
        }

        fn skip_ket(bytes: &[u8], mut at: usize) -> usize {
            while let Some(&byte) = bytes.get(at) {
                match byte {
                    b' ' | b'\t' | b'\r' => at += 1,
                    b']' => return skip_space(bytes, at + 1, false),
                    b'\n' => return skip_space(bytes, at + 1, true),
                    _ => {
                        let line_end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |n| at + n);
                        return skip_space(bytes, line_end, false);
                    }
                }
            }
            at
        }
    }

    #[test]
    fn tags_scan_as_before_the_tokenizer() {
        let mut rng = Rng(0x5ca9_7a95_0bad_f00d);
        let mut tags = 0;
        for _ in 0..100_000 {
            let game = tag_soup(&mut rng);
            let mut loose = false;
            super::each_tag(&game, |_, tag| loose |= tag.loose);
            if loose {
                // Read on to the last quote, which the old reading did not.
                continue;
            }
            let scanned = Tags::scan(&game);
            assert_eq!(scanned, old::scan_only(&game, &[]), "{:?}", String::from_utf8_lossy(&game));
            let names = ["White", "Na me", ""];
            assert_eq!(Tags::scan_only(&game, &names), old::scan_only(&game, &names));
            tags += scanned.len();
        }
        assert!(tags > 40_000, "only {tags} tags");
    }

    /// The notes of a game as words: `M` a main-line move, a variation's
    /// moves in UCI, `$n`, `{text}`, `(`...`)`, `stop`.
    fn sketch(game: &Game) -> String {
        let notes = &game.mainline.notes;
        let mut words = Vec::new();
        let mut ends = Vec::new();
        let mut at = 0;
        while at < notes.end() {
            while ends.last() == Some(&at) {
                ends.pop();
                words.push(")".to_owned());
            }
            let (item, next) = notes.item(at);
            words.push(match item {
                Item::Main => "M".to_owned(),
                Item::Move(step) => {
                    step.map_or("--".to_owned(), |m| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
                }
                Item::Nag(nag) => format!("${nag}"),
                Item::Comment(comment) => format!("{{{}}}", comment.text()),
                Item::Open { body } => {
                    ends.push(body.end);
                    "(".to_owned()
                }
                Item::Stop(_) => "stop".to_owned(),
            });
            at = next;
        }
        words.extend(ends.iter().map(|_| ")".to_owned()));
        words.join(" ")
    }

    #[test]
    fn of_a_tag_given_twice_the_last_value_counts_as_for_the_checker() {
        let pgn = "[White \"a\"]\n[Black \"b\"]\n[White \"c\"]\n[Result \"1-0\"]\n[Result \"0-1\"]\n\n0-1\n";
        let tags = Tags::scan(pgn.as_bytes());
        assert_eq!((tags.get("White"), tags.get("Black"), tags.get("Nothing")), (Some("c"), Some("b"), None));
        let game = read(pgn);
        assert_eq!(game.report.white.as_deref(), tags.get("White"));
        assert_eq!(game.report.result_tag.as_deref(), tags.get("Result"));
    }

    #[test]
    fn comments_nags_and_variations_hang_on_their_moves() {
        let game =
            read("[Event \"e\"]\n{start} 1. e4 $1 {best by test} (1. d4 d5 (1... Nf6) 2. c4) 1... e5 !? 2. Nf3 *\n");
        assert_eq!(game.mainline.nodes.len(), 3);
        assert_eq!(sketch(&game), "{start} M $1 {best by test} ( d2d4 d7d5 ( g8f6 ) c2c4 ) M $5 M");
        assert!(game.report.valid);
    }

    #[test]
    fn an_illegal_move_in_a_variation_stops_only_that_variation_and_is_an_error() {
        let game = read("1. e4 (1. d4 Ke3 2. c4) 1... e5 2. Nf3 *\n");
        let from_black = read("[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 1\"]\n\n1... Kd7 (1... Ke7 2. Kf3) 2. e4 *\n");
        assert_eq!(from_black.report.diagnostics[0].ply, Some(2), "{:?}", from_black.report.diagnostics);
        assert_eq!(game.mainline.nodes.len(), 3);
        assert_eq!(sketch(&game), "M ( d2d4 stop ) M M");
        let stop = game.mainline.notes.items().find_map(|item| match item {
            Item::Stop(stop) => Some(stop),
            _ => None,
        });
        let after_d4 = "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1";
        let pos: Chess = crate::notation::position(after_d4).unwrap();
        assert!(stop.unwrap().note(&pos).contains("`Ke3` cannot be played"));
        let d = &game.report.diagnostics[0];
        assert_eq!((d.code.as_str(), d.line, d.column, d.ply), ("illegal-move-in-variation", 1, 14, Some(2)));
        assert_eq!(d.fen.as_deref(), Some(after_d4));
        assert!(!game.report.valid);
        // The main line is whole all the same.
        assert_eq!(game.mainline.stopped, None);
    }

    #[test]
    fn an_illegal_main_line_move_stops_the_line_with_a_note_and_drops_the_rest() {
        let game = read("1. e4 e5 2. Ke3 {gone} (2. Nf3) 2... Nc6 1-0\n");
        assert_eq!(game.mainline.nodes.len(), 2);
        assert_eq!(sketch(&game), "M M");
        let note = game.mainline.stopped.as_deref().unwrap();
        assert!(note.starts_with("pgnkit: stopped before ply 3 (line 1, column 13)"), "{note}");
        assert_eq!(game.result, "1-0");
    }

    #[test]
    fn variations_nested_past_the_limit_are_not_read_and_say_so_once() {
        let deep = super::notes::MAX_DEPTH + 5;
        let pgn = format!("1. e4 e5 {}{} *\n", "(1... c5 ".repeat(deep), ")".repeat(deep));
        let game = read(&pgn);
        let codes: Vec<&str> = game.report.diagnostics.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, ["variation-too-deep"]);
        let sketch = sketch(&game);
        assert_eq!(sketch.matches("c7c5").count(), super::notes::MAX_DEPTH);
        assert_eq!(sketch.matches("stop").count(), 1);
        assert_eq!(sketch.matches('(').count(), sketch.matches(')').count());
    }

    /// What a game's notes hold takes no more than twice its text, whatever
    /// the text is made of: bare comments, NAGs, variations beside each
    /// other or inside each other (where a tree of lines took up to 40
    /// times the text).
    #[test]
    fn notes_take_at_most_twice_the_text_whatever_it_is_made_of() {
        let n = 20_000;
        for (what, movetext) in [
            ("comments", format!("1. e4 {} e5", "{c} ".repeat(n))),
            ("nags", format!("1. e4 {} e5", "$1 ".repeat(n))),
            ("siblings", format!("1. e4 {} e5", "(1. d4) ".repeat(n))),
            ("siblings without spaces", format!("1. e4 {} e5", "(d4)".repeat(n))),
            ("nested", format!("1. e4 e5 {}{}", "(c5".repeat(900), ")".repeat(900))),
            ("illegal siblings", format!("1. e4 {} e5", "(Ke2)".repeat(n))),
        ] {
            let pgn = format!("[Event \"e\"]\n\n{movetext} *\n");
            let game = read(&pgn);
            let tape = game.mainline.notes.end();
            assert!(tape > movetext.len() / 4, "{what}: the notes are read ({tape} bytes)");
            assert!(tape <= 2 * movetext.len(), "{what}: {tape} bytes of notes for {} of text", movetext.len());
        }
    }

    #[test]
    fn the_result_tag_wins_over_the_marker_and_a_missing_result_is_a_star() {
        assert_eq!(read("[Result \"0-1\"]\n\n1. e4 1-0\n").result, "0-1");
        assert_eq!(read("[Result \"?\"]\n\n1. e4 1/2-1/2\n").result, "1/2-1/2");
        assert_eq!(read("1. e4\n").result, "*");
        assert_eq!(read("[Result \"*\"]\n\n1. e4 1/2-1/2\n").result, "*");
        assert_eq!(read("[Result \"1-0\"]\n[Result \"0-1\"]\n\n1. e4 *\n").result, "0-1");
    }

    #[test]
    fn comment_white_space_collapses_to_single_spaces() {
        assert_eq!(normalize_comment("  a\n  b\tc  "), "a b c");
    }
}
