//! Exact duplicate games: a compact key per game (where it starts, its main
//! line and, if asked, four tags) and an index of the keys seen that tells a
//! first occurrence from a copy without ever calling two different keys the
//! same.
//!
//! # The key
//!
//! Two games are copies when their keys are equal byte for byte; the hash
//! only finds candidates. A key is a sequence of fields, each
//! length-prefixed or fixed, so equal keys mean equal fields:
//!
//! 1. What follows: the moves alone (a game replayed to its end without an
//!    error, with at least one move), or the moves and a text.
//! 2. The start: the standard position, or the start position's
//!    placement, side to move, castling rights and legal en passant square
//!    (what makes positions the same for repetitions; move counters do not
//!    count), or, for a game that cannot be replayed (a variant, a broken
//!    FEN tag), its `Variant` and `FEN` tag values as read.
//! 3. The main-line moves played: their count, then each move numbered by
//!    its piece among the side's pieces and by its target among the squares
//!    that piece could go to, the numbers packed in a mixed radix (see
//!    [`push_moves`]): about 6 bits a move.
//! 4. The text, for a game not replayed to its end without an error: its
//!    movetext as written (white space collapsed, termination marker left
//!    out), so the part that was not replayed counts too, word for word;
//!    the whole text, tags included, when a tag line is broken or there is
//!    no movetext. For a game without moves, the whole text too: games
//!    without moves would otherwise all be copies of each other.
//! 5. With [`By::MovesAndTags`]: every value of the tags White, Black, Date
//!    and Result, in order.
//!
//! Comments, NAGs, variations, the result and (with [`By::Moves`]) all tags
//! are not part of a replayed game's key.
//!
//! # The index
//!
//! [`Index`] keeps each distinct key once, back to back in one byte arena,
//! and a table of 8-byte slots (open addressing, at most three quarters
//! full) that holds 24 bits of the key's hash and where its record starts.
//! A copy is found by hash, then confirmed by comparing the keys.

use std::hash::{BuildHasher, RandomState};

use shakmaty::{Bitboard, CastlingSide, Chess, Color, Move, Position, Rank, Role, Square, attacks};

use crate::{
    frame::lexer::movetext_start,
    frame::locate,
    game::Game,
    report::{Code, Severity},
};

/// What makes two games copies of each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    /// The same start position and the same main-line moves.
    Moves,
    /// As [`By::Moves`], and the same values of the [`KEY_TAGS`].
    MovesAndTags,
}

/// The tags [`By::MovesAndTags`] compares.
pub const KEY_TAGS: [&str; 4] = ["White", "Black", "Date", "Result"];

/// Start and moves: a game replayed to its end without an error.
const KEY_MOVES: u8 = 0;
/// Start, moves and text: a game with an error, one that could not be
/// replayed, or one without moves.
const KEY_WITH_TEXT: u8 = 1;
/// Only the whole text: a move could not be numbered (see [`push_moves`]).
const KEY_TEXT: u8 = 2;

/// The standard start position.
const START_STANDARD: u8 = 0;
/// Another start: placement, side to move, castling rights, en passant.
const START_POSITION: u8 = 1;
/// Not replayed: the Variant and FEN tag values as read.
const START_UNREPLAYED: u8 = 2;

/// Writes the key of `game` (read from `bytes`, its text as framed) into
/// `out` (cleared first).
///
/// `game` must come from a [`crate::check::GameReader`] that keeps, for
/// [`By::MovesAndTags`], the [`KEY_TAGS`] (`KeptTags::named(&KEY_TAGS)` or
/// `KeptTags::All`).
pub fn game_key(game: &Game, bytes: &[u8], by: By, out: &mut Vec<u8>) {
    out.clear();
    // Most keys are their moves, under a byte a move: grown once.
    out.reserve(16 + game.mainline.nodes.len());
    let clean = game.start.is_some() && game.report.valid;
    // Games without moves would all be copies of each other; their tags
    // (the players, the result) are all that tells them apart.
    let no_moves = clean && game.mainline.nodes.is_empty();
    out.push(if clean && !no_moves { KEY_MOVES } else { KEY_WITH_TEXT });
    let numbered = match &game.start {
        Some(start) => {
            // Positions are the same as for repetitions: placement, side to
            // move, castling rights and a legal en passant capture (not the
            // move counters, nor how castling is written).
            if *start == Chess::default() {
                out.push(START_STANDARD);
            } else {
                out.push(START_POSITION);
                push_field(out, start.board().to_string().as_bytes());
                out.push(u8::from(start.turn().is_white()));
                out.extend_from_slice(&start.castles().castling_rights().0.to_le_bytes());
                out.push(start.legal_ep_square().map_or(64, u8::from));
            }
            push_moves(start, game.mainline.nodes.iter().map(|n| n.step), out)
        }
        None => {
            out.push(START_UNREPLAYED);
            let tags = crate::game::Tags::scan(bytes);
            for name in ["Variant", "FEN"] {
                push_values(out, tags.iter().filter(|&(n, _)| n == name).map(|(_, v)| v));
            }
            // No moves: their count and their packed bytes, both none.
            push_varint(out, 0);
            push_field(out, &[]);
            true
        }
    };
    if !numbered {
        // Whole texts compare exactly too.
        out.clear();
        out.push(KEY_TEXT);
        push_text(bytes, Text::Whole, out);
    } else if no_moves {
        push_text(bytes, Text::Whole, out);
    } else if !clean {
        let broken_tag =
            game.report.diagnostics.iter().any(|d| d.severity == Severity::Error && d.code == Code::InvalidTag);
        push_text(bytes, if broken_tag { Text::Whole } else { Text::Movetext }, out);
    }
    if by == By::MovesAndTags {
        for name in KEY_TAGS {
            push_values(out, game.tags.iter().filter(|&(n, _)| n == name).map(|(_, v)| v));
        }
    }
}

/// The moves of a line played from `start`: their number, then two digits
/// a move in a mixed radix, packed into 64-bit words: the index of its
/// piece among the side's pieces (the null move after them), then the
/// index of its target among the squares that piece could go to, ignoring
/// checks and pins (a promotion: four digits a square).
///
/// Words are filled while the product of their radices fits in 64 bits;
/// every word but the last takes 8 bytes, the last only the bytes its value
/// needs.
///
/// Different lines from the same start give different bytes: the radix of
/// each digit depends only on the start and the digits before it. Where two
/// lines first differ, they have been in the same position, so the digits
/// before are equal, the first digit that differs has the same radix `n` in
/// both, and the words before it are equal and end at the same digit. In
/// the word holding that digit, both values are `low + radix_before *
/// (digit + n * rest)` with equal `low` and `radix_before`, and `digit`
/// smaller than `n`, so different digits make different values whatever
/// the moves after. A different count of moves changes the count. Trimming
/// the last word keeps this: the byte length is stored, and with equal
/// lengths the first differing word takes as many bytes in both keys (a
/// trimmed word shorter than 8 bytes is the last one), so its different
/// value gives different bytes. The same line always gives the same bytes:
/// digits and radices are a function of the start and the moves.
///
/// Returns `false`, with `out` as it was, when a move cannot be numbered
/// (which would be a bug: every legal move can).
pub fn push_moves(start: &Chess, steps: impl ExactSizeIterator<Item = Option<Move>>, out: &mut Vec<u8>) -> bool {
    let at = out.len();
    push_varint(out, steps.len() as u64);
    // The packed bytes go straight after their length, which takes one
    // byte up to 127 bytes (some 150 moves) and is moved up for more.
    let len_at = out.len();
    out.push(0);
    let mut digits = Digits { value: 0, radix: 1, out };
    let mut squares = Squares::new(start);
    let mut steps = steps;
    let numbered = match start.turn() {
        Color::White => squares.run::<White>(&mut steps, &mut digits),
        Color::Black => squares.run::<Black>(&mut steps, &mut digits),
    };
    if numbered.is_none() {
        digits.out.truncate(at);
        return false;
    }
    let Digits { value, out, .. } = digits;
    let last = value.to_le_bytes();
    out.extend_from_slice(&last[..8 - value.leading_zeros() as usize / 8]);
    let len = out.len() - len_at - 1;
    if len < 0x80 {
        out[len_at] = len as u8;
    } else {
        let mut prefix = Vec::new();
        push_varint(&mut prefix, len as u64);
        out.splice(len_at..=len_at, prefix);
    }
    true
}

/// The word of digits being filled, and the key its full words go to.
struct Digits<'a> {
    value: u64,
    /// The product of the radices of the digits in `value`.
    radix: u64,
    out: &'a mut Vec<u8>,
}

impl Digits<'_> {
    /// Adds `digit`, below `n`.
    #[inline(always)]
    fn push(&mut self, digit: u64, n: u64) {
        debug_assert!(digit < n, "digit {digit} of radix {n}");
        match self.radix.checked_mul(n) {
            Some(next) => {
                // value < radix and digit < n, so this stays below radix * n.
                self.value += digit * self.radix;
                self.radix = next;
            }
            None => {
                self.out.extend_from_slice(&self.value.to_le_bytes());
                (self.value, self.radix) = (digit, n);
            }
        }
    }
}

/// A side to move, as a type: each side's moves are numbered by a copy of
/// their own, where the pawns' steps and ranks are constants.
trait Side {
    const COLOR: Color;
    type Other: Side;
}

struct White;

struct Black;

impl Side for White {
    const COLOR: Color = Color::White;
    type Other = Black;
}

impl Side for Black {
    const COLOR: Color = Color::Black;
    type Other = White;
}

/// What numbering a move needs of the position it is played from, kept up
/// to date move by move from the start: cheaper than a copy of every
/// position, and nothing is replayed again.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Squares {
    /// The pieces of the side to move.
    ours: Bitboard,
    /// The pieces of the other side.
    theirs: Bitboard,
    /// How many pieces `ours` holds: counted once, then kept as pieces are
    /// taken (a count takes a dozen instructions on x86-64, where a binary
    /// for every x86-64 cannot use POPCNT).
    our_count: u64,
    their_count: u64,
    /// Castling rights, by the rooks' squares, as
    /// [`shakmaty::Castles::castling_rights`].
    rights: Bitboard,
    /// The square a pawn passed over in a double step just played (at the
    /// start: the square of a legal en passant capture, as the start's key
    /// has it), or none.
    ep: Bitboard,
}

/// A move as [`Squares`] reads it: the piece's kind, where it goes from and
/// to (castling: to the rook's square), and the piece it promotes to.
#[derive(Debug, Clone, Copy)]
struct Moved {
    role: Role,
    from: Square,
    to: Square,
    promotion: Option<Role>,
}

impl Moved {
    /// [`Moved::read`] out of line, for moves other than normal ones.
    #[cold]
    #[inline(never)]
    fn read_other(step: Option<Move>) -> Result<Option<Moved>, ()> {
        Moved::read(step)
    }

    /// `None` for the null move, `Err` for a drop (not a move of chess).
    #[inline(always)]
    fn read(step: Option<Move>) -> Result<Option<Moved>, ()> {
        let Some(m) = step else { return Ok(None) };
        let from = m.from().ok_or(())?;
        Ok(Some(Moved { role: m.role(), from, to: m.to(), promotion: m.promotion() }))
    }
}

impl Squares {
    fn new(start: &Chess) -> Squares {
        let board = start.board();
        let us = start.turn();
        let (ours, theirs) = (board.by_color(us), board.by_color(!us));
        Squares {
            ours,
            theirs,
            our_count: count(ours),
            their_count: count(theirs),
            rights: start.castles().castling_rights(),
            ep: start.legal_ep_square().map_or(Bitboard::EMPTY, Bitboard::from),
        }
    }

    /// Numbers the moves of `steps`, `S` to move first, into `digits`;
    /// `None` at a move that cannot be numbered.
    fn run<S: Side>(&mut self, steps: &mut impl Iterator<Item = Option<Move>>, digits: &mut Digits<'_>) -> Option<()> {
        // Two moves a turn, one of each side's copy.
        loop {
            let Some(step) = steps.next() else { return Some(()) };
            self.step::<S>(step, digits)?;
            let Some(step) = steps.next() else { return Some(()) };
            self.step::<S::Other>(step, digits)?;
        }
    }

    /// Numbers `step`, `S` to move, into `digits`, and plays it.
    #[inline(always)]
    fn step<S: Side>(&mut self, step: Option<Move>, digits: &mut Digits<'_>) -> Option<()> {
        // Most moves are normal ones: read without the other kinds' tests.
        let moved = match step {
            Some(Move::Normal { role, from, to, promotion, .. }) => Some(Moved { role, from, to, promotion }),
            _ => Moved::read_other(step).ok()?,
        };
        let [(piece, pieces), (target, targets)] = self.number_moved::<S>(moved)?;
        digits.push(piece, pieces);
        digits.push(target, targets);
        self.play_moved::<S>(moved);
        Some(())
    }

    /// The two digits of `step`, `S` to move, each with its radix, or
    /// `None` when it is not a move the pieces could make.
    #[cfg(test)]
    fn number<S: Side>(&self, step: Option<Move>) -> Option<[(u64, u64); 2]> {
        self.number_moved::<S>(Moved::read(step).ok()?)
    }

    /// Plays `step` (numbered: a move of the pieces or the null move), `S`
    /// to move.
    #[cfg(test)]
    fn play<S: Side>(&mut self, step: Option<Move>) {
        self.play_moved::<S>(Moved::read(step).expect("a move of chess"));
    }

    /// The two digits of a move (`None`: the null move), each with its
    /// radix, or `None` when it is not a move the pieces could make.
    ///
    /// A move is numbered by its piece, then by where the piece goes:
    ///
    /// - the piece: the index of its square among the squares of the side's
    ///   pieces (a1 first), out of their number plus one, the last being
    ///   the null move (whose second digit is 0, of radix 1);
    /// - where it goes: the index of its target among the squares the piece
    ///   could go to, ignoring checks and pins, out of their number (a pawn
    ///   about to promote: four digits a square, knight, bishop, rook,
    ///   queen; the king: castling is to the rook's square, one with
    ///   castling rights).
    ///
    /// The first radix depends on the position, the second on the position
    /// and the piece (the first digit), never on the move itself. Different
    /// moves of a position differ in their piece, or in their target or
    /// promotion, as no piece has two moves to one square but a pawn's
    /// promotions. This takes one attack-table lookup a move: numbering the
    /// move among all the moves of its position needs every piece's, and
    /// made `dedup` take 1.3 times as many instructions on `sample10.pgn`,
    /// for keys 6 to 8% shorter.
    #[inline(always)]
    fn number_moved<S: Side>(&self, moved: Option<Moved>) -> Option<[(u64, u64); 2]> {
        let pieces = self.our_count + 1;
        let Some(Moved { role, from, to, promotion }) = moved else { return Some([(self.our_count, pieces), (0, 1)]) };
        let ours = self.ours;
        if !ours.contains(from) {
            return None;
        }
        let piece = (count(ours & below(from)), pieces);
        let occupied = ours | self.theirs;
        let targets = match role {
            Role::Pawn => self.pawn_targets::<S>(from, occupied),
            Role::Knight => attacks::knight_attacks(from) & !ours,
            Role::Bishop => attacks::bishop_attacks(from, occupied) & !ours,
            Role::Rook => attacks::rook_attacks(from, occupied) & !ours,
            Role::Queen => attacks::queen_attacks(from, occupied) & !ours,
            Role::King => attacks::king_attacks(from) & !ours | self.rights & Bitboard::from_rank(S::COLOR.backrank()),
        };
        if !targets.contains(to) {
            return None;
        }
        let (index, n) = (count(targets & below(to)), count(targets));
        // All of a pawn's targets are on the last rank, or none.
        let promoting = role == Role::Pawn && from.rank() == S::COLOR.relative_rank(Rank::Seventh);
        let target = match (promoting, promotion) {
            (false, None) => (index, n),
            (true, Some(role)) => {
                let promoted = match role {
                    Role::Knight => 0,
                    Role::Bishop => 1,
                    Role::Rook => 2,
                    Role::Queen => 3,
                    Role::Pawn | Role::King => return None,
                };
                (4 * index + promoted, 4 * n)
            }
            _ => return None,
        };
        Some([piece, target])
    }

    /// The squares a pawn on `from` could go to: one step and two ahead to
    /// empty squares, and captures (en passant too).
    #[inline(always)]
    fn pawn_targets<S: Side>(&self, from: Square, occupied: Bitboard) -> Bitboard {
        let forward = if S::COLOR.is_white() { 8 } else { -8 };
        let single = Bitboard::from(from).shift(forward) & !occupied;
        let double = (single & Bitboard::from_rank(S::COLOR.relative_rank(Rank::Third))).shift(forward) & !occupied;
        single | double | attacks::pawn_attacks(S::COLOR, from) & (self.theirs | self.ep)
    }

    /// Plays a numbered move (`None`: the null move), `S` to move, as
    /// shakmaty does, on the squares kept. Castling is the king's move to
    /// a square of its own side, en passant a pawn's to the square passed
    /// over.
    #[inline(always)]
    fn play_moved<S: Side>(&mut self, moved: Option<Moved>) {
        let ep = std::mem::replace(&mut self.ep, Bitboard::EMPTY);
        if let Some(Moved { role, from, to, .. }) = moved {
            let squares = Bitboard::from(from) | Bitboard::from(to);
            // A rook that moves or is taken takes its castling right.
            self.rights &= !squares;
            if role == Role::King {
                self.rights &= !Bitboard::from_rank(S::COLOR.backrank());
            }
            if role == Role::King && self.ours.contains(to) {
                let side = CastlingSide::from_king_side(from < to);
                self.ours ^= squares;
                self.ours |= Bitboard::from(side.king_to(S::COLOR)) | Bitboard::from(side.rook_to(S::COLOR));
            } else {
                self.ours ^= squares;
                let taken = if role == Role::Pawn && ep.contains(to) {
                    Bitboard::from(Square::from_coords(to.file(), from.rank()))
                } else {
                    Bitboard::from(to)
                };
                let taken = self.theirs & taken;
                self.theirs ^= taken;
                self.their_count -= u64::from(taken.any());
                if role == Role::Pawn && u32::from(from) ^ u32::from(to) == 16 {
                    self.ep = Bitboard::from(Square::new((u32::from(from) + u32::from(to)) / 2));
                }
            }
        }
        std::mem::swap(&mut self.ours, &mut self.theirs);
        std::mem::swap(&mut self.our_count, &mut self.their_count);
    }
}

/// How many squares `squares` holds.
#[inline]
fn count(squares: Bitboard) -> u64 {
    u64::from(squares.0.count_ones())
}

/// The squares below `square` (a1 = 0 ... h8 = 63).
#[inline]
fn below(square: Square) -> Bitboard {
    Bitboard((1u64 << u32::from(square)) - 1)
}

/// Which text of a game goes into its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Text {
    /// The movetext, or the whole game when the movetext is empty.
    Movetext,
    /// The whole game, tags included.
    Whole,
}

/// The game's text for a key, up to its termination marker, white space
/// collapsed to single spaces.
fn push_text(bytes: &[u8], text: Text, out: &mut Vec<u8>) {
    let end = locate::scan(bytes, |_| {}).result_at.unwrap_or(bytes.len());
    let collapse = |start: usize| {
        let mut text = Vec::with_capacity(end.saturating_sub(start));
        for word in bytes[start.min(end)..end].split(u8::is_ascii_whitespace).filter(|w| !w.is_empty()) {
            if !text.is_empty() {
                text.push(b' ');
            }
            text.extend_from_slice(word);
        }
        text
    };
    let mut collapsed = match text {
        Text::Movetext => collapse(movetext_start(bytes)),
        Text::Whole => Vec::new(),
    };
    if collapsed.is_empty() {
        collapsed = collapse(0);
    }
    push_field(out, &collapsed);
}

/// A list of tag values: how many, then each.
fn push_values<'a>(out: &mut Vec<u8>, values: impl Iterator<Item = &'a str>) {
    let values: Vec<&str> = values.collect();
    push_varint(out, values.len() as u64);
    for value in values {
        push_field(out, value.as_bytes());
    }
}

/// Bytes with their length in front.
fn push_field(out: &mut Vec<u8>, bytes: &[u8]) {
    push_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// LEB128: seven bits a byte, low bits first.
fn push_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Reads a LEB128 number at `at`; returns it and where it ends.
fn read_varint(bytes: &[u8], mut at: usize) -> (u64, usize) {
    let (mut n, mut shift) = (0u64, 0);
    loop {
        let byte = bytes[at];
        at += 1;
        n |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return (n, at);
        }
        shift += 7;
    }
}

/// The hash of a key, as an [`Index`] with `hasher` computes it (so that
/// workers can hash keys in parallel, each with a clone of the hasher).
pub fn hash_key<S: BuildHasher>(hasher: &S, key: &[u8]) -> u64 {
    hasher.hash_one(key)
}

/// Where a game was read, kept as the payload of its first occurrence to
/// list copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occurrence {
    /// The input's number (0-based, in the order given).
    pub input: u32,
    /// The game's number in its input (1-based).
    pub game: u64,
    /// The line of the game's first byte (1-based).
    pub line: u64,
}

impl Occurrence {
    /// Appends the occurrence as a payload for [`Index::insert`].
    pub fn to_payload(&self, out: &mut Vec<u8>) {
        push_varint(out, u64::from(self.input));
        push_varint(out, self.game);
        push_varint(out, self.line);
    }

    /// Reads back what [`Occurrence::to_payload`] wrote.
    pub fn from_payload(bytes: &[u8]) -> Occurrence {
        let (input, at) = read_varint(bytes, 0);
        let (game, at) = read_varint(bytes, at);
        let (line, _) = read_varint(bytes, at);
        Occurrence { input: input as u32, game, line }
    }
}

/// A distinct key in an [`Index`]: ids grow in the order keys were first
/// inserted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RecordId(u64);

/// What [`Index::insert`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Insert {
    /// The key was not there; it is now.
    New(RecordId),
    /// The key was inserted before, as this record.
    Copy(RecordId),
}

/// The low 40 bits of a slot: where its record starts in the arena, plus 1
/// (0 is an empty slot).
const REF_BITS: u32 = 40;
const REF_MASK: u64 = (1 << REF_BITS) - 1;
/// The high bits of a slot: the top bits of its key's hash. A key's slot is
/// found from the top bits of its hash, so a table of up to 2^24 slots grows
/// without hashing its keys again.
const TAG_BITS: u32 = 64 - REF_BITS;

/// Where the search for a key of hash `hash` starts in a table of `2^bits`
/// slots: the top bits of the hash.
fn home(hash: u64, bits: u32) -> usize {
    (hash >> (64 - bits)) as usize
}

/// A set of keys that remembers, for each, the first record stored.
///
/// Memory per distinct key: its bytes, one or two bytes of length, the
/// payload with its length, and an 8-byte slot in a table kept between
/// three eighths and three quarters full (11 to 22 bytes per key).
#[derive(Debug, Clone)]
pub struct Index<S = RandomState> {
    /// 0, or the top 24 bits of the key's hash and its record's offset + 1.
    slots: Vec<u64>,
    /// Records back to back: key length, key, payload length, payload.
    arena: Vec<u8>,
    len: u64,
    hasher: S,
}

impl Default for Index {
    fn default() -> Self {
        Index::new()
    }
}

impl Index {
    /// An empty index with a randomly keyed SipHash: keys made to collide
    /// cannot slow it down.
    pub fn new() -> Self {
        Index::with_hasher(RandomState::new())
    }
}

impl<S: BuildHasher> Index<S> {
    /// An empty index hashing keys with `hasher`.
    pub fn with_hasher(hasher: S) -> Self {
        Index { slots: vec![0; 16], arena: Vec::new(), len: 0, hasher }
    }

    /// The hasher, for hashing keys elsewhere (see [`Index::insert_hashed`]).
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// The hash of `key`, as the index computes it.
    pub fn hash(&self, key: &[u8]) -> u64 {
        hash_key(&self.hasher, key)
    }

    /// Inserts `key` with `payload` (kept with the first occurrence only,
    /// not compared) unless it is there already.
    pub fn insert(&mut self, key: &[u8], payload: &[u8]) -> Insert {
        self.insert_hashed(self.hash(key), key, payload)
    }

    /// [`Index::insert`] with the key's hash computed already (by a clone
    /// of [`Index::hasher`], on another thread).
    pub fn insert_hashed(&mut self, hash: u64, key: &[u8], payload: &[u8]) -> Insert {
        debug_assert_eq!(hash, self.hash(key), "the hash is the index's hash of the key");
        if (self.len + 1) * 4 > self.slots.len() as u64 * 3 {
            self.grow();
        }
        let tag = hash >> REF_BITS;
        let mask = self.slots.len() - 1;
        let mut i = home(hash, self.slots.len().trailing_zeros());
        loop {
            let slot = self.slots[i];
            if slot == 0 {
                break;
            }
            if slot >> REF_BITS == tag {
                let offset = (slot & REF_MASK) - 1;
                if self.key_at(offset) == key {
                    return Insert::Copy(RecordId(offset));
                }
            }
            i = (i + 1) & mask;
        }
        let offset = self.arena.len() as u64;
        assert!(offset < REF_MASK, "the index holds at most 1 TiB of keys");
        push_field(&mut self.arena, key);
        push_field(&mut self.arena, payload);
        self.slots[i] = tag << REF_BITS | (offset + 1);
        self.len += 1;
        Insert::New(RecordId(offset))
    }

    /// The key of a record.
    pub fn key(&self, id: RecordId) -> &[u8] {
        self.key_at(id.0)
    }

    /// The payload stored with a record.
    pub fn payload(&self, id: RecordId) -> &[u8] {
        let (len, at) = read_varint(&self.arena, id.0 as usize);
        let (payload_len, at) = read_varint(&self.arena, at + len as usize);
        &self.arena[at..at + payload_len as usize]
    }

    /// How many distinct keys it holds.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes of memory in use: the slot table and the stored records.
    pub fn heap_bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<u64>() + self.arena.len()
    }

    fn key_at(&self, offset: u64) -> &[u8] {
        let (len, at) = read_varint(&self.arena, offset as usize);
        &self.arena[at..at + len as usize]
    }

    /// Doubles the table and puts every slot back: where the hash bits it
    /// keeps say (hashing every key again cost `dedup` nearly 1% of its
    /// instructions), or, in a table of more than 2^24 slots, where its
    /// key's hash says.
    fn grow(&mut self) {
        let size = self.slots.len() * 2;
        let (bits, mask) = (size.trailing_zeros(), size - 1);
        let mut slots = vec![0u64; size];
        for &slot in self.slots.iter().filter(|&&slot| slot != 0) {
            let mut i = if bits <= TAG_BITS {
                home(slot, bits)
            } else {
                home(hash_key(&self.hasher, self.key_at((slot & REF_MASK) - 1)), bits)
            };
            while slots[i] != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = slot;
        }
        self.slots = slots;
    }
}

#[cfg(test)]
mod tests {
    use std::{
        collections::HashMap,
        hash::{BuildHasher, Hasher},
        sync::Arc,
    };

    use shakmaty::{Chess, Color, Move, Position};

    use super::{By, Index, Insert, game_key, push_moves, push_varint, read_varint};
    use crate::{
        check::{GameReader, KeptTags, ReadOptions},
        frame::{Batch, Framer},
        game::Game,
        test_rng::Rng,
    };

    /// A hasher that gives every key the same hash: every insert probes
    /// through every key before it, and only the key comparison tells them
    /// apart.
    #[derive(Clone, Default)]
    struct SameHash;

    impl BuildHasher for SameHash {
        type Hasher = SameHasher;
        fn build_hasher(&self) -> SameHasher {
            SameHasher
        }
    }

    struct SameHasher;

    impl Hasher for SameHasher {
        fn finish(&self) -> u64 {
            0xdead_beef_0000_0042
        }
        fn write(&mut self, _: &[u8]) {}
    }

    #[test]
    fn keys_with_the_same_hash_are_told_apart_by_their_bytes() {
        let mut index = Index::with_hasher(SameHash);
        let keys: Vec<Vec<u8>> = (0u16..3000).map(|n| n.to_le_bytes().to_vec()).collect();
        for (n, key) in keys.iter().enumerate() {
            assert!(matches!(index.insert(key, &[]), Insert::New(_)), "key {n} is new");
        }
        assert_eq!(index.len(), 3000);
        for key in &keys {
            match index.insert(key, b"later") {
                Insert::Copy(first) => assert_eq!(index.key(first), &key[..]),
                Insert::New(_) => panic!("{key:?} was inserted before"),
            }
        }
        assert_eq!(index.len(), 3000);
    }

    #[test]
    fn game_keys_with_the_same_hash_stay_apart_unless_equal() {
        // Transpositions: the same final position, different move orders.
        let games = read_games(
            "1. Nf3 d5 2. d4 *\n\n1. d4 d5 2. Nf3 *\n\n1. d4 Nf6 2. Nf3 d5 *\n\n[White \"x\"]\n\n1. Nf3 d5 2. d4 1-0\n",
        );
        let mut index = Index::with_hasher(SameHash);
        let found: Vec<Insert> = games.iter().map(|g| index.insert(&key(g, By::Moves), &[])).collect();
        assert!(matches!(found[..3], [Insert::New(_), Insert::New(_), Insert::New(_)]), "{found:?}");
        assert_eq!(found[3], Insert::Copy(first_id(&found[0])));
    }

    fn first_id(insert: &Insert) -> super::RecordId {
        match insert {
            Insert::New(id) | Insert::Copy(id) => *id,
        }
    }

    /// A slot keeps enough of its key's hash to be placed in tables of up
    /// to 2^24 slots as the hash would place it; larger ones hash again.
    #[test]
    fn a_slot_is_placed_as_its_hash_in_tables_of_up_to_two_to_the_24_slots() {
        let mut rng = Rng(0x5107_5eed);
        for _ in 0..10_000 {
            let (hash, offset) = (rng.next(), rng.next() & super::REF_MASK);
            let slot = (hash >> super::REF_BITS) << super::REF_BITS | offset;
            for bits in 1..=super::TAG_BITS {
                assert_eq!(super::home(slot, bits), super::home(hash, bits), "{hash:x} in 2^{bits} slots");
            }
        }
    }

    #[test]
    fn payloads_stay_with_the_first_occurrence() {
        let mut index = Index::new();
        let Insert::New(a) = index.insert(b"a", b"first a") else { panic!() };
        let Insert::New(b) = index.insert(b"b", b"") else { panic!() };
        assert_eq!(index.insert(b"a", b"second a"), Insert::Copy(a));
        assert_eq!((index.payload(a), index.payload(b)), (&b"first a"[..], &b""[..]));
        assert!(a < b, "ids follow the order of first insertion");
    }

    #[test]
    fn occurrences_round_trip_through_payloads() {
        let at = super::Occurrence { input: 70_000, game: 1 << 40, line: 3 };
        let mut payload = Vec::new();
        at.to_payload(&mut payload);
        assert_eq!(super::Occurrence::from_payload(&payload), at);
    }

    #[test]
    fn varints_round_trip() {
        for n in [0, 1, 127, 128, 300, 1 << 35, u64::MAX] {
            let mut out = Vec::new();
            push_varint(&mut out, n);
            assert_eq!(read_varint(&out, 0), (n, out.len()));
        }
    }

    /// A million keys, a fifth of them copies of earlier ones: counts, the
    /// first occurrence of each copy, and the memory per distinct key.
    #[test]
    #[allow(clippy::print_stderr)] // the figure, for whoever runs the test
    fn a_million_games_with_copies_are_counted_exactly_in_little_memory() {
        const GAMES: usize = 1_000_000;
        // Game n % 5 == 4 repeats game n / 5 (itself maybe a repeat).
        let source = |mut n: usize| {
            while n % 5 == 4 {
                n /= 5;
            }
            n
        };
        // Keys shaped like real ones (KEY_MOVES, START_STANDARD, plies,
        // then about 5 bits a move) for 40 to 120 plies.
        let key_of = |n: usize, out: &mut Vec<u8>| {
            let mut rng = Rng((n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
            let plies = 40 + rng.below(81);
            out.clear();
            out.extend_from_slice(&[0, 0]);
            push_varint(out, plies as u64);
            let bytes = plies * 5 / 8 + 1;
            push_varint(out, bytes as u64);
            out.extend((0..bytes).map(|_| rng.next() as u8));
        };
        let mut index = Index::new();
        let mut key = Vec::new();
        let (mut key_bytes, mut copies) = (0usize, 0usize);
        let mut ids = vec![None; GAMES];
        for n in 0..GAMES {
            let first = source(n);
            key_of(first, &mut key);
            match index.insert(&key, &[]) {
                Insert::New(id) => {
                    assert_eq!(first, n, "game {n} is new");
                    key_bytes += key.len();
                    ids[n] = Some(id);
                }
                Insert::Copy(id) => {
                    assert_eq!(Some(id), ids[first], "game {n} is a copy of game {first}");
                    copies += 1;
                }
            }
        }
        assert_eq!((index.len() as usize, copies), (GAMES * 4 / 5, GAMES / 5));
        let distinct = index.len() as f64;
        let per_game = index.heap_bytes() as f64 / distinct;
        let overhead = per_game - key_bytes as f64 / distinct;
        // 2^21 slots for 800,000 keys (8 bytes each, 21 a key), and two
        // length bytes.
        assert!(overhead < 24.0, "{per_game:.1} bytes per game, {overhead:.1} beyond the key");
        eprintln!("{per_game:.1} bytes per distinct game ({:.1} of key)", key_bytes as f64 / distinct);
    }

    /// The games of `pgn`, read as `dedup` reads them.
    fn read_games(pgn: &str) -> Vec<Game> {
        let mut framer = Framer::new(pgn.as_bytes());
        let mut batch = Batch::default();
        let mut checker = reader();
        let mut games = Vec::new();
        while framer.next_batch(&mut batch).unwrap() {
            for raw in batch.games() {
                games.push(checker.read(&Arc::from("t.pgn"), raw, false));
            }
        }
        games
    }

    fn reader() -> GameReader {
        GameReader::new(ReadOptions { tags: KeptTags::named(&super::KEY_TAGS), ..ReadOptions::default() })
    }

    /// The keys of the games of `pgn`, read as `dedup` reads them.
    fn keys(pgn: &str, by: By) -> Vec<Vec<u8>> {
        let mut framer = Framer::new(pgn.as_bytes());
        let mut batch = Batch::default();
        let mut checker = reader();
        let mut keys = Vec::new();
        while framer.next_batch(&mut batch).unwrap() {
            for raw in batch.games() {
                let game = checker.read(&Arc::from("t.pgn"), raw, false);
                let mut key = Vec::new();
                game_key(&game, raw.bytes, by, &mut key);
                keys.push(key);
            }
        }
        keys
    }

    fn key(game: &Game, by: By) -> Vec<u8> {
        // Only the clean path is used here, which needs no text.
        assert!(game.report.valid);
        let mut key = Vec::new();
        game_key(game, b"", by, &mut key);
        key
    }

    /// The key of a game read from its text has its moves part made from
    /// the moves alone: long games, and random games from many starts
    /// written in SAN with their FEN, null moves included.
    #[test]
    fn a_game_read_has_the_moves_key_of_its_line() {
        let mut pgn = String::from("[Event \"long\"]\n\n");
        let cycle = ["Nf3", "Nf6", "Ng1", "Ng8"];
        for ply in 0..5001 {
            if ply % 2 == 0 {
                pgn.push_str(&format!("{}. ", ply / 2 + 1));
            }
            pgn.push_str(cycle[ply % 4]);
            pgn.push(' ');
        }
        pgn.push_str("1/2-1/2\n\n");
        let mut lines = vec![(Chess::default(), Vec::new())];
        let mut rng = Rng(0x51de_7a11_0000_0001);
        for fen in STARTS {
            let start = start(fen);
            for _ in 0..20 {
                let (line, _) = random_line(&mut rng, start.clone(), 150);
                pgn.push_str(&format!("[FEN \"{fen}\"]\n\n"));
                let mut pos = start.clone();
                for &step in &line {
                    match step {
                        Some(m) => pgn.push_str(&shakmaty::san::San::from_move(&pos, m).to_string()),
                        None => pgn.push_str("--"),
                    }
                    pgn.push(' ');
                    crate::game::play(&mut pos, step);
                }
                pgn.push_str("*\n\n");
                lines.push((start.clone(), line));
            }
        }
        let games = read_games(&pgn);
        assert_eq!(games.len(), lines.len());
        assert_eq!(games[0].mainline.nodes.len(), 5001);
        for (n, game) in games.iter().enumerate() {
            let line: Vec<Option<Move>> = game.mainline.nodes.iter().map(|n| n.step).collect();
            let start = game.start.as_ref().expect("replayed");
            if n > 0 {
                assert_eq!((start, &line), (&lines[n].0, &lines[n].1), "game {n} is read as written");
            }
            let moves = line_key(start, &line);
            let key = key(game, By::Moves);
            assert!(key.ends_with(&moves), "game {n}");
            if n == 0 {
                assert_eq!(key[2..], moves[..], "the standard start takes two bytes");
            }
        }
    }

    /// The moves part of the key of `line` played from `start`.
    fn line_key(start: &Chess, line: &[Option<Move>]) -> Vec<u8> {
        let mut pos = start.clone();
        for &step in line {
            assert!(crate::game::play(&mut pos, step), "{step:?} can be played");
        }
        let mut key = Vec::new();
        assert!(push_moves(start, line.iter().copied(), &mut key));
        key
    }

    /// Which games of `pgn` are copies of an earlier one: for each game, the
    /// index of the first game with its key.
    fn firsts(pgn: &str, by: By) -> Vec<usize> {
        let keys = keys(pgn, by);
        let mut seen = HashMap::new();
        keys.iter().enumerate().map(|(i, k)| *seen.entry(k.clone()).or_insert(i)).collect()
    }

    #[test]
    fn comments_variations_nags_results_and_move_numbers_do_not_count() {
        let pgn = "[Event \"a\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n\
                   [Event \"b\"]\n\n{start} 1.e4 $1 (1. d4) 1... e5 {x} 2 . Nf3 Nc6 !? 0-1\n\n\
                   1. e4 e5 2. Nf3 *\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 *\n";
        assert_eq!(firsts(pgn, By::Moves), [0, 0, 2, 3]);
    }

    #[test]
    fn tags_count_only_with_moves_and_tags() {
        let pgn = "[White \"a\"]\n[Black \"b\"]\n[Date \"2024.01.01\"]\n[Result \"1-0\"]\n[Event \"x\"]\n\n1. e4 1-0\n\n\
                   [White \"a\"]\n[Black \"b\"]\n[Date \"2024.01.01\"]\n[Result \"1-0\"]\n[Event \"y\"]\n\n1. e4 1-0\n\n\
                   [White \"a\"]\n[Black \"b\"]\n[Date \"2024.01.02\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n\
                   [White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n\
                   [White \"a\"]\n[Black \"b\"]\n[Date \"\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n";
        assert_eq!(firsts(pgn, By::Moves), [0, 0, 0, 0, 0]);
        assert_eq!(firsts(pgn, By::MovesAndTags), [0, 0, 2, 3, 4]);
    }

    #[test]
    fn the_start_position_counts_but_not_its_move_counters_nor_the_castling_notation() {
        let standard = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let pgn = format!(
            "1. Kd2 *\n\n[SetUp \"1\"]\n[FEN \"{standard}\"]\n\n1. Kd2 *\n\n\
             [FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n\n1. Kd2 *\n\n\
             [FEN \"4k3/8/8/8/8/8/8/4K3 w - - 7 40\"]\n\n40. Kd2 *\n\n\
             [FEN \"4k3/8/8/8/8/8/8/4K3 b - - 0 1\"]\n\n1... Kd7 *\n\n\
             [Variant \"Chess960\"]\n[FEN \"{standard}\"]\n\n1. Kd2 *\n\n\
             [FEN \"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\"]\n\n1. O-O *\n\n\
             [Variant \"Chess960\"]\n[FEN \"r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1\"]\n\n1. O-O *\n\n\
             [FEN \"r3k2r/8/8/8/8/8/8/R3K2R w Kkq - 0 1\"]\n\n1. O-O *\n\n\
             [FEN \"4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2\"]\n\n2. Kd2 *\n\n\
             [FEN \"4k3/8/8/3pP3/8/8/8/4K3 w - - 0 2\"]\n\n2. Kd2 *\n\n\
             [FEN \"4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1\"]\n\n1... Kd7 *\n\n\
             [FEN \"4k3/8/8/8/4P3/8/8/4K3 b - - 0 1\"]\n\n1... Kd7 *\n"
        );
        // An en passant square counts only when a capture is legal: `d6`
        // does (e5xd6), `e3` (no Black pawn can take) does not.
        assert_eq!(firsts(&pgn, By::Moves), [0, 0, 2, 2, 4, 0, 6, 6, 8, 9, 10, 11, 11]);
    }

    #[test]
    fn a_game_not_replayed_to_its_end_is_a_copy_only_of_the_same_text() {
        let pgn = "1. e4 e5 2. Ke3 Nc6 *\n\n\
                   1. e4 e5 2. Ke3 Nc6 *\n\n\
                   [Event \"other tags, same text\"]\n\n1. e4   e5\n2. Ke3 Nc6 1-0\n\n\
                   1. e4 e5 2. Ke3 Nf6 *\n\n\
                   1. e4 e5 *\n\n\
                   1. e4 e5 2. Ke3 {a comment} Nc6 *\n\n\
                   [Variant \"Atomic\"]\n\n1. e4 e5 *\n\n\
                   [Variant \"Atomic\"]\n\n1. e4 e5 *\n\n\
                   [Variant \"Crazyhouse\"]\n\n1. e4 e5 *\n\n\
                   [FEN \"broken\"]\n\n1. e4 e5 *\n\n\
                   [FEN \"broken too\"]\n\n1. e4 e5 *\n";
        assert_eq!(firsts(pgn, By::Moves), [0, 0, 0, 3, 4, 5, 6, 6, 8, 9, 10]);
    }

    #[test]
    fn games_without_moves_are_copies_only_of_the_same_text() {
        let pgn = "[White \"a\"]\n[Black \"b\"]\n\n1-0\n\n[White \"c\"]\n[Black \"d\"]\n\n1-0\n\n\
                   [White \"a\"]\n[Black  \"b\"]\n\n1-0\n\n[White \"a\"]\n[Black \"b\"]\n\n{abandoned} 1-0\n\n\
                   [Variant \"Atomic\"]\n[White \"a\"]\n\n*\n\n[Variant \"Atomic\"]\n[White \"c\"]\n\n*\n\n\
                   [White \"a\"]\n[Black \"b\"]\n\n1. e4 1-0\n\n[White \"c\"]\n[Black \"d\"]\n\n1. e4 1-0\n";
        // White space aside, the third is the first; a game with one move
        // is compared by its moves.
        assert_eq!(firsts(pgn, By::Moves), [0, 1, 0, 3, 4, 5, 6, 6]);
    }

    #[test]
    fn a_game_with_an_error_after_its_moves_does_not_match_the_clean_game() {
        // Checkmate scored as a draw: replayed to the end, but invalid.
        let pgn = "1. f3 e5 2. g4 Qh4# 0-1\n\n1. f3 e5 2. g4 Qh4# 1/2-1/2\n\n1. f3 e5 2. g4 Qh4# 1/2-1/2\n";
        assert_eq!(firsts(pgn, By::Moves), [0, 1, 1]);
    }

    #[test]
    fn null_moves_promotions_castling_and_en_passant_are_told_apart() {
        let pgn = "1. e4 -- 2. d4 *\n\n1. e4 e6 2. d4 *\n\n1. e4 -- 2. d4 *\n\n\
                   [FEN \"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1\"]\n\n1. b8=Q *\n\n\
                   [FEN \"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1\"]\n\n1. b8=N *\n\n\
                   [FEN \"r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1\"]\n\n1. O-O O-O-O *\n\n\
                   [FEN \"r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1\"]\n\n1. Kf1 Kd8 *\n\n\
                   [FEN \"4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1\"]\n\n1. exd6 *\n\n\
                   [FEN \"4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1\"]\n\n1. e6 *\n";
        assert_eq!(firsts(pgn, By::Moves), [0, 1, 0, 3, 4, 5, 6, 7, 8]);
    }

    /// Every line of up to four plies from the start (all 197,281 of
    /// them, plus the shorter ones) gets a key of its own.
    #[test]
    fn every_line_of_four_plies_has_its_own_key() {
        fn walk(pos: &Chess, line: &mut Vec<Option<Move>>, depth: u32, keys: &mut std::collections::HashSet<Vec<u8>>) {
            assert!(keys.insert(line_key(&Chess::default(), line)), "a second line with the key of {line:?}");
            if depth == 0 {
                return;
            }
            for m in pos.legal_moves() {
                let mut next = pos.clone();
                next.play_unchecked(m);
                line.push(Some(m));
                walk(&next, line, depth - 1, keys);
                line.pop();
            }
        }
        let mut keys = std::collections::HashSet::new();
        walk(&Chess::default(), &mut Vec::new(), 4, &mut keys);
        assert_eq!(keys.len(), 1 + 20 + 400 + 8902 + 197_281);
    }

    /// Random long games from many starts (null moves included) and the
    /// same games going another way from a random ply on: different lines
    /// never share a key, whichever 64-bit word the parting falls in, and
    /// a line's key is the same every time.
    #[test]
    fn random_long_lines_that_part_anywhere_have_different_keys() {
        let mut rng = Rng(0x5eed_1234_abcd_0001);
        let (mut long, mut parted) = (0, 0);
        for fen in STARTS {
            let start = start(fen);
            for _ in 0..100 {
                let (line, _) = random_line(&mut rng, start.clone(), 200);
                let key = line_key(&start, &line);
                assert_eq!(line_key(&start, &line), key);
                // Beyond a word of moves.
                long += usize::from(key.len() > 2 + 2 + 8);
                let at = rng.below(line.len().max(1));
                // Replay the prefix, then choose another move there.
                let mut pos = start.clone();
                for &step in &line[..at] {
                    crate::game::play(&mut pos, step);
                }
                let (rest, _) = random_line(&mut rng, pos, 200 - at);
                let mut other = line[..at].to_vec();
                other.extend(rest);
                let other_key = line_key(&start, &other);
                assert_eq!(key == other_key, line == other, "at ply {at} from {fen}");
                parted += usize::from(line != other);
            }
        }
        assert!(long > 400 && parted > 450, "only {long} lines span several words, {parted} part");
    }

    /// Starts with castling both ways in both modes, en passant and
    /// promotions near.
    const STARTS: [&str; 5] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/pPp2ppp/8/3pP3/8/8/P1P2PpP/R3K2R w KQkq d6 0 1",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        "1r2k1r1/P6P/8/8/8/8/p6p/1R2K1R1 b GBgb - 0 1",
        "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
    ];

    fn start(fen: &str) -> Chess {
        let setup: shakmaty::fen::Fen = fen.parse().unwrap();
        let mode = shakmaty::CastlingMode::detect(setup.as_setup());
        setup.into_position(mode).unwrap()
    }

    /// In positions of random games from many starts (castling both ways
    /// in both modes, en passant, promotions, checks), every legal move and
    /// the null move get digits of their own, each below its radix; the
    /// first radix is the position's, the second the same for every move of
    /// one piece: what makes different lines' keys different.
    #[test]
    fn every_legal_move_of_random_positions_gets_its_own_digits_below_their_radices() {
        let mut rng = Rng(0x0dd_ba11_cafe_f00d);
        let (mut positions, mut promotions, mut castles, mut en_passant) = (0, 0, 0, 0);
        for fen in STARTS {
            let start = start(fen);
            for _ in 0..40 {
                let mut pos = start.clone();
                let mut squares = super::Squares::new(&pos);
                for _ in 0..120 {
                    let legal = pos.legal_moves();
                    let mut digits = std::collections::HashSet::new();
                    let mut second_radix = HashMap::new();
                    let steps = legal.iter().map(|&m| Some(m)).chain((!pos.is_check()).then_some(None));
                    for step in steps {
                        let at = crate::notation::fen(&pos);
                        let [(piece, pieces), (target, targets)] =
                            number(&squares, pos.turn(), step).expect("a legal move is numbered");
                        assert!(piece < pieces && target < targets, "{step:?} in {at}");
                        assert_eq!(pieces, pos.us().count() as u64 + 1, "{at}");
                        assert_eq!(*second_radix.entry(piece).or_insert(targets), targets, "{step:?} in {at}");
                        assert!(digits.insert((piece, target)), "{step:?} shares its digits in {at}");
                        promotions += usize::from(step.is_some_and(|m| m.is_promotion()));
                        castles += usize::from(step.is_some_and(|m| m.is_castle()));
                        en_passant += usize::from(step.is_some_and(|m| m.is_en_passant()));
                    }
                    positions += 1;
                    if legal.is_empty() {
                        break;
                    }
                    let step = Some(legal[rng.below(legal.len())]);
                    play(&mut squares, pos.turn(), step);
                    crate::game::play(&mut pos, step);
                }
            }
        }
        assert!(positions > 10_000, "{positions} positions");
        assert!(promotions > 500 && castles > 500 && en_passant > 20, "{promotions} {castles} {en_passant}");
    }

    /// The squares kept move by move are those of the position reached, on
    /// random games from many starts with null moves.
    #[test]
    fn the_squares_kept_are_those_of_the_position_played_to() {
        let mut rng = Rng(0x7ac4_0000_5eed_0002);
        let mut plies = 0;
        for fen in STARTS {
            let start = start(fen);
            for _ in 0..40 {
                let (line, _) = random_line(&mut rng, start.clone(), 200);
                let mut pos = start.clone();
                let mut squares = super::Squares::new(&pos);
                for &step in &line {
                    play(&mut squares, pos.turn(), step);
                    crate::game::play(&mut pos, step);
                    let board = pos.board();
                    let at = crate::notation::fen(&pos);
                    assert_eq!(
                        (squares.ours, squares.theirs),
                        (board.by_color(pos.turn()), board.by_color(!pos.turn()))
                    );
                    assert_eq!((squares.our_count, squares.their_count), (count(squares.ours), count(squares.theirs)));
                    assert_eq!(squares.rights, pos.castles().castling_rights(), "{at}");
                    let ep = pos.ep_square(shakmaty::EnPassantMode::Always);
                    assert_eq!(squares.ep, ep.map_or(shakmaty::Bitboard::EMPTY, shakmaty::Bitboard::from), "{at}");
                    plies += 1;
                }
            }
        }
        assert!(plies > 20_000, "{plies} plies");
    }

    fn count(squares: shakmaty::Bitboard) -> u64 {
        super::count(squares)
    }

    /// [`super::Squares::number`] with `turn` to move.
    fn number(squares: &super::Squares, turn: Color, step: Option<Move>) -> Option<[(u64, u64); 2]> {
        match turn {
            Color::White => squares.number::<super::White>(step),
            Color::Black => squares.number::<super::Black>(step),
        }
    }

    /// [`super::Squares::play`] with `turn` to move.
    fn play(squares: &mut super::Squares, turn: Color, step: Option<Move>) {
        match turn {
            Color::White => squares.play::<super::White>(step),
            Color::Black => squares.play::<super::Black>(step),
        }
    }

    /// Up to `plies` random legal moves (one in ten a null move when legal).
    fn random_line(rng: &mut Rng, mut pos: Chess, plies: usize) -> (Vec<Option<Move>>, Chess) {
        let mut line = Vec::new();
        for _ in 0..plies {
            let legal = pos.legal_moves();
            let step = if rng.below(10) == 0 && !pos.is_check() {
                None
            } else if legal.is_empty() {
                break;
            } else {
                Some(legal[rng.below(legal.len())])
            };
            if !crate::game::play(&mut pos, step) {
                break;
            }
            line.push(step);
        }
        (line, pos)
    }
}
