#!/usr/bin/env python3
"""Writes the fixtures of the inputs people download (testdata/README.md):
xz, zip archives, UTF-16 with a byte order mark, and a file that is not
text. Each is made from the typed fixtures beside it, byte for byte the same
on every run (fixed zip dates), so that running this again changes nothing.

    python3 scripts/make_input_fixtures.py
"""

import io
import lzma
import struct
import zipfile
import zlib
from pathlib import Path

TESTDATA = Path(__file__).resolve().parent.parent / "testdata"
DATE = (1980, 1, 1, 0, 0, 0)


def member(archive, name, data, method=zipfile.ZIP_DEFLATED):
    info = zipfile.ZipInfo(name, DATE)
    info.compress_type = method
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def zip_bytes(members, seekable=True):
    """A zip archive of (name, data, method) members; written to a pipe
    (not seekable) each member's sizes come after its bytes."""

    class Pipe(io.RawIOBase):
        def __init__(self):
            self.data = bytearray()

        def writable(self):
            return True

        def write(self, b):
            self.data += b
            return len(b)

    out = io.BytesIO() if seekable else Pipe()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data, method in members:
            member(archive, name, data, method)
    return bytes(out.getvalue() if seekable else out.data)


def png_1x1():
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    pixels = zlib.compress(b"\x00\x00", 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def main():
    famous = (TESTDATA / "valid/famous-games.pgn").read_bytes()
    opera = (TESTDATA / "valid/opera-game.pgn").read_bytes()
    reti = (TESTDATA / "valid/utf8-bom.pgn").read_bytes().decode("utf-8-sig")
    # AppleDouble metadata as macOS Finder adds it to archives: binary, named after the file.
    apple_double = b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        " + bytes(64)
    readme = b"Games of the week, as a zip would ship them.\n"
    outputs = {
        "compressed/famous-games.pgn.xz": lzma.compress(famous, preset=9),
        "compressed/two-pgn-members.zip": zip_bytes(
            [
                ("famous-games.pgn", famous, zipfile.ZIP_DEFLATED),
                ("readme.txt", readme, zipfile.ZIP_STORED),
                ("__MACOSX/._famous-games.pgn", apple_double, zipfile.ZIP_STORED),
                ("more/OPERA-GAME.PGN", opera, zipfile.ZIP_STORED),
            ]
        ),
        "compressed/written-to-a-pipe.zip": zip_bytes([("opera-game.pgn", opera, zipfile.ZIP_DEFLATED)], seekable=False),
        "invalid/zip-without-pgn.zip": zip_bytes([("readme.txt", readme, zipfile.ZIP_DEFLATED)]),
        "invalid/not-pgn.png": png_1x1(),
        "valid/utf16le-bom.pgn": b"\xff\xfe" + reti.encode("utf-16-le"),
        "valid/utf16be-bom.pgn": b"\xfe\xff" + reti.encode("utf-16-be"),
    }
    for name, data in outputs.items():
        (TESTDATA / name).write_bytes(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
