//! A reader of bytes that come in chunks (decoded a piece at a time, or
//! handed over by another thread), as the decoder gives its blocks.

use std::io::{self, Read};

/// Where the chunks of a [`Chunked`] reader come from.
pub trait Chunks {
    /// Puts the next bytes in `chunk` (the chunk before, read to its end:
    /// filled again, or replaced), maybe none. `None` while more may come
    /// after them; else they are the last, and the stream ends cleanly or
    /// with the error given.
    fn next_chunk(&mut self, chunk: &mut Vec<u8>) -> Option<io::Result<()>>;
}

/// A reader of the bytes of [`Chunks`], then of their error, if any, once
/// (and the end after it). A read fills the buffer unless the bytes end
/// first, as a read of a file does: a reader that asks for more than a
/// chunk (to see further ahead) gets it in one read, not one a chunk.
#[derive(Debug)]
pub struct Chunked<C> {
    chunks: C,
    chunk: Vec<u8>,
    /// Bytes of `chunk` already read.
    pos: usize,
    /// `chunk` is the last.
    ended: bool,
    /// The error that ended the bytes, once they are read.
    error: Option<io::Error>,
}

impl<C> Chunked<C> {
    /// A reader of the chunks `chunks` gives.
    pub fn new(chunks: C) -> Chunked<C> {
        Chunked { chunks, chunk: Vec::new(), pos: 0, ended: false, error: None }
    }

    /// The chunk being read: for a test of how much is held at a time.
    #[cfg(test)]
    pub(crate) fn chunk(&self) -> &Vec<u8> {
        &self.chunk
    }
}

impl<C: Chunks> Read for Chunked<C> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            if self.pos == self.chunk.len() {
                if self.ended {
                    break;
                }
                self.pos = 0;
                if let Some(end) = self.chunks.next_chunk(&mut self.chunk) {
                    self.ended = true;
                    self.error = end.err();
                }
                continue;
            }
            let take = (buf.len() - n).min(self.chunk.len() - self.pos);
            buf[n..n + take].copy_from_slice(&self.chunk[self.pos..self.pos + take]);
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
