//! `pgnkit fix`: each repair on its fixture, games that cannot be repaired
//! passed through, idempotence, the fixed output validated, `--in-place`,
//! `--diff`, `--check`, and a round trip over the shared corpus.

use std::{
    io::Write,
    path::{Path, PathBuf},
};

use crate::support::{Scratch, corpus, files_with_extension, json_lines, root, run, skip};

fn fix(args: &[&str]) -> crate::support::Run {
    let mut all = vec!["fix"];
    all.extend_from_slice(args);
    run(&all, None)
}

/// Findings that `fix` repairs: none may be left in a game it could repair.
const REPAIRED: &[&str] = &[
    "result-mismatch",
    "invalid-result-tag",
    "missing-result",
    "nonstandard-result-marker",
    "non-san-move",
    "unmarked-capture",
    "lint-check-suffix",
    "lint-disambiguation",
    "lint-zero-castling",
    "lint-promotion-equals",
    "lint-en-passant-suffix",
    "non-utf8",
    "unescaped-quote",
    "glued-game",
    "fen-tag-repaired",
    "stray-text",
];

/// The fixtures of testdata/fix, by name.
fn fixtures() -> Vec<PathBuf> {
    let files = files_with_extension(&root().join("testdata/fix"), "pgn");
    assert!(files.len() >= 8, "{files:?}");
    files
}

/// The `fixed[CODE]` codes of a run's stderr, in order.
fn repairs(stderr: &str) -> Vec<&str> {
    stderr.lines().filter_map(|line| line.split_once(" fixed[")?.1.split_once(']').map(|(code, _)| code)).collect()
}

#[test]
fn each_repair_is_made_and_said_on_its_fixture() {
    let cases: &[(&str, &[&str], &[&str])] = &[
        (
            "result-tag",
            &[
                "fixed-result-tag",
                "fixed-result-tag",
                "fixed-result-tag",
                "fixed-result-marker",
                "fixed-result-tag",
                "fixed-result-marker",
            ],
            &[
                "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n",
                "[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Nf3 Nc6 1/2-1/2\n",
                "1. Qg7# 1-0\n",
                "1. Qf7 1/2-1/2\n",
            ],
        ),
        ("missing-result-marker", &["added-result-marker", "added-result-marker"], &["2. c4 e6 1-0\n", "1. e4 c5 *\n"]),
        (
            "non-standard-san",
            &["normalized-san", "normalized-san"],
            &["1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. Nf3 Nf6 5. Bc4 Bg4 6. O-O Nbd7 7. Bxf7+\n", "1. e8=Q Kb3 *\n"],
        ),
        ("latin1", &["re-encoded-latin1"], &["[Site \"München\"]\n", "[White \"René\"]\n", "{ café }"]),
        (
            "incomplete-seven-tag-roster",
            &["completed-seven-tag-roster", "completed-seven-tag-roster"],
            &[
                "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"Anderssen\"]\n",
                "[White \"?\"]\n",
            ],
        ),
        (
            "impossible-fen-tag",
            &["dropped-castling-rights", "dropped-en-passant"],
            &["[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n"],
        ),
        ("stray-text", &["removed-stray-text"], &["1. e4 e5 1-0\n\n[Event"]),
        (
            "duplicate-tags",
            &["completed-seven-tag-roster", "removed-duplicate-tag"],
            &[
                "[White \"Kieseritzky\"]\n[Black",
                "[Round \"1\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n[Annotator \"x\"]\n[Annotator \"y\"]\n",
            ],
        ),
        ("empty-variation", &["removed-empty-variation"; 2], &["2. Nf3 Nc6 (2... d6) 3. Bb5 *\n"]),
        (
            "../lenient/unescaped-quote-in-tag",
            &["escaped-tag-quotes", "escaped-tag-quotes"],
            &["[Event \"LA CC Handicap Tour \\\"C\\\"\"]\n", "[White \"Smith, John \\\"The King\\\"\"]\n"],
        ),
        ("../lenient/glued-games-by-cat", &["separated-glued-game"], &["2. g4 Qh4# 0-1\n\n[Event \"b\"]\n"]),
        (
            "comments-between-games",
            &["removed-stray-text"; 4],
            &["[Event \"a\"]\n", "1. e4 e5 1-0\n\n[Event \"b\"]\n", "1. d4 *\n"],
        ),
    ];
    for &(name, codes, written) in cases {
        let path = format!("testdata/fix/{name}.pgn");
        let out = fix(&[&path]);
        assert_eq!(out.code, 0, "{name}: {}", out.stderr);
        assert_eq!(repairs(&out.stderr), codes, "{name}: {}", out.stderr);
        for text in written {
            assert!(out.stdout.contains(text), "{name}: no {text:?} in\n{}", out.stdout);
        }
        assert!(out.stderr.lines().all(|l| l.starts_with(&format!("{path}:")) || l.starts_with("pgnkit: fixed ")));
    }
    let stray = fix(&["testdata/fix/stray-text.pgn"]);
    assert!(!stray.stdout.contains("Forwarded"), "{}", stray.stdout);
    assert!(stray.stderr.ends_with("pgnkit: fixed 1 game in 1 input, 1 unchanged, 0 could not be fixed\n"));
}

#[test]
fn a_repair_line_is_located_as_a_finding_is() {
    let out = fix(&["testdata/fix/result-tag.pgn"]);
    let first = out.stderr.lines().next().unwrap();
    assert_eq!(
        first,
        "testdata/fix/result-tag.pgn:7:1: fixed[fixed-result-tag]: [Result \"1-0\"] set to \"0-1\": \
         the game ended on the board (checkmate) (game 1)"
    );
    let quiet = fix(&["-q", "testdata/fix/result-tag.pgn"]);
    assert_eq!((quiet.stderr.as_str(), quiet.stdout), ("", out.stdout));
}

#[test]
fn games_that_cannot_be_repaired_pass_through_byte_for_byte_and_are_reported_as_validate_reports_them() {
    let path = "testdata/fix/unfixable.pgn";
    let original = std::fs::read_to_string(root().join(path)).unwrap();
    let out = fix(&[path]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    // One blank line after the last game, as after every game.
    assert_eq!(out.stdout, format!("{original}\n"));
    let validate = run(&["validate", path], None);
    let findings: Vec<&str> = validate.stdout.lines().collect();
    let reported: Vec<&str> = out.stderr.lines().filter(|l| !l.starts_with("pgnkit: ")).collect();
    assert_eq!(reported, findings);
    assert!(out.stderr.ends_with("pgnkit: fixed 0 games in 1 input, 1 unchanged, 2 could not be fixed\n"));
}

#[test]
fn fixing_fixed_output_changes_nothing_and_it_validates_without_a_repaired_finding() {
    for path in fixtures() {
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let first = fix(&["-q", path.to_str().unwrap()]);
        assert!(first.code <= 1, "{name}: {}", first.stderr);
        let second = run(&["fix", "--check", "-"], Some(first.stdout.as_bytes()));
        assert_eq!(second.code, first.code, "{name}: {}", second.stderr);
        assert_eq!(repairs(&second.stderr), Vec::<&str>::new(), "{name}");
        let again = run(&["fix", "-q", "-"], Some(first.stdout.as_bytes()));
        assert_eq!(again.stdout, first.stdout, "{name}");
        if name != "unfixable.pgn" {
            let checked = run(&["validate", "--lint", "-"], Some(first.stdout.as_bytes()));
            assert!(
                !REPAIRED.iter().any(|code| checked.stdout.contains(&format!("[{code}]"))),
                "{name}: {}",
                checked.stdout
            );
        }
    }
}

#[test]
fn in_place_replaces_each_file_atomically_and_only_when_something_changed() {
    let dir = Scratch::new("fix-in-place");
    let (fixable, unfixable) = (dir.join("result-tag.pgn"), dir.join("unfixable.pgn"));
    std::fs::copy(root().join("testdata/fix/result-tag.pgn"), &fixable).unwrap();
    std::fs::copy(root().join("testdata/fix/unfixable.pgn"), &unfixable).unwrap();
    let expected = fix(&["-q", "testdata/fix/result-tag.pgn"]).stdout;
    let untouched = std::fs::metadata(&unfixable).unwrap().modified().unwrap();
    let out = fix(&["--in-place", fixable.to_str().unwrap(), unfixable.to_str().unwrap()]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert_eq!(std::fs::read_to_string(&fixable).unwrap(), expected);
    assert_eq!(std::fs::read(&unfixable).unwrap(), std::fs::read(root().join("testdata/fix/unfixable.pgn")).unwrap());
    assert_eq!(std::fs::metadata(&unfixable).unwrap().modified().unwrap(), untouched);
    assert!(out.stderr.ends_with("pgnkit: fixed 4 games in 2 inputs, 1 unchanged, 2 could not be fixed\n"));
    let names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names.len(), 2, "a temporary file is left: {names:?}");
}

#[test]
fn in_place_and_diff_refuse_stdin_and_compressed_files_before_writing_anything() {
    let dir = Scratch::new("fix-refused");
    let plain = dir.join("result-tag.pgn");
    std::fs::copy(root().join("testdata/fix/result-tag.pgn"), &plain).unwrap();
    let packed = dir.join("games.pgn.zst");
    std::fs::copy(root().join("testdata/compressed/famous-games.pgn.zst"), &packed).unwrap();
    let before = std::fs::read(&plain).unwrap();
    for mode in ["--in-place", "--diff"] {
        let stdin = run(&["fix", mode], Some(b"1. e4 e5\n"));
        assert_eq!(stdin.code, 2, "{}", stdin.stderr);
        assert!(stdin.stderr.contains("stdin cannot be rewritten"), "{}", stdin.stderr);
        let out = fix(&[mode, plain.to_str().unwrap(), packed.to_str().unwrap()]);
        assert_eq!(out.code, 2, "{}", out.stderr);
        assert!(out.stderr.contains("games.pgn.zst is zstd-compressed"), "{}", out.stderr);
        assert_eq!(std::fs::read(&plain).unwrap(), before, "{mode}: the plain file was written");
    }
    let sharded = fix(&["--in-place", "--shard", "0/2", plain.to_str().unwrap()]);
    assert_eq!(sharded.code, 2, "{}", sharded.stderr);
}

#[test]
fn diff_is_a_unified_diff_that_patch_applies() {
    let files = ["testdata/fix/latin1.pgn", "testdata/fix/stray-text.pgn", "testdata/fix/unfixable.pgn"];
    // Raw bytes: the Latin-1 lines must reach patch as they are in the file.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pgnkit"))
        .current_dir(root())
        .args(["fix", "-q", "--diff"])
        .args(files)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let diff = out.stdout;
    let text = String::from_utf8_lossy(&diff);
    assert!(text.starts_with("--- testdata/fix/latin1.pgn\n+++ testdata/fix/latin1.pgn\n@@ -1,9 +1,10 @@\n"), "{text}");
    assert!(text.contains("\n-Forwarded message: games of the week\n"), "{text}");
    assert!(!text.contains("unfixable.pgn"), "a file with nothing repaired has no diff");
    if !Path::new("/usr/bin/patch").exists() && !Path::new("/bin/patch").exists() {
        skip("patch is not installed: the diff is not applied");
        return;
    }
    let dir = Scratch::new("fix-diff");
    std::fs::create_dir_all(dir.join("testdata/fix")).unwrap();
    for file in files {
        std::fs::copy(root().join(file), dir.join(file)).unwrap();
    }
    let mut patch = std::process::Command::new("patch")
        .args(["-p0", "--batch", "--silent"])
        .current_dir(&dir)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut patch.stdin.take().unwrap(), &diff).unwrap();
    assert!(patch.wait().unwrap().success());
    for file in files {
        let fixed = fix(&["-q", file]).stdout;
        let patched = std::fs::read_to_string(dir.join(file)).unwrap();
        if file.ends_with("unfixable.pgn") {
            assert_eq!(patched, std::fs::read_to_string(root().join(file)).unwrap());
        } else {
            assert_eq!(patched, fixed, "{file}");
        }
    }
}

/// How a generated game is broken, for the `--diff` cases.
#[derive(Clone, Copy, PartialEq)]
enum Broken {
    No,
    /// `[Result "0-1"]` where the game ends 1-0: one line changes.
    ResultTag,
    /// No termination marker: the movetext line changes.
    NoMarker,
    /// No Event tag: a line is added at the game's start.
    NoEvent,
}

/// Game `n` of a generated file, ten lines, broken as `broken` says, its
/// lines ended by `newline`.
fn generated_game(n: usize, broken: Broken, newline: &str) -> String {
    let result = if broken == Broken::ResultTag { "0-1" } else { "1-0" };
    let marker = if broken == Broken::NoMarker { "" } else { " 1-0" };
    let mut game = String::new();
    if broken != Broken::NoEvent {
        game.push_str(&format!("[Event \"Game {n}\"]{newline}"));
    }
    for tag in [format!("[Site \"Site {n}\"]"), "[Date \"2024.01.01\"]".into(), format!("[Round \"{n}\"]")] {
        game.push_str(&format!("{tag}{newline}"));
    }
    game.push_str(&format!(
        "[White \"White {n}\"]{newline}[Black \"Black {n}\"]{newline}[Result \"{result}\"]{newline}"
    ));
    game.push_str(&format!("{newline}1. e4 e5 2. Nf3 Nc6{marker}{newline}{newline}"));
    game
}

/// A generated file for `--diff`: its games, those broken, its line
/// ending, whether its last line has one, and the hunks of its diff.
struct DiffCase<'a> {
    name: &'a str,
    games: usize,
    broken: &'a [(usize, Broken)],
    newline: &'a str,
    final_newline: bool,
    hunks: usize,
}

#[test]
fn diff_hunks_are_numbered_and_merged_over_the_whole_file_so_that_patch_applies_them_without_fuzz() {
    use Broken::*;
    let dir = Scratch::new("fix-diff-cases");
    // 60,000 games (9 MB): the diff is made in several windows.
    let many: Vec<(usize, Broken)> =
        (0..9).map(|k| (k * 7_000 + 11, ResultTag)).chain([(30_000, NoMarker), (30_001, NoEvent)]).collect();
    let case = |name, games, broken, newline, final_newline, hunks| DiffCase {
        name,
        games,
        broken,
        newline,
        final_newline,
        hunks,
    };
    let cases = [
        case("far-apart", 60, &[(5, ResultTag), (30, ResultTag), (55, NoMarker)][..], "\n", true, 3),
        // The marker added at the end of one game and the Event tag at the
        // start of the next are two lines apart: one hunk.
        case("next-to-each-other", 60, &[(20, NoMarker), (21, NoEvent)], "\n", true, 1),
        // Nine lines apart: two hunks.
        case("two-in-a-row", 60, &[(40, ResultTag), (41, ResultTag)], "\n", true, 2),
        case("first-and-last", 60, &[(0, NoEvent), (59, ResultTag)], "\n", true, 2),
        // The last game gains its line ending and the blank line after it.
        case("no-final-newline", 60, &[(10, ResultTag)], "\n", false, 2),
        case("crlf", 60, &[(3, ResultTag), (33, NoMarker)], "\r\n", true, 2),
        case("beyond-a-window", 60_000, &many, "\n", true, 10),
    ];
    for DiffCase { name, games, broken, newline, final_newline, hunks } in cases {
        let mut text: String = (0..games)
            .map(|n| generated_game(n, broken.iter().find(|b| b.0 == n).map_or(No, |b| b.1), newline))
            .collect();
        if !final_newline {
            text.truncate(text.trim_end().len());
        }
        // Relative: patch refuses an absolute path.
        let path = format!("{name}.pgn");
        std::fs::write(dir.join(&path), &text).unwrap();
        let pgnkit = || {
            let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_pgnkit"));
            command.current_dir(&dir);
            command
        };
        let out = pgnkit().args(["fix", "-q", "--diff", &path]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let diff = out.stdout;
        let shown = String::from_utf8_lossy(&diff);
        assert!(shown.starts_with(&format!("--- {path}\n+++ {path}\n@@ ")), "{name}: {shown}");
        assert_eq!(shown.matches("\n@@ -").count(), hunks, "{name}: {shown}");
        assert_eq!(shown.contains("\\ No newline at end of file"), !final_newline, "{name}: {shown}");
        // Each hunk where its header says: the first changed line of each
        // broken game, counted over the whole file, three lines down. (A
        // game written again has `\n` line endings: with `\r\n` all its
        // lines change, and which blank line is kept is the diff's choice.)
        let apart =
            broken.iter().filter(|b| newline == "\n" && !broken.iter().any(|a| a.1 == NoMarker && a.0 + 1 == b.0));
        for &(n, how) in apart {
            let changed = match how {
                ResultTag => 10 * n + 7,
                NoMarker => 10 * n + 9,
                _ => 10 * n + 1,
            } - usize::from(broken.iter().any(|b| b.0 < n && b.1 == NoEvent));
            let start = changed.saturating_sub(3).max(1);
            assert!(shown.contains(&format!("\n@@ -{start},")), "{name}: game {n} at line {start}: {shown}");
        }
        if !Path::new("/usr/bin/patch").exists() && !Path::new("/bin/patch").exists() {
            skip("patch is not installed: the diff is not applied");
            continue;
        }
        let fixed = pgnkit().args(["fix", "-q", &path]).output().unwrap().stdout;
        let mut patch = std::process::Command::new("patch")
            .args(["-p0", "--batch", "--fuzz=0"])
            .current_dir(&dir)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut patch.stdin.take().unwrap(), &diff).unwrap();
        let said = patch.wait_with_output().unwrap();
        let said_text = String::from_utf8_lossy(&said.stdout);
        assert!(said.status.success(), "{name}: {said_text}");
        assert!(!said_text.contains("offset") && !said_text.contains("fuzz"), "{name}: {said_text}");
        assert_eq!(std::fs::read(dir.join(&path)).unwrap(), fixed, "{name}");
    }
}

#[test]
fn check_writes_nothing_and_exits_1_when_something_would_change() {
    let out = fix(&["--check", "testdata/fix/missing-result-marker.pgn"]);
    assert_eq!((out.code, out.stdout.as_str()), (1, ""), "{}", out.stderr);
    assert_eq!(repairs(&out.stderr), ["added-result-marker", "added-result-marker"]);
    assert!(out.stderr.ends_with("pgnkit: would fix 2 games in 1 input, 0 unchanged, 0 could not be fixed\n"));
    let fixed = fix(&["-q", "testdata/fix/missing-result-marker.pgn"]).stdout;
    let again = run(&["fix", "--check", "-"], Some(fixed.as_bytes()));
    assert_eq!((again.code, again.stdout.as_str()), (0, ""), "{}", again.stderr);
}

#[test]
fn every_corpus_file_round_trips_through_fix() {
    let Some(corpus) = corpus() else { return };
    let files = files_with_extension(&corpus.join("pgn"), "pgn");
    assert!(files.len() > 100);
    for file in files {
        let path = file.to_str().unwrap();
        let first = fix(&["-q", path]);
        assert!(first.code <= 1, "{path}: {}", first.stderr);
        let second = run(&["fix", "-q", "-"], Some(first.stdout.as_bytes()));
        assert_eq!(second.stdout, first.stdout, "{path}: fixing twice changes the output");
        let before = json_lines(&run(&["validate", "--format", "jsonl", path], None).stdout);
        let after =
            json_lines(&run(&["validate", "--lint", "--format", "jsonl", "-"], Some(first.stdout.as_bytes())).stdout);
        assert_eq!(before.len(), after.len(), "{path}: game count");
        for game in &after {
            let codes: Vec<&str> =
                game["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
            // Games fix could not write again keep what they had.
            let kept = game["valid"] == false
                || game["checked"] == false
                || codes.iter().any(|c| ["text-annotation", "invalid-nag"].contains(c));
            if !kept {
                let left: Vec<&&str> = codes.iter().filter(|c| REPAIRED.contains(c)).collect();
                assert!(left.is_empty(), "{path}: game {}: {left:?}", game["game"]);
            }
        }
    }
}

#[test]
fn the_output_formats_page_names_every_repair() {
    let doc = std::fs::read_to_string(root().join("docs/output-formats.md")).unwrap();
    for repair in pgnkit::fix::Repair::ALL {
        assert!(doc.contains(&format!("| `{}` |", repair.as_str())), "docs/output-formats.md lacks {repair:?}");
    }
}

#[test]
fn openings_set_the_eco_and_opening_tags_a_table_gives_once() {
    let table = "testdata/stats/openings.tsv";
    let out = fix(&["--openings", table, "testdata/valid/famous-games.pgn"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.starts_with(
        "testdata/valid/famous-games.pgn:1:1: fixed[set-opening-tags]: [ECO \"C41\"] and [Opening \"Philidor Defense\"] \
         from the openings table (game 1)\n"
    ));
    assert!(out.stdout.contains("[ECO \"C41\"]\n") && out.stdout.contains("[Opening \"Philidor Defense\"]\n"));
    let again = run(&["fix", "--check", "--openings", table, "-"], Some(out.stdout.as_bytes()));
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(repairs(&again.stderr), Vec::<&str>::new());
}

#[test]
fn openings_builtin_names_a_game_without_eco_tags_as_lichess_does_and_tags_names_no_table() {
    let pgn = "[Event \"x\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"a\"]\n[Black \"b\"]\n\
               [Result \"*\"]\n\n1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 *\n\n";
    let out = run(&["fix", "--openings", "builtin", "-"], Some(pgn.as_bytes()));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(repairs(&out.stderr), ["set-opening-tags"]);
    assert!(
        out.stdout.contains("[ECO \"B90\"]\n[Opening \"Sicilian Defense: Najdorf Variation\"]\n"),
        "{}",
        out.stdout
    );
    let tags = run(&["fix", "--openings", "tags", "-"], Some(pgn.as_bytes()));
    assert_eq!(tags.code, 2);
    assert!(tags.stderr.contains("--openings tags names no table"), "{}", tags.stderr);
}

#[test]
fn comments_and_escape_lines_between_games_are_removed_with_a_line_each_and_validate_reads_past_them() {
    let path = "testdata/fix/comments-between-games.pgn";
    let out = fix(&[path]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for gone in ["A collection", "% escape", "; note", "two lines"] {
        assert!(!out.stdout.contains(gone), "{gone:?} left in\n{}", out.stdout);
    }
    let located: Vec<&str> = out.stderr.lines().filter_map(|l| l.split(": fixed[").next()).collect();
    assert_eq!(
        located[..4],
        [format!("{path}:1:1"), format!("{path}:12:1"), format!("{path}:13:1"), format!("{path}:14:1")]
    );
    let check = run(&["fix", "--check", path], None);
    assert_eq!(check.code, 1, "{}", check.stderr);
    let validate = run(&["validate", path], None);
    assert_eq!(validate.code, 0, "{}", validate.stderr);
    assert_eq!(validate.stdout, "", "validate reads past them without a finding");
}

/// `n` games without a result marker (`fix` adds one to each).
fn games_to_repair(n: usize) -> String {
    (0..n)
        .map(|i| format!("[Event \"{i}\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#\n\n"))
        .collect()
}

#[test]
fn in_place_refuses_to_replace_a_file_appended_to_while_it_ran_and_loses_no_game() {
    use std::process::{Command, Stdio};
    let dir = Scratch::new("fix-appended");
    let file = dir.join("games.pgn");
    let before = games_to_repair(100_000);
    std::fs::write(&file, &before).unwrap();
    let child = crate::support::pgnkit()
        .args(["fix", "-q", "--in-place", file.to_str().unwrap()])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Its temporary file is made before the file is read: stop the run
    // there, append games as another program would, and let it go on.
    let started = std::time::Instant::now();
    while !std::fs::read_dir(&dir).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".pgnkit-tmp")) {
        assert!(started.elapsed().as_secs() < 20, "no temporary file");
    }
    let kill = |signal: &str| {
        assert!(Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap().success())
    };
    kill("-STOP");
    let appended = "[Event \"appended\"]\n[Result \"*\"]\n\n1. d4 *\n\n";
    std::fs::OpenOptions::new().append(true).open(&file).unwrap().write_all(appended.as_bytes()).unwrap();
    kill("-CONT");
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("games.pgn: not rewritten: it changed while it was read"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before + appended);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary file is left");
}

#[test]
fn in_place_keeps_the_owner_and_group_and_drops_the_setuid_and_setgid_bits() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = Scratch::new("fix-owner");
    let file = dir.join("games.pgn");
    std::fs::write(&file, games_to_repair(3)).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o6754)).unwrap();
    // Someone else's file, as root may fix it.
    if std::os::unix::fs::chown(&file, Some(65_534), Some(65_534)).is_err() {
        skip("giving a file to another owner needs root");
        return;
    }
    let out = fix(&["-q", "--in-place", file.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let meta = std::fs::metadata(&file).unwrap();
    assert!(std::fs::read_to_string(&file).unwrap().contains("Qxf7# 1-0"), "rewritten");
    assert_eq!((meta.uid(), meta.gid()), (65_534, 65_534));
    assert_eq!(meta.mode() & 0o7777, 0o754);
}

#[test]
fn in_place_removes_the_temporary_file_a_killed_run_left_beside_the_file() {
    let dir = Scratch::new("fix-stale");
    let file = dir.join("games.pgn");
    std::fs::write(&file, games_to_repair(3)).unwrap();
    // A process that has ended, and one that runs: this test.
    let mut ended = std::process::Command::new("true").spawn().unwrap();
    ended.wait().unwrap();
    let stale = format!(".games.pgn.{}-0.pgnkit-tmp", ended.id());
    let live = format!(".games.pgn.{}-0.pgnkit-tmp", std::process::id());
    for name in [&stale, &live] {
        std::fs::write(dir.join(name), "cut sho").unwrap();
    }
    let out = fix(&["--in-place", file.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("pgnkit: removed 1 temporary file left by a run that was killed"), "{}", out.stderr);
    let mut names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, [live.as_str(), "games.pgn"]);
}
