//! The runs a [`Table`](super::Table) writes to disk past its memory
//! budget, each sorted by key, and their merge with what stayed in memory.

use std::{
    cmp::Reverse,
    collections::BinaryHeap,
    fs::File,
    io::{self, BufReader, BufWriter, Read, Seek, Write},
};

use super::{
    counts::{MoveStat, PositionStat},
    stat::TreeStat,
};
use crate::output::spool::unnamed_file;

/// Sorted runs in temporary files with no name (freed however the run
/// ends), oldest first.
#[derive(Debug, Default)]
pub struct Runs(Vec<File>);

impl Runs {
    /// How many runs were written.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// No run was written.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Writes one run: `positions` sorted by key.
    pub fn write(&mut self, positions: impl Iterator<Item = (u64, PositionStat)>) -> io::Result<()> {
        let mut out = BufWriter::with_capacity(1 << 16, unnamed_file()?);
        for (key, position) in positions {
            write_position(&mut out, key, &position)?;
        }
        let mut file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.rewind()?;
        self.0.push(file);
        if self.0.len() >= MAX_RUNS {
            self.compact()?;
        }
        Ok(())
    }

    /// Merges every run into one, oldest first: a file open for each run
    /// of a long input would pass the limit of open files.
    fn compact(&mut self) -> io::Result<()> {
        let mut merged = Merged::new(Runs(std::mem::take(&mut self.0)), Vec::new())?;
        let mut out = BufWriter::with_capacity(1 << 16, unnamed_file()?);
        while let Some((key, position)) = merged.next_position()? {
            write_position(&mut out, key, &position)?;
        }
        let mut file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.rewind()?;
        self.0.push(file);
        Ok(())
    }
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
    let position = PositionStat { white: flags & 1 != 0, halved: flags & 2 != 0, inexact: flags & 16 != 0, fen, moves };
    Ok(Some((u64::from_le_bytes(key), position)))
}

/// Every position in key order: the runs and what stayed in memory
/// merged, each position's pieces added up oldest first.
#[derive(Debug)]
pub struct Merged {
    runs: Vec<BufReader<File>>,
    /// The next position of each run, by key then run (oldest first); the
    /// positions held in memory are the newest source.
    heads: BinaryHeap<Reverse<(u64, usize)>>,
    pending: Vec<Option<PositionStat>>,
    held: std::vec::IntoIter<(u64, PositionStat)>,
    /// Positions whose pieces could not be added up as counting them in
    /// order would have (see [`PositionStat::absorb`]).
    pub inexact: u64,
}

impl Merged {
    pub(super) fn new(runs: Runs, held: Vec<(u64, PositionStat)>) -> io::Result<Merged> {
        let count = runs.0.len();
        let mut merged = Merged {
            runs: runs.0.into_iter().map(|f| BufReader::with_capacity(1 << 16, f)).collect(),
            heads: BinaryHeap::new(),
            pending: (0..=count).map(|_| None).collect(),
            held: held.into_iter(),
            inexact: 0,
        };
        for source in 0..=count {
            merged.advance(source)?;
        }
        Ok(merged)
    }

    fn advance(&mut self, source: usize) -> io::Result<()> {
        let next = match self.runs.get_mut(source) {
            Some(run) => read_position(run)?,
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
            position.absorb(later);
            self.advance(source)?;
        }
        if position.inexact {
            self.inexact += 1;
        }
        Ok(Some((key, position)))
    }
}
