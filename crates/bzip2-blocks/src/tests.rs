//! The decoder's tests: against the `bzip2` crate's sequential decoder,
//! in place and on threads, and on pieces planted to look as blocks can.

use std::{
    io::{self, Read, Write},
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
        mpsc,
    },
};

use crate::{
    Chunked,
    bits::{BLOCK_MAGIC, END_MAGIC, Magic},
    decode::{Decoded, Decoder, InPlace, Pieces},
    scan::{Piece, Scanner, Segment},
};

mod differential;

/// A deterministic random number generator (SplitMix64), so that a
/// failure can be replayed from its seed.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// About `len` bytes of lines of random words: text that compresses as
/// prose does, into many blocks at level 1 (100 kB each).
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
    let outcome = read_all(crate::in_place(Box::new(io::Cursor::new(raw.to_vec()))), 1 << 16);
    for threads in [1, 2, 4] {
        for step in [1 << 16, 1000, 3 << 20] {
            let pooled = crate::pooled(Box::new(io::Cursor::new(raw.to_vec())), threads).unwrap();
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
            let found = crate::bits::find_magic(&bytes, 0).filter(|&(_, k)| k == kind).map(|(a, _)| a);
            // Random bytes before it may hold another by chance: none did here.
            assert_eq!(found, Some(at), "{magic:x} at bit {at}");
            assert_eq!(crate::bits::find_magic(&bytes, at + 1).map(|(a, _)| a), None, "{magic:x} after bit {at}");
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
    for after in [&b"\0\0\0\0"[..], b"x", b"BZ", b"BZh9", b"BZh9\x31\x41\x59", b"BZh0aaaaaaaaaa", b"garbage garbage"] {
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
        if let Decoded::Block(_, Ok((bytes, None))) = crate::decode::decode(piece) {
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
        assert_eq!(err, Some((io::ErrorKind::InvalidInput, "bzip2: invalid data".to_owned())), "a bit changed at {at}");
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
        (!self.0.is_empty()).then(|| crate::decode::decode(self.0.remove(0)))
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
        let (got, err) = read_all(Chunked::new(Decoder::new(Planted(pieces))), 1 << 16);
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
    let mut reader = crate::pooled(Box::new(source), threads).unwrap();
    let mut buf = vec![0; plain.len()];
    for round in 1..=20 {
        reader.read_exact(&mut buf).unwrap();
        assert!(buf == plain, "stream {round}");
        // Each stream is three or four pieces (blocks and its end): at
        // most threads + 2 pieces are scanned ahead, and a read's worth.
        let ahead = given.load(Ordering::SeqCst).saturating_sub(round * stream.len());
        assert!(ahead <= (threads + 2) * stream.len() / 2 + (64 << 10), "{ahead} bytes ahead after {round} streams");
    }
    drop(reader);
    // Returns once the scanning thread has dropped the source.
    assert_eq!(dropped.recv(), Err(mpsc::RecvError));
}

#[test]
fn a_bomb_comes_in_pieces_and_decodes_whole() {
    let zeros = vec![0u8; 200 << 20];
    let compressed = bzip2(&zeros, 9);
    let mut decoder = Chunked::new(Decoder::new(InPlace(Scanner::new(Box::new(io::Cursor::new(compressed.clone()))))));
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
        assert!(decoder.chunk().capacity() <= 4 << 20, "a piece of {} bytes", decoder.chunk().capacity());
    }
    assert_eq!(total, zeros.len());
    let (got, err) = read_all(crate::pooled(Box::new(io::Cursor::new(compressed)), 3).unwrap(), 1 << 20);
    assert!(got == zeros && err.is_none());
}
