//! A game's comments, NAGs and variations as one flat tape of bytes, in the
//! order PGN writes them: no input can make it deep (nothing walks it by
//! recursion) or heavy (a `{c}` takes 3 bytes, a move of a variation 3).
//!
//! The tape holds, in input order:
//! * `MAIN`: the next move of the main line (the moves themselves are the
//!   main line's nodes); what follows it, up to the next `MAIN`, is that
//!   move's notes;
//! * a move of a variation (3 bytes, first byte `0x80` and up) or `NULL`;
//! * `NAG n`, `COMMENT len text` (text as written, white space collapsed);
//! * `OPEN len` then the variation's own items (`len` bytes of them, in
//!   one byte when under 256, else four, so a reader steps over a variation
//!   at once): a variation of the move just before it, played from the
//!   position before that move;
//! * `STOP`: why a variation stops early (its last item), as the token that
//!   could not be played, so that the note is made again only when written.
//!
//! Comments before the first move of a line come before it on the tape.

use std::borrow::Cow;

use shakmaty::{Chess, Move, Position, Role, Square, san::San};

use crate::{
    notation::{self, Leniency, pass, read_move_at, strip_move_number},
    text::token_text,
};

const MAIN: u8 = 1;
const NAG: u8 = 2;
const COMMENT: u8 = 3;
const OPEN: u8 = 4;
const NULL: u8 = 5;
const STOP: u8 = 6;
/// `OPEN` with a one-byte length, for a variation of under 256 bytes.
const OPEN_SHORT: u8 = 7;
/// A variation move's first byte has this bit set.
const MOVE: u8 = 0x80;

/// Bytes of an `OPEN` item: the tag and the length of what follows.
const OPEN_LEN: usize = 5;

/// Flags of a `STOP` item.
const STOP_TOO_DEEP: u8 = 1;
const STOP_UTF8: u8 = 2;
const STOP_GLUED_EP: u8 = 4;

/// Variations nested deeper than this are not read: each open one holds
/// its positions while it is read and written, so a `((((...` of millions
/// would take gigabytes. Real games nest a dozen deep at most.
pub const MAX_DEPTH: usize = 1000;

/// The comments, NAGs and variations of a game (see the module's doc).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Notes {
    tape: Vec<u8>,
}

/// One item of the tape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item<'a> {
    /// The next main-line move; its notes follow.
    Main,
    /// A move of a variation (`None`: a null move).
    Move(Option<Move>),
    /// A NAG of the move before it.
    Nag(u8),
    /// A comment (after the move before it, or before a line's first move).
    Comment(&'a str),
    /// A variation: its items are `body` (tape offsets).
    Open {
        /// Where its items start and end on the tape.
        body: std::ops::Range<usize>,
    },
    /// Why the variation stops here.
    Stop(Stop<'a>),
}

/// Why a variation stops early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stop<'a> {
    flags: u8,
    token: &'a [u8],
}

impl Stop<'_> {
    /// The note written where the variation stops, made again from the
    /// position the token was read in, as when it was read.
    pub fn note(&self, pos: &Chess) -> String {
        if self.flags & STOP_TOO_DEEP != 0 {
            return format!("pgnkit: variations nested more than {MAX_DEPTH} deep are not read");
        }
        let mut bytes = self.token.to_vec();
        if self.flags & STOP_GLUED_EP != 0 {
            bytes.extend_from_slice(b".p.");
        }
        let shown = token_text(self.token, self.flags & STOP_UTF8 != 0);
        match read_move_at(&bytes, 0, self.token.len()) {
            None => format!("pgnkit: `{shown}` is not a move"),
            Some(san) => match variation_move(pos, san.san, self.token) {
                Err(why) => format!("pgnkit: `{shown}` cannot be played: {why}"),
                // Not reached: the token was refused in this position.
                Ok(_) => format!("pgnkit: `{shown}` is not read"),
            },
        }
    }
}

impl Notes {
    pub(crate) fn main(&mut self) {
        self.tape.push(MAIN);
    }

    pub(crate) fn step(&mut self, step: Option<Move>) {
        match step {
            None => self.tape.push(NULL),
            Some(m) => {
                let bits = pack(m);
                self.tape.extend_from_slice(&[MOVE | (bits >> 16) as u8, (bits >> 8) as u8, bits as u8]);
            }
        }
    }

    pub(crate) fn nag(&mut self, nag: u8) {
        self.tape.extend_from_slice(&[NAG, nag]);
    }

    pub(crate) fn comment(&mut self, text: &str) {
        self.tape.push(COMMENT);
        self.text(text.as_bytes());
    }

    /// Opens a variation; returns where, for [`Notes::close`].
    pub(crate) fn open(&mut self) -> usize {
        let at = self.tape.len();
        self.tape.extend_from_slice(&[OPEN, 0, 0, 0, 0]);
        at
    }

    /// Closes the variation opened at `at`; one with nothing in it is
    /// dropped.
    pub(crate) fn close(&mut self, at: usize) {
        let len = self.tape.len() - at - OPEN_LEN;
        if len == 0 {
            self.tape.truncate(at);
            return;
        }
        // A short one's length takes one byte: `(d4)` takes 5 bytes, not 8.
        // Moving it back costs at most 255 bytes a variation.
        if let Ok(short) = u8::try_from(len) {
            self.tape[at] = OPEN_SHORT;
            self.tape[at + 1] = short;
            self.tape.copy_within(at + OPEN_LEN.., at + 2);
            self.tape.truncate(at + 2 + len);
            return;
        }
        // A game is at most 4 GiB (`--max-game-size`), its tape as much.
        let len = u32::try_from(len).unwrap_or(u32::MAX);
        self.tape[at + 1..at + OPEN_LEN].copy_from_slice(&len.to_le_bytes());
    }

    /// A variation stops before `token` (its bytes as written; `glued_ep`:
    /// an `e.p.` followed it without a space).
    pub(crate) fn stop(&mut self, token: &[u8], utf8: bool, glued_ep: bool) {
        let flags = if utf8 { STOP_UTF8 } else { 0 } | if glued_ep { STOP_GLUED_EP } else { 0 };
        self.tape.extend_from_slice(&[STOP, flags]);
        self.text(token);
    }

    /// A variation stops as it is nested too deep.
    pub(crate) fn stop_too_deep(&mut self) {
        self.tape.extend_from_slice(&[STOP, STOP_TOO_DEEP]);
        self.text(b"");
    }

    /// A length (LEB128) and the bytes.
    fn text(&mut self, bytes: &[u8]) {
        let mut len = bytes.len();
        while len >= 0x80 {
            self.tape.push(len as u8 | 0x80);
            len >>= 7;
        }
        self.tape.push(len as u8);
        self.tape.extend_from_slice(bytes);
    }

    /// The item at `at` and where the next one starts; a variation's next
    /// is the first of its items.
    pub fn item(&self, at: usize) -> (Item<'_>, usize) {
        let tape = &self.tape;
        let tag = tape[at];
        match tag {
            MAIN => (Item::Main, at + 1),
            NULL => (Item::Move(None), at + 1),
            NAG => (Item::Nag(tape[at + 1]), at + 2),
            OPEN => {
                let len = u32::from_le_bytes([tape[at + 1], tape[at + 2], tape[at + 3], tape[at + 4]]) as usize;
                let start = at + OPEN_LEN;
                (Item::Open { body: start..start + len }, start)
            }
            OPEN_SHORT => {
                let start = at + 2;
                (Item::Open { body: start..start + usize::from(tape[at + 1]) }, start)
            }
            COMMENT => {
                let (bytes, next) = self.bytes_at(at + 1);
                // Written from a `&str` only.
                (Item::Comment(std::str::from_utf8(bytes).unwrap_or_default()), next)
            }
            STOP => {
                let (token, next) = self.bytes_at(at + 2);
                (Item::Stop(Stop { flags: tape[at + 1], token }), next)
            }
            _ => {
                let bits = u32::from(tag & !MOVE) << 16 | u32::from(tape[at + 1]) << 8 | u32::from(tape[at + 2]);
                (Item::Move(Some(unpack(bits))), at + 3)
            }
        }
    }

    fn bytes_at(&self, mut at: usize) -> (&[u8], usize) {
        let (mut len, mut shift) = (0usize, 0);
        loop {
            let byte = self.tape[at];
            at += 1;
            len |= usize::from(byte & 0x7f) << shift;
            shift += 7;
            if byte < 0x80 {
                break;
            }
        }
        (&self.tape[at..at + len], at + len)
    }

    /// Every item, variations' included, in tape order.
    pub fn items(&self) -> impl Iterator<Item = Item<'_>> {
        let mut at = 0;
        std::iter::from_fn(move || {
            (at < self.tape.len()).then(|| {
                let (item, next) = self.item(at);
                at = next;
                item
            })
        })
    }

    /// The items of one line from `at` to `end`, variations stepped over
    /// (given as one `Open` each), with where each starts.
    pub fn line(&self, at: usize, end: usize) -> impl Iterator<Item = (usize, Item<'_>)> {
        let mut at = at;
        std::iter::from_fn(move || {
            (at < end).then(|| {
                let (item, next) = self.item(at);
                let here = at;
                at = match &item {
                    Item::Open { body } => body.end,
                    _ => next,
                };
                (here, item)
            })
        })
    }

    /// The end of the tape.
    pub fn end(&self) -> usize {
        self.tape.len()
    }
}

/// A move in 23 bits: its kind (2), then its squares and roles.
fn pack(m: Move) -> u32 {
    let sq = |s: Square| s as u32;
    let role = |r: Option<Role>| r.map_or(0, |r| r as u32);
    match m {
        Move::Normal { role: r, from, capture, to, promotion } => {
            (r as u32) << 18 | sq(from) << 12 | role(capture) << 9 | sq(to) << 3 | role(promotion)
        }
        Move::EnPassant { from, to } => 1 << 21 | sq(from) << 6 | sq(to),
        Move::Castle { king, rook } => 2 << 21 | sq(king) << 6 | sq(rook),
        // Not a move of chess: written as a null move would be, never
        // made by the checker.
        Move::Put { .. } => 3 << 21,
    }
}

fn unpack(bits: u32) -> Move {
    let sq = |shift: u32| Square::new((bits >> shift) & 63);
    let role = |shift: u32| Role::try_from((bits >> shift) & 7).ok();
    match bits >> 21 {
        0 => Move::Normal {
            role: role(18).unwrap_or(Role::Pawn),
            from: sq(12),
            capture: role(9),
            to: sq(3),
            promotion: role(0),
        },
        1 => Move::EnPassant { from: sq(6), to: sq(0) },
        2 => Move::Castle { king: sq(6), rook: sq(0) },
        _ => Move::Put { role: Role::Pawn, to: Square::A1 },
    }
}

/// Plays a move or, for `None`, a null move; false when a null move cannot
/// be played (the side to move is in check).
pub fn play(pos: &mut Chess, step: Option<Move>) -> bool {
    match step {
        Some(m) => {
            pos.play_unchecked(m);
            true
        }
        None => match pass(pos) {
            Some(next) => {
                *pos = next;
                true
            }
            None => false,
        },
    }
}

/// The variation move `san`, written `raw`, in `pos` (`None`: a null
/// move), read as the main line's moves are ([`notation::read_in`]), with
/// what was let through to read it; or why it cannot be played there.
pub(crate) fn variation_move(pos: &Chess, san: San, raw: &[u8]) -> Result<(Option<Move>, Option<Leniency>), String> {
    if san == San::Null {
        return if pos.is_check() { Err("a null move while in check".to_owned()) } else { Ok((None, None)) };
    }
    let token = || Cow::Borrowed(strip_move_number(raw));
    notation::read_in(pos, Some(san), None, token).map(|read| (Some(read.m), read.leniency)).map_err(|err| err.message)
}

#[cfg(test)]
mod tests {
    use shakmaty::{Chess, Position};

    use super::{Item, Notes, pack, unpack};
    use crate::test_rng::Rng;

    #[test]
    fn every_move_of_random_games_packs_and_unpacks_to_itself() {
        let mut rng = Rng(0x7a9e_0000_1234_5678);
        let mut moves = 0;
        for _ in 0..200 {
            let mut pos = Chess::default();
            for _ in 0..200 {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                for &m in &legal {
                    assert_eq!(unpack(pack(m)), m);
                    moves += 1;
                }
                let m = legal[rng.below(legal.len())];
                pos.play_unchecked(m);
            }
        }
        assert!(moves > 100_000, "only {moves} moves");
    }

    #[test]
    fn items_come_back_as_written_and_a_variation_is_stepped_over_whole() {
        let e4 = Chess::default().legal_moves().into_iter().find(|m| m.to().to_string() == "e4").unwrap();
        let mut notes = Notes::default();
        notes.comment("before");
        notes.main();
        notes.nag(1);
        let open = notes.open();
        notes.step(Some(e4));
        notes.comment(&"long ".repeat(100));
        let inner = notes.open();
        notes.step(None);
        notes.close(inner);
        let empty = notes.open();
        notes.close(empty);
        notes.close(open);
        notes.main();
        let all: Vec<Item<'_>> = notes.items().collect();
        assert_eq!(all.len(), 9, "{all:?}");
        assert_eq!(all[0], Item::Comment("before"));
        assert_eq!(all[5], Item::Comment(&"long ".repeat(100)));
        let main: Vec<Item<'_>> = notes.line(0, notes.end()).map(|(_, item)| item).collect();
        assert_eq!(main.len(), 5, "{main:?}");
        assert!(matches!(main[3], Item::Open { ref body } if body.end == notes.end() - 1));
        assert_eq!(main[4], Item::Main);
    }
}
