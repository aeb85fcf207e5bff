#!/usr/bin/env python3
"""pgnkit as a mapper on Apache Spark: statistics and diagnostics of PGN files.

    python3 scripts/spark_stats.py [options] PATH...

needs `pip install pyspark` and Java 17+. It runs Spark in local mode
(`--master local[*]`) unless told otherwise, and does two jobs over the games
of PATH... (plain, .gz, .zst or .bz2 files):

1. stats, shard -> map -> merge: `pgnkit split --shards N` cuts the input
   into N game-aligned shard files; Spark reads them with `binaryFiles` and
   each task pipes its shard through `pgnkit stats --format json -`; the
   driver adds the partials up with `pgnkit stats merge -`. The merged JSON
   is the LAST line of stdout, byte for byte what one `pgnkit stats --format
   json PATH...` prints.

2. diagnostics: task K of N runs `pgnkit validate --format jsonl
   --with-findings --shard K/N PATH...` on the original files, so every game
   keeps its original file name and its number in that file (a shard file
   would renumber them: its game 1 is game K+1 of the run). Each finding is
   one row of a Spark DataFrame written as Parquet (`--diagnostics DIR`,
   default `diagnostics.parquet`, replaced if it exists):
   file, game, game_line, white, black, result, valid, severity, code, line,
   column, ply, san, fen, message, reason.

Shards and the single run frame the games the same way when every game ends
with its termination marker (1-0, 0-1, 1/2-1/2 or *), as the PGN standard
requires and every exporter writes. A game without one is ended by what
follows it (see docs/chess-semantics.md, "What counts as a game"), and in a shard something
else follows it: the last game of one input, tags and no moves nor result,
runs into the first game of the next input. The script compares the games
the merge counted with those `split` wrote and, when they differ, says so
and exits 1; `--no-split` gives the exact figures for any input: each task
reads the original files with `--shard K/N` (every task then frames the
whole input, which costs more).

Why binaryFiles and not `wholeTextFiles(...).pipe(...)`: Spark decodes text
as UTF-8 and replaces what does not decode, so Latin-1 player names would
reach pgnkit changed, and `pipe` writes each record as a line with a newline
of its own; bytes go through unchanged. A task holds its shard in memory:
choose N so that shards stay well under the executors' memory (a few hundred
MB each). On a cluster the binary is shipped with `SparkContext.addFile`; the
inputs of step 2 must be readable at the same path by every executor (a
shared file system).

Timings of each step go to stderr (with Spark's own warnings); stdout has
only the merged JSON. Exit status: 0; 1 when the shards counted other games
than the input holds (above); 2 when pgnkit or Spark failed.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def find_pgnkit(given):
    """The pgnkit binary: --pgnkit, $PGNKIT, target/release/pgnkit, or PATH."""
    candidates = [given, os.environ.get("PGNKIT")]
    root = Path(__file__).resolve().parent.parent
    target = os.environ.get("CARGO_TARGET_DIR", str(root / "target"))
    candidates.append(str(Path(target) / "release" / "pgnkit"))
    candidates.append(shutil.which("pgnkit"))
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    sys.exit("spark_stats.py: no pgnkit binary: build it (cargo build --release) or give --pgnkit")


def log(message):
    print(f"spark_stats: {message}", file=sys.stderr, flush=True)


def shipped_binary(name):
    """The pgnkit shipped to this executor with addFile, made executable."""
    from pyspark import SparkFiles

    path = SparkFiles.get(name)
    if not os.access(path, os.X_OK):
        os.chmod(path, 0o755)
    return path


def stats_mapper(name, stats_args):
    """mapPartitions function: one stats partial (a JSON line) per shard file."""

    def run(files):
        binary = shipped_binary(name)
        for path, content in files:
            # -j1: Spark runs one task per core already.
            out = subprocess.run(
                [binary, "stats", "-q", "-j1", "--format", "json", *stats_args, "-"],
                input=content,
                capture_output=True,
            )
            # 1 means invalid games, which the partial counts; 2 is a failure.
            if out.returncode not in (0, 1):
                raise RuntimeError(f"pgnkit stats on {path}: exit {out.returncode}: {out.stderr.decode()}")
            yield path, out.stdout.decode().strip()

    return run


DIAGNOSTIC_COLUMNS = [
    # (name, Spark type name, where it comes from)
    ("file", "string", "game"),
    ("game", "long", "game"),
    ("game_line", "long", "game:line"),
    ("white", "string", "game"),
    ("black", "string", "game"),
    ("result", "string", "game"),
    ("valid", "boolean", "game"),
    ("severity", "string", "diagnostic"),
    ("code", "string", "diagnostic"),
    ("line", "long", "diagnostic"),
    ("column", "long", "diagnostic"),
    ("ply", "long", "diagnostic"),
    ("san", "string", "diagnostic"),
    ("fen", "string", "diagnostic"),
    ("message", "string", "diagnostic"),
    ("reason", "string", "diagnostic"),
]


def diagnostic_rows(game):
    """One row per finding of a game of `validate --format jsonl`."""
    for diagnostic in game["diagnostics"]:
        row = []
        for name, _, source in DIAGNOSTIC_COLUMNS:
            if source == "game:line":
                row.append(game["game_line"])
            elif source == "game":
                row.append(game[name])
            else:
                row.append(diagnostic.get(name))
        yield tuple(row)


def stats_shard_mapper(name, shards, paths, cwd, stats_args):
    """map function (--no-split): the stats partial of shard K of the original files."""

    def run(k):
        binary = shipped_binary(name)
        command = [binary, "stats", "-q", "-j1", "--format", "json", *stats_args, "--shard", f"{k}/{shards}"]
        out = subprocess.run(command + ["--", *paths], cwd=cwd, capture_output=True)
        if out.returncode not in (0, 1):
            raise RuntimeError(f"pgnkit stats --shard {k}/{shards}: {out.stderr.decode()}")
        return f"{k:08}", out.stdout.decode().strip()

    return run


def validate_mapper(name, shards, paths, cwd):
    """flatMap function: the finding rows of shard K of the original files."""

    def run(k):
        binary = shipped_binary(name)
        command = [binary, "validate", "-q", "-j1", "--format", "jsonl", "--with-findings", "--shard", f"{k}/{shards}"]
        process = subprocess.Popen(command + ["--", *paths], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for line in process.stdout:
            yield from diagnostic_rows(json.loads(line))
        stderr = process.stderr.read().decode()
        if process.wait() not in (0, 1):
            raise RuntimeError(f"pgnkit validate --shard {k}/{shards}: {stderr}")

    return run


def spark_session(master, driver_memory):
    from pyspark.sql import SparkSession

    # The workers run this interpreter (the one pyspark was installed in).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.master(master)
        .appName("pgnkit")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", driver_memory)
        .config("spark.sql.shuffle.partitions", "4")
    )
    if master.startswith("local"):
        builder = builder.config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", metavar="PATH", help="PGN files (plain, .gz, .zst, .bz2)")
    parser.add_argument("--shards", type=int, default=8, help="number of shards and of validate tasks (default 8)")
    parser.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    parser.add_argument("--driver-memory", default="2g", help="Spark driver memory (default 2g)")
    parser.add_argument("--pgnkit", help="the pgnkit binary (default $PGNKIT, target/release/pgnkit, or PATH)")
    parser.add_argument("--by", action="append", default=[], metavar="KEY", help="stats groups, as stats --by")
    parser.add_argument("--compress", choices=["zst", "gz"], help="compress the shard files")
    parser.add_argument("--work", help="folder for the shards and the outputs (default: a temporary one, removed)")
    parser.add_argument(
        "--diagnostics", default="diagnostics.parquet", help="Parquet folder for the findings (default diagnostics.parquet)"
    )
    parser.add_argument("--skip-validate", action="store_true", help="only the stats job")
    parser.add_argument(
        "--no-split", action="store_true", help="stats tasks read the original files with --shard K/N (no shard files)"
    )
    args = parser.parse_args()
    if args.shards < 1:
        parser.error("--shards must be at least 1")

    pgnkit = find_pgnkit(args.pgnkit)
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="pgnkit-spark-"))
    keep = args.work is not None
    diagnostics_dir = Path(args.diagnostics)
    stats_args = [a for key in args.by for a in ("--by", key)]
    status = 0
    try:
        # Shard: game-aligned files, game i of the run to shard (i-1) mod N + 1.
        shard_dir = work / "shards"
        split_games = None
        if not args.no_split:
            if shard_dir.exists():
                shutil.rmtree(shard_dir)
            started = time.monotonic()
            command = [pgnkit, "split", "--shards", str(args.shards), "--out-dir", str(shard_dir)]
            if args.compress:
                command += ["--compress", args.compress]
            split = subprocess.run(command + ["--", *args.paths], capture_output=True, text=True)
            if split.returncode not in (0, 1):
                raise RuntimeError(f"pgnkit split: exit {split.returncode}: {split.stderr}")
            # `pgnkit: split 4950 games from 10 inputs into 8 files`
            split_games = int(split.stderr.split("pgnkit: split ")[-1].split()[0])
            log(f"split {split_games} games into {args.shards} shards in {time.monotonic() - started:.2f} s")

        started = time.monotonic()
        spark = spark_session(args.master, args.driver_memory)
        sc = spark.sparkContext
        sc.addFile(pgnkit)
        name = os.path.basename(pgnkit)
        log(f"Spark {spark.version} ({args.master}) started in {time.monotonic() - started:.2f} s")

        # Map: one partial per shard; merge: on the driver.
        started = time.monotonic()
        if args.no_split:
            mapper = stats_shard_mapper(name, args.shards, args.paths, os.getcwd(), stats_args)
            partials = sc.parallelize(range(args.shards), args.shards).map(mapper).collect()
        else:
            shard_uri = shard_dir.resolve().as_uri()
            partials = (
                sc.binaryFiles(shard_uri, minPartitions=args.shards)
                .mapPartitions(stats_mapper(name, stats_args))
                .collect()
            )
        if len(partials) != args.shards:
            raise RuntimeError(f"{len(partials)} partials for {args.shards} shards")
        lines = "\n".join(partial for _, partial in sorted(partials)) + "\n"
        merged = subprocess.run([pgnkit, "stats", "merge", "-"], input=lines, capture_output=True, text=True)
        if merged.returncode != 0:
            raise RuntimeError(f"pgnkit stats merge: {merged.stderr}")
        log(f"stats: {len(partials)} partials mapped and merged in {time.monotonic() - started:.2f} s")
        merged_games = json.loads(merged.stdout)["games"]
        if split_games is not None and merged_games != split_games:
            log(
                f"warning: the shards hold {split_games} games but their stats count {merged_games}: "
                "games without a termination marker ran into the next game of their shard; "
                "--no-split gives the figures of a single run"
            )
            status = 1

        if not args.skip_validate:
            from pyspark.sql.types import BooleanType, LongType, StringType, StructField, StructType

            types = {"string": StringType(), "long": LongType(), "boolean": BooleanType()}
            schema = StructType([StructField(n, types[t], True) for n, t, _ in DIAGNOSTIC_COLUMNS])
            started = time.monotonic()
            rows = sc.parallelize(range(args.shards), args.shards).flatMap(
                validate_mapper(name, args.shards, args.paths, os.getcwd())
            )
            frame = spark.createDataFrame(rows, schema)
            frame.write.mode("overwrite").parquet(diagnostics_dir.resolve().as_uri())
            count = spark.read.parquet(diagnostics_dir.resolve().as_uri()).count()
            log(f"validate: {count} findings written to {diagnostics_dir} in {time.monotonic() - started:.2f} s")
        spark.stop()
    except (subprocess.CalledProcessError, RuntimeError) as err:
        log(f"error: {err}")
        return 2
    except Exception as err:  # Spark's errors come as Py4J or pyspark exceptions
        log(f"error: {type(err).__name__}: {err}")
        return 2
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    sys.stdout.write(merged.stdout)
    return status


if __name__ == "__main__":
    sys.exit(main())
