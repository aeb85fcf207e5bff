//! A mutation fuzzer on the stable toolchain, driving the same entry points
//! as the cargo-fuzz targets in `fuzz/` (`pgnkit::fuzzing`).
//!
//! Seeds are the files of `testdata/` and, when present, the PGN and FEN
//! files of `../shared/corpus` (read in place). Each target first replays the crash
//! reproducers kept in `fuzz/regressions/<target>/`, then mutates seeds for
//! `PGNKIT_FUZZ_SECONDS` seconds (default 2 and at most 10,000 inputs, so
//! `cargo test` stays quick and tries the same inputs on any machine;
//! `PGNKIT_FUZZ_SECONDS=900 cargo test --profile quick --test fuzz` for a real
//! run, `PGNKIT_FUZZ_RUNS` to cap the inputs). A panicking input is written to `target/fuzz-crashes/<target>/`
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
        // Past libtest's capture, which would show it only on a failure:
        // the fuzzer then sees far fewer kinds of input, and says so.
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            b"fuzz: ../shared/corpus is absent; seeding from testdata only\n",
        );
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

/// At most this many inputs a target: `PGNKIT_FUZZ_RUNS`, else 10,000 for
/// the quick run `cargo test` (and CI) makes, so that it tries the same
/// inputs on any machine fast enough (a faster one went further along the
/// seed's inputs, and could fail where a slower one passed); no cap for a
/// run given its seconds.
fn max_runs() -> u64 {
    match std::env::var("PGNKIT_FUZZ_RUNS").ok().and_then(|s| s.parse().ok()) {
        Some(runs) => runs,
        None if std::env::var_os("PGNKIT_FUZZ_SECONDS").is_some() => u64::MAX,
        None => 10_000,
    }
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

/// The targets, as `fuzz/Cargo.toml` names its binaries.
const TARGETS: [&str; 5] = ["frame", "validate", "fen", "moves", "roundtrip"];

/// The crash reproducers kept in `dir` (`fuzz/regressions/<target>/`),
/// sorted; files whose name starts with a dot (`.gitkeep`) are not inputs.
/// A missing folder fails: a renamed target would otherwise replay nothing.
fn regression_inputs(dir: &Path) -> Vec<PathBuf> {
    assert!(dir.is_dir(), "{} is missing: fuzz/README.md promises one per target", dir.display());
    let mut inputs = Vec::new();
    files(dir, &mut inputs);
    inputs.retain(|path| !path.file_name().is_some_and(|name| name.to_string_lossy().starts_with('.')));
    inputs.sort();
    inputs
}

fn fuzz(name: &str, target: fn(&[u8]), seed: u64) {
    let regressions = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions").join(name);
    for path in regression_inputs(&regressions) {
        run_one(name, target, &std::fs::read(&path).expect("regression input"));
    }
    let seeds = seeds();
    let mut rng = Rng(seed);
    let started = Instant::now();
    let (deadline, max_runs) = (started + budget(), max_runs());
    let mut runs = 0u64;
    while runs < max_runs && Instant::now() < deadline {
        let mut input = seeds[rng.below(seeds.len())].clone();
        // The first byte picks options (batch size, size cap, lint).
        input.insert(0, rng.next() as u8);
        mutate(&mut rng, &seeds, &mut input);
        run_one(name, target, &input);
        runs += 1;
    }
    eprintln!("fuzz {name}: {runs} inputs in {:.1?}, no panic", started.elapsed());
}

#[test]
fn fuzz_frame() {
    fuzz("frame", pgnkit::fuzzing::frame, 0x9e37_79b9_7f4a_7c15);
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

#[test]
fn fuzz_roundtrip() {
    fuzz("roundtrip", pgnkit::fuzzing::roundtrip, 0x1405_7b7e_f767_814f);
}

#[test]
fn every_fuzz_target_has_a_regressions_folder_and_the_fuzz_crate_a_lockfile() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let manifest = std::fs::read_to_string(fuzz.join("Cargo.toml")).expect("fuzz/Cargo.toml");
    let mut bins: Vec<&str> = manifest
        .split("[[bin]]")
        .skip(1)
        .filter_map(|bin| bin.lines().find_map(|line| line.strip_prefix("name = ")))
        .map(|name| name.trim_matches('"'))
        .collect();
    bins.sort_unstable();
    let mut targets = TARGETS.to_vec();
    targets.sort_unstable();
    assert_eq!(bins, targets, "the stable driver fuzzes every cargo-fuzz target");
    for target in TARGETS {
        assert!(fuzz.join("regressions").join(target).is_dir(), "fuzz/regressions/{target}/ is missing");
    }
    // Its own workspace, so its own lockfile: builds of the targets are repeatable.
    let lock = std::fs::read_to_string(fuzz.join("Cargo.lock")).expect("fuzz/Cargo.lock is committed");
    assert!(lock.contains("name = \"libfuzzer-sys\""));
    let ignored = std::fs::read_to_string(fuzz.join(".gitignore")).unwrap_or_default();
    assert!(!ignored.lines().any(|line| line.trim() == "Cargo.lock"), "fuzz/.gitignore must not ignore Cargo.lock");
}

/// The `[[package]]` entries of a `Cargo.lock`: name, version, and the
/// dependencies as written (`name` or `name version`).
fn locked_packages(lock: &str) -> Vec<(String, String, Vec<String>)> {
    let field = |block: &str, key: &str| {
        block
            .lines()
            .find_map(|line| line.strip_prefix(key))
            .map(|v| v.trim_matches('"').to_owned())
            .unwrap_or_default()
    };
    lock.split("[[package]]")
        .skip(1)
        .map(|block| {
            let dependencies = block
                .split_once("dependencies = [")
                .map(|(_, list)| list.split(']').next().unwrap_or(""))
                .unwrap_or("")
                .lines()
                .map(|line| line.trim().trim_end_matches(',').trim_matches('"').to_owned())
                .filter(|line| !line.is_empty())
                .collect();
            (field(block, "name = "), field(block, "version = "), dependencies)
        })
        .collect()
}

#[test]
fn the_fuzz_lockfile_locks_every_dependency_of_pgnkit_at_the_main_lockfiles_versions() {
    // It was stale: pgnkit's newer dependencies were missing from it, so a
    // `--locked` build of the fuzz crate failed.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |path: &str| std::fs::read_to_string(root.join(path)).expect(path);
    let (main, fuzz) = (locked_packages(&read("Cargo.lock")), locked_packages(&read("fuzz/Cargo.lock")));
    let manifest = read("Cargo.toml");
    let dependencies = manifest.split("[dependencies]").nth(1).unwrap().split("\n[").next().unwrap();
    let required: Vec<&str> = dependencies
        .lines()
        .filter(|line| line.contains(" = ") && !line.contains("optional = true"))
        .map(|line| line.split(" = ").next().unwrap().trim())
        .collect();
    assert!(required.len() > 10, "{required:?}");
    let (_, _, locked) = fuzz.iter().find(|(name, _, _)| name == "pgnkit").expect("pgnkit in fuzz/Cargo.lock");
    for name in required {
        assert!(
            locked.iter().any(|d| d == name || d.starts_with(&format!("{name} "))),
            "fuzz/Cargo.lock lacks pgnkit's dependency {name}: make it again from Cargo.lock (fuzz/README.md)"
        );
    }
    for (name, version, _) in &fuzz {
        let in_main: Vec<&String> = main.iter().filter(|(n, _, _)| n == name).map(|(_, v, _)| v).collect();
        assert!(
            in_main.is_empty() || in_main.contains(&version),
            "fuzz/Cargo.lock has {name} {version}, Cargo.lock {in_main:?}"
        );
    }
}

#[test]
fn regressions_are_every_file_of_the_folder_but_dotfiles() {
    let dir = std::env::temp_dir().join(format!("pgnkit-fuzz-regressions-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("nested")).unwrap();
    for name in [".gitkeep", "crash-b", "nested/crash-a"] {
        std::fs::write(dir.join(name), b"1. e4 *").unwrap();
    }
    assert_eq!(regression_inputs(&dir), [dir.join("crash-b"), dir.join("nested/crash-a")]);
    std::fs::remove_dir_all(&dir).unwrap();
}
