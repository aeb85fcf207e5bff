//! Throughput of the library stages on real games: framing alone, then
//! framing plus parsing and replay (`cargo bench`; reads ../shared/corpus).
//!
//! A plain harness (no criterion) so that it builds with the project's own
//! dependencies; it prints the median of several runs per stage.

#![allow(clippy::print_stdout)]

use std::{
    path::Path,
    sync::Arc,
    time::{Duration, Instant},
};

use pgnkit::{
    check::{Checker, Options},
    frame::{Batch, FrameOptions, Framer},
};

const RUNS: usize = 7;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn time(input: &[u8], stage: impl Fn(&[u8]) -> usize) -> (Duration, usize) {
    let mut games = 0;
    let times = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            games = stage(input);
            start.elapsed()
        })
        .collect();
    (median(times), games)
}

fn split_only(input: &[u8]) -> usize {
    let mut framer = Framer::with_options(input, FrameOptions::default());
    let mut batch = Batch::default();
    let mut games = 0;
    while framer.next_batch(&mut batch).expect("in memory") {
        games += batch.len();
    }
    games
}

fn split_and_check(input: &[u8]) -> usize {
    let mut framer = Framer::with_options(input, FrameOptions::default());
    let mut batch = Batch::default();
    let mut checker = Checker::new(Options { full_reports: false, ..Options::default() });
    let file: Arc<str> = "bench".into();
    let mut games = 0;
    while framer.next_batch(&mut batch).expect("in memory") {
        for game in batch.games() {
            games += usize::from(checker.check(&file, game).plies > 0);
        }
    }
    games
}

fn main() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if !corpus.is_dir() {
        println!("skipped: ../shared/corpus is absent");
        return;
    }
    let read = |path: &str| -> Vec<u8> {
        let raw = std::fs::File::open(corpus.join(path)).expect("corpus file");
        let (_, mut reader) = pgnkit::input::decode(Box::new(raw)).expect("decodable");
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut reader, &mut bytes).expect("readable");
        bytes
    };
    let inputs = [
        (
            "lichess+twic (human games, clocks)",
            [read("pgn/shakmaty/lichess_db_1000k.pgn"), read("pgn/shakmaty/twic1599_1000k.pgn")].concat(),
        ),
        ("bjbraams (198k short games)", read("bench/bjbraams_chessdb_198350_lines.pgn.gz")),
        ("real_games_mix (engine comments)", read("bench/real_games_mix.pgn.gz")),
    ];
    for (name, input) in &inputs {
        let mb = input.len() as f64 / 1e6;
        for (stage, f) in [("split", split_only as fn(&[u8]) -> usize), ("split+check", split_and_check)] {
            let (t, _) = time(input, f);
            println!("{name:38} {stage:12} {:8.1} ms {:8.1} MB/s", t.as_secs_f64() * 1e3, mb / t.as_secs_f64());
        }
    }
}
