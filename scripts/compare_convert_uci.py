#!/usr/bin/env python3
"""Check `pgnkit convert` move lists (UCI and SAN) against python-chess.

Usage:
    python3 scripts/compare_convert_uci.py [--pgnkit PATH] [--json] [PATH...]

PATHs are PGN files or folders (searched recursively for *.pgn, *.pgn.gz,
*.pgn.zst and *.pgn.bz2). Without PATH: <repo>/../shared/corpus/pgn, or
/work/shared/corpus/pgn when the repo is a worktree elsewhere; if neither
exists the check is skipped (exit 0). The default binary is
$CARGO_TARGET_DIR/release/pgnkit, else <repo>/target/release/pgnkit. Needs
python-chess (`pip install chess`); .zst files need the `zstd` command.

For each file, `pgnkit convert --to jsonl -q FILE` is run (pgnkit reads
compressed files itself) and python-chess reads the same, decompressed,
bytes (UTF-8, or Windows-1252 when they are not valid UTF-8, as pgnkit decodes
them). Games are paired by order when both read the same number of games;
otherwise by start line, and the file is reported with both counts. For
every game pgnkit calls valid, pgnkit's `uci` array must equal
`[m.uci() for m in game.mainline_moves()]` and its `san` array the SAN
python-chess writes for the same moves (`board.san(m)` before
`board.push(m)`, on `game.board()`).

Every pgnkit-valid game lands in exactly one group:

* agreed: compared, UCI and SAN equal;
* disagreement: compared and different (the first differing ply is shown);
  or python-chess reported errors and the moves it did read are not the
  start of pgnkit's; each makes the exit status 1;
* python-chess errors: `game.errors` is not empty and the moves python-chess
  read before giving up are the start of pgnkit's main line (listed with
  python-chess's error text: python-chess rejects what pgnkit accepts);
* framed differently: the file's game counts differ and python-chess ends
  this game elsewhere than pgnkit (a different next game start: it ends a
  game at any blank line, even inside movetext, and not at a result token);
  one move list must still be the start of the other, else it is a
  disagreement;
* variant: python-chess plays the game as another variant (its board is
  not a `chess.Board`; Chess960 is a `chess.Board`), or it does not know
  the Variant name (an "unsupported variant" error; it then plays standard
  chess) while pgnkit did not replay the game either (unsupported-variant
  warning, no moves, `final_fen` null);
* unpaired: no python-chess game starts on the same line (the two readers
  cut the file into games differently), or python-chess crashed before it.

A game that python-chess cut differently (a different next game start) or
that is unpaired is read again: python-chess reads the lines pgnkit took for
it (from its start line to the next game's), blank lines left out; the moves
are still python-chess's, only the cut is pgnkit's. If that reading is clean
and agrees, the game is "agreed once re-read" (listed per file); otherwise
it falls in the group that reading gives (a disagreement fails), marked as
re-read. The groups "framed differently" and "unpaired" keep the games
whose second reading failed (python-chess crashed or read no game).

Games pgnkit calls invalid are counted, not compared (their move lists stop
at pgnkit's first error by design). `--json` prints every record that is not
"agreed" as one JSON object per line on stdout and the summary on stderr.

Exit status: 0 when nothing disagrees (or the corpus is absent), 1 on any
disagreement, 2 on usage errors or when pgnkit cannot be run on a file.
"""

import argparse
import bz2
import collections
import gzip
import io
import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from pgn_oracle import LineCountingHandle, decode, pgnkit_jsonl

try:
    import chess
    import chess.pgn
except ImportError:
    sys.exit("compare_convert_uci.py needs python-chess: pip install chess")

SUFFIXES = (".pgn", ".pgn.gz", ".pgn.zst", ".pgn.bz2")
GROUPS = ("disagreement", "reread_agreed", "python_chess_errors", "framed_differently", "variant", "unpaired")
TITLES = {
    "disagreement": "Disagreements",
    "reread_agreed": "python-chess cut the file differently; agreed once re-read in pgnkit's extent",
    "python_chess_errors": "pgnkit valid, python-chess errors (the moves it read start pgnkit's)",
    "framed_differently": "pgnkit valid, python-chess ends the game elsewhere (one move list starts the other)",
    "variant": "pgnkit valid, python-chess plays another variant (not compared)",
    "unpaired": "pgnkit valid, no python-chess game at the same line (not compared)",
}

logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)


# --------------------------------------------------------------------------
# input

def read_bytes(path):
    """The file's bytes, decompressed by magic number as pgnkit does."""
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        return gzip.decompress(data)
    if data[:3] == b"BZh":
        return bz2.decompress(data)
    if data[:4] == b"\x28\xb5\x2f\xfd":
        return subprocess.run(["zstd", "-dc"], input=data, capture_output=True, check=True).stdout
    return data


def pgn_files(paths):
    files = []
    for p in paths:
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*") if f.is_file() and f.name.endswith(SUFFIXES)))
        else:
            files.append(p)
    return files


# --------------------------------------------------------------------------
# python-chess side

class StartLineBuilder(chess.pgn.GameBuilder):
    """GameBuilder that records the line a game starts on (python-chess
    calls begin_game once it has read the game's first non-blank line) and
    the board it replays the moves on: for a Variant tag it does not know,
    python-chess reports an error and plays standard chess, while
    game.board() raises."""

    def __init__(self, handle):
        super().__init__()
        self.handle = handle

    def begin_game(self):
        result = super().begin_game()
        self.game.start_line = self.handle.lineno
        self.game.replay_board = None
        self.handle.game_starts.append(self.handle.lineno)
        return result

    def visit_board(self, board):
        # Called first with the start position, then again with the last.
        super().visit_board(board)
        if self.game.replay_board is None:
            self.game.replay_board = board.copy(stack=False)


def python_games(text, limit=None):
    """Reads PGN text with python-chess. Returns (games, crash, starts); a
    game is a dict with game (1-based), line, board (the board python-chess
    replayed the moves on, None when it could not set one up), moves, errors.
    crash is None or the exception python-chess raised (reading stops there);
    starts lists the start line of every game python-chess began. Stops
    after `limit` games when given."""
    handle = LineCountingHandle(io.StringIO(text, newline=None))
    games, crash = [], None
    while limit is None or len(games) < limit:
        try:
            game = chess.pgn.read_game(handle, Visitor=lambda: StartLineBuilder(handle))
        except Exception as e:  # python-chess bugs, e.g. IndexError on ')'
            crash = "%s: %s (after game %d, near line %d)" % (type(e).__name__, e, len(games), handle.lineno)
            break
        if game is None:
            break
        games.append({
            "game": len(games) + 1,
            "line": game.start_line,
            "board": game.replay_board,
            "moves": list(game.mainline_moves()),
            "errors": [str(e) for e in game.errors],
            "variant": game.headers.get("Variant"),
        })
    return games, crash, handle.game_starts


def reread(lines, pk, next_line):
    """python-chess's reading of the lines pgnkit took for this game (from
    its start line up to the next game's), blank lines left out: python-chess
    ends a game at any blank line, even inside movetext, and not at a result
    token. The moves are still python-chess's own; only the cut is pgnkit's."""
    extent = lines[pk["game_line"] - 1:(next_line - 1) if next_line else len(lines)]
    games, crash, _ = python_games("\n".join(l for l in extent if l.strip()) + "\n", limit=1)
    if crash or not games:
        return None
    return games[0]


def notations(board, moves):
    """(UCI, SAN) of each move, replayed from `board` (which is not changed).
    Stops at a move python-chess cannot play (never after a clean read)."""
    board = board.copy(stack=False)
    uci, san = [], []
    for move in moves:
        if move and not board.is_legal(move):
            break
        uci.append(move.uci())
        san.append(board.san(move))
        board.push(move)
    return uci, san


# --------------------------------------------------------------------------
# pgnkit side

def pgnkit_games(pgnkit, path):
    """Returns (records, error); error is None when pgnkit exited 0 or 1."""
    return pgnkit_jsonl([pgnkit, "convert", "--to", "jsonl", "-q", path], timeout=1800)


# --------------------------------------------------------------------------
# comparison

def pair_games(pk_games, py_games):
    """Pairs by order when the counts agree, else by start line. Returns a
    list of (pgnkit record, python-chess game or None)."""
    if len(pk_games) == len(py_games):
        return list(zip(pk_games, py_games))
    by_line = {g["line"]: g for g in py_games}
    return [(pk, by_line.pop(pk["game_line"], None)) for pk in pk_games]


def next_start(starts, line):
    later = [s for s in starts if s > line]
    return min(later) if later else None


def first_difference(a, b):
    """The 0-based index of the first difference of two lists (the shorter
    length when one is a prefix of the other), or None when equal."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def is_prefix(a, b):
    return a == b[:len(a)]


def compare_game(pk, py, framed_differently):
    """(group, detail) for a pgnkit-valid game and its python-chess pair.
    framed_differently: python-chess ends this game elsewhere than pgnkit
    (a different next game start), so the two move lists may rightly be of
    different lengths, but one must still be the start of the other."""
    if py is None:
        return "unpaired", {"pgnkit_plies": len(pk["uci"])}
    if type(py["board"]) is not chess.Board and py["board"] is not None:
        return "variant", {"python_chess": "%s (Variant %r)" % (type(py["board"]).__name__, py["variant"]),
                           "pgnkit_plies": len(pk["uci"])}
    unknown_variant = any(e.startswith("unsupported variant") for e in py["errors"])
    if unknown_variant and pk["final_fen"] is None:
        # Neither plays it as chess: pgnkit skips the moves of a variant it
        # does not support (final_fen null), python-chess reports the name
        # and plays standard chess anyway.
        return "variant", {"python_chess": "unknown Variant %r, played as standard chess" % py["variant"],
                           "pgnkit_plies": len(pk["uci"])}
    uci, san = notations(py["board"], py["moves"]) if py["board"] is not None else ([], [])
    clean = not py["errors"] and len(uci) == len(py["moves"])
    same = pk["uci"] == uci and pk["san"] == san
    if clean and same and not framed_differently:
        return "agreed", {}
    prefix = is_prefix(uci, pk["uci"]) and is_prefix(san, pk["san"])
    if framed_differently and (prefix or (is_prefix(pk["uci"], uci) and is_prefix(pk["san"], san))):
        return "framed_differently", {"pgnkit_plies": len(pk["uci"]), "python_chess_plies": len(uci),
                                      "errors": py["errors"]}
    if not clean and not framed_differently and prefix:
        return "python_chess_errors", {"errors": py["errors"], "plies_read": len(uci),
                                       "pgnkit_plies": len(pk["uci"]), "same": same}
    ply = first_difference(pk["uci"], uci)
    san_ply = first_difference(pk["san"], san)
    if ply is None or (san_ply is not None and san_ply < ply):
        ply = san_ply
    at = lambda xs: xs[ply] if ply < len(xs) else None
    detail = {
        "ply": ply + 1,
        "pgnkit": {"uci": at(pk["uci"]), "san": at(pk["san"]), "plies": len(pk["uci"])},
        "python_chess": {"uci": at(uci), "san": at(san), "plies": len(uci)},
        "fen_before": fen_before(py["board"], py["moves"], ply),
    }
    if py["errors"]:
        detail["errors"] = py["errors"]
    return "disagreement", detail


def fen_before(board, moves, ply):
    if board is None:
        return None
    board = board.copy(stack=False)
    for move in moves[:ply]:
        if move and not board.is_legal(move):
            return None
        board.push(move)
    return board.fen()


class Report:
    def __init__(self):
        self.items = []  # dicts: kind, file, game, line, detail
        self.file_notes = []  # (file, text): framing differences and crashes
        self.counts = collections.Counter()

    def add(self, kind, file, pk, detail):
        self.items.append({"kind": kind, "file": file, "game": pk["game"], "line": pk["game_line"],
                           "detail": detail})


def compare_file(pgnkit, path, name, report):
    pk_games, error = pgnkit_games(pgnkit, path)
    if error:
        return error
    text = decode(read_bytes(path))
    py_games, crash, py_starts = python_games(text)
    c = report.counts
    c["files"] += 1
    c["pgnkit_games"] += len(pk_games)
    c["python_chess_games"] += len(py_games)
    if crash:
        report.file_notes.append((name, "python-chess crashed: %s" % crash))
    counts_differ = crash is not None or len(pk_games) != len(py_games)
    if counts_differ:
        c["files_framed_differently"] += 1
        report.file_notes.append((name, "games read: pgnkit %d, python-chess %d (paired by start line)"
                                  % (len(pk_games), len(py_games))))
    pk_starts = [g["game_line"] for g in pk_games]
    lines = None
    for pk, py in pair_games(pk_games, py_games):
        if not pk["valid"]:
            c["pgnkit_invalid"] += 1
            continue
        c["pgnkit_valid"] += 1
        framed_differently = counts_differ and py is not None and (
            next_start(pk_starts, pk["game_line"]) != next_start(py_starts, py["line"]))
        kind, detail = compare_game(pk, py, framed_differently)
        if framed_differently or py is None:
            # Second chance: python-chess reads the game as pgnkit cut it.
            if lines is None:
                lines = io.StringIO(text, newline=None).read().split("\n")
            again = reread(lines, pk, next_start(pk_starts, pk["game_line"]))
            if again is not None:
                kind, detail = compare_game(pk, again, False)
                detail["reread"] = True
                if kind == "agreed":
                    kind = "reread_agreed"
        if kind in ("agreed", "disagreement"):
            c["compared"] += 1
        c[kind] += 1
        if kind != "agreed":
            report.add(kind, name, pk, detail)
    return None


# --------------------------------------------------------------------------
# output

def print_text(report, out):
    for name, text in report.file_notes:
        print("NOTE %s: %s" % (name, text), file=out)
    for kind in GROUPS:
        items = [i for i in report.items if i["kind"] == kind]
        if not items:
            continue
        print("\n%s (%d):" % (TITLES[kind], len(items)), file=out)
        if kind == "reread_agreed":
            by_file = collections.defaultdict(list)
            for i in items:
                by_file[i["file"]].append(i["game"])
            for file, games in by_file.items():
                shown = ",".join(str(g) for g in games[:8]) + (",..." if len(games) > 8 else "")
                print("  %s: %d games (%s)" % (file, len(games), shown), file=out)
            continue
        for i in items:
            d = i["detail"]
            where = "  %s:%s (line %s)%s" % (i["file"], i["game"], i["line"],
                                             " [re-read in pgnkit's extent]" if d.get("reread") else "")
            errors = "; ".join(d.get("errors") or [])[:300]
            if kind == "disagreement":
                print("%s: first difference at ply %d (before it: %s)" % (where, d["ply"], d["fen_before"]),
                      file=out)
                for side in ("pgnkit", "python_chess"):
                    s = d[side]
                    print("      %-13s uci %-6s san %-8s (%d plies)" % (
                        side.replace("_", "-"), s["uci"], s["san"], s["plies"]), file=out)
                if errors:
                    print("      python-chess errors: %s" % errors, file=out)
            elif kind == "python_chess_errors":
                print("%s: pgnkit %d plies, python-chess read %d%s: %s" % (
                    where, d["pgnkit_plies"], d["plies_read"], ", all equal" if d["same"] else "", errors),
                      file=out)
            elif kind == "framed_differently":
                print("%s: pgnkit %d plies, python-chess %d%s" % (
                    where, d["pgnkit_plies"], d["python_chess_plies"],
                    " (python-chess errors: %s)" % errors if errors else ""), file=out)
            elif kind == "variant":
                print("%s: %s; pgnkit wrote %d moves" % (where, d["python_chess"], d["pgnkit_plies"]), file=out)
            else:
                print("%s: pgnkit %d plies" % (where, d["pgnkit_plies"]), file=out)


def print_summary(report, out):
    c = report.counts
    print("\ncompare_convert_uci: %d files; games read: pgnkit %d, python-chess %d "
          "(%d files framed differently); pgnkit valid %d, invalid %d (not compared); "
          "compared %d, agreed %d (+%d once re-read in pgnkit's extent), disagreements %d; "
          "not compared: python-chess errors %d, variant %d, framed differently %d, unpaired %d" % (
              c["files"], c["pgnkit_games"], c["python_chess_games"], c["files_framed_differently"],
              c["pgnkit_valid"], c["pgnkit_invalid"], c["compared"] + c["reread_agreed"], c["agreed"],
              c["reread_agreed"], c["disagreement"], c["python_chess_errors"], c["variant"],
              c["framed_differently"], c["unpaired"]), file=out)


def main():
    repo = Path(__file__).resolve().parent.parent
    target = Path(os.environ.get("CARGO_TARGET_DIR") or repo / "target")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pgnkit", type=Path, default=target / "release" / "pgnkit")
    parser.add_argument("--json", action="store_true", help="write the records that are not 'agreed' as JSON lines")
    parser.add_argument("paths", nargs="*", type=Path)
    args = parser.parse_args()

    paths = args.paths
    if not paths:
        corpus = next((c for c in (repo.parent / "shared/corpus/pgn", Path("/work/shared/corpus/pgn"))
                       if c.is_dir()), None)
        if corpus is None:
            print("skipped: no shared corpus (%s)" % (repo.parent / "shared/corpus/pgn"))
            return 0
        paths = [corpus]
    for p in paths:
        if not p.exists():
            print("no such file or folder: %s" % p, file=sys.stderr)
            return 2
    if not args.pgnkit.is_file():
        print("pgnkit binary %s not found: run `cargo build --release` or pass --pgnkit" % args.pgnkit,
              file=sys.stderr)
        return 2

    roots = [p for p in paths if p.is_dir()]

    def name(f):
        for r in roots:
            if f.is_relative_to(r):
                return f.relative_to(r).as_posix()
        return str(f)

    report = Report()
    for f in pgn_files(paths):
        error = compare_file(args.pgnkit, f, name(f), report)
        if error:
            print("%s: %s" % (f, error), file=sys.stderr)
            return 2

    if args.json:
        for i in report.items:
            print(json.dumps(i, ensure_ascii=False))
        for file, text in report.file_notes:
            print(json.dumps({"kind": "file", "file": file, "detail": text}, ensure_ascii=False))
        print_summary(report, sys.stderr)
    else:
        print_text(report, sys.stdout)
        print_summary(report, sys.stdout)
    return 1 if report.counts["disagreement"] else 0


if __name__ == "__main__":
    sys.exit(main())
