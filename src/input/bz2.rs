//! bzip2 decoded block by block, the blocks on several threads when asked.
//!
//! A bzip2 stream is `BZh` and a level digit, then blocks, each starting
//! with a 48-bit magic and its CRC, then an end magic and the stream's CRC,
//! all packed bit after bit: nothing but a scan for the magics tells where
//! a block ends. So the raw bytes are scanned for the magics at every bit
//! offset as they come, and each block between two of them is rebuilt as a
//! stream of its own (the header, the block shifted to a byte boundary, an
//! end magic and, as the stream's CRC of one block is that block's, the
//! block's CRC), which the `bzip2` crate decodes, anywhere. The stream's
//! own CRC is checked from its blocks' as the crate checks it.
//!
//! A magic's 48 bits can come up by chance inside a block: a piece that
//! does not decode is joined to the next one and tried again, up to the
//! longest block a level can write, before it counts as damaged. So is one
//! that ends at an end magic which neither another stream nor the input's
//! end follows: only if the block before it decodes does the stream end
//! there. Bytes after a stream's end that do not start another are handed
//! to the crate's own sequential decoder, which says what is wrong as it
//! always did; a stream cut short gives its last block if that is whole, as
//! the sequential decoder does, then the same error.
//!
//! Whatever the threads, the bytes come in the same pieces, so a damaged
//! stream gives the same bytes (every block before the damaged one) and
//! the same error with one thread as with eight, read in any steps.

use std::{
    collections::{BTreeMap, VecDeque},
    io::{self, Read},
    panic::{self, AssertUnwindSafe},
    sync::{Arc, Mutex, PoisonError, mpsc},
    thread::{self, JoinHandle},
};

/// The magic that starts a block: the digits of pi.
const BLOCK_MAGIC: u64 = 0x3141_5926_5359;
/// The magic that ends a stream: the digits of the square root of pi.
const END_MAGIC: u64 = 0x1772_4538_5090;
const MAGIC_BITS: u64 = 48;
/// A block's magic and CRC: no other magic can start inside them.
const BLOCK_HEAD_BITS: u64 = MAGIC_BITS + 32;

/// For each byte value, the bit offsets `s` (as bits of a mask) at which a
/// magic starting `s` bits into the byte before has this byte as its second
/// byte: every byte but one of a magic is checked only where this matches.
const SECOND_BYTE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut shift = 0;
    while shift < 8 {
        table[((BLOCK_MAGIC >> (32 + shift)) & 0xff) as usize] |= 1 << shift;
        table[((END_MAGIC >> (32 + shift)) & 0xff) as usize] |= 1 << shift;
        shift += 1;
    }
    table
};

/// Raw bytes read at a time.
const READ: usize = 1 << 16;

/// Decompressed bytes decoded at once: any block of text fits, so a block
/// is checked against its CRC before a byte of it is given. A block of a
/// long run of one byte (a bomb) decodes to up to 45 MB: it comes in pieces
/// of this size, so memory does not grow with it.
const PIECE: usize = 2 << 20;

/// The longest a block of `level` can be, in bits: a Huffman code is at
/// most 20 bits for each of the level's 100,000 bytes, and the tables
/// before them take less than the margin.
fn longest_block(level: u8) -> u64 {
    u64::from(level) * 100_000 * 20 + 1_000_000
}

/// The crate's error for damaged data, as its readers give it.
fn invalid_data() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, bzip2::Error::Data)
}

/// A string of bits, first bit in the high bit of the first byte.
#[derive(Debug, Default, Clone)]
struct Bits {
    bytes: Vec<u8>,
    len: u64,
}

impl Bits {
    fn with_capacity(bytes: usize) -> Bits {
        Bits { bytes: Vec::with_capacity(bytes), len: 0 }
    }

    fn push_byte(&mut self, byte: u8) {
        let used = (self.len % 8) as u32;
        if used == 0 {
            self.bytes.push(byte);
        } else {
            *self.bytes.last_mut().expect("a partial byte") |= byte >> used;
            self.bytes.push(byte << (8 - used));
        }
        self.len += 8;
    }

    /// The low `n` bits of `value`, high bit first.
    fn push(&mut self, value: u64, n: u32) {
        let mut n = n;
        while n > 0 {
            let used = (self.len % 8) as u32;
            if used == 0 {
                self.bytes.push(0);
            }
            let take = n.min(8 - used);
            let bits = ((value >> (n - take)) & ((1 << take) - 1)) as u8;
            *self.bytes.last_mut().expect("a byte was pushed") |= bits << (8 - used - take);
            self.len += u64::from(take);
            n -= take;
        }
    }

    /// Bits `from..to` of `src`.
    fn extend(&mut self, src: &[u8], from: u64, to: u64) {
        let mut at = from;
        if self.len.is_multiple_of(8) && at.is_multiple_of(8) {
            let whole = (to - at) / 8;
            self.bytes.extend_from_slice(&src[(at / 8) as usize..(at / 8 + whole) as usize]);
            self.len += whole * 8;
            at += whole * 8;
        }
        while to - at >= 8 {
            let i = (at / 8) as usize;
            let shift = at % 8;
            let byte = if shift == 0 { src[i] } else { (src[i] << shift) | (src[i + 1] >> (8 - shift)) };
            self.push_byte(byte);
            at += 8;
        }
        if at < to {
            let n = (to - at) as u32;
            self.push(read_bits(src, at, n), n);
        }
    }
}

/// `n` bits (at most 32) of `src` from bit `at`.
fn read_bits(src: &[u8], at: u64, n: u32) -> u64 {
    let mut value = 0u64;
    let mut got = 0;
    let mut pos = at;
    while got < n {
        let byte = src[(pos / 8) as usize];
        let shift = (pos % 8) as u32;
        let take = (n - got).min(8 - shift);
        let bits = (u64::from(byte) >> (8 - shift - take)) & ((1 << take) - 1);
        value = (value << take) | bits;
        got += take;
        pos += u64::from(take);
    }
    value
}

/// Which magic was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Magic {
    Block,
    End,
}

/// The first magic in `src` starting at a bit from `from` on, among those
/// whose eight bytes from the magic's first byte are all in `src`.
fn find_magic(src: &[u8], from: u64) -> Option<(u64, Magic)> {
    if src.len() < 8 {
        return None;
    }
    let first = (from / 8) as usize;
    for i in first..=src.len() - 8 {
        let shifts = SECOND_BYTE[src[i + 1] as usize];
        if shifts == 0 {
            continue;
        }
        let window = u64::from_be_bytes(src[i..i + 8].try_into().expect("eight bytes"));
        for shift in 0..8u64 {
            if shifts & (1 << shift) == 0 {
                continue;
            }
            let at = i as u64 * 8 + shift;
            if at < from {
                continue;
            }
            let value = (window >> (16 - shift)) & ((1 << MAGIC_BITS) - 1);
            if value == BLOCK_MAGIC {
                return Some((at, Magic::Block));
            }
            if value == END_MAGIC {
                return Some((at, Magic::End));
            }
        }
    }
    None
}

/// The bytes between a block's magic and the next magic, as a stream of
/// their own.
#[derive(Debug)]
struct Segment {
    level: u8,
    /// `BZh`, the level, the bits, the end magic and `crc`.
    stream: Vec<u8>,
    /// The bits of the segment, from bit 32 of `stream`.
    bits: u64,
    /// The block's CRC, as the block gives it.
    crc: u32,
    /// The segment ends at a magic which may be one by chance: the next
    /// segment may be the rest of this block.
    then_block: bool,
    /// The segment starts at an end magic (with this CRC) that neither a
    /// stream nor the input's end follows, but these bytes: either they
    /// come after the stream, or the magic came up by chance inside the
    /// block before.
    after_end: Option<(u32, Vec<u8>)>,
}

impl Segment {
    fn new(level: u8, src: &[u8], from: u64, to: u64, then_block: bool) -> Segment {
        let crc = read_bits(src, from + MAGIC_BITS, 32) as u32;
        let mut bits = Bits::with_capacity(((to - from) / 8) as usize + 16);
        bits.extend(b"BZh", 0, 24);
        bits.push_byte(b'0' + level);
        bits.extend(src, from, to);
        finish(&mut bits, crc);
        Segment { level, stream: bits.bytes, bits: to - from, crc, then_block, after_end: None }
    }

    /// This segment and `next` as one.
    fn join(&self, next: &Segment) -> Segment {
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
enum Piece {
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
struct Scanner {
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
    fn new(raw: Box<dyn Read + Send>) -> Scanner {
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

    fn next(&mut self) -> Option<Piece> {
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

/// A block being decoded, piece by piece.
struct Block {
    decompress: bzip2::Decompress,
    stream: Vec<u8>,
    consumed: usize,
}

impl Block {
    fn new(segment: &Segment) -> Block {
        Block { decompress: bzip2::Decompress::new(false), stream: segment.stream.clone(), consumed: 0 }
    }

    /// The next piece of the block, of at most [`PIECE`] bytes, and whether
    /// the block ends with it.
    fn piece(&mut self) -> io::Result<(Vec<u8>, bool)> {
        let mut out = Vec::with_capacity(PIECE.min(1 << 20));
        loop {
            if out.len() == out.capacity() {
                if out.len() >= PIECE {
                    return Ok((out, false));
                }
                out.reserve((PIECE - out.len()).min(out.len()));
            }
            let before = (self.decompress.total_in(), out.len());
            let input = &self.stream[self.consumed..];
            let status = self.decompress.decompress_vec(input, &mut out);
            let status = status.map_err(|err| io::Error::new(io::ErrorKind::InvalidInput, err))?;
            self.consumed += (self.decompress.total_in() - before.0) as usize;
            if status == bzip2::Status::StreamEnd {
                return Ok((out, true));
            }
            if self.consumed == self.stream.len() && out.len() == before.1 && out.len() < out.capacity() {
                // The block goes on past its end: the bits are not one
                // block. In the whole stream the decoder would read on
                // into what follows, and find it damaged there.
                return Err(invalid_data());
            }
        }
    }
}

/// The next piece of a block, or the panic that decoding it raised.
type Streamed = thread::Result<io::Result<(Vec<u8>, bool)>>;

/// The rest of a block longer than a piece.
enum More {
    /// To be decoded where it is read.
    Here(Block),
    /// Decoded on a thread of the pool, a piece ahead.
    There(mpsc::Receiver<Streamed>),
}

/// A piece decoded: what the reader takes, in order.
enum Decoded {
    /// A segment and its first piece, with the rest of the block when it
    /// does not end with it; or why it does not decode.
    Block(Segment, io::Result<(Vec<u8>, Option<More>)>),
    End(u32),
    Tail(Vec<u8>, Option<io::Error>),
    /// A stream cut short: its last block if it is whole, then the error.
    Cut(Option<(Segment, Vec<u8>, Option<More>)>, io::Error),
}

/// Takes the rest of a block out of `decoded` to be decoded on this thread,
/// leaving the end of a channel that its pieces go through instead.
fn stream_rest(decoded: &mut Decoded) -> Option<(Block, mpsc::SyncSender<Streamed>)> {
    let more = match decoded {
        Decoded::Block(_, Ok((_, more))) | Decoded::Cut(Some((_, _, more)), _) => more,
        _ => return None,
    };
    match more.take() {
        Some(More::Here(block)) => {
            // One piece waits, so that the thread decodes the next while
            // the reader reads the last, and no more.
            let (pieces, receiver) = mpsc::sync_channel(1);
            *more = Some(More::There(receiver));
            Some((block, pieces))
        }
        other => {
            *more = other;
            None
        }
    }
}

fn decode_segment(segment: &Segment) -> io::Result<(Vec<u8>, Option<More>)> {
    let mut block = Block::new(segment);
    let (bytes, ended) = block.piece()?;
    Ok((bytes, (!ended).then_some(More::Here(block))))
}

/// The block at the start of `bits`, the bits of a stream cut short, if
/// it is whole: the crate's decoder gives it before it finds the cut. It
/// is whole if it decodes up to where the bits left are the start of a
/// magic (and of the CRC after it), or none are left.
fn whole_block(level: u8, bits: &Bits) -> Option<(Segment, Vec<u8>, Option<More>)> {
    let len = bits.len;
    for end in (len.saturating_sub(MAGIC_BITS + 32).max(BLOCK_HEAD_BITS)..=len).rev() {
        let left = (len - end).min(MAGIC_BITS) as u32;
        let starts_magic = |magic: u64| left == 0 || read_bits(&bits.bytes, end, left) == magic >> (48 - left);
        if !starts_magic(BLOCK_MAGIC) && !starts_magic(END_MAGIC) {
            continue;
        }
        let segment = Segment::new(level, &bits.bytes, 0, end, false);
        if let Ok((bytes, rest)) = decode_segment(&segment) {
            return Some((segment, bytes, rest));
        }
    }
    None
}

fn decode(piece: Piece) -> Decoded {
    match piece {
        Piece::Block(segment) => {
            let decoded = decode_segment(&segment);
            Decoded::Block(segment, decoded)
        }
        Piece::End(crc) => Decoded::End(crc),
        Piece::Tail(bytes, error) => Decoded::Tail(bytes, error),
        Piece::Cut(level, bits, error) => {
            let error = error.unwrap_or_else(|| {
                io::Error::new(io::ErrorKind::UnexpectedEof, "decompression not finished but EOF reached")
            });
            Decoded::Cut(whole_block(level, &bits), error)
        }
    }
}

/// Where decoded pieces come from, in order.
trait Pieces {
    fn next(&mut self) -> Option<Decoded>;
}

/// Decoded where they are read.
struct InPlace(Scanner);

impl Pieces for InPlace {
    fn next(&mut self) -> Option<Decoded> {
        self.0.next().map(decode)
    }
}

/// What a decoding thread hands back: a piece's number and the piece, or
/// the panic that decoding it raised.
type Handed = (u64, thread::Result<Decoded>);

/// Decoded on a pool of threads, while one thread scans.
struct Pooled {
    results: mpsc::Receiver<Handed>,
    /// Pieces decoded ahead of the next one.
    waiting: BTreeMap<u64, Decoded>,
    next: u64,
    /// A piece taken lets the scan go on to one more.
    taken: mpsc::Sender<()>,
    scanner: Option<JoinHandle<()>>,
}

impl Pooled {
    fn spawn(raw: Box<dyn Read + Send>, threads: usize) -> io::Result<Pooled> {
        let (taken, room) = mpsc::channel();
        // Pieces scanned and not yet taken: one being decoded on each
        // thread and two ready, so memory stays at a few blocks.
        for _ in 0..threads + 2 {
            taken.send(()).expect("the receiver is here");
        }
        let (job_tx, jobs) = mpsc::channel::<(u64, Piece)>();
        let jobs = Arc::new(Mutex::new(jobs));
        let (result_tx, results) = mpsc::channel();
        for index in 0..threads {
            let jobs = Arc::clone(&jobs);
            let result_tx = result_tx.clone();
            thread::Builder::new().name(format!("bunzip2-{index}")).spawn(move || {
                loop {
                    let job = jobs.lock().unwrap_or_else(PoisonError::into_inner).recv();
                    let Ok((number, piece)) = job else { return };
                    let mut decoded = panic::catch_unwind(AssertUnwindSafe(|| decode(piece)));
                    let rest = decoded.as_mut().ok().and_then(stream_rest);
                    if result_tx.send((number, decoded)).is_err() {
                        return;
                    }
                    // A block longer than a piece (a long run of one byte)
                    // is decoded here to its end, not where it is read.
                    if let Some((mut block, pieces)) = rest {
                        loop {
                            let piece = panic::catch_unwind(AssertUnwindSafe(|| block.piece()));
                            let more = matches!(piece, Ok(Ok((_, false))));
                            if pieces.send(piece).is_err() || !more {
                                break;
                            }
                        }
                    }
                }
            })?;
        }
        let mut scanner = Scanner::new(raw);
        let scanner = thread::Builder::new().name("bunzip2-scan".into()).spawn(move || {
            for number in 0.. {
                if room.recv().is_err() {
                    return;
                }
                let Some(piece) = scanner.next() else { return };
                if job_tx.send((number, piece)).is_err() {
                    return;
                }
            }
        })?;
        Ok(Pooled { results, waiting: BTreeMap::new(), next: 0, taken, scanner: Some(scanner) })
    }
}

impl Pieces for Pooled {
    fn next(&mut self) -> Option<Decoded> {
        loop {
            if let Some(decoded) = self.waiting.remove(&self.next) {
                self.next += 1;
                // The scan may have ended: nothing waits for room then.
                let _ = self.taken.send(());
                return Some(decoded);
            }
            match self.results.recv() {
                Ok((number, Ok(decoded))) => {
                    self.waiting.insert(number, decoded);
                }
                Ok((_, Err(panic))) => panic::resume_unwind(panic),
                Err(mpsc::RecvError) => {
                    // Every thread has ended: the scan too, at the input's
                    // end or in a panic, which reaches the reader.
                    if let Some(Err(panic)) = self.scanner.take().map(JoinHandle::join) {
                        panic::resume_unwind(panic);
                    }
                    return None;
                }
            }
        }
    }
}

/// What is left of the piece being read.
enum Rest {
    None,
    /// The rest of a block longer than a piece.
    Block(Block),
    /// The rest of a block longer than a piece, decoded on the pool.
    Streamed(mpsc::Receiver<Streamed>),
    /// A tail, read by the crate's decoder, and the read error to give for
    /// its sudden end.
    Tail(bzip2::bufread::MultiBzDecoder<io::Cursor<Vec<u8>>>, Option<io::Error>),
}

/// A bzip2 input's decompressed bytes.
struct Decoder<P> {
    pieces: P,
    out: Vec<u8>,
    pos: usize,
    rest: Rest,
    /// The stream's CRC as its blocks so far make it.
    combined: u32,
    error: Option<io::Error>,
    /// Nothing comes after `out` and `rest` but `error`, if any.
    ended: bool,
}

/// A bzip2 input decoded where it is read.
pub(super) fn in_place(raw: Box<dyn Read + Send>) -> Box<dyn Read + Send> {
    Box::new(Decoder::new(InPlace(Scanner::new(raw))))
}

/// A bzip2 input decoded on `threads` threads, and scanned on one more.
///
/// # Errors
///
/// A thread could not be started.
pub(super) fn pooled(raw: Box<dyn Read + Send>, threads: usize) -> io::Result<Box<dyn Read + Send>> {
    Ok(Box::new(Decoder::new(Pooled::spawn(raw, threads)?)))
}

impl<P: Pieces> Decoder<P> {
    fn new(pieces: P) -> Decoder<P> {
        Decoder { pieces, out: Vec::new(), pos: 0, rest: Rest::None, combined: 0, error: None, ended: false }
    }

    fn fail(&mut self, err: io::Error) {
        self.error = Some(err);
        self.ended = true;
    }

    /// Sets `out` to the next bytes, or ends with an error or without.
    fn refill(&mut self) {
        self.pos = 0;
        self.out = Vec::new();
        match std::mem::replace(&mut self.rest, Rest::None) {
            Rest::None => {}
            Rest::Block(mut block) => {
                match block.piece() {
                    Ok((bytes, ended)) => {
                        self.out = bytes;
                        if !ended {
                            self.rest = Rest::Block(block);
                        }
                    }
                    Err(err) => self.fail(err),
                }
                return;
            }
            Rest::Streamed(pieces) => {
                match pieces.recv() {
                    Ok(Ok(Ok((bytes, ended)))) => {
                        self.out = bytes;
                        if !ended {
                            self.rest = Rest::Streamed(pieces);
                        }
                    }
                    Ok(Ok(Err(err))) => self.fail(err),
                    Ok(Err(panic)) => panic::resume_unwind(panic),
                    Err(mpsc::RecvError) => self.fail(io::Error::other("the decompressing thread stopped")),
                }
                return;
            }
            Rest::Tail(mut tail, error) => {
                let mut bytes = vec![0; PIECE];
                let mut len = 0;
                loop {
                    match tail.read(&mut bytes[len..]) {
                        Ok(0) => {
                            self.ended = true;
                            break;
                        }
                        Ok(n) => {
                            len += n;
                            if len == bytes.len() {
                                self.rest = Rest::Tail(tail, error);
                                break;
                            }
                        }
                        Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                        Err(err) => {
                            let cut = err.kind() == io::ErrorKind::UnexpectedEof;
                            self.fail(if cut { error.unwrap_or(err) } else { err });
                            break;
                        }
                    }
                }
                bytes.truncate(len);
                self.out = bytes;
                return;
            }
        }
        match self.pieces.next() {
            None => self.ended = true,
            Some(Decoded::Block(segment, _)) if segment.after_end.is_some() => {
                // The block before decoded: its end magic was one, and
                // what follows is not a stream.
                let (crc, bytes) = segment.after_end.expect("an end");
                self.end(crc);
                if !self.ended {
                    let tail = bzip2::bufread::MultiBzDecoder::new(io::Cursor::new(bytes));
                    self.rest = Rest::Tail(tail, None);
                    self.ended = true;
                }
            }
            Some(Decoded::Block(segment, decoded)) => match decoded {
                Ok((bytes, rest)) => self.took(&segment, bytes, rest),
                Err(err) => self.join(segment, err),
            },
            Some(Decoded::End(crc)) => self.end(crc),
            Some(Decoded::Cut(block, error)) => {
                if let Some((segment, bytes, rest)) = block {
                    self.took(&segment, bytes, rest);
                }
                // After the rest of the block, if it is longer than a piece.
                self.error = Some(error);
                self.ended = true;
            }
            Some(Decoded::Tail(bytes, error)) => {
                let tail = bzip2::bufread::MultiBzDecoder::new(io::Cursor::new(bytes));
                self.rest = Rest::Tail(tail, error);
            }
        }
    }

    /// A stream's end, which gives `crc` for all its blocks.
    fn end(&mut self, crc: u32) {
        if crc != self.combined {
            self.fail(invalid_data());
        }
        self.combined = 0;
    }

    fn took(&mut self, segment: &Segment, bytes: Vec<u8>, rest: Option<More>) {
        self.combined = self.combined.rotate_left(1) ^ segment.crc;
        self.out = bytes;
        self.rest = match rest {
            None => Rest::None,
            Some(More::Here(block)) => Rest::Block(block),
            Some(More::There(pieces)) => Rest::Streamed(pieces),
        };
    }

    /// A segment that does not decode: joined to the next ones while it
    /// ended at a block magic, as long as a block can be, in case that
    /// magic came up by chance; `err` when none of them decodes.
    fn join(&mut self, segment: Segment, err: io::Error) {
        let mut joined = segment;
        while joined.then_block && joined.bits <= longest_block(joined.level) {
            let Some(Decoded::Block(next, _)) = self.pieces.next() else { break };
            joined = joined.join(&next);
            if let Ok((bytes, rest)) = decode_segment(&joined) {
                self.took(&joined, bytes, rest);
                return;
            }
        }
        self.fail(err);
    }
}

impl<P: Pieces> Read for Decoder<P> {
    /// Fills `buf` unless the input ends first, as a read of a file does.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            if self.pos == self.out.len() {
                if self.ended && matches!(self.rest, Rest::None) {
                    break;
                }
                self.refill();
                continue;
            }
            let take = (buf.len() - n).min(self.out.len() - self.pos);
            buf[n..n + take].copy_from_slice(&self.out[self.pos..self.pos + take]);
            n += take;
            self.pos += take;
        }
        if n == 0
            && let Some(err) = self.error.take()
        {
            return Err(err);
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use std::{
        io::{self, Read, Write},
        sync::{
            Arc,
            atomic::{AtomicUsize, Ordering},
            mpsc,
        },
    };

    use super::{BLOCK_MAGIC, Decoded, Decoder, END_MAGIC, InPlace, Magic, Piece, Pieces, Scanner, Segment};
    use crate::test_rng::Rng;

    /// About `len` bytes of lines of random words: text that compresses
    /// as PGN does, into many blocks at level 1 (100 kB each).
    fn text(len: usize, seed: u64) -> Vec<u8> {
        let mut rng = Rng(seed);
        let mut out = Vec::with_capacity(len + 100);
        while out.len() < len {
            let word: Vec<u8> = (0..1 + rng.below(8)).map(|_| b'a' + rng.below(26) as u8).collect();
            out.extend_from_slice(&word);
            out.push(if rng.below(10) == 0 { b'\n' } else { b' ' });
        }
        out
    }

    fn bzip2(plain: &[u8], level: u32) -> Vec<u8> {
        let mut encoder = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(level));
        encoder.write_all(plain).unwrap();
        encoder.finish().unwrap()
    }

    type Outcome = (Vec<u8>, Option<(io::ErrorKind, String)>);

    /// Everything a reader gives, read `step` bytes at a time, and the
    /// error that ended it.
    fn read_all(mut reader: impl Read, step: usize) -> Outcome {
        let mut out = Vec::new();
        let mut buf = vec![0; step];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => return (out, None),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(err) => return (out, Some((err.kind(), err.to_string()))),
            }
        }
    }

    /// What the crate's sequential decoder gives.
    fn sequential(raw: &[u8]) -> Outcome {
        read_all(bzip2::bufread::MultiBzDecoder::new(io::Cursor::new(raw.to_vec())), 1 << 16)
    }

    /// What the block decoder gives in place, and pooled on 1, 2 and 4
    /// threads, read in several steps: all the same, or the test fails.
    fn blockwise(raw: &[u8]) -> Outcome {
        let outcome = read_all(super::in_place(Box::new(io::Cursor::new(raw.to_vec()))), 1 << 16);
        for threads in [1, 2, 4] {
            for step in [1 << 16, 1000, 3 << 20] {
                let pooled = super::pooled(Box::new(io::Cursor::new(raw.to_vec())), threads).unwrap();
                let got = read_all(pooled, step);
                assert!(
                    got.0 == outcome.0,
                    "{threads} threads, step {step}: {} bytes, not {}",
                    got.0.len(),
                    outcome.0.len()
                );
                assert_eq!(got.1, outcome.1, "{threads} threads, step {step}");
            }
        }
        outcome
    }

    fn assert_same(raw: &[u8], what: &str) {
        let (expected, expected_err) = sequential(raw);
        let (got, err) = blockwise(raw);
        assert!(got == expected, "{what}: {} bytes, not {}", got.len(), expected.len());
        assert_eq!(err, expected_err, "{what}");
    }

    #[test]
    fn a_magic_is_found_at_every_bit_offset() {
        let mut rng = Rng(7);
        for magic in [BLOCK_MAGIC, END_MAGIC] {
            for at in 0..40u64 {
                let mut bytes: Vec<u8> = (0..24).map(|_| rng.below(256) as u8).collect();
                // Clear, then set the magic's bits.
                for bit in 0..48 {
                    let pos = at + bit;
                    let mask = 0x80 >> (pos % 8);
                    if magic >> (47 - bit) & 1 == 1 {
                        bytes[(pos / 8) as usize] |= mask;
                    } else {
                        bytes[(pos / 8) as usize] &= !mask;
                    }
                }
                let kind = if magic == BLOCK_MAGIC { Magic::Block } else { Magic::End };
                let found = super::find_magic(&bytes, 0).filter(|&(_, k)| k == kind).map(|(a, _)| a);
                // Random bytes before it may hold another by chance: none did here.
                assert_eq!(found, Some(at), "{magic:x} at bit {at}");
                assert_eq!(super::find_magic(&bytes, at + 1).map(|(a, _)| a), None, "{magic:x} after bit {at}");
            }
        }
    }

    #[test]
    fn small_and_many_block_streams_decode_as_the_crate_decodes_them() {
        assert_same(&bzip2(b"1. e4 e5 *\n", 9), "one short block");
        let plain = text(1 << 20, 3);
        let compressed = bzip2(&plain, 1);
        let (got, err) = blockwise(&compressed);
        assert!(got == plain && err.is_none(), "ten blocks of level 1");
        assert_same(&bzip2(&plain, 9), "two blocks of level 9");
    }

    #[test]
    fn an_empty_stream_and_streams_joined_decode_as_the_crate_decodes_them() {
        let empty = bzip2(b"", 9);
        assert_same(&empty, "an empty stream");
        let plain = text(700 << 10, 5);
        let joined = [bzip2(&plain[..300 << 10], 1), empty.clone(), bzip2(&plain[300 << 10..], 3), empty].concat();
        let (got, err) = blockwise(&joined);
        assert!(got == plain && err.is_none(), "four streams joined");
    }

    #[test]
    fn a_stream_cut_anywhere_gives_the_crate_s_bytes_then_its_error() {
        let compressed = bzip2(&text(600 << 10, 9), 1);
        let len = compressed.len();
        let mut cuts: Vec<usize> = (0..20).chain(len - 20..len).collect();
        cuts.extend((1..40).map(|k| len * k / 40));
        for cut in cuts {
            assert_same(&compressed[..cut], &format!("cut at {cut} of {len}"));
        }
    }

    #[test]
    fn bytes_after_a_stream_give_the_crate_s_error() {
        let compressed = bzip2(&text(300 << 10, 11), 1);
        for after in
            [&b"\0\0\0\0"[..], b"x", b"BZ", b"BZh9", b"BZh9\x31\x41\x59", b"BZh0aaaaaaaaaa", b"garbage garbage"]
        {
            assert_same(&[&compressed[..], after].concat(), &format!("followed by {after:?}"));
        }
        // Longer than any block, and with a block of another stream in it.
        let mut rng = Rng(31);
        let noise: Vec<u8> = (0..600_000).map(|_| rng.below(256) as u8).collect();
        let other = bzip2(b"1. d4 d5 *", 1);
        for after in [vec![0; 1 << 20], noise.clone(), [&noise[..1000], &other[..], &noise[..1000]].concat()] {
            assert_same(&[&compressed[..], &after[..]].concat(), &format!("followed by {} bytes", after.len()));
        }
    }

    #[test]
    fn a_damaged_block_gives_the_blocks_before_it_then_an_error() {
        let plain = text(1 << 20, 13);
        let compressed = bzip2(&plain, 1);
        // Where each block's bytes end.
        let mut ends = vec![0];
        let mut scanner = Scanner::new(Box::new(io::Cursor::new(compressed.clone())));
        while let Some(piece) = scanner.next() {
            if let Decoded::Block(_, Ok((bytes, None))) = super::decode(piece) {
                ends.push(ends.last().unwrap() + bytes.len());
            }
        }
        assert_eq!(ends.len(), 12, "ten or eleven blocks: {ends:?}");
        let mut rng = Rng(17);
        for _ in 0..12 {
            let mut damaged = compressed.clone();
            let at = compressed.len() / 4 + rng.below(compressed.len() / 2);
            damaged[at] ^= 1 << rng.below(8);
            let (got, err) = blockwise(&damaged);
            assert_eq!(
                err,
                Some((io::ErrorKind::InvalidInput, "bzip2: invalid data".to_owned())),
                "a bit changed at {at}"
            );
            assert!(plain.starts_with(&got), "a bit changed at {at}: the bytes before are the stream's");
            assert!(ends.contains(&got.len()), "a bit changed at {at}: whole blocks, not {} bytes", got.len());
        }
    }

    #[test]
    fn a_wrong_stream_crc_is_an_error_after_every_byte() {
        let plain = text(250 << 10, 19);
        let mut compressed = bzip2(&plain, 1);
        let len = compressed.len();
        // The stream's CRC is in the last five bytes (with the padding).
        compressed[len - 2] ^= 0x10;
        // The crate's decoder drops what the read that fails decoded (here
        // most of the last block): the blocks all check, so they are given.
        let (got, err) = blockwise(&compressed);
        assert!(got == plain, "{} bytes", got.len());
        assert_eq!(err, sequential(&compressed).1);
    }

    /// The pieces of a stream, with one block cut in two where a magic
    /// would be if one came up by chance there.
    struct Planted(Vec<Piece>);

    impl Pieces for Planted {
        fn next(&mut self) -> Option<Decoded> {
            (!self.0.is_empty()).then(|| super::decode(self.0.remove(0)))
        }
    }

    #[test]
    fn a_magic_inside_a_block_by_chance_is_joined_to_the_rest_of_the_block() {
        let plain = text(500 << 10, 23);
        let compressed = bzip2(&plain, 1);
        // An end magic by chance is followed by what is not a stream.
        let cases = [(0, 5_000u64, false), (2, 100_000, false), (4, 150, false), (1, 7_001, true), (5, 90, true)];
        for (block, at, end) in cases {
            let mut scanner = Scanner::new(Box::new(io::Cursor::new(compressed.clone())));
            let mut pieces = Vec::new();
            let mut index = 0;
            while let Some(piece) = scanner.next() {
                match piece {
                    Piece::Block(segment) if index == block => {
                        assert!(segment.bits > at, "block {block} is longer than {at} bits");
                        let level = segment.level;
                        let (stream, bits) = (&segment.stream, segment.bits);
                        pieces.push(Piece::Block(Segment::new(level, stream, 32, 32 + at, true)));
                        let mut rest = Segment::new(level, stream, 32 + at, 32 + bits, segment.then_block);
                        if end {
                            rest.after_end = Some((0x1234_5678, b"not bzip2".to_vec()));
                        }
                        pieces.push(Piece::Block(rest));
                        index += 1;
                    }
                    Piece::Block(segment) => {
                        pieces.push(Piece::Block(segment));
                        index += 1;
                    }
                    piece => pieces.push(piece),
                }
            }
            let (got, err) = read_all(Decoder::new(Planted(pieces)), 1 << 16);
            assert!(got == plain, "block {block} cut at bit {at}, end magic {end}: {} bytes", got.len());
            assert_eq!(err, None);
        }
    }

    /// The same bytes over and over, counting those given; its `dropped`
    /// sender goes when it is dropped.
    struct Endless {
        bytes: Vec<u8>,
        pos: usize,
        given: Arc<AtomicUsize>,
        _dropped: mpsc::Sender<()>,
    }

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.bytes.len() - self.pos);
            buf[..n].copy_from_slice(&self.bytes[self.pos..self.pos + n]);
            self.pos = (self.pos + n) % self.bytes.len();
            self.given.fetch_add(n, Ordering::SeqCst);
            Ok(n)
        }
    }

    #[test]
    fn the_scan_stays_a_few_blocks_ahead_and_the_threads_end_when_the_reader_is_dropped() {
        let plain = text(300 << 10, 29);
        let stream = bzip2(&plain, 1);
        let given = Arc::new(AtomicUsize::new(0));
        let (dropped_tx, dropped) = mpsc::channel();
        let source = Endless { bytes: stream.clone(), pos: 0, given: Arc::clone(&given), _dropped: dropped_tx };
        let threads = 3;
        let mut reader = super::pooled(Box::new(source), threads).unwrap();
        let mut buf = vec![0; plain.len()];
        for round in 1..=20 {
            reader.read_exact(&mut buf).unwrap();
            assert!(buf == plain, "stream {round}");
            // Each stream is three or four pieces (blocks and its end): at
            // most threads + 2 pieces are scanned ahead, and a read's worth.
            let ahead = given.load(Ordering::SeqCst).saturating_sub(round * stream.len());
            assert!(
                ahead <= (threads + 2) * stream.len() / 2 + (64 << 10),
                "{ahead} bytes ahead after {round} streams"
            );
        }
        drop(reader);
        // Returns once the scanning thread has dropped the source.
        assert_eq!(dropped.recv(), Err(mpsc::RecvError));
    }

    #[test]
    fn a_bomb_comes_in_pieces_and_decodes_whole() {
        let zeros = vec![0u8; 200 << 20];
        let compressed = bzip2(&zeros, 9);
        let mut decoder = Decoder::new(InPlace(Scanner::new(Box::new(io::Cursor::new(compressed.clone())))));
        let mut buf = vec![0; 1 << 16];
        let mut total = 0;
        loop {
            let n = decoder.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            assert!(buf[..n].iter().all(|&b| b == 0));
            total += n;
            // A block of zeros holds 45 MB: it is never held whole.
            assert!(decoder.out.capacity() <= 4 << 20, "a piece of {} bytes", decoder.out.capacity());
        }
        assert_eq!(total, zeros.len());
        let (got, err) = read_all(super::pooled(Box::new(io::Cursor::new(compressed)), 3).unwrap(), 1 << 20);
        assert!(got == zeros && err.is_none());
    }
}
