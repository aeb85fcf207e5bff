#!/usr/bin/env python3
"""Check the counts of `pgnkit stats --format json` against python-chess, an independent count.

Usage:
    python3 scripts/compare_stats.py [--pgnkit PATH] [--corpus DIR] [--no-variants]
                                     [--verbose] [FILE...]
    python3 scripts/compare_stats.py --self-test

Without FILE, every *.pgn under the corpus folder is checked (default:
<repo>/../shared/corpus/pgn, else /work/shared/corpus/pgn; absent = a skip,
exit 0). Files under its variants/ folder are checked too but reported and
summed separately (--no-variants leaves them out). The default binary is
$CARGO_TARGET_DIR/release/pgnkit, else <repo>/target/release/pgnkit. Needs
python-chess (`pip install chess`).

How a file is checked:

1. `pgnkit validate --format jsonl` gives pgnkit's games (start line, valid,
   plies, diagnostics); python-chess reads the same file (UTF-8, or Latin-1
   when the file is not valid UTF-8, as pgnkit decodes it) and the games are
   paired by start line.
2. Each paired game goes to one of two tiers:
   * full: python-chess read it without error, both sides play it as
     standard chess or Chess960, and both replayed the same number of
     mainline moves. Every field below is compared.
   * tags only: the rest (python-chess reports errors, a variant, one side
     stopped at a move the other played). Only what the tags define is
     compared: games, results, white_score_pct, decisive_rate, elo.
   Games are unpaired, counted and not compared, when the two readers framed
   the text differently (python-chess ends a game at a blank line, so it
   splits a game with blank lines inside its movetext and joins games with
   none between them), when python-chess crashed inside the game, and for
   the games listed in KNOWN_MISREAD.
3. The raw bytes of each tier's games (from a game's first line to the line
   before pgnkit's next game) are fed to `pgnkit stats --format json -` (the
   whole file when every game is in the full tier), and the JSON is compared
   leaf by leaf with python-chess's count of the same games. The tiers'
   `games` and `plies` must add up to those of `pgnkit stats FILE`.
4. A count that disagrees is traced to its games by bisection: pgnkit stats
   is run on halves of the games (the partials add up exactly) until single
   games disagree; those are listed with both values.

What python-chess's side counts (docs/chess-semantics.md):

* results: the Result tag (first occurrence, trimmed), one of 1-0, 0-1,
  1/2-1/2, *; anything else, or no tag, is *. white_score_pct = 100 (W +
  D/2) / (W + D + L), 2 decimals, decisive_rate = (W + L) / (W + D + L), 4
  decimals. (pgnkit
  falls back to the movetext's termination marker; see ALTERNATIVES.)
* plies: mainline moves replayed (a null move counts as one, as in both
  tools);
* terminations of the final position, the first that holds of: checkmate,
  stalemate, insufficient_material, seventyfive_moves, fivefold_repetition,
  fifty_moves, threefold_repetition (python-chess's is_*() methods), else
  none;
* draw_reasons, for games whose result is 1/2-1/2: the first automatic draw
  (75-move point: halfmove clock >= 150 with a legal move; fivefold
  repetition) if the game went on past it, else the final position's
  termination; checkmate and none give no reason. A repetition where every
  move of one side, from the first occurrence of the final position to the
  end, gave check is perpetual_check;
* castling: per side, games in which that side castled short, else long,
  else none; promotions by piece (underpromotions = rook + bishop +
  knight); en_passant captures; checks = mainline moves after which the side
  to move is in check (mates included);
* length: mean (2 decimals), median, p10, p25, p75, p90 by nearest rank
  (the ceil(p * n / 100)-th shortest game, in exact integer arithmetic),
  max, 10-ply histogram, and the per-ply counts;
* elo: WhiteElo / BlackElo when the trimmed value is a positive whole number
  in decimal digits; difference = White - Black over games with both.

Not compared: valid_games, invalid_games, unchecked_games and diagnostics (pgnkit's own
judgement, with no python-chess counterpart; the per-file line shows how
pgnkit's invalid games and python-chess's games with errors overlap).
Rounded values (means, rates) agree when pgnkit's value is within half a
unit of the last decimal of the exact rational value. A disagreement that
disappears when python-chess's side counts by one of the ALTERNATIVES
definitions (pgnkit's own, where it differs on purpose) is reported as
explained and does not fail the run.

Output: one line per file (games, tiers, exclusions with reasons), each
disagreement (field, pgnkit, python-chess, and the games found by
bisection), then a per-field table and a summary, corpus and variants/
apart. --verbose also lists every game left out of the full tier.
Exit status: 0 when nothing disagrees unexplained (or the corpus is
absent), 1 otherwise, 2 on usage errors or when pgnkit cannot be run.

--self-test checks this script's python-chess counting on small games with
known answers (no pgnkit, no corpus) and exits 0 or 1.
"""

import argparse
import bisect
import collections
import io
import json
import logging
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from pgn_oracle import LineCountingHandle, decode, termination

try:
    import chess
    import chess.pgn
except ImportError:
    sys.exit("compare_stats.py needs python-chess: pip install chess")

REPO = Path(__file__).resolve().parent.parent
CORPUS_CANDIDATES = (REPO.parent / "shared" / "corpus" / "pgn", Path("/work/shared/corpus/pgn"))
SHOWN_PER_FILE = 20
# Bisection stops after finding this many games for one field of one file.
LOCATED_PER_FIELD = 10

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
TERMINATIONS = ("checkmate", "stalemate", "insufficient_material", "seventyfive_moves",
                "fivefold_repetition", "fifty_moves", "threefold_repetition", "none")
DRAW_REASONS = ("stalemate", "insufficient_material", "seventyfive_moves", "fivefold_repetition",
                "fifty_moves", "threefold_repetition", "perpetual_check")
PROMOTIONS = {chess.QUEEN: "queen", chess.ROOK: "rook", chess.BISHOP: "bishop", chess.KNIGHT: "knight"}
SIDES = ("white", "black")
PERCENTILES = {"p10": 10, "median": 50, "p25": 25, "p75": 75, "p90": 90}
ELO = re.compile(r"[0-9]+")

# Fields that are not counts: derived from counts, so they cannot be traced to
# games by bisection. Value: decimals the value is rounded to, None for exact.
DERIVED = {"white_score_pct": 2, "decisive_rate": 4, "length.mean": 2, "length.median": None,
           "length.p10": None, "length.p25": None, "length.p75": None, "length.p90": None,
           "length.max": None, "elo.white.mean": 2, "elo.black.mean": 2,
           "elo.difference.mean": 2}
NOT_COMPARED = ("valid_games", "invalid_games", "unchecked_games", "diagnostics")

@dataclass(frozen=True)
class Rules:
    """How python-chess's side reads the result and the ratings."""
    # Without a Result tag that is 1-0, 0-1 or 1/2-1/2, take the movetext's
    # termination marker instead of `*`.
    result_from_marker: bool = False
    # The largest rating counted (None: no limit).
    elo_max: int | None = None


BASE = Rules()
# Definitions that differ from BASE on purpose: a disagreement that vanishes
# under one of them is reported as explained by it, not as a failure.
ALTERNATIVES = (
    (Rules(result_from_marker=True),
     "pgnkit takes the result from the movetext's termination marker when the "
     "Result tag is missing or not 1-0, 0-1 or 1/2-1/2 (game.rs, export_result)"),
    (Rules(elo_max=2 ** 32 - 1),
     "pgnkit reads ratings as 32-bit numbers; a larger value is no rating"),
)

# (file relative to the corpus, pgnkit's game number) -> why python-chess and
# pgnkit read that game's text differently, in a way the pairing rules cannot
# see. Such games are left out (unpaired), with the reason printed.
KNOWN_MISREAD = {
    ("chess.js/0.pgn", 1):
        "the whole game is one line with HTML '<br />' for line breaks; python-chess "
        "drops a line that starts with '[' but is not one tag, so it reads no tags, no "
        "moves and no termination marker, while pgnkit reads the line as movetext "
        "(every token after the first tag an invalid-san error) ending in the marker "
        "1-0, which it counts as the result",
}

# python-chess logs every game error; they are counted instead.
logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)


class OracleError(Exception):
    """The python-chess side contradicts itself: a bug in this script."""


class PgnkitError(Exception):
    pass


# --------------------------------------------------------------------------
# python-chess side

@dataclass
class PyGame:
    """What python-chess reads of one game: its tags, and, when it could be
    replayed as chess, the facts pgnkit's statistics count."""
    line: int
    end_line: int = 0                  # the last line python-chess read for it
    errors: list = field(default_factory=list)
    chess_variant: bool = True         # standard chess or Chess960
    tags: dict = field(default_factory=dict)     # first occurrence of each tag
    repeated_tags: list = field(default_factory=list)
    marker: str | None = None          # the movetext's termination marker
    replayed: bool = False
    plies: int = 0
    termination: str = "none"
    # Why the game was drawn, if its result is 1/2-1/2.
    reason_if_drawn: str | None = None
    castled: tuple = ((False, False), (False, False))  # per side: (short, long)
    promotions: collections.Counter = field(default_factory=collections.Counter)
    en_passant: int = 0
    checks: int = 0

    def result_by(self, rules):
        value = (self.tags.get("Result") or "").strip()
        if rules.result_from_marker and value not in RESULTS[:3]:
            value = self.marker
        return value if value in RESULTS else "*"

    @property
    def result(self):
        return self.result_by(BASE)

    def draw_reason_by(self, rules):
        return self.reason_if_drawn if self.result_by(rules) == "1/2-1/2" else None

    @property
    def draw_reason(self):
        return self.draw_reason_by(BASE)

    def elo(self, tag, rules=BASE):
        value = (self.tags.get(tag) or "").strip()
        if ELO.fullmatch(value) and 0 < int(value) <= (rules.elo_max or int(value)):
            return int(value)
        return None


@dataclass
class Crash:
    """python-chess raised while reading a game; it read no further."""
    error: str
    line: int

    def __str__(self):
        return "%s (near line %d)" % (self.error, self.line)


def builder_for(handle):
    """A GameBuilder that also keeps what python-chess's Game loses: the first
    value of a repeated tag (python-chess keeps the last), the Result tag as
    written (python-chess replaces `*` by the movetext's marker) and the
    marker itself."""

    class Builder(chess.pgn.GameBuilder):
        def begin_game(self):
            super().begin_game()
            self.game.start_line = handle.lineno
            self.game.raw_tags = {}
            self.game.repeated_tags = []
            self.game.marker = None

        def visit_header(self, tagname, tagvalue):
            super().visit_header(tagname, tagvalue)
            if tagname in self.game.raw_tags:
                self.game.repeated_tags.append(tagname)
            else:
                self.game.raw_tags[tagname] = tagvalue

        def visit_result(self, result):
            super().visit_result(result)
            self.game.marker = result

    return Builder


def read_games(text):
    """Every game python-chess reads from `text`, and the exception that
    stopped it early (python-chess raises on some malformed variations), or
    None."""
    handle = LineCountingHandle(io.StringIO(text))
    builder = builder_for(handle)
    games = []
    while True:
        try:
            game = chess.pgn.read_game(handle, Visitor=builder)
        except Exception as e:  # a python-chess fault, e.g. IndexError on a stray ')'
            return games, Crash("%s: %s" % (type(e).__name__, e), handle.lineno)
        if game is None:
            return games, None
        games.append(py_game(game))
        games[-1].end_line = handle.lineno


def py_game(game):
    pg = PyGame(line=game.start_line, errors=[str(e) for e in game.errors],
                tags=game.raw_tags, repeated_tags=game.repeated_tags, marker=game.marker)
    # Chess960 plays on chess.Board; other variants have their own board class.
    # An unknown Variant tag is among the errors.
    pg.chess_variant = not pg.errors and game.headers.variant() is chess.Board
    if pg.errors or not pg.chess_variant:
        return pg
    replay(pg, game.board(), list(game.mainline_moves()))
    return pg


def replay(pg, board, moves):
    """Plays the mainline and fills in pg's move facts.

    Repetitions are counted as the game goes (board.is_repetition() walks the
    move stack back at every call, which is quadratic): a position can only
    recur while no capture or pawn move intervenes, and exactly those reset
    the halfmove clock, so the counts are cleared there. Lost castling rights
    and ceded en passant captures need no clearing: _transposition_key(),
    the key is_repetition() itself compares, holds the castling rights and the
    en passant square only when a capture there is legal.
    """
    counts = collections.Counter()
    seen_at = collections.defaultdict(list)  # key -> plies at which it occurred
    gave_check = []                          # gave_check[ply - 1]: that move gave check
    castled = [[False, False], [False, False]]
    automatic_draw = None                    # (ply, rule) of the first one

    def observe(ply):
        nonlocal automatic_draw
        key = board._transposition_key()
        counts[key] += 1
        seen_at[key].append(ply)
        if automatic_draw is None:
            # Same ply: seventy-five moves comes first, as in the order of docs/chess-semantics.md.
            if board.halfmove_clock >= 150 and any(board.generate_legal_moves()):
                automatic_draw = (ply, "seventyfive_moves")
            elif counts[key] >= 5:
                automatic_draw = (ply, "fivefold_repetition")
        return key

    key = observe(0)
    for ply, move in enumerate(moves, 1):
        side = 0 if board.turn == chess.WHITE else 1
        if move and board.is_castling(move):
            castled[side][0 if board.is_kingside_castling(move) else 1] = True
        if move and board.is_en_passant(move):
            pg.en_passant += 1
        if move and move.promotion:
            pg.promotions[PROMOTIONS[move.promotion]] += 1
        board.push(move)
        gave_check.append(board.is_check())
        if board.halfmove_clock == 0:
            counts.clear()
            seen_at.clear()
        key = observe(ply)

    occurrences = counts[key]
    for n in (3, 5):
        if (occurrences >= n) != board.is_repetition(n):
            raise OracleError("repetition count %d disagrees with is_repetition(%d) on %s"
                              % (occurrences, n, board.fen()))
    pg.replayed = True
    pg.plies = len(moves)
    pg.checks = sum(gave_check)
    pg.castled = tuple((short, lng and not short) for short, lng in castled)
    pg.termination = termination(board, occurrences) or "none"
    pg.reason_if_drawn = draw_reason(pg, automatic_draw, seen_at[key], gave_check)


def draw_reason(pg, automatic_draw, final_occurrences, gave_check):
    if automatic_draw and automatic_draw[0] < pg.plies:
        return automatic_draw[1]
    end = pg.termination
    if end in ("checkmate", "none"):
        return None
    if end in ("threefold_repetition", "fivefold_repetition"):
        first = final_occurrences[0]
        # Moves first+1 .. plies; those of the side to move at `first` are
        # the odd ones counted from there.
        cycle = gave_check[first:pg.plies]
        if all(cycle[0::2]) or all(cycle[1::2]):
            return "perpetual_check"
    return end


# --------------------------------------------------------------------------
# python-chess's statistics, flattened like pgnkit's JSON ("a.b.c" paths)

def nearest_rank(lengths, percent):
    """The ceil(percent * n / 100)-th smallest length, exactly."""
    rank = max(1, -(-percent * len(lengths) // 100))
    return lengths[rank - 1]


def add_sum(out, prefix, values):
    out[prefix + ".games"] = len(values)
    out[prefix + ".sum"] = sum(values)
    out[prefix + ".mean"] = Fraction(sum(values), len(values)) if values else None


def py_stats(games, full, rules=BASE):
    """python-chess's count of `games`: every field for the full tier, the
    tag fields only otherwise. Derived values are exact Fractions."""
    out = {"games": len(games)}
    results = collections.Counter(g.result_by(rules) for g in games)
    for r in RESULTS:
        out["results." + r] = results[r]
    w, b, d = results["1-0"], results["0-1"], results["1/2-1/2"]
    scored = w + b + d
    out["white_score_pct"] = Fraction(100 * (2 * w + d), 2 * scored) if scored else None
    out["decisive_rate"] = Fraction(w + b, scored) if scored else None
    white = [g.elo("WhiteElo", rules) for g in games]
    black = [g.elo("BlackElo", rules) for g in games]
    add_sum(out, "elo.white", [e for e in white if e is not None])
    add_sum(out, "elo.black", [e for e in black if e is not None])
    add_sum(out, "elo.difference", [x - y for x, y in zip(white, black) if x is not None and y is not None])
    if not full:
        return out

    out["plies"] = sum(g.plies for g in games)
    terminations = collections.Counter(g.termination for g in games)
    for t in TERMINATIONS:
        out["terminations." + t] = terminations[t]
    reasons = collections.Counter(g.draw_reason_by(rules) for g in games)
    for r in DRAW_REASONS:
        out["draw_reasons." + r] = reasons[r]
    lengths = sorted(g.plies for g in games)
    out["length.mean"] = Fraction(sum(lengths), len(lengths)) if lengths else None
    for name, percent in PERCENTILES.items():
        out["length." + name] = nearest_rank(lengths, percent) if lengths else None
    out["length.max"] = lengths[-1] if lengths else None
    for bucket, n in collections.Counter(p // 10 * 10 for p in lengths).items():
        out["length.histogram.%d" % bucket] = n
    for plies, n in collections.Counter(lengths).items():
        out["length.by_plies.%d" % plies] = n
    for i, side in enumerate(SIDES):
        short = sum(g.castled[i][0] for g in games)
        lng = sum(g.castled[i][1] for g in games)
        out["castling.%s.short" % side] = short
        out["castling.%s.long" % side] = lng
        out["castling.%s.none" % side] = len(games) - short - lng
    promotions = collections.Counter()
    for g in games:
        promotions.update(g.promotions)
    for name in PROMOTIONS.values():
        out["promotions." + name] = promotions[name]
    out["promotions.underpromotions"] = promotions["rook"] + promotions["bishop"] + promotions["knight"]
    out["en_passant"] = sum(g.en_passant for g in games)
    out["checks"] = sum(g.checks for g in games)
    return out


def flatten(value, prefix="", out=None):
    out = {} if out is None else out
    if isinstance(value, dict):
        for k, v in value.items():
            flatten(v, prefix + "." + k if prefix else k, out)
    else:
        out[prefix] = value
    return out


def compared_paths(py, pk, full):
    """The paths to compare: python-chess's, plus pgnkit's length buckets
    (python-chess lists only those with games)."""
    paths = set(py)
    if full:
        paths.update(p for p in pk if p.startswith(("length.histogram.", "length.by_plies.")))
    return sorted(paths, key=path_order)


def path_order(path):
    # Numeric buckets in numeric order, the rest as pgnkit prints them.
    parts = path.split(".")
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts]


def agrees(path, pk_value, py_value):
    decimals = DERIVED.get(path)
    if isinstance(py_value, Fraction):
        if not isinstance(pk_value, (int, float)) or isinstance(pk_value, bool):
            return False
        # Either rounding of an exact half is fine; f64 sees no exact halves.
        return abs(Fraction(pk_value) - py_value) <= Fraction(1, 2 * 10 ** decimals) + Fraction(1, 10 ** 9)
    if py_value is None or pk_value is None:
        return pk_value is None and py_value is None
    return pk_value == py_value and not isinstance(pk_value, bool)


def short(n):
    text = str(n)
    return text if len(text) <= 12 else "~1e%d" % (len(text) - 1)


def shown(value):
    if isinstance(value, Fraction):
        text = str(value)
        if value.denominator == 1 or len(text) > 40:
            return text if len(text) <= 40 else text[:20] + "...(%d digits)" % len(text)
        return "%s (= %.6f)" % (text, value)
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:20] + "...(%d digits)" % len(text)


# --------------------------------------------------------------------------
# pgnkit side

def run_pgnkit(pgnkit, args, data=None):
    try:
        proc = subprocess.run([str(pgnkit)] + args, input=data, capture_output=True)
    except OSError as e:
        raise PgnkitError("could not run %s: %s" % (pgnkit, e))
    # 1 only means pgnkit found problems in the games.
    if proc.returncode not in (0, 1):
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise PgnkitError("`pgnkit %s` exited %d: %s" % (" ".join(args), proc.returncode,
                                                          " | ".join(err[-3:])))
    return proc.stdout


def pgnkit_games(pgnkit, path):
    games = []
    out = run_pgnkit(pgnkit, ["validate", "--format", "jsonl", "-j2", str(path)])
    for n, line in enumerate(out.decode("utf-8", "replace").splitlines(), 1):
        if line.strip():
            try:
                games.append(json.loads(line))
            except ValueError:
                raise PgnkitError("validate line %d is not JSON: %.100s" % (n, line))
    return games


def pgnkit_stats(pgnkit, path=None, data=None):
    out = run_pgnkit(pgnkit, ["stats", "--format", "json", "-j2", str(path) if path else "-"], data)
    try:
        return json.loads(out)
    except ValueError:
        raise PgnkitError("stats printed no JSON object: %.100s" % out)


def codes(pk):
    return [d.get("code") for d in pk.get("diagnostics") or []]


# --------------------------------------------------------------------------
# pairing, tiers, comparison

@dataclass
class Pair:
    index: int          # pgnkit's game number in the file
    pk: dict
    py: PyGame
    start: int          # byte range of the game in the file
    end: int


@dataclass
class Disagreement:
    tier: str
    path: str
    pgnkit: object
    python_chess: object
    games: list = field(default_factory=list)   # (game, line, pgnkit, python-chess)
    traced: bool = False
    explained: str | None = None


@dataclass
class FileResult:
    name: str
    variants: bool
    pgnkit_games: int = 0
    python_games: int = 0
    full: int = 0
    tags_only: int = 0
    unpaired_pgnkit: int = 0
    unpaired_python: int = 0
    reasons: collections.Counter = field(default_factory=collections.Counter)
    left_out: list = field(default_factory=list)     # (game, line, reason)
    crash: Crash | None = None
    # Cross-tab: (pgnkit valid, python-chess read without error) -> games.
    validity: collections.Counter = field(default_factory=collections.Counter)
    repeated_tags: int = 0
    disagreements: list = field(default_factory=list)
    # path -> (compared, agreed, explained) over this file's tiers.
    fields: dict = field(default_factory=dict)
    totals: dict = field(default_factory=dict)  # path -> [pgnkit sum, python-chess sum]
    failure: str | None = None


def line_starts(data):
    starts = [0]
    pos = data.find(b"\n")
    while pos != -1:
        starts.append(pos + 1)
        pos = data.find(b"\n", pos + 1)
    return starts


def tier_reason(pk, py):
    """Why a paired game is compared on its tags only, or None for the full tier."""
    if py.errors:
        return "tags only: python-chess errors"
    if not py.chess_variant or "unsupported-variant" in codes(pk):
        return "tags only: variant"
    if pk.get("plies") != py.plies:
        stop = [c for c in codes(pk) if c in ("illegal-move", "ambiguous-move", "invalid-san",
                                              "null-move", "moves-after-end")]
        return "tags only: replays differ (pgnkit %s)" % (stop[0] if stop else "plies %s" % pk.get("plies"))
    return None


def pair_games(data, text_games, pk_games, result, crash=None):
    """Pairs games by start line; returns (full, tags_only) lists of Pair.

    A pair needs python-chess's game to start on pgnkit's game's first line
    and to end before pgnkit's next game, with no other python-chess game
    starting in between: otherwise python-chess framed the text differently
    (it ends a game at a blank line, so it splits games with blank lines in
    their movetext and joins games without one between them) and the two
    are not the same game."""
    starts = line_starts(data)
    by_line = collections.defaultdict(list)
    for g in text_games:
        by_line[g.line].append(g)
    pk_lines = collections.Counter(pk.get("game_line") for pk in pk_games)
    firsts = [pk.get("game_line") or 0 for pk in pk_games]
    split = set()
    for g in text_games:
        if g.line not in pk_lines:
            at = bisect.bisect_right(firsts, g.line) - 1
            if at >= 0:
                split.add(at)
    crashed_in = bisect.bisect_right(firsts, crash.line) - 1 if crash else None
    full, tags_only = [], []
    for i, pk in enumerate(pk_games):
        line = pk.get("game_line")
        end_line = pk_games[i + 1].get("game_line") if i + 1 < len(pk_games) else None
        start = starts[line - 1] if line and line <= len(starts) else len(data)
        end = starts[end_line - 1] if end_line and end_line <= len(starts) else len(data)
        candidates = by_line.get(line, [])
        unpaired = None
        if len(candidates) != 1 or pk_lines[line] != 1:
            unpaired = "unpaired: no python-chess game starts there"
        elif end_line is not None and candidates[0].end_line >= end_line:
            unpaired = "unpaired: python-chess joined it with the next game"
        elif i in split:
            unpaired = "unpaired: python-chess split it"
        elif i == crashed_in:
            unpaired = "unpaired: python-chess crashed inside it"
        elif (result.name, pk.get("game", i + 1)) in KNOWN_MISREAD:
            unpaired = "unpaired: read differently (known): " + KNOWN_MISREAD[(result.name, pk.get("game", i + 1))]
        if unpaired:
            pk["unpaired"] = True
            result.unpaired_pgnkit += 1
            result.reasons[unpaired] += 1
            result.left_out.append((pk.get("game", i + 1), line, unpaired))
            continue
        py = candidates[0]
        py.paired = True
        result.validity[(bool(pk.get("valid")), not py.errors)] += 1
        result.repeated_tags += bool(py.repeated_tags)
        pair = Pair(pk.get("game", i + 1), pk, py, start, end)
        reason = tier_reason(pk, py)
        if reason:
            result.reasons[reason] += 1
            result.left_out.append((pair.index, line, reason))
            tags_only.append(pair)
        else:
            full.append(pair)
    result.unpaired_python = sum(1 for g in text_games if not getattr(g, "paired", False))
    return full, tags_only


def subset_bytes(data, pairs):
    return b"".join(data[p.start:p.end] for p in pairs)


def differing(py, pk, full):
    return [p for p in compared_paths(py, pk, full) if not agrees(p, pk.get(p), py.get(p))]


def trace(pgnkit, data, pairs, path, full, found):
    """Bisects `pairs` (whose counts disagree on `path`) down to single games."""
    if len(found) >= LOCATED_PER_FIELD:
        return
    if len(pairs) == 1:
        pk = flatten(pgnkit_stats(pgnkit, data=subset_bytes(data, pairs)))
        py = py_stats([pairs[0].py], full)
        found.append((pairs[0].index, pairs[0].pk.get("game_line"), pk.get(path), py.get(path)))
        return
    half = len(pairs) // 2
    for part in (pairs[:half], pairs[half:]):
        pk = flatten(pgnkit_stats(pgnkit, data=subset_bytes(data, part)))
        py = py_stats([p.py for p in part], full)
        if not agrees(path, pk.get(path), py.get(path)):
            trace(pgnkit, data, part, path, full, found)


def compare_tier(pgnkit, path, data, pairs, tier, whole_file, result):
    full = tier == "full"
    pk = flatten(pgnkit_stats(pgnkit, path=path) if whole_file
                 else pgnkit_stats(pgnkit, data=subset_bytes(data, pairs)))
    py = py_stats([p.py for p in pairs], full)
    if pk.get("games") != len(pairs):
        raise PgnkitError("%s tier: pgnkit stats read %s games from the %d games' bytes"
                          % (tier, pk.get("games"), len(pairs)))
    games = [p.py for p in pairs]
    alternatives = [(py_stats(games, full, rules), why) for rules, why in ALTERNATIVES]
    for p in compared_paths(py, pk, full):
        ok = agrees(p, pk.get(p), py.get(p))
        explained = None if ok else next((why for alt, why in alternatives if agrees(p, pk.get(p), alt.get(p))),
                                         None)
        compared, agreed, n_explained = result.fields.get(p, (0, 0, 0))
        result.fields[p] = (compared + 1, agreed + ok, n_explained + bool(explained))
        if p not in DERIVED and isinstance(py.get(p), int):
            totals = result.totals.setdefault(p, [0, 0])
            totals[0] += pk.get(p) or 0
            totals[1] += py.get(p)
        if ok:
            continue
        d = Disagreement(tier, p, pk.get(p), py.get(p), explained=explained)
        if p not in DERIVED:
            trace(pgnkit, data, pairs, p, full, d.games)
            d.traced = True
        result.disagreements.append(d)
    return pk


def compare_file(path, name, variants, pgnkit):
    result = FileResult(name, variants)
    data = Path(path).read_bytes()
    pk_games = pgnkit_games(pgnkit, path)
    text_games, result.crash = read_games(decode(data))
    result.pgnkit_games, result.python_games = len(pk_games), len(text_games)
    full, tags_only = pair_games(data, text_games, pk_games, result, result.crash)
    result.full, result.tags_only = len(full), len(tags_only)
    whole = len(full) == len(pk_games)
    seen = {"games": 0, "plies": 0}
    if full:
        pk = compare_tier(pgnkit, path, data, full, "full", whole, result)
        seen["games"] += pk["games"]
        seen["plies"] += pk["plies"]
    if tags_only:
        pk = compare_tier(pgnkit, path, data, tags_only, "tags only", False, result)
        seen["games"] += pk["games"]
        seen["plies"] += pk["plies"]
    if not whole:
        # The slices must be the games pgnkit reads in the file: the tiers add
        # up to the whole file (unpaired games aside).
        pk = pgnkit_stats(pgnkit, path=path)
        unpaired = [p for p in pk_games if p.get("unpaired")]
        expect = {"games": pk["games"] - len(unpaired),
                  "plies": pk["plies"] - sum(p.get("plies", 0) for p in unpaired)}
        if expect != seen:
            raise PgnkitError("the tiers' games/plies %s do not add up to the file's %s" % (seen, expect))
    return result


# --------------------------------------------------------------------------
# output

def print_file(result, verbose, out):
    if result.failure:
        print("FAIL %s: %s" % (result.name, result.failure), file=out)
        return
    status = "DIFF" if unexplained(result) else "ok"
    counts = "%d games" % result.pgnkit_games
    if result.python_games != result.pgnkit_games:
        counts += " (python-chess %d)" % result.python_games
    parts = ["%d full" % result.full, "%d tags only" % result.tags_only]
    unpaired = result.unpaired_pgnkit + result.unpaired_python
    if unpaired:
        parts.append("unpaired: pgnkit %d, python-chess %d" % (result.unpaired_pgnkit, result.unpaired_python))
    reasons = "; ".join("%s %d" % kv for kv in sorted(result.reasons.items()))
    print("%-4s %s: %s: %s%s" % (status, result.name, counts, ", ".join(parts),
                                 " (%s)" % reasons if reasons else ""), file=out)
    invalid_pk = sum(n for (valid, _), n in result.validity.items() if not valid)
    errors_py = sum(n for (_, clean), n in result.validity.items() if not clean)
    if invalid_pk or errors_py:
        print("     validity of paired games: pgnkit invalid %d, python-chess errors %d, both %d"
              % (invalid_pk, errors_py, result.validity[(False, False)]), file=out)
    if result.repeated_tags:
        print("     %d games repeat a tag (the first value is counted)" % result.repeated_tags, file=out)
    if result.crash:
        print("     python-chess stopped reading: %s" % result.crash, file=out)
    if verbose:
        for game, line, reason in result.left_out:
            print("     left out of the full tier: game %s (line %s): %s" % (game, line, reason), file=out)
    for d in result.disagreements[:SHOWN_PER_FILE]:
        print("     [%s] %s%s: pgnkit=%s python-chess=%s" % (
            d.tier, d.path, " (explained)" if d.explained else "", shown(d.pgnkit), shown(d.python_chess)),
            file=out)
        for game, line, pk, py in d.games:
            print("         game %s (line %s): pgnkit=%s python-chess=%s" % (game, line, shown(pk), shown(py)),
                  file=out)
        if d.traced and not d.games:
            print("         (no single game disagrees: the difference is in how the games add up)", file=out)
        if d.explained:
            print("         explained: %s" % d.explained, file=out)
    more = len(result.disagreements) - SHOWN_PER_FILE
    if more > 0:
        print("     ... and %d more disagreements" % more, file=out)


def unexplained(result):
    return [d for d in result.disagreements if not d.explained]


def field_group(path):
    """Per-ply and per-bucket counts are summed into one row each."""
    for prefix in ("length.by_plies.", "length.histogram."):
        if path.startswith(prefix):
            return prefix + "*"
    return path


def print_summary(label, results, out):
    if not results:
        return
    ok = [r for r in results if not r.failure]
    rows = {}
    for r in ok:
        for path, (compared, agreed, explained) in r.fields.items():
            row = rows.setdefault(field_group(path), [0, 0, 0, 0, 0, False])
            row[0] += compared
            row[1] += agreed
            row[2] += explained
            if path in r.totals:
                row[3] += r.totals[path][0]
                row[4] += r.totals[path][1]
            else:
                row[5] = True
    print("\n%s: per field (comparisons = file tiers compared; totals summed over them)" % label, file=out)
    print("  %-34s %11s %6s %9s %8s %12s %12s" % ("field", "comparisons", "agree", "explained", "disagree",
                                                  "pgnkit", "python-chess"), file=out)
    for group in sorted(rows, key=path_order):
        compared, agreed, explained, pk_total, py_total, derived = rows[group]
        totals = "%12s %12s" % ("-", "-") if derived else "%12s %12s" % (short(pk_total), short(py_total))
        print("  %-34s %11d %6d %9d %8d %s" % (group, compared, agreed, explained,
                                              compared - agreed - explained, totals), file=out)
    games = sum(r.pgnkit_games for r in ok)
    full = sum(r.full for r in ok)
    tags = sum(r.tags_only for r in ok)
    unpaired = sum(r.unpaired_pgnkit for r in ok)
    unpaired_py = sum(r.unpaired_python for r in ok)
    reasons = collections.Counter()
    for r in ok:
        reasons.update(r.reasons)
    disagreements = sum(len(unexplained(r)) for r in ok)
    explained = sum(len(r.disagreements) for r in ok) - disagreements
    print("%s: %d files, %d pgnkit games: %d compared in full, %d on tags only, %d unpaired "
          "(python-chess: %d unpaired); %d disagreements, %d explained%s" % (
              label, len(ok), games, full, tags, unpaired, unpaired_py, disagreements, explained,
              "; pgnkit failed on %d files" % (len(results) - len(ok)) if len(ok) < len(results) else ""),
          file=out)
    for reason, n in sorted(reasons.items()):
        print("%s: %s: %d games" % (label, reason, n), file=out)
    print("%s: not compared: %s" % (label, ", ".join(NOT_COMPARED)), file=out)


# --------------------------------------------------------------------------
# self-test of the python-chess side

SELF_TEST = [
    # (pgn, expected PyGame attributes)
    ('[Result "1-0"]\n[WhiteElo "2000"]\n[BlackElo "?"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n',
     dict(plies=7, termination="checkmate", checks=1, result="1-0", draw_reason=None)),
    ('[Result "*"]\n\n1. e4 d5 2. e5 f5 3. exf6 Nxf6 4. Nf3 e6 5. Be2 Be7 6. O-O O-O *\n',
     dict(plies=12, en_passant=1, castled=((True, False), (True, False)), result="*")),
    # The first of two Result tags counts. Black castles long, White promotes
    # to a queen, Black to a knight with check.
    ('[Result "0-1"]\n[Result "1-0"]\n[SetUp "1"]\n[FEN "r3k3/7P/8/8/8/8/4K1p1/8 b q - 0 1"]\n\n'
     '1... O-O-O 2. h8=Q g1=N+ 0-1\n',
     dict(plies=3, result="0-1", castled=((False, False), (False, True)),
          promotions={"queen": 1, "knight": 1}, checks=1, repeated_tags=["Result"])),
    # White checks on e8 and h5 until the start position occurs a third time.
    ('[Result "1/2-1/2"]\n[SetUp "1"]\n[FEN "6k1/6p1/5p2/7Q/8/8/5PPP/6K1 w - - 0 1"]\n\n'
     '1. Qe8+ Kh7 2. Qh5+ Kg8 3. Qe8+ Kh7 4. Qh5+ Kg8 1/2-1/2\n',
     dict(plies=8, termination="threefold_repetition", draw_reason="perpetual_check", checks=4)),
    # Knight shuffles without a check: a plain threefold repetition.
    ('[Result "1/2-1/2"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2\n',
     dict(plies=8, termination="threefold_repetition", draw_reason="threefold_repetition", checks=0)),
    # The same shuffles in a game White won: no draw reason.
    ('[Result "1-0"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1-0\n',
     dict(termination="threefold_repetition", draw_reason=None)),
    # "1/2" is not a result.
    ('[Result "1/2"]\n\n1. e4 *\n', dict(plies=1, termination="none", result="*")),
    ('[Result "1/2-1/2"]\n[SetUp "1"]\n[FEN "8/8/8/3k4/8/3n4/8/3K4 w - - 0 1"]\n\n1. Kd2 Kd4 1/2-1/2\n',
     dict(plies=2, termination="insufficient_material", draw_reason="insufficient_material")),
    # The 75-move point is reached and play goes on past it (a pawn move
    # resets the clock): the game was drawn there.
    ('[Result "1/2-1/2"]\n[SetUp "1"]\n[FEN "4k3/8/8/8/8/8/P7/R3K3 w - - 149 100"]\n\n'
     '100. Rb1 Kd8 101. a3 1/2-1/2\n',
     dict(plies=3, termination="none", draw_reason="seventyfive_moves")),
]


def self_test():
    failures = []
    checks = 0

    def check(what, got, want):
        nonlocal checks
        checks += 1
        if got != want:
            failures.append("%s: got %r, want %r" % (what, got, want))

    for n, (pgn, want) in enumerate(SELF_TEST, 1):
        games, crash = read_games(pgn)
        check("case %d: games read" % n, (len(games), crash), (1, None))
        if not games:
            continue
        g = games[0]
        check("case %d: python-chess errors" % n, g.errors, [])
        for name, value in want.items():
            got = getattr(g, name)
            check("case %d: %s" % (n, name), dict(got) if name == "promotions" else got, value)

    elo = PyGame(line=1, tags={"WhiteElo": " 2100 ", "BlackElo": "0"})
    check("elo trimmed", elo.elo("WhiteElo"), 2100)
    check("elo zero is none", elo.elo("BlackElo"), None)
    for text in ("-", "?", "", "1_500", "+1500", "15.5"):
        check("elo %r is none" % text, PyGame(line=1, tags={"WhiteElo": text}).elo("WhiteElo"), None)

    # Nearest rank: the ceil(p * n / 100)-th shortest game.
    check("p10 of 1..30", nearest_rank(list(range(1, 31)), 10), 3)
    check("p90 of 1..30", nearest_rank(list(range(1, 31)), 90), 27)
    check("median of 1..5", nearest_rank([1, 2, 3, 4, 5], 50), 3)
    check("median of 1..4", nearest_rank([1, 2, 3, 4], 50), 2)
    check("p10 of one game", nearest_rank([7], 10), 7)

    games = [PyGame(line=i, tags={"Result": r}) for i, r in enumerate(["1-0", "1/2-1/2", "0-1", "1-0", "*"])]
    stats = py_stats(games, full=False)
    check("white score", stats["white_score_pct"], Fraction(125, 2))
    check("decisive rate", stats["decisive_rate"], Fraction(3, 4))
    check("rounding within half a unit", agrees("white_score_pct", 62.5, Fraction(125, 2)), True)
    check("rounding off by a unit", agrees("length.mean", 1.01, Fraction(1, 1)), False)
    check("2/3 to 2 decimals", agrees("length.mean", 0.67, Fraction(2, 3)), True)
    check("exact count", agrees("checks", 3, 3), True)
    check("null is not 0", agrees("length.max", None, 0), False)

    for f in failures:
        print("self-test: " + f)
    print("self-test: %d checks, %d failures" % (checks, len(failures)))
    return 1 if failures else 0


# --------------------------------------------------------------------------

def display_name(path, corpus):
    """Relative to the corpus when inside it, as KNOWN_MISREAD names files."""
    try:
        return path.resolve().relative_to(corpus.resolve()).as_posix()
    except (AttributeError, ValueError):
        return str(path)


def default_pgnkit():
    target = os.environ.get("CARGO_TARGET_DIR")
    return (Path(target) if target else REPO / "target") / "release" / "pgnkit"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pgnkit", type=Path, default=default_pgnkit(),
                        help="pgnkit binary (default: %(default)s)")
    parser.add_argument("--corpus", type=Path, help="folder of *.pgn files (default: the shared corpus)")
    parser.add_argument("--no-variants", action="store_true", help="leave out the corpus's variants/ folder")
    parser.add_argument("--verbose", action="store_true", help="list every game left out of the full tier")
    parser.add_argument("--self-test", action="store_true", help="check this script's own counting and exit")
    parser.add_argument("files", nargs="*", type=Path, metavar="FILE")
    args = parser.parse_args()
    if args.self_test:
        return self_test()

    corpus = args.corpus or next((c for c in CORPUS_CANDIDATES if c.is_dir()), None)
    if args.files:
        missing = [f for f in args.files if not f.is_file()]
        if missing:
            print("no such file: %s" % ", ".join(map(str, missing)), file=sys.stderr)
            return 2
        files = [(f, display_name(f, corpus), False) for f in args.files]
    else:
        if corpus is None or not corpus.is_dir():
            print("skipping: no corpus folder (looked for %s)" % ", ".join(map(str, CORPUS_CANDIDATES)))
            return 0
        files = []
        for f in sorted(corpus.rglob("*.pgn")):
            rel = f.relative_to(corpus).as_posix()
            variants = rel.startswith("variants/")
            if not (variants and args.no_variants):
                files.append((f, rel, variants))
        # The variants are reported after the rest.
        files.sort(key=lambda t: t[2])
    if not args.pgnkit.is_file():
        print("pgnkit binary %s not found: build it (cargo build --release) or pass --pgnkit" % args.pgnkit,
              file=sys.stderr)
        return 2

    began = time.monotonic()
    out = sys.stdout
    results = []
    for path, name, variants in files:
        try:
            result = compare_file(path, name, variants, args.pgnkit)
        except PgnkitError as e:
            result = FileResult(name, variants, failure=str(e))
        results.append(result)
        print_file(result, args.verbose, out)
        out.flush()

    print_summary("corpus" if not args.files else "files", [r for r in results if not r.variants], out)
    print_summary("variants/ (counted separately)", [r for r in results if r.variants], out)
    print("compare_stats: %.1f s" % (time.monotonic() - began), file=out)
    if any(r.failure for r in results):
        return 2
    return 1 if any(unexplained(r) for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
