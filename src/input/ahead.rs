//! Decompression on a thread of its own, a few fixed-size chunks ahead of
//! the reader.
//!
//! The framer that reads a stream runs under the pipeline's lock, so a
//! decompressor read through it holds up every worker while it works: on a
//! `.bz2` it is most of the run. On its own thread it decompresses the next
//! chunks while the framer frames the last. Memory stays bounded whatever
//! the stream holds (a bomb of zeros): [`CHUNKS`] chunks of [`CHUNK`] bytes
//! go back and forth between the two threads, and the decompressor waits
//! when the reader has not handed one back.

use std::{
    io::{self, Read},
    sync::mpsc::{self, Receiver, Sender, SyncSender},
    thread::{self, JoinHandle},
};

use bzip2_blocks::{Chunked, Chunks};

/// Bytes asked of the decompressor at a time: what the framer asks for
/// when its window holds no long line (its read size, 64 KiB). A
/// decompressor drops the output of the call that fails (gzip and bzip2 on
/// a corrupt block), so how much of a corrupt block comes before the error
/// depends on the reads; asked in the framer's steps, it is as much as the
/// framer got reading in place.
pub(super) const STEP: usize = 64 << 10;

/// Bytes of one chunk: two steps, few enough messages that the channel
/// costs nothing next to the decompression.
const CHUNK: usize = 2 * STEP;

/// Chunks in all: one being read, one being filled, two queued for when
/// the reader falls behind for a moment (a batch with a long game).
const CHUNKS: usize = 4;

/// What the decompressing thread hands over.
#[derive(Debug)]
enum Filled {
    /// The next decompressed bytes: more than a step, unless the stream
    /// ends or fails right after them.
    Bytes(Vec<u8>),
    /// The end of the stream: clean, or the error that ended it.
    End(Option<io::Error>),
}

/// A reader of a stream decompressed on a thread of its own. It gives the
/// same bytes as the stream, then the stream's error, if any, once (and
/// end of input after it). Dropping it ends the thread: its next hand-over
/// fails, and it drops the stream.
pub(super) type ReadAhead = Chunked<Handover>;

/// Starts decompressing `stream` on a new thread.
///
/// # Errors
///
/// The thread could not be started.
pub(super) fn spawn(mut stream: Box<dyn Read + Send>) -> io::Result<ReadAhead> {
    let (filler, handover) = channels();
    let thread = thread::Builder::new().name("decompress".into()).spawn(move || filler.fill(&mut stream))?;
    Ok(Chunked::new(Handover { thread: Some(thread), ..handover }))
}

/// The reader's end of the chunks: those filled come through one
/// channel, those read go back through the other.
#[derive(Debug)]
pub(super) struct Handover {
    filled: Receiver<Filled>,
    /// Chunks read to their end go back to the thread through this.
    free: Sender<Vec<u8>>,
    thread: Option<JoinHandle<()>>,
}

impl Chunks for Handover {
    /// Hands the chunk read back to the thread and waits for the next one.
    fn next_chunk(&mut self, chunk: &mut Vec<u8>) -> Option<io::Result<()>> {
        // The thread may have ended (after the stream's end, which is then
        // queued): the chunk is not needed any more.
        let _ = self.free.send(std::mem::take(chunk));
        match self.filled.recv() {
            Ok(Filled::Bytes(filled)) => {
                *chunk = filled;
                None
            }
            Ok(Filled::End(end)) => Some(end.map_or(Ok(()), Err)),
            Err(mpsc::RecvError) => Some(Err(self.lost())),
        }
    }
}

impl Handover {
    /// The thread went away without the end of the stream: it panicked
    /// (the decompressor did), and the reader panics as it did when the
    /// decompressor ran on its thread.
    fn lost(&mut self) -> io::Error {
        if let Some(Err(panic)) = self.thread.take().map(JoinHandle::join) {
            std::panic::resume_unwind(panic);
        }
        io::Error::other("the decompressing thread stopped")
    }
}

/// The two ends of a stream read ahead, for a thread that reads several
/// streams one after the other (the members of an archive): the filler
/// goes to the thread, the reader to whoever reads. A panic of that thread
/// reaches whoever joins it; the reader only sees an error.
pub(super) fn pair() -> (Filler, ReadAhead) {
    let (filler, handover) = channels();
    (filler, Chunked::new(handover))
}

/// The thread's and the reader's ends of the two channels, [`CHUNKS`]
/// chunks going round between them.
fn channels() -> (Filler, Handover) {
    let (filled_tx, filled) = mpsc::sync_channel(CHUNKS);
    let (free, free_rx) = mpsc::channel();
    // The reader holds the last chunk: the empty one it starts with,
    // which goes back on its first read. Chunks are allocated on the
    // thread when first filled, so a small input takes one.
    for _ in 1..CHUNKS {
        free.send(Vec::new()).expect("the receiver is here");
    }
    (Filler { free: free_rx, filled: filled_tx }, Handover { filled, free, thread: None })
}

/// The thread's end of a [`ReadAhead`].
#[derive(Debug)]
pub(super) struct Filler {
    free: Receiver<Vec<u8>>,
    filled: SyncSender<Filled>,
}

impl Filler {
    /// Fills each free chunk from `stream` and hands it over, until the
    /// stream ends or the reader is gone (a send or receive fails).
    pub(super) fn fill(self, stream: &mut dyn Read) {
        fill(stream, &self.free, &self.filled);
    }
}

/// The thread's loop: fill each free chunk from `stream` and hand it over,
/// until the stream ends or the reader is gone (a send or receive fails).
fn fill(stream: &mut dyn Read, free: &Receiver<Vec<u8>>, filled: &SyncSender<Filled>) {
    while let Ok(mut chunk) = free.recv() {
        // A chunk keeps its length going back and forth: only one that
        // went short is zeroed again.
        chunk.resize(CHUNK, 0);
        let mut len = 0;
        let end = loop {
            // A short read (at the end of a gzip member, a zstd block)
            // leaves a chunk with less room than a step: it goes as it is.
            if len + STEP > CHUNK {
                break None;
            }
            match stream.read(&mut chunk[len..len + STEP]) {
                Ok(0) => break Some(Filled::End(None)),
                Ok(n) => len += n,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => break Some(Filled::End(Some(err))),
            }
        };
        chunk.truncate(len);
        if len > 0 && filled.send(Filled::Bytes(chunk)).is_err() {
            return;
        }
        if let Some(end) = end {
            // The reader may be gone already; nothing is left to do either way.
            let _ = filled.send(end);
            return;
        }
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

    use super::{CHUNK, CHUNKS};
    use crate::{input, test_rng::Rng};

    /// About `len` bytes of games with random comments, so that a
    /// compressor writes many blocks and a cut falls inside the stream.
    fn games(len: usize) -> Vec<u8> {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut text = Vec::new();
        for index in 0.. {
            if text.len() >= len {
                break;
            }
            let comment: String = (0..60).map(|_| char::from(b'a' + rng.below(26) as u8)).collect();
            text.extend_from_slice(format!("[Event \"{index}\"]\n\n1. e4 {{{comment}}} e5 *\n\n").as_bytes());
        }
        text
    }

    fn gzip(plain: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(plain).unwrap();
        encoder.finish().unwrap()
    }

    fn bzip2(plain: &[u8]) -> Vec<u8> {
        let mut encoder = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
        encoder.write_all(plain).unwrap();
        encoder.finish().unwrap()
    }

    /// Everything a reader gives, read `step` bytes at a time, and the
    /// error that ended it (kind and message).
    fn read_all(mut reader: impl Read, step: usize) -> (Vec<u8>, Option<(io::ErrorKind, String)>) {
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

    fn xz(plain: &[u8]) -> Vec<u8> {
        let mut encoder = liblzma::write::XzEncoder::new(Vec::new(), 6);
        encoder.write_all(plain).unwrap();
        encoder.finish().unwrap()
    }

    fn compressed_streams() -> Vec<(&'static str, Vec<u8>)> {
        let plain = games(3 << 20);
        let members = [gzip(&plain[..1 << 20]), gzip(&plain[1 << 20..])].concat();
        vec![
            ("gzip", gzip(&plain)),
            ("gzip, two members", members),
            ("zstd", zstd::encode_all(&plain[..], 3).unwrap()),
            ("bzip2", bzip2(&plain)),
            ("xz", xz(&plain)),
            ("xz, two streams", [xz(&plain[..1 << 20]), xz(&plain[1 << 20..])].concat()),
        ]
    }

    /// Each stream whole, cut in three places and with a byte changed in
    /// its middle.
    fn damaged(compressed: &[u8]) -> Vec<(String, Vec<u8>)> {
        let mut out: Vec<(String, Vec<u8>)> = [compressed.len(), compressed.len() * 3 / 4, compressed.len() / 3, 10]
            .into_iter()
            .map(|cut| (format!("cut at {cut}"), compressed[..cut].to_vec()))
            .collect();
        let mut changed = compressed.to_vec();
        changed[compressed.len() / 2] ^= 0x55;
        out.push(("a byte changed".to_owned(), changed));
        out
    }

    #[test]
    fn a_stream_read_ahead_gives_the_bytes_and_the_error_it_gives_in_place() {
        for (name, compressed) in compressed_streams() {
            for (damage, raw) in damaged(&compressed) {
                let stream = || Box::new(io::Cursor::new(raw.clone()));
                let (expected, expected_err) = read_all(input::decode(stream()).unwrap().1, 1 << 16);
                if raw.len() < compressed.len() {
                    assert!(expected_err.is_some(), "{name}, {damage}: fails");
                }
                for (step, threads) in [(1 << 16, 2), (1000, 2), (CHUNK + 1, 2), (1000, 4)] {
                    let (got, err) = read_all(input::decode_ahead(stream(), threads).unwrap().1, step);
                    let what = format!("{name}, {damage}, read {step} bytes at a time on {threads} threads");
                    assert!(got == expected, "{what}: {} bytes, not {}", got.len(), expected.len());
                    assert_eq!(err, expected_err, "{what}");
                }
            }
        }
    }

    /// A source that counts the bytes it gives, and tells when it is dropped
    /// (its `dropped` sender goes with it).
    struct Watched<R> {
        inner: R,
        given: Arc<AtomicUsize>,
        _dropped: mpsc::Sender<()>,
    }

    impl<R: Read> Read for Watched<R> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.given.fetch_add(n, Ordering::SeqCst);
            Ok(n)
        }
    }

    #[test]
    fn the_thread_stays_a_few_chunks_ahead_and_ends_when_the_reader_is_dropped() {
        let given = Arc::new(AtomicUsize::new(0));
        let (dropped_tx, dropped) = mpsc::channel();
        // An endless stream of zeros, as from /dev/zero.
        let source = Watched { inner: io::repeat(0), given: Arc::clone(&given), _dropped: dropped_tx };
        let mut reader = super::spawn(Box::new(source)).unwrap();
        let mut buf = vec![0; 5000];
        let mut read = 0;
        for _ in 0..200 {
            reader.read_exact(&mut buf).unwrap();
            read += buf.len();
            // However fast the thread runs, it fills no more chunks than
            // there are: the one being read, and the others.
            assert!(given.load(Ordering::SeqCst) <= read.next_multiple_of(CHUNK) + (CHUNKS - 1) * CHUNK);
        }
        drop(reader);
        // Returns (with the sender gone) once the thread has dropped the
        // source; it would wait for ever if the thread ran on.
        assert_eq!(dropped.recv(), Err(mpsc::RecvError));
    }

    #[test]
    fn a_read_fills_the_buffer_as_a_read_of_a_file_does() {
        let mut reader = super::spawn(Box::new(io::repeat(b'x'))).unwrap();
        let mut buf = vec![0; CHUNKS * CHUNK * 2 + 7];
        assert_eq!(reader.read(&mut buf).unwrap(), buf.len());
        assert!(buf.iter().all(|&b| b == b'x'));
    }

    #[test]
    fn a_thread_waiting_for_a_free_chunk_ends_when_the_reader_is_dropped_unread() {
        let (dropped_tx, dropped) = mpsc::channel();
        let source = Watched { inner: io::repeat(b'x'), given: Arc::default(), _dropped: dropped_tx };
        drop(super::spawn(Box::new(source)).unwrap());
        assert_eq!(dropped.recv(), Err(mpsc::RecvError));
    }

    #[test]
    fn a_panic_of_the_decompressor_reaches_the_reader() {
        struct Panics;
        impl Read for Panics {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                panic!("a planted panic");
            }
        }
        let mut reader = super::spawn(Box::new(Panics)).unwrap();
        let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reader.read(&mut [0; 10])));
        let message = panic.unwrap_err().downcast::<&str>().map(|m| *m);
        assert_eq!(message.ok(), Some("a planted panic"));
    }
}
