//! `pgnkit convert`: write every game in another form, checking it on the
//! way as `validate` does.

use std::{
    fs::File,
    io::{self, Write},
};

use anyhow::Context;
use pgnkit::{
    export::{
        Column, CsvGameWriter, EpdWriter, Fact, FinalFenWriter, GameWriter, JsonlGameWriter, MovesWriter, PgnOptions,
        PgnWriter,
    },
    notation::Notation,
    validate::Checker,
    write::{ReportWriter, TextWriter},
};

use crate::{
    cli::{ConvertArgs, ConvertFormat, GlobalArgs},
    cmd::games::{Collect, Produced, Run},
    exit::ExitStatus,
    pipeline,
};

pub fn run(args: &ConvertArgs, global: &GlobalArgs) -> anyhow::Result<ExitStatus> {
    let writer = writer(args);
    // Comments, NAGs and variations are read only for the formats that
    // write them.
    let notes = matches!(args.to, ConvertFormat::Pgn | ConvertFormat::Jsonl)
        && !(args.to == ConvertFormat::Pgn && args.no_comments && args.no_nags && args.no_variations);
    let findings = TextWriter { verbose: false };
    let (tags, fen) = needs(args);

    let out: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(File::create(path).with_context(|| format!("cannot create {}", path.display()))?),
        None => Box::new(io::stdout().lock()),
    };
    let run = Run::new(&args.inputs, args.max_game_size, global);
    let mut sink = Collect::new(io::BufWriter::with_capacity(1 << 16, out), &run.bar);
    let mut header = Vec::new();
    writer.header(&mut header);
    sink.out.write_all(&header)?;

    let skip_invalid = args.skip_invalid;
    pipeline::run(
        &run.options(),
        || Checker::new().with_record(true).with_all_tags(tags).with_full_reports(fen),
        |checker, file, raw| {
            let game = checker.read(file, raw, notes);
            let mut produced = Produced::default();
            produced.summary += &game.report;
            findings.game(&game.report, &mut produced.err);
            if game.report.valid || !skip_invalid {
                writer.game(&game, &mut produced.out);
            }
            produced
        },
        &mut sink,
    )?;
    run.finish(sink, "converted", global.quiet, args.deny_warnings)
}

/// Whether the output needs every tag, and the final FEN: reading the
/// others costs time and the move lists need neither.
fn needs(args: &ConvertArgs) -> (bool, bool) {
    match args.to {
        ConvertFormat::Pgn | ConvertFormat::Jsonl => (true, true),
        ConvertFormat::San | ConvertFormat::Uci | ConvertFormat::Lan | ConvertFormat::Epd => (false, false),
        ConvertFormat::Fen => (false, true),
        ConvertFormat::Csv => match &args.columns {
            None => (true, true),
            Some(columns) => {
                (columns.iter().any(|c| matches!(c, Column::Tag(_))), columns.contains(&Column::Fact(Fact::FinalFen)))
            }
        },
    }
}

fn writer(args: &ConvertArgs) -> Box<dyn GameWriter> {
    match args.to {
        ConvertFormat::Pgn => Box::new(PgnWriter {
            options: PgnOptions {
                comments: !args.no_comments,
                variations: !args.no_variations,
                nags: !args.no_nags,
                clock: !args.no_clock,
                keep_tags: args.keep_tags.clone(),
            },
        }),
        ConvertFormat::San => Box::new(MovesWriter(Notation::San)),
        ConvertFormat::Uci => Box::new(MovesWriter(Notation::Uci)),
        ConvertFormat::Lan => Box::new(MovesWriter(Notation::Lan)),
        ConvertFormat::Fen => Box::new(FinalFenWriter),
        ConvertFormat::Epd => Box::new(EpdWriter),
        ConvertFormat::Jsonl => Box::new(JsonlGameWriter),
        ConvertFormat::Csv => match &args.columns {
            Some(columns) => Box::new(CsvGameWriter::new(columns.clone())),
            None => Box::new(CsvGameWriter::default()),
        },
    }
}
