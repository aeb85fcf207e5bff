//! A bzip2 decoder that finds where the blocks of a stream begin and end,
//! and decodes the blocks on several threads at once.
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
//!
//! What it is not: an encoder, nor a faster decoder of one block (each
//! block is decoded by the `bzip2` crate; a stream of one block takes as
//! long as it does there), nor an index or a seek into a stream (the input
//! is read once, from its start, and only a few blocks ahead of the
//! reader are held, so memory stays bounded whatever the input).
//!
//! The decoder gives its bytes through [`Chunked`], a reader of bytes that
//! come in chunks, which is exported for other streams that come so (a
//! decompressor on a thread of its own handing over what it decoded).

mod bits;
mod chunked;
mod decode;
mod pool;
mod scan;

use std::io::{self, Read};

pub use crate::chunked::{Chunked, Chunks};
use crate::{
    decode::{Decoder, InPlace},
    pool::Pooled,
    scan::Scanner,
};

/// A bzip2 input (one stream or several one after the other) decoded where
/// it is read, block by block.
pub fn in_place(raw: Box<dyn Read + Send>) -> Box<dyn Read + Send> {
    Box::new(Chunked::new(Decoder::new(InPlace(Scanner::new(raw)))))
}

/// A bzip2 input (one stream or several one after the other) decoded on
/// `threads` threads, and scanned on one more, at most `threads + 2` blocks
/// ahead of the reader. It gives the same bytes and the same error as
/// [`in_place`]. Dropping the reader ends the threads (as soon as they
/// have done the piece they are doing); a panic on one of them reaches the
/// reader.
///
/// # Errors
///
/// A thread could not be started.
pub fn pooled(raw: Box<dyn Read + Send>, threads: usize) -> io::Result<Box<dyn Read + Send>> {
    Ok(Box::new(Chunked::new(Decoder::new(Pooled::spawn(raw, threads)?))))
}

#[cfg(test)]
mod tests;
