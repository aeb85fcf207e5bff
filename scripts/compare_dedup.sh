#!/usr/bin/env bash
# scripts/compare_dedup.sh: compare `pgnkit dedup` with `pgn-extract -D`.
#
# Both keep the first occurrence of each game, in input order, so the games
# they keep should be the same games, in the same order. Each tool's output
# is turned into UCI move lists (one line per game, with pgnkit convert) and
# the two lists are compared line by line; a file passes when they are
# equal. pgn-extract decides duplicates its own way (a hash of the final
# position and the number of moves, by its documentation) and rewrites the
# games it keeps, so differences are possible on purpose: games with
# illegal moves (pgn-extract drops or cuts them), variants, and games from a
# FEN. Differences are printed, not hidden.
#
# Usage: scripts/compare_dedup.sh [FILE...]
#   default: every .pgn file under $SHARED/corpus/pgn, the two
#   $SHARED/corpus/bench files, and each of those concatenated with itself.
# Environment:
#   SHARED       shared folder (default: <repo>/../shared, else /work/shared)
#   PGNKIT       the pgnkit binary (default: build, then target/release/pgnkit)
#   PGN_EXTRACT  the pgn-extract binary (default: pgn-extract on PATH, else
#                /usr/games/pgn-extract; Debian: apt-get install pgn-extract)
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
shared="${SHARED:-$repo/../shared}"
[ -d "$shared/corpus" ] || shared=/work/shared
extract="${PGN_EXTRACT:-$(command -v pgn-extract || echo /usr/games/pgn-extract)}"
[ -x "$extract" ] || { echo "pgn-extract not found (apt-get install pgn-extract)" >&2; exit 2; }
if [ -z "${PGNKIT:-}" ]; then
    (cd "$repo" && cargo build --release --quiet)
    PGNKIT="${CARGO_TARGET_DIR:-$repo/target}/release/pgnkit"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

inputs=("$@")
if [ ${#inputs[@]} -eq 0 ]; then
    while IFS= read -r file; do inputs+=("$file"); done < <(find "$shared/corpus/pgn" -name '*.pgn' | sort)
    for file in "$shared"/corpus/bench/*.pgn.gz; do
        gunzip -c "$file" > "$work/$(basename "$file" .gz)"
        inputs+=("$work/$(basename "$file" .gz)")
    done
    for file in "${inputs[@]}"; do
        twice="$work/twice-$(basename "$file")"
        # A blank line between: a last line without its line end would run
        # into the first line of the copy.
        { cat "$file"; echo; cat "$file"; } > "$twice"
        inputs+=("$twice")
    done
fi

same=0
differ=0
for file in "${inputs[@]}"; do
    # Exit 1 (a game with an error) is expected in the corpus.
    "$PGNKIT" dedup "$file" >"$work/pgnkit.pgn" 2>"$work/pgnkit.err" || true
    read_games=$(sed -n 's/^pgnkit: read \([0-9]*\) games\{0,1\} .*/\1/p' "$work/pgnkit.err")
    "$extract" -D -s --quiet -o "$work/extract.pgn" "$file" 2>/dev/null || true
    "$PGNKIT" convert -q --to uci "$work/pgnkit.pgn" > "$work/pgnkit.uci" 2>/dev/null || true
    "$PGNKIT" convert -q --to uci "$work/extract.pgn" > "$work/extract.uci" 2>/dev/null || true
    kept=$(wc -l < "$work/pgnkit.uci")
    kept_extract=$(wc -l < "$work/extract.uci")
    if cmp -s "$work/pgnkit.uci" "$work/extract.uci"; then
        same=$((same + 1))
    else
        differ=$((differ + 1))
        echo "differ: $file: $read_games games, pgnkit keeps $kept, pgn-extract $kept_extract"
        { diff "$work/pgnkit.uci" "$work/extract.uci" || true; } | head -6 | cut -c1-120 | sed 's/^/    /'
    fi
done
echo "$((same + differ)) inputs: $same keep the same games in the same order, $differ differ"
