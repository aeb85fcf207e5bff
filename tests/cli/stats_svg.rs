//! The SVG report of `pgnkit stats`, drawn from the statistics read back
//! from the binary's JSON: it matches the golden file reviewed by eye.

use crate::support::{root, run};

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
    let dir = std::env::temp_dir().join(format!("pgnkit-stats-svg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
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
    std::fs::remove_dir_all(&dir).unwrap();
}
