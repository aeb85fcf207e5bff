#!/usr/bin/env python3
"""Draw docs/performance.svg from the figures scripts/bench.sh writes.

Usage: scripts/perf_chart.py [FIGURES.tsv] [-o OUT.svg] [--rows OUT.tsv]

FIGURES.tsv is the file bench.sh appends to (target/bench/results/figures.tsv;
docs/performance.tsv is the committed copy the docs' chart is drawn from):
tab-separated, a header row, then run, group, command, input, bytes,
median_s, cpu_s. Each tool is drawn as its time over pgnkit `validate -j1`'s
on the same input in the same run (the host's speed drifts between runs,
so only ratios within one run are compared), taken from the latest run that
timed both. The bars are on a log scale, as the ratios go from a half to
more than a hundred. --rows also writes the rows of the runs the bars come
from (all of them, in the input's order), so that the chart can be drawn
again from OUT.tsv alone: docs/performance.tsv is made so. Standard library
only; the same input gives the same bytes.
"""

import argparse
import csv
import math
import sys
from xml.sax.saxutils import escape

BASE = "pgnkit-j1"
# command in bench.sh's tables -> (label, note); the order of the bars.
TOOLS = [
    ("pgnkit-j2", "pgnkit validate -j2", "two cores"),
    ("pgn-reader-validate", "pgn-reader example", "legality only, no report"),
    ("pgnkit-j1", "pgnkit validate -j1", "one core"),
    ("chess-library", "chess-library (C++)", "reader and replay, no report"),
    ("pgn-extract", "pgn-extract -r", "replay and report"),
    ("python-chess", "python-chess", "replay every game"),
]


def read_figures(path):
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f, delimiter="\t")
        rows = list(reader)
    need = {"run", "group", "command", "input", "bytes", "median_s"}
    if not rows or not need <= set(rows[0]):
        sys.exit(f"perf_chart.py: {path}: not a figures file of scripts/bench.sh (columns {sorted(need)})")
    return reader.fieldnames, rows


def write_rows(path, fieldnames, rows, runs):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fieldnames, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows(row for row in rows if row["run"] in runs)


def ratios(rows):
    """(command, ratio, run, input) for each tool, from the latest run that
    timed it and pgnkit -j1 in the same group."""
    by_key = {}
    for row in rows:
        by_key[(row["run"], row["group"], row["command"])] = row
    out = []
    for command, _, _ in TOOLS:
        best = None
        for (run, group, name), row in by_key.items():
            base = by_key.get((run, group, BASE))
            if name != command or base is None:
                continue
            if best is None or run > best[2]:
                best = (command, float(row["median_s"]) / float(base["median_s"]), run, row["input"])
        if best:
            out.append(best)
    return out


def draw(bars):
    width, left, right, top, bar_h, gap = 760, 250, 40, 70, 26, 14
    height = top + len(bars) * (bar_h + gap) + 60
    lo, hi = 0.25, 256.0
    plot_w = width - left - right

    def x(value):
        return left + plot_w * (math.log(value) - math.log(lo)) / (math.log(hi) - math.log(lo))

    notes = dict((c, n) for c, _, n in TOOLS)
    labels = dict((c, l) for c, l, _ in TOOLS)
    svg = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="13">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="10" y="24" font-size="16" font-weight="bold">Checking every game: time against pgnkit validate -j1</text>',
        f'<text x="10" y="44" fill="#555555">same input, same run; shorter is faster (log scale)</text>',
    ]
    axis_y = top + len(bars) * (bar_h + gap)
    for tick in [0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256]:
        tx = x(tick)
        svg.append(f'<line x1="{tx:.1f}" y1="{top - 8}" x2="{tx:.1f}" y2="{axis_y}" stroke="#dddddd"/>')
        text = f"{tick:g}×"
        svg.append(f'<text x="{tx:.1f}" y="{axis_y + 18}" text-anchor="middle" fill="#555555">{text}</text>')
    for i, (command, ratio, run, input_name) in enumerate(bars):
        y = top + i * (bar_h + gap)
        is_pgnkit = command.startswith("pgnkit")
        colour = "#2b6cb0" if is_pgnkit else "#a0a0a0"
        x0, x1 = x(lo), x(max(ratio, lo))
        svg.append(f'<rect x="{x0:.1f}" y="{y}" width="{x1 - x0:.1f}" height="{bar_h}" fill="{colour}"/>')
        svg.append(f'<text x="{left - 10}" y="{y + 12}" text-anchor="end" font-weight="bold">{escape(labels[command])}</text>')
        svg.append(f'<text x="{left - 10}" y="{y + 25}" text-anchor="end" fill="#555555" font-size="11">'
                   f'{escape(notes[command])}, {escape(input_name)}</text>')
        value = f"{ratio:.2f}×" if ratio < 10 else f"{ratio:.0f}×"
        svg.append(f'<text x="{x1 + 6:.1f}" y="{y + 18}">{value}</text>')
    runs = sorted({run for _, _, run, _ in bars})
    svg.append(f'<text x="10" y="{axis_y + 42}" fill="#555555" font-size="11">'
               f'mix100.pgn: 100 MB, 232,335 games; slice10.pgn: its first 10 MB (426 engine games); '
               f'runs {escape(", ".join(runs))}</text>')
    svg.append("</svg>")
    return "\n".join(svg) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("figures", nargs="?", default="target/bench/results/figures.tsv")
    parser.add_argument("-o", "--output", default="-")
    parser.add_argument("--rows", metavar="OUT.tsv", help="also write the rows of the runs drawn")
    args = parser.parse_args()
    fieldnames, rows = read_figures(args.figures)
    bars = ratios(rows)
    if not any(command != BASE for command, _, _, _ in bars):
        sys.exit(f"perf_chart.py: {args.figures}: no tool timed beside {BASE} in one run")
    svg = draw(bars)
    if args.output == "-":
        sys.stdout.write(svg)
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(svg)
    if args.rows:
        write_rows(args.rows, fieldnames, rows, {run for _, _, run, _ in bars})


if __name__ == "__main__":
    main()
