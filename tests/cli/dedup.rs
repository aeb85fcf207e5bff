//! `pgnkit dedup`: which games are copies (`--by moves` and `moves+tags`),
//! the kept games byte for byte or normalized, `--list` in each format, the
//! same output for every thread count, a million games, and the corpus
//! read twice.

use std::{io::Write, process::Stdio};

use shakmaty::{Chess, Position, san::SanPlus};

use crate::support::{corpus, files_with_extension, json_lines, pgnkit, root, run};

fn dedup(args: &[&str]) -> crate::support::Run {
    let mut all = vec!["dedup"];
    all.extend_from_slice(args);
    run(&all, None)
}

/// `pgnkit dedup ARGS` with `stdin`, stdout as bytes (kept games may be
/// Latin-1).
fn dedup_bytes(args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>, String) {
    let mut child = pgnkit()
        .arg("dedup")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let input = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("the binary finishes");
    feeder.join().expect("stdin feeder");
    (out.status.code().unwrap_or(-1), out.stdout, String::from_utf8(out.stderr).expect("stderr is UTF-8"))
}

fn fixture(name: &str) -> String {
    format!("testdata/dedup/{name}")
}

/// The `file:game` clusters of `--list` (text), one line each.
fn clusters(args: &[&str]) -> Vec<String> {
    let mut all = vec!["--list"];
    all.extend_from_slice(args);
    let out = dedup(&all);
    assert!(out.code <= 1, "{}", out.stderr);
    out.stdout.lines().map(str::to_owned).collect()
}

#[test]
fn exact_and_annotated_copies_are_dropped_and_the_first_occurrences_kept() {
    let file = fixture("copies.pgn");
    let out = dedup(&[&file]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rounds: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("[Round")).collect();
    assert_eq!(rounds, ["[Round \"1\"]", "[Round \"2\"]", "[Round \"3\"]"]);
    assert_eq!(
        out.stderr,
        "pgnkit: read 7 games in 1 input: 3 kept, 4 duplicates dropped; 7 valid, 0 invalid; 0 errors, 0 warnings\n"
    );
    let c = |n: u32| format!("{file}:{n}");
    assert_eq!(clusters(&[&file]), [format!("{} {} {} {}", c(1), c(3), c(4), c(5)), format!("{} {}", c(2), c(7))]);
}

#[test]
fn same_moves_with_other_tags_are_copies_by_moves_but_not_by_moves_and_tags() {
    let file = fixture("copies.pgn");
    let c = |n: u32| format!("{file}:{n}");
    // Game 4 differs in Event, Annotator and comments only; game 5 in Date.
    assert_eq!(
        clusters(&["--by", "moves+tags", &file]),
        [format!("{} {} {}", c(1), c(3), c(4)), format!("{} {}", c(2), c(7))]
    );
    let out = dedup(&["--by", "moves+tags", &file]);
    let dates: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("[Date")).collect();
    assert_eq!(
        dates,
        ["[Date \"2024.03.01\"]", "[Date \"2024.03.01\"]", "[Date \"2024.03.08\"]", "[Date \"2024.03.01\"]"]
    );
    assert!(out.stderr.contains(": 4 kept, 3 duplicates dropped;"), "{}", out.stderr);
}

#[test]
fn move_orders_that_transpose_into_the_same_position_are_not_copies() {
    let file = fixture("transpositions.pgn");
    assert!(clusters(&[&file]).is_empty());
    let out = dedup(&[&file]);
    assert_eq!(out.stdout, std::fs::read_to_string(root().join(&file)).unwrap() + "\n");
    assert!(out.stderr.contains(": 4 kept, 0 duplicates dropped;"), "{}", out.stderr);
}

#[test]
fn the_start_position_counts_but_not_a_fens_move_counters() {
    let file = fixture("fen-starts.pgn");
    let c = |n: u32| format!("{file}:{n}");
    // The standard start written as a FEN is the standard start; pawn odds
    // is another start, whatever move number its FEN gives.
    assert_eq!(clusters(&[&file]), [format!("{} {}", c(1), c(2)), format!("{} {} {}", c(3), c(4), c(5))]);
}

#[test]
fn a_repaired_fen_tag_starts_from_the_position_it_was_repaired_to() {
    // `KQkq` with only the h1 rook is `K`, as the games are replayed.
    let pgn = b"[FEN \"4k3/8/8/8/8/8/8/4K2R w KQkq - 0 1\"]\n\n1. O-O Kd7 *\n\n\
                [FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n\n1. O-O Kd7 *\n";
    let (code, out, err) = dedup_bytes(&["--list"], pgn);
    assert_eq!((code, String::from_utf8(out).unwrap().as_str()), (0, "<stdin>:1 <stdin>:2\n"));
    assert!(err.contains("warning[fen-tag-repaired]"), "{err}");
}

#[test]
fn a_game_with_an_illegal_move_is_a_copy_only_of_the_same_text() {
    let file = fixture("illegal-moves.pgn");
    assert_eq!(clusters(&[&file]), [format!("{file}:1 {file}:2")]);
    let out = dedup(&[&file]);
    assert_eq!(out.code, 1, "an illegal move fails the run as in validate");
    let events: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("[Event")).collect();
    assert_eq!(
        events,
        [
            "[Event \"Illegal king move\"]",
            "[Event \"Same legal moves, other text after the illegal one\"]",
            "[Event \"Only the legal moves\"]",
            "[Event \"A comment in the text\"]"
        ]
    );
    // Findings of every game, the dropped copy's too, in validate's format.
    let findings: Vec<&str> = out.stderr.lines().filter(|l| l.contains("error[illegal-move]")).collect();
    assert_eq!(findings.len(), 4, "{}", out.stderr);
    assert!(findings[1].starts_with(&format!("{file}:9:13: error[illegal-move]:")), "{}", findings[1]);
    assert!(out.stderr.ends_with(": 4 kept, 1 duplicate dropped; 1 valid, 4 invalid; 4 errors, 0 warnings\n"));
}

#[test]
fn games_without_moves_are_copies_only_of_the_same_text_but_one_move_is_compared_as_moves() {
    let file = fixture("no-moves.pgn");
    // Two abandoned games between other players are not copies; the same
    // first move lost on time by other players is, unless tags count.
    assert_eq!(clusters(&[&file]), [format!("{file}:1 {file}:3"), format!("{file}:4 {file}:5")]);
    assert_eq!(clusters(&["--by", "moves+tags", &file]), [format!("{file}:1 {file}:3")]);
}

#[test]
fn kept_games_are_written_byte_for_byte_crlf_and_latin1_included() {
    let input = std::fs::read(root().join(fixture("latin1-crlf.pgn"))).unwrap();
    let starts: Vec<usize> = (0..input.len()).filter(|&i| input[i..].starts_with(b"[Event")).collect();
    assert_eq!(starts.len(), 3);
    let games = [&input[starts[0]..starts[1]], &input[starts[1]..starts[2]], &input[starts[2]..]];
    assert!(games[0].contains(&0xfc) && games[0].ends_with(b"*\r\n\r\n"), "Latin-1, CRLF, a blank line after");
    let (code, stdout, stderr) = dedup_bytes(&["-"], &input);
    assert_eq!(code, 0, "{stderr}");
    // The blank line the last game lacks is added, in its line endings.
    assert_eq!(stdout, [games[0], games[2], b"\r\n"].concat());
}

#[test]
fn a_file_without_copies_comes_out_as_it_went_in() {
    for file in ["testdata/valid/famous-games.pgn", "testdata/convert/annotated-game.pgn"] {
        let out = dedup(&[file]);
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        assert_eq!(out.stdout.strip_suffix('\n'), Some(&text[..]), "{file}");
    }
}

#[test]
fn normalize_writes_the_kept_games_as_convert_to_pgn_does() {
    let file = fixture("copies.pgn");
    let normalized = dedup(&["--normalize", &file]);
    assert_eq!(normalized.code, 0, "{}", normalized.stderr);
    let kept = dedup(&["-q", &file]);
    let converted = run(&["convert", "-q", "--to", "pgn", "-"], Some(kept.stdout.as_bytes()));
    assert_eq!(normalized.stdout, converted.stdout);
    assert!(normalized.stdout.starts_with("[Event \"Club night\"]\n[Site \"Leeds\"]\n[Date \"2024.03.01\"]\n"));
    assert!(normalized.stdout.contains("\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n"));
}

#[test]
fn list_writes_clusters_as_text_jsonl_and_csv() {
    let (copies, illegal) = (fixture("copies.pgn"), fixture("illegal-moves.pgn"));
    let text = dedup(&["--list", &illegal, &copies]);
    assert_eq!(
        text.stdout,
        format!("{illegal}:1 {illegal}:2\n{copies}:1 {copies}:3 {copies}:4 {copies}:5\n{copies}:2 {copies}:7\n")
    );
    assert_eq!(text.code, 1);
    assert!(text.stderr.ends_with(
        "pgnkit: read 12 games in 2 inputs: 7 distinct, 5 duplicates in 3 clusters; 8 valid, 4 invalid; 4 errors, 0 warnings\n"
    ));

    let jsonl = dedup(&["--list", "--format", "jsonl", &copies]);
    let objects = json_lines(&jsonl.stdout);
    assert_eq!(objects.len(), 2);
    assert_eq!(
        objects[1],
        serde_json::json!({"cluster": 2, "copies": [
            {"file": copies, "game": 2, "game_line": 11},
            {"file": copies, "game": 7, "game_line": 63}]})
    );
    assert_eq!(objects[0]["copies"].as_array().unwrap().len(), 4);

    let csv = dedup(&["--list", "--format", "csv", &copies]);
    assert_eq!(
        csv.stdout,
        format!(
            "cluster,file,game,game_line\n1,{copies},1,1\n1,{copies},3,21\n1,{copies},4,31\n1,{copies},5,43\n\
             2,{copies},2,11\n2,{copies},7,63\n"
        )
    );
}

#[test]
fn the_same_file_twice_lists_each_game_with_its_copy_in_the_second_input() {
    let file = fixture("transpositions.pgn");
    let lines = clusters(&[&file, &file]);
    let expected: Vec<String> = (1..=4).map(|n| format!("{file}:{n} {file}:{n}")).collect();
    assert_eq!(lines, expected);
}

#[test]
fn format_needs_list_and_list_refuses_normalize() {
    for args in [&["--format", "csv", "x.pgn"][..], &["--list", "--normalize", "x.pgn"]] {
        let out = dedup(args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert_eq!(out.stdout, "");
    }
}

#[test]
fn an_unreadable_input_exits_2_after_the_others_are_read() {
    let out = dedup(&["testdata/no-such-file.pgn", &fixture("copies.pgn")]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.starts_with("pgnkit: error: testdata/no-such-file.pgn: "), "{}", out.stderr);
    assert!(out.stderr.contains("3 kept, 4 duplicates dropped;"), "{}", out.stderr);
    assert_eq!(out.stdout.lines().filter(|l| l.starts_with("[Event")).count(), 3);
}

/// `distinct` tag-less games of five plies (the lines from the start in
/// move generation order, checkmates left out), and after every fourth a copy of an earlier one with a tag of
/// its own: the PGN, and the PGN of the distinct games alone (what dedup
/// keeps, each followed by a blank line).
fn synthetic(distinct: usize) -> (Vec<u8>, Vec<u8>) {
    fn walk(pos: &Chess, line: &mut Vec<String>, games: &mut Vec<String>, want: usize) {
        if games.len() == want {
            return;
        }
        if line.len() == 5 {
            if pos.is_checkmate() {
                // Its `*` would be an `unknown-result` finding.
                return;
            }
            let mut text = String::new();
            for (ply, san) in line.iter().enumerate() {
                if ply % 2 == 0 {
                    text.push_str(&format!("{}. ", ply / 2 + 1));
                }
                text.push_str(san);
                text.push(' ');
            }
            text.push_str("*\n");
            games.push(text);
            return;
        }
        for m in pos.legal_moves() {
            let mut next = pos.clone();
            line.push(SanPlus::from_move_and_play_unchecked(&mut next, m).to_string());
            walk(&next, line, games, want);
            line.pop();
        }
    }
    let mut games = Vec::with_capacity(distinct);
    walk(&Chess::default(), &mut Vec::new(), &mut games, distinct);
    assert_eq!(games.len(), distinct);
    let (mut input, mut kept) = (Vec::new(), Vec::new());
    for (n, game) in games.iter().enumerate() {
        input.extend_from_slice(game.as_bytes());
        input.push(b'\n');
        kept.extend_from_slice(game.as_bytes());
        kept.push(b'\n');
        if n % 4 == 3 {
            let earlier = &games[n.wrapping_mul(7919) % (n + 1)];
            input.extend_from_slice(format!("[Event \"copy of a game before game {}\"]\n\n", n + 2).as_bytes());
            input.extend_from_slice(earlier.as_bytes());
            input.push(b'\n');
        }
    }
    (input, kept)
}

/// A million games, 800,000 distinct, through a pipe: every copy dropped,
/// the distinct games written in order, and the index's memory per game.
#[test]
fn a_million_games_are_deduplicated_exactly() {
    let (input, kept) = synthetic(800_000);
    let (code, stdout, stderr) = dedup_bytes(&["-v", "-j2", "-"], &input);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout == kept, "the distinct games, in input order");
    let mut lines = stderr.lines();
    assert_eq!(
        lines.next(),
        Some(
            "pgnkit: read 1000000 games in 1 input: 800000 kept, 200000 duplicates dropped; \
             1000000 valid, 0 invalid; 0 errors, 0 warnings"
        )
    );
    // Five-ply keys take 8 bytes, and two length bytes; 2^21 slots of 8
    // bytes for 800,000 games are 21 bytes each.
    let index = lines.next().unwrap_or_default();
    let per_game: u64 = index
        .strip_suffix(" bytes per game")
        .and_then(|rest| rest.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{index}"));
    assert!(index.starts_with("pgnkit: index: 800000 distinct games in "), "{index}");
    assert!((25..=35).contains(&per_game), "{index}");
}

#[test]
fn output_and_clusters_are_the_same_for_one_and_two_threads() {
    // Several batches, so that results come back from the pool in pieces.
    let (input, _) = synthetic(40_000);
    let mut extra = std::fs::read(root().join(fixture("copies.pgn"))).unwrap();
    extra.extend_from_slice(b"\n");
    extra.extend(std::fs::read(root().join(fixture("illegal-moves.pgn"))).unwrap());
    let input = [&extra[..], b"\n", &input[..], b"\n", &extra[..]].concat();
    for args in [&["-"][..], &["--list", "-"], &["--list", "--format", "jsonl", "--by", "moves+tags", "-"]] {
        let one = dedup_bytes(&[&["-j1"][..], args].concat(), &input);
        let two = dedup_bytes(&[&["-j2"][..], args].concat(), &input);
        assert_eq!(one.0, 1, "{args:?}: {}", one.2);
        assert!(one.1 == two.1 && one.2 == two.2, "{args:?}: -j1 and -j2 differ");
        assert!(one.2.contains("read 50024 games"), "{}", one.2);
    }
}

/// Every PGN file of the corpus read twice keeps exactly what it keeps read
/// once: every game of the second reading is a copy.
#[test]
fn every_corpus_file_read_twice_keeps_what_it_keeps_read_once() {
    let Some(corpus) = corpus() else { return };
    let mut files = files_with_extension(&corpus.join("pgn"), "pgn");
    files.extend(files_with_extension(&corpus.join("bad"), "pgn"));
    files.push(corpus.join("bench/real_games_mix.pgn.gz"));
    assert!(files.len() > 100);
    let mut copies_within = 0;
    for file in files {
        let path = file.to_str().unwrap();
        let (code, once, err_once) = dedup_bytes(&["-j2", path], b"");
        let (code_twice, twice, err_twice) = dedup_bytes(&["-j2", path, path], b"");
        if err_once.contains(": holds no game: only text that is not PGN") {
            assert_eq!((code, code_twice), (2, 2), "{path}: a file with no game");
            continue;
        }
        assert!(code <= 1 && code == code_twice, "{path}: exit {code} then {code_twice}: {err_twice}");
        assert!(once == twice, "{path}: reading it twice keeps more");
        let counts = |stderr: &str| {
            let line = stderr.lines().last().unwrap_or_default().to_owned();
            let numbers: Vec<u64> = line.split([' ', ',', ';', ':']).filter_map(|word| word.parse().ok()).collect();
            (numbers[0], numbers[2], numbers[3])
        };
        let (read, kept, dropped) = counts(&err_once);
        assert_eq!(counts(&err_twice), (2 * read, kept, dropped + read), "{path}: {err_twice}");
        copies_within += dropped;
    }
    // Some corpus files hold the same game more than once.
    assert!(copies_within > 0);
}
