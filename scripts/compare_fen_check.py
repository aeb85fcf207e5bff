#!/usr/bin/env python3
"""Compare `pgnkit fen check --format jsonl` with python-chess, record by record.

Usage:
    python3 scripts/compare_fen_check.py [--pgnkit PATH] [--shared DIR] [--json] [FILES...]

Without FILES, every file under <shared>/corpus/fen (recursively) is checked.
Defaults: the binary is $CARGO_TARGET_DIR/release/pgnkit, else
<repo>/target/release/pgnkit, and the shared dir is <repo>/../shared. A
missing shared dir is a skip (exit 0). Needs `pip install chess`.

A record is a line that is neither blank nor a `#` comment, as in pgnkit.
python-chess's verdict on it (the oracle):

* a line whose fifth and sixth fields are integers is a FEN (a `;` comment
  after it is cut off) read with `chess.Board(fen)`; EPD operations after
  its six fields (which python-chess refuses in a FEN) are read as
  `chess.Board.from_epd` reads the operations of the first four fields,
  as pgnkit reads them; a longer line is EPD,
  read with `chess.Board.from_epd` (which also parses move operands); a
  shorter one goes to `chess.Board` as it is;
* valid: it parses without ValueError and `Board.is_valid()` holds, read as
  standard chess or, failing that, as Chess960 (`chess960=True`), since pgnkit
  reads X-FEN and Shredder-FEN castling rights as Chess960 when they need it.

`fen/kokopu/fens.csv` is a tab-separated table, not one record per line:
pgnkit and python-chess both reject each of its lines as a FEN. Its FEN_IN
column is also extracted and fed to `pgnkit fen check -` on stdin, and those
records are compared too (reported as `fens.csv#FEN_IN`).

Every disagreement falls in one of two groups:

* deliberate: pgnkit says invalid, python-chess valid, and every error code
  pgnkit gives is in STRICTER below, where the reason is written down (the
  same list is in testdata/README.md), or is `castling-rights` for a `Q`/`q`
  that python-chess dropped while parsing (see dropped_castling); or pgnkit
  says valid with a warning in LENIENT, python-chess refuses the record,
  and accepts it once written as the warning says; reported, not failing;
* unexplained: anything else; each makes the exit status 1.

`--random N` also compares N random positions with few pieces (kings
missing or doubled, pawns on back ranks, checks, castling letters and en
passant squares of every kind), reported as `random#N`; `--seed` picks them.

`--json` writes every disagreement as a JSON object per line on stdout.
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import chess

# pgnkit error code -> why pgnkit rejects what python-chess's is_valid() accepts.
STRICTER = {
    "epd-illegal-move": "an `am`/`bm`/`pm`/`sm`/`pv` operand that is not a legal move in SAN "
                        "(python-chess reads a numeric operand such as `bm 1` as the number 1)",
    "too-many-promoted-pieces": "more pieces beyond the starting set than missing pawns, bishops "
                                "counted by square colour (python-chess only limits 16 pieces and 8 pawns)",
    "impossible-check": "two knights or pawns giving check at once (python-chess checks only the "
                        "number of checkers, their alignment and the en passant square)",
    "castling-field": "a castling letter given twice, such as `KK` (python-chess's pattern allows it)",
    "missing-field": "a record without the side to move, castling or en passant field, or a halfmove "
                     "clock without a fullmove number (python-chess fills in defaults, or reads a lone "
                     "counter as an EPD opcode)",
    "epd-operation": "an EPD move opcode without a move (`pm;`), or a string operand never closed "
                     "(python-chess stores None, or the string up to the end of the line)",
    "trailing-text": "text after the en passant square or the move counters that is neither counters nor "
                     "EPD operations (python-chess takes `!!` or `2` as an opcode without operands)",
}

# pgnkit warning code -> what pgnkit reads that python-chess refuses.
LENIENT = {
    "castling-order": "castling letters out of the usual order, such as `kqKQ` (python-chess's pattern "
                      "wants White's first; shakmaty, Stockfish and lichess read any order)",
}


def read_board(text, chess960):
    """The board python-chess reads from a record (raises ValueError)."""
    tokens = text.split()
    integer = re.compile(r"^[+-]?\d+$")
    if len(tokens) > 6 and integer.match(tokens[4]) and integer.match(tokens[5]) and not tokens[6].startswith(";"):
        # A FEN and EPD operations: the operations (their moves too) as
        # from_epd reads them, the position with the FEN's counters.
        chess.Board.from_epd(" ".join(tokens[:4]) + " " + text.split(None, 6)[6], chess960=chess960)
        return chess.Board(" ".join(tokens[:6]), chess960=chess960)
    if len(tokens) >= 6 and integer.match(tokens[4]) and integer.match(tokens[5].split(";")[0]):
        return chess.Board(text.split(";", 1)[0].strip(), chess960=chess960)
    if len(tokens) > 4:
        return chess.Board.from_epd(text, chess960=chess960)[0]
    return chess.Board(text, chess960=chess960)


def dropped_castling(text):
    """Whether python-chess drops a castling letter while parsing: a `Q` or
    `q` whose side has no rook on the a-side of the king (its lsb(0) is -1),
    so is_valid() never sees the right."""
    try:
        board = read_board(text, chess960=True)
    except (ValueError, AssertionError):
        return False
    letters = set(text.split()[2]) - {"-"}
    return bin(board.castling_rights).count("1") < len(letters)


def oracle(text, chess960):
    """(valid, why) for one record as python-chess reads it."""
    try:
        board = read_board(text, chess960)
    except (ValueError, AssertionError) as err:
        return False, "%s: %s" % (type(err).__name__, err)
    status = board.status()
    if status == chess.STATUS_VALID:
        return True, "valid"
    names = [name for name in dir(chess) if name.startswith("STATUS_") and name != "STATUS_VALID"]
    flags = sorted(name[len("STATUS_"):].lower() for name in names if status & getattr(chess, name))
    return False, "status: " + ", ".join(flags)


def python_verdict(text):
    valid, why = oracle(text, chess960=False)
    if valid:
        return True, why
    valid960, why960 = oracle(text, chess960=True)
    if valid960:
        return True, "valid as Chess960"
    return False, why


def records(lines):
    """(line number, text) of every record, with pgnkit's line rules."""
    for number, raw in enumerate(lines, 1):
        text = raw.rstrip("\n").rstrip("\r")
        if number == 1:
            text = text.lstrip("\ufeff")
        stripped = text.strip()
        if stripped and not stripped.startswith("#"):
            yield number, stripped


def read_lines(path):
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text.split("\n") if text else []


def run_pgnkit(binary, args, stdin=None):
    out = subprocess.run([str(binary), "-q", "fen", "check", "--format", "jsonl", *args],
                         input=stdin, capture_output=True, check=False)
    if out.returncode not in (0, 1):
        raise SystemExit("pgnkit failed (exit %d): %s" % (out.returncode, out.stderr.decode()))
    return {r["line"]: r for r in map(json.loads, out.stdout.decode().splitlines())}


class Report:
    def __init__(self):
        self.agree = 0
        self.items = []

    def compare(self, name, number, text, pgnkit):
        valid, why = python_verdict(text)
        if pgnkit is None:
            self.items.append({"kind": "unexplained", "file": name, "line": number, "fen": text,
                               "pgnkit": "no verdict", "python_chess": why})
            return
        if pgnkit["valid"] == valid:
            self.agree += 1
            return
        errors = [f for f in pgnkit["diagnostics"] if f["severity"] == "error"]
        warned = [f for f in pgnkit["diagnostics"] if f["severity"] == "warning"]
        codes = sorted({e["code"] for e in errors})

        def explained(code):
            return code in STRICTER or (code == "castling-rights" and dropped_castling(text))

        deliberate = not pgnkit["valid"] and codes and all(map(explained, codes))
        warnings = sorted({w["code"] for w in warned} & set(LENIENT))
        if pgnkit["valid"] and "castling-order" in warnings:
            written = text.split()
            written[2] = re.search(r"write `([^`]*)`", next(
                w["message"] for w in warned if w["code"] == "castling-order")).group(1)
            deliberate = python_verdict(" ".join(written))[0]
            codes = warnings
        self.items.append({
            "kind": "deliberate" if deliberate else "unexplained",
            "file": name, "line": number, "fen": text,
            "pgnkit": "valid" if pgnkit["valid"] else "invalid: " + "; ".join(
                "%s: %s" % (e["code"], e["message"]) for e in errors),
            "python_chess": why,
            "codes": codes,
        })


def compare_file(path, name, binary, report):
    lines = read_lines(path)
    pgnkit = run_pgnkit(binary, [str(path)])
    seen = set()
    for number, text in records(lines):
        report.compare(name, number, text, pgnkit.get(number))
        seen.add(number)
    for number in sorted(set(pgnkit) - seen):
        report.items.append({"kind": "unexplained", "file": name, "line": number,
                             "fen": pgnkit[number]["fen"], "pgnkit": "a record python-chess does not see",
                             "python_chess": ""})
    if path.name == "fens.csv":
        header, *rows = [line.split("\t") for line in lines if line.strip()]
        column = header.index("FEN_IN")
        fens = [row[column] for row in rows if len(row) > column]
        verdicts = run_pgnkit(binary, ["-"], stdin="\n".join(fens).encode() + b"\n")
        for number, text in records(fens):
            report.compare(name + "#FEN_IN", number, text, verdicts.get(number))


def random_fen(rng):
    """A random position in which every rule fires now and then."""
    squares = [None] * 64
    for index, king in enumerate("KkKk"):
        if (index < 2 and rng.random() < 0.95) or (index >= 2 and rng.random() < 0.03):
            back = 0 if king == "K" else 56
            squares[back + rng.randrange(8) if rng.random() < 0.5 else rng.randrange(64)] = king
    for _ in range(rng.randrange(8)):
        squares[rng.randrange(64)] = rng.choice("PNBRQPRpnbrqpr")
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            piece = squares[rank * 8 + file]
            if piece is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + piece
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    castling = rng.choice(["-"] * 6 + ["K", "Q", "k", "q", "KQkq", "Kq", "H", "C", "hb", "FDfd"])
    ep = rng.choice(["-"] * 6 + [rng.choice("abcdefgh") + rng.choice("36"),
                                 rng.choice("abcdefgh") + rng.choice("12345678")])
    return "%s %s %s %s 0 1" % ("/".join(rows), rng.choice("wb"), castling, ep)


def main():
    repo = Path(__file__).resolve().parent.parent
    target = Path(os.environ.get("CARGO_TARGET_DIR", repo / "target"))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pgnkit", type=Path, default=target / "release" / "pgnkit")
    parser.add_argument("--shared", type=Path, default=repo.parent / "shared")
    parser.add_argument("--json", action="store_true", help="write disagreements as JSON lines")
    parser.add_argument("--random", type=int, default=0, metavar="N", help="also compare N random positions")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("files", nargs="*", type=Path)
    args = parser.parse_args()

    if not args.shared.is_dir():
        print("shared dir %s not found: skipping the python-chess comparison" % args.shared)
        return 0
    if not args.pgnkit.is_file():
        print("pgnkit binary %s not found: run `cargo build --release` or pass --pgnkit" % args.pgnkit,
              file=sys.stderr)
        return 2
    corpus = args.shared / "corpus"
    files = args.files or sorted(p for p in (corpus / "fen").rglob("*") if p.is_file())

    report = Report()
    for path in files:
        try:
            name = path.resolve().relative_to(corpus.resolve()).as_posix()
        except ValueError:
            name = str(path)
        compare_file(path, name, args.pgnkit, report)

    if args.random:
        rng = random.Random(args.seed)
        fens = [random_fen(rng) for _ in range(args.random)]
        verdicts = run_pgnkit(args.pgnkit, ["-"], stdin="\n".join(fens).encode() + b"\n")
        for number, text in enumerate(fens, 1):
            report.compare("random#%d" % args.random, number, text, verdicts.get(number))

    unexplained = [i for i in report.items if i["kind"] == "unexplained"]
    deliberate = [i for i in report.items if i["kind"] == "deliberate"]
    if args.json:
        for item in report.items:
            print(json.dumps(item, ensure_ascii=False))
    else:
        for item in deliberate + unexplained:
            print("%s %s:%d: %s\n    pgnkit: %s\n    python-chess: %s"
                  % (item["kind"], item["file"], item["line"], item["fen"][:100], item["pgnkit"][:300],
                     item["python_chess"]))
    counts = {}
    for item in deliberate:
        for code in item["codes"]:
            counts[code] = counts.get(code, 0) + 1
    print("%d records agree, %d deliberate differences (%s), %d unexplained"
          % (report.agree, len(deliberate), ", ".join("%s: %d" % kv for kv in sorted(counts.items())) or "none",
             len(unexplained)), file=sys.stderr)
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
