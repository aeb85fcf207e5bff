//! `pgnkit filter`: write the games that meet the criteria, in input order,
//! replaying a game only when a criterion needs its moves.

#![allow(clippy::print_stderr, clippy::print_stdout)]

use std::{
    fs::File,
    io::{self, BufWriter, Write},
    sync::Arc,
};

use pgnkit::{
    aliases::Aliases,
    check::{GameReader, Options, ReadOptions},
    filter::{Castling, Criterion, Filter, Names},
    game::Tags,
    openings::Openings,
    output::file::OutputFile,
    output::findings::{ReportWriter, TextWriter},
};

use crate::{
    cli::{CastlingArg, FilterArgs, GlobalArgs, NameArg, inputs_and_openings, openings_naming},
    exit::ExitStatus,
    pick::GameText,
    pipeline::{self, PerGame},
    run::{Run, Tally},
    sink::{GameOutput, OrderedSink},
    stdout::Named,
};

pub fn run(args: &FilterArgs, global: &GlobalArgs) -> anyhow::Result<ExitStatus> {
    // The table is read only when a criterion names openings.
    let naming = if args.eco.is_some() || !args.opening.is_empty() {
        Some(openings_naming(args.openings.as_ref()).table().map_err(anyhow::Error::msg)?)
    } else {
        None
    };
    let names_players = [&args.white, &args.black, &args.player, &args.winner, &args.loser];
    if args.aliases.is_some() && names_players.iter().all(|values| values.is_empty()) {
        anyhow::bail!("--aliases reads the names of players: give --white, --black, --player, --winner or --loser");
    }
    let aliases = args.aliases.as_deref().map(Aliases::read).transpose().map_err(anyhow::Error::msg)?.map(Arc::new);
    let filter = filter(args, naming.clone().flatten(), aliases);
    let text = GameText::of_pick(&args.pick, args.openings.as_ref(), naming.as_ref().map(Option::as_ref))?;
    let rejects_file = match &args.rejects {
        Some(path) => {
            let mut read = inputs_and_openings(&args.inputs.paths, args.openings.as_ref());
            if let Some(aliases) = &args.aliases {
                read.add_path(aliases);
            }
            Some(OutputFile::create(path, &read)?)
        }
        None => None,
    };
    let rejects = match &rejects_file {
        Some(file) => Some(BufWriter::new(file.handle()?)),
        None => None,
    };
    let mut rejects =
        rejects.zip(args.rejects.as_ref()).map(|(file, path)| Named::new(path.display().to_string(), file));
    let write_rejects = rejects.is_some();
    let notes = filter.needs_notes() || text.needs_game();
    let tag_names = filter.tag_names();
    let findings = TextWriter { verbose: false, color: global.stderr_color() };

    let run = Run::new(&args.inputs, args.pick.max_game_size, global);
    let mut sink = Picks {
        inner: OrderedSink::new(BufWriter::with_capacity(1 << 16, crate::stdout::stdout()), &run.bar).writing_stdout(),
        rejects: rejects.as_mut(),
        games: 0,
        replayed: 0,
        matched: 0,
        written: 0,
        skip: args.skip,
        limit: args.limit,
        count_only: args.count,
    };
    pipeline::run(
        &run.options(),
        // Tags come from `Tags::scan`; the checker keeps only the moves.
        || {
            text.reader(ReadOptions {
                check: Options { full_reports: false, ..Options::default() },
                ..ReadOptions::default()
            })
        },
        |checker, file, raw| {
            let mut picked = Picked::default();
            let mut game = None;
            let read = |checker: &mut GameReader, picked: &mut Picked| {
                let game = checker.read(file, raw, notes);
                picked.replayed = true;
                picked.produced.summary += &game.report;
                findings.game(&game.report, &mut picked.produced.err);
                game
            };
            // Only the tags the criteria look at are read; none when none do.
            let tags = if tag_names.is_empty() { Tags::default() } else { Tags::scan_only(raw.bytes, &tag_names) };
            picked.matched = match filter.by_tags(&tags) {
                Some(verdict) => verdict,
                None => filter.by_game(game.insert(read(checker, &mut picked)), &tags),
            };
            let wanted = if picked.matched { true } else { write_rejects };
            if wanted && text.needs_game() && game.is_none() {
                game = Some(read(checker, &mut picked));
            }
            if wanted {
                let out = if picked.matched { &mut picked.produced.out } else { &mut picked.reject };
                text.write(&raw, game.as_ref(), out);
            }
            picked
        },
        &mut sink,
    )?;
    if let Some(rejects) = sink.rejects.as_mut() {
        rejects.flush()?;
    }
    // Renamed into place only once complete.
    if let Some(file) = rejects_file {
        file.commit()?;
    }
    // Off the screen before the count is written, not left above it.
    run.bar.finish_and_clear();
    if args.count {
        // The games that would be written: after --skip, up to --limit
        // (reading stopped there).
        writeln!(sink.inner.out, "{}", sink.matched.saturating_sub(sink.skip))?;
    }
    sink.inner.out.flush()?;
    let tally = Tally::games("checked", &sink.inner.summary, run.inputs(), sink.inner.input_errors);
    if !global.quiet() {
        say!("{}", sink.summary_line(&tally));
    }
    Ok(tally.status(args.pick.deny_warnings))
}

/// The criteria given on the command line, in a fixed order; `openings`
/// names the games' openings (none: their tags).
fn filter(args: &FilterArgs, openings: Option<Arc<Openings>>, aliases: Option<Arc<Aliases>>) -> Filter {
    let mut criteria = Vec::new();
    // Each option is one criterion, however often it is given: its values
    // are alternatives. Players' names are read through the aliases.
    let names_of = |values: &[NameArg], players: bool| {
        let all: Vec<String> = values.iter().flat_map(|value| value.0.iter().cloned()).collect();
        let aliases = aliases.clone().filter(|_| players);
        (!values.is_empty()).then(|| Names::of_players(all, args.ignore_case, aliases))
    };
    let names = |values: &[NameArg]| names_of(values, false);
    let players = |values: &[NameArg]| names_of(values, true);
    for (name, values) in [("White", &args.white), ("Black", &args.black)] {
        criteria.extend(players(values).map(|names| Criterion::TagPrefix(name, names)));
    }
    for (name, values) in [("Event", &args.event), ("Site", &args.site)] {
        criteria.extend(names(values).map(|names| Criterion::TagPrefix(name, names)));
    }
    criteria.extend(players(&args.player).map(Criterion::Player));
    criteria.extend(players(&args.winner).map(Criterion::Winner));
    criteria.extend(players(&args.loser).map(Criterion::Loser));
    criteria.extend(args.eco.clone().map(|range| Criterion::Eco(range, openings.clone())));
    criteria.extend(names(&args.opening).map(|names| Criterion::Opening(names, openings.clone())));
    criteria.extend(args.date_from.map(Criterion::DateFrom));
    criteria.extend(args.date_to.map(Criterion::DateTo));
    criteria.extend(args.elo_min.map(Criterion::EloMin));
    criteria.extend(args.elo_max.map(Criterion::EloMax));
    criteria.extend(args.avg_elo_min.map(Criterion::AvgEloMin));
    criteria.extend(args.avg_elo_max.map(Criterion::AvgEloMax));
    criteria.extend(args.tag.iter().cloned());
    criteria.extend(args.has_tag.iter().cloned().map(Criterion::HasTag));
    criteria.extend(args.variant.clone().map(Criterion::Variant));
    criteria.extend(args.result.as_deref().map(|r| {
        Criterion::Result(match r {
            "1-0" => "1-0",
            "0-1" => "0-1",
            "1/2-1/2" => "1/2-1/2",
            _ => "*",
        })
    }));
    criteria.extend(args.termination.map(|t| Criterion::Termination(t.0)));
    if args.valid || args.invalid {
        criteria.push(Criterion::Valid(args.valid));
    }
    criteria.extend(args.min_plies.map(Criterion::MinPlies));
    criteria.extend(args.max_plies.map(Criterion::MaxPlies));
    for (flag, criterion) in [
        (args.has_comments, Criterion::HasComments),
        (args.has_variations, Criterion::HasVariations),
        (args.underpromotion, Criterion::Underpromotion),
    ] {
        if flag {
            criteria.push(criterion);
        }
    }
    criteria.extend(args.castling.map(|c| {
        Criterion::Castling(match c {
            CastlingArg::None => Castling::None,
            CastlingArg::Short => Castling::Short,
            CastlingArg::Long => Castling::Long,
        })
    }));
    criteria.extend(args.fen.clone().map(Criterion::Position));
    criteria.extend(args.placement.clone().map(|b| Criterion::Placement(Box::new(b))));
    criteria.extend(args.material.map(Criterion::Material));
    Filter { criteria, any: args.any, invert: args.invert, after_ply: args.after_ply }
}

/// One game's verdict and text.
#[derive(Debug, Default)]
struct Picked {
    produced: GameOutput,
    matched: bool,
    /// Whether the game was replayed (a criterion needed its moves).
    replayed: bool,
    /// The game's text for `--rejects`, when it does not match.
    reject: Vec<u8>,
}

/// Applies `--skip`, `--limit` and `--count` in input order, and writes the
/// rejects.
struct Picks<'a, W: Write> {
    inner: OrderedSink<W>,
    rejects: Option<&'a mut Named<BufWriter<File>>>,
    games: u64,
    replayed: u64,
    matched: u64,
    written: u64,
    skip: u64,
    limit: Option<u64>,
    count_only: bool,
}

impl<W: Write> Picks<'_, W> {
    /// `pgnkit: 12 of 3025 games matched in 1 input; 500 replayed: 499
    /// valid, 1 invalid; 1 error, 0 warnings`.
    fn summary_line(&self, tally: &Tally) -> String {
        let mut line = format!(
            "pgnkit: {} of {} matched in {}",
            self.matched,
            crate::run::plural(self.games, "game", "games"),
            crate::run::plural(tally.inputs, "input", "inputs")
        );
        if self.written != self.matched && !self.count_only {
            line.push_str(&format!(" ({} written)", self.written));
        }
        line.push_str(&format!(
            "; {} replayed: {}; {}, {}",
            self.replayed,
            tally.validity(),
            crate::run::plural(tally.errors, "error", "errors"),
            crate::run::plural(tally.warnings, "warning", "warnings")
        ));
        if tally.input_errors > 0 {
            line.push_str(&format!(
                "; {} could not be read",
                crate::run::plural(tally.input_errors, "input", "inputs")
            ));
        }
        line
    }
}

impl<W: Write + Send> PerGame<Picked> for Picks<'_, W> {
    fn result(&mut self, mut picked: Picked) -> io::Result<()> {
        if self.finished() {
            return Ok(());
        }
        self.games += 1;
        self.replayed += u64::from(picked.replayed);
        if picked.matched {
            self.matched += 1;
            if self.count_only || self.matched <= self.skip {
                picked.produced.out.clear();
            } else {
                self.written += 1;
            }
        } else if let Some(rejects) = &mut self.rejects {
            rejects.write_all(&picked.reject)?;
        }
        self.inner.game(picked.produced)
    }

    fn input_error(&mut self, name: &str, error: &io::Error) {
        self.inner.input_error(name, error);
    }

    fn batch_done(&mut self) {
        self.inner.batch_done();
    }

    fn finished(&self) -> bool {
        self.limit.is_some_and(|limit| self.matched >= self.skip.saturating_add(limit))
    }
}
