//! The `console` examples of the README and of docs/ are run and their
//! output compared, so the documented behaviour stays true.

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

/// Runs every example of `markdown` in `dir` and compares its output.
fn check_examples(name: &str, markdown: &str, dir: &Path) {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_pgnkit")).parent().unwrap();
    let path = format!("{}:/usr/bin:/bin", bin_dir.display());
    for (command, expected) in examples(markdown) {
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!("( {command} ) 2>&1"))
            .current_dir(dir)
            .env_clear()
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .output()
            .expect("bash runs");
        let got = String::from_utf8_lossy(&out.stdout);
        assert_eq!(got, expected, "{name} example `{command}`");
    }
}

#[test]
fn readme_examples_print_what_the_readme_shows() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    assert!(examples(&readme).len() >= 4, "the README has a tour");
    check_examples("README", &readme, &root());
}

#[test]
fn docs_examples_print_what_the_docs_show() {
    // Some examples write files (`split --out-dir`): they run in a folder of
    // their own that sees the fixtures.
    let scratch = std::env::temp_dir().join(format!("pgnkit-docs-examples-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    std::os::unix::fs::symlink(root().join("testdata"), scratch.join("testdata")).unwrap();
    let mut count = 0;
    for entry in std::fs::read_dir(root().join("docs")).expect("docs/") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            let text = std::fs::read_to_string(&path).unwrap();
            count += examples(&text).len();
            check_examples(&path.display().to_string(), &text, &scratch);
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(count >= 20, "docs/ shows its outputs by example ({count} found)");
}
