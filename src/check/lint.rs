//! `--lint`: each move as written against the SAN the standard asks for
//! (check marks, disambiguation, `O-O`, `=` before a promotion, no `e.p.`).

use pgn_reader::SanPlus;
use shakmaty::{
    Chess, Move, Position, Role,
    san::{San, Suffix},
};

use super::context::Ctx;
use crate::{
    notation::{self, explain, strip_move_number},
    report::Code,
    text::text,
};

/// `--lint`: how `m`, played from `pos` to `after`, was written, against
/// the SAN the standard asks for; the check mark `after` calls for (a
/// writer of SAN takes it, and the next move's resolution need not work
/// out the check again). Most moves are written as the standard asks:
/// they are told by tests of the token alone, inlined into the replay, and
/// only a move that may be flawed goes on to [`push_findings`].
#[inline]
pub(crate) fn lint_move(
    ctx: &mut Ctx<'_>,
    index: usize,
    pos: &Chess,
    after: &Chess,
    m: Move,
    written: &SanPlus,
) -> Option<Suffix> {
    let Some((offset, token)) = ctx.mainline_token(index) else { return notation::check_suffix(after) };
    let raw = strip_move_number(token);
    // Not `SanPlus::from_move`, which looks for every legal move after
    // each move to tell mate from check, and lists rivals of pieces that
    // have none: that was three quarters of `--lint`.
    let suffix = notation::check_suffix(after);
    let uci = !raw.is_empty() && raw.len() >= 4 && raw[1].is_ascii_digit() && raw[3].is_ascii_digit();
    if uci {
        // Coordinates are reported once per game as `non-san-move`.
        return suffix;
    }
    // A pawn that captures names its file, as SAN does; one read from it
    // left no other choice.
    let named = match written.san {
        San::Normal { role: Role::Pawn, file, rank: None, capture, .. } => file.is_some() != capture,
        San::Normal { file, rank, .. } => file.is_some() || rank.is_some(),
        _ => false,
    };
    let unmarked_promotion = matches!(written.san, San::Normal { promotion: Some(_), .. }) && !raw.contains(&b'=');
    let following = &ctx.game.bytes[offset + token.len()..];
    let en_passant = match following {
        // Most moves: a space, then a word no `e.p.` starts.
        [space, next, ..] if space.is_ascii_whitespace() && !next.is_ascii_whitespace() && *next != b'e' => false,
        _ => {
            let next = following.iter().position(|b| !b.is_ascii_whitespace()).map_or(&[][..], |i| &following[i..]);
            next.starts_with(b"e.p.") || (raw.ends_with(b"e") && following.starts_with(b".p."))
        }
    };
    let zero_castling = raw.first() == Some(&b'0');
    if named || unmarked_promotion || en_passant || zero_castling || written.suffix != suffix {
        let flaws = Flaws { named, unmarked_promotion, en_passant, zero_castling };
        push_findings(ctx, index, pos, m, written, (offset, token), suffix, flaws);
    }
    suffix
}

/// What the token of a move showed, that [`push_findings`] tells further.
struct Flaws {
    /// The move names (part of) its starting square: SAN may not.
    named: bool,
    unmarked_promotion: bool,
    en_passant: bool,
    zero_castling: bool,
}

/// The findings of a move that [`lint_move`] found may be flawed, each
/// with its message and the position before it. Out of line: most moves
/// have none, and the replay's loop stays small without it.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn push_findings(
    ctx: &mut Ctx<'_>,
    index: usize,
    pos: &Chess,
    m: Move,
    written: &SanPlus,
    (offset, token): (usize, &[u8]),
    suffix: Option<Suffix>,
    flaws: Flaws,
) {
    // A piece written without its starting square was the only one that
    // could move there (else it would not have been read), so SAN names
    // none either: the SAN is worked out for a finding's message, or when
    // one is named.
    let normal = || SanPlus { san: notation::move_san(pos, m), suffix };
    let mut findings: Vec<(Code, String)> = Vec::new();
    if flaws.zero_castling {
        findings.push((Code::LintZeroCastling, format!("castling is written with the letter O: {}", normal())));
    }
    if written.suffix != suffix {
        let normal = normal();
        let message = match (written.suffix, suffix) {
            (_, Some(Suffix::Checkmate)) => format!("the move mates: write {normal}"),
            (_, Some(Suffix::Check)) => format!("the move gives check: write {normal}"),
            (Some(Suffix::Checkmate), None) => format!("the move does not mate or even give check: write {normal}"),
            _ => format!("the move does not give check: write {normal}"),
        };
        findings.push((Code::LintCheckSuffix, message));
    }
    if let San::Normal { file, rank, .. } = written.san
        && flaws.named
        && let normal = normal()
        && let San::Normal { file: f, rank: r, .. } = normal.san
        && (file, rank) != (f, r)
    {
        let message = if file.is_some_and(|_| f.is_none()) || rank.is_some_and(|_| r.is_none()) {
            // Many programs disambiguate against a pinned piece too; SAN
            // counts only the pieces that can legally move there.
            let others = (pos.our(m.role())
                & shakmaty::attacks::attacks(m.to(), m.role().of(!pos.turn()), pos.board().occupied()))
            .without(m.from().expect("a normal move"));
            match others.first() {
                Some(other) if m.role() != Role::Pawn => format!(
                    "the move names more of its starting square than needed (the {} on {other} cannot legally \
                     move there{}): write {normal}",
                    explain::role_name(m.role()),
                    if pos.is_check() { "" } else { ", it is pinned" }
                ),
                _ => format!("the move names more of its starting square than needed: write {normal}"),
            }
        } else {
            format!(
                "SAN tells the moving piece apart by {}: write {normal}",
                if r.is_some() && f.is_none() { "its rank" } else { "its file" }
            )
        };
        findings.push((Code::LintDisambiguation, message));
    }
    if flaws.unmarked_promotion {
        findings.push((Code::LintPromotionEquals, format!("a promotion is written with `=`: {}", normal())));
    }
    if flaws.en_passant {
        findings.push((Code::LintEnPassantSuffix, format!("SAN has no `e.p.` suffix: {}", normal())));
    }
    if findings.is_empty() {
        return;
    }
    let shown = text(token, ctx.utf8);
    for (code, message) in findings {
        let fen = crate::notation::fen(pos);
        let diag = ctx.push(code, offset, message);
        diag.ply = Some(index as u32 + 1);
        diag.san = Some(shown.clone());
        diag.fen = Some(fen);
    }
}
