//! `pgnkit fen check`: read FEN and EPD records and explain every defect.
//!
//! Records are read in batches of lines; a batch is checked on the worker
//! pool and written in input order, so memory stays at one batch and the
//! output is the same for every thread count.

#![allow(clippy::print_stderr)]

use std::{
    io::{self, BufRead, BufReader, Write},
    ops::Range,
    path::Path,
    sync::Arc,
};

use pgnkit::{
    fen_check::{FenReport, FenSummary, check_record, is_record},
    input::{self, Source},
    output::{
        file::FilesRead,
        findings::{FenCsvWriter, FenJsonlWriter, FenTextWriter, FenWriter, ci, finding_line},
    },
    report::Severity,
};

use crate::{
    ci::{CiFindings, CiOutput, Part},
    cli::{CheckFormat, FenCheckArgs, GlobalArgs},
    exit::ExitStatus,
    pipeline::{Pool, schedule::SCHEDULE},
    progress::Bar,
    run::Tally,
};

/// The name FEN arguments are reported under; each is a line of it.
const ARGS_NAME: &str = "<args>";

/// One command-line input.
enum Input {
    Source(Source),
    Fen(String),
}

/// `-` is stdin and an existing path is a file; otherwise an argument with
/// whitespace, or made only of board characters and `/`, is a FEN (and
/// anything else a path that will fail to open).
fn classify(arg: &Path) -> Input {
    if arg == Path::new("-") || arg.exists() {
        return Input::Source(Source::from_arg(arg));
    }
    match arg.to_str() {
        Some(text) if looks_like_fen(text) => Input::Fen(text.to_owned()),
        _ => Input::Source(Source::from_arg(arg)),
    }
}

fn looks_like_fen(text: &str) -> bool {
    let text = text.trim();
    text.contains(char::is_whitespace)
        || (text.contains('/') && text.chars().all(|c| c == '/' || "12345678pnbrqkPNBRQK".contains(c)))
}

/// What one record gives: its totals, stdout bytes and stderr bytes, and
/// its part of a CI document or a baseline.
struct Output {
    summary: FenSummary,
    out: Vec<u8>,
    err: Vec<u8>,
    /// Boxed: most runs have none, and every record's output is moved
    /// twice on its way to the sink.
    part: Option<Box<Part>>,
}

/// How each record is turned into output.
struct Printer {
    writer: Option<Box<dyn FenWriter>>,
    /// A CI format, in place of `writer`, and the baseline read or written.
    ci: CiFindings,
    /// Print only the records with an error.
    errors_only: bool,
    /// Print only the records with a finding.
    with_findings: bool,
    /// Colour the findings `--normalize` writes to stderr.
    color: bool,
}

impl Printer {
    /// Whether a record is printed: it is counted in the summary either way.
    fn shown(&self, report: &FenReport<'_>) -> bool {
        if self.errors_only {
            report.with_severity(Severity::Error).next().is_some()
        } else {
            !self.with_findings || !report.findings.is_empty()
        }
    }

    fn record(&self, file: &Arc<str>, line: u64, text: &str) -> Option<Output> {
        let mut report = check_record(line, text)?;
        // Before the summary: a baseline takes findings out of the report.
        let part = self.ci.record(file, &mut report, |report| self.shown(report));
        let mut summary = FenSummary::default();
        summary += &report;
        let (mut out, mut err) = (Vec::new(), Vec::new());
        match (self.ci.writer(), &self.writer) {
            (Some(_), _) => {}
            (None, Some(writer)) => {
                if self.shown(&report) {
                    writer.record(file, &report, &mut out);
                }
            }
            (None, None) => normalized(file, &report, self.color, &mut out, &mut err),
        }
        Some(Output { summary, out, err, part: part.map(Box::new) })
    }
}

/// `--normalize`: the canonical FEN on stdout, findings on stderr.
fn normalized(file: &str, report: &FenReport<'_>, color: bool, out: &mut Vec<u8>, err: &mut Vec<u8>) {
    if let Some(fen) = report.normalized_fen() {
        out.extend_from_slice(fen.as_bytes());
        out.push(b'\n');
    }
    for f in &report.findings {
        finding_line(file, report.line, f, color, err);
    }
}

/// Writes results in input order and adds up the totals.
struct Sink<W: Write> {
    out: W,
    summary: FenSummary,
    input_errors: u64,
    bar: Bar,
    /// The CI document and the baseline file, when there is either.
    ci: CiOutput,
}

impl<W: Write> Sink<W> {
    fn write(&mut self, results: Vec<Output>) -> io::Result<()> {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        for result in results {
            self.summary += &result.summary;
            out.extend_from_slice(&result.out);
            err.extend_from_slice(&result.err);
            if let Some(part) = result.part {
                self.ci.part(*part)?;
            }
        }
        let stdout = &mut self.out;
        self.bar.suspend(|| -> io::Result<()> {
            stdout.write_all(&out)?;
            if !err.is_empty() && crate::sink::findings_shown() {
                stdout.flush()?;
                // Lost when stderr cannot be written, as `OrderedSink::findings`.
                let _ = io::stderr().lock().write_all(&err);
            }
            Ok(())
        })?;
        if !self.bar.is_hidden() {
            self.bar.set_message(format!("{} positions", self.summary.records));
        }
        Ok(())
    }

    fn input_error(&mut self, source: &Source, error: &io::Error) {
        self.input_errors += 1;
        let _ = self.out.flush();
        self.bar.suspend(|| say!("pgnkit: error: {source}: {error}"));
    }
}

/// The records of up to [`Schedule::fen_batch_lines`](crate::pipeline::schedule::Schedule::fen_batch_lines) lines: their text end to end in
/// one buffer, kept from batch to batch, rather than a `String` per line.
#[derive(Default)]
struct Batch {
    text: String,
    /// Each record's line number and place in `text`.
    records: Vec<(u64, Range<usize>)>,
}

impl Batch {
    /// Adds line `line` when it holds a record: UTF-8 when it is, else
    /// Windows-1252, as game text is read (never rejected).
    fn push(&mut self, line: u64, bytes: &[u8]) {
        let start = self.text.len();
        self.text.push_str(&pgnkit::text::decode(bytes));
        if is_record(&self.text[start..]) {
            self.records.push((line, start..self.text.len()));
        } else {
            self.text.truncate(start);
        }
    }

    fn len(&self) -> usize {
        self.records.len()
    }

    fn clear(&mut self) {
        self.text.clear();
        self.records.clear();
    }
}

/// Checks a batch on the pool.
fn check_batch(pool: &Pool, printer: &Printer, file: &Arc<str>, batch: &Batch) -> Vec<Output> {
    pool.filter_map(&batch.records, |(line, range)| printer.record(file, *line, &batch.text[range.clone()]))
}

/// Records are short; a longer line (a binary file, say) is checked on its
/// first 64 KiB and the rest skipped, so memory stays bounded.
const MAX_LINE: u64 = 1 << 16;

/// Reads one line (with its `\n`) into `bytes`, at most `MAX_LINE` bytes of
/// it; returns the bytes consumed (0 at the end). Straight from the
/// reader's buffer: a line is most often in it whole.
fn read_line(reader: &mut impl BufRead, bytes: &mut Vec<u8>) -> io::Result<usize> {
    let mut read = 0;
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        let (used, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), buf.is_empty()),
        };
        let room = (MAX_LINE as usize).saturating_sub(bytes.len());
        bytes.extend_from_slice(&buf[..used.min(room)]);
        reader.consume(used);
        read += used;
        if done {
            return Ok(read);
        }
    }
}

/// Reads one input to its end, batch by batch.
fn read_source<W: Write>(source: &Source, pool: &Pool, printer: &Printer, sink: &mut Sink<W>) -> io::Result<()> {
    let name: Arc<str> = Arc::from(source.name());
    if let Source::Path(path) = source
        && path.is_dir()
    {
        // expand_position_paths found no position file under it.
        let why = "a directory with no position file under it (.fen, .epd, the same .gz, .zst, .bz2, .xz)";
        sink.input_error(source, &io::Error::new(io::ErrorKind::IsADirectory, why));
        return Ok(());
    }
    // With several threads, decompressed on a thread of its own while the
    // records read are checked.
    let opened = source.open().and_then(|raw| input::decode_ahead(sink.bar.wrap(raw), pool.threads()));
    let mut reader = match opened {
        Ok((_, reader)) => BufReader::new(reader),
        Err(err) => {
            sink.input_error(source, &err);
            return Ok(());
        }
    };
    let mut batch = Batch::default();
    let mut bytes = Vec::new();
    let mut line = 0u64;
    loop {
        bytes.clear();
        let read = match read_line(&mut reader, &mut bytes) {
            Ok(read) => read,
            Err(err) => {
                // The records before the failure still count.
                sink.write(check_batch(pool, printer, &name, &batch))?;
                sink.input_error(source, &err);
                return Ok(());
            }
        };
        if read == 0 {
            break;
        }
        line += 1;
        let mut text = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
        text = text.strip_suffix(b"\r").unwrap_or(text);
        if line == 1 {
            text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
        }
        batch.push(line, text);
        if batch.len() == SCHEDULE.fen_batch_lines {
            sink.write(check_batch(pool, printer, &name, &batch))?;
            batch.clear();
        }
    }
    sink.write(check_batch(pool, printer, &name, &batch))
}

/// The inputs of the command line: stdin when there is none.
fn inputs(args: &FenCheckArgs) -> Vec<Input> {
    if args.inputs.is_empty() {
        return vec![Input::Source(Source::Stdin)];
    }
    args.inputs
        .iter()
        .flat_map(|arg| match classify(arg) {
            // A directory stands for the position files under it.
            Input::Source(Source::Path(path)) => {
                input::expand_position_paths(&[path]).iter().map(|p| Input::Source(Source::from_arg(p))).collect()
            }
            other => vec![other],
        })
        .collect()
}

/// The files the inputs read, by device and inode, which no output may be.
fn files_read(inputs: &[Input]) -> FilesRead {
    let mut read = FilesRead::none();
    for input in inputs {
        match input {
            Input::Source(Source::Path(path)) => read.add_path(path),
            Input::Source(Source::Stdin) => read.add_stdin(),
            _ => {}
        }
    }
    read
}

/// The files a run reads: its inputs and `--baseline`.
pub(super) fn read_files(args: &FenCheckArgs) -> FilesRead {
    let mut read = files_read(&inputs(args));
    if let Some(path) = &args.baseline.baseline {
        read.add_path(path);
    }
    read
}

pub fn run(args: &FenCheckArgs, global: &GlobalArgs) -> anyhow::Result<ExitStatus> {
    let inputs = inputs(args);
    let writer: Option<Box<dyn FenWriter>> = match (args.normalize, args.format) {
        (true, _) => None,
        (false, CheckFormat::Jsonl) => Some(Box::new(FenJsonlWriter)),
        (false, CheckFormat::Csv) => Some(Box::new(FenCsvWriter)),
        (false, _) => Some(Box::new(FenTextWriter { verbose: global.verbose, color: global.stdout_color() })),
    };
    // --normalize writes FEN records, never a CI document.
    let format = if args.normalize { CheckFormat::Text } else { args.format };
    let printer = Printer {
        writer,
        ci: CiFindings::new(format, "fen check", ci::fen_rules, &args.baseline)?,
        errors_only: args.errors_only,
        with_findings: args.with_findings,
        color: global.stderr_color(),
    };
    let pool = Pool::new(global.threads());
    let sizes = inputs.iter().map(|input| match input {
        Input::Source(source) => source.size(),
        Input::Fen(_) => Some(0),
    });
    let typed = inputs.iter().any(|input| matches!(input, Input::Source(source) if source.is_typed()));
    let bar = Bar::new(sizes.sum::<Option<u64>>(), typed, global.bar_settings());

    let read = files_read(&inputs);
    let write_baseline = args.baseline.write_baseline.as_deref().map(|path| (path, &read));
    let mut sink = Sink {
        out: io::BufWriter::with_capacity(1 << 16, crate::stdout::stdout()),
        summary: FenSummary::default(),
        input_errors: 0,
        bar: bar.clone(),
        ci: CiOutput::new(printer.ci.writer().cloned(), write_baseline, "fen check", global.quiet(), &bar)?,
    };
    if let Some(writer) = printer.writer.as_ref().filter(|_| printer.ci.writer().is_none()) {
        let mut header = Vec::new();
        writer.header(&mut header);
        sink.out.write_all(&header)?;
    }
    let mut fen_arguments = 0u64;
    let args_name: Arc<str> = Arc::from(ARGS_NAME);
    for input in &inputs {
        match input {
            Input::Fen(text) => {
                fen_arguments += 1;
                sink.write(printer.record(&args_name, fen_arguments, text).into_iter().collect())?;
            }
            Input::Source(source) => read_source(source, &pool, &printer, &mut sink)?,
        }
    }
    bar.finish_and_clear();
    sink.out.flush()?;
    sink.ci.end()?;

    let summary = &sink.summary;
    let sources = inputs.iter().filter(|i| matches!(i, Input::Source(_))).count() as u64;
    let input_count = sources + u64::from(fen_arguments > 0);
    let tally = Tally {
        verb: "checked",
        noun: ("position", "positions"),
        items: summary.records,
        inputs: input_count,
        valid: summary.valid,
        unchecked: 0,
        errors: summary.errors,
        warnings: summary.warnings,
        infos: 0,
        input_errors: sink.input_errors,
    };
    if !global.quiet() {
        say!("{}", tally.summary_line());
    }
    Ok(tally.status(args.deny_warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_with_spaces_or_only_board_characters_are_fens() {
        assert!(looks_like_fen("8/8/8/8/8/8/8/8 w - - 0 1"));
        assert!(looks_like_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"));
        assert!(!looks_like_fen("testdata/fen/no-such-file.fen"));
        assert!(!looks_like_fen("positions"));
    }

    #[test]
    fn a_line_past_the_limit_is_cut_and_the_next_line_still_read() {
        let mut input = vec![b'x'; 200_000];
        input.extend_from_slice(b"\nnext\n");
        let mut reader = io::BufReader::with_capacity(1000, &input[..]);
        let mut bytes = Vec::new();
        assert_eq!(read_line(&mut reader, &mut bytes).unwrap(), 200_001);
        assert_eq!(bytes.len() as u64, MAX_LINE);
        bytes.clear();
        assert_eq!(read_line(&mut reader, &mut bytes).unwrap(), 5);
        assert_eq!(bytes, b"next\n");
        bytes.clear();
        assert_eq!(read_line(&mut reader, &mut bytes).unwrap(), 0);
    }

    #[test]
    fn a_line_of_the_limit_keeps_its_newline_and_a_last_line_needs_none() {
        let mut input = vec![b'x'; MAX_LINE as usize - 1];
        input.extend_from_slice(b"\nlast");
        let mut reader = io::BufReader::with_capacity(1000, &input[..]);
        let mut bytes = Vec::new();
        assert_eq!(read_line(&mut reader, &mut bytes).unwrap(), MAX_LINE as usize);
        assert!(bytes.len() as u64 == MAX_LINE && bytes.ends_with(b"x\n"));
        bytes.clear();
        assert_eq!(read_line(&mut reader, &mut bytes).unwrap(), 4);
        assert_eq!(bytes, b"last");
    }

    #[test]
    fn windows_1252_lines_are_decoded_not_rejected() {
        let mut batch = Batch::default();
        batch.push(1, b"caf\xe9 \x93x\x94");
        batch.push(2, "café “x”".as_bytes());
        assert_eq!(batch.text, "café “x”café “x”");
    }

    #[test]
    fn a_batch_keeps_records_and_drops_blank_and_comment_lines() {
        let mut batch = Batch::default();
        for (line, text) in [(1, "8/8/8/8/8/8/8/8 w - -"), (2, "  "), (3, "# a comment"), (4, "caf\u{e9}")] {
            batch.push(line, text.as_bytes());
        }
        let records: Vec<(u64, &str)> =
            batch.records.iter().map(|(line, range)| (*line, &batch.text[range.clone()])).collect();
        assert_eq!(records, [(1, "8/8/8/8/8/8/8/8 w - -"), (4, "café")]);
        batch.clear();
        assert_eq!((batch.len(), batch.text.as_str()), (0, ""));
    }

    #[test]
    fn normalize_writes_fens_to_stdout_and_findings_to_stderr() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let report = check_record(2, "4k3/8/8/8/8/8/8/4K3 w - - 0 0").unwrap();
        normalized("a.fen", &report, false, &mut out, &mut err);
        assert_eq!(String::from_utf8(out).unwrap(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1\n");
        assert!(String::from_utf8(err).unwrap().starts_with("a.fen:2:29: warning[fullmove-zero]: "));
        assert!(report.with_severity(Severity::Error).next().is_none());
    }
}
