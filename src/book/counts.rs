//! Polyglot's keys and moves, and the counts of a position's moves as
//! `polyglot make-book` keeps them: halved past [`COUNT_MAX`], kept,
//! weighted and ordered as it does.

use std::{collections::HashMap, hash::BuildHasherDefault, io, mem::size_of};

use shakmaty::{Chess, Color, EnPassantMode, Move, Position, Role, zobrist::Zobrist64};

use super::stat::{Game, TreeStat};
use crate::check::replay::ZobristKey;

/// Positions held in memory, by key.
pub(super) type Positions = HashMap<u64, PositionStat, BuildHasherDefault<ZobristKey>>;

/// Bytes the allocator takes for an allocation of `bytes`: glibc's malloc
/// adds 8 bytes of header, rounds up to 16 and gives at least 32, which
/// for the many small allocations of a table (a position's moves, a
/// tree's counts) is a third of them and more.
pub fn allocated(bytes: usize) -> usize {
    if bytes == 0 { 0 } else { (bytes + 8).next_multiple_of(16).max(32) }
}

/// A count that reaches this halves every move of its position, as
/// polyglot's 16-bit counts do (`COUNT_MAX` in its book_make.c).
pub const COUNT_MAX: u32 = 16384;

/// The Polyglot key of a position: its Zobrist hash with Polyglot's
/// numbers, the en passant file only when a pawn of the side to move
/// stands beside the pawn that just moved two squares (as polyglot's
/// move_do.c sets it, whether or not the capture is legal).
pub fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::PseudoLegal).0
}

/// The FEN of a position in the tree: its en passant square when a pawn of
/// the side to move stands beside (X-FEN's rule, and Polyglot's for its
/// key), so that the key of the FEN read back is the position's.
pub fn fen(pos: &Chess) -> String {
    shakmaty::fen::Fen::from_position(pos, EnPassantMode::PseudoLegal).to_string()
}

/// A move as a Polyglot book writes it: to file and rank, from file and
/// rank (3 bits each, from the low bits up), the promotion piece (knight 1
/// to queen 4); castling is the king taking its own rook (`e1h1`).
pub fn polyglot_move(m: &Move) -> u16 {
    let (from, to) = match *m {
        Move::Castle { king, rook } => (king, rook),
        _ => (m.from().unwrap_or(m.to()), m.to()),
    };
    let promotion = match m.promotion() {
        Some(Role::Knight) => 1,
        Some(Role::Bishop) => 2,
        Some(Role::Rook) => 3,
        Some(Role::Queen) => 4,
        _ => 0,
    };
    (u16::from(to) & 63) | ((u16::from(from) & 63) << 6) | (promotion << 12)
}

/// What decides which pairs a book or tree keeps, and their weights.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Keep {
    /// Pairs played fewer times are left out (`--min-games`).
    pub min_games: u32,
    /// Pairs scoring less, in percent, are left out (`--min-score`).
    pub min_score: f64,
    /// Only the moves of this side (`--only-white`, `--only-black`).
    pub only: Option<Color>,
    /// Every kept move weighs 1 (`--uniform`).
    pub uniform: bool,
}

impl Default for Keep {
    fn default() -> Self {
        Keep { min_games: 3, min_score: 0.0, only: None, uniform: false }
    }
}

impl Keep {
    /// Whether a book keeps the pair, as polyglot's keep_entry() decides:
    /// on its (halved) counts, never a pair whose games were all lost.
    pub fn book(&self, stat: &MoveStat, turn: Color) -> bool {
        if stat.n < self.min_games || stat.sum == 0 {
            return false;
        }
        // The same doubles as polyglot's, so that a pair on the edge is
        // decided the same way.
        let score = (f64::from(stat.sum) / f64::from(stat.n)) / 2.0;
        score >= self.min_score / 100.0 && self.only.is_none_or(|only| only == turn)
    }

    /// The weight of a kept pair: polyglot's score, two a win and one a
    /// draw (or a game without a result) for the side to move, or 1.
    pub fn weight(&self, stat: &MoveStat) -> u16 {
        if self.uniform { 1 } else { stat.sum as u16 }
    }
}

/// Whether the tree keeps a pair: played at least `--min-games` times,
/// scoring at least `--min-score` percent for the side to move over its
/// decided games (a pair without one only when no score is asked), of the
/// side `--only-white`/`--only-black` names.
pub fn keeps(keep: &Keep, stat: &MoveStat, turn: Color) -> bool {
    let Some(tree) = &stat.tree else { return false };
    let scores = match tree.score(turn) {
        Some(score) => score * 100.0 >= keep.min_score,
        None => keep.min_score <= 0.0,
    };
    tree.games >= u64::from(keep.min_games) && scores && keep.only.is_none_or(|only| only == turn)
}

/// A (position, move) pair's counts.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveStat {
    /// The move, numbered as Polyglot numbers moves.
    pub mv: u16,
    /// Polyglot's count of the pair (halved with its position's moves).
    pub n: u32,
    /// Polyglot's score of the pair: 2 a win and 1 a draw for the side to
    /// move, halved with `n`.
    pub sum: u32,
    /// Where the pair was first played, `game << 20 | ply`: polyglot
    /// orders moves of equal weight by their first occurrence.
    pub first: u64,
    /// The tree's counts, when a tree is made.
    pub tree: Option<Box<TreeStat>>,
}

/// Where a pair was first played, as [`MoveStat::first`] holds it.
pub fn first(game: u64, ply: u32) -> u64 {
    (game << 20) | u64::from(ply.min((1 << 20) - 1))
}

/// A position's moves.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PositionStat {
    /// White is to move.
    pub white: bool,
    /// Its moves' counts were halved at least once.
    pub halved: bool,
    /// Pieces of its counts were added up where the order of their games
    /// mattered and was not known ([`PositionStat::absorb`]).
    pub inexact: bool,
    /// Its FEN, when a tree is made.
    pub fen: Option<Box<str>>,
    /// Its moves, in the order first played.
    pub moves: Vec<MoveStat>,
    /// At most this many plays of the position are in runs on disk rather
    /// than in these counts (0: these are all of them), as the runs said
    /// when the position came back into memory.
    pub on_disk: u32,
}

impl PositionStat {
    /// Counts one more game through `mv`, as polyglot's book_insert() does:
    /// its score `result` (0 to 2), and all the position's counts halved
    /// when this one reaches [`COUNT_MAX`]. Returns how many bytes the
    /// position grew by.
    pub(super) fn play(&mut self, mv: u16, result: u32, first: u64, tree: Option<Game>) -> usize {
        let mut grew = 0;
        let at = match self.moves.iter().position(|s| s.mv == mv) {
            Some(at) => at,
            None => {
                let tree = tree.map(|_| Box::<TreeStat>::default());
                // One more slot, not the four a Vec grows to first: most
                // positions of a large database have one move, and a
                // slack of three was three quarters of the table.
                let before = allocated(self.moves.capacity() * size_of::<MoveStat>());
                self.moves.reserve_exact(1);
                grew += allocated(self.moves.capacity() * size_of::<MoveStat>()) - before
                    + tree.as_ref().map_or(0, |_| allocated(size_of::<TreeStat>()));
                self.moves.push(MoveStat { mv, n: 0, sum: 0, first, tree });
                self.moves.len() - 1
            }
        };
        let stat = &mut self.moves[at];
        stat.n += 1;
        stat.sum += result;
        if let (Some(stats), Some(game)) = (&mut stat.tree, tree) {
            stats.add_game(game);
        }
        if stat.n >= COUNT_MAX {
            self.halve();
        }
        grew
    }

    fn halve(&mut self) {
        self.halved = true;
        for stat in &mut self.moves {
            stat.n = stat.n.div_ceil(2);
            stat.sum = stat.sum.div_ceil(2);
        }
    }

    /// The count of `mv` so far.
    pub fn count(&self, mv: u16) -> u32 {
        self.moves.iter().find(|s| s.mv == mv).map_or(0, |s| s.n)
    }

    /// Bytes the position holds beyond its slot in a table.
    pub fn heap_bytes(&self) -> usize {
        self.fen.as_ref().map_or(0, |f| allocated(f.len()))
            + allocated(self.moves.capacity() * size_of::<MoveStat>())
            + self.moves.iter().filter(|s| s.tree.is_some()).count() * allocated(size_of::<TreeStat>())
    }

    /// Adds `later`'s counts (of games after this one's) to this one's.
    /// With no halving in `later` and every count under [`COUNT_MAX`] once
    /// added, that is what counting them in order gives, when `ordered`:
    /// `later`'s games all come after this one's (runs of a table); when
    /// not (shards, whose games interleave), this one must not have been
    /// halved either. Else it is not known what polyglot would have
    /// counted, and false is returned (the counts are then added and
    /// halved until under [`COUNT_MAX`]).
    pub fn absorb(&mut self, later: PositionStat, ordered: bool) -> bool {
        // The FEN (its move counters) of the game that reached it first.
        let first = |p: &PositionStat| p.moves.iter().map(|s| s.first).min().unwrap_or(u64::MAX);
        if later.fen.is_some() && (self.fen.is_none() || first(&later) < first(self)) {
            self.fen = later.fen.clone();
        }
        let mut exact = !later.halved && (ordered || !self.halved);
        self.halved |= later.halved;
        for stat in later.moves {
            match self.moves.iter_mut().find(|s| s.mv == stat.mv) {
                Some(mine) => {
                    mine.n += stat.n;
                    mine.sum += stat.sum;
                    mine.first = mine.first.min(stat.first);
                    match (&mut mine.tree, stat.tree) {
                        (Some(a), Some(b)) => a.absorb(&b),
                        (mine_tree @ None, b) => *mine_tree = b,
                        (Some(_), None) => {}
                    }
                }
                None => self.moves.push(stat),
            }
        }
        while self.moves.iter().any(|s| s.n >= COUNT_MAX) {
            exact = false;
            self.halve();
        }
        self.inexact |= !exact || later.inexact;
        exact
    }

    /// The moves a book or tree keeps, in Polyglot's order: highest weight
    /// first, then first played first (polyglot sorts stably on the weight
    /// what it holds in the order pairs were first played).
    pub fn kept(&mut self, keep: &Keep, book: bool) -> Vec<&MoveStat> {
        let turn = if self.white { Color::White } else { Color::Black };
        let mut kept: Vec<&MoveStat> =
            self.moves.iter().filter(|s| if book { keep.book(s, turn) } else { keeps(keep, s, turn) }).collect();
        if book {
            kept.sort_by(|a, b| keep.weight(b).cmp(&keep.weight(a)).then(a.first.cmp(&b.first)));
        } else {
            kept.sort_by_key(|s| (std::cmp::Reverse(s.tree.as_ref().map_or(0, |t| t.games)), s.first));
        }
        kept
    }
}

/// Writes a book's entries for one position: key, move, weight, and a
/// learn field of zero, big-endian, 16 bytes each.
pub fn write_entries(out: &mut impl io::Write, key: u64, moves: &[&MoveStat], keep: &Keep) -> io::Result<()> {
    for stat in moves {
        let mut entry = [0u8; 16];
        entry[..8].copy_from_slice(&key.to_be_bytes());
        entry[8..10].copy_from_slice(&stat.mv.to_be_bytes());
        entry[10..12].copy_from_slice(&keep.weight(stat).to_be_bytes());
        out.write_all(&entry)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, Chess, fen::Fen};

    use super::*;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    /// The keys book_format.html publishes, the en passant ones among
    /// them.
    #[test]
    fn keys_are_the_ones_the_book_format_publishes() {
        for (fen, expected) in [
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0x463b96181691fc9c),
            ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", 0x823c9b50fd114196),
            ("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2", 0x0756b94461c50fb0),
            ("rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2", 0x662fafb965db29d4),
            ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", 0x22a48b5a8e47ff78),
            ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR b kq - 0 3", 0x652a607ca3f242c1),
            ("rnbq1bnr/ppp1pkpp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR w - - 0 4", 0x00fdd303c946bdd9),
            ("rnbqkbnr/p1pppppp/8/8/PpP4P/8/1P1PPPP1/RNBQKBNR b KQkq c3 0 3", 0x3c8123ea7b067637),
            ("rnbqkbnr/p1pppppp/8/8/P6P/R1p5/1P1PPPP1/1NBQKBNR b Kkq - 0 4", 0x5c3f9b829b279560),
        ] {
            assert_eq!(key(&pos(fen)), expected, "{fen}");
        }
    }

    #[test]
    fn en_passant_counts_when_a_pawn_stands_beside_even_if_the_capture_is_illegal() {
        // Black's d4 pawn is pinned to its king by the rook on a4: the
        // capture e3 is illegal, yet polyglot hashes the file.
        let pinned = pos("8/8/8/8/R2pP2k/8/8/4K3 b - e3 0 1");
        let no_file = pos("8/8/8/8/R2pP2k/8/8/4K3 b - - 0 1");
        assert_ne!(key(&pinned), key(&no_file));
    }

    #[test]
    fn moves_are_numbered_as_polyglot_numbers_them() {
        let start = Chess::default();
        let e4 = shakmaty::san::San::from_ascii(b"e4").unwrap().to_move(&start).unwrap();
        // e2 is square 12, e4 28: from 12 << 6 | to 28.
        assert_eq!(polyglot_move(&e4), (12 << 6) | 28);
        let castle = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        let short = shakmaty::san::San::from_ascii(b"O-O").unwrap().to_move(&castle).unwrap();
        assert_eq!(polyglot_move(&short), (4 << 6) | 7, "e1h1");
        let promote = pos("8/P6k/8/8/8/8/8/K7 w - - 0 1");
        let queen = shakmaty::san::San::from_ascii(b"a8=Q").unwrap().to_move(&promote).unwrap();
        assert_eq!(polyglot_move(&queen), (4 << 12) | (48 << 6) | 56);
    }

    #[test]
    fn a_count_reaching_16384_halves_every_move_of_its_position_rounding_up() {
        let mut position = PositionStat { white: true, ..Default::default() };
        for _ in 0..3 {
            position.play(1, 1, 0, None);
        }
        for _ in 0..COUNT_MAX {
            position.play(2, 2, 1, None);
        }
        assert_eq!((position.moves[0].n, position.moves[0].sum), (2, 2));
        assert_eq!((position.moves[1].n, position.moves[1].sum), (8192, 16384));
        assert!(position.halved);
    }

    #[test]
    fn absorbing_is_exact_only_while_no_count_reaches_16384() {
        let stat = |mv, n, sum| MoveStat { mv, n, sum, first: 0, tree: None };
        let mut a = PositionStat { white: true, moves: vec![stat(1, 10, 12)], ..Default::default() };
        let later = PositionStat { white: true, moves: vec![stat(1, 5, 5), stat(2, 1, 2)], ..Default::default() };
        assert!(a.absorb(later.clone(), false));
        assert_eq!((a.moves[0].n, a.moves[0].sum, a.moves[1].n), (15, 17, 1));
        let mut b = PositionStat { white: true, moves: vec![stat(1, 16000, 16000)], ..Default::default() };
        assert!(!b.absorb(PositionStat { white: true, moves: vec![stat(1, 400, 400)], ..Default::default() }, true));
        assert_eq!(b.moves[0].n, 8200);
        // Halved before: the games that follow add to the halved counts,
        // but interleaved games (shards) do not.
        let halved = PositionStat { white: true, halved: true, moves: vec![stat(1, 8192, 8192)], ..Default::default() };
        assert!(halved.clone().absorb(later.clone(), true));
        assert!(!halved.clone().absorb(later.clone(), false));
        assert!(!a.absorb(halved, true));
    }
}
