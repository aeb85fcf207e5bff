//! The diagnostic builder every stage of the checker writes to: the game,
//! the outline of its movetext (read once, when first asked for) and the
//! findings so far.

use crate::{
    frame::{
        RawGame,
        locate::{self, Event, LineCursor, TokenKind, Tokens},
    },
    notation::read_move_at,
    report::{Code, Diagnostic, Severity},
    text::text,
};

/// Per-game context for building diagnostics.
pub(crate) struct Ctx<'a> {
    pub(crate) game: RawGame<'a>,
    /// Whether the game's bytes are UTF-8 (else Windows-1252).
    pub(crate) utf8: bool,
    /// Whether lint findings are worded ([`super::Options::lint_messages`]).
    pub(crate) lint_messages: bool,
    /// The lint found something in the game.
    pub(crate) lint_found: bool,
    outline: Option<Tokens>,
    mainline: Option<Offsets>,
    /// Whether the main line the replay plays is the framer's kept move
    /// tokens outside variations, one for one (see [`Ctx::mainline_is_kept`]),
    /// and whether those are all the kept tokens (no variation).
    kept_mainline: Option<bool>,
    /// Where the findings are, counted on from one to the next.
    cursor: LineCursor,
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// Findings of each code so far, and where the first one not kept is.
    per_code: Vec<(Code, u32, usize)>,
    /// Where findings past the cap are written, and forgotten.
    spare: Diagnostic,
}

/// Findings of one code kept per game: past them, one more finding says
/// how many were left out, so that a game of junk stays readable (and its
/// report small).
pub(crate) const FINDINGS_PER_CODE: u32 = 100;

impl<'a> Ctx<'a> {
    pub(crate) fn new(game: RawGame<'a>, utf8: bool) -> Ctx<'a> {
        let cursor = LineCursor::new(game.frame.line, game.frame.column, utf8);
        Ctx {
            game,
            utf8,
            lint_messages: true,
            lint_found: false,
            outline: None,
            mainline: None,
            kept_mainline: None,
            cursor,
            diagnostics: Vec::new(),
            per_code: Vec::new(),
            spare: blank(Code::InvalidSan, 0, 0, String::new()),
        }
    }

    /// What was left open, where the result is, the broken tags and the
    /// first annotation written as text (the only token kept: a game of
    /// junk holds millions).
    pub(crate) fn outline(&mut self) -> &Tokens {
        let bytes = self.game.bytes;
        self.outline.get_or_insert_with(|| {
            let mut annotation = None;
            let mut outline = locate::scan(bytes, |event| {
                if let Event::Token(t) = event
                    && t.kind == TokenKind::Annotation
                {
                    annotation.get_or_insert(t);
                }
            });
            outline.tokens.extend(annotation);
            outline
        })
    }

    /// Adds a finding at `offset`, with its code's default severity (a
    /// finding of another severity sets it on what this returns); past
    /// [`FINDINGS_PER_CODE`] of its code it is only counted, and what the
    /// caller writes to it is dropped.
    pub(crate) fn push(&mut self, code: Code, offset: usize, message: String) -> &mut Diagnostic {
        if !self.count(code, offset) {
            self.spare = blank(code, 0, 0, String::new());
            return &mut self.spare;
        }
        self.add(code, offset, message)
    }

    /// Adds a finding at `line:column` outside the game's bytes (stray text
    /// after it); the framer keeps at most [`crate::frame::Strays::KEPT`].
    pub(crate) fn push_located(&mut self, code: Code, line: u64, column: u32, message: String) {
        self.diagnostics.push(blank(code, line, column, message));
    }

    /// [`Ctx::push`] for a finding that is worded only if it is kept
    /// (`None` when it is only counted): junk makes millions.
    pub(crate) fn push_worded(
        &mut self,
        code: Code,
        offset: usize,
        message: impl FnOnce() -> String,
    ) -> Option<&mut Diagnostic> {
        self.count(code, offset).then(|| self.add(code, offset, message()))
    }

    /// Counts a finding of `code`; whether it is kept.
    fn count(&mut self, code: Code, offset: usize) -> bool {
        let seen = match self.per_code.iter_mut().find(|c| c.0 == code) {
            Some(entry) => entry,
            None => {
                self.per_code.push((code, 0, 0));
                self.per_code.last_mut().expect("just pushed")
            }
        };
        seen.1 += 1;
        if seen.1 == FINDINGS_PER_CODE + 1 {
            seen.2 = offset;
        }
        seen.1 <= FINDINGS_PER_CODE
    }

    fn add(&mut self, code: Code, offset: usize, message: String) -> &mut Diagnostic {
        let (line, column) = self.cursor.locate(self.game.bytes, offset);
        self.diagnostics.push(blank(code, line, column, message));
        self.diagnostics.last_mut().expect("just pushed")
    }

    /// The findings, with one for each code that had more than were kept.
    pub(crate) fn take_diagnostics(&mut self) -> Vec<Diagnostic> {
        let mut diagnostics = std::mem::take(&mut self.diagnostics);
        for &(code, count, offset) in &self.per_code {
            let Some(more) = count.checked_sub(FINDINGS_PER_CODE).filter(|&more| more > 0) else { continue };
            let severity = diagnostics.iter().find(|d| d.code == code).map_or(Severity::Error, |d| d.severity);
            let (line, column) = self.cursor.locate(self.game.bytes, offset);
            let (s, are) = if more == 1 { ("", "is") } else { ("s", "are") };
            let message = format!(
                "{more} more `{code}` finding{s} in this game {are} not shown, from here on (the first {FINDINGS_PER_CODE} are)"
            );
            diagnostics.push(Diagnostic { severity, ..blank(code, line, column, message) });
        }
        diagnostics
    }

    /// Says that the main line the replay plays is the framer's kept move
    /// tokens outside variations, one for one: their offsets are then read
    /// from that list, not found by a second walk over the game's bytes
    /// (which `--lint`, locating every move, paid at every game).
    pub(crate) fn mainline_is_kept(&mut self, variations: bool) {
        self.kept_mainline = Some(!variations);
    }

    /// Offsets of the main-line tokens read as moves, in order.
    fn mainline(&mut self) -> &Offsets {
        let game = self.game;
        let kept = self.kept_mainline.is_some();
        self.mainline.get_or_insert_with(|| {
            let expected = game.frame.counts.mainline as usize;
            let mut moves = Offsets::with_capacity(game.bytes.len(), expected);
            if kept {
                game.moves.iter().filter(|m| !m.variation).for_each(|m| moves.push(m.offset as usize));
                return moves;
            }
            let bytes = game.bytes;
            locate::scan(bytes, |event| {
                if let Event::Token(t) = event
                    && t.depth == 0
                    && t.kind == TokenKind::Move
                    && read_move_at(bytes, t.offset, t.len).is_some()
                {
                    moves.push(t.offset);
                }
            });
            moves
        })
    }

    /// Main-line move tokens before `offset`.
    pub(crate) fn mainline_moves_before(&mut self, offset: usize) -> usize {
        self.mainline().partition_point(offset)
    }

    /// Byte offset and bytes of the `index`-th main-line move token
    /// (0-based).
    // Inlined: `--lint` asks it for every move, and the call cost more
    // than the look-up.
    #[inline(always)]
    pub(crate) fn mainline_token(&mut self, index: usize) -> Option<(usize, &'a [u8])> {
        let bytes = self.game.bytes;
        if self.kept_mainline == Some(true) {
            // No variation among the kept tokens: the list is the main line.
            let token = self.game.moves.get(index)?;
            let offset = token.offset as usize;
            return Some((offset, &bytes[offset..offset + usize::from(token.len)]));
        }
        let offset = self.mainline().get(index)?;
        // The token's length as the scan found it.
        let len = locate::token_len_at(bytes, offset);
        Some((offset, &bytes[offset..offset + len]))
    }

    /// Byte offset and text of the `index`-th main-line move token (0-based).
    pub(crate) fn mainline_offset(&mut self, index: usize) -> Option<(usize, String)> {
        let utf8 = self.utf8;
        self.mainline_token(index).map(|(offset, raw)| (offset, text(raw, utf8)))
    }

    /// Offset of the end of the last non-blank byte (for game-wide findings).
    pub(crate) fn end_offset(&self) -> usize {
        let bytes = self.game.bytes;
        bytes.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(0, |i| i + 1)
    }
}

/// Byte offsets in one game, four bytes each when the game is under 4 GiB
/// (every real one): a game of millions of moves keeps one per move.
#[derive(Debug)]
enum Offsets {
    Short(Vec<u32>),
    Long(Vec<usize>),
}

impl Offsets {
    fn with_capacity(game_len: usize, capacity: usize) -> Offsets {
        if u32::try_from(game_len).is_ok() {
            Offsets::Short(Vec::with_capacity(capacity))
        } else {
            Offsets::Long(Vec::with_capacity(capacity))
        }
    }

    fn push(&mut self, offset: usize) {
        match self {
            // Under 4 GiB, as `with_capacity` chose.
            Offsets::Short(v) => v.push(offset as u32),
            Offsets::Long(v) => v.push(offset),
        }
    }

    fn get(&self, index: usize) -> Option<usize> {
        match self {
            Offsets::Short(v) => v.get(index).map(|&o| o as usize),
            Offsets::Long(v) => v.get(index).copied(),
        }
    }

    /// How many offsets are below `offset`.
    fn partition_point(&self, offset: usize) -> usize {
        match self {
            Offsets::Short(v) => v.partition_point(|&at| (at as usize) < offset),
            Offsets::Long(v) => v.partition_point(|&at| at < offset),
        }
    }
}

fn blank(code: Code, line: u64, column: u32, message: String) -> Diagnostic {
    let severity = code.severity();
    Diagnostic { severity, code, line, column, ply: None, san: None, fen: None, message, reason: None }
}

#[cfg(test)]
mod tests {
    use super::Offsets;

    #[test]
    fn short_and_long_offsets_answer_alike() {
        let at = [3, 9, 9, 40, 4_000_000_000];
        let mut short = Offsets::with_capacity(u32::MAX as usize, 0);
        let mut long = Offsets::with_capacity(u32::MAX as usize + 1, 0);
        assert!(matches!(short, Offsets::Short(_)) && matches!(long, Offsets::Long(_)));
        for offset in at {
            short.push(offset);
            long.push(offset);
        }
        for index in 0..=at.len() {
            assert_eq!(short.get(index), at.get(index).copied());
            assert_eq!(long.get(index), at.get(index).copied());
        }
        for offset in [0, 3, 4, 9, 10, 41, 4_000_000_000, 4_000_000_001] {
            let expected = at.iter().filter(|&&o| o < offset).count();
            assert_eq!(short.partition_point(offset), expected, "{offset}");
            assert_eq!(long.partition_point(offset), expected, "{offset}");
        }
    }
}
