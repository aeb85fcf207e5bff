//! Writing moves in each notation, and move numbers.

use std::fmt::Write as _;

use shakmaty::{
    CastlingMode, CastlingSide, Chess, Color, Move, Position, Role, Square,
    san::{San, SanPlus, Suffix},
};

use super::read::Notation;

/// The decimal digits of `n`, written into `buffer`: `core::fmt` costs
/// more than the rest of a CSV row's number or a FEN's move counters. Two
/// digits at a time, from a table: `validate --format jsonl` writes three
/// numbers a game.
pub(crate) fn digits(buffer: &mut [u8; 20], mut n: u64) -> &[u8] {
    // "00", "01", ..., "99".
    const PAIRS: [u8; 200] = {
        let mut pairs = [0; 200];
        let mut i = 0;
        while i < 100 {
            pairs[2 * i] = b'0' + (i / 10) as u8;
            pairs[2 * i + 1] = b'0' + (i % 10) as u8;
            i += 1;
        }
        pairs
    };
    let mut at = buffer.len();
    while n >= 100 {
        let pair = 2 * (n % 100) as usize;
        n /= 100;
        at -= 2;
        buffer[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    }
    if n >= 10 {
        let pair = 2 * n as usize;
        at -= 2;
        buffer[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    } else {
        at -= 1;
        buffer[at] = b'0' + n as u8;
    }
    &buffer[at..]
}

/// Writes `m` (legal in `pos`) in `notation`, then plays it on `pos`.
pub fn write_and_play(pos: &mut Chess, m: Move, notation: Notation, out: &mut String) {
    match notation {
        Notation::Uci => {
            write_uci(m, pos.castles().mode(), out);
            pos.play_unchecked(m);
        }
        Notation::San | Notation::Lan => {
            if notation == Notation::San {
                move_san(pos, m).append_to_string(out);
            } else {
                write_lan(m, out);
            }
            pos.play_unchecked(m);
            if let Some(suffix) = check_suffix(pos) {
                out.push(suffix.char());
            }
        }
    }
}

/// Writes `m` (legal in `pos`) in SAN with its check mark, then plays it on
/// `pos`: [`write_and_play`] in SAN, into bytes and without the general
/// formatter (a fifth of writing a game's SAN).
pub fn write_san_and_play(pos: &mut Chess, m: Move, out: &mut Vec<u8>) {
    push_san_plus(san_and_play(pos, m), out);
}

/// The SAN of `m` (legal in `pos`) with its check mark, `m` then played
/// on `pos`.
pub fn san_and_play(pos: &mut Chess, m: Move) -> SanPlus {
    let san = move_san(pos, m);
    pos.play_unchecked(m);
    SanPlus { san, suffix: check_suffix(pos) }
}

/// Appends `san` as shakmaty writes it (`Nbxd7`, `e8=Q`, `O-O-O`, `--`).
pub fn push_san(san: San, out: &mut Vec<u8>) {
    let (bytes, len) = san_bytes(san);
    push_short(&bytes, len, out);
}

/// Appends the first `len` of `bytes`: all of them copied, then cut, as a
/// copy of a size known when compiling is a move or two where one of a few
/// bytes of any size is a call to `memcpy`.
pub(crate) fn push_short<const N: usize>(bytes: &[u8; N], len: usize, out: &mut Vec<u8>) {
    let at = out.len();
    out.extend_from_slice(bytes);
    out.truncate(at + len.min(N));
}

/// `san` on the stack, and its length: the longest is 8 bytes (`Qa1xb2=Q`
/// in shape), so a writer copies it once.
#[inline]
pub(crate) fn san_bytes(san: San) -> ([u8; 8], usize) {
    // Shifted into a word, a byte at a time: no index to check.
    let mut word = 0u64;
    let mut len = 0;
    let mut push = |b: u8| {
        word |= u64::from(b) << (8 * (len & 7));
        len += 1;
    };
    match san {
        San::Normal { role, file, rank, capture, to, promotion } => {
            if role != Role::Pawn {
                push(role.upper_char() as u8);
            }
            if let Some(file) = file {
                push(b'a' + file as u8);
            }
            if let Some(rank) = rank {
                push(b'1' + rank as u8);
            }
            if capture {
                push(b'x');
            }
            push(b'a' + to.file() as u8);
            push(b'1' + to.rank() as u8);
            if let Some(promotion) = promotion {
                push(b'=');
                push(promotion.upper_char() as u8);
            }
        }
        San::Castle(side) => {
            let castle: &[u8] = if side == CastlingSide::KingSide { b"O-O" } else { b"O-O-O" };
            castle.iter().for_each(|&b| push(b));
        }
        San::Put { role, to } => {
            if role != Role::Pawn {
                push(role.upper_char() as u8);
            }
            push(b'@');
            push(b'a' + to.file() as u8);
            push(b'1' + to.rank() as u8);
        }
        San::Null => b"--".iter().for_each(|&b| push(b)),
    }
    (word.to_le_bytes(), len.min(8))
}

/// Appends `san` with its check mark.
pub fn push_san_plus(san: SanPlus, out: &mut Vec<u8>) {
    let (plus, len) = san_plus_bytes(san);
    push_short(&plus, len, out);
}

/// [`san_bytes`] with the check mark: the longest is 9 bytes.
#[inline]
pub(crate) fn san_plus_bytes(san: SanPlus) -> ([u8; 9], usize) {
    let (bytes, len) = san_bytes(san.san);
    let mut plus = [0; 9];
    plus[..8].copy_from_slice(&bytes);
    plus[len] = san.suffix.map_or(0, |suffix| suffix.char() as u8);
    (plus, len + usize::from(san.suffix.is_some()))
}

/// The move number before a move in `pos`, as [`move_number`] writes it,
/// appended to `out`.
pub fn push_move_number(pos: &Chess, out: &mut Vec<u8>) {
    push_move_number_of(pos.turn(), pos.fullmoves().get(), out);
}

/// [`push_move_number`] of the side to move and the move counter.
pub fn push_move_number_of(turn: Color, fullmoves: u32, out: &mut Vec<u8>) {
    out.extend_from_slice(digits(&mut [0; 20], fullmoves.into()));
    out.extend_from_slice(if turn == Color::White { b"." } else { b"..." });
}

/// Writes `m` in UCI: `e2e4`, `e7e8q`, castling as the king's move
/// (`e1g1`), or onto its rook in Chess960 (`e1h1`).
pub fn write_uci(m: Move, mode: CastlingMode, out: &mut String) {
    let mut bytes = Vec::with_capacity(5);
    write_uci_bytes(m, mode, &mut bytes);
    out.push_str(&String::from_utf8_lossy(&bytes));
}

/// [`write_uci`] into bytes. Written by hand: the general formatter was a
/// tenth of `convert --to uci`.
pub fn write_uci_bytes(m: Move, mode: CastlingMode, out: &mut Vec<u8>) {
    let (uci, len) = uci_bytes(m, mode);
    push_short(&uci, len, out);
}

/// `m` in UCI on the stack, and its length (4, or 5 with a promotion), for
/// a writer to copy it once.
#[inline]
pub(crate) fn uci_bytes(m: Move, mode: CastlingMode) -> ([u8; 5], usize) {
    let (from, to, promotion) = match m {
        Move::Normal { from, to, promotion, .. } => (from, to, promotion),
        Move::EnPassant { from, to } => (from, to, None),
        Move::Castle { king, rook } => {
            let to = match mode {
                CastlingMode::Chess960 => rook,
                CastlingMode::Standard => {
                    let file = if rook < king { shakmaty::File::C } else { shakmaty::File::G };
                    Square::from_coords(file, king.rank())
                }
            };
            (king, to, None)
        }
        // Not a move of chess (`N@e4`): never made by the checker.
        Move::Put { .. } => {
            let text = m.to_uci(mode).to_string();
            let mut uci = [0; 5];
            let len = text.len().min(5);
            uci[..len].copy_from_slice(&text.as_bytes()[..len]);
            return (uci, len);
        }
    };
    let uci = [
        b'a' + from.file() as u8,
        b'1' + from.rank() as u8,
        b'a' + to.file() as u8,
        b'1' + to.rank() as u8,
        // By table: a `match` of the role was a jump a move.
        promotion.map_or(0, |role| b"?pnbrqk"[role as usize]),
    ];
    (uci, 4 + usize::from(promotion.is_some()))
}

/// The SAN of `m`, legal in `pos`, without its check mark: as
/// [`San::from_move`], which lists every legal move of the piece's kind to
/// the target square to tell pieces apart, but only when another piece of
/// that kind even attacks the square (most moves have no rival; pawns and
/// castling never need the list).
pub fn move_san(pos: &Chess, m: Move) -> San {
    match m {
        Move::Normal { role: Role::Pawn, from, capture, to, promotion } => San::Normal {
            role: Role::Pawn,
            file: capture.map(|_| from.file()),
            rank: None,
            capture: capture.is_some(),
            to,
            promotion,
        },
        Move::Normal { role, from, capture, to, promotion: None }
            if (pos.our(role) & shakmaty::attacks::attacks(to, role.of(pos.turn()), pos.board().occupied()))
                .without(from)
                .is_empty() =>
        {
            San::Normal { role, file: None, rank: None, capture: capture.is_some(), to, promotion: None }
        }
        Move::EnPassant { from, to } => {
            San::Normal { role: Role::Pawn, file: Some(from.file()), rank: None, capture: true, to, promotion: None }
        }
        Move::Castle { king, rook } => {
            San::Castle(if rook < king { CastlingSide::QueenSide } else { CastlingSide::KingSide })
        }
        _ => San::from_move(pos, m),
    }
}

/// The SAN of `m` in `pos`, read from the token `written`: a piece
/// written without its starting square was the only one that could
/// legally move there (else the token would not have been read), so its
/// SAN names none either and no rival is looked for.
pub fn move_san_as_read(pos: &Chess, m: Move, written: San) -> San {
    match (m, written) {
        (
            Move::Normal { role, capture, to, promotion: None, .. },
            San::Normal { role: r, file: None, rank: None, to: t, .. },
        ) if role != Role::Pawn && r == role && t == to => {
            San::Normal { role, file: None, rank: None, capture: capture.is_some(), to, promotion: None }
        }
        _ => move_san(pos, m),
    }
}

/// `+` or `#` after a move that gives check. Unlike
/// [`Suffix::from_position`], which looks for legal moves after every move,
/// this looks only when the king is in check (a third of SAN writing).
// Inlined: asked after every move by the lint and the writers of SAN, its
// call cost a tenth of it.
#[inline(always)]
pub fn check_suffix(pos: &Chess) -> Option<Suffix> {
    if !pos.is_check() {
        return None;
    }
    Some(if pos.legal_moves().is_empty() { Suffix::Checkmate } else { Suffix::Check })
}

/// Long algebraic without the check suffix: `Ng1-f3`, `e5xd6`, `O-O`.
fn write_lan(m: Move, out: &mut String) {
    let (role, from, capture, to, promotion) = match m {
        Move::Normal { role, from, capture, to, promotion } => (role, from, capture.is_some(), to, promotion),
        Move::EnPassant { from, to } => (Role::Pawn, from, true, to, None),
        Move::Castle { king, rook } => {
            out.push_str(if rook < king { "O-O-O" } else { "O-O" });
            return;
        }
        Move::Put { role, to } => {
            let _ = write!(out, "{}@{to}", role.upper_char());
            return;
        }
    };
    if role != Role::Pawn {
        out.push(role.upper_char());
    }
    let _ = write!(out, "{from}{}{to}", if capture { 'x' } else { '-' });
    if let Some(p) = promotion {
        out.push('=');
        out.push(p.upper_char());
    }
}

/// The move number before a move in `pos`: `12.` for White, `12...` for
/// Black.
pub fn move_number(pos: &Chess) -> String {
    let dots = if pos.turn() == Color::White { "." } else { "..." };
    format!("{}{dots}", pos.fullmoves())
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, Chess, Position, fen::Fen, san::San};

    /// Every legal move of every position reached in `depth` plies from
    /// `pos`.
    fn walk(pos: &Chess, depth: u32, visit: &mut impl FnMut(&Chess, shakmaty::Move)) {
        for m in pos.legal_moves() {
            visit(pos, m);
            if depth > 1 {
                walk(&pos.clone().play(m).expect("legal"), depth - 1, visit);
            }
        }
    }

    #[test]
    fn move_san_is_shakmatys_san_for_every_move_of_positions_rich_in_rivals() {
        // The start, Kiwipete (pins, castling both ways, en passant), two
        // knights and two rooks able to reach one square, queens three,
        // promotions with capture, and a Chess960 castling.
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "k7/8/8/2N1N3/8/1R3R2/8/K7 w - - 0 1",
            "7k/8/8/3Q1Q2/8/3Q4/8/K7 w - - 0 1",
            "1r1r3k/2P1P3/8/8/8/8/8/K7 w - - 0 1",
            "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1",
        ];
        let mut moves = 0;
        for fen in fens {
            let setup: Fen = fen.parse().expect("FEN");
            let mode = if fen.contains("GEge") { CastlingMode::Chess960 } else { CastlingMode::Standard };
            let pos: Chess = setup.into_position(mode).expect("legal position");
            walk(&pos, 3, &mut |pos, m| {
                moves += 1;
                assert_eq!(super::move_san(pos, m), San::from_move(pos, m), "{m:?} in {}", crate::notation::fen(pos));
            });
        }
        assert!(moves > 100_000, "{moves} moves");
    }

    /// The SAN kept from a token as read is SAN's: for every move of
    /// positions rich in rivals, read from its SAN as written (with the
    /// disambiguation SAN gives it, or none).
    #[test]
    fn san_kept_from_the_token_as_read_is_shakmatys_san() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "k7/8/8/2N1N3/8/1R3R2/8/K7 w - - 0 1",
            "7k/8/8/3Q1Q2/8/3Q4/8/K7 w - - 0 1",
        ];
        let mut moves = 0;
        for fen in fens {
            let setup: Fen = fen.parse().expect("FEN");
            let pos: Chess = setup.into_position(CastlingMode::Standard).expect("legal position");
            walk(&pos, 3, &mut |pos, m| {
                moves += 1;
                let written = San::from_move(pos, m);
                assert_eq!(super::move_san_as_read(pos, m, written), written, "{m:?} in {}", crate::notation::fen(pos));
            });
        }
        assert!(moves > 50_000, "{moves} moves");
    }

    #[test]
    fn san_written_into_bytes_is_shakmatys_san() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "k7/8/8/2N1N3/8/1R3R2/8/K7 w - - 0 1",
            "1r1r3k/2P1P3/8/8/8/8/8/K7 w - - 0 1",
            "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
        ];
        let mut moves = 0;
        for fen in fens {
            let setup: Fen = fen.parse().expect("FEN");
            let pos: Chess = setup.into_position(CastlingMode::Standard).expect("legal position");
            walk(&pos, 3, &mut |pos, m| {
                moves += 1;
                let mut written = Vec::new();
                super::write_san_and_play(&mut pos.clone(), m, &mut written);
                let want = shakmaty::san::SanPlus::from_move(pos.clone(), m).to_string();
                assert_eq!(String::from_utf8_lossy(&written), want, "{m:?} in {}", crate::notation::fen(pos));
            });
        }
        assert!(moves > 10_000, "{moves} moves");
        for san in [San::Null, San::Put { role: shakmaty::Role::Knight, to: shakmaty::Square::F3 }] {
            let mut written = Vec::new();
            super::push_san(san, &mut written);
            assert_eq!(String::from_utf8_lossy(&written), san.to_string());
        }
    }

    #[test]
    fn move_numbers_pushed_are_the_move_numbers_written() {
        for fen in ["4k3/8/8/8/8/8/8/4K3 b - - 0 37", "4k3/8/8/8/8/8/8/4K3 w - - 0 1234"] {
            let pos = crate::notation::position(fen).expect("legal");
            let mut pushed = Vec::new();
            super::push_move_number(&pos, &mut pushed);
            assert_eq!(String::from_utf8_lossy(&pushed), super::move_number(&pos));
        }
    }

    #[test]
    fn digits_are_the_numbers_decimal_text() {
        let mut buffer = [0; 20];
        let ends = (0..20).flat_map(|p| {
            let power = 10u64.pow(p);
            [power - 1, power, power + 1]
        });
        for n in (0..100_000).chain(ends).chain([u64::MAX, u64::MAX / 7]) {
            assert_eq!(super::digits(&mut buffer, n), n.to_string().as_bytes(), "{n}");
        }
    }
}
