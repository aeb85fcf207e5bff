#!/usr/bin/env python3
"""Reads a Polyglot book back with python-chess and checks it against the
games it was made from, counted here independently of pgnkit.

    check_book_python_chess.py BOOK PGN [--min-games N] [--max-ply N]

python-chess replays every game of PGN from the standard start (games with
a FEN tag are left out, as `pgnkit book` leaves them out) and counts each
(position, move) pair as polyglot's make-book counts it: 2 a win, 1 a draw
or a game without a result, for the side to move. The book, read with
`chess.polyglot.open_reader`, must hold exactly the pairs played at least
--min-games times that scored something, with those weights, and nothing
else. Exit 0 when it does, 1 with the differences otherwise, 3 when
python-chess is not installed.
"""

import argparse
import collections
import os
import sys

try:
    import chess
    import chess.pgn
    import chess.polyglot
except ImportError:
    print("python-chess is not installed (pip install chess)", file=sys.stderr)
    sys.exit(3)


def expected_pairs(pgn_path, max_ply):
    """{key: {uci: [n, sum]}} and a board per key, from the games."""
    pairs = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0]))
    boards = {}
    with open(pgn_path, encoding="utf-8", errors="replace") as pgn:
        while True:
            game = chess.pgn.read_game(pgn)
            if game is None:
                break
            if "FEN" in game.headers:
                continue
            result = {"1-0": 1, "0-1": -1}.get(game.headers.get("Result", "*"), 0)
            board = game.board()
            for ply, move in enumerate(game.mainline_moves()):
                if ply >= max_ply:
                    break
                key = chess.polyglot.zobrist_hash(board)
                stat = pairs[key][move.uci()]
                stat[0] += 1
                stat[1] += result + 1
                boards.setdefault(key, board.copy(stack=False))
                board.push(move)
                result = -result
    return pairs, boards


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("book")
    parser.add_argument("pgn")
    parser.add_argument("--min-games", type=int, default=3)
    parser.add_argument("--max-ply", type=int, default=1024)
    args = parser.parse_args()

    pairs, boards = expected_pairs(args.pgn, args.max_ply)
    problems = []
    expected_entries = 0
    with chess.polyglot.open_reader(args.book) as reader:
        for key, moves in pairs.items():
            want = {}
            for uci, (n, total) in moves.items():
                if n >= 16384:
                    problems.append(f"{key:016x} {uci}: played {n} times, past what this check counts")
                if n >= args.min_games and total > 0:
                    want[uci] = total
            expected_entries += len(want)
            got = {}
            for entry in reader.find_all(boards[key]):
                got[entry.move.uci()] = entry.weight
                if entry.learn != 0:
                    problems.append(f"{key:016x} {entry.move.uci()}: learn {entry.learn}, not 0")
            if got != want:
                problems.append(f"{boards[key].fen()}: book {sorted(got.items())}, games {sorted(want.items())}")
    entries = os.path.getsize(args.book) // 16
    if entries != expected_entries:
        problems.append(f"the book holds {entries} entries, the games give {expected_entries}")
    for problem in problems[:20]:
        print(problem)
    if problems:
        print(f"{len(problems)} difference(s)", file=sys.stderr)
        return 1
    print(f"{entries} entries of {len(pairs)} positions agree with python-chess")
    return 0


if __name__ == "__main__":
    sys.exit(main())
