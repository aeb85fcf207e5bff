"""Pieces the python-chess comparison scripts share: running pgnkit for its
JSON Lines, reading a file's text as pgnkit does, counting the lines
python-chess reads so that its games can be paired with pgnkit's by their
first line, and naming how a final position ends the game."""

import codecs
import json
import subprocess

# What pgnkit reads text that is not valid UTF-8 as: Windows-1252, as the
# WHATWG Encoding Standard decodes it (for the label `latin1` too). Python's
# cp1252 has no character for 0x81, 0x8D, 0x8F, 0x90 and 0x9D, which WHATWG
# leaves to their C1 controls, as Latin-1 does: the error handler
# SINGLE_BYTE_ERRORS gives them (and writes them back when encoding).
SINGLE_BYTE = "cp1252"
SINGLE_BYTE_ERRORS = "whatwg-c1"


def _c1_controls(error):
    if isinstance(error, UnicodeDecodeError):
        return "".join(map(chr, error.object[error.start:error.end])), error.end
    if isinstance(error, UnicodeEncodeError):
        text = error.object[error.start:error.end]
        if all(0x80 <= ord(c) <= 0x9F for c in text):
            return bytes(map(ord, text)), error.end
    raise error


codecs.register_error(SINGLE_BYTE_ERRORS, _c1_controls)


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
    """pgnkit reads text that is not valid UTF-8 as Windows-1252; a BOM is
    dropped."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode(SINGLE_BYTE, SINGLE_BYTE_ERRORS)


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
