//! The README's `console` examples are run and their output compared, so
//! the documented behaviour stays true.

use std::{path::Path, process::Command};

use crate::support::root;

/// (command, expected combined output) for every `$ ` line of every
/// ```console block.
fn examples(markdown: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in markdown.lines() {
        if line.starts_with("```") {
            in_block = line == "```console";
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            out.push((command.to_owned(), String::new()));
        } else if let Some((_, expected)) = out.last_mut() {
            expected.push_str(line);
            expected.push('\n');
        }
    }
    out
}

#[test]
fn readme_examples_print_what_the_readme_shows() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let examples = examples(&readme);
    assert!(examples.len() >= 4, "the README has a tour");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_pgnkit")).parent().unwrap();
    let path = format!("{}:/usr/bin:/bin", bin_dir.display());
    for (command, expected) in examples {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("( {command} ) 2>&1"))
            .current_dir(root())
            .env_clear()
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .output()
            .expect("sh runs");
        let got = String::from_utf8_lossy(&out.stdout);
        assert_eq!(got, expected, "README example `{command}`");
    }
}
