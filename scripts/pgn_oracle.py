"""Pieces the python-chess comparison scripts share: reading a file's text
as pgnkit does, and counting the lines python-chess reads so that its games
can be paired with pgnkit's by their first line."""


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
