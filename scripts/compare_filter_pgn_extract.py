#!/usr/bin/env python3
"""Cross-check `pgnkit filter`'s tag criteria against pgn-extract's -T criteria.

For every PGN file of ../shared/corpus/pgn (and the corpus's bench files,
decompressed to a temporary folder), it picks criteria from the file's own
tags (its most frequent White and Black names cut to a prefix, its most
frequent ECO prefix, each result) and runs

    pgnkit filter --white P FILE     against   pgn-extract -TwP FILE
    pgnkit filter --black P FILE     against   pgn-extract -TbP FILE
    pgnkit filter --player P FILE    against   pgn-extract -TpP FILE
    pgnkit filter --eco E FILE       against   pgn-extract -TeE FILE
    pgnkit filter --result R FILE    against   pgn-extract -TrR FILE

and compares the selected games, in order, by their (Event, White, Black,
Date, Result) tags. pgn-extract leaves out games it cannot parse, so only
files where both tools read the same games without criteria are compared;
the others are listed as skipped.

Usage: scripts/compare_filter_pgn_extract.py [--pgnkit PATH] [--shared DIR]
Exit status: 0 when every comparison agrees, 1 otherwise, 2 on a setup error.
"""

import argparse
import collections
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TAG = re.compile(rb'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
KEYS = ("Event", "White", "Black", "Date", "Result")


def games_tags(pgn: bytes) -> list[dict]:
    """Tags of each game, a game starting at an [Event or first tag line after movetext."""
    games, current, in_tags = [], None, False
    for line in pgn.splitlines():
        m = TAG.match(line)
        if m:
            if not in_tags:
                current = {}
                games.append(current)
                in_tags = True
            value = m.group(2).replace(b'\\"', b'"').replace(b"\\\\", b"\\")
            current.setdefault(m.group(1).decode(), value.decode("utf-8", "replace"))
        elif line.strip():
            in_tags = False
    return games


def identities(pgn: bytes) -> list[tuple]:
    # pgn-extract writes the Seven Tag Roster with `?` for missing tags.
    return [tuple(g.get(k, "?") or "?" for k in KEYS) for g in games_tags(pgn)]


def pgnkit(binary: str, args: list[str], path: Path) -> bytes:
    run = subprocess.run([binary, "filter", "-q", *args, str(path)], capture_output=True)
    if run.returncode >= 2:
        raise RuntimeError(f"pgnkit {args} {path}: exit {run.returncode}: {run.stderr.decode()[:300]}")
    return run.stdout


def pgn_extract(binary: str, args: list[str], path: Path) -> bytes:
    run = subprocess.run([binary, "-s", "--quiet", *args, str(path)], capture_output=True)
    return run.stdout


def criteria(tags: list[dict]) -> list[tuple[list[str], list[str]]]:
    """(pgnkit args, pgn-extract args) pairs taken from the file's tags."""
    pairs = []
    for tag, ours, theirs in (("White", "--white", "-Tw"), ("Black", "--black", "-Tb")):
        names = collections.Counter(g[tag] for g in tags if g.get(tag, "?") not in ("", "?"))
        # pgn-extract's -T argument cannot hold a quote: such names are left out.
        names = collections.Counter({n: c for n, c in names.items() if '"' not in n})
        for name, _ in names.most_common(2):
            prefix = name[: max(3, len(name) // 2)]
            pairs.append(([ours, prefix], [theirs + prefix]))
            if tag == "White":
                pairs.append((["--player", prefix], ["-Tp" + prefix]))
    ecos = collections.Counter(g["ECO"][:2] for g in tags if len(g.get("ECO", "")) == 3)
    for eco, _ in ecos.most_common(2):
        pairs.append((["--eco", eco], ["-Te" + eco]))
    for result in ("1-0", "0-1", "1/2-1/2"):
        pairs.append((["--result", result], ["-Tr" + result]))
    return pairs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    root = Path(__file__).resolve().parent.parent
    parser.add_argument("--pgnkit", default=str(root / "target/release/pgnkit"))
    parser.add_argument("--shared", default=str(root.parent / "shared"))
    args = parser.parse_args()
    extract = shutil.which("pgn-extract") or "/usr/games/pgn-extract"
    if not os.access(extract, os.X_OK):
        print("pgn-extract is not installed (apt-get install pgn-extract)", file=sys.stderr)
        return 2
    if not os.access(args.pgnkit, os.X_OK):
        print(f"no pgnkit binary at {args.pgnkit} (cargo build --release)", file=sys.stderr)
        return 2
    corpus = Path(args.shared) / "corpus"
    if not corpus.is_dir():
        print(f"no corpus at {corpus}", file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory() as tmp:
        files = sorted((corpus / "pgn").rglob("*.pgn"))
        for gz in sorted((corpus / "bench").glob("*.pgn.gz")):
            plain = Path(tmp) / gz.name.removesuffix(".gz")
            plain.write_bytes(gzip.decompress(gz.read_bytes()))
            files.append(plain)
        compared = agreed = 0
        skipped, disagreements = [], []
        for path in files:
            everything = identities(pgnkit(args.pgnkit, [], path))
            if identities(pgn_extract(extract, [], path)) != everything:
                skipped.append(path)
                continue
            tags = games_tags(path.read_bytes())
            for ours, theirs in criteria(tags):
                compared += 1
                mine = identities(pgnkit(args.pgnkit, ours, path))
                peer = identities(pgn_extract(extract, theirs, path))
                if mine == peer:
                    agreed += 1
                else:
                    disagreements.append(f"{path}: pgnkit {ours}: {len(mine)} games, pgn-extract {theirs}: {len(peer)}")
    for line in disagreements:
        print("DIFFERS", line)
    print(f"{len(files)} files, {len(skipped)} skipped (pgn-extract reads other games), "
          f"{compared} comparisons, {agreed} agree")
    return 0 if compared and agreed == compared else 1


if __name__ == "__main__":
    sys.exit(main())
