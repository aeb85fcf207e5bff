//! Speed of the move-tree counter (`cargo bench --bench perft`): the start
//! position and Kiwipete, counted on one thread and over the root moves on
//! pools of 1 and 2 threads; median of several runs, in nodes per second.
//!
//! A plain harness (no criterion) so that it builds with the project's own
//! dependencies. `scripts/bench_perft.sh` times the binary against Stockfish.

#![allow(clippy::print_stdout)]

use std::time::{Duration, Instant};

use pgnkit::perft::{perft, perft_parallel, position_from_fen};

const RUNS: usize = 5;

const POSITIONS: [(&str, &str, u32, u64); 2] = [
    ("start position", "startpos", 5, 4_865_609),
    ("Kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4, 4_085_603),
];

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    for (name, fen, depth, nodes) in POSITIONS {
        let pos = &position_from_fen(fen).expect("a legal position");
        let mut cases: Vec<(String, Box<dyn Fn() -> u64>)> = Vec::new();
        cases.push(("sequential".to_owned(), Box::new(|| perft(pos, depth))));
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
            cases
                .push((format!("parallel -j{threads}"), Box::new(move || pool.install(|| perft_parallel(pos, depth)))));
        }
        for (label, count) in &cases {
            let times = (0..RUNS)
                .map(|_| {
                    let start = Instant::now();
                    assert_eq!(count(), nodes, "{name} depth {depth}");
                    start.elapsed()
                })
                .collect();
            let t = median(times);
            println!(
                "{name:15} depth {depth} {label:12} {:8.1} ms {:8.1} Mnodes/s",
                t.as_secs_f64() * 1e3,
                nodes as f64 / t.as_secs_f64() / 1e6
            );
        }
    }
}
