//! Every command's --help: its examples run as shown (in a folder with the
//! files they name), and its text matches the snapshot in tests/cli/help/
//! (after a deliberate change, regenerate them with `PGNKIT_BLESS=1 cargo
//! test --profile quick help` and read the diff).

use std::{path::Path, process::Command};

use crate::support::{Scratch, root, run};

/// Every command path: `pgnkit` itself (empty), `validate`, `fen check`,
/// ..., from `--help` itself.
pub fn commands() -> Vec<Vec<String>> {
    fn listed(help: &str) -> Vec<String> {
        help.lines()
            .skip_while(|line| !line.starts_with("Commands:"))
            .skip(1)
            .take_while(|line| line.starts_with("  "))
            .filter_map(|line| line.split_whitespace().next())
            .filter(|&name| name != "help")
            .map(str::to_owned)
            .collect()
    }
    let mut all = vec![Vec::new()];
    for name in listed(&run(&["--help"], None).stdout) {
        let help = run(&[&name, "--help"], None).stdout;
        let subcommands = listed(&help);
        all.push(vec![name.clone()]);
        all.extend(subcommands.into_iter().map(|sub| vec![name.clone(), sub]));
    }
    all
}

fn help(command: &[String]) -> String {
    let mut args: Vec<&str> = command.iter().map(String::as_str).collect();
    args.push("--help");
    let out = run(&args, None);
    assert_eq!(out.code, 0, "{command:?}: {}", out.stderr);
    out.stdout
}

/// A folder with the files the examples name.
fn examples_folder() -> Scratch {
    let dir = Scratch::new("help-examples");
    for (name, fixture) in [
        ("games.pgn", "testdata/valid/famous-games.pgn"),
        ("games.pgn.zst", "testdata/compressed/famous-games.pgn.zst"),
        ("broken.pgn", "testdata/invalid/ambiguous-move.pgn"),
        ("positions.fen", "testdata/fen/valid-records.fen"),
        ("tournament.pgn", "testdata/ratings/round-robin.pgn"),
    ] {
        std::fs::copy(root().join(fixture), dir.join(name)).unwrap();
    }
    dir
}

#[test]
fn every_example_in_every_help_runs_as_shown() {
    let dir = examples_folder();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_pgnkit")).parent().unwrap();
    let path = format!("{}:/usr/bin:/bin", bin_dir.display());
    let mut ran = 0;
    for command in commands() {
        let text = help(&command);
        // The help ends with its examples: `Examples:`, then only `  $ `
        // lines.
        let (_, tail) =
            text.rsplit_once("\nExamples:\n").unwrap_or_else(|| panic!("{command:?} --help has no examples"));
        let examples: Vec<&str> = tail.lines().filter_map(|line| line.strip_prefix("  $ ")).collect();
        assert_eq!(examples.len(), tail.lines().count(), "{command:?} --help does not end with its examples");
        assert!(examples.len() >= 2, "{command:?} has {} examples", examples.len());
        for example in examples {
            let out = Command::new("sh")
                .arg("-c")
                .arg(example)
                .current_dir(&dir)
                .env_clear()
                .env("PATH", &path)
                .env("NO_COLOR", "1")
                .output()
                .expect("sh runs");
            // Only an example about a broken file may find problems.
            let allowed = if example.contains("broken.pgn") { 1 } else { 0 };
            let code = out.status.code().unwrap_or(-1);
            assert!(
                (0..=allowed).contains(&code),
                "`{example}` exits {code}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            ran += 1;
        }
    }
    assert!(ran >= 25, "only {ran} examples");
}

#[test]
fn help_texts_match_their_snapshots() {
    let dir = root().join("tests/cli/help");
    let bless = std::env::var_os("PGNKIT_BLESS").is_some();
    let mut names = Vec::new();
    let mut texts = Vec::new();
    for command in commands() {
        names.push(["pgnkit"].into_iter().chain(command.iter().map(String::as_str)).collect::<Vec<_>>().join("-"));
        texts.push(help(&command));
    }
    for (name, text) in names.iter().zip(&texts) {
        let file = dir.join(format!("{name}.txt"));
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&file, text).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&file)
            .unwrap_or_else(|_| panic!("no snapshot {}: run with PGNKIT_BLESS=1", file.display()));
        assert_eq!(text, &expected, "{name} --help changed; if on purpose, run with PGNKIT_BLESS=1");
    }
    // No snapshot of a command that is gone.
    let snapshots = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(snapshots, names.len(), "stale snapshots in {}", dir.display());
}
