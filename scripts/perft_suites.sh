#!/usr/bin/env bash
# scripts/perft_suites.sh: check the shared corpus's perft suites deeper than
# `cargo test` does (it stops at depth 3), for manual runs.
#
# Runs `pgnkit perft -v --suite FILE --max-depth N` on every suite under
# $SHARED/corpus/perft (or on the files given), prints each wrong count and a
# summary line per suite with its time and speed, and exits with the worst
# exit status (0 all right, 1 a wrong count or invalid line, 2 an error).
#
# Rough cost at depth 5 on 2 cores (~100 Mnodes/s): tricky and the pychess
# suites take seconds, chess960.perft a few minutes, random.perft (6,838
# positions, 1.4e11 nodes at depth 5) about half an hour; depth 4 takes
# about a thirtieth of that.
#
# Usage: scripts/perft_suites.sh [--max-depth N] [-j N] [SUITE...]
#   --max-depth N  check counts up to depth N (default 5)
#   -j N           threads (default: all cores)
# Environment:
#   SHARED  shared folder (default: <repo>/../shared)
#   PGNKIT  use this binary and skip `cargo build --release`
set -euo pipefail

MAX_DEPTH=5
THREADS=()
SUITES=()
while (($#)); do
    case "$1" in
        --max-depth)
            MAX_DEPTH=${2:?--max-depth needs a number}
            shift 2
            ;;
        -j)
            THREADS=(-j "${2:?-j needs a number}")
            shift 2
            ;;
        -h | --help)
            sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
            exit 0
            ;;
        -*)
            echo "perft_suites.sh: unknown option: $1 (try --help)" >&2
            exit 2
            ;;
        *)
            SUITES+=("$1")
            shift
            ;;
    esac
done

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(git -C "$SCRIPT_DIR" rev-parse --show-toplevel)
SHARED=$(realpath -m "${SHARED:-$ROOT/../shared}")
if [[ -n ${PGNKIT:-} ]]; then
    PGNKIT=$(realpath -m "$PGNKIT")
else
    echo "== cargo build --release" >&2
    (cd "$ROOT" && cargo build -q --release) >&2
    PGNKIT=$(realpath -m "${CARGO_TARGET_DIR:-$ROOT/target}")/release/pgnkit
fi
[[ -x $PGNKIT ]] || {
    echo "perft_suites.sh: no pgnkit binary at $PGNKIT" >&2
    exit 2
}
if ((${#SUITES[@]} == 0)); then
    [[ -d $SHARED/corpus/perft ]] || {
        echo "perft_suites.sh: no suites given and $SHARED/corpus/perft is absent" >&2
        exit 2
    }
    mapfile -t SUITES < <(find "$SHARED/corpus/perft" -type f \( -name '*.perft' -o -name '*.epd' \) | sort)
fi

worst=0
for suite in "${SUITES[@]}"; do
    echo "== $suite (max depth $MAX_DEPTH)" >&2
    rc=0
    "$PGNKIT" perft -v "${THREADS[@]}" --suite "$suite" --max-depth "$MAX_DEPTH" || rc=$?
    if ((rc > worst)); then worst=$rc; fi
done
exit "$worst"
