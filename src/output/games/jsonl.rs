//! One JSON object per game: tags, moves in SAN and UCI, comments and NAGs
//! by ply, result, termination and final position.

use std::io::{self, Write};

use serde::{
    Serialize, Serializer,
    ser::{SerializeMap, SerializeSeq},
};

use super::writer::{GameWriter, HOLD, write_step};
use crate::{
    game::{Game, Item, Line, Tags, normalize_comment},
    notation::FenPosition,
    notation::Notation,
    report::Termination,
};

/// Writes one JSON object per game, on one line.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonlGameWriter;

/// The tags as an object in input order, each name once (its last value).
struct TagObject<'a>(&'a Tags);

impl Serialize for TagObject<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tags = self.0;
        let mut map = serializer.serialize_map(None)?;
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
                    map.serialize_entry(name, tags.get(name).unwrap_or_default())?;
                }
            }
            return map.end();
        }
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
                map.serialize_entry(tags.nth(i).0, tags.nth(last as usize).1)?;
            }
        }
        map.end()
    }
}

/// The main line in one notation, each move written as it is serialized:
/// a game of millions of moves never holds them all as strings (a 30 MB
/// game took 600 MB so).
struct MoveList<'a> {
    game: &'a Game,
    notation: Notation,
}

impl Serialize for MoveList<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some(start) = &self.game.start else { return serializer.collect_seq(std::iter::empty::<&str>()) };
        let nodes = &self.game.mainline.nodes;
        let mut seq = serializer.serialize_seq(Some(nodes.len()))?;
        let mut pos = start.clone();
        let mut text = String::new();
        for node in nodes {
            text.clear();
            write_step(&mut pos, node.step, self.notation, &mut text);
            seq.serialize_element(text.as_str())?;
        }
        seq.end()
    }
}

/// The main line's comments, each with the ply it follows (0: before the
/// first move), the note of where the line stops last; written as they are
/// serialized, as a game can hold millions.
struct Comments<'a>(&'a Game);

impl Serialize for Comments<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Comment<'a> {
            ply: usize,
            text: &'a str,
        }
        let line = &self.0.mainline;
        let mut seq = serializer.serialize_seq(None)?;
        for (ply, item) in main_items(line) {
            if let Item::Comment(text) = item {
                seq.serialize_element(&Comment { ply, text })?;
            }
        }
        if let Some(text) = line.stopped.as_deref().map(normalize_comment) {
            seq.serialize_element(&Comment { ply: line.nodes.len(), text: &text })?;
        }
        seq.end()
    }
}

/// The main line's NAGs, each with the ply it follows.
struct Nags<'a>(&'a Game);

impl Serialize for Nags<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Nag {
            ply: usize,
            nag: u8,
        }
        let mut seq = serializer.serialize_seq(None)?;
        for (ply, item) in main_items(&self.0.mainline) {
            if let Item::Nag(nag) = item {
                seq.serialize_element(&Nag { ply, nag })?;
            }
        }
        seq.end()
    }
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

#[derive(Serialize)]
struct Record<'a> {
    file: &'a str,
    game: u64,
    game_line: u64,
    tags: TagObject<'a>,
    san: MoveList<'a>,
    uci: MoveList<'a>,
    comments: Comments<'a>,
    nags: Nags<'a>,
    result: &'a str,
    plies: usize,
    valid: bool,
    checked: bool,
    board_termination: Option<Termination>,
    final_fen: Option<&'a FenPosition>,
}

impl GameWriter for JsonlGameWriter {
    fn game(&self, game: &Game, out: &mut Vec<u8>) {
        write_record(game, out).expect("writing to memory");
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
        let mut out = io::BufWriter::with_capacity(1 << 16, out);
        write_record(game, &mut out)?;
        out.flush()
    }
}

/// Writes one game's line.
fn write_record<W: Write>(game: &Game, out: &mut W) -> io::Result<()> {
    let nodes = &game.mainline.nodes;
    let san = MoveList { game, notation: Notation::San };
    let uci = MoveList { game, notation: Notation::Uci };
    let record = Record {
        file: &game.report.file,
        game: game.report.game,
        game_line: game.report.line,
        tags: TagObject(&game.tags),
        san,
        uci,
        comments: Comments(game),
        nags: Nags(game),
        result: game.result,
        plies: nodes.len(),
        valid: game.report.valid,
        checked: game.report.checked,
        board_termination: game.report.termination,
        final_fen: game.report.final_fen.as_ref(),
    };
    serde_json::to_writer(&mut *out, &record)?;
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::{JsonlGameWriter, TagObject};
    use crate::{
        game::Tags,
        output::games::{GameWriter, HOLD, writer::tests::knights},
    };

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
        assert!(!JsonlGameWriter.too_large(&short));
        assert!(JsonlGameWriter.too_large(&long));
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
        let json = serde_json::to_string(&TagObject(&tags)).unwrap();
        let want: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(i, n)| match i {
                1 | 3 | 35 => format!("\"{n}\":\"again\""),
                _ => format!("\"{n}\":\"{i}\""),
            })
            .collect();
        assert_eq!(json, format!("{{{}}}", want.join(",")));
        // A few tags, looked back through.
        let few = Tags::scan(b"[A \"1\"]\n[B \"2\"]\n[A \"3\"]\n\n*\n");
        assert_eq!(serde_json::to_string(&TagObject(&few)).unwrap(), r#"{"A":"3","B":"2"}"#);
    }
}
