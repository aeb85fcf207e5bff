//! Pieces decoded on a pool of threads while one more scans for them.

use std::{
    collections::BTreeMap,
    io::{self, Read},
    panic::{self, AssertUnwindSafe},
    sync::{Arc, Mutex, PoisonError, mpsc},
    thread::{self, JoinHandle},
};

use crate::{
    decode::{Decoded, Pieces, decode, stream_rest},
    scan::{Piece, Scanner},
};

/// What a decoding thread hands back: a piece's number and the piece, or
/// the panic that decoding it raised.
type Handed = (u64, thread::Result<Decoded>);

/// Decoded on a pool of threads, while one thread scans.
pub(crate) struct Pooled {
    results: mpsc::Receiver<Handed>,
    /// Pieces decoded ahead of the next one.
    waiting: BTreeMap<u64, Decoded>,
    next: u64,
    /// A piece taken lets the scan go on to one more.
    taken: mpsc::Sender<()>,
    scanner: Option<JoinHandle<()>>,
}

impl Pooled {
    pub(crate) fn spawn(raw: Box<dyn Read + Send>, threads: usize) -> io::Result<Pooled> {
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
