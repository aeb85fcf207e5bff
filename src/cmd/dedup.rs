//! `pgnkit dedup`: write the first occurrence of each game, or list the
//! clusters of copies, checking every game on the way as `validate` does.
//!
//! Workers check each game and make its key ([`pgnkit::dedup::game_key`])
//! and the key's hash; the sink, which sees games in input order whatever
//! the number of threads, keeps the index, so the first occurrence is the
//! same for every `-j`.

#![allow(clippy::print_stderr)]

use std::{
    collections::HashMap,
    hash::RandomState,
    io::{self, BufWriter, Write},
    ops::Range,
    sync::Arc,
};

use pgnkit::{
    check::{GameReader, KeptTags, Options, ReadOptions},
    dedup::{By, Index, Insert, KEY_TAGS, Occurrence, RecordId, game_key, hash_key},
    output::{
        csv_cells,
        findings::{ReportWriter, TextWriter},
    },
    text::Shown,
};
use serde::Serialize;

use crate::{
    cli::{DedupArgs, DedupBy, Format, GlobalArgs},
    exit::ExitStatus,
    pick::{self, GameText},
    pipeline::{self, PerGame},
    run::{Run, Tally, plural},
    sink::{GameOutput, OrderedSink},
};

pub fn run(args: &DedupArgs, global: &GlobalArgs) -> anyhow::Result<ExitStatus> {
    let by = match args.by {
        DedupBy::Moves => By::Moves,
        DedupBy::MovesTags => By::MovesAndTags,
    };
    let text = GameText::of_pick(&args.pick, args.openings.as_ref(), None)?;
    let findings = TextWriter { verbose: false, color: global.stderr_color() };
    let run = Run::new(&args.inputs, args.pick.max_game_size, global);
    let index = Index::new();
    let hasher = index.hasher().clone();
    // Kept games are written from the batches they were read into: a
    // buffer smaller than a long game lets it go out without a copy.
    let out = BufWriter::with_capacity(1 << 14, crate::stdout::stdout());
    let mut sink = Dedup {
        collect: OrderedSink::new(out, &run.bar).writing_stdout(),
        index,
        clusters: args.list.then(Clusters::default),
        inputs: Vec::new(),
        kept: 0,
        copies: 0,
        payload: Vec::new(),
    };
    let list = args.list;
    pipeline::run(
        &run.options(),
        || {
            let tags = if by == By::MovesAndTags { KeptTags::named(&KEY_TAGS) } else { KeptTags::None };
            let reader = text.reader(ReadOptions {
                check: Options { full_reports: false, ..Options::default() },
                tags,
                ..ReadOptions::default()
            });
            (reader, Vec::new())
        },
        |(checker, key): &mut (GameReader, Vec<u8>), file, raw| {
            let game = checker.read(file, raw, text.needs_game());
            let mut produced = GameOutput::default();
            produced.summary += &game.report;
            findings.game(&game.report, &mut produced.err);
            // Written now, in parallel, or, as it was read, left in its
            // batch; the sink drops it if it is a copy.
            let original = (!list && !text.needs_game()).then(|| raw.shared());
            if !list && text.needs_game() {
                text.write(&raw, Some(&game), &mut produced.out);
            }
            game_key(&game, raw.bytes, by, key);
            let hash = hash_key(&hasher, key);
            checker.recycle(game);
            Keyed {
                produced,
                original,
                key: Key::new(key),
                hash,
                file: Arc::clone(file),
                game: raw.frame.index,
                line: raw.frame.line,
            }
        },
        &mut sink,
    )?;
    // Off the screen before the copies are listed, not left above them.
    run.bar.finish_and_clear();
    if let Some(clusters) = &sink.clusters {
        clusters.write(&sink.index, &sink.inputs, args.format, &mut sink.collect.out)?;
    }
    sink.collect.out.flush()?;
    let tally = Tally::games("deduplicated", &sink.collect.summary, run.inputs(), sink.collect.input_errors);
    if !global.quiet() {
        let clusters = sink.clusters.as_ref().map(|c| c.groups.len());
        say!("{}", summary_line(&tally, sink.kept, sink.copies, clusters));
        if global.verbose {
            let (distinct, bytes) = (sink.index.len(), sink.index.heap_bytes());
            say!(
                "pgnkit: index: {} in {}, {} bytes per game",
                plural(distinct, "distinct game", "distinct games"),
                size(bytes as u64),
                bytes as u64 / distinct.max(1)
            );
        }
    }
    Ok(tally.status(args.pick.deny_warnings))
}

/// `812 bytes`, `3.4 KiB`, `61.0 MiB`.
fn size(bytes: u64) -> String {
    match bytes {
        0..1024 => format!("{bytes} bytes"),
        1024..0x10_0000 => format!("{:.1} KiB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20)),
    }
}

/// `pgnkit: read 5 games in 1 input: 3 kept, 2 duplicates dropped; 5 valid,
/// 0 invalid; 0 errors, 0 warnings` (with `--list`, `3 distinct, 2
/// duplicates in 1 cluster`).
fn summary_line(tally: &Tally, kept: u64, copies: u64, clusters: Option<usize>) -> String {
    let mut line = format!(
        "pgnkit: read {} in {}: ",
        plural(tally.items, "game", "games"),
        plural(tally.inputs, "input", "inputs")
    );
    let copies = plural(copies, "duplicate", "duplicates");
    match clusters {
        None => line.push_str(&format!("{kept} kept, {copies} dropped")),
        Some(n) => line.push_str(&format!("{kept} distinct, {copies} in {}", plural(n as u64, "cluster", "clusters"))),
    }
    line.push_str(&format!(
        "; {}; {}, {}",
        tally.validity(),
        plural(tally.errors, "error", "errors"),
        plural(tally.warnings, "warning", "warnings")
    ));
    if tally.infos > 0 {
        line.push_str(&format!(", {} info", tally.infos));
    }
    if tally.input_errors > 0 {
        line.push_str(&format!("; {} could not be read", plural(tally.input_errors, "input", "inputs")));
    }
    line
}

/// One game's output and findings, with its key.
struct Keyed {
    produced: GameOutput,
    /// The game as it was read, when it is written so: its batch and its
    /// range in it.
    original: Option<(Arc<Vec<u8>>, Range<usize>)>,
    key: Key,
    hash: u64,
    file: Arc<str>,
    game: u64,
    line: u64,
}

/// Bytes a key can have and be held inline.
const INLINE_KEY: usize = 30;

/// A game's key, held inline when it is short, as most are (about 6 bits a
/// move): the key of a short game takes no allocation.
enum Key {
    Inline { len: u8, bytes: [u8; INLINE_KEY] },
    Heap(Vec<u8>),
}

impl Key {
    fn new(key: &[u8]) -> Key {
        if key.len() <= INLINE_KEY {
            let mut bytes = [0; INLINE_KEY];
            bytes[..key.len()].copy_from_slice(key);
            Key::Inline { len: key.len() as u8, bytes }
        } else {
            Key::Heap(key.to_vec())
        }
    }

    fn as_bytes(&self) -> &[u8] {
        match self {
            Key::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Key::Heap(key) => key,
        }
    }
}

/// Keeps the index of keys seen and lets through the output of first
/// occurrences only.
struct Dedup<W: Write> {
    collect: OrderedSink<W>,
    index: Index<RandomState>,
    /// With `--list`.
    clusters: Option<Clusters>,
    /// The inputs met so far, in order (an input named twice is two).
    inputs: Vec<Arc<str>>,
    kept: u64,
    copies: u64,
    /// Reused for each game's payload.
    payload: Vec<u8>,
}

impl<W: Write> Dedup<W> {
    /// The number of the input `file` (the pipeline hands out one `Arc` per
    /// input, in order).
    fn input(&mut self, file: &Arc<str>) -> u32 {
        if !self.inputs.last().is_some_and(|last| Arc::ptr_eq(last, file)) {
            self.inputs.push(Arc::clone(file));
        }
        (self.inputs.len() - 1) as u32
    }
}

impl<W: Write> PerGame<Keyed> for Dedup<W> {
    fn result(&mut self, keyed: Keyed) -> io::Result<()> {
        let Keyed { mut produced, mut original, key, hash, file, game, line } = keyed;
        let at = Occurrence { input: self.input(&file), game, line };
        self.payload.clear();
        if self.clusters.is_some() {
            at.to_payload(&mut self.payload);
        }
        match self.index.insert_hashed(hash, key.as_bytes(), &self.payload) {
            Insert::New(_) => self.kept += 1,
            Insert::Copy(first) => {
                self.copies += 1;
                produced.out.clear();
                original = None;
                if let Some(clusters) = &mut self.clusters {
                    clusters.add(first, at);
                }
            }
        }
        self.collect.game(produced)?;
        match original {
            Some((batch, range)) => pick::write_as_read(&mut self.collect, &batch[range]),
            None => Ok(()),
        }
    }

    fn input_error(&mut self, name: &str, error: &io::Error) {
        self.collect.input_error(name, error);
    }

    fn batch_done(&mut self) {
        self.collect.batch_done();
    }
}

/// The copies of each game that has some, by its first occurrence.
#[derive(Default)]
struct Clusters {
    by_first: HashMap<RecordId, usize>,
    /// First occurrence and the copies after it, in the order the first
    /// copy of each was met.
    groups: Vec<(RecordId, Vec<Occurrence>)>,
}

/// A copy in `--list --format jsonl`.
#[derive(Serialize)]
struct Copy<'a> {
    file: &'a str,
    game: u64,
    game_line: u64,
}

impl Clusters {
    fn add(&mut self, first: RecordId, copy: Occurrence) {
        let groups = &mut self.groups;
        let n = *self.by_first.entry(first).or_insert_with(|| {
            groups.push((first, Vec::new()));
            groups.len() - 1
        });
        groups[n].1.push(copy);
    }

    /// Writes the clusters in the order of their first occurrence (record
    /// ids grow in input order).
    fn write(
        &self,
        index: &Index<RandomState>,
        inputs: &[Arc<str>],
        format: Format,
        out: &mut impl Write,
    ) -> io::Result<()> {
        let mut groups: Vec<&(RecordId, Vec<Occurrence>)> = self.groups.iter().collect();
        groups.sort_by_key(|(first, _)| *first);
        let copies = |(first, rest): &(RecordId, Vec<Occurrence>)| {
            let first = Occurrence::from_payload(index.payload(*first));
            std::iter::once(first).chain(rest.clone()).collect::<Vec<_>>()
        };
        let name = |at: &Occurrence| &*inputs[at.input as usize];
        match format {
            Format::Text => {
                for group in groups {
                    let line: Vec<String> =
                        copies(group).iter().map(|at| format!("{}:{}", Shown(name(at)), at.game)).collect();
                    writeln!(out, "{}", line.join(" "))?;
                }
            }
            Format::Jsonl => {
                for (n, group) in groups.into_iter().enumerate() {
                    let copies: Vec<Copy<'_>> = copies(group)
                        .iter()
                        .map(|at| Copy { file: name(at), game: at.game, game_line: at.line })
                        .collect();
                    let object = serde_json::json!({ "cluster": n + 1, "copies": copies });
                    writeln!(out, "{object}")?;
                }
            }
            Format::Csv => {
                let mut csv = csv_cells::Writer::from_writer(out);
                csv.write_record(["cluster", "file", "game", "game_line"])?;
                for (n, group) in groups.into_iter().enumerate() {
                    for at in copies(group) {
                        let row = [(n + 1).to_string(), name(&at).to_owned(), at.game.to_string(), at.line.to_string()];
                        csv.write_record(&row)?;
                    }
                }
                csv.flush()?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::summary_line;
    use crate::run::Tally;

    fn tally(items: u64, valid: u64, infos: u64, input_errors: u64) -> Tally {
        Tally {
            verb: "deduplicated",
            noun: ("game", "games"),
            items,
            inputs: 2,
            valid,
            unchecked: 0,
            errors: items - valid,
            warnings: 1,
            infos,
            input_errors,
        }
    }

    #[test]
    fn the_summary_line_counts_games_kept_and_dropped_or_clusters_then_findings() {
        assert_eq!(
            summary_line(&tally(5, 5, 0, 0), 4, 1, None),
            "pgnkit: read 5 games in 2 inputs: 4 kept, 1 duplicate dropped; 5 valid, 0 invalid; 0 errors, 1 warning"
        );
        assert_eq!(
            summary_line(&tally(1, 0, 2, 1), 1, 0, Some(0)),
            "pgnkit: read 1 game in 2 inputs: 1 distinct, 0 duplicates in 0 clusters; 0 valid, 1 invalid; 1 error, \
             1 warning, 2 info; 1 input could not be read"
        );
    }
}
