//! One CSV row per game, with columns chosen by name: facts about the game
//! (`file`, `plies`, `termination`, ...) and any tag.

use super::{GameWriter, write_step};
use crate::{game::Game, notation::Notation, report::Termination};

/// The columns when none are chosen, in order.
pub const DEFAULT_COLUMNS: &[&str] = &[
    "file",
    "game",
    "line",
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
    "termination",
    "valid",
    "final_fen",
];

/// Names of the columns that are facts about the game, not tags.
const FACTS: &[&str] = &["file", "game", "line", "plies", "termination", "valid", "final_fen", "san", "uci"];

/// What a CSV column holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Column {
    /// A fact about the game: one of `file`, `game`, `line` (of the game's
    /// first byte), `plies`, `termination`, `valid`, `final_fen`, `san` and
    /// `uci` (the main line, space-separated).
    Fact(&'static str),
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
        if let Some(&fact) = FACTS.iter().find(|&&f| f == name) {
            return Ok(Column::Fact(fact));
        }
        if name.starts_with(|c: char| c.is_ascii_uppercase())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Ok(Column::Tag(name.to_owned()));
        }
        Err(format!(
            "unknown column `{name}`: columns are {}, a tag name such as White or WhiteElo, or Tag:NAME",
            FACTS.join(", ")
        ))
    }

    fn header(&self) -> &str {
        match self {
            Column::Fact(name) => name,
            Column::Tag(name) => name,
        }
    }
}

/// Writes one row per game with a header row.
#[derive(Debug, Clone)]
pub struct CsvGameWriter {
    /// The columns, in order.
    pub columns: Vec<Column>,
}

impl Default for CsvGameWriter {
    fn default() -> Self {
        let columns = DEFAULT_COLUMNS.iter().map(|c| Column::parse(c).expect("known columns")).collect();
        CsvGameWriter { columns }
    }
}

impl GameWriter for CsvGameWriter {
    fn header(&self, out: &mut Vec<u8>) {
        let mut w = ::csv::Writer::from_writer(out);
        w.write_record(self.columns.iter().map(Column::header)).expect("writing to memory");
        w.flush().expect("writing to memory");
    }

    fn game(&self, game: &Game, out: &mut Vec<u8>) {
        let report = &game.report;
        let mut w = ::csv::WriterBuilder::new().has_headers(false).from_writer(out);
        let mut buffer = String::new();
        for column in &self.columns {
            buffer.clear();
            let field: &str = match column {
                Column::Tag(name) => super::tag(game, name).unwrap_or_default(),
                Column::Fact("file") => &report.file,
                Column::Fact("game") => itoa(&mut buffer, report.game),
                Column::Fact("line") => itoa(&mut buffer, report.line),
                Column::Fact("plies") => itoa(&mut buffer, game.mainline.nodes.len() as u64),
                Column::Fact("termination") => report.termination.map_or("", Termination::as_str),
                Column::Fact("valid") => {
                    if report.valid {
                        "true"
                    } else {
                        "false"
                    }
                }
                Column::Fact("final_fen") => report.final_fen.as_deref().unwrap_or_default(),
                Column::Fact(notation @ ("san" | "uci")) => {
                    let notation = if *notation == "san" { Notation::San } else { Notation::Uci };
                    if let Some(start) = &game.start {
                        let mut pos = start.clone();
                        for (i, node) in game.mainline.nodes.iter().enumerate() {
                            if i > 0 {
                                buffer.push(' ');
                            }
                            write_step(&mut pos, node.step, notation, &mut buffer);
                        }
                    }
                    &buffer
                }
                Column::Fact(_) => "",
            };
            w.write_field(field).expect("writing to memory");
        }
        w.write_record(None::<&[u8]>).expect("writing to memory");
        w.flush().expect("writing to memory");
    }
}

fn itoa(buffer: &mut String, n: u64) -> &str {
    use std::fmt::Write as _;
    let _ = write!(buffer, "{n}");
    buffer
}
