//! Why a move cannot be played, in words a player understands.
//!
//! shakmaty says only "illegal san" or "ambiguous san"; this module looks at
//! the position again to name the rule the move breaks.

use shakmaty::{
    Bitboard, CastlingSide, Chess, Color, Position, Role, Square, attacks,
    san::{San, SanError},
};

use crate::report::Code;

/// The code and message for a SAN that does not resolve to one legal move.
pub fn san_error(pos: &Chess, san: San, err: &SanError) -> (Code, String) {
    match err {
        SanError::AmbiguousSan => (Code::AmbiguousMove, ambiguous(pos, san)),
        SanError::IllegalSan => (Code::IllegalMove, illegal(pos, san)),
    }
}

fn ambiguous(pos: &Chess, san: San) -> String {
    let candidates: Vec<String> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| san.matches(*m))
        .map(|m| {
            // Name each candidate fully so the reader sees how to tell them apart.
            let from = m.from().map(|sq| sq.to_string()).unwrap_or_default();
            format!("{}{}{}", piece_letter(m.role()), from, m.to())
        })
        .collect();
    format!("`{san}` could be any of {}; add the file or rank of the piece that moves", candidates.join(", "))
}

fn illegal(pos: &Chess, san: San) -> String {
    let side = color_name(pos.turn());
    match san {
        San::Null => "a null move cannot be played here".to_owned(),
        San::Put { .. } => "piece drops do not exist in standard chess".to_owned(),
        San::Castle(side_of_board) => castling(pos, side_of_board),
        San::Normal { role, file, rank, capture, to, promotion } => {
            let ours = pos.board().by_color(pos.turn());
            let theirs = pos.board().by_color(!pos.turn());
            let last_rank = if pos.turn() == Color::White { shakmaty::Rank::Eighth } else { shakmaty::Rank::First };
            if let Some(p) = promotion {
                if role != Role::Pawn {
                    return format!("only a pawn can promote, not a {}", role_name(role));
                }
                if matches!(p, Role::King | Role::Pawn) {
                    return format!("a pawn cannot promote to a {}", role_name(p));
                }
                if to.rank() != last_rank {
                    return format!("a pawn promotes only on the last rank, and {to} is not on it");
                }
            } else if role == Role::Pawn && to.rank() == last_rank {
                return format!("a pawn reaching {to} must promote: write {san}=Q (or =R, =B, =N)");
            }
            if ours.contains(to) {
                return format!("{to} is occupied by a {} {}", side, piece_on(pos, to));
            }
            if capture && !theirs.contains(to) {
                if role == Role::Pawn {
                    return format!("{san} captures on {to}, but {to} is empty and en passant is not available there");
                }
                return format!("{san} captures on {to}, but {to} is empty");
            }
            if !capture && theirs.contains(to) {
                return format!(
                    "{to} holds a {} {}: a capture is written with x",
                    color_name(!pos.turn()),
                    piece_on(pos, to)
                );
            }
            // Pieces of this kind that could reach the square on an empty-ish
            // board with the real blockers, ignoring pins and checks.
            let movers: Vec<Square> = (pos.our(role))
                .into_iter()
                .filter(|&from| file.is_none_or(|f| f == from.file()) && rank.is_none_or(|r| r == from.rank()))
                .filter(|&from| reaches(pos, role, from, to, capture))
                .collect();
            let which = match (file, rank) {
                (None, None) => String::new(),
                _ => format!(
                    " from {}{}",
                    file.map(|f| f.char().to_string()).unwrap_or_default(),
                    rank.map(|r| r.char().to_string()).unwrap_or_default()
                ),
            };
            if movers.is_empty() {
                return format!("no {side} {}{which} can move to {to}", role_name(role));
            }
            let king_moves = role == Role::King;
            if pos.is_check() {
                return format!("the {side} king is in check and {san} does not get it out of check");
            }
            if king_moves {
                return format!("the king cannot move to {to}: the square is attacked");
            }
            let from = movers[0];
            format!("the {} on {from} is pinned: moving it would expose the {side} king to check", role_name(role))
        }
    }
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

fn castling(pos: &Chess, side: CastlingSide) -> String {
    let color = pos.turn();
    let name = color_name(color);
    let wing = if side == CastlingSide::KingSide { "kingside" } else { "queenside" };
    let Some(rook) = pos.castles().rook(color, side) else {
        return format!("{name} can no longer castle {wing}: the king or that rook has moved (or was captured)");
    };
    let Some(king) = pos.our(Role::King).first() else {
        return format!("{name} has no king to castle with");
    };
    if pos.is_check() {
        return format!("{name} cannot castle while in check");
    }
    let between = pos.castles().path(color, side);
    if (between & pos.board().occupied()).any() {
        let blockers: Vec<String> = (between & pos.board().occupied()).into_iter().map(|sq| sq.to_string()).collect();
        return format!(
            "{name} cannot castle {wing}: there are pieces between the king and the rook ({})",
            blockers.join(", ")
        );
    }
    let king_to = side.king_to(color);
    let occupied = pos.board().occupied() ^ Bitboard::from(king) ^ Bitboard::from(rook);
    for sq in attacks::between(king, king_to).with(king_to) {
        if pos.king_attackers(sq, !color, occupied).any() {
            let verb = if sq == king_to { "would land on" } else { "would pass through" };
            return format!("{name} cannot castle {wing}: the king {verb} {sq}, which is attacked");
        }
    }
    format!("{name} cannot castle {wing} here")
}

fn piece_on(pos: &Chess, sq: Square) -> &'static str {
    pos.board().role_at(sq).map_or("piece", role_name)
}

fn piece_letter(role: Role) -> String {
    match role {
        Role::Pawn => String::new(),
        role => role.upper_char().to_string(),
    }
}

fn role_name(role: Role) -> &'static str {
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
