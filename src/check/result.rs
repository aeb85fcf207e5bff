//! A game's result, as every command reads it, and the result audit: the
//! Result tag and the termination marker as written, against each other
//! and against how the game ended on the board.

use std::borrow::Cow;

use pgn_reader::{KnownOutcome, Outcome};
use shakmaty::{Chess, Color, Position, Role};

use super::{context::Ctx, parse::Collected, replay::Replay};
use crate::{
    frame::{FrameFlags, lexer, locate},
    game::Tags,
    report::{Code, DrawReason, GameReport, Termination},
    text::text,
};

/// The whole audit of a game: its Result tag and marker as written, the tag
/// against the marker and both against the board, and, when every move was
/// played (`finished`), why a draw was drawn, a win on time without mating
/// material, and an ending with no result.
pub(crate) fn audit(
    ctx: &mut Ctx<'_>,
    collected: &Collected,
    replay: &Replay,
    report: &mut GameReport,
    finished: bool,
) {
    check_result_tag(ctx, collected);
    check_marker(ctx, collected);
    let ending = ending(replay, report.termination);
    match ending {
        Some((end, at)) => check_result(ctx, collected, end, at, replay.pos.turn()),
        None => check_result_tag_against_marker(ctx, collected),
    }
    // Verdicts on how the game ended need the whole game.
    if !finished {
        return;
    }
    let result = game_outcome(collected);
    if result == Some(Outcome::Known(KnownOutcome::Draw)) {
        let end = ending.map(|(end, _)| end);
        report.draw_reason = draw_reason(end, replay.perpetual && end == report.termination);
    }
    check_timeout(ctx, collected, result, &replay.pos);
    if let Some((end, _)) = ending.filter(|&(end, _)| end.ends_game())
        && result.is_none_or(|r| r == Outcome::Unknown)
        && !ctx.game.frame.flags.contains(FrameFlags::TOO_LARGE)
    {
        let at = ctx.outline().result_at.unwrap_or_else(|| ctx.end_offset());
        let end = end.as_str().replace('_', " ");
        let message = format!("the game ended on the board ({end}) but its result is not given");
        ctx.push(Code::UnknownResult, at, message);
    }
}

/// How the game ended on the board, and at which ply when that was before
/// its last move: the first automatic draw (fivefold repetition, 75 moves)
/// when play went on after it, as FIDE 9.6 ends the game there, else the
/// rule that holds in the final position.
fn ending(replay: &Replay, termination: Option<Termination>) -> Option<(Termination, Option<u32>)> {
    match &replay.drawn {
        Some((ply, rule, _)) if *ply < replay.plies => Some((*rule, Some(*ply))),
        _ => termination.map(|end| (end, None)),
    }
}

/// A result as written: `1-0`, `0-1`, `1/2-1/2` or `*`.
pub(crate) fn result_text(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Known(KnownOutcome::Decisive { winner: Color::White }) => "1-0",
        Outcome::Known(KnownOutcome::Decisive { winner: Color::Black }) => "0-1",
        Outcome::Known(KnownOutcome::Draw) => "1/2-1/2",
        Outcome::Unknown => "*",
    }
}

/// A Result tag's value as a report keeps it: one of the four results
/// without a copy (nearly every game's: a `String` for each showed in the
/// profile of `validate --format jsonl`), anything else as text.
pub(super) fn tag_text(value: &[u8], utf8: bool) -> Cow<'static, str> {
    match standard_result(value) {
        Some(outcome) => Cow::Borrowed(result_text(outcome)),
        None => Cow::Owned(text(value, utf8)),
    }
}

/// A result as the PGN standard writes one, in a Result tag or as a
/// termination marker: exactly `1-0`, `0-1`, `1/2-1/2` or `*`.
fn standard_result(text: &[u8]) -> Option<Outcome> {
    Some(match text {
        b"1-0" => Outcome::Known(KnownOutcome::Decisive { winner: Color::White }),
        b"0-1" => Outcome::Known(KnownOutcome::Decisive { winner: Color::Black }),
        b"1/2-1/2" => Outcome::Known(KnownOutcome::Draw),
        b"*" => Outcome::Unknown,
        _ => return None,
    })
}

/// The game's result, wherever one result is needed (`validate`'s
/// `result`, `stats`, `filter --result`, `convert`, `split --by result`):
/// the Result tag (its value as written, `tag`) when it is a result, else
/// the movetext's termination marker (`marker`, asked for only then), else
/// `*`.
pub fn game_result(tag: Option<&[u8]>, marker: impl FnOnce() -> Option<Outcome>) -> &'static str {
    result_text(tag.and_then(standard_result).or_else(marker).unwrap_or(Outcome::Unknown))
}

/// The Result tag, if it is one of the four results (other values are an
/// `invalid-result-tag` and left out of the audit).
fn result_tag(collected: &Collected) -> Option<Outcome> {
    standard_result(collected.result.get()?)
}

/// The game's result for the audit: the Result tag when it is one, else the
/// marker.
fn game_outcome(collected: &Collected) -> Option<Outcome> {
    result_tag(collected).or(collected.outcome)
}

/// A Result tag that is not a result: an error at the tag, saying which
/// result the game is given instead (never the tag's text rewritten).
fn check_result_tag(ctx: &mut Ctx<'_>, collected: &Collected) {
    let Some(value) = collected.result.get().filter(|value| standard_result(value).is_none()) else { return };
    let bytes = ctx.game.bytes;
    let tags = &bytes[..(ctx.game.frame.movetext as usize).min(bytes.len())];
    let at = memchr::memmem::rfind(tags, b"[Result").unwrap_or(0);
    let instead = match collected.outcome {
        Some(marker) => format!("the game's result is the movetext's {}", result_text(marker)),
        None => "the game's result is *, as the movetext gives none either".to_owned(),
    };
    let message =
        format!("the Result tag \"{}\" is not a result (1-0, 0-1, 1/2-1/2 or *); {instead}", text(value, ctx.utf8));
    ctx.push(Code::InvalidResultTag, at, message);
}

/// A termination marker that pgn-reader reads (`½-½`, `1–0` with an en
/// dash) but that is not one of the four the standard writes: a warning,
/// as its meaning is plain and the game is read with it.
fn check_marker(ctx: &mut Ctx<'_>, collected: &Collected) {
    let Some(marker) = collected.outcome else { return };
    if !ctx.game.frame.flags.contains(FrameFlags::NONSTANDARD_RESULT) {
        return;
    }
    let Some(at) = ctx.outline().result_at else { return };
    let rest = &ctx.game.bytes[at..];
    let token = &rest[..lexer::token_len(rest, || true).unwrap_or(rest.len())];
    let message = format!(
        "`{}` is not a termination marker of the PGN standard (1-0, 0-1, 1/2-1/2 or *); read as {}",
        text(token, ctx.utf8),
        result_text(marker)
    );
    ctx.push(Code::NonstandardResultMarker, at, message);
}

/// Why a drawn game was drawn, by the rule that holds at its end.
fn draw_reason(end: Option<Termination>, perpetual: bool) -> Option<DrawReason> {
    Some(match end? {
        Termination::Checkmate => return None,
        Termination::FivefoldRepetition | Termination::ThreefoldRepetition if perpetual => DrawReason::PerpetualCheck,
        Termination::Stalemate => DrawReason::Stalemate,
        Termination::InsufficientMaterial => DrawReason::InsufficientMaterial,
        Termination::SeventyfiveMoves => DrawReason::SeventyfiveMoves,
        Termination::FivefoldRepetition => DrawReason::FivefoldRepetition,
        Termination::FiftyMoves => DrawReason::FiftyMoves,
        Termination::ThreefoldRepetition => DrawReason::ThreefoldRepetition,
    })
}

/// FIDE 6.9: a flag fall loses only if the opponent could still mate.
fn check_timeout(ctx: &mut Ctx<'_>, collected: &Collected, result: Option<Outcome>, pos: &Chess) {
    let Some(Outcome::Known(KnownOutcome::Decisive { winner })) = result else { return };
    let Some(value) = collected.termination.get() else { return };
    let value = text(value, ctx.utf8).to_ascii_lowercase();
    let value = value.trim();
    let on_time = matches!(value, "time forfeit" | "time" | "timeout" | "time-forfeit" | "flag" | "lost on time")
        || value.ends_with("on time");
    if !on_time || !pos.has_insufficient_material(winner) {
        return;
    }
    let at = memchr::memmem::find(ctx.game.bytes, b"[Termination").unwrap_or(0);
    let name = if winner == Color::White { "White" } else { "Black" };
    let message = format!(
        "{name} is given the win on time but has no material to mate with ({}); \
         under FIDE 6.9 the game is a draw",
        material(pos.board(), winner)
    );
    ctx.push(Code::TimeoutVsInsufficientMaterial, at, message);
}

/// A side's pieces as letters, king first (`KN`, `KBB`).
fn material(board: &shakmaty::Board, color: Color) -> String {
    [Role::King, Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn]
        .iter()
        .flat_map(|&role| {
            let n = (board.by_color(color) & board.by_role(role)).count();
            std::iter::repeat_n(role.upper_char(), n)
        })
        .collect()
}

/// Result tag against the movetext's termination marker.
fn check_result_tag_against_marker(ctx: &mut Ctx<'_>, collected: &Collected) {
    let (Some(tag), Some(marker)) = (result_tag(collected), collected.outcome) else { return };
    if tag != marker {
        let at = ctx.outline().result_at.unwrap_or_else(|| ctx.end_offset());
        let message =
            format!("the Result tag says {} but the movetext ends with {}", result_text(tag), result_text(marker));
        ctx.push(Code::ResultMismatch, at, message);
    }
}

/// A game that ended on the board (mate, stalemate, an automatic draw) must
/// carry the result the rules give; claimable draws allow any result. `at`
/// is the ply of an automatic draw that play went on from.
fn check_result(ctx: &mut Ctx<'_>, collected: &Collected, end: Termination, at: Option<u32>, to_move: Color) {
    let required = match end {
        Termination::Checkmate => Outcome::Known(KnownOutcome::Decisive { winner: !to_move }),
        Termination::Stalemate
        | Termination::InsufficientMaterial
        | Termination::SeventyfiveMoves
        | Termination::FivefoldRepetition => Outcome::Known(KnownOutcome::Draw),
        Termination::FiftyMoves | Termination::ThreefoldRepetition => {
            return check_result_tag_against_marker(ctx, collected);
        }
    };
    let why = match end {
        Termination::Checkmate => format!("{} is checkmated", if to_move == Color::White { "White" } else { "Black" }),
        Termination::Stalemate => "the game ends in stalemate".to_owned(),
        Termination::InsufficientMaterial => "neither side has material to mate".to_owned(),
        Termination::SeventyfiveMoves => "75 moves passed without capture or pawn move".to_owned(),
        _ => "the position occurred five times".to_owned(),
    };
    let why = match at {
        Some(ply) => format!("{why} at ply {ply}, which drew the game there (FIDE 9.6)"),
        None => why,
    };
    let mut wrong = Vec::new();
    if let Some(tag) = result_tag(collected).filter(|&t| t != required && t != Outcome::Unknown) {
        wrong.push(format!("the Result tag says {}", result_text(tag)));
    }
    if let Some(marker) = collected.outcome.filter(|&m| m != required && m != Outcome::Unknown) {
        wrong.push(format!("the movetext ends with {}", result_text(marker)));
    }
    if wrong.is_empty() {
        return check_result_tag_against_marker(ctx, collected);
    }
    let at = ctx.outline().result_at.unwrap_or_else(|| ctx.end_offset());
    let message = format!("{why}, so the result is {}, but {}", result_text(required), wrong.join(" and "));
    ctx.push(Code::ResultMismatch, at, message);
}

/// The Result tag's value, the last if it is given twice (as the checker
/// reads it), from a game's tags.
fn last_result_tag(tags: &Tags) -> Option<&str> {
    tags.iter().filter(|&(name, _)| name == "Result").last().map(|(_, value)| value)
}

/// The game's result when its tags decide it (its Result tag is a result),
/// for selections by tags alone (`filter --result`).
pub fn tag_result(tags: &Tags) -> Option<&'static str> {
    last_result_tag(tags).and_then(|value| standard_result(value.as_bytes())).map(result_text)
}

/// The game's result as every command sees it ([`game_result`]) from its
/// bytes and its tags alone, without parsing or replaying it: for commands
/// that file games by tags (`split --by result`). The marker is read only
/// when the tag is not a result.
pub fn result_of(game: &[u8], tags: &Tags) -> &'static str {
    game_result(last_result_tag(tags).map(str::as_bytes), || {
        let at = locate::scan(game, |_| {}).result_at?;
        let rest = &game[at..];
        let token = &rest[..lexer::token_len(rest, || true).unwrap_or(rest.len())];
        Some(match token {
            b"*" => Outcome::Unknown,
            [b'1', .., b'0'] => Outcome::Known(KnownOutcome::Decisive { winner: Color::White }),
            [b'0', .., b'1'] => Outcome::Known(KnownOutcome::Decisive { winner: Color::Black }),
            _ if lexer::is_result(token) => Outcome::Known(KnownOutcome::Draw),
            _ => return None,
        })
    })
}

#[cfg(test)]
mod tests {
    use pgn_reader::{KnownOutcome, Outcome};
    use shakmaty::Color;

    use super::{game_result, result_of, tag_result};
    use crate::game::Tags;

    const WHITE_WINS: Outcome = Outcome::Known(KnownOutcome::Decisive { winner: Color::White });

    #[test]
    fn the_result_tag_decides_only_when_written_exactly_as_a_result() {
        for tag in ["1-0", "0-1", "1/2-1/2", "*"] {
            assert_eq!(game_result(Some(tag.as_bytes()), || Some(WHITE_WINS)), tag);
        }
        for tag in ["0-0", "1/2", "½-½", "1-0 ff", " 1-0", "1-0 ", "?", ""] {
            assert_eq!(game_result(Some(tag.as_bytes()), || Some(WHITE_WINS)), "1-0", "{tag:?}: the marker");
            assert_eq!(game_result(Some(tag.as_bytes()), || None), "*", "{tag:?}: no marker either");
        }
        assert_eq!(game_result(None, || Some(Outcome::Known(KnownOutcome::Draw))), "1/2-1/2");
        assert_eq!(game_result(None, || None), "*");
    }

    #[test]
    fn by_tags_alone_the_last_result_tag_decides_when_it_is_a_result() {
        let tags = |pgn: &str| Tags::scan(pgn.as_bytes());
        assert_eq!(tag_result(&tags("[Result \"1-0\"]\n[Result \"0-1\"]\n")), Some("0-1"));
        assert_eq!(tag_result(&tags("[Result \"0-1\"]\n[Result \"1-0 ff\"]\n")), None);
        assert_eq!(tag_result(&tags("[White \"x\"]\n")), None);
        let game = "[Result \"0-0\"]\n\n1. e4 \u{bd}-\u{bd}\n";
        assert_eq!(result_of(game.as_bytes(), &tags(game)), "1/2-1/2");
    }
}
