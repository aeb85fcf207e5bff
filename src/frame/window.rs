//! The framer's read window: the bytes read and not yet handed out, filled
//! from the input a chunk at a time, compacted when what no game needs
//! piles up at its start, and handed to a batch (its games copied out, or
//! the buffer itself given away) when a batch goes out.

use std::{
    io::{self, Read},
    ops::Range,
};

use super::{grammar::Input, lexer::BOM};

/// What one read asks for, and the least the window grows by.
pub(super) const CHUNK: usize = 1 << 16;

/// The bytes read and not yet handed out.
#[derive(Debug, Default)]
pub(super) struct Window {
    data: Vec<u8>,
    /// Bytes of `data` read so far (the rest is scratch space).
    end: usize,
    /// Bytes of `data` that may be scanned (a trailing `\r` waits for the
    /// next read to know whether it is half of `\r\n`).
    limit: usize,
    /// The input has no more bytes (or failed).
    pub(super) eof: bool,
    /// The error the input failed with, until it is reported.
    pub(super) error: Option<io::Error>,
    /// The input's first bytes were read (enough to tell a byte order
    /// mark).
    started: bool,
    /// Stream offset of `data[0]`.
    base: u64,
}

impl Window {
    /// What the grammar reads: the window up to its limit.
    #[inline]
    pub(super) fn input(&self) -> Input<'_> {
        Input { bytes: &self.data[..self.limit], base: self.base, eof: self.eof, failed: self.error.is_some() }
    }

    /// Bytes read from `from` on.
    pub(super) fn read_from(&self, from: usize) -> usize {
        self.end - from
    }

    /// Reads more input into `data[end..]`, the grammar being at `pos`.
    /// Returns whether the input was found, at this read, to start with a
    /// byte order mark (no game's: the grammar starts after it).
    pub(super) fn fill<R: Read>(&mut self, reader: &mut R, pos: usize) -> bool {
        // Grow the window with the unscanned tail so a long line or token
        // that needs look-ahead is rescanned a logarithmic number of times.
        let want = CHUNK.max(self.end - pos);
        if self.data.len() < self.end + want {
            self.data.resize(self.end + want, 0);
        }
        let old = self.end;
        let mut got = 0;
        // A read from a pipe gives what the pipe holds (64 KiB) whatever is
        // asked: the window grew by that much a refill, and a long line (a
        // tag line of 30 MB) was read again at each, in time quadratic up
        // to the cap. When the window is to grow, reads go on until it has.
        loop {
            match reader.read(&mut self.data[old + got..old + want]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => {
                    got += n;
                    if want == CHUNK || got == want {
                        break;
                    }
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => {
                    self.error = Some(err);
                    self.eof = true;
                    break;
                }
            }
        }
        self.end = old + got;
        let mut bom = false;
        if !self.started && (self.end >= 3 || self.eof) {
            self.started = true;
            bom = self.data[..self.end].starts_with(BOM);
        }
        if !self.started {
            return false;
        }
        // Old Mac files end lines with a lone `\r`; the parser only knows `\n`.
        // Rewriting it in place keeps every offset and column.
        let mut from = self.limit.max(if bom { BOM.len() } else { pos });
        while let Some(i) = memchr::memchr(b'\r', &self.data[from..self.end]).map(|i| i + from) {
            if i + 1 < self.end {
                if self.data[i + 1] != b'\n' {
                    self.data[i] = b'\n';
                }
            } else if self.eof {
                self.data[i] = b'\n';
            }
            from = i + 1;
        }
        self.limit = match self.data[..self.end].last() {
            Some(b'\r') if !self.eof => self.end - 1,
            _ => self.end,
        };
        bom
    }

    /// Drops the bytes before `keep`, which no game and no scan needs any
    /// more, so that what is skipped (a huge comment or `%` line between
    /// games, the rest of a cut game) never piles up. Only when at least as
    /// much is freed as is moved, so that each byte is moved a bounded
    /// number of times. Returns how far back the bytes moved (0: they did
    /// not).
    pub(super) fn compact(&mut self, keep: usize) -> usize {
        if keep < CHUNK || keep < self.end - keep {
            return 0;
        }
        self.data.copy_within(keep..self.end, 0);
        self.moved(keep);
        keep
    }

    /// Hands a batch its bytes, into `into` (the batch's buffer): the games
    /// at `games`, copied, when that range is not empty; else the window
    /// from `keep` on is copied into `into`, which becomes the window, and
    /// the window's buffer (its games at their offsets) goes to the batch.
    /// Returns how far back the window's bytes moved.
    pub(super) fn hand_out(&mut self, keep: usize, games: Range<usize>, into: &mut Vec<u8>) -> usize {
        if !games.is_empty() {
            if into.len() < games.len() {
                into.resize(games.len(), 0);
            }
            into[..games.len()].copy_from_slice(&self.data[games]);
            return 0;
        }
        let tail = self.end - keep;
        if into.len() < tail + CHUNK {
            into.resize(tail + CHUNK, 0);
        }
        into[..tail].copy_from_slice(&self.data[keep..self.end]);
        std::mem::swap(into, &mut self.data);
        self.moved(keep);
        keep
    }

    /// The bytes from `by` on are now at the window's start.
    fn moved(&mut self, by: usize) {
        self.end -= by;
        self.limit -= by;
        self.base += by as u64;
    }

    #[cfg(test)]
    pub(super) fn capacity(&self) -> usize {
        self.data.capacity()
    }
}
