//! Movetext tokens pgn-reader skips silently: reported (`invalid-san`,
//! `unmatched-parenthesis`), or repaired and put back in the main line
//! (`e8Q`, `exd6e.p.`).

use pgn_reader::SanPlus;

use std::borrow::Cow;

use super::{context::Ctx, parse::Collected};
use crate::{
    frame::{
        lexer,
        locate::{self, Event, TokenKind},
    },
    notation::{glued_en_passant, non_san_notation, read_move_token, repaired_san, strip_move_number},
    report::Code,
    text::{text, token_text},
};

/// The main line as the parser read it, with the tokens it skipped
/// silently reported, and the moves among them that read once repaired
/// put back in their places. `moves_counted` is how many move tokens the
/// token count found: when it matches what the parser read, nothing was
/// skipped and the tokens are not looked at.
pub(crate) fn mainline<'c>(
    ctx: &mut Ctx<'_>,
    collected: &'c Collected,
    moves_counted: usize,
) -> (Skipped, Cow<'c, [SanPlus]>) {
    let read = collected.mainline.len() + collected.stray_closes as usize + collected.variation_moves as usize;
    if read == moves_counted && collected.stray_closes == 0 {
        return (Skipped::default(), Cow::Borrowed(&collected.mainline));
    }
    let skipped = report_skipped_tokens(ctx);
    let mainline = if skipped.repaired.is_empty() {
        Cow::Borrowed(&collected.mainline[..])
    } else {
        Cow::Owned(with_repaired(&collected.mainline, &skipped.repaired))
    };
    (skipped, mainline)
}

/// What [`report_skipped_tokens`] found.
#[derive(Debug, Default)]
pub(crate) struct Skipped {
    /// Main-line moves before the first token that is not a move (the
    /// replay stops there).
    pub(crate) stop_at: Option<usize>,
    /// Moves pgn-reader skipped but that read as SAN once repaired (`e8Q`,
    /// `exd6e.p.`), with their index in the main line.
    pub(crate) repaired: Vec<(usize, SanPlus)>,
}

/// Reports the tokens the parser could not read as moves, walking them
/// once without keeping them (a game of junk holds millions).
fn report_skipped_tokens(ctx: &mut Ctx<'_>) -> Skipped {
    let bytes = ctx.game.bytes;
    let mut valid_mainline = 0;
    let mut skipped = Skipped::default();
    let mut ep_glued_at = None;
    locate::scan(bytes, |event| {
        let Event::Token(token) = event else { return };
        let raw = &bytes[token.offset..token.offset + token.len];
        if matches!(token.kind, TokenKind::Annotation | TokenKind::EnPassantMark) {
            return;
        }
        if token.kind == TokenKind::StrayClose {
            ctx.push(Code::UnmatchedParenthesis, token.offset, "this `)` closes no variation".to_owned());
            return;
        }
        if ep_glued_at == Some(token.offset) {
            // The `p` of an `e.p.` glued to the capture before it.
            return;
        }
        // What pgn-reader read: SAN, and castling with zeros.
        let bare = strip_move_number(raw);
        let may_be_a_move = may_be_a_move(bare);
        if may_be_a_move && (SanPlus::from_ascii(bare).is_ok() || bare.starts_with(b"0-0")) {
            valid_mainline += usize::from(token.depth == 0);
            return;
        }
        // Not plain SAN: what reads once repaired (the plain reading is
        // not tried twice, which counts on a game of junk).
        let repaired = match glued_en_passant(bytes, token.offset, token.len) {
            Some(capture) => {
                // `exd6e.p.` splits at its dots: `exd6e`, then `p`, skipped here.
                ep_glued_at = Some(token.offset + token.len + 1);
                let ply = (token.depth == 0).then_some(valid_mainline as u32 + 1);
                let shown = token_text(&bytes[token.offset..token.offset + token.len + 3], ctx.utf8);
                en_passant_mark(ctx, token.offset, shown, ply);
                read_move_token(capture)
            }
            None if may_be_a_move => repaired_san(bare),
            None => None,
        };
        if let Some(san) = repaired {
            if let Some(written) = non_san_notation(bare)
                && !ctx.diagnostics.iter().any(|d| d.code == Code::NonSanMove)
            {
                let shown = token_text(raw, ctx.utf8);
                let message = format!(
                    "`{shown}` {written}; read as the move it names \
                     (later moves of this game written so are read the same way, without a warning)"
                );
                let diag = ctx.push(Code::NonSanMove, token.offset, message);
                diag.san = Some(shown);
                if token.depth == 0 {
                    diag.ply = Some(valid_mainline as u32 + 1);
                }
            }
            if token.depth == 0 {
                skipped.repaired.push((valid_mainline, san));
                valid_mainline += 1;
            }
            return;
        }
        if token.depth == 0 {
            skipped.stop_at.get_or_insert(valid_mainline);
        }
        let utf8 = ctx.utf8;
        let place = if token.depth == 0 { "the main line" } else { "a variation" };
        let shown = || token_text(raw, utf8);
        let message = || format!("`{}` in {place} is not a move, move number, annotation or result", shown());
        if let Some(diag) = ctx.push_worded(Code::InvalidSan, token.offset, message) {
            diag.san = Some(shown());
            if token.depth == 0 {
                diag.ply = Some(valid_mainline as u32 + 1);
            }
        }
    });
    skipped
}

/// Whether a token (after its move number) may read as a move, SAN or
/// [`repaired_san`]: two bytes at least, the first a file, a piece letter,
/// castling, a null move, a drop or a capture (`xd5`). A game of junk
/// tokens is told at one look per token that they are not moves.
fn may_be_a_move(bare: &[u8]) -> bool {
    bare.len() >= 2 && MAY_START_A_MOVE[usize::from(bare[0])]
}

const MAY_START_A_MOVE: [bool; 256] = lexer::byte_set(b"abcdefghNBRQKOPZ-0o@x");

/// `non-san-move` for the first `e.p.` or `ep` written after a capture
/// (`exd6 e.p.`, `exd6e.p.`), unless the game has one already: SAN writes
/// an en passant capture as the capture alone, which is how it is read.
fn en_passant_mark(ctx: &mut Ctx<'_>, offset: usize, shown: String, ply: Option<u32>) {
    if ctx.diagnostics.iter().any(|d| d.code == Code::NonSanMove) {
        return;
    }
    let message = format!(
        "`{shown}` marks an en passant capture, which SAN writes as the capture alone; read as the capture \
         (later moves of this game written so are read the same way, without a warning)"
    );
    let diag = ctx.push(Code::NonSanMove, offset, message);
    diag.san = Some(shown);
    diag.ply = ply;
}

/// The first `e.p.` or `ep` token standing on its own after a capture
/// (`exd6 e.p.`), as a `non-san-move` warning at the mark; the ply is the
/// capture's.
pub(crate) fn en_passant_marks(ctx: &mut Ctx<'_>) {
    let bytes = ctx.game.bytes;
    let mut first = None;
    locate::scan(bytes, |event| {
        if let Event::Token(t) = event
            && t.kind == TokenKind::EnPassantMark
        {
            first.get_or_insert(t);
        }
    });
    let Some(mark) = first else { return };
    let ply = (mark.depth == 0).then(|| ctx.mainline_moves_before(mark.offset) as u32);
    let shown = token_text(&bytes[mark.offset..mark.offset + mark.len], ctx.utf8);
    en_passant_mark(ctx, mark.offset, shown, ply);
}

/// The main line with the repaired moves put back in their places.
pub(crate) fn with_repaired(read: &[SanPlus], repaired: &[(usize, SanPlus)]) -> Vec<SanPlus> {
    let mut out = Vec::with_capacity(read.len() + repaired.len());
    let mut read = read.iter().copied();
    let mut repaired = repaired.iter().peekable();
    loop {
        if let Some(&(_, san)) = repaired.next_if(|&&(index, _)| index == out.len()) {
            out.push(san);
        } else if let Some(san) = read.next() {
            out.push(san);
        } else {
            // Repaired moves after the last read one.
            out.extend(repaired.map(|&(_, san)| san));
            return out;
        }
    }
}

/// The movetext as written: from the end of the tags to the termination
/// marker (excluded), trimmed.
pub(crate) fn raw_movetext(bytes: &[u8], utf8: bool) -> String {
    let start = lexer::movetext_start(bytes);
    let end = locate::scan(bytes, |_| {}).result_at.unwrap_or(bytes.len()).max(start);
    text(bytes[start..end].trim_ascii(), utf8)
}

#[cfg(test)]
mod tests {
    use super::may_be_a_move;

    #[test]
    fn every_token_read_as_a_move_starts_with_a_byte_that_may_start_one() {
        const RESTS: &[&[u8]] = &[
            b"", b"4", b"e4", b"xd5", b"-O", b"-O-O", b"-0", b"-0-0", b"-o", b"f3", b"@e4", b"1-f3", b"1xf3", b"-",
            b"2-e4", b"8Q", b"8=Q", b"1q", b"4+", b"4++", b"xe8Q#", b"bd2", b"1d2", b"0", b"b1c3",
        ];
        for first in 0..=255u8 {
            for rest in RESTS {
                let mut token = vec![first];
                token.extend_from_slice(rest);
                let bare = crate::notation::strip_move_number(&token);
                if crate::notation::read_move_token(&token).is_some() {
                    assert!(may_be_a_move(bare), "{:?} reads as a move", String::from_utf8_lossy(&token));
                }
            }
        }
    }
}
