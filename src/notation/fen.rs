//! FEN in and out: the position a FEN describes, and a position's FEN.

use std::fmt;

use shakmaty::{
    CastlingMode, Chess, Color, FromSetup, Position, PositionError, Role,
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

/// The position `fen` describes. Castling is Chess960's when the castling
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

fn read_position(fen: &str, impossible_too: bool) -> Result<Chess, FenError> {
    let setup = Fen::from_ascii(fen.trim().as_bytes()).map_err(FenError::Syntax)?.into_setup();
    let mode = CastlingMode::detect(&setup);
    let pos = Chess::from_setup(setup, mode);
    let pos = if impossible_too {
        pos.or_else(PositionError::ignore_too_much_material).or_else(PositionError::ignore_impossible_check)
    } else {
        pos
    };
    pos.map_err(|err| FenError::Illegal(Box::new(err)))
}

/// The FEN of `pos`, its en passant square only when a capture is legal,
/// castling as X-FEN (`KQkq`, a file letter for a rook that is not the
/// outermost on its side), as shakmaty writes it.
///
/// Written by hand into a byte buffer: shakmaty's writer looks up each
/// piece and grows a `String` a character at a time, and a final FEN per
/// game was a twentieth of `convert --to csv`.
pub fn fen(pos: &Chess) -> String {
    let board = pos.board();
    // The board as 64 bytes first: one pass over each piece's bitboard.
    let mut squares = [0u8; 64];
    for color in Color::ALL {
        for role in Role::ALL {
            let letter = role.of(color).char() as u8;
            for square in board.by_piece(role.of(color)) {
                squares[usize::from(square)] = letter;
            }
        }
    }
    let mut out = Vec::with_capacity(96);
    for rank in (0..8).rev() {
        let mut empty = 0;
        for &letter in &squares[rank * 8..rank * 8 + 8] {
            if letter == 0 {
                empty += 1;
                continue;
            }
            if empty > 0 {
                out.push(b'0' + empty);
                empty = 0;
            }
            out.push(letter);
        }
        if empty > 0 {
            out.push(b'0' + empty);
        }
        out.push(if rank > 0 { b'/' } else { b' ' });
    }
    out.push(if pos.turn() == Color::White { b'w' } else { b'b' });
    out.push(b' ');
    let before = out.len();
    for color in Color::ALL {
        let back = color.backrank();
        let king = board.king_of(color).filter(|k| k.rank() == back);
        let rooks = board.by_piece(color.rook()) & back;
        // From the h-file to the a-file: king side first.
        for rook in (pos.castles().castling_rights() & back).into_iter().rev() {
            let outermost_king_side = rooks.last() == Some(rook) && king.is_some_and(|k| k < rook);
            let outermost_queen_side = rooks.first() == Some(rook) && king.is_some_and(|k| rook < k);
            let letter = if outermost_queen_side {
                b'q'
            } else if outermost_king_side {
                b'k'
            } else {
                rook.file().char() as u8
            };
            out.push(if color == Color::White { letter.to_ascii_uppercase() } else { letter });
        }
    }
    if out.len() == before {
        out.push(b'-');
    }
    out.push(b' ');
    match pos.ep_square(shakmaty::EnPassantMode::Legal) {
        Some(square) => {
            out.push(square.file().char() as u8);
            out.push(square.rank().char() as u8);
        }
        None => out.push(b'-'),
    }
    let mut number = [0; 20];
    out.push(b' ');
    out.extend_from_slice(digits(&mut number, u64::from(pos.halfmoves())));
    out.push(b' ');
    out.extend_from_slice(digits(&mut number, u64::from(pos.fullmoves().get())));
    String::from_utf8(out).expect("a FEN is ASCII")
}
