//! Where things are inside one framed game: movetext tokens with their byte
//! offsets, and byte offsets turned into line and column.
//!
//! The framer counts each game's tokens and notes its long comments as it
//! reads it; [`count_eliding_comments`] is that walk's definition (a test
//! holds the framer to it) and counts the games the framer could not (a cut
//! game). The token lists are made only on the error path. Tokens are read
//! with the framer's lexer, so both see the same tokens.

use crate::frame::lexer::{BOM, TokenClass, byte_set, classify_token, is_blank, nag_number, scan_tag_line, token_len};

/// What a located token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// Anything the parser tries to read as a move (valid or not).
    Move,
    /// A `)` with no open variation.
    StrayClose,
    /// An evaluation symbol written as text (`+-`, `RR`).
    Annotation,
    /// `e.p.` or `ep` after an en passant capture.
    EnPassantMark,
}

/// A movetext token and where it is in the game's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// Byte offset in the game.
    pub offset: usize,
    /// Length in bytes.
    pub len: usize,
    /// Variation depth (0: main line).
    pub depth: u32,
    /// Move or stray parenthesis.
    pub kind: TokenKind,
}

/// The tokens of a game's movetext, plus what was left open at its end.
#[derive(Debug, Clone, Default)]
pub struct Tokens {
    /// Move-like tokens, stray `)` and textual annotations, in order.
    pub tokens: Vec<Token>,
    /// Offset of a `{` never closed.
    pub open_comment: Option<usize>,
    /// The `(` never closed.
    pub open_variations: OpenVariations,
    /// Offset of the termination marker, if any.
    pub result_at: Option<usize>,
    /// Tag lines that are not `[Name "value"]`: offset and why.
    pub bad_tags: Vec<(usize, String)>,
}

/// The variations open at a point of a scan: how many, and where the
/// outermost opened. Only the outermost is ever named (an unclosed
/// `((((...` can open millions), so the others' offsets are not kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpenVariations {
    /// Offset of the outermost `(` open.
    pub outermost: Option<usize>,
    /// How many are open.
    pub depth: usize,
}

impl OpenVariations {
    fn push(&mut self, offset: usize) {
        if self.depth == 0 {
            self.outermost = Some(offset);
        }
        self.depth += 1;
    }

    fn pop(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        if self.depth == 0 {
            self.outermost = None;
        }
    }

    fn is_empty(&self) -> bool {
        self.depth == 0
    }
}

/// One thing found in a game's movetext, with its byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A move-like token, stray `)` or textual annotation.
    Token(Token),
    /// A `{...}` or `;` comment: the bytes of its text, without delimiters.
    Comment {
        /// Offset of the text.
        offset: usize,
        /// Length of the text.
        len: usize,
    },
    /// A `$n` NAG or a run of `!` and `?` (the whole token).
    Nag {
        /// Offset of the token.
        offset: usize,
        /// Length of the token.
        len: usize,
    },
    /// A `(` opening a variation.
    Open(usize),
    /// A `)` closing one.
    Close(usize),
}

/// Reads the movetext tokens of one framed game.
pub fn tokens(game: &[u8]) -> Tokens {
    let mut tokens = Vec::new();
    let mut out = scan(game, |event| {
        if let Event::Token(t) = event {
            tokens.push(t);
        }
    });
    out.tokens = tokens;
    out
}

/// The move-like tokens of a game's movetext, as the parser should read them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Move-like tokens of the main line (a stray `)` among them).
    pub mainline: u32,
    /// Move-like tokens inside variations.
    pub variations: u32,
    /// An evaluation symbol written as text (`+-`, `RR`) stands somewhere.
    pub annotation: bool,
    /// A `$` token that is not a NAG (`$256`) stands somewhere.
    pub bad_nag: bool,
    /// An `e.p.` or `ep` token stands somewhere.
    pub en_passant_mark: bool,
}

impl Counts {
    /// Move-like tokens in all.
    pub fn moves(self) -> u32 {
        self.mainline + self.variations
    }
}

/// Counts the tokens of one framed game (or of the start of one).
pub fn count(game: &[u8]) -> Counts {
    count_from(game, 0)
}

/// Counts the tokens of one framed game whose movetext starts at
/// `movetext` ([`crate::frame::Frame::movetext`]): the tags are not read
/// again.
pub fn count_from(game: &[u8], movetext: usize) -> Counts {
    count_seeing_comments(game, movetext, |_, _| {})
}

/// [`count_from`], and into `elided` the game with each long `{...}` comment
/// of its movetext replaced by a space, or nothing when it has none.
///
/// A parser that ignores comments can read `elided` instead of the game:
/// to pgn-reader a comment only ends the token before it, as the space
/// does, and a comment never closed is left in place. On engine games,
/// where comments are nine tenths of the bytes, the parser then no longer
/// copies and searches every comment after this walk already has.
#[inline(never)]
pub fn count_eliding_comments(game: &[u8], movetext: usize, elided: &mut Vec<u8>) -> Counts {
    elided.clear();
    let mut elider = Elider { game, elided, copied: 0 };
    let counts = count_seeing_comments(game, movetext, |offset, len| elider.comment(offset, len));
    if elider.copied > 0 {
        elider.elided.extend_from_slice(&game[elider.copied..]);
    }
    counts
}

/// The game with each of `comments` (offset of the `{`, length with the
/// braces, in order: [`crate::frame::RawGame::long_comments`]) replaced by
/// a space, into `elided`; nothing when there are none. What
/// [`count_eliding_comments`] writes, from the framer's list.
pub fn elide(game: &[u8], comments: &[(usize, usize)], elided: &mut Vec<u8>) {
    elided.clear();
    if comments.is_empty() {
        return;
    }
    let mut copied = 0;
    for &(at, len) in comments {
        elided.extend_from_slice(&game[copied..at]);
        elided.push(b' ');
        copied = at + len;
    }
    elided.extend_from_slice(&game[copied..]);
}

/// Shorter comments are left in place: cutting one out costs about what
/// the parser's pass over it does (clock comments, `{ [%clk 0:03:00] }`).
pub(crate) const ELIDED_COMMENT: usize = 64;

struct Elider<'a> {
    game: &'a [u8],
    elided: &'a mut Vec<u8>,
    /// Bytes of `game` before this offset are in `elided` (0: none yet).
    copied: usize,
}

impl Elider<'_> {
    // Kept out of the token walk, which is only fast inlined whole.
    #[inline(never)]
    fn comment(&mut self, offset: usize, len: usize) {
        if len >= ELIDED_COMMENT && self.game[offset - 1] == b'{' {
            self.elided.extend_from_slice(&self.game[self.copied..offset - 1]);
            self.elided.push(b' ');
            self.copied = offset + len + 1;
        }
    }
}

/// [`count_from`], handing the offset and length of each comment's text to
/// `comment`.
#[inline(always)]
fn count_seeing_comments(game: &[u8], movetext: usize, mut comment: impl FnMut(usize, usize)) -> Counts {
    let mut counts = Counts::default();
    scan_from(game, movetext.min(game.len()), |event| match event {
        Event::Token(t) => match t.kind {
            TokenKind::Annotation => counts.annotation = true,
            TokenKind::EnPassantMark => counts.en_passant_mark = true,
            _ if t.depth == 0 => counts.mainline += 1,
            _ => counts.variations += 1,
        },
        Event::Comment { offset, len } => comment(offset, len),
        Event::Nag { offset, len } if game[offset] == b'$' && nag_number(&game[offset..offset + len]).is_none() => {
            counts.bad_nag = true;
        }
        _ => {}
    });
    counts
}

/// Walks one framed game's movetext and hands every event to `visit`, in
/// order; returns what the walk found besides (its `tokens` left empty).
pub fn scan(game: &[u8], visit: impl FnMut(Event)) -> Tokens {
    scan_from(game, 0, visit)
}

/// [`scan`] from offset `from`, a place between tokens.
fn scan_from(game: &[u8], from: usize, mut visit: impl FnMut(Event)) -> Tokens {
    let mut out = Tokens::default();
    let mut i = from;
    if from == 0 || game[from - 1] == b'\n' {
        i = line_begin(game, i, &mut out);
    }
    while i < game.len() {
        let b = game[i];
        // Spaces and move-number dots are most of the bytes between tokens.
        if b == b' ' || b == b'.' {
            i += 1;
            continue;
        }
        // Most bytes here start a token: settle that before the `match`,
        // whose jump table mispredicted at almost every token.
        let token = !NOT_A_TOKEN[usize::from(b)] || (b == b')' && out.open_variations.is_empty());
        if !token {
            match b {
                b'\n' => {
                    i += 1;
                    // Most lines go on with moves; only these need a look.
                    if game.get(i).is_some_and(|&b| LINE_LOOK[usize::from(b)]) {
                        i = line_begin(game, i, &mut out);
                    }
                }
                b'{' => match memchr::memchr(b'}', &game[i + 1..]) {
                    Some(n) => {
                        visit(Event::Comment { offset: i + 1, len: n });
                        i += n + 2;
                    }
                    None => {
                        out.open_comment = Some(i);
                        return out;
                    }
                },
                b';' => {
                    let end = skip_line(game, i);
                    let newline = game[..end].ends_with(b"\n");
                    let text_end = if newline { end - 1 } else { end };
                    visit(Event::Comment { offset: i + 1, len: text_end - i - 1 });
                    // The next line starts a line: it may be a `%` escape.
                    i = if newline { line_begin(game, end, &mut out) } else { end };
                }
                b'(' => {
                    out.open_variations.push(i);
                    visit(Event::Open(i));
                    i += 1;
                }
                b')' => {
                    out.open_variations.pop();
                    visit(Event::Close(i));
                    i += 1;
                }
                b'!' | b'?' => {
                    let len = game[i..].iter().take_while(|&&b| b == b'!' || b == b'?').count();
                    visit(Event::Nag { offset: i, len });
                    i += len;
                }
                b'*' => {
                    if out.open_variations.is_empty() {
                        out.result_at = Some(i);
                        return out;
                    }
                    i += 1;
                }
                // White space and `.`.
                _ => i += 1,
            }
            continue;
        }
        match visit_token(game, i, &mut out, &mut visit) {
            Some(next) => i = next,
            None => return out,
        }
    }
    out
}

/// Length of the token at `i`, as [`scan`] reads it.
pub(crate) fn token_len_at(game: &[u8], i: usize) -> usize {
    token_len(&game[i..], || true).unwrap_or(game.len() - i)
}

/// Visits the token at `i` as what it is and returns where it ends; `None`
/// when it is the game's result, where the scan ends.
#[inline(always)]
fn visit_token(game: &[u8], i: usize, out: &mut Tokens, visit: &mut impl FnMut(Event)) -> Option<usize> {
    let b = game[i];
    let len = token_len_at(game, i);
    let depth = u32::try_from(out.open_variations.depth).unwrap_or(u32::MAX);
    match classify_token(&game[i..i + len]) {
        TokenClass::Result if depth == 0 => {
            out.result_at = Some(i);
            return None;
        }
        TokenClass::BadNag => visit(Event::Nag { offset: i, len }),
        TokenClass::Ignored if b == b'$' => visit(Event::Nag { offset: i, len }),
        TokenClass::Result | TokenClass::Ignored => {}
        TokenClass::Annotation => {
            visit(Event::Token(Token { offset: i, len, depth, kind: TokenKind::Annotation }));
        }
        TokenClass::EnPassantMark => {
            visit(Event::Token(Token { offset: i, len, depth, kind: TokenKind::EnPassantMark }));
        }
        TokenClass::Move => {
            let kind = if b == b')' { TokenKind::StrayClose } else { TokenKind::Move };
            visit(Event::Token(Token { offset: i, len, depth, kind }));
        }
    }
    Some(i + len)
}

/// Skips what the line starting at `i` (and the lines after it) hold that
/// is not movetext: `%` escape lines and tag lines; returns where the
/// movetext goes on.
fn line_begin(game: &[u8], mut i: usize, out: &mut Tokens) -> usize {
    while i < game.len() {
        // Skipped at a line's start, as the framer skips it (files joined
        // by `cat`), with the line when nothing follows it.
        if i > 0 && game[i - 1] == b'\n' && game[i..].starts_with(BOM) {
            i += BOM.len();
            let first = i + game[i..].iter().position(|&b| !is_blank(b)).unwrap_or(game.len() - i);
            if game.get(first) == Some(&b'\n') {
                i = first + 1;
            }
            continue;
        }
        if game[i] == b'%' {
            i = skip_line(game, i);
            continue;
        }
        let first = i + game[i..].iter().position(|&b| !is_blank(b)).unwrap_or(game.len() - i);
        if game.get(first) != Some(&b'[') {
            return i;
        }
        let (next, problem) = skip_tag_line(game, first);
        if let Some(problem) = problem {
            out.bad_tags.push((first, problem));
        }
        i = next;
        // Movetext after the tags on the same line.
        if i < game.len() && game[i - 1] != b'\n' {
            return i;
        }
    }
    i
}

/// First bytes of a line that [`line_begin`] may have to skip from: a `%`
/// escape, a tag, or white space before one.
const LINE_LOOK: [bool; 256] = byte_set(b"%[ \t\r\x0b\x0c");

/// Bytes that do not start a token: white space and the movetext's
/// punctuation (a `)` starts one when no variation is open).
const NOT_A_TOKEN: [bool; 256] = byte_set(b" \t\r\x0b\x0c\n{;()!?.*");

fn skip_line(game: &[u8], i: usize) -> usize {
    memchr::memchr(b'\n', &game[i..]).map_or(game.len(), |n| i + n + 1)
}

/// Skips the tags on a line starting with `[` at `first`; returns where
/// movetext begins (mid-line when text follows the tags) or the start of the
/// next line, and what is wrong with the tags.
fn skip_tag_line(game: &[u8], first: usize) -> (usize, Option<String>) {
    let end = skip_line(game, first);
    let text_end = if game[..end].ends_with(b"\n") { end - 1 } else { end };
    let scan = scan_tag_line(&game[first..text_end]);
    let next = if first + scan.tags_end < text_end { first + scan.tags_end } else { end };
    (next, scan.problem)
}

/// Line and column (1-based, in characters) of `offset` in a game that
/// starts at `first_line`, `first_column` of its file.
pub fn line_column(game: &[u8], offset: usize, first_line: u64, first_column: u32, utf8: bool) -> (u64, u32) {
    let before = &game[..offset.min(game.len())];
    let newlines = memchr::memchr_iter(b'\n', before).count() as u64;
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |n| n + 1);
    let chars = u32::try_from(chars(&before[line_start..], utf8)).unwrap_or(u32::MAX);
    if newlines == 0 { (first_line, first_column.saturating_add(chars)) } else { (first_line + newlines, chars + 1) }
}

/// Characters of `text`: bytes, or UTF-8 sequences when `utf8`.
fn chars(text: &[u8], utf8: bool) -> usize {
    if utf8 { text.iter().filter(|&&b| b & 0xc0 != 0x80).count() } else { text.len() }
}

/// [`line_column`] for many offsets of one game, counted on from the last
/// offset asked for when they come in order, as a game's findings do: a game
/// of 400,000 junk tokens is located in one pass over it, not one per token.
#[derive(Debug, Clone, Copy)]
pub struct LineCursor {
    first_line: u64,
    first_column: u32,
    utf8: bool,
    /// The last offset located, and its line and column.
    offset: usize,
    line: u64,
    column: u32,
}

impl LineCursor {
    /// A cursor at the start of a game that starts at `first_line`,
    /// `first_column` of its file.
    pub fn new(first_line: u64, first_column: u32, utf8: bool) -> LineCursor {
        LineCursor { first_line, first_column, utf8, offset: 0, line: first_line, column: first_column }
    }

    /// Line and column of `offset` in `game`, as [`line_column`] gives them.
    pub fn locate(&mut self, game: &[u8], offset: usize) -> (u64, u32) {
        let offset = offset.min(game.len());
        if offset < self.offset {
            // Out of order: count from the start again.
            (self.line, self.column) = line_column(game, offset, self.first_line, self.first_column, self.utf8);
        } else {
            let segment = &game[self.offset..offset];
            match memchr::memrchr(b'\n', segment) {
                None => {
                    let added = u32::try_from(chars(segment, self.utf8)).unwrap_or(u32::MAX);
                    self.column = self.column.saturating_add(added);
                }
                Some(last) => {
                    self.line += memchr::memchr_iter(b'\n', segment).count() as u64;
                    let column = chars(&segment[last + 1..], self.utf8);
                    self.column = u32::try_from(column).unwrap_or(u32::MAX).saturating_add(1);
                }
            }
        }
        self.offset = offset;
        (self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::{LineCursor, line_column};
    use crate::test_rng::Rng;

    #[test]
    fn a_cursor_locates_every_offset_as_line_column_does_in_order_or_not() {
        let pieces: &[&[u8]] = &[b"e4 ", b"\n", b"\r\n", b"\xc3\xa9", b"{ c }", b"\t", b"1. ", b"\xe2\x80\x93"];
        let mut rng = Rng(0x5eed_1234_abcd_ef01);
        for _ in 0..2_000 {
            let game: Vec<u8> =
                (0..rng.below(60)).flat_map(|_| pieces[rng.below(pieces.len())].iter().copied()).collect();
            let (line, column, utf8) = (1 + rng.below(50) as u64, 1 + rng.below(9) as u32, rng.below(2) == 0);
            let mut cursor = LineCursor::new(line, column, utf8);
            let mut offsets: Vec<usize> = (0..rng.below(20)).map(|_| rng.below(game.len() + 3)).collect();
            if rng.below(2) == 0 {
                // Findings mostly come in order.
                offsets.sort_unstable();
            }
            for offset in offsets {
                assert_eq!(
                    cursor.locate(&game, offset),
                    line_column(&game, offset, line, column, utf8),
                    "{offset} in {game:?}"
                );
            }
        }
    }
}
