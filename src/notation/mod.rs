//! Moves in any notation (SAN, UCI, long algebraic): read from a line of
//! movetext, looked up in a position, and written back in each notation.
//!
//! Scripts mix notations: engines speak UCI, databases SAN, older books long
//! algebraic. A token is read as coordinates first (`g1f3`, `Ng1-f3`), whose
//! shapes are strict, and as SAN otherwise, so no token can mean two moves:
//! `e2e4` is both UCI and a (fully disambiguated) SAN pawn move, and both
//! name the same move.

pub mod explain;
mod fen;
// Not private: the framer reads a token as a move with it (stray text is
// text with no move), and this file alone, which imports nothing of
// pgnkit, is below the framer.
pub(crate) mod read;
pub mod resolve;
mod write;

pub(crate) use self::{
    fen::castling_square,
    read::{
        glued_en_passant, non_san_notation, plain_san, read_move_at, read_move_token, repaired_san, strip_move_number,
    },
    write::{digits, push_short, short_digits, uci_word},
};
pub use self::{
    fen::{Dropped, FenError, FenPosition, fen, playable_position, position, setup, tag_position},
    read::{Coordinates, Notation, Token, Written, parse, san, tokens},
    write::{
        SanText, check_suffix, move_number, move_san, move_san_text_as_read, push_move_number, push_move_number_of,
        push_san, san_and_play, write_and_play, write_uci, write_uci_bytes,
    },
};

use std::borrow::Cow;

use shakmaty::{Chess, Color, EnPassantMode, FromSetup, Move, Position, Role, san::San, uci::UciMove};

use crate::codes::{Code, Reason};

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
            Written::San(San::Null) => Err(null_move_error()),
            Written::San(san) => resolve::to_move(pos, san).map_err(|err| san_move_error(pos, san, &err)),
            Written::Coordinates(c) => coordinates_move(pos, &c).ok_or_else(|| coordinates_move_error(pos, &c)),
        }
    }
}

/// What the reader let through to read a move that strict SAN refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leniency {
    /// A capture written without `x` (`ed5`, `Bc6`): `unmarked-capture`.
    UnmarkedCapture,
    /// A move written as its squares (`g1f3`, `e1-g1`), read so when its
    /// SAN reading names no legal move: `non-san-move`.
    Coordinates(Notation),
}

impl Leniency {
    /// What was let through and how the move was read: "a capture written
    /// without `x`; read as exd5". `pos` is the position before `m`.
    pub fn describe(self, pos: &Chess, m: Move, shown: &str) -> String {
        let san = San::from_move(pos, m);
        match self {
            Leniency::UnmarkedCapture => format!("a capture written without `x`; read as {san}"),
            Leniency::Coordinates(Notation::Lan) => {
                format!("`{shown}` is long algebraic notation, not SAN; read as {san}")
            }
            Leniency::Coordinates(_) => format!("`{shown}` is a move in coordinates (UCI), not SAN; read as {san}"),
        }
    }
}

/// A move read in a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    /// The legal move.
    pub m: Move,
    /// What was let through to read it, if anything.
    pub leniency: Option<Leniency>,
}

/// The legal move `token` names in `pos`, or why there is none: not a move
/// in any notation, a move after the game ended, or an illegal one. Read
/// as a game's moves are ([`read_in`]), with annotation glyphs (`!`, `?`)
/// ignored; `token` has no move number (see [`tokens`]).
pub fn read_move(pos: &Chess, token: &str) -> Result<Read, MoveError> {
    let bare = token.trim_end_matches(['!', '?']).as_bytes();
    read_in(pos, san(bare).map(|s| s.san), None, || Cow::Borrowed(bare))
}

/// The one road from a move as written to the move it names in `pos`, for
/// every command: the main line, variations, `moves`. `san` is the token's
/// SAN reading ([`san`]: plain SAN, or SAN once repaired), `None` when it
/// has none; `token` gives the token as written (after its move number),
/// asked for only when `san` names no legal move, so that standard SAN
/// costs what resolving it does. `in_check`, when known, spares the fast
/// path the question.
///
/// Then, in this order: the token as coordinates (`c5d4` is a UCI
/// capture, not a pawn capture written without `x`; `e1-g1` is castling),
/// the SAN reading as a capture written without `x`; failing both, why no
/// move can be played (the game over, a token in no notation, or the rule
/// the move breaks).
#[inline]
pub fn read_in<'t>(
    pos: &Chess,
    san: Option<San>,
    in_check: Option<bool>,
    token: impl FnOnce() -> Cow<'t, [u8]>,
) -> Result<Read, MoveError> {
    if let Some(san) = san {
        let quick = match in_check {
            Some(check) => resolve::quick_move_knowing_check(pos, san, check),
            None => resolve::quick_move(pos, san),
        };
        if let Some(m) = quick.or_else(|| resolve::slow_move(pos, san).ok()) {
            return Ok(Read { m, leniency: None });
        }
    }
    read_leniently(pos, san, &token())
}

/// [`read_in`] for a token its SAN reading does not resolve: out of line,
/// as few moves come here.
#[cold]
#[inline(never)]
fn read_leniently(pos: &Chess, san: Option<San>, token: &[u8]) -> Result<Read, MoveError> {
    if san == Some(San::Null) {
        return Err(null_move_error());
    }
    // A check or mate sign may follow coordinates (`d1h5+`); an en passant
    // mark glued to a capture was read with it.
    let bare = token.strip_suffix(b"#").or_else(|| token.strip_suffix(b"+")).unwrap_or(token);
    let coordinates = match std::str::from_utf8(bare).ok().and_then(parse) {
        Some(Written::Coordinates(c)) => Some(c),
        _ => None,
    };
    if let Some(c) = coordinates
        && let Some(m) = coordinates_move(pos, &c)
    {
        return Ok(Read { m, leniency: Some(Leniency::Coordinates(c.notation)) });
    }
    if let Some(San::Normal { role, file, rank, capture: false, to, promotion }) = san {
        let marked = San::Normal { role, file, rank, capture: true, to, promotion };
        if let Ok(m) = resolve::to_move(pos, marked) {
            return Ok(Read { m, leniency: Some(Leniency::UnmarkedCapture) });
        }
    }
    if pos.legal_moves().is_empty() {
        let end = if pos.is_check() { "checkmate" } else { "stalemate" };
        let message = format!("the game was already over ({end}) before this move");
        return Err(MoveError { code: Code::MovesAfterEnd, reason: None, message });
    }
    // A move onto a piece of the other side is explained as the capture it
    // is, written with `x` or not: the `x` is not what is wrong with it.
    let theirs = pos.board().by_color(!pos.turn());
    match (coordinates, san) {
        (Some(c), _) => {
            let capture = c.capture.map(|x| x || theirs.contains(c.to));
            Err(coordinates_move_error(pos, &Coordinates { capture, ..c }))
        }
        (None, Some(San::Normal { role, file, rank, capture, to, promotion })) => {
            let san = San::Normal { role, file, rank, capture: capture || theirs.contains(to), to, promotion };
            let err = san.to_move(pos).err().unwrap_or(shakmaty::san::SanError::IllegalSan);
            Err(san_move_error(pos, san, &err))
        }
        (None, Some(san)) => {
            let err = san.to_move(pos).err().unwrap_or(shakmaty::san::SanError::IllegalSan);
            Err(san_move_error(pos, san, &err))
        }
        (None, None) => Err(MoveError {
            code: Code::InvalidSan,
            reason: None,
            message: format!(
                "`{}` is not a move in SAN, UCI or long algebraic notation",
                String::from_utf8_lossy(token)
            ),
        }),
    }
}

/// The legal move coordinates name, as shakmaty reads UCI (castling as the
/// king's move, or the king onto its rook), when the piece letter and the
/// capture mark of long algebraic fit it. A king's move written with no
/// letter is read as castling (`e1-g1`, as python-chess reads it).
fn coordinates_move(pos: &Chess, c: &Coordinates) -> Option<Move> {
    let uci = UciMove::Normal { from: c.from, to: c.to, promotion: c.promotion };
    let m = uci.to_move(pos).ok()?;
    let castling_without_letter = c.role == Some(Role::Pawn) && matches!(m, Move::Castle { .. });
    let role_fits = c.role.is_none_or(|role| role == m.role()) || castling_without_letter;
    (role_fits && c.capture.is_none_or(|x| x == m.is_capture())).then_some(m)
}

fn coordinates_move_error(pos: &Chess, c: &Coordinates) -> MoveError {
    let (reason, message) = explain::coordinates_error(pos, c);
    MoveError { code: Code::IllegalMove, reason: Some(reason), message }
}

fn san_move_error(pos: &Chess, san: San, err: &shakmaty::san::SanError) -> MoveError {
    let (code, reason, message) = explain::san_error(pos, san, err);
    MoveError { code, reason, message }
}

fn null_move_error() -> MoveError {
    MoveError {
        code: Code::NullMove,
        reason: None,
        message: "a null move (a pass) is not a move that can be played".to_owned(),
    }
}

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

#[cfg(test)]
mod tests {
    use shakmaty::{Chess, Role, Square, san::San};

    use super::{Coordinates, Notation, Token, Written, move_number, parse, read_move, tokens, write_and_play};
    use crate::codes::{Code, Reason};

    fn position(fen: &str) -> Chess {
        super::position(fen).unwrap_or_else(|err| panic!("{fen}: {err}"))
    }

    /// Plays `line` from `pos` and writes it in `notation`.
    fn convert(pos: &Chess, line: &str, notation: Notation) -> String {
        let mut pos = pos.clone();
        let mut out = Vec::new();
        for token in tokens(line) {
            let Token::Move(token) = token else { continue };
            let m = read_move(&pos, token).unwrap_or_else(|err| panic!("{token}: {}", err.message)).m;
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
            // As long as a FEN gets: eight characters a rank, both counters
            // at their largest (read saturated, as u32::MAX).
            "r1k1r1b1/p1p1p1p1/1p1p1p1p/n1n1b1q1/1N1N1B1Q/P1P1P1P1/1P1P1P1P/1R1K1R1B w - - 99999999999 99999999999",
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
                    // Appended after what the buffer holds.
                    let mut appended = b"x".to_vec();
                    super::FenPosition::new(&pos).write(&mut appended);
                    assert_eq!(appended, [b"x", expected.as_bytes()].concat());
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
        // Written with `-`, read as a capture written without `x`, as SAN's
        // `ed5` is.
        let read = read_move(&capture, "e4-d5").expect("capture written with -");
        assert_eq!((read.m.is_capture(), read.leniency), (true, Some(super::Leniency::UnmarkedCapture)));
        assert_eq!(read_move(&capture, "e4xd5").map(|read| read.m.is_capture()), Ok(true));
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
    fn odd_tokens_read_leniently_say_what_was_let_through() {
        use super::Leniency::{Coordinates as Coords, UnmarkedCapture};
        let castle = position("r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 0 1");
        let en_passant = position("rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
        let cases = [
            (&castle, "e1-g1", "O-O", Some(Coords(Notation::Lan))),
            (&castle, "e1g1", "O-O", Some(Coords(Notation::Uci))),
            (&castle, "Ke1-c1", "O-O-O", Some(Coords(Notation::Lan))),
            (&en_passant, "exd6ep", "exd6", None),
            (&en_passant, "exd6e.p.", "exd6", None),
            (&en_passant, "ed6", "exd6", Some(UnmarkedCapture)),
        ];
        for (pos, token, san, leniency) in cases {
            let read = read_move(pos, token).unwrap_or_else(|err| panic!("{token}: {}", err.message));
            assert_eq!(San::from_move(pos, read.m).to_string(), san, "{token}");
            assert_eq!(read.leniency, leniency, "{token}");
        }
        // A capture written without `x` that cannot be played is explained as
        // the capture: the e5 pawn is pinned.
        let pinned = position("4r1k1/8/3n4/4P3/8/8/8/4K3 w - - 0 1");
        assert_eq!(read_move(&pinned, "ed6").expect_err("pinned").reason, Some(Reason::Pinned));
        assert_eq!(read_move(&Chess::default(), "0000").expect_err("a pass").code, Code::NullMove);
    }

    #[test]
    fn move_numbers_follow_the_side_to_move() {
        assert_eq!(move_number(&Chess::default()), "1.");
        assert_eq!(move_number(&position("4k3/8/8/8/8/8/8/4K3 b - - 0 37")), "37...");
    }
}
