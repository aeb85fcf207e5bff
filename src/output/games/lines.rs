//! One line per game: the main line in SAN, UCI or LAN, or the final
//! position as FEN; or one EPD line per position of every game.

use std::fmt::Write as _;

use shakmaty::{EnPassantMode, fen::Epd};

use super::writer::{GameWriter, write_moves};
use crate::{game::Game, notation::Notation};

/// The main line's moves separated by spaces (a game that cannot be
/// replayed gives an empty line, so lines and games stay in step).
#[derive(Debug, Clone, Copy)]
pub struct MovesWriter(pub Notation);

impl GameWriter for MovesWriter {
    fn game(&self, game: &Game, out: &mut Vec<u8>) {
        if let Some(start) = &game.start {
            write_moves(start, &game.mainline.nodes, self.0, out);
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
        let Some(start) = &game.start else { return };
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
        }
    }
}
