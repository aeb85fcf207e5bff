//! `--lint`: each move as written against the SAN the standard asks for
//! (check marks, disambiguation, `O-O`, `=` before a promotion, no `e.p.`).

use pgn_reader::SanPlus;
use shakmaty::{
    Chess, Move, Position, Role,
    san::{San, Suffix},
};

use super::context::Ctx;
use crate::{
    notation::{self, SanText, explain, strip_move_number},
    report::Code,
    text::text,
};

/// `--lint`: plays `m` on `pos`, and checks how it was written against
/// the SAN the standard asks for; the check mark the move calls for (a
/// writer of SAN takes it, and the next move's resolution need not work
/// out the check again). `san` is the move's SAN when the replay keeps it.
// Inlined: in the replay's copies of its loop that keep no SAN, only the
// worded lint is left.
#[inline(always)]
pub(crate) fn lint_move(
    ctx: &mut Ctx<'_>,
    index: usize,
    pos: &mut Chess,
    m: Move,
    written: &SanPlus,
    san: Option<SanText>,
) -> Option<Suffix> {
    if let Some(san) = san.filter(|_| !ctx.lint_messages) {
        // No message and no FEN: the position before the move is not kept.
        pos.play_unchecked(m);
        return lint_unworded(ctx, index, pos, written, san);
    }
    let before = pos.clone();
    pos.play_unchecked(m);
    lint_worded(ctx, index, &before, pos, m, written)
}

/// [`lint_move`] with messages, of `m` played from `pos` to `after`.
// Out of line, as the two below: inlined, they made the replay's loop too
// large to inline into the checker, and `validate` paid for it.
#[inline(never)]
fn lint_worded(
    ctx: &mut Ctx<'_>,
    index: usize,
    pos: &Chess,
    after: &Chess,
    m: Move,
    written: &SanPlus,
) -> Option<Suffix> {
    let flawed = |ctx: &mut Ctx<'_>, token: (usize, &[u8]), suffix, flaws| {
        push_findings(ctx, index, pos, m, written, token, suffix, flaws)
    };
    // Not `SanPlus::from_move`, which looks for every legal move after
    // each move to tell mate from check, and lists rivals of pieces that
    // have none: that was three quarters of `--lint`.
    let suffix = notation::check_suffix(after);
    lint_token(ctx, index, suffix, written, |_, _, _| false, flawed);
    suffix
}

/// [`lint_move`] without messages, `after` the move, whose SAN `san` the
/// replay worked out. Most moves are their SAN with its check mark, then
/// a space and a word no `e.p.` starts: told here by one comparison and
/// two bytes. The others go on to the look at each flaw, out of line: in
/// this function it took thrice the instructions of these tests, most of
/// them to save and restore the registers it needs.
#[inline(never)]
fn lint_unworded(ctx: &mut Ctx<'_>, index: usize, after: &Chess, written: &SanPlus, san: SanText) -> Option<Suffix> {
    let suffix = notation::check_suffix(after);
    let bytes = ctx.game.bytes;
    if let Some((offset, token)) = ctx.mainline_token(index)
        && is_text(token, bytes, offset, san.with_suffix(suffix))
        && plainly_no_en_passant(&bytes[offset + token.len()..])
    {
        return suffix;
    }
    lint_unworded_token(ctx, index, written, san, suffix);
    suffix
}

/// [`lint_unworded`] of a move that may be flawed.
#[cold]
#[inline(never)]
fn lint_unworded_token(ctx: &mut Ctx<'_>, index: usize, written: &SanPlus, san: SanText, suffix: Option<Suffix>) {
    let standard = |raw: &[u8], (bytes, at): (&[u8], usize), suffix| is_text(raw, bytes, at, san.with_suffix(suffix));
    let flawed = |ctx: &mut Ctx<'_>, token: (usize, &[u8]), suffix, flaws| {
        push_codes(ctx, index, written, token, suffix, flaws, san)
    };
    lint_token(ctx, index, suffix, written, standard, flawed);
}

/// How the `index`-th move's token was written, its move calling for the
/// check mark `suffix`: a move that may be flawed goes on to `flawed`.
/// Most moves are written as the standard asks (`standard`, when it
/// knows, says so of the token with its move number stripped, given with
/// the game's bytes and where it starts in them): they are told by tests
/// of the token alone.
#[inline(always)]
fn lint_token(
    ctx: &mut Ctx<'_>,
    index: usize,
    suffix: Option<Suffix>,
    written: &SanPlus,
    standard: impl FnOnce(&[u8], (&[u8], usize), Option<Suffix>) -> bool,
    flawed: impl FnOnce(&mut Ctx<'_>, (usize, &[u8]), Option<Suffix>, Flaws),
) {
    let Some((offset, token)) = ctx.mainline_token(index) else { return };
    let raw = strip_move_number(token);
    // A token that is the move's SAN with its check mark has no flaw but
    // an `e.p.` after it.
    let standard = standard(raw, (ctx.game.bytes, offset + token.len() - raw.len()), suffix);
    let uci = !standard && !raw.is_empty() && raw.len() >= 4 && raw[1].is_ascii_digit() && raw[3].is_ascii_digit();
    if uci {
        // Coordinates are reported once per game as `non-san-move`.
        return;
    }
    // A pawn that captures names its file, as SAN does; one read from it
    // left no other choice.
    let named = !standard
        && match written.san {
            San::Normal { role: Role::Pawn, file, rank: None, capture, .. } => file.is_some() != capture,
            San::Normal { file, rank, .. } => file.is_some() || rank.is_some(),
            _ => false,
        };
    let unmarked_promotion =
        !standard && matches!(written.san, San::Normal { promotion: Some(_), .. }) && !raw.contains(&b'=');
    let following = &ctx.game.bytes[offset + token.len()..];
    let en_passant = !plainly_no_en_passant(following) && {
        let next = following.iter().position(|b| !b.is_ascii_whitespace()).map_or(&[][..], |i| &following[i..]);
        next.starts_with(b"e.p.") || (raw.ends_with(b"e") && following.starts_with(b".p."))
    };
    let zero_castling = !standard && raw.first() == Some(&b'0');
    if named || unmarked_promotion || en_passant || zero_castling || written.suffix != suffix {
        let flaws = Flaws { named, unmarked_promotion, en_passant, zero_castling };
        flawed(ctx, (offset, token), suffix, flaws);
    }
}

/// Whether the bytes `following` a move's token show at once that no
/// `e.p.` follows it, as for most moves: a space, then a word no `e.p.`
/// starts.
#[inline(always)]
fn plainly_no_en_passant(following: &[u8]) -> bool {
    matches!(following, [space, next, ..] if space.is_ascii_whitespace() && !next.is_ascii_whitespace() && *next != b'e')
}

/// Whether `raw`, at `at` in `bytes`, is the bytes of `text`.
#[inline(always)]
fn is_text(raw: &[u8], bytes: &[u8], at: usize, text: SanText) -> bool {
    let len = raw.len();
    if len != text.len() || len == 0 {
        return false;
    }
    // At most eight bytes when the lengths agree: one word, loaded whole
    // (byte by byte, it cost more than the tests it spares).
    let word = match bytes.get(at..at + 8) {
        Some(eight) => u64::from_le_bytes(eight.try_into().expect("eight bytes")) & (u64::MAX >> (64 - 8 * len)),
        None => raw.iter().rev().fold(0, |word, &b| word << 8 | u64::from(b)),
    };
    word == text.word()
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
    ctx.lint_found = true;
    let shown = text(token, ctx.utf8);
    for (code, message) in findings {
        let fen = crate::notation::fen(pos);
        let diag = ctx.push(code, offset, message);
        diag.ply = Some(index as u32 + 1);
        diag.san = Some(shown.clone());
        diag.fen = Some(fen);
    }
}

/// [`push_findings`] without messages, FENs and the position before the
/// move: the same codes, each with its place, ply and move as written. The
/// SAN the standard asks for is `san`, read back for its disambiguation.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn push_codes(
    ctx: &mut Ctx<'_>,
    index: usize,
    written: &SanPlus,
    (offset, token): (usize, &[u8]),
    suffix: Option<Suffix>,
    flaws: Flaws,
    san: SanText,
) {
    let disambiguation = || {
        let (San::Normal { file, rank, .. }, Ok(San::Normal { file: f, rank: r, .. })) =
            (written.san, San::from_ascii(&san.bytes()[..san.len()]))
        else {
            return false;
        };
        (file, rank) != (f, r)
    };
    let codes = [
        (flaws.zero_castling, Code::LintZeroCastling),
        (written.suffix != suffix, Code::LintCheckSuffix),
        (flaws.named && disambiguation(), Code::LintDisambiguation),
        (flaws.unmarked_promotion, Code::LintPromotionEquals),
        (flaws.en_passant, Code::LintEnPassantSuffix),
    ];
    if !codes.iter().any(|&(flawed, _)| flawed) {
        return;
    }
    ctx.lint_found = true;
    let shown = text(token, ctx.utf8);
    for (_, code) in codes.into_iter().filter(|&(flawed, _)| flawed) {
        let diag = ctx.push(code, offset, String::new());
        diag.ply = Some(index as u32 + 1);
        diag.san = Some(shown.clone());
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::{
        check::{GameReader, Options, ReadOptions},
        frame::{Batch, Framer},
        report::Code,
    };

    /// A lint finding: code, line, column, ply and move as written.
    type Found = (Code, u64, u32, Option<u32>, Option<String>);

    /// The lint findings of every game of `pgn`, read as `fix` reads games
    /// (the SAN kept), with messages or not; and whether each finding has
    /// a message and a FEN.
    fn lint_findings(pgn: &str, messages: bool) -> Vec<(Found, bool)> {
        let check = Options { lint: true, lint_messages: messages, ..Options::default() };
        let mut reader = GameReader::new(ReadOptions { check, san: true, ..ReadOptions::default() });
        let mut framer = Framer::new(pgn.as_bytes());
        let mut batch = Batch::default();
        let mut found = Vec::new();
        while framer.next_batch(&mut batch).unwrap() {
            for raw in batch.games() {
                let game = reader.read(&Arc::from("t.pgn"), raw, true);
                for d in game.report.diagnostics.iter().filter(|d| d.code.as_str().starts_with("lint-")) {
                    let worded = !d.message.is_empty() && d.fen.is_some();
                    found.push(((d.code, d.line, d.column, d.ply, d.san.clone()), worded));
                }
            }
        }
        found
    }

    #[test]
    fn the_lint_without_messages_finds_what_the_worded_lint_finds_where_it_finds_it() {
        let pgn = "1. e4 e5 2. Ng1f3 Nc6 3. Bc4 Nf6 4. 0-0 Be7 5. Bxf7 Kf8 6. Bb3+ d5 7. d4 h6 *\n\n\
                   1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7+ 1-0\n\n\
                   [FEN \"8/P6k/8/8/8/8/8/K7 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. a8Q Kg6 2. e2e4 *\n\n\
                   [FEN \"4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1\"]\n[SetUp \"1\"]\n\n1. exd6 e.p. Kd7 2. Ke2 Kxd6 *\n";
        let worded = lint_findings(pgn, true);
        let codes: Vec<Code> = worded.iter().map(|((code, ..), _)| *code).collect();
        for code in [
            Code::LintDisambiguation,
            Code::LintZeroCastling,
            Code::LintCheckSuffix,
            Code::LintPromotionEquals,
            Code::LintEnPassantSuffix,
        ] {
            assert!(codes.contains(&code), "{code:?} not found: {worded:?}");
        }
        assert!(worded.iter().all(|&(_, worded)| worded), "{worded:?}");
        let unworded = lint_findings(pgn, false);
        assert!(unworded.iter().all(|&(_, worded)| !worded), "{unworded:?}");
        let found = |findings: Vec<(Found, bool)>| findings.into_iter().map(|(found, _)| found).collect::<Vec<_>>();
        assert_eq!(found(unworded), found(worded));
    }
}
