//! Every command's stdout when it cannot be written: full (`> /dev/full`),
//! a pipe whose reader left (`| head -c1`), or closed (`>&-`); and output
//! files that cannot be written.

use std::{
    path::PathBuf,
    process::{Command, Stdio},
};

use crate::support::{Run, pgnkit, root, run};

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

/// A stats partial of the famous games, for `stats merge`; one per test,
/// as tests run at once.
fn partial(test: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("pgnkit-pipes-{test}-{}.json", std::process::id()));
    let json = run(&["stats", "-q", "--format", "json", "testdata/valid/famous-games.pgn"], None);
    assert_eq!(json.code, 0, "{}", json.stderr);
    std::fs::write(&path, json.stdout).unwrap();
    path
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
    let partial = partial("closed");
    for args in commands(partial.to_str().unwrap()) {
        let closed = redirected(">&-", &args);
        let null = redirected(">/dev/null", &args);
        assert_eq!((closed.code, &closed.stderr), (null.code, &null.stderr), "{args:?}");
        assert!(!closed.stderr.contains("panicked"), "{args:?}: {}", closed.stderr);
    }
    std::fs::remove_file(partial).unwrap();
}

#[test]
fn every_command_fails_with_exit_2_naming_stdout_and_the_error_when_the_disk_is_full() {
    if !std::path::Path::new("/dev/full").exists() {
        crate::support::skip("no /dev/full here");
        return;
    }
    let partial = partial("full");
    for args in commands(partial.to_str().unwrap()) {
        let out = redirected(">/dev/full", &args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains("error: cannot write stdout: No space left on device"), "{args:?}: {}", out.stderr);
        assert!(!out.stderr.contains("panicked"), "{args:?}: {}", out.stderr);
    }
    std::fs::remove_file(partial).unwrap();
}

#[test]
fn every_command_ends_quietly_with_exit_0_when_the_reader_of_its_pipe_leaves() {
    let partial = partial("pipe");
    for args in commands(partial.to_str().unwrap()) {
        let out = into_a_closed_pipe(&args);
        // Findings and summaries of the games before the first write may
        // still reach stderr; nothing about the pipe does.
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        assert!(!out.stderr.contains("panicked") && !out.stderr.contains("error"), "{args:?}: {}", out.stderr);
    }
    std::fs::remove_file(partial).unwrap();
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
    let path = std::env::temp_dir().join(format!("pgnkit-pipes-convert-{}.pgn", std::process::id()));
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
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_stderr_whose_reader_left_loses_findings_and_summary_but_the_run_goes_on_without_a_panic() {
    let path = std::env::temp_dir().join(format!("pgnkit-pipes-stderr-{}.pgn", std::process::id()));
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
    std::fs::remove_file(path).unwrap();
}
