//! Opening books: the (position, move) pairs of games counted as
//! `polyglot make-book` counts them, kept, ordered and written as a
//! Polyglot `.bin` book or as an opening tree with results per move.
//!
//! Polyglot's counts are order-dependent: a pair's count is 16 bits, and
//! when one reaches 16384 every move of its position is halved, rounding
//! up. [`Table`] replays that exactly as long as it sees the games in input
//! order, whatever it spills past `--max-memory`, and so do the tables of
//! [`Parts`], each counting a range of keys on a thread of its own; merged
//! partials of shards (whose games interleave) say when they could not
//! ([`Merged::inexact`]).

mod counts;
mod parts;
mod spill;
mod stat;
mod table;
pub mod tree;

pub use self::{
    counts::{COUNT_MAX, Keep, MoveStat, PositionStat, fen, first, key, polyglot_move, write_entries},
    parts::{Games, Parts},
    spill::{Merged, Runs},
    stat::{GamePairs, TreeStat},
    table::Table,
};
