//! One CSV row per game, with columns chosen by name: facts about the game
//! (`file`, `plies`, `board_termination`, ...) and any tag.

use std::sync::Arc;

use super::writer::{GameWriter, write_moves};
use crate::{
    aliases::Aliases,
    game::Game,
    notation::{Notation, digits},
    openings::Openings,
    output::csv_cells,
    report::Termination,
};

/// The columns when none are chosen, in order.
pub const DEFAULT_COLUMNS: &[&str] = &[
    "file",
    "game",
    "game_line",
    "Event",
    "Site",
    "Date",
    "Round",
    "White",
    "Black",
    "Result",
    "WhiteElo",
    "BlackElo",
    "ECO",
    "Opening",
    "TimeControl",
    "Termination",
    "plies",
    "board_termination",
    "valid",
    "final_fen",
];

/// A column that is a fact about the game, not a tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fact {
    /// The input's name.
    File,
    /// The game's number in its input.
    Game,
    /// The line of the game's first byte.
    Line,
    /// Main-line moves replayed.
    Plies,
    /// How the final position ends the game, if it does.
    Termination,
    /// Replayed, and no error found.
    Valid,
    /// Replayed from its start position (not for a variant or an unusable
    /// FEN tag).
    Checked,
    /// The final position.
    FinalFen,
    /// The main line in SAN, space-separated.
    San,
    /// The main line in UCI, space-separated.
    Uci,
    /// The ECO code of the deepest position an openings table names.
    OpeningEco,
    /// The name of that opening.
    OpeningName,
}

impl Fact {
    const ALL: [Fact; 12] = [
        Fact::File,
        Fact::Game,
        Fact::Line,
        Fact::Plies,
        Fact::Termination,
        Fact::Valid,
        Fact::Checked,
        Fact::FinalFen,
        Fact::San,
        Fact::Uci,
        Fact::OpeningEco,
        Fact::OpeningName,
    ];

    /// The column name.
    pub fn name(self) -> &'static str {
        match self {
            Fact::File => "file",
            Fact::Game => "game",
            // As every output names the game's first line (in `validate`'s
            // CSV, `line` is a finding's).
            Fact::Line => "game_line",
            Fact::Plies => "plies",
            // As the Parquet column: beside the Termination tag, a
            // `termination` column differed from it only by case, which
            // DuckDB and Spark cannot tell apart.
            Fact::Termination => "board_termination",
            Fact::Valid => "valid",
            Fact::Checked => "checked",
            Fact::FinalFen => "final_fen",
            Fact::San => "san",
            Fact::Uci => "uci",
            Fact::OpeningEco => "opening_eco",
            Fact::OpeningName => "opening_name",
        }
    }
}

/// What a CSV column holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Column {
    /// A fact about the game.
    Fact(Fact),
    /// The value of a tag (empty when the game lacks it).
    Tag(String),
}

impl Column {
    /// Reads a column name: a fact, a capitalized tag name (`White`,
    /// `WhiteElo`) or `Tag:NAME` for any tag.
    ///
    /// # Errors
    ///
    /// A name that is neither, with the names that are.
    pub fn parse(name: &str) -> Result<Column, String> {
        let name = name.trim();
        if let Some(tag) = name.strip_prefix("Tag:").or_else(|| name.strip_prefix("tag:")) {
            let valid = !tag.is_empty() && tag.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            return if valid { Ok(Column::Tag(tag.to_owned())) } else { Err(format!("`{name}` is not a tag name")) };
        }
        if let Some(&fact) = Fact::ALL.iter().find(|f| f.name() == name) {
            return Ok(Column::Fact(fact));
        }
        // The names before 0.2, read for one release.
        match name {
            "termination" => return Ok(Column::Fact(Fact::Termination)),
            "line" => return Ok(Column::Fact(Fact::Line)),
            _ => {}
        }
        if name.starts_with(|c: char| c.is_ascii_uppercase())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Ok(Column::Tag(name.to_owned()));
        }
        Err(format!(
            "unknown column `{name}`: columns are {}, a tag name such as White or WhiteElo, or Tag:NAME",
            Fact::ALL.map(Fact::name).join(", ")
        ))
    }

    /// The column's name in the header row.
    pub fn header(&self) -> &str {
        match self {
            Column::Fact(fact) => fact.name(),
            Column::Tag(name) => name,
        }
    }
}

/// Refuses a list of columns of which two have one name, or names that
/// differ only in case: CSV readers that take headers as SQL names (DuckDB,
/// Spark) take those for one column.
///
/// # Errors
///
/// The first such pair.
pub fn distinct_columns(columns: &[Column]) -> Result<(), String> {
    for (i, column) in columns.iter().enumerate() {
        let name = column.header();
        if let Some(before) = columns[..i].iter().map(Column::header).find(|b| b.eq_ignore_ascii_case(name)) {
            return Err(if before == name {
                format!("the column `{name}` is given twice")
            } else {
                format!(
                    "the columns `{before}` and `{name}` differ only in case, which CSV readers such as DuckDB and \
                     Spark take for one column"
                )
            });
        }
    }
    Ok(())
}

/// Writes one row per game with a header row.
#[derive(Debug, Clone)]
pub struct CsvGameWriter {
    columns: Vec<Column>,
    /// The tag columns and their places: one pass over a game's tags fills
    /// them all (a search per column was a tenth of `convert --to csv`).
    tag_columns: Vec<(String, usize)>,
    openings: Option<Arc<Openings>>,
    /// The White and Black columns are written through these.
    aliases: Option<Arc<Aliases>>,
    /// Whether each column is a rating tag (WhiteElo, BlackElo), written
    /// as a number or left empty, so that data tools load it as a number.
    elo: Vec<bool>,
}

/// The tags whose columns hold a rating as a number.
const ELO_TAGS: [&str; 2] = ["WhiteElo", "BlackElo"];

impl CsvGameWriter {
    /// A writer of these columns, in this order.
    pub fn new(columns: Vec<Column>) -> Self {
        let tag_columns = columns
            .iter()
            .enumerate()
            .filter_map(|(i, column)| match column {
                Column::Tag(name) => Some((name.clone(), i)),
                Column::Fact(_) => None,
            })
            .collect();
        let elo = columns.iter().map(|c| matches!(c, Column::Tag(name) if ELO_TAGS.contains(&name.as_str()))).collect();
        CsvGameWriter { columns, tag_columns, openings: None, aliases: None, elo }
    }

    /// The columns, in order.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// Names openings from this table (for `opening_eco`, `opening_name`).
    #[must_use]
    pub fn with_openings(mut self, openings: Arc<Openings>) -> Self {
        self.openings = Some(openings);
        self
    }

    /// Writes the White and Black columns as the names their aliases stand
    /// for.
    #[must_use]
    pub fn with_aliases(mut self, aliases: Arc<Aliases>) -> Self {
        self.aliases = Some(aliases);
        self
    }

    /// Whether a column needs an openings table.
    pub fn needs_openings(&self) -> bool {
        self.columns.iter().any(|c| matches!(c, Column::Fact(Fact::OpeningEco | Fact::OpeningName)))
    }
}

impl Default for CsvGameWriter {
    fn default() -> Self {
        CsvGameWriter::new(DEFAULT_COLUMNS.iter().map(|c| Column::parse(c).expect("known columns")).collect())
    }
}

impl GameWriter for CsvGameWriter {
    fn header(&self, out: &mut Vec<u8>) {
        let mut w = csv_cells::Writer::from_writer(out);
        w.write_record(self.columns.iter().map(Column::header)).expect("writing to memory");
        w.flush().expect("writing to memory");
    }

    fn game(&self, game: &Game, out: &mut Vec<u8>) {
        let report = &game.report;
        // One allocation for the row, not one per doubling.
        out.reserve(256);
        // On the stack for any usual number of columns: an allocation per
        // row showed in the profile.
        let (mut stack, mut heap) = ([None; 32], Vec::new());
        let tags: &mut [Option<&str>] = if self.columns.len() <= stack.len() {
            &mut stack[..self.columns.len()]
        } else {
            heap.resize(self.columns.len(), None);
            &mut heap
        };
        for (name, value) in game.tags.iter() {
            for (_, i) in self.tag_columns.iter().filter(|(n, _)| n == name) {
                // The last of a name, as every reader takes it.
                tags[*i] = Some(value);
            }
        }
        if let Some(aliases) = &self.aliases {
            for (_, i) in self.tag_columns.iter().filter(|(name, _)| name == "White" || name == "Black") {
                tags[*i] = tags[*i].map(|value| aliases.resolve(value));
            }
        }
        let mut number = [0; 20];
        let (mut moves, mut fen) = (Vec::new(), Vec::new());
        let opening = self.openings.as_ref().filter(|_| self.needs_openings()).and_then(|t| t.of_game(game));
        for (i, column) in self.columns.iter().enumerate() {
            let value: &[u8] = match column {
                Column::Tag(_) if self.elo[i] => {
                    crate::tag_values::elo(tags[i]).map_or(&[][..], |elo| digits(&mut number, u64::from(elo)))
                }
                Column::Tag(_) => tags[i].unwrap_or_default().as_bytes(),
                Column::Fact(Fact::File) => report.file.as_bytes(),
                Column::Fact(Fact::Game) => digits(&mut number, report.game),
                Column::Fact(Fact::Line) => digits(&mut number, report.line),
                Column::Fact(Fact::Plies) => digits(&mut number, game.mainline.nodes.len() as u64),
                Column::Fact(Fact::Termination) => report.termination.map_or("", Termination::as_str).as_bytes(),
                Column::Fact(Fact::Valid) => {
                    if report.valid {
                        b"true"
                    } else {
                        b"false"
                    }
                }
                Column::Fact(Fact::Checked) => {
                    if report.checked {
                        b"true"
                    } else {
                        b"false"
                    }
                }
                Column::Fact(Fact::FinalFen) => {
                    if let Some(final_fen) = &report.final_fen {
                        final_fen.write(&mut fen);
                    }
                    &fen
                }
                Column::Fact(fact @ (Fact::San | Fact::Uci)) => {
                    let notation = if *fact == Fact::San { Notation::San } else { Notation::Uci };
                    moves.clear();
                    if let Some(start) = &game.start {
                        write_moves(start, &game.mainline, notation, &mut moves);
                    }
                    &moves
                }
                Column::Fact(Fact::OpeningEco) => opening.map_or("", |o| o.eco.as_str()).as_bytes(),
                Column::Fact(Fact::OpeningName) => opening.map_or("", |o| o.name.as_str()).as_bytes(),
            };
            if i > 0 {
                out.push(b',');
            }
            field(value, out);
        }
        out.push(b'\n');
    }
}

/// The bytes that make a field quoted: one load per byte, where four
/// comparisons were the writer's busiest line.
const QUOTED: [bool; 256] = {
    let mut table = [false; 256];
    table[b',' as usize] = true;
    table[b'"' as usize] = true;
    table[b'\n' as usize] = true;
    table[b'\r' as usize] = true;
    table
};

/// Whether `value` holds a byte of [`QUOTED`], eight bytes at a time.
fn needs_quotes(value: &[u8]) -> bool {
    use crate::text::word::holds;
    let mut words = value.chunks_exact(8);
    for chunk in &mut words {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        if holds(word, b',') | holds(word, b'"') | holds(word, b'\n') | holds(word, b'\r') {
            return true;
        }
    }
    words.remainder().iter().any(|&b| QUOTED[usize::from(b)])
}

/// One field as the csv crate writes it (quoted only when it holds a comma,
/// a quote or a line break), by hand: a csv writer per row cost more than
/// the rest of the row. Guarded as every CSV cell is
/// ([`csv_cells::prefix`]).
fn field(value: &[u8], out: &mut Vec<u8>) {
    let before = csv_cells::prefix(value);
    if !needs_quotes(value) {
        out.extend_from_slice(before);
        out.extend_from_slice(value);
        return;
    }
    out.push(b'"');
    out.extend_from_slice(before);
    for &b in value {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::{QUOTED, needs_quotes};

    #[test]
    fn rating_columns_hold_a_number_or_nothing_and_other_tags_stay_as_written() {
        let pgn = "[WhiteElo \"2655\"]\n[BlackElo \"?\"]\n[WhiteRatingDiff \"+11\"]\n\n1. e4 *\n\n\
                   [WhiteElo \" 1800 \"]\n[BlackElo \"+2500\"]\n\n1. d4 *\n\n[BlackElo \"-\"]\n\n1. c4 *\n";
        let columns = ["WhiteElo", "BlackElo", "WhiteRatingDiff", "Tag:WhiteElo"];
        let writer = super::CsvGameWriter::new(columns.iter().map(|c| super::Column::parse(c).unwrap()).collect());
        let mut out = Vec::new();
        super::GameWriter::header(&writer, &mut out);
        for game in crate::check::read_all(pgn) {
            super::GameWriter::game(&writer, &game, &mut out);
        }
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out, "WhiteElo,BlackElo,WhiteRatingDiff,WhiteElo\n2655,,+11,2655\n1800,,,1800\n,,,\n");
    }

    #[test]
    fn the_word_at_a_time_test_finds_each_byte_that_needs_quotes_at_every_place() {
        for len in 1..20 {
            for place in 0..len {
                for byte in 0..=255u8 {
                    let mut value = vec![b'a'; len];
                    value[place] = byte;
                    assert_eq!(needs_quotes(&value), QUOTED[usize::from(byte)], "{value:?}");
                }
            }
        }
    }

    #[test]
    fn the_word_at_a_time_test_is_exact_for_every_pair_of_bytes_in_a_word() {
        // Borrows between lanes must not make a byte look like another.
        for first in 0..=255u8 {
            for second in 0..=255u8 {
                let value = [b'x', first, second, b'y', 0xff, 0x00, b'z', 0x80];
                let expected = value.iter().any(|&b| matches!(b, b',' | b'"' | b'\n' | b'\r'));
                assert_eq!(needs_quotes(&value), expected, "{value:?}");
            }
        }
    }
}
