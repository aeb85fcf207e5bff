//! The grammar in a game's tag section: its tag lines read one after
//! another, each tag kept as pgn-reader reads it, and the step into the
//! movetext after them.

use super::{Grammar, Input, LINE_START_STOP, State, Step};
use crate::frame::{
    batch::{FrameFlags, Framed},
    kept::{OFFSET_LIMIT, TagAt},
    lexer::{pgn_reader_spans, plain_tag_line, scan_tag_line_with},
};

impl Grammar {
    /// Scans the tag lines from `pos` on.
    pub(super) fn tag_lines(&mut self, input: &Input<'_>, out: &mut Framed) -> Step {
        // The line after a tag line is most often the next tag line, which
        // needs none of `line_start`'s looks (a `[` right after a line that
        // was not blank): it is read on here.
        loop {
            if let Step::NeedMore = self.one_tag_line(input, out) {
                return Step::NeedMore;
            }
            let next_is_tag = self.at_line_start
                && !self.prev_blank
                && input.bytes.get(self.pos) == Some(&b'[')
                && self.open.as_ref().is_some_and(|open| self.pos - open.frame.start <= self.max_game_bytes);
            if !next_is_tag {
                return self.movetext_after_tags(input, out);
            }
            self.at_line_start = false;
        }
    }

    /// After the tag lines, blank lines and then a movetext line that needs
    /// none of `line_start`'s looks (most games): read on here, as
    /// `line_start` would read them.
    fn movetext_after_tags(&mut self, input: &Input<'_>, out: &mut Framed) -> Step {
        let Some(open) = &self.open else { return Step::Go };
        let start = open.frame.start;
        if !self.at_line_start || self.state != State::Tags || self.max_game_bytes >= OFFSET_LIMIT {
            return Step::Go;
        }
        let max = self.max_game_bytes;
        let under_cap = |pos: usize| pos - start <= max;
        while under_cap(self.pos) && self.skip_blank_line(input) {}
        match input.bytes.get(self.pos) {
            Some(&b) if !LINE_START_STOP[usize::from(b)] && under_cap(self.pos) => {
                self.prev_blank = false;
                self.at_line_start = false;
                self.enter_movetext(self.pos);
                self.movetext_run(input, out)
            }
            _ => Step::Go,
        }
    }

    /// Steps over the line at `pos` if it is empty (`\n` or `\r\n`), as
    /// `line_start` would in the tags or between games.
    pub(super) fn skip_blank_line(&mut self, input: &Input<'_>) -> bool {
        let len = match &input.bytes[self.pos..] {
            [b'\n', ..] => 1,
            [b'\r', b'\n', ..] => 2,
            _ => return false,
        };
        self.pos += len - 1;
        self.prev_blank = true;
        self.newline(input);
        true
    }

    /// Scans one tag line; text after the last `]` switches to movetext.
    fn one_tag_line(&mut self, input: &Input<'_>, out: &mut Framed) -> Step {
        let rest = &input.bytes[self.pos..];
        if rest.first() == Some(&b'\n') && self.max_game_bytes < OFFSET_LIMIT {
            // The blank line after the tags.
            self.newline(input);
            return Step::Go;
        }
        if let Some(open) = &mut self.open
            && let Some((name, value, end)) = plain_tag_line(rest)
            && self.max_game_bytes < OFFSET_LIMIT
            && out.kept.tags.len() < open.kept_from.tags_cap()
        {
            out.kept.tags.push(TagAt::on_line(self.pos - open.frame.start, name, value));
            open.frame.max_tag_line = open.frame.max_tag_line.max(u32::try_from(end).unwrap_or(u32::MAX));
            self.pos += end;
            self.newline(input);
            return Step::Go;
        }
        let Some(end) = memchr::memchr(b'\n', rest) else {
            if self.discard {
                // Nothing of a dropped tag line is needed but where it ends.
                self.to_eol = true;
                return Step::Go;
            }
            if !input.eof && rest.len() <= self.max_game_bytes {
                return Step::NeedMore;
            }
            // Not read here: the parser reads it. The input's last line,
            // which no newline ends, is still checked as a tag line.
            if input.eof {
                let mut loose = false;
                let (scan, blanks_read_alike) = scan_tag_line_with(rest, |_, tag| loose |= tag.loose);
                if scan.problem.is_some() {
                    self.flag(FrameFlags::BAD_TAG);
                }
                if loose || !blanks_read_alike {
                    self.flag(FrameFlags::TAGS_MENDED);
                }
            }
            self.flag(FrameFlags::UNKEPT);
            self.pos = input.bytes.len();
            return Step::Go;
        };
        self.tag_line(input, out, end)
    }

    /// Scans the tag line at `pos` of `end` bytes, one that is not plain
    /// (several tags, blanks or escapes where a plain one has none, a
    /// broken tag): its tags are kept unless pgn-reader would read them
    /// otherwise.
    fn tag_line(&mut self, input: &Input<'_>, out: &mut Framed, end: usize) -> Step {
        let rest = &input.bytes[self.pos..];
        // Offsets in a game are kept as `u32`.
        let mut kept = self.max_game_bytes < OFFSET_LIMIT;
        // A value with quotes not escaped is kept as pgnkit reads it, and
        // mended for pgn-reader, which would cut it at its first inner quote.
        let mut loose = false;
        let (scan, blanks_read_alike) = match &self.open {
            Some(open) => {
                let (at, tags) = (self.pos - open.frame.start, &mut out.kept.tags);
                let cap = open.kept_from.tags_cap();
                scan_tag_line_with(&rest[..end], |line, tag| {
                    loose |= tag.loose;
                    match pgn_reader_spans(line, tag) {
                        Some((name, value)) if kept && tags.len() < cap => tags.push(TagAt::on_line(at, name, value)),
                        _ => kept = false,
                    }
                })
            }
            None => scan_tag_line_with(&rest[..end], |_, _| {}),
        };
        // A vertical tab or form feed between tags ends pgn-reader's tag
        // section: mended for it too.
        if loose || !blanks_read_alike {
            self.flag(FrameFlags::TAGS_MENDED);
        }
        let i = scan.tags_end;
        if scan.problem.is_some() {
            self.flag(FrameFlags::BAD_TAG);
        }
        if !kept || !blanks_read_alike {
            self.flag(FrameFlags::UNKEPT);
        }
        let line_len = u32::try_from(end).unwrap_or(u32::MAX);
        if let Some(open) = &mut self.open {
            open.frame.max_tag_line = open.frame.max_tag_line.max(line_len);
        }
        if i < end {
            self.pos += i;
            self.enter_movetext(self.pos);
        } else {
            self.pos += end;
            self.newline(input);
        }
        Step::Go
    }
}
