"""Pieces the python-chess comparison scripts share: running pgnkit for its
JSON Lines, reading a file's text as pgnkit does, counting the lines
python-chess reads so that its games can be paired with pgnkit's by their
first line, and naming how a final position ends the game."""

import json
import subprocess


def pgnkit_jsonl(command, timeout):
    """Runs a pgnkit command that prints JSON Lines; returns (records,
    error), error None when pgnkit exited 0 (all well) or 1 (findings)."""
    try:
        proc = subprocess.run([str(c) for c in command], capture_output=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return [], "could not run pgnkit: %s" % e
    records = []
    for n, line in enumerate(proc.stdout.decode("utf-8", "replace").splitlines(), 1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except ValueError:
                return records, "stdout line %d is not JSON: %.100s" % (n, line)
    if proc.returncode not in (0, 1):
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return records, "pgnkit exited %d: %s" % (proc.returncode, " | ".join(err[-3:]))
    return records, None


def decode(data):
    """pgnkit reads text that is not valid UTF-8 as Latin-1; a BOM is
    dropped."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


class LineCountingHandle:
    """A text handle that counts the lines read (python-chess's read_game only
    calls readline), so each game's start line is known."""

    def __init__(self, handle):
        self.handle = handle
        self.lineno = 0
        self.game_starts = []  # start line of every game begun, even one that crashed

    def readline(self):
        line = self.handle.readline()
        if line:
            self.lineno += 1
        return line


def termination(board, occurrences=None):
    """The termination (docs/chess-semantics.md) of the final position, or None. `occurrences`
    is how often the position occurred, when the caller counted it (else
    python-chess walks the move stack back to count)."""
    def repeated(times):
        return board.is_repetition(times) if occurrences is None else occurrences >= times

    if board.is_checkmate():
        return "checkmate"
    if board.is_stalemate():
        return "stalemate"
    if board.is_insufficient_material():
        return "insufficient_material"
    if board.is_seventyfive_moves():
        return "seventyfive_moves"
    if repeated(5):
        return "fivefold_repetition"
    if board.is_fifty_moves():
        return "fifty_moves"
    if repeated(3):
        return "threefold_repetition"
    return None
