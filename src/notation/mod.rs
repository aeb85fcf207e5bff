//! Moves in any notation (SAN, UCI, long algebraic): read from a line of
//! movetext, looked up in a position, and written back in each notation.
//!
//! Scripts mix notations: engines speak UCI, databases SAN, older books long
//! algebraic. A token is read as coordinates first (`g1f3`, `Ng1-f3`), whose
//! shapes are strict, and as SAN otherwise, so no token can mean two moves:
//! `e2e4` is both UCI and a (fully disambiguated) SAN pawn move, and both
//! name the same move.

pub mod explain;
pub mod resolve;

use std::fmt::{self, Write as _};

use shakmaty::{
    CastlingMode, Chess, Color, FromSetup, Move, Position, PositionError, Role, Square,
    fen::{Fen, ParseFenError},
    san::{San, SanPlus, Suffix},
    uci::UciMove,
};

use crate::report::{Code, Reason};

/// A notation moves are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Notation {
    /// Standard algebraic notation: `Nf3`, `exd5`, `O-O`, `e8=Q+`.
    San,
    /// The UCI protocol's coordinates: `g1f3`, `e7e8q`; castling as the
    /// king's move (`e1g1`), or as the king taking its own rook (`e1h1`) in
    /// Chess960.
    Uci,
    /// Long algebraic notation: `Ng1-f3`, `e4xd5`, `O-O`, `e7-e8=Q+`.
    Lan,
}

/// A move as written, before it is looked up in a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Written {
    /// SAN, including castling with zeros (`0-0`) and a promotion without
    /// `=` (`e8Q`).
    San(San),
    /// A move written as its squares: UCI or long algebraic.
    Coordinates(Coordinates),
}

/// A move written as its from and to squares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Coordinates {
    /// [`Notation::Uci`] or [`Notation::Lan`].
    pub notation: Notation,
    /// The piece named (long algebraic only; a pawn when no letter is given).
    pub role: Option<Role>,
    /// Where the piece stands.
    pub from: Square,
    /// Where it goes (for castling: the king's square, or its rook's).
    pub to: Square,
    /// Long algebraic only: written with `x` (true) or `-` (false).
    pub capture: Option<bool>,
    /// The promotion piece, if written.
    pub promotion: Option<Role>,
}

impl fmt::Display for Coordinates {
    /// The move in its notation, without a check suffix: `e7e8q`, `Ng1-f3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.notation != Notation::Lan {
            write!(f, "{}{}", self.from, self.to)?;
            return self.promotion.map_or(Ok(()), |p| write!(f, "{}", p.char()));
        }
        if let Some(role) = self.role.filter(|&role| role != Role::Pawn) {
            write!(f, "{}", role.upper_char())?;
        }
        write!(f, "{}{}{}", self.from, if self.capture == Some(true) { 'x' } else { '-' }, self.to)?;
        self.promotion.map_or(Ok(()), |p| write!(f, "={}", p.upper_char()))
    }
}

/// A token of a line of moves, once move numbers and NAGs are dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token<'a> {
    /// Something to read as a move (it may turn out not to be one).
    Move(&'a str),
    /// A game termination marker: `1-0`, `0-1`, `1/2-1/2` or `*`.
    Result(&'a str),
}

/// The move and result tokens of a line: move numbers (`12.`, `12...`, or
/// glued as in `12.e4`), NAGs (`$1`) and a separate `e.p.` are dropped.
pub fn tokens(line: &str) -> impl Iterator<Item = Token<'_>> {
    line.split_ascii_whitespace().filter_map(|word| {
        let word = strip_move_number(word);
        if word.is_empty() || word == "e.p." || is_nag(word) {
            None
        } else if matches!(word, "1-0" | "0-1" | "1/2-1/2" | "*") {
            Some(Token::Result(word))
        } else {
            Some(Token::Move(word))
        }
    })
}

/// `12.e4` is `e4`, `12...` is nothing; `0-0` and `1-0` have no dot and stay.
fn strip_move_number(word: &str) -> &str {
    let digits = word.bytes().take_while(u8::is_ascii_digit).count();
    match word[digits..].trim_start_matches('.') {
        rest if digits > 0 && rest.len() < word.len() - digits => rest,
        _ => word,
    }
}

fn is_nag(word: &str) -> bool {
    word.strip_prefix('$').is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Reads a move token in any notation; `None` when it is none of them.
/// Annotation glyphs (`!`, `?`, `!?`) are ignored; a check or mate suffix
/// is accepted but not checked.
pub fn parse(token: &str) -> Option<Written> {
    let token = token.trim_end_matches(['!', '?']).as_bytes();
    if token == b"0000" {
        return Some(Written::San(San::Null));
    }
    if let Some(c) = uci(token).or_else(|| lan(token)) {
        return Some(Written::Coordinates(c));
    }
    san(token).map(|san| Written::San(san.san))
}

/// Reads a token as SAN, also accepting castling with zeros (`0-0`) and a
/// promotion without `=` (`e8Q`, `dxe1n+`), as players and old exports write.
pub fn san(token: &[u8]) -> Option<SanPlus> {
    if let Ok(san) = SanPlus::from_ascii(token) {
        return Some(san);
    }
    if token.starts_with(b"0-0") {
        let letters: Vec<u8> = token.iter().map(|&b| if b == b'0' { b'O' } else { b }).collect();
        return SanPlus::from_ascii(&letters).ok();
    }
    // A pawn reaching the last rank, then a piece letter.
    let at = token.iter().position(|&b| b == b'1' || b == b'8')?;
    let (piece, rest) = token.get(at + 1..)?.split_first()?;
    if !matches!(piece, b'Q' | b'R' | b'B' | b'N' | b'q' | b'r' | b'b' | b'n') || !matches!(token[0], b'a'..=b'h') {
        return None;
    }
    let mut fixed = token[..=at].to_vec();
    fixed.push(b'=');
    fixed.push(piece.to_ascii_uppercase());
    fixed.extend_from_slice(rest);
    SanPlus::from_ascii(&fixed).ok()
}

/// `e2e4`, `e7e8q` (the promotion letter in either case).
fn uci(token: &[u8]) -> Option<Coordinates> {
    let (from, to, rest) = squares(token, false)?;
    let promotion = match rest {
        [] => None,
        [letter] => Some(promotion_role(*letter)?),
        _ => return None,
    };
    Some(Coordinates { notation: Notation::Uci, role: None, from, to, capture: None, promotion })
}

/// `e2-e4`, `Ng1-f3`, `Bf1xb5+`, `e7-e8=Q`, `e7xd8Q#`.
fn lan(token: &[u8]) -> Option<Coordinates> {
    let (role, token) = match token.split_first()? {
        (&letter @ (b'K' | b'Q' | b'R' | b'B' | b'N'), rest) => (Role::from_char(letter as char)?, rest),
        _ => (Role::Pawn, token),
    };
    let (from, to, rest) = squares(token, true)?;
    let capture = token[2] == b'x';
    let rest = rest.strip_suffix(b"+").or_else(|| rest.strip_suffix(b"#")).unwrap_or(rest);
    let promotion = match rest {
        [] => None,
        [b'=', letter] | [letter] if role == Role::Pawn => Some(promotion_role(*letter)?),
        _ => return None,
    };
    Some(Coordinates { notation: Notation::Lan, role: Some(role), from, to, capture: Some(capture), promotion })
}

/// Two squares at the start of `token`, with a `-` or `x` between them when
/// `separated`; and what follows.
fn squares(token: &[u8], separated: bool) -> Option<(Square, Square, &[u8])> {
    let from = Square::from_ascii(token.get(..2)?).ok()?;
    let token = if separated {
        match token.get(2)? {
            b'-' | b'x' => &token[3..],
            _ => return None,
        }
    } else {
        &token[2..]
    };
    let to = Square::from_ascii(token.get(..2)?).ok()?;
    Some((from, to, &token[2..]))
}

fn promotion_role(letter: u8) -> Option<Role> {
    match letter.to_ascii_lowercase() {
        b'q' => Some(Role::Queen),
        b'r' => Some(Role::Rook),
        b'b' => Some(Role::Bishop),
        b'n' => Some(Role::Knight),
        // Kept so that the error can say why a king is no promotion piece.
        b'k' => Some(Role::King),
        _ => None,
    }
}

/// Why a written move cannot be played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveError {
    /// `illegal-move`, `ambiguous-move`, `moves-after-end`, `null-move` or
    /// `invalid-san` (a token that is a move in no notation).
    pub code: Code,
    /// For `illegal-move`: the rule the move breaks.
    pub reason: Option<Reason>,
    /// A sentence a player understands.
    pub message: String,
}

impl Written {
    /// The legal move this names in `pos`, or why there is none.
    pub fn to_move(self, pos: &Chess) -> Result<Move, MoveError> {
        match self {
            Written::San(San::Null) => Err(MoveError {
                code: Code::NullMove,
                reason: None,
                message: "a null move (a pass) is not a move that can be played".to_owned(),
            }),
            Written::San(san) => {
                resolve::quick_move(pos, san).ok_or(()).or_else(|()| san.to_move(pos)).map_err(|err| {
                    let (code, reason, message) = explain::san_error(pos, san, &err);
                    MoveError { code, reason, message }
                })
            }
            Written::Coordinates(c) => {
                let uci = UciMove::Normal { from: c.from, to: c.to, promotion: c.promotion };
                match uci.to_move(pos) {
                    Ok(m)
                        if c.role.is_none_or(|role| role == m.role())
                            && c.capture.is_none_or(|x| x == m.is_capture()) =>
                    {
                        Ok(m)
                    }
                    _ => {
                        let (reason, message) = explain::coordinates_error(pos, &c);
                        Err(MoveError { code: Code::IllegalMove, reason: Some(reason), message })
                    }
                }
            }
        }
    }
}

/// The legal move `token` names in `pos`, or why there is none: not a move
/// in any notation, a move after the game ended, or an illegal one.
pub fn read_move(pos: &Chess, token: &str) -> Result<Move, MoveError> {
    let Some(written) = parse(token) else {
        return Err(MoveError {
            code: Code::InvalidSan,
            reason: None,
            message: format!("`{token}` is not a move in SAN, UCI or long algebraic notation"),
        });
    };
    written.to_move(pos).map_err(|err| {
        if pos.legal_moves().is_empty() {
            let end = if pos.is_check() { "checkmate" } else { "stalemate" };
            let message = format!("the game was already over ({end}) before this move");
            MoveError { code: Code::MovesAfterEnd, reason: None, message }
        } else {
            err
        }
    })
}

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

/// The decimal digits of `n`, written into `buffer`: `core::fmt` costs
/// more than the rest of a CSV row's number or a FEN's move counters.
pub(crate) fn digits(buffer: &mut [u8; 20], mut n: u64) -> &[u8] {
    let mut at = buffer.len();
    loop {
        at -= 1;
        buffer[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buffer[at..];
        }
    }
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
                San::from_move(pos, m).append_to_string(out);
            } else {
                write_lan(m, out);
            }
            pos.play_unchecked(m);
            if let Some(suffix) = suffix(pos) {
                out.push(suffix.char());
            }
        }
    }
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
        Move::Put { .. } => {
            out.extend_from_slice(m.to_uci(mode).to_string().as_bytes());
            return;
        }
    };
    out.extend_from_slice(&[
        b'a' + from.file() as u8,
        b'1' + from.rank() as u8,
        b'a' + to.file() as u8,
        b'1' + to.rank() as u8,
    ]);
    if let Some(role) = promotion {
        out.push(role.char() as u8);
    }
}

/// `+` or `#` after a move that gives check. Unlike
/// [`Suffix::from_position`], which looks for legal moves after every move,
/// this looks only when the king is in check (a third of SAN writing).
fn suffix(pos: &Chess) -> Option<Suffix> {
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
    use shakmaty::{Chess, Role, Square, san::San};

    use super::{Coordinates, Notation, Token, Written, move_number, parse, read_move, tokens, write_and_play};
    use crate::report::{Code, Reason};

    fn position(fen: &str) -> Chess {
        super::position(fen).unwrap_or_else(|err| panic!("{fen}: {err}"))
    }

    /// Plays `line` from `pos` and writes it in `notation`.
    fn convert(pos: &Chess, line: &str, notation: Notation) -> String {
        let mut pos = pos.clone();
        let mut out = Vec::new();
        for token in tokens(line) {
            let Token::Move(token) = token else { continue };
            let m = read_move(&pos, token).unwrap_or_else(|err| panic!("{token}: {}", err.message));
            let mut text = String::new();
            write_and_play(&mut pos, m, notation, &mut text);
            out.push(text);
        }
        out.join(" ")
    }

    #[test]
    fn the_fen_writer_writes_what_shakmaty_writes() {
        use shakmaty::{EnPassantMode, Position, fen::Fen};
        let starts = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "4k3/8/8/8/8/8/8/4KRR1 w F - 0 1",
            "rr2k3/8/8/8/8/8/8/RR2K3 w Bb - 7 60",
        ];
        // A fixed linear congruential sequence: the same playouts every run.
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let (mut positions, mut file_letters, mut en_passant) = (0, 0, 0);
        for start in starts {
            for _ in 0..40 {
                let mut pos = position(start);
                for _ in 0..150 {
                    let expected = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
                    assert_eq!(super::fen(&pos), expected);
                    let fields: Vec<&str> = expected.split(' ').collect();
                    positions += 1;
                    file_letters += usize::from(fields[2].bytes().any(|b| !b"KQkq-".contains(&b)));
                    en_passant += usize::from(fields[3] != "-");
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                    pos.play_unchecked(moves[(seed >> 33) as usize % moves.len()]);
                }
            }
        }
        assert!(positions > 10_000 && file_letters > 0 && en_passant > 0, "{positions} {file_letters} {en_passant}");
    }

    #[test]
    fn move_numbers_nags_and_results_are_told_apart_from_moves() {
        let got: Vec<Token<'_>> = tokens("1.e4 e5 2. Nf3 $1 2...Nc6 12... 0-0 e.p. 1/2-1/2 *").collect();
        let want = [
            Token::Move("e4"),
            Token::Move("e5"),
            Token::Move("Nf3"),
            Token::Move("Nc6"),
            Token::Move("0-0"),
            Token::Result("1/2-1/2"),
            Token::Result("*"),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn each_notation_reads_as_the_move_it_names() {
        let pawn = |from, to, promotion, notation, capture| Coordinates {
            notation,
            role: (notation == Notation::Lan).then_some(Role::Pawn),
            from,
            to,
            capture,
            promotion,
        };
        let cases = [
            ("e2e4", Written::Coordinates(pawn(Square::E2, Square::E4, None, Notation::Uci, None))),
            ("e7e8Q", Written::Coordinates(pawn(Square::E7, Square::E8, Some(Role::Queen), Notation::Uci, None))),
            ("e2-e4", Written::Coordinates(pawn(Square::E2, Square::E4, None, Notation::Lan, Some(false)))),
            (
                "e7xd8=N#",
                Written::Coordinates(pawn(Square::E7, Square::D8, Some(Role::Knight), Notation::Lan, Some(true))),
            ),
            (
                "Ng1-f3!?",
                Written::Coordinates(Coordinates {
                    notation: Notation::Lan,
                    role: Some(Role::Knight),
                    from: Square::G1,
                    to: Square::F3,
                    capture: Some(false),
                    promotion: None,
                }),
            ),
            ("0000", Written::San(San::Null)),
        ];
        for (token, want) in cases {
            assert_eq!(parse(token), Some(want), "{token}");
        }
        for san in ["Nf3", "exd5", "O-O-O+", "0-0", "e8=Q", "e8Q", "Nbd2", "Ng1f3"] {
            assert!(matches!(parse(san), Some(Written::San(_))), "{san} reads as SAN");
        }
        for junk in ["", "Xq7", "e2-e4-e5", "Nf3-", "e9e4", "Ng1-f3=Q", "e2e4qq", "1."] {
            assert_eq!(parse(junk), None, "{junk:?} is no move");
        }
    }

    #[test]
    fn mixed_notations_give_the_same_moves_in_every_notation() {
        let line = "1. e4 e7e5 2. Ng1-f3 Nb8c6 3. Bf1-b5? a7-a6 4. Bb5xc6 dxc6 5. 0-0 Bc8-g4 6. h2h3 h5";
        let start = Chess::default();
        assert_eq!(convert(&start, line, Notation::San), "e4 e5 Nf3 Nc6 Bb5 a6 Bxc6 dxc6 O-O Bg4 h3 h5");
        assert_eq!(convert(&start, line, Notation::Uci), "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5c6 d7c6 e1g1 c8g4 h2h3 h7h5");
        assert_eq!(
            convert(&start, line, Notation::Lan),
            "e2-e4 e7-e5 Ng1-f3 Nb8-c6 Bf1-b5 a7-a6 Bb5xc6 d7xc6 O-O Bc8-g4 h2-h3 h7-h5"
        );
    }

    #[test]
    fn lan_writes_checks_mates_promotions_and_en_passant() {
        let pos = position("4k3/1P6/8/3pP3/8/8/8/4K3 w - d6 0 1");
        assert_eq!(convert(&pos, "exd6 Kf8 b8=Q+", Notation::Lan), "e5xd6 Ke8-f8 b7-b8=Q+");
        let mate = position("6k1/5ppp/8/8/8/8/8/R3K3 w Q - 0 1");
        assert_eq!(convert(&mate, "Ra8#", Notation::Lan), "Ra1-a8#");
        assert_eq!(convert(&mate, "O-O-O", Notation::Lan), "O-O-O");
    }

    #[test]
    fn chess960_castling_reads_from_any_notation_and_writes_king_takes_rook_in_uci() {
        // Kings on f1/f8, rooks on a and h: RBBQNKNR with the knights gone.
        let pos = position("rbbq1k1r/pppppppp/8/8/8/8/PPPPPPPP/RBBQ1K1R w HAha - 0 1");
        for written in ["O-O", "0-0", "f1h1", "O-O+"] {
            assert_eq!(convert(&pos, written, Notation::Uci), "f1h1", "{written}");
            assert_eq!(convert(&pos, written, Notation::San), "O-O", "{written}");
        }
    }

    #[test]
    fn illegal_coordinates_are_explained_in_words() {
        let start = Chess::default();
        let cases = [
            ("e3e4", Reason::NoPieceReaches, "there is no piece on e3"),
            ("e7e5", Reason::NoPieceReaches, "e7 holds a Black pawn, but it is White's move"),
            ("Bg1-f3", Reason::NoPieceReaches, "g1 holds a White knight, not a bishop"),
            ("e2e5", Reason::NoPieceReaches, "the White pawn on e2 cannot move to e5"),
            ("g1e2", Reason::OwnPieceOnSquare, "e2 is occupied by a White pawn"),
            ("Ng1xf3", Reason::CaptureOfEmptySquare, "Ng1xf3 captures on f3, but f3 is empty"),
            (
                "e1g1",
                Reason::CastlingBlocked,
                "White cannot castle kingside: there are pieces between the king and the rook (f1, g1)",
            ),
        ];
        for (token, reason, message) in cases {
            let err = read_move(&start, token).expect_err(token);
            assert_eq!(
                (err.code, err.reason, err.message.as_str()),
                (Code::IllegalMove, Some(reason), message),
                "{token}"
            );
        }
        let promotion = position("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1");
        let cases = [
            ("e7e8", Reason::PromotionMissing, "a pawn reaching e8 must promote: write e7e8q (or r, b, n)"),
            ("e7-e8", Reason::PromotionMissing, "a pawn reaching e8 must promote: write e7-e8=Q (or =R, =B, =N)"),
            ("e7e8k", Reason::PromotionInvalid, "a pawn cannot promote to a king"),
        ];
        for (token, reason, message) in cases {
            let err = read_move(&promotion, token).expect_err(token);
            assert_eq!((err.reason, err.message.as_str()), (Some(reason), message), "{token}");
        }
        let capture = position("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1");
        let err = read_move(&capture, "e4-d5").expect_err("capture written with -");
        assert_eq!(err.reason, Some(Reason::CaptureNotMarked));
        assert_eq!(read_move(&capture, "e4xd5").map(|m| m.is_capture()), Ok(true));
    }

    #[test]
    fn san_errors_and_tokens_in_no_notation_are_reported() {
        let start = Chess::default();
        let err = read_move(&start, "Nf4").expect_err("no knight reaches f4");
        assert_eq!((err.code, err.reason), (Code::IllegalMove, Some(Reason::NoPieceReaches)));
        assert_eq!(err.message, "no White knight can move to f4");
        assert_eq!(read_move(&start, "Xq7").expect_err("junk").code, Code::InvalidSan);
        assert_eq!(read_move(&start, "--").expect_err("null").code, Code::NullMove);
        assert_eq!(read_move(&start, "0000").expect_err("null").code, Code::NullMove);
    }

    #[test]
    fn move_numbers_follow_the_side_to_move() {
        assert_eq!(move_number(&Chess::default()), "1.");
        assert_eq!(move_number(&position("4k3/8/8/8/8/8/8/4K3 b - - 0 37")), "37...");
    }
}
