//! Comments, NAGs and variations of a game, for checking them and writing
//! them again: the variations replayed from the position before the move
//! they replace, without recursion and holding only the lines open at once.

use shakmaty::{Chess, Move, Position};

use super::{context::Ctx, replay::leniency_warning};
use crate::{
    frame::{
        FrameFlags, RawGame,
        lexer::nag_number,
        locate::{self, Event, TokenKind},
    },
    game::{
        Notes,
        notes::{MAX_DEPTH, variation_move},
        play,
    },
    notation::{Leniency, glued_en_passant, read_move_at, strip_move_number},
    report::Code,
    text::{text, token_text},
};

/// A line being replayed: the position after its last move and the
/// position before it (where a variation of that move starts). Only lines
/// open at once are held, at most [`MAX_DEPTH`] of them.
struct Open {
    /// Moves played in this line.
    moves: usize,
    pos: Chess,
    /// The position before the last move; `None` before the first move (a
    /// variation opened then is not read) and, in a variation, after its
    /// first: that is the line's start, which the enclosing line holds as
    /// its own `before_last`. So a variation of one move, the most common,
    /// copies one position in all.
    before_last: Option<Chess>,
    /// Moves after this point are not played (the rest of an illegal line).
    dead: bool,
    /// Where the variation's `OPEN` is on the tape (notes kept only).
    at: usize,
}

impl Open {
    fn new(pos: Chess, at: usize) -> Open {
        Open { moves: 0, before_last: None, pos, dead: false, at }
    }

    /// Plays a move of this line, legal in its position; `keep` keeps the
    /// position before it.
    fn play(&mut self, step: Option<Move>, keep: bool) {
        let before = keep.then(|| self.pos.clone());
        play(&mut self.pos, step);
        self.before_last = before;
        self.moves += 1;
    }
}

/// The main line's comments, NAGs and variations, from the checker's moves
/// (`played`, from `start`). Problems in variations are the checker's
/// findings ([`check`]); here a line is only cut where it fails. The scan
/// and the checker read the same tokens; should they ever disagree, the
/// checker's moves win. `moves_kept`: the checker read the main line from
/// the framer's kept move tokens (see [`kept_notes`]).
pub(crate) fn annotate(
    game: RawGame<'_>,
    utf8: bool,
    start: &Chess,
    played: &[Option<Move>],
    moves_kept: bool,
) -> Notes {
    kept_notes(game, utf8, played, moves_kept).unwrap_or_else(|| scanned_notes(game, utf8, start, played))
}

/// [`annotate`] by a scan over the game.
fn scanned_notes(game: RawGame<'_>, utf8: bool, start: &Chess, played: &[Option<Move>]) -> Notes {
    // Most games have no comment, NAG or variation: a look for the bytes
    // that start one spares them the scan.
    let movetext = game.bytes.get(game.frame.movetext as usize..).unwrap_or_default();
    if !movetext.iter().fold(false, |any, &b| any | NOTE_START[usize::from(b)]) {
        return Notes::mains(played.len());
    }
    let mut notes = Annotator::new(game, utf8, start, played, Some(Notes::reusing()), None);
    locate::scan(game.bytes, |event| notes.event(event));
    notes.finish()
}

/// [`annotate`] from where the framer kept the game's notes and moves
/// ([`RawGame::annotations`], [`RawGame::moves`]), with no walk over the
/// game: what the scan would find, when those lists stand for it. They do
/// for a game the framer kept whole ([`FrameFlags::kept`],
/// [`FrameFlags::NOTES_KEPT`]) with no note at all, or with no `(` before
/// its main line ends and no move token but those kept, each read as a
/// move (`moves_kept`: the checker read them all from the list, as the
/// scan reads them); `None` for any other game, left to the scan.
fn kept_notes(game: RawGame<'_>, utf8: bool, played: &[Option<Move>], moves_kept: bool) -> Option<Notes> {
    let flags = game.frame.flags;
    if !flags.kept() || !flags.contains(FrameFlags::NOTES_KEPT) {
        return None;
    }
    if game.annotations.is_empty() {
        return Some(Notes::mains(played.len()));
    }
    // Every move token counted is kept: none in a variation, where a kept
    // one could stand for one of the main line's not kept.
    let (tokens, counts) = (game.moves, game.frame.counts);
    if !moves_kept || counts.variations > 0 || tokens.len() != counts.mainline as usize {
        return None;
    }
    let bytes = game.bytes;
    // The scan's main line takes as many moves as the checker played, and
    // ends (nothing after it read) at the token after them.
    let live = played.len().min(tokens.len());
    let end = tokens.get(played.len()).map_or(bytes.len(), |token| token.offset as usize);
    let mut notes = Notes::reusing();
    let mut mains = 0;
    for note in game.annotations {
        let at = note.offset as usize;
        if at > end {
            break;
        }
        let before = tokens[mains..live].iter().take_while(|token| (token.offset as usize) < at).count();
        notes.more_mains(before);
        mains += before;
        match bytes[at] {
            b'{' => push_comment(&mut notes, &bytes[at + 1..at + note.len as usize - 1], utf8),
            b';' => {
                let text_end = memchr::memchr(b'\n', &bytes[at + 1..]).map_or(bytes.len(), |n| at + 1 + n);
                push_comment(&mut notes, &bytes[at + 1..text_end], utf8);
            }
            b'(' => return None,
            first => {
                let len = if first == b'$' {
                    note.len as usize
                } else {
                    bytes[at..].iter().take_while(|&&b| b == b'!' || b == b'?').count()
                };
                if let Some(nag) = nag(&bytes[at..at + len])
                    && mains > 0
                {
                    notes.nag(nag);
                }
            }
        }
    }
    notes.more_mains(live - mains);
    Some(notes)
}

/// A comment's text as written, `raw`, onto the tape: inlined, so that a
/// clock time goes on the tape with no call.
#[inline]
fn push_comment(notes: &mut Notes, raw: &[u8], utf8: bool) {
    // ASCII is the same text in every encoding.
    if !notes.ascii_comment(raw) {
        push_unicode_comment(notes, raw, utf8);
    }
}

/// [`push_comment`] of text that is not ASCII.
#[inline(never)]
fn push_unicode_comment(notes: &mut Notes, raw: &[u8], utf8: bool) {
    // A UTF-8 game's comment is UTF-8 (its braces are ASCII).
    match std::str::from_utf8(raw).ok().filter(|_| utf8) {
        Some(comment) => notes.unicode_comment(comment),
        None => notes.comment(&text(raw, utf8)),
    }
}

/// The bytes that start a comment (`{`, `;`), a NAG (`$`, `!`, `?`) or a
/// variation (`(`).
const NOTE_START: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < 6 {
        table[b"{;$!?("[i] as usize] = true;
        i += 1;
    }
    table
};

/// Replays every variation from the position before the move it replaces
/// (the main line as `played`, from `start`): a variation move that cannot
/// be played is an `illegal-move-in-variation` error, and the rest of its
/// variation is not read.
pub(crate) fn check(ctx: &mut Ctx<'_>, start: &Chess, played: &[Option<Move>]) {
    let game = ctx.game;
    let mut checker = Annotator::new(game, ctx.utf8, start, played, None, Some(ctx));
    locate::scan(game.bytes, |event| checker.event(event));
}

/// [`check`] and [`annotate`] in one scan: the notes of a game whose
/// variations are checked, for a command that writes them again.
pub(crate) fn check_and_annotate(ctx: &mut Ctx<'_>, start: &Chess, played: &[Option<Move>]) -> Notes {
    let (game, utf8) = (ctx.game, ctx.utf8);
    let mut both = Annotator::new(game, utf8, start, played, Some(Notes::reusing()), Some(ctx));
    locate::scan(game.bytes, |event| both.event(event));
    both.finish()
}

/// The lines being read while the movetext's tokens go by.
struct Annotator<'a, 'g, 'c> {
    game: RawGame<'g>,
    utf8: bool,
    /// The checker's main-line moves.
    played: &'a [Option<Move>],
    /// The ply of the game's first move, from which plies are counted.
    first_ply: u32,
    /// The main line, then each variation open inside the one before.
    /// The main line's `pos` is after its first `main_played` moves only.
    stack: Vec<Open>,
    main_played: usize,
    /// Variations open inside one that is not read (a variation of no
    /// move, or of a line cut short, or nested too deep): counted, not held,
    /// as nothing in them is read.
    unread: usize,
    /// A variation nested too deep was met (it is told once a game).
    too_deep: bool,
    /// The tape being written, to write the game again.
    notes: Option<Notes>,
    /// Where findings go, when checking.
    ctx: Option<&'a mut Ctx<'c>>,
}

impl<'a, 'g, 'c> Annotator<'a, 'g, 'c> {
    fn new(
        game: RawGame<'g>,
        utf8: bool,
        start: &Chess,
        played: &'a [Option<Move>],
        notes: Option<Notes>,
        ctx: Option<&'a mut Ctx<'c>>,
    ) -> Self {
        Annotator {
            game,
            utf8,
            played,
            first_ply: ply_of(start),
            stack: vec![Open::new(start.clone(), 0)],
            main_played: 0,
            unread: 0,
            too_deep: false,
            notes,
            ctx,
        }
    }

    /// The notes, with every variation still open closed.
    fn finish(mut self) -> Notes {
        while self.stack.len() > 1 {
            self.close();
        }
        self.notes.unwrap_or_default()
    }

    /// Ends the innermost variation.
    fn close(&mut self) {
        if let (Some(open), Some(notes)) = (self.stack.pop(), self.notes.as_mut()) {
            notes.close(open.at);
        }
    }
}

impl Annotator<'_, '_, '_> {
    fn event(&mut self, event: Event) {
        if self.unread > 0 {
            match event {
                Event::Open(_) => self.unread += 1,
                Event::Close(_) => self.unread -= 1,
                _ => {}
            }
            return;
        }
        let (bytes, depth) = (self.game.bytes, self.stack.len());
        let top = self.stack.last_mut().expect("the main line is never closed");
        match event {
            Event::Token(t) if t.kind == TokenKind::Move => self.token(t.offset, t.len),
            Event::Token(_) => {}
            Event::Open(offset) => self.open(offset),
            Event::Close(_) if depth > 1 => self.close(),
            Event::Close(_) => {}
            Event::Comment { offset, len } => {
                if let Some(notes) = self.notes.as_mut().filter(|_| !top.dead) {
                    push_comment(notes, &bytes[offset..offset + len], self.utf8);
                }
            }
            Event::Nag { offset, len } => {
                if let (Some(notes), false, Some(nag)) =
                    (self.notes.as_mut(), top.dead, nag(&bytes[offset..offset + len]))
                    && top.moves > 0
                {
                    notes.nag(nag);
                }
            }
        }
    }

    /// A `(`: a variation of the last move, played from the position before
    /// it; not read when there is no such move, or nested too deep.
    fn open(&mut self, offset: usize) {
        let depth = self.stack.len();
        let top = &self.stack[depth - 1];
        if top.dead || top.moves == 0 {
            self.unread = 1;
            return;
        }
        if depth > MAX_DEPTH {
            self.unread = 1;
            if !std::mem::replace(&mut self.too_deep, true) {
                if let Some(ctx) = self.ctx.as_deref_mut() {
                    let message = || {
                        format!(
                            "a variation nested more than {MAX_DEPTH} deep: it, and any other nested as deep in \
                             this game, is not read"
                        )
                    };
                    ctx.push_worded(Code::VariationTooDeep, offset, message);
                }
                if let Some(notes) = self.notes.as_mut() {
                    let at = notes.open();
                    notes.stop_too_deep();
                    notes.close(at);
                }
            }
            return;
        }
        if depth == 1 {
            self.main_line_before_last();
        }
        // A variation of one move starts where the line it replaces a move
        // of started: the enclosing line's `before_last`, made its own now,
        // so that the next one opened inside finds it one level up.
        if self.stack[depth - 1].before_last.is_none()
            && let Some(start) = depth.checked_sub(2).and_then(|up| self.stack[up].before_last.clone())
        {
            self.stack[depth - 1].before_last = Some(start);
        }
        let Some(from) = self.stack[depth - 1].before_last.clone() else {
            // Not reached: a line with a move has its `before_last` now.
            self.unread = 1;
            return;
        };
        let open = Open::new(from, self.notes.as_mut().map_or(0, Notes::open));
        self.stack.push(open);
    }

    /// The main line's position before its last move, as its
    /// `before_last`: played from the checker's moves up to there, on from
    /// where the last variation needed it (so the main line is played once
    /// at most, and not at all in a game without variations).
    fn main_line_before_last(&mut self) {
        let main = &mut self.stack[0];
        let before_last = main.moves.saturating_sub(1);
        for &step in &self.played[self.main_played.min(before_last)..before_last] {
            play(&mut main.pos, step);
        }
        self.main_played = self.main_played.max(before_last);
        main.before_last = Some(main.pos.clone());
    }

    /// A move token: the checker's next move on the main line, else played
    /// in its variation.
    fn token(&mut self, offset: usize, len: usize) {
        let (bytes, utf8, depth) = (self.game.bytes, self.utf8, self.stack.len());
        let top = self.stack.last_mut().expect("the main line is never closed");
        if top.dead {
            return;
        }
        let raw = &bytes[offset..offset + len];
        let Some(san) = read_move_at(bytes, offset, len) else {
            top.dead = true;
            if let Some(notes) = self.notes.as_mut().filter(|_| depth > 1) {
                notes.stop(raw, utf8, glued_en_passant(bytes, offset, len).is_some());
            }
            return;
        };
        if depth == 1 {
            // Counted, not played: the main line's positions are made only
            // where a variation starts ([`Annotator::main_line_before_last`]).
            if top.moves < self.played.len() {
                top.moves += 1;
                if let Some(notes) = self.notes.as_mut() {
                    notes.main();
                }
            } else {
                top.dead = true;
            }
            return;
        }
        // Plies count from the game's first move, as in the main line.
        let ply = ply_of(&top.pos) + 1 - self.first_ply;
        match variation_move(&top.pos, san.san, raw) {
            Ok((step, leniency)) => {
                if let (Some(leniency), Some(m), Some(ctx)) = (leniency, step, self.ctx.as_deref_mut()) {
                    lenient_move(ctx, leniency, &top.pos, m, raw, offset, ply);
                }
                // The position before a variation's first move is its start,
                // held by the line it is a variation of.
                top.play(step, top.moves > 0);
                if let Some(notes) = self.notes.as_mut() {
                    notes.step(step);
                }
            }
            Err(why) => {
                top.dead = true;
                if let Some(notes) = self.notes.as_mut() {
                    notes.stop(raw, utf8, glued_en_passant(bytes, offset, len).is_some());
                }
                if let Some(ctx) = self.ctx.as_deref_mut() {
                    let shown = token_text(raw, utf8);
                    let message = || format!("`{shown}` in a variation cannot be played: {why}");
                    if let Some(diag) = ctx.push_worded(Code::IllegalMoveInVariation, offset, message) {
                        diag.ply = Some(ply);
                        diag.fen = Some(crate::notation::fen(&top.pos));
                        diag.san = Some(shown);
                    }
                }
            }
        }
    }
}

/// The warning for a variation move read leniently, as the main line's.
fn lenient_move(ctx: &mut Ctx<'_>, leniency: Leniency, pos: &Chess, m: Move, raw: &[u8], offset: usize, ply: u32) {
    if let Some((code, message)) = leniency_warning(ctx, leniency, pos, m, strip_move_number(raw)) {
        let shown = token_text(raw, ctx.utf8);
        let diag = ctx.push(code, offset, message);
        diag.ply = Some(ply);
        diag.fen = Some(crate::notation::fen(pos));
        diag.san = Some(shown);
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

#[cfg(test)]
mod tests {
    use std::{path::Path, sync::Arc};

    use shakmaty::{Chess, Move, Position, san::SanPlus};

    use super::{kept_notes, scanned_notes};
    use crate::{
        check::{GameReader, ReadOptions, parse::tests::decoded_files},
        frame::{Batch, FrameOptions, Framer, tests::Chunked},
        test_rng::{PIECES, Rng},
    };

    /// Games compared: made from the kept lists (and how many of those had
    /// a note), and left to the scan.
    #[derive(Debug, Default)]
    struct Tally {
        kept: usize,
        kept_with_notes: usize,
        scanned: usize,
    }

    /// Frames `input` read `chunk` bytes at a time, keeping the notes, and
    /// holds every game's tape, as a reader makes it and as it is made from
    /// the kept lists, to the scan's.
    fn same_tapes(input: &[u8], chunk: usize, tally: &mut Tally) {
        let opts = FrameOptions { keep_notes: true, ..FrameOptions::default() };
        let mut framer = Framer::with_options(Chunked { bytes: input, chunk }, opts);
        let mut batch = Batch::default();
        let mut reader = GameReader::new(ReadOptions::default());
        let file: Arc<str> = Arc::from("t.pgn");
        while framer.next_batch(&mut batch).unwrap_or(false) {
            for game in batch.games() {
                let read = reader.read(&file, game, true);
                let Some(start) = &read.start else { continue };
                let played: Vec<Option<Move>> = read.mainline.nodes.iter().map(|node| node.step).collect();
                let (utf8, from_kept) = (reader.checker.utf8, reader.checker.parser.collected.from_kept);
                // The tape as it was made before the framer kept the notes.
                let want = scanned_notes(game, utf8, start, &played);
                let shown = || format!("chunk {chunk}: {:?}", String::from_utf8_lossy(game.bytes));
                assert_eq!(read.mainline.notes, want, "{}", shown());
                match kept_notes(game, utf8, &played, from_kept) {
                    Some(got) => {
                        assert_eq!(got, want, "{}", shown());
                        tally.kept += 1;
                        tally.kept_with_notes += usize::from(!game.annotations.is_empty());
                    }
                    None => tally.scanned += 1,
                }
            }
        }
    }

    /// What is put between the moves of a generated game: notes of every
    /// kind and in every odd place, and what ends or breaks a line.
    const BETWEEN: &[&[u8]] = &[
        b"{c}",
        b"{}",
        b"{  two  words\tand a tab }",
        b"{spans\ntwo lines}",
        b"{a long comment that runs well past the sixty-four bytes the framer cuts out}",
        b"{caf\xe9}",
        b"{caf\xc3\xa9 \xe2\x80\x94 \xc2\xa0nbsp}",
        b"{ ; not a line comment }",
        b";line comment { with a brace\n",
        b";\n",
        b"; caf\xe9\r\n",
        b"\n%escape { ( $1\n",
        b"$1",
        b"$0",
        b"$255",
        b"$256",
        b"$x",
        b"!",
        b"?",
        b"!!",
        b"?!",
        b"!!!",
        b"\n!",
        b"+-",
        b"e.p.",
        b"\n",
        b"\r\n",
        b"\n\n",
        b"\x0b",
        b"(",
        b")",
        b"( {c} )",
        b"()",
        b"(Nf3 {v} $2 Nc6)",
        b"--",
        b"Zq",
        b"Ke8",
        b"1-0",
        b"*",
    ];

    /// A game of random legal moves from the start, with `BETWEEN` pieces
    /// here and there, and a result most often followed by a note.
    fn generated_game(rng: &mut Rng, out: &mut Vec<u8>) {
        if rng.below(4) != 0 {
            out.extend_from_slice(b"[Event \"g\"]\n[Result \"*\"]\n\n");
        }
        let mut pos = Chess::default();
        for ply in 0..rng.below(80) {
            while rng.below(3) == 0 {
                out.extend_from_slice(BETWEEN[rng.below(BETWEEN.len())]);
                out.push(b' ');
            }
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            if ply % 2 == 0 || rng.below(8) == 0 {
                let dots = if ply % 2 == 0 { "." } else { "..." };
                out.extend_from_slice(format!("{}{dots}", ply / 2 + 1).as_bytes());
                if rng.below(4) != 0 {
                    out.push(b' ');
                }
            }
            let m = moves[rng.below(moves.len())];
            out.extend_from_slice(SanPlus::from_move(pos.clone(), m).to_string().as_bytes());
            pos.play_unchecked(m);
            out.push(if rng.below(10) == 0 { b'\n' } else { b' ' });
        }
        out.extend_from_slice([&b"*"[..], b"1-0", b"1/2-1/2", b""][rng.below(4)]);
        out.extend_from_slice([&b" {after the result}"[..], b" ;after it", b" $1", b""][rng.below(4)]);
        out.extend_from_slice(b"\n\n");
    }

    #[test]
    fn the_tape_made_from_what_the_framer_kept_is_the_scans_for_generated_games() {
        let mut rng = Rng(0x243f_6a88_85a3_08d3);
        let mut tally = Tally::default();
        for round in 0..3000 {
            let mut input = Vec::new();
            for _ in 0..1 + rng.below(4) {
                generated_game(&mut rng, &mut input);
            }
            // And games of random pieces, more often broken.
            if round % 4 == 0 {
                for _ in 0..rng.below(60) {
                    input.extend_from_slice(PIECES[rng.below(PIECES.len())]);
                    input.push(b' ');
                }
            }
            for chunk in [usize::MAX, 1 + rng.below(40)] {
                same_tapes(&input, chunk, &mut tally);
            }
        }
        assert!(tally.kept_with_notes > 1000 && tally.scanned > 1000, "{tally:?}");
    }

    #[test]
    #[allow(clippy::print_stderr)] // the skip and the figures, for whoever runs the test
    fn the_tape_made_from_what_the_framer_kept_is_the_scans_for_the_fixtures_and_the_corpus() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut tally = Tally::default();
        for input in decoded_files(&root.join("testdata")) {
            same_tapes(&input, usize::MAX, &mut tally);
            same_tapes(&input, 7, &mut tally);
        }
        assert!(tally.kept_with_notes > 20 && tally.scanned > 20, "{tally:?}");
        let corpus = root.join("../shared/corpus");
        if !corpus.is_dir() {
            eprintln!("skipped: {} is absent", corpus.display());
            return;
        }
        for input in decoded_files(&corpus) {
            same_tapes(&input, usize::MAX, &mut tally);
        }
        assert!(tally.kept_with_notes > 2000, "{tally:?}");
        eprintln!("{tally:?}");
    }
}
