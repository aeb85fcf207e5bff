//! The position a game starts from: its Variant tag (standard chess or
//! Chess960) and its FEN tag, read as [`notation::tag_position`] reads
//! one.

use shakmaty::Chess;

use super::{context::Ctx, parse::Collected};
use crate::{notation, report::Code, tag_values::Variant, text::text};

/// The position the game starts from, or `None` (with a diagnostic) when
/// it cannot be replayed.
pub(crate) fn start_position(ctx: &mut Ctx<'_>, collected: &Collected) -> Option<Chess> {
    // Decoded as every other reader decodes the game's tags (UTF-8 when the
    // whole game is, else Windows-1252): read as UTF-8 in a Latin-1 game, a
    // letter such as `\xe9` was lost, and the game was standard chess here
    // and another variant to `filter`, `stats` and a converted copy.
    let tag = collected.variant.get().map(|v| text(v, ctx.utf8));
    let chess960 = match Variant::from_tag(tag.as_deref()) {
        Variant::Standard => false,
        Variant::Chess960 => true,
        Variant::Other(_) => {
            let shown = tag.unwrap_or_default().to_ascii_lowercase();
            ctx.push(
                Code::UnsupportedVariant,
                0,
                format!("variant `{}` is not standard chess or Chess960; its moves were not checked", shown.trim()),
            );
            return None;
        }
    };
    let Some(fen) = collected.fen.get() else {
        return Some(Chess::default());
    };
    let fen_text = text(fen, ctx.utf8);
    let at = memchr::memmem::find(ctx.game.bytes, b"[FEN").unwrap_or(0);
    match notation::tag_position(&fen_text, chess960) {
        Ok((pos, dropped)) => {
            if !dropped.is_empty() {
                ctx.push(
                    Code::FenTagRepaired,
                    at,
                    format!(
                        "the FEN tag `{}` gives {dropped}: left out, the game is replayed from `{}`",
                        fen_text.trim(),
                        notation::fen(&pos)
                    ),
                );
            }
            Some(pos)
        }
        Err(err) => {
            ctx.push(Code::InvalidFenTag, at, format!("the FEN tag `{fen_text}` {err}"));
            None
        }
    }
}
