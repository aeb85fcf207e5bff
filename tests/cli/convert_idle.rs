//! `convert` refuses an option that would do nothing with the `--to`
//! chosen, naming both, before any input is read.

use crate::support::run;

const GAMES: &str = "testdata/valid/famous-games.pgn";

/// Every format `--to` takes (Parquet refused the same way with or
/// without the feature: the options are checked first).
const FORMATS: [&str; 9] = ["pgn", "san", "uci", "lan", "fen", "epd", "jsonl", "csv", "parquet"];

/// Each option with a value that would act, and the formats it acts on.
const OPTIONS: [(&[&str], &[&str]); 10] = [
    (&["--no-comments"], &["pgn"]),
    (&["--no-variations"], &["pgn"]),
    (&["--no-nags"], &["pgn"]),
    (&["--no-clock"], &["pgn"]),
    (&["--keep-tags", "White"], &["pgn"]),
    (&["--epd-tags"], &["epd"]),
    (&["--columns", "White,Date"], &["csv"]),
    (&["--openings", "builtin"], &["pgn"]),
    (&["--openings", "builtin", "--columns", "White,opening_eco"], &["csv"]),
    (&["--openings", "testdata/stats/openings.tsv", "--columns", "opening_name"], &["csv"]),
];

#[test]
fn every_option_that_does_nothing_with_the_format_is_refused_naming_both() {
    for (option, acts_on) in OPTIONS {
        for to in FORMATS {
            let mut args = vec!["convert", "--to", to];
            args.extend_from_slice(option);
            // An input that cannot be read: a refusal comes before it.
            args.push("testdata/no-such-file.pgn");
            let out = run(&args, None);
            assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
            let refused = out.stderr.contains("does nothing with --to");
            if acts_on.contains(&to) {
                assert!(!refused, "{args:?} acts: {}", out.stderr);
            } else {
                // The first of the row's options that does nothing here.
                let named = option
                    .iter()
                    .filter(|word| word.starts_with("--"))
                    .any(|name| out.stderr.starts_with(&format!("pgnkit: error: {name} does nothing with --to {to}")));
                assert!(named, "{args:?}: {}", out.stderr);
                assert!(!out.stderr.contains("no-such-file"), "refused before reading: {}", out.stderr);
            }
        }
    }
}

#[test]
fn openings_with_csv_is_refused_unless_a_column_names_openings() {
    let out = run(&["convert", "--to", "csv", "--openings", "builtin", GAMES], None);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr,
        "pgnkit: error: --openings does nothing with --to csv unless --columns has opening_eco or opening_name, \
         which it fills\n"
    );
}

#[test]
fn options_for_the_format_chosen_still_work() {
    let pgn = run(&["convert", "-q", "--to", "pgn", "--keep-tags", "ECO", "--no-comments", GAMES], None);
    assert_eq!(pgn.code, 0, "{}", pgn.stderr);
    let csv =
        run(&["convert", "-q", "--to", "csv", "--columns", "White,opening_eco", "--openings", "builtin", GAMES], None);
    assert_eq!(csv.code, 0, "{}", csv.stderr);
    assert!(csv.stdout.starts_with("White,opening_eco\n"), "{}", csv.stdout);
}
