//! `pgnkit ratings`: read every game's tags (replaying it only for
//! `--valid-only`), then rate the players and print the standings or the
//! per-game history as a text table, CSV or JSON Lines.

#![allow(clippy::print_stderr)]

use std::{
    io::{self, BufWriter, Write},
    sync::Arc,
};

use anyhow::bail;
use pgnkit::{
    check::Checker,
    game::Tags,
    output::{
        csv_cells,
        findings::{ReportWriter, TextWriter},
    },
    ratings::{
        Aliases, GameTags, Ledger, Period, Record, Standing, Table, club,
        elo::{self, EloOptions},
        ml::{self, MlOptions, MlRatings, Param},
        ranked,
    },
    text::{display_width, escape_controls, pad},
};

use crate::{
    cli::{Format, GlobalArgs, RatingPeriod, RatingScheme, RatingsArgs},
    exit::ExitStatus,
    pipeline::{self, PerGame, Pool},
    run::{Run, plural},
    sink::{GameOutput, OrderedSink},
};

pub fn run(args: &RatingsArgs, global: &GlobalArgs) -> anyhow::Result<ExitStatus> {
    refuse_other_schemes_options(args)?;
    let aliases = read_aliases(args)?;
    let run = Run::new(&args.inputs, args.max_game_size, global);
    let mut sink = Games {
        inner: OrderedSink::new(BufWriter::with_capacity(1 << 16, crate::stdout::stdout()), &run.bar),
        ledger: Ledger::new(aliases),
    };
    read_games(args, global, &run, &mut sink)?;
    run.bar.finish_and_clear();
    let (players, notes) = match args.scheme {
        RatingScheme::Elo | RatingScheme::Club => rate_game_by_game(args, &sink.ledger, &mut sink.inner.out)?,
        RatingScheme::Ml => rate_ml(args, global, &sink.ledger, &mut sink.inner.out)?,
    };
    sink.inner.out.flush()?;
    let mut line = summary_line(&sink, run.inputs(), players, args.valid_only);
    for note in notes {
        line.push_str("; ");
        line.push_str(&note);
    }
    if !global.quiet() {
        say!("{line}");
    }
    Ok(exit_status(&sink))
}

/// The aliases of the `--aliases` file (none without one).
fn read_aliases(args: &RatingsArgs) -> anyhow::Result<Aliases> {
    let Some(path) = &args.aliases else { return Ok(Aliases::default()) };
    Aliases::read(path).map_err(anyhow::Error::msg)
}

/// Adds every game's tags to the sink's ledger, replaying the game first with `--valid-only`.
fn read_games<W: Write + Send>(
    args: &RatingsArgs,
    global: &GlobalArgs,
    run: &Run,
    sink: &mut Games<W>,
) -> io::Result<()> {
    let valid_only = args.valid_only;
    let findings = TextWriter { verbose: false, color: global.stderr_color() };
    pipeline::run(
        &run.options(),
        Checker::default,
        |checker, file, raw| {
            let mut read = Read {
                file: Arc::clone(file),
                game: raw.frame.index,
                tags: GameTags::read(raw.bytes, &Tags::scan(raw.bytes)),
                valid: None,
                produced: GameOutput::default(),
            };
            if valid_only {
                let report = checker.check(file, raw);
                // Only an error leaves a game out: a variant game, which
                // could not be checked, is rated as before.
                read.valid = Some(!report.invalid());
                read.produced.summary += &report;
                findings.game(&report, &mut read.produced.err);
            }
            read
        },
        sink,
    )
}

/// Rates by Elo or club points and writes the standings or the history; the players rated, and no notes.
fn rate_game_by_game(args: &RatingsArgs, ledger: &Ledger, out: &mut impl Write) -> io::Result<(usize, Vec<String>)> {
    let table =
        if args.scheme == RatingScheme::Elo { elo::rate(ledger, elo_options(args)) } else { club::rate(ledger) };
    let sheet = if args.history {
        history(ledger, &table, args.scheme == RatingScheme::Club)
    } else {
        standings(ledger, &table, args.scheme == RatingScheme::Club, args.min_games)
    };
    write(&sheet, args.format, None, out)?;
    Ok((table.standings.len(), Vec::new()))
}

/// Rates by maximum likelihood and writes the standings; the players rated, and the notes for the summary line.
fn rate_ml(
    args: &RatingsArgs,
    global: &GlobalArgs,
    ledger: &Ledger,
    out: &mut impl Write,
) -> anyhow::Result<(usize, Vec<String>)> {
    let options = ml_options(args);
    // The simulations run on a pool of -j threads; their results do
    // not depend on how many.
    let pool = Pool::new(global.threads());
    let rated = pool.install(|| ml::rate(ledger, &options));
    let rated = match rated {
        Ok(rated) => rated,
        Err(err) => {
            out.flush()?;
            bail!("{}", err.describe(ledger.players()))
        }
    };
    let sheet = ml_standings(ledger, &rated, args.min_games);
    let parameters = ml_parameters(&rated, &options);
    write(&sheet, args.format, Some(&parameters), out)?;
    Ok((rated.standings.len(), ml_notes(&rated, &options)))
}

/// 2 when an input could not be read, else 1 when a game was invalid (`--valid-only`), else 0.
fn exit_status<W: Write>(sink: &Games<W>) -> ExitStatus {
    if sink.inner.input_errors > 0 {
        ExitStatus::Error
    } else if sink.ledger.counts().invalid > 0 {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    }
}

/// Options of one scheme given with another are mistakes, not no-ops.
fn refuse_other_schemes_options(args: &RatingsArgs) -> anyhow::Result<()> {
    let scheme = match args.scheme {
        RatingScheme::Elo => "elo",
        RatingScheme::Club => "club",
        RatingScheme::Ml => "ml",
    };
    let options: [(bool, &str, &[&str]); 9] = [
        (args.period.is_some(), "--period", &["elo"]),
        (args.initial.is_some(), "--initial", &["elo"]),
        (args.history, "--history", &["elo", "club"]),
        (args.anchor.is_some(), "--anchor", &["ml"]),
        (args.average.is_some(), "--average", &["ml"]),
        (args.white_advantage.is_some(), "--white-advantage", &["ml"]),
        (args.draw_rate.is_some(), "--draw-rate", &["ml"]),
        (args.simulations.is_some(), "--simulations", &["ml"]),
        (args.seed.is_some(), "--seed", &["ml"]),
    ];
    for (given, flag, schemes) in options {
        if given && !schemes.contains(&scheme) {
            bail!("{flag} is for --scheme {}", schemes.join(" or "));
        }
    }
    Ok(())
}

/// The Elo options the arguments give.
fn elo_options(args: &RatingsArgs) -> EloOptions {
    EloOptions {
        initial: args.initial.unwrap_or(EloOptions::default().initial),
        period: match args.period.unwrap_or(RatingPeriod::Game) {
            RatingPeriod::Game => Period::Game,
            RatingPeriod::Day => Period::Day,
            RatingPeriod::Month => Period::Month,
        },
    }
}

fn ml_options(args: &RatingsArgs) -> MlOptions {
    let defaults = MlOptions::default();
    let average = args.average.unwrap_or(defaults.average);
    MlOptions {
        anchor: args.anchor.clone().map(|name| (name, args.anchor_rating.unwrap_or(average))),
        average,
        white_advantage: args.white_advantage.unwrap_or(defaults.white_advantage),
        draw_rate: args.draw_rate.unwrap_or(defaults.draw_rate),
        simulations: args.simulations.unwrap_or(defaults.simulations),
        seed: args.seed.unwrap_or(defaults.seed),
    }
}

/// Writes `sheet` in `format`; with the ml `parameters`, as text in
/// Ordo's layout ([`Sheet::ordo_text`]).
fn write(sheet: &Sheet, format: Format, parameters: Option<&[String; 2]>, out: &mut impl Write) -> io::Result<()> {
    match (format, parameters) {
        (Format::Text, Some(parameters)) => sheet.ordo_text(parameters, out),
        (Format::Text, None) => sheet.text(out),
        (Format::Csv, _) => sheet.csv(out),
        (Format::Jsonl, _) => sheet.jsonl(out),
    }
}

/// What the work on one game gives the sink.
struct Read {
    file: Arc<str>,
    game: u64,
    tags: GameTags,
    /// With `--valid-only`, whether the game replayed without error.
    valid: Option<bool>,
    /// Findings (with `--valid-only`).
    produced: GameOutput,
}

/// Adds each game to the ledger in input order, and prints findings.
struct Games<W: Write> {
    inner: OrderedSink<W>,
    ledger: Ledger,
}

impl<W: Write + Send> PerGame<Read> for Games<W> {
    fn result(&mut self, read: Read) -> io::Result<()> {
        self.ledger.add(&read.file, read.game, &read.tags, read.valid);
        self.inner.game(read.produced)
    }

    fn input_error(&mut self, name: &str, error: &io::Error) {
        self.inner.input_error(name, error);
    }

    fn batch_done(&mut self) {
        if !self.inner.bar.is_hidden() {
            self.inner.bar.set_message(format!("{} games", self.ledger.counts().games));
        }
    }
}

/// `pgnkit: rated 12 of 15 games in 1 input, 4 players; not rated: 1
/// unfinished, 2 without a player name`, then with `--valid-only` the
/// findings, and the inputs that could not be read.
fn summary_line<W: Write>(sink: &Games<W>, inputs: u64, players: usize, valid_only: bool) -> String {
    let counts = sink.ledger.counts();
    let mut line = format!(
        "pgnkit: rated {} of {} in {}, {}",
        counts.rated,
        plural(counts.games, "game", "games"),
        plural(inputs, "input", "inputs"),
        plural(players as u64, "player", "players")
    );
    let unrated: Vec<String> = [
        (counts.unfinished, "unfinished (result * or none)"),
        (counts.unnamed, "without a player name"),
        (counts.self_play, "with one player on both sides"),
        (counts.invalid, "invalid"),
    ]
    .into_iter()
    .filter(|&(n, _)| n > 0)
    .map(|(n, why)| format!("{n} {why}"))
    .collect();
    if !unrated.is_empty() {
        line.push_str(&format!("; not rated: {}", unrated.join(", ")));
    }
    if valid_only {
        let summary = &sink.inner.summary;
        line.push_str(&format!(
            "; {}, {}",
            plural(summary.errors, "error", "errors"),
            plural(summary.warnings, "warning", "warnings")
        ));
    }
    if sink.inner.input_errors > 0 {
        line.push_str(&format!("; {} could not be read", plural(sink.inner.input_errors, "input", "inputs")));
    }
    line
}

/// One value of a row.
enum Cell {
    /// A number, already written out (JSON takes it as it is).
    Number(String),
    Text(String),
    /// No value: empty in CSV, `null` in JSON, `-` in text.
    None,
}

impl Cell {
    fn int(n: impl Into<i64>) -> Cell {
        Cell::Number(n.into().to_string())
    }

    /// `decimals` places; `None` stays none.
    fn fixed(value: Option<f64>, decimals: usize) -> Cell {
        value.map_or(Cell::None, |v| Cell::Number(format!("{:.decimals$}", v + 0.0)))
    }

    fn text(&self) -> &str {
        match self {
            Cell::Number(s) | Cell::Text(s) => s,
            Cell::None => "",
        }
    }
}

/// Rows under named columns, written as text, CSV or JSON Lines. Each
/// row is made when it is written (twice for text: once for the widths),
/// not held: 100,000 players' rows held as cells took over 100 MB.
struct Sheet<'a> {
    columns: Vec<&'static str>,
    /// Columns left out of the text table (always empty there).
    text_hidden: Vec<&'static str>,
    /// How many rows.
    len: usize,
    /// Row `i`'s cells.
    row: Box<dyn Fn(usize) -> Vec<Cell> + 'a>,
}

impl Sheet<'_> {
    /// Every row, in order.
    fn rows(&self) -> impl Iterator<Item = Vec<Cell>> + '_ {
        (0..self.len).map(|i| (self.row)(i))
    }

    /// An aligned table: names and other text to the left, numbers to the
    /// right, two spaces between columns.
    fn text(&self, out: &mut impl Write) -> io::Result<()> {
        let shown: Vec<usize> =
            (0..self.columns.len()).filter(|&i| !self.text_hidden.contains(&self.columns[i])).collect();
        // Names come from the games: their control characters are shown
        // escaped, and columns line up by display width (a CJK name takes
        // two columns a character).
        let shown_text = |cell: &Cell| match cell {
            Cell::None => "-".to_owned(),
            cell => escape_controls(cell.text()),
        };
        // Each column's width and side, found in one pass over the rows:
        // its side asked per cell made the table quadratic in players
        // (20,000 players: 10 s).
        let mut widths: Vec<usize> = shown.iter().map(|&i| self.columns[i].len()).collect();
        let mut lefts = vec![false; self.columns.len()];
        for row in self.rows() {
            for (width, &i) in widths.iter_mut().zip(&shown) {
                *width = (*width).max(display_width(&shown_text(&row[i])));
            }
            for (left, cell) in lefts.iter_mut().zip(&row) {
                *left |= matches!(cell, Cell::Text(_));
            }
        }
        let mut line = |cells: &mut dyn Iterator<Item = (String, bool)>| {
            let mut text = String::new();
            for (n, ((cell, left), &width)) in cells.zip(&widths).enumerate() {
                if n > 0 {
                    text.push_str("  ");
                }
                text.push_str(&pad(&cell, width, left));
            }
            out.write_all(text.trim_end().as_bytes())?;
            out.write_all(b"\n")
        };
        line(&mut shown.iter().map(|&i| (self.columns[i].to_owned(), lefts[i])))?;
        for row in self.rows() {
            line(&mut shown.iter().map(|&i| (shown_text(&row[i]), lefts[i])))?;
        }
        Ok(())
    }

    /// Ordo's layout, so that scripts written for it keep working:
    ///
    /// ```text
    ///    # PLAYER      :  RATING  ERROR  POINTS  PLAYED    (%)
    ///    1 Alder, Ann  :  2436.1   45.2     4.0       6   66.7%
    /// ```
    ///
    /// then a blank line and the white advantage and draw rate.
    fn ordo_text(&self, parameters: &[String; 2], out: &mut impl Write) -> io::Result<()> {
        let at = |name: &str| self.columns.iter().position(|c| *c == name).expect("a standings column");
        let (rank, player, rating, error, score, games) =
            (at("rank"), at("player"), at("rating"), at("error"), at("score"), at("games"));
        let pct = at("score_pct");
        let name = |row: &[Cell]| escape_controls(row[player].text());
        let width = self.rows().map(|row| display_width(&name(&row))).chain([6]).max().unwrap_or(6);
        let pad = |name: &str| pad(name, width, true);
        writeln!(
            out,
            "{:>4} {} : {:>7} {:>6} {:>7} {:>7} {:>7}",
            "#",
            pad("PLAYER"),
            "RATING",
            "ERROR",
            "POINTS",
            "PLAYED",
            "(%)"
        )?;
        for row in self.rows() {
            let error = match &row[error] {
                Cell::None => "-",
                cell => cell.text(),
            };
            let pct = row[pct].text().parse::<f64>().map_or_else(|_| "-".to_owned(), |p| format!("{p:.1}%"));
            writeln!(
                out,
                "{:>4} {} : {:>7} {:>6} {:>7} {:>7} {:>7}",
                row[rank].text(),
                pad(&name(&row)),
                row[rating].text(),
                error,
                row[score].text(),
                row[games].text(),
                pct
            )?;
        }
        writeln!(out)?;
        for line in parameters {
            writeln!(out, "{line}")?;
        }
        Ok(())
    }

    fn csv(&self, out: &mut impl Write) -> io::Result<()> {
        let mut writer = csv_cells::Writer::from_writer(out);
        writer.write_record(&self.columns)?;
        for row in self.rows() {
            writer.write_record(row.iter().map(Cell::text))?;
        }
        writer.flush()
    }

    fn jsonl(&self, out: &mut impl Write) -> io::Result<()> {
        for row in self.rows() {
            let mut line = String::from("{");
            for (n, (name, cell)) in self.columns.iter().zip(&row).enumerate() {
                if n > 0 {
                    line.push(',');
                }
                line.push_str(&format!("\"{name}\":"));
                match cell {
                    Cell::Number(n) => line.push_str(n),
                    Cell::Text(t) => line.push_str(&serde_json::to_string(t).map_err(io::Error::other)?),
                    Cell::None => line.push_str("null"),
                }
            }
            line.push_str("}\n");
            out.write_all(line.as_bytes())?;
        }
        Ok(())
    }
}

/// A club level: `unranked` or its number.
fn level(points: f64) -> Cell {
    match club::level((points * 100.0).round() as i64) {
        Some(level) => Cell::int(level),
        None => Cell::Text("unranked".to_owned()),
    }
}

/// The cells every scheme's standings start with: rank, player, games,
/// wins, draws, losses, score, score_pct, and the opponents' mean rating
/// (`avg_opponent_elo`, or `avg_opponent_points` for club).
fn record_cells(rank: u32, player: &str, record: &Record) -> Vec<Cell> {
    vec![
        Cell::int(rank),
        Cell::Text(player.to_owned()),
        Cell::int(record.games),
        Cell::int(record.wins),
        Cell::int(record.draws),
        Cell::int(record.losses),
        Cell::fixed(Some(record.score()), 1),
        Cell::fixed(record.score_pct(), 2),
        Cell::fixed(record.avg_opponent(), 2),
    ]
}

/// The standings: one row per player with enough games, best first.
fn standings<'a>(ledger: &'a Ledger, table: &'a Table, club: bool, min_games: u32) -> Sheet<'a> {
    // Named by its unit, as `stats` names the Elo one: club points are not
    // Elo.
    let avg_opponent = if club { "avg_opponent_points" } else { "avg_opponent_elo" };
    let mut columns =
        vec!["rank", "player", "games", "wins", "draws", "losses", "score", "score_pct", avg_opponent, "performance"];
    columns.extend_from_slice(if club { &["points", "level"] } else { &["rating_before", "rating"][..] });
    let ranked = ranked(&table.standings, ledger.players(), min_games);
    let len = ranked.len();
    let row = move |i: usize| {
        let (rank, standing) = ranked[i];
        let Standing { player, record, before, after } = standing;
        let mut row = record_cells(rank, &ledger.players()[*player as usize], record);
        if club {
            // Points are not on the Elo scale: no performance rating.
            row.extend([Cell::None, Cell::fixed(Some(*after), 2), level(*after)]);
        } else {
            row.extend([
                Cell::fixed(record.performance(), 2),
                Cell::fixed(Some(*before), 0),
                Cell::fixed(Some(*after), 0),
            ]);
        }
        row
    };
    let text_hidden = if club { vec!["performance"] } else { Vec::new() };
    Sheet { columns, text_hidden, len, row: Box::new(row) }
}

/// One row per rated game, in the order the games were applied.
fn history<'a>(ledger: &'a Ledger, table: &'a Table, club: bool) -> Sheet<'a> {
    let mut columns = vec!["file", "game", "date", "white", "black", "result", "white_before", "black_before"];
    columns.extend_from_slice(if club {
        &["white_after", "black_after", "white_level", "black_level"]
    } else {
        &["white_expected", "white_k", "black_k", "white_after", "black_after"][..]
    });
    let row = move |i: usize| {
        let step = &table.history[i];
        let game = ledger.games()[step.game];
        let name = |id: u32| Cell::Text(ledger.players()[id as usize].clone());
        let mut row = vec![
            Cell::Text(ledger.files()[game.origin.file as usize].to_string()),
            Cell::int(game.origin.game as i64),
            Cell::Text(game.date.to_string()),
            name(game.white),
            name(game.black),
            Cell::Text(game.outcome.as_str().to_owned()),
        ];
        match (club, step.elo) {
            (false, Some(elo)) => row.extend([
                Cell::fixed(Some(step.white_before), 0),
                Cell::fixed(Some(step.black_before), 0),
                Cell::fixed(Some(elo.white_expected), 4),
                Cell::int(elo.white_k),
                Cell::int(elo.black_k),
                Cell::fixed(Some(step.white_after), 0),
                Cell::fixed(Some(step.black_after), 0),
            ]),
            _ => row.extend([
                Cell::fixed(Some(step.white_before), 2),
                Cell::fixed(Some(step.black_before), 2),
                Cell::fixed(Some(step.white_after), 2),
                Cell::fixed(Some(step.black_after), 2),
                level(step.white_after),
                level(step.black_after),
            ]),
        }
        row
    };
    Sheet { columns, text_hidden: Vec::new(), len: table.history.len(), row: Box::new(row) }
}

/// The maximum-likelihood standings: the common columns, then `rating` and
/// its `error` (half the 95% interval; none without simulations).
fn ml_standings<'a>(ledger: &'a Ledger, rated: &'a MlRatings, min_games: u32) -> Sheet<'a> {
    let columns = vec![
        "rank",
        "player",
        "games",
        "wins",
        "draws",
        "losses",
        "score",
        "score_pct",
        "avg_opponent_elo",
        "performance",
        "rating",
        "error",
    ];
    let ranked = ranked(&rated.standings, ledger.players(), min_games);
    let len = ranked.len();
    let row = move |i: usize| {
        let (rank, standing) = ranked[i];
        let record = &standing.record;
        let error = rated.errors.as_ref().map(|errors| errors[standing.player as usize]);
        let mut row = record_cells(rank, &ledger.players()[standing.player as usize], record);
        row.extend([Cell::fixed(record.performance(), 2), Cell::fixed(Some(standing.after), 1), Cell::fixed(error, 1)]);
        row
    };
    Sheet { columns, text_hidden: Vec::new(), len, row: Box::new(row) }
}

/// The white advantage and the draw rate as the text output ends with them:
/// `White advantage = 31.20 +/- 5.10`, `Draw rate (equal opponents) = 50.00 % (fixed)`.
fn ml_parameters(rated: &MlRatings, options: &MlOptions) -> [String; 2] {
    let describe = |name: &str, value: f64, error: Option<f64>, param: Param, unit: &str| match (param, error) {
        (Param::Fixed(_), _) => format!("{name} = {value:.2}{unit} (fixed)"),
        (Param::Estimated, Some(error)) => format!("{name} = {value:.2}{unit} +/- {error:.2}"),
        (Param::Estimated, None) => format!("{name} = {value:.2}{unit}"),
    };
    [
        describe("White advantage", rated.white_advantage, rated.white_advantage_error, options.white_advantage, ""),
        describe(
            "Draw rate (equal opponents)",
            100.0 * rated.draw_rate,
            rated.draw_rate_error.map(|e| 100.0 * e),
            options.draw_rate,
            " %",
        ),
    ]
}

/// What the summary line adds for ml: the estimated parameters (which CSV
/// and JSON Lines do not carry) and the simulations left out.
fn ml_notes(rated: &MlRatings, options: &MlOptions) -> Vec<String> {
    let mut notes = Vec::new();
    let parameters = ml_parameters(rated, options);
    if options.white_advantage == Param::Estimated {
        notes.push(parameters[0].to_lowercase());
    }
    if options.draw_rate == Param::Estimated {
        notes.push(parameters[1].to_lowercase());
    }
    if rated.simulations_left_out > 0 {
        notes.push(format!(
            "{} of {} left out (their results have no finite ratings)",
            rated.simulations_left_out,
            plural(u64::from(options.simulations), "simulation", "simulations")
        ));
    }
    notes
}
