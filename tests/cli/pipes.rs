//! Every command's stdout when it cannot be written: full (`> /dev/full`),
//! a pipe whose reader left (`| head -c1`), or closed (`>&-`); and output
//! files that cannot be written.

use std::process::{Command, Stdio};

use crate::support::{Run, Scratch, pgnkit, root, run};

/// `pgnkit ARGS` run by `sh` with `redirect` applied to its stdout.
fn redirected(redirect: &str, args: &[String]) -> Run {
    let binary = env!("CARGO_BIN_EXE_pgnkit");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("\"$@\" {redirect}"))
        .arg("sh")
        .arg(binary)
        .args(args)
        .current_dir(root())
        .env_clear()
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("sh runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::new(),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

/// A pipe whose reader is gone before the run starts, as `| head -c1` is
/// once it has its byte: every write to it fails.
fn readerless_pipe() -> std::io::PipeWriter {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    writer
}

/// `pgnkit ARGS` with stdout a pipe that has no reader.
fn into_a_closed_pipe(args: &[String]) -> Run {
    let out =
        pgnkit().args(args).stdin(Stdio::null()).stdout(readerless_pipe()).stderr(Stdio::piped()).output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::new(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A stats partial of the famous games, for `stats merge`, as
/// `partial.json` in a scratch folder.
fn partial() -> Scratch {
    let dir = Scratch::new("partial");
    let json = run(&["stats", "-q", "--format", "json", "testdata/valid/famous-games.pgn"], None);
    assert_eq!(json.code, 0, "{}", json.stderr);
    dir.write("partial.json", json.stdout);
    dir
}

/// One command line per command and output format that writes to stdout.
fn commands(partial: &str) -> Vec<Vec<String>> {
    let pgn = "testdata/valid/famous-games.pgn";
    let invalid = "testdata/invalid/ambiguous-move.pgn";
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let lines: Vec<Vec<&str>> = vec![
        vec!["validate", invalid],
        vec!["validate", "--format", "jsonl", invalid],
        vec!["validate", "--format", "csv", invalid],
        vec!["convert", "--to", "pgn", pgn],
        vec!["convert", "--to", "csv", pgn],
        vec!["convert", "--to", "jsonl", pgn],
        vec!["filter", pgn],
        vec!["filter", "--count", pgn],
        vec!["stats", pgn],
        vec!["stats", "--format", "json", pgn],
        vec!["stats", "--format", "csv", "--by", "white", pgn],
        vec!["stats", "merge", partial],
        vec!["ratings", "testdata/ratings/round-robin.pgn"],
        vec!["ratings", "--format", "jsonl", "testdata/ratings/round-robin.pgn"],
        vec!["dedup", pgn],
        vec!["dedup", "--list", pgn, pgn],
        vec!["fen", "check", "testdata/fen/missing-king.fen"],
        vec!["fen", "check", "--normalize", "testdata/fen/valid-records.fen"],
        vec!["fen", "show", fen],
        vec!["fen", "show", "--svg", "-", fen],
        vec!["moves", "e4", "e5", "Nf3"],
        vec!["perft", fen, "2"],
        vec!["perft", "--divide", fen, "2"],
        vec!["perft", "--suite", "testdata/perft/wrong-count.epd"],
        vec!["completions", "zsh"],
        vec!["man"],
    ];
    lines.into_iter().map(|line| line.into_iter().map(str::to_owned).collect()).collect()
}

/// The Rust runtime opens `/dev/null` on a closed fd 1 before `main`: a
/// closed stdout is `/dev/null` to pgnkit, which cannot see the difference.
#[test]
fn a_closed_stdout_ends_the_run_as_dev_null_does_without_a_panic() {
    let partial = partial();
    for args in commands(&partial.str("partial.json")) {
        let closed = redirected(">&-", &args);
        let null = redirected(">/dev/null", &args);
        assert_eq!((closed.code, &closed.stderr), (null.code, &null.stderr), "{args:?}");
        assert!(!closed.stderr.contains("panicked"), "{args:?}: {}", closed.stderr);
    }
}

#[test]
fn every_command_fails_with_exit_2_naming_stdout_and_the_error_when_the_disk_is_full() {
    if !std::path::Path::new("/dev/full").exists() {
        crate::support::skip("no /dev/full here");
        return;
    }
    let partial = partial();
    for args in commands(&partial.str("partial.json")) {
        let out = redirected(">/dev/full", &args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains("error: cannot write stdout: No space left on device"), "{args:?}: {}", out.stderr);
        assert!(!out.stderr.contains("panicked"), "{args:?}: {}", out.stderr);
    }
}

#[test]
fn every_command_ends_quietly_with_exit_0_when_the_reader_of_its_pipe_leaves() {
    let partial = partial();
    for args in commands(&partial.str("partial.json")) {
        let out = into_a_closed_pipe(&args);
        // Findings and summaries of the games before the first write may
        // still reach stderr; nothing about the pipe does.
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        assert!(!out.stderr.contains("panicked") && !out.stderr.contains("error"), "{args:?}: {}", out.stderr);
    }
}

#[test]
fn a_shell_pipe_into_head_gets_its_byte_and_no_panic() {
    for command in ["completions zsh", "man", "validate testdata/invalid/ambiguous-move.pgn"] {
        let script = format!("\"$0\" {command} | head -c1");
        let out = Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(env!("CARGO_BIN_EXE_pgnkit"))
            .current_dir(root())
            .env_clear()
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert_eq!(out.stdout.len(), 1, "{command}");
        // A small output fits in the pipe before head leaves: the run may
        // end as usual, with its summary.
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked") && !stderr.contains("pgnkit: error"), "{command}: {stderr}");
    }
}

#[test]
fn a_write_error_on_an_output_file_names_the_file() {
    if !std::path::Path::new("/dev/full").exists() {
        crate::support::skip("no /dev/full here");
        return;
    }
    let out = run(&["convert", "--to", "pgn", "--output", "/dev/full", "testdata/valid/famous-games.pgn"], None);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("error: cannot write /dev/full: No space left on device"), "{}", out.stderr);
    let out = run(&["filter", "--white", "nobody", "--rejects", "/dev/full", "testdata/valid/famous-games.pgn"], None);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("error: cannot write /dev/full: No space left on device"), "{}", out.stderr);
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    for args in [
        &["stats", "-q", "--svg", "/dev/full", "testdata/valid/famous-games.pgn"][..],
        &["fen", "show", "--svg", "/dev/full", fen],
    ] {
        let out = run(args, None);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("error: cannot write /dev/full: No space left on device"),
            "{args:?}: {}",
            out.stderr
        );
    }
}

#[test]
fn a_command_that_does_not_write_stdout_runs_with_stdout_closed() {
    let dir = Scratch::new("convert");
    let path = dir.path("out.pgn");
    let args: Vec<String> =
        ["convert", "-q", "--to", "pgn", "--output", path.to_str().unwrap(), "testdata/valid/famous-games.pgn"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
    let out = redirected(">&-", &args);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    // The file holds the games, and nothing meant for stdout.
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.starts_with("[Event "), "{written}");
}

#[test]
fn a_stderr_whose_reader_left_loses_findings_and_summary_but_the_run_goes_on_without_a_panic() {
    let dir = Scratch::new("stderr");
    let path = dir.path("out.pgn");
    let runs: [&[&str]; 3] = [
        &["validate", "testdata/invalid/ambiguous-move.pgn"],
        &["convert", "--to", "pgn", "--output", path.to_str().unwrap(), "testdata/invalid/ambiguous-move.pgn"],
        &["fen", "show", "8/8/8/8/8/8/8/8 w - - 0 1"],
    ];
    for args in runs {
        let out = pgnkit().args(args).stdin(Stdio::null()).stderr(readerless_pipe()).output().unwrap();
        // Each run's usual status: the findings are lost, not the output.
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(!out.stdout.is_empty() || args[0] == "convert", "{args:?}");
    }
    assert!(std::fs::read_to_string(&path).unwrap().contains("[Event "));
}

/// A scratch folder of inputs large enough that every command's output
/// overflows every buffer on its way out (the csv writer's 8 KiB, the 64
/// KiB of a `BufWriter`): the pipe then fails in the middle of the output,
/// inside a CSV or JSON writer, and not only at the last flush.
struct Large(Scratch);

impl Large {
    fn new(test: &str) -> Large {
        let dir = Scratch::new(test);
        std::fs::write(dir.join("games.pgn"), large_games(3_500)).unwrap();
        // A warning a line (the move number 0).
        std::fs::write(dir.join("positions.fen"), "4k3/8/8/8/8/8/8/4K3 w - - 0 0\n".repeat(5_000)).unwrap();
        // A wrong count a line.
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 21\n";
        std::fs::write(dir.join("suite.epd"), start.repeat(3_000)).unwrap();
        std::fs::write(dir.join("lines.txt"), "e4 e5 Nf3 Nc6 Bb5 a6\n".repeat(6_000)).unwrap();
        let partial = pgnkit()
            .args(["stats", "-q", "--by", "white", "--format", "json"])
            .arg(dir.join("games.pgn"))
            .output()
            .unwrap();
        assert!(partial.status.success(), "{}", String::from_utf8_lossy(&partial.stderr));
        std::fs::write(dir.join("partial.json"), partial.stdout).unwrap();
        Large(dir)
    }

    fn path(&self, name: &str) -> String {
        self.0.str(name)
    }
}

/// `n` games (up to 3,584), each with its own moves (two pawn moves of
/// White's and one of Black's, then a knight), a ring of `n` / 2 players
/// whose results vary (so that `ratings --scheme ml` has finite ratings),
/// and no result marker: a warning each, and a repair for `fix`.
fn large_games(n: usize) -> String {
    let files = b"abcdefgh";
    let results = ["1-0", "0-1", "1/2-1/2"];
    // Not a multiple of 3: the two games of a pair of players have two
    // results.
    let players = if (n / 2 - 1).is_multiple_of(3) { n / 2 - 2 } else { n / 2 - 1 };
    let mut out = String::new();
    for i in 0..n {
        let (a, b, c) = (i % 16, (i / 16) % 16, (i / 256) % 14);
        let white_first = format!("{}{}", files[a / 2] as char, 3 + a % 2);
        let black_file = files[b / 2] as char;
        let black_first = format!("{black_file}{}", 6 - b % 2);
        let other_file = (0..8).filter(|&f| f != a / 2).nth(c / 2).unwrap();
        let white_second = format!("{}{}", files[other_file] as char, 3 + c % 2);
        let knight = if black_file == 'f' { "Nc6" } else { "Nf6" };
        out.push_str(&format!(
            "[Event \"Pipe {i}\"]\n[Site \"?\"]\n[Date \"2024.{:02}.{:02}\"]\n[Round \"{i}\"]\n\
             [White \"Player {}\"]\n[Black \"Player {}\"]\n[Result \"{}\"]\n[WhiteElo \"{}\"]\n\
             [BlackElo \"{}\"]\n\n1. {white_first} {black_first} 2. {white_second} {knight}\n\n",
            i % 12 + 1,
            i % 28 + 1,
            i % players,
            (i + 1) % players,
            results[i % 3],
            1500 + i % 700,
            1600 + i % 500,
        ));
    }
    out
}

/// Every command and output format that writes to stdout, on the large
/// inputs; `moves` reads `lines.txt` on stdin.
fn large_commands(large: &Large) -> Vec<Vec<String>> {
    let pgn = large.path("games.pgn");
    let fen = large.path("positions.fen");
    let mut lines: Vec<Vec<String>> = Vec::new();
    let mut add = |args: &[&str]| lines.push(args.iter().map(|&arg| arg.to_owned()).collect());
    for format in ["text", "jsonl", "csv", "github", "sarif", "junit", "gitlab"] {
        add(&["validate", "--format", format, &pgn]);
        add(&["fen", "check", "--format", format, &fen]);
    }
    add(&["fen", "check", "--normalize", &fen]);
    // A line of a dozen bytes a game: the games four times over.
    for to in ["pgn", "san", "uci", "lan", "fen", "epd", "jsonl", "csv"] {
        add(&["convert", "--to", to, &pgn, &pgn, &pgn, &pgn]);
    }
    for format in ["text", "json", "csv"] {
        add(&["stats", "--by", "white", "--format", format, &pgn]);
        add(&["stats", "merge", "--format", format, &large.path("partial.json")]);
    }
    add(&["filter", &pgn]);
    add(&["filter", "--normalize", &pgn]);
    add(&["fix", &pgn]);
    add(&["fix", "--diff", &pgn]);
    add(&["dedup", &pgn]);
    add(&["dedup", "--normalize", &pgn]);
    for format in ["text", "jsonl", "csv"] {
        add(&["dedup", "--list", "--format", format, &pgn, &pgn]);
        for scheme in ["elo", "club", "ml"] {
            add(&["ratings", "--scheme", scheme, "--format", format, &pgn]);
        }
        add(&["ratings", "--history", "--format", format, &pgn]);
        add(&["ratings", "--scheme", "club", "--history", "--format", format, &pgn]);
    }
    add(&["perft", "--suite", &large.path("suite.epd")]);
    for to in ["san", "uci", "lan", "pgn", "fen"] {
        add(&["moves", "--to", to]);
    }
    add(&["moves", "--to", "fen", "--every"]);
    lines
}

/// `pgnkit ARGS` (quiet) with stdin from `lines.txt` and stdout `stdout`.
fn large_run(large: &Large, args: &[String], stdout: Stdio) -> std::process::Output {
    let stdin = std::fs::File::open(large.0.join("lines.txt")).unwrap();
    pgnkit().args(args).arg("-q").stdin(stdin).stdout(stdout).stderr(Stdio::piped()).output().unwrap()
}

#[test]
fn every_command_and_format_ends_quietly_with_exit_0_when_its_pipe_closes_in_the_middle_of_a_large_output() {
    let large = Large::new("large");
    for args in large_commands(&large) {
        // Written in full, the output is larger than every buffer: a
        // `BufWriter` of 64 KiB and the csv writer's 8 KiB in front of it.
        let whole = large_run(&large, &args, Stdio::piped());
        assert!(whole.stdout.len() > 80 << 10, "{args:?}: only {} bytes", whole.stdout.len());
        assert!(whole.status.code().is_some_and(|code| code < 2), "{args:?}: {:?}", whole.status);
        let cut = large_run(&large, &args, readerless_pipe().into());
        let stderr = String::from_utf8_lossy(&cut.stderr);
        // -q: the findings of commands whose stdout carries data still go
        // to stderr, but nothing about the pipe does.
        assert_eq!(cut.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("error") && !stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}
