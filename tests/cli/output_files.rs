//! Files written by every command (`convert -o`, `filter --rejects`,
//! `stats --svg`, `split`): renamed into place only when complete, so that
//! a full disk or a signal leaves no file cut short; never written over an
//! input, whatever its name; never through a planted symbolic link; and
//! `split`'s lock on its out-dir.

use std::{
    fs::{self, File},
    io::Write,
    os::unix::process::ExitStatusExt,
    path::Path,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use crate::support::{Scratch, pgnkit, pgnkit_with_default_signals, root, run, signal};

const FAMOUS: &str = "testdata/valid/famous-games.pgn";

/// A copy of the famous games in `dir`, as an input that must stay whole.
fn input(dir: &Scratch, name: &str) -> (String, Vec<u8>) {
    let bytes = fs::read(root().join(FAMOUS)).expect("fixture");
    (dir.write(name, &bytes), bytes)
}

/// The names in `dir`, hidden ones included, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("directory")
        .map(|e| e.expect("entry").file_name().into_string().expect("UTF-8 name"))
        .collect();
    names.sort();
    names
}

/// `n` distinct valid games with a comment of pseudo-random hex each, so
/// that even compressed they take some room.
fn generated_games(n: usize) -> String {
    let mut state: u64 = 0x243f_6a88_85a3_08d3;
    let mut out = String::new();
    for i in 0..n {
        let mut noise = String::new();
        for _ in 0..16 {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            noise.push_str(&format!("{:016x}", state >> 1));
        }
        out.push_str(&format!(
            "[Event \"Generated {i}\"]\n[Site \"?\"]\n[Date \"2024.01.01\"]\n[Round \"{i}\"]\n[White \"W{i}\"]\n\
             [Black \"B{i}\"]\n[Result \"1-0\"]\n\n1. e4 {{ {noise} }} e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n\n"
        ));
    }
    out
}

/// `pgnkit ARGS` in `dir` under `sh`, with files limited to about 20 KiB
/// (`ulimit -f`) and SIGXFSZ ignored, so that a write past the limit fails
/// with EFBIG as it would on a full disk.
fn run_with_small_disk(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = run_under_sh(dir, "trap '' XFSZ; ulimit -f 40;", args, "");
    (out.code, out.stderr)
}

/// `pgnkit ARGS` run by `sh` in `dir`, after the commands `before` and
/// with the redirections `after` (`>> s.pgn`, `3>> log`).
fn run_under_sh(dir: &Path, before: &str, args: &[&str], after: &str) -> crate::support::Run {
    let out = Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("{before} exec \"$0\" \"$@\" {after}"))
        .arg(env!("CARGO_BIN_EXE_pgnkit"))
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("sh runs");
    crate::support::Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn convert_on_a_full_disk_exits_2_and_leaves_the_old_output_and_no_temporary_file() {
    let dir = Scratch::new("convert-full");
    fs::write(dir.path("in.pgn"), generated_games(2_000)).unwrap();
    fs::write(dir.path("out.pgn"), "old\n").unwrap();
    let (code, stderr) = run_with_small_disk(&dir, &["convert", "-q", "--to", "pgn", "-o", "out.pgn", "in.pgn"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("File too large"), "{stderr}");
    assert_eq!(fs::read_to_string(dir.path("out.pgn")).unwrap(), "old\n");
    assert_eq!(names(&dir), ["in.pgn", "out.pgn"]);
}

#[test]
fn split_zst_on_a_full_disk_exits_2_and_leaves_the_earlier_shards_whole() {
    let dir = Scratch::new("split-full");
    fs::write(dir.path("in.pgn"), generated_games(2_000)).unwrap();
    let args = ["split", "-q", "--shards", "2", "--compress", "zst", "in.pgn", "--out-dir", "out"];
    let whole = pgnkit().args(args).current_dir(&dir).output().unwrap();
    assert!(whole.status.success(), "{}", String::from_utf8_lossy(&whole.stderr));
    let before: Vec<Vec<u8>> =
        names(&dir.path("out")).iter().map(|name| fs::read(dir.path("out").join(name)).unwrap()).collect();
    assert_eq!(names(&dir.path("out")), ["shard-0001-of-0002.pgn.zst", "shard-0002-of-0002.pgn.zst"]);

    let (code, stderr) = run_with_small_disk(&dir, &args);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("File too large"), "{stderr}");
    // The shards of the first run, untouched: each still passes a full
    // decode with its checksum, and nothing else is left beside them.
    assert_eq!(names(&dir.path("out")), ["shard-0001-of-0002.pgn.zst", "shard-0002-of-0002.pgn.zst"]);
    for (name, bytes) in names(&dir.path("out")).iter().zip(&before) {
        let now = fs::read(dir.path("out").join(name)).unwrap();
        assert_eq!(&now, bytes, "{name}");
        zstd::decode_all(&now[..]).unwrap_or_else(|err| panic!("{name}: {err}"));
    }
}

/// Starts `pgnkit ARGS` in `dir` reading games from a pipe that stays open,
/// so that it is still at work when the signal comes.
fn start_on_an_open_pipe(dir: &Path, args: &[&str]) -> Child {
    let mut cmd = pgnkit_with_default_signals();
    cmd.args(args);
    start_command_on_an_open_pipe(dir, cmd)
}

fn start_command_on_an_open_pipe(dir: &Path, mut cmd: Command) -> Child {
    let mut child = cmd
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    let games = generated_games(3_000);
    child.stdin.as_mut().expect("piped").write_all(games.as_bytes()).expect("games fed");
    child
}

/// Waits (at most 20 s) until `ready` holds of the names in `dir`.
fn wait_for(dir: &Path, ready: impl Fn(&[String]) -> bool) {
    let start = Instant::now();
    while !ready(&names(dir)) && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(ready(&names(dir)), "{:?}", names(dir));
}

#[test]
fn convert_stopped_by_sigterm_or_sigint_ends_by_it_and_leaves_the_old_output_and_no_temporary_file() {
    for (name, number) in [("TERM", 15), ("INT", 2)] {
        let dir = Scratch::new(&format!("convert-sig{name}"));
        fs::write(dir.path("out.pgn"), "old\n").unwrap();
        let mut child = start_on_an_open_pipe(&dir, &["convert", "--to", "pgn", "-o", "out.pgn"]);
        // The temporary file is made before any game is read; wait until
        // games have gone into it.
        let temp = |names: &[String]| names.iter().find(|n| n.ends_with(".pgnkit-tmp")).cloned();
        wait_for(&dir, |names| temp(names).is_some_and(|t| fs::metadata(dir.path(&t)).is_ok_and(|m| m.len() > 0)));
        let status = signal(&mut child, name);
        assert_eq!(status.signal(), Some(number), "SIG{name}: {status:?}");
        assert_eq!(names(&dir), ["out.pgn"], "SIG{name}");
        assert_eq!(fs::read_to_string(dir.path("out.pgn")).unwrap(), "old\n", "SIG{name}");
    }
}

#[test]
fn split_stopped_by_sigint_or_sigterm_ends_by_it_and_leaves_no_shard_temporary_or_lock_file() {
    for (name, number) in [("INT", 2), ("TERM", 15)] {
        let dir = Scratch::new(&format!("split-sig{name}"));
        let mut child =
            start_on_an_open_pipe(&dir, &["split", "--games", "100", "--compress", "zst", "--out-dir", "out"]);
        wait_for(&dir, |names| names == ["out"]);
        wait_for(&dir.path("out"), |names| names.iter().any(|n| n.ends_with(".pgnkit-tmp")));
        assert!(names(&dir.path("out")).iter().all(|n| n.starts_with('.')), "no final name before the end");
        let status = signal(&mut child, name);
        assert_eq!(status.signal(), Some(number), "SIG{name}: {status:?}");
        assert_eq!(names(&dir.path("out")), Vec::<String>::new(), "SIG{name}");
    }
}

#[test]
fn a_signal_ignored_at_the_start_stays_ignored_as_under_nohup() {
    let dir = Scratch::new("nohup");
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg("trap '' HUP; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_pgnkit"))
        .args(["convert", "-q", "--to", "pgn", "-o", "out.pgn"])
        .env_clear();
    let mut child = start_command_on_an_open_pipe(&dir, cmd);
    wait_for(&dir, |names| names.len() == 1 && fs::metadata(dir.path(&names[0])).is_ok_and(|m| m.len() > 0));
    let sent = Command::new("kill").args(["-HUP", &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    std::thread::sleep(Duration::from_millis(200));
    drop(child.stdin.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{status:?}");
    let written = fs::read_to_string(dir.path("out.pgn")).unwrap();
    assert_eq!(written.matches("[Event ").count(), 3_000);
    assert_eq!(names(&dir), ["out.pgn"]);
}

#[test]
fn split_replaces_a_symbolic_link_planted_in_the_out_dir_and_leaves_its_target_alone() {
    let dir = Scratch::new("split-symlink");
    fs::write(dir.path("victim.pgn"), "precious\n").unwrap();
    fs::create_dir_all(dir.path("out")).unwrap();
    std::os::unix::fs::symlink(dir.path("victim.pgn"), dir.path("out/part-00001.pgn")).unwrap();
    let out = run(&["split", "-q", "--games", "100", FAMOUS, "--out-dir", &dir.str("out")], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(fs::read_to_string(dir.path("victim.pgn")).unwrap(), "precious\n");
    let part = dir.path("out/part-00001.pgn");
    assert!(fs::symlink_metadata(&part).unwrap().is_file(), "the link itself was replaced");
    let games = fs::read_to_string(root().join(FAMOUS)).unwrap();
    assert!(fs::read_to_string(&part).unwrap().trim_end() == games.trim_end(), "the games went to the part");
    assert_eq!(names(&dir.path("out")), ["part-00001.pgn"]);
}

#[test]
fn split_refuses_a_hard_link_to_its_input_in_the_out_dir_and_writes_nothing() {
    let dir = Scratch::new("split-hardlink");
    let (input, bytes) = input(&dir, "in.pgn");
    fs::create_dir_all(dir.path("out")).unwrap();
    fs::hard_link(&input, dir.path("out/part-00002.pgn")).unwrap();
    let out = run(&["split", "--games", "4", &input, "--out-dir", &dir.str("out")], None);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let link = dir.path("out/part-00002.pgn");
    assert!(
        out.stderr.contains(&format!("{} is an input: writing it would destroy it", link.display())),
        "{}",
        out.stderr
    );
    assert_eq!(fs::read(&input).unwrap(), bytes);
    // Not even the first part, written before the second was refused.
    assert_eq!(names(&dir.path("out")), ["part-00002.pgn"]);
}

#[test]
fn convert_refuses_an_output_that_is_a_hard_link_to_its_input() {
    let dir = Scratch::new("convert-hardlink");
    let (input, bytes) = input(&dir, "in.pgn");
    fs::hard_link(&input, dir.path("hard.pgn")).unwrap();
    let out = run(&["convert", "--to", "pgn", "-o", &dir.str("hard.pgn"), &input], None);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("hard.pgn is an input: writing it would destroy it"), "{}", out.stderr);
    assert_eq!(fs::read(&input).unwrap(), bytes);
    assert_eq!(names(&dir), ["hard.pgn", "in.pgn"]);
}

#[test]
fn convert_replaces_a_symbolic_link_at_its_output_and_writes_a_device_in_place() {
    let dir = Scratch::new("convert-symlink");
    let (input, _) = input(&dir, "in.pgn");
    fs::write(dir.path("victim.pgn"), "precious\n").unwrap();
    std::os::unix::fs::symlink(dir.path("victim.pgn"), dir.path("out.pgn")).unwrap();
    let out = run(&["convert", "-q", "--to", "san", "-o", &dir.str("out.pgn"), &input], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(fs::read_to_string(dir.path("victim.pgn")).unwrap(), "precious\n");
    assert!(fs::symlink_metadata(dir.path("out.pgn")).unwrap().is_file());
    assert_eq!(fs::read_to_string(dir.path("out.pgn")).unwrap().lines().count(), 8);
    // Stdout (a pipe here) by its name in /dev is written, not replaced.
    let out = run(&["convert", "-q", "--to", "san", "-o", "/dev/stdout", &input], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.lines().count(), 8);
    assert!(fs::symlink_metadata("/dev/stdout").unwrap().file_type().is_symlink());
}

/// `pgnkit ARGS` with stdin redirected from `file`.
fn run_with_stdin_from(file: &Path, args: &[&str]) -> crate::support::Run {
    let out = pgnkit().args(args).stdin(File::open(file).unwrap()).output().unwrap();
    crate::support::Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

#[test]
fn an_output_that_is_stdin_redirected_from_a_file_is_refused() {
    let dir = Scratch::new("stdin");
    let (input, bytes) = input(&dir, "s.pgn");
    for args in [
        &["convert", "--to", "pgn", "-o", &input, "-"][..],
        &["convert", "--to", "pgn", "-o", &input],
        &["filter", "--white", "Nobody", "--rejects", &input, "-"],
    ] {
        let out = run_with_stdin_from(Path::new(&input), args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains("is an input: writing it would destroy it"), "{args:?}: {}", out.stderr);
        assert_eq!(out.stdout, "", "{args:?}: nothing is written");
        assert_eq!(fs::read(&input).unwrap(), bytes, "{args:?}");
    }
    // Stdin from a file that is not the output is no obstacle.
    let out = run_with_stdin_from(Path::new(&input), &["convert", "-q", "--to", "pgn", "-o", &dir.str("out.pgn")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(names(&dir), ["out.pgn", "s.pgn"]);
}

#[test]
fn stats_refuses_an_svg_that_is_its_input_before_writing_anything() {
    let dir = Scratch::new("stats-svg");
    let (input, bytes) = input(&dir, "s.pgn");
    let out = run(&["stats", "--svg", &input, &input], None);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("is an input: writing it would destroy it"), "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert_eq!(fs::read(&input).unwrap(), bytes);
}

#[test]
fn a_second_split_into_a_locked_out_dir_is_refused_and_the_lock_file_goes_with_the_run() {
    let dir = Scratch::new("split-lock");
    fs::create_dir_all(dir.path("out")).unwrap();
    // Held as a running split holds it.
    let held = File::create(dir.path("out/.pgnkit-split.lock")).unwrap();
    held.try_lock().unwrap();
    let out = run(&["split", "--games", "4", FAMOUS, "--out-dir", &dir.str("out")], None);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("is in use by another run"), "{}", out.stderr);
    assert_eq!(names(&dir.path("out")), [".pgnkit-split.lock"]);

    held.unlock().unwrap();
    drop(held);
    let out = run(&["split", "-q", "--games", "4", FAMOUS, "--out-dir", &dir.str("out")], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(names(&dir.path("out")), ["part-00001.pgn", "part-00002.pgn"]);
}

#[test]
fn two_splits_at_once_into_one_out_dir_never_mix_their_files() {
    let dir = Scratch::new("split-race");
    fs::write(dir.path("in.pgn"), generated_games(3_000)).unwrap();
    let start = || {
        pgnkit()
            .args(["split", "-q", "--games", "500", &dir.str("in.pgn"), "--out-dir", &dir.str("out")])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (first, second) = (start(), start());
    let (first, second) = (first.wait_with_output().unwrap(), second.wait_with_output().unwrap());
    // One or both may have run, one after the other; the files are those
    // of a single run either way.
    let codes = [first.status.code(), second.status.code()];
    assert!(codes.contains(&Some(0)), "{codes:?}");
    for out in [&first, &second] {
        if out.status.code() == Some(2) {
            assert!(String::from_utf8_lossy(&out.stderr).contains("in use by another run"));
        }
    }
    let parts = names(&dir.path("out"));
    assert_eq!(parts.len(), 6, "{parts:?}");
    let whole: Vec<u8> = parts.iter().flat_map(|name| fs::read(dir.path("out").join(name)).unwrap()).collect();
    assert_eq!(whole, fs::read(dir.path("in.pgn")).unwrap());
}

/// `pgnkit ARGS REDIRECT` run by `sh` in `dir`: `>> s.pgn`, `3>> log`.
fn run_redirected(dir: &Path, args: &[&str], redirect: &str) -> crate::support::Run {
    run_under_sh(dir, "", args, redirect)
}

#[test]
fn every_command_refuses_a_stdout_appended_to_its_input_before_reading_it_as_cat_does() {
    let dir = Scratch::new("stdout-input");
    let (_, bytes) = input(&dir, "s.pgn");
    fs::write(dir.path("s.fen"), "4k3/8/8/8/8/8/8/4K3 w - - 0 1\n").unwrap();
    fs::write(dir.path("s.epd"), "4k3/8/8/8/8/8/8/4K3 w - - 0 1 ;D1 5\n").unwrap();
    fs::write(dir.path("s.txt"), "e4 e5\n").unwrap();
    let runs: [(&[&str], &str); 16] = [
        (&["validate", "s.pgn"], ">> s.pgn"),
        (&["convert", "--to", "pgn", "s.pgn"], ">> s.pgn"),
        (&["fix", "s.pgn"], ">> s.pgn"),
        (&["filter", "s.pgn"], ">> s.pgn"),
        (&["dedup", "s.pgn"], ">> s.pgn"),
        (&["stats", "s.pgn"], ">> s.pgn"),
        (&["ratings", "s.pgn"], ">> s.pgn"),
        (&["split", "--games", "2", "--out-dir", "parts", "s.pgn"], ">> s.pgn"),
        (&["fen", "check", "s.fen"], ">> s.fen"),
        (&["perft", "--suite", "s.epd"], ">> s.epd"),
        (&["moves"], "< s.txt >> s.txt"),
        // The input found by device and inode: a folder's file, stdin.
        (&["convert", "--to", "pgn", "."], ">> s.pgn"),
        (&["fix"], "< s.pgn >> s.pgn"),
        (&["filter", "-"], "< s.pgn 1<> s.pgn"),
        // Stdout by its name in /dev, as -o, --rejects or --svg.
        (&["convert", "--to", "pgn", "-o", "/dev/stdout", "s.pgn"], ">> s.pgn"),
        (&["filter", "--rejects", "/dev/fd/3", "s.pgn"], "3>> s.pgn"),
    ];
    for (args, redirect) in runs {
        let inputs: Vec<Vec<u8>> =
            ["s.pgn", "s.fen", "s.epd", "s.txt"].iter().map(|name| fs::read(dir.path(name)).unwrap()).collect();
        let out = run_redirected(&dir, args, redirect);
        assert_eq!(out.code, 2, "{args:?} {redirect}: {}", out.stderr);
        assert!(
            out.stderr.contains("stdout is the input ") || out.stderr.contains("is an input: writing it would destroy"),
            "{args:?} {redirect}: {}",
            out.stderr
        );
        let now: Vec<Vec<u8>> =
            ["s.pgn", "s.fen", "s.epd", "s.txt"].iter().map(|name| fs::read(dir.path(name)).unwrap()).collect();
        assert_eq!(now, inputs, "{args:?} {redirect}: an input was written");
    }
    assert_eq!(fs::read(dir.path("s.pgn")).unwrap(), bytes);
    assert!(!dir.path("parts").exists(), "split refused before making its folder");
    // A stdout appended to another file, or /dev/null, is no input.
    for redirect in [">> other.pgn", "> /dev/null"] {
        let out = run_redirected(&dir, &["convert", "-q", "--to", "pgn", "s.pgn"], redirect);
        assert_eq!(out.code, 0, "{redirect}: {}", out.stderr);
    }
    let games = String::from_utf8_lossy(&bytes).matches("[Event ").count();
    assert_eq!(fs::read_to_string(dir.path("other.pgn")).unwrap().matches("[Event ").count(), games);
}

#[test]
fn a_stderr_appended_to_the_input_is_refused_rather_than_read_back_for_ever() {
    let dir = Scratch::new("stderr-input");
    // Findings appended to the input would be read as stray text, each
    // read giving a finding more.
    fs::write(dir.path("s.pgn"), "[Event \"x\"]\n\n1. e4 e5\n").unwrap();
    let out = run_redirected(&dir, &["validate", "s.pgn"], "2>> s.pgn");
    assert_eq!(out.code, 2);
    let now = fs::read_to_string(dir.path("s.pgn")).unwrap();
    // The one line of the refusal goes where stderr was sent.
    assert_eq!(
        now.lines().skip(3).collect::<Vec<_>>(),
        ["pgnkit: error: stderr is the input s.pgn: writing it would destroy the input or read the output back \
         (input file is output file)"]
    );
}

#[test]
fn an_output_named_through_a_descriptor_is_appended_to_never_truncated() {
    let dir = Scratch::new("descriptor");
    let (input, _) = input(&dir, "s.pgn");
    for (args, redirect) in [
        (&["convert", "-q", "--to", "san", "-o", "/dev/stdout", &input][..], ">> log"),
        (&["convert", "-q", "--to", "san", "-o", "/proc/self/fd/1", &input], ">> log"),
        (&["convert", "-q", "--to", "san", "-o", "/dev/fd/3", &input], "3>> log"),
        (&["filter", "-q", "--white", "Nobody", "--rejects", "/dev/fd/3", &input], "3>> log >/dev/null"),
        (&["stats", "-q", "--svg", "/dev/stdout", &input], ">> log"),
    ] {
        fs::write(dir.path("log"), "earlier line\n").unwrap();
        let out = run_redirected(&dir, args, redirect);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        let log = fs::read_to_string(dir.path("log")).unwrap();
        assert!(log.starts_with("earlier line\n") && log.len() > 100, "{args:?}: {log}");
    }
    assert_eq!(names(&dir), ["log", "s.pgn"], "no temporary file, no file replaced");
    // A symbolic link to /dev/stdout leads to stdout as well.
    std::os::unix::fs::symlink("/dev/stdout", dir.path("out")).unwrap();
    fs::write(dir.path("log"), "earlier line\n").unwrap();
    let out = run_redirected(&dir, &["convert", "-q", "--to", "san", "-o", "out", &input], ">> log");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(fs::symlink_metadata(dir.path("out")).unwrap().file_type().is_symlink());
    assert_eq!(fs::read_to_string(dir.path("log")).unwrap().lines().count(), 9);
}

/// `n` games, each between two players of its own.
fn games_of_new_players(from: usize, n: usize) -> String {
    (from..from + n)
        .map(|i| format!("[White \"W{i}\"]\n[Black \"B{i}\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n"))
        .collect()
}

#[test]
fn split_stopped_while_it_makes_files_exits_by_the_signal_every_time() {
    // The signal thread removed the files while the main thread made more:
    // one run in four or so ended with exit 2, on the error that caused.
    let dir = Scratch::new("split-every");
    fs::write(dir.path("games.pgn"), games_of_new_players(0, 4_000)).unwrap();
    for round in 0..12 {
        let mut child = pgnkit_with_default_signals()
            .args(["split", "-q", "--by", "player", "--out-dir", "out", "games.pgn"])
            .current_dir(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Well into the files, with many more to make.
        let out = dir.path("out");
        while fs::read_dir(&out).map_or(0, Iterator::count) < 200 + round * 50 {
            assert!(child.try_wait().unwrap().is_none(), "round {round}: the run ended before the signal");
            std::thread::sleep(Duration::from_millis(1));
        }
        let (name, number) = if round % 2 == 0 { ("INT", 2) } else { ("TERM", 15) };
        assert!(Command::new("kill").args([&format!("-{name}"), &child.id().to_string()]).status().unwrap().success());
        let run = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.signal(), Some(number), "round {round}: {:?}: {stderr}", run.status);
        assert_eq!(stderr, "", "round {round}");
        assert_eq!(names(&out), Vec::<String>::new(), "round {round}");
        fs::remove_dir(&out).unwrap();
    }
}

/// Starts `split --by player` of `games` in `dir`, into `out`, and sends
/// `signal` once its journal shows that it renames its files.
fn signal_while_renaming(dir: &Scratch, signal: &str) -> std::process::ExitStatus {
    let mut child = pgnkit_with_default_signals()
        .args(["split", "-q", "--by", "player", "--out-dir", "out", "games.pgn"])
        .current_dir(dir)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let journal = dir.path("out/.pgnkit-split.journal");
    while !journal.exists() {
        assert!(child.try_wait().unwrap().is_none(), "the run ended before its journal was seen");
    }
    assert!(Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap().success());
    child.wait().unwrap()
}

#[test]
fn split_stopped_while_renaming_its_files_puts_all_in_place_and_a_killed_one_has_them_finished_by_the_next_run() {
    let dir = Scratch::new("split-renames");
    fs::write(dir.path("games.pgn"), games_of_new_players(0, 10_000)).unwrap();
    let finals = |dir: &Scratch| names(&dir.path("out")).into_iter().filter(|n| !n.starts_with('.')).count();
    // A signal waits for the last rename: the set is whole.
    let status = signal_while_renaming(&dir, "INT");
    assert_eq!(status.signal(), Some(2), "{status:?}");
    assert_eq!(finals(&dir), 20_000);
    assert_eq!(names(&dir.path("out")).len(), 20_000, "no temporary, journal or lock file left");

    // SIGKILL cannot wait: the journal stays, and the next run finishes
    // its renames before its own.
    fs::remove_dir_all(dir.path("out")).unwrap();
    let status = signal_while_renaming(&dir, "KILL");
    assert_eq!(status.signal(), Some(9), "{status:?}");
    assert!(finals(&dir) < 20_000, "killed part-way");
    let out = run(&["split", "--games", "4", FAMOUS, "--out-dir", &dir.str("out")], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("put in place the last "), "{}", out.stderr);
    assert_eq!(finals(&dir), 20_002);
    assert_eq!(names(&dir.path("out")).len(), 20_002, "no temporary, journal or lock file left");
}

#[test]
fn a_temporary_file_a_killed_run_left_is_removed_by_the_next_run_writing_in_its_folder() {
    let dir = Scratch::new("stale");
    let mut ended = Command::new("true").spawn().unwrap();
    ended.wait().unwrap();
    let stale = [format!(".out.pgn.{}-0.pgnkit-tmp", ended.id()), format!(".other.pgn.{}-3.pgnkit-tmp", ended.id())];
    // A file of a live process (this test), and one that only looks alike.
    let kept = [format!(".out.pgn.{}-0.pgnkit-tmp", std::process::id()), ".notes.1-x.pgnkit-tmp".to_owned()];
    fs::create_dir_all(dir.path("out")).unwrap();
    for name in stale.iter().chain(&kept) {
        fs::write(dir.path(name), "cut sho").unwrap();
        fs::write(dir.path("out").join(name), "cut sho").unwrap();
    }
    let out = run(&["convert", "--to", "pgn", "-o", &dir.str("out.pgn"), FAMOUS], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("removed 2 temporary files left by a run that was killed"), "{}", out.stderr);
    let out = run(&["split", "--games", "4", FAMOUS, "--out-dir", &dir.str("out")], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("removed 2 temporary files left by a run that was killed"), "{}", out.stderr);
    let mut expected: Vec<String> = kept.to_vec();
    expected.extend(["out".to_owned(), "out.pgn".to_owned()]);
    expected.sort();
    assert_eq!(names(&dir), expected);
    let mut expected: Vec<String> = kept.to_vec();
    expected.extend(["part-00001.pgn".to_owned(), "part-00002.pgn".to_owned()]);
    expected.sort();
    assert_eq!(names(&dir.path("out")), expected);
}
