//! What a run starts besides its own thread: the thread that watches for
//! signals only once it creates a file a signal must remove, the worker
//! threads of `-j` only once its input holds a second batch.

use std::{
    fs,
    io::Write,
    os::unix::process::ExitStatusExt,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use crate::support::{Scratch, pgnkit_with_default_signals, root, signal};

/// The threads of the process `pid`.
fn threads(pid: u32) -> usize {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status.lines().find_map(|line| line.strip_prefix("Threads:")).map_or(0, |n| n.trim().parse().unwrap())
}

/// The bytes the process `pid` has read, from any file.
fn bytes_read(pid: u32) -> u64 {
    let io = fs::read_to_string(format!("/proc/{pid}/io")).unwrap_or_default();
    io.lines().find_map(|line| line.strip_prefix("rchar:")).map_or(0, |n| n.trim().parse().unwrap())
}

/// Waits (at most 20 s) until `ready` holds.
fn wait_until(what: &str, ready: impl Fn() -> bool) {
    let start = Instant::now();
    while !ready() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(ready(), "{what}");
}

/// `games` copies of a game of 47 plies, 441 bytes each.
fn games(games: usize) -> String {
    fs::read_to_string(root().join("testdata/valid/evergreen-game.pgn")).unwrap().repeat(games)
}

/// pgnkit with `args`, reading the games from an open pipe.
fn start(args: &[&str], dir: &std::path::Path) -> Child {
    let mut cmd: Command = pgnkit_with_default_signals();
    cmd.args(args).current_dir(dir).stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::null());
    cmd.spawn().expect("the binary runs")
}

#[test]
fn workers_start_with_the_second_batch_and_no_thread_watches_signals_for_a_run_writing_no_file() {
    let mut child = start(&["-j4", "-q", "validate"], &root());
    let pid = child.id();
    // 18 KB: less than a batch (64 KiB), which is not framed yet while the
    // pipe stays open. Read, as the count of bytes read says (past the few
    // KB read from other files), by the one thread of the process.
    let first = games(40);
    child.stdin.as_mut().unwrap().write_all(first.as_bytes()).unwrap();
    wait_until("the first games are read", || bytes_read(pid) >= first.len() as u64);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(threads(pid), 1);
    // 265 KB more: a second batch is framed (a batch is handed out once the
    // window past it is read, up to two batches), and the three other
    // workers start; still no thread for the signals.
    child.stdin.as_mut().unwrap().write_all(games(600).as_bytes()).unwrap();
    wait_until("the workers start", || threads(pid) == 4);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(threads(pid), 4);
    // SIGINT at its default action ends the run as the handler would.
    assert_eq!(signal(&mut child, "INT").signal(), Some(2));
}

#[test]
fn a_run_that_writes_a_file_watches_signals_from_the_moment_it_creates_it() {
    let scratch = Scratch::new("out");
    let dir = scratch.path("");
    let mut child = start(&["-j1", "convert", "--to", "pgn", "-o", "out.pgn"], &dir);
    let pid = child.id();
    child.stdin.as_mut().unwrap().write_all(games(10).as_bytes()).unwrap();
    let temporary = || {
        fs::read_dir(&dir)
            .unwrap()
            .filter_map(Result::ok)
            .any(|e| e.file_name().to_string_lossy().ends_with(".pgnkit-tmp"))
    };
    wait_until("the temporary file is created", temporary);
    assert_eq!(threads(pid), 2, "the run's thread and the one watching for signals");
    assert_eq!(signal(&mut child, "INT").signal(), Some(2));
    let left: Vec<_> = fs::read_dir(&dir).unwrap().filter_map(Result::ok).map(|e| e.file_name()).collect();
    assert!(left.is_empty(), "{left:?}");
}
