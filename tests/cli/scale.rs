//! pgnkit as a mapper beyond one machine: `scripts/spark_stats.py` (Spark in
//! local mode) and `scripts/duckdb_query.py` (DuckDB over the Parquet files
//! of several shards) on about 5,000 games of the shared corpus, checked
//! against single pgnkit runs.
//!
//! They need Python packages: the interpreter is `$PGNKIT_SCALE_PYTHON`
//! (`.ci/run` makes a venv with pyspark and duckdb under target/) or
//! `python3`. Each test says why it skips when the corpus, a package or Java
//! is missing.

use std::{
    path::Path,
    process::{Command, Output},
};

use crate::support::{Scratch, corpus, json_lines, pgnkit, root};

/// The sample: lichess games (time controls, openings), TWIC and engine
/// games (a gzip file), a Latin-1 file, and files with illegal moves, bad
/// SAN, bad tags and wrong results, so the findings table is not empty.
/// Every game in them ends with a termination marker, the condition under
/// which shard files frame games as the single run does (spark_stats.py).
const SAMPLE: &[&str] = &[
    "bench/real_games_mix.pgn.gz",
    "pgn/shakmaty/lichess_db_1000k.pgn",
    "pgn/shakmaty/twic1599_1000k.pgn",
    "pgn/pychess/dortmund.pgn",
    "bad/kokopu/semantic-error.pgn",
    "bad/pychess/badpgn.pgn",
    "bad/pychess/lichess_study_lichess-practice-the-fork_by_arex_2017.01.29.pgn",
    "bad/pgn-extract/nested-comment.pgn",
    "bad/pgn-extract/test-nobadresults.pgn",
    "bad/kokopu/linebreak-linux.pgn",
];

/// The interpreter, when it can import every module named.
fn python_with(modules: &[&str]) -> Option<String> {
    let python = std::env::var("PGNKIT_SCALE_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let imports = modules.iter().map(|m| format!("import {m}")).collect::<Vec<_>>().join("; ");
    let ok = Command::new(&python).args(["-c", &imports]).output().is_ok_and(|out| out.status.success());
    if !ok {
        crate::support::skip(&format!(
            "{python} cannot import {} (pip install {}; .ci/run makes a venv with them and sets PGNKIT_SCALE_PYTHON)",
            modules.join(", "),
            modules.join(" ")
        ));
    }
    ok.then_some(python)
}

/// `pgnkit ARGS... SAMPLE...` in the corpus folder: (exit code, stdout).
fn pgnkit_on_sample(corpus: &Path, args: &[&str]) -> (i32, String) {
    let out = pgnkit().current_dir(corpus).args(args).args(SAMPLE).output().expect("the binary runs");
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).expect("UTF-8 output"))
}

/// `PYTHON scripts/NAME ARGS... SAMPLE...` in the corpus folder.
fn script(python: &str, corpus: &Path, name: &str, args: &[&str]) -> Output {
    Command::new(python)
        .current_dir(corpus)
        .arg(root().join("scripts").join(name))
        .args(["--pgnkit", env!("CARGO_BIN_EXE_pgnkit")])
        .args(args)
        .args(SAMPLE)
        .output()
        .expect("python runs")
}

#[test]
fn spark_merged_stats_are_the_single_run_and_its_findings_keep_their_original_file_and_game() {
    let Some(corpus) = corpus() else { return };
    let Some(python) = python_with(&["pyspark"]) else { return };
    if !Command::new("java").arg("-version").output().is_ok_and(|out| out.status.success()) {
        crate::support::skip("no java on PATH (Spark needs Java 17)");
        return;
    }
    let scratch = Scratch::new("spark");
    let diagnostics = scratch.join("diagnostics.parquet");
    let work = scratch.join("work");
    let args = [
        "--shards",
        "4",
        "--by",
        "time-control",
        "--diagnostics",
        diagnostics.to_str().unwrap(),
        "--work",
        work.to_str().unwrap(),
    ];
    let out = script(&python, &corpus, "spark_stats.py", &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 stdout");
    let last = stdout.lines().last().expect("a merged JSON line");

    let (code, single) = pgnkit_on_sample(&corpus, &["stats", "-q", "--format", "json", "--by", "time-control"]);
    assert_eq!(code, 1, "the sample has invalid games");
    assert_eq!(format!("{last}\n"), single, "Spark's merged partials are the single run, byte for byte");
    let games = serde_json::from_str::<serde_json::Value>(&single).unwrap()["games"].as_u64().unwrap();
    assert!(games > 4000, "{games} games");
    assert!(std::fs::read_dir(work.join("shards")).unwrap().count() == 4, "split made the 4 shards");

    // The findings Spark wrote, against validate's: same file, game, code, place.
    let Some(python) = python_with(&["duckdb"]) else { return };
    let query = format!(
        "import duckdb, json; print(json.dumps(duckdb.connect().execute(\"SELECT file, game, code, line, \\\"column\\\", \
         severity FROM read_parquet('{}/*.parquet') ORDER BY ALL\").fetchall()))",
        diagnostics.display()
    );
    let read = Command::new(python).args(["-c", &query]).output().expect("python runs");
    assert!(read.status.success(), "{}", String::from_utf8_lossy(&read.stderr));
    let written: Vec<(String, u64, String, u64, u64, String)> = serde_json::from_slice(&read.stdout).unwrap();
    let (_, jsonl) = pgnkit_on_sample(&corpus, &["validate", "-q", "--format", "jsonl", "--with-findings"]);
    let mut expected = Vec::new();
    for game in json_lines(&jsonl) {
        for d in game["diagnostics"].as_array().unwrap() {
            expected.push((
                game["file"].as_str().unwrap().to_owned(),
                game["game"].as_u64().unwrap(),
                d["code"].as_str().unwrap().to_owned(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
                d["severity"].as_str().unwrap().to_owned(),
            ));
        }
    }
    expected.sort();
    assert!(expected.len() > 100 && expected.iter().any(|d| d.2 == "illegal-move"), "{expected:?}");
    assert_eq!(written, expected);
}

#[cfg(feature = "parquet")]
#[test]
fn duckdb_counts_over_four_shard_files_are_pgnkit_stats_counts() {
    use std::collections::BTreeMap;

    let Some(corpus) = corpus() else { return };
    let Some(python) = python_with(&["duckdb"]) else { return };
    let scratch = Scratch::new("duckdb");
    let work = scratch.to_str().unwrap();
    let out = script(&python, &corpus, "duckdb_query.py", &["--shards", "4", "--work", work, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(report["parquet_files"], 4);

    let stats = |by: &str| -> serde_json::Value {
        // DuckDB groups by the Opening tag: so does `--openings tags`.
        let args = ["stats", "-q", "--format", "json", "--by", by, "--openings", "tags"];
        let (_, json) = pgnkit_on_sample(&corpus, &args);
        serde_json::from_str(&json).unwrap()
    };
    // pgnkit's group rows as key -> [the columns named].
    let groups = |stats: &serde_json::Value, columns: &[&str]| -> BTreeMap<String, Vec<u64>> {
        let rows = stats["groups"]["rows"].as_array().unwrap();
        let row = |r: &serde_json::Value| columns.iter().map(|c| r[*c].as_u64().unwrap()).collect();
        rows.iter().map(|r| (r["key"][0].as_str().unwrap().to_owned(), row(r))).collect()
    };
    // DuckDB's rows as key -> [the columns named].
    let table = |name: &str, key: &str, columns: &[&str]| -> BTreeMap<String, Vec<u64>> {
        let rows = report[name].as_array().unwrap();
        let row = |r: &serde_json::Value| columns.iter().map(|c| r[*c].as_u64().unwrap()).collect();
        rows.iter().map(|r| (r[key].as_str().unwrap().to_owned(), row(r))).collect()
    };

    let by_speed = stats("time-control");
    assert_eq!(report["games"], by_speed["games"]);
    assert!(report["games"].as_u64().unwrap() > 4000);
    let speeds = table("length_by_time_control", "speed", &["games", "plies"]);
    assert_eq!(speeds, groups(&by_speed, &["games", "plies"]));
    assert!(speeds.len() >= 5, "{speeds:?}");

    let by_opening = stats("opening");
    let openings = table("results_by_opening", "opening", &["games", "white_wins", "draws", "black_wins"]);
    assert_eq!(openings, groups(&by_opening, &["games", "wins", "draws", "losses"]));
    assert!(openings.len() > 100, "{} openings", openings.len());

    // Every finding joins its game, and they add up to stats' findings by code.
    assert_eq!(report["unmatched_findings"], 0);
    let mut by_code: BTreeMap<String, u64> = BTreeMap::new();
    for row in report["findings_by_file"].as_array().unwrap() {
        *by_code.entry(row["code"].as_str().unwrap().to_owned()).or_default() += row["findings"].as_u64().unwrap();
    }
    let expected: BTreeMap<String, u64> = serde_json::from_value(by_speed["diagnostics"].clone()).unwrap();
    assert_eq!(by_code, expected);
    assert_eq!(report["findings"].as_u64().unwrap(), expected.values().sum::<u64>());
}

/// Ratings, dates and clocks written as numbers and dates, and empty or
/// null where the tag is none.
const RATINGS_DATES_CLOCKS: &str = "testdata/convert/ratings-dates-and-clocks.pgn";

/// Runs `script` with the file names after it; its stdout as JSON.
fn python_json(python: &str, script: &str, files: &[&Path]) -> serde_json::Value {
    let out = Command::new(python).arg("-c").arg(script).args(files).output().expect("python runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn duckdb_and_pandas_load_the_elo_columns_of_convert_csv_as_numbers() {
    let Some(python) = python_with(&["duckdb", "pandas"]) else { return };
    let dir = Scratch::new("data-tools-csv");
    let csv = dir.join("games.csv");
    let out =
        pgnkit().args(["convert", "-q", "--to", "csv", "-o", csv.to_str().unwrap(), RATINGS_DATES_CLOCKS]).output();
    assert!(out.expect("the binary runs").status.success());
    let script = "import duckdb, pandas, json, sys
rel = duckdb.connect().read_csv(sys.argv[1])
types = dict(zip(rel.columns, map(str, rel.dtypes)))
rows = duckdb.connect().execute(f\"SELECT WhiteElo, BlackElo FROM read_csv('{sys.argv[1]}') ORDER BY game\").fetchall()
frame = pandas.read_csv(sys.argv[1])
print(json.dumps({'duckdb': [types['WhiteElo'], types['BlackElo']], 'rows': rows,
    'pandas': [frame[c].dtype.kind for c in ['WhiteElo', 'BlackElo']], 'sum': float(frame['WhiteElo'].sum())}))";
    let loaded = python_json(&python, script, &[&csv]);
    assert_eq!(loaded["duckdb"], serde_json::json!(["BIGINT", "BIGINT"]), "{loaded}");
    assert_eq!(loaded["rows"], serde_json::json!([[2785, 2560], [null, null], [null, null]]));
    assert_eq!(loaded["pandas"], serde_json::json!(["f", "f"]), "numbers (NaN where empty): {loaded}");
    assert_eq!(loaded["sum"], 2785.0);
}

#[cfg(feature = "parquet")]
#[test]
fn duckdb_and_pandas_load_the_ratings_dates_and_clocks_of_convert_parquet_as_numbers_and_dates() {
    let Some(python) = python_with(&["duckdb", "pandas", "pyarrow"]) else { return };
    let dir = Scratch::new("data-tools-parquet");
    let file = dir.join("games.parquet");
    let args = ["convert", "-q", "--to", "parquet", "-o", file.to_str().unwrap(), RATINGS_DATES_CLOCKS];
    assert!(pgnkit().args(args).output().expect("the binary runs").status.success());
    let columns = "WhiteElo, BlackElo, Date, date_text, Round, EventDate, base_seconds, increment_seconds";
    let script = format!(
        "import duckdb, pandas, json, sys
rel = duckdb.connect().sql(f\"SELECT {columns} FROM read_parquet('{{sys.argv[1]}}') ORDER BY game\")
rows = [[v if v is None or isinstance(v, (int, str)) else str(v) for v in row] for row in rel.fetchall()]
frame = pandas.read_parquet(sys.argv[1])
print(json.dumps({{'duckdb': list(map(str, rel.dtypes)), 'rows': rows,
    'pandas': [frame[c].dtype.kind for c in ['WhiteElo', 'BlackElo', 'base_seconds', 'increment_seconds']],
    'dates': [str(d) for d in frame['Date']]}}))"
    );
    let loaded = python_json(&python, &script, &[&file]);
    let types = ["SMALLINT", "SMALLINT", "DATE", "VARCHAR", "VARCHAR", "DATE", "INTEGER", "INTEGER"];
    assert_eq!(loaded["duckdb"], serde_json::json!(types), "{loaded}");
    let rows = serde_json::json!([
        [2785, 2560, "1992-11-04", "1992.11.04", "29.1", "1992-09-02", 180, 2],
        [null, null, null, "1992.??.??", "?", null, null, null],
        [null, null, null, "????.??.??", "-", null, null, null],
    ]);
    assert_eq!(loaded["rows"], rows);
    assert_eq!(loaded["pandas"], serde_json::json!(["f", "f", "f", "f"]), "numbers (NaN where null): {loaded}");
    assert_eq!(loaded["dates"], serde_json::json!(["1992-11-04", "None", "None"]));
}
