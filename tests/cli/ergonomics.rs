//! What every command shares for people at a terminal and for scripts:
//! colour (--color, NO_COLOR, CLICOLOR, CLICOLOR_FORCE), --progress,
//! completions, manual pages and --version.

use std::process::Output;

use crate::support::{pgnkit, root, run};

const INVALID: &str = "testdata/invalid/ambiguous-move.pgn";

fn output(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = pgnkit();
    cmd.env_remove("NO_COLOR");
    for (name, value) in env {
        cmd.env(name, value);
    }
    cmd.args(args).output().expect("the binary runs")
}

/// The text without ANSI SGR sequences (`ESC [ ... m`).
fn strip_ansi(text: &[u8]) -> String {
    let text = String::from_utf8(text.to_vec()).expect("UTF-8");
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("\u{1b}[") {
        out.push_str(&rest[..at]);
        let end = rest[at..].find('m').expect("an SGR sequence ends with m");
        rest = &rest[at + end + 1..];
    }
    out.push_str(rest);
    out
}

fn has_ansi(text: &[u8]) -> bool {
    text.windows(2).any(|w| w == b"\x1b[")
}

#[test]
fn color_always_changes_only_the_colour_of_findings() {
    for args in [
        &["validate", INVALID][..],
        &["convert", "--to", "san", INVALID],
        &["fen", "check", "8/8/8/8/8/8/8/8 w - - 0 1"],
    ] {
        let plain = output(&[args, &["--color", "never"]].concat(), &[]);
        let colour = output(&[args, &["--color", "always"]].concat(), &[]);
        assert!(!has_ansi(&plain.stdout) && !has_ansi(&plain.stderr), "{args:?}");
        assert!(has_ansi(&colour.stdout) || has_ansi(&colour.stderr), "{args:?}: no colour");
        assert_eq!(strip_ansi(&colour.stdout), strip_ansi(&plain.stdout), "{args:?}");
        assert_eq!(strip_ansi(&colour.stderr), strip_ansi(&plain.stderr), "{args:?}");
        assert_eq!(colour.status.code(), plain.status.code());
    }
}

#[test]
fn severities_have_their_colours() {
    let out = output(&["validate", "--color", "always", INVALID, "testdata/invalid/null-move.pgn"], &[]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\u{1b}[1;31merror\u{1b}[0m[ambiguous-move]"), "{text}");
    assert!(text.contains("\u{1b}[1;33mwarning\u{1b}[0m[null-move]"), "{text}");
}

#[test]
fn environment_decides_when_color_is_auto() {
    let args = ["validate", INVALID];
    // In a pipe, auto means no colour...
    assert!(!has_ansi(&output(&args, &[]).stdout));
    // ...unless CLICOLOR_FORCE asks for it, even with NO_COLOR set.
    assert!(has_ansi(&output(&args, &[("CLICOLOR_FORCE", "1")]).stdout));
    assert!(has_ansi(&output(&args, &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]).stdout));
    assert!(!has_ansi(&output(&args, &[("CLICOLOR_FORCE", "0")]).stdout));
    // --color never wins over everything.
    assert!(!has_ansi(&output(&["validate", "--color", "never", INVALID], &[("CLICOLOR_FORCE", "1")]).stdout));
    // NO_COLOR only matters for auto.
    assert!(has_ansi(&output(&["validate", "--color", "always", INVALID], &[("NO_COLOR", "1")]).stdout));
}

#[test]
fn help_follows_the_color_flag() {
    let plain = output(&["validate", "--help", "--color", "never"], &[]);
    let colour = output(&["validate", "--help", "--color=always"], &[]);
    assert!(!has_ansi(&plain.stdout));
    assert!(has_ansi(&colour.stdout));
    assert_eq!(strip_ansi(&colour.stdout), String::from_utf8(plain.stdout).unwrap());
}

#[test]
fn progress_always_logs_lines_to_a_pipe_and_quiet_silences_it() {
    let args = ["validate", "testdata/valid/famous-games.pgn"];
    let never = output(&args, &[]);
    let always = output(&["--progress", "always", "validate", "testdata/valid/famous-games.pgn"], &[]);
    let quiet = output(&["--progress", "always", "-q", "validate", "testdata/valid/famous-games.pgn"], &[]);
    let never = String::from_utf8(never.stderr).unwrap();
    let always = String::from_utf8(always.stderr).unwrap();
    assert!(!never.contains("KiB"), "{never}");
    assert!(always.lines().next().is_some_and(|line| line.contains("B/")), "{always}");
    assert!(always.ends_with(&never), "the summary line still comes last: {always}");
    assert_eq!(quiet.stderr, b"");
}

#[test]
fn completions_generate_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = run(&["completions", shell], None);
        assert_eq!(out.code, 0, "{shell}: {}", out.stderr);
        assert!(out.stdout.contains("validate") && out.stdout.contains("convert"), "{shell}");
    }
    assert_eq!(run(&["completions", "tcsh"], None).code, 2);
}

#[test]
fn man_pages_generate_for_pgnkit_and_each_command() {
    let help = run(&["--help"], None).stdout;
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|&name| name != "help")
        .collect();
    assert!(commands.len() >= 8, "{commands:?}");
    let top = run(&["man"], None);
    assert!(top.stdout.starts_with(".ie") && top.stdout.contains(".TH pgnkit 1"), "{}", top.stdout);
    for command in commands {
        let page = run(&["man", command], None);
        assert_eq!(page.code, 0, "{command}: {}", page.stderr);
        assert!(page.stdout.contains(&format!(".TH pgnkit-{command} 1")), "{command}");
    }
    assert!(run(&["man", "fen", "check"], None).stdout.contains("pgnkit-fen-check"));
    let unknown = run(&["man", "nope"], None);
    assert_eq!(unknown.code, 2);
    assert!(unknown.stderr.contains("no command \"nope\""), "{}", unknown.stderr);
}

#[test]
fn version_names_the_commit_and_the_features() {
    let out = run(&["--version"], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let features = if cfg!(feature = "parquet") { "parquet" } else { "none" };
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git").args(args).current_dir(root()).output().ok()?;
        out.status.success().then(|| String::from_utf8(out.stdout).unwrap().trim().to_owned())
    };
    // Outside a checkout of its own (an unpacked crate) the build says
    // "unknown", as build.rs does.
    let own_checkout = git(&["rev-parse", "--show-toplevel"])
        .is_some_and(|top| std::fs::canonicalize(top).ok() == std::fs::canonicalize(root()).ok());
    let commit =
        git(&["rev-parse", "--short", "HEAD"]).filter(|_| own_checkout).unwrap_or_else(|| "unknown".to_owned());
    let expected = format!("pgnkit {} (commit {commit}, features: {features})\n", env!("CARGO_PKG_VERSION"));
    assert_eq!(out.stdout, expected);
    assert_eq!(run(&["-V"], None).stdout, expected);
    assert!(run(&["stats", "merge", "--version"], None).stdout.contains(&format!("(commit {commit},")));
}
