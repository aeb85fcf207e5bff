//! Reads the JSON of `pgnkit stats --format json` on stdin and writes its
//! SVG report on stdout: regenerates `testdata/stats/famous-games-summary.svg`
//! and draws any saved or merged partial.
//!
//! `pgnkit stats --format json FILE | cargo run -q --example stats_svg > report.svg`

use std::io::{self, Read, Write};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut input = String::new();
    io::stdin().read_to_string(&mut input)?;
    let stats: serde_json::Value = serde_json::from_str(&input)?;
    io::stdout().write_all(pgnkit::stats_svg::summary_svg(&stats).as_bytes())?;
    Ok(())
}
