//! Game bytes as text: UTF-8 when the game is, else Latin-1; and long text
//! cut short for a finding or a terminal.

/// Text of a tag or token: UTF-8 when the game is, else Latin-1.
pub(crate) fn text(bytes: &[u8], utf8: bool) -> String {
    if !utf8 {
        return bytes.iter().map(|&b| char::from(b)).collect();
    }
    // The check alone, then one copy: the lossy conversion's walk through
    // valid chunks cost a third more, for the players' names of every game
    // in `validate --format jsonl`.
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// A token as shown in a finding: a junk token can be megabytes long.
pub(crate) fn token_text(raw: &[u8], utf8: bool) -> String {
    shorten(&text(raw, utf8), 40)
}

/// `text` cut to its first `max` characters, saying how long it was: a
/// junk token or line can be megabytes long.
pub fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}... ({} bytes)", &text[..cut], text.len()),
        None => text.to_owned(),
    }
}

/// A PGN (or a file name) can carry terminal escape sequences and bidi
/// controls; show them as `\u{1b}`, `\u{202e}`.
pub fn escape_controls(s: &str) -> String {
    if !has_shown_escaped(s) {
        return s.to_owned();
    }
    s.chars().map(|c| if is_shown_escaped(c) { c.escape_default().to_string() } else { c.to_string() }).collect()
}

/// Text written as [`escape_controls`] writes it, without a copy: an
/// input's name in each finding line.
#[derive(Debug, Clone, Copy)]
pub struct Shown<'a>(pub &'a str);

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !has_shown_escaped(self.0) {
            return f.write_str(self.0);
        }
        let mut rest = self.0;
        while let Some((at, c)) = rest.char_indices().find(|&(_, c)| is_shown_escaped(c)) {
            f.write_str(&rest[..at])?;
            write!(f, "{}", c.escape_default())?;
            rest = &rest[at + c.len_utf8()..];
        }
        f.write_str(rest)
    }
}

/// Whether `s` holds a character [`is_shown_escaped`]: only text that is
/// not printable ASCII is looked at a character at a time (each finding
/// line escapes its input's name and its message).
fn has_shown_escaped(s: &str) -> bool {
    s.bytes().any(|b| !(0x20..0x7f).contains(&b)) && s.chars().any(is_shown_escaped)
}

/// Whether a character is written escaped where text is shown: a control
/// character (C0, DEL, C1: a terminal acts on them) or a bidi control that
/// embeds, overrides or isolates (U+202A to U+202E, U+2066 to U+2069:
/// they reorder what follows them on the line, so that a name or a
/// message reads other than it is, the Trojan Source trick).
pub fn is_shown_escaped(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Columns `s` takes on a terminal: two for a CJK character, none for a
/// combining mark; text tables align names by it.
pub fn display_width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

/// `cell` padded with spaces to `width` display columns, on the right
/// (`left` aligned) or on the left.
pub fn pad(cell: &str, width: usize, left: bool) -> String {
    let spaces = " ".repeat(width.saturating_sub(display_width(cell)));
    if left { format!("{cell}{spaces}") } else { format!("{spaces}{cell}") }
}

#[cfg(test)]
mod tests {
    use super::{Shown, escape_controls};

    #[test]
    fn controls_and_bidi_controls_are_shown_escaped_and_other_text_as_it_is() {
        for text in
            ["plain", "R\u{e9}ti \u{5e9}\u{5dc}\u{5d5}\u{5dd}", "a\u{1b}[2Jb", "\u{202e}evil\u{2069}", "x\u{85}\u{7f}"]
        {
            assert_eq!(Shown(text).to_string(), escape_controls(text));
        }
        assert_eq!(escape_controls("a\u{1b}[2J\u{202e}b\u{2066}c"), "a\\u{1b}[2J\\u{202e}b\\u{2066}c");
        assert_eq!(escape_controls("1\u{2013}0 \u{200f}"), "1\u{2013}0 \u{200f}", "a dash and a mark are text");
    }
}
