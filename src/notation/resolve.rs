//! SAN to a legal move without generating a move list, for the moves that
//! need none.
//!
//! shakmaty resolves SAN by generating the candidate moves into a 2 KiB move
//! list and copying it out; on real games that is a third of a replay. Most
//! moves of a game are a piece move, a pawn push or a pawn capture, and for
//! those the attack tables name the only possible mover, and one occupancy
//! test says whether moving it uncovers the king. In check, a move other
//! than the king's must also take the one checker or step between it and
//! the king. Castling is shakmaty's own test without its move list
//! ([`slow_move`]). Everything else (en passant, promotions, double check,
//! SAN that matches no move or several) is left to shakmaty, which also
//! gives the error.

use shakmaty::{
    Bitboard, CastlingSide, Chess, Color, Move, Position, Rank, Role, attacks,
    san::{San, SanError},
};

/// The move `san` names in `pos` when the fast path can tell: `Some` is
/// exactly what `san.to_move(pos)` returns; `None` means "ask shakmaty".
#[inline]
pub fn quick_move(pos: &Chess, san: San) -> Option<Move> {
    resolve::<false>(pos, san, false)
}

/// [`quick_move`] told whether `pos` is in check, when the caller already
/// knows (a replay that counts checks has just asked).
#[inline]
pub fn quick_move_knowing_check(pos: &Chess, san: San, in_check: bool) -> Option<Move> {
    resolve::<true>(pos, san, in_check)
}

/// Both: `in_check` is read only when `KNOWN`, else worked out here, so
/// that [`quick_move`] is the same code it was before there were two.
#[inline]
fn resolve<const KNOWN: bool>(pos: &Chess, san: San, in_check: bool) -> Option<Move> {
    let San::Normal { role, file, rank, capture, to, promotion: None } = san else { return None };
    let board = pos.board();
    let us = pos.turn();
    let captured = board.role_at(to);
    if board.by_color(us).contains(to) || captured.is_some() != capture {
        return None;
    }
    let king = board.king_of(us)?;
    let them = !us;
    let occupied = board.occupied();
    let checkers = if KNOWN && !in_check { Bitboard::EMPTY } else { board.attacks_to(king, them, occupied) };
    if checkers.any() && role != Role::King {
        let checker = checkers.single_square()?;
        if !attacks::between(king, checker).with(checker).contains(to) {
            return None;
        }
    }
    let mut movers = match role {
        Role::Pawn => pawn_movers(pos, to, capture)?,
        Role::King => Bitboard::from(king) & attacks::king_attacks(to),
        _ => attacks::attacks(to, role.of(them), occupied) & board.by_piece(role.of(us)),
    };
    if let Some(file) = file {
        movers &= Bitboard::from_file(file);
    }
    if let Some(rank) = rank {
        movers &= Bitboard::from_rank(rank);
    }
    let mut found = None;
    for from in movers {
        let legal = if role == Role::King {
            board.attacks_to(to, them, occupied.without(from)).is_empty()
        } else {
            // A move can only uncover a slider on the line through the king
            // and `from`, and not if it stays on that line; the captured
            // piece no longer attacks (in check, the checker is taken or
            // blocked, as tested above).
            attacks::ray(king, from).is_empty()
                || attacks::aligned(king, from, to)
                || board.attacks_to(king, them, occupied.without(from).with(to)).without(to).is_empty()
        };
        if legal {
            if found.is_some() {
                return None;
            }
            found = Some(from);
        }
    }
    found.map(|from| Move::Normal { role, from, capture: captured, to, promotion: None })
}

/// `san.to_move(pos)`: by the fast path when it can tell, else as
/// [`slow_move`].
#[inline]
pub fn to_move(pos: &Chess, san: San) -> Result<Move, SanError> {
    quick_move(pos, san).ok_or(()).or_else(|()| slow_move(pos, san))
}

/// `san.to_move(pos)` for a move the fast path left, castling without
/// shakmaty's move list. Out of line, and castling not in [`quick_move`]:
/// a branch for it there made every move slower.
#[inline(never)]
pub fn slow_move(pos: &Chess, san: San) -> Result<Move, SanError> {
    if let San::Castle(side) = san
        && let Some(m) = castle(pos, side)
    {
        return Ok(m);
    }
    san.to_move(pos)
}

/// The castling move to `side`, when it is legal: shakmaty's test
/// (`Chess::castling_moves`, which `San::to_move` asks), without the move
/// list it fills.
fn castle(pos: &Chess, side: CastlingSide) -> Option<Move> {
    let us = pos.turn();
    let board = pos.board();
    let king = board.king_of(us)?;
    let castles = pos.castles();
    let rook = castles.rook(us, side)?;
    let occupied = board.occupied();
    if (castles.path(us, side) & occupied).any() {
        return None;
    }
    let king_to = side.king_to(us);
    if board.attacks_to(king_to, !us, occupied ^ king ^ rook ^ side.rook_to(us)).any() {
        return None;
    }
    // Not from check, nor through an attacked square.
    let without_king = occupied ^ king;
    if attacks::between(king, king_to).with(king).into_iter().any(|sq| board.attacks_to(sq, !us, without_king).any()) {
        return None;
    }
    Some(Move::Castle { king, rook })
}

/// Our pawns that could move to `to` (not promoting): the capturers, or the
/// pawn one or two squares behind.
#[inline]
fn pawn_movers(pos: &Chess, to: shakmaty::Square, capture: bool) -> Option<Bitboard> {
    let us = pos.turn();
    let board = pos.board();
    let pawns = board.by_piece(Role::Pawn.of(us));
    let (last, double_to, back) = match us {
        Color::White => (Rank::Eighth, Rank::Fourth, -8),
        Color::Black => (Rank::First, Rank::Fifth, 8),
    };
    if to.rank() == last {
        return None;
    }
    if capture {
        return Some(attacks::pawn_attacks(!us, to) & pawns);
    }
    let one = to.offset(back)?;
    if pawns.contains(one) {
        return Some(Bitboard::from(one));
    }
    let two = one.offset(back)?;
    if to.rank() == double_to && !board.occupied().contains(one) && pawns.contains(two) {
        return Some(Bitboard::from(two));
    }
    None
}

#[cfg(test)]
mod tests {
    use shakmaty::{
        CastlingMode, CastlingSide, Chess, File, Move, Position, Rank, Role, Square,
        fen::Fen,
        san::{San, SanPlus},
    };

    use super::{quick_move, quick_move_knowing_check};
    use crate::test_rng::Rng;

    /// Whatever the fast path answers must be shakmaty's answer.
    fn agrees(pos: &Chess, san: San) {
        // Told whether the position is in check, it answers the same.
        assert_eq!(quick_move_knowing_check(pos, san, pos.is_check()), quick_move(pos, san));
        assert_eq!(super::to_move(pos, san), san.to_move(pos));
        if let Some(m) = quick_move(pos, san) {
            assert_eq!(Ok(m), san.to_move(pos), "{san} in {}", Fen::from_position(pos, shakmaty::EnPassantMode::Legal));
        }
    }

    /// The SAN of `m` with more or less disambiguation than needed.
    fn spellings(pos: &Chess, m: Move) -> Vec<San> {
        let mut out = vec![San::from_move(pos, m)];
        if let San::Normal { role, capture, to, promotion, .. } = out[0] {
            let from = m.from().expect("normal move");
            for (file, rank) in [(None, None), (Some(from.file()), None), (None, Some(from.rank()))] {
                out.push(San::Normal { role, file, rank, capture, to, promotion });
            }
            out.push(San::Normal { role, file: Some(from.file()), rank: Some(from.rank()), capture, to, promotion });
            out.push(San::Normal { role, file: None, rank: None, capture: !capture, to, promotion });
        }
        out
    }

    fn random_san(rng: &mut Rng) -> San {
        let roles = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King];
        let square = |rng: &mut Rng| Square::new(rng.below(64) as u32);
        San::Normal {
            role: roles[rng.below(6)],
            file: (rng.below(3) == 0).then(|| File::new(rng.below(8) as u32)),
            rank: (rng.below(4) == 0).then(|| Rank::new(rng.below(8) as u32)),
            capture: rng.below(3) == 0,
            to: square(rng),
            promotion: None,
        }
    }

    #[test]
    fn the_fast_path_agrees_with_shakmaty_on_random_games() {
        let standard = CastlingMode::Standard;
        let starts = [
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", standard),
            // Pins, discovered attacks and en passant chances.
            ("4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 2", standard),
            ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", standard),
            ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", standard),
            ("4k3/4r3/8/8/4B3/8/4K3/4R3 w - - 0 1", standard),
            // Chess960: king and rooks off their usual squares, a rook
            // next to the king, a king that does not move to castle.
            ("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1", CastlingMode::Chess960),
            ("rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1", CastlingMode::Chess960),
            ("4rkr1/8/8/8/8/8/8/4RKR1 w GEge - 0 1", CastlingMode::Chess960),
            // O-O-O is illegal: the castling rook shields c1 from a1.
            ("4k3/8/8/8/8/8/8/rR2K3 w B - 0 1", CastlingMode::Chess960),
        ];
        let mut rng = Rng(0x853c_49e6_748f_ea9b);
        let (mut quick, mut quick_in_check, mut castles) = (0, 0, 0);
        for (start, mode) in starts {
            let start: Chess = start.parse::<Fen>().expect("FEN").into_position(mode).expect("legal position");
            for _ in 0..200 {
                let mut pos = start.clone();
                for _ in 0..120 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    for &m in &moves {
                        for san in spellings(&pos, m) {
                            let answered = usize::from(quick_move(&pos, san).is_some());
                            quick += answered;
                            quick_in_check += answered * usize::from(pos.is_check());
                            agrees(&pos, san);
                        }
                    }
                    for _ in 0..8 {
                        agrees(&pos, random_san(&mut rng));
                    }
                    for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
                        castles += usize::from(super::slow_move(&pos, San::Castle(side)).is_ok());
                        agrees(&pos, San::Castle(side));
                    }
                    let m = moves[rng.below(moves.len())];
                    pos.play_unchecked(m);
                }
            }
        }
        assert!(quick > 100_000, "the fast path answered only {quick} times");
        assert!(quick_in_check > 10_000, "the fast path answered only {quick_in_check} times in check");
        assert!(castles > 1_000, "the fast path castled only {castles} times");
    }

    #[test]
    fn every_move_of_a_real_game_goes_the_fast_way_or_is_a_special_move() {
        // Morphy's Opera game: 33 plies, one of them castling and three out
        // of check (a block and two captures of the checker).
        let moves = "e4 e5 Nf3 d6 d4 Bg4 dxe5 Bxf3 Qxf3 dxe5 Bc4 Nf6 Qb3 Qe7 Nc3 c6 Bg5 b5 Nxb5 cxb5 Bxb5+ \
                     Nbd7 O-O-O Rd8 Rxd7 Rxd7 Rd1 Qe6 Bxd7+ Nxd7 Qb8+ Nxb8 Rd8#";
        let mut pos = Chess::default();
        let mut slow = Vec::new();
        for token in moves.split_whitespace() {
            let san = SanPlus::from_ascii(token.as_bytes()).expect("SAN").san;
            let m = san.to_move(&pos).expect("legal");
            match quick_move(&pos, san) {
                Some(quick) => assert_eq!(quick, m),
                None => slow.push(token),
            }
            pos.play_unchecked(m);
        }
        assert_eq!(slow, ["O-O-O"]);
    }
}
