//! `pgnkit perft`: count a position's legal-move tree, or check a perft suite.

#![allow(clippy::print_stderr)]

use std::{
    io::{self, Read, Write},
    time::{Duration, Instant},
};

use anyhow::Context;
use pgnkit::{
    input::{self, Source},
    output::findings::escape_controls,
    perft::{self, Entry, Expected, Item},
    text::shorten,
};

use crate::{
    cli::{GlobalArgs, PerftArgs},
    exit::ExitStatus,
    pipeline::Pool,
    run::plural,
};

/// Suite positions checked between two flushes of the output, so that a long
/// run shows its findings as it goes.
const CHUNK: usize = 64;

pub fn run(args: &PerftArgs, global: &GlobalArgs) -> anyhow::Result<ExitStatus> {
    let pool = Pool::new(global.threads());
    let mut out = io::BufWriter::new(crate::stdout::stdout());
    let status = match (&args.suite, &args.fen, args.depth) {
        (Some(path), _, _) => {
            let source = Source::from_arg(path);
            let text = read_suite(&source).with_context(|| format!("cannot read {source}"))?;
            let run = SuiteRun { source: &source, max_depth: args.max_depth.unwrap_or(u32::MAX), pool: &pool };
            run.check(&text, &mut out, global)?
        }
        (None, Some(fen), Some(depth)) => {
            let pos = pgnkit::fen_check::playable_argument(fen).map_err(anyhow::Error::msg)?;
            let start = Instant::now();
            let nodes = if args.divide {
                let counts = pool.install(|| perft::divide(&pos, depth));
                for (uci, n) in &counts {
                    writeln!(out, "{uci}: {n}")?;
                }
                writeln!(out)?;
                // Zero plies: no move to list, and the position itself is the one leaf.
                if depth == 0 { 1 } else { counts.iter().map(|(_, n)| n).sum() }
            } else {
                pool.install(|| perft::perft_parallel(&pos, depth))
            };
            writeln!(out, "{nodes}")?;
            if global.verbose {
                say!("pgnkit: {nodes} nodes in {}", speed(nodes, start.elapsed()));
            }
            ExitStatus::Success
        }
        // clap requires FEN and DEPTH unless --suite is given.
        _ => unreachable!("FEN and DEPTH are required without --suite"),
    };
    out.flush()?;
    Ok(status)
}

fn read_suite(source: &Source) -> io::Result<String> {
    let (_, mut reader) = input::decode(source.open()?)?;
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes)?;
    // FENs are ASCII; other bytes can only make a line unreadable.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn speed(nodes: u64, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64();
    format!("{secs:.3} s ({:.1} Mnodes/s)", nodes as f64 / secs.max(1e-9) / 1e6)
}

struct SuiteRun<'a> {
    source: &'a Source,
    max_depth: u32,
    pool: &'a Pool,
}

/// What checking one suite item found, and the totals it adds.
#[derive(Default)]
struct Checked {
    /// (line, text) of each finding.
    findings: Vec<(usize, String)>,
    positions: u64,
    counts: u64,
    wrong: u64,
    unreadable: u64,
    nodes: u64,
}

impl SuiteRun<'_> {
    fn check(&self, text: &str, out: &mut impl Write, global: &GlobalArgs) -> anyhow::Result<ExitStatus> {
        let items = perft::parse_suite(text);
        let has_counts = items.iter().any(|item| matches!(item, Item::Entry(e) if !e.expected.is_empty()));
        if !has_counts {
            anyhow::bail!("{}: no perft counts found (`FEN ;D1 20` lines or `epd`/`perft` blocks)", self.source);
        }
        let start = Instant::now();
        let mut total = Checked::default();
        for chunk in items.chunks(CHUNK) {
            // Installed: each item's count is parallel itself.
            let results: Vec<Checked> = self.pool.install(|| self.pool.filter_map(chunk, |item| Some(self.item(item))));
            for mut checked in results {
                checked.findings.sort_by_key(|(line, _)| *line);
                for (_, finding) in &checked.findings {
                    writeln!(out, "{finding}")?;
                }
                total.positions += checked.positions;
                total.counts += checked.counts;
                total.wrong += checked.wrong;
                total.unreadable += checked.unreadable;
                total.nodes += checked.nodes;
            }
            out.flush()?;
        }
        if !global.quiet() {
            let depth =
                if self.max_depth == u32::MAX { String::new() } else { format!(" up to depth {}", self.max_depth) };
            let mut line = format!(
                "pgnkit: checked {} of {}{depth} in {}: {} wrong, {}; {}",
                plural(total.counts, "count", "counts"),
                plural(total.positions, "position", "positions"),
                self.source,
                total.wrong,
                plural(total.unreadable, "invalid line", "invalid lines"),
                plural(total.nodes, "node", "nodes"),
            );
            if global.verbose {
                line.push_str(&format!(" in {}", speed(total.nodes, start.elapsed())));
            }
            say!("{line}");
        }
        Ok(if total.wrong + total.unreadable > 0 { ExitStatus::Failure } else { ExitStatus::Success })
    }

    fn item(&self, item: &Item) -> Checked {
        let mut checked = Checked::default();
        let entry = match item {
            Item::BadLine(bad) => {
                checked.unreadable += 1;
                checked.findings.push((bad.line, self.unreadable(bad.line, &bad.message)));
                return checked;
            }
            Item::Entry(entry) => entry,
        };
        for bad in &entry.bad_lines {
            checked.unreadable += 1;
            checked.findings.push((bad.line, self.unreadable(bad.line, &bad.message)));
        }
        let pos = match &entry.position {
            Ok(pos) => pos,
            Err(err) => {
                checked.unreadable += 1;
                let text = format!(
                    "{}:{}: error[invalid-fen]: `{}` {err}",
                    self.source,
                    entry.line,
                    escape_controls(&shorten(&entry.fen, 100))
                );
                checked.findings.push((entry.line, text));
                return checked;
            }
        };
        if entry.expected.is_empty() && entry.bad_lines.is_empty() {
            checked.unreadable += 1;
            let message = format!("no perft count for `{}`", escape_controls(&shorten(&entry.fen, 100)));
            checked.findings.push((entry.line, self.unreadable(entry.line, &message)));
            return checked;
        }
        checked.positions = 1;
        for expected in entry.expected.iter().filter(|e| e.depth <= self.max_depth) {
            let got = perft::perft_parallel(pos, expected.depth);
            checked.counts += 1;
            checked.nodes += got;
            if got != expected.nodes {
                checked.wrong += 1;
                checked.findings.push((expected.line, self.mismatch(entry, expected, got)));
            }
        }
        checked
    }

    fn unreadable(&self, line: usize, message: &str) -> String {
        format!("{}:{line}: error[invalid-line]: {message}", self.source)
    }

    fn mismatch(&self, entry: &Entry, expected: &Expected, got: u64) -> String {
        let id = entry.id.as_ref().map(|id| format!(" (id {id})")).unwrap_or_default();
        format!(
            "{}:{}: error[perft-mismatch]: depth {} of `{}`{id}: expected {}, got {got}",
            self.source, expected.line, expected.depth, entry.fen, expected.nodes,
        )
    }
}
