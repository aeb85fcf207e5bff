//! The runs a [`Table`](super::Table) writes to disk past its memory
//! budget, each sorted by key, a position's pieces recalled from them, and
//! their merge with what stayed in memory.

use std::{
    cmp::Reverse,
    collections::{BinaryHeap, HashMap},
    fs::File,
    io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write},
    mem::size_of,
};

use super::{
    counts::{MoveStat, PositionStat, Positions},
    stat::TreeStat,
};
use crate::output::spool::unnamed_file;

/// One sorted run in a temporary file with no name (freed however the
/// run ends), and where some of its keys start, to find a position's piece
/// without reading the whole run.
#[derive(Debug)]
struct Run {
    file: File,
    /// The first key written after each [`INDEX_EVERY`] bytes, and its
    /// offset.
    index: Vec<(u64, u64)>,
}

/// Bytes of a run between two entries of its index: what a recall reads
/// at most from each run.
const INDEX_EVERY: u64 = 1 << 15;

/// Sorted runs, oldest first, how many plays of a position they hold at
/// most ([`Runs::on_disk`]), and which of their pieces are held in memory
/// again ([`Runs::recall`]).
#[derive(Debug, Default)]
pub struct Runs {
    runs: Vec<Run>,
    /// A position's pieces in the runs before this one were recalled into
    /// memory: the merge leaves them out.
    recalled: HashMap<u64, usize>,
    sketch: Sketch,
}

impl Runs {
    /// Runs whose count of plays by position ([`Runs::on_disk`]) takes
    /// `sketch_bytes` once the first is written.
    pub fn new(sketch_bytes: usize) -> Runs {
        Runs { sketch: Sketch::new(sketch_bytes), ..Runs::default() }
    }

    /// At least as many plays of the position `key` as the runs hold (the
    /// sum of its counts in them), 0 when they hold none.
    pub fn on_disk(&self, key: u64) -> u32 {
        self.sketch.bound(key)
    }

    /// How many runs were written.
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    /// No run was written.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Bytes the runs hold in memory: their indexes, the record of
    /// recalled keys, and the count of plays (from the start, though made
    /// at the first run, so that the table leaves room for it).
    pub fn bytes(&self) -> usize {
        let index: usize = self.runs.iter().map(|r| r.index.capacity()).sum();
        index * size_of::<(u64, u64)>()
            + self.recalled.capacity() * (size_of::<(u64, usize)>() + 1)
            + self.sketch.width * ROWS * size_of::<u32>()
    }

    /// Writes one run: `positions` sorted by key.
    pub fn write(&mut self, positions: impl Iterator<Item = (u64, PositionStat)>) -> io::Result<()> {
        let sketch = &mut self.sketch;
        let plays = |(key, position): &(u64, PositionStat)| {
            sketch.add(*key, position.moves.iter().map(|s| s.n).fold(0, u32::saturating_add));
        };
        self.runs.push(write_run(positions.inspect(plays))?);
        if self.runs.len() >= MAX_RUNS {
            self.compact()?;
        }
        Ok(())
    }

    /// Merges every run into one, oldest first: a file open for each run
    /// of a long input would pass the limit of open files. The pieces
    /// recalled are left out, so none is recalled from the new run yet.
    fn compact(&mut self) -> io::Result<()> {
        let sketch = std::mem::take(&mut self.sketch);
        let mut merged = Merged::new(std::mem::take(self), Held::default(), true)?;
        let mut failed = None;
        let positions = std::iter::from_fn(|| {
            merged.next_position().unwrap_or_else(|err| {
                failed = Some(err);
                None
            })
        });
        let run = write_run(positions)?;
        if let Some(err) = failed {
            return Err(err);
        }
        *self = Runs { runs: vec![run], recalled: HashMap::new(), sketch };
        Ok(())
    }

    /// Every piece of the position `key` in the runs, oldest first, but
    /// those recalled before; from now on the merge leaves them out.
    pub fn recall(&mut self, key: u64) -> io::Result<Vec<PositionStat>> {
        let from = self.recalled.get(&key).copied().unwrap_or(0);
        let mut pieces = Vec::new();
        for run in &mut self.runs[from..] {
            // The last index entry at or before the key: its piece, if
            // any, is between there and the next entry.
            let at = run.index.partition_point(|&(k, _)| k <= key);
            let Some(&(_, offset)) = at.checked_sub(1).and_then(|i| run.index.get(i)) else { continue };
            run.file.seek(SeekFrom::Start(offset))?;
            let mut input = BufReader::with_capacity(1 << 12, &run.file);
            while let Some((k, position)) = read_position(&mut input)? {
                if k >= key {
                    if k == key {
                        pieces.push(position);
                    }
                    break;
                }
            }
        }
        self.recalled.insert(key, self.runs.len());
        Ok(pieces)
    }
}

/// Writes positions sorted by key to a new run.
fn write_run(positions: impl Iterator<Item = (u64, PositionStat)>) -> io::Result<Run> {
    let mut out = Counted { out: BufWriter::with_capacity(1 << 16, unnamed_file()?), at: 0 };
    let mut index = Vec::new();
    let mut next_entry = 0;
    for (key, position) in positions {
        if out.at >= next_entry {
            index.push((key, out.at));
            next_entry = out.at + INDEX_EVERY;
        }
        write_position(&mut out, key, &position)?;
    }
    let file = out.out.into_inner().map_err(io::IntoInnerError::into_error)?;
    index.shrink_to_fit();
    Ok(Run { file, index })
}

/// Runs held before they are merged into one ([`Runs::compact`]).
const MAX_RUNS: usize = 64;

fn write_position(out: &mut impl Write, key: u64, position: &PositionStat) -> io::Result<()> {
    let tree = position.moves.first().is_some_and(|s| s.tree.is_some());
    let flags = u8::from(position.white)
        | (u8::from(position.halved) << 1)
        | (u8::from(position.fen.is_some()) << 2)
        | (u8::from(tree) << 3)
        | (u8::from(position.inexact) << 4);
    out.write_all(&key.to_le_bytes())?;
    out.write_all(&[flags])?;
    if let Some(fen) = &position.fen {
        out.write_all(&(fen.len() as u32).to_le_bytes())?;
        out.write_all(fen.as_bytes())?;
    }
    out.write_all(&(position.moves.len() as u32).to_le_bytes())?;
    for stat in &position.moves {
        out.write_all(&stat.mv.to_le_bytes())?;
        out.write_all(&stat.n.to_le_bytes())?;
        out.write_all(&stat.sum.to_le_bytes())?;
        out.write_all(&stat.first.to_le_bytes())?;
        if tree {
            stat.tree.as_deref().cloned().unwrap_or_default().write_to(out)?;
        }
    }
    Ok(())
}

/// The next position of a run, `None` at its end.
fn read_position(input: &mut impl Read) -> io::Result<Option<(u64, PositionStat)>> {
    fn array<const N: usize>(input: &mut impl Read) -> io::Result<[u8; N]> {
        let mut bytes = [0; N];
        input.read_exact(&mut bytes)?;
        Ok(bytes)
    }
    let mut key = [0; 8];
    match input.read_exact(&mut key) {
        Err(err) if err.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        other => other?,
    }
    let [flags] = array(input)?;
    let fen = if flags & 4 != 0 {
        let len = u32::from_le_bytes(array(input)?) as usize;
        let mut fen = vec![0; len];
        input.read_exact(&mut fen)?;
        Some(String::from_utf8(fen).map_err(io::Error::other)?.into_boxed_str())
    } else {
        None
    };
    let count = u32::from_le_bytes(array(input)?) as usize;
    let mut moves = Vec::with_capacity(count);
    for _ in 0..count {
        let mv = u16::from_le_bytes(array(input)?);
        let n = u32::from_le_bytes(array(input)?);
        let sum = u32::from_le_bytes(array(input)?);
        let first = u64::from_le_bytes(array(input)?);
        let tree = if flags & 8 != 0 { Some(Box::new(TreeStat::read_from(input)?)) } else { None };
        moves.push(MoveStat { mv, n, sum, first, tree });
    }
    let position = PositionStat {
        white: flags & 1 != 0,
        halved: flags & 2 != 0,
        inexact: flags & 16 != 0,
        fen,
        moves,
        on_disk: 0,
    };
    Ok(Some((u64::from_le_bytes(key), position)))
}

/// Rows of [`Sketch`].
const ROWS: usize = 4;

/// How many plays of each position the runs hold, at most: a count-min
/// sketch (each key adds to a cell of each row, and its count is the least
/// of its cells), so a bound that is never too low, in a fixed size
/// whatever the number of positions. Cells are raised only as far as the
/// key's new bound needs (the conservative update), which keeps the
/// bounds of the other keys sharing them lower.
#[derive(Debug)]
struct Sketch {
    /// `ROWS` rows of `width` cells, made at the first count.
    cells: Vec<u32>,
    width: usize,
}

impl Default for Sketch {
    fn default() -> Sketch {
        Sketch::new(0)
    }
}

impl Sketch {
    fn new(bytes: usize) -> Sketch {
        let width = (bytes / ROWS / size_of::<u32>()).max(1 << 10);
        // A power of two, so that a cell is a key's bits masked.
        let width = if width.is_power_of_two() { width } else { width.next_power_of_two() / 2 };
        Sketch { cells: Vec::new(), width }
    }

    fn slots(&self, key: u64) -> [usize; ROWS] {
        // Keys are Zobrist hashes: odd multipliers spread them over the
        // rows independently enough.
        const MIX: [u64; ROWS] =
            [0x9e37_79b9_7f4a_7c15, 0xc2b2_ae3d_27d4_eb4f, 0x1656_67b1_9e37_79f9, 0xd6e8_feb8_6659_fd93];
        std::array::from_fn(|row| row * self.width + ((key.wrapping_mul(MIX[row]) >> 32) as usize & (self.width - 1)))
    }

    fn add(&mut self, key: u64, plays: u32) {
        if self.cells.is_empty() {
            self.cells = vec![0; self.width * ROWS];
        }
        let slots = self.slots(key);
        let bound = slots.iter().map(|&i| self.cells[i]).min().unwrap_or(0).saturating_add(plays);
        for i in slots {
            self.cells[i] = self.cells[i].max(bound);
        }
    }

    fn bound(&self, key: u64) -> u32 {
        if self.cells.is_empty() {
            return 0;
        }
        self.slots(key).iter().map(|&i| self.cells[i]).min().unwrap_or(0)
    }
}

/// A writer that counts the bytes written, for a run's index.
struct Counted<W> {
    out: W,
    at: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let n = self.out.write(bytes)?;
        self.at += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The positions held in memory at the end, taken out of their map in key
/// order (the keys alone sorted: a sorted copy of the positions would hold
/// the table twice).
#[derive(Debug, Default)]
pub(super) struct Held {
    keys: std::vec::IntoIter<u64>,
    positions: Positions,
}

impl Held {
    pub(super) fn new(positions: Positions) -> Held {
        let mut keys: Vec<u64> = positions.keys().copied().collect();
        keys.sort_unstable();
        Held { keys: keys.into_iter(), positions }
    }
}

impl Iterator for Held {
    type Item = (u64, PositionStat);

    fn next(&mut self) -> Option<(u64, PositionStat)> {
        let key = self.keys.next()?;
        self.positions.remove(&key).map(|position| (key, position))
    }
}

/// Every position in key order: the runs and what stayed in memory
/// merged, each position's pieces added up oldest first.
#[derive(Debug)]
pub struct Merged {
    runs: Vec<BufReader<File>>,
    recalled: HashMap<u64, usize>,
    /// The next position of each run, by key then run (oldest first); the
    /// positions held in memory are the newest source.
    heads: BinaryHeap<Reverse<(u64, usize)>>,
    pending: Vec<Option<PositionStat>>,
    held: Held,
    /// The pieces are counts of consecutive games, oldest first (not the
    /// interleaved games of shards): see [`PositionStat::absorb`].
    ordered: bool,
    /// Positions whose pieces could not be added up as counting them in
    /// order would have (see [`PositionStat::absorb`]).
    pub inexact: u64,
}

impl Merged {
    pub(super) fn new(runs: Runs, held: Held, ordered: bool) -> io::Result<Merged> {
        let count = runs.runs.len();
        let mut files = Vec::with_capacity(count);
        for mut run in runs.runs {
            run.file.rewind()?;
            files.push(BufReader::with_capacity(1 << 16, run.file));
        }
        let mut merged = Merged {
            runs: files,
            recalled: runs.recalled,
            heads: BinaryHeap::new(),
            pending: (0..=count).map(|_| None).collect(),
            held,
            ordered,
            inexact: 0,
        };
        for source in 0..=count {
            merged.advance(source)?;
        }
        Ok(merged)
    }

    fn advance(&mut self, source: usize) -> io::Result<()> {
        let next = match self.runs.get_mut(source) {
            Some(run) => loop {
                match read_position(run)? {
                    // A piece recalled into memory is counted there.
                    Some((key, _)) if self.recalled.get(&key).is_some_and(|&until| source < until) => {}
                    next => break next,
                }
            },
            None => self.held.next(),
        };
        if let Some((key, position)) = next {
            self.pending[source] = Some(position);
            self.heads.push(Reverse((key, source)));
        }
        Ok(())
    }

    /// The next position, with every piece of it.
    pub fn next_position(&mut self) -> io::Result<Option<(u64, PositionStat)>> {
        let Some(Reverse((key, source))) = self.heads.pop() else { return Ok(None) };
        let mut position = self.pending[source].take().unwrap_or_default();
        self.advance(source)?;
        while let Some(&Reverse((next, source))) = self.heads.peek() {
            if next != key {
                break;
            }
            self.heads.pop();
            let later = self.pending[source].take().unwrap_or_default();
            position.absorb(later, self.ordered);
            self.advance(source)?;
        }
        if position.inexact {
            self.inexact += 1;
        }
        Ok(Some((key, position)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sketchs_bound_is_never_below_the_plays_added_for_a_key() {
        // A small sketch, many keys: cells are shared, bounds only rise.
        let mut sketch = Sketch::new(0);
        let mut plays = HashMap::new();
        let mut key = 0x0123_4567_89ab_cdef_u64;
        for i in 0..200_000_u32 {
            key ^= key << 13;
            key ^= key >> 7;
            key ^= key << 17;
            // A few keys come back again and again.
            let k = if i % 5 == 0 { u64::from(i % 50) } else { key };
            sketch.add(k, i % 7 + 1);
            *plays.entry(k).or_insert(0_u32) += i % 7 + 1;
        }
        assert!(plays.iter().all(|(&k, &n)| sketch.bound(k) >= n));
        assert_eq!(Sketch::new(0).bound(42), 0, "nothing spilled: no bound");
        // The keys played often are bounded closely, not by the total.
        let total: u32 = plays.values().sum();
        assert!(plays.iter().filter(|&(&k, _)| k < 50).all(|(&k, &n)| sketch.bound(k) < n + total / 100));
    }
}
