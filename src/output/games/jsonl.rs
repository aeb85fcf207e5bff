//! One JSON object per game: tags, moves in SAN and UCI, comments and NAGs
//! by ply, result, termination and final position.
//!
//! Written by hand, byte for byte as serde_json wrote it (a test holds it
//! to serde's writing): serde's generic serializer cost more than reading
//! and checking the games.

use std::io::{self, Write};

use shakmaty::Position;

use super::writer::{GameWriter, HOLD, MainSan, push_uci_step};
use crate::{
    game::{Game, Item, Line, Tags, normalize_comment},
    output::json::{number, plain, string},
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
    out.push(b'{');
    let mut first = true;
    let mut entry = |name: &str, value: &str| {
        if !std::mem::take(&mut first) {
            out.push(b',');
        }
        string(out, name);
        out.push(b':');
        string(out, value);
    };
    // Each name once, where it first comes, with its last value: of a
    // tag given twice the last counts, for every reader. A game's few
    // tags are checked by a look back; past them, by the tags' indices
    // sorted by name (stable: a name's first and last stay so), 8 bytes
    // a tag, where a look back through a million is quadratic and a map
    // of names took 32 bytes.
    const FEW: usize = 32;
    if tags.len() <= FEW {
        for (i, (name, _)) in tags.iter().enumerate() {
            if !tags.iter().take(i).any(|(n, _)| n == name) {
                entry(name, tags.get(name).unwrap_or_default());
            }
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

/// The main line's moves in SAN, then in UCI, each written as it is made:
/// a game of millions of moves never holds them all as strings (a 30 MB
/// game took 600 MB so). SAN and UCI need no escaping.
fn move_lists(game: &Game, out: &mut Out<'_, '_>) -> io::Result<()> {
    let Some(start) = &game.start else {
        out.bytes.extend_from_slice(b",\"san\":[],\"uci\":[]");
        return Ok(());
    };
    let nodes = &game.mainline.nodes;
    out.bytes.extend_from_slice(b",\"san\":[");
    let mut san = MainSan::new(start, &game.mainline);
    for i in 0..nodes.len() {
        out.bytes.extend_from_slice(if i > 0 { b",\"" } else { b"\"" });
        san.push_next(out.bytes);
        out.bytes.push(b'"');
        out.flush()?;
    }
    out.bytes.extend_from_slice(b"],\"uci\":[");
    let mode = start.castles().mode();
    for (i, node) in nodes.iter().enumerate() {
        out.bytes.extend_from_slice(if i > 0 { b",\"" } else { b"\"" });
        push_uci_step(node.step, mode, out.bytes);
        out.bytes.push(b'"');
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
    let mut comment = |out: &mut Out<'_, '_>, ply: usize, text: &str| {
        out.bytes.extend_from_slice(if std::mem::take(&mut first) { b"{\"ply\":" } else { b",{\"ply\":" });
        number(out.bytes, ply as u64);
        out.bytes.extend_from_slice(b",\"text\":");
        string(out.bytes, text);
        out.bytes.push(b'}');
        out.flush()
    };
    let mut nags = false;
    for (ply, item) in main_items(line) {
        match item {
            Item::Comment(text) => comment(out, ply, text.text())?,
            Item::Nag(_) => nags = true,
            _ => {}
        }
    }
    if let Some(text) = line.stopped.as_deref().map(normalize_comment) {
        comment(out, line.nodes.len(), &text)?;
    }
    out.bytes.extend_from_slice(b"],\"nags\":[");
    let mut first = true;
    // Read again only for NAGs there are (a comment's text is checked
    // again at each read).
    if nags {
        for (ply, item) in main_items(line) {
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

/// The main line's notes (variations stepped over), each with the ply of
/// the move it follows.
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
    string(bytes, &report.file);
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
    string(bytes, game.result);
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

    use super::{JsonlGameWriter, main_items, tag_object};
    use crate::{
        game::{Game, Item, Tags, normalize_comment},
        notation::{FenPosition, Notation},
        output::games::{GameWriter, HOLD, write_step, writer::tests::knights},
        report::Termination,
    };

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
}
