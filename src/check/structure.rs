//! Findings about a game's shape, from what the framer flagged and what the
//! parser could not read: its encoding and size, comments and variations
//! never closed, broken tag lines, text annotations, a missing result, an
//! input that failed inside it and stray text after it.

use super::context::Ctx;
use crate::{
    frame::{
        FrameFlags,
        lexer::{is_blank, is_result, nag_number},
        locate::{self, Event, TokenKind},
    },
    report::Code,
    text::{text, token_text},
};

/// `non-utf8` and `game-too-large`, which hold before anything is parsed.
pub(crate) fn encoding_and_size(ctx: &mut Ctx<'_>, utf8_error: Option<std::str::Utf8Error>) {
    if let Some(err) = utf8_error {
        ctx.push(
            Code::NonUtf8,
            err.valid_up_to(),
            "the game contains bytes that are not UTF-8; read as Windows-1252 (Latin-1)".to_owned(),
        );
    }
    if ctx.game.frame.flags.contains(FrameFlags::TOO_LARGE) {
        let end = ctx.end_offset();
        let message = format!(
            "the game is larger than --max-game-size; it was cut after {} bytes and the rest skipped",
            ctx.game.bytes.len()
        );
        ctx.push(Code::GameTooLarge, end, message);
    }
}

/// Comments and variations never closed, broken tags, a game the parser
/// could not read, and the first annotation written as text.
pub(crate) fn syntax(ctx: &mut Ctx<'_>, parse_error: Option<std::io::Error>, text_annotation: bool) {
    let flags = ctx.game.frame.flags;
    // A game cut at the size limit has its comments, variations and tags cut
    // too: `game-too-large` says it all.
    let cut = flags.contains(FrameFlags::TOO_LARGE);
    if flags.contains(FrameFlags::UNTERMINATED_COMMENT) && !cut {
        let at = ctx.outline().open_comment.unwrap_or_else(|| ctx.end_offset());
        ctx.push(Code::UnterminatedComment, at, "this `{` comment is never closed".to_owned());
    } else if let Some(err) = parse_error
        && !cut
        && !flags.contains(FrameFlags::BAD_TAG)
    {
        // A broken tag line is reported below, line by line, with why.
        let at = ctx.end_offset();
        ctx.push(Code::InvalidTag, at, format!("the game cannot be read: {err}"));
    }
    if flags.contains(FrameFlags::UNTERMINATED_VARIATION) && !cut {
        // One finding for the outermost: `((((...` can open thousands.
        let open = ctx.outline().open_variations;
        if let Some(at) = open.outermost {
            let message = match open.depth - 1 {
                0 => "this `(` variation is never closed".to_owned(),
                1 => "this `(` variation is never closed, nor is 1 opened inside it".to_owned(),
                n => format!("this `(` variation is never closed, nor are {n} opened inside it"),
            };
            ctx.push(Code::UnterminatedVariation, at, message);
        }
    }
    if flags.contains(FrameFlags::BAD_TAG) {
        for (at, problem) in ctx.outline().bad_tags.clone() {
            ctx.push(Code::InvalidTag, at, problem);
        }
    }
    if text_annotation {
        let bytes = ctx.game.bytes;
        if let Some(t) = ctx.outline().tokens.iter().find(|t| t.kind == TokenKind::Annotation).copied() {
            let shown = text(&bytes[t.offset..t.offset + t.len], ctx.utf8);
            let message = format!(
                "`{shown}` is an annotation written as text, not a NAG such as $14; \
                 it (and any like it in this game) is ignored"
            );
            ctx.push(Code::TextAnnotation, t.offset, message).san = Some(shown);
        }
    }
}

/// `glued-game`, `unescaped-quote` and `duplicate-tag`: a tag section read
/// otherwise than it is written, or with a tag given twice (when
/// `maybe_repeated`: two of its names share a bit, which most games'
/// never do).
pub(crate) fn tags(ctx: &mut Ctx<'_>, maybe_repeated: bool) {
    let flags = ctx.game.frame.flags;
    if flags.contains(FrameFlags::GLUED) {
        let message = "this game's first tag follows the termination marker of the game before on its line \
                       (files joined without a line break?): read as a new game";
        ctx.push(Code::GluedGame, 0, message.to_owned());
    }
    if flags.contains(FrameFlags::TAGS_MENDED) || maybe_repeated {
        tags_read_otherwise(ctx);
    }
}

/// The tags of a game that may have quotes not escaped or a tag given twice.
#[cold]
#[inline(never)]
fn tags_read_otherwise(ctx: &mut Ctx<'_>) {
    let (bytes, utf8) = (ctx.game.bytes, ctx.utf8);
    let mut names = Vec::new();
    let mut loose = Vec::new();
    crate::game::each_tag(bytes, |at, tag| {
        if let Some(value) = tag.value.clone() {
            names.push((at, &bytes[tag.name.clone()]));
            if tag.loose {
                loose.push((at, tag.name.clone(), value));
            }
        }
    });
    for (at, name, value) in loose {
        let value = pgn_reader::RawTag(&bytes[value]).decode();
        let message = format!(
            "the value of tag `{}` holds quotes that are not escaped: read up to the last quote before the `]`, \
             as `{}` (write \\\" inside a value)",
            text(&bytes[name], utf8),
            text(&value, utf8)
        );
        ctx.push(Code::UnescapedQuote, at, message);
    }
    let just_names: Vec<&[u8]> = names.iter().map(|&(_, name)| name).collect();
    for (earlier, last) in crate::game::earlier_of_a_name(&just_names) {
        let ((at, name), (last_at, _)) = (names[earlier], names[last]);
        let frame = ctx.game.frame;
        // Located only for a finding kept: each look counts the lines from
        // the game's start, and a game giving one tag 200,000 times took
        // 15 s so.
        let message = || {
            let (line, _) = locate::line_column(bytes, last_at, frame.line, frame.column, utf8);
            format!(
                "tag `{}` is given again, and the last one, on line {line}, counts: this one is ignored",
                text(name, utf8)
            )
        };
        ctx.push_worded(Code::DuplicateTag, at, message);
    }
}

/// `$` tokens that are not NAGs (`$256`, `$x`): pgn-reader drops them
/// without a word, and the PGN standard numbers NAGs 0 to 255, so each is a
/// warning (an annotation lost, the game read all the same).
pub(crate) fn invalid_nags(ctx: &mut Ctx<'_>) {
    let bytes = ctx.game.bytes;
    locate::scan(bytes, |event| {
        let Event::Nag { offset, len } = event else { return };
        let token = &bytes[offset..offset + len];
        if token[0] != b'$' || nag_number(token).is_some() {
            return;
        }
        let utf8 = ctx.utf8;
        let message = || {
            format!(
                "`{}` is not a NAG, which is `$` and a number from 0 to 255 (the PGN standard's range); it is ignored",
                token_text(token, utf8)
            )
        };
        ctx.push_worded(Code::InvalidNag, offset, message);
    });
}

/// `result-in-variation` and `empty-variation`: a termination marker inside
/// a variation (PGN 8.2.5 allows none there: python-chess stops reading
/// the variation at it), and a `()` with no move in it. The walk only
/// runs for a game whose movetext opens a variation.
pub(crate) fn variation_shapes(ctx: &mut Ctx<'_>) {
    let bytes = ctx.game.bytes;
    let movetext = (ctx.game.frame.movetext as usize).min(bytes.len());
    if memchr::memchr(b'(', &bytes[movetext..]).is_none() {
        return;
    }
    let (mut depth, mut gap_from) = (0usize, 0);
    // The innermost variation open with nothing in it so far: its `(`.
    let mut empty = None;
    locate::scan(bytes, |event| {
        let (at, end) = match event {
            Event::Token(t) => (t.offset, t.offset + t.len),
            Event::Comment { offset, len } | Event::Nag { offset, len } => (offset, offset + len),
            Event::Open(at) | Event::Close(at) => (at, at + 1),
        };
        // The scan hands no event for a result inside a variation: it is
        // found in the text between events.
        if depth > 0 && results_between(ctx, gap_from, at) {
            empty = None;
        }
        gap_from = end;
        match event {
            Event::Open(at) => {
                depth += 1;
                empty = Some(at);
            }
            Event::Close(at) if depth > 0 => {
                depth -= 1;
                if let Some(open) = empty.take() {
                    let message = format!("this `{}` variation holds no move", text(&bytes[open..=at], ctx.utf8));
                    ctx.push_worded(Code::EmptyVariation, open, || message);
                }
            }
            _ => empty = None,
        }
    });
}

/// Reports each termination marker in `from..to`, a stretch of a variation
/// between two of the scan's events; whether there was one.
fn results_between(ctx: &mut Ctx<'_>, from: usize, to: usize) -> bool {
    let bytes = ctx.game.bytes;
    let mut found = false;
    let mut at = from;
    for word in bytes[from..to].split(|&b| is_blank(b)) {
        let start = at;
        at += word.len() + 1;
        // The `}` closing a comment before it; move numbers end at a dot.
        let word = word.strip_prefix(b"}").unwrap_or(word);
        let word = word.rsplit(|&b| b == b'.').next().unwrap_or(word);
        if !word.is_empty() && is_result(word) {
            found = true;
            let offset = start + memchr::memmem::find(&bytes[start..at - 1], word).unwrap_or(0);
            let shown = text(word, ctx.utf8);
            let message = || {
                format!(
                    "`{shown}` inside a variation: a termination marker ends only the game's movetext, \
                     never a variation (PGN 8.2.5)"
                )
            };
            ctx.push_worded(Code::ResultInVariation, offset, message);
        }
    }
    found
}

/// `missing-result` and `truncated-game`, at the game's end.
pub(crate) fn ending(ctx: &mut Ctx<'_>, has_marker: bool) {
    let flags = ctx.game.frame.flags;
    if !has_marker && !flags.contains(FrameFlags::TOO_LARGE) {
        let at = ctx.end_offset();
        ctx.push(
            Code::MissingResult,
            at,
            "the movetext does not end with a result (1-0, 0-1, 1/2-1/2 or *)".to_owned(),
        );
    }
    if flags.contains(FrameFlags::INPUT_ERROR) {
        let at = ctx.end_offset();
        ctx.push(Code::TruncatedGame, at, "the input ends in the middle of this game (read error)".to_owned());
    }
}

/// `stray-text`: text after the game (or before the first game) that the
/// framer found to hold no tag and no move, and skipped.
pub(crate) fn stray_text(ctx: &mut Ctx<'_>) {
    let strays = ctx.game.stray();
    for stray in &strays.kept {
        let shown = text(&stray.text, ctx.utf8);
        let message = format!("text between games that is not a game (no tag, no move), skipped: `{shown}`");
        ctx.push_located(Code::StrayText, stray.line, stray.column, message);
    }
    if let (Some(last), more @ 1..) = (strays.kept.last(), strays.more) {
        let (s, are) = if more == 1 { ("", "is") } else { ("s", "are") };
        let message = format!("{more} more stray text{s} after this one {are} not shown");
        ctx.push_located(Code::StrayText, last.line, last.column, message);
    }
}
