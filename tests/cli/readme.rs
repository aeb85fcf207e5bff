//! The `console` examples of the README and of docs/ are run and their
//! output compared, so the documented behaviour stays true; the README's
//! man page loop, links and tables of codes are checked against the
//! binary and the repository.

use crate::support::Scratch;
use std::{path::Path, process::Command};

use crate::{help::commands, support::root};

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
    // their own that sees the fixtures. The pages of docs/commands/ are read
    // with the others.
    let scratch = Scratch::new("docs-examples");
    std::os::unix::fs::symlink(root().join("testdata"), scratch.join("testdata")).unwrap();
    let mut count = 0;
    for path in crate::support::files_with_extension(&root().join("docs"), "md") {
        let text = std::fs::read_to_string(&path).unwrap();
        count += examples(&text).len();
        check_examples(&path.display().to_string(), &text, &scratch);
    }
    assert!(count >= 60, "docs/ shows its outputs by example ({count} found)");
}

/// The page of a command in docs/commands/: its own (`fen-check.md`), or
/// its parent's for a subcommand described there (`stats merge` in
/// `stats.md`); a group of commands (`fen`) has its commands' pages.
#[test]
fn every_command_has_a_page_in_docs_commands() {
    let all = commands();
    let dir = root().join("docs/commands");
    for command in all.iter().filter(|c| !c.is_empty()) {
        let own = dir.join(format!("{}.md", command.join("-")));
        let parent = dir.join(format!("{}.md", command[..command.len() - 1].join("-")));
        let group = all.iter().any(|other| other.len() > command.len() && other.starts_with(command));
        assert!(
            own.is_file() || (command.len() > 1 && parent.is_file()) || group,
            "`pgnkit {}` has no page in docs/commands/ ({} is missing)",
            command.join(" "),
            own.display()
        );
        // The page shows the command at work, and the tests run it.
        if own.is_file() {
            let text = std::fs::read_to_string(&own).unwrap();
            let name = format!("pgnkit {}", command.join(" "));
            assert!(
                examples(&text).iter().any(|(line, _)| line.contains(&name)),
                "{} has no console example of `{name}`",
                own.display()
            );
        }
    }
}

/// A console example that prints something else than its page shows is
/// caught: the checker of the pages is not one that cannot fail.
#[test]
fn a_docs_example_with_the_wrong_output_fails() {
    let page = "```console\n$ pgnkit moves e4\ne7e5\n```\n";
    let scratch = Scratch::new("docs-wrong-example");
    let caught = std::panic::catch_unwind(|| check_examples("wrong.md", page, &scratch));
    assert!(caught.is_err(), "an example whose output differs was not caught");
    check_examples("right.md", &page.replace("e7e5", "e2e4"), &scratch);
}

#[test]
fn the_readme_install_loop_writes_every_manual_page() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let line = readme
        .lines()
        .find(|line| line.starts_with("for c in ") && line.contains("pgnkit man $c"))
        .expect("the README's loop over the manual pages");
    let (_, rest) = line.split_once(" in ").unwrap();
    let (list, body) = rest.split_once(';').unwrap();
    assert!(body.contains("pgnkit man $c > ~/.local/share/man/man1/pgnkit-$c.1"), "{line}");
    let mut listed: Vec<String> = list.split_whitespace().map(str::to_owned).collect();
    // Every page `pgnkit man` makes but pgnkit(1), which the line before
    // the loop writes, by the name of its file.
    let mut pages: Vec<String> = commands().iter().filter(|c| !c.is_empty()).map(|c| c.join("-")).collect();
    assert!(readme.contains("pgnkit man > ~/.local/share/man/man1/pgnkit.1\n"));
    listed.sort();
    pages.sort();
    assert_eq!(listed, pages, "the README's man page loop");
    for name in &listed {
        let page = crate::support::run(&["man", name], None);
        assert_eq!(page.code, 0, "pgnkit man {name}: {}", page.stderr);
        assert!(page.stdout.contains(&format!(".TH pgnkit-{name} 1")), "pgnkit man {name}");
    }
}

#[test]
fn links_of_the_readme_and_docs_point_to_files_in_the_repository() {
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut files = vec![root().join("README.md")];
    files.extend(crate::support::files_with_extension(&root().join("docs"), "md"));
    let repository = root().canonicalize().unwrap();
    let mut checked = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for target in link.captures_iter(&text).map(|c| c[1].to_owned()) {
            if target.starts_with("http://") || target.starts_with("https://") || target.starts_with('#') {
                continue;
            }
            let path = target.split('#').next().unwrap();
            let resolved = file.parent().unwrap().join(path).canonicalize();
            let inside = resolved.as_ref().is_ok_and(|p| p.starts_with(&repository));
            assert!(inside, "{}: the link {target} is not a file of the repository", file.display());
            checked += 1;
        }
    }
    assert!(checked >= 5, "only {checked} links");
}

#[test]
fn the_command_pages_name_every_finding_code() {
    let pages: String = crate::support::files_with_extension(&root().join("docs/commands"), "md")
        .iter()
        .map(|page| std::fs::read_to_string(page).unwrap())
        .collect();
    let codes = pgnkit::report::Code::ALL.iter().map(|c| c.as_str());
    let fen_codes = pgnkit::fen_check::FenCode::ALL.iter().map(|c| c.as_str());
    for code in codes.chain(fen_codes) {
        assert!(pages.contains(&format!("`{code}`")), "no page of docs/commands/ lists {code}");
    }
}

/// The backquoted words of `text` outside parentheses, up to and with the
/// first `tag:NAME`: a list of the keys of `--by` as the docs write it.
fn listed_keys(text: &str) -> Vec<&str> {
    let (mut out, mut depth, mut rest) = (Vec::new(), 0usize, text);
    while let Some(at) = rest.find(['(', ')', '`']) {
        match rest.as_bytes()[at] {
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            _ => {
                let Some(len) = rest[at + 1..].find('`') else { break };
                let word = &rest[at + 1..at + 1 + len];
                rest = &rest[at + len + 2..];
                if depth == 0 {
                    out.push(word);
                    if word == pgnkit::keys::TAG_KEY {
                        break;
                    }
                }
                continue;
            }
        }
        rest = &rest[at + 1..];
    }
    out
}

#[test]
fn every_list_of_the_keys_of_by_in_the_readme_and_docs_is_the_tables() {
    let keys: Vec<&str> = pgnkit::keys::KEYS.iter().map(|row| row.name).chain([pgnkit::keys::TAG_KEY]).collect();
    let mut files = vec![root().join("README.md")];
    files.extend(crate::support::files_with_extension(&root().join("docs"), "md"));
    let (mut lists, mut tables) = (0, 0);
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.display();
        for (at, _) in text.match_indices("`white`, `black`, `player`") {
            assert_eq!(listed_keys(&text[at..]), keys, "{name}: the keys listed at byte {at}");
            lists += 1;
        }
        // The table of the keys, a row for a key or several: its first column.
        let section = text.find("## Statistics groups").map(|at| &text[at..]);
        if let Some(at) = section.and_then(|section| section.find("\n| key | value |\n")) {
            let table = &section.unwrap()[at + 1..];
            let table = &table[..table.find("\n\n").unwrap_or(table.len())];
            let mut column: Vec<&str> = table
                .lines()
                .skip(2)
                .filter_map(|row| row.trim_start_matches("| ").split(" | ").next())
                .flat_map(|cell| cell.split(", "))
                .map(|key| key.trim_matches('`'))
                .collect();
            column.sort_unstable();
            let mut sorted = keys.clone();
            sorted.sort_unstable();
            assert_eq!(column, sorted, "{name}: the table of the keys");
            tables += 1;
        }
    }
    // docs/commands/stats.md and split.md, docs/output-formats.md; the
    // table of docs/chess-semantics.md.
    assert!(lists >= 3 && tables >= 1, "{lists} lists and {tables} tables of the keys found");
}

/// Every `fn` name under `dir`'s Rust files.
fn function_names(dir: &std::path::Path, names: &mut std::collections::BTreeSet<String>) {
    for path in crate::support::files_with_extension(dir, "rs") {
        let text = std::fs::read_to_string(path).unwrap();
        for (at, _) in text.match_indices("fn ") {
            let name: String = text[at + 3..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            names.insert(name);
        }
    }
}

#[test]
fn every_test_the_architecture_page_names_as_a_pin_exists() {
    let page = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let ledger = page.split("## Hand-written fast paths").nth(1).expect("the ledger section");
    let mut names = std::collections::BTreeSet::new();
    for dir in ["src", "crates", "tests"] {
        function_names(&root().join(dir), &mut names);
    }
    let mut pins = 0;
    for row in ledger.lines().filter(|line| line.starts_with("| ") && !line.starts_with("| ---")).skip(1) {
        let pinned = row.trim_end_matches(" |").rsplit(" | ").next().unwrap();
        // Each backquoted path names a test by its last segment, `{a,b}_c`
        // standing for `a_c` and `b_c`; `*` is a whole module, and a path
        // with a `/` the file of the test beside it.
        for path in pinned.split('`').skip(1).step_by(2) {
            let last = path.rsplit("::").next().unwrap();
            if last == "*" || path.contains('/') {
                continue;
            }
            let tests: Vec<String> = match last.split_once('{') {
                Some((before, rest)) => {
                    let (alternatives, after) = rest.split_once('}').unwrap();
                    alternatives.split(',').map(|a| format!("{before}{a}{after}")).collect()
                }
                None => vec![last.to_owned()],
            };
            for test in tests {
                assert!(names.contains(&test), "docs/architecture.md names `{test}`, which no file defines");
                pins += 1;
            }
        }
    }
    assert!(pins >= 10, "the ledger's tests were read ({pins})");
}
