//! A unified diff of a text against its rewrite, made as the rewrite comes:
//! region by region, the old text read alongside, so that neither text is
//! ever held whole (`fix --diff` on a file of gigabytes).
//!
//! The caller cuts both texts into regions that stand for each other (a
//! game of the file and the game fixed). Each region's old lines are read
//! and compared with its new text. A region that differs opens a window,
//! which takes the regions after it, changed or not, until it holds
//! [`WINDOW`] bytes of both texts, and is then diffed whole by the
//! `similar` crate; a region outside any window is equal lines, never
//! diffed. `similar` trims a window's equal lines at both ends and diffs
//! what lies between its first change and its last, as it does over two
//! whole texts; so a text whose changes fit in one window gets the diff of
//! the two whole texts, byte for byte. Past that each window is diffed on
//! its own, and where a line repeats (a blank one) a change may keep
//! another copy of it than one diff of the whole would: `similar` breaks
//! such ties by where its search splits the whole, and by how often each
//! line occurs in it, which no window knows. The hunks are put together
//! across windows as `similar` puts them together over a whole text: three
//! lines of context, changes closer than seven lines in one hunk, a
//! change's deleted lines before its inserted ones, and line numbers
//! counted over the whole text.
//!
//! Held at a time: a window of each text (or one region, when larger), the
//! context lines since the last change, and in a [`Hold`] each the open
//! hunk's lines (its header, which counts them, goes first) and the current
//! change's inserted lines (they go after its last deleted one, which may
//! come windows later: in a file whose every line changes, at its end). A
//! region whose old text is much longer than its new one (a comment of a
//! gigabyte between two games) is read only up to a budget: what is past
//! it is written as deleted lines as it is read, a piece of a line at a
//! time.

use std::{
    collections::VecDeque,
    io::{self, BufRead, Write},
};

/// Lines of context around a change, as `diff -u` writes them.
const CONTEXT: usize = 3;

/// What a region's old text may hold in memory beyond twice its new text;
/// past that the rest of it is written as deleted lines as it is read.
const SLACK: usize = 1 << 20;

/// Bytes of both texts a window takes regions until: a bound on memory,
/// and more than both texts of any file `fix --diff` was compared on when
/// it diffed whole files (the shared corpus, testdata), whose diffs thus
/// stayed the same.
pub const WINDOW: usize = 8 << 20;

/// Where lines wait to be written: the open hunk's for its header, which
/// counts them and must come first, and a change's inserted lines for its
/// last deleted one. Memory, or for a hunk of gigabytes somewhere larger;
/// a new one holds nothing.
pub trait Hold: Write + Default {
    /// Writes what is held to `out` and holds nothing after.
    fn pour(&mut self, out: &mut dyn Write) -> io::Result<()>;
}

impl Hold for crate::output::spool::Spool {
    fn pour(&mut self, out: &mut dyn Write) -> io::Result<()> {
        crate::output::spool::Spool::pour(self, out)
    }
}

impl Hold for Vec<u8> {
    fn pour(&mut self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(self)?;
        self.clear();
        Ok(())
    }
}

/// A unified diff of an old text, read from `R`, against a new text given
/// region by region, written to `W` hunk by hunk.
#[derive(Debug)]
pub struct StreamDiff<R, W, H> {
    old: OldLines<R>,
    hunks: Hunks<W, H>,
    /// The old text of the current region, and where each of its lines ends.
    region: Vec<u8>,
    ends: Vec<usize>,
    /// What a region's old text may hold beyond twice its new text.
    slack: usize,
    window: Window,
    /// The bytes a window takes regions until.
    window_bytes: usize,
}

/// Regions of both texts diffed together, from a region that changed.
#[derive(Debug, Default)]
struct Window {
    old: Vec<u8>,
    new: Vec<u8>,
}

impl<R: BufRead, W: Write, H: Hold> StreamDiff<R, W, H> {
    /// A diff of the text `old` names `name` on both header lines (`---
    /// NAME`, `+++ NAME`), written to `out` when it has a first hunk.
    pub fn new(old: R, name: &str, out: W) -> Self {
        StreamDiff {
            old: OldLines { read: old },
            hunks: Hunks::new(format!("--- {name}\n+++ {name}\n"), out),
            region: Vec::new(),
            ends: Vec::new(),
            slack: SLACK,
            window: Window::default(),
            window_bytes: WINDOW,
        }
    }

    /// The next `lines` lines of the old text became `new`.
    pub fn region(&mut self, lines: u64, new: &[u8]) -> io::Result<()> {
        self.region_of(Some(lines), new)
    }

    /// The rest of the old text became `new`: the last hunk is written and
    /// the output given back (nothing written to it when the texts are the
    /// same).
    pub fn finish(mut self, new: &[u8]) -> io::Result<W> {
        self.region_of(None, new)?;
        self.diff_window()?;
        self.hunks.close()?;
        Ok(self.hunks.out)
    }

    /// `lines` of the old text (`None`: all that is left) became `new`.
    fn region_of(&mut self, lines: Option<u64>, new: &[u8]) -> io::Result<()> {
        let budget = new.len().saturating_mul(2).saturating_add(self.slack);
        let (region, ends) = (&mut self.region, &mut self.ends);
        region.clear();
        ends.clear();
        let mut left = lines;
        let mut over = false;
        while left != Some(0) {
            let room = budget.saturating_sub(region.len());
            match self.old.scan(room, &mut |bytes| {
                region.extend_from_slice(bytes);
                Ok(())
            })? {
                Scan::Line => {
                    ends.push(region.len());
                    left = left.map(|n| n - 1);
                }
                Scan::End => {
                    if region.len() > ends.last().copied().unwrap_or(0) {
                        ends.push(region.len());
                    }
                    break;
                }
                Scan::Full => {
                    over = true;
                    break;
                }
            }
        }
        let whole = ends.last().copied().unwrap_or(0);
        let old = &region[..whole];
        if old == new && self.window.old.is_empty() && self.window.new.is_empty() {
            self.hunks.equal(split(old, ends))?;
        } else {
            self.window.old.extend_from_slice(old);
            self.window.new.extend_from_slice(new);
            if over || self.window.old.len() + self.window.new.len() > self.window_bytes {
                self.diff_window()?;
            }
        }
        if over {
            self.overflow(whole, left.map(|n| n - 1))?;
        }
        Ok(())
    }

    /// The diff of the window's two texts, and the window closed.
    fn diff_window(&mut self) -> io::Result<()> {
        let diff = similar::TextDiff::from_lines(&self.window.old[..], &self.window.new[..]);
        let old_line = |i: usize| diff.old_slice(i).expect("an old line of the diff");
        let new_line = |i: usize| diff.new_slice(i).expect("a new line of the diff");
        for op in diff.ops() {
            let (tag, old, new) = op.as_tag_tuple();
            match tag {
                similar::DiffTag::Equal => self.hunks.equal(old.map(old_line))?,
                _ => {
                    for line in old.map(old_line) {
                        self.hunks.delete(line)?;
                    }
                    for line in new.map(new_line) {
                        self.hunks.insert(line)?;
                    }
                }
            }
        }
        self.window.old.clear();
        self.window.new.clear();
        Ok(())
    }

    /// The rest of a region past its budget, deleted as it is read: the
    /// line cut by the budget (its first bytes in the region from `from`),
    /// then `left` lines more (`None`: to the end).
    fn overflow(&mut self, from: usize, mut left: Option<u64>) -> io::Result<()> {
        let (old, start) = (&mut self.old, &self.region[from..]);
        self.hunks.delete_streamed(|hold| {
            hold.write_all(start)?;
            Ok(old.scan(usize::MAX, &mut |bytes| hold.write_all(bytes))? == Scan::Line)
        })?;
        while left != Some(0) && !self.old.at_end()? {
            let old = &mut self.old;
            self.hunks
                .delete_streamed(|hold| Ok(old.scan(usize::MAX, &mut |bytes| hold.write_all(bytes))? == Scan::Line))?;
            left = left.map(|n| n - 1);
        }
        Ok(())
    }
}

/// The lines of `text`, which end at `ends`.
fn split<'a>(text: &'a [u8], ends: &'a [usize]) -> impl ExactSizeIterator<Item = &'a [u8]> {
    let mut start = 0;
    ends.iter().map(move |&end| {
        let line = &text[start..end];
        start = end;
        line
    })
}

/// How a scan of the old text stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scan {
    /// At the end of a line, its terminator given.
    Line,
    /// At the end of the text.
    End,
    /// With as many bytes given as there was room for, inside a line.
    Full,
}

/// The old text, read a line or a piece of one at a time. A line ends at
/// `\n`, `\r\n` or a lone `\r`, as `similar` and the framer end lines.
#[derive(Debug)]
struct OldLines<R> {
    read: R,
}

impl<R: BufRead> OldLines<R> {
    /// Gives the rest of the current line to `give`, its terminator
    /// included, unless more than `room` bytes are left before it: then
    /// `room` bytes of it.
    fn scan(&mut self, mut room: usize, give: &mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<Scan> {
        loop {
            let bytes = self.read.fill_buf()?;
            if bytes.is_empty() {
                return Ok(Scan::End);
            }
            match memchr::memchr2(b'\n', b'\r', bytes) {
                Some(at) if at <= room => {
                    let cr = bytes[at] == b'\r';
                    if cr && at + 1 == bytes.len() {
                        // Whether this `\r` is half of a `\r\n` is in the next read.
                        give(bytes)?;
                        self.read.consume(at + 1);
                        if self.read.fill_buf()?.first() == Some(&b'\n') {
                            give(b"\n")?;
                            self.read.consume(1);
                        }
                        return Ok(Scan::Line);
                    }
                    let end = if cr && bytes[at + 1] == b'\n' { at + 2 } else { at + 1 };
                    give(&bytes[..end])?;
                    self.read.consume(end);
                    return Ok(Scan::Line);
                }
                _ => {
                    let take = bytes.len().min(room);
                    if take == 0 {
                        return Ok(Scan::Full);
                    }
                    give(&bytes[..take])?;
                    self.read.consume(take);
                    room -= take;
                }
            }
        }
    }

    fn at_end(&mut self) -> io::Result<bool> {
        Ok(self.read.fill_buf()?.is_empty())
    }
}

/// Where the open hunk starts in each text, and how many lines of each
/// it has so far.
#[derive(Debug, Clone, Copy)]
struct Open {
    old_start: u64,
    new_start: u64,
    old_len: u64,
    new_len: u64,
}

/// The hunks, put together from the lines of both texts in order: equal
/// lines, and each change's deleted and inserted lines.
#[derive(Debug)]
struct Hunks<W, H> {
    out: W,
    hold: H,
    /// The file's header lines, until the first hunk is written.
    header: Option<String>,
    /// Lines of each text gone by.
    old_line: u64,
    new_line: u64,
    open: Option<Open>,
    /// The current change's inserted lines, as written: they go after all
    /// of its deleted lines, which may still come.
    inserted: H,
    /// The equal lines since the last change: all of them while a hunk is
    /// open (it ends at the seventh), else the last three, which a change
    /// to come opens its hunk with.
    quiet: VecDeque<Vec<u8>>,
    /// Their count.
    run: usize,
    /// Buffers of lines no longer held, for the next ones.
    spare: Vec<Vec<u8>>,
}

impl<W: Write, H: Hold> Hunks<W, H> {
    fn new(header: String, out: W) -> Self {
        Hunks {
            out,
            hold: H::default(),
            header: Some(header),
            old_line: 0,
            new_line: 0,
            open: None,
            inserted: H::default(),
            quiet: VecDeque::new(),
            run: 0,
            spare: Vec::new(),
        }
    }

    /// Lines equal in both texts.
    fn equal<'a>(&mut self, mut lines: impl ExactSizeIterator<Item = &'a [u8]>) -> io::Result<()> {
        if lines.len() == 0 {
            return Ok(());
        }
        self.end_change()?;
        while self.open.is_some()
            && let Some(line) = lines.next()
        {
            self.keep(line);
            if self.run > 2 * CONTEXT {
                self.close()?;
            }
        }
        // No hunk is open: of the rest only the last lines can be context.
        let skipped = lines.len().saturating_sub(CONTEXT);
        self.old_line += skipped as u64;
        self.new_line += skipped as u64;
        self.run += skipped;
        for line in lines.skip(skipped) {
            self.keep(line);
        }
        Ok(())
    }

    /// Holds one more equal line.
    fn keep(&mut self, line: &[u8]) {
        let mut held = if self.open.is_none() && self.quiet.len() == CONTEXT {
            self.quiet.pop_front().unwrap_or_default()
        } else {
            self.spare.pop().unwrap_or_default()
        };
        held.clear();
        held.extend_from_slice(line);
        self.quiet.push_back(held);
        self.run += 1;
        self.old_line += 1;
        self.new_line += 1;
    }

    /// A line of the old text deleted.
    fn delete(&mut self, line: &[u8]) -> io::Result<()> {
        self.delete_streamed(|hold| {
            hold.write_all(line)?;
            Ok(ends_line(line))
        })
    }

    /// A line of the old text deleted, written by `write`, which says
    /// whether it ended with a line terminator.
    fn delete_streamed(&mut self, write: impl FnOnce(&mut H) -> io::Result<bool>) -> io::Result<()> {
        self.change()?;
        self.hold.write_all(b"-")?;
        if !write(&mut self.hold)? {
            self.hold.write_all(NO_NEWLINE)?;
        }
        self.old_line += 1;
        if let Some(open) = &mut self.open {
            open.old_len += 1;
        }
        Ok(())
    }

    /// A line of the new text inserted.
    fn insert(&mut self, line: &[u8]) -> io::Result<()> {
        self.change()?;
        write_line(&mut self.inserted, b'+', line)?;
        self.new_line += 1;
        if let Some(open) = &mut self.open {
            open.new_len += 1;
        }
        Ok(())
    }

    /// Before a deleted or inserted line: the hunk opened, with the equal
    /// lines before it as context.
    fn change(&mut self) -> io::Result<()> {
        let held = self.quiet.len() as u64;
        let open = self.open.get_or_insert(Open {
            old_start: self.old_line - held,
            new_start: self.new_line - held,
            old_len: 0,
            new_len: 0,
        });
        open.old_len += held;
        open.new_len += held;
        for line in self.quiet.drain(..) {
            write_line(&mut self.hold, b' ', &line)?;
            self.spare.push(line);
        }
        self.run = 0;
        Ok(())
    }

    /// After a change: its inserted lines written after its deleted ones.
    fn end_change(&mut self) -> io::Result<()> {
        self.inserted.pour(&mut self.hold)
    }

    /// Writes the open hunk, if any, with the first three equal lines after
    /// its last change; the last three are kept for the next hunk.
    fn close(&mut self) -> io::Result<()> {
        self.end_change()?;
        let Some(mut open) = self.open.take() else { return Ok(()) };
        for line in self.quiet.iter().take(CONTEXT) {
            write_line(&mut self.hold, b' ', line)?;
            open.old_len += 1;
            open.new_len += 1;
        }
        while self.quiet.len() > CONTEXT {
            self.spare.extend(self.quiet.pop_front());
        }
        if let Some(header) = self.header.take() {
            self.out.write_all(header.as_bytes())?;
        }
        writeln!(self.out, "@@ -{} +{} @@", Range(open.old_start, open.old_len), Range(open.new_start, open.new_len))?;
        self.hold.pour(&mut self.out)
    }
}

/// What follows a line without a terminator, as `diff` writes it.
const NO_NEWLINE: &[u8] = b"\n\\ No newline at end of file\n";

/// Whether a line ends with its terminator (only the last line of a text
/// may not).
fn ends_line(line: &[u8]) -> bool {
    matches!(line.last(), Some(b'\n' | b'\r'))
}

/// One line of a hunk: its mark (` `, `-`, `+`) and the line as it is.
fn write_line(out: &mut impl Write, mark: u8, line: &[u8]) -> io::Result<()> {
    out.write_all(&[mark])?;
    out.write_all(line)?;
    if !ends_line(line) {
        out.write_all(NO_NEWLINE)?;
    }
    Ok(())
}

/// A hunk header's range: `START,LENGTH` from 1, the length left out when
/// 1; an empty range starts at the line before it.
struct Range(u64, u64);

impl std::fmt::Display for Range {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.1 {
            1 => write!(f, "{}", self.0 + 1),
            0 => write!(f, "{},0", self.0),
            len => write!(f, "{},{len}", self.0 + 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufReader, Write};

    use super::{Hunks, StreamDiff};
    use crate::test_rng::Rng;

    /// The unified diff `fix --diff` wrote before it streamed: `similar`
    /// over the whole of both texts.
    fn whole(old: &[u8], new: &[u8]) -> Vec<u8> {
        let diff = similar::TextDiff::from_lines(old, new);
        let mut out = Vec::new();
        for (i, hunk) in diff.unified_diff().context_radius(3).iter_hunks().enumerate() {
            if i == 0 {
                writeln!(out, "--- t\n+++ t").unwrap();
            }
            hunk.to_writer(&mut out).unwrap();
        }
        out
    }

    /// How a diff is made region by region: the old text read through a
    /// buffer of `buffer` bytes, `slack` bytes of room for a region's old
    /// text past twice its new one, windows of `window` bytes.
    #[derive(Debug, Clone, Copy)]
    struct Sizes {
        buffer: usize,
        slack: usize,
        window: usize,
    }

    const LARGE: Sizes = Sizes { buffer: 8 << 10, slack: super::SLACK, window: super::WINDOW };

    /// A diff made region by region: `units` are each region's old and new
    /// text.
    fn streamed(units: &[(Vec<u8>, Vec<u8>)], sizes: Sizes) -> Vec<u8> {
        let old: Vec<u8> = units.iter().flat_map(|(old, _)| old.clone()).collect();
        let mut diff: StreamDiff<_, Vec<u8>, Vec<u8>> =
            StreamDiff::new(BufReader::with_capacity(sizes.buffer, &old[..]), "t", Vec::new());
        (diff.slack, diff.window_bytes) = (sizes.slack, sizes.window);
        let (last, regions) = units.split_last().unwrap();
        for (old, new) in regions {
            diff.region(lines(old).len() as u64, new).unwrap();
        }
        diff.finish(&last.1).unwrap()
    }

    /// The lines of `text`, as `similar` cuts them.
    fn lines(text: &[u8]) -> Vec<&[u8]> {
        let mut lines = Vec::new();
        let mut start = 0;
        let mut i = 0;
        while i < text.len() {
            if text[i] == b'\n' || text[i] == b'\r' {
                let end = if text[i] == b'\r' && text.get(i + 1) == Some(&b'\n') { i + 2 } else { i + 1 };
                lines.push(&text[start..end]);
                (start, i) = (end, end);
            } else {
                i += 1;
            }
        }
        if start < text.len() {
            lines.push(&text[start..]);
        }
        lines
    }

    /// `diff` applied to `old` as `patch` applies it, without fuzz: every
    /// context and deleted line must be where its hunk's header says.
    fn apply(old: &[u8], diff: &[u8]) -> Vec<u8> {
        let old = lines(old);
        let mut diff = lines(diff).into_iter().peekable();
        let mut out = Vec::new();
        let mut at = 0;
        if diff.peek().is_none() {
            return old.concat();
        }
        assert_eq!(diff.next(), Some(&b"--- t\n"[..]));
        assert_eq!(diff.next(), Some(&b"+++ t\n"[..]));
        while let Some(header) = diff.next() {
            let header = std::str::from_utf8(header).unwrap();
            let ranges: Vec<(usize, usize)> = header
                .trim_start_matches("@@ -")
                .trim_end_matches(" @@\n")
                .split(" +")
                .map(|range| match range.split_once(',') {
                    Some((start, len)) => (start.parse().unwrap(), len.parse().unwrap()),
                    None => (range.parse().unwrap(), 1),
                })
                .collect();
            let ((old_start, old_len), (_, new_len)) = (ranges[0], ranges[1]);
            let start = if old_len == 0 { old_start } else { old_start - 1 };
            assert!(start >= at, "{header}: hunks out of order");
            out.extend(old[at..start].concat());
            at = start;
            let (mut old_seen, mut new_seen) = (0, 0);
            while old_seen < old_len || new_seen < new_len {
                let line = diff.next().unwrap_or_else(|| panic!("{header}: hunk cut short"));
                let mut text = line[1..].to_vec();
                if diff.peek().is_some_and(|next| next.starts_with(b"\\ No newline at end of file")) {
                    diff.next();
                    assert_eq!(text.pop(), Some(b'\n'));
                }
                match line[0] {
                    b' ' | b'-' => {
                        assert_eq!(old[at], text, "{header}");
                        at += 1;
                        old_seen += 1;
                        if line[0] == b' ' {
                            out.extend(&text);
                            new_seen += 1;
                        }
                    }
                    b'+' => {
                        out.extend(&text);
                        new_seen += 1;
                    }
                    mark => panic!("{header}: a line marked {mark}"),
                }
            }
            assert_eq!((old_seen, new_seen), (old_len, new_len), "{header}");
        }
        out.extend(old[at..].concat());
        out
    }

    /// Random lines from few distinct ones, so that texts share lines and
    /// changes sit close together; some end with `\r\n` or a lone `\r`,
    /// and the last may have no terminator.
    /// The first line is not blank: a region starts at a line of its own,
    /// which a `\n` after a `\r` would not be.
    fn text(rng: &mut Rng, lines: usize, last: bool) -> Vec<u8> {
        let mut out = Vec::new();
        for i in 0..lines {
            let contents = [&b"a"[..], b"b", b"c", b"[Event \"x\"]", b"1. e4 *", b""];
            out.extend_from_slice(contents[rng.below(if i == 0 { 5 } else { 6 })]);
            if i + 1 < lines || !last || rng.below(3) > 0 {
                out.extend_from_slice([&b"\n"[..], b"\n", b"\n", b"\r\n", b"\r"][rng.below(5)]);
            }
        }
        out
    }

    /// `text` with some lines changed, dropped or added.
    fn edit(rng: &mut Rng, old: &[u8], last: bool) -> Vec<u8> {
        let mut out = Vec::new();
        for line in lines(old) {
            match rng.below(8) {
                0 => {}
                1 => {
                    let count = 1 + rng.below(3);
                    out.extend(text(rng, count, false));
                }
                2 => {
                    out.extend(text(rng, 1, false));
                    out.extend(line);
                }
                _ => out.extend(line),
            }
        }
        if last && rng.below(4) == 0 {
            out.extend(text(rng, 1, true));
        }
        out
    }

    #[test]
    fn hunks_made_from_a_whole_diffs_lines_are_the_diff_similar_writes() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for case in 0..2000 {
            let count = rng.below(40);
            let old = text(&mut rng, count, true);
            let new = if rng.below(10) == 0 { old.clone() } else { edit(&mut rng, &old, true) };
            let diff = similar::TextDiff::from_lines(&old[..], &new[..]);
            let mut hunks: Hunks<Vec<u8>, Vec<u8>> = Hunks::new("--- t\n+++ t\n".into(), Vec::new());
            for change in diff.iter_all_changes() {
                match change.tag() {
                    similar::ChangeTag::Equal => hunks.equal(std::iter::once(change.value())).unwrap(),
                    similar::ChangeTag::Delete => hunks.delete(change.value()).unwrap(),
                    similar::ChangeTag::Insert => hunks.insert(change.value()).unwrap(),
                }
            }
            hunks.close().unwrap();
            assert_eq!(
                String::from_utf8_lossy(&hunks.out),
                String::from_utf8_lossy(&whole(&old, &new)),
                "case {case}: {:?} -> {:?}",
                String::from_utf8_lossy(&old),
                String::from_utf8_lossy(&new)
            );
        }
    }

    #[test]
    fn a_diff_made_region_by_region_turns_the_old_text_into_the_new_whatever_the_budget_window_and_buffer() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for case in 0..3000 {
            let count = 1 + rng.below(6);
            let units: Vec<(Vec<u8>, Vec<u8>)> = (0..count)
                .map(|i| {
                    let last = i + 1 == count;
                    let lines = rng.below(12);
                    let old = text(&mut rng, lines, last);
                    // Only the last region may end without a terminator.
                    let new = if rng.below(2) == 0 { old.clone() } else { edit(&mut rng, &old, last) };
                    (old, new)
                })
                .collect();
            let old: Vec<u8> = units.iter().flat_map(|(old, _)| old.clone()).collect();
            let new: Vec<u8> = units.iter().flat_map(|(_, new)| new.clone()).collect();
            let sizes = Sizes {
                buffer: 1 + rng.below(16),
                slack: if rng.below(2) == 0 { rng.below(8) } else { super::SLACK },
                window: if rng.below(2) == 0 { rng.below(40) } else { super::WINDOW },
            };
            let diff = streamed(&units, sizes);
            assert_eq!(
                String::from_utf8_lossy(&apply(&old, &diff)),
                String::from_utf8_lossy(&new),
                "case {case}, {sizes:?}:\n{}",
                String::from_utf8_lossy(&diff)
            );
            if sizes.slack > 1000 && units.iter().all(|(old, new)| old == new) {
                assert_eq!(diff, b"", "case {case}");
            }
            if sizes.slack > 1000 && sizes.window > 1000 {
                // One window: the diff of the whole texts.
                assert_eq!(diff, whole(&old, &new), "case {case}");
            }
        }
    }

    /// Games of lines no other game has, each `[Event "N"]` and `1. e4 N`.
    fn games(range: std::ops::Range<usize>, fixed: &[usize]) -> Vec<(Vec<u8>, Vec<u8>)> {
        range
            .map(|n| {
                let old = format!("[Event \"{n}\"]\n[Site \"?\"]\n[Result \"*\"]\n\n1. e4 e5 {n} *\n\n").into_bytes();
                let new = if fixed.contains(&n) {
                    format!("[Event \"{n}\"]\n[Site \"?\"]\n[Result \"1-0\"]\n\n1. e4 e5 {n} 1-0\n\n").into_bytes()
                } else {
                    old.clone()
                };
                (old, new)
            })
            .collect()
    }

    #[test]
    fn changes_far_apart_next_to_each_other_and_at_both_ends_give_the_whole_texts_diff_in_windows_of_any_size() {
        for fixed in [&[3, 40, 77][..], &[10, 11], &[0, 99], &[0, 1, 98, 99], &[5, 7], &[]] {
            let units = games(0..100, fixed);
            let old: Vec<u8> = units.iter().flat_map(|(old, _)| old.clone()).collect();
            let new: Vec<u8> = units.iter().flat_map(|(_, new)| new.clone()).collect();
            // Games of lines found nowhere else: no line to keep but one.
            for window in [0, 100, 1000, super::WINDOW] {
                assert_eq!(
                    String::from_utf8_lossy(&streamed(&units, Sizes { window, ..LARGE })),
                    String::from_utf8_lossy(&whole(&old, &new)),
                    "{fixed:?}, window {window}"
                );
            }
        }
    }

    #[test]
    fn a_last_line_without_a_terminator_is_marked_as_diff_marks_it() {
        let units = vec![(b"[Event \"a\"]\n\n1. e4 *\n\n".to_vec(), b"[Event \"a\"]\n\n1. e4 *\n\n".to_vec()), {
            (b"[Event \"b\"]\n\n1. d4".to_vec(), b"[Event \"b\"]\n\n1. d4 *\n\n".to_vec())
        }];
        let diff = streamed(&units, Sizes { buffer: 4, ..LARGE });
        assert_eq!(
            String::from_utf8_lossy(&diff),
            "--- t\n+++ t\n@@ -4,4 +4,5 @@\n \n [Event \"b\"]\n \n-1. d4\n\\ No newline at end of file\n+1. d4 *\n+\n"
        );
        assert_eq!(
            diff,
            whole(&units[0].0.iter().chain(&units[1].0).copied().collect::<Vec<u8>>(), &{
                let mut new = units[0].1.clone();
                new.extend(&units[1].1);
                new
            })
        );
    }

    #[test]
    fn a_region_far_past_its_budget_is_deleted_as_it_is_read() {
        let comment = format!("{{{}}}\n", "x".repeat(10_000));
        let units = vec![
            (format!("[Event \"a\"]\n\n1. e4 *\n\n{comment}\n").into_bytes(), b"[Event \"a\"]\n\n1. e4 *\n\n".to_vec()),
            (b"[Event \"b\"]\n\n1. d4 *\n".to_vec(), b"[Event \"b\"]\n\n1. d4 *\n\n".to_vec()),
        ];
        let diff = streamed(&units, Sizes { buffer: 64, slack: 16, ..LARGE });
        let expected =
            format!("--- t\n+++ t\n@@ -2,8 +2,7 @@\n \n 1. e4 *\n \n-{comment}-\n [Event \"b\"]\n \n 1. d4 *\n+\n");
        assert!(diff == expected.as_bytes(), "{}", crate::text::shorten(&String::from_utf8_lossy(&diff), 400));
        let old: Vec<u8> = units.iter().flat_map(|(old, _)| old.clone()).collect();
        let new: Vec<u8> = units.iter().flat_map(|(_, new)| new.clone()).collect();
        assert_eq!(apply(&old, &diff), new);
    }
}
