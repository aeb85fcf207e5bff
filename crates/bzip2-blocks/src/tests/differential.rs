//! The block decoder against the `bzip2` crate's sequential decoder, over
//! inputs of several kinds and block sizes, joined, cut short and damaged:
//! the same bytes and the same outcome, or both fail.

use std::io;

use super::{Outcome, Rng, blockwise, bzip2, read_all, sequential, text};

/// The levels tried: the smallest blocks (100 kB), middling, the largest.
const LEVELS: [u32; 3] = [1, 4, 9];

/// Plain inputs of about `len` bytes, each of a kind that bzip2 takes its
/// own way: text, bytes that do not compress, runs of every length (which
/// bzip2 shortens before it sorts, from four bytes on), two byte values
/// (short codes), and 5 MiB of zeros (a few bytes of code for a block of
/// megabytes).
fn plain_inputs(len: usize, rng: &mut Rng) -> Vec<(&'static str, Vec<u8>)> {
    let noise: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
    let mut runs = Vec::with_capacity(len + 300);
    while runs.len() < len {
        let byte = rng.below(256) as u8;
        runs.extend(std::iter::repeat_n(byte, 1 + rng.below(300)));
    }
    let two: Vec<u8> = (0..len).map(|_| b"ab"[rng.below(2)]).collect();
    vec![
        ("text", text(len, rng.next() | 1)),
        ("noise", noise),
        ("runs", runs),
        ("two byte values", two),
        ("zeros", vec![0; 5 << 20]),
    ]
}

/// Each kind compressed at each level, about a block and a half of it.
fn streams(rng: &mut Rng) -> Vec<(String, Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    for level in LEVELS {
        for (kind, plain) in plain_inputs(level as usize * 150_000, rng) {
            let compressed = bzip2(&plain, level);
            out.push((format!("{kind}, level {level}"), plain, compressed));
        }
    }
    out
}

/// What the block decoder gives in place, and the same on three threads
/// (read in one step only, as the inputs cut short and damaged are many;
/// the other tests read in several).
fn in_place_and_pooled(raw: &[u8], what: &str) -> Outcome {
    let outcome = read_all(crate::in_place(Box::new(io::Cursor::new(raw.to_vec()))), 1 << 16);
    let pooled = read_all(crate::pooled(Box::new(io::Cursor::new(raw.to_vec())), 3).unwrap(), 1 << 16);
    assert!(pooled == outcome, "{what}: the same on three threads as in place");
    outcome
}

/// The block decoder's outcome against the sequential decoder's: both
/// whole and the same bytes, or both failing, the bytes of one the start
/// of the other's (the sequential decoder drops what the read that fails
/// decoded; the block decoder gives every block before the damaged one).
fn assert_agree(raw: &[u8], what: &str) {
    let (expected, expected_err) = sequential(raw);
    let (got, err) = in_place_and_pooled(raw, what);
    if expected_err.is_none() || err.is_none() {
        assert!(got == expected, "{what}: {} bytes, not {}", got.len(), expected.len());
        assert_eq!(err, expected_err, "{what}");
    } else {
        let common = got.len().min(expected.len());
        assert!(got[..common] == expected[..common], "{what}: the bytes before the error differ");
    }
}

/// The block decoder gives the sequential decoder's bytes and error.
fn assert_exact(raw: &[u8], what: &str) {
    let outcome = in_place_and_pooled(raw, what);
    let expected = sequential(raw);
    assert!(outcome.0 == expected.0, "{what}: {} bytes, not {}", outcome.0.len(), expected.0.len());
    assert_eq!(outcome.1, expected.1, "{what}");
}

#[test]
fn streams_of_every_kind_and_block_size_decode_as_the_crate_decodes_them() {
    let mut rng = Rng(41);
    for (what, plain, compressed) in streams(&mut rng) {
        let outcome = blockwise(&compressed);
        assert!(outcome.0 == plain, "{what}: {} bytes, not {}", outcome.0.len(), plain.len());
        assert_eq!(outcome.1, None, "{what}");
        assert!(sequential(&compressed) == outcome, "{what}: as the crate decodes it");
    }
}

#[test]
fn streams_of_several_kinds_and_levels_joined_decode_as_one() {
    let mut rng = Rng(43);
    let streams = streams(&mut rng);
    let empty = bzip2(b"", 5);
    for round in 0..4 {
        let mut raw = Vec::new();
        let mut plain = Vec::new();
        for _ in 0..2 + rng.below(3) {
            let (_, part, compressed) = &streams[rng.below(streams.len())];
            raw.extend_from_slice(compressed);
            plain.extend_from_slice(part);
            if rng.below(3) == 0 {
                raw.extend_from_slice(&empty);
            }
        }
        let (got, err) = blockwise(&raw);
        assert!(got == plain, "round {round}: {} bytes, not {}", got.len(), plain.len());
        assert_eq!(err, None, "round {round}");
    }
}

#[test]
fn streams_cut_short_give_the_crate_s_bytes_then_its_error() {
    let mut rng = Rng(47);
    let streams = streams(&mut rng);
    for (what, _, compressed) in &streams {
        let len = compressed.len();
        let mut cuts: Vec<usize> = (0..3).map(|_| rng.below(len)).collect();
        cuts.extend([1, 4, 10, len - 10, len - 5, len - 1]);
        for cut in cuts {
            assert_exact(&compressed[..cut], &format!("{what}, cut at {cut} of {len}"));
        }
    }
    // Two streams, cut in the second.
    let joined = [&streams[0].2[..], &streams[6].2[..]].concat();
    let first = streams[0].2.len();
    for cut in [first, first + 2, first + 4, first + 12, first + 1000] {
        assert_exact(&joined[..cut], &format!("two streams cut at {cut}, the first {first} bytes"));
    }
}

#[test]
fn damaged_streams_fail_as_the_crate_s_decoder_fails() {
    let mut rng = Rng(53);
    let streams = streams(&mut rng);
    for (what, _, compressed) in &streams {
        let len = compressed.len();
        let mut flipped = compressed.clone();
        let at = rng.below(len);
        flipped[at] ^= 1 << rng.below(8);
        assert_agree(&flipped, &format!("{what}, a bit changed at {at}"));

        let mut overwritten = compressed.clone();
        let at = rng.below(len);
        for byte in overwritten.iter_mut().skip(at).take(1 + rng.below(64)) {
            *byte = rng.below(256) as u8;
        }
        assert_agree(&overwritten, &format!("{what}, bytes overwritten from {at}"));

        let at = rng.below(len);
        let dropped = [&compressed[..at], &compressed[at + 1..]].concat();
        assert_agree(&dropped, &format!("{what}, byte {at} dropped"));
        let inserted = [&compressed[..at], &[rng.below(256) as u8], &compressed[at..]].concat();
        assert_agree(&inserted, &format!("{what}, a byte inserted at {at}"));

        // The header: magic and level digit.
        for at in 0..4 {
            let mut changed = compressed.clone();
            changed[at] ^= 0x01;
            assert_agree(&changed, &format!("{what}, header byte {at} changed"));
        }
    }
}

#[test]
fn inputs_that_are_not_bzip2_fail_as_the_crate_s_decoder_fails() {
    let mut rng = Rng(59);
    for len in [0, 1, 3, 4, 10, 14, 1000, 300_000] {
        let noise: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
        assert_exact(&noise, &format!("{len} random bytes"));
        for level in [b'0', b'1', b'9'] {
            let headed = [&b"BZh"[..], &[level], &noise].concat();
            assert_exact(&headed, &format!("BZh{} and {len} random bytes", level as char));
        }
        let magic = [&b"BZh9\x31\x41\x59\x26\x53\x59"[..], &noise].concat();
        assert_exact(&magic, &format!("a block magic and {len} random bytes"));
    }
}
