//! `pgnkit ratings`: the hand-computed round robin of
//! `testdata/ratings/round-robin.pgn` (see testdata/README.md for every
//! step) under both schemes, the formats, the options and exit codes.

use crate::support::{Scratch, corpus, json_lines, run};

const ROUND_ROBIN: &str = "testdata/ratings/round-robin.pgn";

fn ratings(args: &[&str]) -> crate::support::Run {
    let mut all = vec!["ratings"];
    all.extend_from_slice(args);
    run(&all, None)
}

fn csv_rows(text: &str) -> Vec<csv::StringRecord> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().expect("a header row").clone();
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("a CSV row")).collect();
    assert!(rows.iter().all(|r| r.len() == header.len()));
    std::iter::once(header).chain(rows).collect()
}

/// The values of column `name` of CSV rows (header first).
fn column<'a>(rows: &'a [csv::StringRecord], name: &str) -> Vec<&'a str> {
    let at = rows[0].iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"));
    rows[1..].iter().map(|r| &r[at]).collect()
}

#[test]
fn elo_standings_of_the_round_robin_are_the_hand_computed_table() {
    let out = ratings(&[ROUND_ROBIN]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "\
rank  player      games  wins  draws  losses  score  score_pct  avg_opponent_elo  performance  rating_before  rating
   1  Alder, Ann      6     3      2       1    4.0      66.67           1711.17      1844.50           2450    2436
   2  Baker, Bo       6     2      2       2    3.0      50.00           1821.00      1821.00           2100    2083
   3  Carter, Cy      6     2      2       2    3.0      50.00           2011.50      2011.50           1500    1559
   4  Dunn, Di        6     1      2       3    2.0      33.33           2028.67      1895.33           1500    1529
"
    );
    assert_eq!(
        out.stderr,
        "pgnkit: rated 12 of 14 games in 1 input, 4 players; not rated: 1 unfinished (result * or none), \
         1 without a player name\n"
    );
}

#[test]
fn club_standings_of_the_round_robin_are_the_hand_computed_table() {
    let out = ratings(&["-q", "--scheme", "club", ROUND_ROBIN]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "\
rank  player      games  wins  draws  losses  score  score_pct  avg_opponent_points  points  level
   1  Alder, Ann      6     3      2       1    4.0      66.67                 1.36   11.92  unranked
   2  Dunn, Di        6     1      2       3    2.0      33.33                 3.20   -2.15  unranked
   3  Baker, Bo       6     2      2       2    3.0      50.00                -2.70   -2.45  unranked
   4  Carter, Cy      6     2      2       2    3.0      50.00                -1.86   -7.32  unranked
"
    );
    assert_eq!(out.stderr, "");
}

#[test]
fn club_history_moves_the_hand_computed_points_game_by_game_in_date_order() {
    let out = ratings(&["-q", "--scheme", "club", "--history", "--format", "csv", ROUND_ROBIN]);
    let rows = csv_rows(&out.stdout);
    // File order is round 2 first: the history follows the dates.
    assert_eq!(column(&rows, "game"), ["3", "4", "1", "2", "6", "7", "8", "9", "10", "11", "12", "13"]);
    assert_eq!(
        column(&rows, "white_after"),
        ["10.00", "0.00", "-19.20", "4.50", "13.52", "19.20", "-21.13", "9.20", "2.68", "10.01", "-2.15", "11.92"]
    );
    assert_eq!(
        column(&rows, "black_after"),
        ["-10.00", "0.00", "9.20", "5.50", "-27.22", "-5.50", "-11.59", "23.52", "-14.61", "1.92", "-2.45", "-7.32"]
    );
    assert!(column(&rows, "white_level").iter().all(|&l| l == "unranked"));
    assert_eq!(column(&rows, "white")[0], "Alder, Ann");
}

#[test]
fn elo_history_shows_expected_scores_k_factors_and_the_400_point_cap() {
    let out = ratings(&["-q", "--history", "--format", "csv", ROUND_ROBIN]);
    let rows = csv_rows(&out.stdout);
    assert_eq!(rows.len(), 13);
    // 2450 v 1500 and 2100 v 1500: 950 and 600 points count as 400.
    assert_eq!(column(&rows, "white_expected")[..4], ["0.9091", "0.9091", "0.4712", "0.8876"]);
    assert_eq!(column(&rows, "white_k")[..4], ["10", "20", "40", "10"]);
    assert_eq!(column(&rows, "black_k")[..4], ["40", "40", "40", "20"]);
    assert_eq!(
        column(&rows, "white_after"),
        ["2451", "2092", "1477", "2447", "2102", "1571", "1489", "1567", "1563", "2101", "1529", "2436"]
    );
    assert_eq!(
        column(&rows, "black_after"),
        ["1496", "1516", "1535", "2100", "1473", "2438", "2434", "2104", "1493", "2435", "2083", "1559"]
    );
    assert_eq!(column(&rows, "date")[0], "2024.03.01");
    assert_eq!(column(&rows, "file")[0], ROUND_ROBIN);
}

#[test]
fn monthly_rating_periods_rate_each_month_from_its_first_ratings() {
    let out = ratings(&["-q", "--period", "month", "--format", "csv", ROUND_ROBIN]);
    let rows = csv_rows(&out.stdout);
    assert_eq!(column(&rows, "player"), ["Alder, Ann", "Baker, Bo", "Carter, Cy", "Dunn, Di"]);
    assert_eq!(column(&rows, "rating"), ["2436", "2082", "1560", "1531"]);
    assert_eq!(column(&rows, "avg_opponent_elo"), ["1707.83", "1822.33", "2010.33", "2027.00"]);
    let history = csv_rows(&ratings(&["-q", "--period", "month", "--history", "--format", "csv", ROUND_ROBIN]).stdout);
    // Every March game is rated at the ratings of March 1st and shows the
    // ratings after March.
    assert_eq!(column(&history, "white_before")[..6], ["2450", "2100", "1500", "2450", "2100", "1500"]);
    assert_eq!(column(&history, "white_after")[..6], ["2438", "2101", "1473", "2438", "2101", "1573"]);
    let by_day = csv_rows(&ratings(&["-q", "--period", "day", "--format", "csv", ROUND_ROBIN]).stdout);
    assert_eq!(by_day.len(), 5);
}

#[test]
fn text_csv_and_jsonl_agree_and_the_csv_parses() {
    for scheme in ["elo", "club"] {
        let csv = ratings(&["-q", "--scheme", scheme, "--format", "csv", ROUND_ROBIN]).stdout;
        let jsonl = ratings(&["-q", "--scheme", scheme, "--format", "jsonl", ROUND_ROBIN]).stdout;
        let text = ratings(&["-q", "--scheme", scheme, ROUND_ROBIN]).stdout;
        let rows = csv_rows(&csv);
        let objects = json_lines(&jsonl);
        assert_eq!(objects.len(), rows.len() - 1);
        for (object, row) in objects.iter().zip(&rows[1..]) {
            let keys: Vec<&String> = object.as_object().unwrap().keys().collect();
            assert_eq!(keys, rows[0].iter().collect::<Vec<_>>());
            for (name, value) in rows[0].iter().zip(row) {
                let json = &object[name];
                let written = match json {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Null => String::new(),
                    number => number.to_string(),
                };
                // JSON numbers drop trailing zeros (`66.67`, `4.0` stay).
                let parse = |s: &str| s.parse::<f64>().ok();
                assert!(
                    written == value || (parse(&written).is_some() && parse(&written) == parse(value)),
                    "{scheme} {name}: {written} against {value}"
                );
            }
            assert!(text.contains(&format!("  {}  ", object["player"].as_str().unwrap())));
        }
        let expected: &[&str] = if scheme == "elo" {
            &[
                "rank",
                "player",
                "games",
                "wins",
                "draws",
                "losses",
                "score",
                "score_pct",
                "avg_opponent_elo",
                "performance",
            ]
        } else {
            &["avg_opponent_points", "points", "level"]
        };
        assert!(expected.iter().all(|name| rows[0].iter().any(|h| h == *name)), "{:?}", rows[0]);
    }
    let club = json_lines(&ratings(&["-q", "--scheme", "club", "--format", "jsonl", ROUND_ROBIN]).stdout);
    assert_eq!(club[0]["level"], "unranked");
    assert_eq!(club[0]["performance"], serde_json::Value::Null);
    assert_eq!(club[0]["points"], 11.92);
}

#[test]
fn the_output_is_the_same_for_every_thread_count() {
    for args in [&["--format", "csv"][..], &["--history", "--scheme", "club"]] {
        let mut one = vec!["ratings", "-q", "-j1", ROUND_ROBIN, "testdata/valid/famous-games.pgn"];
        one.extend_from_slice(args);
        let mut two = one.clone();
        two[2] = "-j2";
        assert_eq!(run(&one, None).stdout, run(&two, None).stdout);
    }
}

/// Three players who draw every game, listed in `order`.
fn all_draws(order: [&str; 3]) -> String {
    let [a, b, c] = order;
    [(a, b), (b, c), (c, a)]
        .iter()
        .map(|(w, b)| format!("[White \"{w}\"]\n[Black \"{b}\"]\n[Result \"1/2-1/2\"]\n\n1/2-1/2\n\n"))
        .collect()
}

#[test]
fn tied_players_share_a_rank_and_are_listed_by_name_whatever_the_input_order() {
    for scheme in ["elo", "club"] {
        let args = ["ratings", "-q", "--scheme", scheme, "--format", "csv", "-"];
        let first = run(&args, Some(all_draws(["Zed", "Amy", "Max"]).as_bytes())).stdout;
        let second = run(&args, Some(all_draws(["Max", "Zed", "Amy"]).as_bytes())).stdout;
        assert_eq!(first, second);
        let rows = csv_rows(&first);
        assert_eq!(column(&rows, "player"), ["Amy", "Max", "Zed"]);
        assert_eq!(column(&rows, "rank"), ["1", "1", "1"]);
    }
}

#[test]
fn min_games_lists_only_players_with_enough_games() {
    let pgn = "[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1-0\n\n\
               [White \"A\"]\n[Black \"C\"]\n[Result \"1-0\"]\n\n1-0\n\n";
    let out = run(&["ratings", "-q", "--min-games", "2", "--format", "csv", "-"], Some(pgn.as_bytes()));
    let rows = csv_rows(&out.stdout);
    assert_eq!(column(&rows, "player"), ["A"]);
    // B and C were rated all the same: A's rating counts their games.
    assert_eq!(column(&rows, "games"), ["2"]);
}

#[test]
fn aliases_merge_spellings_of_one_player() {
    let pgn = "[White \"Baker B.\"]\n[Black \"Alder\"]\n[Result \"1-0\"]\n\n1-0\n\n\
               [White \"Alder\"]\n[Black \"Baker, Bo\"]\n[Result \"1/2-1/2\"]\n\n1/2-1/2\n\n\
               [White \"  Baker, Bo \"]\n[Black \"alder\"]\n[Result \"0-1\"]\n\n0-1\n\n";
    let args = ["ratings", "-q", "--format", "csv", "--alias", "testdata/ratings/aliases.csv", "-"];
    let rows = csv_rows(&run(&args, Some(pgn.as_bytes())).stdout);
    // `alder` is another player: names are case-sensitive, and the file
    // does not list it.
    let players = column(&rows, "player");
    assert_eq!(players.len(), 3, "{players:?}");
    let baker = players.iter().position(|&p| p == "Baker, Bo").unwrap();
    assert_eq!(column(&rows, "games")[baker], "3");
    assert_eq!(column(&rows, "score")[baker], "1.5");
}

#[test]
fn a_broken_alias_file_is_a_usage_error() {
    let dir = Scratch::new("ratings-alias");
    let file = dir.join("aliases.csv");
    std::fs::write(&file, "a,b\na,c\n").unwrap();
    let out = ratings(&["--alias", file.to_str().unwrap(), ROUND_ROBIN]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("line 2: \"a\" is already an alias of \"b\""), "{}", out.stderr);
    assert_eq!(out.stdout, "");
    let missing = ratings(&["--alias", dir.join("none.csv").to_str().unwrap(), ROUND_ROBIN]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("cannot read"), "{}", missing.stderr);
}

/// A valid game and a game with an illegal move, both decisive.
const ONE_INVALID: &str = "[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Ke3 1-0\n\n\
                           [White \"B\"]\n[Black \"A\"]\n[Result \"1-0\"]\n\n1. d4 d5 1-0\n\n";

#[test]
fn invalid_games_are_rated_unless_valid_only_which_replays_and_fails_the_run() {
    let all = run(&["ratings", "--format", "csv", "-"], Some(ONE_INVALID.as_bytes()));
    assert_eq!(all.code, 0, "{}", all.stderr);
    assert_eq!(column(&csv_rows(&all.stdout), "games"), ["2", "2"]);
    assert_eq!(all.stderr, "pgnkit: rated 2 of 2 games in 1 input, 2 players\n");

    let valid = run(&["ratings", "--valid-only", "--format", "csv", "-"], Some(ONE_INVALID.as_bytes()));
    assert_eq!(valid.code, 1);
    let rows = csv_rows(&valid.stdout);
    assert_eq!(column(&rows, "player"), ["B", "A"]);
    assert_eq!(column(&rows, "games"), ["1", "1"]);
    assert!(valid.stderr.contains("<stdin>:5:13: error[illegal-move]"), "{}", valid.stderr);
    assert!(
        valid
            .stderr
            .ends_with("pgnkit: rated 1 of 2 games in 1 input, 2 players; not rated: 1 invalid; 1 error, 0 warnings\n"),
        "{}",
        valid.stderr
    );
}

#[test]
fn an_unreadable_input_exits_2_and_the_other_inputs_are_still_rated() {
    let out = ratings(&["--format", "csv", "testdata/ratings/no-such-file.pgn", ROUND_ROBIN]);
    assert_eq!(out.code, 2);
    assert_eq!(csv_rows(&out.stdout).len(), 5);
    assert!(out.stderr.contains("pgnkit: error: testdata/ratings/no-such-file.pgn"), "{}", out.stderr);
    assert!(out.stderr.contains("; 1 input could not be read"), "{}", out.stderr);
}

#[test]
fn elo_options_are_refused_with_another_scheme() {
    let out = ratings(&["--scheme", "club", "--period", "month", ROUND_ROBIN]);
    assert_eq!(out.code, 2);
    assert_eq!(out.stderr, "pgnkit: error: --period is for --scheme elo\n");
    assert_eq!(ratings(&["--scheme", "club", "--initial", "1200", ROUND_ROBIN]).code, 2);
}

#[test]
fn initial_sets_the_rating_of_players_who_start_without_a_tag() {
    let rows = csv_rows(&ratings(&["-q", "--initial", "1200", "--format", "csv", ROUND_ROBIN]).stdout);
    let before = column(&rows, "rating_before");
    let players = column(&rows, "player");
    for (player, before) in players.iter().zip(before) {
        let expected = match *player {
            "Alder, Ann" => "2450",
            "Baker, Bo" => "2100",
            _ => "1200",
        };
        assert_eq!(before, expected, "{player}");
    }
}

#[test]
fn no_games_print_only_the_header() {
    let out = run(&["ratings", "--format", "csv", "-"], Some(b""));
    assert_eq!(out.code, 0);
    assert_eq!(
        out.stdout,
        "rank,player,games,wins,draws,losses,score,score_pct,avg_opponent_elo,performance,rating_before,rating\n"
    );
    assert_eq!(out.stderr, "pgnkit: rated 0 of 0 games in 1 input, 0 players\n");
}

#[test]
fn a_corpus_file_is_rated_alike_with_one_thread_and_two() {
    let Some(corpus) = corpus() else { return };
    let file = corpus.join("bench/real_games_mix.pgn.gz");
    let path = file.to_str().unwrap();
    let one = run(&["ratings", "-j1", "--format", "csv", path], None);
    let two = run(&["ratings", "-j2", "--format", "csv", path], None);
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert_eq!(one.stdout, two.stdout);
    assert_eq!(one.stderr, two.stderr);
    // 3025 games (corpus/SOURCES.md), one of them without a player's name.
    assert!(one.stderr.starts_with("pgnkit: rated 3024 of 3025 games in 1 input"), "{}", one.stderr);
    let rows = csv_rows(&one.stdout);
    let games: u64 = column(&rows, "games").iter().map(|g| g.parse::<u64>().unwrap()).sum();
    assert_eq!(games, 2 * 3024);
}

#[test]
fn ml_standings_of_the_round_robin_follow_ordos_layout() {
    let out = ratings(&["--scheme", "ml", ROUND_ROBIN]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Baker and Carter both scored 3 of 6 and met the same opponents.
    assert_eq!(
        out.stdout,
        "   # PLAYER     :  RATING  ERROR  POINTS  PLAYED     (%)
   1 Alder, Ann :  2391.7      -     4.0       6   66.7%
   2 Baker, Bo  :  2300.0      -     3.0       6   50.0%
   2 Carter, Cy :  2300.0      -     3.0       6   50.0%
   4 Dunn, Di   :  2208.3      -     2.0       6   33.3%

White advantage = 0.00 (fixed)
Draw rate (equal opponents) = 50.00 % (fixed)
"
    );
    assert!(out.stderr.starts_with("pgnkit: rated 12 of 14 games in 1 input, 4 players"), "{}", out.stderr);
}

/// Two players, A scoring 3 of 4 (a draw counts half).
const THREE_OF_FOUR: &str = "[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1-0\n\n\
                             [White \"B\"]\n[Black \"A\"]\n[Result \"1/2-1/2\"]\n\n1/2-1/2\n\n\
                             [White \"A\"]\n[Black \"B\"]\n[Result \"1/2-1/2\"]\n\n1/2-1/2\n\n\
                             [White \"B\"]\n[Black \"A\"]\n[Result \"0-1\"]\n\n0-1\n\n";

#[test]
fn ml_puts_a_3_to_1_score_400_log10_3_points_apart_around_the_average() {
    let out = run(&["ratings", "-q", "--scheme", "ml", "--format", "csv", "-"], Some(THREE_OF_FOUR.as_bytes()));
    let rows = csv_rows(&out.stdout);
    // 400 × log10(3) = 190.85, half above and half below 2300.
    assert_eq!(column(&rows, "rating"), ["2395.4", "2204.6"]);
    assert_eq!(column(&rows, "error"), ["", ""]);
    let anchored = run(
        &["ratings", "-q", "--scheme", "ml", "--format", "jsonl", "--anchor", "B", "--anchor-rating", "1000", "-"],
        Some(THREE_OF_FOUR.as_bytes()),
    );
    let objects = json_lines(&anchored.stdout);
    assert_eq!(objects[0]["player"], "A");
    assert_eq!(objects[0]["rating"], 1190.8);
    assert_eq!(objects[1]["rating"], 1000.0);
    assert_eq!(objects[0]["avg_opponent_elo"], 1000.0);
    let averaged = run(
        &["ratings", "-q", "--scheme", "ml", "--format", "csv", "--average", "0", "-"],
        Some(THREE_OF_FOUR.as_bytes()),
    );
    assert_eq!(column(&csv_rows(&averaged.stdout), "rating"), ["95.4", "-95.4"]);
}

#[test]
fn ml_refuses_players_in_separate_pools_with_a_clear_error() {
    let pgn = format!("{THREE_OF_FOUR}[White \"C\"]\n[Black \"D\"]\n[Result \"1/2-1/2\"]\n\n1/2-1/2\n\n");
    let out = run(&["ratings", "--scheme", "ml", "-"], Some(pgn.as_bytes()));
    assert_eq!(out.code, 2);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr.contains(
            "pgnkit: error: the players fall into 2 pools that never met, so their ratings cannot be compared: \
             \"A\", \"B\" (2 players); \"C\", \"D\" (2 players); rate each pool apart, or add games between them"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn ml_refuses_a_perfect_score() {
    let pgn = "[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1-0\n\n";
    let out = run(&["ratings", "--scheme", "ml", "-"], Some(pgn.as_bytes()));
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("\"A\" scored 100% against every other player met"), "{}", out.stderr);
    assert!(out.stderr.contains("\"B\" scored 0% against every other player met"), "{}", out.stderr);
}

/// A chain of `players`: each wins with White against the next and draws
/// with Black, so each scores 1.5 of 2 against the next (every rating
/// finite, 400 log10(3) apart).
fn chain(players: usize) -> String {
    let mut pgn = String::new();
    for i in 0..players - 1 {
        let (a, b) = (format!("P{i}"), format!("P{}", i + 1));
        pgn.push_str(&format!("[White \"{a}\"]\n[Black \"{b}\"]\n[Result \"1-0\"]\n\n1-0\n\n"));
        pgn.push_str(&format!("[White \"{b}\"]\n[Black \"{a}\"]\n[Result \"1/2-1/2\"]\n\n1/2-1/2\n\n"));
    }
    pgn
}

#[test]
fn ml_rates_a_chain_of_20000_players_millions_of_points_end_to_end() {
    // Refused as "no finite maximum-likelihood ratings" once the ends were
    // a million points apart (they are 3.8 million apart).
    let out = run(&["ratings", "-q", "--scheme", "ml", "--format", "csv", "-"], Some(chain(20_000).as_bytes()));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rows = csv_rows(&out.stdout);
    let (players, ratings) = (column(&rows, "player"), column(&rows, "rating"));
    assert_eq!(players.len(), 20_000);
    // Listed best first: P0 at the top, each next one 190.85 below.
    let link = 400.0 * 3f64.log10();
    for (i, (player, rating)) in players.iter().zip(&ratings).enumerate() {
        assert_eq!(*player, format!("P{i}"));
        let expected = 2300.0 + link * (19_999.0 / 2.0 - i as f64);
        assert!((rating.parse::<f64>().unwrap() - expected).abs() <= 0.051, "P{i}: {rating} against {expected}");
    }
    // With White's advantage estimated there is no finite maximum (the
    // advantage and each player's lead grow together): said, not fitted.
    let auto = run(&["ratings", "--scheme", "ml", "--white-advantage", "auto", "-"], Some(chain(1000).as_bytes()));
    assert_eq!(auto.code, 2);
    assert_eq!(auto.stdout, "");
    assert!(auto.stderr.contains("the maximum-likelihood fit did not settle"), "{}", auto.stderr);
    assert!(auto.stderr.contains("give it with --white-advantage N"), "{}", auto.stderr);
}

#[test]
fn ml_error_bars_depend_on_the_seed_only_not_on_the_threads() {
    let args = |threads: &'static str, seed: &'static str| {
        ["ratings", threads, "--scheme", "ml", "--simulations", "300", "--seed", seed, "--format", "csv", ROUND_ROBIN]
    };
    let one = run(&args("-j1", "5"), None);
    let two = run(&args("-j2", "5"), None);
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert_eq!(one.stdout, two.stdout);
    assert_eq!(one.stderr, two.stderr);
    let other = run(&args("-j2", "6"), None);
    assert_ne!(other.stdout, one.stdout);
    let rows = csv_rows(&one.stdout);
    assert_eq!(column(&rows, "rating"), column(&csv_rows(&other.stdout), "rating"));
    for error in column(&rows, "error") {
        let error: f64 = error.parse().unwrap();
        // Six games each: a wide interval, but a finite one.
        assert!(error > 50.0 && error < 1000.0, "{error}");
    }
}

#[test]
fn ml_estimates_reported_in_the_text_and_the_summary_line() {
    let out = run(
        &[
            "ratings",
            "--scheme",
            "ml",
            "--white-advantage",
            "auto",
            "--draw-rate",
            "auto",
            "--simulations",
            "50",
            ROUND_ROBIN,
        ],
        None,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let tail: Vec<&str> = out.stdout.lines().rev().take(2).collect();
    assert!(tail[1].starts_with("White advantage = ") && tail[1].contains(" +/- "), "{}", out.stdout);
    assert!(tail[0].starts_with("Draw rate (equal opponents) = ") && tail[0].contains(" % +/- "), "{}", out.stdout);
    assert!(out.stderr.contains("; white advantage = "), "{}", out.stderr);
    assert!(out.stderr.contains("; draw rate (equal opponents) = "), "{}", out.stderr);
}

#[test]
fn options_of_one_scheme_are_refused_with_another() {
    for (args, message) in [
        (&["--scheme", "ml", "--history"][..], "--history is for --scheme elo or club"),
        (&["--simulations", "10"], "--simulations is for --scheme ml"),
        (&["--scheme", "club", "--white-advantage", "auto"], "--white-advantage is for --scheme ml"),
        (&["--scheme", "ml", "--period", "day"], "--period is for --scheme elo"),
    ] {
        let mut all = args.to_vec();
        all.push(ROUND_ROBIN);
        let out = ratings(&all);
        assert_eq!(out.code, 2, "{args:?}");
        assert_eq!(out.stderr, format!("pgnkit: error: {message}\n"));
    }
    let out = ratings(&["--scheme", "ml", "--draw-rate", "1.5", ROUND_ROBIN]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("the draw rate 1.5 is not between 0 and 1"), "{}", out.stderr);
    let unknown = ratings(&["--scheme", "ml", "--anchor", "Nobody", ROUND_ROBIN]);
    assert_eq!(unknown.code, 2);
    assert!(unknown.stderr.contains("the anchor \"Nobody\" has no rated game"), "{}", unknown.stderr);
}

#[test]
fn the_text_table_of_many_players_holds_the_csv_rows_aligned() {
    // A ring of 3,000 players (the text table was quadratic in players).
    let games: String = (0..3000)
        .map(|i| format!("[White \"P{i}\"]\n[Black \"P{}\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n", (i + 1) % 3000))
        .collect();
    let text = run(&["ratings", "-"], Some(games.as_bytes()));
    let csv = run(&["ratings", "--format", "csv", "-"], Some(games.as_bytes()));
    assert_eq!((text.code, csv.code), (0, 0));
    // Both with their header row first.
    let rows = csv_rows(&csv.stdout);
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert_eq!(lines.len(), 3001);
    assert_eq!(lines.len(), rows.len());
    for (line, row) in lines.iter().zip(&rows) {
        let cells: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(cells, row.iter().collect::<Vec<_>>());
        // Aligned: the last column is numbers, right-aligned, so every
        // line is as long as the header.
        assert_eq!(line.len(), lines[0].len(), "{line}");
    }
}

#[test]
fn the_text_table_escapes_control_characters_and_aligns_wide_names() {
    for args in [&["ratings", "-q"][..], &["ratings", "-q", "--scheme", "ml"]] {
        let mut all = args.to_vec();
        all.push("testdata/stats/wide-and-control-character-names.pgn");
        let out = crate::support::run(&all, None);
        assert!(out.code == 0 && !out.stdout.contains('\x1b'), "{args:?}: {}{}", out.stdout, out.stderr);
        let rows: Vec<&str> =
            out.stdout.lines().filter(|l| l.contains("王皓") || l.contains("Carlsen") || l.contains("red")).collect();
        assert_eq!(rows.len(), 3, "{args:?}: {}", out.stdout);
        let columns: Vec<usize> = rows
            .iter()
            .zip(["王皓", "A\\u{1b}[31mred", "Carlsen, Magnus"])
            .map(|(line, name)| crate::stats::next_column(line, name))
            .collect();
        assert!(columns.windows(2).all(|w| w[0] == w[1]), "{args:?}: {columns:?}\n{}", out.stdout);
    }
}

/// The standings and the history written row by row as they are made,
/// byte for byte as pgnkit wrote them when it held every row first.
#[test]
fn standings_and_history_are_byte_for_byte_those_of_every_row_held() {
    let names = "testdata/stats/wide-and-control-character-names.pgn";
    assert_eq!(
        ratings(&["-q", "--scheme", "club", names]).stdout,
        r#"rank  player           games  wins  draws  losses  score  score_pct  avg_opponent_points  points  level
   1  王皓                 4     2      2       0    3.0      75.00                -4.80    6.64  unranked
   2  A\u{1b}[31mred       3     0      2       1    1.0      33.33                 6.40   -3.10  unranked
   3  Carlsen, Magnus      3     0      2       1    1.0      33.33                 3.33   -3.54  unranked
"#
    );
    assert_eq!(
        ratings(&["-q", "--scheme", "ml", names]).stdout,
        r#"   # PLAYER          :  RATING  ERROR  POINTS  PLAYED     (%)
   1 王皓            :  2427.2      -     3.0       4   75.0%
   2 A\u{1b}[31mred  :  2236.4      -     1.0       3   33.3%
   2 Carlsen, Magnus :  2236.4      -     1.0       3   33.3%

White advantage = 0.00 (fixed)
Draw rate (equal opponents) = 50.00 % (fixed)
"#
    );
    assert_eq!(
        ratings(&["-q", names]).stdout,
        r#"rank  player           games  wins  draws  losses  score  score_pct  avg_opponent_elo  performance  rating_before  rating
   1  王皓                 4     2      2       0    3.0      75.00           1490.25      1690.25           1500    1533
   2  A\u{1b}[31mred       3     0      2       1    1.0      33.33           1513.00      1379.67           1500    1484
   3  Carlsen, Magnus      3     0      2       1    1.0      33.33           1506.67      1373.33           1500    1483
"#
    );
    assert_eq!(
        ratings(&["-q", "--history", names]).stdout,
        r#"file                                                 game  date        white            black            result   white_before  black_before  white_expected  white_k  black_k  white_after  black_after
testdata/stats/wide-and-control-character-names.pgn     1  ????.??.??  王皓             Carlsen, Magnus  1-0              1500          1500          0.5000       40       40         1520         1480
testdata/stats/wide-and-control-character-names.pgn     2  ????.??.??  A\u{1b}[31mred   王皓             0-1              1500          1520          0.4712       40       40         1481         1539
testdata/stats/wide-and-control-character-names.pgn     3  ????.??.??  Carlsen, Magnus  王皓             1/2-1/2          1480          1539          0.4159       40       40         1483         1536
testdata/stats/wide-and-control-character-names.pgn     4  ????.??.??  A\u{1b}[31mred   Carlsen, Magnus  1/2-1/2          1481          1483          0.4971       40       40         1481         1483
testdata/stats/wide-and-control-character-names.pgn     5  ????.??.??  A\u{1b}[31mred   王皓             1/2-1/2          1481          1536          0.4215       40       40         1484         1533
"#
    );
}
