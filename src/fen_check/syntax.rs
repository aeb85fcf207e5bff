//! The fields of a FEN or EPD record, read one by one: a bad field is
//! reported and the fields after it are still read.
//!
//! A record is the board, the side to move, the castling rights and the en
//! passant square, then the two move counters (FEN), EPD operations
//! (`bm Qg6; id "WAC.001";`) or both, then optionally a `;` comment.

use std::{num::NonZeroU32, ops::Range};

use shakmaty::{Bitboard, Board, ByColor, ByRole, Color, File, Piece, Rank, Role, Setup, Square};

use super::findings::{FenCode, Findings};
use crate::notation::castling_square;

/// What the fields of a record say, as far as they could be read.
#[derive(Debug, Default)]
pub(super) struct Record<'a> {
    /// The board, when every row is well formed.
    pub board: Option<Board>,
    /// Byte offset of the board field.
    pub board_at: usize,
    pub turn: Option<Color>,
    /// The castling field, when it is well formed.
    pub castling: Option<Castling<'a>>,
    /// The en passant square (`None` for `-`) and the field's offset.
    pub ep: Option<(Option<Square>, usize)>,
    /// The halfmove clock and where it is written (FEN field or `hmvc`).
    pub halfmoves: Option<(u32, usize)>,
    /// The fullmove number and where it is written (FEN field or `fmvn`).
    pub fullmoves: Option<(u32, usize)>,
    /// EPD operations, in order.
    pub operations: Vec<Operation<'a>>,
    /// The operands of all of them, in order: one list for the record,
    /// not one per operation.
    operands: Vec<Operand<'a>>,
}

impl<'a> Record<'a> {
    /// The operands of `op`, one of the record's operations.
    pub fn operands(&self, op: &Operation<'_>) -> &[Operand<'a>] {
        &self.operands[op.operands.clone()]
    }

    pub fn ep_square(&self) -> Option<Square> {
        self.ep.and_then(|(square, _)| square)
    }

    /// What the record sets up, when its first four fields are well
    /// formed: the setup shakmaty reads from their text, with the counters
    /// read here (fullmove 0 as 1, which a `fullmove-zero` warning says).
    pub fn setup(&self) -> Option<Setup> {
        let (Some(board), Some(turn), Some(castling), Some((ep_square, _))) =
            (&self.board, self.turn, &self.castling, self.ep)
        else {
            return None;
        };
        let mut setup = Setup::empty();
        setup.board = board.clone();
        setup.turn = turn;
        setup.castling_rights = castling.letters().map(|(letter, _)| castling_square(board, letter)).collect();
        setup.ep_square = ep_square;
        setup.halfmoves = self.halfmoves.map_or(0, |(n, _)| n);
        setup.fullmoves = self.fullmoves.and_then(|(n, _)| NonZeroU32::new(n)).unwrap_or(NonZeroU32::MIN);
        Some(setup)
    }
}

/// A well-formed castling field: `-`, or up to two letters per side.
#[derive(Debug, Clone, Copy)]
pub(super) struct Castling<'a> {
    text: &'a str,
    at: usize,
}

impl Castling<'_> {
    /// The castling letters with their byte offsets (none for `-`).
    pub fn letters(&self) -> impl Iterator<Item = (u8, usize)> + '_ {
        let letters = if self.text == "-" { "" } else { self.text };
        letters.bytes().enumerate().map(|(pos, b)| (b, self.at + pos))
    }
}

/// One EPD operation: `opcode operand...;`.
#[derive(Debug)]
pub(super) struct Operation<'a> {
    pub opcode: &'a str,
    pub at: usize,
    /// Where its operands are in the record's list ([`Record::operands`]).
    operands: Range<usize>,
}

/// An operand as written (a string operand without its quotes, escapes
/// kept).
#[derive(Debug)]
pub(super) struct Operand<'a> {
    pub text: &'a str,
    pub quoted: bool,
    pub at: usize,
}

/// Opcodes of the EPD standard that take one integer: name, whether it may
/// be negative, what it counts.
const INTEGER_OPCODES: &[(&str, bool, &str)] = &[
    ("acd", false, "the analysis depth"),
    ("acn", false, "the number of nodes analysed"),
    ("acs", false, "the seconds of analysis"),
    ("ce", true, "the evaluation in centipawns"),
    ("dm", true, "the moves to mate"),
    ("rc", false, "the repetition count"),
];

/// Opcodes whose operands are moves in SAN.
pub(super) const MOVE_OPCODES: &[&str] = &["am", "bm", "pm", "sm", "pv"];

/// Bytes that end a word of a record, as flags: whitespace, `;`, and `"`
/// (which also ends an opcode).
const SPACE: u8 = 1;
const SEMICOLON: u8 = 2;
const QUOTE: u8 = 4;

/// The flags of every byte. Looked up rather than tested: the test of
/// `is_ascii_whitespace` is a range check then a bit check, and over text
/// that mixes letters and digits (a board, a move) the range check's
/// branch went one way then the other, mispredicted every few bytes: a
/// tenth of the time of `fen check`.
static WORD_ENDS: [u8; 256] = {
    let mut flags = [0; 256];
    let mut b = 0;
    while b < flags.len() {
        flags[b] = match b as u8 {
            b';' => SEMICOLON,
            b'"' => QUOTE,
            space if space.is_ascii_whitespace() => SPACE,
            _ => 0,
        };
        b += 1;
    }
    flags
};

fn ends_word(b: u8, ends: u8) -> bool {
    WORD_ENDS[usize::from(b)] & ends != 0
}

struct Scanner<'a> {
    line: &'a str,
    pos: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.line.as_bytes().get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|b| ends_word(b, SPACE)) {
            self.pos += 1;
        }
    }

    /// The next field: text up to whitespace or `;` (`None` at either end).
    fn field(&mut self) -> Option<(usize, &'a str)> {
        self.skip_space();
        let start = self.pos;
        while self.peek().is_some_and(|b| !ends_word(b, SPACE | SEMICOLON)) {
            self.pos += 1;
        }
        (self.pos > start).then(|| (start, &self.line[start..self.pos]))
    }

    /// Everything from here to the end of the line, trimmed.
    fn rest(&self) -> &'a str {
        self.line[self.pos..].trim()
    }
}

const FIELD_NAMES: [&str; 4] = [
    "the board",
    "the side to move (`w` or `b`)",
    "the castling rights (`KQkq`, some of them, or `-`)",
    "the en passant square (a square or `-`)",
];

/// Reads the fields of a record, reporting every malformed one.
pub(super) fn parse<'a>(line: &'a str, findings: &mut Findings<'_>) -> Record<'a> {
    let mut record = Record::default();
    let mut scanner = Scanner { line, pos: 0 };
    for index in 0..FIELD_NAMES.len() {
        let Some((at, text)) = scanner.field() else {
            let missing: Vec<&str> = FIELD_NAMES[index..].to_vec();
            let message = if index == 0 {
                "the record has no board: a FEN starts with the eight rows of the board".to_owned()
            } else {
                format!(
                    "the record ends after {}: a FEN also needs {}",
                    FIELD_NAMES[index - 1].split(" (").next().unwrap_or_default(),
                    join_and(&missing)
                )
            };
            findings.error(FenCode::MissingField, scanner.pos, message);
            return record;
        };
        match index {
            0 => {
                record.board_at = at;
                record.board = board(text, at, findings);
            }
            1 => record.turn = side_to_move(text, at, findings),
            2 => record.castling = castling(text, at, findings),
            _ => record.ep = en_passant(text, at, findings).map(|square| (square, at)),
        }
    }

    scanner.skip_space();
    match scanner.peek() {
        None | Some(b';') => {}
        Some(b) if b.is_ascii_digit() || b == b'-' || b == b'+' => move_counters(&mut scanner, &mut record, findings),
        Some(b) if b.is_ascii_alphabetic() => operations(&mut scanner, &mut record, findings),
        Some(_) => findings.error(
            FenCode::TrailingText,
            scanner.pos,
            format!(
                "`{}` follows the en passant square: a FEN goes on with the halfmove clock and the fullmove \
                 number, an EPD record with operations such as `bm Nf3;`, and a `;` starts a comment",
                scanner.rest()
            ),
        ),
    }
    record
}

/// The two FEN counters, then EPD operations or an optional `;` comment.
fn move_counters<'a>(scanner: &mut Scanner<'a>, record: &mut Record<'a>, findings: &mut Findings<'_>) {
    let Some((at, text)) = scanner.field() else { return };
    record.halfmoves = counter(text, at, "halfmove clock", FenCode::HalfmoveClock, findings).map(|n| (n, at));
    let Some((full_at, full)) = scanner.field() else {
        findings.error(
            FenCode::MissingField,
            scanner.pos,
            format!("the halfmove clock `{text}` is not followed by the fullmove number"),
        );
        return;
    };
    record.fullmoves =
        counter(full, full_at, "fullmove number", FenCode::FullmoveNumber, findings).map(|n| (n, full_at));
    scanner.skip_space();
    match scanner.peek() {
        None | Some(b';') => {}
        // Test suites write whole FENs with EPD operations after them.
        Some(b) if b.is_ascii_alphabetic() => operations(scanner, record, findings),
        Some(_) => findings.error(
            FenCode::TrailingText,
            scanner.pos,
            format!(
                "`{}` follows the fullmove number: a FEN ends there or goes on with EPD operations such as \
                 `bm Nf3;`, and a `;` starts a comment",
                scanner.rest()
            ),
        ),
    }
}

/// A whole number with no sign; a leading zero is only a warning.
fn counter(text: &str, at: usize, what: &str, code: FenCode, findings: &mut Findings<'_>) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        findings.error(code, at, format!("the {what} `{text}` is not a whole number (0, 1, 2, ...)"));
        return None;
    }
    let Ok(n) = text.parse::<u32>() else {
        findings.error(code, at, format!("the {what} `{text}` is too large"));
        return None;
    };
    if text.len() > 1 && text.starts_with('0') {
        findings.warning(
            FenCode::CounterLeadingZero,
            at,
            format!("the {what} `{text}` has a leading zero; write `{n}`"),
        );
    }
    Some(n)
}

/// The board field: 8 rows of piece letters and empty-square counts.
fn board(text: &str, at: usize, findings: &mut Findings<'_>) -> Option<Board> {
    // Nearly every board is well formed and read in one tight pass; only
    // one that is not is gone through again, row by row, to say what is
    // wrong with it.
    well_formed_board(text.as_bytes()).or_else(|| faulty_board(text, at, findings))
}

/// The board of a well-formed field: 8 rows, each covering 8 squares, with
/// no two empty-square counts side by side; `None` for any other.
///
/// Every byte goes down one path, whatever it stands for: a piece sets its
/// square in its own bitboard, a count or a `/` sets one in a spare that is
/// never read, and a fault is noted, to be acted on at the end. Branching
/// on what each byte is mispredicted at every turn between letters and
/// digits, a tenth of `fen check`'s time.
fn well_formed_board(text: &[u8]) -> Option<Board> {
    let mut pieces = [0u64; SPARE + 1];
    // Squares covered so far, from a8 on in reading order (square
    // `covered ^ 56`), and where the current row ends.
    let (mut covered, mut row_end) = (0u32, 8u32);
    let (mut previous, mut faulty) = (0u8, false);
    for &b in text {
        let cell = CELLS[usize::from(b)];
        let next = covered + u32::from(cell.squares);
        let slash = cell.flags & ROW_END != 0;
        // A stranger, a count after a count, a row past its 8 squares, a `/`
        // before a row's end (one after the eighth row leaves `row_end` past
        // 64, which the end turns down).
        faulty |= (cell.flags & (OTHER | (COUNT & previous)) != 0) | (next > row_end) | (slash & (covered != row_end));
        pieces[usize::from(cell.slot)] |= 1 << ((covered ^ 56) & 63);
        covered = next;
        row_end += 8 * u32::from(slash);
        previous = cell.flags;
    }
    if faulty || covered != 64 || row_end != 64 {
        return None;
    }
    let both = |role: Role| Bitboard(pieces[slot(role, Color::White)] | pieces[slot(role, Color::Black)]);
    let side = |color: Color| Bitboard(Role::ALL.iter().fold(0, |all, &role| all | pieces[slot(role, color)]));
    // Each square was set once at most, so the bitboards agree.
    Board::try_from_bitboards(ByRole::new_with(both), ByColor::new_with(side)).ok()
}

/// A board field that [`well_formed_board`] turned down, row by row: every
/// defect is reported, and the board is still set up when it is only two
/// counts side by side.
#[cold]
fn faulty_board(text: &str, at: usize, findings: &mut Findings<'_>) -> Option<Board> {
    let rows = text.bytes().filter(|&b| b == b'/').count() + 1;
    let mut ok = true;
    if rows != 8 {
        wrong_row_count(findings, at, rows);
        ok = false;
    }
    let mut by_role = ByRole::<Bitboard>::default();
    let mut by_color = ByColor::<Bitboard>::default();
    // Byte by byte: a character outside ASCII is never a piece or a count,
    // only something to quote in a finding.
    let mut row_start = 0;
    for (index, row) in text.as_bytes().split(|&b| b == b'/').enumerate() {
        let row_at = at + row_start;
        let row_text = &text[row_start..row_start + row.len()];
        // Named only when something is wrong: most rows are fine.
        let name = || row_name(index, rows);
        let mut squares = 0u32;
        let mut previous_digit = None;
        let mut digits_reported = false;
        let mut bad: Vec<(usize, char)> = Vec::new();
        let mut offset = 0;
        while let Some(&b) = row.get(offset) {
            match b {
                b'1'..=b'8' => {
                    let ch = char::from(b);
                    if let (Some(previous), false) = (previous_digit, digits_reported) {
                        digits_side_by_side(findings, row_at + offset - 1, &name(), previous, ch);
                        digits_reported = true;
                    }
                    squares += u32::from(b - b'0');
                    previous_digit = Some(ch);
                }
                _ if let Some(piece) = Piece::from_char(char::from(b)) => {
                    // Squares past the eighth row or file are no squares: the
                    // board is faulted then, and never used.
                    if let (Ok(rank), Ok(file)) = (Rank::try_from(7 - index as i64), File::try_from(squares)) {
                        let square = Square::from_coords(file, rank);
                        by_role.get_mut(piece.role).add(square);
                        by_color.get_mut(piece.color).add(square);
                    }
                    squares += 1;
                    previous_digit = None;
                }
                _ => {
                    let ch = row_text[offset..].chars().next().unwrap_or(char::REPLACEMENT_CHARACTER);
                    bad.push((row_at + offset, ch));
                    previous_digit = None;
                    offset += ch.len_utf8();
                    continue;
                }
            }
            offset += 1;
        }
        if !bad.is_empty() {
            bad_characters(findings, &name(), row_text, &bad);
            ok = false;
        } else if squares != 8 {
            wrong_row_length(findings, row_at, &name(), row_text, squares);
            ok = false;
        }
        row_start += row.len() + 1;
    }
    // Each square was set once at most, so the bitboards agree.
    ok.then(|| Board::try_from_bitboards(by_role, by_color).ok()).flatten()
}

/// A byte of a board, for [`well_formed_board`].
#[derive(Debug, Clone, Copy)]
struct Cell {
    /// The squares it covers: a count's number, 1 for a piece, else 0.
    squares: u8,
    /// The bitboard it sets its square in: its piece's, else the spare.
    slot: u8,
    /// [`COUNT`], [`ROW_END`] or [`OTHER`]; none for a piece.
    flags: u8,
}

/// A count of empty squares, 1 to 8.
const COUNT: u8 = 1;
/// The `/` between two rows.
const ROW_END: u8 = 2;
/// Anything else: a character to report (or the first byte of one).
const OTHER: u8 = 4;

/// The bitboard slot of a piece: White's pawn to king, then Black's.
const fn slot(role: Role, color: Color) -> usize {
    role as usize - 1 + if color.is_white() { 0 } else { 6 }
}

/// The slot after the pieces', set by counts and `/` and never read.
const SPARE: usize = 12;

/// The [`Cell`] of every byte: one look-up per byte of a board.
static CELLS: [Cell; 256] = {
    let mut cells = [Cell { squares: 0, slot: SPARE as u8, flags: OTHER }; 256];
    let mut b = 0;
    while b < cells.len() {
        cells[b] = match b as u8 {
            count @ b'1'..=b'8' => Cell { squares: count - b'0', slot: SPARE as u8, flags: COUNT },
            b'/' => Cell { squares: 0, slot: SPARE as u8, flags: ROW_END },
            letter => match Piece::from_char(letter as char) {
                Some(piece) => Cell { squares: 1, slot: slot(piece.role, piece.color) as u8, flags: 0 },
                None => cells[b],
            },
        };
        b += 1;
    }
    cells
};

/// A board without 8 rows.
#[cold]
fn wrong_row_count(findings: &mut Findings<'_>, at: usize, rows: usize) {
    findings.error(
        FenCode::BoardRows,
        at,
        format!(
            "the board has {rows} {}; a FEN board has 8, from rank 8 down to rank 1, separated by `/`",
            if rows == 1 { "row" } else { "rows" }
        ),
    );
}

/// `row 2 (rank 7)`, only `row 2` on a board without 8 rows.
#[cold]
fn row_name(index: usize, rows: usize) -> String {
    if rows == 8 { format!("row {} (rank {})", index + 1, 8 - index) } else { format!("row {}", index + 1) }
}

/// Two counts of empty squares side by side in a row.
#[cold]
fn digits_side_by_side(findings: &mut Findings<'_>, at: usize, name: &str, previous: char, ch: char) {
    findings.error(
        FenCode::BoardDigits,
        at,
        format!(
            "{name} has the empty-square counts `{previous}` and `{ch}` side by side; write one count for a run of \
             empty squares"
        ),
    );
}

/// Characters in a row that are no piece letter or count.
#[cold]
fn bad_characters(findings: &mut Findings<'_>, name: &str, row: &str, bad: &[(usize, char)]) {
    let chars: Vec<String> = bad.iter().map(|(_, ch)| format!("`{ch}`")).collect();
    findings.error(
        FenCode::BoardChar,
        bad[0].0,
        format!(
            "{name} `{row}` has {}, which {} not a piece letter (KQRBNP for White, kqrbnp for Black) or a count of \
             empty squares (1 to 8)",
            join_and(&chars),
            if bad.len() == 1 { "is" } else { "are" }
        ),
    );
}

/// A row that covers more or fewer than 8 squares.
#[cold]
fn wrong_row_length(findings: &mut Findings<'_>, at: usize, name: &str, row: &str, squares: u32) {
    findings.error(
        FenCode::BoardRowLength,
        at,
        format!(
            "{name} `{row}` covers {squares} {}; every row covers exactly 8 (a letter per piece, a digit per run of \
             empty squares)",
            if squares == 1 { "square" } else { "squares" }
        ),
    );
}

fn side_to_move(text: &str, at: usize, findings: &mut Findings<'_>) -> Option<Color> {
    match text {
        "w" => Some(Color::White),
        "b" => Some(Color::Black),
        _ => {
            findings.error(
                FenCode::SideToMove,
                at,
                format!("the side to move is `{text}`; expected `w` (White) or `b` (Black)"),
            );
            None
        }
    }
}

/// `-`, or up to two castling letters for White then up to two for Black.
fn castling<'a>(text: &'a str, at: usize, findings: &mut Findings<'_>) -> Option<Castling<'a>> {
    if text == "-" {
        return Some(Castling { text, at });
    }
    let is_letter = |b: u8| matches!(b.to_ascii_lowercase(), b'k' | b'q' | b'a'..=b'h');
    let mut bad: Vec<String> = Vec::new();
    for c in text.chars().filter(|&c| !c.is_ascii() || !is_letter(c as u8)) {
        let shown = format!("`{c}`");
        if !bad.contains(&shown) {
            bad.push(shown);
        }
    }
    if !bad.is_empty() {
        findings.error(
            FenCode::CastlingField,
            at,
            format!(
                "the castling field `{text}` has {}: castling rights are written `K` and `Q` (or the file of the \
                 rook, `A` to `H`) for White, the same in lower case for Black, or `-` for none",
                join_and(&bad)
            ),
        );
        return None;
    }
    let mut ok = true;
    let bytes = text.as_bytes();
    for (pos, &b) in bytes.iter().enumerate() {
        if bytes[..pos].contains(&b) && !bytes[pos + 1..].contains(&b) {
            findings.error(
                FenCode::CastlingField,
                at + pos,
                format!("the castling field `{text}` gives `{}` more than once", b as char),
            );
            ok = false;
        }
    }
    for (color, is_side) in [("White", u8::is_ascii_uppercase as fn(&u8) -> bool), ("Black", u8::is_ascii_lowercase)] {
        // Counted first: the letters are written out only for the finding.
        if bytes.iter().filter(|b| is_side(b)).count() > 2 {
            let letters: String = bytes.iter().filter(|b| is_side(b)).map(|&b| b as char).collect();
            findings.error(
                FenCode::CastlingField,
                at,
                format!(
                    "the castling field gives {color} {} rights (`{letters}`); a side can castle on two wings at most",
                    letters.len()
                ),
            );
            ok = false;
        }
    }
    if ok {
        castling_order(text, at, findings);
    }
    ok.then_some(Castling { text, at })
}

/// A warning when the letters are not in the order FENs write them: White's
/// rights first, each side's from the h-file to the a-file (`K` before
/// `Q`, `H` before `A`). The rights are read in any order, as shakmaty,
/// Stockfish and lichess read them.
fn castling_order(text: &str, at: usize, findings: &mut Findings<'_>) {
    // Where a letter's rook stands, as far as the letter alone tells: `K`
    // beyond the h-file, `Q` before the a-file (on one wing of one side
    // they cannot both be given, which a `castling-rights` error says).
    let wing = |b: u8| match b.to_ascii_lowercase() {
        b'k' => 8,
        b'q' => -1,
        file => i32::from(file - b'a'),
    };
    let key = |&b: &u8| (b.is_ascii_lowercase(), -wing(b));
    // Nearly every field is in order: told without a copy.
    if !text.as_bytes().is_sorted_by_key(key) {
        let mut canonical = text.as_bytes().to_vec();
        canonical.sort_by_key(key);
        let canonical = String::from_utf8_lossy(&canonical);
        findings.warning(
            FenCode::CastlingOrder,
            at,
            format!(
                "the castling field `{text}` is not in the usual order (White's rights first, each side's \
                 kingside first); write `{canonical}`"
            ),
        );
    }
}

fn en_passant(text: &str, at: usize, findings: &mut Findings<'_>) -> Option<Option<Square>> {
    if text == "-" {
        return Some(None);
    }
    match Square::from_ascii(text.as_bytes()) {
        Ok(square) => Some(Some(square)),
        Err(_) => {
            findings.error(
                FenCode::EnPassantField,
                at,
                format!("the en passant field `{text}` is not a square; expected `-` or a square such as `e3` or `d6`"),
            );
            None
        }
    }
}

/// EPD operations: `opcode operand...;`, strings in double quotes.
fn operations<'a>(scanner: &mut Scanner<'a>, record: &mut Record<'a>, findings: &mut Findings<'_>) {
    let line = scanner.line;
    // Room for the operations of a test suite's record (`bm`, `id`, `acd`,
    // `ce`, ...) and their operands, a `pv` of a dozen moves among them, so
    // that the lists seldom grow: each time they do, they are copied.
    record.operations.reserve(8);
    record.operands.reserve(32);
    'operations: loop {
        scanner.skip_space();
        match scanner.peek() {
            None => break,
            // An empty operation (`;;`) says nothing.
            Some(b';') => {
                scanner.pos += 1;
                continue;
            }
            Some(_) => {}
        }
        let at = scanner.pos;
        while scanner.peek().is_some_and(|b| !ends_word(b, SPACE | SEMICOLON | QUOTE)) {
            scanner.pos += 1;
        }
        let opcode = &line[at..scanner.pos];
        let first = record.operands.len();
        // Pushed with its operands once they are read, however it ends.
        let push = |record: &mut Record<'a>| {
            record.operations.push(Operation { opcode, at, operands: first..record.operands.len() });
        };
        loop {
            scanner.skip_space();
            match scanner.peek() {
                None => {
                    // The end of the line ends it just as well.
                    let written = line[at..].trim();
                    findings.warning(
                        FenCode::EpdMissingSemicolon,
                        at,
                        format!("the last operation `{written}` does not end with `;`"),
                    );
                    push(record);
                    break 'operations;
                }
                Some(b';') => {
                    scanner.pos += 1;
                    break;
                }
                Some(b'"') => {
                    let start = scanner.pos;
                    scanner.pos += 1;
                    let mut escaped = false;
                    loop {
                        match scanner.peek() {
                            None => {
                                findings.error(
                                    FenCode::EpdOperation,
                                    start,
                                    format!("the string operand of `{opcode}` is not closed with `\"`"),
                                );
                                push(record);
                                break 'operations;
                            }
                            Some(b'\\') if !escaped => escaped = true,
                            Some(b'"') if !escaped => break,
                            Some(_) => escaped = false,
                        }
                        scanner.pos += 1;
                    }
                    record.operands.push(Operand { text: &line[start + 1..scanner.pos], quoted: true, at: start });
                    scanner.pos += 1;
                }
                Some(_) => {
                    let start = scanner.pos;
                    while scanner.peek().is_some_and(|b| !ends_word(b, SPACE | SEMICOLON)) {
                        scanner.pos += 1;
                    }
                    record.operands.push(Operand { text: &line[start..scanner.pos], quoted: false, at: start });
                }
            }
        }
        push(record);
    }
    check_operations(record, findings);
}

/// What an EPD operation must look like before its moves are replayed.
fn check_operations(record: &mut Record<'_>, findings: &mut Findings<'_>) {
    for (index, op) in record.operations.iter().enumerate() {
        let operands = &record.operands[op.operands.clone()];
        if !well_formed_opcode(op.opcode) {
            findings.error(
                FenCode::EpdOperation,
                op.at,
                format!(
                    "`{}` is not an EPD opcode: an opcode starts with a letter and has only letters, digits and `_`",
                    op.opcode
                ),
            );
            continue;
        }
        if record.operations[..index].iter().any(|earlier| earlier.opcode == op.opcode) {
            findings.warning(
                FenCode::EpdRepeatedOpcode,
                op.at,
                format!("the opcode `{}` appears more than once (the last one counts)", op.opcode),
            );
        }
        match op.opcode {
            "hmvc" | "fmvn" => {
                if let Some(value) = counter_operation(op, operands, findings) {
                    let slot = if op.opcode == "hmvc" { &mut record.halfmoves } else { &mut record.fullmoves };
                    *slot = Some(value);
                }
            }
            opcode if let Some(&(_, signed, meaning)) = INTEGER_OPCODES.iter().find(|(name, _, _)| *name == opcode) => {
                check_integer_operation(op, operands, signed, meaning, findings);
            }
            opcode if MOVE_OPCODES.contains(&opcode) => check_move_operation(op, operands, findings),
            _ => {}
        }
    }
}

/// Whether an opcode is a letter, then letters, digits and `_`.
fn well_formed_opcode(opcode: &str) -> bool {
    let mut chars = opcode.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic()) && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The counter an `hmvc` or `fmvn` operation gives, and where its operand is written.
fn counter_operation(
    op: &Operation<'_>,
    operands: &[Operand<'_>],
    findings: &mut Findings<'_>,
) -> Option<(u32, usize)> {
    let what = if op.opcode == "hmvc" { "halfmove clock" } else { "fullmove number" };
    let code = if op.opcode == "hmvc" { FenCode::HalfmoveClock } else { FenCode::FullmoveNumber };
    match operands {
        [operand] if !operand.quoted => {
            counter(operand.text, operand.at, what, code, findings).map(|n| (n, operand.at))
        }
        _ => {
            findings.error(
                FenCode::EpdOperation,
                op.at,
                format!("`{}` takes one operand, the {what} as a whole number", op.opcode),
            );
            None
        }
    }
}

/// Reports an operation of [`INTEGER_OPCODES`] without exactly one integer operand.
fn check_integer_operation(
    op: &Operation<'_>,
    operands: &[Operand<'_>],
    signed: bool,
    meaning: &str,
    findings: &mut Findings<'_>,
) {
    let opcode = op.opcode;
    let integer = |o: &Operand<'_>| {
        let digits = if signed { o.text.strip_prefix(['-', '+']).unwrap_or(o.text) } else { o.text };
        !o.quoted && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    };
    if !matches!(operands, [operand] if integer(operand)) {
        let written: Vec<&str> = operands.iter().map(|o| o.text).collect();
        findings.error(
            FenCode::EpdOperation,
            op.at,
            format!(
                "`{opcode}` takes one {}integer ({meaning}), not `{}`",
                if signed { "" } else { "non-negative " },
                written.join(" ")
            ),
        );
    }
}

/// Reports an operation of [`MOVE_OPCODES`] with too few or too many moves, or a move in quotes.
fn check_move_operation(op: &Operation<'_>, operands: &[Operand<'_>], findings: &mut Findings<'_>) {
    let opcode = op.opcode;
    let single = matches!(opcode, "pm" | "sm");
    if operands.is_empty() || (single && operands.len() > 1) {
        let wanted = if single { "one move" } else { "at least one move" };
        findings.error(FenCode::EpdOperation, op.at, format!("`{opcode}` takes {wanted} in SAN"));
    }
    for operand in operands.iter().filter(|o| o.quoted) {
        findings.error(
            FenCode::EpdOperation,
            operand.at,
            format!("the `{opcode}` operand \"{}\" is a string; moves are written without quotes", operand.text),
        );
    }
}

/// Warnings about counters that a game from the start position cannot
/// produce.
pub(super) fn check_counters(record: &Record<'_>, findings: &mut Findings<'_>) {
    if let Some((0, at)) = record.fullmoves {
        findings.warning(
            FenCode::FullmoveZero,
            at,
            "the fullmove number is 0; it starts at 1 and grows after each Black move (read as 1)".to_owned(),
        );
    }
    let Some((halfmoves, at)) = record.halfmoves else { return };
    if let (true, Some(ep)) = (halfmoves > 0, record.ep_square()) {
        findings.warning(
            FenCode::HalfmoveClockWithEnPassant,
            at,
            format!(
                "the halfmove clock is {halfmoves}, but the en passant square {ep} says the last move was a pawn's \
                 double step, which sets it to 0"
            ),
        );
    }
    if let (Some((fullmoves @ 1.., _)), Some(turn)) = (record.fullmoves, record.turn) {
        let played = 2 * u64::from(fullmoves - 1) + u64::from(turn == Color::Black);
        if u64::from(halfmoves) > played {
            let side = if turn == Color::White { "White" } else { "Black" };
            findings.warning(
                FenCode::HalfmoveClockTooHigh,
                at,
                format!(
                    "the halfmove clock is {halfmoves}, but only {played} {} can have been played before move \
                     {fullmoves} with {side} to move",
                    if played == 1 { "halfmove" } else { "halfmoves" }
                ),
            );
        }
    }
}

/// `a`, `a and b`, `a, b and c`.
pub(super) fn join_and<S: AsRef<str>>(items: &[S]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_owned(),
        [rest @ .., last] => {
            let rest: Vec<&str> = rest.iter().map(AsRef::as_ref).collect();
            format!("{} and {}", rest.join(", "), last.as_ref())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    /// Board-like text: 8 rows of 8 squares a third of the time (nearly
    /// always well formed), else counts, pieces, `/` and a few strangers.
    fn random_board(rng: &mut Rng) -> String {
        if rng.below(3) == 0 {
            let rows: Vec<String> = (0..8)
                .map(|_| {
                    let (mut row, mut squares) = (String::new(), 0);
                    while squares < 8 {
                        // Two counts side by side now and then (`44`).
                        let after_count = row.ends_with(|c: char| c.is_ascii_digit());
                        if rng.below(2) == 0 && (!after_count || rng.below(20) == 0) {
                            let count = 1 + rng.below(8 - squares);
                            row.push_str(&count.to_string());
                            squares += count;
                        } else {
                            row.push(b"PNBRQKpnbrqk"[rng.below(12)] as char);
                            squares += 1;
                        }
                    }
                    row
                })
                .collect();
            return rows.join("/");
        }
        let alphabet: Vec<char> = "12345678PNBRQKpnbrqk//////09x~é".chars().collect();
        (0..rng.below(60)).map(|_| alphabet[rng.below(alphabet.len())]).collect()
    }

    #[test]
    fn a_board_read_in_one_pass_is_the_one_read_row_by_row_and_any_other_has_a_finding() {
        let mut rng = Rng(0x5eed_f00d_1234_5678);
        let mut well_formed = 0;
        for _ in 0..50_000 {
            let text = random_board(&mut rng);
            let mut findings = Findings::new(&text);
            let row_by_row = faulty_board(&text, 0, &mut findings);
            match well_formed_board(text.as_bytes()) {
                Some(board) => {
                    assert!(findings.list.is_empty(), "{text}: {:?}", findings.list);
                    assert_eq!(row_by_row, Some(board), "{text}");
                    well_formed += 1;
                }
                None => assert!(!findings.list.is_empty(), "{text} has no finding"),
            }
        }
        assert!(well_formed > 10_000, "{well_formed} well formed");
    }
}
