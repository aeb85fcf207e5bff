//! `pgnkit convert`: write every game in another form, checking it on the
//! way as `validate` does.

use std::{
    io::{self, Write},
    sync::Arc,
};

#[cfg(feature = "parquet")]
use anyhow::Context;
use pgnkit::{
    aliases::Aliases,
    check::{GameReader, KeptTags, Options, ReadOptions},
    notation::Notation,
    output::file::OutputFile,
    output::findings::{ReportWriter, TextWriter},
    output::games::{
        Column, CsvGameWriter, EpdWriter, Fact, FinalFenWriter, GameWriter, JsonlGameWriter, MovesWriter, PgnOptions,
        PgnWriter, distinct_columns,
    },
    report::{Code, GameReport},
};

use crate::{
    cli::{ConvertArgs, ConvertFormat, GlobalArgs, openings_naming},
    exit::ExitStatus,
    pipeline,
    run::Run,
    sink::{GameOutput, OrderedSink, Streamed},
};

pub fn run(args: &ConvertArgs, global: &GlobalArgs) -> anyhow::Result<ExitStatus> {
    args.refuse_idle_options()?;
    // Shared with the output of games too large to hold, written later.
    let writer: Option<Arc<dyn GameWriter>> = writer(args)?.map(Arc::from);
    // Comments, NAGs and variations are read only for the formats that
    // write them.
    let notes = match args.to {
        ConvertFormat::Pgn => !(args.no_comments && args.no_nags && args.no_variations),
        ConvertFormat::Jsonl => true,
        // Its movetext column keeps them.
        ConvertFormat::Parquet => true,
        _ => false,
    };
    let findings = TextWriter { verbose: false, color: global.stderr_color() };
    let (tags, fen, san) = needs(args);

    // Made before anything is read, so that an output that may not be
    // written (an input, a directory) is refused at once.
    let output = match &args.output {
        Some(path) => {
            let mut read = crate::cli::inputs_and_openings(&args.inputs.paths, args.openings.as_ref());
            if let Some(aliases) = &args.aliases {
                read.add_path(aliases);
            }
            Some(OutputFile::create(path, &read)?)
        }
        None => None,
    };
    let out: Box<dyn Write + Send> = match (&output, &args.output) {
        (Some(file), Some(path)) => Box::new(crate::stdout::Named::new(path.display().to_string(), file.handle()?)),
        _ => Box::new(crate::stdout::stdout()),
    };
    let mut run = Run::new(&args.inputs, args.max_game_size, global);
    // The framer keeps where the notes are: no second walk over a game.
    run.frame.keep_notes = notes;
    // Parquet goes through its own writer; the byte sink gets nothing.
    #[cfg(feature = "parquet")]
    let (out, parquet): (Box<dyn Write + Send>, _) = if writer.is_none() {
        if args.output.is_none() && std::io::IsTerminal::is_terminal(&io::stdout()) {
            anyhow::bail!("Parquet is binary: give --output FILE or redirect stdout");
        }
        let parquet =
            pgnkit::output::games::parquet::ParquetWriter::new(out).context("cannot start the Parquet file")?;
        (Box::new(io::sink()), Some(parquet))
    } else {
        (out, None)
    };
    #[cfg(feature = "parquet")]
    let fold = ParquetGames(parquet);
    #[cfg(not(feature = "parquet"))]
    let fold = ();
    let mut sink = OrderedSink::with_fold(io::BufWriter::with_capacity(1 << 16, out), &run.bar, fold);
    if args.output.is_none() {
        sink = sink.writing_stdout();
    }
    if writer.is_some() {
        sink = sink.lending();
    }
    let mut header = Vec::new();
    if let Some(writer) = &writer {
        writer.header(&mut header);
    }
    sink.out.write_all(&header)?;

    let skip_invalid = args.skip_invalid;
    let pgn = matches!(args.to, ConvertFormat::Pgn);
    pipeline::run(
        &run.options(),
        || {
            let check = Options { full_reports: false, final_fen: fen, ..Options::default() };
            GameReader::new(ReadOptions { check, tags: tags.clone(), san, ..ReadOptions::default() })
        },
        |checker, file, raw| {
            let mut game = checker.read(file, raw, notes);
            // A game that could not be replayed is skipped only for an error.
            let written = !game.report.invalid() || !skip_invalid;
            if written && pgn {
                note_written_result(&mut game.report, game.result);
            }
            // A writer writes output for (nearly) every game: onto the
            // end of its batch's.
            let mut produced = if writer.is_some() { GameOutput::onto_batch() } else { GameOutput::default() };
            produced.summary += &game.report;
            findings.game(&game.report, &mut produced.err);
            if !written {
                checker.recycle(game);
                return produced;
            }
            match &writer {
                Some(writer) if writer.too_large(&game) => {
                    let writer = Arc::clone(writer);
                    produced.streamed = Some(Streamed::new(move |out| writer.stream(&game, out)));
                }
                Some(writer) => {
                    writer.game(&game, &mut produced.out);
                    checker.recycle(game);
                }
                #[cfg(feature = "parquet")]
                None => produced.item = Some(game),
                #[cfg(not(feature = "parquet"))]
                None => {}
            }
            produced
        },
        &mut sink,
    )?;
    // Renamed into place only once all of it is written: an error or a
    // signal before leaves no file cut short under the name.
    if let Some(output) = output {
        sink.finish()?;
        output.commit()?;
    }
    run.finish(&mut sink, "converted", global.quiet(), args.deny_warnings)
}

/// PGN is written with the game's result as its Result tag and marker: the
/// findings about a result written otherwise in the input (a Result tag that
/// is not a result, a marker the standard does not write) say what was
/// written instead.
fn note_written_result(report: &mut GameReport, result: &str) {
    for d in &mut report.diagnostics {
        match d.code {
            Code::InvalidResultTag => d.message.push_str(&format!("; written as [Result \"{result}\"]")),
            Code::NonstandardResultMarker => d.message.push_str(&format!("; written as {result}")),
            _ => {}
        }
    }
}

/// `--to parquet`: the games go to the Parquet writer, in input order.
#[cfg(feature = "parquet")]
struct ParquetGames(Option<pgnkit::output::games::parquet::ParquetWriter<Box<dyn Write + Send>>>);

#[cfg(feature = "parquet")]
impl crate::sink::InOrder for ParquetGames {
    type Item = pgnkit::game::Game;

    fn take_item(&mut self, game: pgnkit::game::Game) -> io::Result<()> {
        match &mut self.0 {
            Some(parquet) => parquet.push(&game),
            None => Ok(()),
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        match self.0.take() {
            Some(parquet) => parquet.finish()?.flush(),
            None => Ok(()),
        }
    }
}

/// The tags the output needs, whether it needs the final FEN and the SAN
/// of the moves (worked out by the checker as it plays them): reading the
/// others costs time.
fn needs(args: &ConvertArgs) -> (KeptTags, bool, bool) {
    match args.to {
        ConvertFormat::Pgn | ConvertFormat::Jsonl | ConvertFormat::Parquet => (KeptTags::All, true, true),
        ConvertFormat::Epd if args.epd_tags => {
            (KeptTags::Named(["White", "Black", "Event", "Site", "Date"].map(String::from).to_vec()), false, false)
        }
        ConvertFormat::San => (KeptTags::None, false, true),
        ConvertFormat::Uci | ConvertFormat::Lan | ConvertFormat::Epd => (KeptTags::None, false, false),
        ConvertFormat::Fen => (KeptTags::None, true, false),
        ConvertFormat::Csv => {
            let default;
            let columns = match &args.columns {
                Some(columns) => columns,
                None => {
                    default = CsvGameWriter::default().columns().to_vec();
                    &default
                }
            };
            let tags: Vec<String> = columns
                .iter()
                .filter_map(|c| match c {
                    Column::Tag(name) => Some(name.clone()),
                    Column::Fact(_) => None,
                })
                .collect();
            (
                KeptTags::Named(tags),
                columns.contains(&Column::Fact(Fact::FinalFen)),
                columns.contains(&Column::Fact(Fact::San)),
            )
        }
    }
}

/// The CSV writer of the chosen columns, with the openings table they need.
fn csv_writer(args: &ConvertArgs) -> anyhow::Result<CsvGameWriter> {
    let writer = match &args.columns {
        Some(columns) => {
            distinct_columns(columns).map_err(anyhow::Error::msg)?;
            CsvGameWriter::new(columns.clone())
        }
        None => CsvGameWriter::default(),
    };
    let writer = match &args.aliases {
        Some(path) => {
            if !writer.columns().iter().any(|c| matches!(c, Column::Tag(name) if name == "White" || name == "Black")) {
                anyhow::bail!("--aliases writes the White and Black columns: --columns has neither");
            }
            writer.with_aliases(Arc::new(Aliases::read(path).map_err(anyhow::Error::msg)?))
        }
        None => writer,
    };
    if !writer.needs_openings() {
        return Ok(writer);
    }
    let Some(openings) = openings_naming(args.openings.as_ref()).table().map_err(anyhow::Error::msg)? else {
        anyhow::bail!(
            "the columns opening_eco and opening_name name openings by position: they need a table (--openings \
             builtin or PATH); the games' own tags are the columns ECO and Opening"
        );
    };
    Ok(writer.with_openings(openings))
}

/// The writer of each game's bytes; none for Parquet, which the sink writes.
fn writer(args: &ConvertArgs) -> anyhow::Result<Option<Box<dyn GameWriter>>> {
    Ok(Some(match args.to {
        ConvertFormat::Pgn => Box::new(PgnWriter {
            options: PgnOptions {
                comments: !args.no_comments,
                variations: !args.no_variations,
                nags: !args.no_nags,
                clock: !args.no_clock,
                keep_tags: args.keep_tags.clone(),
                // Only when asked for: PGN output keeps the games' tags by
                // default, and `--openings tags` keeps them too.
                openings: match &args.openings {
                    Some(naming) => naming.table().map_err(anyhow::Error::msg)?,
                    None => None,
                },
            },
        }),
        ConvertFormat::San => Box::new(MovesWriter(Notation::San)),
        ConvertFormat::Uci => Box::new(MovesWriter(Notation::Uci)),
        ConvertFormat::Lan => Box::new(MovesWriter(Notation::Lan)),
        ConvertFormat::Fen => Box::new(FinalFenWriter),
        ConvertFormat::Epd => Box::new(EpdWriter { tags: args.epd_tags }),
        ConvertFormat::Jsonl => Box::new(JsonlGameWriter),
        ConvertFormat::Csv => Box::new(csv_writer(args)?),
        // Written by the sink, row group by row group.
        #[cfg(feature = "parquet")]
        ConvertFormat::Parquet => return Ok(None),
        #[cfg(not(feature = "parquet"))]
        ConvertFormat::Parquet => anyhow::bail!(
            "this pgnkit was built without Parquet output (a large build most users never need): \
             build it with `cargo install --locked --path . --features parquet`"
        ),
    }))
}
