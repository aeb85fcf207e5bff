//! Words wrapped at a width for PGN export (moves, comments, NAGs and
//! parentheses), broken into lines once they are written.

use std::io::{self, Write};

use shakmaty::Color;

use crate::notation::{SanText, short_digits};

/// Bytes of a streamed game's text held before its complete lines go out.
pub(super) const FLUSH: usize = 1 << 16;

/// A move's piece for [`Words::push_piece`]: a space, its number (when
/// given, under 1000) and a space, then its SAN; its length and the
/// number's. For a number under 1000, the number's piece is one word
/// (` 999... ` is 8 bytes) and the SAN's another (no SAN with its mark is
/// longer than 7 bytes), each built by shifts and stored whole.
#[inline(always)]
fn move_piece(number: Option<(Color, u32)>, san: SanText) -> ([u8; 16], usize, usize) {
    let mut piece = [0; 16];
    match number {
        // ` Nf3`
        None => {
            piece[..8].copy_from_slice(&(san.word() << 8 | u64::from(b' ')).to_le_bytes());
            (piece, 1 + san.len(), 0)
        }
        // ` 12. Nf3`, ` 12... Nf3`: the number's piece, then the SAN's.
        Some((turn, fullmoves)) => {
            debug_assert!(fullmoves < 1000);
            let (digits, count) = short_digits(fullmoves);
            let (dots, dots_len) = if turn == Color::White { (0x2e, 1) } else { (0x2e2e2e, 3) };
            let number_len = count + dots_len;
            let numbered = u64::from(b' ') | u64::from(digits) << 8 | dots << (8 * (1 + count));
            let numbered = numbered | u64::from(b' ') << (8 * (1 + number_len));
            piece[..8].copy_from_slice(&numbered.to_le_bytes());
            let at = (2 + number_len).min(8);
            piece[at..at + 8].copy_from_slice(&san.bytes());
            (piece, at + san.len(), number_len)
        }
    }
}

/// Space-separated words wrapped at a width, appended to a buffer; `(` and
/// `)` hug what they enclose, as in the standard's examples.
///
/// A word goes on the line being written with a space before it, and the
/// line is broken later ([`Words::settle`]): at the last space that leaves
/// no more than the width on it, or, for a word wider than the line, after
/// that word. That is what placing each word as it comes writes (a new
/// line when the word does not fit), without a test for each: most words
/// fit, and a comment's words go in as one copy.
pub(super) struct Words<'a, 's> {
    width: usize,
    out: &'a mut Vec<u8>,
    /// Where the line being written starts in `out`: the lines before it
    /// are broken; from it on, words apart by single spaces.
    line: usize,
    /// A space before this, in text passed on as written
    /// ([`Words::push_lines`]), parts no words: no line breaks at it.
    kept: usize,
    glue_next: bool,
    /// A word of more bytes than characters was pushed: lines are then
    /// measured in characters.
    wide: bool,
    /// Where complete lines go when `out` grows past `send_at` (a game too
    /// large to hold), and the first error writing them.
    sink: Option<&'s mut dyn Write>,
    send_at: usize,
    error: Option<io::Error>,
}

impl<'a, 's> Words<'a, 's> {
    pub(super) fn new(width: usize, out: &'a mut Vec<u8>) -> Self {
        let line = out.len();
        Words { width, out, line, kept: 0, glue_next: false, wide: false, sink: None, send_at: usize::MAX, error: None }
    }

    /// Sends complete lines to `sink` as `out` grows past [`FLUSH`].
    pub(super) fn streaming(mut self, sink: Option<&'s mut dyn Write>) -> Self {
        if sink.is_some() {
            self.send_at = self.out.len().max(FLUSH);
        }
        self.sink = sink;
        self
    }

    /// Appends a word (no line break in it).
    pub(super) fn push(&mut self, word: &str) {
        self.push_word(word.as_bytes(), word.chars().count());
    }

    /// Appends a word of ASCII (no line break in it): as many characters as
    /// bytes.
    pub(super) fn push_ascii(&mut self, word: &[u8]) {
        debug_assert!(word.is_ascii() && !word.contains(&b'\n'));
        self.push_word(word, word.len());
    }

    /// Whether the next word goes without a space before it: it is glued,
    /// or first on its line.
    fn bare(&self) -> bool {
        self.glue_next || self.out.len() == self.line
    }

    /// Appends a move's number (when given: the side to move and the move
    /// counter) and its SAN, two words, in a copy of a fixed size.
    #[inline(always)]
    pub(super) fn push_move(&mut self, number: Option<(Color, u32)>, san: SanText) {
        match number {
            Some(number @ (_, 1000..)) => self.push_long_move(number, san),
            _ => {
                let (piece, len, number_len) = move_piece(number, san);
                self.push_piece(&piece, len, number_len);
            }
        }
    }

    /// Appends the moves `sans`, none with notes, from `clock` (the side to
    /// move and the move counter), the first numbered when White's or
    /// `number_black`: what [`Words::push_move`] of each writes, into room
    /// made once for many, where a look at the room and a copy cost a move
    /// as much as the rest. The clock after them.
    pub(super) fn push_moves(&mut self, clock: (Color, u32), number_black: bool, sans: &[SanText]) -> (Color, u32) {
        // Room for so many at a time: a streamed game's lines go out
        // between.
        const AT_ONCE: usize = 1024;
        let (mut turn, mut fullmoves) = clock;
        let mut number_black = number_black;
        for mut sans in sans.chunks(AT_ONCE) {
            // The first word of the movetext has no space before it.
            if self.bare()
                && let Some((&san, rest)) = sans.split_first()
            {
                self.push_move((turn.is_white() || number_black).then_some((turn, fullmoves)), san);
                number_black = false;
                fullmoves = fullmoves.saturating_add(u32::from(turn.is_black()));
                turn = !turn;
                sans = rest;
            }
            let plies = sans.len() as u32;
            if fullmoves.saturating_add(plies / 2 + 1) >= 1000 {
                for &san in sans {
                    self.push_move((turn.is_white() || number_black).then_some((turn, fullmoves)), san);
                    number_black = false;
                    fullmoves = fullmoves.saturating_add(u32::from(turn.is_black()));
                    turn = !turn;
                }
                continue;
            }
            let start = self.out.len();
            self.out.resize(start + 16 * sans.len(), 0);
            let room = &mut self.out[start..];
            let mut at = 0;
            for &san in sans {
                let (piece, len, _) = move_piece((turn.is_white() || number_black).then_some((turn, fullmoves)), san);
                number_black = false;
                room[at..at + 16].copy_from_slice(&piece);
                at += len;
                fullmoves += u32::from(turn.is_black());
                turn = !turn;
            }
            self.out.truncate(start + at);
            self.sent();
        }
        (turn, fullmoves)
    }

    /// [`Words::push_move`] of a move numbered 1000 or more.
    fn push_long_move(&mut self, (turn, fullmoves): (Color, u32), san: SanText) {
        // ` 4294967295... Qa1xb2=Q#`
        let mut piece = [0; 32];
        let mut buffer = [0; 20];
        let digits = crate::notation::digits(&mut buffer, fullmoves.into());
        piece[0] = b' ';
        piece[1..=digits.len()].copy_from_slice(digits);
        let dots = if turn == Color::White { 1 } else { 3 };
        let mut len = 1 + digits.len();
        piece[len..len + 4].copy_from_slice(b"... ");
        piece[len + dots] = b' ';
        len += dots + 1;
        piece[len..len + 8].copy_from_slice(&san.bytes());
        self.push_piece(&piece, len + san.len(), digits.len() + dots);
    }

    /// Appends the first `len` bytes of `piece`: a space, a move's number
    /// (`number_len` bytes, none when 0) and a space after it, then its
    /// SAN.
    fn push_piece<const N: usize>(&mut self, piece: &[u8; N], len: usize, number_len: usize) {
        if self.bare() {
            if number_len > 0 {
                self.push_ascii(&piece[1..=number_len]);
            }
            let san_at = if number_len > 0 { number_len + 2 } else { 1 };
            return self.push_ascii(&piece[san_at..len]);
        }
        crate::notation::push_short(piece, len, self.out);
        self.sent();
    }

    /// Appends `{ text }`, `text` words of ASCII apart by single spaces
    /// (no line break, no space at either end).
    pub(super) fn push_comment(&mut self, text: &[u8]) {
        if self.bare() {
            self.push_ascii(b"{");
            self.push_run(text);
            return self.push_ascii(b"}");
        }
        self.out.extend_from_slice(b" { ");
        self.out.extend_from_slice(text);
        self.out.extend_from_slice(b" }");
        self.sent();
    }

    /// Appends words of ASCII apart by single spaces (no line break, no
    /// space at either end): as one, which the line breaks part as they
    /// would part the words.
    pub(super) fn push_run(&mut self, text: &[u8]) {
        self.push_ascii(text);
    }

    /// Appends text that may hold line breaks (a movetext passed on as
    /// written), first of the words: it is not broken again, and the
    /// words after it go on its last line.
    pub(super) fn push_lines(&mut self, text: &str) {
        debug_assert!(self.out.len() == self.line, "a movetext as written is all there is");
        self.push(text);
        self.kept = self.out.len();
        if let Some(last_break) = memchr::memrchr(b'\n', &self.out[self.line..]) {
            self.line += last_break + 1;
        }
    }

    /// Appends a word `len` characters wide.
    fn push_word(&mut self, word: &[u8], len: usize) {
        debug_assert!(!word.is_empty());
        if !self.bare() {
            self.out.push(b' ');
        }
        self.glue_next = false;
        self.wide |= len != word.len();
        self.out.extend_from_slice(word);
        self.sent();
    }

    /// Breaks the lines written so far but the last, which words may still
    /// join.
    fn settle(&mut self) {
        loop {
            let text = &self.out[self.line..];
            // No more characters than bytes.
            if text.len() <= self.width {
                return;
            }
            let from = self.kept.saturating_sub(self.line).min(text.len());
            let at = if self.wide {
                wide_break(text, from, self.width)
            } else {
                // The last space that leaves the line no wider than it
                // may be, else the one after its first word. Looked for a
                // byte at a time from the end: most words are short, and a
                // call to search the line cost more.
                let room = text.get(from..=self.width).unwrap_or_default();
                room.iter()
                    .rposition(|&b| b == b' ')
                    .or_else(|| memchr::memchr(b' ', &text[from + room.len()..]).map(|i| room.len() + i))
                    .map(|i| from + i)
            };
            let Some(at) = at else { return };
            self.out[self.line + at] = b'\n';
            self.line += at + 1;
        }
    }

    /// Sends the complete lines out, when there is a sink and `out` has
    /// grown past its mark.
    #[inline]
    fn sent(&mut self) {
        if self.out.len() > self.send_at {
            self.send();
        }
    }

    /// Breaks the lines so far and sends the complete ones to the sink.
    #[cold]
    fn send(&mut self) {
        self.settle();
        let done = self.line;
        if let Some(sink) = self.sink.as_deref_mut().filter(|_| self.error.is_none() && done > 0)
            && let Err(err) = sink.write_all(&self.out[..done])
        {
            self.error = Some(err);
        }
        if self.error.is_none() {
            self.out.drain(..done);
            self.line = 0;
            self.kept = self.kept.saturating_sub(done);
        }
        self.send_at = self.out.len() + FLUSH;
    }

    /// The next word follows the last without a space.
    pub(super) fn glue_next(&mut self) {
        self.glue_next = true;
    }

    /// Appends to the last word.
    pub(super) fn glue(&mut self, tail: &str) {
        self.out.extend_from_slice(tail.as_bytes());
        self.wide |= !tail.is_ascii();
        self.glue_next = false;
        self.sent();
    }

    /// Breaks the last lines; the error, if any, of sending lines.
    pub(super) fn finish(mut self) -> io::Result<()> {
        self.settle();
        self.error.map_or(Ok(()), Err)
    }
}

/// Where [`Words::settle`] breaks the line `text` (a space's index), its
/// width counted in characters: the first word is its own up to the first
/// space at `from` or after, then the words apart by each space.
fn wide_break(text: &[u8], from: usize, width: usize) -> Option<usize> {
    // Characters, not bytes: those that do not continue one.
    let chars = |bytes: &[u8]| bytes.iter().filter(|&&b| (b as i8) >= -0x40).count();
    let space_from = |at: usize| memchr::memchr(b' ', &text[at..]).map_or(text.len(), |i| at + i);
    let mut at = space_from(from);
    let mut column = chars(&text[..at]);
    while at < text.len() {
        let next = space_from(at + 1);
        column += 1 + chars(&text[at + 1..next]);
        if column > width {
            return Some(at);
        }
        at = next;
    }
    None
}

#[cfg(test)]
impl<'a> Words<'a, '_> {
    /// Words after `column` characters already on the line.
    pub(super) fn at_column(width: usize, out: &'a mut Vec<u8>, column: usize) -> Self {
        let mut words = Words::new(width, out);
        words.line -= column;
        words
    }
}

#[cfg(test)]
mod tests {
    use super::Words;

    #[test]
    fn a_moves_number_and_san_are_written_as_two_words_at_any_number_and_width() {
        let san = crate::notation::SanText::new("exd8=Q".parse().unwrap(), Some(shakmaty::san::Suffix::Check));
        for n in [1, 9, 10, 99, 100, 999, 1000, 65_535, u32::MAX] {
            for (turn, dots) in [(shakmaty::Color::White, "."), (shakmaty::Color::Black, "...")] {
                for (width, column) in [(usize::MAX, 3), (79, 0), (79, 70), (79, 78)] {
                    let mut out = b"x".repeat(column);
                    let mut words = Words::at_column(width, &mut out, column);
                    words.push_move(Some((turn, n)), san);
                    words.push_move(None, san);
                    words.push_ascii(b"next");
                    words.finish().unwrap();
                    let mut expected = b"x".repeat(column);
                    let mut one_by_one = Words::at_column(width, &mut expected, column);
                    for word in [format!("{n}{dots}"), "exd8=Q+".to_owned(), "exd8=Q+".to_owned(), "next".to_owned()] {
                        one_by_one.push(&word);
                    }
                    one_by_one.finish().unwrap();
                    assert_eq!(String::from_utf8(out).unwrap(), String::from_utf8(expected).unwrap());
                }
            }
        }
    }

    /// What the line breaks write: each word placed as it comes, on a new
    /// line when it does not fit; a glued word joins the one before it
    /// first (the two fit or move together).
    fn placed_one_by_one(words: &[(String, bool)], width: usize) -> String {
        let mut joined: Vec<String> = Vec::new();
        for (word, glued) in words {
            match joined.last_mut() {
                Some(last) if *glued => last.push_str(word),
                _ => joined.push(word.clone()),
            }
        }
        let (mut out, mut column) = (String::new(), 0);
        for word in joined {
            let len = word.chars().count();
            if column > 0 && column + 1 + len > width {
                out.push('\n');
                column = 0;
            } else if column > 0 {
                out.push(' ');
                column += 1;
            }
            out.push_str(&word);
            column += len;
        }
        out
    }

    #[test]
    fn lines_are_broken_where_placing_each_word_as_it_comes_breaks_them() {
        const WORDS: &[&str] =
            &["e4", "12.", "Nxf7+", "{", "}", "(", ")", "a-word-longer-than-a-line", "é", "ünï", "x"];
        let mut rng = crate::test_rng::Rng(0x11e5_0000_0000_0079);
        for _ in 0..5000 {
            let words: Vec<(String, bool)> = (0..rng.below(60))
                .map(|i| (WORDS[rng.below(WORDS.len())].to_owned(), i > 0 && rng.below(5) == 0))
                .collect();
            let width = [1, 5, 12, 20, 79][rng.below(5)];
            // In one go, and streamed a few bytes at a time.
            for send in [false, true] {
                let (mut out, mut sent) = (Vec::new(), Vec::new());
                let mut written = Words::new(width, &mut out);
                if send {
                    written.sink = Some(&mut sent);
                    written.send_at = 0;
                }
                for (word, glued) in &words {
                    match (*glued, rng.below(2)) {
                        (true, 0) => written.glue(word),
                        (true, _) => {
                            written.glue_next();
                            written.push(word);
                        }
                        (false, _) => written.push(word),
                    }
                    if send {
                        written.send_at = rng.below(8);
                    }
                }
                written.finish().unwrap();
                sent.extend_from_slice(&out);
                assert_eq!(String::from_utf8(sent).unwrap(), placed_one_by_one(&words, width), "{words:?} at {width}");
            }
        }
    }

    #[test]
    fn moves_written_at_once_are_written_as_one_by_one() {
        use shakmaty::Color::{Black, White};
        let sans: Vec<crate::notation::SanText> = ["e4", "exd8=Q+", "O-O-O#", "Nbd7", "a6"]
            .iter()
            .cycle()
            .take(3000)
            .map(|san| crate::notation::SanText::new(san.trim_end_matches(['+', '#']).parse().unwrap(), None))
            .collect();
        for clock in [(White, 1), (Black, 1), (White, 990), (Black, 999), (White, u32::MAX - 2)] {
            for number_black in [false, true] {
                for (column, count) in [(0, 1), (0, 2), (5, 2), (70, 7), (3, 1500), (0, 3000)] {
                    let mut at_once = b"x".repeat(column);
                    let mut words = Words::at_column(79, &mut at_once, column);
                    let after = words.push_moves(clock, number_black, &sans[..count]);
                    words.finish().unwrap();
                    let mut one_by_one = b"x".repeat(column);
                    let mut words = Words::at_column(79, &mut one_by_one, column);
                    let (mut turn, mut fullmoves) = clock;
                    for (i, &san) in sans[..count].iter().enumerate() {
                        words
                            .push_move((turn.is_white() || (i == 0 && number_black)).then_some((turn, fullmoves)), san);
                        fullmoves = fullmoves.saturating_add(u32::from(turn.is_black()));
                        turn = !turn;
                    }
                    words.finish().unwrap();
                    assert_eq!(after, (turn, fullmoves));
                    assert_eq!(String::from_utf8(at_once).unwrap(), String::from_utf8(one_by_one).unwrap());
                }
            }
        }
    }
}
