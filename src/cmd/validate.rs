//! `pgnkit validate`: replay every game and report what cannot be played.

use std::io::{self, Write};

use pgnkit::{
    check::{Checker, Options},
    output::{
        file::FilesRead,
        findings::{CsvWriter, JsonlWriter, ReportWriter, TextWriter, ci},
    },
    report::GameReport,
};

use crate::{
    ci::{CiFindings, CiOutput},
    cli::{CheckFormat, GlobalArgs, ValidateArgs},
    exit::ExitStatus,
    pipeline,
    run::Run,
    sink::{GameOutput, OrderedSink},
};

pub fn run(args: &ValidateArgs, global: &GlobalArgs) -> anyhow::Result<ExitStatus> {
    let writer: Box<dyn ReportWriter> = match args.format {
        CheckFormat::Jsonl => Box::new(JsonlWriter),
        CheckFormat::Csv => Box::new(CsvWriter),
        _ => Box::new(TextWriter { verbose: global.verbose, color: global.stdout_color() }),
    };
    let ci = CiFindings::new(args.format, "validate", ci::game_rules, &args.baseline)?;
    let run = Run::new(&args.inputs, args.max_game_size, global);
    // Looked up only when needed: a folder given as an input is walked.
    let writing_baseline = args.baseline.write_baseline.is_some();
    let inputs = if writing_baseline { FilesRead::of_args(&args.inputs.paths) } else { FilesRead::none() };
    let write_baseline = args.baseline.write_baseline.as_deref().map(|path| (path, &inputs));
    let ci_output = CiOutput::new(ci.writer().cloned(), write_baseline, "validate", global.quiet(), &run.bar)?;
    let per_game_lines = args.format == CheckFormat::Jsonl;
    // A batch's reports are written from the buffer they were gathered in:
    // a buffer smaller than most batches' (JSON Lines: some 60 KiB) lets
    // them go out without another copy, and still gathers small writes.
    let mut sink =
        OrderedSink::with_fold(io::BufWriter::with_capacity(1 << 14, crate::stdout::stdout()), &run.bar, ci_output);
    if per_game_lines {
        sink = sink.lending();
    }
    if ci.writer().is_none() {
        let mut header = Vec::new();
        writer.header(&mut header);
        sink.out.write_all(&header)?;
    }

    // Whether a game's report is printed: it is counted in the summary
    // either way.
    let shown = |report: &GameReport| {
        if args.errors_only { report.invalid() } else { !args.with_findings || !report.diagnostics.is_empty() }
    };
    pipeline::run(
        &run.options(),
        || {
            // A JUnit test case is named by its players, which a report
            // carries for every game only when full.
            let full_reports = args.format == CheckFormat::Jsonl || args.format == CheckFormat::Junit || global.verbose;
            Checker::new(Options {
                full_reports,
                lint: args.lint,
                variations: !args.mainline_only,
                ..Options::default()
            })
        },
        |checker, file, game| {
            let mut report = checker.check(file, game);
            // JSON Lines writes a line for every game.
            let mut output = if per_game_lines { GameOutput::onto_batch() } else { GameOutput::default() };
            // Before the summary: a baseline takes findings out of the report.
            output.item = ci.game(file, game.bytes, &mut report, shown);
            output.summary += &report;
            if ci.writer().is_none() && shown(&report) {
                writer.game(&report, &mut output.out);
            }
            output
        },
        &mut sink,
    )?;
    run.finish(&mut sink, "checked", global.quiet(), args.deny_warnings)
}
