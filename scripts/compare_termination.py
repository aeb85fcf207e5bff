#!/usr/bin/env python3
"""Check how pgnkit says each game ends against python-chess, an independent oracle.

Usage:
    python3 scripts/compare_termination.py [--pgnkit PATH] [--limit N] [FILE...]

Without FILE, every *.pgn under ../shared/corpus/pgn (relative to the repo
root, found from this script's location) is checked, recursively; if that
folder is absent the check is skipped (exit 0). The default binary is
<repo>/target/release/pgnkit. Needs python-chess (`pip install chess`).

For each file, `pgnkit validate --format jsonl -j2 FILE` is run and the same
file is read with python-chess (`chess.pgn.read_game` in a loop; UTF-8, or
Windows-1252 when the file is not valid UTF-8, as pgnkit decodes it). Games are
paired by order. A pair is skipped (counted, not compared) when pgnkit says
valid=false, python-chess reports errors, the game is a variant other than
standard chess or Chess960, the two readers started the game on different
lines (they framed the file differently, so the pair is not the same game),
or the number of mainline moves differs from pgnkit's `plies`.

For each compared game the mainline is replayed with python-chess and these
are compared with pgnkit's JSON (docs/chess-semantics.md):

* termination: the first that holds for the final position, in the order
  checkmate, stalemate, insufficient_material, seventyfive_moves,
  fivefold_repetition, fifty_moves, threefold_repetition; else null
  (python-chess's own is_checkmate(), ..., is_repetition(3));
* final_fen: board.fen(en_passant="legal");
* only when pgnkit's object has the key: threefold_ply / fivefold_ply, the
  first ply p (0 = start position) at which the position after p plies occurs
  for the 3rd / 5th time, and fifty_moves_ply / seventyfive_moves_ply, the
  first p where the halfmove clock is >= 100 / 150 and the side to move has a
  legal move; null when never.

--limit N caps the games compared per file (pgnkit still reads the whole
file; python-chess stops after N games), for a quick run.

Output: one line per file (games compared and skipped, with the reasons),
each disagreement (file, game, field, pgnkit value, python-chess value; at
most 20 per file plus a count), and a one-line summary.
Exit status: 0 when nothing disagrees (or the corpus is absent), 1 on any
disagreement, 2 on usage errors or when pgnkit cannot be run on a file.
"""

import argparse
import collections
import io
import json
import logging
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from pgn_oracle import LineCountingHandle, decode, termination

try:
    import chess
    import chess.pgn
except ImportError:
    sys.exit("compare_termination.py needs python-chess: pip install chess")

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus" / "pgn"
SHOWN_PER_FILE = 20

# Optional pgnkit fields: name -> (kind, threshold). "repetition" counts
# occurrences of a position, "halfmoves" is the halfmove clock.
PLY_FIELDS = {
    "threefold_ply": ("repetition", 3),
    "fivefold_ply": ("repetition", 5),
    "fifty_moves_ply": ("halfmoves", 100),
    "seventyfive_moves_ply": ("halfmoves", 150),
}

SKIP_REASONS = ("pgnkit invalid", "python-chess errors", "variant", "framed differently",
                "plies differ", "unpaired")

# python-chess logs every game error; they are counted as skips instead.
logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)


class OracleError(Exception):
    """The python-chess side contradicts itself: a bug in this script."""


# --------------------------------------------------------------------------
# python-chess side

@dataclass
class PyGame:
    line: int
    skip: str | None = None        # a SKIP_REASONS entry, when not comparable
    plies: int = 0
    values: dict = field(default_factory=dict)  # field name -> python-chess value


def start_line_builder(handle):
    class Builder(chess.pgn.GameBuilder):
        def begin_game(self):
            super().begin_game()
            self.game.start_line = handle.lineno
    return Builder


def replay(board, moves):
    """Plays `moves` on `board` and returns the values to compare.

    Repetitions are counted incrementally: board.is_repetition() walks back
    through the move stack at every call, which is quadratic over a long game.
    Two positions can only be equal if no capture or pawn move lies between
    them (the halfmove clock is reset to 0 by exactly those moves), so the
    counts are cleared there. Moves that lose castling rights or cede an en
    passant capture (python-chess's other "irreversible" moves) need no
    clearing: the key holds the castling rights and, via
    _transposition_key(), the en passant square only when an en passant
    capture is legal, so no earlier position can match a later one anyway.
    """
    firsts = dict.fromkeys(PLY_FIELDS)
    counts = collections.Counter()

    def observe(ply):
        key = board._transposition_key()
        counts[key] += 1
        for name, (kind, threshold) in PLY_FIELDS.items():
            if firsts[name] is not None:
                continue
            if kind == "repetition":
                if counts[key] >= threshold:
                    firsts[name] = ply
            elif board.halfmove_clock >= threshold and any(board.generate_legal_moves()):
                firsts[name] = ply
        return counts[key]

    occurrences = observe(0)
    for ply, move in enumerate(moves, 1):
        board.push(move)
        if board.halfmove_clock == 0:
            counts.clear()
        occurrences = observe(ply)

    # The incremental counts stand in for is_repetition() in the *_ply fields;
    # check they agree with it on the final position, where both are known.
    for n in (3, 5):
        if (occurrences >= n) != board.is_repetition(n):
            raise OracleError("repetition count %d disagrees with is_repetition(%d) on %s"
                              % (occurrences, n, board.fen()))

    values = {"board_termination": termination(board), "final_fen": board.fen(en_passant="legal")}
    values.update(firsts)
    return values


def python_games(path, limit):
    """Reads up to `limit` games of `path` with python-chess. Returns
    (games, crash): crash is the text of an exception python-chess raised
    (reading stops there), else None."""
    handle = LineCountingHandle(io.StringIO(decode(Path(path).read_bytes())))
    builder = start_line_builder(handle)
    games = []
    while limit is None or len(games) < limit:
        try:
            game = chess.pgn.read_game(handle, Visitor=builder)
        except Exception as e:  # python-chess bugs, e.g. IndexError on a stray ')'
            return games, "%s: %s (near line %d)" % (type(e).__name__, e, handle.lineno)
        if game is None:
            break
        games.append(python_game(game))
    return games, None


def python_game(game):
    line = getattr(game, "start_line", 0)
    if game.errors:
        # An unknown Variant is one of these errors, so it is checked first.
        return PyGame(line, skip="python-chess errors")
    # Chess960 plays on a plain chess.Board; other variants have their own class.
    if game.headers.variant() is not chess.Board:
        return PyGame(line, skip="variant")
    moves = list(game.mainline_moves())
    return PyGame(line, plies=len(moves), values=replay(game.board(), moves))


# --------------------------------------------------------------------------
# pgnkit side

class PgnkitError(Exception):
    pass


def pgnkit_games(pgnkit, path):
    try:
        proc = subprocess.run([str(pgnkit), "validate", "--format", "jsonl", "-j2", str(path)],
                              capture_output=True)
    except OSError as e:
        raise PgnkitError("could not run %s: %s" % (pgnkit, e))
    # 1 only means pgnkit found errors in the games.
    if proc.returncode not in (0, 1):
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise PgnkitError("pgnkit exited %d: %s" % (proc.returncode, " | ".join(err[-3:])))
    games = []
    for n, line in enumerate(proc.stdout.decode("utf-8", "replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            games.append(json.loads(line))
        except ValueError:
            raise PgnkitError("stdout line %d is not JSON: %.100s" % (n, line))
    return games


def is_pgnkit_variant(pk):
    return any(d.get("code") == "unsupported-variant" for d in pk.get("diagnostics") or [])


# --------------------------------------------------------------------------
# comparison

@dataclass
class Disagreement:
    game: int
    line: int
    field: str
    pgnkit: object
    python_chess: object


@dataclass
class FileResult:
    name: str
    pgnkit_games: int = 0
    python_games: int = 0
    compared: int = 0
    skipped: collections.Counter = field(default_factory=collections.Counter)
    disagreements: list = field(default_factory=list)
    crash: str | None = None
    fields_seen: set = field(default_factory=set)


def skip_reason(pk, py):
    if not pk.get("valid"):
        return "pgnkit invalid"
    if py.skip:
        return py.skip
    if is_pgnkit_variant(pk):
        return "variant"
    if pk.get("game_line") != py.line:
        return "framed differently"
    if pk.get("plies") != py.plies:
        return "plies differ"
    return None


def compare_file(path, name, pgnkit, limit):
    result = FileResult(name)
    pk_games = pgnkit_games(pgnkit, path)
    if limit is not None:
        pk_games = pk_games[:limit]
    py_games, result.crash = python_games(path, limit)
    result.pgnkit_games, result.python_games = len(pk_games), len(py_games)

    # The games one side has and the other lacks (framing differences,
    # a python-chess crash) cannot be compared.
    result.skipped["unpaired"] = abs(len(pk_games) - len(py_games))
    for index, (pk, py) in enumerate(zip(pk_games, py_games), 1):
        reason = skip_reason(pk, py)
        if reason:
            result.skipped[reason] += 1
            continue
        result.compared += 1
        fields = ["board_termination", "final_fen"] + [f for f in PLY_FIELDS if f in pk]
        result.fields_seen.update(f for f in PLY_FIELDS if f in pk)
        for f in fields:
            if pk.get(f) != py.values[f]:
                result.disagreements.append(Disagreement(
                    pk.get("game", index), py.line, f, pk.get(f), py.values[f]))
    return result


# --------------------------------------------------------------------------
# output

def fmt(value):
    return json.dumps(value, ensure_ascii=False)


def print_file(result, out):
    skipped = sum(result.skipped.values())
    reasons = ", ".join("%s %d" % (r, result.skipped[r]) for r in SKIP_REASONS
                        if result.skipped[r])
    status = "DIFF" if result.disagreements else "ok"
    counts = "%d games" % result.pgnkit_games
    if result.python_games != result.pgnkit_games:
        counts += " (python-chess %d)" % result.python_games
    print("%-4s %s: %s, %d compared, %d skipped%s" % (
        status, result.name, counts, result.compared, skipped,
        " (%s)" % reasons if reasons else ""), file=out)
    if result.crash:
        print("     python-chess stopped reading: %s" % result.crash, file=out)
    for d in result.disagreements[:SHOWN_PER_FILE]:
        print("     %s game %d (line %d): %s: pgnkit=%s python-chess=%s" % (
            result.name, d.game, d.line, d.field, fmt(d.pgnkit), fmt(d.python_chess)), file=out)
    more = len(result.disagreements) - SHOWN_PER_FILE
    if more > 0:
        print("     ... and %d more disagreements in %s" % (more, result.name), file=out)


def default_files():
    return sorted(CORPUS.rglob("*.pgn"))


def display_name(path):
    try:
        return path.resolve().relative_to(CORPUS.resolve()).as_posix()
    except ValueError:
        return str(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pgnkit", type=Path, default=REPO / "target" / "release" / "pgnkit",
                        help="pgnkit binary (default: %(default)s)")
    parser.add_argument("--limit", type=int, metavar="N",
                        help="compare at most the first N games of each file")
    parser.add_argument("files", nargs="*", type=Path, metavar="FILE")
    args = parser.parse_args()
    if args.limit is not None and args.limit < 0:
        parser.error("--limit must be >= 0")

    if args.files:
        files = args.files
        missing = [f for f in files if not f.is_file()]
        if missing:
            print("no such file: %s" % ", ".join(map(str, missing)), file=sys.stderr)
            return 2
    else:
        if not CORPUS.is_dir():
            print("skipping: ../shared/corpus/pgn not found (looked for %s)" % CORPUS)
            return 0
        files = default_files()

    if not args.pgnkit.is_file():
        print("pgnkit binary %s not found: build it or pass --pgnkit" % args.pgnkit,
              file=sys.stderr)
        return 2

    out = sys.stdout
    results, failures = [], 0
    for path in files:
        name = display_name(path)
        try:
            result = compare_file(path, name, args.pgnkit, args.limit)
        except PgnkitError as e:
            print("FAIL %s: %s" % (name, e), file=out)
            failures += 1
            continue
        results.append(result)
        print_file(result, out)
        out.flush()

    compared = sum(r.compared for r in results)
    skipped = sum(sum(r.skipped.values()) for r in results)
    disagreements = sum(len(r.disagreements) for r in results)
    seen = set().union(*(r.fields_seen for r in results))
    checked = ["board_termination", "final_fen"] + [f for f in PLY_FIELDS if f in seen]
    print("compare_termination: %d files, %d games compared, %d skipped, %d disagreements%s; "
          "fields checked: %s" % (
              len(results), compared, skipped, disagreements,
              ", pgnkit failed on %d files" % failures if failures else "",
              ", ".join(checked)), file=out)
    if failures:
        return 2
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
