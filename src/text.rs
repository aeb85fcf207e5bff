//! Game bytes as text: UTF-8 when the game is, else Windows-1252 (what
//! "Latin-1" PGN is in practice); and long text cut short for a finding or
//! a terminal.

use std::borrow::Cow;

/// Bytes that are not UTF-8 as text: Windows-1252, as the WHATWG Encoding
/// Standard decodes the `latin1` and `iso-8859-1` labels (and browsers
/// read such pages). It is Latin-1 but for 0x80 to 0x9F, which Latin-1
/// leaves to C1 control characters and Windows editors fill with curly
/// quotes, dashes, `€`, `Š`, `Ž`, `Œ`; the five bytes Windows-1252 leaves
/// undefined are their C1 controls, as in Latin-1. Every byte is one
/// character, so columns still count bytes. The one decoder of every
/// reader of game text, so that each sees the same letters.
pub(crate) fn single_byte(bytes: &[u8]) -> Cow<'_, str> {
    encoding_rs::WINDOWS_1252.decode_without_bom_handling(bytes).0
}

/// Text that is UTF-8 when it is, else Windows-1252 (`single_byte`): a line or a file
/// read on its own, not as part of a game.
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => single_byte(bytes),
    }
}

/// Text of a tag or token: UTF-8 when the game is, else [`single_byte`].
pub(crate) fn text(bytes: &[u8], utf8: bool) -> String {
    if !utf8 {
        return single_byte(bytes).into_owned();
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
    // A fold with no early exit, which the compiler makes vector code:
    // nearly every text is printable ASCII, and `any` went a byte at a
    // time (a third of the cost of a `fix` repair line).
    s.bytes().fold(false, |any, b| any | !(0x20..0x7f).contains(&b)) && s.chars().any(is_shown_escaped)
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

/// Tests of 8 bytes at once, in a word (`u64::from_le_bytes`), for a
/// writer's scan of text for the bytes it must quote or escape: each
/// exact for whether some byte of the word is so, by a borrow into that
/// byte's top bit (not for which byte is).
pub(crate) mod word {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);

    /// Whether some byte of `word` is `byte`: the classic zero-byte test on
    /// the word xor that byte in every lane.
    #[inline]
    pub(crate) fn holds(word: u64, byte: u8) -> bool {
        holds_below(word ^ (ONES * u64::from(byte)), 1)
    }

    /// Whether some byte of `word` is below `n` (at most 128).
    #[inline]
    pub(crate) fn holds_below(word: u64, n: u8) -> bool {
        debug_assert!(n <= 128);
        word.wrapping_sub(ONES * u64::from(n)) & !word & HIGHS != 0
    }
}

#[cfg(test)]
mod tests {
    use super::{Shown, decode, escape_controls, single_byte, text};

    /// Bytes 0x80 to 0x9F in windows-1252, from the WHATWG Encoding
    /// Standard's index (index-windows-1252.txt, pointers 0 to 31); the five
    /// bytes it leaves out decode to their C1 control, as the standard's
    /// single-byte decoder gives.
    const WINDOWS_1252_HIGH: [u32; 32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, // 0x80
        0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F, // 0x88
        0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, // 0x90
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178, // 0x98
    ];

    #[test]
    fn bytes_0x80_to_0x9f_decode_as_the_whatwg_windows_1252_index_says() {
        for (byte, &code) in (0x80..=0x9f_u8).zip(&WINDOWS_1252_HIGH) {
            let want = char::from_u32(code).unwrap().to_string();
            assert_eq!(single_byte(&[byte]), want, "byte {byte:#04x}");
            assert_eq!(text(&[byte], false), want, "byte {byte:#04x} in a game that is not UTF-8");
        }
    }

    #[test]
    fn other_bytes_decode_as_latin1_one_character_each() {
        let bytes: Vec<u8> = (0x00..=0x7f_u8).chain(0xa0..=0xff).collect();
        let want: String = bytes.iter().map(|&b| char::from(b)).collect();
        assert_eq!(single_byte(&bytes), want);
        assert_eq!(single_byte(b"\x93Ko\x9aice\x94 \x80100"), "\u{201c}Ko\u{161}ice\u{201d} \u{20ac}100");
    }

    #[test]
    fn utf8_stays_utf8_and_only_other_bytes_are_windows_1252() {
        assert_eq!(decode("Ko\u{161}ice \u{20ac}".as_bytes()), "Ko\u{161}ice \u{20ac}");
        assert_eq!(decode(b"Ko\x9aice \x80"), "Ko\u{161}ice \u{20ac}");
        assert_eq!(text("R\u{e9}ti".as_bytes(), true), "R\u{e9}ti");
    }

    #[test]
    fn controls_and_bidi_controls_are_shown_escaped_and_other_text_as_it_is() {
        for text in
            ["plain", "R\u{e9}ti \u{5e9}\u{5dc}\u{5d5}\u{5dd}", "a\u{1b}[2Jb", "\u{202e}evil\u{2069}", "x\u{85}\u{7f}"]
        {
            assert_eq!(Shown(text).to_string(), escape_controls(text));
        }
        assert_eq!(escape_controls("a\u{1b}[2J\u{202e}b\u{2066}c"), "a\\u{1b}[2J\\u{202e}b\\u{2066}c");
        assert_eq!(escape_controls("1\u{2013}0 \u{200f}"), "1\u{2013}0 \u{200f}", "a dash and a mark are text");
        // A control at any place of a long text, which is looked at many
        // bytes at a time.
        for len in 1..80 {
            for at in 0..len {
                let mut text = "x".repeat(len);
                text.replace_range(at..=at, "\u{7}");
                assert_eq!(escape_controls(&text), text.replace('\u{7}', "\\u{7}"));
            }
        }
    }

    /// Every byte at every place of a word, among bytes of every value
    /// around it (a borrow from a lower byte must not make a byte seem so).
    #[test]
    fn a_word_holds_a_byte_or_one_below_a_bound_exactly_when_one_of_its_bytes_is() {
        use super::word::{holds, holds_below};
        let mut rng = crate::test_rng::Rng(0x5a12_0000_0000_0008);
        for _ in 0..20_000 {
            let bytes = rng.next().to_le_bytes().map(|b| if rng.below(3) == 0 { b % 0x30 } else { b });
            let word = u64::from_le_bytes(bytes);
            for target in [0, 1, b'\n', b'\r', b'"', b',', b'\\', 0x7f, 0x80, 0xff, bytes[rng.below(8)]] {
                assert_eq!(holds(word, target), bytes.contains(&target), "{bytes:?} {target}");
            }
            for n in [1, 0x20, 0x30, 0x80] {
                assert_eq!(holds_below(word, n), bytes.iter().any(|&b| b < n), "{bytes:?} {n}");
            }
        }
    }
}
