//! Why a move cannot be played, in words a player understands.
//!
//! shakmaty says only "illegal san" or "ambiguous san"; this module looks at
//! the position again to name the rule the move breaks.

use std::fmt::Display;

use shakmaty::{
    Bitboard, CastlingSide, Chess, Color, File, Position, Rank, Role, Square, attacks,
    san::{San, SanError, SanPlus},
};

use crate::{
    codes::{Code, Reason},
    notation::read::{Coordinates, Notation},
};

/// The code, the broken rule (for illegal moves) and the message for a SAN
/// that does not resolve to one legal move.
pub fn san_error(pos: &Chess, san: San, err: &SanError) -> (Code, Option<Reason>, String) {
    match err {
        SanError::AmbiguousSan => (Code::AmbiguousMove, None, ambiguous(pos, san)),
        SanError::IllegalSan => {
            let (reason, message) = illegal(pos, san, &san);
            (Code::IllegalMove, Some(reason), message)
        }
    }
}

fn ambiguous(pos: &Chess, san: San) -> String {
    // Each candidate in the SAN that tells it apart from the others.
    let candidates: Vec<String> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| san.matches(*m))
        .map(|m| SanPlus::from_move(pos.clone(), m).to_string())
        .collect();
    format!("`{san}` could be any of {}; add the file or rank of the piece that moves", candidates.join(", "))
}

/// Why a move written as its squares (UCI `e2e4`, long algebraic `Ng1-f3`)
/// cannot be played: the words of [`san_error`] for the same move, plus what
/// only coordinates can get wrong (an empty or enemy square to move from, a
/// piece letter that does not match the board).
pub fn coordinates_error(pos: &Chess, c: &Coordinates) -> (Reason, String) {
    let side = color_name(pos.turn());
    let Some(piece) = pos.board().piece_at(c.from) else {
        return (Reason::NoPieceReaches, format!("there is no piece on {}", c.from));
    };
    if piece.color != pos.turn() {
        let message = format!(
            "{} holds a {} {}, but it is {side}'s move",
            c.from,
            color_name(piece.color),
            role_name(piece.role)
        );
        return (Reason::NoPieceReaches, message);
    }
    if let Some(role) = c.role.filter(|&role| role != piece.role) {
        let message = format!("{} holds a {side} {}, not a {}", c.from, role_name(piece.role), role_name(role));
        return (Reason::NoPieceReaches, message);
    }
    if piece.role == Role::King
        && let Some(wing) = castling_side(pos, c.from, c.to)
    {
        return castling(pos, wing);
    }
    let last_rank = if pos.turn() == Color::White { Rank::Eighth } else { Rank::First };
    if piece.role == Role::Pawn && c.promotion.is_none() && c.to.rank() == last_rank {
        let queen = Coordinates { promotion: Some(Role::Queen), ..*c };
        let others = if c.notation == Notation::Lan { "=R, =B, =N" } else { "r, b, n" };
        return (
            Reason::PromotionMissing,
            format!("a pawn reaching {} must promote: write {queen} (or {others})", c.to),
        );
    }
    let theirs = pos.board().by_color(!pos.turn());
    // UCI does not mark captures: a pawn moving diagonally means to capture.
    let capture =
        c.capture.unwrap_or(theirs.contains(c.to) || (piece.role == Role::Pawn && c.from.file() != c.to.file()));
    let san = San::Normal {
        role: piece.role,
        file: Some(c.from.file()),
        rank: Some(c.from.rank()),
        capture,
        to: c.to,
        promotion: c.promotion,
    };
    illegal(pos, san, c)
}

/// The side a king move written as coordinates castles to, as shakmaty
/// reads UCI: the king onto its own castling rook, or two squares along the
/// back rank from the e-file.
fn castling_side(pos: &Chess, from: Square, to: Square) -> Option<CastlingSide> {
    let rights = pos.castles().castling_rights() & pos.board().by_color(pos.turn());
    let back_rank = if pos.turn() == Color::White { Rank::First } else { Rank::Eighth };
    let two_steps = from.file() == shakmaty::File::E
        && from.rank() == back_rank
        && to.rank() == back_rank
        && from.distance(to) == 2;
    (rights.contains(to) || two_steps).then(|| CastlingSide::from_king_side(from < to))
}

/// Why `san` is illegal; `shown` is the move as the user wrote it.
fn illegal(pos: &Chess, san: San, shown: &dyn Display) -> (Reason, String) {
    match san {
        San::Null => (Reason::KingLeftInCheck, "a null move cannot be played here".to_owned()),
        San::Put { .. } => (Reason::PieceDrop, "piece drops do not exist in standard chess".to_owned()),
        San::Castle(side_of_board) => castling(pos, side_of_board),
        San::Normal { role, file, rank, capture, to, promotion } => {
            if let Some(broken) = promotion_error(pos, role, to, promotion, shown)
                .or_else(|| target_error(pos, role, (file, rank), capture, to, shown))
            {
                return broken;
            }
            match movers(pos, role, file, rank, to, capture).first() {
                None => (Reason::NoPieceReaches, no_mover(pos, role, file, rank, to)),
                Some(&from) => exposed_king(pos, role, from, to, shown),
            }
        }
    }
}

/// Why a move promotes when it must not, or to the wrong piece, or does not when it must.
fn promotion_error(
    pos: &Chess,
    role: Role,
    to: Square,
    promotion: Option<Role>,
    shown: &dyn Display,
) -> Option<(Reason, String)> {
    let last_rank = if pos.turn() == Color::White { Rank::Eighth } else { Rank::First };
    if let Some(p) = promotion {
        if role != Role::Pawn {
            return Some((Reason::PromotionInvalid, format!("only a pawn can promote, not a {}", role_name(role))));
        }
        if matches!(p, Role::King | Role::Pawn) {
            return Some((Reason::PromotionInvalid, format!("a pawn cannot promote to a {}", role_name(p))));
        }
        if to.rank() != last_rank {
            return Some((
                Reason::PromotionInvalid,
                format!("a pawn promotes only on the last rank, and {to} is not on it"),
            ));
        }
    } else if role == Role::Pawn && to.rank() == last_rank {
        return Some((
            Reason::PromotionMissing,
            format!("a pawn reaching {to} must promote: write {shown}=Q (or =R, =B, =N)"),
        ));
    }
    None
}

/// Why the square a move goes to does not fit it: an own piece there, or a
/// capture written or not as it is not. `from` is the file and rank the
/// move names its piece by.
fn target_error(
    pos: &Chess,
    role: Role,
    from: (Option<File>, Option<Rank>),
    capture: bool,
    to: Square,
    shown: &dyn Display,
) -> Option<(Reason, String)> {
    let side = color_name(pos.turn());
    let ours = pos.board().by_color(pos.turn());
    let theirs = pos.board().by_color(!pos.turn());
    if ours.contains(to) {
        return Some((Reason::OwnPieceOnSquare, format!("{to} is occupied by a {} {}", side, piece_on(pos, to))));
    }
    if capture && !theirs.contains(to) {
        if role == Role::Pawn {
            return Some(en_passant(pos, from, shown, to));
        }
        return Some((Reason::CaptureOfEmptySquare, format!("{shown} captures on {to}, but {to} is empty")));
    }
    // Only when a piece could take there is the missing `x` the fault:
    // else no piece reaches the square, which the caller explains.
    if !capture && theirs.contains(to) && !movers(pos, role, from.0, from.1, to, true).is_empty() {
        let message =
            format!("{to} holds a {} {}: a capture is written with x", color_name(!pos.turn()), piece_on(pos, to));
        return Some((Reason::CaptureNotMarked, message));
    }
    None
}

/// The pieces of `role` on the file and rank the move names that reach `to` past the real blockers, pins ignored.
fn movers(pos: &Chess, role: Role, file: Option<File>, rank: Option<Rank>, to: Square, capture: bool) -> Vec<Square> {
    (pos.our(role))
        .into_iter()
        .filter(|&from| file.is_none_or(|f| f == from.file()) && rank.is_none_or(|r| r == from.rank()))
        .filter(|&from| reaches(pos, role, from, to, capture))
        .collect()
}

/// Why no piece of `role` on the file and rank the move names can move to `to`.
fn no_mover(pos: &Chess, role: Role, file: Option<File>, rank: Option<Rank>, to: Square) -> String {
    let side = color_name(pos.turn());
    let which = match (file, rank) {
        (None, None) => String::new(),
        _ => format!(
            " from {}{}",
            file.map(|f| f.char().to_string()).unwrap_or_default(),
            rank.map(|r| r.char().to_string()).unwrap_or_default()
        ),
    };
    match (file, rank) {
        (Some(file), Some(rank)) if pos.our(role).contains(Square::from_coords(file, rank)) => {
            let from = Square::from_coords(file, rank);
            format!("the {side} {} on {from} cannot move to {to}", role_name(role))
        }
        _ => format!("no {side} {}{which} can move to {to}", role_name(role)),
    }
}

/// Why a move that a piece on `from` reaches is illegal all the same: it leaves or puts its own king in check.
fn exposed_king(pos: &Chess, role: Role, from: Square, to: Square, shown: &dyn Display) -> (Reason, String) {
    let side = color_name(pos.turn());
    if role == Role::King {
        let message = if pos.is_check() {
            format!("the {side} king is in check and cannot escape to {to}: that square is attacked too")
        } else {
            format!("the king cannot move to {to}: the square is attacked")
        };
        return (Reason::KingIntoCheck, message);
    }
    if pos.is_check() {
        return (
            Reason::KingLeftInCheck,
            format!("the {side} king is in check and {shown} does not get it out of check"),
        );
    }
    (
        Reason::Pinned,
        format!("the {} on {from} is pinned: moving it would expose the {side} king to check", role_name(role)),
    )
}

/// Why a pawn capture onto an empty square, named by the file and rank of
/// the pawn (`from`), is not en passant, or is an en passant capture that
/// cannot be played.
fn en_passant(pos: &Chess, from: (Option<File>, Option<Rank>), shown: &dyn Display, to: Square) -> (Reason, String) {
    let base = format!("{shown} captures on {to}, but {to} is empty");
    let them = !pos.turn();
    let ep_rank = if them == Color::Black { Rank::Sixth } else { Rank::Third };
    if to.rank() != ep_rank {
        let message = format!(
            "{base}: a pawn captures en passant only on the {} rank",
            if them == Color::Black { "sixth" } else { "third" }
        );
        return (Reason::EnPassantUnavailable, message);
    }
    let passed = Square::from_coords(to.file(), if them == Color::Black { Rank::Fifth } else { Rank::Fourth });
    let pawn = color_name(them).to_lowercase();
    if pos.maybe_ep_square() == Some(to) {
        // The pawn did just advance two squares: the capture is pseudo-legal
        // for a pawn beside it, and then illegal only for the king's sake.
        let (file, rank) = from;
        let capturer = pos.our(Role::Pawn).into_iter().find(|&sq| {
            file.is_none_or(|f| f == sq.file())
                && rank.is_none_or(|r| r == sq.rank())
                && attacks::pawn_attacks(pos.turn(), sq).contains(to)
        });
        return match capturer {
            Some(capturer) => en_passant_exposes_king(pos, capturer, passed, to, shown),
            None => (Reason::NoPieceReaches, no_mover(pos, Role::Pawn, file, rank, to)),
        };
    }
    let message = if pos.board().piece_at(passed) == Some(Role::Pawn.of(them)) {
        format!("{base}, and en passant is not available: the {pawn} pawn on {passed} did not just advance two squares")
    } else {
        format!("{base}, and en passant is not available: no {pawn} pawn stands on {passed}")
    };
    (Reason::EnPassantUnavailable, message)
}

/// Why the en passant capture of the pawn on `passed` by the pawn on
/// `from` leaves the king in check: the king was in check already, the
/// capturing pawn is pinned (on a file or diagonal), or both pawns leave
/// the rank between the king and a rook or queen.
fn en_passant_exposes_king(
    pos: &Chess,
    from: Square,
    passed: Square,
    to: Square,
    shown: &dyn Display,
) -> (Reason, String) {
    let side = color_name(pos.turn());
    let them = !pos.turn();
    let board = pos.board();
    let occupied = board.occupied() ^ Bitboard::from(from) ^ Bitboard::from(passed) | Bitboard::from(to);
    let king = pos.our(Role::King).first();
    let attacker = king.and_then(|king| {
        let attackers = pos.king_attackers(king, them, occupied) & !Bitboard::from(passed);
        attackers.first().map(|at| (king, at))
    });
    let Some((king, at)) = attacker.filter(|&(_, at)| !pos.checkers().contains(at)) else {
        // A checker that the capture leaves standing (or, should shakmaty
        // refuse for a reason of its own, no attacker found at all).
        let message = if pos.is_check() {
            format!("the {side} king is in check and {shown} does not get it out of check")
        } else {
            format!("{shown} would leave the {side} king in check")
        };
        return (Reason::KingLeftInCheck, message);
    };
    let by = format!("the {} {} on {at}", color_name(them).to_lowercase(), piece_on(pos, at));
    let captures = format!("{shown} would capture the {} pawn on {passed} en passant", color_name(them).to_lowercase());
    let line = attacks::between(at, king);
    let message = match (line.contains(from), line.contains(passed)) {
        (true, true) => {
            let rank = if pos.turn() == Color::White { "fifth" } else { "fourth" };
            format!(
                "{captures}, but both pawns would leave the {rank} rank, exposing the {side} king on {king} to {by}"
            )
        }
        (true, false) => {
            format!("{captures}, but the pawn on {from} is pinned: moving it would expose the {side} king to {by}")
        }
        _ => format!("{captures}, but that pawn shields the {side} king from {by}"),
    };
    (Reason::Pinned, message)
}

/// Whether a piece of `role` on `from` attacks or moves to `to` given the
/// blockers on the board (pins and checks ignored).
fn reaches(pos: &Chess, role: Role, from: Square, to: Square, capture: bool) -> bool {
    let occupied = pos.board().occupied();
    if role != Role::Pawn {
        return attacks::attacks(from, role.of(pos.turn()), occupied).contains(to);
    }
    let color = pos.turn();
    if capture {
        return attacks::pawn_attacks(color, from).contains(to);
    }
    let step: i32 = if color == Color::White { 8 } else { -8 };
    let one = from.offset(step);
    if one == Some(to) {
        return !occupied.contains(to);
    }
    let start_rank = if color == Color::White { shakmaty::Rank::Second } else { shakmaty::Rank::Seventh };
    from.rank() == start_rank
        && one.is_some_and(|one| !occupied.contains(one))
        && from.offset(2 * step) == Some(to)
        && !occupied.contains(to)
}

fn castling(pos: &Chess, side: CastlingSide) -> (Reason, String) {
    let color = pos.turn();
    let name = color_name(color);
    let wing = if side == CastlingSide::KingSide { "kingside" } else { "queenside" };
    let (Some(rook), Some(king)) = (pos.castles().rook(color, side), pos.our(Role::King).first()) else {
        let message = format!("{name} can no longer castle {wing}: the king or that rook has moved (or was captured)");
        return (Reason::CastlingRightsLost, message);
    };
    if pos.is_check() {
        return (Reason::CastlingInCheck, format!("{name} cannot castle while in check"));
    }
    let between = pos.castles().path(color, side);
    if (between & pos.board().occupied()).any() {
        let blockers: Vec<String> = (between & pos.board().occupied()).into_iter().map(|sq| sq.to_string()).collect();
        let message = format!(
            "{name} cannot castle {wing}: there are pieces between the king and the rook ({})",
            blockers.join(", ")
        );
        return (Reason::CastlingBlocked, message);
    }
    let king_to = side.king_to(color);
    let occupied = pos.board().occupied() ^ Bitboard::from(king) ^ Bitboard::from(rook);
    for sq in attacks::between(king, king_to).with(king_to) {
        if pos.king_attackers(sq, !color, occupied).any() {
            return if sq == king_to {
                (
                    Reason::CastlingIntoCheck,
                    format!("{name} cannot castle {wing}: the king would land on {sq}, which is attacked"),
                )
            } else {
                (
                    Reason::CastlingThroughCheck,
                    format!("{name} cannot castle {wing}: the king would pass through {sq}, which is attacked"),
                )
            };
        }
    }
    // Every condition above holds, so shakmaty refused for a reason of its
    // own (a Chess960 rook that would be left in check, say): say so plainly.
    (Reason::CastlingBlocked, format!("{name} cannot castle {wing} here"))
}

fn piece_on(pos: &Chess, sq: Square) -> &'static str {
    pos.board().role_at(sq).map_or("piece", role_name)
}

pub(crate) fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, Chess, Position, fen::Fen, san::San};

    use super::san_error;
    use crate::codes::{Code, Reason};

    /// Why `san` cannot be played after `moves` from `fen`.
    fn why(fen: &str, moves: &[&str], san: &str) -> (Reason, String) {
        let mut pos: Chess =
            fen.parse::<Fen>().expect("FEN").into_position(CastlingMode::Standard).expect("a legal position");
        for m in moves {
            let m = m.parse::<San>().expect("SAN").to_move(&pos).expect("a legal move");
            pos.play_unchecked(m);
        }
        let san: San = san.parse().expect("SAN");
        let err = san.to_move(&pos).expect_err("an illegal move");
        let (code, reason, message) = san_error(&pos, san, &err);
        assert_eq!(code, Code::IllegalMove);
        (reason.expect("a reason"), message)
    }

    #[test]
    fn en_passant_by_a_pawn_pinned_on_its_file_or_a_diagonal_names_the_pin() {
        assert_eq!(
            why("4r1k1/3p4/8/4P3/8/8/8/4K3 b - - 0 1", &["d5"], "exd6"),
            (
                Reason::Pinned,
                "exd6 would capture the black pawn on d5 en passant, but the pawn on e5 is pinned: moving it would \
                 expose the White king to the black rook on e8"
                    .to_owned()
            )
        );
        assert_eq!(
            why("6kb/3p4/8/4P3/8/8/8/K7 b - - 0 1", &["d5"], "exd6"),
            (
                Reason::Pinned,
                "exd6 would capture the black pawn on d5 en passant, but the pawn on e5 is pinned: moving it would \
                 expose the White king to the black bishop on h8"
                    .to_owned()
            )
        );
        // Black's pawn pinned on a diagonal by a queen.
        assert_eq!(
            why("8/1k6/8/8/4p3/8/3P2Q1/4K3 w - - 0 1", &["d4"], "exd3").1,
            "exd3 would capture the white pawn on d4 en passant, but the pawn on e4 is pinned: moving it would \
             expose the Black king to the white queen on g2"
        );
    }

    #[test]
    fn en_passant_that_takes_both_pawns_off_the_kings_rank_says_so() {
        assert_eq!(
            why("4k3/2p5/8/KP5r/8/8/8/8 b - - 0 1", &["c5"], "bxc6"),
            (
                Reason::Pinned,
                "bxc6 would capture the black pawn on c5 en passant, but both pawns would leave the fifth rank, \
                 exposing the White king on a5 to the black rook on h5"
                    .to_owned()
            )
        );
        // The capturing pawn on the far side of the captured one, for Black.
        assert_eq!(
            why("8/8/8/8/R3p2k/8/3P4/4K3 w - - 0 1", &["d4"], "exd3").1,
            "exd3 would capture the white pawn on d4 en passant, but both pawns would leave the fourth rank, \
             exposing the Black king on h4 to the white rook on a4"
        );
    }

    #[test]
    fn en_passant_that_uncovers_the_king_behind_the_captured_pawn_or_leaves_a_check_says_so() {
        // Only from a FEN: the line through d5 was open before the double step.
        assert_eq!(
            why("4k3/5b2/8/3pP3/8/1K6/8/8 w - d6 0 1", &[], "exd6"),
            (
                Reason::Pinned,
                "exd6 would capture the black pawn on d5 en passant, but that pawn shields the White king from the \
                 black bishop on f7"
                    .to_owned()
            )
        );
        // 1... d5+ uncovers the c8 bishop's check, which exd6 leaves standing.
        assert_eq!(
            why("2b1k3/3p4/8/4P3/6K1/8/8/8 b - - 0 1", &["d5"], "exd6"),
            (Reason::KingLeftInCheck, "the White king is in check and exd6 does not get it out of check".to_owned())
        );
    }

    #[test]
    fn en_passant_named_from_a_file_no_pawn_captures_from_is_no_piece_reaches() {
        assert_eq!(
            why("4r1k1/3p4/8/4P3/8/8/8/4K3 b - - 0 1", &["d5"], "cxd6"),
            (Reason::NoPieceReaches, "no White pawn from c can move to d6".to_owned())
        );
    }
}
