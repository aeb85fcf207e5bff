//! `pgnkit split`: the three layouts, file names, byte-for-byte output,
//! compressed files written through many reopenings, the open-file cap,
//! thread counts, --normalize, and the exit codes.

use std::{
    collections::BTreeMap,
    io::Read,
    path::{Path, PathBuf},
};

use crate::support::{Scratch, corpus, root, run};

/// `pgnkit split ARGS --out-dir DIR`.
fn split(args: &[&str], dir: &str) -> crate::support::Run {
    let mut all = vec!["split"];
    all.extend_from_slice(args);
    all.extend(["--out-dir", dir]);
    run(&all, None)
}

/// The file names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("output directory")
        .map(|e| e.expect("entry").file_name().into_string().expect("UTF-8 name"))
        .collect();
    names.sort();
    names
}

/// A file's bytes, decompressed when it is gzip or zstd (all members or
/// frames).
fn contents(path: &Path) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    if raw.starts_with(&[0x1f, 0x8b]) {
        flate2::read::MultiGzDecoder::new(&raw[..]).read_to_end(&mut out).expect("gzip");
    } else if raw.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        out = zstd::decode_all(&raw[..]).expect("zstd");
    } else {
        out = raw;
    }
    out
}

/// How many gzip members or zstd frames a compressed file holds.
fn streams(path: &Path) -> usize {
    let raw = std::fs::read(path).expect("compressed file");
    let mut rest = &raw[..];
    let mut count = 0;
    while !rest.is_empty() {
        if rest.starts_with(&[0x1f, 0x8b]) {
            let mut decoder = flate2::bufread::GzDecoder::new(rest);
            std::io::copy(&mut decoder, &mut std::io::sink()).expect("gzip member");
            rest = decoder.into_inner();
        } else {
            let size = zstd::zstd_safe::find_frame_compressed_size(rest).expect("zstd frame");
            rest = &rest[size..];
        }
        count += 1;
    }
    count
}

/// Each game of `input` as split writes it (`--games 1`, one file each), in
/// input order.
fn games_of(input: &str) -> Vec<Vec<u8>> {
    // A folder per call: tests running at once may ask for the same input.
    static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = Scratch::new(&format!("games-of-{}-{call}", input.replace(['/', '.'], "-")));
    let out = split(&["-q", "--games", "1", input], &dir.str("out"));
    assert!(out.code <= 1, "{}", out.stderr);
    names(&dir.path("out")).iter().map(|name| contents(&dir.path("out").join(name))).collect()
}

/// The number of games `pgnkit validate` reads in `paths`.
fn count_games(paths: &[PathBuf]) -> usize {
    let mut args = vec!["validate".to_owned(), "-q".to_owned(), "--format".to_owned(), "jsonl".to_owned()];
    args.extend(paths.iter().map(|p| p.to_str().unwrap().to_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run(&args, None);
    assert!(out.code <= 1, "{}", out.stderr);
    out.stdout.lines().count()
}

/// Every file of `dir`, name and (decompressed) bytes.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    names(dir).into_iter().map(|name| (name.clone(), std::fs::read(dir.join(&name)).unwrap())).collect()
}

/// `players` players, `rounds` rounds: game `r * players + p` has White
/// `Player p` (so each player's games are spread over the whole input).
fn many_players(players: usize, rounds: usize) -> String {
    let mut text = String::new();
    for round in 0..rounds {
        for player in 0..players {
            text.push_str(&format!(
                "[Event \"Round {round}\"]\n[White \"Player {player}\"]\n[Black \"Opponent\"]\n[Result \"*\"]\n\n\
                 1. e4 e5 2. Nf3 Nc6 *\n\n"
            ));
        }
    }
    text
}

#[test]
fn games_mode_fills_numbered_parts_of_n_games_in_input_order() {
    let dir = Scratch::new("games");
    let out = split(&["--games", "3", "testdata/valid/famous-games.pgn"], &dir.str("out"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert_eq!(out.stderr, "pgnkit: split 8 games from 1 input into 3 files\n");
    assert_eq!(names(&dir.path("out")), ["part-00001.pgn", "part-00002.pgn", "part-00003.pgn"]);
    let games = games_of("testdata/valid/famous-games.pgn");
    assert_eq!(games.len(), 8);
    for (part, range) in [(1, 0..3), (2, 3..6), (3, 6..8)] {
        let path = dir.path(&format!("out/part-{part:05}.pgn"));
        assert_eq!(contents(&path), games[range.clone()].concat(), "part {part}");
        assert_eq!(count_games(&[path]), range.len());
    }
}

#[test]
fn every_game_is_written_byte_for_byte_as_read_followed_by_a_blank_line() {
    let input = std::fs::read(root().join("testdata/split/layout.pgn")).unwrap();
    let games = games_of("testdata/split/layout.pgn");
    assert_eq!(games.len(), 8);
    // Each game's bytes stand in the input in order, with only blank space
    // between them; what split adds is one blank line after each.
    let mut at = 0;
    for (i, game) in games.iter().enumerate() {
        let newline: &[u8] = if game.ends_with(b"\r\n\r\n") { b"\r\n" } else { b"\n" };
        let text = game.strip_suffix(newline).expect("a blank line after the game");
        let found = input[at..].windows(text.len()).position(|w| w == text).expect("the game as read") + at;
        assert!(input[at..found].iter().all(u8::is_ascii_whitespace), "game {}: only blank space before it", i + 1);
        at = found + text.len();
    }
    assert!(input[at..].iter().all(u8::is_ascii_whitespace));
    // The CRLF game keeps its line ends, the Latin-1 game its bytes.
    assert!(games[1].starts_with(b"[Event \"CRLF game\"]\r\n") && games[1].ends_with(b"0-1\r\n\r\n"));
    assert!(games[2].windows(2).any(|w| w == b"M\xfc"));
}

#[test]
fn shards_deal_the_games_round_robin_and_each_shard_is_valid_pgn() {
    let dir = Scratch::new("shards");
    let out = split(&["--shards", "3", "testdata/split/layout.pgn"], &dir.str("out"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stderr, "pgnkit: split 8 games from 1 input into 3 files\n");
    let shards = ["shard-0001-of-0003.pgn", "shard-0002-of-0003.pgn", "shard-0003-of-0003.pgn"];
    assert_eq!(names(&dir.path("out")), shards);
    let games = games_of("testdata/split/layout.pgn");
    let mut total = 0;
    for (k, shard) in shards.iter().enumerate() {
        let expected: Vec<u8> = games.iter().skip(k).step_by(3).flatten().copied().collect();
        let path = dir.path("out").join(shard);
        assert_eq!(contents(&path), expected, "{shard}");
        total += count_games(&[path]);
    }
    assert_eq!(total, 8);
}

#[test]
fn more_shards_than_games_leaves_valid_empty_shards() {
    let dir = Scratch::new("empty-shards");
    for (compress, ext) in [(None, ""), (Some("zst"), ".zst"), (Some("gz"), ".gz")] {
        let out_dir = dir.str(ext);
        let mut args = vec!["-q", "--shards", "12", "testdata/valid/opera-game.pgn", "testdata/empty.pgn"];
        args.extend(compress.iter().flat_map(|c| ["--compress", c]));
        let out = split(&args, &out_dir);
        assert_eq!((out.code, out.stderr.as_str()), (0, ""));
        let names = names(Path::new(&out_dir));
        assert_eq!(names.len(), 12);
        assert_eq!(names[0], format!("shard-0001-of-0012.pgn{ext}"));
        assert_eq!(names[11], format!("shard-0012-of-0012.pgn{ext}"));
        let paths: Vec<PathBuf> = names.iter().map(|n| Path::new(&out_dir).join(n)).collect();
        assert_eq!(count_games(&paths), 1);
        assert!(contents(&paths[1]).is_empty());
    }
}

/// `testdata/split/keys.pgn` by White: the file of each game, in order, and
/// what the names show: punctuation runs, collisions (also of case), the
/// reserved `unknown`, path parts, leading dots, names in other scripts
/// and with accents, kept in UTF-8, Windows device names and long values.
const BY_WHITE: [&str; 16] = [
    "Carlsen_Magnus",
    "Smith_J",
    "Smith_J-2",
    "smith_j-3",
    "unknown",
    "unknown",
    "Unknown-2",
    "etc_passwd",
    "hidden",
    "王皓",
    "丁立人",
    "Müller_Jürgen",
    "Möller_Jürgen",
    "Carlsen_Magnus",
    "CON-2",
    "Wolfeschlegelsteinhausenbergerdorff_Hubert_Blaine_Wolfeschlegelsteinhausenbergerdorff_Hubert_Blaine",
];

#[test]
fn by_white_names_files_after_sanitized_values_and_never_merges_two_values() {
    let dir = Scratch::new("by-white");
    let out = split(&["-v", "--by", "white", "testdata/split/keys.pgn"], &dir.str("out"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let games = games_of("testdata/split/keys.pgn");
    let mut expected: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for (stem, game) in BY_WHITE.iter().zip(&games) {
        expected.entry(format!("{stem}.pgn")).or_default().extend_from_slice(game);
    }
    assert_eq!(tree(&dir.path("out")), expected);
    // Cut at 100 bytes, which ends in a `_`, trimmed.
    assert_eq!(BY_WHITE[15].len(), 99);
    // -v tells which value each file holds.
    let shown = |line: &str| out.stderr.lines().any(|l| l.ends_with(line));
    assert!(shown("Smith_J-2.pgn: 1 game, white \"Smith, J.\""), "{}", out.stderr);
    assert!(shown("unknown.pgn: 2 games, no white"), "{}", out.stderr);
    assert!(shown("王皓.pgn: 1 game, white \"王皓\""), "{}", out.stderr);
    assert!(out.stderr.ends_with("pgnkit: split 16 games from 1 input into 14 files\n"), "{}", out.stderr);
}

#[test]
fn ascii_names_strip_latin_accents_and_leave_other_scripts_unnamed() {
    let dir = Scratch::new("by-white-ascii");
    let out = split(&["-q", "--ascii-names", "--by", "white", "testdata/split/keys.pgn"], &dir.str("out"));
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    let games = games_of("testdata/split/keys.pgn");
    let mut expected: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for (i, game) in games.iter().enumerate() {
        let stem = match i {
            9 => "unnamed",
            10 => "unnamed-2",
            11 => "Muller_Jurgen",
            12 => "Moller_Jurgen",
            _ => BY_WHITE[i],
        };
        expected.entry(format!("{stem}.pgn")).or_default().extend_from_slice(game);
    }
    assert_eq!(tree(&dir.path("out")), expected);
    // Only --by has names to make ASCII.
    let refused = split(&["--ascii-names", "--games", "3", "testdata/split/keys.pgn"], &dir.str("games"));
    assert_eq!(refused.code, 2);
    assert!(refused.stderr.contains("--ascii-names names the files of --by"), "{}", refused.stderr);
}

/// Files and their game counts for `--by KEY` on `testdata/split/keys.pgn`.
fn by(key: &str) -> BTreeMap<String, usize> {
    by_keys(&[key], "testdata/split/keys.pgn")
}

fn counts(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs.iter().map(|&(name, n)| (name.to_owned(), n)).collect()
}

#[test]
fn tag_keys_file_missing_empty_and_question_mark_values_under_unknown() {
    assert_eq!(by("year"), counts(&[("1999.pgn", 3), ("2023.pgn", 12), ("unknown.pgn", 1)]));
    assert_eq!(by("eco"), counts(&[("C65.pgn", 2), ("D30.pgn", 1), ("unknown.pgn", 13)]));
    assert_eq!(by("result"), counts(&[("0-1.pgn", 5), ("1-0.pgn", 6), ("1_2-1_2.pgn", 3), ("unfinished.pgn", 2)]));
    assert_eq!(by("event"), counts(&[("Club_championship.pgn", 12), ("Norway_Chess.pgn", 2), ("unknown.pgn", 2)]));
    let black = by("black");
    assert_eq!((black.len(), black["unknown.pgn"], black["O_Kelly_Alberic.pgn"]), (14, 1, 1));
    let rounds = by("tag:Round");
    assert_eq!((rounds.len(), rounds["unknown.pgn"], rounds["14.pgn"]), (15, 1, 1));
    assert_eq!(by("TAG:NoSuchTag"), counts(&[("unknown.pgn", 16)]));
}

#[test]
fn compressed_files_closed_and_reopened_many_times_read_back_whole() {
    let dir = Scratch::new("reopen");
    std::fs::write(dir.path("in.pgn"), many_players(6, 10)).unwrap();
    let input = dir.str("in.pgn");
    let plain = split(&["-q", "--by", "white", &input], &dir.str("plain"));
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    for (format, ext) in [("zst", ".zst"), ("gz", ".gz")] {
        let out_dir = dir.path(format);
        // Two open files for six players: every game reopens its file.
        let out =
            split(&["--by", "white", "--compress", format, "--max-open-files", "2", &input], out_dir.to_str().unwrap());
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(out.stderr, "pgnkit: split 60 games from 1 input into 6 files\n");
        let mut paths = Vec::new();
        for player in 0..6 {
            let path = out_dir.join(format!("Player_{player}.pgn{ext}"));
            assert_eq!(streams(&path), 10, "{format}: one stream per opening");
            assert_eq!(contents(&path), contents(&dir.path(&format!("plain/Player_{player}.pgn"))));
            paths.push(path);
        }
        let check = run(&["validate", paths[0].to_str().unwrap(), paths[5].to_str().unwrap()], None);
        assert_eq!(check.stderr, "pgnkit: checked 20 games in 2 inputs: 20 valid, 0 invalid; 0 errors, 0 warnings\n");
        assert_eq!(count_games(&paths), 60);
    }
}

#[test]
fn more_keys_than_open_files_all_get_their_games_and_threads_change_nothing() {
    let dir = Scratch::new("many-keys");
    // 300 players, above the 128 files open by default.
    std::fs::write(dir.path("in.pgn"), many_players(300, 2)).unwrap();
    let input = dir.str("in.pgn");
    let one = split(&["-j1", "--by", "white", &input], &dir.str("j1"));
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert_eq!(one.stderr, "pgnkit: split 600 games from 1 input into 300 files\n");
    let files = tree(&dir.path("j1"));
    assert_eq!(files.len(), 300);
    let game = |round: usize, player: usize| {
        format!(
            "[Event \"Round {round}\"]\n[White \"Player {player}\"]\n[Black \"Opponent\"]\n[Result \"*\"]\n\n\
             1. e4 e5 2. Nf3 Nc6 *\n\n"
        )
    };
    for player in [0, 127, 128, 299] {
        let expected = game(0, player) + &game(1, player);
        assert_eq!(files[&format!("Player_{player}.pgn")], expected.as_bytes(), "player {player}");
    }
    let two = split(&["-j2", "--by", "white", &input], &dir.str("j2"));
    assert_eq!(two.stderr, one.stderr);
    assert_eq!(tree(&dir.path("j2")), files);
    for threads in ["1", "2"] {
        let out = split(&["-q", "-j", threads, "--shards", "4", "--compress", "zst", &input], &dir.str(threads));
        assert_eq!(out.code, 0);
    }
    assert_eq!(tree(&dir.path("1")), tree(&dir.path("2")));
}

#[test]
fn normalize_writes_the_games_as_convert_to_pgn_does() {
    let dir = Scratch::new("normalize");
    let out = split(&["--normalize", "--games", "10", "testdata/convert/annotated-game.pgn"], &dir.str("ok"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stderr, "pgnkit: split 1 game from 1 input into 1 file: 1 valid, 0 invalid; 0 errors, 0 warnings\n");
    assert_eq!(
        contents(&dir.path("ok/part-00001.pgn")),
        std::fs::read(root().join("testdata/convert/annotated-game-normalized.pgn")).unwrap()
    );

    // An invalid game: its findings on stderr, exit 1, written as convert writes it.
    let file = "testdata/invalid/illegal-move-king-into-check.pgn";
    let out = split(&["--normalize", "--by", "result", file], &dir.str("bad"));
    assert_eq!(out.code, 1);
    assert!(out.stderr.starts_with(&format!("{file}:9:24: error[illegal-move]")), "{}", out.stderr);
    let converted = run(&["convert", "-q", "--to", "pgn", file], None);
    assert_eq!(contents(&dir.path("bad/unfinished.pgn")), converted.stdout.as_bytes());

    // Without --normalize nothing is replayed: the same game, as read, exit 0.
    let out = split(&["--by", "result", file], &dir.str("raw"));
    assert_eq!((out.code, out.stderr.as_str()), (0, "pgnkit: split 1 game from 1 input into 1 file\n"));
    assert_eq!(contents(&dir.path("raw/unfinished.pgn")), games_of(file).concat());
}

#[test]
fn a_game_cut_at_the_size_limit_is_reported_even_without_normalize() {
    let dir = Scratch::new("too-large");
    let mut text = b"[Event \"big\"]\n\n1. e4 {".to_vec();
    text.resize(text.len() + (3 << 19), b'a');
    text.extend_from_slice(b"} e5 *\n\n[Event \"small\"]\n\n1. d4 *\n");
    std::fs::write(dir.path("in.pgn"), &text).unwrap();
    let out = split(&["--max-game-size", "1", "--shards", "2", &dir.str("in.pgn")], &dir.str("out"));
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("error[game-too-large]"), "{}", out.stderr);
    assert!(out.stderr.ends_with("into 2 files; 1 error, 0 warnings\n"), "{}", out.stderr);
    assert_eq!(contents(&dir.path("out/shard-0002-of-0002.pgn")), b"[Event \"small\"]\n\n1. d4 *\n\n");
}

#[test]
fn stdin_is_split_like_a_file() {
    let dir = Scratch::new("stdin");
    let input = std::fs::read(root().join("testdata/valid/famous-games.pgn")).unwrap();
    let out_dir = dir.str("out");
    let out = run(&["split", "--shards", "2", "--out-dir", &out_dir, "-"], Some(&input));
    assert_eq!((out.code, out.stderr.as_str()), (0, "pgnkit: split 8 games from 1 input into 2 files\n"));
    let games = games_of("testdata/valid/famous-games.pgn");
    let odd: Vec<u8> = games.iter().step_by(2).flatten().copied().collect();
    assert_eq!(contents(&dir.path("out/shard-0001-of-0002.pgn")), odd);
}

#[test]
fn an_unreadable_input_exits_2_and_the_other_inputs_are_still_split() {
    let dir = Scratch::new("unreadable");
    let out = split(&["--games", "100", "testdata/no-such-file.pgn", "testdata/valid/opera-game.pgn"], &dir.str("out"));
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr,
        "pgnkit: error: testdata/no-such-file.pgn: No such file or directory (os error 2)\n\
         pgnkit: split 1 game from 2 inputs into 1 file; 1 input could not be read\n"
    );
    assert_eq!(count_games(&[dir.path("out/part-00001.pgn")]), 1);
}

#[test]
fn an_output_that_cannot_be_written_exits_2_and_names_it() {
    let dir = Scratch::new("unwritable");
    // A folder where the first part should go.
    std::fs::create_dir_all(dir.path("out/part-00001.pgn")).unwrap();
    let out = split(&["--games", "2", "testdata/valid/famous-games.pgn"], &dir.str("out"));
    assert_eq!(out.code, 2);
    let path = dir.path("out/part-00001.pgn");
    assert!(out.stderr.starts_with(&format!("pgnkit: error: cannot create {}: ", path.display())), "{}", out.stderr);

    // An --out-dir that is a file.
    std::fs::write(dir.path("file"), "").unwrap();
    let out = split(&["--games", "2", "testdata/valid/famous-games.pgn"], &dir.str("file"));
    assert_eq!(out.code, 2);
    let expected = format!("pgnkit: error: cannot create the directory {}: ", dir.path("file").display());
    assert!(out.stderr.starts_with(&expected), "{}", out.stderr);
}

#[test]
fn an_input_inside_the_out_dir_is_never_written_over() {
    let dir = Scratch::new("input-in-out-dir");
    let original = std::fs::read(root().join("testdata/valid/famous-games.pgn")).unwrap();
    std::fs::write(dir.path("part-00001.pgn"), &original).unwrap();
    let out = split(&["--games", "100", &dir.str("part-00001.pgn")], &dir.str(""));
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("is an input: writing it would destroy it"), "{}", out.stderr);
    assert_eq!(std::fs::read(dir.path("part-00001.pgn")).unwrap(), original);
}

#[test]
fn a_rerun_replaces_the_files_it_writes_instead_of_appending() {
    let dir = Scratch::new("rerun");
    let args = ["-q", "--by", "result", "--compress", "gz", "testdata/valid/famous-games.pgn"];
    split(&args, &dir.str("out"));
    let first = tree(&dir.path("out"));
    split(&args, &dir.str("out"));
    assert_eq!(tree(&dir.path("out")), first);
    assert_eq!(first.keys().collect::<Vec<_>>(), ["0-1.pgn.gz", "1-0.pgn.gz"]);
}

#[test]
fn split_takes_the_keys_of_stats_by_and_files_a_game_under_each_player() {
    let dir = Scratch::new("stats-keys");
    split(&["-q", "--by", "player", "testdata/valid/famous-games.pgn"], &dir.str("players"));
    let players = tree(&dir.path("players"));
    // Every game is in two files, its White's and its Black's.
    let games: usize = players.values().map(|text| String::from_utf8_lossy(text).matches("[Event ").count()).sum();
    assert_eq!(games, 16, "{:?}", players.keys().collect::<Vec<_>>());
    assert!(players.contains_key("Morphy_Paul.pgn"), "{:?}", players.keys().collect::<Vec<_>>());
    for (key, file) in [("termination", "checkmate.pgn"), ("time-control", "unknown.pgn"), ("variant", "standard.pgn")]
    {
        let out = dir.str(key);
        split(&["-q", "--by", key, "testdata/valid/famous-games.pgn"], &out);
        let files = tree(&dir.path(key));
        assert!(files.contains_key(file), "{key}: {:?}", files.keys().collect::<Vec<_>>());
        let games: usize = files.values().map(|text| String::from_utf8_lossy(text).matches("[Event ").count()).sum();
        assert_eq!(games, 8, "{key}");
    }
}

#[test]
fn exactly_one_layout_is_needed_and_counts_start_at_one() {
    let dir = Scratch::new("usage");
    for (args, message) in [
        (&["testdata/empty.pgn"][..], "the following required arguments were not provided"),
        (&["--games", "2", "--shards", "2"][..], "cannot be used with"),
        (&["--shards", "0"][..], "invalid value '0' for '--shards <N>': must be at least 1"),
        (&["--by", "colour"][..], "unknown key `colour`: keys are white, black, player, event, site, year, month"),
    ] {
        let out = split(args, &dir.str("out"));
        assert_eq!(out.code, 2, "{args:?}");
        assert!(out.stderr.contains(message), "{args:?}: {}", out.stderr);
    }
    assert!(!dir.path("out").exists(), "nothing is created on a usage error");
}

#[test]
fn a_corpus_file_cut_into_three_shards_keeps_every_game() {
    let Some(corpus) = corpus() else { return };
    let dir = Scratch::new("corpus");
    for file in ["pgn/shakmaty/lichess_db_1000k.pgn", "pgn/shakmaty/twic1599_1000k.pgn"] {
        let path = corpus.join(file);
        let out_dir = dir.path(file.replace('/', "-").as_str());
        let out =
            split(&["-q", "--shards", "3", "--compress", "zst", path.to_str().unwrap()], out_dir.to_str().unwrap());
        assert_eq!(out.code, 0, "{file}: {}", out.stderr);
        let whole = run(&["validate", path.to_str().unwrap()], None);
        let shards: Vec<String> =
            names(&out_dir).iter().map(|n| out_dir.join(n).to_str().unwrap().to_owned()).collect();
        assert_eq!(shards.len(), 3);
        let mut args = vec!["validate"];
        args.extend(shards.iter().map(String::as_str));
        let parts = run(&args, None);
        // The same games, valid and invalid, and findings: only the input
        // count differs in the summary line.
        assert_eq!(parts.stderr.replace("in 3 inputs", "in 1 input"), whole.stderr, "{file}");
        assert!(whole.stderr.contains("checked") && !whole.stderr.contains("checked 0 games"));
        assert_eq!(parts.code, whole.code);
    }
}

#[test]
fn values_that_are_windows_device_names_before_a_dot_get_a_number_and_the_run_ends() {
    let dir = Scratch::new("devices");
    let out = split(&["-q", "--by", "white", "testdata/split/windows-device-names.pgn"], &dir.str("out"));
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    assert_eq!(names(&dir.path("out")), ["Aux-2.Open_2024.pgn", "nul-2.x.pgn"]);
}

#[test]
fn by_player_files_each_game_under_both_its_players_and_once_when_one_name_has_both_sides() {
    let dir = Scratch::new("by-player");
    let pgn = "[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n\
               [White \"B\"]\n[Black \"C\"]\n[Result \"0-1\"]\n\n1. d4 0-1\n\n\
               [White \"C\"]\n[Black \"C\"]\n[Result \"*\"]\n\n1. c4 *\n";
    std::fs::write(dir.path("in.pgn"), pgn).unwrap();
    let out = split(&["--by", "player", &dir.str("in.pgn")], &dir.str("out"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(names(&dir.path("out")), ["A.pgn", "B.pgn", "C.pgn"]);
    let games = |name: &str| count_games(&[dir.path("out").join(name)]);
    assert_eq!([games("A.pgn"), games("B.pgn"), games("C.pgn")], [1, 2, 2]);
}

/// Files and their game counts for `--by` each of `keys` on `input`.
fn by_keys(keys: &[&str], input: &str) -> BTreeMap<String, usize> {
    let dir = Scratch::new(&format!("by-{}-{}", keys.join("-").replace(':', "-"), input.replace(['/', '.'], "-")));
    let mut args = vec!["-q"];
    for key in keys {
        args.extend(["--by", key]);
    }
    // eco and opening read the tags here, as the other keys do.
    if keys.iter().any(|key| matches!(*key, "eco" | "opening")) {
        args.extend(["--openings", "tags"]);
    }
    args.push(input);
    let out = split(&args, &dir.str("out"));
    assert_eq!((out.code, out.stderr.as_str()), (0, ""), "--by {keys:?}");
    names(&dir.path("out")).into_iter().map(|name| (name.clone(), count_games(&[dir.path("out").join(name)]))).collect()
}

#[test]
fn by_given_twice_writes_a_file_per_pair_of_values_named_by_both_joined_with_a_plus() {
    let pairs = by_keys(&["event", "result"], "testdata/split/keys.pgn");
    assert_eq!(
        pairs,
        counts(&[
            ("Club_championship+0-1.pgn", 3),
            ("Club_championship+1-0.pgn", 5),
            ("Club_championship+1_2-1_2.pgn", 2),
            ("Club_championship+unfinished.pgn", 2),
            ("Norway_Chess+1-0.pgn", 1),
            ("Norway_Chess+1_2-1_2.pgn", 1),
            ("unknown+0-1.pgn", 2),
        ])
    );
    // Each pair's games are the games of both values: the counts of one key
    // add up to its own split's.
    let events = by("event");
    for (event, n) in events {
        let stem = event.trim_end_matches(".pgn");
        let sum: usize = pairs.iter().filter(|(name, _)| name.starts_with(&format!("{stem}+"))).map(|(_, n)| n).sum();
        assert_eq!(sum, n, "{event}");
    }
}

#[test]
fn by_player_with_another_key_writes_a_game_to_the_files_of_both_players() {
    let pairs = by_keys(&["player", "event"], "testdata/aliases/player-spellings.pgn");
    assert_eq!(pairs.values().sum::<usize>(), 10, "{pairs:?}");
    assert_eq!((pairs["Hikaru+Blitz.pgn"], pairs["Nakamura_Hikaru+Open.pgn"]), (2, 2));
    assert!(pairs.contains_key("carlsen_magnus-2+Blitz.pgn"), "two values never share a name: {pairs:?}");
    let dir = Scratch::new("by-keys-aliases");
    let out = split(
        &[
            "-v",
            "--by",
            "event",
            "--by",
            "white",
            "--aliases",
            "testdata/aliases/player-spellings.csv",
            "testdata/aliases/player-spellings.pgn",
        ],
        &dir.str("out"),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        names(&dir.path("out")),
        [
            "Blitz+Carlsen_Magnus.pgn",
            "Blitz+Caruana_Fabiano.pgn",
            "Blitz+Nakamura_Hikaru.pgn",
            "Open+Carlsen_Magnus.pgn",
            "Open+Nakamura_Hikaru.pgn"
        ]
    );
    assert!(
        out.stderr
            .lines()
            .any(|l| l.ends_with("Blitz+Carlsen_Magnus.pgn: 1 game, event \"Blitz\", white \"Carlsen, Magnus\"")),
        "{}",
        out.stderr
    );
}
