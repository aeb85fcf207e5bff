#!/usr/bin/env bash
# Runs two pgnkit binaries on every PGN file of the shared corpus with the
# commands below and reports any difference in stdout, stderr or exit code:
# the check that a restructuring changed no output.
#
#   scripts/compare_builds.sh OLD_BINARY NEW_BINARY [CORPUS_DIR...]
#
# CORPUS_DIR defaults to ../shared/corpus/pgn and ../shared/corpus/bad.
# Prints one line per difference and a count; exits 1 if any differ.
set -uo pipefail
old=$(realpath "$1") new=$(realpath "$2")
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
dirs=("$@")
[ ${#dirs[@]} -eq 0 ] && dirs=("$root/../shared/corpus/pgn" "$root/../shared/corpus/bad")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
commands=(
    "validate -j1"
    "validate -j2 --format jsonl"
    "validate -j1 --format csv --lint"
    "stats -j2 --format json"
    "stats -j1 --by player --by result"
    "stats -j1 --by variant --by elo-band --format csv"
    "convert -j1 --to pgn"
    "convert -j2 --to jsonl"
    "convert -j1 --to csv"
    "convert -j1 --to uci"
    "filter -j2 --invalid"
    "filter -j1 --valid --normalize"
    "filter -j1 --elo-min 2000"
    "dedup -j2 --list"
    "ratings -j1"
)
files=()
while IFS= read -r -d '' f; do files+=("$f"); done < <(find "${dirs[@]}" -type f \( -name '*.pgn' -o -name '*.pgn.*' \) -print0 | sort -z)
compared=0 differ=0
for f in "${files[@]}"; do
    for c in "${commands[@]}"; do
        # shellcheck disable=SC2086
        (cd "$work" && "$old" $c "$f" >o.out 2>o.err; echo $? >o.rc)
        # shellcheck disable=SC2086
        (cd "$work" && "$new" $c "$f" >n.out 2>n.err; echo $? >n.rc)
        compared=$((compared + 1))
        for part in out err rc; do
            if ! cmp -s "$work/o.$part" "$work/n.$part"; then
                echo "differs ($part): pgnkit $c $f"
                differ=$((differ + 1))
                break
            fi
        done
    done
done
echo "compared $compared runs ($((${#files[@]})) files x ${#commands[@]} commands): $differ differ"
[ "$differ" -eq 0 ]
