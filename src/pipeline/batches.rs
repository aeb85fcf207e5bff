//! What the loop on one thread and the pooled loop share: the inputs cut
//! into batches, and a batch's wanted games worked into results.

use std::{
    io,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
};

use pgnkit::{
    frame::{Batch, Framer, RawGame},
    input,
};

use super::contract::{Options, Sink};

/// What reading the next batch gave.
pub(super) enum Next {
    /// Games of the named input are in the batch.
    Games(Arc<str>),
    /// The named input could not be opened or read to its end.
    Failed(Arc<str>, io::Error),
    /// Every input is read.
    Done,
}

/// The stream being framed, and its name. The framer is boxed, off the
/// cache line of the lock it is shared under: a worker waiting for that
/// lock tries it every microsecond or so, and each try takes the line from
/// the framing worker's core, which, with the framer's state on it, then
/// fetched the line back at its next step (-j2 took 0.97 to 0.98 of its
/// time once it was boxed).
type Current = (Arc<str>, Box<Framer<Box<dyn io::Read + Send>>>);

/// The inputs, opened one after the other, each as the streams it holds
/// (one, or the members of an archive), cut into batches.
pub(super) struct Batches<'a> {
    opts: &'a Options<'a>,
    /// Workers waiting for the framer, when several share it (see
    /// [`Handoff`](super::pooled)).
    waiting: Option<Arc<AtomicUsize>>,
    next_source: usize,
    /// The streams of the input being read, and how many it gave so far.
    streams: Option<(input::Streams, u64)>,
    current: Option<Current>,
}

impl<'a> Batches<'a> {
    pub(super) fn new(opts: &'a Options<'a>, waiting: Option<Arc<AtomicUsize>>) -> Self {
        Batches { opts, waiting, next_source: 0, streams: None, current: None }
    }

    /// Fills `batch` with the next games (reusing its buffers).
    pub(super) fn next(&mut self, batch: &mut Batch) -> Next {
        loop {
            if let Some((name, framer)) = &mut self.current {
                let name = Arc::clone(name);
                match framer.next_batch(batch) {
                    Ok(true) => return Next::Games(name),
                    Ok(false) => self.current = None,
                    Err(err) => {
                        self.current = None;
                        return Next::Failed(name, err);
                    }
                }
                continue;
            }
            if let Some((streams, given)) = &mut self.streams {
                let Some((name, stream)) = streams.next() else {
                    self.streams = None;
                    continue;
                };
                *given += 1;
                if *given > 1 {
                    self.opts.extra_inputs.fetch_add(1, Ordering::Relaxed);
                }
                let name = Arc::from(name);
                match stream {
                    Ok(reader) => {
                        let framer = Framer::with_options(reader, self.opts.frame);
                        let framer = match &self.waiting {
                            Some(waiting) => framer.share(Arc::clone(waiting)),
                            None => framer,
                        };
                        self.current = Some((name, Box::new(framer)));
                    }
                    Err(err) => return Next::Failed(name, err),
                }
                continue;
            }
            let Some(source) = self.opts.sources.get(self.next_source) else { return Next::Done };
            self.next_source += 1;
            self.streams = Some((input::open(source, self.opts.bar.progress(), self.opts.threads), 0));
        }
    }
}

/// The results of the wanted games of `batch` (its first game is number
/// `first` in the run), or none when no game is wanted.
pub(super) fn gather<R, K: Sink<R>>(
    mut results: K::Batch,
    batch: &Batch,
    first: u64,
    wanted: impl Fn(u64) -> bool,
    mut work: impl FnMut(RawGame<'_>) -> R,
) -> Option<K::Batch> {
    let mut any = false;
    for (number, game) in (first..).zip(batch.games()) {
        if wanted(number) {
            K::lend(&mut results);
            K::gather(&mut results, work(game));
            any = true;
        }
    }
    any.then_some(results)
}
