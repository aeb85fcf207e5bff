//! Where things are inside one framed game: movetext tokens with their byte
//! offsets, and byte offsets turned into line and column.
//!
//! This runs only on the error path (a move to point at, a token the parser
//! skipped), so it favours plainness over speed. It reads tokens exactly as
//! the framer does, with the helpers from [`crate::split`].

use crate::split::{TokenClass, classify_token, is_blank, scan_tag_line, token_len};

/// What a located token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// Anything the parser tries to read as a move (valid or not).
    Move,
    /// A `)` with no open variation.
    StrayClose,
    /// An evaluation symbol written as text (`+-`, `RR`).
    Annotation,
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
    /// Offsets of `(` never closed, outermost first.
    pub open_variations: Vec<usize>,
    /// Offset of the termination marker, if any.
    pub result_at: Option<usize>,
    /// Tag lines that are not `[Name "value"]`: offset and why.
    pub bad_tags: Vec<(usize, String)>,
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

/// Walks one framed game's movetext and hands every event to `visit`, in
/// order; returns what the walk found besides (its `tokens` left empty).
pub fn scan(game: &[u8], mut visit: impl FnMut(Event)) -> Tokens {
    let mut out = Tokens::default();
    let mut i = 0;
    let mut line_start = true;
    while i < game.len() {
        let b = game[i];
        if line_start {
            line_start = false;
            if b == b'%' {
                i = skip_line(game, i);
                continue;
            }
            let first = i + game[i..].iter().position(|&b| !is_blank(b)).unwrap_or(game.len() - i);
            if game.get(first) == Some(&b'[') {
                let (next, problem) = skip_tag_line(game, first);
                if let Some(problem) = problem {
                    out.bad_tags.push((first, problem));
                }
                i = next;
                line_start = i < game.len() && game[i - 1] == b'\n';
                continue;
            }
        }
        match b {
            b'\n' => {
                i += 1;
                line_start = true;
            }
            _ if is_blank(b) => i += 1,
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
                let text_end = if game[..end].ends_with(b"\n") { end - 1 } else { end };
                visit(Event::Comment { offset: i + 1, len: text_end - i - 1 });
                i = end;
            }
            b'(' => {
                out.open_variations.push(i);
                visit(Event::Open(i));
                i += 1;
            }
            b')' if !out.open_variations.is_empty() => {
                out.open_variations.pop();
                visit(Event::Close(i));
                i += 1;
            }
            b'!' | b'?' => {
                let len = game[i..].iter().take_while(|&&b| b == b'!' || b == b'?').count();
                visit(Event::Nag { offset: i, len });
                i += len;
            }
            b'.' => i += 1,
            b'*' => {
                if out.open_variations.is_empty() {
                    out.result_at = Some(i);
                    return out;
                }
                i += 1;
            }
            _ => {
                let len = token_len(&game[i..], true).unwrap_or(game.len() - i);
                let depth = out.open_variations.len() as u32;
                match classify_token(&game[i..i + len]) {
                    TokenClass::Result if depth == 0 => {
                        out.result_at = Some(i);
                        return out;
                    }
                    TokenClass::Ignored if b == b'$' => visit(Event::Nag { offset: i, len }),
                    TokenClass::Result | TokenClass::Ignored => {}
                    TokenClass::Annotation => {
                        visit(Event::Token(Token { offset: i, len, depth, kind: TokenKind::Annotation }));
                    }
                    TokenClass::Move => {
                        let kind = if b == b')' { TokenKind::StrayClose } else { TokenKind::Move };
                        visit(Event::Token(Token { offset: i, len, depth, kind }));
                    }
                }
                i += len;
            }
        }
    }
    out
}

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
    let text = &before[line_start..];
    let chars = if utf8 { text.iter().filter(|&&b| b & 0xc0 != 0x80).count() } else { text.len() };
    let chars = u32::try_from(chars).unwrap_or(u32::MAX);
    if newlines == 0 { (first_line, first_column.saturating_add(chars)) } else { (first_line + newlines, chars + 1) }
}
