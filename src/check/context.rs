//! The diagnostic builder every stage of the checker writes to: the game,
//! its tokens (counted once, when first asked for) and the findings so far.

use crate::{
    frame::{
        RawGame,
        locate::{self, LineCursor, TokenKind, Tokens},
    },
    notation::read_move_at,
    report::{Code, Diagnostic, Severity},
    text::text,
};

/// Per-game context for building diagnostics.
pub(crate) struct Ctx<'a> {
    pub(crate) game: RawGame<'a>,
    /// Whether the game's bytes are UTF-8 (else Latin-1).
    pub(crate) utf8: bool,
    tokens: Option<Tokens>,
    mainline: Option<Vec<(usize, usize)>>,
    /// Where the findings are, counted on from one to the next.
    cursor: LineCursor,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(game: RawGame<'a>, utf8: bool) -> Ctx<'a> {
        let cursor = LineCursor::new(game.frame.line, game.frame.column, utf8);
        Ctx { game, utf8, tokens: None, mainline: None, cursor, diagnostics: Vec::new() }
    }

    pub(crate) fn tokens(&mut self) -> &Tokens {
        let bytes = self.game.bytes;
        self.tokens.get_or_insert_with(|| locate::tokens(bytes))
    }

    pub(crate) fn push(&mut self, severity: Severity, code: Code, offset: usize, message: String) -> &mut Diagnostic {
        let (line, column) = self.cursor.locate(self.game.bytes, offset);
        self.diagnostics.push(Diagnostic {
            severity,
            code,
            line,
            column,
            ply: None,
            san: None,
            fen: None,
            message,
            reason: None,
        });
        self.diagnostics.last_mut().expect("just pushed")
    }

    /// Offsets and lengths of the main-line tokens read as moves, in order.
    fn mainline(&mut self) -> &[(usize, usize)] {
        if self.mainline.is_none() {
            let bytes = self.game.bytes;
            let moves = self
                .tokens()
                .tokens
                .iter()
                .filter(|t| t.depth == 0 && t.kind == TokenKind::Move)
                .filter(|t| read_move_at(bytes, t.offset, t.len).is_some())
                .map(|t| (t.offset, t.len))
                .collect();
            self.mainline = Some(moves);
        }
        self.mainline.as_deref().expect("just computed")
    }

    /// Byte offset and text of the `index`-th main-line move token (0-based).
    pub(crate) fn mainline_offset(&mut self, index: usize) -> Option<(usize, String)> {
        let (bytes, utf8) = (self.game.bytes, self.utf8);
        let &(offset, len) = self.mainline().get(index)?;
        Some((offset, text(&bytes[offset..offset + len], utf8)))
    }

    /// Offset of the end of the last non-blank byte (for game-wide findings).
    pub(crate) fn end_offset(&self) -> usize {
        let bytes = self.game.bytes;
        bytes.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(0, |i| i + 1)
    }
}
