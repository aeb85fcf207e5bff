//! Replays a game's main line on shakmaty and keeps what the end-of-game
//! rules need: repetitions, the 50- and 75-move points, perpetual check and
//! moves played after an automatic draw.

use std::{
    borrow::Cow,
    collections::HashMap,
    hash::{BuildHasherDefault, Hasher},
};

use pgn_reader::SanPlus;
use shakmaty::{Chess, EnPassantMode, Move, Position, san::San, zobrist::Zobrist64};

use super::{
    context::Ctx,
    lint,
    rules::{FIFTY_MOVES, SEVENTYFIVE_MOVES, has_legal_move},
};
use crate::{
    notation::{self, Leniency, Read, SanText, check_suffix, move_san_text_as_read, pass, strip_move_number},
    report::{Code, Diagnostic, Severity, Termination},
    text::token_text,
};

/// Replays a main line and keeps what the end-of-game rules need.
///
/// Repetitions can only happen between irreversible moves (captures, pawn
/// moves; the halfmove clock says which), so the replay keeps the position
/// after the last such move and the moves since, and hashes positions only
/// for stretches long enough to repeat a position three times.
#[derive(Debug, Default)]
pub(crate) struct Replay {
    pub(crate) pos: Chess,
    pub(crate) plies: u32,
    /// Every move given was played (no illegal move stopped the replay).
    pub(crate) complete: bool,
    /// `--lint`: compare each move as written with its normalized SAN.
    pub(crate) lint: bool,
    /// The lint stops at the game's first finding
    /// ([`super::Options::lint_first_only`]).
    pub(crate) lint_first_only: bool,
    /// Keep the start position in `start` and the moves played in `played`.
    pub(crate) record: bool,
    /// The position the last game was replayed from (when `record`; `None`
    /// when it could not be replayed).
    pub(crate) start: Option<Chess>,
    /// The moves played, `None` for a null move (when `record`).
    pub(crate) played: Vec<Option<Move>>,
    /// Keep each move's SAN in `sans`, for a game of up to
    /// [`SANS_KEPT`] moves.
    pub(crate) record_san: bool,
    /// The SAN of each move played, check marks included, as a writer
    /// writes it (when `record_san`): worked out here, where the positions
    /// are, so that a writer of SAN need not play the moves again.
    pub(crate) sans: Vec<SanText>,
    /// Count the moves that give check in `checks`.
    pub(crate) count_checks: bool,
    /// Moves that gave check (when `count_checks`).
    pub(crate) checks: u32,
    /// Position at the start of the current reversible stretch.
    stretch_start: Chess,
    /// Ply of that position.
    stretch_ply: u32,
    /// Moves played since then, when they are not in `played` already
    /// (a reversible stretch can be the whole of a hostile game).
    stretch: Vec<Move>,
    /// Each position of the stretch being ended: how often it occurred,
    /// and its first index in the stretch.
    counts: HashMap<u64, (u32, u32), BuildHasherDefault<ZobristKey>>,
    /// Scratch list of [`Replay::may_repeat_thrice`].
    occupancy_keys: Vec<u64>,
    /// How often the final position occurred in its stretch.
    pub(crate) final_repetitions: usize,
    /// The final position repeats a cycle in which one side only gave check.
    pub(crate) perpetual: bool,
    pub(crate) threefold_ply: Option<u32>,
    pub(crate) fivefold_ply: Option<u32>,
    pub(crate) fifty_moves_ply: Option<u32>,
    pub(crate) seventyfive_moves_ply: Option<u32>,
    /// The first fivefold repetition or 75-move point (ply, what, FEN), to
    /// warn about moves played after it. Play on after a dead
    /// position (K+B v K) is common in real games and is not flagged.
    pub(crate) drawn: Option<(u32, Termination, String)>,
}

/// Zobrist hashes are already uniformly random, so they serve as their own
/// hash-table keys (SipHash over them was a third of the repetition cost).
#[derive(Debug, Default)]
pub(crate) struct ZobristKey(u64);

impl Hasher for ZobristKey {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Games of more moves are written without their SAN kept (8 bytes a
/// move): a writer works it out again, rather than a hostile game of
/// millions of moves being held twice.
pub(crate) const SANS_KEPT: usize = 1 << 16;

/// A position needs at least 8 plies to occur three times.
const MIN_REPEATING_STRETCH: usize = 8;

impl Replay {
    /// Plays `moves` from `pos`; stops at the first that cannot be played.
    pub(crate) fn run(&mut self, ctx: &mut Ctx<'_>, pos: Chess, moves: &[SanPlus]) {
        // Copies of the loop: counting checks (or the lint, which works
        // out each move's check mark) hands each position's check to the
        // next move's resolution, which the plain replay should not pay for.
        // So too for keeping each move's SAN, which `validate` never does;
        // its check marks are then handed on as well.
        self.sans.clear();
        let sans = self.record_san && moves.len() <= SANS_KEPT;
        match (self.count_checks || self.lint, sans) {
            (true, false) => self.run_counting::<true, false>(ctx, pos, moves),
            (false, false) => self.run_counting::<false, false>(ctx, pos, moves),
            (_, true) => self.run_counting::<true, true>(ctx, pos, moves),
        }
    }

    // Inlined, as the one loop it was before it had four copies: out of
    // line, `validate` took 1% more instructions.
    #[inline(always)]
    fn run_counting<const COUNT_CHECKS: bool, const SANS: bool>(
        &mut self,
        ctx: &mut Ctx<'_>,
        pos: Chess,
        moves: &[SanPlus],
    ) {
        self.pos = pos;
        self.plies = 0;
        self.complete = false;
        self.stretch_ply = 0;
        self.stretch_start = self.pos.clone();
        self.stretch.clear();
        self.perpetual = false;
        (self.threefold_ply, self.fivefold_ply, self.fifty_moves_ply, self.seventyfive_moves_ply) =
            (None, None, None, None);
        self.drawn = None;
        self.played.clear();
        if self.record {
            // Exactly: a game of millions of moves is not doubled into room.
            self.played.reserve(moves.len());
        }
        self.checks = 0;
        if SANS {
            self.sans.reserve(moves.len());
        }
        self.check_move_rules();
        // Whether the position is in check, when counting checks or the
        // lint asked it.
        let mut in_check: Option<bool> = None;
        for (index, san_plus) in moves.iter().enumerate() {
            // Only ever about the position this move is played from.
            let known_check = if COUNT_CHECKS { in_check.take() } else { None };
            let m = match san_plus.san {
                San::Null => {
                    if !self.null_move(ctx, index, san_plus) {
                        return self.finish(ctx);
                    }
                    continue;
                }
                san => {
                    let token = || Cow::Owned(mainline_token(ctx, index, san_plus));
                    match notation::read_in(&self.pos, Some(san), known_check, token) {
                        Ok(Read { m, leniency: None }) => m,
                        Ok(Read { m, leniency: Some(leniency) }) => {
                            self.lenient_move(ctx, index, san_plus, leniency, m);
                            m
                        }
                        Err(err) => {
                            self.move_diagnostic(ctx, index, san_plus, err.code, err.message).reason = err.reason;
                            return self.finish(ctx);
                        }
                    }
                }
            };
            if self.record {
                self.played.push(Some(m));
            }
            let san = SANS.then(|| move_san_text_as_read(&self.pos, m, san_plus.san));
            // The check mark after the move, when the lint or the SAN
            // asks for it.
            let suffix = if self.lint {
                let suffix = lint::lint_move(ctx, index, &mut self.pos, m, san_plus, san);
                self.lint = !(self.lint_first_only && ctx.lint_found);
                Some(suffix)
            } else {
                self.pos.play_unchecked(m);
                SANS.then(|| check_suffix(&self.pos))
            };
            if let Some(san) = san {
                self.sans.push(san.with_suffix(suffix.flatten()));
            }
            self.plies += 1;
            if COUNT_CHECKS {
                let check = suffix.map_or_else(|| self.pos.is_check(), |suffix| suffix.is_some());
                self.checks += u32::from(check);
                in_check = Some(check);
            }
            if self.pos.halfmoves() == 0 {
                self.end_stretch();
                self.restart_stretch();
            } else {
                if !self.record {
                    self.stretch.push(m);
                }
                if self.pos.halfmoves() >= FIFTY_MOVES {
                    self.check_move_rules();
                }
            }
        }
        self.complete = true;
        self.finish(ctx);
    }

    /// Repetitions of the last stretch, and moves played after an
    /// automatic draw.
    fn finish(&mut self, ctx: &mut Ctx<'_>) {
        self.perpetual = false;
        self.final_repetitions = self.end_stretch();
        let Some((ply, rule, fen)) = self.drawn.clone() else { return };
        if ply >= self.plies {
            return;
        }
        let index = ply as usize;
        let (offset, shown) = ctx.mainline_offset(index).unwrap_or_default();
        let message = format!(
            "the game was already drawn ({}) after ply {ply}; the moves from here on do not count",
            rule_name(rule)
        );
        let diag = ctx.push(Code::MovesAfterEnd, offset, message);
        // Not the code's error: the moves after an automatic draw are
        // played, only they do not count.
        diag.severity = Severity::Warning;
        diag.ply = Some(ply + 1);
        diag.san = Some(shown);
        diag.fen = Some(fen);
    }

    /// The 50- and 75-move points, once the halfmove clock is at 100.
    fn check_move_rules(&mut self) {
        let clock = self.pos.halfmoves();
        if clock < FIFTY_MOVES || self.seventyfive_moves_ply.is_some() || !has_legal_move(&self.pos) {
            return;
        }
        self.fifty_moves_ply.get_or_insert(self.plies);
        if clock >= SEVENTYFIVE_MOVES {
            self.seventyfive_moves_ply = Some(self.plies);
            // Found before any fivefold repetition of this stretch, which is
            // hashed only when the stretch ends.
            let fen = crate::notation::fen(&self.pos);
            self.drawn = Some((self.plies, Termination::SeventyfiveMoves, fen));
        }
    }

    /// Plays a null move as a pass; false when it cannot be played.
    fn null_move(&mut self, ctx: &mut Ctx<'_>, index: usize, san_plus: &SanPlus) -> bool {
        if self.pos.is_check() {
            let message = "a null move while in check: the king would stay in check".to_owned();
            // Not the code's warning: this pass cannot be played at all.
            self.move_diagnostic(ctx, index, san_plus, Code::NullMove, message).severity = Severity::Error;
            return false;
        }
        let message = "a null move (a pass): play goes on with the other side to move".to_owned();
        self.move_diagnostic(ctx, index, san_plus, Code::NullMove, message);
        let Some(swapped) = pass(&self.pos) else { return false };
        // A pass is not a move of the game: repetitions restart after it.
        // The stretch ends before the pass joins `played`, which holds the
        // stretch's moves when recording.
        self.end_stretch();
        self.pos = swapped;
        if self.record {
            self.played.push(None);
        }
        if self.record_san && self.sans.len() + 1 == self.played.len() {
            self.sans.push(SanText::new(San::Null, None));
        }
        self.plies += 1;
        self.restart_stretch();
        true
    }

    /// The warning for a move read leniently (a capture written without
    /// `x`, coordinates), once per game and kind.
    fn lenient_move(&self, ctx: &mut Ctx<'_>, index: usize, san_plus: &SanPlus, leniency: Leniency, m: Move) {
        let token = mainline_token(ctx, index, san_plus);
        if let Some((code, message)) = leniency_warning(ctx, leniency, &self.pos, m, &token) {
            self.move_diagnostic(ctx, index, san_plus, code, message);
        }
    }

    fn move_diagnostic<'c>(
        &self,
        ctx: &'c mut Ctx<'_>,
        index: usize,
        san_plus: &SanPlus,
        code: Code,
        message: String,
    ) -> &'c mut Diagnostic {
        let (offset, shown) = ctx.mainline_offset(index).unwrap_or_else(|| (0, san_plus.to_string()));
        let fen = crate::notation::fen(&self.pos);
        let diag = ctx.push(code, offset, message);
        diag.ply = Some(self.plies + 1);
        diag.san = Some(shown);
        diag.fen = Some(fen);
        diag
    }

    fn restart_stretch(&mut self) {
        self.stretch_start.clone_from(&self.pos);
        self.stretch_ply = self.plies;
        self.stretch.clear();
    }

    /// Hashes the positions of the stretch just ended to find the first
    /// threefold and fivefold repetitions; returns how often its last
    /// position occurred.
    #[inline]
    fn end_stretch(&mut self) -> usize {
        // Most stretches (between two pawn moves or captures) are too short
        // to repeat a position: told here, where the call is made.
        if self.stretch_len() < MIN_REPEATING_STRETCH { 1 } else { self.end_long_stretch() }
    }

    /// [`Replay::end_stretch`] for a stretch long enough to repeat a
    /// position three times.
    fn end_long_stretch(&mut self) -> usize {
        let len = self.stretch_len();
        // The test's list is sorted: a long stretch (a hostile game can be
        // one of millions of plies) goes straight to the hashing.
        if len <= 1 << 12 && !self.may_repeat_thrice(len) {
            return 1;
        }
        self.counts.clear();
        let mut pos = self.stretch_start.clone();
        let mut hash = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal);
        // Counted as they are hashed: a stretch of millions of plies keeps
        // no list of its hashes.
        for i in 0..=len {
            if i > 0 {
                let m = self.stretch_move(i - 1);
                let next = pos.update_zobrist_hash(hash, m, EnPassantMode::Legal);
                pos.play_unchecked(m);
                hash = next.unwrap_or_else(|| pos.zobrist_hash(EnPassantMode::Legal));
            }
            let seen = self.counts.entry(hash.0).or_insert((0, i as u32));
            seen.0 += 1;
            let count = seen.0;
            let ply = self.stretch_ply + i as u32;
            match count {
                3 if self.threefold_ply.is_none() => self.threefold_ply = Some(ply),
                5 if self.fivefold_ply.is_none() => {
                    self.fivefold_ply = Some(ply);
                    if self.drawn.as_ref().is_none_or(|&(at, _, _)| ply < at) {
                        let fen = self.fen_at(i);
                        self.drawn = Some((ply, Termination::FivefoldRepetition, fen));
                    }
                }
                _ => {}
            }
        }
        let last = hash.0;
        let (repetitions, first) = self.counts[&last];
        if repetitions >= 3 {
            self.perpetual = self.cycle_is_perpetual_check(first as usize);
        }
        repetitions as usize
    }

    /// Whether some position of the stretch can occur three times, by a
    /// test much cheaper than playing and hashing it again: equal positions
    /// have equal occupancy, and the occupancy after each move differs from
    /// the stretch start's by the squares its moves left and entered, so
    /// three equal positions need three equal running XORs of those squares
    /// (on plies of one parity, between the same two castlings: castling
    /// rights differ across one).
    fn may_repeat_thrice(&mut self, len: usize) -> bool {
        let mut keys = std::mem::take(&mut self.occupancy_keys);
        keys.clear();
        let (mut occupancy, mut epoch) = (0u64, 0u64);
        keys.push(0);
        for i in 0..len {
            match self.stretch_move(i) {
                Move::Normal { from, to, .. } => occupancy ^= (1 << from as u32) | (1 << to as u32),
                // No position after a castling equals one before it.
                _ => epoch = epoch.wrapping_add(0x9e37_79b9_7f4a_7c15),
            }
            let side = ((i + 1) as u64 & 1).wrapping_mul(0xd1b5_4a32_d192_ed03);
            keys.push(occupancy ^ epoch ^ side);
        }
        keys.sort_unstable();
        let thrice = keys.windows(3).any(|w| w[0] == w[2]);
        self.occupancy_keys = keys;
        thrice
    }

    /// Moves in the current stretch.
    fn stretch_len(&self) -> usize {
        if self.record { self.played.len() - self.stretch_ply as usize } else { self.stretch.len() }
    }

    /// The `i`-th move of the current stretch.
    fn stretch_move(&self, i: usize) -> Move {
        if self.record {
            self.played[self.stretch_ply as usize + i].expect("a pass ends a stretch")
        } else {
            self.stretch[i]
        }
    }

    /// The position after the first `i` moves of the current stretch.
    fn stretch_position(&self, i: usize) -> Chess {
        let mut pos = self.stretch_start.clone();
        for k in 0..i {
            pos.play_unchecked(self.stretch_move(k));
        }
        pos
    }

    /// FEN of the `i`-th position of the current stretch.
    fn fen_at(&self, i: usize) -> String {
        crate::notation::fen(&self.stretch_position(i))
    }

    /// Whether, from the first occurrence of the stretch's last position to
    /// its end, every move of one side gave check.
    fn cycle_is_perpetual_check(&self, first: usize) -> bool {
        let mut pos = self.stretch_position(first);
        // Checks given by the side to move at `first` and by the other side.
        let mut all_checks = [true, true];
        for (k, i) in (first..self.stretch_len()).enumerate() {
            pos.play_unchecked(self.stretch_move(i));
            all_checks[k % 2] &= pos.is_check();
        }
        all_checks[0] || all_checks[1]
    }
}

/// The main line's move `index` as written, after its move number.
fn mainline_token(ctx: &mut Ctx<'_>, index: usize, san_plus: &SanPlus) -> Vec<u8> {
    match ctx.mainline_offset(index) {
        Some((_, shown)) => strip_move_number(shown.as_bytes()).trim_ascii_end().to_vec(),
        None => san_plus.to_string().into_bytes(),
    }
}

/// The code and words of the warning for a move read leniently
/// ([`Leniency`]), in the main line or a variation; `None` when the game
/// has one of that code already: one says it for the whole game.
pub(crate) fn leniency_warning(
    ctx: &Ctx<'_>,
    leniency: Leniency,
    pos: &Chess,
    m: Move,
    token: &[u8],
) -> Option<(Code, String)> {
    let (code, later) = match leniency {
        Leniency::UnmarkedCapture => (Code::UnmarkedCapture, "later captures of this game written so"),
        Leniency::Coordinates(_) => (Code::NonSanMove, "later coordinate moves of this game"),
    };
    if ctx.diagnostics.iter().any(|d| d.code == code) {
        return None;
    }
    let shown = token_text(token, ctx.utf8);
    Some((code, format!("{} ({later} are read the same way, without a warning)", leniency.describe(pos, m, &shown))))
}

/// An automatic draw in words.
fn rule_name(rule: Termination) -> &'static str {
    match rule {
        Termination::SeventyfiveMoves => "75 moves without capture or pawn move",
        Termination::FivefoldRepetition => "fivefold repetition",
        _ => rule.as_str(),
    }
}
