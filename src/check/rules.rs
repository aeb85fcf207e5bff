//! The rules that end a game or shape play, as pgnkit applies them: which
//! ending holds in a position (checkmate, stalemate, dead position, the 50-
//! and 75-move rules, three- and fivefold repetition, in that order of
//! precedence), and whether a side can move at all.

use shakmaty::{Bitboard, Chess, Color, Position, attacks};

use crate::report::Termination;

/// The halfmove clock at which the 50-move rule lets a player claim a draw.
pub(crate) const FIFTY_MOVES: u32 = 100;
/// The halfmove clock at which the 75-move rule draws the game (FIDE 9.6.2).
pub(crate) const SEVENTYFIVE_MOVES: u32 = 150;

/// The first game-ending rule that holds in `pos`, in the order of docs/chess-semantics.md.
pub(crate) fn termination(pos: &Chess, repetitions: usize) -> Option<Termination> {
    let no_moves = !has_legal_move(pos);
    if no_moves && pos.is_check() {
        Some(Termination::Checkmate)
    } else if no_moves {
        Some(Termination::Stalemate)
    } else if pos.is_insufficient_material() {
        Some(Termination::InsufficientMaterial)
    } else if pos.halfmoves() >= SEVENTYFIVE_MOVES {
        Some(Termination::SeventyfiveMoves)
    } else if repetitions >= 5 {
        Some(Termination::FivefoldRepetition)
    } else if pos.halfmoves() >= FIFTY_MOVES {
        Some(Termination::FiftyMoves)
    } else if repetitions >= 3 {
        Some(Termination::ThreefoldRepetition)
    } else {
        None
    }
}

/// Whether the side to move has a legal move; usually settled by one
/// piece that can move, which is far cheaper than generating every move.
pub(crate) fn has_legal_move(pos: &Chess) -> bool {
    let us = pos.turn();
    let board = pos.board();
    if !pos.is_check()
        && let Some(king) = board.king_of(us)
    {
        let (ours, occupied) = (board.by_color(us), board.occupied());
        // Out of check, a piece off every line through its king cannot be
        // pinned, so any of its moves is legal: a pawn's push to an empty
        // square or capture, a piece's step to a square not its side's.
        let free = ours & !attacks::queen_attacks(king, Bitboard::EMPTY);
        let pawns = free & board.pawns();
        let forward = if us == Color::White { 8 } else { -8 };
        if (pawns.shift(forward) & !occupied).any()
            || pawns.into_iter().any(|sq| (attacks::pawn_attacks(us, sq) & board.by_color(!us)).any())
        {
            return true;
        }
        let pieces = free & !board.pawns() & !board.kings();
        if pieces
            .into_iter()
            .any(|sq| board.piece_at(sq).is_some_and(|piece| (attacks::attacks(sq, piece, occupied) & !ours).any()))
        {
            return true;
        }
        // No slider aims at the king, so a king step is legal exactly when
        // its target square is not attacked as things stand.
        let targets = attacks::king_attacks(king) & !ours;
        if targets.into_iter().any(|sq| pos.king_attackers(sq, !us, occupied).is_empty()) {
            return true;
        }
    }
    !pos.legal_moves().is_empty()
}

#[cfg(test)]
mod tests {
    use shakmaty::{Board, CastlingMode, Chess, Color, FromSetup, Position, Role, Setup, Square};

    use crate::test_rng::Rng;

    /// Random legal positions, from sparse endings (where stalemates are) to
    /// crowded boards, with either side to move.
    fn random_positions(rng: &mut Rng, count: usize) -> Vec<Chess> {
        let roles = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen];
        let mut out = Vec::new();
        while out.len() < count {
            let mut board = Board::empty();
            let mut free: Vec<Square> = Square::ALL.to_vec();
            let crowd = 1 + rng.below(7);
            let others = rng.below(1 + 4 * crowd);
            for i in 0..2 + others {
                let color = if i == 0 || (i > 1 && rng.below(2) == 0) { Color::White } else { Color::Black };
                let role = if i < 2 { Role::King } else { roles[rng.below(roles.len())] };
                let sq = free.swap_remove(rng.below(free.len()));
                board.set_piece_at(sq, role.of(color));
            }
            let mut setup = Setup::empty();
            setup.board = board;
            setup.turn = if rng.below(2) == 0 { Color::White } else { Color::Black };
            if let Ok(pos) = Chess::from_setup(setup, CastlingMode::Standard) {
                out.push(pos);
            }
        }
        out
    }

    #[test]
    fn a_side_has_a_legal_move_exactly_when_shakmaty_generates_one() {
        let mut rng = Rng(0x5eed_1e6a_1a0e_0001);
        let mut positions = random_positions(&mut rng, 200_000);
        // And the positions of random games, castling and en passant among them.
        for _ in 0..300 {
            rng.random_game(150, |pos, _| positions.push(pos.clone()));
        }
        let mut stuck = 0;
        for pos in &positions {
            let expected = !pos.legal_moves().is_empty();
            assert_eq!(super::has_legal_move(pos), expected, "{}", crate::notation::fen(pos));
            stuck += usize::from(!expected);
        }
        assert!(stuck > 1_000, "only {stuck} positions without a legal move");
    }

    #[test]
    fn insufficient_material_is_only_what_fide_calls_dead() {
        use shakmaty::{CastlingMode, Chess, fen::Fen};
        let ending = |fen: &str| {
            let pos: Chess = fen.parse::<Fen>().expect("FEN").into_position(CastlingMode::Standard).expect("legal");
            super::termination(&pos, 1).map(|t| t.as_str())
        };
        let dead = Some("insufficient_material");
        assert_eq!(ending("8/8/8/4k3/8/8/8/4K3 w - - 0 1"), dead, "K v K");
        assert_eq!(ending("8/8/8/4k3/8/8/8/3NK3 w - - 0 1"), dead, "K+N v K");
        assert_eq!(ending("8/8/8/4k3/8/8/8/3BK3 b - - 0 1"), dead, "K+B v K");
        assert_eq!(ending("8/8/2b5/4k3/8/8/8/3BK3 w - - 0 1"), dead, "bishops on one colour");
        assert_eq!(ending("8/8/3b4/4k3/8/8/8/3BK3 w - - 0 1"), None, "bishops on both colours");
        assert_eq!(ending("8/8/3n4/4k3/8/8/8/3NK3 w - - 0 1"), None, "K+N v K+N can still mate");
        assert_eq!(ending("8/8/8/4k3/8/8/8/2NNK3 w - - 0 1"), None, "K+N+N v K can still mate");
        assert_eq!(ending("8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"), None, "a pawn");
    }
}
