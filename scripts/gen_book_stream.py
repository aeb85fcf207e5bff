#!/usr/bin/env python3
"""Writes a stream of games shaped like a lichess month for `pgnkit book`'s
scale run: each game is a real opening line (from a PGN of lines, such as
the bjbraams lines of ../shared/corpus/bench) followed by random legal
moves, so that the first plies repeat as real openings do and the later
ones are mostly new positions, as in a database of millions of games.

    scripts/gen_book_stream.py LINES.pgn GAMES [--plies N] [--seed N] [--repeat K] > stream.pgn

Deterministic: the same arguments give the same bytes. Results (but a
checkmate's or stalemate's) and Elo tags are drawn from the seed. Needs python-chess.

With --repeat K, each game drawn is written K times, each copy cut after a
number of plies drawn between the end of its opening line and its end, with
tags and result drawn anew, the copies of a thousand games shuffled
together: a stream of millions of games (the issue's scale run) in minutes
rather than hours, its positions past the openings fewer by about K/2.
"""

import argparse
import random
import sys

import chess
import chess.pgn


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lines")
    parser.add_argument("games", type=int)
    parser.add_argument("--plies", type=int, default=40, help="plies a game, the opening line's included")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1, help="copies of each game, cut at random plies")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    openings = []
    with open(args.lines, encoding="utf-8") as pgn:
        while len(openings) < 20000:
            game = chess.pgn.read_game(pgn)
            if game is None:
                break
            openings.append(list(game.mainline_moves()))
    out = sys.stdout
    written = 0

    def write(sans, result):
        nonlocal written
        if result == "*":
            result = rng.choice(["1-0", "0-1", "1/2-1/2"])
        movetext = " ".join(f"{i // 2 + 1}. {san}" if i % 2 == 0 else san for i, san in enumerate(sans))
        written += 1
        out.write(
            f'[Event "Stream {written}"]\n[White "W{rng.randrange(5000)}"]\n[Black "B{rng.randrange(5000)}"]\n'
            f'[Result "{result}"]\n[WhiteElo "{rng.randrange(1200, 2800)}"]\n[BlackElo "{rng.randrange(1200, 2800)}"]\n\n'
            f"{movetext} {result}\n\n"
        )

    while written < args.games:
        block = []
        for _ in range(min(1000, -(-(args.games - written) // args.repeat))):
            board = chess.Board()
            sans = []
            opening = rng.choice(openings)
            for move in opening:
                sans.append(board.san(move))
                board.push(move)
            while len(sans) < args.plies and not board.is_game_over():
                move = rng.choice(list(board.legal_moves))
                sans.append(board.san(move))
                board.push(move)
            # A game that ended on the board gets the board's result.
            final = board.result(claim_draw=False)
            if args.repeat == 1:
                write(sans, final)
                continue
            for _ in range(args.repeat):
                cut = rng.randint(min(len(opening), len(sans)), len(sans))
                block.append((sans[:cut], final if cut == len(sans) else "*"))
        rng.shuffle(block)
        for sans, result in block[: args.games - written]:
            write(sans, result)


if __name__ == "__main__":
    main()
