//! `--aliases FILE` on every command that reads players' names: one
//! fixture holding several spellings of one player (`Magnus Carlsen`,
//! ` Carlsen M `, `Carlsen M` for `Carlsen, Magnus`, and `carlsen,
//! magnus`, which the file does not list) and its aliases file.

use crate::support::{Scratch, run};

const GAMES: &str = "testdata/aliases/player-spellings.pgn";
const ALIASES: &str = "testdata/aliases/player-spellings.csv";

/// The rows of CSV text, the header first.
fn csv_rows(text: &str) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).from_reader(text.as_bytes());
    reader.records().map(|r| r.expect("a CSV row").iter().map(str::to_owned).collect()).collect()
}

/// The values of column `name` (header first).
fn column(rows: &[Vec<String>], name: &str) -> Vec<String> {
    let at = rows[0].iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name} in {:?}", rows[0]));
    rows[1..].iter().map(|r| r[at].clone()).collect()
}

/// The White tags of the games of PGN text, in order.
fn whites(pgn: &str) -> Vec<&str> {
    pgn.lines().filter_map(|l| l.strip_prefix("[White \"")?.strip_suffix("\"]")).collect()
}

#[test]
fn stats_by_player_counts_every_spelling_for_its_name_and_lists_the_aliases_it_merged() {
    let out = run(&["stats", "-q", "--by", "player", "--format", "csv", "--aliases", ALIASES, GAMES], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rows = csv_rows(&out.stdout);
    assert_eq!(rows[0][..3], ["player", "player_aliases", "games"]);
    let players = column(&rows, "player");
    assert_eq!(players, ["Carlsen, Magnus", "Nakamura, Hikaru", "Caruana, Fabiano", "carlsen, magnus"]);
    assert_eq!(column(&rows, "player_aliases"), ["Carlsen M|Magnus Carlsen", "Hikaru", "", ""]);
    assert_eq!(column(&rows, "games"), ["4", "4", "1", "1"]);
    assert_eq!(column(&rows, "wins"), ["2", "1", "0", "0"]);
    assert_eq!(column(&rows, "losses"), ["1", "1", "1", "0"]);
}

#[test]
fn stats_without_aliases_keeps_every_spelling_apart_and_has_no_aliases_column() {
    let out = run(&["stats", "-q", "--by", "player", "--format", "csv", GAMES], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rows = csv_rows(&out.stdout);
    assert!(!rows[0].iter().any(|h| h.ends_with("_aliases")), "{:?}", rows[0]);
    assert_eq!(rows.len() - 1, 7, "{}", out.stdout);
}

#[test]
fn a_stats_partial_keeps_the_aliases_merged_so_that_merging_partials_lists_them_too() {
    let dir = Scratch::new("aliases-stats-merge");
    let partial = dir.join("part.json");
    let out = run(&["stats", "-q", "--by", "white", "--format", "json", "--aliases", ALIASES, GAMES], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    std::fs::write(&partial, &out.stdout).unwrap();
    let merged =
        run(&["stats", "merge", "--format", "csv", partial.to_str().unwrap(), partial.to_str().unwrap()], None);
    assert_eq!(merged.code, 0, "{}", merged.stderr);
    let rows = csv_rows(&merged.stdout);
    let at = column(&rows, "white").iter().position(|w| w == "Carlsen, Magnus").expect("a row of Carlsen");
    assert_eq!(column(&rows, "white_aliases")[at], "Carlsen M");
    assert_eq!(column(&rows, "games")[at], "4", "two games in each partial");
}

#[test]
fn stats_refuses_aliases_without_a_key_of_players() {
    let out = run(&["stats", "--by", "event", "--aliases", ALIASES, GAMES], None);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--aliases") && out.stderr.contains("--by white, black or player"), "{}", out.stderr);
    assert_eq!(out.stdout, "");
}

#[test]
fn filter_compares_names_given_and_names_in_the_games_through_the_aliases() {
    let player = |args: &[&str]| {
        let mut all = vec!["filter", "-q"];
        all.extend_from_slice(args);
        all.push(GAMES);
        let out = run(&all, None);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout.matches("[Event ").count()
    };
    assert_eq!(player(&["--player", "Magnus Carlsen"]), 1, "as written, without aliases");
    assert_eq!(player(&["--player", "Magnus Carlsen", "--aliases", ALIASES]), 4);
    assert_eq!(player(&["--player", "Carlsen", "--aliases", ALIASES]), 4, "a prefix of the name");
    assert_eq!(player(&["--white", "Carlsen, Magnus", "--aliases", ALIASES]), 2);
    assert_eq!(player(&["--winner", "Carlsen M", "--aliases", ALIASES]), 2);
    assert_eq!(player(&["--loser", "Hikaru", "--aliases", ALIASES]), 1);
    let refused = run(&["filter", "--event", "Open", "--aliases", ALIASES, GAMES], None);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("--aliases reads the names of players"), "{}", refused.stderr);
}

#[test]
fn split_by_player_writes_each_players_games_to_the_file_of_their_name() {
    let dir = Scratch::new("aliases-split");
    let out_dir = dir.join("out");
    let out = run(
        &["split", "-q", "--by", "player", "--aliases", ALIASES, "--out-dir", out_dir.to_str().unwrap(), GAMES],
        None,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let games = |name: &str| std::fs::read_to_string(out_dir.join(name)).unwrap().matches("[Event ").count();
    let mut names: Vec<String> =
        std::fs::read_dir(&out_dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["Carlsen_Magnus.pgn", "Caruana_Fabiano.pgn", "Nakamura_Hikaru.pgn", "carlsen_magnus-2.pgn"]);
    assert_eq!((games("Carlsen_Magnus.pgn"), games("Nakamura_Hikaru.pgn")), (4, 4));
    let refused =
        run(&["split", "--by", "event", "--aliases", ALIASES, "--out-dir", out_dir.to_str().unwrap(), GAMES], None);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
}

#[test]
fn ratings_takes_aliases_and_its_earlier_name_alias_alike() {
    let rate = |option: &str| run(&["ratings", "-q", "--format", "csv", option, ALIASES, GAMES], None);
    let (new, old) = (rate("--aliases"), rate("--alias"));
    assert_eq!(new.code, 0, "{}", new.stderr);
    assert_eq!(new.stdout, old.stdout);
    let rows = csv_rows(&new.stdout);
    let players = column(&rows, "player");
    assert_eq!(players.len(), 3, "{players:?}");
    let carlsen = players.iter().position(|p| p == "Carlsen, Magnus").unwrap();
    assert_eq!(column(&rows, "games")[carlsen], "4");
}

#[test]
fn convert_to_csv_writes_the_white_and_black_columns_as_the_names_and_leaves_the_rest() {
    let columns = ["convert", "-q", "--to", "csv", "--columns", "game,White,Black,Event", GAMES];
    let plain = run(&columns, None);
    let mut with = columns.to_vec();
    with.extend(["--aliases", ALIASES]);
    let named = run(&with, None);
    assert_eq!(named.code, 0, "{}", named.stderr);
    let (plain, named) = (csv_rows(&plain.stdout), csv_rows(&named.stdout));
    assert_eq!(column(&plain, "White")[2], " Carlsen M ");
    assert_eq!(
        column(&named, "White"),
        ["Carlsen, Magnus", "Nakamura, Hikaru", "Carlsen, Magnus", "Nakamura, Hikaru", "Caruana, Fabiano"]
    );
    assert_eq!(
        column(&named, "Black"),
        ["Nakamura, Hikaru", "Carlsen, Magnus", "Nakamura, Hikaru", "carlsen, magnus", "Carlsen, Magnus"]
    );
    assert_eq!(column(&named, "Event"), column(&plain, "Event"));
    let refused = run(&["convert", "--to", "pgn", "--aliases", ALIASES, GAMES], None);
    assert_eq!(refused.code, 2);
    assert!(refused.stderr.contains("--aliases") && refused.stderr.contains("--to pgn"), "{}", refused.stderr);
}

#[test]
fn fix_sets_aliased_names_reports_each_as_a_repair_and_a_second_fix_changes_nothing() {
    let out = run(&["fix", "--aliases", ALIASES, GAMES], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        whites(&out.stdout),
        ["Carlsen, Magnus", "Nakamura, Hikaru", "Carlsen, Magnus", "Nakamura, Hikaru", "Caruana, Fabiano"]
    );
    assert!(out.stdout.contains("[Black \"carlsen, magnus\"]"), "not an alias: {}", out.stdout);
    let repairs: Vec<&str> = out.stderr.lines().filter(|l| l.contains("fixed[set-player-name]")).collect();
    assert_eq!(repairs.len(), 5, "{}", out.stderr);
    assert!(
        repairs[1].starts_with(&format!(
            "{GAMES}:25:1: fixed[set-player-name]: [White \" Carlsen M \"] set to \"Carlsen, Magnus\""
        )),
        "{}",
        repairs[1]
    );
    assert!(out.stderr.contains("fixed 4 games in 1 input, 1 unchanged"), "{}", out.stderr);
    let again = run(&["fix", "--check", "--aliases", ALIASES, "-"], Some(out.stdout.as_bytes()));
    assert_eq!(again.code, 0, "{}", again.stderr);
    let without = run(&["fix", "--check", GAMES], None);
    assert_eq!(without.code, 0, "without --aliases nothing is to repair: {}", without.stderr);
}

#[test]
fn an_aliases_file_that_cannot_be_read_or_is_inconsistent_is_refused_by_every_command() {
    let dir = Scratch::new("aliases-broken");
    let broken = dir.join("broken.csv");
    std::fs::write(&broken, "a,b\nb,c\n").unwrap();
    let missing = dir.join("none.csv");
    for file in [&broken, &missing] {
        let file = file.to_str().unwrap();
        for args in [
            vec!["stats", "--by", "player", "--aliases", file, GAMES],
            vec!["filter", "--player", "a", "--aliases", file, GAMES],
            vec!["convert", "--to", "csv", "--aliases", file, GAMES],
            vec!["fix", "--aliases", file, GAMES],
            vec!["ratings", "--aliases", file, GAMES],
        ] {
            let out = run(&args, None);
            assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
            assert!(out.stderr.contains(file), "{args:?}: {}", out.stderr);
            assert_eq!(out.stdout, "", "{args:?}");
        }
    }
}

#[test]
fn an_output_that_is_the_aliases_file_is_refused_and_the_file_kept() {
    let dir = Scratch::new("aliases-output");
    let file = dir.join("aliases.csv");
    std::fs::copy(ALIASES, &file).unwrap();
    let file = file.to_str().unwrap();
    for args in [
        vec!["convert", "--to", "csv", "--aliases", file, "-o", file, GAMES],
        vec!["filter", "--player", "Hikaru", "--aliases", file, "--rejects", file, GAMES],
        vec!["stats", "--by", "player", "--aliases", file, "--svg", file, GAMES],
    ] {
        let out = run(&args, None);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains("is an input"), "{args:?}: {}", out.stderr);
    }
    assert_eq!(std::fs::read(file).unwrap(), std::fs::read(ALIASES).unwrap());
}
