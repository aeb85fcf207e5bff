//! The layout's rules, checked on the sources: no file imports a file that
//! imports it back (bytes -> frames -> check -> report -> output, commands on
//! top), only the binary knows clap, only `progress.rs` knows indicatif, the
//! ordered sink knows no checker and no game writer, and every module says
//! what it is for in its first line.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

use crate::support::root;

/// Files of the binary's own modules (the rest of `src/` is the library).
const BINARY: &[&str] =
    &["main", "ci", "cli", "cmd", "color", "exit", "pick", "pipeline", "progress", "run", "sink", "stdout"];

/// Every `.rs` file under `dir`, sorted.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("src/") {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// A file's module path in its crate (`check::replay`, `` for a crate root),
/// prefixed `bin:` for the binary's files.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    let binary = file.ends_with("main.rs") || parts.first().is_some_and(|p| BINARY.contains(&p.as_str()));
    format!("{}{}", if binary { "bin:" } else { "" }, parts.join("::"))
}

/// The code of a file without comments and without its test modules (a
/// test may use anything).
fn code(text: &str) -> String {
    let test_module = text.match_indices("#[cfg(test)]\n").map(|(at, _)| at).find(|&at| {
        let next = &text[at + "#[cfg(test)]\n".len()..];
        ["mod ", "pub mod ", "pub(crate) mod "].iter().any(|start| next.starts_with(start))
    });
    let text = &text[..test_module.unwrap_or(text.len())];
    text.lines().map(|line| line.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// Paths a file names: every `crate::`, `pgnkit::`, `super::` or `self::`
/// path, with `use` groups (`crate::{a::b, c}`) expanded.
fn paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for root in ["crate::", "pgnkit::", "super::", "self::"] {
        let mut rest = code;
        while let Some(at) = rest.find(root) {
            let before = rest[..at].chars().next_back();
            let start = &rest[at..];
            rest = &rest[at + root.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let end = start.find(|c: char| !(c.is_alphanumeric() || "_:{}, \n".contains(c))).unwrap_or(start.len());
            expand("", &start[..end], &mut out);
        }
    }
    out
}

/// `a::{b, c::d}` as `a::b`, `a::c::d`.
fn expand(prefix: &str, text: &str, out: &mut Vec<String>) {
    let text: String = text.split_whitespace().collect();
    match text.find('{') {
        None => out.push(format!("{prefix}{}", text.trim_end_matches([',', '}']))),
        Some(open) => {
            let head = format!("{prefix}{}", &text[..open]);
            let (mut depth, mut item) = (0, String::new());
            for c in text[open + 1..].chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand(&head, &std::mem::take(&mut item), out);
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            if !item.is_empty() {
                expand(&head, &item, out);
            }
        }
    }
}

/// The module a path names, among `modules`, seen from module `from`.
fn target(path: &str, from: &str, modules: &BTreeSet<String>) -> Option<String> {
    let binary = from.starts_with("bin:");
    let here: Vec<&str> = from.trim_start_matches("bin:").split("::").filter(|p| !p.is_empty()).collect();
    let mut segments: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
    let (prefix, mut base): (&str, Vec<&str>) = match segments.first().copied() {
        Some("crate") => (if binary { "bin:" } else { "" }, Vec::new()),
        Some("pgnkit") => ("", Vec::new()),
        Some("self") => (if binary { "bin:" } else { "" }, here.clone()),
        Some("super") => (if binary { "bin:" } else { "" }, here[..here.len().saturating_sub(1)].to_vec()),
        _ => return None,
    };
    segments.remove(0);
    while segments.first() == Some(&"super") {
        segments.remove(0);
        base.pop();
    }
    (0..=segments.len()).rev().find_map(|n| {
        let candidate = format!("{prefix}{}", [&base[..], &segments[..n]].concat().join("::"));
        modules.contains(&candidate).then_some(candidate)
    })
}

#[test]
fn no_source_file_imports_a_file_that_imports_it_back() {
    let src = root().join("src");
    let files = sources(&src);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).collect();
    let mut imports: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let from = module_of(&src, file);
        let code = code(&std::fs::read_to_string(file).unwrap());
        let mut to: BTreeSet<String> =
            paths(&code).iter().filter_map(|p| target(p, &from, &modules)).filter(|t| *t != from).collect();
        // A parent naming a child module by its bare name (`replay::run`).
        for child in modules.iter().filter(|m| m.rsplit_once("::").map(|(p, _)| p) == Some(from.as_str())) {
            let name = child.rsplit("::").next().unwrap();
            if code
                .match_indices(&format!("{name}::"))
                .any(|(at, _)| !code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':'))
            {
                to.insert(child.clone());
            }
        }
        imports.insert(from, to);
    }
    assert!(imports.len() > 50, "the sources were read ({} files)", imports.len());
    // A cycle shows as a module that reaches itself.
    for start in imports.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<(String, Vec<String>)> = vec![(start.clone(), vec![start.clone()])];
        while let Some((module, trail)) = stack.pop() {
            for next in &imports[&module] {
                assert!(next != start, "an import cycle: {} -> {start}", trail.join(" -> "));
                if seen.insert(next.clone()) {
                    let mut trail = trail.clone();
                    trail.push(next.clone());
                    stack.push((next.clone(), trail));
                }
            }
        }
    }
}

#[test]
fn the_library_knows_no_command_line_and_only_the_progress_bar_knows_indicatif() {
    let src = root().join("src");
    for file in sources(&src) {
        let module = module_of(&src, &file);
        let code = code(&std::fs::read_to_string(&file).unwrap());
        if !module.starts_with("bin:") {
            assert!(!code.contains("clap::") && !code.contains("use clap"), "{module} uses clap");
        }
        if module != "bin:progress" {
            assert!(!code.contains("indicatif"), "{module} uses indicatif");
        }
    }
}

#[test]
fn the_ordered_sink_imports_nothing_of_the_checker_or_the_game_writers() {
    // How a game is read or written is the commands' business (`pick.rs`
    // for filter, dedup and split): the sink only puts bytes in order.
    let src = root().join("src");
    let files = sources(&src);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).collect();
    let sink = src.join("sink.rs");
    let from = module_of(&src, &sink);
    assert_eq!(from, "bin:sink");
    let code = code(&std::fs::read_to_string(&sink).unwrap());
    let imported: BTreeSet<String> = paths(&code).iter().filter_map(|p| target(p, &from, &modules)).collect();
    assert!(imported.contains("report") && imported.contains("bin:pipeline"), "the imports were read: {imported:?}");
    for module in &imported {
        let under = |root: &str| module == root || module.starts_with(&format!("{root}::"));
        assert!(!under("check") && !under("output::games"), "the sink imports {module}");
    }
}

#[test]
fn every_module_starts_with_a_line_saying_what_it_is_for() {
    let src = root().join("src");
    for file in sources(&src) {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.starts_with("//! "), "{} does not start with a //! line", file.display());
    }
}

/// The modules `from` (a module and its children) names, among the library's
/// modules, outside its tests.
fn library_imports(from: &str) -> BTreeSet<String> {
    let src = root().join("src");
    let files = sources(&src);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).collect();
    let within = |module: &str, room: &str| module == room || module.starts_with(&format!("{room}::"));
    let mut to = BTreeSet::new();
    for file in files.iter().filter(|f| within(&module_of(&src, f), from)) {
        let module = module_of(&src, file);
        let code = code(&std::fs::read_to_string(file).unwrap());
        to.extend(paths(&code).iter().filter_map(|p| target(p, &module, &modules)));
    }
    to.retain(|t| !within(t, from));
    to
}

#[test]
fn games_import_nothing_of_the_checker_and_the_notation_nothing_of_the_report() {
    // (lower room, higher room): the checker fills games and reads moves,
    // the report keeps a position's FEN; never the other way round.
    for (lower, higher) in [("game", "check"), ("notation", "report")] {
        let imports = library_imports(lower);
        assert!(!imports.is_empty(), "{lower}'s imports were read");
        let upward: Vec<&String> =
            imports.iter().filter(|t| *t == higher || t.starts_with(&format!("{higher}::"))).collect();
        assert!(upward.is_empty(), "{lower} imports {upward:?}");
    }
}

/// Lines a newcomer must hold in mind: the production part of a file (the
/// lines before its test module) and the body of one function. A file or a
/// function past these is more than one thing and wants splitting.
const MAX_FILE_LINES: usize = 1_000;
const MAX_FUNCTION_LINES: usize = 120;

/// The functions of a file's production part longer than
/// `MAX_FUNCTION_LINES`: (name, first line, lines). A function runs from its
/// `fn` line to the first line that closes it at the same indentation
/// (rustfmt's layout, which `cargo fmt --check` holds).
fn long_functions(production: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = production.lines().collect();
    let mut long = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let body = line.trim_start();
        let indent = line.len() - body.len();
        let Some(after) = ["fn ", "pub fn ", "pub(crate) fn ", "pub(super) fn ", "const fn ", "pub const fn "]
            .iter()
            .find_map(|start| body.strip_prefix(start))
        else {
            continue;
        };
        if body.ends_with(';') {
            continue;
        }
        let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let end = lines[at + 1..].iter().position(|l| {
            let trimmed = l.trim_start();
            l.len() - trimmed.len() == indent && trimmed.starts_with('}')
        });
        if let Some(end) = end
            && end + 2 > MAX_FUNCTION_LINES
        {
            long.push((name, at + 1, end + 2));
        }
    }
    long
}

/// A file without its test modules (a test module may stand before
/// production code, which counts then).
fn production(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    let test_module = |text: &str| {
        ["mod ", "pub mod ", "pub(crate) mod "].iter().filter_map(|m| text.find(&format!("\n#[cfg(test)]\n{m}"))).min()
    };
    while let Some(at) = test_module(rest) {
        out.push_str(&rest[..at + 1]);
        // The module ends at the first line that closes it: a `}` alone.
        let after = &rest[at + 1..];
        rest = after.find("\n}\n").map_or("", |end| &after[end + 3..]);
    }
    out.push_str(rest);
    out
}

#[test]
fn no_production_file_passes_1000_lines_nor_a_function_120() {
    let src = root().join("src");
    let mut over = Vec::new();
    let mut files = sources(&src);
    // The workspace's own crates, their integration tests aside.
    let crates = root().join("crates");
    if crates.is_dir() {
        files.extend(sources(&crates).into_iter().filter(|f| !f.components().any(|c| c.as_os_str() == "tests")));
    }
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let production = production(&text);
        let name = file.strip_prefix(root()).unwrap().display().to_string();
        let lines = production.lines().count();
        if lines > MAX_FILE_LINES {
            over.push(format!("{name}: {lines} lines"));
        }
        for (function, at, lines) in long_functions(&production) {
            over.push(format!("{name}:{at}: fn {function} is {lines} lines"));
        }
    }
    assert!(over.is_empty(), "past the bounds:\n{}", over.join("\n"));
}

#[test]
fn a_long_function_is_found_from_its_fn_line_to_its_closing_brace() {
    let body = "    let x = 1;\n".repeat(MAX_FUNCTION_LINES);
    let text = format!("fn short() {{\n}}\n\nimpl A {{\n    pub fn long(&self) {{\n{body}    }}\n}}\n");
    assert_eq!(long_functions(&text), [("long".to_owned(), 5, MAX_FUNCTION_LINES + 2)]);
    let just = "    let x = 1;\n".repeat(MAX_FUNCTION_LINES - 2);
    assert!(long_functions(&format!("fn fits() {{\n{just}}}\n")).is_empty());
}
