//! `pgnkit book`: a Polyglot book or an opening tree from the games, and
//! `book merge` to add up the partial trees of shards.

#![allow(clippy::print_stderr)]

use std::io::{self, BufRead, Write};

use anyhow::{Context, bail};
use pgnkit::{
    book::{self, GamePairs, Keep, Merged, Parts, Table},
    check::{GameReader, KeptTags, Options, ReadOptions},
    frame::shard::Shard,
    game::Game,
    input::Source,
    keys::GroupKey,
    output::{
        csv_cells,
        file::{FilesRead, OutputFile},
        findings::{ReportWriter, TextWriter},
    },
};
use shakmaty::{Chess, Color, Position};

use crate::{
    cli::{BookArgs, BookColor, BookCommand, BookFormat, BookMergeArgs, BookOutput, GlobalArgs},
    exit::ExitStatus,
    pipeline,
    run::Run,
    sink::{Fold, GameOutput, OrderedSink},
};

/// The counting of pairs: each batch's games are numbered and handed to
/// the parts at the sink, in input order, as polyglot's counts depend on
/// it; with several parts they count on threads of their own.
struct Counted {
    parts: Option<Parts>,
    /// Games taken so far (within the shard).
    taken: u64,
    shard: Option<Shard>,
}

impl Fold for Counted {
    type Item = GamePairs;
    type Batch = Vec<GamePairs>;

    fn new_batch(&self) -> Vec<GamePairs> {
        Vec::new()
    }

    fn gather(batch: &mut Vec<GamePairs>, pairs: GamePairs) {
        batch.push(pairs);
    }

    fn take(&mut self, batch: Vec<GamePairs>) -> io::Result<()> {
        let mut games = Vec::with_capacity(batch.len());
        for pairs in batch {
            // The game's number in the whole run, so that shards' partials
            // keep polyglot's order of first occurrences.
            let game = match self.shard {
                Some(shard) => shard.index + self.taken * shard.count,
                None => self.taken,
            };
            self.taken += 1;
            if !pairs.pairs.is_empty() {
                games.push((game, pairs));
            }
        }
        match &mut self.parts {
            Some(parts) if !games.is_empty() => parts.add(games),
            _ => Ok(()),
        }
    }
}

pub fn run(args: &BookArgs, global: &GlobalArgs) -> anyhow::Result<ExitStatus> {
    if let Some(BookCommand::Merge(merge)) = &args.merge {
        return run_merge(merge, global);
    }
    let partial = args.inputs.shard.is_some();
    if partial && args.out.format != BookFormat::Jsonl {
        bail!("--shard writes a partial tree for `book merge`: give --format jsonl");
    }
    let tree = args.out.format != BookFormat::Bin;
    let mut output = Output::create(&args.out, &FilesRead::of_args(&args.inputs.paths))?;
    let findings = TextWriter { verbose: false, color: global.stderr_color() };
    let run = Run::new(&args.inputs, args.max_game_size, global);
    let budget = usize::try_from(args.max_memory).unwrap_or(usize::MAX);
    let parts = Parts::new(run.threads, budget, tree)?;
    let mut sink = OrderedSink::with_fold(
        io::sink(),
        &run.bar,
        Counted { parts: Some(parts), taken: 0, shard: args.inputs.shard },
    );
    let reading = Reading {
        max_ply: args.max_ply,
        tree,
        player: args.player.as_deref().map(str::trim),
        color: args.side.map(|c| if c == BookColor::White { Color::White } else { Color::Black }),
        quiet: global.quiet(),
    };
    pipeline::run(
        &run.options(),
        || {
            let tags = KeptTags::named(&["Result", "White", "Black", "WhiteElo", "BlackElo", "Date"]);
            GameReader::new(ReadOptions {
                check: Options { full_reports: false, ..Options::default() },
                tags,
                ..ReadOptions::default()
            })
        },
        |reader, file, raw| {
            let game = reader.read(file, raw, false);
            let mut produced = GameOutput::default();
            produced.summary += &game.report;
            findings.game(&game.report, &mut produced.err);
            produced.item = Some(reading.pairs(&game, &mut produced.err));
            reader.recycle(game);
            produced
        },
        &mut sink,
    )?;
    run.bar.finish_and_clear();
    let parts = sink.fold.parts.take().context("the book's counts were taken before the end")?;
    let rows = Rows::new(&args.out, partial);
    let inexact = output.write(|out| {
        rows.header(out)?;
        parts.finish(out, |merged, out| rows.write(merged, out))
    })?;
    output.commit()?;
    note_inexact(inexact, global.quiet());
    run.finish(&mut sink, "read", global.quiet(), false)
}

/// How the work on a game reads its pairs.
struct Reading<'a> {
    max_ply: u32,
    tree: bool,
    player: Option<&'a str>,
    color: Option<Color>,
    quiet: bool,
}

impl Reading<'_> {
    /// The pairs of a game, none for a game left out (said on `err`).
    fn pairs(&self, game: &Game, err: &mut Vec<u8>) -> GamePairs {
        let mut pairs = GamePairs::default();
        let Some(start) = &game.start else { return pairs };
        if book::key(start) != book::key(&Chess::default()) {
            if !self.quiet {
                let report = &game.report;
                let _ = writeln!(
                    err,
                    "{}:{}: note: game {} starts from a set-up position, not the standard start: left out (a Polyglot book holds standard chess from the start)",
                    report.file, report.line, report.game
                );
            }
            return pairs;
        }
        let tag = |name: &str| game.tags.get(name).map(str::trim);
        // Which side's moves count: both, or the player's.
        let mut sides = [true, true];
        if let Some(player) = self.player {
            for (i, (name, color)) in [("White", Color::White), ("Black", Color::Black)].into_iter().enumerate() {
                sides[i] = tag(name) == Some(player) && self.color.is_none_or(|c| c == color);
            }
            if sides == [false, false] {
                return pairs;
            }
        }
        // Polyglot reads the Result tag only: anything but 1-0 and 0-1 is a
        // draw to it.
        let result = tag("Result");
        pairs.result = match result {
            Some("1-0") => 1,
            Some("0-1") => -1,
            _ => 0,
        };
        pairs.decided = matches!(result, Some("1-0" | "0-1" | "1/2-1/2"));
        if self.tree {
            let elo = |name: &str| pgnkit::tag_values::elo(tag(name)).map(|e| e.min(u32::from(u16::MAX)) as u16);
            pairs.elo = [elo("WhiteElo"), elo("BlackElo")];
            pairs.year = GroupKey::Year.tag_value(&game.tags, Color::White, "*").and_then(|y| y.parse().ok());
        }
        let mut pos = start.clone();
        for (ply, node) in game.mainline.nodes.iter().enumerate() {
            let Some(m) = node.step else { break };
            let ply = ply as u32;
            if ply >= self.max_ply {
                break;
            }
            let white = pos.turn() == Color::White;
            if sides[usize::from(!white)] {
                pairs.pairs.push((ply, book::key(&pos), book::polyglot_move(&m), white));
                if self.tree {
                    pairs.fens.push(book::fen(&pos));
                }
            }
            pos.play_unchecked(m);
        }
        pairs
    }
}

/// Where the book or tree goes: a file renamed into place once written,
/// or stdout.
struct Output {
    file: Option<OutputFile>,
}

impl Output {
    fn create(out: &BookOutput, inputs: &FilesRead) -> anyhow::Result<Output> {
        let file = match &out.output {
            Some(path) => Some(OutputFile::create(path, inputs)?),
            None => {
                if out.format == BookFormat::Bin && std::io::IsTerminal::is_terminal(&io::stdout()) {
                    bail!("a Polyglot book is binary: give -o FILE or redirect stdout");
                }
                None
            }
        };
        Ok(Output { file })
    }

    /// Writes what `body` writes (buffered), and returns what it returns.
    fn write<T>(&mut self, body: impl FnOnce(&mut dyn Write) -> anyhow::Result<T>) -> anyhow::Result<T> {
        let done = match &mut self.file {
            Some(file) => {
                let mut w = io::BufWriter::with_capacity(1 << 16, &mut *file);
                let done = body(&mut w)?;
                w.flush()?;
                done
            }
            None => {
                let mut w = io::BufWriter::with_capacity(1 << 16, crate::stdout::stdout());
                let done = body(&mut w)?;
                w.flush()?;
                done
            }
        };
        Ok(done)
    }

    fn commit(self) -> io::Result<()> {
        self.file.map_or(Ok(()), OutputFile::commit)
    }
}

/// What the book or tree is made of: the pairs kept and how they are
/// written.
struct Rows {
    format: BookFormat,
    keep: Keep,
    /// A shard's partial, which holds every pair.
    partial: bool,
}

impl Rows {
    fn new(out: &BookOutput, partial: bool) -> Rows {
        let only = if out.only_white {
            Some(Color::White)
        } else if out.only_black {
            Some(Color::Black)
        } else {
            None
        };
        let keep = Keep { min_games: out.min_games, min_score: out.min_score, only, uniform: out.uniform };
        Rows { format: out.format, keep, partial }
    }

    /// What comes before the rows: a CSV tree's header.
    fn header(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        if self.format == BookFormat::Csv {
            let mut w = csv_cells::Writer::from_writer(out);
            w.write_record(book::tree::COLUMNS)?;
            w.flush()?;
        }
        Ok(())
    }

    /// The book's entries or the tree's rows of `merged`'s positions, in
    /// key order.
    fn write(&self, merged: &mut Merged, out: &mut dyn Write) -> anyhow::Result<()> {
        enum Target<'a> {
            Bin(&'a mut dyn Write),
            Csv(Box<csv_cells::Writer<&'a mut dyn Write>>),
            Jsonl(&'a mut dyn Write),
        }
        let keep = &self.keep;
        let mut target = match self.format {
            BookFormat::Bin => Target::Bin(out),
            BookFormat::Csv => Target::Csv(Box::new(csv_cells::Writer::from_writer(out))),
            BookFormat::Jsonl => Target::Jsonl(out),
        };
        while let Some((key, mut position)) = merged.next_position()? {
            if let Target::Bin(out) = &mut target {
                let kept = position.kept(keep, true);
                book::write_entries(out, key, &kept, keep)?;
                continue;
            }
            let kept: Vec<book::MoveStat> = if self.partial {
                position.moves.clone()
            } else {
                position.kept(keep, false).into_iter().cloned().collect()
            };
            for stat in &kept {
                let row = book::tree::row(key, &position, stat, self.partial)?;
                match &mut target {
                    Target::Csv(w) => w.write_record(&row.cells)?,
                    Target::Jsonl(out) => {
                        serde_json::to_writer(&mut **out, &row.json)?;
                        out.write_all(b"\n")?;
                    }
                    Target::Bin(_) => {}
                }
            }
        }
        if let Target::Csv(w) = &mut target {
            w.flush()?;
        }
        Ok(())
    }
}

/// Says how many positions' weights could not be polyglot's.
fn note_inexact(inexact: u64, quiet: bool) {
    if inexact > 0 && !quiet {
        eprintln!(
            "pgnkit: note: {} position(s) had a move played 16384 times or more over shards counted apart: polyglot halves such counts in game order, which shards interleave; their weights are halved from the totals",
            inexact
        );
    }
}

/// Reads every partial and writes the book or tree of all of them.
fn run_merge(args: &BookMergeArgs, global: &GlobalArgs) -> anyhow::Result<ExitStatus> {
    let mut output = Output::create(&args.out, &FilesRead::of_args(&args.files))?;
    let mut table = Table::of_partials(usize::try_from(args.max_memory).unwrap_or(usize::MAX));
    for path in &args.files {
        let source = Source::from_arg(path);
        let reader = io::BufReader::new(source.open().with_context(|| format!("cannot read {source}"))?);
        let mut rows = 0;
        // A partial writes a position's moves on rows one after another,
        // from one count: they are put together again before they are
        // added, so that a position halved in one partial is not taken for
        // one halved over two (whose halving order is not known).
        let mut position: Option<(u64, book::PositionStat)> = None;
        for (i, line) in reader.lines().enumerate() {
            let line = line.with_context(|| format!("cannot read {source}"))?;
            if line.trim().is_empty() {
                continue;
            }
            let value: serde_json::Value =
                serde_json::from_str(&line).with_context(|| format!("{source}:{}: not JSON", i + 1))?;
            let (key, row) = book::tree::from_partial(&value)
                .map_err(|err| anyhow::anyhow!("{source}:{}: not a book partial: {err}", i + 1))?;
            match &mut position {
                Some((held, stat)) if *held == key && !row.moves.iter().any(|m| stat.count(m.mv) > 0) => {
                    stat.inexact |= row.inexact;
                    stat.moves.extend(row.moves);
                }
                _ => {
                    if let Some((key, stat)) = position.replace((key, row)) {
                        table.add_position(key, stat)?;
                    }
                }
            }
            rows += 1;
        }
        if let Some((key, stat)) = position {
            table.add_position(key, stat)?;
        }
        if rows == 0 {
            bail!("{source}: no book partial row in it");
        }
    }
    let rows = Rows::new(&args.out, false);
    let inexact = output.write(|out| {
        rows.header(out)?;
        let mut merged = table.finish()?;
        rows.write(&mut merged, out)?;
        Ok(merged.inexact)
    })?;
    output.commit()?;
    note_inexact(inexact, global.quiet());
    Ok(ExitStatus::Success)
}
