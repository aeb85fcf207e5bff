#!/usr/bin/env python3
"""Query pgnkit's Parquet output of several shards with DuckDB.

    python3 scripts/duckdb_query.py [options] PATH...

needs `pip install duckdb` and a pgnkit built with `--features parquet`.

1. Task K of N (run side by side, as a cluster's mappers would) writes
   `pgnkit convert --to parquet --shard K/N PATH...` to WORK/games-K-of-N.parquet:
   one row per game, lichess's columns plus pgnkit's file, game, plies,
   valid, final_fen and board_termination. `--shard` reads the original
   files, so file and game are each game's original file and number.
2. The findings: the Parquet dataset `spark_stats.py` wrote (`--diagnostics
   DIR`), or else `pgnkit validate --format jsonl --with-findings PATH...`
   read by DuckDB itself, one row per finding.
3. Three queries over `read_parquet('WORK/games-*.parquet')`, printed with
   their SQL: results by opening, game length by time control (lichess's
   speeds, computed from TimeControl as pgnkit's `stats --by time-control`
   does), and the findings joined to their games by (file, game): by file
   and code, with how many of those games are invalid and the longest.

`--json` prints the full tables (no --limit) and a few counts as one JSON
object instead, for checking them against `pgnkit stats`.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# lichess's speed: initial seconds + 40 x increment, as pgnkit's src/keys/group.rs;
# a first period of MOVES/SECONDS[+INC] counts its seconds, or is correspondence
# at a day or more a move (chess.com's daily games: 1/259200).
SPEED = """
CASE
    WHEN TimeControl = '-' THEN 'correspondence'
    WHEN tc_per_move AND tc_moves = 0 THEN 'unknown'
    WHEN tc_per_move AND initial >= 86400 * tc_moves THEN 'correspondence'
    WHEN NOT tc_per_move AND NOT regexp_full_match(coalesce(TimeControl, ''), '[0-9]+(\\+[0-9]+)?') THEN 'unknown'
    ELSE CASE
        WHEN initial + 40 * increment < 30 THEN 'ultrabullet'
        WHEN initial + 40 * increment < 180 THEN 'bullet'
        WHEN initial + 40 * increment < 480 THEN 'blitz'
        WHEN initial + 40 * increment < 1500 THEN 'rapid'
        ELSE 'classical'
    END
END"""

GAMES_VIEW = f"""
CREATE VIEW games AS
SELECT *, {SPEED} AS speed
FROM (
    SELECT *,
        TRY_CAST(split_part(tc_period, '+', 1) AS HUGEINT) AS initial,
        coalesce(TRY_CAST(nullif(split_part(tc_period, '+', 2), '') AS HUGEINT), 0) AS increment
    FROM (
        SELECT *,
            CASE WHEN tc_per_move THEN split_part(split_part(TimeControl, ':', 1), '/', 2) ELSE TimeControl END AS tc_period,
            TRY_CAST(split_part(split_part(TimeControl, ':', 1), '/', 1) AS HUGEINT) AS tc_moves
        FROM (
            SELECT *,
                coalesce(regexp_full_match(split_part(TimeControl, ':', 1), '[0-9]+/[0-9]+(\\+[0-9]+)?'), false)
                    AS tc_per_move
            FROM read_parquet({{games}})
        )
    )
)"""

QUERIES = {
    "results_by_opening": """
SELECT coalesce(Opening, '?') AS opening,
       count(*) AS games,
       count(*) FILTER (WHERE Result = '1-0') AS white_wins,
       count(*) FILTER (WHERE Result = '1/2-1/2') AS draws,
       count(*) FILTER (WHERE Result = '0-1') AS black_wins,
       round(100 * avg(CASE Result WHEN '1-0' THEN 1 WHEN '1/2-1/2' THEN 0.5 WHEN '0-1' THEN 0 END), 1)
           AS white_score_pct
FROM games
GROUP BY ALL
ORDER BY games DESC, opening""",
    "length_by_time_control": """
SELECT speed,
       count(*) AS games,
       sum(plies)::BIGINT AS plies,
       round(avg(plies), 1) AS mean_plies,
       median(plies) AS median_plies,
       max(plies) AS longest
FROM games
GROUP BY ALL
ORDER BY games DESC, speed""",
    "findings_by_file": """
SELECT regexp_extract(d.file, '[^/]*$') AS file, d.severity, d.code,
       count(*) AS findings,
       count(DISTINCT d.game) AS games,
       count(DISTINCT d.game) FILTER (WHERE NOT g.valid) AS invalid_games,
       max(g.plies) AS max_plies
FROM diagnostics AS d
JOIN games AS g USING (file, game)
GROUP BY ALL
ORDER BY findings DESC, file, d.code""",
}


def find_pgnkit(given):
    """The pgnkit binary: --pgnkit, $PGNKIT, target/release/pgnkit, or PATH."""
    root = Path(__file__).resolve().parent.parent
    target = os.environ.get("CARGO_TARGET_DIR", str(root / "target"))
    for candidate in [given, os.environ.get("PGNKIT"), str(Path(target) / "release" / "pgnkit"), shutil.which("pgnkit")]:
        if candidate and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    sys.exit("duckdb_query.py: no pgnkit binary: build it (cargo build --release --features parquet) or give --pgnkit")


def run_shards(pgnkit, shards, paths, work, jobs):
    """Writes games-K-of-N.parquet for every K, `jobs` conversions at a time."""
    pending = list(range(shards))
    running = []
    while pending or running:
        while pending and len(running) < jobs:
            k = pending.pop(0)
            out = work / f"games-{k:04}-of-{shards:04}.parquet"
            command = [pgnkit, "convert", "-q", "-j1", "--to", "parquet", "--shard", f"{k}/{shards}", "-o", str(out)]
            running.append((k, subprocess.Popen(command + ["--", *paths], stderr=subprocess.PIPE)))
        k, process = running.pop(0)
        _, stderr = process.communicate()
        # 1: some games have errors; they are rows all the same.
        if process.returncode not in (0, 1):
            sys.exit(f"duckdb_query.py: pgnkit convert --shard {k}/{shards}: exit {process.returncode}: {stderr.decode()}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", metavar="PATH", help="PGN files (plain, .gz, .zst, .bz2)")
    parser.add_argument("--shards", type=int, default=4, help="Parquet files to write, one per shard (default 4)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="conversions at a time (default: cores)")
    parser.add_argument("--pgnkit", help="pgnkit built with --features parquet (default $PGNKIT, target/release/pgnkit)")
    parser.add_argument("--diagnostics", metavar="DIR", help="Parquet findings of spark_stats.py (default: validate)")
    parser.add_argument("--work", help="folder for the Parquet files (default: a temporary one, removed)")
    parser.add_argument("--limit", type=int, default=10, help="rows shown per query (default 10)")
    parser.add_argument("--json", action="store_true", help="all rows of every query as one JSON object")
    args = parser.parse_args()
    if args.shards < 1 or args.jobs < 1:
        parser.error("--shards and --jobs must be at least 1")

    import duckdb

    pgnkit = find_pgnkit(args.pgnkit)
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="pgnkit-duckdb-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        for old in work.glob("games-*.parquet"):
            old.unlink()
        run_shards(pgnkit, args.shards, args.paths, work, args.jobs)
        con = duckdb.connect()
        con.execute(GAMES_VIEW.format(games=duckdb_string(str(work / "games-*.parquet"))))
        if args.diagnostics:
            source = f"read_parquet({duckdb_string(str(Path(args.diagnostics) / '*.parquet'))})"
            con.execute(f"CREATE VIEW diagnostics AS SELECT file, game, severity, code FROM {source}")
        else:
            jsonl = work / "validate.jsonl"
            with open(jsonl, "wb") as out:
                done = subprocess.run([pgnkit, "validate", "-q", "--format", "jsonl", "--with-findings", "--", *args.paths], stdout=out)
            if done.returncode not in (0, 1):
                sys.exit(f"duckdb_query.py: pgnkit validate: exit {done.returncode}")
            con.execute(
                f"""CREATE VIEW diagnostics AS
                SELECT file, game, d.severity AS severity, d.code AS code
                FROM (SELECT file, game, unnest(diagnostics) AS d
                      FROM read_json({duckdb_string(str(jsonl))}, format = 'newline_delimited',
                                     columns = {{file: 'VARCHAR', game: 'BIGINT',
                                                 diagnostics: 'STRUCT(severity VARCHAR, code VARCHAR)[]'}}))"""
            )
        if args.json:
            def scalar(sql):
                return con.execute(sql).fetchall()[0][0]

            report = {
                "games": scalar("SELECT count(*) FROM games"),
                "parquet_files": len(list(work.glob("games-*.parquet"))),
                "findings": scalar("SELECT count(*) FROM diagnostics"),
                # Findings whose (file, game) names no row of the games: 0 when the keys agree.
                "unmatched_findings": scalar("SELECT count(*) FROM diagnostics AS d ANTI JOIN games AS g USING (file, game)"),
            }
            for name, sql in QUERIES.items():
                cursor = con.execute(sql)
                columns = [column[0] for column in cursor.description]
                report[name] = [dict(zip(columns, row)) for row in cursor.fetchall()]
            print(json.dumps(report, default=float))
        else:
            for name, sql in QUERIES.items():
                shown = f"{sql.strip()}\nLIMIT {args.limit};" if args.limit else f"{sql.strip()};"
                print(f"-- {name}\n{shown}\n")
                con.sql(shown.rstrip(";")).show(max_width=120)
                print()
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def duckdb_string(text):
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


if __name__ == "__main__":
    sys.exit(main())
