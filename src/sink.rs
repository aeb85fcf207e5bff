//! What every game-reading command shares: opening the inputs, the progress
//! bar, and a sink that prints each game's output (stdout) and findings
//! (stderr) in input order while it adds up the totals.

#![allow(clippy::print_stderr)]

use std::{
    cell::RefCell,
    io::{self, Write},
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
};

use pgnkit::{
    check::{GameReader, KeptTags, ReadOptions},
    frame::{FrameOptions, RawGame},
    game::Game,
    input::Source,
    openings::{Naming, Openings},
    output::findings::escape_for_terminal,
    output::games::{GameWriter, PgnOptions, PgnWriter, original_ending, write_original},
    report::Summary,
};

use crate::{
    cli::{GlobalArgs, Inputs, PickArgs},
    exit::ExitStatus,
    pipeline::{self, Gather, Sink},
    progress::Bar,
};

/// `1 game`, `2 games`.
pub(crate) fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What a checking command (validate, fen check) found, for its summary
/// line on stderr and its exit status.
pub(crate) struct Tally {
    /// What was done: `checked`, `converted`.
    pub verb: &'static str,
    /// What was checked: `("game", "games")`.
    pub noun: (&'static str, &'static str),
    pub items: u64,
    pub inputs: u64,
    pub valid: u64,
    /// Items neither valid nor invalid: games that could not be replayed
    /// and have no error.
    pub unchecked: u64,
    pub errors: u64,
    pub warnings: u64,
    pub infos: u64,
    /// Inputs that could not be read.
    pub input_errors: u64,
}

impl Tally {
    /// The tally of a game-reading command.
    pub fn games(verb: &'static str, summary: &Summary, inputs: u64, input_errors: u64) -> Tally {
        Tally {
            verb,
            noun: ("game", "games"),
            items: summary.games,
            inputs,
            valid: summary.valid_games,
            unchecked: summary.unchecked_games,
            errors: summary.errors,
            warnings: summary.warnings,
            infos: summary.infos,
            input_errors,
        }
    }

    /// Items with an error.
    pub fn invalid(&self) -> u64 {
        self.items - self.valid - self.unchecked
    }

    /// `2 valid, 1 invalid`, and `, 1 not checked` when a game could not
    /// be replayed.
    pub fn validity(&self) -> String {
        let mut counts = format!("{} valid, {} invalid", self.valid, self.invalid());
        if self.unchecked > 0 {
            counts.push_str(&format!(", {} not checked", self.unchecked));
        }
        counts
    }

    /// `pgnkit: checked 3 games in 1 input: 2 valid, 1 invalid; 1 error, 0 warnings`.
    pub fn summary_line(&self) -> String {
        let mut line = format!(
            "pgnkit: {} {} in {}: {}; {}, {}",
            self.verb,
            plural(self.items, self.noun.0, self.noun.1),
            plural(self.inputs, "input", "inputs"),
            self.validity(),
            plural(self.errors, "error", "errors"),
            plural(self.warnings, "warning", "warnings"),
        );
        if self.infos > 0 {
            line.push_str(&format!(", {} info", self.infos));
        }
        if self.input_errors > 0 {
            line.push_str(&format!("; {} could not be read", plural(self.input_errors, "input", "inputs")));
        }
        line
    }

    /// 2 when an input could not be read, else 1 when an item is invalid (or
    /// has a warning, with `deny_warnings`). A game that could not be
    /// replayed fails the run only by its error or warning: an unusable
    /// FEN tag is an error, an unsupported variant a warning, as a reader
    /// that knows only chess does not know whether its moves are legal.
    pub fn status(&self, deny_warnings: bool) -> ExitStatus {
        if self.input_errors > 0 {
            ExitStatus::Error
        } else if self.invalid() > 0 || (deny_warnings && self.warnings > 0) {
            ExitStatus::Failure
        } else {
            ExitStatus::Success
        }
    }
}

/// The inputs of a run, and how to read them.
pub(crate) struct Run {
    pub sources: Vec<Source>,
    pub bar: Bar,
    pub threads: usize,
    pub frame: FrameOptions,
    pub shard: Option<pgnkit::frame::shard::Shard>,
    /// Inputs read beyond the sources: the second and later members of
    /// archives.
    pub extra_inputs: AtomicU64,
}

impl Run {
    /// Stdin when no path is given; games over `max_game_mib` are cut.
    pub fn new(inputs: &Inputs, max_game_mib: usize, global: &GlobalArgs) -> Run {
        let sources: Vec<Source> = if inputs.paths.is_empty() {
            vec![Source::Stdin]
        } else {
            pgnkit::input::expand_paths(&inputs.paths).iter().map(|p| Source::from_arg(p)).collect()
        };
        let total = sources.iter().map(Source::size).sum::<Option<u64>>();
        let bar = Bar::new(total, sources.iter().any(Source::is_typed), global.bar_settings());
        let threads = global.threads();
        let frame = FrameOptions { max_game_bytes: max_game_mib.saturating_mul(1 << 20), ..FrameOptions::default() };
        Run { sources, bar, threads, frame, shard: inputs.shard, extra_inputs: AtomicU64::new(0) }
    }

    pub fn options(&self) -> pipeline::Options<'_> {
        pipeline::Options {
            sources: &self.sources,
            threads: self.threads,
            frame: self.frame,
            bar: &self.bar,
            shard: self.shard,
            extra_inputs: &self.extra_inputs,
        }
    }

    /// The inputs of the run, for its summary line: each member of an
    /// archive counts as one, as does every input not read (after
    /// `--limit`, say) or not readable.
    pub fn inputs(&self) -> u64 {
        self.sources.len() as u64 + self.extra_inputs.load(Ordering::Relaxed)
    }

    /// Flushes the output, prints the summary line (`checked 3 games ...`,
    /// unless quiet) and gives the exit status.
    pub fn finish<W: Write, E: Extra>(
        &self,
        sink: &mut Collect<W, E>,
        verb: &'static str,
        quiet: bool,
        deny_warnings: bool,
    ) -> anyhow::Result<ExitStatus> {
        // Off the screen before the last output, not left above it.
        self.bar.finish_and_clear();
        sink.out.flush()?;
        sink.extra.finish()?;
        let tally = Tally::games(verb, &sink.summary, self.inputs(), sink.input_errors);
        if !quiet {
            say!("{}", tally.summary_line());
        }
        Ok(tally.status(deny_warnings))
    }
}

/// How the commands that pick games (filter, dedup, split) write the games
/// they keep: their text as read, byte for byte, or normalized PGN.
pub(crate) struct GameText {
    normalize: Option<PgnWriter>,
}

impl GameText {
    /// How `filter`, `dedup` and `split` write the games they keep: as
    /// read, or normalized with the opening tags of `openings` (their
    /// `--openings`, never a default: tags are added only when asked for).
    /// `naming` is the table the command names games by, when it does
    /// (`Some(None)`: by their tags), which `openings` then is too.
    pub fn of_pick(
        pick: &PickArgs,
        openings: Option<&Naming>,
        naming: Option<Option<&Arc<Openings>>>,
    ) -> anyhow::Result<GameText> {
        let table = match (openings, naming) {
            (None, _) => None,
            (Some(_), None) if !pick.normalize => {
                anyhow::bail!("--openings sets the tags of games written again: it needs --normalize")
            }
            (Some(_), Some(_)) if !pick.normalize => None,
            // Read once for both.
            (Some(_), Some(table)) => table.cloned(),
            (Some(openings), None) => openings.table().map_err(anyhow::Error::msg)?,
        };
        Ok(GameText::new(pick.normalize, table))
    }

    /// Games as read, or (`normalize`) as `convert --to pgn` writes them,
    /// with `ECO` and `Opening` tags from `openings` when given.
    pub fn new(normalize: bool, openings: Option<Arc<Openings>>) -> GameText {
        let writer = PgnWriter { options: PgnOptions { openings, ..PgnOptions::default() } };
        GameText { normalize: normalize.then_some(writer) }
    }

    /// Whether a game must be read in full ([`GameReader::read`] with notes) to
    /// be written.
    pub fn needs_game(&self) -> bool {
        self.normalize.is_some()
    }

    /// A reader set up for what [`GameText::write`] needs on top of what
    /// the command itself needs (`options`).
    pub fn reader(&self, mut options: ReadOptions) -> GameReader {
        if self.needs_game() {
            options.tags = KeptTags::All;
            options.check.full_reports = true;
        }
        GameReader::new(options)
    }

    /// Appends one game: `game` is the game read in full when
    /// [`GameText::needs_game`], else only its bytes are used.
    pub fn write(&self, raw: &RawGame<'_>, game: Option<&Game>, out: &mut Vec<u8>) {
        match (&self.normalize, game) {
            (Some(writer), Some(game)) => writer.game(game, out),
            _ => write_original(raw.bytes, out),
        }
    }
}

/// What a command adds up beside the output, the findings and the summary
/// (`stats` its statistics, `convert --to parquet` its games): the command
/// brings its own, and the sink knows none of them.
pub(crate) trait Extra: Send {
    /// What the work on one game hands over.
    type Item: Send;
    /// What a batch gathers of its games on the worker.
    type Batch: Send;
    /// An empty batch.
    fn new_batch(&self) -> Self::Batch;
    /// Adds one game's item to a batch, on the worker.
    fn gather(batch: &mut Self::Batch, item: Self::Item);
    /// Takes a batch, in input order, at the sink.
    fn take(&mut self, batch: Self::Batch) -> io::Result<()>;
    /// Takes one game's item, in input order (sinks that look at each game).
    fn take_one(&mut self, item: Self::Item) -> io::Result<()>;
    /// After the last game.
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Nothing beside the output and the findings.
impl Extra for () {
    type Item = ();
    type Batch = ();
    fn new_batch(&self) {}
    fn gather((): &mut (), (): ()) {}
    fn take(&mut self, (): ()) -> io::Result<()> {
        Ok(())
    }
    fn take_one(&mut self, (): ()) -> io::Result<()> {
        Ok(())
    }
}

/// What the work on one game produced.
#[derive(Debug)]
pub(crate) struct Produced<T = ()> {
    pub summary: Summary,
    /// For stdout (or the output file).
    pub out: Vec<u8>,
    /// Output too large to hold, written after `out` by [`Collect`] when
    /// its turn comes.
    pub later: Option<Later>,
    /// For stderr.
    pub err: Vec<u8>,
    /// For the command's [`Extra`].
    pub extra: Option<T>,
}

impl<T> Default for Produced<T> {
    fn default() -> Self {
        Produced { summary: Summary::default(), out: Vec::new(), later: None, err: Vec::new(), extra: None }
    }
}

/// A game's output written where the output goes, a piece at a time, when
/// its turn comes (in input order): for output too large to hold whole
/// until then, such as the EPD lines of a game of millions of moves.
pub(crate) struct Later(Box<dyn WriteLater>);

/// What a [`Later`] runs: it writes to the output it is given.
pub(crate) trait WriteLater: FnOnce(&mut dyn Write) -> io::Result<()> + Send {}

impl<F: FnOnce(&mut dyn Write) -> io::Result<()> + Send> WriteLater for F {}

impl Later {
    pub fn new(write: impl WriteLater + 'static) -> Later {
        Later(Box::new(write))
    }
}

impl std::fmt::Debug for Later {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Later")
    }
}

impl<T> Produced<T> {
    /// Empty, with the output buffer of a game this thread already gathered
    /// into its batch when there is one (see [`SPARE_OUT`]): for work that
    /// writes some output for every game.
    pub fn reusing_out() -> Self {
        Produced { out: SPARE_OUT.with_borrow_mut(std::mem::take), ..Produced::default() }
    }
}

/// Largest output buffer kept for the next game.
const MAX_SPARE_OUT: usize = 1 << 16;

thread_local! {
    /// The output buffer of the last game this thread gathered into its
    /// batch (which copied it), emptied, for the next game's output: a
    /// game whose output is a line (`validate --format jsonl`) then costs
    /// no allocation.
    static SPARE_OUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Prints results in input order and adds up their totals.
pub(crate) struct Collect<W: Write, E: Extra = ()> {
    pub out: W,
    pub summary: Summary,
    /// What the command adds up of its own.
    pub extra: E,
    pub input_errors: u64,
    pub bar: Bar,
    /// The bar was hidden from the start (output not to a terminal, or
    /// `--progress never`), so it always is: told once, not at every write.
    bar_hidden: bool,
    /// Escape control characters in the output: it goes to a terminal,
    /// and a PGN can carry escape sequences.
    pub terminal: bool,
    /// Room for half as much again as the last batch wrote, up to
    /// [`MAX_OUT_HINT`]: what a new batch's buffer starts with, rather than
    /// growing to it again with a copy at each doubling, when every game
    /// writes (`validate --format jsonl`, `convert`).
    out_hint: usize,
}

/// A batch's output buffer is made no larger than this ahead of its games:
/// a batch with a huge game in it says nothing of the next.
const MAX_OUT_HINT: usize = 1 << 20;

impl<W: Write> Collect<W> {
    /// A sink writing to `out`; call [`Collect::writing_stdout`] when `out` is
    /// stdout.
    pub fn new(out: W, bar: &Bar) -> Self {
        Collect::with_extra(out, bar, ())
    }
}

impl<W: Write, E: Extra> Collect<W, E> {
    /// A sink writing to `out` and adding up `extra`.
    pub fn with_extra(out: W, bar: &Bar, extra: E) -> Self {
        Collect {
            terminal: false,
            out,
            summary: Summary::default(),
            extra,
            input_errors: 0,
            bar: bar.clone(),
            bar_hidden: bar.is_hidden(),
            out_hint: 0,
        }
    }

    /// Marks the output as stdout, to be escaped when it is a terminal.
    pub fn writing_stdout(mut self) -> Self {
        self.terminal = std::io::IsTerminal::is_terminal(&io::stdout());
        self
    }
}

impl<W: Write, E: Extra> Collect<W, E> {
    /// One game's result, for sinks that look at each game in turn.
    pub fn result(&mut self, produced: Produced<E::Item>) -> io::Result<()> {
        self.summary += &produced.summary;
        if let Some(item) = produced.extra {
            self.extra.take_one(item)?;
        }
        if !produced.err.is_empty() {
            self.findings(&produced.err)?;
        }
        if !produced.out.is_empty() {
            self.write_out(&produced.out)?;
        }
        match produced.later {
            Some(later) => self.write_later(later),
            None => Ok(()),
        }
    }

    pub fn input_error(&mut self, name: &str, error: &io::Error) {
        self.input_errors += 1;
        // Output already printed stays in order before the error.
        let _ = self.out.flush();
        let name = pgnkit::text::Shown(name);
        self.bar.suspend(|| say!("pgnkit: error: {name}: {error}"));
    }

    pub fn batch_done(&mut self) {
        if !self.bar.is_hidden() {
            self.bar.set_message(format!("{} games", self.summary.games));
        }
    }

    /// A game's findings, on stderr after the output of the games before it.
    /// A stderr that cannot be written loses them, and the run goes on: its
    /// output (to a file, say) would otherwise end cut short with exit 0.
    fn findings(&mut self, err: &[u8]) -> io::Result<()> {
        self.out.flush()?;
        let _ = self.bar.suspend(|| io::stderr().lock().write_all(err));
        Ok(())
    }

    /// Writes a game as it was read, as [`write_original`] writes it, from
    /// the batch it was read into rather than from a copy.
    pub fn write_original(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.write_out(bytes)?;
        self.write_out(original_ending(bytes))
    }

    fn write_later(&mut self, later: Later) -> io::Result<()> {
        (later.0)(&mut Through(self))
    }

    fn write_out(&mut self, bytes: &[u8]) -> io::Result<()> {
        let text = if self.terminal { escape_for_terminal(bytes) } else { bytes.into() };
        let out = &mut self.out;
        if self.bar_hidden || text.is_empty() || self.bar.is_hidden() {
            return out.write_all(&text);
        }
        // On a terminal, output goes out between redraws of the bar.
        self.bar.suspend(|| out.write_all(&text).and_then(|()| out.flush()))
    }
}

/// A [`Later`]'s writes, as [`Collect`] writes output.
struct Through<'a, W: Write, E: Extra>(&'a mut Collect<W, E>);

impl<W: Write, E: Extra> Write for Through<'_, W, E> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.write_out(bytes)?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The games of one batch as [`Collect`] needs them: added up and
/// concatenated on the worker, so the sink writes one buffer per batch.
pub(crate) struct Gathered<E: Extra> {
    summary: Summary,
    out: Vec<u8>,
    err: Vec<u8>,
    /// In input order, where `out` stops for something else: a game's
    /// findings (its output comes after them), up to where they end in
    /// `err`, or output written later.
    marks: Vec<(usize, Mark)>,
    extra: E::Batch,
}

/// What comes between two stretches of a batch's output.
#[derive(Debug)]
enum Mark {
    /// Findings, up to here in the batch's `err`.
    Findings(usize),
    Later(Later),
}

impl<E: Extra> Gather<Produced<E::Item>> for Gathered<E> {
    fn push(&mut self, produced: Produced<E::Item>) {
        self.summary += &produced.summary;
        if let Some(item) = produced.extra {
            E::gather(&mut self.extra, item);
        }
        if !produced.err.is_empty() {
            self.err.extend_from_slice(&produced.err);
            self.marks.push((self.out.len(), Mark::Findings(self.err.len())));
        }
        if self.out.capacity() == 0 {
            // The first game's buffer becomes the batch's, unless the batch
            // has one made to measure.
            self.out = produced.out;
        } else {
            self.out.extend_from_slice(&produced.out);
            let mut spare = produced.out;
            if spare.capacity() > 0 && spare.capacity() <= MAX_SPARE_OUT {
                spare.clear();
                SPARE_OUT.set(spare);
            }
        }
        if let Some(later) = produced.later {
            self.marks.push((self.out.len(), Mark::Later(later)));
        }
    }
}

impl<W: Write, E: Extra> Sink<Produced<E::Item>> for Collect<W, E> {
    type Batch = Gathered<E>;

    fn new_batch(&self) -> Gathered<E> {
        Gathered {
            summary: Summary::default(),
            out: Vec::with_capacity(self.out_hint),
            err: Vec::new(),
            marks: Vec::new(),
            extra: self.extra.new_batch(),
        }
    }

    /// Adds up a batch and writes its output, with each game's findings
    /// on stderr after the output of the games before it.
    fn batch(&mut self, batch: Gathered<E>) -> io::Result<()> {
        self.out_hint = (batch.out.len() + batch.out.len() / 2).min(MAX_OUT_HINT);
        self.summary += &batch.summary;
        self.extra.take(batch.extra)?;
        let (mut out_done, mut err_done) = (0, 0);
        for (out_end, mark) in batch.marks {
            self.write_out(&batch.out[out_done..out_end])?;
            out_done = out_end;
            match mark {
                Mark::Findings(err_end) => {
                    self.findings(&batch.err[err_done..err_end])?;
                    err_done = err_end;
                }
                Mark::Later(later) => self.write_later(later)?,
            }
        }
        self.write_out(&batch.out[out_done..])?;
        self.batch_done();
        Ok(())
    }

    fn input_error(&mut self, name: &str, error: &io::Error) {
        Collect::input_error(self, name, error);
    }
}

#[cfg(test)]
mod tests {
    use pgnkit::report::Summary;

    use super::{Collect, Later, Produced};
    use crate::{
        pipeline::{Gather, Sink},
        progress::Bar,
    };

    fn produced(out: &str, err: &str) -> Produced {
        Produced {
            summary: Summary { games: 1, ..Summary::default() },
            out: out.into(),
            err: err.into(),
            ..Produced::default()
        }
    }

    #[test]
    fn a_batch_keeps_each_games_findings_after_the_output_of_the_games_before_it() {
        let sink = Collect::new(Vec::new(), &Bar::hidden());
        let mut batch = sink.new_batch();
        for game in [produced("a\n", ""), produced("b\n", "x\n"), produced("", "y\n"), produced("c\n", "")] {
            batch.push(game);
        }
        assert_eq!(batch.out, b"a\nb\nc\n");
        assert_eq!(batch.err, b"x\ny\n");
        // "x" after "a", "y" after "a" and "b".
        let marks: Vec<_> = batch.marks.iter().map(|(at, mark)| format!("{at} {mark:?}")).collect();
        assert_eq!(marks, ["2 Findings(2)", "4 Findings(4)"]);
        assert_eq!(batch.summary.games, 4);
    }

    /// `games` written one by one and as one batch: both sinks, and the
    /// batch's marks.
    fn written<const N: usize>(games: impl Fn() -> [Produced; N]) -> (Collect<Vec<u8>>, Collect<Vec<u8>>, Vec<String>) {
        let mut by_game = Collect::new(Vec::new(), &Bar::hidden());
        for game in games() {
            by_game.result(game).unwrap();
        }
        let mut by_batch = Collect::new(Vec::new(), &Bar::hidden());
        let mut batch = by_batch.new_batch();
        games().into_iter().for_each(|game| batch.push(game));
        let marks = batch.marks.iter().map(|(at, mark)| format!("{at} {mark:?}")).collect();
        by_batch.batch(batch).unwrap();
        (by_game, by_batch, marks)
    }

    #[test]
    fn output_written_later_keeps_its_place_among_the_games_and_their_findings() {
        let (by_game, by_batch, marks) = written(|| {
            let mut long = produced("b\n", "x\n");
            long.later = Some(Later::new(|out| out.write_all(b"b1\n").and_then(|()| out.write_all(b"b2\n"))));
            let mut empty = produced("", "");
            empty.later = Some(Later::new(|out| out.write_all(b"d\n")));
            [produced("a\n", ""), long, produced("c\n", "y\n"), empty]
        });
        // "x" before "b", the rest of "b" after it, "y" before "c".
        assert_eq!(marks, ["2 Findings(2)", "4 Later(Later)", "4 Findings(4)", "6 Later(Later)"]);
        assert_eq!(by_game.out, b"a\nb\nb1\nb2\nc\nd\n");
        assert_eq!(by_batch.out, by_game.out);
    }

    #[test]
    fn a_sink_writes_a_batch_as_it_writes_its_games_one_by_one() {
        let (by_game, by_batch, _) = written(|| [produced("a\n", ""), produced("b\n", ""), produced("c\n", "")]);
        assert_eq!(by_game.out, b"a\nb\nc\n");
        assert_eq!(by_batch.out, by_game.out);
        assert_eq!(by_batch.summary, by_game.summary);
    }
}

#[cfg(test)]
mod tally_tests {
    use super::Tally;
    use crate::exit::ExitStatus;

    fn tally(valid: u64, warnings: u64, input_errors: u64) -> Tally {
        Tally {
            verb: "checked",
            noun: ("position", "positions"),
            items: 3,
            inputs: 2,
            valid,
            unchecked: 0,
            errors: 3 - valid,
            warnings,
            infos: 0,
            input_errors,
        }
    }

    #[test]
    fn the_summary_line_counts_items_and_failed_inputs() {
        assert_eq!(
            tally(2, 1, 1).summary_line(),
            "pgnkit: checked 3 positions in 2 inputs: 2 valid, 1 invalid; 1 error, 1 warning; 1 input could not be read"
        );
    }

    #[test]
    fn an_unreadable_input_wins_over_invalid_items_and_warnings_fail_only_when_denied() {
        assert_eq!(tally(2, 0, 1).status(false), ExitStatus::Error);
        assert_eq!(tally(2, 0, 0).status(false), ExitStatus::Failure);
        assert_eq!(tally(3, 1, 0).status(false), ExitStatus::Success);
        assert_eq!(tally(3, 1, 0).status(true), ExitStatus::Failure);
    }

    #[test]
    fn games_not_checked_are_neither_valid_nor_invalid_and_fail_only_by_their_warnings() {
        let tally = Tally { noun: ("game", "games"), unchecked: 1, errors: 0, ..tally(2, 1, 0) };
        assert_eq!(tally.invalid(), 0);
        assert_eq!(
            tally.summary_line(),
            "pgnkit: checked 3 games in 2 inputs: 2 valid, 0 invalid, 1 not checked; 0 errors, 1 warning"
        );
        assert_eq!(tally.status(false), ExitStatus::Success);
        assert_eq!(tally.status(true), ExitStatus::Failure);
    }
}
