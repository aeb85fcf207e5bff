//! What `validate` and `fen check` share for CI: the writer a `--format`
//! names, the baseline read (`--baseline`) or written (`--write-baseline`),
//! and [`CiOutput`], which puts each game's or record's share of them in
//! place, in input order.

use std::{
    io::{self, BufWriter, Write},
    path::Path,
    sync::Arc,
};

use pgnkit::{
    baseline::{self, Baseline},
    output::{
        file::{Inputs, OutputFile},
        findings::ci::{CiWriter, Document, GithubWriter, GitlabWriter, JunitWriter, Rule, SarifWriter, Verdict},
    },
};

use crate::{
    cli::{BaselineArgs, CheckFormat},
    progress::Bar,
    run::plural,
    sink::InOrder,
    stdout::Named,
};

/// The CI writer of `format`, or none for text, JSON Lines and CSV.
/// `command` names the run (`validate`), `rules` are its codes.
pub(crate) fn writer(
    format: CheckFormat,
    command: &'static str,
    rules: fn() -> Vec<Rule>,
) -> Option<Arc<dyn CiWriter>> {
    match format {
        CheckFormat::Text | CheckFormat::Jsonl | CheckFormat::Csv => None,
        CheckFormat::Github => Some(Arc::new(GithubWriter)),
        CheckFormat::Sarif => Some(Arc::new(SarifWriter::new(rules()))),
        CheckFormat::Junit => Some(Arc::new(JunitWriter { command })),
        CheckFormat::Gitlab => Some(Arc::new(GitlabWriter)),
    }
}

/// The baseline of `--baseline`, read before any input.
pub(crate) fn read_baseline(args: &BaselineArgs, command: &str) -> anyhow::Result<Option<Baseline>> {
    let Some(path) = &args.baseline else { return Ok(None) };
    let file = std::fs::File::open(path).map_err(|err| anyhow::anyhow!("baseline {}: {err}", path.display()))?;
    let baseline = Baseline::read(io::BufReader::new(file), command)
        .map_err(|err| anyhow::anyhow!("baseline {}: {err}", path.display()))?;
    Ok(Some(baseline))
}

/// What a game or record hands to [`CiOutput`].
#[derive(Debug, Default)]
pub(crate) struct Part {
    /// Its input, its verdict and its bytes in the CI format, when it is
    /// shown in one.
    pub item: Option<(Arc<str>, Verdict, Vec<u8>)>,
    /// Its lines of the baseline being written.
    pub baseline: Vec<u8>,
    /// Its findings the baseline held.
    pub suppressed: u64,
}

/// The CI document on stdout and the baseline file, written in input order.
pub(crate) struct CiOutput {
    document: Option<(Arc<dyn CiWriter>, Document)>,
    out: BufWriter<Named<io::Stdout>>,
    written: Option<(BufWriter<OutputFile>, String)>,
    entries: u64,
    suppressed: u64,
    quiet: bool,
    bar: Bar,
}

impl CiOutput {
    /// Starts the document of `writer` on stdout, and the baseline file of
    /// `command` at `write_baseline`, made before any input is read (so one
    /// that is an input, or cannot be written, is refused at once).
    pub fn new(
        writer: Option<Arc<dyn CiWriter>>,
        write_baseline: Option<(&Path, &Inputs)>,
        command: &str,
        quiet: bool,
        bar: &Bar,
    ) -> io::Result<CiOutput> {
        let written = match write_baseline {
            Some((path, inputs)) => {
                let mut file = BufWriter::new(OutputFile::create(path, inputs)?);
                let mut header = Vec::new();
                baseline::header(command, &mut header);
                file.write_all(&header)?;
                Some((file, path.display().to_string()))
            }
            None => None,
        };
        let mut out = BufWriter::with_capacity(1 << 16, crate::stdout::stdout());
        let document = writer.map(|writer| {
            let document = Document::new(writer.layout());
            (writer, document)
        });
        if let Some((writer, _)) = &document {
            let mut header = Vec::new();
            writer.header(&mut header);
            out.write_all(&header)?;
        }
        Ok(CiOutput { document, out, written, entries: 0, suppressed: 0, quiet, bar: bar.clone() })
    }

    /// One game's or record's part, in input order.
    pub fn part(&mut self, part: Part) -> io::Result<()> {
        self.suppressed += part.suppressed;
        if let Some((file, _)) = &mut self.written {
            self.entries += part.baseline.iter().filter(|&&b| b == b'\n').count() as u64;
            file.write_all(&part.baseline)?;
        }
        if let (Some((_, document)), Some((file, verdict, bytes))) = (&mut self.document, part.item) {
            let out = &mut self.out;
            if self.bar.is_hidden() {
                document.item(&file, verdict, &bytes, out)?;
            } else {
                // On a terminal, between redraws of the bar.
                self.bar.suspend(|| document.item(&file, verdict, &bytes, out))?;
            }
        }
        Ok(())
    }

    /// Ends the document and commits the baseline file; says how many
    /// findings the baseline held or were written to it (unless quiet).
    pub fn end(&mut self) -> io::Result<()> {
        if let Some((writer, document)) = &mut self.document {
            document.finish(&mut self.out)?;
            let mut footer = Vec::new();
            writer.footer(&mut footer);
            self.out.write_all(&footer)?;
        }
        self.out.flush()?;
        if let Some((file, name)) = self.written.take() {
            file.into_inner().map_err(io::IntoInnerError::into_error)?.commit()?;
            if !self.quiet {
                say!("pgnkit: wrote {} to the baseline {name}", plural(self.entries, "finding", "findings"));
            }
        } else if self.suppressed > 0 && !self.quiet {
            say!("pgnkit: {} in the baseline not reported", plural(self.suppressed, "finding", "findings"));
        }
        Ok(())
    }
}

impl InOrder for CiOutput {
    type Item = Part;

    fn take_item(&mut self, part: Part) -> io::Result<()> {
        self.part(part)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.end()
    }
}
