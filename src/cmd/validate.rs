//! `pgnkit validate`: replay every game and report what cannot be played.

use std::io::{self, Write};

use pgnkit::{
    check::{Checker, Options},
    output::findings::{CsvWriter, JsonlWriter, ReportWriter, TextWriter},
    report::GameReport,
};

use crate::{
    cli::{Format, GlobalArgs, ValidateArgs},
    exit::ExitStatus,
    pipeline,
    sink::{Collect, Produced, Run},
};

pub fn run(args: &ValidateArgs, global: &GlobalArgs) -> anyhow::Result<ExitStatus> {
    let writer: Box<dyn ReportWriter> = match args.format {
        Format::Text => Box::new(TextWriter { verbose: global.verbose, color: global.stdout_color() }),
        Format::Jsonl => Box::new(JsonlWriter),
        Format::Csv => Box::new(CsvWriter),
    };
    let run = Run::new(&args.inputs, args.max_game_size, global);
    let mut sink = Collect::new(io::BufWriter::with_capacity(1 << 16, crate::stdout::stdout()), &run.bar);
    let mut header = Vec::new();
    writer.header(&mut header);
    sink.out.write_all(&header)?;

    // Whether a game's report is printed: it is counted in the summary
    // either way.
    let shown = |report: &GameReport| {
        if args.errors_only { report.invalid() } else { !args.with_findings || !report.diagnostics.is_empty() }
    };
    pipeline::run(
        &run.options(),
        || {
            let full_reports = args.format == Format::Jsonl || global.verbose;
            Checker::new(Options {
                full_reports,
                lint: args.lint,
                variations: !args.mainline_only,
                ..Options::default()
            })
        },
        |checker, file, game| {
            let report = checker.check(file, game);
            let mut produced = Produced::default();
            produced.summary += &report;
            if shown(&report) {
                writer.game(&report, &mut produced.out);
            }
            produced
        },
        &mut sink,
    )?;
    run.finish(&mut sink, "checked", global.quiet, args.deny_warnings)
}
