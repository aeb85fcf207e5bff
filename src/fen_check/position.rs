//! Position defects, each explained: kings, pawns, material, checks,
//! castling rights and the en passant square.
//!
//! The rules are those shakmaty's `PositionErrorKinds` stand for, checked
//! one by one so that every defect is named, with the squares concerned.

use shakmaty::{Bitboard, Board, Color, File, Rank, Role, Square, attacks};

use super::{
    findings::{FenCode, Findings},
    syntax::{Castling, join_and},
};
use crate::notation::explain::role_name;

fn side(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn rank_name(rank: Rank) -> &'static str {
    ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth"][usize::from(rank)]
}

/// `the rook on e8`.
fn piece(board: &Board, square: Square) -> String {
    match board.role_at(square) {
        Some(role) => format!("the {} on {square}", role_name(role)),
        None => format!("the empty square {square}"),
    }
}

/// `a White knight` (`nothing` for an empty square).
fn piece_with_color(board: &Board, square: Square) -> String {
    match board.piece_at(square) {
        Some(p) => format!("a {} {}", side(p.color), role_name(p.role)),
        None => "nothing".to_owned(),
    }
}

fn pieces(board: &Board, squares: Bitboard) -> String {
    let names: Vec<String> = squares.into_iter().map(|sq| piece(board, sq)).collect();
    join_and(&names)
}

fn squares(squares: Bitboard) -> String {
    let names: Vec<String> = squares.into_iter().map(|sq| sq.to_string()).collect();
    join_and(&names)
}

fn plural(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Kings, pawns on the back ranks and material: nothing here depends on
/// the side to move.
pub(super) fn check_board(board: &Board, at: usize, findings: &mut Findings<'_>) {
    for color in Color::ALL {
        let kings = board.kings() & board.by_color(color);
        match kings.count() {
            0 => findings.error(
                FenCode::MissingKing,
                at,
                format!("{} has no king; each side has exactly one", side(color)),
            ),
            1 => {}
            n => findings.error(
                FenCode::TooManyKings,
                at,
                format!("{} has {n} kings (on {}); each side has exactly one", side(color), squares(kings)),
            ),
        }
    }
    for color in Color::ALL {
        let stranded = board.pawns() & board.by_color(color) & Bitboard::BACKRANKS;
        if stranded.any() {
            findings.error(
                FenCode::PawnOnBackRank,
                at,
                format!(
                    "{} has {} on {}; pawns never stand on the first or last rank (they start on their second \
                     rank and promote on reaching the last)",
                    side(color),
                    if stranded.more_than_one() { "pawns" } else { "a pawn" },
                    squares(stranded)
                ),
            );
        }
    }
    for color in Color::ALL {
        material(board, color, at, findings);
    }
}

/// At most 16 pieces, 8 pawns, and no more pieces beyond the starting set
/// than pawns missing (a second bishop on squares of one colour is such a
/// piece).
fn material(board: &Board, color: Color, at: usize, findings: &mut Findings<'_>) {
    let ours = board.by_color(color);
    let pawns = (board.pawns() & ours).count() as u32;
    // Most sides have no more of any piece than they start with: then with
    // one king and 8 pawns at most they have 16 pieces at most, and nothing
    // here can be wrong. Told without counting each kind (a count is a
    // dozen instructions without a popcount instruction).
    let bishops = board.bishops() & ours;
    if pawns <= 8
        && at_most(board.kings() & ours, 1)
        && at_most(board.queens() & ours, 1)
        && at_most(board.rooks() & ours, 2)
        && at_most(board.knights() & ours, 2)
        && at_most(bishops & Bitboard::LIGHT_SQUARES, 1)
        && at_most(bishops & Bitboard::DARK_SQUARES, 1)
    {
        return;
    }
    let name = side(color);
    let total = ours.count() as u32;
    if total > 16 {
        findings.error(
            FenCode::TooManyPieces,
            at,
            format!("{name} has {total} pieces; each side starts with 16 and can never gain any"),
        );
    }
    if pawns > 8 {
        findings.error(
            FenCode::TooManyPawns,
            at,
            format!("{name} has {pawns} pawns; each side starts with 8 and can never gain any"),
        );
    }
    let count = |bb: Bitboard| (bb & ours).count() as u32;
    let bishops = board.bishops();
    let extras = [
        (count(board.queens()).saturating_sub(1), "queen", "queens"),
        (count(board.rooks()).saturating_sub(2), "rook", "rooks"),
        (count(board.knights()).saturating_sub(2), "knight", "knights"),
        (count(bishops & Bitboard::LIGHT_SQUARES).saturating_sub(1), "light-squared bishop", "light-squared bishops"),
        (count(bishops & Bitboard::DARK_SQUARES).saturating_sub(1), "dark-squared bishop", "dark-squared bishops"),
    ];
    let promoted: u32 = extras.iter().map(|(n, _, _)| n).sum();
    let missing = 8u32.saturating_sub(pawns);
    if promoted > missing {
        let list: Vec<String> =
            extras.iter().filter(|(n, _, _)| *n > 0).map(|&(n, one, many)| plural(n, one, many)).collect();
        let can = match missing {
            0 => "none of its pawns can have promoted".to_owned(),
            n => format!("only {} can have promoted", plural(n, "pawn", "pawns")),
        };
        findings.error(
            FenCode::TooManyPromotedPieces,
            at,
            format!(
                "{name} has {} more than its starting set, which only promotions can give, but with {} on the \
                 board {can}",
                join_and(&list),
                plural(pawns, "pawn", "pawns"),
            ),
        );
    }
}

/// Whether `squares` has at most `n` squares: each step takes the lowest
/// one away.
fn at_most(squares: Bitboard, n: u32) -> bool {
    (0..n).fold(squares.0, |rest, _| rest & rest.wrapping_sub(1)) == 0
}

/// The side not to move in check; checks that no last move can have given.
pub(super) fn check_checks(board: &Board, turn: Color, ep: Option<Square>, at: usize, findings: &mut Findings<'_>) {
    check_opposite_check(board, turn, at, findings);
    let Some(king) = board.king_of(turn) else { return };
    let checkers = board.attacks_to(king, !turn, board.occupied());
    let count = checkers.count();
    if count > 2 {
        findings.error(
            FenCode::TooManyCheckers,
            at,
            format!(
                "{} is in check from {count} pieces ({}); a move gives check with two pieces at most",
                king_on(turn, king),
                pieces(board, checkers)
            ),
        );
        return;
    }
    if let Some(message) = impossible_check(board, turn, ep, king, checkers) {
        findings.error(FenCode::ImpossibleCheck, at, message);
        return;
    }
    let steppers = checkers & board.steppers();
    if steppers.more_than_one() {
        findings.error(
            FenCode::ImpossibleCheck,
            at,
            format!(
                "{} is in check from {}: a move gives check with one knight or pawn at most (a second check can \
             only be discovered, by a bishop, rook or queen)",
                king_on(turn, king),
                pieces(board, steppers)
            ),
        );
    }
}

/// `White's king on e1`.
fn king_on(color: Color, king: Square) -> String {
    format!("{}'s king on {king}", side(color))
}

/// The king of the side not to move in check, which the move just played cannot have left.
fn check_opposite_check(board: &Board, turn: Color, at: usize, findings: &mut Findings<'_>) {
    let them = !turn;
    let Some(their_king) = board.king_of(them) else { return };
    let attackers = board.attacks_to(their_king, turn, board.occupied());
    if attackers.any() {
        findings.error(
            FenCode::OppositeCheck,
            at,
            format!(
                "{}'s king on {their_king} is in check from {}, but it is {}'s turn: the side that has just \
                 moved cannot have left its king in check",
                side(them),
                pieces(board, attackers),
                side(turn)
            ),
        );
    }
}

/// Why the (at most two) `checkers` cannot all come from the last move, if they cannot.
fn impossible_check(
    board: &Board,
    turn: Color,
    ep: Option<Square>,
    king: Square,
    checkers: Bitboard,
) -> Option<String> {
    if let Some(ep) = ep.filter(|&ep| en_passant_defects(board, turn, ep).is_empty()) {
        return impossible_after_double_step(board, turn, ep, king, checkers);
    }
    let (2, Some(a), Some(b)) = (checkers.count(), checkers.first(), checkers.last()) else { return None };
    attacks::aligned(a, king, b).then(|| {
        format!(
            "{} is in check from {}, which stand on one line through the king: no single move can give both \
             checks",
            king_on(turn, king),
            pieces(board, checkers)
        )
    })
}

/// Why the `checkers` cannot come from the double step that `ep` names, if they cannot.
fn impossible_after_double_step(
    board: &Board,
    turn: Color,
    ep: Square,
    king: Square,
    checkers: Bitboard,
) -> Option<String> {
    let them = !turn;
    let (from, to) = double_step(turn, ep);
    let count = checkers.count();
    if count == 2 {
        Some(format!(
            "{} is in check from {}, but the en passant square {ep} says {}'s last move was the double \
             step {from}-{to}, which cannot give two checks",
            king_on(turn, king),
            pieces(board, checkers),
            side(them)
        ))
    } else if count == 1
        && checkers.first() != Some(to)
        && board.attacks_to(king, them, board.occupied().without(to).with(from)).any()
    {
        Some(format!(
            "{} is in check from {}, but the en passant square {ep} says {}'s last move was {from}-{to}, \
             and the king was in check before that move already",
            king_on(turn, king),
            pieces(board, checkers),
            side(them)
        ))
    } else {
        None
    }
}

/// Where the pawn that skipped `ep` came from and went to.
fn double_step(turn: Color, ep: Square) -> (Square, Square) {
    let file = ep.file();
    match turn {
        Color::White => (Square::from_coords(file, Rank::Seventh), Square::from_coords(file, Rank::Fifth)),
        Color::Black => (Square::from_coords(file, Rank::Second), Square::from_coords(file, Rank::Fourth)),
    }
}

/// Why `ep` cannot be the square a pawn of the side not to move has just
/// skipped (empty when it can be).
fn en_passant_defects(board: &Board, turn: Color, ep: Square) -> Vec<(FenCode, String)> {
    let them = !turn;
    let rank = turn.relative_rank(Rank::Sixth);
    if ep.rank() != rank {
        return vec![(
            FenCode::EnPassantWrongRank,
            format!(
                "with {} to move the en passant square is on the {} rank (the square a {} pawn has just skipped), \
                 but {ep} is on the {}",
                side(turn),
                rank_name(rank),
                side(them),
                rank_name(ep.rank())
            ),
        )];
    }
    let (from, to) = double_step(turn, ep);
    let mut defects = Vec::new();
    if board.piece_at(to) != Some(Role::Pawn.of(them)) {
        let there = match board.piece_at(to) {
            None => format!("{to} is empty"),
            Some(_) => format!("{to} holds {}", piece_with_color(board, to)),
        };
        defects.push((
            FenCode::EnPassantNoPawn,
            format!(
                "the en passant square {ep} says a {} pawn has just moved from {from} to {to}, but {there}",
                side(them)
            ),
        ));
    }
    if board.occupied().contains(ep) {
        defects.push((
            FenCode::EnPassantSquareOccupied,
            format!(
                "the en passant square {ep} holds {}, but a pawn that has just skipped it left it empty",
                piece_with_color(board, ep)
            ),
        ));
    }
    if board.occupied().contains(from) {
        defects.push((
            FenCode::EnPassantSquareOccupied,
            format!(
                "{from} holds {}, but the en passant square {ep} says a {} pawn has just left it",
                piece_with_color(board, from),
                side(them)
            ),
        ));
    }
    defects
}

pub(super) fn check_en_passant(board: &Board, turn: Color, ep: Square, at: usize, findings: &mut Findings<'_>) {
    for (code, message) in en_passant_defects(board, turn, ep) {
        findings.error(code, at, message);
    }
}

/// Every castling letter needs its king on its first rank and its rook on
/// the first rank on the right wing: `K`/`Q` the outermost rook on that side
/// (X-FEN), a file letter the rook on that file (Shredder-FEN). A king off
/// the e-file or a rook off a corner makes it Chess960 castling.
pub(super) fn check_castling(board: &Board, castling: &Castling<'_>, findings: &mut Findings<'_>) {
    for color in Color::ALL {
        let home = Home::of(board, color);
        // The rook already claimed on each wing (queenside, kingside).
        let mut wings: [Option<(u8, Square)>; 2] = [None, None];
        for (letter, at) in castling.letters().filter(|(l, _)| l.is_ascii_uppercase() == (color == Color::White)) {
            if let Err(message) = castling_right(board, &home, &mut wings, letter) {
                findings.error(FenCode::CastlingRights, at, message);
            }
        }
    }
}

/// One side's king and rooks, as its castling rights see them.
struct Home {
    back: Rank,
    kings: Bitboard,
    /// The side's rooks on its back rank.
    rooks: Bitboard,
    name: &'static str,
    /// The back rank in words.
    rank: &'static str,
}

impl Home {
    /// The home of `color` on `board`.
    fn of(board: &Board, color: Color) -> Home {
        let back = color.backrank();
        Home {
            back,
            kings: board.kings() & board.by_color(color),
            rooks: board.rooks() & board.by_color(color) & back,
            name: side(color),
            rank: if color == Color::White { "first" } else { "eighth" },
        }
    }

    /// The square of the file letter `file` (lower case) on the back rank.
    fn square(&self, file: u8) -> Square {
        Square::from_coords(File::new(u32::from(file - b'a')), self.back)
    }
}

/// One castling letter: its king, its rook, and a wing no other letter claimed in `wings`.
fn castling_right(board: &Board, home: &Home, wings: &mut [Option<(u8, Square)>; 2], letter: u8) -> Result<(), String> {
    let king = castling_king(home, letter)?;
    let rook = castling_rook(home, letter, king).ok_or_else(|| missing_rook(board, home, letter, king))?;
    claim_wing(home, wings, letter, king, rook)
}

/// The king a castling letter castles with: the side's only king, on its back rank.
fn castling_king(home: &Home, letter: u8) -> Result<Square, String> {
    let Home { back, kings, name, rank, .. } = *home;
    let right = letter as char;
    match kings.single_square() {
        None if kings.is_empty() => Err(format!("castling right `{right}`: {name} has no king")),
        None => Err(format!("castling right `{right}`: {name} has more than one king")),
        Some(king) if king.rank() != back => Err(format!(
            "castling right `{right}`: the {name} king is on {king}, off the {rank} rank, so it has \
             moved"
        )),
        Some(king) => Ok(king),
    }
}

/// The rook a castling letter names, if the side has it.
fn castling_rook(home: &Home, letter: u8, king: Square) -> Option<Square> {
    let rooks = home.rooks;
    match letter.to_ascii_lowercase() {
        b'k' => rooks.into_iter().rfind(|r| r.file() > king.file()),
        b'q' => rooks.into_iter().find(|r| r.file() < king.file()),
        file => {
            let square = home.square(file);
            rooks.contains(square).then_some(square)
        }
    }
}

/// Why there is no rook for a castling letter.
fn missing_rook(board: &Board, home: &Home, letter: u8, king: Square) -> String {
    let Home { back, name, rank, .. } = *home;
    let right = letter as char;
    match letter.to_ascii_lowercase() {
        b'k' | b'q' => {
            let (wing, corner, hand) = if letter.eq_ignore_ascii_case(&b'k') {
                ("kingside", File::H, "right")
            } else {
                ("queenside", File::A, "left")
            };
            format!(
                "castling right `{right}` ({wing}) needs a {name} rook on the {rank} rank to the {hand} \
                 of the king on {king} ({} in standard chess), and there is none",
                Square::from_coords(corner, back)
            )
        }
        file => {
            let square = home.square(file);
            if square == king {
                format!("castling right `{right}` names {square}, the square of the {name} king, not of a rook")
            } else {
                let there = match board.piece_at(square) {
                    None => format!("{square} is empty"),
                    Some(_) => format!("{square} holds {}", piece_with_color(board, square)),
                };
                format!("castling right `{right}` needs a {name} rook on {square}, but {there}")
            }
        }
    }
}

/// Claims the wing of `rook` for `letter`, unless another letter of the side has it already.
fn claim_wing(
    home: &Home,
    wings: &mut [Option<(u8, Square)>; 2],
    letter: u8,
    king: Square,
    rook: Square,
) -> Result<(), String> {
    let (name, right) = (home.name, letter as char);
    let wing = usize::from(rook.file() > king.file());
    match wings[wing] {
        Some((other, other_rook)) if other_rook == rook => {
            Err(format!("castling rights `{}` and `{right}` both name the {name} rook on {rook}", other as char))
        }
        Some((other, other_rook)) => Err(format!(
            "castling rights `{}` ({other_rook}) and `{right}` ({rook}) are both {name} {} rights: a \
             side castles once on each wing",
            other as char,
            if wing == 1 { "kingside" } else { "queenside" }
        )),
        None => {
            wings[wing] = Some((letter, rook));
            Ok(())
        }
    }
}
