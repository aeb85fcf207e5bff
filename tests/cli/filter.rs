//! `pgnkit filter`: each criterion on testdata/filter/criteria.pgn (eight
//! composed games, told apart by their Round tag), and how selections are
//! combined, counted, cut and written.

use std::sync::Arc;

use pgnkit::{
    check::{GameReader, KeptTags, ReadOptions},
    frame::{Batch, Framer},
    game::Tags,
};

use crate::support::{Scratch, corpus, files_with_extension, run};

const CRITERIA: &str = "testdata/filter/criteria.pgn";

/// The Round tags of the games `filter ARGS` writes from the fixture.
fn rounds(args: &[&str]) -> Vec<u32> {
    let mut all = vec!["filter", CRITERIA];
    all.extend_from_slice(args);
    let out = run(&all, None);
    assert!(out.code == 0 || out.code == 1, "{args:?}: exit {}: {}", out.code, out.stderr);
    out.stdout
        .lines()
        .filter_map(|line| line.strip_prefix("[Round \""))
        .map(|rest| rest.trim_end_matches("\"]").parse().expect("a round number"))
        .collect()
}

#[test]
fn player_tags_match_by_case_sensitive_prefix() {
    assert_eq!(rounds(&["--white", "Alder"]), [1, 7]);
    assert_eq!(rounds(&["--black", "Alder, Ann"]), [3, 6]);
    assert_eq!(rounds(&["--player", "Alder"]), [1, 3, 6, 7]);
    assert_eq!(rounds(&["--white", "alder"]), [] as [u32; 0]);
    assert_eq!(rounds(&["--white", "Ann"]), [] as [u32; 0]);
}

#[test]
fn event_and_site_match_by_prefix() {
    assert_eq!(rounds(&["--event", "Club"]), [1, 2, 7]);
    assert_eq!(rounds(&["--site", "Leiden"]), [1, 2, 7, 8]);
}

#[test]
fn eco_takes_a_prefix_or_a_range() {
    assert_eq!(rounds(&["--eco", "C5"]), [1]);
    assert_eq!(rounds(&["--eco", "A00-B99"]), [2, 3]);
}

#[test]
fn dates_with_unknown_parts_count_only_when_wholly_in_range() {
    assert_eq!(rounds(&["--date-from", "2021"]), [1, 2, 6, 7]);
    assert_eq!(rounds(&["--date-from", "2021.03.15"]), [6, 7]);
    assert_eq!(rounds(&["--date-to", "2021.03.14"]), [1, 3, 4, 5]);
    assert_eq!(rounds(&["--date-from", "1950", "--date-to", "1950.12.31"]), [4]);
}

#[test]
fn elo_bounds_need_both_ratings_and_averages_use_the_mean() {
    assert_eq!(rounds(&["--elo-min", "2050"]), [1, 7]);
    assert_eq!(rounds(&["--elo-max", "2300"]), [1]);
    assert_eq!(rounds(&["--avg-elo-min", "2195"]), [2, 7]);
    assert_eq!(rounds(&["--avg-elo-max", "2195"]), [1, 2]);
}

#[test]
fn any_tag_by_exact_value_regex_or_presence() {
    assert_eq!(rounds(&["--tag", "Black=Dee"]), [8]);
    assert_eq!(rounds(&["--tag", "Black~(?i)^(dee|elm)$"]), [4, 5, 8]);
    assert_eq!(rounds(&["--tag", "Site~NED$", "--tag", "Round~[78]"]), [7, 8]);
    assert_eq!(rounds(&["--has-tag", "Annotator"]), [2]);
    assert_eq!(rounds(&["--has-tag", "FEN", "--has-tag", "Variant"]), [6]);
}

#[test]
fn a_game_that_could_not_be_replayed_is_neither_valid_nor_invalid() {
    let events = |flag: &str| {
        let out = run(&["filter", "-q", flag, "testdata/invalid/unsupported-variant.pgn"], None);
        assert_eq!(out.code, 0, "{flag}: {}", out.stderr);
        out.stdout.lines().filter(|l| l.starts_with("[Event ")).map(str::to_owned).collect::<Vec<_>>()
    };
    assert_eq!(events("--valid"), ["[Event \"A standard game after it\"]"]);
    assert!(events("--invalid").is_empty());
    let out = run(&["filter", "--count", "--valid", "testdata/invalid/unsupported-variant.pgn"], None);
    assert!(out.stderr.contains("2 replayed: 1 valid, 0 invalid, 1 not checked;"), "{}", out.stderr);
}

#[test]
fn variant_compares_names_loosely_and_no_tag_is_standard() {
    assert_eq!(rounds(&["--variant", "chess 960"]), [6]);
    assert_eq!(rounds(&["--variant", "standard"]), [1, 2, 3, 4, 5, 7, 8]);
}

#[test]
fn result_uses_the_tag_else_the_marker() {
    assert_eq!(rounds(&["--result", "1-0"]), [1, 7]);
    assert_eq!(rounds(&["--result", "1/2-1/2"]), [4, 8]);
    assert_eq!(rounds(&["--result", "*"]), [5, 6]);
}

#[test]
fn termination_is_the_rule_on_the_board() {
    assert_eq!(rounds(&["--termination", "checkmate"]), [3]);
    assert_eq!(rounds(&["--termination", "stalemate"]), [4]);
    assert_eq!(rounds(&["--termination", "none"]), [1, 2, 5, 6, 7, 8]);
    let out = run(&["filter", "--termination", "resigned", CRITERIA], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("not a termination"), "{}", out.stderr);
}

#[test]
fn valid_and_invalid_select_by_the_replay() {
    assert_eq!(rounds(&["--invalid"]), [7]);
    assert_eq!(rounds(&["--valid"]).len(), 7);
}

#[test]
fn plies_count_the_moves_replayed() {
    assert_eq!(rounds(&["--max-plies", "2"]), [4, 5, 6, 7]);
    assert_eq!(rounds(&["--min-plies", "12"]), [1, 2]);
}

#[test]
fn comments_variations_underpromotion_and_castling() {
    assert_eq!(rounds(&["--has-comments"]), [2]);
    assert_eq!(rounds(&["--has-variations"]), [2]);
    assert_eq!(rounds(&["--underpromotion"]), [5]);
    assert_eq!(rounds(&["--castling", "short"]), [1, 2]);
    assert_eq!(rounds(&["--castling", "long"]), [2]);
    assert_eq!(rounds(&["--castling", "none"]), [3, 4, 5, 6, 7, 8]);
}

#[test]
fn fen_matches_a_reached_position_ignoring_move_counters() {
    // 1. e4 e5 in rounds 1, 6 and 7. Round 6 is Chess960 from the standard
    // array: its castling rights are the same rooks, so the same position.
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 7 30";
    assert_eq!(rounds(&["--fen", fen]), [1, 6, 7]);
    // Castling rights and the side to move count; for a placement they don't.
    assert_eq!(rounds(&["--fen", "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w - - 0 1"]), [] as [u32; 0]);
    assert_eq!(rounds(&["--fen", "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"]), [] as [u32; 0]);
    assert_eq!(rounds(&["--placement", "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"]), [1, 6, 7]);
    // The position after 1. e4: en passant is not capturable, so the FEN's
    // e3 square does not matter.
    assert_eq!(rounds(&["--fen", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"]), [1, 2, 6, 7]);
    let out = run(&["filter", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1", CRITERIA], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("is not a usable FEN: missing-king: White has no king"), "{}", out.stderr);
}

#[test]
fn material_signatures_and_after_ply() {
    assert_eq!(rounds(&["--material", "KQvK"]), [4]);
    assert_eq!(rounds(&["--material", "KPvK"]), [5]);
    assert_eq!(rounds(&["--material", "KRvK"]), [5]);
    assert_eq!(rounds(&["--material", "KPvK", "--after-ply", "1"]), [] as [u32; 0]);
}

#[test]
fn any_ors_and_invert_negates() {
    assert_eq!(rounds(&["--white", "Dee", "--black", "Dee"]), [] as [u32; 0]);
    assert_eq!(rounds(&["--any", "--white", "Dee", "--black", "Dee"]), [4, 5, 8]);
    assert_eq!(rounds(&["--invert", "--site", "Leiden"]), [3, 4, 5, 6]);
    assert_eq!(rounds(&["--any", "--invert", "--white", "Dee", "--underpromotion"]), [1, 2, 3, 6, 7, 8]);
}

#[test]
fn count_limit_and_skip_apply_in_input_order() {
    let out = run(&["filter", "--count", "--site", "Leiden", CRITERIA], None);
    assert_eq!(out.stdout, "4\n");
    assert_eq!(rounds(&["--site", "Leiden", "--skip", "1", "--limit", "2"]), [2, 7]);
    // --count counts the games that --skip and --limit leave to be written.
    for (cut, count) in
        [(&["--skip", "1", "--limit", "2"][..], "2\n"), (&["--skip", "3"], "1\n"), (&["--skip", "9"], "0\n")]
    {
        let args: Vec<&str> =
            ["filter", "--count", "--site", "Leiden"].iter().chain(cut).chain(&[CRITERIA]).copied().collect();
        assert_eq!(run(&args, None).stdout, count, "{cut:?}");
    }
    assert_eq!(rounds(&["--limit", "1", "-j", "2"]), [1]);
}

#[test]
fn output_is_the_games_text_byte_for_byte() {
    let input = std::fs::read_to_string(crate::support::root().join(CRITERIA)).unwrap();
    let everything = run(&["filter", CRITERIA], None);
    assert_eq!(everything.code, 0);
    // Each game is followed by one blank line (the last one of the file had
    // none).
    assert_eq!(everything.stdout, input + "\n");
    // CRLF games keep their line endings.
    let crlf = run(&["filter", "testdata/valid/crlf-line-endings.pgn"], None);
    let original =
        std::fs::read_to_string(crate::support::root().join("testdata/valid/crlf-line-endings.pgn")).unwrap();
    assert_eq!(crlf.stdout.trim_end(), original.trim_end());
}

#[test]
fn rejects_get_every_game_that_does_not_match() {
    let dir = Scratch::new("filter-rejects");
    let rejects = dir.join("rejects.pgn");
    let out = run(&["filter", "--site", "Leiden", "--rejects", rejects.to_str().unwrap(), CRITERIA], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rejected = std::fs::read_to_string(&rejects).unwrap();
    let input = std::fs::read_to_string(crate::support::root().join(CRITERIA)).unwrap();
    // Matches and rejects together are the input, each game once (each
    // followed by a blank line).
    assert_eq!(out.stdout.len() + rejected.len(), input.len() + 1);
    assert_eq!(rejected.matches("[Round ").count(), 4);
}

#[test]
fn tag_only_filters_do_not_replay_and_report_nothing_about_moves() {
    let out = run(&["filter", "--white", "Alder", CRITERIA], None);
    assert_eq!(out.code, 0, "the illegal move of game 7 is not looked at");
    assert!(out.stderr.contains("2 of 8 games matched in 1 input; 0 replayed"), "{}", out.stderr);
    let replayed = run(&["filter", "--white", "Alder", "--min-plies", "1", CRITERIA], None);
    assert_eq!(replayed.code, 1);
    assert!(replayed.stderr.contains("error[illegal-move]"), "{}", replayed.stderr);
    assert!(replayed.stderr.contains("2 replayed"), "{}", replayed.stderr);
}

#[test]
fn normalize_writes_convert_pgn_output() {
    let filtered = run(&["filter", "--normalize", "--event", "Blitz", CRITERIA], None);
    let converted = run(&["convert", "--to", "pgn", CRITERIA], None);
    let game3 = converted.stdout.split("\n\n[").find(|g| g.contains("Blitz Open")).unwrap();
    assert!(filtered.stdout.contains(game3.trim_start_matches('[')), "{}", filtered.stdout);
    assert_eq!(filtered.stdout.matches("[Event ").count(), 1);
}

#[test]
fn same_output_for_every_thread_count() {
    let args = |j: &'static str| ["filter", "-j", j, "--material", "KQvK", "--any", "--site", "Leiden", CRITERIA];
    let one = run(&args("1"), None);
    let two = run(&args("2"), None);
    assert_eq!(one.stdout, two.stdout);
    assert_eq!(one.stderr, two.stderr);
}

#[test]
fn on_the_corpus_tags_read_without_replay_equal_the_checkers() {
    let Some(corpus) = corpus() else { return };
    // Tag criteria are decided from `Tags::scan`; the other criteria, and
    // `validate`, see the checker's tags: both must read every game alike.
    let mut games = 0;
    let mut files = files_with_extension(&corpus.join("pgn"), "pgn");
    files.extend(files_with_extension(&corpus.join("bad"), "pgn"));
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        let mut framer = Framer::new(&bytes[..]);
        let mut batch = Batch::default();
        let mut checker = GameReader::new(ReadOptions { tags: KeptTags::All, ..ReadOptions::default() });
        let name: Arc<str> = Arc::from(file.to_string_lossy().as_ref());
        // A file with no game in it ends in an error: nothing to compare.
        while framer.next_batch(&mut batch).unwrap_or(false) {
            for raw in batch.games() {
                let game = checker.read(&name, raw, false);
                assert_eq!(Tags::scan(raw.bytes), game.tags, "{name}: game {}", raw.frame.index);
                games += 1;
            }
        }
    }
    assert!(games > 10_000, "only {games} games");
}

#[test]
fn the_result_selected_is_the_games_result_as_every_command_reads_it() {
    let count = |args: &[&str], pgn: &str| {
        let mut all = vec!["filter", "-q", "--count"];
        all.extend_from_slice(args);
        all.push("-");
        run(&all, Some(pgn.as_bytes())).stdout
    };
    // A Result tag given twice: its last value, by the tags alone or not.
    let twice = "[Result \"1-0\"]\n[Result \"0-1\"]\n\n1. e4 0-1\n";
    assert_eq!(count(&["--result", "0-1"], twice), "1\n");
    assert_eq!(count(&["--result", "1-0"], twice), "0\n");
    assert_eq!(count(&["--result", "0-1", "--min-plies", "1"], twice), "1\n");
    // A Result tag that is not a result: the marker.
    let not_a_result = "[Result \"1-0 ff\"]\n\n1. e4 0-1\n";
    assert_eq!(count(&["--result", "0-1"], not_a_result), "1\n");
    assert_eq!(count(&["--result", "1-0"], not_a_result), "0\n");
}

#[test]
fn winner_and_loser_are_the_players_the_result_names_and_draws_match_neither() {
    // A player criterion and a result criterion are independent: Alder's
    // 1-0 games are her wins as White only; round 3 is her win as Black.
    assert_eq!(rounds(&["--player", "Alder", "--result", "1-0"]), [1, 7]);
    assert_eq!(rounds(&["--winner", "Alder"]), [1, 3, 7]);
    assert_eq!(rounds(&["--loser", "Alder"]), [] as [u32; 0]);
    assert_eq!(rounds(&["--loser", "Birch"]), [1, 2]);
    assert_eq!(rounds(&["--winner", "Alder", "--loser", "Fir"]), [7]);
    // Dee and Elm drew (rounds 4 and 8, the latter by its marker) or did
    // not finish (round 5).
    assert_eq!(rounds(&["--winner", "Dee", "--winner", "Elm"]), [] as [u32; 0]);
    assert_eq!(rounds(&["--loser", "Dee", "--loser", "Elm"]), [] as [u32; 0]);
    // Every game with a named player has a Result tag: nothing is replayed.
    let out = run(&["filter", "--count", "--winner", "Alder", CRITERIA], None);
    assert_eq!(out.stdout, "3\n");
    assert!(out.stderr.contains("3 of 8 games matched in 1 input; 0 replayed"), "{}", out.stderr);
}

#[test]
fn winner_and_loser_read_the_result_as_every_command_does() {
    let count = |args: &[&str], pgn: &str| {
        let mut all = vec!["filter", "-q", "--count"];
        all.extend_from_slice(args);
        all.push("-");
        run(&all, Some(pgn.as_bytes())).stdout
    };
    // No Result tag, or one that is not a result: the movetext's marker.
    for tags in ["", "[Result \"?\"]\n"] {
        let pgn = format!("[White \"Alder\"]\n[Black \"Birch\"]\n{tags}\n1. e4 0-1\n");
        assert_eq!(count(&["--winner", "Birch"], &pgn), "1\n", "{pgn}");
        assert_eq!(count(&["--loser", "Alder"], &pgn), "1\n", "{pgn}");
        assert_eq!(count(&["--winner", "Alder"], &pgn), "0\n", "{pgn}");
    }
    // A Result tag given twice: its last value.
    let twice = "[White \"Alder\"]\n[Black \"Birch\"]\n[Result \"1-0\"]\n[Result \"0-1\"]\n\n1. e4 0-1\n";
    assert_eq!(count(&["--winner", "Birch"], twice), "1\n");
    assert_eq!(count(&["--winner", "Birch", "--min-plies", "1"], twice), "1\n");
}

#[test]
fn a_repeated_name_criterion_matches_any_of_its_values_and_criteria_still_all_hold() {
    assert_eq!(rounds(&["--white", "Alder", "--white", "Dee"]), [1, 4, 5, 7]);
    assert_eq!(rounds(&["--black", "Birch", "--black", "Cedar"]), [1, 2]);
    assert_eq!(rounds(&["--player", "Cedar", "--player", "Fir"]), [2, 3, 6, 7]);
    assert_eq!(rounds(&["--winner", "Alder", "--winner", "Cedar"]), [1, 2, 3, 7]);
    assert_eq!(rounds(&["--loser", "Birch", "--loser", "Fir"]), [1, 2, 7]);
    assert_eq!(rounds(&["--event", "Club", "--event", "Study"]), [1, 2, 4, 5, 7]);
    assert_eq!(rounds(&["--site", "Utrecht", "--site", "Weissenhaus"]), [3, 6]);
    // Two criteria: a player of either name, and Birch as Black.
    assert_eq!(rounds(&["--player", "Alder", "--player", "Cedar", "--black", "Birch"]), [1]);
    // --any ORs the criteria, as before.
    assert_eq!(rounds(&["--any", "--white", "Dee", "--white", "Elm", "--black", "Fir"]), [4, 5, 7, 8]);
}

#[test]
fn a_names_file_gives_one_name_a_line_and_mixes_with_names_given_alone() {
    let file = "@testdata/filter/names-with-comments.txt";
    // Birch (rounds 1 and 2) and Cedar, Cy (rounds 2 and 3).
    assert_eq!(rounds(&["--player", file]), [1, 2, 3]);
    assert_eq!(rounds(&["--player", file, "--player", "Fir"]), [1, 2, 3, 6, 7]);
    assert_eq!(rounds(&["--loser", file]), [1, 2, 3]);
    assert_eq!(rounds(&["--white", file]), [2, 3]);
    let missing = run(&["filter", "--player", "@testdata/filter/no-such-names.txt", CRITERIA], None);
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.contains("cannot read the names in testdata/filter/no-such-names.txt"),
        "{}",
        missing.stderr
    );
    let empty = run(&["filter", "--player", "@testdata/empty.pgn", CRITERIA], None);
    assert_eq!(empty.code, 2);
    assert!(empty.stderr.contains("testdata/empty.pgn has no names"), "{}", empty.stderr);
    // `@@` is a name starting with `@`, not a file.
    let at = "[White \"@alder\"]\n[Black \"Birch\"]\n\n1. e4 *\n";
    let out = run(&["filter", "-q", "--count", "--white", "@@alder", "-"], Some(at.as_bytes()));
    assert_eq!((out.code, out.stdout.as_str()), (0, "1\n"), "{}", out.stderr);
}

#[test]
fn ignore_case_applies_to_every_name_criterion_and_still_matches_prefixes() {
    assert_eq!(rounds(&["--white", "alder"]), [] as [u32; 0]);
    assert_eq!(rounds(&["-i", "--white", "alder"]), [1, 7]);
    assert_eq!(rounds(&["--ignore-case", "--black", "ALDER, ANN"]), [3, 6]);
    assert_eq!(rounds(&["-i", "--player", "fir"]), [6, 7]);
    assert_eq!(rounds(&["-i", "--winner", "ALDER"]), [1, 3, 7]);
    assert_eq!(rounds(&["-i", "--loser", "birch"]), [1, 2]);
    assert_eq!(rounds(&["-i", "--event", "club"]), [1, 2, 7]);
    assert_eq!(rounds(&["-i", "--site", "leiden"]), [1, 2, 7, 8]);
    assert_eq!(
        rounds(&["-i", "--player", "cedar, CY", "--player", "@testdata/filter/names-with-comments.txt"]),
        [1, 2, 3]
    );
    // A prefix still: the start of the value, not any part of it.
    assert_eq!(rounds(&["-i", "--white", "ann"]), [] as [u32; 0]);
    // Alone, or with criteria it does not apply to, it is a mistake.
    let alone = run(&["filter", "-i", "--tag", "White=alder, ann", CRITERIA], None);
    assert_eq!(alone.code, 2, "{}", alone.stderr);
    assert!(alone.stderr.contains("--white"), "{}", alone.stderr);
}

#[test]
fn count_skip_limit_invert_and_rejects_work_with_repeated_names() {
    let both = ["--winner", "Alder", "--winner", "Cedar"];
    let out = run(&["filter", "--count", both[0], both[1], both[2], both[3], CRITERIA], None);
    assert_eq!(out.stdout, "4\n");
    assert_eq!(rounds(&[both[0], both[1], both[2], both[3], "--skip", "1", "--limit", "2"]), [2, 3]);
    assert_eq!(rounds(&["--invert", both[0], both[1], both[2], both[3]]), [4, 5, 6, 8]);
    let dir = Scratch::new("filter-names-rejects");
    let rejects = dir.join("rejects.pgn");
    let out =
        run(&["filter", both[0], both[1], both[2], both[3], "--rejects", rejects.to_str().unwrap(), CRITERIA], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rejected = std::fs::read_to_string(&rejects).unwrap();
    let round_tags: Vec<&str> = rejected.lines().filter(|l| l.starts_with("[Round ")).collect();
    assert_eq!(round_tags, ["[Round \"4\"]", "[Round \"5\"]", "[Round \"6\"]", "[Round \"8\"]"]);
}
