//! What every game writer is, and the pieces they share: moves written in
//! a notation, tag values quoted, a game passed on as it was read.

use std::io::{self, Write};

use shakmaty::{CastlingMode, Chess, Move, Position, san::San};

use crate::{
    game::{Game, Line},
    notation::{Notation, SanText},
};

/// Formats games.
pub trait GameWriter: Send + Sync {
    /// Bytes before the first game (a CSV header, say).
    fn header(&self, _out: &mut Vec<u8>) {}
    /// Appends one game.
    fn game(&self, game: &Game, out: &mut Vec<u8>);
    /// Whether `game`'s output would take more than about [`HOLD`] bytes:
    /// then it is not held whole but written with [`GameWriter::stream`]
    /// where the output goes, as it is made. No real game comes near it;
    /// a game of millions of moves (under the size cap) can, where its
    /// output is many times its size.
    fn too_large(&self, _game: &Game) -> bool {
        false
    }
    /// Writes one game to `out` a piece at a time, as [`GameWriter::game`]
    /// would write it.
    ///
    /// # Errors
    ///
    /// `out` cannot be written.
    fn stream(&self, game: &Game, out: &mut dyn Write) -> io::Result<()> {
        let mut bytes = Vec::new();
        self.game(game, &mut bytes);
        out.write_all(&bytes)
    }
}

/// The most output of one game held whole: past it, a game's output is
/// streamed ([`GameWriter::too_large`]).
pub const HOLD: usize = 4 << 20;

/// Writes a game's text as it was read (its bytes from the framer, line
/// endings as in the input), ended by its last line's line ending and one
/// blank line, so that games copied from anywhere stay separate.
pub fn write_original(bytes: &[u8], out: &mut Vec<u8>) {
    let ending = original_ending(bytes);
    // Room for the line endings too: growing the buffer for them would
    // copy the game again.
    out.reserve(bytes.len() + ending.len());
    out.extend_from_slice(bytes);
    out.extend_from_slice(ending);
}

/// What [`write_original`] writes after a game's bytes: the line endings
/// that end its last line and add one blank line, in the game's style
/// (none when a game without a result marker already ends with a blank
/// line, where the next one starts).
pub fn original_ending(bytes: &[u8]) -> &'static [u8] {
    let crlf = ends_lines_with_crlf(bytes);
    let blank_lines_at_end = bytes.ends_with(b"\n\n") || bytes.ends_with(b"\n\r\n");
    match (bytes.ends_with(b"\n"), blank_lines_at_end, crlf) {
        (true, true, _) => b"",
        (true, false, false) => b"\n",
        (true, false, true) => b"\r\n",
        (false, _, false) => b"\n\n",
        (false, _, true) => b"\r\n\r\n",
    }
}

/// Whether a game's text ends its lines with CR LF, as its first line does.
pub fn ends_lines_with_crlf(bytes: &[u8]) -> bool {
    memchr::memchr(b'\n', bytes).is_some_and(|n| n > 0 && bytes[n - 1] == b'\r')
}

/// Ends every line of `out[from..]` that ends with a bare LF with CR LF
/// instead: a game written again keeps the line endings it was read with.
pub fn crlf_from(out: &mut Vec<u8>, from: usize) {
    let tail = out.split_off(from);
    out.reserve(tail.len() + memchr::memchr_iter(b'\n', &tail).count());
    let mut last = None;
    for &b in &tail {
        if b == b'\n' && last != Some(b'\r') {
            out.push(b'\r');
        }
        out.push(b);
        last = Some(b);
    }
}

/// Writes a main-line step (a move, or `None` for a null move) in
/// `notation`, then plays it on `pos`. A null move is `--` (`0000` in UCI),
/// as python-chess writes it.
pub(crate) fn write_step(pos: &mut Chess, step: Option<Move>, notation: Notation, out: &mut String) {
    match step {
        Some(m) => crate::notation::write_and_play(pos, m, notation, out),
        None => {
            out.push_str(if notation == Notation::Uci { "0000" } else { "--" });
            crate::game::play(pos, None);
        }
    }
}

/// Writes a main line from `start`, moves separated by spaces. UCI needs no
/// positions (only the castling mode), nor SAN the checker kept, so
/// neither replays the moves.
pub(crate) fn write_moves(start: &Chess, line: &Line, notation: Notation, out: &mut Vec<u8>) {
    let nodes = &line.nodes;
    // Grown once, not by doubling: most moves take 5 or 6 bytes.
    out.reserve(nodes.len() * 6 + 1);
    if notation == Notation::Uci {
        let mode = start.castles().mode();
        for (i, node) in nodes.iter().enumerate() {
            if i > 0 {
                out.push(b' ');
            }
            push_uci_step(node.step, mode, out);
        }
        return;
    }
    if notation == Notation::San && line.san.len() == nodes.len() {
        if let [first, rest @ ..] = &line.san[..] {
            first.push(out);
            rest.iter().for_each(|san| san.push_spaced(out));
        }
        return;
    }
    if notation == Notation::San {
        let mut san = MainSan::new(start, line);
        for i in 0..nodes.len() {
            if i > 0 {
                out.push(b' ');
            }
            san.next_san().push(out);
        }
        return;
    }
    let mut pos = start.clone();
    // A move at a time: the line held whole besides `out` doubled a long
    // game's peak.
    let mut text = String::new();
    for (i, node) in nodes.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        text.clear();
        write_step(&mut pos, node.step, notation, &mut text);
        out.extend_from_slice(text.as_bytes());
    }
}

/// A main line's SAN a move at a time, in order: the checker's when it
/// kept it ([`Line::san`]), else worked out here by playing the moves from
/// the start.
pub(crate) struct MainSan<'a> {
    line: &'a Line,
    /// The position before the next move, when the SAN is worked out here.
    pos: Option<Chess>,
    next: usize,
}

impl<'a> MainSan<'a> {
    pub(crate) fn new(start: &Chess, line: &'a Line) -> MainSan<'a> {
        let kept = line.san.len() == line.nodes.len();
        MainSan { line, pos: (!kept).then(|| start.clone()), next: 0 }
    }

    /// The SAN of every move, when the checker kept it: read as a list,
    /// with no state kept a move.
    pub(crate) fn kept(&self) -> Option<&'a [SanText]> {
        self.pos.is_none().then_some(&self.line.san[..])
    }

    /// The next move's SAN, check mark included (`--` for a null move).
    #[inline]
    pub(crate) fn next_san(&mut self) -> SanText {
        let i = self.next;
        self.next += 1;
        match &mut self.pos {
            None => self.line.san[i],
            Some(pos) => san_step(pos, self.line.nodes[i].step),
        }
    }
}

/// [`write_step`] in SAN, as the bytes a writer copies (`--` for a null
/// move), the step then played on `pos`.
pub(crate) fn san_step(pos: &mut Chess, step: Option<Move>) -> SanText {
    match step {
        Some(m) => crate::notation::san_and_play(pos, m),
        None => {
            crate::game::play(pos, None);
            SanText::new(San::Null, None)
        }
    }
}

/// [`write_step`] in UCI, into bytes, without playing the move: UCI needs
/// no position, only the castling mode.
pub(crate) fn push_uci_step(step: Option<Move>, mode: CastlingMode, out: &mut Vec<u8>) {
    let (uci, len) = uci_step_word(step, mode);
    crate::notation::push_short(&uci.to_le_bytes(), len, out);
}

/// [`push_uci_step`]'s bytes in a word, first byte lowest, zeros after,
/// and their length.
// Always inlined: called for every move, its call cost as much as the rest.
#[inline(always)]
pub(crate) fn uci_step_word(step: Option<Move>, mode: CastlingMode) -> (u64, usize) {
    match step {
        // A normal move in one branch (`None` is a value of the move's
        // first byte, as its kind is), where asking for a move first and
        // then for its kind took two.
        Some(m @ Move::Normal { promotion: None, .. }) => crate::notation::uci_word(m, mode),
        _ => other_uci_step_word(step, mode),
    }
}

/// [`uci_step_word`] of a step that is not a normal move without
/// promotion: out of line, so that the test of a normal move stays one.
#[inline(never)]
fn other_uci_step_word(step: Option<Move>, mode: CastlingMode) -> (u64, usize) {
    match step {
        Some(m) => crate::notation::uci_word(m, mode),
        None => (u64::from_le_bytes(*b"0000\0\0\0\0"), 4),
    }
}

/// The value of the last tag called `name`, as every reader takes it.
pub(crate) fn tag<'a>(game: &'a Game, name: &str) -> Option<&'a str> {
    game.tags.get(name)
}

/// Text for inside a PGN or EPD string: `\` and `"` escaped with `\`,
/// control characters (a newline would end a tag line) as spaces.
pub(crate) fn quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::write_original;

    /// A game of knights going out and back, `plies` plies: every move
    /// legal, as long as wanted.
    pub(crate) fn knights(plies: usize) -> String {
        let moves = ["Nf3", "Nf6", "Ng1", "Ng8"];
        let mut pgn = String::from("[White \"w\"]\n\n");
        for ply in 0..plies {
            pgn.push_str(moves[ply % 4]);
            pgn.push(' ');
        }
        pgn.push_str("*\n");
        pgn
    }

    /// The SAN the checker kept is what writers work out without it: in
    /// PGN (variations, null moves, move numbers of games set up with
    /// Black to move), JSON Lines and SAN lines, on every fixture game.
    #[test]
    fn games_are_written_alike_from_the_san_the_checker_kept_and_without_it() {
        use std::sync::Arc;

        use crate::{
            check::{GameReader, KeptTags, ReadOptions},
            frame::{Batch, Framer},
            notation::Notation,
            output::games::{GameWriter, JsonlGameWriter, MovesWriter, PgnWriter},
        };
        let writers: [&dyn GameWriter; 3] = [&PgnWriter::default(), &JsonlGameWriter, &MovesWriter(Notation::San)];
        let extra = b"[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 41\"]\n\n41... Kd7 42. e4 -- 43. e5 (43. Kd2 Ke6 (43... Kc6)) Ke6 *\n";
        let (mut games, mut kept) = (0, 0);
        for input in crate::frame::tests::fixtures().into_iter().chain([extra.to_vec()]) {
            let mut framer = Framer::new(&input[..]);
            let mut batch = Batch::default();
            let read = |san| GameReader::new(ReadOptions { tags: KeptTags::All, san, ..ReadOptions::default() });
            let (mut with, mut without) = (read(true), read(false));
            while framer.next_batch(&mut batch).unwrap_or(false) {
                for raw in batch.games() {
                    let file = Arc::from("t.pgn");
                    let (a, b) = (with.read(&file, raw, true), without.read(&file, raw, true));
                    assert!(b.mainline.san.is_empty());
                    games += 1;
                    kept += usize::from(!a.mainline.san.is_empty());
                    for writer in writers {
                        let (mut x, mut y) = (Vec::new(), Vec::new());
                        writer.game(&a, &mut x);
                        writer.game(&b, &mut y);
                        assert_eq!(String::from_utf8_lossy(&x), String::from_utf8_lossy(&y));
                    }
                }
            }
        }
        assert!(kept > 100 && games > kept, "{kept} of {games} games with SAN kept");
    }

    #[test]
    fn original_text_ends_with_exactly_one_blank_line() {
        for (game, written) in [
            (&b"1. e4 *"[..], &b"1. e4 *\n\n"[..]),
            (b"1. e4 *\n", b"1. e4 *\n\n"),
            (b"[Event \"x\"]\n\n1. e4\n\n", b"[Event \"x\"]\n\n1. e4\n\n"),
            (b"1. e4 *\r\n", b"1. e4 *\r\n\r\n"),
            (b"[A \"b\"]\r\n\r\n", b"[A \"b\"]\r\n\r\n"),
        ] {
            let mut out = Vec::new();
            write_original(game, &mut out);
            assert_eq!(out, written, "{:?}", String::from_utf8_lossy(game));
        }
    }
}
