//! `--exit-zero` and `-qq` on every command that reports problems in its
//! data: the run exits 0 unless it failed itself, and prints no findings.

use crate::support::{Scratch, run};

/// A game with an illegal move (exit 1 for every command that replays it).
const ILLEGAL: &str = "testdata/invalid/illegal-castling-blocked.pgn";
const MISSING: &str = "testdata/no-such-file.pgn";

/// Every command that exits 1 on what it finds in its data, with the
/// arguments that make it find something, and whether it reads files (an
/// input that cannot be read is then added to make the run itself fail).
fn commands(out_dir: &str) -> Vec<(Vec<&str>, bool)> {
    vec![
        (vec!["validate", ILLEGAL], true),
        (vec!["validate", "--format", "sarif", ILLEGAL], true),
        (vec!["stats", ILLEGAL], true),
        (vec!["convert", "--to", "pgn", ILLEGAL], true),
        (vec!["convert", "--to", "csv", ILLEGAL], true),
        (vec!["filter", "--invalid", ILLEGAL], true),
        (vec!["dedup", ILLEGAL], true),
        (vec!["fix", ILLEGAL], true),
        (vec!["split", "--normalize", "--games", "1", "--out-dir", out_dir, ILLEGAL], true),
        (vec!["ratings", "--valid-only", ILLEGAL], true),
        (vec!["fen", "check", "testdata/fen/missing-king.fen"], true),
        (vec!["fen", "show", "8/8/8/8/8/8/8/8 w - - 0 1"], false),
        (vec!["moves", "e4", "e5", "Ke3"], false),
        (vec!["perft", "--suite", "testdata/perft/wrong-count.epd"], false),
    ]
}

#[test]
fn exit_zero_makes_every_command_exit_0_on_problems_in_the_data_and_nothing_else_changes() {
    let dir = Scratch::new("exit-zero");
    let out_dir = dir.join("split").display().to_string();
    for (args, _) in commands(&out_dir) {
        let plain = run(&args, None);
        assert_eq!(plain.code, 1, "{args:?} finds a problem: {}", plain.stderr);
        let zero = run(&[&["--exit-zero"], &args[..]].concat(), None);
        assert_eq!(zero.code, 0, "{args:?} --exit-zero: {}", zero.stderr);
        assert_eq!(zero.stdout, plain.stdout, "{args:?}: the same output");
        assert_eq!(zero.stderr, plain.stderr, "{args:?}: the same findings");
        // After the command's name too, as every shared option.
        let after = run(&[&args[..], &["--exit-zero"]].concat(), None);
        assert_eq!(after.code, 0, "{args:?} ... --exit-zero: {}", after.stderr);
    }
}

#[test]
fn exit_zero_still_exits_2_when_an_input_cannot_be_read_or_the_usage_is_wrong() {
    let dir = Scratch::new("exit-zero-fails");
    let out_dir = dir.join("split").display().to_string();
    for (args, _) in commands(&out_dir).into_iter().filter(|(_, reads_files)| *reads_files) {
        let failed = run(&[&["--exit-zero"], &args[..], &[MISSING]].concat(), None);
        assert_eq!(failed.code, 2, "{args:?} with an unreadable input: {}", failed.stderr);
        assert!(failed.stderr.contains("no-such-file.pgn: No such file"), "{args:?}: {}", failed.stderr);
    }
    let usage = run(&["validate", "--exit-zero", "--shard", "3/3", ILLEGAL], None);
    assert_eq!(usage.code, 2, "{}", usage.stderr);
}

#[test]
fn qq_prints_no_findings_on_stderr_only_the_errors_that_fail_the_run() {
    let dir = Scratch::new("silent");
    let out_dir = dir.join("split").display().to_string();
    for (args, reads_files) in commands(&out_dir) {
        let loud = run(&args, None);
        assert!(!loud.stderr.is_empty() || !loud.stdout.is_empty(), "{args:?} finds something");
        for silent in ["-qq", "--silent"] {
            let quiet = run(&[&[silent], &args[..]].concat(), None);
            assert_eq!(quiet.stderr, "", "{args:?} {silent}");
            assert_eq!(quiet.code, 1, "{args:?} {silent}: the exit code is kept");
        }
        if reads_files {
            let failed = run(&[&["-qq"], &args[..], &[MISSING]].concat(), None);
            assert_eq!(
                failed.stderr, "pgnkit: error: testdata/no-such-file.pgn: No such file or directory (os error 2)\n",
                "{args:?}"
            );
        }
    }
}

#[test]
fn filter_qq_count_prints_only_the_count() {
    let quiet = run(&["filter", "-qq", "--count", "--invalid", ILLEGAL, "testdata/valid/opera-game.pgn"], None);
    assert_eq!((quiet.stdout.as_str(), quiet.stderr.as_str(), quiet.code), ("1\n", "", 1));
    // One -q keeps the findings (and drops the summary line).
    let one = run(&["filter", "-q", "--count", "--invalid", ILLEGAL], None);
    assert!(one.stderr.starts_with(&format!("{ILLEGAL}:9:24: error[illegal-move]")), "{}", one.stderr);
    assert_eq!(one.stderr.lines().count(), 1, "{}", one.stderr);
}
