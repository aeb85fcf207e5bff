//! What `validate` and `fen check` share for CI: on the workers,
//! [`CiFindings`] keys each game's or record's findings (fingerprints),
//! leaves out those the baseline holds (`--baseline`) or takes them all
//! into the baseline being written (`--write-baseline`), and writes its
//! item of the CI document a `--format` names; at the sink, [`CiOutput`]
//! puts each one's [`Part`] in place, in input order.

use std::{
    io::{self, BufWriter, Write},
    path::Path,
    sync::Arc,
};

use pgnkit::{
    baseline::{self, Baseline},
    fen_check::FenReport,
    output::{
        file::{FilesRead, OutputFile},
        findings::ci::{
            CiWriter, Document, Fingerprint, GithubWriter, GitlabWriter, Item, JunitWriter, Rule, SarifWriter, Verdict,
        },
    },
    report::GameReport,
};

use crate::{
    cli::{BaselineArgs, CheckFormat},
    progress::Bar,
    run::plural,
    sink::InOrder,
    stdout::Named,
};

/// What a run does with its findings for CI, on the workers: the CI writer
/// of its `--format` (none for text, JSON Lines and CSV), the baseline
/// that holds findings not to report, or the baseline being written.
pub(crate) struct CiFindings {
    writer: Option<Arc<dyn CiWriter>>,
    baseline: Option<Baseline>,
    writing_baseline: bool,
    /// Findings are fingerprinted: for a CI format (GitLab's and SARIF's
    /// carry them) and for a baseline, read or written.
    keyed: bool,
}

impl CiFindings {
    /// The CI writer of `format` (`command` names the run, `validate`;
    /// `rules` are its codes) and the baseline of `args`, read before any
    /// input.
    pub fn new(
        format: CheckFormat,
        command: &'static str,
        rules: fn() -> Vec<Rule>,
        args: &BaselineArgs,
    ) -> anyhow::Result<CiFindings> {
        let writer: Option<Arc<dyn CiWriter>> = match format {
            CheckFormat::Text | CheckFormat::Jsonl | CheckFormat::Csv => None,
            CheckFormat::Github => Some(Arc::new(GithubWriter)),
            CheckFormat::Sarif => Some(Arc::new(SarifWriter::new(rules()))),
            CheckFormat::Junit => Some(Arc::new(JunitWriter { command })),
            CheckFormat::Gitlab => Some(Arc::new(GitlabWriter)),
        };
        let baseline = match &args.baseline {
            Some(path) => {
                let file =
                    std::fs::File::open(path).map_err(|err| anyhow::anyhow!("baseline {}: {err}", path.display()))?;
                let baseline = Baseline::read(io::BufReader::new(file), command)
                    .map_err(|err| anyhow::anyhow!("baseline {}: {err}", path.display()))?;
                Some(baseline)
            }
            None => None,
        };
        let writing_baseline = args.write_baseline.is_some();
        let keyed = writer.is_some() || baseline.is_some() || writing_baseline;
        Ok(CiFindings { writer, baseline, writing_baseline, keyed })
    }

    /// The CI writer, when a CI format is written in place of the plain
    /// writers.
    pub fn writer(&self) -> Option<&Arc<dyn CiWriter>> {
        self.writer.as_ref()
    }

    /// A game's findings for CI: left out of `report` when the baseline
    /// holds them or one is written, and its item of the CI document when
    /// `shown` says the game is shown. `bytes` are the game's, which its
    /// fingerprints are made of. None when there is nothing to key.
    pub fn game(
        &self,
        file: &Arc<str>,
        bytes: &[u8],
        report: &mut GameReport,
        shown: impl FnOnce(&GameReport) -> bool,
    ) -> Option<Part> {
        let fingerprints = |report: &GameReport| baseline::game_fingerprints(report, baseline::game_identity(bytes));
        self.keyed.then(|| self.part(file, report, fingerprints, shown))
    }

    /// A record's findings for CI, as [`CiFindings::game`] for a game.
    pub fn record(
        &self,
        file: &Arc<str>,
        report: &mut FenReport<'_>,
        shown: impl FnOnce(&FenReport<'_>) -> bool,
    ) -> Option<Part> {
        let fingerprints = |report: &FenReport<'_>| baseline::record_fingerprints(file, report);
        self.keyed.then(|| self.part(file, report, fingerprints, shown))
    }

    /// What [`CiFindings::game`] and [`CiFindings::record`] do, with
    /// `key` making the fingerprints of a report's findings.
    fn part<R: Findings>(
        &self,
        file: &Arc<str>,
        report: &mut R,
        key: impl FnOnce(&R) -> Vec<Fingerprint>,
        shown: impl FnOnce(&R) -> bool,
    ) -> Part {
        let mut part = Part::default();
        let mut fingerprints = Vec::new();
        if report.count() > 0 {
            fingerprints = key(report);
            if self.writing_baseline {
                report.entries(file, &fingerprints, &mut part.baseline);
                // A run that writes a baseline takes its findings as
                // baselined.
                part.suppressed = report.count() as u64;
                report.take_all();
                fingerprints.clear();
            } else if let Some(baseline) = &self.baseline {
                part.suppressed = report.suppress(baseline, &mut fingerprints);
            }
        }
        if let Some(writer) = self.writer.as_ref().filter(|_| shown(report)) {
            let item = report.item(file, &fingerprints);
            let mut bytes = Vec::new();
            writer.item(&item, &mut bytes);
            part.item = Some((Arc::clone(file), item.verdict, bytes));
        }
        part
    }
}

/// The findings of a game's report or of a record's, as [`CiFindings`]
/// keys them (one fingerprint each).
trait Findings {
    /// How many there are.
    fn count(&self) -> usize;
    /// Their lines of the baseline being written.
    fn entries(&self, file: &str, fingerprints: &[Fingerprint], out: &mut Vec<u8>);
    /// Takes them all out (into the baseline being written).
    fn take_all(&mut self);
    /// Takes out those `baseline` holds; how many.
    fn suppress(&mut self, baseline: &Baseline, fingerprints: &mut Vec<Fingerprint>) -> u64;
    /// The item of the CI document.
    fn item<'a>(&'a self, file: &'a str, fingerprints: &[Fingerprint]) -> Item<'a>;
}

impl Findings for GameReport {
    fn count(&self) -> usize {
        self.diagnostics.len()
    }

    fn entries(&self, _: &str, fingerprints: &[Fingerprint], out: &mut Vec<u8>) {
        baseline::game_entries(self, fingerprints, out);
    }

    fn take_all(&mut self) {
        self.diagnostics.clear();
        self.valid = self.checked;
    }

    fn suppress(&mut self, baseline: &Baseline, fingerprints: &mut Vec<Fingerprint>) -> u64 {
        baseline.suppress_in_game(self, fingerprints)
    }

    fn item<'a>(&'a self, _: &'a str, fingerprints: &[Fingerprint]) -> Item<'a> {
        Item::of_game(self, fingerprints)
    }
}

impl Findings for FenReport<'_> {
    fn count(&self) -> usize {
        self.findings.len()
    }

    fn entries(&self, file: &str, fingerprints: &[Fingerprint], out: &mut Vec<u8>) {
        baseline::record_entries(file, self, fingerprints, out);
    }

    fn take_all(&mut self) {
        self.findings.clear();
        self.valid = true;
    }

    fn suppress(&mut self, baseline: &Baseline, fingerprints: &mut Vec<Fingerprint>) -> u64 {
        baseline.suppress_in_record(self, fingerprints)
    }

    fn item<'a>(&'a self, file: &'a str, fingerprints: &[Fingerprint]) -> Item<'a> {
        Item::of_record(file, self, fingerprints)
    }
}

/// What a game or record hands to [`CiOutput`].
#[derive(Debug, Default)]
pub(crate) struct Part {
    /// Its input, its verdict and its bytes in the CI format, when it is
    /// shown in one.
    item: Option<(Arc<str>, Verdict, Vec<u8>)>,
    /// Its lines of the baseline being written.
    baseline: Vec<u8>,
    /// Its findings the baseline held.
    suppressed: u64,
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
        write_baseline: Option<(&Path, &FilesRead)>,
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
