//! `pgnkit fix`: write the games with what can be repaired repaired, to
//! stdout or over each input file, or show what would change (`--diff`,
//! `--check`).

use std::{
    fs,
    io::{self, BufReader, Read, Write},
    path::{Path, PathBuf},
    sync::Arc,
};

use pgnkit::{
    aliases::Aliases,
    check::GameReader,
    fix::{self, Fixed},
    frame::{FrameFlags, RawGame},
    input::{Compression, Source},
    openings::Naming,
    output::{
        file::{FilesRead, Staged},
        findings::{ReportWriter, TextWriter},
        games::{PgnOptions, PgnWriter},
        spool::Spool,
    },
    udiff::StreamDiff,
};

use crate::{
    cli::{FixArgs, GlobalArgs},
    exit::ExitStatus,
    pipeline,
    run::{Run, plural},
    sink::{Fold, GameOutput, InOrder, OrderedSink},
};

/// What became of the games of a run (or of one file).
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    /// Games with a repair and no error left.
    fixed: u64,
    /// Games written as read, with no error.
    unchanged: u64,
    /// Games with an error left.
    unfixable: u64,
    /// Games with a repair, an error left or not (stray text after a game
    /// is removed whatever the game).
    repaired: u64,
    /// Games cut (at --max-game-size, or by an input failing in them).
    cut: u64,
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, other: Counts) {
        self.fixed += other.fixed;
        self.unchanged += other.unchanged;
        self.unfixable += other.unfixable;
        self.repaired += other.repaired;
        self.cut += other.cut;
    }
}

impl Fold for Counts {
    type Item = Counts;
    type Batch = Counts;

    fn new_batch(&self) -> Counts {
        Counts::default()
    }

    fn gather(batch: &mut Counts, item: Counts) {
        *batch += item;
    }

    fn take(&mut self, batch: Counts) -> io::Result<()> {
        *self += batch;
        Ok(())
    }
}

/// The work on one game: the game fixed (its bytes for the output), its
/// repairs and the findings left (for stderr), and what became of it.
struct Work {
    writer: PgnWriter,
    /// `--aliases`: players' names to set.
    aliases: Option<Aliases>,
    findings: TextWriter,
    quiet: bool,
    color: bool,
}

impl Work {
    fn game(&self, reader: &mut GameReader, file: &Arc<str>, raw: RawGame<'_>) -> GameOutput<Counts> {
        // A game is written for (nearly) every game: onto the end of its
        // batch's output.
        self.fix(reader, file, raw, GameOutput::onto_batch())
    }

    /// [`Work::game`], the game written onto the end of `produced.out`.
    fn fix(
        &self,
        reader: &mut GameReader,
        file: &Arc<str>,
        raw: RawGame<'_>,
        mut produced: GameOutput<Counts>,
    ) -> GameOutput<Counts> {
        let mut game = fix::read(reader, file, raw, !self.quiet);
        produced.summary += &game.report;
        let done = fix::fix(&mut game, &raw, &self.writer, self.aliases.as_ref(), !self.quiet, &mut produced.out);
        reader.recycle(game);
        if !self.quiet {
            self.repair_lines(&done, &mut produced.err);
        }
        self.findings.game(&done.left, &mut produced.err);
        let cut = raw.frame.flags.contains(FrameFlags::TOO_LARGE) || raw.frame.flags.contains(FrameFlags::INPUT_ERROR);
        let unfixable = done.unfixable();
        produced.item = Some(Counts {
            fixed: u64::from(!unfixable && !done.fixes.is_empty()),
            unchanged: u64::from(!unfixable && done.fixes.is_empty()),
            unfixable: u64::from(unfixable),
            repaired: u64::from(!done.fixes.is_empty()),
            cut: u64::from(cut),
        });
        produced
    }

    /// [`Work::game`] for `--diff`: the fixed text goes to the file's diff,
    /// with where the game starts, instead of to the output.
    fn diff_game(&self, reader: &mut GameReader, file: &Arc<str>, raw: RawGame<'_>) -> GameOutput<DiffGame> {
        let GameOutput { summary, out, err, item, .. } = self.fix(reader, file, raw, GameOutput::default());
        let item = item.map(|counts| DiffGame { counts, line: raw.frame.line, column: raw.frame.column, fixed: out });
        GameOutput { summary, err, item, ..GameOutput::default() }
    }

    /// `PATH:LINE:COLUMN: fixed[CODE]: MESSAGE (game N)`, as a finding
    /// line is written.
    fn repair_lines(&self, done: &Fixed, out: &mut Vec<u8>) {
        let (bold, green, reset) = if self.color { ("\x1b[1m", "\x1b[1;32m", "\x1b[0m") } else { ("", "", "") };
        for f in &done.fixes {
            let _ = writeln!(
                out,
                "{bold}{}:{}:{}:{reset} {green}fixed{reset}[{}]: {} (game {})",
                done.left.file,
                f.line,
                f.column,
                f.code.as_str(),
                pgnkit::text::Shown(&f.message),
                done.left.game
            );
        }
    }
}

pub fn run(args: &FixArgs, global: &GlobalArgs) -> anyhow::Result<ExitStatus> {
    let openings = match &args.openings {
        Some(Naming::Tags) => {
            anyhow::bail!(
                "--openings tags names no table: fix sets ECO and Opening tags from `builtin` or a table file"
            )
        }
        Some(naming) => naming.table().map_err(anyhow::Error::msg)?,
        None => None,
    };
    let work = Work {
        writer: PgnWriter { options: PgnOptions { openings, ..PgnOptions::default() } },
        aliases: args.aliases.as_deref().map(Aliases::read).transpose().map_err(anyhow::Error::msg)?,
        findings: TextWriter { verbose: false, color: global.stderr_color() },
        quiet: global.quiet(),
        color: global.stderr_color(),
    };
    if args.in_place || args.diff {
        return per_file(args, global, &work);
    }
    let mut run = Run::new(&args.inputs, args.max_game_size, global);
    // Games are read with their notes (`Work::game`): the framer keeps
    // where they are.
    run.frame.keep_notes = true;
    let out: Box<dyn Write + Send> = if args.check { Box::new(io::sink()) } else { Box::new(crate::stdout::stdout()) };
    let mut sink =
        OrderedSink::with_fold(io::BufWriter::with_capacity(1 << 16, out), &run.bar, Counts::default()).lending();
    if !args.check {
        sink = sink.writing_stdout();
    }
    pipeline::run(
        &run.options(),
        || GameReader::new(fix::read_options(!work.quiet)),
        |reader, file, raw| work.game(reader, file, raw),
        &mut sink,
    )?;
    run.bar.finish_and_clear();
    sink.out.flush()?;
    let counts = sink.fold;
    finish(args, global, counts, run.inputs(), sink.input_errors)
}

/// The summary line (unless quiet) and the exit status.
fn finish(
    args: &FixArgs,
    global: &GlobalArgs,
    counts: Counts,
    inputs: u64,
    input_errors: u64,
) -> anyhow::Result<ExitStatus> {
    if !global.quiet() {
        let verb = if args.check || args.diff { "would fix" } else { "fixed" };
        let mut line = format!(
            "pgnkit: {verb} {} in {}, {} unchanged, {} could not be fixed",
            plural(counts.fixed, "game", "games"),
            plural(inputs, "input", "inputs"),
            counts.unchanged,
            counts.unfixable
        );
        if input_errors > 0 {
            line.push_str(&format!("; {} could not be read or rewritten", plural(input_errors, "input", "inputs")));
        }
        say!("{line}");
    }
    Ok(if input_errors > 0 {
        ExitStatus::Error
    } else if counts.unfixable > 0 || (args.check && counts.repaired > 0) {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// `--in-place` and `--diff`: each file on its own, the fixed text over it
/// or diffed against it.
fn per_file(args: &FixArgs, global: &GlobalArgs, work: &Work) -> anyhow::Result<ExitStatus> {
    let what = if args.in_place { "--in-place" } else { "--diff" };
    let files = plain_files(&args.inputs.paths, what)?;
    let mut run = Run::new(&args.inputs, args.max_game_size, global);
    run.frame.keep_notes = true;
    let (mut total, mut failed) = (Counts::default(), 0);
    let mut stdout = io::BufWriter::new(crate::stdout::stdout());
    for file in &files {
        let sources = [Source::Path(file.clone())];
        let opts = pipeline::Options { sources: &sources, ..run.options() };
        let init = || GameReader::new(fix::read_options(!work.quiet));
        let mut changed = false;
        let (counts, input_errors) = if args.in_place {
            // The file itself, not a link to it, is replaced.
            let target = fs::canonicalize(file).unwrap_or_else(|_| file.clone());
            // As it is before it is read: a file written to in the
            // meantime (games appended) is not replaced.
            let before = fs::metadata(&target).ok();
            let (staged, handle) = Staged::create(&target, &FilesRead::none())?;
            let mut sink =
                OrderedSink::with_fold(io::BufWriter::with_capacity(1 << 16, handle), &run.bar, Counts::default())
                    .lending();
            let game = |reader: &mut GameReader, name: &Arc<str>, raw: RawGame<'_>| work.game(reader, name, raw);
            pipeline::run(&opts, init, game, &mut sink)?;
            let counts = sink.fold;
            let whole = sink.input_errors == 0 && counts.cut == 0;
            if let Some(before) = before.as_ref().filter(|_| whole && counts.repaired > 0) {
                let handle = sink.out.into_inner().map_err(io::IntoInnerError::into_error)?;
                handle.sync_all()?;
                changed = !staged.commit_if_unchanged(before)?;
            }
            (counts, sink.input_errors)
        } else {
            let mut sink = OrderedSink::with_fold(io::sink(), &run.bar, FileDiff::new(file));
            let game = |reader: &mut GameReader, name: &Arc<str>, raw: RawGame<'_>| work.diff_game(reader, name, raw);
            pipeline::run(&opts, init, game, &mut sink)?;
            let counts = sink.fold.counts;
            // The diff is written once the file is read to its end: a cut
            // game or a read error past its first hunks means no diff.
            if sink.input_errors == 0 && counts.cut == 0 && counts.repaired > 0 {
                run.bar.suspend(|| sink.fold.write_to(&mut stdout))?;
            }
            (counts, sink.input_errors)
        };
        if counts.cut > 0 && input_errors == 0 {
            run.bar.suspend(|| {
                say!("pgnkit: error: {}: not rewritten: a game in it is cut (--max-game-size)", file.display());
            });
            failed += 1;
        }
        if changed {
            run.bar.suspend(|| {
                say!(
                    "pgnkit: error: {}: not rewritten: it changed while it was read (another program wrote to it); \
                     run fix again",
                    file.display()
                );
            });
            failed += 1;
        }
        failed += input_errors;
        total += counts;
    }
    run.bar.finish_and_clear();
    stdout.flush()?;
    finish(args, global, total, run.inputs(), failed)
}

/// A game for `--diff`: what became of it, where it starts in its file,
/// and its fixed text.
struct DiffGame {
    counts: Counts,
    line: u64,
    column: u32,
    fixed: Vec<u8>,
}

/// `--diff` of one file, made as its games come: each game that starts a
/// line starts a region of the file, which stands for the fixed text of
/// the games in it (the text between games goes with the game before).
/// The [`StreamDiff`] reads the file alongside and holds a window of a few
/// MB of it; the hunks wait in a [`Spool`] until the file is read to its
/// end.
struct FileDiff {
    counts: Counts,
    /// `None` once a game is cut: the file gets no diff.
    diff: Option<StreamDiff<BufReader<fs::File>, Spool, Spool>>,
    /// Why the file could not be opened for the diff: an error only if the
    /// run could read it (a file made in between).
    failed: Option<io::Error>,
    /// The fixed text of the region's games, and the region's first line.
    fixed: Vec<u8>,
    from: u64,
}

impl FileDiff {
    fn new(path: &Path) -> FileDiff {
        let name = path.display().to_string();
        let (diff, failed) = match fs::File::open(path) {
            Ok(file) => (Some(StreamDiff::new(BufReader::with_capacity(1 << 16, file), &name, Spool::default())), None),
            // An unreadable file is reported by the run, as by every command.
            Err(err) => (None, Some(err)),
        };
        FileDiff { counts: Counts::default(), diff, failed, fixed: Vec::new(), from: 1 }
    }

    /// Writes the diff (nothing when the file has no change) to `out`.
    fn write_to(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if let Some(err) = self.failed.take() {
            return Err(err);
        }
        let Some(diff) = self.diff.take() else { return Ok(()) };
        diff.finish(&self.fixed)?.pour(out)
    }
}

/// Each game in input order: its fixed text to its region of the diff.
impl InOrder for FileDiff {
    type Item = DiffGame;

    fn take_item(&mut self, game: DiffGame) -> io::Result<()> {
        self.counts += game.counts;
        if game.counts.cut > 0 {
            self.diff = None;
        }
        let Some(diff) = &mut self.diff else { return Ok(()) };
        // A game that starts after another on its line is in that game's
        // region: a region is whole lines. Text before the first game is
        // a region of its own, with no fixed text.
        if game.column == 1 && game.line > self.from {
            diff.region(game.line - self.from, &self.fixed)?;
            self.fixed.clear();
            self.from = game.line;
        }
        self.fixed.extend_from_slice(&game.fixed);
        Ok(())
    }
}

/// The files of `paths` (folders searched as for every command), each a
/// plain PGN file that can be rewritten; anything else is refused before
/// any is written.
fn plain_files(paths: &[PathBuf], what: &str) -> anyhow::Result<Vec<PathBuf>> {
    if paths.is_empty() || paths.iter().any(|p| p.as_os_str() == "-") {
        anyhow::bail!("{what} works on files: stdin cannot be rewritten (write to stdout without {what})");
    }
    let files = pgnkit::input::expand_paths(paths);
    for file in &files {
        // Unreadable files are reported in their turn, as by every command.
        let Ok(mut opened) = fs::File::open(file) else { continue };
        let Ok(meta) = opened.metadata() else { continue };
        if meta.is_dir() {
            continue;
        }
        if !meta.is_file() {
            anyhow::bail!("{what} works on regular files: {} is not one", file.display());
        }
        let mut head = [0u8; 6];
        let n = read_head(&mut opened, &mut head)?;
        if let Some(kind) = not_plain(&head[..n]) {
            anyhow::bail!(
                "{what} works on plain PGN files: {} is {kind} (write to stdout without {what} instead)",
                file.display()
            );
        }
    }
    Ok(files)
}

/// What a file's first bytes say it is, when not plain text to rewrite.
fn not_plain(head: &[u8]) -> Option<&'static str> {
    Some(match Compression::sniff(head) {
        Compression::Gzip => "gzip-compressed",
        Compression::Zstd => "zstd-compressed",
        Compression::Bzip2 => "bzip2-compressed",
        Compression::Xz => "xz-compressed",
        Compression::None if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") => "a zip archive",
        Compression::None if head.starts_with(b"\xff\xfe") || head.starts_with(b"\xfe\xff") => "UTF-16",
        Compression::None => return None,
    })
}

fn read_head(file: &mut fs::File, head: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < head.len() {
        match file.read(&mut head[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}
