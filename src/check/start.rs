//! The position a game starts from: its Variant tag (standard chess or
//! Chess960) and its FEN tag.

use shakmaty::{CastlingMode, Chess, fen::Fen};

use super::{context::Ctx, parse::Collected};
use crate::{
    report::{Code, Severity},
    text::text,
};

/// The position the game starts from, or `None` (with a diagnostic) when
/// it cannot be replayed.
pub(crate) fn start_position(ctx: &mut Ctx<'_>, collected: &Collected) -> Option<Chess> {
    let chess960 = match collected.variant.get().map(|v| text(v, true).to_ascii_lowercase()) {
        None => false,
        Some(v)
            if matches!(
                v.trim(),
                "" | "standard" | "normal" | "regular" | "chess" | "from position" | "from_position"
            ) =>
        {
            false
        }
        Some(v) if v.contains("960") || v.contains("fischer") || v.contains("freestyle") => true,
        Some(v) => {
            ctx.push(
                Severity::Warning,
                Code::UnsupportedVariant,
                0,
                format!("variant `{}` is not standard chess or Chess960; its moves were not checked", v.trim()),
            );
            return None;
        }
    };
    let Some(fen) = collected.fen.get() else {
        return Some(Chess::default());
    };
    let fen_text = text(fen, ctx.utf8);
    let at = memchr::memmem::find(ctx.game.bytes, b"[FEN").unwrap_or(0);
    let parsed = match Fen::from_ascii(fen_text.trim().as_bytes()) {
        Ok(parsed) => parsed,
        Err(err) => {
            ctx.push(
                Severity::Error,
                Code::InvalidFenTag,
                at,
                format!("the FEN tag `{fen_text}` cannot be read: {err}"),
            );
            return None;
        }
    };
    let mode = if chess960 { CastlingMode::Chess960 } else { CastlingMode::detect(parsed.as_setup()) };
    match parsed.into_position(mode) {
        Ok(pos) => Some(pos),
        Err(err) => {
            ctx.push(
                Severity::Error,
                Code::InvalidFenTag,
                at,
                format!("the FEN tag `{fen_text}` is not a legal position: {err}"),
            );
            None
        }
    }
}
