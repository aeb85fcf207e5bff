//! Comments, NAGs and variations of a game, for writing it again: the
//! variations replayed from the position before the move they replace.

use shakmaty::{Chess, Move, Position, san::San};

use super::context::Ctx;
use crate::{
    frame::{
        RawGame,
        lexer::{nag_number, strip_move_number},
        locate::{self, Event, TokenKind},
    },
    game::{Line, Node, Notes, normalize_comment, play},
    notation::{self, read_move_at},
    report::{Code, Severity},
    text::{text, token_text},
};

/// A line being built: the line, the position after its last move and the
/// position before it (where a variation of that move starts).
struct Open {
    line: Line,
    /// Moves played in this line (its nodes, when they are kept).
    moves: usize,
    /// The line's nodes are there from the start (the checker's main
    /// line), and playing a move only steps over one.
    prefilled: bool,
    pos: Chess,
    before_last: Chess,
    /// Moves after this point are not played (the rest of an illegal line,
    /// or a variation with no move to replace).
    dead: bool,
}

impl Open {
    fn new(pos: Chess) -> Open {
        Open { line: Line::default(), moves: 0, prefilled: false, before_last: pos.clone(), pos, dead: false }
    }

    /// The notes of the last move played (made on first use).
    fn last_notes(&mut self) -> Option<&mut Notes> {
        let last = self.moves.checked_sub(1)?;
        self.line.notes_at(last)
    }

    /// Plays a move of this line; its node is kept only to write the game
    /// again (a check keeps no tree: a game can hold millions of moves).
    fn push(&mut self, step: Option<Move>, next: Chess, keep: bool) {
        self.before_last = std::mem::replace(&mut self.pos, next);
        self.moves += 1;
        if keep && !self.prefilled {
            self.line.nodes.push(Node::new(step));
        }
    }
}

/// Builds the main line from the checker's moves, with the comments, NAGs
/// and variations of the movetext. Problems in variations are the
/// checker's findings ([`check`]); here a line is only cut where it fails.
///
/// The main line's nodes are the checker's moves, taken over (`Node` is an
/// `Option<Move>`, so the vector is reused in place): a game of millions
/// of moves is held once. The scan and the checker read the same tokens;
/// should they ever disagree, the checker's moves win.
pub(crate) fn annotate(game: RawGame<'_>, utf8: bool, start: &Chess, played: Vec<Option<Move>>) -> Line {
    let mut notes = Annotator::new(game, utf8, start, &[], true, None);
    let main = &mut notes.stack[0];
    main.line.nodes = played.into_iter().map(Node::new).collect();
    main.prefilled = true;
    locate::scan(game.bytes, |event| notes.event(event));
    notes.finish()
}

/// Replays every variation from the position before the move it replaces
/// (the main line as `played`, from `start`): a variation move that cannot
/// be played is an `illegal-move-in-variation` error, and the rest of its
/// variation is not read.
pub(crate) fn check(ctx: &mut Ctx<'_>, start: &Chess, played: &[Option<Move>]) {
    let game = ctx.game;
    let mut checker = Annotator::new(game, ctx.utf8, start, played, false, Some(ctx));
    locate::scan(game.bytes, |event| checker.event(event));
}

/// The lines being built while the movetext's tokens go by.
struct Annotator<'a, 'g, 'c> {
    game: RawGame<'g>,
    utf8: bool,
    /// The checker's main-line moves, unless the main line holds them.
    played: &'a [Option<Move>],
    /// The ply of the game's first move, from which plies are counted.
    first_ply: u32,
    /// The main line, then each variation open inside the one before.
    stack: Vec<Open>,
    /// Keep comments and NAGs (to write the game again), not only moves.
    notes: bool,
    /// Where findings go, when checking.
    ctx: Option<&'a mut Ctx<'c>>,
}

impl<'a, 'g, 'c> Annotator<'a, 'g, 'c> {
    fn new(
        game: RawGame<'g>,
        utf8: bool,
        start: &Chess,
        played: &'a [Option<Move>],
        notes: bool,
        ctx: Option<&'a mut Ctx<'c>>,
    ) -> Self {
        Annotator { game, utf8, played, first_ply: ply_of(start), stack: vec![Open::new(start.clone())], notes, ctx }
    }

    /// The main line, with every variation still open closed.
    fn finish(mut self) -> Line {
        while self.stack.len() > 1 {
            close(&mut self.stack, self.notes);
        }
        self.stack.pop().expect("the main line").line
    }
}

impl Annotator<'_, '_, '_> {
    fn event(&mut self, event: Event) {
        let bytes = self.game.bytes;
        let top = self.stack.last_mut().expect("the main line is never closed");
        match event {
            Event::Token(t) if t.kind == TokenKind::Move => self.token(t.offset, t.len),
            Event::Token(_) => {}
            Event::Open(_) => {
                let open = if top.dead || top.moves == 0 {
                    Open { dead: true, ..Open::new(top.pos.clone()) }
                } else {
                    Open::new(top.before_last.clone())
                };
                self.stack.push(open);
            }
            Event::Close(_) => close(&mut self.stack, self.notes),
            Event::Comment { .. } | Event::Nag { .. } if !self.notes => {}
            Event::Comment { offset, len } => {
                let comment = normalize_comment(&text(&bytes[offset..offset + len], self.utf8));
                if top.dead || comment.is_empty() {
                    return;
                }
                match top.last_notes() {
                    Some(notes) => notes.comments.push(comment),
                    None => top.line.before.push(comment),
                }
            }
            Event::Nag { offset, len } => {
                if let (false, Some(nag)) = (top.dead, nag(&bytes[offset..offset + len]))
                    && let Some(notes) = top.last_notes()
                {
                    notes.nags.push(nag);
                }
            }
        }
    }

    /// A move token: the checker's next move on the main line, else played
    /// in its variation.
    fn token(&mut self, offset: usize, len: usize) {
        let (bytes, utf8, depth) = (self.game.bytes, self.utf8, self.stack.len());
        let top = self.stack.last_mut().expect("the main line is never closed");
        if top.dead {
            return;
        }
        let Some(san) = read_move_at(bytes, offset, len) else {
            top.dead = true;
            if depth > 1 {
                let shown = token_text(&bytes[offset..offset + len], utf8);
                top.line.stopped = Some(format!("pgnkit: `{shown}` is not a move"));
            }
            return;
        };
        if depth == 1 {
            let step = if top.prefilled {
                top.line.nodes.get(top.moves).map(|node| node.step)
            } else {
                self.played.get(top.moves).copied()
            };
            match step {
                Some(step) => {
                    let mut next = top.pos.clone();
                    play(&mut next, step);
                    top.push(step, next, self.notes);
                }
                None => top.dead = true,
            }
            return;
        }
        // Plies count from the game's first move, as in the main line.
        let ply = ply_of(&top.pos) + 1 - self.first_ply;
        let raw = &bytes[offset..offset + len];
        match variation_step(&top.pos, san.san, raw) {
            Ok((step, next)) => top.push(step, next, self.notes),
            Err(why) => {
                let shown = token_text(raw, utf8);
                top.dead = true;
                top.line.stopped = Some(format!("pgnkit: `{shown}` cannot be played: {why}"));
                if let Some(ctx) = self.ctx.as_deref_mut() {
                    let message = || format!("`{shown}` in a variation cannot be played: {why}");
                    if let Some(diag) = ctx.push_worded(Severity::Error, Code::IllegalMoveInVariation, offset, message)
                    {
                        diag.ply = Some(ply);
                        diag.fen = Some(crate::notation::fen(&top.pos));
                        diag.san = Some(shown);
                    }
                }
            }
        }
    }
}

/// Plays the variation move `san`, written `raw`, from `pos`: the move and
/// the position after it, or why it cannot be played.
fn variation_step(pos: &Chess, san: San, raw: &[u8]) -> Result<(Option<Move>, Chess), String> {
    let mut next = pos.clone();
    if san == San::Null {
        return if play(&mut next, None) { Ok((None, next)) } else { Err("a null move while in check".to_owned()) };
    }
    let token = strip_move_number(raw.strip_suffix(b"e").filter(|_| raw.len() > 1).unwrap_or(raw));
    let written = std::str::from_utf8(token).unwrap_or_default();
    let m =
        san.to_move(pos).map_err(|_| ()).or_else(|()| notation::read_move(pos, written).map_err(|err| err.message))?;
    next.play_unchecked(m);
    Ok((Some(m), next))
}

/// Ends the innermost variation and hangs it on the move it replaces
/// (when the tree is kept).
fn close(stack: &mut Vec<Open>, keep: bool) {
    let Some(open) = stack.pop() else { return };
    if !keep {
        return;
    }
    let parent = stack.last_mut().expect("a variation is inside a line");
    let has_content = !open.line.nodes.is_empty() || !open.line.before.is_empty() || open.line.stopped.is_some();
    if !parent.dead
        && has_content
        && let Some(notes) = parent.last_notes()
    {
        notes.variations.push(open.line);
    }
}

/// The 1-based ply number of the move to be played in `pos`.
fn ply_of(pos: &Chess) -> u32 {
    let full = pos.fullmoves().get();
    2 * full - u32::from(pos.turn().is_white())
}

/// A NAG token: `$n` (0 to 255; any other is an `invalid-nag`) or a run of `!` and `?` (the six glyphs).
fn nag(token: &[u8]) -> Option<u8> {
    match token {
        [b'$', ..] => nag_number(token),
        b"!" => Some(1),
        b"?" => Some(2),
        b"!!" => Some(3),
        b"??" => Some(4),
        b"!?" => Some(5),
        b"?!" => Some(6),
        _ => None,
    }
}
