//! One JSON object per game: tags, moves in SAN and UCI, comments and NAGs
//! by ply, result, termination and final position.
//!
//! Written by hand, byte for byte as serde_json wrote it (a test holds it
//! to serde's writing): serde's generic serializer cost more than reading
//! and checking the games.

use std::{
    cell::RefCell,
    io::{self, Write},
    ops::Range,
    sync::Arc,
};

use shakmaty::Position;

use super::writer::{GameWriter, HOLD, MainSan, uci_step_word};
use crate::{
    game::{Game, Item, Line, Tags, normalize_comment},
    notation::SanText,
    output::json::{self, number, plain, string},
};

/// Writes one JSON object per game, on one line.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonlGameWriter;

/// Bytes of a streamed game's line held before they go out.
const FLUSH: usize = 1 << 16;

/// Where a game's line is written: a buffer, and for a game too large to
/// hold, where the buffer goes whenever it fills.
struct Out<'a, 's> {
    bytes: &'a mut Vec<u8>,
    sink: Option<&'s mut dyn Write>,
}

impl Out<'_, '_> {
    /// Sends the buffer on, when there is a sink and it is full enough.
    fn flush(&mut self) -> io::Result<()> {
        if let Some(sink) = self.sink.as_deref_mut()
            && self.bytes.len() > FLUSH
        {
            sink.write_all(self.bytes)?;
            self.bytes.clear();
        }
        Ok(())
    }
}

/// The tags as an object in input order, each name once (its last value).
fn tag_object(tags: &Tags, out: &mut Vec<u8>) {
    // Names and values almost never hold a character to escape: one test
    // of them all, then each copied whole.
    let escape = json::needs_escape(tags.text().as_bytes());
    out.reserve(tags.text().len() + 6 * tags.len() + 2);
    out.push(b'{');
    let mut first = true;
    let mut entry = |name: &str, value: &str| {
        if !std::mem::take(&mut first) {
            out.push(b',');
        }
        if escape {
            string(out, name);
            out.push(b':');
            string(out, value);
        } else {
            plain_entry(out, name.as_bytes(), value.as_bytes());
        }
    };
    // Each name once, where it first comes, with its last value: of a
    // tag given twice the last counts, for every reader. A game's few
    // tags are checked through a word of each name (its length and first
    // bytes): when two words are equal, by a look back and a look ahead
    // through them, names compared only where their words are equal; past
    // them, by the tags' indices sorted by
    // name (stable: a name's first and last stay so), 8 bytes a tag,
    // where a look back through a million is quadratic and a map of names
    // took 32 bytes.
    const FEW: usize = 32;
    if tags.len() <= FEW {
        let mut words = [0u64; FEW];
        for (word, (name, _)) in words.iter_mut().zip(tags.iter()) {
            *word = name_word(name);
        }
        let words = &words[..tags.len()];
        // No two words alike, as in nearly every game: no two names alike,
        // and each tag is written as it comes, no name compared.
        let alike = (1..words.len()).any(|i| words[..i].iter().fold(false, |any, &word| any | (word == words[i])));
        if !alike && !escape {
            out.pop();
            plain_entries(tags, out);
            return;
        }
        if !alike {
            tags.iter().for_each(|(name, value)| entry(name, value));
            out.push(b'}');
            return;
        }
        for (i, (name, value)) in tags.iter().enumerate() {
            let word = words[i];
            let same = |j: usize| words[j] == word && tags.nth(j).0 == name;
            if (0..i).any(same) {
                continue;
            }
            entry(name, (i + 1..words.len()).rev().find(|&j| same(j)).map_or(value, |j| tags.nth(j).1));
        }
    } else {
        let name = |i: u32| tags.nth(i as usize).0;
        let mut order: Vec<u32> = (0..tags.len() as u32).collect();
        order.sort_by(|&a, &b| name(a).cmp(name(b)));
        // For a name's first tag, the index of its last; `u32::MAX` else.
        let mut last = vec![u32::MAX; tags.len()];
        for same in order.chunk_by(|&a, &b| name(a) == name(b)) {
            last[same[0] as usize] = same[same.len() - 1];
        }
        drop(order);
        for (i, &last) in last.iter().enumerate() {
            if last != u32::MAX {
                entry(tags.nth(i).0, tags.nth(last as usize).1);
            }
        }
    }
    out.push(b'}');
}

/// The object of `tags`, each written as it comes, none to escape: each
/// entry (`,"Date":"2024.01.01"`) is made on the stack, a name and a value
/// of up to 16 bytes each copied as 16 bytes of the tags' text, and
/// copied whole, where the copies of each part and their checks for
/// room took twice the instructions. The first entry's comma becomes the
/// object's brace.
fn plain_entries(tags: &Tags, out: &mut Vec<u8>) {
    const PART: usize = 16;
    let text = tags.text().as_bytes();
    let start = out.len();
    // Sixteen bytes from where a part starts, when it takes no more.
    let part = |span: &Range<usize>| {
        text.get(span.start..).and_then(<[u8]>::first_chunk::<PART>).filter(|_| span.len() <= PART)
    };
    for (name, value) in tags.spans() {
        match (part(&name), part(&value)) {
            (Some(name_bytes), Some(value_bytes)) => {
                let mut piece = [0; 2 * PART + 8];
                piece[..2].copy_from_slice(b",\"");
                piece[2..2 + PART].copy_from_slice(name_bytes);
                let at = 2 + name.len();
                piece[at..at + 3].copy_from_slice(b"\":\"");
                piece[at + 3..at + 3 + PART].copy_from_slice(value_bytes);
                let at = at + 3 + value.len();
                piece[at] = b'"';
                crate::notation::push_short(&piece, at + 1, out);
            }
            _ => {
                out.push(b',');
                plain_entry(out, &text[name], &text[value]);
            }
        }
    }
    match out.get_mut(start) {
        Some(comma) => *comma = b'{',
        None => out.push(b'{'),
    }
    out.push(b'}');
}

/// `"name":"value"`, neither with anything to escape.
#[inline(always)]
fn plain_entry(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    out.push(b'"');
    out.extend_from_slice(name);
    out.extend_from_slice(b"\":\"");
    out.extend_from_slice(value);
    out.push(b'"');
}

/// A tag name's length and first seven bytes in a word: names of two
/// words that differ differ.
fn name_word(name: &str) -> u64 {
    let bytes = name.as_bytes();
    let mut word = bytes.len() as u8 as u64;
    for (i, &b) in bytes.iter().take(7).enumerate() {
        word |= u64::from(b) << (8 * (i + 1));
    }
    word
}

/// Moves written into one piece of room, between two looks at whether a
/// streamed game's buffer is full.
const MOVES_A_PIECE: usize = 32;

/// The main line's moves in SAN, then in UCI, each written as it is made:
/// a game of millions of moves never holds them all as strings (a 30 MB
/// game took 600 MB so). SAN and UCI need no escaping.
fn move_lists(game: &Game, out: &mut Out<'_, '_>) -> io::Result<()> {
    let Some(start) = &game.start else {
        out.bytes.extend_from_slice(b",\"san\":[],\"uci\":[]");
        return Ok(());
    };
    let nodes = &game.mainline.nodes;
    out.bytes.extend_from_slice(b",\"san\":");
    let mut san = MainSan::new(start, &game.mainline);
    let san_word = |san: SanText| (san.word(), san.len());
    match san.kept() {
        // Read from the checker's list: no state to keep a move.
        Some(kept) => move_list(out, kept.len(), |i| san_word(kept[i]))?,
        None => move_list(out, nodes.len(), |_| san_word(san.next_san()))?,
    }
    out.bytes.extend_from_slice(b",\"uci\":");
    let mode = start.castles().mode();
    move_list(out, nodes.len(), |i| uci_step_word(nodes[i].step, mode))
}

/// Writes a list of `moves` moves, each given by `text` from its index as
/// its bytes in a word (first byte lowest, zeros after) and their length,
/// at most seven bytes and none to escape. Each `,"Nf3+"` is made by
/// shifts and stored whole, 16 bytes, into room of a fixed size made for
/// every [`MOVES_A_PIECE`] moves, where a look at the room and a copy a
/// move cost as much as the rest of the writing. The room is an array:
/// an offset in it masked to its size needs no check, where checking each
/// store's place took a quarter of a move's instructions. A streamed
/// game's buffer is looked at between pieces.
#[inline(always)]
fn move_list(out: &mut Out<'_, '_>, moves: usize, mut text: impl FnMut(usize) -> (u64, usize)) -> io::Result<()> {
    // The most a move takes: `,"Qa1xb2#"`, stored as 16 bytes.
    const ROOM: usize = 10;
    const STORE: usize = 16;
    // A power of two, at least the room of a piece's moves.
    const PIECE: usize = (ROOM * MOVES_A_PIECE).next_power_of_two();
    const COMMA_QUOTE: u64 = u64::from_le_bytes([b',', b'"', 0, 0, 0, 0, 0, 0]);
    if moves == 0 {
        out.bytes.extend_from_slice(b"[]");
        return Ok(());
    }
    for from in (0..moves).step_by(MOVES_A_PIECE) {
        let start = out.bytes.len();
        out.bytes.resize(start + PIECE + STORE, 0);
        let room: &mut [u8; PIECE + STORE] = (&mut out.bytes[start..]).try_into().expect("room of its size");
        let mut at = 0;
        for i in from..moves.min(from + MOVES_A_PIECE) {
            let (word, len) = text(i);
            // The text and its closing quote, in at most 8 bytes.
            let quoted = word | u64::from(b'"') << ((8 * len) & 63);
            let item = u128::from(quoted) << 16 | u128::from(COMMA_QUOTE);
            let place = at & (PIECE - 1);
            room[place..place + STORE].copy_from_slice(&item.to_le_bytes());
            at += len + 3;
        }
        if from == 0 {
            room[0] = b'[';
        }
        out.bytes.truncate(start + at);
        out.flush()?;
    }
    out.bytes.push(b']');
    Ok(())
}

/// The main line's comments, each with the ply it follows (0: before the
/// first move), the note of where the line stops last; then its NAGs,
/// each with the ply it follows. Written as they are read, as a game can
/// hold millions.
fn notes(line: &Line, out: &mut Out<'_, '_>) -> io::Result<()> {
    out.bytes.extend_from_slice(b",\"comments\":[");
    let mut first = true;
    // `plain`: the text holds nothing to escape.
    let mut comment = |out: &mut Out<'_, '_>, ply: usize, text: &[u8], plain: bool| {
        out.bytes.reserve(text.len() + 32);
        let first = std::mem::take(&mut first);
        if plain && !first && ply < 1000 {
            // `,{"ply":12,"text":"` in a piece of fixed size: a few stores,
            // where its parts were four copies and a number.
            let (digits, count) = crate::notation::short_digits(ply as u32);
            let mut piece = [0; 32];
            piece[..8].copy_from_slice(b",{\"ply\":");
            piece[8..12].copy_from_slice(&digits.to_le_bytes());
            piece[8 + count..8 + count + 16].copy_from_slice(b",\"text\":\"\0\0\0\0\0\0\0");
            crate::notation::push_short(&piece, 17 + count, out.bytes);
            out.bytes.extend_from_slice(text);
            out.bytes.extend_from_slice(b"\"}");
            return out.flush();
        }
        out.bytes.extend_from_slice(if first { b"{\"ply\":" } else { b",{\"ply\":" });
        number(out.bytes, ply as u64);
        if plain {
            out.bytes.extend_from_slice(b",\"text\":\"");
            out.bytes.extend_from_slice(text);
            out.bytes.extend_from_slice(b"\"}");
        } else {
            out.bytes.extend_from_slice(b",\"text\":");
            // Text of a `&str`: UTF-8.
            json::string_bytes(out.bytes, text);
            out.bytes.push(b'}');
        }
        out.flush()
    };
    let mut nags = false;
    for (ply, item) in line.notes.main_notes() {
        match item {
            Item::Comment(text) => match text.plain() {
                Some(plain) => comment(out, ply, plain, true)?,
                // An ASCII comment needs no check of its UTF-8.
                None => comment(out, ply, text.ascii().unwrap_or_else(|| text.text().as_bytes()), false)?,
            },
            Item::Nag(_) => nags = true,
            _ => {}
        }
    }
    if let Some(text) = line.stopped.as_deref().map(normalize_comment) {
        comment(out, line.nodes.len(), text.as_bytes(), false)?;
    }
    out.bytes.extend_from_slice(b"],\"nags\":[");
    let mut first = true;
    // Read again only for NAGs there are.
    if nags {
        for (ply, item) in line.notes.main_notes() {
            if let Item::Nag(nag) = item {
                out.bytes.extend_from_slice(if std::mem::take(&mut first) { b"{\"ply\":" } else { b",{\"ply\":" });
                number(out.bytes, ply as u64);
                out.bytes.extend_from_slice(b",\"nag\":");
                number(out.bytes, nag.into());
                out.bytes.push(b'}');
                out.flush()?;
            }
        }
    }
    out.bytes.push(b']');
    Ok(())
}

impl GameWriter for JsonlGameWriter {
    fn game(&self, game: &Game, out: &mut Vec<u8>) {
        write_record(game, &mut Out { bytes: out, sink: None }).expect("writing to memory");
    }

    /// A move takes more than this in the two lists of moves, a tag its
    /// text and 6 bytes, and a byte of notes up to this in the lists of
    /// comments and NAGs (`{"ply":1,"text":"c"}` for the 3 bytes of a `{c}`).
    fn too_large(&self, game: &Game) -> bool {
        const SHORTEST_MOVE: usize = 10;
        const NOTE_BYTE: usize = 8;
        let line = &game.mainline;
        let tags = game.tags.lines_len();
        let moves = line.nodes.len().saturating_mul(SHORTEST_MOVE);
        tags.saturating_add(moves).saturating_add(line.notes.end().saturating_mul(NOTE_BYTE)) > HOLD
    }

    fn stream(&self, game: &Game, out: &mut dyn Write) -> io::Result<()> {
        let mut bytes = Vec::with_capacity(2 * FLUSH);
        write_record(game, &mut Out { bytes: &mut bytes, sink: Some(&mut *out) })?;
        out.write_all(&bytes)?;
        out.flush()
    }
}

thread_local! {
    /// The file of the last game this thread wrote, and its name as a JSON
    /// string: every game of a file gives its name, which took 170
    /// instructions a game to escape.
    static FILE: RefCell<(Option<Arc<str>>, Vec<u8>)> = const { RefCell::new((None, Vec::new())) };
}

/// `file`'s name as a JSON string.
fn file_string(file: &Arc<str>, out: &mut Vec<u8>) {
    FILE.with_borrow_mut(|(last, string)| {
        if !last.as_ref().is_some_and(|last| Arc::ptr_eq(last, file)) {
            string.clear();
            json::string(string, file);
            *last = Some(Arc::clone(file));
        }
        out.extend_from_slice(string);
    });
}

/// Writes one game's line.
fn write_record(game: &Game, out: &mut Out<'_, '_>) -> io::Result<()> {
    let report = &game.report;
    let bytes = &mut *out.bytes;
    // Room for the whole line at once, for all but a streamed game: a move
    // takes under 16 bytes in the two lists, a byte of notes under 2 (its
    // text, escaped only when it must be), a tag its text and 6 bytes.
    let line = &game.mainline;
    let estimate = game.tags.lines_len() + 16 * line.nodes.len() + 2 * line.notes.end() + 512;
    bytes.reserve(estimate.min(2 * FLUSH));
    bytes.extend_from_slice(b"{\"file\":");
    file_string(&report.file, bytes);
    bytes.extend_from_slice(b",\"game\":");
    number(bytes, report.game);
    bytes.extend_from_slice(b",\"game_line\":");
    number(bytes, report.line);
    bytes.extend_from_slice(b",\"tags\":");
    tag_object(&game.tags, bytes);
    out.flush()?;
    move_lists(game, out)?;
    notes(&game.mainline, out)?;
    let bytes = &mut *out.bytes;
    bytes.extend_from_slice(b",\"result\":");
    // One of the four results.
    plain(bytes, game.result);
    bytes.extend_from_slice(b",\"plies\":");
    number(bytes, game.mainline.nodes.len() as u64);
    bytes.extend_from_slice(if report.valid { b",\"valid\":true" } else { b",\"valid\":false" });
    bytes.extend_from_slice(if report.checked { b",\"checked\":true" } else { b",\"checked\":false" });
    bytes.extend_from_slice(b",\"board_termination\":");
    match report.termination {
        Some(termination) => plain(bytes, termination.as_str()),
        None => bytes.extend_from_slice(b"null"),
    }
    match &report.final_fen {
        // A FEN's alphabet has no quote, backslash or control character.
        Some(fen) => {
            bytes.extend_from_slice(b",\"final_fen\":\"");
            fen.write(bytes);
            bytes.extend_from_slice(b"\"}\n");
        }
        None => bytes.extend_from_slice(b",\"final_fen\":null}\n"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde::{Serialize, Serializer, ser::SerializeSeq};

    use super::{JsonlGameWriter, tag_object};
    use crate::{
        game::{Game, Item, Line, Tags, normalize_comment},
        notation::{FenPosition, Notation},
        output::games::{GameWriter, HOLD, write_step, writer::tests::knights},
        report::Termination,
    };

    /// The main line's notes (variations stepped over), each with the ply
    /// of the move it follows, read an item at a time.
    fn main_items(line: &Line) -> impl Iterator<Item = (usize, Item<'_>)> {
        let mut ply = 0;
        line.notes.line(0, line.notes.end()).filter_map(move |(_, item)| {
            if item == Item::Main {
                ply += 1;
                return None;
            }
            Some((ply, item))
        })
    }

    /// The line as serde_json wrote it before it was written by hand: the
    /// hand-written line is held to it.
    fn serde_line(game: &Game) -> Vec<u8> {
        struct Moves<'a>(&'a Game, Notation);
        impl Serialize for Moves<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let Some(start) = &self.0.start else { return serializer.collect_seq(std::iter::empty::<&str>()) };
                let mut seq = serializer.serialize_seq(None)?;
                let mut pos = start.clone();
                for node in &self.0.mainline.nodes {
                    let mut text = String::new();
                    write_step(&mut pos, node.step, self.1, &mut text);
                    seq.serialize_element(&text)?;
                }
                seq.end()
            }
        }
        #[derive(Serialize)]
        struct Comment {
            ply: usize,
            text: String,
        }
        #[derive(Serialize)]
        struct Nag {
            ply: usize,
            nag: u8,
        }
        #[derive(Serialize)]
        struct Record<'a> {
            file: &'a str,
            game: u64,
            game_line: u64,
            tags: serde_json::Map<String, serde_json::Value>,
            san: Moves<'a>,
            uci: Moves<'a>,
            comments: Vec<Comment>,
            nags: Vec<Nag>,
            result: &'a str,
            plies: usize,
            valid: bool,
            checked: bool,
            board_termination: Option<Termination>,
            final_fen: Option<&'a FenPosition>,
        }
        let line = &game.mainline;
        let mut tags = serde_json::Map::new();
        for (name, _) in game.tags.iter() {
            if !tags.contains_key(name) {
                tags.insert(name.to_owned(), game.tags.get(name).unwrap_or_default().into());
            }
        }
        let mut comments: Vec<Comment> = main_items(line)
            .filter_map(|(ply, item)| match item {
                Item::Comment(text) => Some(Comment { ply, text: text.text().to_owned() }),
                _ => None,
            })
            .collect();
        if let Some(text) = line.stopped.as_deref() {
            comments.push(Comment { ply: line.nodes.len(), text: normalize_comment(text) });
        }
        let record = Record {
            file: &game.report.file,
            game: game.report.game,
            game_line: game.report.line,
            tags,
            san: Moves(game, Notation::San),
            uci: Moves(game, Notation::Uci),
            comments,
            nags: main_items(line)
                .filter_map(|(ply, item)| match item {
                    Item::Nag(nag) => Some(Nag { ply, nag }),
                    _ => None,
                })
                .collect(),
            result: game.result,
            plies: line.nodes.len(),
            valid: game.report.valid,
            checked: game.report.checked,
            board_termination: game.report.termination,
            final_fen: game.report.final_fen.as_ref(),
        };
        let mut bytes = serde_json::to_vec(&record).expect("serializes");
        bytes.push(b'\n');
        bytes
    }

    #[test]
    fn every_fixture_game_is_written_byte_for_byte_as_serde_json_wrote_it() {
        let mut games = 0;
        let extra = "[Event \"q\\\"uote\\\\ \u{1}\t\"]\n[Site \"é 💥\"]\n\n1. f3 e5 2. g4 Qh4# {mate \u{7} \"x\"} 0-1\n\n\
                     [FEN \"7k/8/8/8/8/8/8/K7 w - - 0 1\"]\n\n1. Kb1 $1 -- {pass} (1. Ka2 {v}) Kh7 *\n";
        let inputs = crate::frame::tests::fixtures().into_iter().chain([extra.as_bytes().to_vec()]);
        for input in inputs {
            for game in crate::check::read_all(&String::from_utf8_lossy(&input)) {
                games += 1;
                let mut held = Vec::new();
                JsonlGameWriter.game(&game, &mut held);
                assert_eq!(String::from_utf8_lossy(&held), String::from_utf8_lossy(&serde_line(&game)));
            }
        }
        assert!(games > 100, "{games} games");
    }

    #[test]
    fn a_line_streamed_is_the_line_held_whole_and_only_millions_of_moves_are_too_large() {
        let [short, long] = [5_000, HOLD / 10 + 1].map(|plies| crate::check::read_all(&knights(plies)).remove(0));
        for game in [&short, &long] {
            let mut held = Vec::new();
            JsonlGameWriter.game(game, &mut held);
            let mut streamed = Vec::new();
            JsonlGameWriter.stream(game, &mut streamed).unwrap();
            assert_eq!(streamed, held);
            assert_eq!(serde_json::from_slice::<serde_json::Value>(&held).unwrap()["plies"], game.mainline.nodes.len());
        }
        assert_eq!(serde_line(&short), {
            let mut held = Vec::new();
            JsonlGameWriter.game(&short, &mut held);
            held
        });
        assert!(!JsonlGameWriter.too_large(&short));
        assert!(JsonlGameWriter.too_large(&long));
    }

    /// Each game's line names its own file, escaped, whichever file the
    /// game before came from, whether or not its name is the same.
    #[test]
    fn each_line_names_the_file_its_game_came_from() {
        let mut game = crate::check::read_all("1. e4 *\n").remove(0);
        for name in ["a.pgn", "b \"q\".pgn", "b \"q\".pgn", "a.pgn", "a.pgn"] {
            for file in [std::sync::Arc::from(name), std::sync::Arc::from(name)] {
                game.report.file = file;
                let mut line = Vec::new();
                JsonlGameWriter.game(&game, &mut line);
                let value: serde_json::Value = serde_json::from_slice(&line).unwrap();
                assert_eq!(value["file"], name);
            }
        }
    }

    /// Tags with nothing to escape, of every length about the 16 bytes a
    /// part is copied as, and at the end of the tags' text: the object
    /// serde_json writes of them.
    #[test]
    fn plain_tags_of_any_length_are_written_as_serde_json_writes_them() {
        let mut rng = crate::test_rng::Rng(7);
        for _ in 0..2_000 {
            let mut tags = Tags::default();
            let mut want = serde_json::Map::new();
            for i in 0..rng.below(8) {
                // Distinct names: the tag's number first.
                let name = format!("{i}{}", "N".repeat(rng.below(20)));
                let value: String = (0..rng.below(40)).map(|j| char::from(b'a' + (j % 26) as u8)).collect();
                tags.push(&name, &value);
                want.insert(name, value.into());
            }
            assert_eq!(tag_json(&tags), serde_json::to_string(&want).unwrap());
        }
    }

    fn tag_json(tags: &Tags) -> String {
        let mut out = Vec::new();
        tag_object(tags, &mut out);
        String::from_utf8(out).unwrap()
    }

    /// Each name once, with its last value, where it first came: by a look
    /// back for a game's first tags, by a map past them.
    #[test]
    fn tags_are_written_once_each_with_their_last_value_however_many_there_are() {
        let names: Vec<String> = (0..40).map(|i| format!("T{i}")).collect();
        let mut pgn = String::new();
        for (i, name) in names.iter().enumerate() {
            pgn.push_str(&format!("[{name} \"{i}\"]\n"));
        }
        // Repeats of a name met early and of one met late.
        pgn.push_str("[T3 \"again\"]\n[T35 \"again\"]\n[T1 \"again\"]\n\n1. e4 *\n");
        let tags = Tags::scan(pgn.as_bytes());
        assert_eq!(tags.len(), 43);
        let want: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(i, n)| match i {
                1 | 3 | 35 => format!("\"{n}\":\"again\""),
                _ => format!("\"{n}\":\"{i}\""),
            })
            .collect();
        assert_eq!(tag_json(&tags), format!("{{{}}}", want.join(",")));
        // A few tags, looked back through.
        let few = Tags::scan(b"[A \"1\"]\n[B \"2\"]\n[A \"3\"]\n\n*\n");
        assert_eq!(tag_json(&few), r#"{"A":"3","B":"2"}"#);
        assert_eq!(tag_json(&Tags::default()), "{}");
    }

    /// Names alike in their first bytes and length, or in their first
    /// bytes and length but for a multiple of 256, are told apart; a name
    /// or value to escape is escaped, the others still copied.
    #[test]
    fn tags_whose_names_begin_alike_are_told_apart_and_escaped_where_needed() {
        let long = format!("WhiteEl{}", "o".repeat(256));
        let mut tags = Tags::default();
        for (name, value) in [
            ("WhiteEloA", "1"),
            ("WhiteEloB", "2"),
            ("WhiteEl", "3"),
            (long.as_str(), "4"),
            ("WhiteEloA", "5"),
            ("Event", "a \"b\" \\ \u{1}\u{2028}é"),
            ("WhiteEl", "6"),
        ] {
            tags.push(name, value);
        }
        let want = format!(
            r#"{{"WhiteEloA":"5","WhiteEloB":"2","WhiteEl":"6","{long}":"4","Event":"a \"b\" \\ \u0001{separator}é"}}"#,
            separator = '\u{2028}'
        );
        assert_eq!(tag_json(&tags), want);
        let value: serde_json::Value = serde_json::from_str(&tag_json(&tags)).unwrap();
        assert_eq!(value["Event"], "a \"b\" \\ \u{1}\u{2028}é");
    }
}
