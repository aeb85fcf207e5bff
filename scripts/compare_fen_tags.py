#!/usr/bin/env python3
"""Compare how pgnkit reads a game's [FEN] tag with python-chess, on random tags.

Usage:
    python3 scripts/compare_fen_tags.py [--pgnkit PATH] [--games N] [--seed S]

The default binary is $CARGO_TARGET_DIR/release/pgnkit, else
<repo>/target/release/pgnkit. Needs python-chess (`pip install chess`).

N games (20,000 by default) without moves are made, each from a random FEN
tag with few pieces: kings on or off their back ranks, rooks in and out of
the corners, castling fields and en passant squares of every kind, legal
or not. `pgnkit validate --format jsonl` reads them, and python-chess reads
each tag with `chess.Board(fen)`. python-chess keeps castling rights and
en passant squares the position cannot have and flags them
(STATUS_BAD_CASTLING_RIGHTS, STATUS_INVALID_EP_SQUARE); pgnkit drops them
(`fen-tag-repaired`). So:

* verdict: pgnkit replays the game (`checked`) exactly when python-chess's
  status has no flag but those two;
* position: for such a game pgnkit's `final_fen` is python-chess's
  `board.fen(en_passant="legal")`, which writes the rights python-chess's
  clean_castling_rights() keeps. Where they differ the tag is also read as
  Chess960 (`chess960=True`): pgnkit reads castling rights that need a king
  or rook off its standard square as Chess960's (docs/chess-semantics.md);
  agreeing then counts as `chess960`.

Anything else is a difference, printed; python-chess keeps an en passant
square with no pawn that can have made the double step (it only checks that
a capture onto it can be generated), so a few of those are expected and
counted apart as `python-chess ep`. The exit status is 1 when any other
difference is found.
"""

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import chess

REPAIRED = chess.STATUS_BAD_CASTLING_RIGHTS | chess.STATUS_INVALID_EP_SQUARE


def random_tag(rng):
    board = chess.Board(None)
    board.set_piece_at(rng.choice([chess.E1, chess.E1, rng.randrange(64)]), chess.Piece(chess.KING, chess.WHITE))
    square = rng.choice([chess.E8, chess.E8, rng.randrange(64)])
    if board.piece_at(square) is None:
        board.set_piece_at(square, chess.Piece(chess.KING, chess.BLACK))
    for _ in range(rng.randrange(6)):
        square = rng.choice([chess.A1, chess.H1, chess.A8, chess.H8, rng.randrange(64)])
        if board.piece_at(square) is None:
            role = rng.choice([chess.ROOK, chess.ROOK, chess.PAWN, chess.KNIGHT])
            board.set_piece_at(square, chess.Piece(role, rng.choice([chess.WHITE, chess.BLACK])))
    castling = rng.choice(["-", "KQkq", "K", "Qk", "kq", "KQ"])
    files = "abcdefgh"
    ep = rng.choice(["-", "-", rng.choice(files) + rng.choice("36"), rng.choice(files) + rng.choice("45")])
    return "%s %s %s %s 0 1" % (board.board_fen(), rng.choice("wb"), castling, ep)


def rights(fen):
    return chess.Board(fen, chess960=True).castling_rights


def main():
    repo = Path(__file__).resolve().parent.parent
    target = Path(os.environ.get("CARGO_TARGET_DIR", repo / "target"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pgnkit", type=Path, default=target / "release" / "pgnkit")
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    tags = [random_tag(rng) for _ in range(args.games)]
    pgn = "".join('[FEN "%s"]\n\n*\n\n' % tag for tag in tags)
    out = subprocess.run([str(args.pgnkit), "validate", "-q", "--format", "jsonl", "-"],
                         input=pgn.encode(), capture_output=True, check=False)
    reports = [json.loads(line) for line in out.stdout.decode().splitlines()]
    if len(reports) != len(tags):
        raise SystemExit("pgnkit read %d games of %d: %s" % (len(reports), len(tags), out.stderr.decode()))
    counts = {"same": 0, "chess960": 0, "python-chess ep": 0, "different": 0}
    for tag, report in zip(tags, reports):
        board = chess.Board(tag)
        playable = board.status() & ~REPAIRED == chess.STATUS_VALID
        if playable != report["checked"]:
            kind = "different"
        elif not playable or report["final_fen"] == board.fen(en_passant="legal"):
            kind = "same"
        else:
            ours, theirs = report["final_fen"], chess.Board(tag, chess960=True).fen(en_passant="legal")
            if ours.split()[3] != theirs.split()[3] and board.ep_square is not None:
                kind = "python-chess ep"
            elif rights(ours) == rights(theirs) and ours.split()[3] == theirs.split()[3]:
                kind = "chess960"
            else:
                kind = "different"
        counts[kind] += 1
        if kind in ("different", "python-chess ep"):
            print("%s: %s\n    pgnkit: %s\n    python-chess: %s (status %d)"
                  % (kind, tag, report["final_fen"] or "not replayed", board.fen(en_passant="legal"),
                     board.status()))
    print(", ".join("%d %s" % (n, kind) for kind, n in counts.items()), file=sys.stderr)
    return 1 if counts["different"] else 0


if __name__ == "__main__":
    sys.exit(main())
