//! The scan of a raw bzip2 input for its blocks: each block between two
//! magics rebuilt as a stream of its own ([`Segment`]), the ends of streams,
//! and what is not a stream or is cut short.

use std::{
    collections::VecDeque,
    io::{self, Read},
};

use crate::bits::{BLOCK_HEAD_BITS, BLOCK_MAGIC, Bits, END_MAGIC, MAGIC_BITS, Magic, find_magic, read_bits};

/// Raw bytes read at a time.
const READ: usize = 1 << 16;

/// The longest a block of `level` can be, in bits: a Huffman code is at
/// most 20 bits for each of the level's 100,000 bytes, and the tables
/// before them take less than the margin.
pub(crate) fn longest_block(level: u8) -> u64 {
    u64::from(level) * 100_000 * 20 + 1_000_000
}

/// The bytes between a block's magic and the next magic, as a stream of
/// their own.
#[derive(Debug)]
pub(crate) struct Segment {
    pub(crate) level: u8,
    /// `BZh`, the level, the bits, the end magic and `crc`.
    pub(crate) stream: Vec<u8>,
    /// The bits of the segment, from bit 32 of `stream`.
    pub(crate) bits: u64,
    /// The block's CRC, as the block gives it.
    pub(crate) crc: u32,
    /// The segment ends at a magic which may be one by chance: the next
    /// segment may be the rest of this block.
    pub(crate) then_block: bool,
    /// The segment starts at an end magic (with this CRC) that neither a
    /// stream nor the input's end follows, but these bytes: either they
    /// come after the stream, or the magic came up by chance inside the
    /// block before.
    pub(crate) after_end: Option<(u32, Vec<u8>)>,
}

impl Segment {
    pub(crate) fn new(level: u8, src: &[u8], from: u64, to: u64, then_block: bool) -> Segment {
        let crc = read_bits(src, from + MAGIC_BITS, 32) as u32;
        let mut bits = Bits::with_capacity(((to - from) / 8) as usize + 16);
        bits.extend(b"BZh", 0, 24);
        bits.push_byte(b'0' + level);
        bits.extend(src, from, to);
        finish(&mut bits, crc);
        Segment { level, stream: bits.bytes, bits: to - from, crc, then_block, after_end: None }
    }

    /// This segment and `next` as one.
    pub(crate) fn join(&self, next: &Segment) -> Segment {
        let mut bits = Bits::with_capacity(self.stream.len() + next.stream.len());
        bits.extend(&self.stream, 0, 32 + self.bits);
        bits.extend(&next.stream, 32, 32 + next.bits);
        finish(&mut bits, self.crc);
        Segment {
            level: self.level,
            stream: bits.bytes,
            bits: self.bits + next.bits,
            crc: self.crc,
            then_block: next.then_block,
            after_end: None,
        }
    }
}

/// Ends a stream of one block whose CRC is `crc`.
fn finish(bits: &mut Bits, crc: u32) {
    bits.push(END_MAGIC, 48);
    bits.push(u64::from(crc), 32);
}

/// What the scan finds, in order.
#[derive(Debug)]
pub(crate) enum Piece {
    /// A block (or, by chance, part of one).
    Block(Segment),
    /// The end of a stream, with the CRC it gives for all its blocks.
    End(u32),
    /// What is not a well-formed stream, as a stream for the crate's own
    /// decoder to say what is wrong, and the read error that cut it short,
    /// if one did. Nothing comes after it.
    Tail(Vec<u8>, Option<io::Error>),
    /// The bits of a stream from its last block's magic on, cut short by
    /// the input's end (or by the read error, if one did). Nothing comes
    /// after it.
    Cut(u8, Bits, Option<io::Error>),
}

/// Where the scan is.
#[derive(Debug, Clone, Copy)]
enum State {
    /// A stream's header is expected at this byte (or the input's end).
    Header(u64),
    /// In a block that starts at bit `start`; magics are looked for from
    /// bit `from`.
    Block {
        level: u8,
        start: u64,
        from: u64,
    },
    Done,
}

/// The scan of a raw bzip2 input, read as it is scanned.
pub(crate) struct Scanner {
    raw: Box<dyn Read + Send>,
    /// Raw bytes from byte `base` of the input on.
    buf: Vec<u8>,
    base: u64,
    ended: bool,
    error: Option<io::Error>,
    state: State,
    /// Pieces found with the last one, to be given before scanning on.
    queued: VecDeque<Piece>,
    /// What follows an end magic that neither a stream nor the input's end
    /// follows, for the segment that starts at it.
    after_end: Option<(u32, Vec<u8>)>,
}

impl Scanner {
    pub(crate) fn new(raw: Box<dyn Read + Send>) -> Scanner {
        Scanner {
            raw,
            buf: Vec::new(),
            base: 0,
            ended: false,
            error: None,
            state: State::Header(0),
            queued: VecDeque::new(),
            after_end: None,
        }
    }

    /// Reads more raw bytes, dropping those before byte `keep`. False at
    /// the input's end (or a read error, kept for the tail).
    fn more(&mut self, keep: u64) -> bool {
        if self.ended {
            return false;
        }
        let drop = (keep - self.base) as usize;
        self.buf.drain(..drop);
        self.base = keep;
        let len = self.buf.len();
        self.buf.resize(len + READ, 0);
        loop {
            match self.raw.read(&mut self.buf[len..]) {
                Ok(n) => {
                    self.buf.truncate(len + n);
                    self.ended = n == 0;
                    return n > 0;
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => {
                    self.buf.truncate(len);
                    self.error = Some(err);
                    self.ended = true;
                    return false;
                }
            }
        }
    }

    /// The raw bytes from byte `at` on.
    fn bytes_from(&self, at: u64) -> &[u8] {
        &self.buf[(at - self.base) as usize..]
    }

    fn tail(&mut self, bytes: Vec<u8>) -> Piece {
        self.state = State::Done;
        Piece::Tail(bytes, self.error.take())
    }

    /// The input ends (or cannot be read) inside the block at bit `start`.
    fn cut(&mut self, level: u8, start: u64) -> Piece {
        if let Some((crc, bytes)) = self.after_end.take() {
            // The block before ended the stream after all.
            let error = self.error.take();
            self.queued.push_back(Piece::Tail(bytes, error));
            self.state = State::Done;
            return Piece::End(crc);
        }
        let src = self.bytes_from(start / 8);
        let mut bits = Bits::with_capacity(src.len());
        bits.extend(src, start % 8, src.len() as u64 * 8);
        self.state = State::Done;
        Piece::Cut(level, bits, self.error.take())
    }

    pub(crate) fn next(&mut self) -> Option<Piece> {
        if let Some(piece) = self.queued.pop_front() {
            return Some(piece);
        }
        loop {
            match self.state {
                State::Done => return None,
                State::Header(at) => {
                    // The header and the first magic (byte-aligned after
                    // it), and an empty stream's CRC.
                    while self.bytes_from(at).len() < 14 && self.more(at) {}
                    let head = self.bytes_from(at);
                    // An input that is empty where its first stream
                    // should be is cut short; after a stream it is done.
                    if head.is_empty() && at > 0 {
                        self.state = State::Done;
                        return self.error.take().map(|err| Piece::Tail(Vec::new(), Some(err)));
                    }
                    let magic = (head.len() >= 10).then(|| read_bits(head, 32, 24) << 24 | read_bits(head, 56, 24));
                    let level = head.get(3).map_or(0, |digit| digit.wrapping_sub(b'0'));
                    let header = head.starts_with(b"BZh") && (1..=9).contains(&level);
                    if header && magic == Some(BLOCK_MAGIC) {
                        let start = (at + 4) * 8;
                        self.state = State::Block { level, start, from: start + BLOCK_HEAD_BITS };
                    } else if header && magic == Some(END_MAGIC) && head.len() >= 14 {
                        let crc = read_bits(head, 80, 32) as u32;
                        self.state = State::Header(at + 14);
                        return Some(Piece::End(crc));
                    } else {
                        // Not a stream, or one cut short: as much as the
                        // crate needs to say which.
                        let bytes = head[..head.len().min(14)].to_vec();
                        return Some(self.tail(bytes));
                    }
                }
                State::Block { level, start, from } => {
                    let first = start / 8;
                    let offset = first * 8;
                    let found = find_magic(self.bytes_from(first), from - offset);
                    match found {
                        Some((at, magic)) => {
                            let at = at + offset;
                            let src = self.bytes_from(first);
                            if magic == Magic::Block {
                                let mut segment = Segment::new(level, src, start - offset, at - offset, true);
                                segment.after_end = self.after_end.take();
                                self.state = State::Block { level, start: at, from: at + BLOCK_HEAD_BITS };
                                return Some(Piece::Block(segment));
                            }
                            // The stream's CRC follows its end magic.
                            if at + BLOCK_HEAD_BITS > (self.base + self.buf.len() as u64) * 8 {
                                if self.more(first) {
                                    continue;
                                }
                                return Some(self.cut(level, start));
                            }
                            // What follows: another stream, the input's end,
                            // or neither.
                            let next = (at + BLOCK_HEAD_BITS).div_ceil(8);
                            while self.base + (self.buf.len() as u64) < next + 10 && self.more(first) {}
                            let after = self.bytes_from(next);
                            let level_after = after.get(3).map_or(0, |digit| digit.wrapping_sub(b'0'));
                            let stream_after = after.len() >= 10
                                && after.starts_with(b"BZh")
                                && (1..=9).contains(&level_after)
                                && [BLOCK_MAGIC, END_MAGIC]
                                    .contains(&(read_bits(after, 32, 24) << 24 | read_bits(after, 56, 24)));
                            let excerpt =
                                (!after.is_empty() && !stream_after).then(|| after[..after.len().min(14)].to_vec());
                            let src = self.bytes_from(first);
                            let crc = read_bits(src, at - offset + MAGIC_BITS, 32) as u32;
                            let mut segment = Segment::new(level, src, start - offset, at - offset, excerpt.is_some());
                            segment.after_end = self.after_end.take();
                            if let Some(excerpt) = excerpt {
                                // Scanned on as if it came up by chance: the
                                // next segment starts at it, and says what
                                // follows if it did not.
                                self.after_end = Some((crc, excerpt));
                                self.state = State::Block { level, start: at, from: at + BLOCK_HEAD_BITS };
                            } else {
                                self.queued.push_back(Piece::End(crc));
                                self.state = State::Header(next);
                            }
                            return Some(Piece::Block(segment));
                        }
                        None => {
                            let end = (self.base + self.buf.len() as u64) * 8;
                            if end - start > longest_block(level) {
                                // No block is this long: damaged, or not
                                // bzip2 at all. It fails to decode.
                                let src = self.bytes_from(first);
                                let cut = start + longest_block(level);
                                let mut segment = Segment::new(level, src, start - offset, cut - offset, false);
                                segment.after_end = self.after_end.take();
                                self.state = State::Done;
                                return Some(Piece::Block(segment));
                            }
                            // Where the next scan starts: the first magic
                            // whose eight bytes were not all here.
                            let scanned = (self.base + self.buf.len().saturating_sub(7) as u64) * 8;
                            let from = from.max(scanned);
                            self.state = State::Block { level, start, from };
                            if !self.more(first) {
                                return Some(self.cut(level, start));
                            }
                        }
                    }
                }
            }
        }
    }
}
