//! A mutation fuzzer on the stable toolchain, driving the same entry points
//! as the cargo-fuzz targets in `fuzz/` (`pgnkit::fuzzing`).
//!
//! Seeds are the files of `testdata/` and, when present, the PGN and FEN
//! files of `../shared/corpus` (read in place). Each target first replays the crash
//! reproducers kept in `fuzz/regressions/<target>/`, then mutates seeds for
//! `PGNKIT_FUZZ_SECONDS` seconds (default 2, so `cargo test` stays quick;
//! `PGNKIT_FUZZ_SECONDS=900 cargo test --profile quick --test fuzz` for a real
//! run). A panicking input is written to `target/fuzz-crashes/<target>/`
//! and fails the test with its path.

// The fuzzer reports its progress and crashes on stderr.
#![allow(clippy::print_stderr)]

use std::{
    panic::{self, AssertUnwindSafe},
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

/// Deterministic xorshift, seeded per target, so a run can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Fragments that make mutations reach deep into the parser and the rules.
const DICTIONARY: &[&[u8]] = &[
    b"[Event \"x\"]\n",
    b"[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n",
    b"[Variant \"Chess960\"]\n",
    b"[Termination \"Time forfeit\"]\n",
    b"\n\n",
    b"\r\n",
    b"1. e4 e5 2. Nf3 Nc6 3. Bb5 ",
    b"O-O ",
    b"0-0-0 ",
    b"exd6 e.p. ",
    b"e8=Q+ ",
    b"e8Q ",
    b"-- ",
    b"{ comment } ",
    b"( 1... c5 ) ",
    b"$14 ",
    b"!? ",
    b"+- ",
    b"1-0",
    b"1/2-1/2",
    b"*",
    b"\xef\xbb\xbf",
    b"\xff",
    b"\0",
    b"%",
    b";",
    b"(",
    b")",
    b"{",
    b"}",
    b"[",
    b"\"",
];

fn mutate(rng: &mut Rng, seeds: &[Vec<u8>], input: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(input.len() + 1);
        match rng.below(6) {
            0 if !input.is_empty() => {
                let at = at.min(input.len() - 1);
                input[at] ^= 1 << rng.below(8);
            }
            1 => {
                let piece = DICTIONARY[rng.below(DICTIONARY.len())];
                input.splice(at..at, piece.iter().copied());
            }
            2 if !input.is_empty() => {
                let end = (at + rng.below(64)).min(input.len());
                input.drain(at.min(end)..end);
            }
            3 if !input.is_empty() => {
                let start = rng.below(input.len());
                let end = (start + rng.below(256)).min(input.len());
                let copy = input[start..end].to_vec();
                input.splice(at..at, copy);
            }
            4 => {
                let other = &seeds[rng.below(seeds.len())];
                let start = rng.below(other.len());
                let end = (start + rng.below(4096)).min(other.len());
                input.splice(at..at, other[start..end].iter().copied());
            }
            _ => input.insert(at, rng.next() as u8),
        }
    }
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Seed inputs: small files whole, big ones cut into 8 KiB pieces.
fn seeds() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    files(&root.join("testdata"), &mut paths);
    let corpus = root.join("../shared/corpus");
    if corpus.is_dir() {
        files(&corpus.join("pgn"), &mut paths);
        files(&corpus.join("bad"), &mut paths);
        files(&corpus.join("fen"), &mut paths);
    } else {
        eprintln!("fuzz: ../shared/corpus is absent; seeding from testdata only");
    }
    paths.sort();
    let mut seeds = Vec::new();
    for path in paths {
        let Ok(bytes) = std::fs::read(&path) else { continue };
        seeds.extend(bytes.chunks(8 << 10).take(16).map(<[u8]>::to_vec));
    }
    seeds.push(Vec::new());
    seeds
}

fn budget() -> Duration {
    let seconds = std::env::var("PGNKIT_FUZZ_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(2.0);
    Duration::from_secs_f64(seconds)
}

/// Runs `target` on `input`; on a panic, keeps the input and fails.
fn run_one(name: &str, target: fn(&[u8]), input: &[u8]) {
    if panic::catch_unwind(AssertUnwindSafe(|| target(input))).is_ok() {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-crashes").join(name);
    std::fs::create_dir_all(&dir).expect("crash directory");
    let hash = input.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    let path = dir.join(format!("crash-{hash:016x}"));
    std::fs::write(&path, input).expect("crash file");
    panic!("{name}: the input in {} panics", path.display());
}

fn fuzz(name: &str, target: fn(&[u8]), seed: u64) {
    let regressions = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions").join(name);
    let mut known = Vec::new();
    files(&regressions, &mut known);
    for path in known {
        run_one(name, target, &std::fs::read(&path).expect("regression input"));
    }
    let seeds = seeds();
    let mut rng = Rng(seed);
    let deadline = Instant::now() + budget();
    let mut runs = 0u64;
    while Instant::now() < deadline {
        let mut input = seeds[rng.below(seeds.len())].clone();
        // The first byte picks options (batch size, size cap, lint).
        input.insert(0, rng.next() as u8);
        mutate(&mut rng, &seeds, &mut input);
        run_one(name, target, &input);
        runs += 1;
    }
    eprintln!("fuzz {name}: {runs} inputs in {:?}, no panic", budget());
}

#[test]
fn fuzz_split() {
    fuzz("split", pgnkit::fuzzing::split, 0x9e37_79b9_7f4a_7c15);
}

#[test]
fn fuzz_validate() {
    fuzz("validate", pgnkit::fuzzing::validate, 0x2545_f491_4f6c_dd1d);
}

#[test]
fn fuzz_fen() {
    fuzz("fen", pgnkit::fuzzing::fen, 0x853c_49e6_748f_ea9b);
}

#[test]
fn fuzz_moves() {
    fuzz("moves", pgnkit::fuzzing::moves, 0xda94_2042_e4dd_58b5);
}
