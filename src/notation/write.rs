//! Writing moves in each notation, and move numbers.

use std::fmt::Write as _;

use shakmaty::{
    CastlingMode, CastlingSide, Chess, Color, Move, Position, Role, Square,
    san::{San, Suffix},
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

/// The SAN of `m` (legal in `pos`) with its check mark, as the bytes a
/// writer copies, `m` then played on `pos`: [`write_and_play`] in SAN
/// without the general formatter (a fifth of writing a game's SAN).
pub fn san_and_play(pos: &mut Chess, m: Move) -> SanText {
    let san = move_san(pos, m);
    pos.play_unchecked(m);
    SanText::new(san, check_suffix(pos))
}

/// Appends `san` as shakmaty writes it (`Nbxd7`, `e8=Q`, `O-O-O`, `--`).
pub fn push_san(san: San, out: &mut Vec<u8>) {
    let (bytes, len) = san_bytes(san);
    push_short(&bytes, len, out);
}

/// The digits of `n`, under 1000, as the low bytes of a word, and how
/// many: a move's number or a ply, shifted into a piece of fixed size.
pub(crate) fn short_digits(n: u32) -> (u32, usize) {
    let digit = |d: u32| u32::from(b'0') + d;
    match n {
        0..10 => (digit(n), 1),
        10..100 => (digit(n / 10) | digit(n % 10) << 8, 2),
        _ => (digit(n / 100) | digit(n / 10 % 10) << 8 | digit(n % 10) << 16, 3),
    }
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
fn san_bytes(san: San) -> ([u8; 8], usize) {
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

/// A move's SAN with its check mark (`Nbxd7+`) as the bytes a writer
/// copies, in one word: first byte lowest, zeros after. Kept by the
/// checker for the writers, which then copy a word where they would work
/// out the text of each move again. No SAN with its mark is longer than
/// seven bytes (`Qa1xb2#`, `exd8=Q#`, `O-O-O#`), so a zero ends it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct SanText(u64);

impl SanText {
    /// `san` with `suffix` after it.
    #[inline]
    pub fn new(san: San, suffix: Option<Suffix>) -> SanText {
        let (bytes, _) = san_bytes(san);
        SanText(u64::from_le_bytes(bytes)).with_suffix(suffix)
    }

    /// The text with `suffix` after it.
    #[inline]
    pub fn with_suffix(self, suffix: Option<Suffix>) -> SanText {
        SanText(self.0 | suffix.map_or(0, |suffix| u64::from(suffix.char() as u8) << (8 * self.len())))
    }

    /// The bytes, zeros after the text.
    #[inline]
    pub fn bytes(self) -> [u8; 8] {
        self.0.to_le_bytes()
    }

    /// The bytes as one word, the first in its low byte, zeros after the
    /// last: what a writer shifts into a larger piece.
    #[inline]
    pub fn word(self) -> u64 {
        self.0
    }

    /// The length of the text in bytes.
    #[inline]
    pub fn len(self) -> usize {
        8 - (self.0.leading_zeros() / 8) as usize
    }

    /// Whether there is no text (no SAN is empty: only `SanText::default`).
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Appends the text.
    #[inline]
    pub fn push(self, out: &mut Vec<u8>) {
        push_short(&self.bytes(), self.len(), out);
    }

    /// Appends a space, then the text, in one copy: the text is at most
    /// seven bytes, so the space fits in its word.
    #[inline]
    pub fn push_spaced(self, out: &mut Vec<u8>) {
        SanText(self.0 << 8 | u64::from(b' ')).push(out);
    }
}

impl std::fmt::Display for SanText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Every byte is ASCII: made from SAN's letters only.
        f.write_str(std::str::from_utf8(&self.bytes()[..self.len()]).unwrap_or("?"))
    }
}

impl std::fmt::Debug for SanText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SanText({self})")
    }
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
    let (uci, len) = uci_word(m, mode);
    push_short(&uci.to_le_bytes(), len, out);
}

/// `m` in UCI in a word, first byte lowest, zeros after, and its length
/// (4, or 5 with a promotion): a writer copies it once, or shifts it into
/// place between quotes.
#[inline(always)]
pub(crate) fn uci_word(m: Move, mode: CastlingMode) -> (u64, usize) {
    // A normal move by one test, every other kind out of line: with them
    // inlined, the test and their `match` became a jump through a table a
    // move.
    match m {
        Move::Normal { from, to, promotion: None, .. } => (squares_word(from, to), 4),
        _ => other_uci_word(m, mode),
    }
}

/// [`uci_word`] of a move that is not a normal move without promotion
/// (3% of the moves of a sample of games).
#[inline(never)]
fn other_uci_word(m: Move, mode: CastlingMode) -> (u64, usize) {
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
            let mut uci = [0; 8];
            let len = text.len().min(5);
            uci[..len].copy_from_slice(&text.as_bytes()[..len]);
            return (u64::from_le_bytes(uci), len);
        }
    };
    // By table: a `match` of the role was a jump a move.
    let promotion = promotion.map_or(0, |role| b"?pnbrqk"[role as usize]);
    (squares_word(from, to) | u64::from(promotion) << 32, 4 + usize::from(promotion != 0))
}

/// The SAN of `m`, legal in `pos`, without its check mark: as
/// [`San::from_move`], which lists every legal move of the piece's kind to
/// the target square to tell pieces apart. Here only another piece of that
/// kind that attacks the square is a rival (most moves have none; pawns
/// and castling never have one), and it counts when moving it there leaves
/// its king unattacked: the list cost a thousand instructions a move
/// written with its starting square.
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
        Move::Normal { role, from, capture, to, promotion: None } => {
            let (board, us) = (pos.board(), pos.turn());
            let rivals = (pos.our(role) & shakmaty::attacks::attacks(to, role.of(us), board.occupied())).without(from);
            let (mut file, mut rank) = (None, None);
            if let Some(king) = board.king_of(us).filter(|_| rivals.any()) {
                let (mut rival, mut same_file, mut same_rank) = (false, false, false);
                for other in rivals {
                    // Not a king (there is one): legal when no piece of the
                    // other side, one taken on `to` aside, attacks the king
                    // once it stands there.
                    let occupied = board.occupied().without(other).with(to);
                    if (board.attacks_to(king, !us, occupied).without(to)).is_empty() {
                        rival = true;
                        same_file |= other.file() == from.file();
                        same_rank |= other.rank() == from.rank();
                    }
                }
                // As `San::disambiguate` names them.
                file = (rival && (!same_file || same_rank)).then(|| from.file());
                rank = same_file.then(|| from.rank());
            }
            San::Normal { role, file, rank, capture: capture.is_some(), to, promotion: None }
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

/// The SAN of `m` in `pos`, read from the token `written`, as text: a
/// piece written without its starting square was the only one that could
/// legally move there (else the token would not have been read), so its
/// SAN names none either and no rival is looked for. That move and a
/// pawn's are written straight from the move, with no [`San`] between.
#[inline]
pub fn move_san_text_as_read(pos: &Chess, m: Move, written: San) -> SanText {
    match (m, written) {
        (
            Move::Normal { role, capture, to, promotion: None, .. },
            San::Normal { role: r, file: None, rank: None, to: t, .. },
        ) if role != Role::Pawn && r == role && t == to => {
            let head = u64::from(role.upper_char() as u8);
            SanText(match capture {
                Some(_) => head | u64::from(b'x') << 8 | square_word(to) << 16,
                None => head | square_word(to) << 8,
            })
        }
        (Move::Normal { role: Role::Pawn, from, capture, to, promotion }, _) => {
            let (word, bits) = match capture {
                Some(_) => (u64::from(b'a' + from.file() as u8) | u64::from(b'x') << 8 | square_word(to) << 16, 32),
                None => (square_word(to), 16),
            };
            SanText(match promotion {
                Some(role) => word | (u64::from(b'=') | u64::from(role.upper_char() as u8) << 8) << bits,
                None => word,
            })
        }
        _ => SanText::new(move_san(pos, m), None),
    }
}

/// The names of `from` and `to` (`e2e4`) in the four low bytes of a word.
#[inline(always)]
fn squares_word(from: Square, to: Square) -> u64 {
    square_word(from) | square_word(to) << 16
}

/// A square's name (`e4`) in the two low bytes of a word.
#[inline(always)]
fn square_word(square: Square) -> u64 {
    // Each square's name as two bytes, file first: a square's two letters
    // in one load, where working them out was four steps.
    const NAMES: [u16; 64] = {
        let mut names = [0; 64];
        let mut square = 0;
        while square < 64 {
            names[square] = u16::from_le_bytes([b'a' + (square % 8) as u8, b'1' + (square / 8) as u8]);
            square += 1;
        }
        names
    };
    // Masked, though a square is below 64: read from a move's bytes, the
    // compiler no longer knew it, and looked at each index.
    u64::from(NAMES[square as usize & 63])
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
    Some(check_or_mate(pos))
}

/// `+` or `#` in a position in check. Most checks are met by a king step to
/// a square no enemy attacks once the king has left its own (a legal move:
/// no mate), which settles them without generating every evasion.
fn check_or_mate(pos: &Chess) -> Suffix {
    let (board, us) = (pos.board(), pos.turn());
    let steps = board.king_of(us).is_some_and(|king| {
        let occupied = board.occupied().without(king);
        (shakmaty::attacks::king_attacks(king) & !board.by_color(us))
            .into_iter()
            .any(|to| pos.king_attackers(to, !us, occupied).is_empty())
    });
    if steps || !pos.legal_moves().is_empty() { Suffix::Check } else { Suffix::Checkmate }
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
    use shakmaty::{
        CastlingMode, Chess, Position,
        fen::Fen,
        san::{San, SanPlus},
    };

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

    /// The position of `fen`, Chess960 where its castling rights say so.
    fn position(fen: &str) -> Chess {
        let setup: Fen = fen.parse().expect("FEN");
        let mode = CastlingMode::detect(setup.as_setup());
        setup.into_position(mode).expect("legal position")
    }

    /// [`walk`] from each of `fens`; how many moves were visited.
    fn walk_fens(fens: &[&str], depth: u32, mut visit: impl FnMut(&Chess, shakmaty::Move)) -> usize {
        let mut moves = 0;
        for fen in fens {
            walk(&position(fen), depth, &mut |pos, m| {
                moves += 1;
                visit(pos, m);
            });
        }
        moves
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
            // A rival pinned to its king; rivals that can block a check,
            // and one that cannot.
            "4k3/8/8/8/1b6/8/3N4/4K1N1 w - - 0 1",
            "4k3/8/8/8/4r3/8/2N3N1/R3K2R w - - 0 1",
            "4k3/8/8/8/1b6/5N2/3N4/4K3 w - - 0 1",
        ];
        let moves = walk_fens(&fens, 3, |pos, m| {
            assert_eq!(super::move_san(pos, m), San::from_move(pos, m), "{m:?} in {}", crate::notation::fen(pos));
        });
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
        let moves = walk_fens(&fens, 3, |pos, m| {
            let written = San::from_move(pos, m);
            let text = super::move_san_text_as_read(pos, m, written).to_string();
            assert_eq!(text, written.to_string(), "{m:?} in {}", crate::notation::fen(pos));
        });
        assert!(moves > 50_000, "{moves} moves");
    }

    /// The check mark is shakmaty's for every position of random games
    /// (checks met by a king step, by a block or a capture, and mates),
    /// and of mates the king could step out of but for an x-ray.
    #[test]
    fn check_marks_are_shakmatys_on_random_games_and_mates() {
        use shakmaty::san::Suffix;
        let mates = [
            // A rook's x-ray through the king's square: Kh8 is no escape.
            "4R1k1/5ppp/8/8/8/8/8/6K1 b - - 0 1",
            "6rk/5Npp/8/8/8/8/8/6K1 b - - 0 1",
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1",
        ];
        for fen in mates {
            assert_eq!(super::check_suffix(&position(fen)), Some(Suffix::Checkmate), "{fen}");
        }
        let mut rng = crate::test_rng::Rng(0x2545_f491_4f6c_dd1d);
        let (mut checks, mut mated) = (0, 0);
        for _ in 0..3000 {
            rng.random_game(200, |pos, _| {
                let suffix = super::check_suffix(pos);
                assert_eq!(suffix, Suffix::from_position(pos), "{}", crate::notation::fen(pos));
                checks += usize::from(suffix.is_some());
                mated += usize::from(suffix == Some(Suffix::Checkmate));
            });
        }
        assert!(checks > 10_000 && mated > 50, "{checks} checks, {mated} mates");
    }

    #[test]
    fn san_text_holds_the_longest_san_with_its_mark_in_one_word() {
        for text in ["Qa1xb2#", "exd8=Q+", "O-O-O#", "Nbd7", "e4", "--", "O-O"] {
            let san = SanPlus::from_ascii(text.as_bytes()).expect("SAN");
            let kept = super::SanText::new(san.san, san.suffix);
            assert_eq!((kept.to_string(), kept.len()), (text.to_owned(), text.len()));
            let mut out = b"1.".to_vec();
            kept.push_spaced(&mut out);
            kept.push(&mut out);
            assert_eq!(out, format!("1. {text}{text}").into_bytes());
        }
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
        let moves = walk_fens(&fens, 3, |pos, m| {
            let mut written = Vec::new();
            super::san_and_play(&mut pos.clone(), m).push(&mut written);
            let want = shakmaty::san::SanPlus::from_move(pos.clone(), m).to_string();
            assert_eq!(String::from_utf8_lossy(&written), want, "{m:?} in {}", crate::notation::fen(pos));
        });
        assert!(moves > 10_000, "{moves} moves");
        for san in [San::Null, San::Put { role: shakmaty::Role::Knight, to: shakmaty::Square::F3 }] {
            let mut written = Vec::new();
            super::push_san(san, &mut written);
            assert_eq!(String::from_utf8_lossy(&written), san.to_string());
        }
    }

    /// Every kind of move in UCI as shakmaty writes it, castling in both
    /// modes (onto the king's square, onto the rook's in Chess960), each
    /// promotion, en passant and a drop, through the word a writer copies.
    #[test]
    fn uci_written_from_a_word_is_shakmatys_uci() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "1r1r3k/2P1P3/8/8/8/8/8/K7 w - - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "1rk3r1/pppppppp/8/8/8/8/PPPPPPPP/1RK3R1 w GBgb - 0 1",
            "8/8/8/8/8/8/p6k/K7 b - - 0 1",
        ];
        let moves = walk_fens(&fens, 2, |_, m| {
            for mode in [CastlingMode::Standard, CastlingMode::Chess960] {
                let mut written = Vec::new();
                super::write_uci_bytes(m, mode, &mut written);
                assert_eq!(String::from_utf8_lossy(&written), m.to_uci(mode).to_string(), "{m:?} {mode:?}");
            }
        });
        assert!(moves > 1000, "{moves} moves");
        let put = shakmaty::Move::Put { role: shakmaty::Role::Knight, to: shakmaty::Square::F3 };
        let (word, len) = super::uci_word(put, CastlingMode::Standard);
        assert_eq!(&word.to_le_bytes()[..len], b"N@f3");
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
