#!/usr/bin/env python3
"""Writes N short games between M distinct players, for measuring what
`stats --by player` and `ratings` keep in memory per player.

    scripts/gen_players.py GAMES PLAYERS [--seed N] [-o FILE]

Deterministic: the same arguments give the same bytes. Every player plays
at least once when 2 * GAMES >= PLAYERS (the players are dealt out in
shuffled rounds, so each plays 2 * GAMES / PLAYERS games, give or take
one); pairings, results, Elo tags and dates are drawn from the seed. The
movetext is one of a few legal openings of one to three moves, so reading
the games costs little next to what is kept per player.

With --ring the first PLAYERS games pair each player with the next (the
last with the first) and are drawn: the players are then one pool with
finite maximum-likelihood ratings (`ratings --scheme ml`), which random
pairings of few games a player never are; the other games are dealt out
as above.
"""

import argparse
import random
import sys

OPENINGS = [
    "1. e4 e5",
    "1. d4 d5 2. c4",
    "1. e4 c5 2. Nf3",
    "1. Nf3 Nf6",
    "1. c4 e5 2. Nc3 Nf6",
    "1. e4 e6 2. d4 d5",
    "1. d4 Nf6 2. c4 g6 3. Nc3",
]
# Results with their weights out of 100; `*` is left unrated by `ratings`.
RESULTS = [("1-0", 38), ("1/2-1/2", 30), ("0-1", 30), ("*", 2)]
SURNAMES = ["Alder", "Berg", "Castro", "Duval", "Eriksen", "Fischer", "Gómez", "Horvat", "Ivanov", "Jansen",
            "Kowalski", "Larsen", "Müller", "Nakamura", "Okafor", "Petrov", "Quinn", "Rossi", "Silva", "Tanaka"]
GIVEN = ["Ann", "Boris", "Chen", "Dana", "Emil", "Fatima", "Gustav", "Hana", "Igor", "Julia"]


def player_name(index: int) -> str:
    return f"{SURNAMES[index % len(SURNAMES)]} {index:06d}, {GIVEN[index // len(SURNAMES) % len(GIVEN)]}"


def pairings(rng: random.Random, games: int, players: int, ring: bool):
    """White and Black of each game, and whether it is a drawn ring game:
    players dealt out in shuffled rounds, never one against themselves."""
    if ring:
        for white in range(min(games, players)):
            yield white, (white + 1) % players, True
        games -= min(games, players)
    slots: list[int] = []
    while len(slots) < 2 * games:
        order = list(range(players))
        rng.shuffle(order)
        slots.extend(order)
    slots = slots[: 2 * games]
    for g in range(games):
        white, black = slots[2 * g], slots[2 * g + 1]
        if white == black:
            # Swap Black with a later slot (or an earlier one at the end).
            other = 2 * g + 3 if 2 * g + 3 < len(slots) else 2 * g - 1
            slots[2 * g + 1], slots[other] = slots[other], slots[2 * g + 1]
            black = slots[2 * g + 1]
        yield white, black, False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", type=int)
    parser.add_argument("players", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ring", action="store_true", help="first PLAYERS games: a ring of draws")
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    if args.players < 2 or args.games < 0:
        parser.error("at least two players and no negative number of games")
    rng = random.Random(args.seed)
    results = [r for r, _ in RESULTS]
    weights = [w for _, w in RESULTS]
    out = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8", newline="\n")
    with out:
        for number, (white, black, ring) in enumerate(pairings(rng, args.games, args.players, args.ring), 1):
            result = "1/2-1/2" if ring else rng.choices(results, weights)[0]
            date = f"{rng.randint(2015, 2024)}.{rng.randint(1, 12):02d}.{rng.randint(1, 28):02d}"
            out.write(
                f'[Event "Generated {args.seed}"]\n[Site "?"]\n[Date "{date}"]\n[Round "{number}"]\n'
                f'[White "{player_name(white)}"]\n[Black "{player_name(black)}"]\n[Result "{result}"]\n'
                f'[WhiteElo "{rng.randint(1200, 2800)}"]\n[BlackElo "{rng.randint(1200, 2800)}"]\n\n'
                f"{rng.choice(OPENINGS)} {result}\n\n"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
