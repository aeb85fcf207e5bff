//! What a user sees in a real terminal: pgnkit run inside tmux, keys sent
//! with `send-keys`, the screen read back with `capture-pane`. Skipped,
//! with a message, where tmux is not installed.

use std::{
    path::Path,
    process::Command,
    sync::atomic::{AtomicU32, Ordering},
    thread,
    time::{Duration, Instant},
};

use crate::support::{Scratch, root};

/// A tmux server of its own (its own socket), with one window of a fixed
/// size running one shell command; killed when dropped.
struct Tmux {
    socket: String,
}

/// Marks the end of the command's output on the screen.
const DONE: &str = "__pgnkit_test_done__";

impl Tmux {
    /// Starts `command` (a `sh -c` line, run from the repository root with
    /// the built binary as `$PGNKIT`) in a new 150x50 terminal; `None`
    /// when tmux is missing.
    fn start(command: &str) -> Option<Tmux> {
        if !Command::new("tmux").arg("-V").output().is_ok_and(|out| out.status.success()) {
            crate::support::skip("tmux is not installed (apt-get install tmux); terminal behaviour is untested");
            return None;
        }
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let socket = format!("pgnkit-test-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let line = format!("{command}; status=$?; echo; echo {DONE} $status; sleep 60");
        let status = Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d", "-x", "150", "-y", "50"])
            .arg("-c")
            .arg(root())
            .args(["-e", &format!("PGNKIT={}", env!("CARGO_BIN_EXE_pgnkit"))])
            // Colour and the bar as a user with a plain terminal gets them.
            .args(["-e", "TERM=xterm-256color", "-e", "NO_COLOR="])
            .args(["sh", "-c", &line])
            .status()
            .expect("tmux runs");
        assert!(status.success(), "tmux new-session failed");
        Some(Tmux { socket })
    }

    /// The screen as text, trailing blank lines dropped.
    fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-J", "-S", "-"])
            .output()
            .expect("tmux capture-pane runs");
        String::from_utf8_lossy(&out.stdout).trim_end().to_owned()
    }

    /// Types `keys` (tmux key names: `C-d`, `Enter`, or literal text).
    fn send(&self, keys: &[&str]) {
        let status = Command::new("tmux").args(["-L", &self.socket, "send-keys"]).args(keys).status().expect("tmux");
        assert!(status.success());
    }

    /// Waits until `text` is on the screen; the screen then, or a failure
    /// naming what was there after 20 s.
    fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(start.elapsed() < Duration::from_secs(20), "`{text}` never came on the screen:\n{screen}");
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits for the command to end; its screen (up to the end marker) and
    /// its exit code.
    fn finished(&self) -> (String, i32) {
        let screen = self.wait_for(DONE);
        let (before, after) = screen.split_once(DONE).expect("waited for it");
        let code = after.split_whitespace().next().and_then(|c| c.parse().ok()).expect("an exit code");
        (before.trim_end().to_owned(), code)
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").args(["-L", &self.socket, "kill-server"]).status();
    }
}

/// `pgnkit ARGS -` fed `file` then kept waiting for a second, so that the
/// progress bar is drawn a few times before the output comes.
fn slow_input(file: &str, args: &str) -> String {
    assert!(Path::new(&root().join(file)).is_file(), "{file}");
    format!("{{ cat {file}; sleep 1; }} | \"$PGNKIT\" {args} -")
}

/// The bar shows a rate (`B/s`, `KiB/s`) and a count of games: none of it
/// may stay on the screen once the run is over.
fn assert_no_bar(screen: &str) {
    assert!(!screen.contains("B/s"), "a progress bar was left on the screen:\n{screen}");
}

#[test]
fn the_bar_is_drawn_while_reading_and_cleared_before_stats_tables() {
    let Some(tmux) = Tmux::start(&slow_input("testdata/valid/famous-games.pgn", "stats")) else { return };
    tmux.wait_for("B/s");
    let (screen, code) = tmux.finished();
    assert_eq!(code, 0, "{screen}");
    assert_no_bar(&screen);
    assert!(screen.contains("pgnkit: read 8 games"), "{screen}");
    assert!(screen.lines().any(|l| l.starts_with("games") && l.contains('8')), "{screen}");
}

#[test]
fn the_bar_is_cleared_before_the_count_of_filter() {
    let Some(tmux) = Tmux::start(&slow_input("testdata/valid/famous-games.pgn", "filter --count --result 1-0")) else {
        return;
    };
    tmux.wait_for("B/s");
    let (screen, code) = tmux.finished();
    assert_eq!(code, 0, "{screen}");
    assert_no_bar(&screen);
    // The count stands alone on its line, where the bar was.
    let expected =
        super::support::run(&["filter", "--count", "--result", "1-0", "testdata/valid/famous-games.pgn"], None);
    let count = expected.stdout.trim();
    assert!(screen.lines().any(|line| line.trim() == count), "no line `{count}`:\n{screen}");
}

#[test]
fn the_bar_is_cleared_before_the_copies_that_dedup_lists() {
    let twice = "{ cat testdata/valid/opera-game.pgn testdata/valid/opera-game.pgn; sleep 1; }";
    let Some(tmux) = Tmux::start(&format!("{twice} | \"$PGNKIT\" dedup --list -")) else {
        return;
    };
    tmux.wait_for("B/s");
    let (screen, code) = tmux.finished();
    assert_eq!(code, 0, "{screen}");
    assert_no_bar(&screen);
    assert!(screen.contains("<stdin>"), "the copies are listed:\n{screen}");
}

#[test]
fn the_bar_is_cleared_before_the_opening_tree_and_a_binary_book_is_refused_on_a_terminal() {
    let args = "book --format csv --min-games 1 --max-ply 2";
    let Some(tmux) = Tmux::start(&slow_input("testdata/book/rated-games.pgn", args)) else { return };
    tmux.wait_for("B/s");
    let (screen, code) = tmux.finished();
    assert_eq!(code, 0, "{screen}");
    assert_no_bar(&screen);
    assert!(screen.contains("fen,san,uci,games"), "{screen}");
    let Some(tmux) = Tmux::start("\"$PGNKIT\" book testdata/book/rated-games.pgn") else { return };
    let (screen, code) = tmux.finished();
    assert_eq!(code, 2, "{screen}");
    assert!(screen.contains("a Polyglot book is binary: give -o FILE or redirect stdout"), "{screen}");
}

#[test]
fn the_bar_is_cleared_before_validate_summary_and_findings() {
    let Some(tmux) = Tmux::start(&slow_input("testdata/invalid/illegal-castling-through-check.pgn", "validate")) else {
        return;
    };
    tmux.wait_for("B/s");
    let (screen, code) = tmux.finished();
    assert_eq!(code, 1, "{screen}");
    assert_no_bar(&screen);
    assert!(screen.contains("error[illegal-move]"), "{screen}");
}

#[test]
fn one_ctrl_d_ends_games_typed_at_the_terminal_with_no_bar_over_them() {
    let Some(tmux) = Tmux::start("\"$PGNKIT\" validate") else { return };
    // Keys typed before pgnkit reads are kept in the terminal's buffer.
    tmux.send(&["-l", "[Event \"typed\"]"]);
    tmux.send(&["Enter", "Enter"]);
    tmux.send(&["-l", "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0"]);
    tmux.send(&["Enter", "C-d"]);
    let (screen, code) = tmux.finished();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("pgnkit: checked 1 game in 1 input: 1 valid"), "{screen}");
    // No bar over what the user types.
    assert_no_bar(&screen);
}

#[test]
fn ctrl_c_stops_split_with_status_130_and_leaves_its_folder_empty() {
    let dir = Scratch::new("terminal-ctrl-c");
    // A handler, not `trap '' INT`: the shell stays to show the status,
    // and pgnkit starts with SIGINT at its default, as from a prompt.
    let command = format!(
        "trap 'echo' INT; {{ cat testdata/valid/famous-games.pgn; sleep 30; }} | \"$PGNKIT\" split --by player \
         --out-dir {} -",
        dir.display()
    );
    let Some(tmux) = Tmux::start(&command) else { return };
    tmux.wait_for("B/s");
    tmux.send(&["C-c"]);
    let (screen, code) = tmux.finished();
    assert_eq!(code, 130, "{screen}");
    assert!(!screen.contains("error"), "{screen}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "temporary and lock files removed");
}

#[test]
fn escape_sequences_in_a_file_name_and_bidi_controls_in_game_text_are_shown_escaped_not_acted_on() {
    let dir = Scratch::new("terminal-names");
    // A name that would clear the screen, and a White that would show the
    // rest of the line reversed.
    let game = "[Event \"e\"]\n[White \"\u{202e}evil\"]\n[Black \"b\"]\n[Result \"*\"]\n\n1. e4 Zz9 *\n";
    std::fs::write(dir.join("x\u{1b}[2J\u{1b}[Hy\u{2066}.pgn"), game).unwrap();
    let dir = dir.to_str().unwrap();
    let command = format!("echo before; \"$PGNKIT\" validate -v -j1 {dir}; \"$PGNKIT\" convert -j1 --to pgn {dir}");
    let Some(tmux) = Tmux::start(&command) else { return };
    let (screen, code) = tmux.finished();
    assert_eq!(code, 1, "the game has an error:\n{screen:?}");
    assert!(screen.contains("before"), "the screen was cleared:\n{screen}");
    assert!(screen.contains("x\\u{1b}[2J\\u{1b}[Hy\\u{2066}.pgn:"), "{screen}");
    assert!(screen.contains("\\u{202e}evil - b"), "validate -v's game line:\n{screen}");
    assert!(screen.contains("[White \"\\u{202e}evil\"]"), "convert's game on the terminal:\n{screen}");
    assert!(!screen.contains(['\u{202e}', '\u{2066}']), "{screen}");
}
