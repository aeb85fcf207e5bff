#!/usr/bin/env bash
# scripts/openings_table.sh: rebuild data/openings/chess-openings.tsv.zst,
# the openings table built into pgnkit, from a checkout of
# lichess-org/chess-openings (CC0-1.0).
#
# The table is the checkout's a.tsv to e.tsv in that order, under one
# `eco name pgn` header, rows as they are, compressed by zstd at a fixed
# level. Nothing of the run (time, path, user) goes into the file, so the
# same input and the same zstd version give the same bytes; the tests check
# the rows, which do not depend on the zstd version.
#
# Usage: scripts/openings_table.sh [CHECKOUT [OUT]]
#   CHECKOUT  a folder with a.tsv ... e.tsv
#             (default: <repo>/../shared/corpus/eco/chess-openings)
#   OUT       the file to write (default: data/openings/chess-openings.tsv.zst)
# After a rebuild, update the source commit in data/openings/README.md.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
checkout="${1:-$repo/../shared/corpus/eco/chess-openings}"
out="${2:-$repo/data/openings/chess-openings.tsv.zst}"
command -v zstd >/dev/null || { echo "zstd not found (apt-get install zstd)" >&2; exit 2; }

header=$'eco\tname\tpgn'
for letter in a b c d e; do
    file="$checkout/$letter.tsv"
    [ -f "$file" ] || { echo "$file: missing (is $checkout a chess-openings checkout?)" >&2; exit 2; }
    first="$(head -n 1 "$file")"
    [ "$first" = "$header" ] || { echo "$file: the header is not eco, name, pgn" >&2; exit 2; }
done

{
    printf '%s\n' "$header"
    for letter in a b c d e; do
        tail -n +2 "$checkout/$letter.tsv"
    done
} | zstd -19 -q -c > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out ($(wc -c < "$out") bytes, $(zstd -dc "$out" | tail -n +2 | wc -l) openings)"
