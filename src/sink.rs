//! The ordered sink every game-reading command writes through: it takes
//! each game's [`GameOutput`] in input order, writes its output (stdout or
//! a file) and its findings (stderr) in that order, adds up the totals,
//! and hands what a command keeps of its own to the command's [`Fold`].
//! It knows no command, no checker and no game format: the work on a game
//! writes its bytes, and the sink only puts them in order.

#![allow(clippy::print_stderr)]

use std::{
    cell::Cell,
    io::{self, Write},
    sync::atomic::{AtomicBool, Ordering},
};

use pgnkit::{output::findings::escape_for_terminal, report::Summary};

use crate::{
    pipeline::{Sink, schedule::SCHEDULE},
    progress::Bar,
};

/// Whether findings are written to stderr: not with `-qq` (`--silent`).
/// Set once, before the run, for every place that writes them.
static FINDINGS_SHOWN: AtomicBool = AtomicBool::new(true);

/// Whether findings are written to stderr in this run.
pub(crate) fn show_findings(shown: bool) {
    FINDINGS_SHOWN.store(shown, Ordering::Relaxed);
}

/// Whether findings go to stderr (not with `-qq`).
pub(crate) fn findings_shown() -> bool {
    FINDINGS_SHOWN.load(Ordering::Relaxed)
}

/// What a command keeps of its own beside the output, the findings and the
/// summary (`stats` its statistics, `fix` its counts): each game's item is
/// gathered into a batch on the worker, and the batches are taken in input
/// order at the sink, which knows none of them.
pub(crate) trait Fold: Send {
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
    /// After the last game.
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A [`Fold`] that takes each game's item in input order (the CI document
/// and the baseline file, a file's diff, the Parquet file): a batch is its
/// games' items, taken one after the other.
pub(crate) trait InOrder: Send {
    /// What the work on one game hands over.
    type Item: Send;
    /// Takes one game's item, in input order.
    fn take_item(&mut self, item: Self::Item) -> io::Result<()>;
    /// After the last game.
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<T: InOrder> Fold for T {
    type Item = T::Item;
    type Batch = Vec<T::Item>;

    fn new_batch(&self) -> Vec<T::Item> {
        Vec::new()
    }

    fn gather(batch: &mut Vec<T::Item>, item: T::Item) {
        batch.push(item);
    }

    fn take(&mut self, batch: Vec<T::Item>) -> io::Result<()> {
        batch.into_iter().try_for_each(|item| self.take_item(item))
    }

    fn finish(&mut self) -> io::Result<()> {
        InOrder::finish(self)
    }
}

/// Nothing beside the output and the findings.
impl Fold for () {
    type Item = ();
    type Batch = ();
    fn new_batch(&self) {}
    fn gather((): &mut (), (): ()) {}
    fn take(&mut self, (): ()) -> io::Result<()> {
        Ok(())
    }
}

/// What the work on one game hands the sink.
#[derive(Debug)]
pub(crate) struct GameOutput<T = ()> {
    pub summary: Summary,
    /// For stdout (or the output file).
    pub out: Vec<u8>,
    /// Where this game's output starts in `out`, when `out` is its batch's
    /// output lent to it ([`GameOutput::onto_batch`]): the bytes before are
    /// the output of the batch's earlier games.
    pub from: Option<usize>,
    /// Output too large to hold, written after `out` when its turn comes.
    pub streamed: Option<Streamed>,
    /// For stderr.
    pub err: Vec<u8>,
    /// For the command's [`Fold`].
    pub item: Option<T>,
}

impl<T> Default for GameOutput<T> {
    fn default() -> Self {
        GameOutput {
            summary: Summary::default(),
            out: Vec::new(),
            from: None,
            streamed: None,
            err: Vec::new(),
            item: None,
        }
    }
}

impl<T> GameOutput<T> {
    /// Empty, with `out` the output of the batch the game goes into, lent
    /// by [`Sink::lend`]: the game's output is written onto its end, with
    /// no copy and no allocation a game. For work that writes output for
    /// (nearly) every game, and only adds to `out`: what is in it is the
    /// earlier games'. Outside a batch, an empty buffer.
    pub fn onto_batch() -> Self {
        match LENT_OUT.take() {
            Some(out) => GameOutput { from: Some(out.len()), out, ..GameOutput::default() },
            None => GameOutput::default(),
        }
    }
}

thread_local! {
    /// The output of the batch this thread works on, lent to the work on
    /// its next game ([`GameOutput::onto_batch`]) between
    /// [`Sink::lend`] and [`Sink::gather`].
    static LENT_OUT: Cell<Option<Vec<u8>>> = const { Cell::new(None) };
}

/// A game's output written where the output goes, a piece at a time, when
/// its turn comes (in input order): for output too large to hold whole
/// until then, such as the EPD lines of a game of millions of moves.
pub(crate) struct Streamed(Box<WriteTo>);

/// What a [`Streamed`] runs: it writes to the output it is given.
type WriteTo = dyn FnOnce(&mut dyn Write) -> io::Result<()> + Send;

impl Streamed {
    /// Output that `write` writes to the output it is given.
    pub fn new(write: impl FnOnce(&mut dyn Write) -> io::Result<()> + Send + 'static) -> Streamed {
        Streamed(Box::new(write))
    }
}

impl std::fmt::Debug for Streamed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Streamed")
    }
}

/// Writes the games' output and findings in input order and adds up their
/// totals; `F` is what the command keeps of its own.
pub(crate) struct OrderedSink<W: Write, F: Fold = ()> {
    pub out: W,
    pub summary: Summary,
    /// What the command keeps of its own.
    pub fold: F,
    pub input_errors: u64,
    pub bar: Bar,
    /// The bar was hidden from the start (output not to a terminal, or
    /// `--progress never`), so it always is: told once, not at every write.
    bar_hidden: bool,
    /// Escape control characters in the output: it goes to a terminal,
    /// and a PGN can carry escape sequences.
    terminal: bool,
    /// Room for half as much again as the last batch wrote, up to
    /// [`Schedule::max_out_hint`]: what a new batch's buffer starts with,
    /// rather than growing to it again with a copy at each doubling, when
    /// every game writes (`validate --format jsonl`, `convert`).
    ///
    /// [`Schedule::max_out_hint`]: crate::pipeline::schedule::Schedule::max_out_hint
    out_hint: usize,
    /// Each batch lends its output to the work on its games
    /// ([`OrderedSink::lending`]).
    lending: bool,
}

impl<W: Write> OrderedSink<W> {
    /// A sink writing to `out`; call [`OrderedSink::writing_stdout`] when
    /// `out` is stdout.
    pub fn new(out: W, bar: &Bar) -> Self {
        OrderedSink::with_fold(out, bar, ())
    }

    /// One game's output, for sinks that look at each game in turn.
    pub fn game(&mut self, game: GameOutput) -> io::Result<()> {
        self.summary += &game.summary;
        if !game.err.is_empty() {
            self.findings(&game.err)?;
        }
        if !game.out.is_empty() {
            self.write_out(&game.out)?;
        }
        match game.streamed {
            Some(streamed) => (streamed.0)(self),
            None => Ok(()),
        }
    }
}

impl<W: Write, F: Fold> OrderedSink<W, F> {
    /// A sink writing to `out` and handing each game's item to `fold`.
    pub fn with_fold(out: W, bar: &Bar, fold: F) -> Self {
        OrderedSink {
            terminal: false,
            out,
            summary: Summary::default(),
            fold,
            input_errors: 0,
            bar: bar.clone(),
            bar_hidden: bar.is_hidden(),
            out_hint: 0,
            lending: false,
        }
    }

    /// Marks the work as writing output for (nearly) every game onto its
    /// batch's, which each batch then lends it ([`GameOutput::onto_batch`]).
    /// Not for other work, which would pay for lending at every game.
    pub fn lending(mut self) -> Self {
        self.lending = true;
        self
    }

    /// Marks the output as stdout, to be escaped when it is a terminal.
    pub fn writing_stdout(mut self) -> Self {
        self.terminal = std::io::IsTerminal::is_terminal(&io::stdout());
        self
    }

    pub fn input_error(&mut self, name: &str, error: &io::Error) {
        self.input_errors += 1;
        // Output already printed stays in order before the error.
        let _ = self.out.flush();
        let name = pgnkit::text::Shown(name);
        self.bar.suspend(|| say!("pgnkit: error: {name}: {error}"));
    }

    /// A batch was written: the bar says how many games so far.
    pub fn batch_done(&mut self) {
        if !self.bar.is_hidden() {
            self.bar.set_message(format!("{} games", self.summary.games));
        }
    }

    /// After the last game: flushes the output and finishes the fold.
    pub fn finish(&mut self) -> io::Result<()> {
        self.out.flush()?;
        self.fold.finish()
    }

    /// A game's findings, on stderr after the output of the games before it.
    /// A stderr that cannot be written loses them, and the run goes on: its
    /// output (to a file, say) would otherwise end cut short with exit 0.
    fn findings(&mut self, err: &[u8]) -> io::Result<()> {
        if !findings_shown() {
            return Ok(());
        }
        self.out.flush()?;
        let _ = self.bar.suspend(|| io::stderr().lock().write_all(err));
        Ok(())
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

/// Output written in its turn as a game's output is (escaped on a terminal,
/// between redraws of the bar): a [`Streamed`] game's, or a game written
/// from the batch it was read into.
impl<W: Write, F: Fold> Write for OrderedSink<W, F> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.write_out(bytes)?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The games of one batch as [`OrderedSink`] needs them: added up and
/// concatenated on the worker, so the sink writes one buffer per batch.
pub(crate) struct BatchOutput<F: Fold> {
    summary: Summary,
    out: Vec<u8>,
    err: Vec<u8>,
    /// In input order, where `out` stops for something else: a game's
    /// findings (its output comes after them), up to where they end in
    /// `err`, or streamed output.
    breaks: Vec<(usize, Between)>,
    items: F::Batch,
    /// Whether the batch lends its output ([`OrderedSink::lending`]).
    lends: bool,
}

/// What comes between two stretches of a batch's output.
#[derive(Debug)]
enum Between {
    /// Findings, up to here in the batch's `err`.
    Findings(usize),
    Streamed(Streamed),
}

impl<F: Fold> BatchOutput<F> {
    /// Lends the batch's output to the work on its next game.
    fn lend(&mut self) {
        if self.lends {
            LENT_OUT.set(Some(std::mem::take(&mut self.out)));
        }
    }

    /// Adds one game's output to the batch, and takes back its output if
    /// the game did not write onto it.
    fn push(&mut self, game: GameOutput<F::Item>) {
        if self.lends {
            match LENT_OUT.take() {
                Some(out) => self.out = out,
                // Taken: it comes back as the game's output, with the
                // earlier games' before it.
                None => debug_assert!(game.from.is_some(), "the work on a game dropped its batch's output"),
            }
        }
        self.summary += &game.summary;
        if let Some(item) = game.item {
            F::gather(&mut self.items, item);
        }
        // Where the game's output starts in the batch's.
        let from = game.from.unwrap_or(self.out.len());
        if !game.err.is_empty() {
            self.err.extend_from_slice(&game.err);
            self.breaks.push((from, Between::Findings(self.err.len())));
        }
        match game.from {
            Some(_) => self.out = game.out,
            // Most games of work that does not lend write nothing.
            None if game.out.is_empty() => {}
            None => self.out.extend_from_slice(&game.out),
        }
        if let Some(streamed) = game.streamed {
            self.breaks.push((self.out.len(), Between::Streamed(streamed)));
        }
    }
}

impl<W: Write, F: Fold> Sink<GameOutput<F::Item>> for OrderedSink<W, F> {
    type Batch = BatchOutput<F>;

    fn new_batch(&self) -> BatchOutput<F> {
        BatchOutput {
            summary: Summary::default(),
            out: Vec::with_capacity(self.out_hint),
            err: Vec::new(),
            breaks: Vec::new(),
            items: self.fold.new_batch(),
            lends: self.lending,
        }
    }

    fn lend(batch: &mut BatchOutput<F>) {
        batch.lend();
    }

    fn gather(batch: &mut BatchOutput<F>, game: GameOutput<F::Item>) {
        batch.push(game);
    }

    /// Adds up a batch and writes its output, with each game's findings
    /// on stderr after the output of the games before it.
    fn batch(&mut self, batch: BatchOutput<F>) -> io::Result<()> {
        self.out_hint = (batch.out.len() + batch.out.len() / 2).min(SCHEDULE.max_out_hint);
        self.summary += &batch.summary;
        self.fold.take(batch.items)?;
        let (mut out_done, mut err_done) = (0, 0);
        for (out_end, between) in batch.breaks {
            self.write_out(&batch.out[out_done..out_end])?;
            out_done = out_end;
            match between {
                Between::Findings(err_end) => {
                    self.findings(&batch.err[err_done..err_end])?;
                    err_done = err_end;
                }
                Between::Streamed(streamed) => (streamed.0)(self)?,
            }
        }
        self.write_out(&batch.out[out_done..])?;
        self.batch_done();
        Ok(())
    }

    fn input_error(&mut self, name: &str, error: &io::Error) {
        OrderedSink::input_error(self, name, error);
    }
}

#[cfg(test)]
mod tests {
    use pgnkit::report::Summary;

    use super::{GameOutput, OrderedSink, Streamed};
    use crate::{pipeline::Sink, progress::Bar};

    fn game(out: &str, err: &str) -> GameOutput {
        GameOutput {
            summary: Summary { games: 1, ..Summary::default() },
            out: out.into(),
            err: err.into(),
            ..GameOutput::default()
        }
    }

    #[test]
    fn a_batch_keeps_each_games_findings_after_the_output_of_the_games_before_it() {
        let sink = OrderedSink::new(Vec::new(), &Bar::hidden());
        let mut batch = sink.new_batch();
        for game in [game("a\n", ""), game("b\n", "x\n"), game("", "y\n"), game("c\n", "")] {
            batch.push(game);
        }
        assert_eq!(batch.out, b"a\nb\nc\n");
        assert_eq!(batch.err, b"x\ny\n");
        // "x" after "a", "y" after "a" and "b".
        let breaks: Vec<_> = batch.breaks.iter().map(|(at, between)| format!("{at} {between:?}")).collect();
        assert_eq!(breaks, ["2 Findings(2)", "4 Findings(4)"]);
        assert_eq!(batch.summary.games, 4);
    }

    /// Games written onto the batch's output lent to them, and games that
    /// write their own: the same output, the findings at the same places,
    /// and the lent buffer is the batch's (no copy). A sink that does not
    /// lend gathers work that asks for the batch's output all the same.
    #[test]
    fn games_written_onto_the_lent_batch_output_are_gathered_as_games_with_their_own() {
        for lending in [true, false] {
            let sink = OrderedSink::new(Vec::new(), &Bar::hidden());
            let sink = if lending { sink.lending() } else { sink };
            let mut batch = sink.new_batch();
            for (onto, (out, err)) in
                [(true, ("a\n", "")), (false, ("b\n", "x\n")), (true, ("", "y\n")), (true, ("c\n", "z\n"))]
            {
                OrderedSink::<Vec<u8>>::lend(&mut batch);
                let mut produced = if onto { GameOutput::onto_batch() } else { GameOutput::default() };
                assert_eq!(produced.from.is_some(), onto && lending);
                let before = produced.out.as_ptr();
                produced.out.extend_from_slice(out.as_bytes());
                produced.err.extend_from_slice(err.as_bytes());
                produced.summary.games = 1;
                let grown = produced.out.as_ptr() != before;
                OrderedSink::<Vec<u8>>::gather(&mut batch, produced);
                assert!(!(onto && lending) || grown || batch.out.as_ptr() == before, "the batch holds its buffer");
            }
            assert_eq!(batch.out, b"a\nb\nc\n");
            assert_eq!(batch.err, b"x\ny\nz\n");
            let breaks: Vec<_> = batch.breaks.iter().map(|(at, between)| format!("{at} {between:?}")).collect();
            assert_eq!(breaks, ["2 Findings(2)", "4 Findings(4)", "4 Findings(6)"]);
            assert_eq!(batch.summary.games, 4);
        }
        // Outside a batch, nothing is lent.
        assert!(GameOutput::<()>::onto_batch().out.is_empty());
    }

    /// `games` written one by one and as one batch: both sinks, and the
    /// batch's breaks.
    fn written<const N: usize>(
        games: impl Fn() -> [GameOutput; N],
    ) -> (OrderedSink<Vec<u8>>, OrderedSink<Vec<u8>>, Vec<String>) {
        let mut by_game = OrderedSink::new(Vec::new(), &Bar::hidden());
        for game in games() {
            by_game.game(game).unwrap();
        }
        let mut by_batch = OrderedSink::new(Vec::new(), &Bar::hidden());
        let mut batch = by_batch.new_batch();
        games().into_iter().for_each(|game| batch.push(game));
        let breaks = batch.breaks.iter().map(|(at, between)| format!("{at} {between:?}")).collect();
        by_batch.batch(batch).unwrap();
        (by_game, by_batch, breaks)
    }

    #[test]
    fn streamed_output_keeps_its_place_among_the_games_and_their_findings() {
        let (by_game, by_batch, breaks) = written(|| {
            let mut long = game("b\n", "x\n");
            long.streamed = Some(Streamed::new(|out| out.write_all(b"b1\n").and_then(|()| out.write_all(b"b2\n"))));
            let mut empty = game("", "");
            empty.streamed = Some(Streamed::new(|out| out.write_all(b"d\n")));
            [game("a\n", ""), long, game("c\n", "y\n"), empty]
        });
        // "x" before "b", the rest of "b" after it, "y" before "c".
        assert_eq!(breaks, ["2 Findings(2)", "4 Streamed(Streamed)", "4 Findings(4)", "6 Streamed(Streamed)"]);
        assert_eq!(by_game.out, b"a\nb\nb1\nb2\nc\nd\n");
        assert_eq!(by_batch.out, by_game.out);
    }

    #[test]
    fn a_sink_writes_a_batch_as_it_writes_its_games_one_by_one() {
        let (by_game, by_batch, _) = written(|| [game("a\n", ""), game("b\n", ""), game("c\n", "")]);
        assert_eq!(by_game.out, b"a\nb\nc\n");
        assert_eq!(by_batch.out, by_game.out);
        assert_eq!(by_batch.summary, by_game.summary);
    }
}
