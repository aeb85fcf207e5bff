//! Bits: the magics that start a block and end a stream, a string of bits
//! that blocks are rebuilt in, and the scan for a magic at any bit offset.

/// The magic that starts a block: the digits of pi.
pub(crate) const BLOCK_MAGIC: u64 = 0x3141_5926_5359;
/// The magic that ends a stream: the digits of the square root of pi.
pub(crate) const END_MAGIC: u64 = 0x1772_4538_5090;
pub(crate) const MAGIC_BITS: u64 = 48;
/// A block's magic and CRC: no other magic can start inside them.
pub(crate) const BLOCK_HEAD_BITS: u64 = MAGIC_BITS + 32;

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

/// A string of bits, first bit in the high bit of the first byte.
#[derive(Debug, Default, Clone)]
pub(crate) struct Bits {
    pub(crate) bytes: Vec<u8>,
    pub(crate) len: u64,
}

impl Bits {
    pub(crate) fn with_capacity(bytes: usize) -> Bits {
        Bits { bytes: Vec::with_capacity(bytes), len: 0 }
    }

    pub(crate) fn push_byte(&mut self, byte: u8) {
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
    pub(crate) fn push(&mut self, value: u64, n: u32) {
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
    pub(crate) fn extend(&mut self, src: &[u8], from: u64, to: u64) {
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
pub(crate) fn read_bits(src: &[u8], at: u64, n: u32) -> u64 {
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
pub(crate) enum Magic {
    Block,
    End,
}

/// The first magic in `src` starting at a bit from `from` on, among those
/// whose eight bytes from the magic's first byte are all in `src`.
pub(crate) fn find_magic(src: &[u8], from: u64) -> Option<(u64, Magic)> {
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
