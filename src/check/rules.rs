//! The rules that end a game or shape play, as pgnkit applies them: which
//! ending holds in a position (checkmate, stalemate, dead position, the 50-
//! and 75-move rules, three- and fivefold repetition, in that order of
//! precedence), the null move, and whether a side can move at all.

use shakmaty::{Chess, Color, EnPassantMode, FromSetup, Position};

use crate::report::Termination;

/// The halfmove clock at which the 50-move rule lets a player claim a draw.
pub(crate) const FIFTY_MOVES: u32 = 100;
/// The halfmove clock at which the 75-move rule draws the game (FIDE 9.6.2).
pub(crate) const SEVENTYFIVE_MOVES: u32 = 150;

/// The position after a null move (a pass): the other side to move, the
/// counters moved on as after a real move (as python-chess does); `None`
/// when the side to move is in check, or the result is not a legal position.
pub(crate) fn pass(pos: &Chess) -> Option<Chess> {
    if pos.is_check() {
        return None;
    }
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    setup.swap_turn();
    setup.halfmoves = setup.halfmoves.saturating_add(1);
    if setup.turn == Color::White {
        setup.fullmoves = setup.fullmoves.saturating_add(1);
    }
    Chess::from_setup(setup, pos.castles().mode()).ok()
}

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

/// Whether the side to move has a legal move; usually settled by a safe
/// king step, which is far cheaper than generating every move.
pub(crate) fn has_legal_move(pos: &Chess) -> bool {
    let us = pos.turn();
    if !pos.is_check()
        && let Some(king) = pos.board().king_of(us)
    {
        // Out of check, no slider aims at the king, so a king step is legal
        // exactly when its target square is not attacked as things stand.
        let occupied = pos.board().occupied();
        let targets = shakmaty::attacks::king_attacks(king) & !pos.board().by_color(us);
        if targets.into_iter().any(|sq| pos.king_attackers(sq, !us, occupied).is_empty()) {
            return true;
        }
    }
    !pos.legal_moves().is_empty()
}

#[cfg(test)]
mod tests {
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
