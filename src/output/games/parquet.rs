//! Games as Parquet rows, one per game: first the columns of lichess's public
//! dataset (`Lichess/standard-chess-games` on Hugging Face) under its names
//! and with its types, then pgnkit's own, so that DuckDB, Spark or BigQuery
//! read our files beside lichess's.
//!
//! The dataset's Arrow types are stored as pyarrow stored them: `string` as
//! UTF-8 `BYTE_ARRAY`, `int16` as `INT32` annotated `INTEGER(16,true)`,
//! `date32` as `INT32 DATE`, and `time32[s]` as `INT32 TIME(MILLIS,true)`
//! (Parquet has no seconds unit; "adjusted to UTC" is what pyarrow wrote
//! before version 22 and what the tag says, and DuckDB reads it as `TIMETZ`).
//! Every lichess column is nullable.
//!
//! Rows are kept column by column and written as a row group every
//! [`ROW_GROUP_ROWS`] games, or sooner once their text reaches
//! [`ROW_GROUP_BYTES`], so memory stays bounded whatever the input size.

use std::{
    fmt::{self, Write as _},
    io,
    sync::{Arc, OnceLock},
};

use bytes::Bytes;
use chrono::NaiveDate;
use parquet::{
    basic::{Compression, ZstdLevel},
    data_type::{BoolType, ByteArray, ByteArrayType, Int32Type, Int64Type},
    errors::ParquetError,
    file::{
        properties::WriterProperties,
        writer::{SerializedColumnWriter, SerializedFileWriter},
    },
    schema::parser::parse_message_type,
};

use super::{pgn, writer::tag};
use crate::{game::Game, report::Termination};

/// Games per row group, unless their text fills [`ROW_GROUP_BYTES`] first.
pub const ROW_GROUP_ROWS: usize = 65_536;

/// Text held before a row group is written early: games with long comments
/// (lichess's clock and evaluation annotations) would otherwise hold
/// hundreds of megabytes.
pub const ROW_GROUP_BYTES: usize = 64 << 20;

/// How a column is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// UTF-8 text (Arrow `string`).
    Text,
    /// A rating or rating change (Arrow `int16`).
    Int16,
    /// A number of seconds (Arrow `int32`).
    Int32,
    /// `YYYY.MM.DD`, as days since 1970-01-01 (Arrow `date32`).
    Date,
    /// `HH:MM:SS`, as milliseconds since midnight (Arrow `time32[s]`, which
    /// Parquet keeps in milliseconds).
    Time,
    /// A count.
    Int64,
    /// Yes or no.
    Bool,
}

impl Kind {
    /// The Parquet physical type and annotation, as in a message type.
    fn declaration(self) -> (&'static str, &'static str) {
        match self {
            Kind::Text => ("binary", " (STRING)"),
            Kind::Int16 => ("int32", " (INTEGER(16,true))"),
            Kind::Int32 => ("int32", ""),
            Kind::Date => ("int32", " (DATE)"),
            Kind::Time => ("int32", " (TIME(MILLIS,true))"),
            Kind::Int64 => ("int64", ""),
            Kind::Bool => ("boolean", ""),
        }
    }
}

/// How a tag column reads its tag's value; null where it does not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// As written.
    Text,
    /// A rating, as every command reads one ([`crate::tag_values::elo`]).
    Elo,
    /// A rating change (`+11`, `-9`).
    Int16,
    /// A complete calendar date.
    Date,
    /// A time of day.
    Time,
    /// The base time of a TimeControl's clock ([`crate::tag_values::clock`]).
    BaseSeconds,
    /// The increment of a TimeControl's clock.
    IncrementSeconds,
}

impl Reading {
    fn kind(self) -> Kind {
        match self {
            Reading::Text => Kind::Text,
            Reading::Elo | Reading::Int16 => Kind::Int16,
            Reading::Date => Kind::Date,
            Reading::Time => Kind::Time,
            Reading::BaseSeconds | Reading::IncrementSeconds => Kind::Int32,
        }
    }

    /// The cell of a tag's value (`None`: the game has no such tag).
    fn cell(self, value: Option<&str>) -> Cell<'_> {
        let seconds = |pick: fn((u64, u64)) -> u64| {
            value.and_then(crate::tag_values::clock).and_then(|clock| i32::try_from(pick(clock)).ok())
        };
        match self {
            Reading::Text => Cell::Text(value),
            Reading::Elo => {
                Cell::Int32(crate::tag_values::elo(value).and_then(|elo| i16::try_from(elo).ok()).map(i32::from))
            }
            Reading::Int16 => Cell::Int32(value.and_then(int16)),
            Reading::Date => Cell::Int32(value.and_then(date)),
            Reading::Time => Cell::Int32(value.and_then(time)),
            Reading::BaseSeconds => Cell::Int32(seconds(|(base, _)| base)),
            Reading::IncrementSeconds => Cell::Int32(seconds(|(_, increment)| increment)),
        }
    }
}

/// lichess's columns that hold a tag of the same name, in the dataset's
/// order (its `movetext` column follows them).
const TAG_COLUMNS: [(&str, Reading); 17] = [
    ("Event", Reading::Text),
    ("Site", Reading::Text),
    ("White", Reading::Text),
    ("Black", Reading::Text),
    ("Result", Reading::Text),
    ("WhiteTitle", Reading::Text),
    ("BlackTitle", Reading::Text),
    ("WhiteElo", Reading::Elo),
    ("BlackElo", Reading::Elo),
    ("WhiteRatingDiff", Reading::Int16),
    ("BlackRatingDiff", Reading::Int16),
    ("UTCDate", Reading::Date),
    ("UTCTime", Reading::Time),
    ("ECO", Reading::Text),
    ("Opening", Reading::Text),
    ("Termination", Reading::Text),
    ("TimeControl", Reading::Text),
];

/// The columns of tags lichess's dataset has not, after its `movetext`:
/// (column, tag, reading). A partial Date (`1992.??.??`) is no date, so
/// `date_text` keeps the tag as written beside it; it is not `date`, which
/// DuckDB and BigQuery would take for `Date`.
const MORE_TAG_COLUMNS: [(&str, &str, Reading); 6] = [
    ("Date", "Date", Reading::Date),
    ("date_text", "Date", Reading::Text),
    ("Round", "Round", Reading::Text),
    ("EventDate", "EventDate", Reading::Date),
    ("base_seconds", "TimeControl", Reading::BaseSeconds),
    ("increment_seconds", "TimeControl", Reading::IncrementSeconds),
];

/// The columns after the tags: lichess's `movetext` (before
/// [`MORE_TAG_COLUMNS`]), then pgnkit's, with whether each may be null.
/// Our termination is `board_termination`, not `termination`: DuckDB and
/// BigQuery compare column names without case, so it would clash with
/// lichess's `Termination`.
const MOVETEXT_COLUMN: (&str, Kind, bool) = ("movetext", Kind::Text, true);
const OUR_COLUMNS: [(&str, Kind, bool); 6] = [
    ("file", Kind::Text, false),
    ("game", Kind::Int64, false),
    ("plies", Kind::Int64, false),
    ("valid", Kind::Bool, false),
    ("final_fen", Kind::Text, true),
    ("board_termination", Kind::Text, true),
];

/// Every column in schema order: (name, kind, nullable).
fn schema_columns() -> impl Iterator<Item = (&'static str, Kind, bool)> {
    let lichess = TAG_COLUMNS.iter().map(|&(name, reading)| (name, reading.kind(), true));
    let more = MORE_TAG_COLUMNS.iter().map(|&(name, _, reading)| (name, reading.kind(), true));
    lichess.chain([MOVETEXT_COLUMN]).chain(more).chain(OUR_COLUMNS)
}

/// The file's schema as a Parquet message type.
fn message_type() -> String {
    let mut text = String::from("message schema {\n");
    for (name, kind, nullable) in schema_columns() {
        let repetition = if nullable { "optional" } else { "required" };
        let (physical, annotation) = kind.declaration();
        writeln!(text, "  {repetition} {physical} {name}{annotation};").expect("writing to a String");
    }
    text.push('}');
    text
}

/// Writes games to a Parquet file, one row each.
///
/// The games must come from a [`Checker`](crate::check::Checker) made
/// with records, all tags and full reports, or the tag columns and
/// `final_fen` are null.
///
/// Call [`finish`](ParquetWriter::finish) at the end: it writes the last
/// rows and the file's footer, without which the file cannot be read.
pub struct ParquetWriter<W: io::Write + Send> {
    file: SerializedFileWriter<Output<W>>,
    /// The first error the output gave, shared with [`Output`].
    failure: Arc<OnceLock<io::ErrorKind>>,
    /// One buffer per schema column, in schema order.
    columns: Vec<Column>,
    /// Rows buffered.
    rows: usize,
    /// Text buffered, in bytes.
    text: usize,
    max_rows: usize,
    max_text: usize,
}

impl<W: io::Write + Send> fmt::Debug for ParquetWriter<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParquetWriter")
            .field("rows", &self.rows)
            .field("row_groups", &self.file.flushed_row_groups().len())
            .finish_non_exhaustive()
    }
}

impl<W: io::Write + Send> ParquetWriter<W> {
    /// Starts a file on `out` (it writes the magic bytes at once).
    pub fn new(out: W) -> io::Result<Self> {
        let failure = Arc::new(OnceLock::new());
        let fail = |err| io_error(err, &failure);
        let schema = Arc::new(parse_message_type(&message_type()).map_err(fail)?);
        let properties = WriterProperties::builder().set_compression(Compression::ZSTD(ZstdLevel::default())).build();
        let output = Output { inner: out, failure: Arc::clone(&failure) };
        let file = SerializedFileWriter::new(output, schema, Arc::new(properties)).map_err(fail)?;
        let columns = schema_columns().map(|(_, kind, nullable)| Column::new(kind, nullable)).collect();
        Ok(ParquetWriter {
            file,
            failure,
            columns,
            rows: 0,
            text: 0,
            max_rows: ROW_GROUP_ROWS,
            max_text: ROW_GROUP_BYTES,
        })
    }

    /// Adds a game's row, writing a row group when enough rows are held.
    pub fn push(&mut self, game: &Game) -> io::Result<()> {
        let report = &game.report;
        let movetext = pgn::movetext(game);
        let final_fen = report.final_fen.as_ref().map(ToString::to_string);
        let tags = TAG_COLUMNS.iter().map(|&(name, reading)| reading.cell(tag(game, name)));
        let more = MORE_TAG_COLUMNS.iter().map(|&(_, name, reading)| reading.cell(tag(game, name)));
        let ours = [
            Cell::Text(Some(&report.file)),
            Cell::Int64(i64::try_from(report.game).unwrap_or(i64::MAX)),
            Cell::Int64(i64::from(report.plies)),
            Cell::Bool(report.valid),
            Cell::Text(final_fen.as_deref()),
            Cell::Text(report.termination.map(Termination::as_str)),
        ];
        let cells = tags.chain([Cell::Text(Some(&movetext))]).chain(more).chain(ours);
        for (column, cell) in self.columns.iter_mut().zip(cells) {
            self.text += column.push(cell);
        }
        self.rows += 1;
        if self.rows >= self.max_rows || self.text >= self.max_text {
            self.write_row_group().map_err(|err| io_error(err, &self.failure))?;
        }
        Ok(())
    }

    /// Writes the rows still held and the footer, and hands back the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.write_row_group().map_err(|err| io_error(err, &self.failure))?;
        let failure = Arc::clone(&self.failure);
        let output = self.file.into_inner().map_err(|err| io_error(err, &failure))?;
        Ok(output.inner)
    }

    fn write_row_group(&mut self) -> Result<(), ParquetError> {
        if self.rows == 0 {
            return Ok(());
        }
        let mut group = self.file.next_row_group()?;
        for column in &mut self.columns {
            let Some(mut writer) = group.next_column()? else {
                return Err(ParquetError::General("more column buffers than schema columns".to_owned()));
            };
            column.write(&mut writer)?;
            writer.close()?;
        }
        group.close()?;
        self.rows = 0;
        self.text = 0;
        Ok(())
    }
}

/// A value for one column of a row.
enum Cell<'a> {
    Text(Option<&'a str>),
    Int32(Option<i32>),
    Int64(i64),
    Bool(bool),
}

/// One column's values for the rows held.
#[derive(Debug)]
struct Column {
    values: Values,
    /// Definition levels (1: a value, 0: null); `None` for a column that
    /// cannot be null.
    defs: Option<Vec<i16>>,
}

#[derive(Debug)]
enum Values {
    /// The texts end to end, and where each ends: one allocation for the
    /// column rather than one per value.
    Text {
        bytes: Vec<u8>,
        ends: Vec<usize>,
    },
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    Bool(Vec<bool>),
}

impl Column {
    fn new(kind: Kind, nullable: bool) -> Column {
        let values = match kind {
            Kind::Text => Values::Text { bytes: Vec::new(), ends: Vec::new() },
            Kind::Int16 | Kind::Int32 | Kind::Date | Kind::Time => Values::Int32(Vec::new()),
            Kind::Int64 => Values::Int64(Vec::new()),
            Kind::Bool => Values::Bool(Vec::new()),
        };
        Column { values, defs: nullable.then(Vec::new) }
    }

    /// Adds a row's value; returns the bytes of text it added.
    fn push(&mut self, cell: Cell<'_>) -> usize {
        let (present, text) = match (&mut self.values, cell) {
            (Values::Text { bytes, ends }, Cell::Text(value)) => match value {
                Some(value) => {
                    bytes.extend_from_slice(value.as_bytes());
                    ends.push(bytes.len());
                    (true, value.len())
                }
                None => (false, 0),
            },
            (Values::Int32(values), Cell::Int32(value)) => {
                values.extend(value);
                (value.is_some(), 0)
            }
            (Values::Int64(values), Cell::Int64(value)) => {
                values.push(value);
                (true, 0)
            }
            (Values::Bool(values), Cell::Bool(value)) => {
                values.push(value);
                (true, 0)
            }
            _ => unreachable!("a value of another type than its column"),
        };
        match &mut self.defs {
            Some(defs) => defs.push(i16::from(present)),
            None => assert!(present, "a null in a column that cannot be null"),
        }
        text
    }

    /// Writes the values held as one column chunk and forgets them.
    fn write(&mut self, writer: &mut SerializedColumnWriter<'_>) -> Result<(), ParquetError> {
        let defs = self.defs.as_deref();
        match &mut self.values {
            Values::Text { bytes, ends } => {
                let bytes = Bytes::from(std::mem::take(bytes));
                let mut start = 0;
                let values: Vec<ByteArray> = ends
                    .drain(..)
                    .map(|end| {
                        let value = ByteArray::from(bytes.slice(start..end));
                        start = end;
                        value
                    })
                    .collect();
                writer.typed::<ByteArrayType>().write_batch(&values, defs, None)?;
            }
            Values::Int32(values) => {
                writer.typed::<Int32Type>().write_batch(values, defs, None)?;
                values.clear();
            }
            Values::Int64(values) => {
                writer.typed::<Int64Type>().write_batch(values, defs, None)?;
                values.clear();
            }
            Values::Bool(values) => {
                writer.typed::<BoolType>().write_batch(values, defs, None)?;
                values.clear();
            }
        }
        if let Some(defs) = &mut self.defs {
            defs.clear();
        }
        Ok(())
    }
}

/// A rating or rating change (`1756`, `+11`, `-9`); `?`, empty or out of
/// range is null.
fn int16(value: &str) -> Option<i32> {
    value.trim().parse::<i16>().ok().map(i32::from)
}

/// `YYYY.MM.DD` as days since 1970-01-01; a date with `?` or that is not in
/// the calendar is null.
fn date(value: &str) -> Option<i32> {
    let value = value.trim().as_bytes();
    let [y0, y1, y2, y3, b'.', m0, m1, b'.', d0, d1] = *value else {
        return None;
    };
    let year = number(&[y0, y1, y2, y3])?;
    let day = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, number(&[m0, m1])?, number(&[d0, d1])?)?;
    Some(day.to_epoch_days())
}

/// `HH:MM:SS` as milliseconds since midnight; anything else is null.
fn time(value: &str) -> Option<i32> {
    let value = value.trim().as_bytes();
    let [h0, h1, b':', m0, m1, b':', s0, s1] = *value else {
        return None;
    };
    let (hours, minutes, seconds) = (number(&[h0, h1])?, number(&[m0, m1])?, number(&[s0, s1])?);
    if hours > 23 || minutes > 59 || seconds > 59 {
        return None;
    }
    i32::try_from(((hours * 60 + minutes) * 60 + seconds) * 1000).ok()
}

/// ASCII digits as a number.
fn number(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0, |n, &c| c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0')))
}

/// The output, remembering the kind of its first error: the Parquet writer
/// reports a failure of its final flush only as text, and a closed pipe must
/// still read as a closed pipe.
struct Output<W> {
    inner: W,
    failure: Arc<OnceLock<io::ErrorKind>>,
}

impl<W: io::Write> Output<W> {
    fn noted<T>(&self, result: io::Result<T>) -> io::Result<T> {
        result.inspect_err(|err| {
            let _ = self.failure.set(err.kind());
        })
    }
}

impl<W: io::Write> io::Write for Output<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let result = self.inner.write(buf);
        self.noted(result)
    }

    fn flush(&mut self) -> io::Result<()> {
        let result = self.inner.flush();
        self.noted(result)
    }
}

/// A Parquet error as an I/O error, of the output's kind when the output
/// failed.
fn io_error(err: ParquetError, failure: &OnceLock<io::ErrorKind>) -> io::Error {
    match err {
        ParquetError::External(inner) => match inner.downcast::<io::Error>() {
            Ok(err) => *err,
            Err(inner) => io::Error::new(failure.get().copied().unwrap_or(io::ErrorKind::Other), inner),
        },
        err => io::Error::new(failure.get().copied().unwrap_or(io::ErrorKind::Other), err),
    }
}

#[cfg(test)]
mod tests {
    use std::io;

    use bytes::Bytes;
    use parquet::{
        file::reader::{FileReader, SerializedFileReader},
        record::{Field, Row},
        schema::printer::print_schema,
    };

    use super::{ParquetWriter, ROW_GROUP_ROWS, date, int16, time};
    use crate::{game::Game, output::games::pgn::movetext};

    fn games(pgn: &str) -> Vec<Game> {
        crate::check::read_all(pgn)
    }

    fn write(games: &[Game]) -> Vec<u8> {
        let mut writer = ParquetWriter::new(Vec::new()).unwrap();
        for game in games {
            writer.push(game).unwrap();
        }
        writer.finish().unwrap()
    }

    fn open(file: Vec<u8>) -> SerializedFileReader<Bytes> {
        SerializedFileReader::new(Bytes::from(file)).unwrap()
    }

    fn rows(reader: &SerializedFileReader<Bytes>) -> Vec<Row> {
        reader.get_row_iter(None).unwrap().map(Result::unwrap).collect()
    }

    fn field<'a>(row: &'a Row, name: &str) -> &'a Field {
        row.get_column_iter().find(|(n, _)| *n == name).map(|(_, f)| f).unwrap()
    }

    fn text(value: &str) -> Field {
        Field::Str(value.to_owned())
    }

    const LICHESS_GAME: &str = "[Event \"Rated Blitz game\"]\n[Site \"https://lichess.org/abcdefgh\"]\n\
        [White \"alice\"]\n[Black \"bob\"]\n[Result \"0-1\"]\n[UTCDate \"2013.05.31\"]\n[UTCTime \"22:00:22\"]\n\
        [WhiteElo \"1756\"]\n[BlackElo \"1684\"]\n[WhiteRatingDiff \"-9\"]\n[BlackRatingDiff \"+11\"]\n\
        [WhiteTitle \"FM\"]\n[ECO \"C20\"]\n[Opening \"Barnes Opening: Fool's Mate\"]\n[TimeControl \"300+0\"]\n\
        [Termination \"Normal\"]\n\n1. f3 { [%clk 0:05:00] } 1... e5 2. g4 Qh4# 0-1\n\n";

    #[test]
    fn the_schema_has_lichess_names_and_types_then_ours() {
        let reader = open(write(&[]));
        let mut printed = Vec::new();
        print_schema(&mut printed, reader.metadata().file_metadata().schema());
        let expected = "message schema {
  OPTIONAL BYTE_ARRAY Event (STRING);
  OPTIONAL BYTE_ARRAY Site (STRING);
  OPTIONAL BYTE_ARRAY White (STRING);
  OPTIONAL BYTE_ARRAY Black (STRING);
  OPTIONAL BYTE_ARRAY Result (STRING);
  OPTIONAL BYTE_ARRAY WhiteTitle (STRING);
  OPTIONAL BYTE_ARRAY BlackTitle (STRING);
  OPTIONAL INT32 WhiteElo (INTEGER(16,true));
  OPTIONAL INT32 BlackElo (INTEGER(16,true));
  OPTIONAL INT32 WhiteRatingDiff (INTEGER(16,true));
  OPTIONAL INT32 BlackRatingDiff (INTEGER(16,true));
  OPTIONAL INT32 UTCDate (DATE);
  OPTIONAL INT32 UTCTime (TIME(MILLIS,true));
  OPTIONAL BYTE_ARRAY ECO (STRING);
  OPTIONAL BYTE_ARRAY Opening (STRING);
  OPTIONAL BYTE_ARRAY Termination (STRING);
  OPTIONAL BYTE_ARRAY TimeControl (STRING);
  OPTIONAL BYTE_ARRAY movetext (STRING);
  OPTIONAL INT32 Date (DATE);
  OPTIONAL BYTE_ARRAY date_text (STRING);
  OPTIONAL BYTE_ARRAY Round (STRING);
  OPTIONAL INT32 EventDate (DATE);
  OPTIONAL INT32 base_seconds;
  OPTIONAL INT32 increment_seconds;
  REQUIRED BYTE_ARRAY file (STRING);
  REQUIRED INT64 game;
  REQUIRED INT64 plies;
  REQUIRED BOOLEAN valid;
  OPTIONAL BYTE_ARRAY final_fen (STRING);
  OPTIONAL BYTE_ARRAY board_termination (STRING);
}
";
        assert_eq!(String::from_utf8(printed).unwrap(), expected);
        assert_eq!(reader.metadata().file_metadata().num_rows(), 0);
    }

    #[test]
    fn a_lichess_game_fills_every_column_with_typed_values() {
        let game = &games(LICHESS_GAME)[0];
        let reader = open(write(std::slice::from_ref(game)));
        let row = &rows(&reader)[0];
        let expected = [
            ("Event", text("Rated Blitz game")),
            ("Site", text("https://lichess.org/abcdefgh")),
            ("White", text("alice")),
            ("Black", text("bob")),
            ("Result", text("0-1")),
            ("WhiteTitle", text("FM")),
            ("BlackTitle", Field::Null),
            ("WhiteElo", Field::Short(1756)),
            ("BlackElo", Field::Short(1684)),
            ("WhiteRatingDiff", Field::Short(-9)),
            ("BlackRatingDiff", Field::Short(11)),
            ("UTCDate", Field::Date(15856)),
            ("UTCTime", Field::TimeMillis(79_222_000)),
            ("ECO", text("C20")),
            ("Opening", text("Barnes Opening: Fool's Mate")),
            ("Termination", text("Normal")),
            ("TimeControl", text("300+0")),
            ("movetext", text("1. f3 { [%clk 0:05:00] } 1... e5 2. g4 Qh4# 0-1")),
            ("Date", Field::Null),
            ("date_text", Field::Null),
            ("Round", Field::Null),
            ("EventDate", Field::Null),
            ("base_seconds", Field::Int(300)),
            ("increment_seconds", Field::Int(0)),
            ("file", text("t.pgn")),
            ("game", Field::Long(1)),
            ("plies", Field::Long(4)),
            ("valid", Field::Bool(true)),
            ("final_fen", text("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")),
            ("board_termination", text("checkmate")),
        ];
        let actual: Vec<(&str, Field)> = row.get_column_iter().map(|(n, f)| (n.as_str(), f.clone())).collect();
        assert_eq!(actual, expected);
        assert_eq!(field(row, "movetext"), &text(&movetext(game)));
    }

    #[test]
    fn missing_tags_and_unreadable_numbers_dates_and_times_are_null() {
        let pgn = "[White \"?\"]\n[WhiteElo \"?\"]\n[BlackElo \"\"]\n[WhiteRatingDiff \"40000\"]\n\
                   [UTCDate \"2013.02.30\"]\n[UTCTime \"25:00:00\"]\n[Opening \"\"]\n\n1. e4 e5 2. Ke3 *\n\n\
                   [UTCDate \"2013.05.??\"]\n[UTCTime \"22:00\"]\n\n1. d4 *\n";
        let rows = rows(&open(write(&games(pgn))));
        let nulls = [
            "Event",
            "Site",
            "Black",
            "Result",
            "WhiteTitle",
            "BlackTitle",
            "WhiteElo",
            "BlackElo",
            "WhiteRatingDiff",
            "BlackRatingDiff",
            "UTCDate",
            "UTCTime",
            "ECO",
            "Termination",
            "TimeControl",
            "Date",
            "date_text",
            "Round",
            "EventDate",
            "base_seconds",
            "increment_seconds",
            "board_termination",
        ];
        for name in nulls {
            assert_eq!(field(&rows[0], name), &Field::Null, "{name}");
        }
        assert_eq!(field(&rows[0], "White"), &text("?"));
        assert_eq!(field(&rows[0], "Opening"), &text(""));
        assert_eq!(field(&rows[1], "UTCDate"), &Field::Null);
        assert_eq!(field(&rows[1], "UTCTime"), &Field::Null);
        assert_eq!(field(&rows[1], "game"), &Field::Long(2));
    }

    #[test]
    fn dates_are_dates_where_complete_with_the_tag_as_written_beside_and_clocks_are_seconds() {
        let pgn = "[Date \"1992.11.04\"]\n[Round \"29.1\"]\n[EventDate \"1992.09.02\"]\n[WhiteElo \"2655\"]\n\
                   [BlackElo \"+2500\"]\n[TimeControl \"180+2\"]\n\n1. e4 *\n\n\
                   [Date \"1992.??.??\"]\n[Round \"-\"]\n[EventDate \"?\"]\n[WhiteElo \"0\"]\n[BlackElo \"-\"]\n\
                   [TimeControl \"40/7200:3600\"]\n\n1. e4 *\n\n[TimeControl \"-\"]\n\n1. d4 *\n";
        let rows = rows(&open(write(&games(pgn))));
        let columns =
            ["Date", "date_text", "Round", "EventDate", "WhiteElo", "BlackElo", "base_seconds", "increment_seconds"];
        let values = |row: &Row| columns.map(|name| field(row, name).clone());
        assert_eq!(
            values(&rows[0]),
            [
                Field::Date(8343),
                text("1992.11.04"),
                text("29.1"),
                Field::Date(8280),
                Field::Short(2655),
                Field::Null,
                Field::Int(180),
                Field::Int(2)
            ]
        );
        assert_eq!(
            values(&rows[1]),
            [
                Field::Null,
                text("1992.??.??"),
                text("-"),
                Field::Null,
                Field::Null,
                Field::Null,
                Field::Null,
                Field::Null
            ]
        );
        assert_eq!([field(&rows[2], "base_seconds"), field(&rows[2], "increment_seconds")], [&Field::Null; 2]);
    }

    #[test]
    fn ours_say_how_far_the_game_was_replayed() {
        let pgn = "[Event \"illegal\"]\n\n1. e4 e5 2. Ke3 *\n\n[SetUp \"1\"]\n[FEN \"not a position\"]\n\n1. e4 *\n";
        let rows = rows(&open(write(&games(pgn))));
        assert_eq!(
            [field(&rows[0], "plies"), field(&rows[0], "valid"), field(&rows[0], "board_termination")],
            [&Field::Long(2), &Field::Bool(false), &Field::Null]
        );
        assert_eq!(field(&rows[0], "final_fen"), &text("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"));
        assert_eq!(
            [field(&rows[1], "plies"), field(&rows[1], "valid"), field(&rows[1], "final_fen")],
            [&Field::Long(0), &Field::Bool(false), &Field::Null]
        );
    }

    #[test]
    fn a_row_group_is_written_every_65536_games_and_no_row_is_lost() {
        let game = &games(LICHESS_GAME)[0];
        let mut writer = ParquetWriter::new(Vec::new()).unwrap();
        for _ in 0..=ROW_GROUP_ROWS {
            writer.push(game).unwrap();
        }
        let reader = open(writer.finish().unwrap());
        let groups: Vec<i64> = reader.metadata().row_groups().iter().map(|g| g.num_rows()).collect();
        assert_eq!(groups, [ROW_GROUP_ROWS as i64, 1]);
        assert_eq!(reader.get_row_iter(None).unwrap().count(), ROW_GROUP_ROWS + 1);
    }

    #[test]
    fn a_row_group_is_written_early_when_its_text_is_large_and_rows_keep_their_order() {
        let pgn: String = (1..=10).map(|i| format!("[White \"player {i}\"]\n\n1. e4 *\n\n")).collect();
        let games = games(&pgn);
        let mut writer = ParquetWriter::new(Vec::new()).unwrap();
        writer.push(&games[0]).unwrap();
        writer.max_text = 3 * writer.text;
        for game in &games[1..] {
            writer.push(game).unwrap();
        }
        let reader = open(writer.finish().unwrap());
        let groups: Vec<i64> = reader.metadata().row_groups().iter().map(|g| g.num_rows()).collect();
        assert_eq!(groups, [3, 3, 3, 1]);
        let rows = rows(&reader);
        let numbers: Vec<&Field> = rows.iter().map(|r| field(r, "game")).collect();
        let expected: Vec<Field> = (1..=10).map(Field::Long).collect();
        assert_eq!(numbers, expected.iter().collect::<Vec<_>>());
        assert_eq!(field(&rows[9], "White"), &text("player 10"));
    }

    /// An output whose reader has gone away.
    #[derive(Debug)]
    struct ClosedPipe;

    impl io::Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_pipe_is_reported_as_a_closed_pipe_in_the_last_flush_and_before() {
        let empty = ParquetWriter::new(ClosedPipe).unwrap();
        assert_eq!(empty.finish().unwrap_err().kind(), io::ErrorKind::BrokenPipe);

        let games = games(&LICHESS_GAME.repeat(50));
        let mut small = ParquetWriter::new(ClosedPipe).unwrap();
        small.push(&games[0]).unwrap();
        assert_eq!(small.finish().unwrap_err().kind(), io::ErrorKind::BrokenPipe);

        let mut large = ParquetWriter::new(ClosedPipe).unwrap();
        large.max_rows = 10;
        let err = games.iter().try_for_each(|game| large.push(game)).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
    }

    #[test]
    fn ratings_dates_and_times_read_as_lichess_spells_them() {
        assert_eq!([int16("1756"), int16("+11"), int16("-9")], [Some(1756), Some(11), Some(-9)]);
        assert_eq!([int16("?"), int16(""), int16("40000"), int16("1500.5")], [None; 4]);
        assert_eq!([date("1970.01.01"), date("1969.12.31"), date("2000.02.29")], [Some(0), Some(-1), Some(11016)]);
        assert_eq!([date("2001.02.29"), date("2013.05.??"), date("????.??.??"), date("2013-05-31")], [None; 4]);
        assert_eq!([time("00:00:00"), time("23:59:59")], [Some(0), Some(86_399_000)]);
        assert_eq!([time("24:00:00"), time("12:60:00"), time("?"), time("1:00:00")], [None; 4]);
    }
}
