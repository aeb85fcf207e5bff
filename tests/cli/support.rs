//! Running the binary and reading fixtures.

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

/// What a run of the binary produced.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// The repository root (the working directory of every run).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The binary with a clean, colourless environment.
pub fn pgnkit() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pgnkit"));
    cmd.current_dir(root()).env_clear().env("NO_COLOR", "1");
    cmd
}

/// The binary as [`pgnkit`] gives it, with SIGINT, SIGTERM and SIGHUP at
/// their default: pgnkit keeps a signal ignored when it starts ignored (as
/// under nohup), and a shell starts its background jobs with SIGINT
/// ignored, so a test that signals pgnkit cannot take them as they come.
pub fn pgnkit_with_default_signals() -> Command {
    let mut cmd = Command::new("/usr/bin/env");
    cmd.arg("--default-signal=INT,TERM,HUP").arg(env!("CARGO_BIN_EXE_pgnkit"));
    cmd.current_dir(root()).env_clear().env("NO_COLOR", "1");
    cmd
}

/// Sends `signal` (a name for `kill`) to the child and waits for its end.
pub fn signal(child: &mut std::process::Child, signal: &str) -> std::process::ExitStatus {
    let sent = Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    // Held open until the child has ended: `Child::wait` would close it
    // first, and a child slow to take the signal (a loaded machine) could
    // read to the end of its input and exit 0 before it does.
    let stdin = child.stdin.take();
    let status = child.wait().unwrap();
    drop(stdin);
    status
}

/// Runs `pgnkit ARGS`, feeding `stdin` if given.
pub fn run(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut cmd = pgnkit();
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the binary runs");
    let input = stdin.map(<[u8]>::to_vec).unwrap_or_default();
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let feeder = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("the binary finishes");
    feeder.join().expect("stdin feeder");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

/// `pgnkit validate ARGS` on a file.
pub fn validate(args: &[&str]) -> Run {
    let mut all = vec!["validate"];
    all.extend_from_slice(args);
    run(&all, None)
}

/// The JSON objects of JSON Lines output.
pub fn json_lines(stdout: &str) -> Vec<serde_json::Value> {
    stdout.lines().map(|line| serde_json::from_str(line).expect("each line is JSON")).collect()
}

/// `../shared/corpus`, or `None` (and the test says it skips).
pub fn corpus() -> Option<PathBuf> {
    let dir = root().join("../shared/corpus");
    if dir.is_dir() {
        Some(dir)
    } else {
        skip("../shared/corpus is absent (the shared corpus is read in place, never copied)");
        None
    }
}

/// Says on the terminal that the running test cannot check anything here
/// and why; the test then returns and passes. Written to stderr itself:
/// libtest captures what `eprintln!` prints and shows it only for a test
/// that fails, so under `cargo test` a skip would pass unseen.
pub fn skip(why: &str) {
    let test = std::thread::current().name().filter(|&name| name != "main").map(str::to_owned);
    let line = match test {
        Some(test) => format!("skipped: {test}: {why}\n"),
        None => format!("skipped: {why}\n"),
    };
    let _ = std::io::stderr().write_all(line.as_bytes());
}

#[test]
fn a_skip_is_shown_by_cargo_test_which_captures_what_tests_print() {
    const PROBE: &str = "PGNKIT_SKIP_PROBE";
    if std::env::var_os(PROBE).is_some() {
        skip("the probe of the skip line");
        return;
    }
    // This test again, in a test binary of its own that captures the
    // output of tests as it does under `cargo test`.
    let test = "support::a_skip_is_shown_by_cargo_test_which_captures_what_tests_print";
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test])
        .env(PROBE, "1")
        .output()
        .expect("the test binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("skipped: ") && stderr.contains(": the probe of the skip line\n"), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
}

/// A folder of its own for one test, emptied when made and removed when
/// dropped (also when the test fails), named after the test and the
/// process so that tests running at once never share one.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let test = std::thread::current().name().filter(|&name| name != "main").unwrap_or("").replace("::", "-");
        let dir = std::env::temp_dir().join(format!("pgnkit-{test}-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch folder");
        Scratch(dir)
    }

    /// The path of `name` in the folder.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// The path of `name` in the folder, as an argument.
    pub fn str(&self, name: &str) -> String {
        self.path(name).to_str().expect("UTF-8 path").to_owned()
    }

    /// Writes `name` in the folder and gives its path as an argument.
    pub fn write(&self, name: &str, contents: impl AsRef<[u8]>) -> String {
        std::fs::write(self.path(name), contents).expect("scratch file");
        self.str(name)
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every file under `dir` with the extension `ext`, sorted.
pub fn files_with_extension(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable directory") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
