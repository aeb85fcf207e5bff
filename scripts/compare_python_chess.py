#!/usr/bin/env python3
"""Compare `pgnkit validate --format jsonl` with python-chess, game by game.

Usage:
    python3 scripts/compare_python_chess.py [--pgnkit PATH] [--shared DIR]
                                            [--json] [--python-only] [FILES...]

Without FILES, every *.pgn under <shared>/corpus/pgn and <shared>/corpus/bad
(recursively) is checked. Defaults: the binary is <repo>/target/release/pgnkit
and the shared dir is <repo>/../shared (<repo> is this script's parent's
parent). A missing shared dir is a skip (exit 0). Needs `pip install chess`.

For each file, pgnkit's JSON Lines (docs/output-formats.md, "validate") are
compared with what python-chess reads from the same file:

* the number of games (python-chess runs until it raises, which it does on
  some malformed variations; a crash is reported like a difference);
* per game (matched by index, or by start line when the counts differ):
  `game_line`, `plies`, `valid`, `final_fen`, `board_termination`, and the `white`,
  `black` and `result` tag values (a tag python-chess did not see matches
  null, "" or "?"; a missing Result also matches the termination marker).

What python-chess is taken to say:

* plies: mainline moves replayed up to the first one that is not legal; a
  null move (`--`, `Z0`) counts as a ply that passes the turn, as in
  python-chess (which raises no error for it) and pgnkit (a warning);
* valid: no entry in `game.errors`, a valid start position
  (`Board.status()`), and every mainline move legal (null moves aside). A
  Variant tag naming Chess960 in any spelling ("chess-960", ...) is played
  as Chess960, even where python-chess calls the spelling unsupported;
* final_fen: `board.fen(en_passant="legal")` (pgnkit names an en passant
  square only when a capture is legal);
* board_termination: `termination()` of scripts/pgn_oracle.py (the order of docs/chess-semantics.md);
* tags: the raw tag text with the PGN escapes \\" and \\\\ undone (python-chess
  keeps them verbatim); a file that is not valid UTF-8 is read as Windows-1252,
  as pgnkit does (a value that is valid UTF-8 is still read as UTF-8).

Results fall into these groups:

* disagreement: unexplained; any of them makes the exit status 1;
* known python-chess fault: listed in KNOWN below, with why python-chess is
  wrong there; reported, not failing;
* pgnkit stricter: pgnkit says invalid, python-chess valid, and pgnkit's
  replay is a prefix of python-chess's (its final_fen is python-chess's
  position after pgnkit's plies): either both played the same moves and
  pgnkit rejects something else (result checks, a stray token python-chess
  skips, ...), or pgnkit stopped at an error that is not illegal-move or
  ambiguous-move (a token it cannot read as SAN, which python-chess skipped or
  read leniently); reported with pgnkit's diagnostics, not failing. Games that
  python-chess framed differently never land here;
* variants: files under pgn/variants/ and games whose Variant tag is not
  standard chess or Chess960; pgnkit validates standard chess only, so they are
  listed, not compared.

`--json` writes every non-matching record as one JSON object per line on
stdout (field `kind`: disagreement, known, pgnkit_stricter, variant) and the
summary on stderr. `--python-only` prints python-chess's own per-game records
as JSON Lines and does not run pgnkit.

Exit status: 0 when there is no unexplained disagreement (or the shared dir
is missing), 1 otherwise, 2 on usage errors or a missing pgnkit binary.
"""

import argparse
import io
import json
import logging
import sys
from pathlib import Path
from pgn_oracle import SINGLE_BYTE, SINGLE_BYTE_ERRORS, LineCountingHandle, pgnkit_jsonl
from pgn_oracle import termination as oracle_termination

try:
    import chess
    import chess.pgn
except ImportError:
    sys.exit("compare_python_chess.py needs python-chess: pip install chess")

# (path relative to <shared>/corpus, game index or "*") -> why python-chess is
# wrong there. Only cases checked by reading the file's bytes. The game index
# is pgnkit's. A "*" entry explains the file-level findings (game count,
# python-chess crash) and the games whose extent python-chess got wrong (a
# different start line or a different next game); games that both read with
# the same extent are still compared and need their own entry.
#
# Background (python-chess 1.11.2, chess/pgn.py read_game): once movetext has
# begun, "An empty line means the end of a game" -- a blank line ends the game
# even inside movetext, while a termination marker (1-0, *, ...) does NOT end
# it; the text after the blank line is read as a new tag-less game starting
# from the initial position. And after an illegal move its recovery skips to
# the next ')' and calls end_variation() without popping its board stack; a
# later ')' then pops the game's root from GameBuilder.variation_stack and the
# next move raises IndexError, which aborts the whole file.
BLANK_LINE_SPLIT = ("python-chess ends a game at any blank line, even inside movetext, "
                    "and reads the rest as new tag-less games from the initial position")
KNOWN = {
    ("pgn/pgn-extract/test-fuzzydepth.pgn", "*"):
        "4 tag-less games, one per line, each ending with '*' and no blank line "
        "between them; python-chess ends a game only at a blank line, not at a "
        "termination marker, so it joins all four into one game and reports "
        "'Nf3' (line 2's first move) as illegal for Black. pgn-extract and "
        "SOURCES.md count 4 games.",
    ("pgn/kokopu/games-long-short-comments-variations-1.pgn", "*"):
        BLANK_LINE_SPLIT + ": this single game (kokopu fixture, Result '*') has "
        "blank lines between every comment/move group (lines 10-30), so python-chess "
        "reads 11 fragments, e.g. '1... e5' at line 15 as an illegal first move.",
    ("pgn/kokopu/games-long-short-comments-variations-2.pgn", "*"):
        BLANK_LINE_SPLIT + ": this single game has blank lines at lines 10-24; the "
        "fragment '(3. Bb5 a6) (3. d4) 3... Bc5' at line 19 starts with an "
        "illegal move inside a variation, and python-chess's recovery then "
        "crashes with IndexError (GameBuilder.variation_stack emptied).",
    ("pgn/kokopu/games-long-short-comments-variations-3.pgn", "*"):
        BLANK_LINE_SPLIT + ": this single game has blank lines at lines 10-16, so "
        "python-chess reads 5 fragments ('1... e5' at line 13 illegal from the "
        "start position).",
    ("pgn/kokopu/misc.pgn", "*"):
        BLANK_LINE_SPLIT + ": kokopu counts 15 games; blank lines inside the "
        "movetext of games 4 'American Chess Congress' (lines 36, 39, 43, 45), 6 "
        "'long/short comment descriptors' (lines 59-83) and 15 'Multi-part comment' "
        "(lines 149, 152) split them; the fragment '{...} (1... c6) {...} 2. d4' at "
        "line 150 (an illegal variation move, then ')') makes python-chess crash "
        "with IndexError, so it never reads the rest of game 15.",
    ("bad/pychess/lichess_study_lichess-practice-the-fork_by_arex_2017.01.29.pgn", "*"):
        "python-chess crashes (IndexError) in game 17 (line 256-270): the main line "
        "'1... Nxg5 2. Bxg5 f6 *' is legal, but the variation '(1. Bxc6+)' is not "
        "legal for Black, who is to move (it is copied from game 18, where White "
        "plays 1. Bxc6+). python-chess skips to ')' without popping its board "
        "stack, reads the next '(' as no variation (the stale board has no moves) "
        "and plays '1. Nxc6' (as Ne7-c6, ignoring the capture mark) on that stale "
        "board; its ')' then empties GameBuilder.variation_stack and '2. Bxg5' "
        "raises IndexError. python-chess never reads games 17 and 18.",
    ("bad/kokopu/semantic-error.pgn", "*"):
        BLANK_LINE_SPLIT + ": game 6 (line 32) has a blank line (line 36) between "
        "its opening comment and '1. O-O *', so python-chess reads a movetext-less "
        "game 6 that it calls valid plus a tag-less game '1. O-O' (line 37). kokopu "
        "counts 7 games and, like pgnkit, reports O-O at line 37 as illegal.",
    ("bad/kokopu/syntactic-error-1.pgn", "*"):
        "kokopu's syntax-error fixture (kokopu counts 21 games). python-chess drops "
        "malformed tag lines silently, reads the rest of a tag broken by a line "
        "break ('on the Earth\"]', lines 25 and 49) or missing its '[' (line 98) as "
        "movetext whose words it skips without error, and then ends the game at "
        "the next blank line, so the '*' at lines 27 and 100 and '1. e4 1-0' at "
        "line 52 become extra games and games 5, 9 and 19 look valid to it; "
        "pgnkit reports those words as invalid-san, and kokopu reports errors "
        "there too. (pgnkit, unlike kokopu, also starts a game at the tag line 50 "
        "that follows the broken tag: its own framing choice, not a python-chess "
        "matter.)",
    ("bad/kokopu/syntactic-error-1.pgn", 15):
        "'1. e4 e5 ((1... c5)) *': pgnkit checks the main line only (1. e4 e5, "
        "legal). python-chess applies the inner '(' to 1. e4 (its board copy keeps "
        "the move stack), finds 1... c5 illegal there, and its recovery skips to "
        "')' without popping its board stack, so the game's own '*' is then read "
        "inside a variation and reported as \"invalid san: '*'\".",
    ("bad/kokopu/syntactic-error-4.pgn", "*"):
        "'1. e4 {I miss my closing brace...' (line 3) never closes its comment; "
        "python-chess reads the comment to the end of the file without any error, "
        "so it reports game 1 as valid and swallows game 2 (line 8, a valid "
        "scholar's mate). pgnkit reports unterminated-comment and resumes at the "
        "tag line after the blank line.",
    ("bad/pgn-extract/test-nobadresults.pgn", "*"):
        "9 one-line games '[Result \"1-0\"] e4 *' etc. (a tag pair and movetext on "
        "the same line is legal import format). python-chess matches tag lines with "
        "a regex anchored at the end of the line, so it ignores every one of these "
        "lines as a malformed header and reads a single empty game.",
    ("pgn/kokopu/headers.pgn", 9):
        "line 82 is '[Event \"Full inline PGN\"][White \"Player 1\"][Black "
        "\"Player 2\"][Round \"?.6\"][Result \"*\"] *' (several tag pairs and the "
        "result on one line, legal import format); python-chess's end-anchored tag "
        "regex does not match it and drops the whole line, so it sees no White or "
        "Black tag.",
    ("pgn/scalachess/FWWRC.pgn", "*"):
        "605 header-only games (lichess broadcast export), each tag section "
        "separated from the next by ONE blank line and no movetext; python-chess "
        "ignores up to one blank line inside a tag section, so it merges all 605 "
        "sections into a single game.",
    ("pgn/scalachess/uzchesscup.pgn", "*"):
        "45 header-only games separated by single blank lines (no movetext; only "
        "the first has an [Event] tag); python-chess ignores up to one "
        "blank line inside a tag section, so it merges all of them into one game.",
}
for name, line in (("barnes-horton", 10), ("test-nomovenumbers", 10), ("test-notags", 10),
                   ("test-checkmate", 20)):
    KNOWN[("pgn/pgn-extract/%s.pgn" % name, "*")] = (
        BLANK_LINE_SPLIT + ": the game 'Dover vs Herne Bay' opens its movetext with "
        "a comment followed by a blank line (line %d), so python-chess ends the game "
        "there with no moves and reads '1. b3 ...' as a separate tag-less game." % line)
for name in ("test-nochecks", "test-stalemate"):
    KNOWN[("pgn/pgn-extract/%s.pgn" % name, "*")] = (
        "game 1 ends with '0-1' on line 9 and game 2's tag section starts on line 10 "
        "with no blank line between; python-chess only ends a game at a blank line, "
        "so it reads game 2's tag lines as (ignored) movetext of game 1, then ends at "
        "the blank line after game 2's opening comment (line 19) and reads "
        "'1. b3 ...' as a tag-less game. pgnkit starts game 2 at line 10.")

# Variant tag values that mean standard chess or Chess960 (compared after
# lower-casing and dropping spaces, '-' and '_'). "From Position" is lichess's
# name for a standard game from a set-up position (python-chess agrees).
STANDARD_VARIANTS = {"standard", "chess", "normal", "classical", "fromposition",
                     "chess960", "fischerandom", "fischerrandom"}
CHESS960_VARIANTS = {"chess960", "fischerandom", "fischerrandom"}

GAME_FIELDS = ("game_line", "plies", "valid", "final_fen", "board_termination",
               "white", "black", "result")
TAG_LINES_SHOWN = 4

logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)


# --------------------------------------------------------------------------
# python-chess side

class RecordingBuilder(chess.pgn.GameBuilder):
    """GameBuilder that also records the start line and the raw tag pairs
    (python-chess fills in the Seven Tag Roster with defaults)."""

    def __init__(self, handle):
        super().__init__()
        self.handle = handle

    def begin_game(self):
        result = super().begin_game()
        self.game.start_line = self.handle.lineno
        self.handle.game_starts.append(self.handle.lineno)
        self.game.raw_tags = {}
        return result

    def visit_header(self, tagname, tagvalue):
        super().visit_header(tagname, tagvalue)
        self.game.raw_tags.setdefault(tagname, tagvalue)


def variant_key(name):
    return "".join(c for c in name.lower() if c not in " -_")


def unescape_tag(value):
    out, chars = [], iter(value)
    for c in chars:
        if c == "\\":
            nxt = next(chars, "")
            out.append(nxt if nxt in ('"', "\\") else c + nxt)
        else:
            out.append(c)
    return "".join(out)


def decode_tag(value, encoding):
    """In a file that is not valid UTF-8 (read as Windows-1252), a tag value
    whose bytes are valid UTF-8 is taken as UTF-8: some files mix both."""
    if encoding == SINGLE_BYTE:
        try:
            return value.encode(SINGLE_BYTE, SINGLE_BYTE_ERRORS).decode("utf-8")
        except UnicodeDecodeError:
            pass
    return value


def is_utf8(data):
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def replay(game, tags):
    """Replays python-chess's mainline from the game's start position.
    Returns (plies, valid, problems, notes, start, moves, board); start (the
    initial board) and moves (the plies replayed) let fen_after() rebuild any
    earlier position; start and board are None for an unreadable FEN."""
    problems = [str(e) for e in game.errors]
    chess960 = variant_key(tags.get("Variant", "")) in CHESS960_VARIANTS
    try:
        board = chess.Board(tags.get("FEN", chess.STARTING_FEN), chess960=chess960)
    except ValueError as e:
        return 0, False, problems + ["bad FEN: %s" % e], [], None, [], None
    board.chess960 = board.chess960 or board.has_chess960_castling_rights()
    if chess960:
        # python-chess only knows some spellings (not e.g. "chess-960") and
        # reports the others as an unsupported variant; we treat them as 960.
        problems = [p for p in problems if not p.startswith("unsupported variant")]
    status = board.status()
    if status != chess.STATUS_VALID:
        problems.append("invalid start position (python-chess status %s)" % status)
    plies, notes, start, moves = 0, [], board.copy(stack=False), []
    for move in game.mainline_moves():
        if not move:
            # python-chess accepts null moves (--, Z0) without error and
            # passes the turn; so does pgnkit (a null-move warning).
            notes.append("null move at ply %d" % (plies + 1))
        elif not board.is_legal(move):
            problems.append("move %s not legal in %s" % (move.uci(), board.fen()))
            break
        board.push(move)
        plies += 1
        moves.append(move)
    return plies, not problems, problems, notes, start, moves, board


def python_games(path, termination):
    """Reads a PGN file with python-chess. Returns (records, crash, starts):
    crash is None or the text of an exception python-chess raised (reading
    stops there); starts lists the start line of every game python-chess
    began, including one it crashed in."""
    data = Path(path).read_bytes()
    encoding = "utf-8" if is_utf8(data) else SINGLE_BYTE
    errors = "replace" if encoding == "utf-8" else SINGLE_BYTE_ERRORS
    text = io.TextIOWrapper(io.BytesIO(data), encoding=encoding, errors=errors)
    handle = LineCountingHandle(text)
    records, crash = [], None
    while True:
        try:
            game = chess.pgn.read_game(handle, Visitor=lambda: RecordingBuilder(handle))
        except Exception as e:  # python-chess bugs, e.g. IndexError on ')'
            crash = "%s: %s (after game %d, near line %d)" % (
                type(e).__name__, e, len(records), handle.lineno)
            break
        if game is None:
            break
        tags = {k: decode_tag(unescape_tag(v), encoding) for k, v in game.raw_tags.items()}
        variant = tags.get("Variant")
        rec = {
            "game": len(records) + 1,
            "game_line": game.start_line,
            "white": tags.get("White"),
            "black": tags.get("Black"),
            "result": tags.get("Result"),
            "movetext_result": game.headers.get("Result"),
            "variant": variant,
            "encoding": encoding,
        }
        if variant is not None and variant_key(variant) not in STANDARD_VARIANTS:
            rec.update(plies=None, valid=None, final_fen=None, board_termination=None,
                   start=None, moves=[],
                       problems=["variant %r not compared" % variant])
        else:
            plies, valid, problems, notes, start, moves, board = replay(game, tags)
            rec.update(plies=plies, valid=valid, problems=problems, notes=notes,
                       start=start, moves=moves,
                       final_fen=board.fen(en_passant="legal") if board else None,
                       board_termination=termination(board) if board else None)
        records.append(rec)
    return records, crash, handle.game_starts


# --------------------------------------------------------------------------
# pgnkit side

def pgnkit_games(pgnkit, path):
    """Returns (records, error). error is None when pgnkit exited 0 or 1."""
    return pgnkit_jsonl([pgnkit, "validate", "--format", "jsonl", path], timeout=600)


def error_codes(pk):
    return sorted({d.get("code", "?") for d in pk.get("diagnostics") or []
                   if d.get("severity") == "error"})


# --------------------------------------------------------------------------
# comparison

def tag_matches(field, pk_value, py):
    raw = py[field]
    if raw is not None:
        return pk_value == raw
    # Tag absent: accept pgnkit's "not given" spellings.
    accepted = {None, "", "?"}
    if field == "result":
        accepted |= {"*", py["movetext_result"]}
    return pk_value in accepted


def compare_game(pk, py):
    """Yields (field, pgnkit value, python-chess value) for each difference."""
    for field in GAME_FIELDS:
        pk_value, py_value = pk.get(field), py.get(field)
        if field in ("white", "black", "result"):
            if not tag_matches(field, pk_value, py):
                yield field, pk_value, py_value
        elif pk_value != py_value:
            yield field, pk_value, py_value


REPLAY_CODES = {"illegal-move", "ambiguous-move"}


def fen_after(py, plies):
    """python-chess's FEN after the first `plies` plies of the main line."""
    board = py["start"].copy()
    for move in py["moves"][:plies]:
        board.push(move)
    return board.fen(en_passant="legal")


def stricter(pk, py):
    """pgnkit invalid, python-chess valid, and pgnkit's replay is a prefix of
    python-chess's: either the same moves (pgnkit rejects something else: a
    result check, an unknown token python-chess skipped...), or pgnkit stopped
    at an error that is not about a move's legality (a token it could not read
    as a move, which python-chess skipped or read leniently)."""
    if pk.get("valid") or not py["valid"]:
        return False
    plies = pk.get("plies")
    if (not isinstance(plies, int) or plies > py["plies"] or py["start"] is None
            or fen_after(py, plies) != pk.get("final_fen")):
        return False
    if plies == py["plies"]:
        return True
    return not (set(error_codes(pk)) & REPLAY_CODES)


def known_reason(rel, game):
    return KNOWN.get((rel, game))


def file_lines(path):
    data = Path(path).read_bytes()
    if is_utf8(data):
        return data.decode("utf-8").splitlines()
    return data.decode(SINGLE_BYTE, SINGLE_BYTE_ERRORS).splitlines()


def pair_games(pk_games, py_games):
    """Pairs games by index when the counts agree, else by start line.
    Returns (pairs, unpaired pgnkit games, unpaired python-chess games)."""
    if len(pk_games) == len(py_games):
        return list(zip(pk_games, py_games)), [], []
    by_line = {g["game_line"]: g for g in py_games}
    pairs, pk_alone = [], []
    for pk in pk_games:
        py = by_line.pop(pk.get("game_line"), None)
        if py is None:
            pk_alone.append(pk)
        else:
            pairs.append((pk, py))
    paired = {id(py) for _, py in pairs}
    return pairs, pk_alone, [g for g in py_games if id(g) not in paired]


class Report:
    def __init__(self):
        self.items = []      # dicts with kind, file, game, field, pgnkit, python_chess, ...
        self.file_lines = []
        self.files = self.games = 0

    def add(self, **item):
        self.items.append(item)

    def count(self, kind):
        return sum(1 for i in self.items if i["kind"] == kind)


def line_list(lines, shown=8):
    lines = [str(l) for l in lines]
    more = len(lines) - shown
    return ",".join(lines[:shown]) + (",... (%d more)" % more if more > 0 else "")


def next_start(starts, line):
    later = [s for s in starts if line is not None and s > line]
    return min(later) if later else None


def compare_file(path, rel, pgnkit, termination, report):
    py_games, crash, py_starts = python_games(path, termination)
    pk_games, pk_error = pgnkit_games(pgnkit, path)
    report.files += 1
    report.games += len(pk_games)
    file_why = known_reason(rel, "*")

    if pk_error and "holds no game: only text that is not PGN" in pk_error:
        # A file of text with no tag and no move in it is refused (stray
        # text, docs/chess-semantics.md); python-chess makes games of it.
        report.add(kind="pgnkit_stricter", file=rel, game="*", field="valid",
                   pgnkit="no game, exit 2", python_chess="%d game(s)" % len(py_games), tags=[],
                   explanation=None, detail=pk_error[:300])
        return
    if pk_error:
        report.add(kind="disagreement", file=rel, game=None, field="pgnkit-run",
                   pgnkit=pk_error, python_chess=None, tags=[], explanation=None)
        report.file_lines.append("DIFF %s: %s" % (rel, pk_error))
        return

    if rel.startswith("pgn/variants/"):
        valid = sum(1 for g in pk_games if g.get("valid"))
        codes = sorted({c for g in pk_games for c in error_codes(g)})
        msg = "variant file: pgnkit %d games (%d valid, codes %s), python-chess %d" % (
            len(pk_games), valid, ",".join(codes) or "-", len(py_games))
        report.add(kind="variant", file=rel, game="*", field=None, pgnkit=msg,
                   python_chess=None, tags=[], explanation=None)
        report.file_lines.append("VARIANT %s (%s)" % (rel, msg))
        return

    before = len(report.items)
    notes = []

    def file_level(field, pk_value, py_value, detail):
        report.add(kind="known" if file_why else "disagreement", file=rel, game=None,
                   field=field, pgnkit=pk_value, python_chess=py_value, tags=[],
                   explanation=file_why, detail=detail)
        notes.append(detail)

    if crash:
        file_level("python-chess-crash", None, crash, "python-chess crashed")
    pairs, pk_alone, py_alone = pair_games(pk_games, py_games)
    if len(pk_games) != len(py_games):
        detail = "games pgnkit=%d python-chess=%d" % (len(pk_games), len(py_games))
        if pk_alone:
            detail += "; pgnkit games at lines %s have no python-chess game" % (
                line_list(g.get("game_line") for g in pk_alone))
        if py_alone:
            detail += "; python-chess games at lines %s have no pgnkit game" % (
                line_list(g["game_line"] for g in py_alone))
        file_level("games", len(pk_games), len(py_games), detail)

    pk_starts = [g.get("game_line") for g in pk_games]
    lines = []

    def head_lines(line):
        """The first lines of the game starting at `line` (read lazily)."""
        if not lines:
            lines.extend(file_lines(path))
        return [l.rstrip() for l in lines[line - 1:line - 1 + TAG_LINES_SHOWN]] if line else []

    for pk, py in pairs:
        index = pk.get("game", py["game"])
        tags = lambda: head_lines(pk.get("game_line") or py["game_line"])
        if py["valid"] is None:  # variant game
            report.add(kind="variant", file=rel, game=index, field=None,
                       pgnkit="pgnkit valid=%s codes=%s" % (fmt(pk.get("valid")),
                                                            ",".join(error_codes(pk)) or "-"),
                       python_chess="Variant %r" % py["variant"], tags=tags(), explanation=None)
            continue
        diffs = list(compare_game(pk, py))
        if not diffs:
            continue
        # A file-wide KNOWN entry (a python-chess framing fault) explains the
        # games whose extent python-chess got wrong, not the others.
        cut_differently = (pk.get("game_line") != py["game_line"] or
                           next_start(pk_starts, pk.get("game_line")) != next_start(py_starts, py["game_line"]))
        why = KNOWN.get((rel, index)) or (file_why if cut_differently else None)
        if not why and not cut_differently and stricter(pk, py):
            messages = ["%s:%s %s %r: %s" % (d.get("line"), d.get("column"), d.get("code"),
                                             d.get("san"), d.get("message", ""))
                        for d in pk.get("diagnostics") or [] if d.get("severity") == "error"]
            report.add(kind="pgnkit_stricter", file=rel, game=index, field="valid",
                       pgnkit=error_codes(pk), python_chess=True, tags=tags(),
                       explanation=None, detail="; ".join(messages)[:300])
            continue
        for field, pk_value, py_value in diffs:
            item = dict(kind="known" if why else "disagreement", file=rel, game=index,
                        field=field, pgnkit=pk_value, python_chess=py_value, tags=tags(),
                        explanation=why)
            if field in ("valid", "plies", "final_fen"):
                item["detail"] = "pgnkit codes %s; python-chess: %s" % (
                    ",".join(error_codes(pk)) or "-", "; ".join(py["problems"]) or "-")
            if cut_differently:
                item["detail"] = (item.get("detail", "") +
                                  " (python-chess framed this game differently)").strip()
            report.add(**item)

    mine = report.items[before:]
    counts = {}
    for i in mine:
        counts[i["kind"]] = counts.get(i["kind"], 0) + 1
    names = {"disagreement": "disagreements", "known": "known python-chess faults",
             "pgnkit_stricter": "pgnkit stricter", "variant": "variant games"}
    summary = ", ".join("%d %s" % (counts[k], names[k]) for k in names if k in counts)
    if not mine:
        report.file_lines.append("OK %s (%d games)" % (rel, len(pk_games)))
    elif "disagreement" not in counts:
        # Nothing unexplained; file-level notes are known python-chess faults.
        report.file_lines.append("OK %s (%d games; %s)" % (
            rel, len(pk_games), "; ".join(notes + [summary])))
    else:
        report.file_lines.append("DIFF %s: %s" % (rel, "; ".join(notes + [summary])))


# --------------------------------------------------------------------------
# output

def fmt(value):
    return json.dumps(value, ensure_ascii=False)


def print_text(report, out):
    for line in report.file_lines:
        print(line, file=out)

    def where(i):
        if i["game"] is None:
            return i["file"]
        if i["game"] == "*":
            return i["file"] + " (whole file)"
        return "%s game %s" % (i["file"], i["game"])

    def show_item(i):
        if i["kind"] == "pgnkit_stricter":
            print("    pgnkit invalid (%s), python-chess valid: %s" % (
                ",".join(i["pgnkit"]), i.get("detail", "")), file=out)
        elif i["kind"] == "variant":
            print("    %s%s" % (i["pgnkit"], "" if i["python_chess"] is None
                                 else " (%s)" % i["python_chess"]), file=out)
        elif i["field"] == "python-chess-crash":
            print("    python-chess crashed: %s" % i["python_chess"], file=out)
        else:
            print("    %s: pgnkit=%s python-chess=%s" % (
                i["field"], fmt(i["pgnkit"]), fmt(i["python_chess"])), file=out)
            if i.get("detail"):
                print("      %s" % i["detail"], file=out)

    def section(title, kind):
        items = [i for i in report.items if i["kind"] == kind]
        if not items:
            return
        print("\n%s (%d):" % (title, len(items)), file=out)
        for n, i in enumerate(items):
            prev = items[n - 1] if n else {}
            nxt = items[n + 1] if n + 1 < len(items) else {}
            if (prev.get("file"), prev.get("game")) != (i["file"], i["game"]):
                print("  %s:" % where(i), file=out)
                for t in i["tags"]:
                    print("      | " + t, file=out)
            show_item(i)
            if i.get("explanation") and (nxt.get("file"), nxt.get("explanation")) != (
                    i["file"], i["explanation"]):
                print("    => known python-chess fault: %s" % i["explanation"], file=out)

    section("Disagreements", "disagreement")
    section("Known python-chess faults", "known")
    section("pgnkit stricter", "pgnkit_stricter")
    section("Variants (not compared)", "variant")


def print_totals(report, out):
    print("\nTotals: %d files, %d games (pgnkit); %d disagreements, %d known python-chess "
          "faults, %d pgnkit stricter, %d variant entries" % (
              report.files, report.games, report.count("disagreement"), report.count("known"),
              report.count("pgnkit_stricter"), report.count("variant")), file=out)


# --------------------------------------------------------------------------

def main():
    repo = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pgnkit", type=Path, default=repo / "target" / "release" / "pgnkit")
    parser.add_argument("--shared", type=Path, default=repo.parent / "shared")
    parser.add_argument("--json", action="store_true",
                        help="write non-matching records as JSON lines")
    parser.add_argument("--python-only", action="store_true",
                        help="print python-chess's records only (no pgnkit)")
    parser.add_argument("files", nargs="*", type=Path)
    args = parser.parse_args()

    if not args.shared.is_dir():
        print("shared dir %s not found: skipping the python-chess comparison" % args.shared)
        return 0
    termination = oracle_termination
    corpus = args.shared / "corpus"

    files = []
    for f in args.files:
        # Accept paths relative to the corpus too (e.g. pgn/kokopu/misc.pgn).
        if not f.exists() and (corpus / f).exists():
            f = corpus / f
        if not f.is_file():
            print("no such file: %s" % f, file=sys.stderr)
            return 2
        files.append(f)
    files = files or sorted(p for d in ("pgn", "bad") for p in (corpus / d).rglob("*.pgn"))

    def rel(p):
        try:
            return p.resolve().relative_to(corpus.resolve()).as_posix()
        except ValueError:
            return str(p)

    if args.python_only:
        for p in files:
            records, crash, _ = python_games(p, termination)
            for r in records:
                r.pop("moves", None)
                r.pop("start", None)
                print(json.dumps(dict(r, file=rel(p)), ensure_ascii=False))
            if crash:
                print(json.dumps({"file": rel(p), "crash": crash}))
        return 0

    if not args.pgnkit.is_file():
        print("pgnkit binary %s not found: run `cargo build --release` or pass --pgnkit"
              % args.pgnkit, file=sys.stderr)
        return 2

    report = Report()
    for p in files:
        compare_file(p, rel(p), args.pgnkit, termination, report)

    if args.json:
        for i in report.items:
            print(json.dumps(i, ensure_ascii=False))
        print_totals(report, sys.stderr)
    else:
        print_text(report, sys.stdout)
        print_totals(report, sys.stdout)
    return 1 if report.count("disagreement") else 0


if __name__ == "__main__":
    sys.exit(main())
