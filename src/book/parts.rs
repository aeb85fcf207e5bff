//! The table split by key over threads (`book -jN`): each part counts the
//! pairs of its range of keys on a thread of its own, and writes its
//! positions beside the others at the end.
//!
//! Polyglot's halving is per position and a position lives in one part,
//! which sees every game in input order: each part counts its positions
//! exactly as one table would, and its spilled runs stay exact as a lone
//! table's do. The ranges are in key order, so the parts' outputs one
//! after the other are the one table's.

use std::{
    io::{self, BufWriter, Seek, Write},
    sync::{
        Arc,
        mpsc::{Receiver, SyncSender, sync_channel},
    },
    thread::JoinHandle,
};

use super::{spill::Merged, stat::GamePairs, table::Table};
use crate::output::spool::unnamed_file;

/// Games for the counting: each one's number in the run and its pairs.
pub type Games = Vec<(u64, GamePairs)>;

/// Every pair counted so far, by one table on the calling thread or by
/// parts on threads of their own.
#[derive(Debug)]
pub struct Parts {
    counting: Counting,
}

#[derive(Debug)]
enum Counting {
    Here(Table),
    Threads(Vec<Counter>),
}

/// A part's thread: it counts the batches of games sent to it, in order.
#[derive(Debug)]
struct Counter {
    games: Option<SyncSender<Arc<Games>>>,
    thread: Option<JoinHandle<io::Result<Table>>>,
}

/// Batches of games queued for a part's thread: enough that a part a
/// little behind does not hold up the others, few enough that what
/// waits stays a few batches (memory).
const QUEUED: usize = 4;

/// The least budget a part's table is given: its runs' count of plays
/// alone takes 16 KiB, and a table much smaller spills at every game.
const MIN_PART_BUDGET: usize = 1 << 18;

impl Parts {
    /// `threads` parts (one table on the calling thread for 1, and no
    /// more parts than give each `MIN_PART_BUDGET`), holding `budget`
    /// bytes in all; `tree`: keep the tree's counts too.
    ///
    /// # Errors
    ///
    /// When a thread cannot be started.
    pub fn new(threads: usize, budget: usize, tree: bool) -> io::Result<Parts> {
        let parts = threads.min(budget / MIN_PART_BUDGET).max(1);
        if parts == 1 {
            return Ok(Parts { counting: Counting::Here(Table::new(budget, tree)) });
        }
        let mut counters = Vec::with_capacity(parts);
        for part in 0..parts {
            let table = Table::part(budget / parts, tree, part, parts);
            let (games, queue) = sync_channel(QUEUED);
            let thread =
                std::thread::Builder::new().name(format!("book-part-{part}")).spawn(move || count(table, &queue))?;
            counters.push(Counter { games: Some(games), thread: Some(thread) });
        }
        Ok(Parts { counting: Counting::Threads(counters) })
    }

    /// How many parts count the pairs.
    pub fn parts(&self) -> usize {
        match &self.counting {
            Counting::Here(_) => 1,
            Counting::Threads(counters) => counters.len(),
        }
    }

    /// Counts games that follow every game added before.
    ///
    /// # Errors
    ///
    /// What the counting failed on (writing a run to disk).
    pub fn add(&mut self, games: Games) -> io::Result<()> {
        match &mut self.counting {
            Counting::Here(table) => games.iter().try_for_each(|(game, pairs)| table.add_game(*game, pairs)),
            Counting::Threads(counters) => {
                let games = Arc::new(games);
                for counter in counters {
                    let sent = counter.games.as_ref().is_some_and(|queue| queue.send(Arc::clone(&games)).is_ok());
                    if !sent {
                        // The thread stopped on an error: it is the run's.
                        counter.games = None;
                        counter.join()?;
                        return Err(io::Error::other("a book part's thread stopped"));
                    }
                }
                Ok(())
            }
        }
    }

    /// Writes every position in key order: `write` writes a part's
    /// positions, each part's on a thread of its own (the first on the
    /// calling thread, straight to `out`, the others to temporary files
    /// copied after it). Returns how many positions were not counted
    /// exactly ([`Merged::inexact`]).
    ///
    /// # Errors
    ///
    /// What the counting, merging or writing failed on.
    pub fn finish<E>(
        self,
        out: &mut dyn Write,
        write: impl Fn(&mut Merged, &mut dyn Write) -> Result<(), E> + Sync,
    ) -> Result<u64, E>
    where
        E: From<io::Error> + Send,
    {
        let tables = match self.counting {
            Counting::Here(table) => vec![table],
            Counting::Threads(mut counters) => {
                // Every queue closed first, so that the parts finish
                // counting side by side.
                for counter in &mut counters {
                    counter.games = None;
                }
                counters.iter_mut().map(Counter::join).collect::<io::Result<Vec<Table>>>()?
            }
        };
        let write = &write;
        std::thread::scope(|scope| {
            let mut tables = tables.into_iter();
            let first = tables.next().expect("at least one part");
            let later: Vec<_> = tables
                .map(|table| {
                    scope.spawn(move || -> Result<_, E> {
                        let mut merged = table.finish()?;
                        let mut file = BufWriter::with_capacity(1 << 16, unnamed_file()?);
                        write(&mut merged, &mut file)?;
                        let file = file.into_inner().map_err(io::IntoInnerError::into_error)?;
                        Ok((file, merged.inexact))
                    })
                })
                .collect();
            let mut merged = first.finish()?;
            write(&mut merged, out)?;
            let mut inexact = merged.inexact;
            drop(merged);
            for part in later {
                let (mut file, part_inexact) = part.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
                file.rewind()?;
                io::copy(&mut file, out)?;
                inexact += part_inexact;
            }
            Ok(inexact)
        })
    }
}

impl Counter {
    /// The part's table once its thread is done (its queue closed), or
    /// what stopped it; a panic of the thread goes on here.
    fn join(&mut self) -> io::Result<Table> {
        let thread = self.thread.take().ok_or_else(|| io::Error::other("a book part's thread was joined twice"))?;
        thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    }
}

/// A part's thread: counts every batch queued, until the queue closes.
fn count(mut table: Table, queue: &Receiver<Arc<Games>>) -> io::Result<Table> {
    for games in queue {
        for (game, pairs) in games.iter() {
            table.add_game(*game, pairs)?;
        }
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::*;
    use crate::{
        book::{counts::PositionStat, table::part_of},
        test_rng::Rng,
    };

    /// 20,000 games of eight plies over made-up keys (each the hash of the
    /// moves before): the first 2,000 of random moves among twenty, then
    /// games whose first two moves are fixed, so that the position after
    /// them, played a few times early among many positions played once,
    /// passes 16384 plays later.
    fn games() -> Games {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        (0..20_000_u64)
            .map(|game| {
                let mut pairs = GamePairs { result: [1, 0, -1][rng.below(3)], decided: true, ..GamePairs::default() };
                let mut key = 0x463b_9618_1691_fc9c_u64;
                for ply in 0..8_u32 {
                    let mv = if game >= 2000 && ply < 2 { 1 } else { rng.below(20) as u16 + 1 };
                    pairs.pairs.push((ply, key, mv, ply % 2 == 0));
                    key = (key ^ u64::from(mv)).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
                }
                (game, pairs)
            })
            .collect()
    }

    /// Every position `merged` gives, in order, with its counts.
    fn listed(merged: &mut Merged, out: &mut dyn Write) -> io::Result<()> {
        while let Some((key, position)) = merged.next_position()? {
            let PositionStat { white, halved, inexact, fen, moves, .. } = position;
            writeln!(out, "{key:016x} {white} {halved} {inexact} {fen:?} {moves:?}")?;
        }
        Ok(())
    }

    /// The positions of one table of every key with room for all of
    /// them, one a line.
    fn whole(games: &Games, tree: bool) -> String {
        let mut table = Table::new(usize::MAX, tree);
        for (game, pairs) in games {
            table.add_game(*game, pairs).unwrap();
        }
        let mut out = Vec::new();
        listed(&mut table.finish().unwrap(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_parts_table_spilled_counts_its_keys_as_one_table_of_every_key() {
        let games = games();
        for tree in [false, true] {
            let whole = whole(&games, tree);
            assert!(whole.lines().any(|l| l.split(' ').nth(2) == Some("true")), "a position was halved");
            for part in 0..3 {
                let mut table = Table::part(MIN_PART_BUDGET, tree, part, 3);
                for (game, pairs) in &games {
                    table.add_game(*game, pairs).unwrap();
                }
                assert!(table.runs() > 0, "part {part}: spilled");
                let mut out = Vec::new();
                listed(&mut table.finish().unwrap(), &mut out).unwrap();
                let mine = whole.lines().filter(|l| part_of(u64::from_str_radix(&l[..16], 16).unwrap(), 3) == part);
                let expected = mine.fold(String::new(), |mut all, l| {
                    writeln!(all, "{l}").unwrap();
                    all
                });
                assert!(String::from_utf8(out).unwrap() == expected, "part {part}, tree {tree}");
            }
        }
    }

    #[test]
    fn parts_on_threads_spilled_write_the_positions_of_one_table_in_key_order() {
        let games = games();
        for (threads, tree) in [(2, false), (3, true), (3, false)] {
            let mut parts = Parts::new(threads, threads * MIN_PART_BUDGET, tree).unwrap();
            assert_eq!(parts.parts(), threads);
            // In batches, as the sink hands them over.
            for batch in games.chunks(700) {
                parts.add(batch.to_vec()).unwrap();
            }
            let mut out = Vec::new();
            let inexact = parts.finish(&mut out, listed).unwrap();
            assert_eq!(inexact, 0);
            assert!(String::from_utf8(out).unwrap() == whole(&games, tree), "{threads} parts, tree {tree}");
        }
        let few = Parts::new(8, 2 * MIN_PART_BUDGET, false).unwrap();
        assert_eq!(few.parts(), 2, "no part below its least budget");
        assert_eq!(Parts::new(1, usize::MAX, false).unwrap().parts(), 1);
    }
}
