//! Inputs built to break a reader: for games, huge nesting, comments, tags
//! and tokens, NUL bytes, bytes that are not UTF-8, very long games; for FEN
//! records, move lines and perft suites, junk and megabyte lines. Each is
//! made at test time in a scratch directory (they are too big to ship) and
//! must give a verdict for every game, record or line, quickly, with short
//! messages and without a crash.

use std::path::PathBuf;

use crate::support::{Scratch, json_lines, run, validate};

/// A file `name` in a scratch folder of its own, removed with the folder.
fn scratch(name: &str, bytes: &[u8]) -> (Scratch, PathBuf) {
    let dir = Scratch::new(name);
    dir.write(name, bytes);
    let path = dir.path(name);
    (dir, path)
}

/// The jsonl reports for `bytes` written to a file `name`.
fn reports(name: &str, bytes: &[u8], extra: &[&str]) -> (i32, Vec<serde_json::Value>) {
    let (_dir, path) = scratch(name, bytes);
    let mut args = vec!["--format", "jsonl"];
    args.extend_from_slice(extra);
    args.push(path.to_str().expect("UTF-8 path"));
    let out = validate(&args);
    assert!(out.code == 0 || out.code == 1, "{name}: exit {}: {}", out.code, out.stderr);
    let games = json_lines(&out.stdout);
    (out.code, games)
}

fn codes(game: &serde_json::Value) -> Vec<&str> {
    game["diagnostics"].as_array().expect("diagnostics").iter().map(|d| d["code"].as_str().expect("code")).collect()
}

#[test]
fn a_hundred_thousand_nested_variations_give_one_finding() {
    let text = format!("[Event \"x\"]\n\n1. e4 {}e5 *\n", "(".repeat(100_000));
    let (code, games) = reports("nested.pgn", text.as_bytes(), &[]);
    assert_eq!((code, games.len()), (1, 1));
    assert_eq!(codes(&games[0]), ["unterminated-variation", "missing-result"]);
    let message = games[0]["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.ends_with("nor are 99999 opened inside it"), "{message}");
    assert_eq!(games[0]["plies"], 1);
}

/// A game whose variations nest `depth` deep (each replacing Black's first
/// move), without its Seven Tag Roster (so that `fix` rewrites it), then a
/// plain game.
fn nested_games(depth: usize) -> String {
    format!(
        "[Event \"deep\"]\n\n1. e4 e5 {}{} *\n\n[Event \"next\"]\n\n1. d4 *\n",
        "(1... c5 ".repeat(depth),
        ")".repeat(depth)
    )
}

/// What every command that writes games makes of `file`: its name, exit
/// code and what it wrote (split's files, fix --in-place's file, the
/// others' stdout).
fn written_games(file: &std::path::Path) -> Vec<(String, i32, String)> {
    let dir = file.parent().expect("scratch dir").join("split-out");
    let copy = file.with_extension("in-place.pgn");
    std::fs::copy(file, &copy).expect("a copy to fix in place");
    let path = file.to_str().expect("UTF-8 path");
    let mut out = Vec::new();
    for args in [
        &["convert", "--to", "pgn"][..],
        &["convert", "--to", "jsonl"],
        &["convert", "--to", "san"],
        &["convert", "--to", "csv"],
        &["convert", "--to", "epd"],
        &["filter", "--normalize"],
        &["dedup"],
        &["fix"],
        &["fix", "--check"],
        &["fix", "--diff"],
        &["fix", "--in-place"],
        &["split", "--normalize", "--games", "1", "--out-dir"],
    ] {
        let mut all = args.to_vec();
        match args[0] {
            "split" => all.extend([dir.to_str().expect("UTF-8 path"), path]),
            _ if args.ends_with(&["--in-place"]) => all.push(copy.to_str().expect("UTF-8 path")),
            _ => all.push(path),
        }
        all.extend(["-q", "-j1"]);
        let run = run(&all, None);
        let written = match args[0] {
            "split" => {
                let mut files: Vec<_> =
                    std::fs::read_dir(&dir).expect("split's files").map(|e| e.unwrap().path()).collect();
                files.sort();
                files.iter().map(|f| std::fs::read_to_string(f).expect("a split file")).collect()
            }
            _ if args.ends_with(&["--in-place"]) => std::fs::read_to_string(&copy).expect("the fixed file"),
            _ => run.stdout,
        };
        // Lines are wrapped: a move and its number may be on two.
        let written = written.split_whitespace().collect::<Vec<_>>().join(" ");
        out.push((args.join(" "), run.code, written));
    }
    out
}

#[test]
fn a_million_nested_variations_pass_through_every_command_that_writes_games() {
    let (_dir, path) = scratch("million-deep.pgn", nested_games(1_000_000).as_bytes());
    for (command, code, written) in written_games(&path) {
        // The game has an error (`variation-too-deep`), so `fix` passes
        // it on as it was read.
        assert_eq!(code, 1, "{command}");
        if command.starts_with("convert --to pgn") || command.starts_with("filter") || command.starts_with("split") {
            assert_eq!(written.matches("variations nested more than 1000 deep are not read").count(), 1, "{command}");
            assert_eq!(written.matches("(1... c5").count(), 1000, "{command}");
        }
        // The next game, 1. d4, as each writes it (EPD: its position).
        let next = if command.ends_with("epd") { "3P4" } else { "d4" };
        if !command.starts_with("fix --") && !command.starts_with("convert --to csv") {
            assert!(written.contains(next), "{command}: the next game is written too");
        }
    }
}

#[test]
fn variations_nested_up_to_the_limit_are_written_again_whole_by_every_command() {
    let (_dir, path) = scratch("deep.pgn", nested_games(999).as_bytes());
    for (command, code, written) in written_games(&path) {
        let rewritten = ["convert --to pgn", "filter", "split", "fix", "fix --in-place"].contains(&command.as_str());
        let want = if command == "fix --check" { 1 } else { 0 };
        assert_eq!(code, want, "{command}");
        if rewritten {
            assert_eq!(written.matches("(1... c5").count(), 999, "{command}");
            assert_eq!(written.matches('(').count(), written.matches(')').count(), "{command}");
            assert!(written.contains("[Site \"?\"]"), "{command}: written in export format");
        }
    }
}

#[test]
fn a_fifty_megabyte_comment_is_cut_at_the_size_limit_and_the_next_game_is_read() {
    let mut text = b"[Event \"x\"]\n\n1. e4 {".to_vec();
    text.resize(text.len() + (50 << 20), b'a');
    text.extend_from_slice(b"} e5 *\n\n[Event \"y\"]\n\n1. d4 *\n");
    let (code, games) = reports("comment.pgn", &text, &[]);
    assert_eq!((code, games.len()), (1, 2));
    assert_eq!(codes(&games[0]), ["game-too-large"]);
    assert_eq!((games[1]["valid"].as_bool(), games[1]["plies"].as_u64()), (Some(true), Some(1)));
}

#[test]
fn a_game_with_a_hundred_thousand_tags_is_read() {
    let mut text: String = (0..100_000).map(|i| format!("[Tag{i} \"value {i}\"]\n")).collect();
    text.push_str("[White \"Last\"]\n\n1. e4 e5 *\n");
    let (code, games) = reports("tags.pgn", text.as_bytes(), &[]);
    assert_eq!((code, games.len()), (0, 1));
    assert_eq!((games[0]["white"].as_str(), games[0]["plies"].as_u64()), (Some("Last"), Some(2)));
}

#[test]
fn a_one_megabyte_tag_line_is_read_whole() {
    let name = "x".repeat(1 << 20);
    let text = format!("[White \"{name}\"]\n\n1. e4 *\n");
    let (code, games) = reports("tag-line.pgn", text.as_bytes(), &[]);
    assert_eq!((code, games.len()), (0, 1));
    assert_eq!(games[0]["white"].as_str().map(str::len), Some(1 << 20));
}

#[test]
fn a_one_megabyte_token_is_reported_shortened() {
    let text = format!("[Event \"x\"]\n\n1. {} *\n\n[Event \"y\"]\n\n1. d4 *\n", "N".repeat(1 << 20));
    let (code, games) = reports("token.pgn", text.as_bytes(), &[]);
    assert_eq!((code, games.len()), (1, 2));
    assert_eq!(codes(&games[0]), ["invalid-san"]);
    let message = games[0]["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.len() < 200 && message.contains("(1048576 bytes)"), "{}", &message[..200.min(message.len())]);
    assert_eq!(games[1]["valid"], true);
}

#[test]
fn nul_bytes_in_tags_moves_and_comments_are_findings_not_failures() {
    let text = b"[Event \"a\0b\"]\n\n1. e4 {c\0} e5 2. Nf3\0 *\n\n[Event \"y\"]\n\n1. d4 *\n";
    let (code, games) = reports("nul.pgn", text, &[]);
    assert_eq!((code, games.len()), (1, 2));
    assert_eq!(codes(&games[0]), ["invalid-san"]);
    assert_eq!((games[0]["diagnostics"][0]["line"].as_u64(), games[0]["plies"].as_u64()), (Some(3), Some(2)));
    assert_eq!(games[1]["valid"], true);
}

#[test]
fn bytes_that_are_not_utf8_anywhere_are_read_as_latin1() {
    let text = b"[Event \"\xff\xfe\"]\n[White \"M\xfcller\"]\n[Black \"\xc3\"]\n\n{\x80} 1. e4 {\xe9t\xe9} e5 ($1 {\x81}) 2. Nf3 *\n";
    let (code, games) = reports("latin1.pgn", text, &[]);
    assert_eq!((code, games.len()), (0, 1));
    assert_eq!(codes(&games[0]), ["non-utf8"]);
    assert_eq!((games[0]["white"].as_str(), games[0]["black"].as_str()), (Some("M\u{fc}ller"), Some("\u{c3}")));
    assert_eq!(games[0]["plies"], 3);
}

#[test]
fn a_twenty_thousand_ply_game_is_replayed_to_its_end() {
    let cycle = ["Nf3", "Nf6", "Ng1", "Ng8"];
    let moves: Vec<String> = (0..20_000).map(|ply| format!("{} ", cycle[ply % 4])).collect();
    let text = format!("[Event \"x\"]\n[Result \"1/2-1/2\"]\n\n{} 1/2-1/2\n", moves.concat());
    let (code, games) = reports("long.pgn", text.as_bytes(), &[]);
    assert_eq!((code, games.len()), (0, 1));
    let game = &games[0];
    assert_eq!(game["plies"], 20_000);
    assert_eq!((game["threefold_ply"].as_u64(), game["fivefold_ply"].as_u64()), (Some(8), Some(16)));
    assert_eq!((game["fifty_moves_ply"].as_u64(), game["seventyfive_moves_ply"].as_u64()), (Some(100), Some(150)));
    assert_eq!(game["board_termination"], "seventyfive_moves");
    assert_eq!(codes(game), ["moves-after-end"]);
}

#[test]
fn a_file_without_read_permission_is_an_input_error() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, path) = scratch("unreadable.pgn", b"1. e4 *\n");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    if std::fs::File::open(&path).is_ok() {
        // Root reads everything: nothing to test here.
        crate::support::skip("this user can read a file with mode 000");
        return;
    }
    let out = validate(&[path.to_str().unwrap(), "testdata/valid/opera-game.pgn"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("unreadable.pgn: Permission denied"), "{}", out.stderr);
    assert!(out.stderr.contains("checked 1 game in 2 inputs"), "{}", out.stderr);
}

/// Runs `pgnkit ARGS` with `path` (a scratch file holding `bytes`) last.
fn on_file(args: &[&str], name: &str, bytes: &[u8]) -> crate::support::Run {
    let (_dir, path) = scratch(name, bytes);
    let mut all = args.to_vec();
    all.push(path.to_str().expect("UTF-8 path"));
    crate::support::run(&all, None)
}

#[test]
fn fen_check_reads_junk_lines_as_invalid_records_and_goes_on() {
    let mut text = b"4k3/8/8/8/8/8/8/4K3 w - - 0 1\0\n\0\0\n\xff\xfe\n".to_vec();
    text.extend(std::iter::repeat_n(b'8', 1 << 20));
    text.extend_from_slice(b"\n4k3/8/8/8/8/8/8/4K3 b - - 0 1\n");
    let out = on_file(&["fen", "check", "--format", "jsonl"], "junk.fen", &text);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let records = json_lines(&out.stdout);
    let verdicts: Vec<bool> = records.iter().map(|r| r["valid"].as_bool().unwrap()).collect();
    assert_eq!(verdicts, [false, false, false, false, true]);
    assert!(out.stdout.len() < 200_000, "a 1 MB line is cut at 64 KiB, not echoed whole");
}

#[test]
fn fen_check_on_an_empty_file_or_a_directory_without_position_files() {
    let empty = on_file(&["fen", "check"], "empty.fen", b"");
    assert_eq!((empty.code, empty.stdout.as_str()), (0, ""));
    let dir = crate::support::run(&["fen", "check", "testdata/valid"], None);
    assert_eq!(dir.code, 2);
    assert!(dir.stderr.contains("testdata/valid: a directory with no position file under it"), "{}", dir.stderr);
}

#[test]
fn moves_reports_junk_tokens_shortened_and_converts_long_lines() {
    let mut input = b"e4 e5\0 Nf3\n\xff\xfe e4\n".to_vec();
    input.extend_from_slice(format!("e4 {}\n", "Q".repeat(1 << 20)).as_bytes());
    input.extend_from_slice(["Nf3 Nf6 Ng1 Ng8 "; 5000].concat().as_bytes());
    input.push(b'\n');
    let out = crate::support::run(&["moves"], Some(&input));
    assert_eq!(out.code, 1);
    assert_eq!(out.stderr.lines().count(), 3, "{}", &out.stderr[..out.stderr.len().min(500)]);
    assert!(out.stderr.len() < 2000, "a 1 MB token is shortened");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "a line out for every line in");
    assert_eq!(lines[..3], ["", "", ""], "only the good line is converted");
    assert_eq!(lines[3].split(' ').count(), 20_000);
}

#[test]
fn perft_suites_report_junk_lines_and_check_the_rest() {
    let mut suite = b"\0\xff garbage ;D1 20\n4k3/8/8/8/8/8/8/4K3 w - - 0 1 ;D1 5\n".to_vec();
    suite.extend(std::iter::repeat_n(b'x', 2 << 20));
    suite.push(b'\n');
    let out = on_file(&["perft", "--suite"], "junk.epd", &suite);
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout.lines().count(), 2, "two unreadable lines");
    assert!(out.stdout.len() < 1000 && out.stdout.contains("\\u{0}"), "{}", out.stdout);
    assert!(out.stderr.contains("checked 1 count of 1 position"), "{}", out.stderr);
    let empty = on_file(&["perft", "--suite"], "empty.epd", b"");
    assert_eq!(empty.code, 2);
    let dir = crate::support::run(&["perft", "--suite", "testdata"], None);
    assert_eq!(dir.code, 2);
}

#[test]
fn a_max_game_size_of_zero_or_past_1024_mib_is_a_usage_error_for_every_command_that_takes_it() {
    let cases = [
        ("0", "invalid value '0' for '--max-game-size <MIB>': must be at least 1"),
        ("1025", "invalid value '1025' for '--max-game-size <MIB>': must be at most 1024 (MiB)"),
        ("18446744073709551615", "'--max-game-size <MIB>': must be at most 1024 (MiB)"),
    ];
    for command in ["validate", "stats", "convert", "filter", "split", "dedup", "ratings", "fix"] {
        for (size, message) in cases {
            let mut args = vec![command, "--max-game-size", size, "testdata/valid/opera-game.pgn"];
            if command == "convert" {
                args.extend(["--to", "uci"]);
            }
            if command == "split" {
                args.extend(["--games", "1", "--out-dir", "target/never-made"]);
            }
            let out = run(&args, None);
            assert_eq!(out.code, 2, "{command} {size}: {}", out.stderr);
            assert!(out.stderr.contains(message), "{command} {size}: {}", out.stderr);
        }
    }
    let most = run(&["validate", "--max-game-size", "1024", "testdata/valid/opera-game.pgn"], None);
    assert_eq!(most.code, 0, "{}", most.stderr);
}

#[test]
fn more_threads_than_can_help_are_capped_with_a_note_and_the_same_output() {
    let one = run(&["validate", "-j", "1", "--format", "jsonl", "testdata/valid/famous-games.pgn"], None);
    let many = run(&["validate", "-j", "100000", "--format", "jsonl", "testdata/valid/famous-games.pgn"], None);
    assert_eq!((many.code, &many.stdout), (one.code, &one.stdout));
    assert!(
        many.stderr.contains("pgnkit: note: -j 100000 is more threads than can help; using 256"),
        "{}",
        many.stderr
    );
    let quiet = run(&["validate", "-q", "-j", "100000", "testdata/valid/famous-games.pgn"], None);
    assert_eq!(quiet.stderr, "");
}

#[test]
fn a_junk_game_over_the_cap_reports_a_hundred_findings_a_count_and_the_cut_then_the_next_game() {
    let mut pgn = b"[Event \"junk\"]\n\n1. e4 ".to_vec();
    pgn.extend(b"x ".repeat(1 << 20));
    pgn.extend_from_slice(b"*\n1. d4 d5 *\n");
    let out = on_file(&["validate", "--max-game-size", "1", "--format", "jsonl"], "junk.pgn", &pgn);
    let games = crate::support::json_lines(&out.stdout);
    assert_eq!(games.len(), 2, "{}", out.stderr);
    let codes: Vec<&str> =
        games[0]["diagnostics"].as_array().expect("list").iter().map(|d| d["code"].as_str().expect("code")).collect();
    assert_eq!(codes.len(), 102);
    assert_eq!(codes.iter().filter(|&&c| c == "invalid-san").count(), 101);
    assert_eq!(codes.last(), Some(&"game-too-large"));
    let count = &games[0]["diagnostics"][100]["message"];
    assert!(
        count
            .as_str()
            .is_some_and(|m| m
                .ends_with("more `invalid-san` findings in this game are not shown, from here on (the first 100 are)")),
        "{count}"
    );
    assert_eq!((games[1]["game_line"].as_u64(), games[1]["valid"].as_bool()), (Some(4), Some(true)));
}

#[test]
fn a_line_of_spaces_between_games_through_a_pipe_ends_no_game_and_hides_no_tag_after_it() {
    // 32 MB of spaces: held whole and read again at every refill, this
    // took minutes; the games around it and the indented one are found.
    let spaces = " ".repeat(32 << 20);
    let text = format!("[Event \"a\"]\n\n1. e4 *\n\n{spaces}\n{spaces}[Event \"b\"]\n\n1. d4 *\n");
    let out = run(&["validate", "--format", "jsonl", "-"], Some(text.as_bytes()));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let games = json_lines(&out.stdout);
    let lines: Vec<u64> = games.iter().map(|g| g["game_line"].as_u64().expect("game_line")).collect();
    assert_eq!(lines, [1, 6]);
}
