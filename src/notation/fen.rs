//! FEN in and out: the position a FEN describes, and a position's FEN.

use std::{fmt, num::NonZeroU32};

use serde::Serialize;
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, File, FromSetup, Position, PositionError, Rank, Setup,
    Square,
    fen::{Fen, ParseFenError},
};

use super::write::digits;

/// Why a FEN gives no position to play from.
#[derive(Debug)]
pub enum FenError {
    /// The text is not a FEN.
    Syntax(ParseFenError),
    /// A FEN, but not a legal chess position.
    Illegal(Box<PositionError<Chess>>),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Syntax(err) => write!(f, "cannot be read: {err}"),
            FenError::Illegal(err) => write!(f, "is not a legal position: {err}"),
        }
    }
}

impl std::error::Error for FenError {}

/// The position `fen` describes (`startpos`: the standard start). Castling is Chess960's when the castling
/// field needs it (a Shredder or X-FEN field, or king and rooks off their
/// standard squares), as for a game's `[FEN]` tag.
pub fn position(fen: &str) -> Result<Chess, FenError> {
    read_position(fen, false)
}

/// As [`position`], but also a position shakmaty rejects as impossible
/// (more material than promotions allow, a check no last move could give)
/// that can still be played from: perft suites count such positions.
pub fn playable_position(fen: &str) -> Result<Chess, FenError> {
    read_position(fen, true)
}

/// The setup a FEN argument writes, legal or not (`startpos`: the standard
/// start), for what can draw or check a position that cannot be played.
pub fn setup(fen: &str) -> Result<Setup, FenError> {
    if fen.trim() == "startpos" {
        return Ok(Chess::default().to_setup(EnPassantMode::Legal));
    }
    Ok(Fen::from_ascii(fen.trim().as_bytes()).map_err(FenError::Syntax)?.into_setup())
}

fn read_position(fen: &str, impossible_too: bool) -> Result<Chess, FenError> {
    let setup = setup(fen)?;
    let mode = CastlingMode::detect(&setup);
    let pos = Chess::from_setup(setup, mode);
    let pos = if impossible_too {
        pos.or_else(PositionError::ignore_too_much_material).or_else(PositionError::ignore_impossible_check)
    } else {
        pos
    };
    pos.map_err(|err| FenError::Illegal(Box::new(err)))
}

/// What [`tag_position`] left out of a FEN: the castling rights and the en
/// passant square its position cannot have.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dropped {
    /// The castling letters dropped, as the FEN writes them (`Qkq`).
    pub castling: String,
    /// The en passant square dropped.
    pub ep_square: Option<Square>,
}

impl Dropped {
    /// Whether nothing was dropped.
    pub fn is_empty(&self) -> bool {
        self.castling.is_empty() && self.ep_square.is_none()
    }
}

impl fmt::Display for Dropped {
    /// ``the castling rights `Qkq`, whose kings or rooks are not on their
    /// squares, and the en passant square e3, which ...``.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let castling = match self.castling.len() {
            0 => None,
            1 => Some(format!("the castling right `{}`, whose king or rook is not on its square", self.castling)),
            _ => {
                Some(format!("the castling rights `{}`, whose kings or rooks are not on their squares", self.castling))
            }
        };
        let ep = self.ep_square.map(|sq| {
            format!("the en passant square {sq}, which no pawn of the side that just moved can have skipped")
        });
        match (castling, ep) {
            (Some(c), Some(e)) => write!(f, "{c}, and {e}"),
            (Some(one), None) | (None, Some(one)) => f.write_str(&one),
            (None, None) => f.write_str("nothing"),
        }
    }
}

/// The position a game's `[FEN]` tag describes (Chess960 castling when
/// `chess960`, else as the castling field needs), and what was dropped to
/// get it: castling rights without their king and rook and an en passant
/// square no double step can have skipped are left out, as python-chess
/// and lichess read such tags, since a database cannot be corrected by
/// its reader. Anything else that makes the position illegal is an error.
pub fn tag_position(fen: &str, chess960: bool) -> Result<(Chess, Dropped), FenError> {
    let fen = fen.trim();
    let setup = Fen::from_ascii(fen.as_bytes()).map_err(FenError::Syntax)?.into_setup();
    let mode = if chess960 { CastlingMode::Chess960 } else { CastlingMode::detect(&setup) };
    let (board, rights, ep_square) = (setup.board.clone(), setup.castling_rights, setup.ep_square);
    let pos = Chess::from_setup(setup, mode).or_else(|err| {
        // Still illegal: the error names every defect, the dropped ones too.
        err.clone()
            .ignore_invalid_castling_rights()
            .or_else(PositionError::ignore_invalid_ep_square)
            .map_err(|_| FenError::Illegal(Box::new(err)))
    })?;
    let kept = pos.castles().castling_rights();
    let mut dropped = Dropped::default();
    if kept != rights {
        // The field as written, letter by letter: a letter names the rook
        // square shakmaty's reader took it for.
        let field = fen.split_ascii_whitespace().nth(2).unwrap_or("-");
        dropped.castling = field
            .bytes()
            .filter(|&b| b != b'-' && !kept.contains(castling_square(&board, b)))
            .map(char::from)
            .collect();
    }
    if ep_square.is_some() && pos.maybe_ep_square().is_none() {
        dropped.ep_square = ep_square;
    }
    Ok((pos, dropped))
}

/// The rook square shakmaty's FEN reader takes a castling letter for: a
/// file letter that file's square on the side's back rank; `K` (`Q`) the
/// piece nearest the h-file (a-file) among the side's rooks and kings on
/// its back rank when that is a rook, else the corner.
pub(crate) fn castling_square(board: &Board, letter: u8) -> Square {
    let color = Color::from_white(letter.is_ascii_uppercase());
    let back = color.backrank();
    let candidates = board.by_color(color) & (board.rooks() | board.kings()) & back;
    let (nearest, corner) = match letter.to_ascii_lowercase() {
        b'k' => (candidates.last(), File::H),
        b'q' => (candidates.first(), File::A),
        file => return Square::from_coords(File::new(u32::from(file.saturating_sub(b'a')).min(7)), back),
    };
    nearest.filter(|&square| board.rooks().contains(square)).unwrap_or(Square::from_coords(corner, back))
}

/// The FEN of `pos`, its en passant square only when a capture is legal,
/// castling as X-FEN (`KQkq`, a file letter for a rook that is not the
/// outermost on its side), as shakmaty writes it.
pub fn fen(pos: &Chess) -> String {
    let mut fen = Vec::with_capacity(MAX_FEN);
    FenPosition::new(pos).write(&mut fen);
    String::from_utf8(fen).expect("a FEN is ASCII")
}

/// The longest FEN: 64 squares and 7 slashes, the side to move, four
/// castling letters, an en passant square, two counters of at most ten
/// digits, and the five spaces between the fields.
const MAX_FEN: usize = 71 + 1 + 4 + 2 + 10 + 10 + 5;

/// a1, h1, a8 and h8.
const CORNERS: Bitboard = Bitboard(0x8100_0000_0000_0081);

/// How a rank's text is made from its letters (each file's piece letter in
/// byte `f` of a word, zero where the square is empty), for each set of its
/// occupied squares (bit `f` for file `f`): the letters move down over the
/// empty squares by 1, 2 and then 4 bytes, those in `moves[k]` (the bytes
/// they stand on before that step) by `1 << k`; the digits that count the
/// empty squares then fill the gaps left, and the text is `len` bytes.
#[derive(Clone, Copy)]
struct RankText {
    moves: [u64; 3],
    digits: u64,
    len: usize,
}

impl RankText {
    /// The rank's text from its `letters`, in the low `len` bytes.
    #[inline(always)]
    fn of(&self, letters: u64) -> u64 {
        let mut word = letters;
        for (step, moves) in self.moves.into_iter().enumerate() {
            let moving = word & moves;
            word = word ^ moving | moving >> (8 << step);
        }
        word | self.digits
    }
}

/// [`RankText`] of each set of occupied squares. A letter moves down by the
/// empty squares before it less the digits written for them; as that
/// distance never shrinks from one letter to the next, moving by its bits,
/// lowest first, never lands a letter on another (Hacker's Delight's
/// compress, in bytes rather than bits).
const RANK_TEXTS: [RankText; 256] = {
    let mut texts = [RankText { moves: [0; 3], digits: 0, len: 0 }; 256];
    let mut occupied = 0;
    while occupied < 256 {
        let text = &mut texts[occupied];
        // `len`: the bytes of text so far; `empty`: the empty squares since
        // the last piece.
        let (mut len, mut empty, mut file) = (0, 0, 0);
        while file <= 8 {
            let piece = file < 8 && occupied & (1 << file) != 0;
            if (piece || file == 8) && empty > 0 {
                text.digits |= (b'0' as u64 + empty) << (8 * len);
                len += 1;
                empty = 0;
            }
            if piece {
                let distance = file - len;
                let mut step = 0;
                while step < 3 {
                    if distance & (1 << step) != 0 {
                        // Where the letter stands after the smaller steps.
                        let at = file - distance % (1 << step);
                        text.moves[step] |= 0xff << (8 * at);
                    }
                    step += 1;
                }
                len += 1;
            } else if file < 8 {
                empty += 1;
            }
            file += 1;
        }
        text.len = len;
        occupied += 1;
    }
    texts
};

/// Byte `f` of `SPREAD[bits]` is 1 when bit `f` of `bits` is: a rank of a
/// bitboard spread over the bytes of a word, a byte per file.
const SPREAD: [u64; 256] = {
    let mut spread = [0; 256];
    let mut bits = 0;
    while bits < 256 {
        let mut file = 0;
        while file < 8 {
            if bits & (1 << file) != 0 {
                spread[bits] |= 1 << (8 * file);
            }
            file += 1;
        }
        bits += 1;
    }
    spread
};

/// A position as its [`fen`] is written from it, in 56 bytes: what a game
/// report keeps of its final position, for the outputs that write its FEN
/// (a `Chess` is 136 bytes: boxed, it cost an allocation a game; inline, it
/// made every report longer to copy, text output's too). Displayed and
/// serialized as the FEN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FenPosition {
    /// A square's piece as a code (pawn 1, knight 2, bishop 3, rook 4, queen
    /// 5, king 6), bit `i` of the code in plane `i`; White's squares last.
    planes: [Bitboard; 4],
    /// The rooks that keep a castling right.
    castling: Bitboard,
    halfmoves: u32,
    fullmoves: NonZeroU32,
    turn: Color,
    /// Only when a capture there is legal.
    ep_square: Option<Square>,
}

impl FenPosition {
    /// What the FEN of `pos` is written from.
    pub fn new(pos: &Chess) -> FenPosition {
        let board = pos.board();
        FenPosition {
            planes: [
                board.pawns() | board.bishops() | board.queens(),
                board.knights() | board.bishops() | board.kings(),
                board.rooks() | board.queens() | board.kings(),
                board.white(),
            ],
            castling: pos.castles().castling_rights(),
            halfmoves: pos.halfmoves(),
            fullmoves: pos.fullmoves(),
            turn: pos.turn(),
            ep_square: pos.ep_square(EnPassantMode::Legal),
        }
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// Appends the FEN to `out`.
    ///
    /// Written by hand into an array on the stack, then copied once:
    /// shakmaty's writer looks up each piece and grows a `String` a
    /// character at a time, and `validate --format jsonl` writes a final FEN
    /// for every game. A rank is made of words, not squares: its piece
    /// letters are summed from the bitboards spread a byte per file, then
    /// moved together over its empty squares by three masked shifts a table
    /// gives for the squares it has occupied, where picking each byte of the
    /// text out of the letters by an index cost half as much again (and
    /// placing each piece on a board of 64 bytes, then testing each square,
    /// more still).
    pub fn write(&self, out: &mut Vec<u8>) {
        let [one, two, four, white] = self.planes;
        let occupied = one | two | four;
        // No square has the code 7: a bishop is any square with the bits 1
        // and 2, a queen 1 and 4, a king 2 and 4.
        let kings = two & four;
        let rooks = four & !(one | two);
        let knights = two & !(one | four);
        // A black piece's letter as a sum of a term a plane it is in: `p`
        // for every piece, `b` - `p` more for a bishop, `k` - `p` for a king,
        // `q` - `p` for a queen, `r` - `p` for a rook, and a knight is in
        // the last three, as `k` + `q` + `r` - 2 `p` is `n`: six terms with
        // White's 0x20 less, where a term for each role took seven. Some
        // terms are negative: the sum wraps, yet comes out right in each
        // byte, as none ends outside 0 to 0xff.
        let less_p = |letter: u8| u64::from(letter).wrapping_sub(u64::from(b'p'));
        let terms = [
            (occupied, u64::from(b'p')),
            (one & two, less_p(b'b')),
            (kings | knights, less_p(b'k')),
            (one & four | knights, less_p(b'q')),
            (rooks | knights, less_p(b'r')),
            (white, 0u64.wrapping_sub(u64::from(b'a' - b'A'))),
        ];
        // Each plane's ranks as bytes, read a byte a rank where shifting the
        // planes kept in registers cost two steps more a term.
        let ranks = terms.map(|(pieces, _)| pieces.0.to_le_bytes());
        let mut fen = FenBytes { bytes: [0; MAX_FEN + 8], len: 0 };
        for rank in (0..8).rev() {
            let letters = terms
                .iter()
                .zip(&ranks)
                .map(|(&(_, term), ranks)| SPREAD[usize::from(ranks[rank])].wrapping_mul(term))
                .fold(0, u64::wrapping_add);
            let text = &RANK_TEXTS[usize::from(ranks[0][rank])];
            // All eight bytes whatever the rank's length: the array has
            // room past the longest FEN for them.
            fen.bytes[fen.len..fen.len + 8].copy_from_slice(&text.of(letters).to_le_bytes());
            fen.len += text.len;
            fen.push(if rank > 0 { b'/' } else { b' ' });
        }
        fen.push(if self.turn == Color::White { b'w' } else { b'b' });
        fen.push(b' ');
        let before = fen.len;
        let black = occupied & !white;
        let home_rooks = rooks & ((white & Rank::First) | (black & Rank::Eighth));
        let kings_home =
            |rank: Rank, ours: Bitboard| !self.castling.intersects(rank) || (kings & ours).intersects(rank);
        if (self.castling & !(home_rooks & CORNERS)).is_empty()
            && kings_home(Rank::First, white)
            && kings_home(Rank::Eighth, black)
        {
            // Castling as it nearly always is, without the search for each
            // side's outermost rooks: rights with corner rooks only, their
            // king on the back rank between them, so that each rook is the
            // outermost on its side.
            for (corner, letter) in [(Square::H1, b'K'), (Square::A1, b'Q'), (Square::H8, b'k'), (Square::A8, b'q')] {
                if self.castling.contains(corner) {
                    fen.push(letter);
                }
            }
        } else {
            // A side with no right left is skipped whole.
            for color in Color::ALL.into_iter().filter(|&color| self.castling.intersects(color.backrank())) {
                let back = color.backrank();
                let ours = if color == Color::White { white } else { black };
                let king = (kings & ours).single_square().filter(|k| k.rank() == back);
                let rooks = rooks & ours & back;
                // From the h-file to the a-file: king side first.
                for rook in (self.castling & back).into_iter().rev() {
                    let outermost_king_side = rooks.last() == Some(rook) && king.is_some_and(|k| k < rook);
                    let outermost_queen_side = rooks.first() == Some(rook) && king.is_some_and(|k| rook < k);
                    let letter = if outermost_queen_side {
                        b'q'
                    } else if outermost_king_side {
                        b'k'
                    } else {
                        rook.file().char() as u8
                    };
                    fen.push(if color == Color::White { letter.to_ascii_uppercase() } else { letter });
                }
            }
        }
        if fen.len == before {
            fen.push(b'-');
        }
        fen.push(b' ');
        match self.ep_square {
            Some(square) => {
                fen.push(square.file().char() as u8);
                fen.push(square.rank().char() as u8);
            }
            None => fen.push(b'-'),
        }
        fen.push(b' ');
        fen.number(self.halfmoves);
        fen.push(b' ');
        fen.number(self.fullmoves.get());
        out.extend_from_slice(&fen.bytes[..fen.len]);
    }
}

impl fmt::Display for FenPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut fen = Vec::with_capacity(MAX_FEN);
        self.write(&mut fen);
        f.write_str(std::str::from_utf8(&fen).expect("a FEN is ASCII"))
    }
}

impl Serialize for FenPosition {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// A FEN being written, on the stack.
struct FenBytes {
    bytes: [u8; MAX_FEN + 8],
    len: usize,
}

impl FenBytes {
    fn push(&mut self, byte: u8) {
        self.bytes[self.len] = byte;
        self.len += 1;
    }

    fn extend(&mut self, bytes: &[u8]) {
        self.bytes[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }

    /// A move counter: one or two digits, almost always, written without
    /// the general loop.
    #[inline(always)]
    fn number(&mut self, n: u32) {
        if n < 10 {
            self.push(b'0' + n as u8);
        } else if n < 100 {
            self.push(b'0' + (n / 10) as u8);
            self.push(b'0' + (n % 10) as u8);
        } else {
            self.extend(digits(&mut [0; 20], u64::from(n)));
        }
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{Position, Square};

    use super::{Dropped, fen, tag_position};

    fn repaired(tag: &str, chess960: bool) -> (String, Dropped) {
        let (pos, dropped) = tag_position(tag, chess960).unwrap_or_else(|err| panic!("{tag}: {err}"));
        (fen(&pos), dropped)
    }

    fn dropped(castling: &str, ep_square: Option<Square>) -> Dropped {
        Dropped { castling: castling.to_owned(), ep_square }
    }

    /// Every rank's text made by [`super::RANK_TEXTS`] from its letters is
    /// the text written square by square, for every set of occupied squares
    /// and a different letter on each, so that one landing on another or
    /// out of place shows.
    #[test]
    fn each_rank_text_is_its_squares_written_one_by_one() {
        for occupied in 0..256usize {
            let letters = (0..8)
                .filter(|f| occupied & (1 << f) != 0)
                .fold(0, |word, f| word | u64::from(b'A' + f as u8) << (8 * f));
            let text = &super::RANK_TEXTS[occupied];
            let (mut expected, mut empty) = (Vec::new(), 0);
            for f in 0..8 {
                if occupied & (1 << f) == 0 {
                    empty += 1;
                    continue;
                }
                if empty > 0 {
                    expected.push(b'0' + empty);
                    empty = 0;
                }
                expected.push(b'A' + f as u8);
            }
            if empty > 0 {
                expected.push(b'0' + empty);
            }
            let got = text.of(letters).to_le_bytes();
            assert_eq!(&got[..text.len], &expected[..], "{occupied:08b}");
        }
    }

    #[test]
    fn a_legal_tag_drops_nothing() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(repaired(start, false), (start.to_owned(), Dropped::default()));
        let chess960 = "rbbqnknr/pppppppp/8/8/8/8/PPPPPPPP/RBBQNKNR w HAha - 0 1";
        assert_eq!(
            repaired(chess960, true),
            ("rbbqnknr/pppppppp/8/8/8/8/PPPPPPPP/RBBQNKNR w KQkq - 0 1".to_owned(), Dropped::default())
        );
    }

    #[test]
    fn castling_letters_without_their_king_and_rook_are_dropped_as_written() {
        assert_eq!(
            repaired("4k3/8/8/8/8/8/8/4K2R w KQkq - 0 1", false),
            ("4k3/8/8/8/8/8/8/4K2R w K - 0 1".to_owned(), dropped("Qkq", None))
        );
        // A king off its back rank castles with neither rook.
        assert_eq!(
            repaired("r3k2r/8/8/8/8/8/4K3/R6R w KQkq - 0 1", false),
            ("r3k2r/8/8/8/8/8/4K3/R6R w kq - 0 1".to_owned(), dropped("KQ", None))
        );
        // Shredder letters naming empty files, in any order.
        assert_eq!(
            repaired("4k2r/8/8/8/8/8/8/R3K3 w hHaA - 0 1", false),
            ("4k2r/8/8/8/8/8/8/R3K3 w Qk - 0 1".to_owned(), dropped("Ha", None))
        );
    }

    #[test]
    fn an_en_passant_square_no_double_step_skipped_is_dropped() {
        // No Black pawn on e5; then a square on the wrong rank for the side to move.
        assert_eq!(
            repaired("4k3/8/8/8/8/8/4P3/4K3 w - e6 0 1", false),
            ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1".to_owned(), dropped("", Some(Square::E6)))
        );
        assert_eq!(
            repaired("4k3/4p3/8/8/4P3/8/8/4K3 b - e6 0 1", false),
            ("4k3/4p3/8/8/4P3/8/8/4K3 b - - 0 1".to_owned(), dropped("", Some(Square::E6)))
        );
        // A square a pawn did skip stays, capturable or not.
        let (pos, nothing) = tag_position("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1", false).expect("legal");
        assert_eq!((pos.maybe_ep_square(), nothing), (Some(Square::E3), Dropped::default()));
    }

    #[test]
    fn a_tag_still_illegal_once_repaired_is_an_error_naming_every_defect() {
        let err = tag_position("4k3/8/8/8/8/8/8/r3K3 b KQ - 0 1", false).expect_err("White is in check");
        assert_eq!(
            err.to_string(),
            "is not a legal position: illegal position: invalid castling rights, opposite check"
        );
        assert!(tag_position("8/8/8/8/8/8/P7/8 w K e6 0 1", false).is_err());
        assert!(tag_position("4k3/8/8/8/8/8/8/4K3 w - - 0 1 x", false).is_err(), "no FEN");
    }

    #[test]
    fn what_was_dropped_is_said_in_words() {
        assert_eq!(
            dropped("Qkq", Some(Square::E3)).to_string(),
            "the castling rights `Qkq`, whose kings or rooks are not on their squares, and the en passant square \
             e3, which no pawn of the side that just moved can have skipped"
        );
        assert_eq!(dropped("K", None).to_string(), "the castling right `K`, whose king or rook is not on its square");
    }
}
