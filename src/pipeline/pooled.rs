//! The pipeline on N threads (the calling thread and N-1 started once the
//! input holds a second batch): each thread in turn frames the next batch
//! of the input under a lock,
//! works it, and hands it over; finished batches go to the sink in input
//! order, written by whichever thread finishes the batch that is next.
//!
//! A thread that finds another framing waits, and the one framing gives it
//! the batch it is framing once the framer hands it out early (see
//! [`Handoff`]), then frames on for itself. So the framer's own state moves
//! between cores only when the framer is free, no thread is there only to
//! feed or drain the others, and nothing waits for every thread to finish
//! a batch. Batch buffers are reused (a worker holds one, and a waiting
//! worker's is left for the one framing to frame on in), and at most
//! [`Schedule::in_flight`] batches are framed and not yet written, so
//! memory stays at a few batches per thread whatever the input size. The
//! numbers are the [`Schedule`]'s.
//!
//! [`Schedule`]: super::schedule::Schedule
//! [`Schedule::in_flight`]: super::schedule::Schedule::in_flight

use std::{
    collections::BTreeMap,
    io,
    sync::{
        Arc, Condvar, Mutex, TryLockError,
        atomic::{AtomicUsize, Ordering},
    },
    time::Instant,
};

use pgnkit::frame::{Batch, RawGame};

use super::{
    batches::{Batches, Next, gather},
    contract::{Options, Sink},
    schedule::SCHEDULE,
};

/// What a worker hands back for one numbered batch.
enum Outcome<B> {
    /// The batch's results; none when no game of it was wanted.
    Results(Option<B>),
    /// The named input failed after the batches before this one.
    InputError(Arc<str>, io::Error),
    /// The worker panicked on this batch.
    Panic(Box<dyn std::any::Any + Send>),
}

/// The inputs, cut into numbered batches by whichever worker needs one.
struct SharedFraming<'a> {
    batches: Batches<'a>,
    /// Number of the next batch framed.
    next_seq: u64,
    /// Games framed so far (the number of the next one, for `--shard`).
    framed: u64,
    done: bool,
}

/// The sink and the batches done but not yet handed to it.
struct Output<'s, K, B> {
    sink: &'s mut K,
    finished: BTreeMap<u64, Outcome<B>>,
    /// Number of the next batch the sink takes.
    next_out: u64,
    /// Empty result batches: one for each batch that may be framed and not
    /// yet handed to the sink, so when there is none, workers wait.
    free: Vec<B>,
    /// Workers waiting for a free result batch.
    waiting: usize,
    /// Every input is framed.
    input_done: bool,
    /// The run stops: the sink is finished or failed, or a worker panicked.
    stop: bool,
    error: Option<io::Error>,
    panic: Option<Box<dyn std::any::Any + Send>>,
}

/// The pooled loop of [`super::run`], on N threads (the calling thread and N-1
/// started for the run): each thread frames its own next batch (under a
/// lock, so in input order; or is given one by the thread framing, see
/// [`Handoff`]), works it, and hands what is done to the sink in input
/// order (under another lock: whoever finishes the next batch writes it,
/// and any after it that are done). No thread only waits on the others. At
/// most [`Schedule::in_flight`] batches are framed and not yet written: a
/// long game holds up the output, not the workers, until that many pile up.
///
/// The calling thread starts alone: the others are started when it frames
/// a second batch, so that an input of one batch (a game, a few hundred)
/// starts no thread; a larger one has the others from its second batch on.
///
/// [`Schedule::in_flight`]: super::schedule::Schedule::in_flight
pub(super) fn run<S, R, I, W, K>(
    opts: &Options<'_>,
    wanted: &(impl Fn(u64) -> bool + Sync),
    init: &I,
    work: &W,
    sink: &mut K,
) -> io::Result<()>
where
    K: Sink<R> + Send,
    S: Send,
    I: Fn() -> S + Sync,
    W: Fn(&mut S, &Arc<str>, RawGame<'_>) -> R + Sync,
{
    let limit = SCHEDULE.in_flight(opts.threads);
    let waiting = Arc::new(AtomicUsize::new(0));
    let framing =
        SharedFraming { batches: Batches::new(opts, Some(Arc::clone(&waiting))), next_seq: 0, framed: 0, done: false };
    let framer = Mutex::new(framing);
    let handoff = Handoff::new(waiting);
    let free = (0..limit).map(|_| sink.new_batch()).collect();
    let output = Mutex::new(Output {
        sink,
        finished: BTreeMap::new(),
        next_out: 0,
        free,
        waiting: 0,
        input_done: false,
        stop: false,
        error: None,
        panic: None,
    });
    let room = Condvar::new();
    let worker = |others: &dyn Fn()| {
        let run = std::panic::AssertUnwindSafe(|| {
            let mut state = None;
            work_batches(opts, &framer, &handoff, &output, &room, others, |batch, name, first, results| {
                // A name of this worker's own, so that the games' clones
                // of it do not share a count with the other workers.
                let name: Arc<str> = Arc::from(&**name);
                let state = state.get_or_insert_with(init);
                gather::<R, K>(results, batch, first, wanted, |game| work(state, &name, game))
            });
        });
        // A panic outside a batch's work (framing, the sink) stops the run
        // at once; the others then leave their loops.
        if let Err(panic) = std::panic::catch_unwind(run) {
            let mut output = lock(&output);
            output.panic.get_or_insert(panic);
            output.stop = true;
            room.notify_all();
        }
    };
    std::thread::scope(|scope| {
        let started = std::sync::Once::new();
        let others = || {
            started.call_once(|| {
                for _ in 1..opts.threads {
                    let spawned = std::thread::Builder::new().spawn_scoped(scope, || worker(&|| {}));
                    if let Err(err) = spawned {
                        let mut output = lock(&output);
                        output.error.get_or_insert(err);
                        output.stop = true;
                        room.notify_all();
                        return;
                    }
                }
            });
        };
        worker(&others);
    });
    let output = output.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(panic) = output.panic {
        std::panic::resume_unwind(panic);
    }
    output.error.map_or(Ok(()), Err)
}

/// One worker's loop: wait for room, frame a batch, work it with `work`
/// (given the batch, its input, the number of its first game in the run
/// and an empty result batch), hand it over; until the input or the run
/// ends. `others` starts the other workers, once a second batch is framed.
fn work_batches<R, K: Sink<R>>(
    opts: &Options<'_>,
    framer: &Mutex<SharedFraming<'_>>,
    handoff: &Handoff,
    output: &Mutex<Output<'_, K, K::Batch>>,
    room: &Condvar,
    others: &dyn Fn(),
    mut work: impl FnMut(&Batch, &Arc<str>, u64, K::Batch) -> Option<K::Batch>,
) {
    let mut batch = Batch::default();
    loop {
        let results = {
            let mut output = lock(output);
            while output.free.is_empty() && !output.stop && !output.input_done {
                output.waiting += 1;
                output = room.wait(output).unwrap_or_else(std::sync::PoisonError::into_inner);
                output.waiting -= 1;
            }
            match output.free.pop() {
                Some(results) if !output.stop && !output.input_done => results,
                _ => return,
            }
        };
        let (seq, framed) = match framer_or_batch(framer, handoff, &mut batch) {
            Turn::Given(given) => (given.seq, Ok((given.name, given.first))),
            Turn::Frame(mut framer) => loop {
                if framer.done {
                    return;
                }
                let seq = framer.next_seq;
                let next = framer.batches.next(&mut batch);
                if seq > 0 && !matches!(next, Next::Done) {
                    others();
                }
                match next {
                    Next::Done => {
                        framer.done = true;
                        drop(framer);
                        lock(output).input_done = true;
                        room.notify_all();
                        return;
                    }
                    Next::Failed(name, err) => {
                        framer.next_seq += 1;
                        break (seq, Err((name, err)));
                    }
                    Next::Games(name) => {
                        framer.next_seq += 1;
                        let first = framer.framed;
                        framer.framed += batch.len() as u64;
                        // A worker waits for the framer: this batch is
                        // theirs, and this worker frames on for itself.
                        if handoff.give(&mut batch, Given { seq, name: Arc::clone(&name), first }) {
                            continue;
                        }
                        break (seq, Ok((name, first)));
                    }
                }
            },
        };
        let outcome = match framed {
            Err((name, err)) => Outcome::InputError(name, err),
            Ok((name, first)) => {
                let worked =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&batch, &name, first, results)));
                worked.map_or_else(Outcome::Panic, Outcome::Results)
            }
        };
        // A batch that held a huge game gives its memory back.
        if !SCHEDULE.keeps_batch(batch.capacity(), &opts.frame) {
            batch = Batch::default();
        }
        let mut output = lock(output);
        output.finished.insert(seq, outcome);
        deliver(&mut output);
        if output.waiting > 0 {
            room.notify_all();
        }
    }
}

/// Hands the sink every finished batch that is next in input order, each
/// freeing room for one more.
fn deliver<R, K: Sink<R>>(output: &mut Output<'_, K, K::Batch>) {
    while !output.stop {
        let Some(outcome) = output.finished.remove(&output.next_out) else { return };
        output.next_out += 1;
        let written = match outcome {
            Outcome::Results(Some(results)) => output.sink.batch(results),
            Outcome::Results(None) => Ok(()),
            Outcome::InputError(name, err) => {
                output.sink.input_error(&name, &err);
                Ok(())
            }
            Outcome::Panic(panic) => {
                output.panic = Some(panic);
                output.stop = true;
                return;
            }
        };
        if let Err(err) = written {
            output.error = Some(err);
            output.stop = true;
            return;
        }
        if output.sink.finished() {
            output.stop = true;
            return;
        }
        let empty = output.sink.new_batch();
        output.free.push(empty);
    }
}

/// A batch framed by one worker for another.
struct Given {
    seq: u64,
    name: Arc<str>,
    first: u64,
}

/// Where workers that find the framer busy wait for a batch: each leaves
/// an empty batch buffer (a spare), and the worker framing gives its batch
/// in the spare's place as soon as the framer hands it out (early, as
/// [`Framer::share`] says), then frames on for itself. So a waiting worker
/// neither waits for a whole batch to be framed nor then frames one itself
/// on a core the framer's state is not on. (At -j2 framing is a third of
/// the work, and two of three takings of the framer found it busy.)
///
/// [`Framer::share`]: pgnkit::frame::Framer::share
struct Handoff {
    slots: Mutex<Slots>,
    /// The spares left (the framer hands a batch out early while any are).
    waiting: Arc<AtomicUsize>,
    /// The batches handed out and not yet taken, read without the lock.
    given: AtomicUsize,
}

#[derive(Default)]
struct Slots {
    spares: Vec<Batch>,
    given: Vec<(Batch, Given)>,
}

impl Handoff {
    fn new(waiting: Arc<AtomicUsize>) -> Self {
        Handoff { slots: Mutex::default(), waiting, given: AtomicUsize::new(0) }
    }

    /// Gives `batch` to a waiting worker, if one left a spare, which takes
    /// its place.
    fn give(&self, batch: &mut Batch, given: Given) -> bool {
        if self.waiting.load(Ordering::Relaxed) == 0 {
            return false;
        }
        let mut slots = lock(&self.slots);
        let Some(spare) = slots.spares.pop() else { return false };
        self.waiting.fetch_sub(1, Ordering::Relaxed);
        let full = std::mem::replace(batch, spare);
        slots.given.push((full, given));
        self.given.fetch_add(1, Ordering::Release);
        true
    }

    fn wait(&self, batch: &mut Batch) {
        lock(&self.slots).spares.push(std::mem::take(batch));
        self.waiting.fetch_add(1, Ordering::Relaxed);
    }

    /// Takes back what the worker left: a batch given to it, or else a
    /// spare.
    fn take(&self, batch: &mut Batch) -> Option<Given> {
        let mut slots = lock(&self.slots);
        if let Some((full, given)) = slots.given.pop() {
            self.given.fetch_sub(1, Ordering::Relaxed);
            *batch = full;
            return Some(given);
        }
        *batch = slots.spares.pop().expect("a spare for each waiting worker");
        self.waiting.fetch_sub(1, Ordering::Relaxed);
        None
    }
}

/// What a worker does next.
enum Turn<'m, 'a> {
    /// Frame: it holds the framer.
    Frame(std::sync::MutexGuard<'m, SharedFraming<'a>>),
    /// Work the batch another worker framed for it.
    Given(Given),
}

/// The framer, or a batch framed by the worker that holds it. A worker
/// that finds the framer busy spins a while first: when framing is most
/// of the work (`filter` on tags alone), a worker comes back for the next
/// batch while another is still framing one, and going to sleep and being
/// woken again cost more than the framing left to wait for (a tag-only
/// filter at -j2 was slower than at -j1; see [`Schedule::spin`]).
///
/// [`Schedule::spin`]: super::schedule::Schedule::spin
fn framer_or_batch<'m, 'a>(framer: &'m Mutex<SharedFraming<'a>>, handoff: &Handoff, batch: &mut Batch) -> Turn<'m, 'a> {
    let try_framer = || match framer.try_lock() {
        Ok(guard) => Some(guard),
        Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    };
    if let Some(guard) = try_framer() {
        return Turn::Frame(guard);
    }
    handoff.wait(batch);
    let start = Instant::now();
    let guard = loop {
        if handoff.given.load(Ordering::Acquire) > 0 {
            // Taken below, unless another waiting worker takes it first.
            break None;
        }
        if let Some(guard) = try_framer() {
            break Some(guard);
        }
        if start.elapsed() >= SCHEDULE.spin {
            break Some(lock(framer));
        }
        for _ in 0..SCHEDULE.spin_pauses {
            std::hint::spin_loop();
        }
    };
    match handoff.take(batch) {
        Some(given) => Turn::Given(given),
        None => Turn::Frame(guard.unwrap_or_else(|| lock(framer))),
    }
}

/// Locks a mutex of the run; one poisoned by a panic is still usable (the
/// panic itself is reported by the run).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use pgnkit::frame::FrameOptions;

    #[test]
    fn a_waiting_worker_is_given_the_batch_being_framed_and_its_spare_takes_its_place() {
        use pgnkit::frame::{Batch, Framer};
        use std::sync::{Arc, atomic::AtomicUsize};

        use super::{Given, Handoff};

        let one_game = || {
            let mut batch = Batch::default();
            let mut framer = Framer::with_options(&b"[Event \"a\"]\n\n1. e4 *\n"[..], FrameOptions::default());
            assert!(framer.next_batch(&mut batch).unwrap());
            batch
        };
        let given = |seq| Given { seq, name: Arc::from("a.pgn"), first: 3 };
        let handoff = Handoff::new(Arc::new(AtomicUsize::new(0)));
        let waiting = || handoff.waiting.load(std::sync::atomic::Ordering::Relaxed);
        let mut framing = one_game();
        assert!(!handoff.give(&mut framing, given(6)), "nobody waits: the batch stays");
        assert_eq!(framing.len(), 1);

        let mut waiter = Batch::default();
        handoff.wait(&mut waiter);
        assert_eq!(waiting(), 1);
        assert!(handoff.give(&mut framing, given(7)));
        assert_eq!((framing.len(), waiting()), (0, 0), "the framing worker frames on in the spare");
        let taken = handoff.take(&mut waiter).expect("a batch was given");
        assert_eq!((taken.seq, taken.first, waiter.len()), (7, 3, 1));

        // Given nothing (the framer came free first), a worker takes its
        // spare back.
        handoff.wait(&mut waiter);
        assert!(handoff.take(&mut waiter).is_none());
        assert_eq!((waiter.len(), waiting()), (1, 0));
    }
}
