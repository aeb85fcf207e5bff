//! Reading a move token in any notation (SAN, UCI, long algebraic), before
//! any position is known.

use std::fmt;

use shakmaty::{
    CastlingSide, File, Rank, Role, Square,
    san::{San, SanPlus, Suffix},
};

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
/// glued as in `12.e4`), NAGs (`$1`) and a separate `e.p.` or `ep` are
/// dropped, as the movetext reader drops them.
pub fn tokens(line: &str) -> impl Iterator<Item = Token<'_>> {
    line.split_ascii_whitespace().filter_map(|word| {
        let word = drop_move_number(word);
        if word.is_empty() || matches!(word, "e.p." | "ep") || is_nag(word) {
            None
        } else if matches!(word, "1-0" | "0-1" | "1/2-1/2" | "*") {
            Some(Token::Result(word))
        } else {
            Some(Token::Move(word))
        }
    })
}

/// `12.e4` is `e4`, `12...` is nothing; `0-0` and `1-0` have no dot and stay.
fn drop_move_number(word: &str) -> &str {
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
    plain_san(token).or_else(|| repaired_san(token))
}

/// Reads a token as SAN exactly as `SanPlus::from_ascii` does: the shapes
/// nearly every move is written in (`e4`, `exd5`, `Nf3`, `Nxe5`, `Nbd2`,
/// `R1xe2`, `O-O`, `e8=Q`, with `+` or `#`) are read here, in a fraction of
/// the instructions; any other token goes to shakmaty.
#[inline(always)]
pub(crate) fn plain_san(token: &[u8]) -> Option<SanPlus> {
    // The suffix is looked up, not branched on, as the shape is below.
    let suffix = token.last().and_then(|&last| SUFFIXES[usize::from(last)]);
    let body = &token[..token.len() - usize::from(suffix.is_some())];
    match flat_san(body) {
        Some(san) => Some(SanPlus { san, suffix }),
        None => rare_plain_san(body, suffix, token),
    }
}

/// [`plain_san`] for any shape but those [`flat_san`] reads: out of line,
/// so that the common shapes' path stays short where it is inlined.
#[inline(never)]
fn rare_plain_san(body: &[u8], suffix: Option<Suffix>, token: &[u8]) -> Option<SanPlus> {
    match promotion_or_castling(body) {
        Some(san) => Some(SanPlus { san, suffix }),
        None => SanPlus::from_ascii(token).ok(),
    }
}

/// The check or mate suffix a byte is, by byte.
static SUFFIXES: [Option<Suffix>; 256] = {
    let mut suffixes = [None; 256];
    suffixes[b'+' as usize] = Some(Suffix::Check);
    suffixes[b'#' as usize] = Some(Suffix::Checkmate);
    suffixes
};

/// By byte: the piece a SAN letter names (a pawn for any other byte), and
/// the file or rank a letter or digit names.
static ROLES: [Role; 256] = {
    let mut roles = [Role::Pawn; 256];
    roles[b'N' as usize] = Role::Knight;
    roles[b'B' as usize] = Role::Bishop;
    roles[b'R' as usize] = Role::Rook;
    roles[b'Q' as usize] = Role::Queen;
    roles[b'K' as usize] = Role::King;
    roles
};
static FILES: [Option<File>; 256] = eight_from(b'a', File::ALL);
static RANKS: [Option<Rank>; 256] = eight_from(b'1', Rank::ALL);

/// A table by byte of `all`, the first at byte `first`.
const fn eight_from<T: Copy>(first: u8, all: [T; 8]) -> [Option<T>; 256] {
    let mut table = [None; 256];
    let mut i = 0;
    while i < 8 {
        table[first as usize + i] = Some(all[i]);
        i += 1;
    }
    table
}

/// What a byte before the target square of a SAN move can be, for
/// [`SHAPES`]: anything else, a file, a rank, a piece letter, `x`.
const OTHER: usize = 0;
const FILE: usize = 1;
const RANK: usize = 2;
const PIECE: usize = 3;
const TAKES: usize = 4;

static CLASSES: [u8; 256] = {
    let mut classes = [OTHER as u8; 256];
    let mut b = 0;
    while b < 256 {
        classes[b] = match b as u8 {
            b'a'..=b'h' => FILE as u8,
            b'1'..=b'8' => RANK as u8,
            b'N' | b'B' | b'R' | b'Q' | b'K' => PIECE as u8,
            b'x' => TAKES as u8,
            _ => OTHER as u8,
        };
        b += 1;
    }
    classes
};

/// [`SHAPES`] entries: the bytes fit a shape, and which.
const FITS: u8 = 1;
const CAPTURE: u8 = 2;
/// A pawn capture: the first byte is the pawn's file.
const PAWN_FILE: u8 = 4;
/// The second byte is a file or rank the piece comes from.
const FROM_SECOND: u8 = 8;

/// What the bytes before the target square say, by their count (0 to 3)
/// and the classes of the first three bytes of the token (the target
/// square's among them when fewer come before it).
static SHAPES: [u8; 1 << 11] = {
    let mut shapes = [0; 1 << 11];
    let mut at = 0;
    while at < 1 << 11 {
        let (before, first, second, third) = (at & 3, at >> 2 & 7, at >> 5 & 7, at >> 8 & 7);
        let from = second == FILE || second == RANK;
        shapes[at] = match before {
            0 => FITS,
            1 if first == PIECE => FITS,
            2 if second == TAKES && first == PIECE => FITS | CAPTURE,
            2 if second == TAKES && first == FILE => FITS | CAPTURE | PAWN_FILE,
            2 if first == PIECE && from => FITS | FROM_SECOND,
            3 if first == PIECE && from && third == TAKES => FITS | CAPTURE | FROM_SECOND,
            _ => 0,
        };
        at += 1;
    }
    shapes
};

/// The SAN `body` (without its suffix) spells when it is one of the shapes
/// ending in the target square (`e4`, `Nf3`, `exd5`, `Nxe5`, `Nbd2`,
/// `R1xe2`): the shape is looked up in a table rather than found by
/// branching on the token's length and bytes. Which shape comes next in a
/// game is anyone's guess, so those branches were mispredicted at nearly
/// every move, and cost more time than all of the reading besides.
#[inline(always)]
fn flat_san(body: &[u8]) -> Option<San> {
    let len = body.len();
    if !(2..=5).contains(&len) {
        return None;
    }
    let (first, second, third) = (body[0], body[1], body[2.min(len - 1)]);
    let class = |b: u8| usize::from(CLASSES[usize::from(b)]);
    let shape = SHAPES[(len - 2) | class(first) << 2 | class(second) << 5 | class(third) << 8];
    let (to_file, to_rank) = (body[len - 2].wrapping_sub(b'a'), body[len - 1].wrapping_sub(b'1'));
    if shape & FITS == 0 || (to_file | to_rank) >= 8 {
        return None;
    }
    let from = if shape & FROM_SECOND != 0 { second } else { 0 };
    let file_from = if shape & PAWN_FILE != 0 { first } else { from };
    Some(San::Normal {
        role: ROLES[usize::from(first)],
        file: FILES[usize::from(file_from)],
        rank: RANKS[usize::from(from)],
        capture: shape & CAPTURE != 0,
        to: Square::new(u32::from(to_file) | u32::from(to_rank) << 3),
        promotion: None,
    })
}

/// The SAN `body` (without its suffix) spells when it is a promotion or
/// castling, the common shapes [`flat_san`] leaves; `None` for any other
/// (which may still be SAN).
#[inline(always)]
fn promotion_or_castling(body: &[u8]) -> Option<San> {
    let square = |f: u8, r: u8| Some(Square::from_coords(FILES[usize::from(f)]?, RANKS[usize::from(r)]?));
    let promotion = |p: u8| Some(ROLES[usize::from(p)]).filter(|&p| !matches!(p, Role::Pawn | Role::King));
    let pawn =
        |file, capture, to, promotion| San::Normal { role: Role::Pawn, file, rank: None, capture, to, promotion };
    Some(match *body {
        [f, r, b'=', p] => pawn(None, false, square(f, r)?, Some(promotion(p)?)),
        [from, b'x', f, r, b'=', p] => pawn(Some(FILES[usize::from(from)]?), true, square(f, r)?, Some(promotion(p)?)),
        [b'O', b'-', b'O'] => San::Castle(CastlingSide::KingSide),
        [b'O', b'-', b'O', b'-', b'O'] => San::Castle(CastlingSide::QueenSide),
        _ => return None,
    })
}

/// [`san`] for a token that is not plain SAN: castling with zeros or in
/// lowercase (`0-0`, `o-o`), a promotion without `=` (`e8Q`), `++` for
/// mate, or long algebraic (`e2-e4`, `Ng1-f3`), read as the fully
/// disambiguated SAN move it names.
pub(crate) fn repaired_san(token: &[u8]) -> Option<SanPlus> {
    if let Some(capture) = en_passant_capture(token) {
        return Some(capture);
    }
    if token == b"0000" {
        // The null move of UCI, which python-chess also reads in SAN.
        return Some(SanPlus { san: San::Null, suffix: None });
    }
    if let Some(mate) = token.strip_suffix(b"++") {
        let mut fixed = mate.to_vec();
        fixed.push(b'#');
        return san(&fixed).filter(|san| san.suffix == Some(shakmaty::san::Suffix::Checkmate));
    }
    if token.starts_with(b"0-0") || token.starts_with(b"o-o") {
        let letters: Vec<u8> = token.iter().map(|&b| if matches!(b, b'0' | b'o') { b'O' } else { b }).collect();
        return SanPlus::from_ascii(&letters).ok();
    }
    if let Some(c) = lan(token) {
        let suffix = match token.last() {
            Some(b'+') => Some(shakmaty::san::Suffix::Check),
            Some(b'#') => Some(shakmaty::san::Suffix::Checkmate),
            _ => None,
        };
        let san = San::Normal {
            role: c.role.unwrap_or(Role::Pawn),
            file: Some(c.from.file()),
            rank: Some(c.from.rank()),
            capture: c.capture == Some(true),
            to: c.to,
            promotion: c.promotion,
        };
        return Some(SanPlus { san, suffix });
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

/// A pawn capture with an en passant mark glued to it (`exd6ep`,
/// `exd6e.p.`), read as the capture alone.
fn en_passant_capture(token: &[u8]) -> Option<SanPlus> {
    let capture = token.strip_suffix(b"ep").or_else(|| token.strip_suffix(b"e.p."))?;
    san(capture).filter(|c| matches!(c.san, San::Normal { role: Role::Pawn, file: Some(_), .. }))
}

/// What a token [`repaired_san`] reads is written in, when that is a
/// notation other than SAN worth a `non-san-move` warning (castling with
/// zeros and a promotion without `=` are only `--lint` findings).
pub(crate) fn non_san_notation(token: &[u8]) -> Option<&'static str> {
    if en_passant_capture(token).is_some() {
        Some("marks an en passant capture, which SAN writes as the capture alone")
    } else if token.ends_with(b"++") {
        Some("writes mate as `++`, which SAN writes `#`")
    } else if token.starts_with(b"o-o") {
        Some("writes castling in lowercase, which SAN writes `O-O`")
    } else if lan(token).is_some() {
        Some("is long algebraic notation, not SAN")
    } else {
        None
    }
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

/// Reads the token at `offset` as a move, including an `e.p.` glued to a
/// capture (`exd6e.p.`, which tokenizes as `exd6e`, `p`).
pub(crate) fn read_move_at(bytes: &[u8], offset: usize, len: usize) -> Option<SanPlus> {
    match glued_en_passant(bytes, offset, len) {
        Some(capture) => read_move_token(capture),
        None => read_move_token(&bytes[offset..offset + len]),
    }
}

/// The capture before an `e.p.` glued to it (`exd6` of `exd6e.p.`).
pub(crate) fn glued_en_passant(bytes: &[u8], offset: usize, len: usize) -> Option<&[u8]> {
    let capture = bytes[offset..offset + len].strip_suffix(b"e")?;
    bytes[offset + len..].starts_with(b".p.").then_some(capture)
}

/// Reads a movetext token as a move: plain SAN, castling with zeros (which
/// pgn-reader reads), or a promotion without `=` (`e8Q`), which pgn-reader
/// skips but players and old exports write.
pub(crate) fn read_move_token(raw: &[u8]) -> Option<SanPlus> {
    san(strip_move_number(raw))
}

/// The part of a movetext token after a glued move number (`12Nf3` ->
/// `Nf3`): PGN tokens end at a `.`, so the number is digits alone.
#[inline]
pub(crate) fn strip_move_number(token: &[u8]) -> &[u8] {
    // Most tokens start with a letter: told by their first byte (`--lint`
    // asks for every move).
    if !token.first().is_some_and(u8::is_ascii_digit) || token.starts_with(b"0-0") {
        return token;
    }
    let digits = token.iter().take_while(|b| b.is_ascii_digit()).count();
    &token[digits..]
}

#[cfg(test)]
mod tests {
    use shakmaty::san::SanPlus;

    use crate::test_rng::Rng;

    #[test]
    fn a_glued_move_number_is_stripped_and_castling_with_zeros_is_not() {
        for (token, san) in [
            ("e4", "e4"),
            ("12Nf3", "Nf3"),
            ("0-0", "0-0"),
            ("0-0-0+", "0-0-0+"),
            ("123", ""),
            ("", ""),
            ("O-O", "O-O"),
        ] {
            assert_eq!(super::strip_move_number(token.as_bytes()), san.as_bytes(), "{token}");
        }
    }

    #[test]
    fn the_common_shapes_read_as_shakmaty_reads_them() {
        const ALPHABET: &[u8] = b"abdh148NBRQKPx-O=+#0Z@qi";
        let same = |token: &[u8]| {
            assert_eq!(super::plain_san(token), SanPlus::from_ascii(token).ok(), "{}", String::from_utf8_lossy(token));
        };
        let mut token = Vec::new();
        // Every token of up to four of these bytes...
        let mut stack = vec![Vec::new()];
        while let Some(prefix) = stack.pop() {
            same(&prefix);
            if prefix.len() < 4 {
                for &b in ALPHABET {
                    let mut longer = prefix.clone();
                    longer.push(b);
                    stack.push(longer);
                }
            }
        }
        // ... and longer ones at random, half of them made of move shapes.
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        const PARTS: &[&[u8]] = &[b"N", b"e", b"x", b"d4", b"=Q", b"=K", b"+", b"#", b"O-O", b"-O", b"1", b"b"];
        for round in 0..300_000 {
            token.clear();
            for _ in 0..2 + rng.below(5) {
                if round % 2 == 0 {
                    token.push(ALPHABET[rng.below(ALPHABET.len())]);
                } else {
                    token.extend_from_slice(PARTS[rng.below(PARTS.len())]);
                }
            }
            same(&token);
        }
    }

    #[test]
    fn promotions_without_equals_and_castling_with_zeros_read_as_san() {
        let read = |token: &[u8]| super::read_move_token(token).map(|san| san.to_string());
        assert_eq!(read(b"e8Q").as_deref(), Some("e8=Q"));
        assert_eq!(read(b"dxe1n+").as_deref(), Some("dxe1=N+"));
        assert_eq!(read(b"0-0-0#").as_deref(), Some("O-O-O#"));
        assert_eq!(read(b"Nf3").as_deref(), Some("Nf3"));
        assert_eq!(read(b"e8X"), None);
        assert_eq!(read(b"Ke8Q"), None);
        assert_eq!(read(b"p"), None);
    }

    #[test]
    fn long_algebraic_lowercase_castling_and_double_plus_read_as_the_san_they_name() {
        let read = |token: &[u8]| super::read_move_token(token).map(|san| san.to_string());
        assert_eq!(read(b"e2-e4").as_deref(), Some("e2e4"));
        assert_eq!(read(b"Ng1-f3").as_deref(), Some("Ng1f3"));
        assert_eq!(read(b"e4xd5").as_deref(), Some("e4xd5"));
        assert_eq!(read(b"e7-e8=Q+").as_deref(), Some("e7e8=Q+"));
        assert_eq!(read(b"o-o").as_deref(), Some("O-O"));
        assert_eq!(read(b"o-o-o+").as_deref(), Some("O-O-O+"));
        assert_eq!(read(b"Qxf7++").as_deref(), Some("Qxf7#"));
        assert_eq!(read(b"Qxf7+++"), None);
        assert_eq!(read(b"e2-e9"), None);
        let note = super::non_san_notation;
        assert_eq!(note(b"Ng1-f3"), Some("is long algebraic notation, not SAN"));
        assert_eq!(note(b"0-0"), None);
        assert_eq!(note(b"e8Q"), None);
    }

    #[test]
    fn an_en_passant_suffix_glued_to_its_capture_reads_as_the_capture() {
        let text = b"exd6e.p. e6";
        assert_eq!(super::read_move_at(text, 0, 5).map(|san| san.to_string()).as_deref(), Some("exd6"));
        assert_eq!(super::read_move_at(b"exd6e f5", 0, 5), None);
    }
}
