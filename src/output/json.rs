//! JSON written by hand, byte for byte as serde_json writes it: the
//! per-game writers of `validate --format jsonl` and `convert --to jsonl`
//! write an object for every game, where serde's generic serializer (a key
//! escaped byte by byte, a buffer grown field by field) cost more than the
//! rest of the writing.

use crate::{
    notation::{digits, push_short},
    text::word::{holds, holds_below},
};

/// A number's decimal digits: those of a number under 10^8 (a ply, a
/// game's number and line) copied at a fixed size from a word, where a
/// copy of any size was a call to `memcpy`.
#[inline]
pub(crate) fn number(out: &mut Vec<u8>, n: u64) {
    let mut buffer = [0; 20];
    let len = digits(&mut buffer, n).len();
    if len > 8 {
        return out.extend_from_slice(&buffer[20 - len..]);
    }
    // The digits end the buffer: its last word, shifted down to them.
    let last = u64::from_le_bytes([
        buffer[12], buffer[13], buffer[14], buffer[15], buffer[16], buffer[17], buffer[18], buffer[19],
    ]);
    let digits = last >> ((8 * (8 - len)) & 63);
    push_short(&digits.to_le_bytes(), len, out);
}

pub(crate) fn optional_number(out: &mut Vec<u8>, n: Option<u32>) {
    match n {
        Some(n) => number(out, n.into()),
        None => out.extend_from_slice(b"null"),
    }
}

pub(crate) fn optional_string(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => string(out, s),
        None => out.extend_from_slice(b"null"),
    }
}

/// A string that holds nothing JSON escapes: pgnkit's own words (results,
/// codes, rule names). Half of a report's strings are these, and the test
/// for escapes cost more than copying them.
pub(crate) fn plain(out: &mut Vec<u8>, s: &str) {
    debug_assert!(!s.bytes().any(|b| NEEDS_ESCAPE[usize::from(b)]), "{s:?} needs escaping");
    out.push(b'"');
    out.extend_from_slice(s.as_bytes());
    out.push(b'"');
}

pub(crate) fn optional_plain(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => plain(out, s),
        None => out.extend_from_slice(b"null"),
    }
}

/// A JSON string, escaped as serde_json does: `"`, `\` and the control
/// characters below U+0020, nothing else.
pub(crate) fn string(out: &mut Vec<u8>, s: &str) {
    string_bytes(out, s.as_bytes());
}

/// [`string`] of text known to be UTF-8 given as bytes (a comment the
/// notes tape marks ASCII), without a check of it that [`str`] would cost.
pub(crate) fn string_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'"');
    // Names, FENs and messages almost never need escaping: copied whole.
    if !needs_escape(bytes) {
        out.extend_from_slice(bytes);
        out.push(b'"');
        return;
    }
    let mut done = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if !NEEDS_ESCAPE[usize::from(b)] {
            continue;
        }
        out.extend_from_slice(&bytes[done..i]);
        done = i + 1;
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\x08' => out.extend_from_slice(b"\\b"),
            b'\x0c' => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.extend_from_slice(&[HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
            }
        }
    }
    out.extend_from_slice(&bytes[done..]);
    out.push(b'"');
}

/// Whether any of `bytes` is one JSON escapes. Blocks of 32 bytes are
/// tested by a fold without an early exit, which the compiler turns into
/// vector code, so that many strings (a game's tags) are settled by one
/// test of them all; the rest, most of a short string, 8 bytes at a time
/// in a word (the last word overlapping the one before), where a byte at
/// a time cost 11 instructions a byte.
pub(crate) fn needs_escape(bytes: &[u8]) -> bool {
    let blocks = bytes.len() - bytes.len() % 32;
    let (body, tail) = bytes.split_at(blocks);
    let mut any = body.iter().fold(false, |any, &b| any | (b < 0x20) | (b == b'"') | (b == b'\\'));
    let word = |at: usize| u64::from_le_bytes(tail[at..at + 8].try_into().unwrap_or_default());
    let len = tail.len();
    let escapes = if len >= 8 {
        let mut escapes = escapes_in(word(len - 8));
        for at in (0..len - 8).step_by(8) {
            escapes |= escapes_in(word(at));
        }
        escapes
    } else if len >= 4 {
        // Two words of 4 bytes, overlapping where there are fewer than 8.
        let half = |at: usize| u64::from(u32::from_le_bytes(tail[at..at + 4].try_into().unwrap_or_default()));
        escapes_in(half(0) | half(len - 4) << 32)
    } else if len > 0 {
        // The first, middle and last of 3, 2 or 1 bytes (some twice), the
        // word filled out with a letter.
        let (first, middle, last) = (tail[0], tail[len / 2], tail[len - 1]);
        escapes_in(u64::from_le_bytes([first, middle, last, b'a', b'a', b'a', b'a', b'a']))
    } else {
        false
    };
    any |= escapes;
    any
}

/// Whether a byte of `word` is below U+0020, `"` or `\\`.
fn escapes_in(word: u64) -> bool {
    holds_below(word, 0x20) | holds(word, b'"') | holds(word, b'\\')
}

pub(crate) const NEEDS_ESCAPE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

#[cfg(test)]
mod tests {
    use crate::test_rng::Rng;

    /// Strings with everything JSON escapes and much it must not: every
    /// control character, quotes, backslashes, DEL, non-ASCII of two, three
    /// and four bytes (no lone surrogate: a `str` cannot hold one).
    #[test]
    fn strings_are_escaped_byte_for_byte_as_serde_json_escapes_them() {
        let controls: Vec<String> = (0u8..0x20).map(|b| char::from(b).to_string()).collect();
        let mut pieces: Vec<&str> = controls.iter().map(String::as_str).collect();
        pieces.extend([
            "a", "\"", "\\", "\\\"", "\u{7f}", "é", "½", "€", "\u{fffd}", "\u{ffff}", "💥", "/", " ", "\u{2028}",
        ]);
        let mut rng = Rng(0x0a11_5e5c_0de5_0001);
        let mut strings: Vec<String> = pieces.iter().map(|&p| p.to_owned()).collect();
        strings.push(String::new());
        strings.push(pieces.concat());
        for _ in 0..5000 {
            strings.push((0..rng.below(20)).map(|_| pieces[rng.below(pieces.len())]).collect());
        }
        for s in &strings {
            let mut got = Vec::new();
            super::string(&mut got, s);
            assert_eq!(String::from_utf8_lossy(&got), serde_json::to_string(s).expect("a string serializes"), "{s:?}");
            let mut bytes = Vec::new();
            super::string_bytes(&mut bytes, s.as_bytes());
            assert_eq!(bytes, got, "{s:?}");
        }
    }

    /// Numbers of every length, 0 and the largest: their decimal text.
    #[test]
    fn numbers_are_their_decimal_text() {
        let mut n: u64 = 1;
        let mut cases = vec![0, 9, 10, 99, 100, u64::MAX, u64::MAX - 1];
        while let Some(next) = n.checked_mul(10) {
            cases.extend([n - 1, n, n + 1, next - 1]);
            n = next;
        }
        for n in cases {
            let mut out = b"x".to_vec();
            super::number(&mut out, n);
            assert_eq!(String::from_utf8_lossy(&out), format!("x{n}"));
        }
    }

    /// Every byte JSON escapes, and every other, is told at every place of
    /// strings of every length up to past two of the vector code's blocks
    /// (as the tail after them, and alone).
    #[test]
    fn a_byte_to_escape_is_found_wherever_it_is() {
        for len in 1..80 {
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = b;
                    let special = b < 0x20 || b == b'"' || b == b'\\';
                    assert_eq!(super::needs_escape(&bytes), special, "{b:#x} at {at} of {len}");
                }
            }
        }
        assert!(!super::needs_escape(b""));
        assert!(!super::needs_escape("é½€\u{2028}💥 /\u{7f}".as_bytes()));
    }
}
