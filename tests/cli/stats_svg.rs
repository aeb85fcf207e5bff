//! The SVG report of `pgnkit stats`, drawn from the binary's JSON: it
//! matches the golden file reviewed by eye.

use crate::support::{root, run};

#[test]
fn the_summary_svg_of_the_fixture_games_matches_the_reviewed_golden_file() {
    let out = run(&["stats", "-q", "--format", "json", "testdata/valid/famous-games.pgn"], None);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    let json: serde_json::Value = serde_json::from_str(&out.stdout).expect("one JSON object");
    let svg = pgnkit::stats_svg::summary_svg(&json);
    let golden = std::fs::read_to_string(root().join("testdata/stats/famous-games-summary.svg")).expect("golden SVG");
    assert!(svg == golden, "the SVG differs from testdata/stats/famous-games-summary.svg:\n{svg}");
}
