//! One line per game: the main line in SAN, UCI or LAN, or the final
//! position as FEN; or one EPD line per position of every game.

use std::{
    fmt::Write as _,
    io::{self, Write},
};

use shakmaty::{EnPassantMode, fen::Epd};

use super::writer::{GameWriter, HOLD, write_moves};
use crate::{game::Game, notation::Notation};

/// The main line's moves separated by spaces (a game that cannot be
/// replayed gives an empty line, so lines and games stay in step).
#[derive(Debug, Clone, Copy)]
pub struct MovesWriter(pub Notation);

impl GameWriter for MovesWriter {
    fn game(&self, game: &Game, out: &mut Vec<u8>) {
        if let Some(start) = &game.start {
            write_moves(start, &game.mainline, self.0, out);
        }
        out.push(b'\n');
    }
}

/// The last position reached, as FEN (empty when the game cannot be
/// replayed).
#[derive(Debug, Clone, Copy)]
pub struct FinalFenWriter;

impl GameWriter for FinalFenWriter {
    fn game(&self, game: &Game, out: &mut Vec<u8>) {
        if let Some(fen) = &game.report.final_fen {
            fen.write(out);
        }
        out.push(b'\n');
    }
}

/// Every position of the main line, the start included, as EPD with
/// `id "<file>:<game>:<ply>"`.
#[derive(Debug, Clone, Copy)]
pub struct EpdWriter {
    /// Each line also carries the game's tags as pgn-extract's `-Wepd`
    /// writes them: `c0` the players, event, site and date, `c1` the
    /// result (here as quoted EPD strings).
    pub tags: bool,
}

impl GameWriter for EpdWriter {
    fn game(&self, game: &Game, out: &mut Vec<u8>) {
        let Ok(()) = self.lines(game, out, |_| Ok::<(), std::convert::Infallible>(()));
    }

    /// A line a position, and no line is shorter than this.
    fn too_large(&self, game: &Game) -> bool {
        const SHORTEST_LINE: usize = 32;
        game.start.is_some() && (game.mainline.nodes.len() + 1).saturating_mul(SHORTEST_LINE) > HOLD
    }

    fn stream(&self, game: &Game, out: &mut dyn Write) -> io::Result<()> {
        const PIECE: usize = 1 << 16;
        let mut bytes = Vec::with_capacity(PIECE + 256);
        self.lines(game, &mut bytes, |bytes| {
            if bytes.len() >= PIECE {
                out.write_all(bytes)?;
                bytes.clear();
            }
            Ok::<(), io::Error>(())
        })?;
        out.write_all(&bytes)
    }
}

impl EpdWriter {
    /// Appends the game's lines to `out`, calling `written` after each.
    fn lines<E>(
        &self,
        game: &Game,
        out: &mut Vec<u8>,
        mut written: impl FnMut(&mut Vec<u8>) -> Result<(), E>,
    ) -> Result<(), E> {
        let Some(start) = &game.start else { return Ok(()) };
        let mut pos = start.clone();
        let mut line = String::new();
        let id = super::writer::quoted(&game.report.file);
        let tags = self.tags.then(|| {
            let tag = |name| super::writer::tag(game, name).unwrap_or("?");
            let c0 = format!("{}-{}, {}, {}, {}", tag("White"), tag("Black"), tag("Event"), tag("Site"), tag("Date"));
            format!(" c0 \"{}\"; c1 \"{}\";", super::writer::quoted(&c0), game.result)
        });
        for ply in 0..=game.mainline.nodes.len() {
            if ply > 0 {
                crate::game::play(&mut pos, game.mainline.nodes[ply - 1].step);
            }
            line.clear();
            Epd::from_position(&pos, EnPassantMode::Legal).append_to_string(&mut line);
            let _ = write!(line, " id \"{id}:{}:{ply}\";", game.report.game);
            line.push_str(tags.as_deref().unwrap_or(""));
            line.push('\n');
            out.extend_from_slice(line.as_bytes());
            written(out)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::EpdWriter;
    use crate::output::games::{GameWriter, HOLD, writer::tests::knights};

    #[test]
    fn epd_streamed_a_piece_at_a_time_is_the_epd_held_whole() {
        for tags in [false, true] {
            let writer = EpdWriter { tags };
            for game in crate::check::read_all(&knights(5_000)) {
                let mut held = Vec::new();
                writer.game(&game, &mut held);
                let mut streamed = Vec::new();
                writer.stream(&game, &mut streamed).unwrap();
                assert_eq!(streamed, held);
                assert_eq!(held.iter().filter(|&&b| b == b'\n').count(), 5_001);
            }
        }
    }

    #[test]
    fn only_a_game_whose_epd_can_pass_the_hold_is_too_large() {
        let writer = EpdWriter { tags: false };
        let [short, long] = [1_000, HOLD / 32].map(|plies| crate::check::read_all(&knights(plies)).remove(0));
        assert!(!writer.too_large(&short));
        assert!(writer.too_large(&long));
        let mut held = Vec::new();
        writer.game(&long, &mut held);
        assert!(held.len() > HOLD, "{} bytes", held.len());
    }
}
