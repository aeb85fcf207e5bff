//! The SVG report of `pgnkit stats`, drawn from the statistics read back
//! from the binary's JSON: it matches the golden file reviewed by eye.

use crate::support::{Scratch, root, run};

#[test]
fn the_summary_svg_of_the_fixture_games_matches_the_reviewed_golden_file() {
    let out = run(&["stats", "-q", "--format", "json", "testdata/valid/famous-games.pgn"], None);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    let json: serde_json::Value = serde_json::from_str(&out.stdout).expect("one JSON object");
    let stats = pgnkit::stats::Stats::from_json(&json).expect("a stats partial");
    let svg = pgnkit::stats::svg::summary_svg(&stats);
    let golden = std::fs::read_to_string(root().join("testdata/stats/famous-games-summary.svg")).expect("golden SVG");
    assert!(svg == golden, "the SVG differs from testdata/stats/famous-games-summary.svg:\n{svg}");
}

#[test]
fn stats_svg_and_stats_merge_svg_write_the_golden_report() {
    let dir = Scratch::new("stats-svg");
    let golden = std::fs::read_to_string(root().join("testdata/stats/famous-games-summary.svg")).unwrap();
    let direct = dir.join("direct.svg");
    let out = run(&["stats", "-q", "--svg", direct.to_str().unwrap(), "testdata/valid/famous-games.pgn"], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(std::fs::read_to_string(&direct).unwrap() == golden);
    let partial = run(&["stats", "-q", "--format", "json", "testdata/valid/famous-games.pgn"], None).stdout;
    let merged = dir.join("merged.svg");
    let out = run(&["stats", "merge", "--svg", merged.to_str().unwrap(), "-"], Some(partial.as_bytes()));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(std::fs::read_to_string(&merged).unwrap() == golden);
}

#[test]
fn svg_dash_writes_the_report_to_stdout_in_place_of_the_tables() {
    let golden = std::fs::read_to_string(root().join("testdata/stats/famous-games-summary.svg")).unwrap();
    let out = run(&["stats", "-q", "--svg", "-", "testdata/valid/famous-games.pgn"], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout == golden, "{}", out.stdout);
    assert!(!std::path::Path::new(&root().join("-")).exists(), "no file named `-`");
    let partial = run(&["stats", "-q", "--format", "json", "testdata/valid/famous-games.pgn"], None).stdout;
    let out = run(&["stats", "merge", "--svg", "-", "-"], Some(partial.as_bytes()));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout == golden, "{}", out.stdout);
}

#[test]
fn the_svg_of_merged_partials_equals_the_svg_of_one_run_over_the_same_games() {
    let dir = Scratch::new("stats-svg-merge");
    let files = [
        "testdata/valid/famous-games.pgn",
        "testdata/valid/chess960.pgn",
        "testdata/valid/perpetual-check.pgn",
        "testdata/valid/threefold-repetition.pgn",
    ];
    let whole = dir.join("whole.svg");
    let mut args = vec!["stats", "-q", "--svg", whole.to_str().unwrap()];
    args.extend(files);
    assert_eq!(run(&args, None).code, 0);
    let mut partials = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let partial = dir.join(format!("{i}.json"));
        std::fs::write(&partial, run(&["stats", "-q", "--format", "json", file], None).stdout).unwrap();
        partials.push(partial.to_str().unwrap().to_owned());
    }
    let merged = dir.join("merged.svg");
    let mut args = vec!["stats", "merge", "--svg", merged.to_str().unwrap()];
    args.extend(partials.iter().map(String::as_str));
    let out = run(&args, None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let (whole, merged) = (std::fs::read_to_string(&whole).unwrap(), std::fs::read_to_string(&merged).unwrap());
    assert!(whole.contains("percentiles in plies"), "a report with every section: {whole}");
    assert!(merged == whole, "the merged SVG differs from the whole:\n{merged}\n\n{whole}");
}
