//! A deterministic random number generator for the property tests, so that
//! a failure can be replayed from its seed.

use shakmaty::{Chess, MoveList, Position};

/// Xorshift64; the seed must not be 0.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Plays a game of random legal moves, at most `plies` of them, from
    /// the start, handing `each` every position it reaches with its legal
    /// moves (none in the last at mate or stalemate).
    pub(crate) fn random_game(&mut self, plies: usize, mut each: impl FnMut(&Chess, &MoveList)) {
        let mut pos = Chess::default();
        for ply in 0..=plies {
            let legal = pos.legal_moves();
            each(&pos, &legal);
            if legal.is_empty() || ply == plies {
                break;
            }
            pos.play_unchecked(legal[self.below(legal.len())]);
        }
    }
}

/// Pieces of PGN (and of things that are not PGN) for random games: tags,
/// moves, move numbers, comments, variations, NAGs, results, escapes and
/// stray bytes.
pub(crate) const PIECES: &[&[u8]] = &[
    b"[Event \"x\"]\n",
    b"[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n",
    b"[SetUp \"1\"]\n",
    b"[Variant \"Chess960\"]\n",
    b"[FEN \"garbage\"]\n",
    b"[White \"\xe9\"]\n",
    b"\n",
    b"\r\n",
    b"\r",
    b" ",
    b"1.",
    b"1...",
    b"e4",
    b"e5",
    b"Nf3",
    b"Nc6",
    b"O-O",
    b"0-0-0",
    b"exd6",
    b"e.p.",
    b"--",
    b"Z0",
    b"Qxf7#",
    b"e8=Q",
    b"{",
    b"}",
    b"(",
    b")",
    b";",
    b"%",
    b"$12",
    b"!?",
    b"1-0",
    b"0-1",
    b"1/2-1/2",
    b"*",
    b"\xc2\xbd-\xc2\xbd",
    b"Xq9",
    b"[",
    b"]",
    b"\"",
    b"\\",
    b"\0",
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    b"N@f3",
    b"Kxe8",
    b"a8=K",
    b"12...",
    b"e",
    b".p.",
    b"ep",
    b"$",
    b"1\xe2\x80\x930",
    b"+-",
    b"RR",
    b"N",
    b"=",
    b"Zq",
    b"\t",
    b"\x0b",
    b"2",
    b"{a long comment, longer than sixty-four bytes, which the parser is spared}",
];
