//! The table of every (position, move) counted, within a memory budget:
//! past it, sorted runs go to disk ([`Runs`]) and are merged at the end.

use std::{
    collections::{HashMap, hash_map::Entry},
    io,
    mem::size_of,
};

use super::{
    counts::{COUNT_MAX, PositionStat, Positions, allocated, first},
    spill::{Held, Merged, Runs},
    stat::{Game, GamePairs},
};

/// Every pair counted so far, by position, within a memory budget: past
/// it, the positions not played often are written to a sorted run on disk
/// ([`Runs`]) and merged back at the end.
///
/// Polyglot halves a position's counts when one reaches [`COUNT_MAX`], at
/// that point in the games. A position that comes back into memory after
/// some of its games went to disk counts on from zero; before one of its
/// counts could reach [`COUNT_MAX`] with the plays on disk (which the runs
/// bound, [`Runs::on_disk`]), its pieces are read back from the runs
/// ([`Runs::recall`]) and it is counted on whole, so that it halves where
/// polyglot's does, whatever was spilled.
#[derive(Debug)]
pub struct Table {
    positions: Positions,
    /// Bytes the positions hold beyond the map's slots.
    held: usize,
    budget: usize,
    /// Positions with a count at least this stay in memory when a run is
    /// written: the ones played most are the ones recalled otherwise.
    /// Doubled when they alone fill half the room.
    hot: u32,
    runs: Runs,
    tree: bool,
    /// Games are counted in order ([`PositionStat::absorb`]), not partials
    /// of interleaved games (`book merge`).
    ordered: bool,
    /// The range of keys this table counts, of the `parts` that cover them
    /// all ([`part_of`]); the pairs of other keys are left to the others.
    part: usize,
    parts: usize,
}

/// The share of the budget kept for the runs' count of plays by position
/// ([`Runs::on_disk`]): its bounds are as close as the plays spilled are
/// few for its cells.
const SKETCH_SHARE: usize = 16;

impl Table {
    /// An empty table for games counted in order, holding at most about
    /// `budget` bytes in memory; `tree`: keep the tree's counts too.
    pub fn new(budget: usize, tree: bool) -> Table {
        Table {
            positions: HashMap::default(),
            held: 0,
            budget,
            hot: 64,
            runs: Runs::new(budget / SKETCH_SHARE),
            tree,
            ordered: true,
            part: 0,
            parts: 1,
        }
    }

    /// An empty table for games counted in order that counts only the
    /// keys of `part` of `parts` (`part_of`), within `budget` bytes.
    pub fn part(budget: usize, tree: bool, part: usize, parts: usize) -> Table {
        Table { part, parts: parts.max(1), ..Table::new(budget, tree) }
    }

    /// An empty table for partial trees (`book merge`), whose games
    /// interleave.
    pub fn of_partials(budget: usize) -> Table {
        Table { ordered: false, ..Table::new(budget, true) }
    }

    /// Counts one game's pairs; `game` is its number in the run, from 0.
    pub fn add_game(&mut self, game: u64, pairs: &GamePairs) -> io::Result<()> {
        // The side to move's score: polyglot's `result` flips every ply.
        for (i, &(ply, key, mv, white)) in pairs.pairs.iter().enumerate() {
            if self.parts > 1 && part_of(key, self.parts) != self.part {
                continue;
            }
            let for_white = i32::from(pairs.result) + 1;
            let result = if white { for_white } else { 2 - for_white } as u32;
            self.make_room(key)?;
            let mut position = match self.positions.entry(key) {
                Entry::Occupied(held) => held.into_mut(),
                Entry::Vacant(slot) => {
                    slot.insert(PositionStat { white, on_disk: self.runs.on_disk(key), ..Default::default() })
                }
            };
            if position.on_disk > 0 && position.on_disk.saturating_add(position.count(mv)) >= COUNT_MAX - 1 {
                // This play could reach COUNT_MAX with the plays on disk.
                self.recall(key)?;
                position = self.positions.get_mut(&key).expect("a recalled position is held");
            }
            if position.moves.is_empty()
                && position.fen.is_none()
                && let Some(fen) = pairs.fens.get(i)
            {
                self.held += allocated(fen.len());
                position.fen = Some(fen.as_str().into());
            }
            let tree = self.tree.then(|| Game::of(pairs, white));
            self.held += position.play(mv, result, first(game, ply), tree);
        }
        self.spill_if_full()
    }

    /// Brings the pieces of `key` on disk back and counts them with the
    /// games in memory, which follow them.
    fn recall(&mut self, key: u64) -> io::Result<()> {
        let memory = self.positions.remove(&key).unwrap_or_default();
        self.held -= memory.heap_bytes().min(self.held);
        let mut pieces = self.runs.recall(key)?.into_iter().chain([memory]);
        let mut whole = pieces.next().unwrap_or_default();
        for later in pieces {
            whole.absorb(later, true);
        }
        whole.on_disk = 0;
        self.held += whole.heap_bytes();
        self.positions.insert(key, whole);
        Ok(())
    }

    /// Adds a position's counts from a partial (`book merge`), counted as
    /// after everything added so far.
    pub fn add_position(&mut self, key: u64, position: PositionStat) -> io::Result<()> {
        self.make_room(key)?;
        match self.positions.entry(key) {
            Entry::Occupied(held) => {
                let held = held.into_mut();
                self.held -= held.heap_bytes().min(self.held);
                held.absorb(position, self.ordered);
                self.held += held.heap_bytes();
            }
            Entry::Vacant(slot) => {
                self.held += position.heap_bytes();
                slot.insert(position);
            }
        }
        self.spill_if_full()
    }

    /// Bytes the table holds in memory: the map's slots (with its control
    /// bytes, at the load the map keeps), what the positions hold beyond
    /// them, room to sort their keys (a run, the end), the runs' own.
    pub fn bytes(&self) -> usize {
        self.fixed() + self.content()
    }

    /// Bytes that do not go with the positions spilled.
    fn fixed(&self) -> usize {
        map_bytes(buckets(self.positions.capacity())) + self.runs.bytes()
    }

    fn content(&self) -> usize {
        self.held + self.positions.len() * size_of::<u64>()
    }

    /// How many runs were written to disk.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Spills before a new key would grow the map past the budget: a map
    /// grows to twice its slots, and holds the old ones and the new while
    /// it moves them.
    fn make_room(&mut self, key: u64) -> io::Result<()> {
        if self.positions.len() < self.positions.capacity() || self.positions.contains_key(&key) {
            return Ok(());
        }
        let slots = buckets(self.positions.capacity());
        if self.bytes() + map_bytes((slots * 2).max(4)) > self.budget {
            self.spill()?;
        }
        Ok(())
    }

    fn spill_if_full(&mut self) -> io::Result<()> {
        if self.bytes() > self.budget { self.spill() } else { Ok(()) }
    }

    /// Writes the positions played least to a run until those left hold
    /// at most half the room the map's slots leave; the map keeps its
    /// slots for the positions to come.
    fn spill(&mut self) -> io::Result<()> {
        loop {
            let hot = self.hot;
            // When halved positions alone fill the room, every position
            // goes.
            let all = hot > COUNT_MAX;
            let mut cold: Vec<u64> = self
                .positions
                .iter()
                .filter(|(_, p)| all || (p.moves.iter().all(|s| s.n < hot) && !p.halved))
                .map(|(&k, _)| k)
                .collect();
            cold.sort_unstable();
            if !cold.is_empty() {
                let (positions, held) = (&mut self.positions, &mut self.held);
                self.runs.write(cold.into_iter().filter_map(|key| {
                    let position = positions.remove(&key)?;
                    *held -= position.heap_bytes().min(*held);
                    Some((key, position))
                }))?;
            }
            let room = self.budget.saturating_sub(self.fixed());
            if self.content() <= room / 2 || self.positions.is_empty() {
                return Ok(());
            }
            self.hot *= 2;
        }
    }

    /// Every position, in key order, with its runs merged.
    pub fn finish(self) -> io::Result<Merged> {
        Merged::new(self.runs, Held::new(self.positions), self.ordered)
    }
}

/// Which of `parts` ranges of keys, of equal width and in key order,
/// holds `key`: the tables of the parts hold disjoint keys, and their
/// outputs one after the other are in key order.
pub fn part_of(key: u64, parts: usize) -> usize {
    ((u128::from(key) * parts as u128) >> 64) as usize
}

/// The slots of a map of `capacity` (std's map keeps 1 in 8 free, and at
/// least one of a small one), a power of two.
fn buckets(capacity: usize) -> usize {
    if capacity == 0 { 0 } else { (capacity * 8 / 7).next_power_of_two() }
}

/// Bytes a map of `buckets` slots allocates: each slot and its control
/// byte, a group of control bytes more.
fn map_bytes(buckets: usize) -> usize {
    if buckets == 0 { 0 } else { allocated(buckets * (size_of::<(u64, PositionStat)>() + 1) + 16) }
}
