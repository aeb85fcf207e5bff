//! `--shard K/N`: one of N disjoint shares of a run's games, for running
//! one command on many machines.

use std::str::FromStr;

/// `--shard K/N`: the games whose 0-based number in the run, counted over
/// all the inputs in order, is K modulo N. `0/N` to `N-1/N` partition the
/// games exactly as `split --shards N` does (its file K+1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// K: which shard, from 0.
    pub index: u64,
    /// N: how many shards.
    pub count: u64,
}

impl Shard {
    /// Whether the game numbered `number` (0-based, in the run) is in it.
    pub fn holds(self, number: u64) -> bool {
        number % self.count == self.index
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let usage = || "expected K/N: two whole numbers with 0 <= K < N, such as 0/4".to_owned();
        let (k, n) = text.split_once('/').ok_or_else(usage)?;
        let (index, count): (u64, u64) = (k.parse().map_err(|_| usage())?, n.parse().map_err(|_| usage())?);
        if count == 0 {
            return Err("N, the number of shards, must be at least 1".to_owned());
        }
        if index >= count {
            return Err(format!(
                "K counts from 0 and must be less than N: the shards of {count} are 0/{count} to {}/{count}",
                count - 1
            ));
        }
        Ok(Shard { index, count })
    }
}
