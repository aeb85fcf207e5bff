//! Inputs as people download them: zip archives (TWIC ships them), xz,
//! UTF-16 with a byte order mark, and files that are not PGN at all.

use std::io::Write;

use crate::support::{Scratch, json_lines, root, run, validate};

const ZIP: &str = "testdata/compressed/two-pgn-members.zip";

/// A zip archive of `members` (name, bytes), deflated, written as `name` in
/// a scratch folder of its own.
fn scratch_zip(name: &str, members: &[(&str, &[u8])]) -> (Scratch, String) {
    let dir = Scratch::new(name);
    let mut archive = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (member, bytes) in members {
        archive.start_file(*member, options).unwrap();
        archive.write_all(bytes).unwrap();
    }
    let path = dir.write(name, archive.finish().unwrap().into_inner());
    (dir, path)
}

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(root().join(path)).unwrap()
}

fn files(stdout: &str) -> Vec<String> {
    json_lines(stdout).iter().map(|game| game["file"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn each_pgn_member_of_a_zip_is_an_input_named_archive_colon_member_in_archive_order() {
    let out = validate(&["--format", "jsonl", ZIP]);
    let mut expected = vec![format!("{ZIP}:famous-games.pgn"); 8];
    expected.push(format!("{ZIP}:more/OPERA-GAME.PGN"));
    // readme.txt and the macOS metadata beside famous-games.pgn are left out.
    assert_eq!(files(&out.stdout), expected);
    assert_eq!(out.stderr, "pgnkit: checked 9 games in 2 inputs: 9 valid, 0 invalid; 0 errors, 0 warnings\n");
    assert_eq!(out.code, 0);
}

#[test]
fn a_zip_member_gives_the_report_of_the_plain_file_it_holds() {
    let plain = validate(&["--format", "jsonl", "testdata/valid/famous-games.pgn"]);
    let zipped = validate(&["--format", "jsonl", ZIP]);
    let member = format!("{ZIP}:famous-games.pgn");
    let first: Vec<&str> = zipped.stdout.lines().take(8).collect();
    assert_eq!(first.join("\n").replace(&member, "testdata/valid/famous-games.pgn") + "\n", plain.stdout);
}

#[test]
fn a_zip_on_stdin_is_read_through_its_local_headers() {
    let out = run(&["validate", "--format", "jsonl", "-"], Some(&fixture(ZIP)));
    let mut expected = vec!["<stdin>:famous-games.pgn".to_owned(); 8];
    expected.push("<stdin>:more/OPERA-GAME.PGN".to_owned());
    assert_eq!(files(&out.stdout), expected);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn findings_and_errors_of_a_member_are_named_after_the_member() {
    let bad = fixture("testdata/invalid/illegal-castling-through-check.pgn");
    let image = fixture("testdata/invalid/not-pgn.png");
    let (_dir, path) = scratch_zip("named.zip", &[("bad.pgn", &bad), ("image.pgn", &image)]);
    let zip = path.as_str();
    let out = validate(&[zip]);
    assert_eq!(
        out.stdout,
        format!(
            "{zip}:bad.pgn:9:45: error[illegal-move]: White cannot castle kingside: the king would pass through f1, \
             which is attacked (game 1, ply 9: 5. O-O)\n"
        )
    );
    assert_eq!(
        out.stderr,
        format!(
            "pgnkit: error: {zip}:image.pgn: not a text file: a PNG image\n\
             pgnkit: checked 1 game in 2 inputs: 0 valid, 1 invalid; 1 error, 0 warnings; 1 input could not be read\n"
        )
    );
    assert_eq!(out.code, 2);
}

#[test]
fn a_zip_written_to_a_pipe_is_read_from_a_file_and_is_a_clear_error_on_stdin() {
    let path = "testdata/compressed/written-to-a-pipe.zip";
    let out = validate(&["--format", "jsonl", path]);
    assert_eq!(files(&out.stdout), [format!("{path}:opera-game.pgn")]);
    assert_eq!(out.code, 0);
    let out = run(&["validate", "-"], Some(&fixture(path)));
    assert_eq!(
        out.stderr,
        "pgnkit: error: <stdin>: a zip archive written as a stream (its members' sizes after their bytes) cannot be \
         read from a pipe: give it as a file\n\
         pgnkit: checked 0 games in 1 input: 0 valid, 0 invalid; 0 errors, 0 warnings; 1 input could not be read\n"
    );
    assert_eq!(out.code, 2);
}

#[test]
fn a_zip_without_a_pgn_member_is_one_error_and_exit_2() {
    let out = validate(&["testdata/invalid/zip-without-pgn.zip", "testdata/valid/opera-game.pgn"]);
    assert_eq!(
        out.stderr,
        "pgnkit: error: testdata/invalid/zip-without-pgn.zip: a zip archive of 1 member, not a .pgn file\n\
         pgnkit: checked 1 game in 2 inputs: 1 valid, 0 invalid; 0 errors, 0 warnings; 1 input could not be read\n"
    );
    assert_eq!(out.code, 2);
    let (_dir, empty) = scratch_zip("empty.zip", &[]);
    let out = validate(&[&empty]);
    assert!(out.stderr.starts_with(&format!("pgnkit: error: {empty}: an empty zip archive\n")));
    assert_eq!(out.code, 2);
}

#[test]
fn filter_and_convert_read_the_members_of_a_zip_and_a_limit_stops_the_run_on_a_file_or_stdin() {
    let out = run(&["filter", "--count", ZIP], None);
    assert_eq!(out.stdout, "9\n");
    let out = run(&["convert", "-q", "--to", "uci", ZIP], None);
    assert_eq!(out.stdout.lines().count(), 9);
    assert_eq!(out.code, 0);
    // The run stops after the first game, with the archive's thread.
    let out = run(&["filter", "-q", "--limit", "1", ZIP], None);
    assert!(out.stdout.starts_with("[Event \"Paris Opera\"]"), "{}", out.stdout);
    assert_eq!(out.stdout.matches("[Event ").count(), 1);
    assert_eq!(out.code, 0);
    let out = run(&["filter", "-q", "--limit", "1", "-"], Some(&fixture(ZIP)));
    assert_eq!(out.stdout.matches("[Event ").count(), 1);
    assert_eq!(out.code, 0);
}

#[test]
fn a_truncated_xz_reports_the_games_before_the_cut_and_exits_2() {
    let xz = fixture("testdata/compressed/famous-games.pgn.xz");
    let out = run(&["validate", "--format", "jsonl", "-"], Some(&xz[..xz.len() * 2 / 3]));
    let games = json_lines(&out.stdout);
    assert!(games.len() >= 2, "games before the cut are reported: {}", out.stdout);
    assert!(games[..games.len() - 1].iter().all(|g| g["valid"] == true));
    let codes = games.last().unwrap()["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].clone());
    assert!(codes.into_iter().any(|code| code == "truncated-game"));
    assert!(out.stderr.starts_with("pgnkit: error: <stdin>: premature eof\n"), "{}", out.stderr);
    assert_eq!(out.code, 2);
}

#[test]
fn utf16_with_a_bom_gives_the_report_of_the_same_games_in_utf8() {
    let utf8 = validate(&["--format", "jsonl", "testdata/valid/utf8-bom.pgn"]);
    assert!(utf8.stdout.contains("\"white\":\"R\u{e9}ti, Richard\""));
    for order in ["le", "be"] {
        let path = format!("testdata/valid/utf16{order}-bom.pgn");
        let out = validate(&["--format", "jsonl", &path]);
        assert_eq!(out.stdout.replace(&path, "testdata/valid/utf8-bom.pgn"), utf8.stdout, "{path}");
        assert_eq!(out.code, 0);
    }
}

#[test]
fn a_file_that_is_not_text_is_one_error_and_exit_2_and_the_other_inputs_are_still_read() {
    let binary = env!("CARGO_BIN_EXE_pgnkit");
    let out = validate(&["testdata/invalid/not-pgn.png", binary, "testdata/valid/opera-game.pgn"]);
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        format!(
            "pgnkit: error: testdata/invalid/not-pgn.png: not a text file: a PNG image\n\
             pgnkit: error: {binary}: not a text file: an executable (ELF)\n\
             pgnkit: checked 1 game in 3 inputs: 1 valid, 0 invalid; 0 errors, 0 warnings; 2 inputs could not be read\n"
        )
    );
    assert_eq!(out.code, 2);
}

#[test]
fn nul_bytes_are_not_text() {
    let out = run(&["validate"], Some(&[0; 100_000]));
    assert_eq!(
        out.stderr,
        "pgnkit: error: <stdin>: not a text file: 4096 of its first 4096 bytes are NUL or other control bytes\n\
         pgnkit: checked 0 games in 1 input: 0 valid, 0 invalid; 0 errors, 0 warnings; 1 input could not be read\n"
    );
    assert_eq!(out.code, 2);
}

#[test]
fn utf16_without_a_bom_is_refused_with_what_to_do() {
    let text = fixture("testdata/valid/opera-game.pgn");
    let utf16: Vec<u8> = text.iter().flat_map(|&byte| [byte, 0]).collect();
    let out = run(&["validate"], Some(&utf16));
    assert!(
        out.stderr.starts_with(
            "pgnkit: error: <stdin>: not a text file: UTF-16 (little-endian) without a byte order mark; save it as \
             UTF-8, or as UTF-16 with one\n"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(out.code, 2);
}

#[test]
fn a_compressed_image_is_refused_once_decompressed() {
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(&fixture("testdata/invalid/not-pgn.png")).unwrap();
    let out = run(&["validate"], Some(&gzip.finish().unwrap()));
    assert!(out.stderr.starts_with("pgnkit: error: <stdin>: not a text file: a PNG image\n"), "{}", out.stderr);
    assert_eq!(out.code, 2);
}

#[test]
fn latin1_text_with_a_stray_nul_byte_and_terminal_colours_is_still_read() {
    let mut text = fixture("testdata/valid/latin1-player-name.pgn");
    let comment = text.windows(2).position(|w| w == b"1.").unwrap();
    text.splice(comment..comment, b"{a stray \x00 byte, \x1b[31mred\x1b[0m} ".iter().copied());
    let out = run(&["validate", "--format", "jsonl"], Some(&text));
    let games = json_lines(&out.stdout);
    assert_eq!(games.len(), 1, "{}", out.stderr);
    assert_eq!(games[0]["valid"], true);
    assert_eq!(games[0]["white"], "R\u{e9}ti, Richard");
    assert_eq!(out.code, 0);
}

/// Curly quotes, `€`, `Š`, `Ž`, `Œ`, a dash and an ellipsis in bytes 0x80
/// to 0x9F (Windows-1252, which Latin-1 would read as C1 controls), and
/// Latin-1's `á`, in tags and a comment.
const WINDOWS_1252: &str = "testdata/windows-1252-tags.pgn";

/// The fixture's tags and comment as the letters Windows-1252 gives.
const WINDOWS_1252_LETTERS: [(&str, &str); 4] = [
    ("Event", "\u{201c}Ko\u{161}ice\u{201d} \u{20ac}100 Open"),
    ("White", "\u{160}ubic, \u{17d}iga"),
    ("Black", "Nov\u{e1}k, Tom\u{e1}\u{161}"),
    ("Annotator", "\u{152}uvre \u{2013} J. Dupont"),
];
const WINDOWS_1252_COMMENT: &str = "White\u{2019}s \u{201c}scholar\u{2019}s mate\u{201d} \u{2026}";

fn has_c1_control(text: &str) -> bool {
    text.contains(|c| ('\u{80}'..='\u{9f}').contains(&c))
}

#[test]
fn fix_writes_windows_1252_tags_and_comments_as_their_letters_in_utf8() {
    let out = run(&["fix", WINDOWS_1252], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for (name, value) in WINDOWS_1252_LETTERS {
        let tag = format!("[{name} \"{value}\"]\n");
        assert!(out.stdout.contains(&tag), "no {tag:?} in\n{}", out.stdout);
    }
    assert!(out.stdout.contains(&format!("4. Qxf7# {{ {WINDOWS_1252_COMMENT} }} 1-0\n")), "{}", out.stdout);
    assert!(!has_c1_control(&out.stdout), "{}", out.stdout);
    assert!(
        out.stderr.contains(":1:9: fixed[re-encoded-latin1]: Windows-1252 (Latin-1) text written as UTF-8 (game 1)\n"),
        "{}",
        out.stderr
    );
}

#[test]
fn convert_writes_windows_1252_tags_and_comments_as_their_letters_in_csv_and_jsonl() {
    let jsonl = run(&["convert", "-q", "--to", "jsonl", WINDOWS_1252], None);
    let game = &json_lines(&jsonl.stdout)[0];
    for (name, value) in WINDOWS_1252_LETTERS {
        assert_eq!(game["tags"][name], value, "{name}");
    }
    assert_eq!(game["comments"][0], serde_json::json!({"ply": 7, "text": WINDOWS_1252_COMMENT}));
    assert_eq!((game["valid"].as_bool(), game["plies"].as_u64()), (Some(true), Some(7)));
    let columns = "Event,White,Black,Tag:Annotator";
    let csv = run(&["convert", "-q", "--to", "csv", "--columns", columns, WINDOWS_1252], None);
    let mut reader = csv::Reader::from_reader(csv.stdout.as_bytes());
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let want: Vec<&str> = WINDOWS_1252_LETTERS.iter().map(|&(_, value)| value).collect();
    assert_eq!(rows.len(), 1, "{}", csv.stdout);
    assert_eq!(rows[0].iter().collect::<Vec<_>>(), want);
    assert!(!has_c1_control(&csv.stdout) && !has_c1_control(&jsonl.stdout));
}

#[test]
fn the_non_utf8_warning_says_the_game_was_read_as_windows_1252() {
    let text = validate(&[WINDOWS_1252]);
    assert!(
        text.stdout.starts_with(&format!(
            "{WINDOWS_1252}:1:9: warning[non-utf8]: the game contains bytes that are not UTF-8; \
             read as Windows-1252 (Latin-1) (game 1)\n"
        )),
        "{}",
        text.stdout
    );
    let jsonl = validate(&["--format", "jsonl", WINDOWS_1252]);
    let game = &json_lines(&jsonl.stdout)[0];
    assert_eq!(game["diagnostics"][0]["code"], "non-utf8");
    assert!(game["diagnostics"][0]["message"].as_str().unwrap().ends_with("read as Windows-1252 (Latin-1)"));
    assert_eq!(
        (game["white"].as_str(), game["black"].as_str()),
        (Some(WINDOWS_1252_LETTERS[1].1), Some(WINDOWS_1252_LETTERS[2].1))
    );
}

#[test]
fn windows_1252_names_are_matched_by_filter_and_named_in_ascii_by_split() {
    let filtered = run(&["filter", "-q", "--normalize", "--white", "\u{160}ubic", WINDOWS_1252], None);
    assert!(filtered.stdout.contains("[White \"\u{160}ubic, \u{17d}iga\"]\n"), "{}", filtered.stdout);
    let dir = Scratch::new("windows-1252-split");
    let out_dir = dir.str("");
    let split = run(&["split", "-q", "--by", "white", "--ascii-names", "--out-dir", &out_dir, WINDOWS_1252], None);
    assert_eq!(split.code, 0, "{}", split.stderr);
    let written = std::fs::read(dir.path("Subic_Ziga.pgn")).unwrap();
    assert!(written.starts_with(&fixture(WINDOWS_1252)), "the game's bytes as they were");
}

#[test]
fn fen_check_refuses_a_zip_as_not_text() {
    let out = run(&["fen", "check", ZIP], None);
    assert_eq!(
        out.stderr,
        format!(
            "pgnkit: error: {ZIP}: not a text file: a zip archive\n\
             pgnkit: checked 0 positions in 1 input: 0 valid, 0 invalid; 0 errors, 0 warnings; 1 input could not be read\n"
        )
    );
    assert_eq!(out.code, 2);
}

/// The threads of a `pgnkit validate -q THREADS -` fed `stdin`, counted
/// once it has read all but the pipe's last 64 KiB or so of it and waits,
/// in read(2), for more; and whether the thread that waits there is the
/// main one. `None` (the test then skips) where /proc does not show what a
/// thread waits in.
fn threads_waiting_on_stdin(threads: &str, stdin: &[u8]) -> Option<(usize, bool)> {
    // read(2)'s number and the descriptor 0, as /proc/PID/syscall begins.
    const READ_STDIN: &str = if cfg!(target_arch = "x86_64") { "0 0x0 " } else { "63 0x0 " };
    let mut child = crate::support::pgnkit()
        .args(["validate", "-q", threads, "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the binary runs");
    let mut pipe = child.stdin.take().unwrap();
    // Returns once the child has read all but what the pipe holds.
    pipe.write_all(stdin).unwrap();
    let pid = child.id();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let seen = loop {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { break None };
        let tasks: Vec<(String, Option<String>)> = tasks
            .flatten()
            .map(|task| {
                (
                    task.file_name().to_string_lossy().into_owned(),
                    std::fs::read_to_string(task.path().join("syscall")).ok(),
                )
            })
            .collect();
        if tasks.iter().any(|(_, syscall)| syscall.is_none()) {
            break None;
        }
        let readers: Vec<&String> = tasks
            .iter()
            .filter(|(_, syscall)| syscall.as_deref().is_some_and(|s| s.starts_with(READ_STDIN)))
            .map(|(tid, _)| tid)
            .collect();
        if readers.len() == 1 {
            break Some((tasks.len(), *readers[0] == pid.to_string()));
        }
        assert!(std::time::Instant::now() < deadline, "pgnkit validate {threads} never waited on its stdin");
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    drop(pipe);
    let _ = child.kill();
    let _ = child.wait();
    seen
}

#[test]
fn j1_decompresses_on_its_one_thread_and_j2_on_a_thread_beside_its_workers() {
    if !cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
        crate::support::skip("read(2)'s number in /proc/PID/syscall is known for x86_64 and aarch64 only");
        return;
    }
    // Stored, not deflated: so many bytes that the child must read most of
    // them before the write returns.
    let game = "[Event \"e\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n".repeat(1 << 15);
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
    gzip.write_all(game.as_bytes()).unwrap();
    // Flushed, not finished: the stream goes on, and the reader waits for it.
    gzip.flush().unwrap();
    let gzip = gzip.get_ref().clone();
    let counts = ["-j1", "-j2"].map(|threads| {
        let plain = threads_waiting_on_stdin(threads, game.as_bytes());
        let compressed = threads_waiting_on_stdin(threads, &gzip);
        plain.zip(compressed)
    });
    let [Some((plain_j1, compressed_j1)), Some((plain_j2, compressed_j2))] = counts else {
        crate::support::skip("/proc/PID/task/TID/syscall cannot be read here");
        return;
    };
    assert!(plain_j1.1 && compressed_j1.1, "-j1 reads its stdin on the main thread: {plain_j1:?} {compressed_j1:?}");
    assert_eq!(compressed_j1.0, plain_j1.0, "-j1 starts no thread to decompress");
    assert!(!compressed_j2.1, "-j2 reads a compressed stdin on a thread of its own");
    assert_eq!(compressed_j2.0, plain_j2.0 + 1, "-j2 decompresses on one thread beside its workers");
}

/// `bytes` as `pzstd` writes them: frames of zstd, each after a skippable
/// frame (RFC 8878) that holds its size.
fn pzstd_like(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for piece in bytes.chunks(bytes.len().div_ceil(2)) {
        let frame = zstd::encode_all(piece, 3).unwrap();
        out.extend_from_slice(&0x184d_2a50_u32.to_le_bytes());
        out.extend_from_slice(&4_u32.to_le_bytes());
        out.extend_from_slice(&u32::try_from(frame.len()).unwrap().to_le_bytes());
        out.extend_from_slice(&frame);
    }
    out
}

#[test]
fn a_zstd_file_that_starts_with_a_skippable_frame_as_pzstd_writes_is_read_as_the_plain_file() {
    let plain_path = "testdata/valid/famous-games.pgn";
    let plain = validate(&["--format", "jsonl", plain_path]);
    let zst = pzstd_like(&fixture(plain_path));
    let dir = Scratch::new("inputs");
    let path = dir.join("famous-games.pgn.zst");
    std::fs::write(&path, &zst).unwrap();
    let name = path.to_str().unwrap();
    for threads in ["-j1", "-j2"] {
        let out = validate(&["--format", "jsonl", threads, name]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(out.stdout.replace(name, plain_path), plain.stdout, "{threads}");
    }
    let piped = run(&["validate", "--format", "jsonl", "-"], Some(&zst));
    assert_eq!(piped.stdout.replace("<stdin>", plain_path), plain.stdout);
}

#[test]
fn a_zip_whose_members_overlap_is_refused_as_a_corrupt_input_before_any_member_is_read() {
    let mut archive = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    archive.start_file("a.pgn", options).unwrap();
    archive.write_all(&fixture("testdata/valid/famous-games.pgn")).unwrap();
    // Members that share the first one's compressed bytes, as in a zip
    // bomb: each would be decompressed again.
    for copy in 0..50 {
        archive.shallow_copy_file("a.pgn", &format!("copy{copy}.pgn")).unwrap();
    }
    let dir = Scratch::new("inputs");
    let path = dir.join("overlapping.zip");
    std::fs::write(&path, archive.finish().unwrap().into_inner()).unwrap();
    let out = validate(&["--format", "jsonl", path.to_str().unwrap()]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.stdout, "", "no member is read");
    assert!(out.stderr.contains("not a readable zip archive: its members overlap"), "{}", out.stderr);
}
