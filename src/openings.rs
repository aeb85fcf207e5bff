//! Opening names from a table in the layout of lichess's chess-openings
//! (TSV with the columns `eco`, `name`, `pgn`), matched by position, not by
//! move order, so that transpositions land on the right name.
//!
//! One table is built in: lichess's own (CC0), compressed into the binary
//! (`data/openings/`, rebuilt by `scripts/openings_table.sh`) and decoded
//! on first use; `--openings` and `PGNKIT_OPENINGS` name another, or `tags`
//! for the games' own ECO and Opening tags ([`Naming`]).

use std::{
    collections::HashMap,
    ffi::OsString,
    path::{Path, PathBuf},
    sync::{Arc, OnceLock},
};

use shakmaty::{Chess, EnPassantMode, Move, Position, zobrist::Zobrist64};

use crate::{game::Game, notation};

/// One named opening.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opening {
    /// Its ECO code (`C20`).
    pub eco: String,
    /// Its name (`King's Pawn Game: Napoleon Attack`).
    pub name: String,
}

/// The openings of a table, by the position their moves reach.
#[derive(Debug, Clone, Default)]
pub struct Openings {
    entries: Vec<Opening>,
    by_position: HashMap<u64, usize>,
    /// The longest line in the table, in plies: no deeper position can match.
    max_plies: usize,
}

fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// The built-in table as it is stored in the binary: lichess-org/chess-openings'
/// `a.tsv` to `e.tsv` under one header, zstd-compressed. Its source, licence
/// (CC0-1.0) and how it is rebuilt are in `data/openings/README.md`.
pub const BUILTIN_TABLE: &[u8] = include_bytes!("../data/openings/chess-openings.tsv.zst");

impl Openings {
    /// The built-in table ([`BUILTIN_TABLE`]), decoded and indexed on first
    /// use, once per process (about 3 ms and 0.5 MB), then shared.
    ///
    /// # Panics
    ///
    /// Never for the table built in, which the tests read in full.
    pub fn builtin() -> Arc<Openings> {
        static TABLE: OnceLock<Arc<Openings>> = OnceLock::new();
        let table = TABLE.get_or_init(|| {
            let text = zstd::decode_all(BUILTIN_TABLE).expect("the built-in openings table is zstd");
            let text = std::str::from_utf8(&text).expect("the built-in openings table is UTF-8");
            let mut openings = Openings::default();
            openings.add_table(text).expect("the built-in openings table reads");
            Arc::new(openings)
        });
        Arc::clone(table)
    }

    /// Reads a table file, or every `.tsv` file of a folder (in name order).
    ///
    /// # Errors
    ///
    /// An unreadable file, or a row that is not `eco`, `name` and playable
    /// moves (with its file and line).
    pub fn load(path: &Path) -> Result<Openings, String> {
        let files = if path.is_dir() {
            let entries = std::fs::read_dir(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let mut files: Vec<_> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "tsv"))
                .collect();
            files.sort();
            if files.is_empty() {
                return Err(format!("{}: no .tsv file in this folder", path.display()));
            }
            files
        } else {
            vec![path.to_path_buf()]
        };
        let mut openings = Openings::default();
        for file in files {
            let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            openings.add_table(&text).map_err(|e| format!("{}:{e}", file.display()))?;
        }
        Ok(openings)
    }

    /// Adds the rows of one TSV table (a header line `eco name pgn` first).
    ///
    /// # Errors
    ///
    /// `line: what is wrong` for the first bad row.
    pub fn add_table(&mut self, text: &str) -> Result<(), String> {
        for (i, line) in text.lines().enumerate() {
            let line = line.trim_end_matches('\r');
            if line.is_empty() || (i == 0 && line.starts_with("eco\t")) {
                continue;
            }
            let mut fields = line.split('\t');
            let (Some(eco), Some(name), Some(pgn)) = (fields.next(), fields.next(), fields.next()) else {
                return Err(format!("{}: expected eco, name and pgn separated by tabs", i + 1));
            };
            let mut pos = Chess::default();
            let mut plies = 0;
            for token in notation::tokens(pgn) {
                if let notation::Token::Move(text) = token {
                    let m = notation::read_move(&pos, text).map_err(|e| format!("{}: {}", i + 1, e.message))?.m;
                    pos.play_unchecked(m);
                    plies += 1;
                }
            }
            if plies == 0 {
                return Err(format!("{}: the opening `{name}` has no moves", i + 1));
            }
            let index = self.entries.len();
            self.entries.push(Opening { eco: eco.to_owned(), name: name.to_owned() });
            // The first row reaching a position names it.
            self.by_position.entry(key(&pos)).or_insert(index);
            self.max_plies = self.max_plies.max(plies);
        }
        Ok(())
    }

    /// How many openings the table holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The opening of the deepest position of the game that the table names;
    /// none for a game that does not start from the standard position.
    pub fn classify(&self, start: &Chess, steps: impl IntoIterator<Item = Option<Move>>) -> Option<&Opening> {
        if *start != Chess::default() {
            return None;
        }
        let mut pos = start.clone();
        let mut found = None;
        for step in steps.into_iter().take(self.max_plies) {
            let Some(m) = step else { break };
            pos.play_unchecked(m);
            if let Some(&index) = self.by_position.get(&key(&pos)) {
                found = Some(index);
            }
        }
        found.map(|i| &self.entries[i])
    }

    /// [`Openings::classify`] for a game's main line (none when it could not
    /// be replayed).
    pub fn of_game(&self, game: &Game) -> Option<&Opening> {
        self.classify(game.start.as_ref()?, game.mainline.nodes.iter().map(|n| n.step))
    }
}

/// Where games' openings are named from: the value of `--openings` (or of
/// `PGNKIT_OPENINGS`), `builtin`, `tags` or a table's path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Naming {
    /// The built-in table ([`Openings::builtin`]).
    Builtin,
    /// No table: a game's ECO and Opening tags, as it has them.
    Tags,
    /// A table file, or a folder of them ([`Openings::load`]).
    File(PathBuf),
}

impl From<OsString> for Naming {
    /// `builtin` and `tags` are the words; anything else is a path (a file
    /// named so is `./builtin`).
    fn from(text: OsString) -> Naming {
        match text.to_str() {
            Some("builtin") => Naming::Builtin,
            Some("tags") => Naming::Tags,
            _ => Naming::File(PathBuf::from(text)),
        }
    }
}

impl Naming {
    /// The table that names the openings; none for [`Naming::Tags`].
    ///
    /// # Errors
    ///
    /// A table file that cannot be read ([`Openings::load`]).
    pub fn table(&self) -> Result<Option<Arc<Openings>>, String> {
        match self {
            Naming::Builtin => Ok(Some(Openings::builtin())),
            Naming::Tags => Ok(None),
            Naming::File(path) => {
                Openings::load(path).map(|t| Some(Arc::new(t))).map_err(|e| format!("openings table {e}"))
            }
        }
    }

    /// The table's path, when it is a file of the user's.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Naming::File(path) => Some(path),
            Naming::Builtin | Naming::Tags => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{Chess, Position};

    use super::Openings;
    use crate::notation;

    const TABLE: &str = "eco\tname\tpgn\n\
        C20\tKing's Pawn Game\t1. e4 e5\n\
        C40\tKing's Knight Opening\t1. e4 e5 2. Nf3\n\
        C44\tKing's Pawn Game: Tayler Opening\t1. e4 e5 2. Nf3 Nc6 3. Be2\n\
        A15\tEnglish Opening: Anglo-Indian Defense\t1. c4 Nf6\n";

    fn steps(moves: &str) -> Vec<Option<shakmaty::Move>> {
        let mut pos = Chess::default();
        moves
            .split_whitespace()
            .map(|t| {
                let m = notation::read_move(&pos, t).unwrap().m;
                pos.play_unchecked(m);
                Some(m)
            })
            .collect()
    }

    #[test]
    fn the_deepest_named_position_wins_and_transpositions_land_on_it() {
        let mut openings = Openings::default();
        openings.add_table(TABLE).unwrap();
        let start = Chess::default();
        let name = |moves: &str| openings.classify(&start, steps(moves)).map(|o| o.name.clone());
        assert_eq!(name("e4 e5 Nf3 Nc6 Bb5").as_deref(), Some("King's Knight Opening"));
        assert_eq!(name("e4 e5 Nf3 Nc6 Be2 Nf6").as_deref(), Some("King's Pawn Game: Tayler Opening"));
        // Reached by another order: the knight first.
        assert_eq!(name("Nf3 e5 e4").as_deref(), Some("King's Knight Opening"));
        assert_eq!(name("d4 d5"), None);
    }

    #[test]
    fn the_built_in_table_names_lichess_openings_by_position() {
        let table = Openings::builtin();
        assert!(table.len() > 3000, "{}", table.len());
        let start = Chess::default();
        let named = |moves: &str| table.classify(&start, steps(moves)).map(|o| (o.eco.clone(), o.name.clone()));
        let najdorf = Some(("B90".to_owned(), "Sicilian Defense: Najdorf Variation".to_owned()));
        assert_eq!(named("e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6"), najdorf);
        // The same position by another order.
        assert_eq!(named("Nf3 c5 e4 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6"), najdorf);
        // Decoded once: every call shares it.
        assert!(std::sync::Arc::ptr_eq(&table, &Openings::builtin()));
    }

    #[test]
    fn a_bad_row_names_its_line() {
        let err = Openings::default().add_table("eco\tname\tpgn\nA00\tBroken\t1. e5\n").unwrap_err();
        assert!(err.starts_with("2: "), "{err}");
        assert!(Openings::default().add_table("just one field\n").unwrap_err().starts_with("1: expected"));
    }
}
