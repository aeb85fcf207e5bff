//! How the commands that pick games (filter, dedup, split) write the games
//! they keep: as read, byte for byte, or normalized as `convert --to pgn`
//! writes them, with the opening tags their `--openings` asks for.

use std::{io, sync::Arc};

use pgnkit::{
    check::{GameReader, KeptTags, ReadOptions},
    frame::RawGame,
    game::Game,
    openings::{Naming, Openings},
    output::games::{GameWriter, PgnOptions, PgnWriter, original_ending, write_original},
};

use crate::cli::PickArgs;

/// The text a game is written in once picked: as read, or normalized PGN.
pub(crate) struct GameText {
    normalize: Option<PgnWriter>,
}

impl GameText {
    /// How `filter`, `dedup` and `split` write the games they keep: as
    /// read, or normalized with the opening tags of `openings` (their
    /// `--openings`, never a default: tags are added only when asked for).
    /// `naming` is the table the command names games by, when it does
    /// (`Some(None)`: by their tags), which `openings` then is too.
    pub fn of_pick(
        pick: &PickArgs,
        openings: Option<&Naming>,
        naming: Option<Option<&Arc<Openings>>>,
    ) -> anyhow::Result<GameText> {
        let table = match (openings, naming) {
            (None, _) => None,
            (Some(_), None) if !pick.normalize => {
                anyhow::bail!("--openings sets the tags of games written again: it needs --normalize")
            }
            (Some(_), Some(_)) if !pick.normalize => None,
            // Read once for both.
            (Some(_), Some(table)) => table.cloned(),
            (Some(openings), None) => openings.table().map_err(anyhow::Error::msg)?,
        };
        Ok(GameText::new(pick.normalize, table))
    }

    /// Games as read, or (`normalize`) as `convert --to pgn` writes them,
    /// with `ECO` and `Opening` tags from `openings` when given.
    pub fn new(normalize: bool, openings: Option<Arc<Openings>>) -> GameText {
        let writer = PgnWriter { options: PgnOptions { openings, ..PgnOptions::default() } };
        GameText { normalize: normalize.then_some(writer) }
    }

    /// Whether a game must be read in full ([`GameReader::read`] with notes) to
    /// be written.
    pub fn needs_game(&self) -> bool {
        self.normalize.is_some()
    }

    /// A reader set up for what [`GameText::write`] needs on top of what
    /// the command itself needs (`options`).
    pub fn reader(&self, mut options: ReadOptions) -> GameReader {
        if self.needs_game() {
            options.tags = KeptTags::All;
            options.check.full_reports = true;
        }
        GameReader::new(options)
    }

    /// Appends one game: `game` is the game read in full when
    /// [`GameText::needs_game`], else only its bytes are used.
    pub fn write(&self, raw: &RawGame<'_>, game: Option<&Game>, out: &mut Vec<u8>) {
        match (&self.normalize, game) {
            (Some(writer), Some(game)) => writer.game(game, out),
            _ => write_original(raw.bytes, out),
        }
    }
}

/// Writes a game as it was read, as [`write_original`] writes it, from the
/// batch it was read into rather than from a copy (`out` is the run's
/// sink, which writes it in its turn).
pub(crate) fn write_as_read(out: &mut impl io::Write, bytes: &[u8]) -> io::Result<()> {
    out.write_all(bytes)?;
    out.write_all(original_ending(bytes))
}
