//! Normalized PGN in the standard's export format: the Seven Tag Roster
//! first, other tags sorted by name, SAN regenerated from the replayed
//! moves, movetext wrapped at 79 columns, one blank line between games.

use std::{
    io::{self, Write},
    sync::Arc,
};

use shakmaty::{Chess, Position};

use super::writer::{GameWriter, HOLD, san_step};
use crate::{
    game::{Comment, Game, Item, Line, Notes, play},
    openings::{Opening, Openings},
};

/// The Seven Tag Roster, in its export order, with the value written when
/// a game lacks the tag.
pub const SEVEN_TAG_ROSTER: [(&str, &str); 7] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
];

/// Tags a game cannot be replayed without: kept whatever `keep_tags` says.
const SETUP_TAGS: [&str; 3] = ["FEN", "SetUp", "Variant"];

mod words;

use words::{FLUSH, Words};

/// The longest movetext line of the export format.
const WIDTH: usize = 79;

/// What PGN export keeps.
#[derive(Debug, Clone)]
pub struct PgnOptions {
    /// Keep comments.
    pub comments: bool,
    /// Keep variations.
    pub variations: bool,
    /// Keep NAGs.
    pub nags: bool,
    /// Keep `[%clk ...]` and `[%eval ...]` commands inside comments.
    pub clock: bool,
    /// Tags to keep besides the Seven Tag Roster (and FEN, SetUp, Variant);
    /// `None` keeps all.
    pub keep_tags: Option<Vec<String>>,
    /// An openings table: a game it names gets its `ECO` and `Opening`
    /// tags from it, in place of any it had (pgn-extract's `-e`).
    pub openings: Option<Arc<Openings>>,
}

impl Default for PgnOptions {
    fn default() -> Self {
        PgnOptions { comments: true, variations: true, nags: true, clock: true, keep_tags: None, openings: None }
    }
}

/// Writes games as normalized PGN.
#[derive(Debug, Clone, Default)]
pub struct PgnWriter {
    /// What to keep.
    pub options: PgnOptions,
}

impl GameWriter for PgnWriter {
    fn game(&self, game: &Game, out: &mut Vec<u8>) {
        self.write(game, out, None).expect("writing to memory");
    }

    /// A tag takes its text and 6 bytes, a move up to 9 (`12. Nbxd7+`), a
    /// byte of notes up to 2 (`{c}` is 3 bytes on the tape, `{ c }` 5).
    fn too_large(&self, game: &Game) -> bool {
        let line = &game.mainline;
        let tags = game.tags.lines_len();
        let moves = line.nodes.len().saturating_mul(9);
        tags.saturating_add(moves).saturating_add(line.notes.end().saturating_mul(2)) > HOLD
    }

    fn stream(&self, game: &Game, out: &mut dyn Write) -> io::Result<()> {
        let mut buffer = Vec::with_capacity(2 * FLUSH);
        self.write(game, &mut buffer, Some(out))?;
        out.write_all(&buffer)
    }
}

impl PgnWriter {
    /// Writes `game` to `out`, or through it to `sink` a line at a time.
    fn write(&self, game: &Game, out: &mut Vec<u8>, mut sink: Option<&mut dyn Write>) -> io::Result<()> {
        let opening = self.options.openings.as_ref().and_then(|openings| openings.of_game(game));
        // Room for the whole game at once, for all but a streamed game: a
        // move takes up to 9 bytes, a byte of notes up to 2.
        let line = &game.mainline;
        let estimate = game.tags.lines_len() + 9 * line.nodes.len() + 2 * line.notes.end() + 256;
        out.reserve(estimate.min(2 * FLUSH));
        // Most games have no value to escape: one look at all their tags
        // tells, where a look through each value cost more than copying it.
        // JSON's test will do: what it escapes (`"`, `\`, the controls)
        // takes in what a tag value does (`"`, `\`, the line breaks), and
        // it costs half of two searches.
        let escape_none = opening.is_none() && !crate::output::json::needs_escape(game.tags.text().as_bytes());
        let mut sent = Ok(());
        let mut send = |out: &mut Vec<u8>| {
            if let Some(sink) = sink.as_deref_mut()
                && out.len() > FLUSH
                && sent.is_ok()
            {
                sent = sink.write_all(out);
                out.clear();
            }
        };
        let roster = |[event, site, date, round, white, black, result]: [&str; 7], out: &mut Vec<u8>| {
            // Each head a copy of a size known when compiling: a few
            // stores, where copying the name was a call.
            push_tag_line(out, b"[Event \"", event, escape_none);
            push_tag_line(out, b"[Site \"", site, escape_none);
            push_tag_line(out, b"[Date \"", date, escape_none);
            push_tag_line(out, b"[Round \"", round, escape_none);
            push_tag_line(out, b"[White \"", white, escape_none);
            push_tag_line(out, b"[Black \"", black, escape_none);
            push_tag_line(out, b"[Result \"", result, escape_none);
        };
        export_tags(game, self.options.keep_tags.as_deref(), opening, |tag| {
            match tag {
                Exported::Roster(values) => roster(values, out),
                Exported::Other(name, value) => {
                    out.push(b'[');
                    out.extend_from_slice(name.as_bytes());
                    push_tag_line(out, b" \"", value, escape_none);
                }
            }
            send(out);
        });
        sent?;
        out.push(b'\n');
        // Straight into `out`: a game's movetext held on its own and then
        // copied took three times its size at the peak (a 30 MB game).
        let mut words = Words::new(WIDTH, out).streaming(sink);
        write_movetext(game, &self.options, &mut words);
        words.finish()?;
        out.extend_from_slice(b"\n\n");
        Ok(())
    }
}

/// The main line's movetext on one line, everything kept, the result last
/// (as lichess's `movetext` column holds it).
pub fn movetext(game: &Game) -> String {
    let mut text = Vec::new();
    let mut words = Words::new(usize::MAX, &mut text);
    write_movetext(game, &PgnOptions::default(), &mut words);
    words.finish().expect("writing to memory");
    String::from_utf8(text).expect("words are text")
}

/// A tag value inside its quotes: `\` and `"` escaped, any other character
/// as it is, so that the value reads back as it was read (a FEN tag with a
/// tab or an escape character in it, given a space, became a position
/// `validate` had refused). Only a line break, which would end the tag
/// line (a `\r` is one to the reader of tag lines; only a tag line left
/// unclosed gives a value one), is a tab: blank like it where a value is
/// trimmed (a FEN tag's `\r` before its `\n`), and no more than it a
/// space between a FEN's fields.
fn push_tag_value(value: &str, out: &mut Vec<u8>) {
    let special = |b: &u8| matches!(b, b'\\' | b'"' | b'\r' | b'\n');
    // Most values have none: copied whole.
    if !value.as_bytes().iter().fold(false, |any, b| any | special(b)) {
        return out.extend_from_slice(value.as_bytes());
    }
    for &b in value.as_bytes() {
        match b {
            b'\\' | b'"' => out.extend_from_slice(&[b'\\', b]),
            b'\r' | b'\n' => out.push(b'\t'),
            _ => out.push(b),
        }
    }
}

/// Whether the export format can hold a tag called `name`: letters,
/// digits and underscores, as the standard and the strict reading of a
/// tag line have them. Another name is an `invalid-tag` error where it is
/// read, and written out it reads back otherwise (`[1/2 "a]"]` ends at
/// the first `]`).
pub(crate) fn is_tag_name(name: &str) -> bool {
    // A table of the bytes a name may hold: the test of each byte's kinds
    // was a tenth of writing a game's tags.
    const NAME_BYTE: [bool; 256] = {
        let mut table = [false; 256];
        let mut b = 0;
        while b < 256 {
            table[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
            b += 1;
        }
        table
    };
    !name.is_empty() && name.bytes().all(|b| NAME_BYTE[usize::from(b)])
}

/// Where `name` is in the Seven Tag Roster.
pub(crate) fn roster_index(name: &[u8]) -> Option<usize> {
    Some(match name {
        b"Event" => 0,
        b"Site" => 1,
        b"Date" => 2,
        b"Round" => 3,
        b"White" => 4,
        b"Black" => 5,
        b"Result" => 6,
        _ => return None,
    })
}

/// Hands `tag` the tags in export order: the Seven Tag Roster (with
/// defaults; Result is the game's export result) at once, then the others
/// sorted by name, each name once with its last value, as
/// [`Tags::get`](crate::game::Tags::get) and the checker read it, leaving
/// out those that are no tag name; `opening`'s ECO and name stand for the
/// game's own `ECO` and `Opening` tags.
fn export_tags<'a>(
    game: &'a Game,
    keep: Option<&[String]>,
    opening: Option<&'a Opening>,
    mut tag: impl FnMut(Exported<'a>),
) {
    // One pass over the tags: the roster's values (the last of a name
    // counts, as `Tags::get` reads it) and the others wanted. A look for
    // each roster name through all the tags was most of writing them.
    let tags = &game.tags;
    let mut values: [Option<&str>; 7] = [None; 7];
    let table: &[(&str, &str)] = match opening {
        Some(opening) => &[("ECO", opening.eco.as_str()), ("Opening", opening.name.as_str())],
        None => &[],
    };
    // The game's other tags by their index, sorted by name, then each name
    // once: the sort is stable, so the game's last of a name is kept. Twelve
    // bytes a tag, where pairs of names and values took 32 (a game of ten
    // million tags). Linear in effect, where a look through the tags kept
    // for each tag was quadratic (50,000 tags: 2.6 s). Sorted by the first
    // eight bytes of the name as a number first, which most names differ
    // in: comparing names was a twentieth of writing a game.
    let name = |i: u32| tags.name_bytes(i as usize);
    // On the stack for most games: a vector was two calls to the allocator.
    const ON_STACK: usize = 32;
    let mut stack = [(0u64, 0u32); ON_STACK];
    let mut heap: Vec<(u64, u32)> = Vec::new();
    let mut count = 0;
    for (i, (name, value)) in tags.iter().enumerate() {
        if let Some(k) = roster_index(name.as_bytes()) {
            values[k] = Some(value);
            continue;
        }
        let wanted = keep.is_none_or(|keep| keep.iter().any(|k| k == name)) || SETUP_TAGS.contains(&name);
        if wanted && !table.iter().any(|&(n, _)| n == name) && is_tag_name(name) {
            let other = (name_key(name.as_bytes()), i as u32);
            match stack.get_mut(count) {
                Some(slot) => *slot = other,
                None => {
                    if heap.is_empty() {
                        heap.extend_from_slice(&stack);
                    }
                    heap.push(other);
                }
            }
            count += 1;
        }
    }
    // The roster's last: the game's result.
    const RESULT: usize = 6;
    debug_assert_eq!(SEVEN_TAG_ROSTER[RESULT].0, "Result");
    tag(Exported::Roster(std::array::from_fn(|k| match values[k] {
        _ if k == RESULT => game.result,
        value => value.unwrap_or(SEVEN_TAG_ROSTER[k].1),
    })));
    let others = if count <= ON_STACK { &mut stack[..count] } else { &mut heap[..] };
    others.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| name(a.1).cmp(name(b.1))));
    // The table's tags (sorted already) go in among them by name.
    let mut table = table.iter().peekable();
    let mut at = 0;
    while at < others.len() {
        // The last of the tags of a name.
        let mut last = at;
        while others.get(last + 1).is_some_and(|next| next.0 == others[at].0 && name(next.1) == name(others[at].1)) {
            last += 1;
        }
        let (name, value) = tags.nth(others[last].1 as usize);
        while let Some(&(n, v)) = table.next_if(|&&(n, _)| n < name) {
            tag(Exported::Other(n, v));
        }
        tag(Exported::Other(name, value));
        at = last + 1;
    }
    for &(n, v) in table {
        tag(Exported::Other(n, v));
    }
}

/// What [`export_tags`] hands out: the values of the Seven Tag Roster in
/// its order, then each other tag.
enum Exported<'a> {
    Roster([&'a str; 7]),
    Other(&'a str, &'a str),
}

/// `head` (`[Name "`), `value` in quotes, escaped unless `escape_none`,
/// and the line's end.
#[inline(always)]
fn push_tag_line<const N: usize>(out: &mut Vec<u8>, head: &[u8; N], value: &str, escape_none: bool) {
    out.extend_from_slice(head);
    if escape_none {
        out.extend_from_slice(value.as_bytes());
    } else {
        push_tag_value(value, out);
    }
    out.extend_from_slice(b"\"]\n");
}

/// The first eight bytes of a tag's name as a number, zeros after a
/// shorter name: names in the order of their keys are in byte order, but
/// where the keys are equal.
fn name_key(name: &[u8]) -> u64 {
    match name.first_chunk::<8>() {
        Some(first) => u64::from_be_bytes(*first),
        None => name.iter().fold(0, |key, &b| key << 8 | u64::from(b)) << (8 * (8 - name.len())),
    }
}

fn write_movetext(game: &Game, opts: &PgnOptions, words: &mut Words) {
    match &game.start {
        Some(start) => {
            let line = &game.mainline;
            if line.san.len() == line.nodes.len() && !(opts.variations && line.notes.has_variations()) {
                write_main_line(start, line, opts, words);
            } else {
                write_lines(start, line, opts, words);
            }
        }
        // Moves that cannot be replayed cannot be rewritten: they pass
        // through as written.
        None => {
            if let Some(raw) = game.raw_movetext.as_deref().filter(|raw| !raw.is_empty()) {
                words.push_lines(raw);
            }
        }
    }
    words.push(game.result);
}

/// A line being written: the main line or a variation.
struct Frame {
    /// The position before the line's next move.
    pos: Chess,
    /// The line's next item on the tape, and where its items end.
    at: usize,
    end: usize,
    /// For the main line, its next move in `nodes`.
    node: Option<usize>,
    /// Black's move gets its number at the start of a line and after a
    /// comment or variation.
    number_black: bool,
    /// Variations of the move just written still to write: the position
    /// before that move, and the part of the tape where they are.
    pending: Option<(Chess, usize, usize)>,
}

/// Writes the main line from `start` with its comments, NAGs and variations
/// as `opts` keeps them. A variation is written by a frame pushed on a stack
/// rather than by recursion, so that no nesting can overflow the stack.
fn write_lines(start: &Chess, line: &Line, opts: &PgnOptions, words: &mut Words) {
    let notes = &line.notes;
    let mut stack = vec![Frame::new(start.clone(), 0, notes.end(), Some(0), opts, notes, words)];
    // A move number or a move, made here, then pushed as a word.
    let mut word = Vec::new();
    // The main line with the SAN the checker kept is written without
    // playing it: its frame's position is played up to a move only where
    // a variation needs the position before it, and the move numbers
    // follow the side to move and the move counter, as playing moves them.
    let kept = (line.san.len() == line.nodes.len()).then_some(&line.san);
    let mut main_played = 0;
    let mut clock = (start.turn(), start.fullmoves().get());
    while let Some(frame) = stack.last_mut() {
        if let Some((before, at, end)) = &mut frame.pending {
            let next = notes.line(*at, *end).find_map(|(_, item)| match item {
                Item::Open { body } => Some(body),
                _ => None,
            });
            match next {
                Some(body) => {
                    *at = body.end;
                    let pos = before.clone();
                    frame.number_black = true;
                    words.push("(");
                    words.glue_next();
                    let variation = Frame::new(pos, body.start, body.end, None, opts, notes, words);
                    stack.push(variation);
                }
                None => frame.pending = None,
            }
            continue;
        }
        // The next move and where its notes are on the tape.
        let (step, from) = match frame.node {
            Some(i) => match line.nodes.get(i) {
                Some(node) => {
                    frame.node = Some(i + 1);
                    match notes.line(frame.at, frame.end).next() {
                        Some((_, Item::Main)) => (Some(node.step), frame.at + 1),
                        // Notes end before the moves do (a line cut short).
                        _ => (Some(node.step), frame.end),
                    }
                }
                None => (None, frame.at),
            },
            None => match notes.line(frame.at, frame.end).next() {
                Some((_, Item::Move(step))) => (Some(step), notes.item(frame.at).1),
                _ => (None, frame.at),
            },
        };
        let Some(step) = step else {
            // The line is done: why it stops, if it stops early.
            if opts.comments {
                if frame.node.is_some() {
                    if let Some(note) = line.stopped.as_deref() {
                        write_comment(note, opts, words);
                    }
                } else if let Some((_, Item::Stop(stop))) = notes.line(frame.at, frame.end).next() {
                    write_comment(&stop.note(&frame.pos), opts, words);
                }
            }
            let variation = frame.node.is_none();
            stack.pop();
            if variation {
                words.glue(")");
            }
            continue;
        };
        let MoveNotes { to, has_variation, has_nag, has_comment } = MoveNotes::read(notes, from, frame.end);
        let items = || notes.line(from, to).map(|(_, item)| item);
        let variations = opts.variations && has_variation;
        let before = match (kept, frame.node) {
            (Some(sans), Some(next)) => {
                let ply = next - 1;
                let before = variations.then(|| played_up_to(&mut frame.pos, line, &mut main_played, ply));
                let (turn, fullmoves) = clock;
                if turn.is_white() || frame.number_black {
                    word.clear();
                    crate::notation::push_move_number_of(turn, fullmoves, &mut word);
                    words.push_ascii(&word);
                }
                clock = (!turn, if turn.is_black() { fullmoves.saturating_add(1) } else { fullmoves });
                word.clear();
                sans[ply].push(&mut word);
                before
            }
            _ => {
                let before = variations.then(|| frame.pos.clone());
                if frame.pos.turn().is_white() || frame.number_black {
                    word.clear();
                    crate::notation::push_move_number(&frame.pos, &mut word);
                    words.push_ascii(&word);
                }
                word.clear();
                san_step(&mut frame.pos, step).push(&mut word);
                before
            }
        };
        frame.number_black = false;
        words.push_ascii(&word);
        if opts.nags && has_nag {
            for item in items() {
                if let Item::Nag(nag) = item {
                    write_nag(nag, &mut word, words);
                }
            }
        }
        if opts.comments && has_comment {
            for item in items() {
                if let Item::Comment(comment) = item {
                    frame.number_black |= write_note(comment, opts, words);
                }
            }
        }
        frame.at = to;
        frame.pending = before.map(|before| (before, from, to));
    }
}

/// [`write_lines`] of a main line with the SAN the checker kept and no
/// variation to write (most games): no position is played and no stack of
/// lines kept, and a move's notes are read once to know what they hold.
fn write_main_line(start: &Chess, line: &Line, opts: &PgnOptions, words: &mut Words) {
    let notes = &line.notes;
    let end = notes.end();
    let mut number_black = true;
    let mut at = 0;
    while let Some((_, Item::Comment(comment))) = notes.line(at, end).next() {
        if opts.comments {
            number_black |= write_note(comment, opts, words);
        }
        at = notes.item(at).1;
    }
    let (mut turn, mut fullmoves) = (start.turn(), start.fullmoves().get());
    let mut word = Vec::new();
    let mut ply = 0;
    while let Some(&san) = line.san.get(ply) {
        // Moves with no notes (most), at once.
        let bare = notes.bare_mains(at, end).min(line.san.len() - ply);
        if bare > 1 {
            (turn, fullmoves) = words.push_moves((turn, fullmoves), number_black, &line.san[ply..ply + bare]);
            number_black = false;
            (ply, at) = (ply + bare, at + bare);
            continue;
        }
        ply += 1;
        words.push_move((turn.is_white() || number_black).then_some((turn, fullmoves)), san);
        number_black = false;
        if turn.is_black() {
            fullmoves = fullmoves.saturating_add(1);
        }
        turn = !turn;
        if bare == 1 {
            at += 1;
            continue;
        }
        if let Some((comment, next)) = notes.main_comment(at, end) {
            if opts.comments {
                number_black |= write_note(comment, opts, words);
            }
            at = next;
            continue;
        }
        // Its notes follow its `MAIN`; none where the tape ends before
        // the moves do.
        let from = match notes.line(at, end).next() {
            Some((_, Item::Main)) => at + 1,
            _ => end,
        };
        let MoveNotes { to, has_nag, has_comment, .. } = MoveNotes::read(notes, from, end);
        if opts.nags && has_nag {
            for (_, item) in notes.line(from, to) {
                if let Item::Nag(nag) = item {
                    write_nag(nag, &mut word, words);
                }
            }
        }
        if opts.comments && has_comment {
            for (_, item) in notes.line(from, to) {
                if let Item::Comment(comment) = item {
                    number_black |= write_note(comment, opts, words);
                }
            }
        }
        at = to;
    }
    if let Some(note) = line.stopped.as_deref().filter(|_| opts.comments) {
        write_comment(note, opts, words);
    }
}

/// The main line's position before its move `ply`, played on `pos` from
/// its move `*played` (a main line written from the SAN the checker kept).
fn played_up_to(pos: &mut Chess, line: &Line, played: &mut usize, ply: usize) -> Chess {
    for node in &line.nodes[(*played).min(ply)..ply] {
        play(pos, node.step);
    }
    *played = (*played).max(ply);
    pos.clone()
}

/// What the notes of a move hold, read once.
struct MoveNotes {
    /// Where they end: at the line's next move.
    to: usize,
    has_variation: bool,
    has_nag: bool,
    has_comment: bool,
}

impl MoveNotes {
    /// The notes from `from` to the line's next move (or `end`).
    fn read(notes: &Notes, from: usize, end: usize) -> MoveNotes {
        let mut found = MoveNotes { to: end, has_variation: false, has_nag: false, has_comment: false };
        for (at, item) in notes.line(from, end) {
            match item {
                Item::Main | Item::Move(_) | Item::Stop(_) => {
                    found.to = at;
                    break;
                }
                Item::Open { .. } => found.has_variation = true,
                Item::Nag(_) => found.has_nag = true,
                Item::Comment(_) => found.has_comment = true,
            }
        }
        found
    }
}

/// Writes `$n`, made in `word`.
fn write_nag(nag: u8, word: &mut Vec<u8>, words: &mut Words) {
    word.clear();
    word.push(b'$');
    word.extend_from_slice(crate::notation::digits(&mut [0; 20], nag.into()));
    words.push_ascii(word);
}

impl Frame {
    /// A line from `pos`, its items from `at` to `end`, its comments before
    /// its first move written.
    fn new(
        pos: Chess,
        at: usize,
        end: usize,
        node: Option<usize>,
        opts: &PgnOptions,
        notes: &Notes,
        words: &mut Words,
    ) -> Frame {
        let mut frame = Frame { pos, at, end, node, number_black: true, pending: None };
        for (here, item) in notes.line(at, end) {
            let Item::Comment(comment) = item else { break };
            if opts.comments {
                frame.number_black |= write_note(comment, opts, words);
            }
            frame.at = notes.item(here).1;
        }
        frame
    }
}

/// Writes a comment of the tape, as [`write_comment`] does.
fn write_note(comment: Comment<'_>, opts: &PgnOptions, words: &mut Words) -> bool {
    // The tape holds an ASCII comment with its words apart by single
    // spaces: written whole when it has no `}` (a plain one has none) and
    // keeps its clock.
    if let Some(text) = comment.plain().filter(|_| opts.clock) {
        words.push_comment(text);
        return true;
    }
    match comment.ascii() {
        Some(text) if opts.clock && memchr::memchr(b'}', text).is_none() => {
            words.push_comment(text);
            true
        }
        _ => write_comment(comment.text(), opts, words),
    }
}

/// Writes `{ comment }` (its words wrap like moves); false when nothing is
/// left of it to write.
fn write_comment(comment: &str, opts: &PgnOptions, words: &mut Words) -> bool {
    let stripped;
    let comment = if opts.clock {
        comment
    } else {
        stripped = strip_commands(comment, &["[%clk", "[%eval"]);
        &stripped
    };
    if comment.is_ascii() {
        return write_ascii_comment(comment.as_bytes(), words);
    }
    write_any_comment(comment, words)
}

/// [`write_comment`] of any text, split at Unicode white space.
fn write_any_comment(comment: &str, words: &mut Words) -> bool {
    // `}` would end the comment early; python-chess drops it too.
    let mut parts = comment.split_whitespace().map(|w| w.replace('}', "")).filter(|w| !w.is_empty()).peekable();
    if parts.peek().is_none() {
        return false;
    }
    words.push("{");
    for part in parts {
        words.push(&part);
    }
    words.push("}");
    true
}

/// [`write_comment`] of ASCII text, its words split at the white space of
/// `char::is_whitespace` (in ASCII: tab, line feed, vertical tab, form
/// feed, carriage return, space) without a string made for each: most
/// comments are ASCII, and those made word by word cost more than
/// reading the game.
fn write_ascii_comment(comment: &[u8], words: &mut Words) -> bool {
    let blank = |b: &u8| *b == b' ' || (b'\t'..=b'\r').contains(b);
    if comment.iter().all(|b| blank(b) || *b == b'}') {
        return false;
    }
    words.push_ascii(b"{");
    // As the notes hold a comment (clock commands kept): its words apart
    // by single spaces, and no `}`. Then its words go in runs.
    let single_spaced = comment.first().is_some_and(|b| !blank(b))
        && comment.last().is_some_and(|b| !blank(b))
        && !comment.iter().fold(false, |any, b| any | (b'\t'..=b'\r').contains(b))
        && memchr::memchr(b'}', comment).is_none()
        && memchr::memmem::find(comment, b"  ").is_none();
    if single_spaced {
        words.push_run(comment);
        words.push_ascii(b"}");
        return true;
    }
    let mut cut = Vec::new();
    for part in comment.split(blank).filter(|part| !part.is_empty()) {
        if memchr::memchr(b'}', part).is_none() {
            words.push_ascii(part);
            continue;
        }
        // `}` would end the comment early; python-chess drops it too.
        cut.clear();
        cut.extend(part.iter().filter(|&&b| b != b'}'));
        if !cut.is_empty() {
            words.push_ascii(&cut);
        }
    }
    words.push_ascii(b"}");
    true
}

/// `comment` without the `[%command ...]` parts named in `commands`.
fn strip_commands(comment: &str, commands: &[&str]) -> String {
    let mut out = String::with_capacity(comment.len());
    let mut rest = comment;
    while let Some((at, len)) = commands.iter().filter_map(|c| rest.find(c).map(|at| (at, c.len()))).min() {
        out.push_str(&rest[..at]);
        rest = match rest[at + len..].find(']') {
            Some(end) => &rest[at + len + end + 1..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::{PgnOptions, PgnWriter, Words, movetext, strip_commands, write_any_comment, write_ascii_comment};
    use crate::{game::Game, output::games::GameWriter};

    fn games(pgn: &str) -> Vec<Game> {
        crate::check::read_all(pgn)
    }

    fn export(pgn: &str, options: PgnOptions) -> String {
        let mut out = Vec::new();
        for game in games(pgn) {
            PgnWriter { options: options.clone() }.game(&game, &mut out);
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn tags_come_in_roster_order_then_sorted_and_san_is_regenerated() {
        let pgn = "[White \"Anderssen\"]\n[ECO \"C52\"]\n[Annotator \"x\"]\n[Result \"1-0\"]\n\n\
                   1. e4 e5 2. Ng1f3 Nc6 3. Bc4 Bc5 4. 0-0?? 1-0\n";
        let out = export(pgn, PgnOptions::default());
        assert_eq!(
            out,
            "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"Anderssen\"]\n\
             [Black \"?\"]\n[Result \"1-0\"]\n[Annotator \"x\"]\n[ECO \"C52\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O $4 1-0\n\n"
        );
    }

    #[test]
    fn black_moves_are_numbered_after_comments_and_variations() {
        let pgn = "[Event \"e\"]\n\n1. e4 {best} e5 (1... c5 2. Nf3) 2. Nf3 $1 Nc6 *\n";
        let out = export(pgn, PgnOptions::default());
        assert!(out.ends_with("\n\n1. e4 { best } 1... e5 (1... c5 2. Nf3) 2. Nf3 $1 Nc6 *\n\n"), "{out}");
    }

    #[test]
    fn options_drop_comments_variations_nags_and_clock_commands() {
        let pgn = "[Event \"e\"]\n\n1. e4 {[%clk 0:03:00] fast} (1. d4) e5 $2 *\n";
        let bare = PgnOptions { comments: false, variations: false, nags: false, ..PgnOptions::default() };
        assert!(export(pgn, bare).ends_with("\n\n1. e4 e5 *\n\n"));
        let no_clock = PgnOptions { clock: false, ..PgnOptions::default() };
        assert!(export(pgn, no_clock).ends_with("\n\n1. e4 { fast } (1. d4) 1... e5 $2 *\n\n"));
    }

    #[test]
    fn movetext_wraps_at_79_columns() {
        let moves = "1. Nf3 Nf6 2. Ng1 Ng8 ".repeat(12);
        let out = export(&format!("[Event \"e\"]\n\n{moves}*\n"), PgnOptions::default());
        let lines: Vec<&str> = out.lines().skip(8).filter(|l| !l.is_empty()).collect();
        assert!(lines.len() > 2);
        assert!(lines.iter().all(|l| l.len() <= 79), "{lines:?}");
        assert!(lines[..lines.len() - 1].iter().all(|l| l.len() > 70), "{lines:?}");
    }

    #[test]
    fn an_illegal_move_ends_the_game_with_a_note() {
        let out = export("[Event \"e\"]\n\n1. e4 e5 2. Ke3 Nc6 *\n", PgnOptions::default());
        assert!(out.contains("1. e4 e5 { pgnkit: stopped before ply 3 (line 3, column 13):"), "{out}");
        assert!(out.ends_with("} *\n\n"), "{out}");
    }

    #[test]
    fn tag_values_are_escaped_and_games_have_one_blank_line_between() {
        let out = export("[White \"a \\\"b\\\" \\\\ c\"]\n\n1. e4 *\n\n\n\n1. d4 *\n", PgnOptions::default());
        assert!(out.contains("[White \"a \\\"b\\\" \\\\ c\"]\n"), "{out}");
        assert!(out.contains("1. e4 *\n\n[Event"), "{out}");
    }

    #[test]
    fn a_tag_given_twice_is_written_once_with_its_last_value_the_one_the_game_replays_from() {
        // The moves are legal from the second FEN only (a rook on a1).
        let pgn = "[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n[SetUp \"0\"]\n[SetUp \"1\"]\n\
                   [FEN \"4k3/8/8/8/8/8/8/R3K3 w Q - 0 1\"]\n[Variant \"Atomic\"]\n[Variant \"chess\"]\n\n\
                   1. O-O-O Kf7 *\n";
        assert!(games(pgn)[0].report.valid);
        let out = export(pgn, PgnOptions::default());
        assert!(
            out.ends_with(
                "[FEN \"4k3/8/8/8/8/8/8/R3K3 w Q - 0 1\"]\n[SetUp \"1\"]\n[Variant \"chess\"]\n\n1. O-O-O Kf7 *\n\n"
            ),
            "{out}"
        );
        let again = &games(&out)[0];
        assert!(again.report.valid && again.mainline.nodes.len() == 2, "{:?}", again.report);
    }

    #[test]
    fn tag_values_keep_control_characters_and_names_that_are_no_names_are_left_out() {
        // A tab makes this FEN unreadable: with a space it would be a
        // position the game was never replayed from.
        let pgn = "[FEN \"4k3/8/8/8/8/8/8/4K3 w\t- - 0 1\"]\n[Event \"a\u{1b}b\"]\n[1/2-1/2 \"x]\n\n1. Kd2 *\n";
        let out = export(pgn, PgnOptions::default());
        assert!(out.starts_with("[Event \"a\u{1b}b\"]\n"), "{out}");
        assert!(out.contains("[FEN \"4k3/8/8/8/8/8/8/4K3 w\t- - 0 1\"]\n"), "{out}");
        assert!(!out.contains("1/2-1/2 "), "{out}");
        assert!(games(&out)[0].start.is_none());
    }

    #[test]
    fn the_movetext_column_is_one_line() {
        let game = &games("[Event \"e\"]\n\n1. e4 {a\nb} e5 1/2-1/2\n")[0];
        assert_eq!(movetext(game), "1. e4 { a b } 1... e5 1/2-1/2");
    }

    /// Split a byte at a time, an ASCII comment is written as when split
    /// at Unicode white space, at any width and wherever the line is: every
    /// white space of ASCII (the vertical tab and form feed too), `}` alone
    /// and in words.
    #[test]
    fn an_ascii_comment_is_written_as_any_comment_is() {
        const PIECES: &[&str] = &[
            " ",
            "  ",
            "\t",
            "\n",
            "\r\n",
            "\u{b}",
            "\u{c}",
            "}",
            "a}b",
            "}}",
            "word",
            "x",
            "[%clk 0:01:00]",
            "\u{1}",
            " ",
            " ",
            "a-longer-word",
            "w",
            "wo",
        ];
        let mut rng = crate::test_rng::Rng(0xc0de_0000_0000_0042);
        for _ in 0..6000 {
            let text: String = (0..rng.below(30)).map(|_| PIECES[rng.below(PIECES.len())]).collect();
            // Half of them single-spaced, as the notes hold comments.
            let text = if rng.below(2) == 0 { crate::game::normalize_comment(&text).replace('}', "") } else { text };
            let width = [5, 9, 20, 79, usize::MAX][rng.below(5)];
            // After a word, at a line's start, or glued to the word before.
            let (column, glue) = [(5, false), (0, false), (5, true), (70, false)][rng.below(4)];
            let (mut ascii, mut any) = (b"x".repeat(column), b"x".repeat(column));
            let mut words = Words::at_column(width, &mut ascii, column);
            if glue {
                words.glue_next();
            }
            let wrote = write_ascii_comment(text.as_bytes(), &mut words);
            words.push_ascii(b"next");
            words.finish().unwrap();
            let mut words = Words::at_column(width, &mut any, column);
            if glue {
                words.glue_next();
            }
            assert_eq!(wrote, write_any_comment(&text, &mut words), "{text:?}");
            words.push_ascii(b"next");
            words.finish().unwrap();
            assert_eq!(String::from_utf8_lossy(&ascii), String::from_utf8_lossy(&any), "{text:?}");
        }
    }

    #[test]
    fn a_variation_is_wrapped_with_its_first_move_and_no_line_runs_past_the_width() {
        // Knights out and back, a variation after each move in turn: its
        // `(` and first move land at every column once. They moved to the
        // next line apart, and `(12.` could end a line of 82 characters.
        let moves = ["Nf3", "Nf6", "Ng1", "Ng8"];
        for at in 1..40 {
            let mut pgn = String::from("[Event \"e\"]\n\n");
            for ply in 0..40 {
                if ply % 2 == 0 {
                    pgn.push_str(&format!("{}. ", ply / 2 + 1));
                }
                pgn.push_str(moves[ply % 4]);
                pgn.push(' ');
                if ply == at {
                    let number = if ply % 2 == 0 { format!("{}.", ply / 2 + 1) } else { format!("{}...", ply / 2 + 1) };
                    let other = if ply % 2 == 0 { "Nc3" } else { "Nc6" };
                    pgn.push_str(&format!("({number} {other}) "));
                }
            }
            pgn.push('*');
            let out = export(&pgn, PgnOptions::default());
            assert!(out.lines().all(|line| line.len() <= 79), "{out}");
            assert!(out.contains(" (") || out.contains("\n("), "{out}");
        }
    }

    #[test]
    fn names_in_the_order_of_their_keys_are_in_byte_order_where_the_keys_differ() {
        let names =
            ["", "A", "Black", "BlackElo", "BlackEloX", "BlackFide", "Z", "_", "a", "WhiteRatingDiff", "WhiteRating"];
        for a in names {
            for b in names {
                let (ka, kb) = (super::name_key(a.as_bytes()), super::name_key(b.as_bytes()));
                if ka != kb {
                    assert_eq!(ka.cmp(&kb), a.cmp(b), "{a} {b}");
                } else {
                    assert_eq!(a.get(..8.min(a.len())), b.get(..8.min(b.len())), "{a} {b}");
                }
            }
        }
    }

    #[test]
    fn clock_and_eval_commands_are_cut_out_of_comments() {
        assert_eq!(strip_commands("[%eval 0.3] x [%clk 0:01:00]", &["[%clk", "[%eval"]), " x ");
    }
}
