//! `pgnkit stats`: statistics over every game, and `stats merge` to add up
//! the partials of shards.

use std::{
    borrow::Cow,
    io::{self, BufRead, Write},
    path::Path,
};

use anyhow::{Context, bail};
use pgnkit::{
    aliases::Aliases,
    check::{GameReader, Options, ReadOptions},
    input::Source,
    output::{
        csv_cells,
        file::{FilesRead, OutputFile},
    },
    stats::groups::{GroupKey, Selection, Table},
    stats::{GameFacts, Stats},
    text::{display_width, escape_controls},
};
use serde_json::Value;

use crate::{
    cli::{GlobalArgs, StatsArgs, StatsCommand, StatsFormat, StatsMergeArgs, openings_naming},
    exit::ExitStatus,
    pipeline,
    run::Run,
    sink::{Fold, GameOutput, OrderedSink},
};

/// The statistics of the games so far: each batch adds up its games' facts
/// into a partial on its worker (a fold), and the sink merges the partials
/// in input order (a reduce).
struct Tallied(Stats);

impl Fold for Tallied {
    type Item = GameFacts;
    type Batch = Stats;

    fn new_batch(&self) -> Stats {
        self.0.empty_like()
    }

    fn gather(batch: &mut Stats, facts: GameFacts) {
        batch.add(&facts);
    }

    fn take(&mut self, batch: Stats) -> io::Result<()> {
        self.0.merge(&batch).map_err(io::Error::other)
    }
}

pub fn run(args: &StatsArgs, global: &GlobalArgs) -> anyhow::Result<ExitStatus> {
    if let Some(StatsCommand::Merge(merge)) = &args.merge {
        return run_merge(merge);
    }
    if args.aliases.is_some() && !args.by.iter().any(GroupKey::names_player) {
        bail!("--aliases merges the names of players in groups: give --by white, black or player");
    }
    let aliases = args.aliases.as_deref().map(Aliases::read).transpose().map_err(anyhow::Error::msg)?;
    let aliases = aliases.as_ref();
    // The table is read only when a key names openings.
    let openings = if args.by.iter().any(GroupKey::names_openings) {
        openings_naming(args.openings.as_ref()).table().map_err(anyhow::Error::msg)?
    } else {
        None
    };
    let openings = openings.as_deref();
    // Made before anything is read: an --svg that is an input is refused
    // at once.
    let svg = match &args.svg {
        Some(path) => {
            let mut read = crate::cli::inputs_and_openings(&args.inputs.paths, args.openings.as_ref());
            if let Some(aliases) = &args.aliases {
                read.add_path(aliases);
            }
            Some(Svg::create(path, &read)?)
        }
        None => None,
    };
    let tags = GameFacts::tags_needed(&args.by);
    let run = Run::new(&args.inputs, args.max_game_size, global);
    let stats = if aliases.is_some() { Stats::new(&args.by).aliased() } else { Stats::new(&args.by) };
    let mut sink = OrderedSink::with_fold(io::BufWriter::new(crate::stdout::stdout()), &run.bar, Tallied(stats));
    let by = &args.by;
    pipeline::run(
        &run.options(),
        || {
            GameReader::new(ReadOptions {
                check: Options { full_reports: false, ..Options::default() },
                tags: tags.clone(),
                count_checks: true,
                ..ReadOptions::default()
            })
        },
        |checker, file, raw| {
            let game = checker.read(file, raw, false);
            let mut produced = GameOutput::default();
            produced.summary += &game.report;
            produced.item = Some(GameFacts::of(&game, by, openings, aliases));
            produced
        },
        &mut sink,
    )?;
    // Off the screen before the tables are written, not left above them.
    run.bar.finish_and_clear();
    let stats = std::mem::take(&mut sink.fold.0);
    write_all(&stats, args.format, args.selection.selection(), svg, &mut sink.out)?;
    run.finish(&mut sink, "read", global.quiet(), args.deny_warnings)
}

/// Reads every partial and prints their sum.
fn run_merge(args: &StatsMergeArgs) -> anyhow::Result<ExitStatus> {
    let svg = match &args.svg {
        Some(path) => Some(Svg::create(path, &FilesRead::of_args(&args.files))?),
        None => None,
    };
    let mut total = Stats::default();
    for path in &args.files {
        let source = Source::from_arg(path);
        let reader = io::BufReader::new(source.open().with_context(|| format!("cannot read {source}"))?);
        let mut partials = 0;
        // One JSON value per line, or one value over several lines.
        let text =
            reader.lines().collect::<Result<Vec<String>, _>>().with_context(|| format!("cannot read {source}"))?;
        let values: Vec<Value> = match serde_json::from_str::<Value>(&text.join("\n")) {
            Ok(value) => vec![value],
            Err(_) => text
                .iter()
                .filter(|line| !line.trim().is_empty())
                .map(|line| serde_json::from_str(line))
                .collect::<Result<_, _>>()
                .with_context(|| format!("{source}: not stats JSON"))?,
        };
        for value in values {
            let stats =
                Stats::from_json(&value).map_err(|err| anyhow::anyhow!("{source}: not a stats partial: {err}"))?;
            total.merge(&stats).map_err(|err| anyhow::anyhow!("{source}: cannot be merged with the others: {err}"))?;
            partials += 1;
        }
        if partials == 0 {
            bail!("{source}: no stats partial in it");
        }
    }
    let mut out = io::BufWriter::new(crate::stdout::stdout());
    write_all(&total, args.format, args.selection.selection(), svg, &mut out)?;
    out.flush()?;
    Ok(ExitStatus::Success)
}

/// Where `--svg` draws the report: a file, or stdout (`-`) in place of the
/// tables.
enum Svg {
    File(OutputFile),
    Stdout,
}

impl Svg {
    fn create(path: &Path, inputs: &FilesRead) -> anyhow::Result<Svg> {
        Ok(if path == Path::new("-") { Svg::Stdout } else { Svg::File(OutputFile::create(path, inputs)?) })
    }
}

/// The tables on `out`, and the SVG report where `svg` says (a file is
/// renamed into place once written).
fn write_all(
    stats: &Stats,
    format: StatsFormat,
    selection: Selection,
    svg: Option<Svg>,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let drawing = || pgnkit::stats::svg::summary_svg(stats);
    match svg {
        Some(Svg::Stdout) => out.write_all(drawing().as_bytes())?,
        Some(Svg::File(mut file)) => {
            write(stats, format, selection, out)?;
            file.write_all(drawing().as_bytes())?;
            file.commit()?;
        }
        None => write(stats, format, selection, out)?,
    }
    Ok(())
}

/// The summary, or with groups their table (JSON holds both). Only JSON
/// builds the JSON tree of the groups: the tables write each group's row
/// as it is formatted.
fn write(stats: &Stats, format: StatsFormat, selection: Selection, out: &mut impl Write) -> anyhow::Result<()> {
    let groups = stats.groups();
    match format {
        StatsFormat::Json => {
            serde_json::to_writer(&mut *out, &stats.to_json(selection))?;
            out.write_all(b"\n")?;
        }
        StatsFormat::Csv if !groups.is_empty() => {
            let table = groups.table(selection);
            let mut w = csv_cells::Writer::from_writer(&mut *out);
            w.write_record(table.header())?;
            let mut cells = Vec::new();
            for i in 0..table.len() {
                table.row(i, &mut cells);
                w.write_record(&cells)?;
            }
            w.flush()?;
        }
        StatsFormat::Text if !groups.is_empty() => write_text_table(&groups.table(selection), out)?,
        StatsFormat::Csv => {
            let mut w = csv_cells::Writer::from_writer(&mut *out);
            w.write_record(["key", "value"])?;
            for (key, value) in flatten(&stats.to_json(selection)) {
                w.write_record([key, value])?;
            }
            w.flush()?;
        }
        StatsFormat::Text => {
            let rows = flatten(&stats.to_json(selection));
            let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
            for (key, value) in rows {
                writeln!(out, "{key:width$}  {}", escape_controls(&value))?;
            }
        }
    }
    Ok(())
}

/// The groups as a text table, every column as wide as its widest cell.
/// Keys come from the games (names, events): their control characters are
/// shown escaped, and columns line up by display width (a CJK name takes
/// two columns a character). The rows are formatted twice, once for the
/// widths and once to be written, rather than held.
fn write_text_table(table: &Table, out: &mut impl Write) -> io::Result<()> {
    let header: Vec<String> = table.header().iter().map(|cell| escape_controls(cell)).collect();
    // Only the key cells can hold control characters; numbers are ASCII.
    let keys = table.key_cells();
    fn shown(keys: usize, i: usize, cell: &str) -> Cow<'_, str> {
        if i < keys { Cow::Owned(escape_controls(cell)) } else { Cow::Borrowed(cell) }
    }
    let mut widths: Vec<usize> = header.iter().map(|cell| display_width(cell)).collect();
    let mut cells = Vec::new();
    for r in 0..table.len() {
        table.row(r, &mut cells);
        for (i, (width, cell)) in widths.iter_mut().zip(&cells).enumerate() {
            *width = (*width).max(display_width(&shown(keys, i, cell)));
        }
    }
    let mut line = String::new();
    let mut write_line = |cells: &mut dyn Iterator<Item = Cow<str>>, out: &mut dyn Write| {
        line.clear();
        for (i, (cell, &width)) in cells.zip(&widths).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(&cell);
            line.extend(std::iter::repeat_n(' ', width.saturating_sub(display_width(&cell))));
        }
        out.write_all(line.trim_end().as_bytes())?;
        out.write_all(b"\n")
    };
    write_line(&mut header.iter().map(|cell| Cow::Borrowed(cell.as_str())), out)?;
    for r in 0..table.len() {
        table.row(r, &mut cells);
        write_line(&mut cells.iter().enumerate().map(|(i, cell)| shown(keys, i, cell)), out)?;
    }
    Ok(())
}

/// `key.sub` and value rows of the JSON, without the per-ply length counts
/// (the 10-ply histogram stands for them) and the partial's version, which
/// only merging needs.
fn flatten(json: &Value) -> Vec<(String, String)> {
    fn walk(prefix: &str, value: &Value, out: &mut Vec<(String, String)>) {
        match value {
            Value::Object(map) => {
                for (key, value) in map {
                    let path = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
                    if path != "length.by_plies" && path != "version" {
                        walk(&path, value, out);
                    }
                }
            }
            Value::Null => out.push((prefix.to_owned(), String::new())),
            Value::String(s) => out.push((prefix.to_owned(), s.clone())),
            other => out.push((prefix.to_owned(), other.to_string())),
        }
    }
    let mut out = Vec::new();
    walk("", json, &mut out);
    out
}
