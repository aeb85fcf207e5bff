//! The table of every (position, move) counted, within a memory budget:
//! past it, sorted runs go to disk ([`Runs`]) and are merged at the end.

use std::{collections::HashMap, hash::BuildHasherDefault, io, mem::size_of};

use super::{
    counts::{COUNT_MAX, MoveStat, PositionStat, first},
    spill::{Merged, Runs},
    stat::{Game, GamePairs, TreeStat},
};
use crate::check::replay::ZobristKey;

/// Every pair counted so far, by position, within a memory budget: past
/// it, the positions not played often are written to a sorted run on disk
/// ([`Runs`]) and merged back at the end.
#[derive(Debug)]
pub struct Table {
    positions: HashMap<u64, PositionStat, BuildHasherDefault<ZobristKey>>,
    /// Bytes held beyond the map's own slots.
    held: usize,
    budget: usize,
    /// Positions with a count at least this stay in memory when a run is
    /// written: their later games are counted in order with their earlier
    /// ones. Doubled when they alone fill half the budget.
    hot: u32,
    runs: Runs,
    tree: bool,
}

impl Table {
    /// An empty table holding at most about `budget` bytes in memory;
    /// `tree`: keep the tree's counts too.
    pub fn new(budget: usize, tree: bool) -> Table {
        Table { positions: HashMap::default(), held: 0, budget, hot: 64, runs: Runs::default(), tree }
    }

    /// Counts one game's pairs; `game` is its number in the run, from 0.
    pub fn add_game(&mut self, game: u64, pairs: &GamePairs) -> io::Result<()> {
        // The side to move's score: polyglot's `result` flips every ply.
        for (i, &(ply, key, mv, white)) in pairs.pairs.iter().enumerate() {
            let for_white = i32::from(pairs.result) + 1;
            let result = if white { for_white } else { 2 - for_white } as u32;
            let position = self.positions.entry(key).or_insert_with(|| PositionStat { white, ..Default::default() });
            if position.moves.is_empty()
                && position.fen.is_none()
                && let Some(fen) = pairs.fens.get(i)
            {
                self.held += fen.len();
                position.fen = Some(fen.as_str().into());
            }
            let tree = self.tree.then(|| Game::of(pairs, white));
            self.held += position.play(mv, result, first(game, ply), tree);
        }
        self.spill_if_full()
    }

    /// Adds a position's counts from a partial (`book merge`), counted as
    /// after everything added so far.
    pub fn add_position(&mut self, key: u64, position: PositionStat) -> io::Result<()> {
        self.held += position_bytes(&position);
        match self.positions.entry(key) {
            std::collections::hash_map::Entry::Occupied(mut held) => {
                // Sizes only grow by the moves not held yet; counted once
                // more here, which errs on the side of spilling early.
                held.get_mut().absorb(position);
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(position);
            }
        }
        self.spill_if_full()
    }

    /// Bytes the table holds in memory, about.
    pub fn bytes(&self) -> usize {
        self.positions.capacity() * (size_of::<(u64, PositionStat)>() + 1) + self.held
    }

    /// How many runs were written to disk.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    fn spill_if_full(&mut self) -> io::Result<()> {
        if self.bytes() <= self.budget {
            return Ok(());
        }
        loop {
            let hot = self.hot;
            let mut cold: Vec<u64> = self
                .positions
                .iter()
                .filter(|(_, p)| p.moves.iter().all(|s| s.n < hot) && !p.halved)
                .map(|(&k, _)| k)
                .collect();
            cold.sort_unstable();
            let mut run = Vec::with_capacity(cold.len());
            for key in cold {
                if let Some(position) = self.positions.remove(&key) {
                    self.held -= position_bytes(&position).min(self.held);
                    run.push((key, position));
                }
            }
            if !run.is_empty() {
                self.runs.write(run.into_iter())?;
            }
            self.positions.shrink_to_fit();
            // The positions kept are those played most: when they alone
            // fill half the budget, fewer are kept.
            if self.bytes() <= self.budget / 2 || self.positions.is_empty() {
                return Ok(());
            }
            if self.hot >= COUNT_MAX * 2 {
                // Halved positions alone fill the budget: the rest go too,
                // their order then lost (said by the merge).
                let all: Vec<u64> = {
                    let mut keys: Vec<u64> = self.positions.keys().copied().collect();
                    keys.sort_unstable();
                    keys
                };
                let run: Vec<(u64, PositionStat)> =
                    all.into_iter().filter_map(|k| self.positions.remove(&k).map(|p| (k, p))).collect();
                self.held = 0;
                self.runs.write(run.into_iter())?;
                self.positions.shrink_to_fit();
                return Ok(());
            }
            self.hot *= 2;
        }
    }

    /// Every position, in key order, with its runs merged.
    pub fn finish(self) -> io::Result<Merged> {
        let mut held: Vec<(u64, PositionStat)> = self.positions.into_iter().collect();
        held.sort_unstable_by_key(|&(key, _)| key);
        Merged::new(self.runs, held)
    }
}

/// Bytes a position holds beyond its slot in the map, about.
fn position_bytes(position: &PositionStat) -> usize {
    position.fen.as_ref().map_or(0, |f| f.len())
        + position
            .moves
            .iter()
            .map(|s| size_of::<MoveStat>() + s.tree.as_ref().map_or(0, |_| size_of::<TreeStat>()))
            .sum::<usize>()
}
