//! The result audit: the Result tag and the termination marker against each
//! other and against how the game ended on the board.

use pgn_reader::{KnownOutcome, Outcome};
use shakmaty::{Chess, Color, Position, Role};

use super::{context::Ctx, parse::Collected, replay::Replay};
use crate::{
    frame::{FrameFlags, lexer, locate},
    game::Tags,
    report::{Code, DrawReason, GameReport, Severity, Termination},
    text::text,
};

/// The whole audit of a game: its Result tag against its marker and the
/// board, and, when every move was played (`finished`), why a draw was drawn,
/// a win on time without mating material, and an ending with no result.
pub(crate) fn audit(
    ctx: &mut Ctx<'_>,
    collected: &Collected,
    replay: &Replay,
    report: &mut GameReport,
    finished: bool,
) {
    let ending = ending(replay, report.termination);
    match ending {
        Some((end, at)) => check_result(ctx, collected, end, at, replay.pos.turn()),
        None => check_result_tag_against_marker(ctx, collected),
    }
    // Verdicts on how the game ended need the whole game.
    if !finished {
        return;
    }
    let result = game_result(collected);
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
        ctx.push(Severity::Info, Code::UnknownResult, at, message);
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
fn result_text(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Known(KnownOutcome::Decisive { winner: Color::White }) => "1-0",
        Outcome::Known(KnownOutcome::Decisive { winner: Color::Black }) => "0-1",
        Outcome::Known(KnownOutcome::Draw) => "1/2-1/2",
        Outcome::Unknown => "*",
    }
}

/// The Result tag, if it is one of the four results (`?` and the like are
/// not results and are left alone).
fn result_tag(collected: &Collected) -> Option<Outcome> {
    let value = collected.result.get()?;
    Outcome::from_ascii(value.trim_ascii()).ok()
}

/// The game's result: the Result tag when it is one, else the marker.
fn game_result(collected: &Collected) -> Option<Outcome> {
    result_tag(collected).or(collected.outcome)
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
    ctx.push(Severity::Warning, Code::TimeoutVsInsufficientMaterial, at, message);
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
        ctx.push(Severity::Error, Code::ResultMismatch, at, message);
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
    ctx.push(Severity::Error, Code::ResultMismatch, at, message);
}

/// The Result tag when it is one of the four results (`*` included), else
/// the movetext's marker, else `*`.
pub(crate) fn export_result(tag: Option<&str>, marker: Option<Outcome>) -> &'static str {
    match tag {
        Some("1-0") => "1-0",
        Some("0-1") => "0-1",
        Some("1/2-1/2") => "1/2-1/2",
        Some("*") => "*",
        _ => match marker {
            Some(Outcome::Known(KnownOutcome::Decisive { winner })) => {
                if winner.is_white() {
                    "1-0"
                } else {
                    "0-1"
                }
            }
            Some(Outcome::Known(KnownOutcome::Draw)) => "1/2-1/2",
            Some(Outcome::Unknown) | None => "*",
        },
    }
}

/// The game's result as every command sees it (the Result tag when it is a
/// result, else the movetext's marker, else `*`),
/// from its bytes and its tags alone, without parsing or replaying it: for
/// commands that file games by tags (`split --by result`). The Result tag is
/// the last one, as the checker reads it; the marker is read only when the
/// tag is not a result.
pub fn result_of(game: &[u8], tags: &Tags) -> &'static str {
    let tag = tags.iter().filter(|&(name, _)| name == "Result").last().map(|(_, value)| value.trim());
    if let Some(result @ ("1-0" | "0-1" | "1/2-1/2" | "*")) = tag {
        return export_result(Some(result), None);
    }
    let marker = locate::scan(game, |_| {}).result_at.and_then(|at| {
        let rest = &game[at..];
        let token = &rest[..lexer::token_len(rest, true).unwrap_or(rest.len())];
        Some(match token {
            b"*" => Outcome::Unknown,
            [b'1', .., b'0'] => Outcome::Known(KnownOutcome::Decisive { winner: Color::White }),
            [b'0', .., b'1'] => Outcome::Known(KnownOutcome::Decisive { winner: Color::Black }),
            _ if lexer::is_result(token) => Outcome::Known(KnownOutcome::Draw),
            _ => return None,
        })
    });
    export_result(None, marker)
}
