//! `pgnkit split`: write the games into several files in a folder: N games
//! per file, one file per value of a `--by` key (the keys of `stats --by`),
//! or N round-robin shards.
//!
//! Workers read each game's tags (without replaying its moves, unless
//! `--normalize` or a key that needs them: `termination`, `first-move`, and
//! `eco` and `opening` unless `--openings tags`)
//! and prepare its bytes; the sink, in input order, picks the files and
//! appends to them, so the files are the same for every thread count.

#![allow(clippy::print_stderr)]

use std::io;

use shakmaty::Color;

use pgnkit::{
    aliases::Aliases,
    check::{ReadOptions, result_of},
    frame::{FrameFlags, RawGame},
    game::{Game, Tags},
    input::Compression,
    keys::GroupKey,
    openings::Openings,
    output::findings::{ReportWriter, TextWriter},
    report::Summary,
    split_files::{FileName, JoinedFiles, KeyFiles, SplitFiles},
};

use crate::{
    cli::{GlobalArgs, SplitArgs, openings_naming},
    exit::ExitStatus,
    pick::GameText,
    pipeline::{self, PerGame},
    run::{Run, Tally, plural},
    sink::{GameOutput, OrderedSink},
};

/// Files open at a time by default. A zstd writer holds a few MiB, a gzip
/// writer some hundred KiB, a plain one its 64 KiB buffer.
const MAX_OPEN: u64 = 128;
const MAX_OPEN_COMPRESSED: u64 = 32;

pub fn run(args: &SplitArgs, global: &GlobalArgs) -> anyhow::Result<ExitStatus> {
    // Checked here: clap's `requires` lets it through beside --games.
    if args.ascii_names && args.by.is_empty() {
        anyhow::bail!("--ascii-names names the files of --by: give --by KEY");
    }
    if args.aliases.is_some() && !args.by.iter().any(GroupKey::names_player) {
        anyhow::bail!("--aliases merges the names of players: give --by white, black or player");
    }
    // Before the folder is made: a refused run leaves nothing behind.
    let aliases = args.aliases.as_deref().map(Aliases::read).transpose().map_err(anyhow::Error::msg)?;
    // The table is read only when a key names openings.
    let naming = if args.by.iter().any(GroupKey::names_openings) {
        Some(openings_naming(args.openings.as_ref()).table().map_err(anyhow::Error::msg)?)
    } else {
        None
    };
    let text = GameText::of_pick(&args.pick, args.openings.as_ref(), naming.as_ref().map(Option::as_ref))?;
    let openings = naming.flatten();
    let compress = args.compress.map_or(Compression::None, |format| format.0);
    let default_open = if compress == Compression::None { MAX_OPEN } else { MAX_OPEN_COMPRESSED };
    let max_open = usize::try_from(args.max_open_files.unwrap_or(default_open)).unwrap_or(usize::MAX);
    let mut outputs = SplitFiles::new(&args.out_dir, compress, max_open)?;
    if outputs.recovered() > 0 && !global.quiet() {
        say!(
            "pgnkit: {}: put in place the last {} of a run killed while renaming its files",
            args.out_dir.display(),
            plural(outputs.recovered() as u64, "file", "files")
        );
    }
    outputs.set_inputs(&args.inputs.paths)?;
    let layout = layout(args, &mut outputs);
    let run = Run::new(&args.inputs, args.pick.max_game_size, global);
    let findings = TextWriter { verbose: false, color: global.stderr_color() };
    let keys: &[GroupKey] = if matches!(layout, Layout::By(_) | Layout::Joined(_)) { &args.by } else { &[] };
    let key_needs_game = keys.iter().any(GroupKey::needs_game);
    let mut sink = Files { collect: OrderedSink::new(io::sink(), &run.bar), layout, outputs, games: 0 };
    pipeline::run(
        &run.options(),
        || text.reader(ReadOptions::default()),
        |checker, file, raw| {
            let mut produced = GameOutput::default();
            let flags = raw.frame.flags;
            // A key that needs the moves has the game read, as --normalize
            // does; so does a key an openings table names.
            let game = (text.needs_game() || openings.is_some() || key_needs_game)
                .then(|| checker.read(file, raw, text.needs_game()));
            let keys = match keys {
                [] => KeyValues::default(),
                [key] => key_values(key, &raw, game.as_ref(), openings.as_deref(), aliases.as_ref()),
                keys => joined_values(keys, &raw, game.as_ref(), openings.as_deref(), aliases.as_ref()),
            };
            if let Some(game) = &game {
                produced.summary += &game.report;
                findings.game(&game.report, &mut produced.err);
                text.write(&raw, Some(game), &mut produced.out);
            } else if flags.contains(FrameFlags::TOO_LARGE) || flags.contains(FrameFlags::INPUT_ERROR) {
                // The framer cut this game: what is written is not all of
                // it, so say why, as validate would.
                let report = checker.check(file, raw);
                produced.summary += &report;
                findings.game(&report, &mut produced.err);
                text.write(&raw, None, &mut produced.out);
            } else {
                produced.summary = Summary { games: 1, valid_games: 1, ..Summary::default() };
                text.write(&raw, None, &mut produced.out);
            }
            Routed { produced, keys }
        },
        &mut sink,
    )?;
    if let Layout::Shards(n) = sink.layout {
        for id in 0..n as usize {
            sink.outputs.touch(id)?;
        }
    }
    sink.outputs.finish()?;
    run.bar.finish_and_clear();

    let Files { collect, outputs, layout, .. } = sink;
    if global.verbose {
        list_files(&outputs, &layout);
    }
    let tally = Tally::games("split", &collect.summary, run.inputs(), collect.input_errors);
    if !global.quiet() {
        say!("{}", summary_line(&tally, outputs.created(), args.pick.normalize));
    }
    Ok(tally.status(args.pick.deny_warnings))
}

/// The layout the arguments ask for; the files of `--shards` are made at
/// once (every shard exists, even an empty one).
fn layout(args: &SplitArgs, outputs: &mut SplitFiles) -> Layout {
    match (args.games, &args.by[..], args.shards) {
        (Some(n), _, _) => Layout::Games(n),
        (_, [key], _) => {
            let files = KeyFiles::new(key.clone());
            Layout::By(Box::new(if args.ascii_names { files.ascii_names() } else { files }))
        }
        (_, [_, _, ..], _) => Layout::Joined(Box::new(JoinedFiles::new(args.by.clone(), args.ascii_names))),
        (_, _, Some(n)) => {
            for number in 1..=n {
                outputs.add(FileName::Shard { number, of: n });
            }
            Layout::Shards(n)
        }
        (None, [], None) => unreachable!("clap requires one of --games, --by, --shards"),
    }
}

/// `-v`: each file with its number of games and, with `--by`, its value.
fn list_files(outputs: &SplitFiles, layout: &Layout) {
    for (id, file) in outputs.files().iter().enumerate() {
        let mut line = format!("pgnkit: {}: {}", file.path.display(), plural(file.games, "game", "games"));
        let mut value = |key: &GroupKey, value: Option<&str>| match value {
            Some(value) => line.push_str(&format!(", {} {value:?}", key.name())),
            None => line.push_str(&format!(", no {}", key.name())),
        };
        match layout {
            Layout::By(keys) => value(keys.key(), keys.value(id)),
            Layout::Joined(files) => files.keys().zip(files.values(id)).for_each(|(key, v)| value(key, v)),
            Layout::Games(_) | Layout::Shards(_) => {}
        }
        say!("{line}");
    }
}

/// `pgnkit: split 8 games from 1 input into 3 files`, with the findings
/// when games were replayed.
fn summary_line(tally: &Tally, files: usize, normalize: bool) -> String {
    let mut line = format!(
        "pgnkit: split {} from {} into {}",
        plural(tally.items, "game", "games"),
        plural(tally.inputs, "input", "inputs"),
        plural(files as u64, "file", "files"),
    );
    if normalize {
        line.push_str(&format!(": {}", tally.validity()));
    }
    if normalize || tally.errors + tally.warnings > 0 {
        line.push_str(&format!(
            "; {}, {}",
            plural(tally.errors, "error", "errors"),
            plural(tally.warnings, "warning", "warnings")
        ));
    }
    if tally.input_errors > 0 {
        line.push_str(&format!("; {} could not be read", plural(tally.input_errors, "input", "inputs")));
    }
    line
}

/// How games are spread over the files.
enum Layout {
    /// N games per file.
    Games(u64),
    /// One file per key value.
    By(Box<KeyFiles>),
    /// One file per list of values of several keys.
    Joined(Box<JoinedFiles>),
    /// Game i to shard i mod N.
    Shards(u64),
}

/// One game, ready to be filed.
struct Routed {
    produced: GameOutput,
    /// Its key values, with --by.
    keys: KeyValues,
}

/// A game's values of a `--by` key: one, or White's and Black's with
/// `--by player` (`None`: no value). Two fields, not a list: one allocation
/// per game showed in the count of instructions.
#[derive(Debug, Default)]
struct KeyValues {
    first: Option<String>,
    /// Black's, when it is not White's.
    second: Option<Option<String>>,
    /// With several keys, each file's values, one per key: one list, or
    /// White's and Black's with `player` when they differ.
    joined: Vec<Vec<Option<String>>>,
}

impl KeyValues {
    /// The values, with how many there are (1 or 2).
    fn all(&self) -> ([Option<&str>; 2], usize) {
        match &self.second {
            Some(second) => ([self.first.as_deref(), second.as_deref()], 2),
            None => ([self.first.as_deref(), None], 1),
        }
    }
}

/// A game's values of `key`: from the game when it was read, else from its
/// tags; `eco` and `opening` from `openings` when given; players' names
/// read through `aliases`. With `player`, White's and Black's (once when
/// they are the same).
fn key_values(
    key: &GroupKey,
    raw: &RawGame<'_>,
    game: Option<&Game>,
    openings: Option<&Openings>,
    aliases: Option<&Aliases>,
) -> KeyValues {
    let player = *key == GroupKey::Player;
    let (mut first, mut second) = match game {
        Some(game) => {
            let opening = openings.map(|table| table.of_game(game));
            (key.value(game, Color::White, opening), player.then(|| key.value(game, Color::Black, opening)))
        }
        None => {
            let tags = Tags::scan(raw.bytes);
            let result = if *key == GroupKey::Result { result_of(raw.bytes, &tags) } else { "*" };
            let black = player.then(|| key.tag_value(&tags, Color::Black, result));
            (key.tag_value(&tags, Color::White, result), black)
        }
    };
    // A speed that cannot be told is no value: its games go to the file of
    // games without one, not to a file of their own beside it.
    if *key == GroupKey::TimeControl && first.as_deref() == Some("unknown") {
        first = None;
    }
    if let Some(aliases) = aliases.filter(|_| key.names_player()) {
        let name = |value: Option<String>| value.map(|v| aliases.name_of(&v).map_or(v, str::to_owned));
        (first, second) = (name(first), second.map(name));
    }
    KeyValues { second: second.filter(|black| *black != first), first, joined: Vec::new() }
}

/// A game's values of several keys, each as [`key_values`] reads it: one
/// list, or two with `player` (White's, and Black's when they differ).
fn joined_values(
    keys: &[GroupKey],
    raw: &RawGame<'_>,
    game: Option<&Game>,
    openings: Option<&Openings>,
    aliases: Option<&Aliases>,
) -> KeyValues {
    let (mut white, mut black) = (Vec::with_capacity(keys.len()), Vec::with_capacity(keys.len()));
    for key in keys {
        let values = key_values(key, raw, game, openings, aliases);
        black.push(values.second.clone().unwrap_or_else(|| values.first.clone()));
        white.push(values.first);
    }
    let joined = if black == white { vec![white] } else { vec![white, black] };
    KeyValues { joined, ..KeyValues::default() }
}

/// Files each game in input order; findings and totals go through
/// [`OrderedSink`] as for every game command.
struct Files {
    collect: OrderedSink<io::Sink>,
    layout: Layout,
    outputs: SplitFiles,
    /// Games filed so far.
    games: u64,
}

impl PerGame<Routed> for Files {
    fn result(&mut self, mut routed: Routed) -> io::Result<()> {
        // The files the game goes to: one, or two with `--by player`.
        let (mut ids, mut count) = ([0; 2], 1);
        match &mut self.layout {
            Layout::Games(n) => {
                let part = (self.games / *n) as usize;
                if part == self.outputs.files().len() {
                    self.outputs.add(FileName::Part(part as u64 + 1));
                }
                ids[0] = part;
            }
            Layout::Shards(n) => ids[0] = (self.games % *n) as usize,
            Layout::By(keys) => {
                let values;
                (values, count) = routed.keys.all();
                for (value, id) in values[..count].iter().zip(&mut ids) {
                    let new;
                    (*id, new) = keys.file(*value);
                    if new {
                        self.outputs.add(FileName::Value(keys.stem(*id)));
                    }
                }
            }
            Layout::Joined(files) => {
                count = routed.keys.joined.len();
                for (values, id) in routed.keys.joined.iter().zip(&mut ids) {
                    let values: Vec<Option<&str>> = values.iter().map(Option::as_deref).collect();
                    let new;
                    (*id, new) = files.file(&values);
                    if new {
                        self.outputs.add(FileName::Value(files.stem(*id)));
                    }
                }
            }
        }
        self.games += 1;
        for &id in &ids[..count] {
            self.outputs.write_game(id, &routed.produced.out)?;
        }
        routed.produced.out.clear();
        self.collect.game(routed.produced)
    }

    fn input_error(&mut self, name: &str, error: &io::Error) {
        self.collect.input_error(name, error);
    }

    fn batch_done(&mut self) {
        self.collect.batch_done();
    }
}

#[cfg(test)]
mod tests {
    use super::summary_line;
    use crate::run::Tally;

    fn tally(valid: u64, errors: u64, input_errors: u64) -> Tally {
        Tally {
            verb: "split",
            noun: ("game", "games"),
            items: 8,
            inputs: 2,
            valid,
            unchecked: 0,
            errors,
            warnings: 0,
            infos: 0,
            input_errors,
        }
    }

    #[test]
    fn the_summary_line_gives_games_inputs_and_files_and_findings_only_when_replayed_or_found() {
        assert_eq!(summary_line(&tally(8, 0, 0), 3, false), "pgnkit: split 8 games from 2 inputs into 3 files");
        assert_eq!(
            summary_line(&tally(8, 0, 1), 1, true),
            "pgnkit: split 8 games from 2 inputs into 1 file: 8 valid, 0 invalid; 0 errors, 0 warnings; \
             1 input could not be read"
        );
        assert_eq!(
            summary_line(&tally(7, 1, 0), 3, false),
            "pgnkit: split 8 games from 2 inputs into 3 files; 1 error, 0 warnings"
        );
    }
}
