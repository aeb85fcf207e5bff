//! The decompressed bytes as text: UTF-16 with a byte order mark decoded to
//! UTF-8 as it is read, and a stream that is not text at all (an image, an
//! executable, an archive, NUL bytes) refused before anything reads it.
//!
//! Everything after this layer is UTF-8 or a single-byte encoding (games
//! that are not UTF-8 are decoded as Windows-1252 game by game later on, by
//! [`crate::text`]), so only the first bytes are looked at: a text file
//! does not turn binary half-way, and a binary one shows it at once.

use std::io::{self, Read};

use super::ahead::STEP;

/// Bytes looked at to tell text from binary: the first 4 KiB, or all of a
/// shorter stream.
pub const PROBE: usize = 4096;

/// A binary file's first bytes, with what they are. Only formats whose
/// magic no PGN can start with: a PGN begins with a tag, a move number, a
/// comment or `%`, never with these bytes.
const MAGIC: &[(&[u8], &str)] = &[
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a zip archive"),
    (b"PK\x05\x06", "a zip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7z archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"\x7fELF", "an executable (ELF)"),
    (b"\xcf\xfa\xed\xfe", "an executable (Mach-O)"),
    (b"\xce\xfa\xed\xfe", "an executable (Mach-O)"),
];

/// A byte that text does not hold: the C0 controls and DEL, less tab, line
/// feed, vertical tab, form feed and carriage return, and two that real
/// files carry: SUB (the Ctrl-Z that ends old DOS files) and ESC (terminal
/// colours pasted into comments). Bytes from 0x80 up are never counted: a
/// Latin-1 or Windows-1252 PGN is text.
fn is_control(byte: u8) -> bool {
    matches!(byte, 0x00..=0x08 | 0x0e..=0x19 | 0x1c..=0x1f | 0x7f)
}

/// Control bytes in the first [`PROBE`] bytes that make a stream binary:
/// more than one in 32. Counted against a whole probe even when the stream
/// is shorter, so that a small file with a few stray NULs (which the
/// checks report as findings) is still read.
const MAX_CONTROL: usize = PROBE / 32;

/// Why `head`, the first bytes of a stream, is not text, if it is not: a
/// known magic number, or more than 128 control bytes (one in 32) in the
/// first [`PROBE`]. Random or compressed data has one byte in nine a
/// control byte, an executable or UTF-16 far more; no file of the test
/// corpus has a single one.
pub fn not_text(head: &[u8]) -> Option<String> {
    if let Some((_, what)) = MAGIC.iter().find(|(magic, _)| head.starts_with(magic)) {
        return Some((*what).to_owned());
    }
    let probe = &head[..head.len().min(PROBE)];
    let control = probe.iter().filter(|&&byte| is_control(byte)).count();
    if control <= MAX_CONTROL {
        return None;
    }
    if let Some(order) = utf16_without_bom(probe) {
        return Some(format!("UTF-16 ({order}) without a byte order mark; save it as UTF-8, or as UTF-16 with one"));
    }
    if head.starts_with(b"MZ") {
        return Some("an executable (Windows)".to_owned());
    }
    Some(format!("{control} of its first {} bytes are NUL or other control bytes", probe.len()))
}

/// ASCII text in UTF-16 has a NUL in every other byte: the high half of
/// each unit, first in big-endian, second in little-endian.
fn utf16_without_bom(probe: &[u8]) -> Option<&'static str> {
    let units = probe.len() / 2;
    let nul_at = |parity: usize| probe.chunks_exact(2).filter(|unit| unit[parity] == 0).count();
    let (first, second) = (nul_at(0), nul_at(1));
    let mostly = |n: usize| units >= 2 && n * 4 >= units * 3;
    let rarely = |n: usize| n * 16 < units;
    if mostly(second) && rarely(first) {
        Some("little-endian")
    } else if mostly(first) && rarely(second) {
        Some("big-endian")
    } else {
        None
    }
}

/// The byte order of UTF-16.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteOrder {
    /// `FF FE` first.
    Little,
    /// `FE FF` first.
    Big,
}

impl ByteOrder {
    /// The byte order a byte order mark at the start of `head` gives.
    pub fn from_bom(head: &[u8]) -> Option<ByteOrder> {
        match head {
            [0xff, 0xfe, ..] => Some(ByteOrder::Little),
            [0xfe, 0xff, ..] => Some(ByteOrder::Big),
            _ => None,
        }
    }
}

/// Puts the text layer on a decompressed stream: UTF-16 with a BOM is
/// decoded to UTF-8, and a stream that is not text is an
/// [`io::ErrorKind::InvalidData`] error, `not a text file: WHY`.
///
/// A read error within the first bytes is not returned here: the reader
/// gives the bytes before it, then the error, as the stream would have.
pub fn text(stream: Box<dyn Read + Send>) -> io::Result<Box<dyn Read + Send>> {
    let mut probed = Probed::new(stream);
    if let Some(order) = ByteOrder::from_bom(&probed.head) {
        probed.pos = 2;
        probed = Probed::new(Box::new(Utf16::new(probed, order)));
    }
    match not_text(&probed.head) {
        Some(why) => Err(io::Error::new(io::ErrorKind::InvalidData, format!("not a text file: {why}"))),
        None => Ok(Box::new(probed)),
    }
}

/// A stream whose first bytes were read ahead to be looked at: it gives
/// them again, then the rest.
struct Probed {
    head: Vec<u8>,
    /// Bytes of `head` already given.
    pos: usize,
    /// The error that stopped the probe, given after `head`.
    error: Option<io::Error>,
    /// The probe met the end of the stream: it is not read again. A
    /// terminal gives an end (Ctrl-D) once and then waits for more, which
    /// would ask the user for a second Ctrl-D.
    ended: bool,
    rest: Box<dyn Read + Send>,
}

impl Probed {
    /// Reads at least [`PROBE`] bytes unless the stream ends or fails
    /// first. Each read asks for [`STEP`] bytes, as the decompressing
    /// thread does: a decompressor drops the output of the call that fails,
    /// so the same requests give the same bytes before an error.
    fn new(mut rest: Box<dyn Read + Send>) -> Probed {
        let mut head = Vec::new();
        let mut error = None;
        let mut ended = false;
        // Read into a buffer zeroed once (calloc: fresh memory is not
        // written at all), not into `head` grown by a step at each read: a
        // short stream would have two steps zeroed for a few bytes read.
        let mut step = vec![0; STEP];
        while head.len() < PROBE {
            let read = rest.read(&mut step);
            head.extend_from_slice(&step[..*read.as_ref().unwrap_or(&0)]);
            match read {
                Ok(0) => {
                    ended = true;
                    break;
                }
                Ok(_) => {}
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => {
                    error = Some(err);
                    break;
                }
            }
        }
        Probed { head, pos: 0, error, ended, rest }
    }
}

impl Read for Probed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos < self.head.len() {
            let n = buf.len().min(self.head.len() - self.pos);
            buf[..n].copy_from_slice(&self.head[self.pos..self.pos + n]);
            self.pos += n;
            if self.pos == self.head.len() {
                self.head = Vec::new();
                self.pos = 0;
            }
            return Ok(n);
        }
        if let Some(err) = self.error.take() {
            return Err(err);
        }
        if self.ended {
            return Ok(0);
        }
        self.rest.read(buf)
    }
}

/// UTF-16 decoded to UTF-8 as it is read, a step at a time, so memory stays
/// at two buffers whatever the stream holds. A unit that is not a character
/// (a lone surrogate, a last odd byte) becomes U+FFFD.
struct Utf16<R> {
    inner: R,
    order: ByteOrder,
    /// Bytes read and not yet decoded: an odd one left from the last read.
    input: Vec<u8>,
    /// The high half of a surrogate pair whose low half is still to come.
    high: Option<u16>,
    out: Vec<u8>,
    /// Bytes of `out` already given.
    pos: usize,
    ended: bool,
}

impl<R: Read> Utf16<R> {
    fn new(inner: R, order: ByteOrder) -> Utf16<R> {
        Utf16 { inner, order, input: Vec::new(), high: None, out: Vec::new(), pos: 0, ended: false }
    }

    fn push(&mut self, c: char) {
        let mut utf8 = [0; 4];
        self.out.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
    }

    fn unit(&mut self, unit: u16) {
        match (self.high.take(), unit) {
            (Some(high), 0xdc00..=0xdfff) => {
                let code = 0x10000 + ((u32::from(high) - 0xd800) << 10) + (u32::from(unit) - 0xdc00);
                self.push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
            (Some(_), _) => {
                self.push(char::REPLACEMENT_CHARACTER);
                self.unit(unit);
            }
            (None, 0xd800..=0xdbff) => self.high = Some(unit),
            (None, _) => self.push(char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER)),
        }
    }

    /// Decodes the next step of the stream into `out`; at its end, what is
    /// left over.
    fn decode_more(&mut self) -> io::Result<()> {
        self.out.clear();
        self.pos = 0;
        let kept = self.input.len();
        self.input.resize(kept + STEP, 0);
        let read = self.inner.read(&mut self.input[kept..]);
        self.input.truncate(kept + *read.as_ref().unwrap_or(&0));
        if read? == 0 {
            self.ended = true;
            if self.high.take().is_some() || !self.input.is_empty() {
                self.push(char::REPLACEMENT_CHARACTER);
            }
            return Ok(());
        }
        let input = std::mem::take(&mut self.input);
        let mut units = input.chunks_exact(2);
        for pair in units.by_ref() {
            let bytes = [pair[0], pair[1]];
            self.unit(match self.order {
                ByteOrder::Little => u16::from_le_bytes(bytes),
                ByteOrder::Big => u16::from_be_bytes(bytes),
            });
        }
        let odd = units.remainder().to_vec();
        self.input = input;
        self.input.clear();
        self.input.extend_from_slice(&odd);
        Ok(())
    }
}

impl<R: Read> Read for Utf16<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.out.len() {
            if self.ended {
                return Ok(0);
            }
            self.decode_more()?;
        }
        let n = buf.len().min(self.out.len() - self.pos);
        buf[..n].copy_from_slice(&self.out[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use std::io::{self, Read};

    use super::{ByteOrder, PROBE, Utf16, not_text, text};

    fn utf16(text: &str, order: ByteOrder) -> Vec<u8> {
        let mut out = match order {
            ByteOrder::Little => vec![0xff, 0xfe],
            ByteOrder::Big => vec![0xfe, 0xff],
        };
        for unit in text.encode_utf16() {
            out.extend_from_slice(&match order {
                ByteOrder::Little => unit.to_le_bytes(),
                ByteOrder::Big => unit.to_be_bytes(),
            });
        }
        out
    }

    fn read_text(bytes: Vec<u8>) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        text(Box::new(io::Cursor::new(bytes)))?.read_to_end(&mut out)?;
        Ok(out)
    }

    /// A reader that gives one byte a call, to cut every unit and pair.
    struct ByteAtATime(io::Cursor<Vec<u8>>);

    impl Read for ByteAtATime {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let len = buf.len().min(1);
            self.0.read(&mut buf[..len])
        }
    }

    #[test]
    fn utf16_with_a_bom_reads_as_the_same_text_in_utf8_in_both_byte_orders() {
        // Big enough for many steps, with characters of one, two, three and four UTF-8 bytes.
        let games: String = (0..20_000).map(|i| format!("[White \"R\u{e9}ti {i} \u{265e} \u{1d11e}\"]\n")).collect();
        for order in [ByteOrder::Little, ByteOrder::Big] {
            assert_eq!(String::from_utf8(read_text(utf16(&games, order)).unwrap()).unwrap(), games, "{order:?}");
        }
    }

    #[test]
    fn utf16_cut_anywhere_by_the_reads_still_decodes_whole_characters() {
        let text = "a\u{e9}\u{1d11e}\u{265e}z";
        let mut out = String::new();
        let bytes = utf16(text, ByteOrder::Big)[2..].to_vec();
        Utf16::new(ByteAtATime(io::Cursor::new(bytes)), ByteOrder::Big).read_to_string(&mut out).unwrap();
        assert_eq!(out, text);
    }

    #[test]
    fn a_lone_surrogate_and_an_odd_last_byte_become_replacement_characters() {
        // A high surrogate followed by `a`, a low one alone, then half a unit.
        let bytes = vec![0x00, 0xd8, b'a', 0, 0x00, 0xdc, b'b', 0, b'c'];
        let mut out = String::new();
        Utf16::new(io::Cursor::new(bytes), ByteOrder::Little).read_to_string(&mut out).unwrap();
        assert_eq!(out, "\u{fffd}a\u{fffd}b\u{fffd}");
    }

    #[test]
    fn text_passes_through_unchanged_with_its_utf8_bom_and_latin1_bytes() {
        for bytes in
            [&b""[..], b"\xef\xbb\xbf[Event \"x\"]\n", b"[White \"R\xe9ti\"]\r\n", b"1. e4 *\x1a", b"{\x1b[31m}"]
        {
            assert_eq!(read_text(bytes.to_vec()).unwrap(), bytes);
        }
    }

    #[test]
    fn binary_files_are_refused_with_what_they_look_like() {
        let refused = |bytes: &[u8]| not_text(bytes).unwrap_or_default();
        assert_eq!(refused(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), "a PNG image");
        assert_eq!(refused(b"\xff\xd8\xff\xe0\0\x10JFIF"), "a JPEG image");
        assert_eq!(refused(b"PK\x05\x06\0\0\0\0"), "a zip archive");
        assert_eq!(refused(b"\x7fELF\x02\x01\x01"), "an executable (ELF)");
        assert_eq!(refused(&[b"MZ\x90\0\x03\0\0\0".as_slice(), &[0; 504]].concat()), "an executable (Windows)");
        assert_eq!(refused(&[0; 10_000]), "4096 of its first 4096 bytes are NUL or other control bytes");
        let ascii = b"[Event \"x\"]\n".repeat(40);
        let le: Vec<u8> = ascii.iter().flat_map(|&b| [b, 0]).collect();
        let be: Vec<u8> = ascii.iter().flat_map(|&b| [0, b]).collect();
        assert!(refused(&le).starts_with("UTF-16 (little-endian) without a byte order mark"), "{}", refused(&le));
        assert!(refused(&be).starts_with("UTF-16 (big-endian) without a byte order mark"), "{}", refused(&be));
    }

    #[test]
    fn a_few_control_bytes_in_a_text_file_do_not_make_it_binary() {
        assert_eq!(not_text(b"[Event \"a\0b\"]\n\n1. e4 {c\0} e5 2. Nf3\0 *\n"), None);
        assert_eq!(not_text(&[0; 128]), None);
        let mut game = b"[Event \"x\"]\n\n1. e4 e5 *\n\n".repeat(200);
        for i in 0..(PROBE / 32) {
            game[i * 32] = 0;
        }
        assert_eq!(not_text(&game), None);
        game[1] = 1;
        assert!(not_text(&game).is_some());
    }

    #[test]
    fn an_error_in_the_first_bytes_comes_after_the_bytes_before_it() {
        let failing = io::Cursor::new(b"[Event".to_vec()).chain(Failing);
        let mut reader = text(Box::new(failing)).unwrap();
        let mut buf = [0; 100];
        assert_eq!(reader.read(&mut buf).unwrap(), 6);
        assert_eq!(reader.read(&mut buf).unwrap_err().to_string(), "planted");
    }

    struct Failing;

    impl Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::other("planted"))
        }
    }
}
