//! `pgnkit validate`: replay every game and report what cannot be played.

#![allow(clippy::print_stderr)]

use std::io::{self, Write};

use pgnkit::{
    input::Source,
    report::Summary,
    split::SplitOptions,
    validate::Checker,
    write::{CsvWriter, JsonlWriter, ReportWriter, TextWriter},
};

use crate::{
    cli::{Format, GlobalArgs, ValidateArgs},
    cmd::Tally,
    exit::ExitStatus,
    pipeline::{self, Sink},
    progress,
};

/// Collects results in input order: output bytes to stdout, totals here.
struct Collect<W: Write> {
    out: W,
    summary: Summary,
    input_errors: u64,
    bar: indicatif::ProgressBar,
}

impl<W: Write> Sink<(Summary, Vec<u8>)> for Collect<W> {
    fn result(&mut self, (summary, bytes): (Summary, Vec<u8>)) -> io::Result<()> {
        self.summary += &summary;
        if self.bar.is_hidden() || bytes.is_empty() {
            return self.out.write_all(&bytes);
        }
        // On a terminal, findings go out between redraws of the bar.
        let out = &mut self.out;
        self.bar.suspend(|| out.write_all(&bytes).and_then(|()| out.flush()))
    }

    fn input_error(&mut self, source: &Source, error: &io::Error) {
        self.input_errors += 1;
        // Findings already printed stay in order before the error.
        let _ = self.out.flush();
        self.bar.suspend(|| eprintln!("pgnkit: error: {source}: {error}"));
    }

    fn batch_done(&mut self) {
        if !self.bar.is_hidden() {
            self.bar.set_message(format!("{} games", self.summary.games));
        }
    }
}

pub fn run(args: &ValidateArgs, global: &GlobalArgs) -> anyhow::Result<ExitStatus> {
    let sources: Vec<Source> = if args.inputs.paths.is_empty() {
        vec![Source::Stdin]
    } else {
        args.inputs.paths.iter().map(|p| Source::from_arg(p)).collect()
    };
    let writer: Box<dyn ReportWriter> = match args.format {
        Format::Text => Box::new(TextWriter { verbose: global.verbose }),
        Format::Jsonl => Box::new(JsonlWriter),
        Format::Csv => Box::new(CsvWriter),
    };
    let total = sources.iter().map(Source::size).sum::<Option<u64>>();
    let bar = progress::bar(total, global.quiet);
    let threads = global.threads();
    let split = SplitOptions {
        max_game_bytes: args.max_game_size.saturating_mul(1 << 20),
        ..SplitOptions::for_threads(threads)
    };
    let opts = pipeline::Options { sources: &sources, threads, split, bar: &bar };

    let stdout = io::stdout().lock();
    let mut sink = Collect {
        out: io::BufWriter::with_capacity(1 << 16, stdout),
        summary: Summary::default(),
        input_errors: 0,
        bar: bar.clone(),
    };
    let mut header = Vec::new();
    writer.header(&mut header);
    sink.out.write_all(&header)?;

    let errors_only = args.errors_only;
    pipeline::run(
        &opts,
        || Checker::new().with_full_reports(args.format == Format::Jsonl || global.verbose).with_lint(args.lint),
        |checker, file, game| {
            let report = checker.check(file, game);
            let mut summary = Summary::default();
            summary += &report;
            let mut bytes = Vec::new();
            if !errors_only || !report.diagnostics.is_empty() {
                writer.game(&report, &mut bytes);
            }
            (summary, bytes)
        },
        &mut sink,
    )?;
    sink.out.flush()?;
    bar.finish_and_clear();

    let summary = &sink.summary;
    let tally = Tally {
        noun: ("game", "games"),
        items: summary.games,
        inputs: sources.len() as u64,
        valid: summary.valid_games,
        errors: summary.errors,
        warnings: summary.warnings,
        infos: summary.infos,
        input_errors: sink.input_errors,
    };
    if !global.quiet {
        eprintln!("{}", tally.summary_line());
    }
    Ok(tally.status(args.deny_warnings))
}
