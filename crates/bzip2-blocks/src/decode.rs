//! Blocks decoded piece by piece, and the reader that gives the bytes of
//! the pieces in order, checking each stream's CRC from its blocks'.

use std::{
    io::{self, Read},
    panic,
    sync::mpsc,
    thread,
};

use crate::{
    Chunks,
    bits::{BLOCK_HEAD_BITS, BLOCK_MAGIC, Bits, END_MAGIC, MAGIC_BITS, read_bits},
    scan::{Piece, Scanner, Segment, longest_block},
};

/// Decompressed bytes decoded at once: any block of text fits, so a block
/// is checked against its CRC before a byte of it is given. A block of a
/// long run of one byte (a bomb) decodes to up to 45 MB: it comes in pieces
/// of this size, so memory does not grow with it.
const PIECE: usize = 2 << 20;

/// The crate's error for damaged data, as its readers give it.
fn invalid_data() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, bzip2::Error::Data)
}

/// A block being decoded, piece by piece.
pub(crate) struct Block {
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
    pub(crate) fn piece(&mut self) -> io::Result<(Vec<u8>, bool)> {
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
pub(crate) type Streamed = thread::Result<io::Result<(Vec<u8>, bool)>>;

/// The rest of a block longer than a piece.
pub(crate) enum More {
    /// To be decoded where it is read.
    Here(Block),
    /// Decoded on a thread of the pool, a piece ahead.
    There(mpsc::Receiver<Streamed>),
}

/// A piece decoded: what the reader takes, in order.
pub(crate) enum Decoded {
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
pub(crate) fn stream_rest(decoded: &mut Decoded) -> Option<(Block, mpsc::SyncSender<Streamed>)> {
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
        if let Ok((bytes, rest)) = decode_segment(&segment)
            && (rest.is_none() || decodes_whole(&segment))
        {
            return Some((segment, bytes, rest));
        }
    }
    None
}

/// Whether a block longer than a piece decodes to its end (its pieces
/// dropped as they come): its first piece decoding tells nothing of the
/// bits after it.
fn decodes_whole(segment: &Segment) -> bool {
    let mut block = Block::new(segment);
    loop {
        match block.piece() {
            Ok((_, true)) => return true,
            Ok((_, false)) => {}
            Err(_) => return false,
        }
    }
}

/// The crate's error for a stream that ends too soon.
fn cut_short() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "decompression not finished but EOF reached")
}

/// What the crate's decoder says of a stream cut short in a block that is
/// not whole: the bits are damaged before the cut, or they end too soon.
/// Found as it finds it, reading them (after the header) to their end;
/// but for those of a last byte that they share with the padding of the
/// bits shifted to a byte boundary, which are left out: the decoder would
/// read the padding as bits of the block. So a block damaged in its last
/// seven bits only counts as cut short.
fn cut_error(level: u8, bits: &Bits) -> io::Error {
    let mut stream = Bits::with_capacity(bits.bytes.len() + 4);
    stream.extend(b"BZh", 0, 24);
    stream.push_byte(b'0' + level);
    stream.extend(&bits.bytes, 0, bits.len - bits.len % 8);
    let mut decompress = bzip2::Decompress::new(false);
    let mut input = &stream.bytes[..];
    let mut out = Vec::with_capacity(PIECE);
    loop {
        out.clear();
        let before = decompress.total_in();
        if let Err(err) = decompress.decompress_vec(input, &mut out) {
            return io::Error::new(io::ErrorKind::InvalidInput, err);
        }
        input = &input[(decompress.total_in() - before) as usize..];
        // Room left over: the decoder stopped for want of bits.
        if out.len() < out.capacity() {
            return cut_short();
        }
    }
}

pub(crate) fn decode(piece: Piece) -> Decoded {
    match piece {
        Piece::Block(segment) => {
            let decoded = decode_segment(&segment);
            Decoded::Block(segment, decoded)
        }
        Piece::End(crc) => Decoded::End(crc),
        Piece::Tail(bytes, error) => Decoded::Tail(bytes, error),
        Piece::Cut(level, bits, error) => match whole_block(level, &bits) {
            Some(block) => Decoded::Cut(Some(block), error.unwrap_or_else(cut_short)),
            None => Decoded::Cut(None, error.unwrap_or_else(|| cut_error(level, &bits))),
        },
    }
}

/// Where decoded pieces come from, in order.
pub(crate) trait Pieces {
    fn next(&mut self) -> Option<Decoded>;
}

/// Decoded where they are read.
pub(crate) struct InPlace(pub(crate) Scanner);

impl Pieces for InPlace {
    fn next(&mut self) -> Option<Decoded> {
        self.0.next().map(decode)
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
pub(crate) struct Decoder<P> {
    pieces: P,
    /// The next bytes, found by [`Decoder::refill`] for the next chunk.
    out: Vec<u8>,
    rest: Rest,
    /// The stream's CRC as its blocks so far make it.
    combined: u32,
    error: Option<io::Error>,
    /// Nothing comes after `out` and `rest` but `error`, if any.
    ended: bool,
}

impl<P: Pieces> Decoder<P> {
    pub(crate) fn new(pieces: P) -> Decoder<P> {
        Decoder { pieces, out: Vec::new(), rest: Rest::None, combined: 0, error: None, ended: false }
    }

    fn fail(&mut self, err: io::Error) {
        self.error = Some(err);
        self.ended = true;
    }

    /// Sets `out` to the next bytes, or ends with an error or without.
    fn refill(&mut self) {
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

impl<P: Pieces> Chunks for Decoder<P> {
    fn next_chunk(&mut self, chunk: &mut Vec<u8>) -> Option<io::Result<()>> {
        self.refill();
        *chunk = std::mem::take(&mut self.out);
        (self.ended && matches!(self.rest, Rest::None)).then(|| self.error.take().map_or(Ok(()), Err))
    }
}
