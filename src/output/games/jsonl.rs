//! One JSON object per game: tags, moves in SAN and UCI, comments and NAGs
//! by ply, result, termination and final position.

use std::io::{self, Write};

use serde::{
    Serialize, Serializer,
    ser::{SerializeMap, SerializeSeq},
};

use super::writer::{GameWriter, HOLD, write_step};
use crate::{
    game::{Game, Tags, normalize_comment},
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
        let mut map = serializer.serialize_map(None)?;
        // Each name once, where it first comes, with its last value: of a
        // tag given twice the last counts, for every reader. A game's few
        // tags are checked by a look back, cheaper than a map; a map past
        // that, as a look back through a million is quadratic.
        const FEW: usize = 32;
        let tags = self.0;
        if tags.len() <= FEW {
            for (i, (name, _)) in tags.iter().enumerate() {
                if !tags.iter().take(i).any(|(n, _)| n == name) {
                    map.serialize_entry(name, tags.get(name).unwrap_or_default())?;
                }
            }
        } else {
            let mut last: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
            last.extend(tags.iter());
            for (name, _) in tags.iter() {
                if let Some(value) = last.remove(name) {
                    map.serialize_entry(name, value)?;
                }
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

/// A comment and the ply it follows (0: before the first move).
#[derive(Serialize)]
struct Comment<'a> {
    ply: usize,
    text: &'a str,
}

/// A NAG and the ply it follows.
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
    tags: TagObject<'a>,
    san: MoveList<'a>,
    uci: MoveList<'a>,
    comments: Vec<Comment<'a>>,
    nags: Vec<Nag>,
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

    /// A move takes more than this in the two lists of moves.
    fn too_large(&self, game: &Game) -> bool {
        const SHORTEST_MOVE: usize = 10;
        game.mainline.nodes.len().saturating_mul(SHORTEST_MOVE) > HOLD
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
    let line = &game.mainline;
    let mut comments: Vec<Comment<'_>> = line.before.iter().map(|text| Comment { ply: 0, text }).collect();
    let mut nags = Vec::new();
    for i in 0..nodes.len() {
        comments.extend(line.comments(i).iter().map(|text| Comment { ply: i + 1, text }));
        nags.extend(line.nags(i).iter().map(|&nag| Nag { ply: i + 1, nag }));
    }
    let stopped = line.stopped.as_deref().map(normalize_comment);
    if let Some(text) = &stopped {
        comments.push(Comment { ply: nodes.len(), text });
    }
    let record = Record {
        file: &game.report.file,
        game: game.report.game,
        game_line: game.report.line,
        tags: TagObject(&game.tags),
        san,
        uci,
        comments,
        nags,
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
