//! Runs on the real game collections of `../shared/corpus` (read in place;
//! skipped with a message when absent).

use crate::support::{corpus, files_with_extension, json_lines, validate};

#[test]
fn every_corpus_file_is_read_to_the_end_with_consecutive_game_numbers() {
    let Some(corpus) = corpus() else { return };
    let mut files = files_with_extension(&corpus.join("pgn"), "pgn");
    files.extend(files_with_extension(&corpus.join("bad"), "pgn"));
    assert!(files.len() > 100);
    for file in files {
        let path = file.to_str().unwrap();
        let out = validate(&["--format", "jsonl", path]);
        if out.stderr.contains(": holds no game: only text that is not PGN") {
            // A file with no game in it at all (kokopu's "I'm not a PGN file").
            assert_eq!((out.code, out.stdout.as_str()), (2, ""), "{path}");
            continue;
        }
        assert!(out.code == 0 || out.code == 1, "{path}: exit {} {}", out.code, out.stderr);
        let games = json_lines(&out.stdout);
        for (i, game) in games.iter().enumerate() {
            assert_eq!(game["game"], i as u64 + 1, "{path}: game numbers");
            let invalid = game["diagnostics"].as_array().unwrap().iter().any(|d| d["severity"] == "error");
            let checked = game["checked"].as_bool().unwrap();
            assert_eq!(game["valid"], checked && !invalid, "{path}: valid iff replayed without an error");
            // Only a game that could not be replayed is not checked, and it
            // says why.
            let why = game["diagnostics"][0]["code"].as_str();
            assert!(checked || matches!(why, Some("unsupported-variant" | "invalid-fen-tag")), "{path}: {why:?}");
        }
        assert!(out.stderr.contains(&format!("checked {} game", games.len())), "{path}: {}", out.stderr);
    }
}

#[test]
fn the_benchmark_collections_are_valid_game_for_game() {
    let Some(corpus) = corpus() else { return };
    // Counts from corpus/SOURCES.md (python-chess replays all of them).
    for (file, games) in
        [("bench/real_games_mix.pgn.gz", 3025), ("bench/bjbraams_chessdb_198350_lines.pgn.gz", 198_350)]
    {
        let path = corpus.join(file);
        let out = validate(&[path.to_str().unwrap()]);
        assert_eq!(out.stdout, "", "{file}: no findings");
        assert_eq!(
            out.stderr,
            format!("pgnkit: checked {games} games in 1 input: {games} valid, 0 invalid; 0 errors, 0 warnings\n"),
            "{file}"
        );
        assert_eq!(out.code, 0);
    }
}

#[test]
fn known_illegal_moves_in_the_corpus_are_found() {
    let Some(corpus) = corpus() else { return };
    // SOURCES.md: "0-0-0 through the queen" and "1. e5" in the line-break files.
    for file in ["bad/chess-library/black2move.pgn", "bad/kokopu/linebreak-linux.pgn", "bad/kokopu/linebreak-mac.pgn"] {
        let out = validate(&["--format", "jsonl", corpus.join(file).to_str().unwrap()]);
        let games = json_lines(&out.stdout);
        assert!(
            games.iter().any(|g| g["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "illegal-move")),
            "{file}: {}",
            out.stdout
        );
        assert_eq!(out.code, 1, "{file}");
    }
}

#[test]
fn real_collections_give_the_same_output_with_one_and_four_threads() {
    let Some(corpus) = corpus() else { return };
    let files =
        ["pgn/shakmaty/lichess_db_1000k.pgn", "pgn/shakmaty/twic1599_1000k.pgn", "pgn/pychess/world_matches.pgn"];
    let paths: Vec<String> = files.iter().map(|f| corpus.join(f).to_str().unwrap().to_owned()).collect();
    let run = |threads: &str| {
        let mut args = vec!["-j", threads, "--format", "jsonl"];
        args.extend(paths.iter().map(String::as_str));
        validate(&args).stdout
    };
    let one = run("1");
    assert!(json_lines(&one).len() > 1000);
    assert_eq!(run("4"), one);
}

/// Games in a PGN text by the rules of docs/commands/validate.md's "What counts as a game",
/// read line by line, independently of pgnkit's byte-level framer: a tag
/// section starts a game (a tag after a blank line starts a new section when
/// its name was already seen in the current one, or when it ends an open
/// comment); movetext outside any game starts a tag-less game, as does `1.`
/// after a blank line once a game has moves; a result ends a game.
fn count_games(text: &[u8]) -> usize {
    let text = String::from_utf8_lossy(text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text)).replace("\r\n", "\n");
    let (mut games, mut in_comment, mut blank) = (0, false, false);
    let mut tags: Vec<String> = Vec::new();
    // `None` between games, else whether the game has moves.
    let mut game: Option<bool> = None;
    for line in text.split(['\n', '\r']) {
        let line = line.trim();
        if line.is_empty() {
            blank = true;
            continue;
        }
        if line.starts_with('%') && !in_comment {
            continue;
        }
        let was_blank = std::mem::replace(&mut blank, false);
        let mut rest = line;
        if in_comment {
            if was_blank && line.starts_with('[') {
                in_comment = false;
                game = None;
            } else {
                match line.find('}') {
                    Some(end) => {
                        in_comment = false;
                        rest = line[end + 1..].trim();
                    }
                    None => continue,
                }
            }
        }
        if rest.starts_with('[') {
            let name: String = rest[1..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            let repeated = was_blank && tags.contains(&name);
            if game.is_none_or(|has_moves| has_moves || repeated) {
                games += 1;
                tags.clear();
            }
            tags.push(name);
            game = Some(false);
            rest = rest.rfind(']').map_or("", |end| rest[end + 1..].trim());
        }
        // Comments and `;` remarks are not moves.
        let mut moves = String::new();
        let mut chars = rest.chars();
        while let Some(c) = chars.next() {
            match c {
                '{' => match chars.as_str().find('}') {
                    Some(end) => chars = chars.as_str()[end + 1..].chars(),
                    None => {
                        in_comment = true;
                        break;
                    }
                },
                ';' => break,
                c => moves.push(c),
            }
        }
        let moves = moves.trim();
        if moves.is_empty() {
            continue;
        }
        let starts_over = was_blank && game == Some(true) && moves.starts_with("1.") && !moves.starts_with("1..");
        if game.is_none() && !moves.split_whitespace().any(looks_like_move) && !looks_like_broken_tag(moves) {
            // Text between games with no tag and no move: stray, no game.
            continue;
        }
        if game.is_none() || starts_over {
            games += 1;
            tags.clear();
        }
        game = Some(true);
        let last = moves.split_whitespace().last().unwrap_or("");
        if ["1-0", "0-1", "1/2-1/2", "*"].iter().any(|r| last.ends_with(r)) && !in_comment {
            game = None;
        }
    }
    games
}

/// A word that reads as a move: SAN (`Nf3`, `exd5`, `e8=Q+`, `O-O`), a
/// promotion without `=`, coordinates (`g1f3`), long algebraic (`Ng1-f3`),
/// after a move number if glued (`12.Nf3`).
fn looks_like_move(word: &str) -> bool {
    let word = word.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start_matches('.');
    let word = word.trim_end_matches(['+', '#', '!', '?']);
    if ["O-O", "O-O-O", "0-0", "0-0-0", "o-o", "o-o-o", "--", "Z0"].contains(&word) {
        return true;
    }
    let bytes = word.as_bytes();
    let square = |i: usize| matches!(bytes.get(i), Some(b'a'..=b'h')) && matches!(bytes.get(i + 1), Some(b'1'..=b'8'));
    let piece = matches!(bytes.first(), Some(b'K' | b'Q' | b'R' | b'B' | b'N'));
    let body = &bytes[usize::from(piece)..];
    // The destination square ends the body, before any promotion.
    let promo_len = match body {
        [.., b'=', b'Q' | b'R' | b'B' | b'N'] => 2,
        [.., b'1' | b'8', b'Q' | b'R' | b'B' | b'N' | b'q' | b'r' | b'b' | b'n'] if !piece => 1,
        _ => 0,
    };
    let body = &body[..body.len() - promo_len];
    if body.len() < 2 || !square(usize::from(piece) + body.len() - 2) {
        return false;
    }
    // What comes before the destination: a file, rank, square, `x` or `-`.
    body[..body.len() - 2].iter().all(|b| matches!(b, b'a'..=b'h' | b'1'..=b'8' | b'x' | b'-')) && body.len() <= 6
}

/// `Event "Name"]`: a tag line that lost its `[`.
fn looks_like_broken_tag(line: &str) -> bool {
    let name = line.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').count();
    (name > 0 && line[name..].trim_start().starts_with('"')) || line.ends_with("\"]")
}

#[test]
fn every_game_of_every_corpus_file_is_reported() {
    let Some(corpus) = corpus() else { return };
    let mut files = files_with_extension(&corpus.join("pgn"), "pgn");
    files.extend(files_with_extension(&corpus.join("bad"), "pgn"));
    for file in files {
        let path = file.to_str().unwrap();
        let reported = json_lines(&validate(&["--format", "jsonl", path]).stdout).len();
        let counted = count_games(&std::fs::read(&file).unwrap());
        assert_eq!(reported, counted, "{path}: games reported vs counted line by line");
    }
}
