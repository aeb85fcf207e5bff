#!/usr/bin/env python3
"""Check `pgnkit moves` against python-chess, an independent oracle.

Usage:
    python3 scripts/compare_moves.py [--pgnkit PATH] [--seed N] [FILE...]

Without FILE, every *.pgn under ../shared/corpus/pgn (relative to the repo
root, found from this script's location) is read, recursively; if that folder
is absent the check is skipped (exit 0). FILEs may be gzip-compressed
(`.gz`). The default binary is <repo>/target/release/pgnkit. Needs
python-chess (`pip install chess`).

Every game python-chess reads without errors, in standard chess, whose
mainline has no null move, is written as one input line in a *mixed*
notation: each move at random (seeded) in SAN, UCI or long algebraic
(python-chess's `board.san`, `board.uci`, `board.lan`), with move numbers
(`12.`, `12...`, or glued as in `12.e4`) here and there, castling sometimes
with zeros, and the game's result at the end. Games from a `[FEN]` tag are
run with `--fen` one by one; the others go through one run per output
notation on stdin. pgnkit's output must equal, line for line:

* `--to san`: `board.san` of every move, joined by spaces;
* `--to uci`: `board.uci`;
* `--to lan`: `board.lan`;
* `--to fen`: `board.fen(en_passant="legal")` of the final position (an
  empty line, for a game without moves or result, gives an empty line).

Output: the games compared and skipped (with the reasons), each
disagreement (file, game, notation, pgnkit's line, python-chess's line; at
most 20 in all), and a summary. Exit status: 0 when nothing disagrees (or the
corpus is absent), 1 on any disagreement, 2 when pgnkit cannot be run.
"""

import argparse
import collections
import gzip
import io
import logging
import random
import subprocess
import sys
from pathlib import Path

try:
    import chess
    import chess.pgn
except ImportError:
    sys.exit("compare_moves.py needs python-chess: pip install chess")

NOTATIONS = ("san", "uci", "lan", "fen")


def read_text(path):
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def games(path):
    """(index, starting FEN or None, moves, result) for each usable game,
    and a Counter of the skipped ones."""
    skipped = collections.Counter()
    out = []
    stream = io.StringIO(read_text(path))
    index = 0
    while True:
        try:
            game = chess.pgn.read_game(stream)
        except Exception:  # python-chess fails on some broken files
            skipped["files python-chess stopped reading"] += 1
            break
        if game is None:
            break
        index += 1
        if game.errors:
            skipped["python-chess errors"] += 1
            continue
        if game.headers.get("Variant", "standard").lower() not in ("standard", "chess", "normal", "from position"):
            skipped["variant"] += 1
            continue
        moves = list(game.mainline_moves())
        if any(not m for m in moves):
            skipped["null move"] += 1
            continue
        fen = game.headers.get("FEN") if game.headers.get("SetUp") == "1" or "FEN" in game.headers else None
        out.append((index, fen, game.board(), moves, game.headers.get("Result", "*")))
    return out, skipped


def written_line(rng, board, moves, result):
    """The game in mixed notation, and what python-chess writes for it."""
    board = board.copy()
    tokens = []
    expected = {name: [] for name in ("san", "uci", "lan")}
    for i, move in enumerate(moves):
        san, uci, lan = board.san(move), board.uci(move), board.lan(move)
        choice = rng.choice((san, uci, lan))
        if choice.startswith("O-O") and rng.random() < 0.3:
            choice = choice.replace("O", "0")
        number = f"{board.fullmove_number}." if board.turn == chess.WHITE else f"{board.fullmove_number}..."
        if i == 0 or board.turn == chess.WHITE:
            roll = rng.random()
            if roll < 0.4:
                tokens.append(number)
            elif roll < 0.6:
                choice = number + choice
        tokens.append(choice)
        expected["san"].append(san)
        expected["uci"].append(uci)
        expected["lan"].append(lan)
        board.push(move)
    if result in ("1-0", "0-1", "1/2-1/2", "*"):
        tokens.append(result)
    want = {name: " ".join(parts) for name, parts in expected.items()}
    # An empty line gives an empty line, whatever the output.
    want["fen"] = board.fen(en_passant="legal") if tokens else ""
    return " ".join(tokens), want


def run_pgnkit(binary, to, lines, fen=None):
    args = [str(binary), "moves", "--to", to]
    if fen:
        args += ["--fen", fen]
    proc = subprocess.run(args, input="".join(line + "\n" for line in lines), capture_output=True, text=True)
    if proc.returncode != 0:
        logging.error("pgnkit moves --to %s failed (exit %d): %s", to, proc.returncode, proc.stderr.strip()[:500])
        sys.exit(2)
    return proc.stdout.split("\n")[:-1]


def main():
    root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pgnkit", type=Path, default=root / "target/release/pgnkit")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("files", nargs="*", type=Path)
    args = parser.parse_args()
    logging.basicConfig(format="compare_moves: %(message)s", level=logging.INFO)
    logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)

    files = args.files
    if not files:
        corpus = root.parent / "shared/corpus/pgn"
        if not corpus.is_dir():
            print(f"skipped: {corpus} is absent")
            return 0
        files = sorted(corpus.rglob("*.pgn"))

    rng = random.Random(args.seed)
    compared = 0
    skipped = collections.Counter()
    disagreements = []
    for path in files:
        usable, skips = games(path)
        skipped.update(skips)
        batch = []
        for index, fen, board, moves, result in usable:
            line, want = written_line(rng, board, moves, result)
            if fen:
                for to in NOTATIONS:
                    got = run_pgnkit(args.pgnkit, to, [line], fen)
                    if got != [want[to]]:
                        disagreements.append((path, index, to, got, want[to]))
                compared += 1
            else:
                batch.append((index, line, want))
        if batch:
            for to in NOTATIONS:
                got = run_pgnkit(args.pgnkit, to, [line for _, line, _ in batch])
                if len(got) != len(batch):
                    logging.error("%s: %d lines in, %d out (--to %s)", path, len(batch), len(got), to)
                    return 2
                for (index, _, want), line in zip(batch, got):
                    if line != want[to]:
                        disagreements.append((path, index, to, line, want[to]))
            compared += len(batch)

    for path, index, to, got, want in disagreements[:20]:
        print(f"{path}: game {index}: --to {to}\n  pgnkit:       {got}\n  python-chess: {want}")
    reasons = ", ".join(f"{n} {why}" for why, n in sorted(skipped.items())) or "none"
    print(
        f"compare_moves: {compared} games compared in {len(files)} files "
        f"(skipped: {reasons}); {len(disagreements)} disagreements"
    )
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
