#!/usr/bin/env bash
# scripts/bench_perft.sh: speed of `pgnkit perft` against Stockfish's `go perft`.
#
# This is a benchmark, not a test: it prints figures and never fails on them.
#
# What it measures (wall-clock medians with hyperfine, RUNS runs each):
#   * the start position at depth 6 (119,060,324 nodes) and Kiwipete
#     (r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1)
#     at depth 5 (193,690,690 nodes);
#   * `pgnkit perft -j1` and `-j2`, and Stockfish fed `position fen ...`,
#     `go perft N`, `quit` on stdin (its perft runs on one thread);
#   * each program started with nothing to count (`pgnkit perft startpos 0`,
#     Stockfish with `go perft 1`), so that start-up time can be told apart.
# Every command is run once first and its node count checked, so a broken
# command is never timed as a fast one.
#
# Summary: median seconds, nodes per second (Mnodes/s, on the median minus
# that program's start-up median), mean CPU seconds, and the ratios
# pgnkit/Stockfish time and -j2/-j1 time.
#
# Usage: scripts/bench_perft.sh [--runs N]
# Environment:
#   PGNKIT     time this binary and skip `cargo build --release`
#   STOCKFISH  the Stockfish binary (default: `stockfish` on PATH, else
#              /usr/games/stockfish; `apt-get install -y stockfish`)
#   RESULTS    where hyperfine's JSON goes (default: <target>/bench-perft)
set -euo pipefail

RUNS=3
while (($#)); do
    case "$1" in
        --runs)
            RUNS=${2:?--runs needs a number}
            shift 2
            ;;
        -h | --help)
            sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "bench_perft.sh: unknown option: $1 (try --help)" >&2
            exit 2
            ;;
    esac
done

die() {
    echo "bench_perft.sh: $*" >&2
    exit 2
}
log() { echo "== $*" >&2; }

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(git -C "$SCRIPT_DIR" rev-parse --show-toplevel)
TARGET=$(realpath -m "${CARGO_TARGET_DIR:-$ROOT/target}")
if [[ -n ${PGNKIT:-} ]]; then
    PGNKIT=$(realpath -m "$PGNKIT")
else
    log "cargo build --release"
    (cd "$ROOT" && cargo build -q --release) >&2
    PGNKIT=$TARGET/release/pgnkit
fi
[[ -x $PGNKIT ]] || die "no pgnkit binary at $PGNKIT"
STOCKFISH=${STOCKFISH:-$(command -v stockfish || echo /usr/games/stockfish)}
[[ -x $STOCKFISH ]] || die "no Stockfish at $STOCKFISH (apt-get install -y stockfish)"
command -v hyperfine >/dev/null || die "hyperfine is needed"
command -v jq >/dev/null || die "jq is needed"
RESULTS=$(realpath -m "${RESULTS:-$TARGET/bench-perft}")
mkdir -p "$RESULTS"

KIWIPETE="r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
START="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
# name|fen|depth|nodes (published counts)
CASES=(
    "startpos|$START|6|119060324"
    "kiwipete|$KIWIPETE|5|193690690"
)

q() { printf '%q' "$1"; }
sf_cmd() { # sf_cmd FEN DEPTH
    printf '%s\n' "printf 'position fen %s\\ngo perft %s\\nquit\\n' $(q "$1") $2 | $(q "$STOCKFISH")"
}
pk_cmd() { # pk_cmd THREADS FEN DEPTH
    printf '%s perft -j%s %s %s' "$(q "$PGNKIT")" "$1" "$(q "$2")" "$3"
}

# sanity NAME CMD NODES: the last number the command prints is NODES.
sanity() {
    local got
    got=$(bash -c "$2" 2>/dev/null | grep -Eo '[0-9]+' | tail -n 1)
    [[ $got == "$3" ]] || die "$1 counted ${got:-nothing}, expected $3: $2"
    printf '  sanity %-22s %s nodes\n' "$1" "$got" >&2
}

bench() { # bench NAME [LABEL CMD]...
    local name=$1 args=()
    shift
    while (($#)); do
        args+=(-n "$1" "$2")
        shift 2
    done
    log "hyperfine: $name ($RUNS runs each)"
    hyperfine --style basic --warmup 0 --runs "$RUNS" --output null \
        --export-json "$RESULTS/$name.json" "${args[@]}" >&2
}
median() { jq -r --arg n "$2" '.results[] | select(.command == $n) | .median' "$RESULTS/$1.json"; }
cpu_mean() { jq -r --arg n "$2" '.results[] | select(.command == $n) | .user + .system' "$RESULTS/$1.json"; }

read -r LOAD_BEFORE _ </proc/loadavg
if awk -v l="$LOAD_BEFORE" 'BEGIN { exit !(l > 0.5) }'; then
    echo "warning: load average $LOAD_BEFORE before timing: other processes compete for the CPUs" >&2
fi

log "sanity runs"
for case in "${CASES[@]}"; do
    IFS='|' read -r name fen depth nodes <<<"$case"
    sanity "pgnkit-j1 $name" "$(pk_cmd 1 "$fen" "$depth")" "$nodes"
    sanity "pgnkit-j2 $name" "$(pk_cmd 2 "$fen" "$depth")" "$nodes"
    sanity "stockfish $name" "$(sf_cmd "$fen" "$depth")" "$nodes"
done

bench startup \
    pgnkit "$(pk_cmd 1 "$START" 0)" \
    stockfish "$(sf_cmd "$START" 1)"
for case in "${CASES[@]}"; do
    IFS='|' read -r name fen depth nodes <<<"$case"
    bench "$name" \
        pgnkit-j1 "$(pk_cmd 1 "$fen" "$depth")" \
        pgnkit-j2 "$(pk_cmd 2 "$fen" "$depth")" \
        stockfish "$(sf_cmd "$fen" "$depth")"
done

mnps() { awk -v n="$1" -v t="$2" -v s="$3" 'BEGIN { d = t - s; if (d <= 0) d = t; printf "%.1f", n / d / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

PK_START=$(median startup pgnkit)
SF_START=$(median startup stockfish)
{
    echo
    echo "== pgnkit perft benchmark ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cpus, median of $RUNS runs, load before timing $LOAD_BEFORE)"
    echo "stockfish: $("$STOCKFISH" </dev/null 2>/dev/null | head -n 1)"
    printf 'start-up: pgnkit %.3f s, stockfish %.3f s (subtracted for Mnodes/s)\n\n' "$PK_START" "$SF_START"
    printf '%-10s %-6s %12s %-10s %10s %10s %8s\n' position depth nodes command "median s" "Mnodes/s" "cpu s"
    for case in "${CASES[@]}"; do
        IFS='|' read -r name fen depth nodes <<<"$case"
        for cmd in pgnkit-j1 pgnkit-j2 stockfish; do
            m=$(median "$name" "$cmd")
            s=$PK_START
            if [[ $cmd == stockfish ]]; then s=$SF_START; fi
            printf '%-10s %-6s %12s %-10s %10.3f %10s %8.3f\n' "$name" "$depth" "$nodes" "$cmd" "$m" \
                "$(mnps "$nodes" "$m" "$s")" "$(cpu_mean "$name" "$cmd")"
        done
    done
    echo
    printf '%-10s %22s %22s %16s\n' position "pgnkit-j1/stockfish" "pgnkit-j2/stockfish" "pgnkit j2/j1"
    for case in "${CASES[@]}"; do
        IFS='|' read -r name _ _ _ <<<"$case"
        j1=$(median "$name" pgnkit-j1)
        j2=$(median "$name" pgnkit-j2)
        sf=$(median "$name" stockfish)
        printf '%-10s %22s %22s %16s\n' "$name" "$(ratio "$j1" "$sf")" "$(ratio "$j2" "$sf")" "$(ratio "$j2" "$j1")"
    done
    echo "(median s: wall clock; cpu s: mean user+system seconds, which other load on the machine"
    echo " disturbs less; ratios of median wall-clock seconds, below 1 means pgnkit is faster)"
    echo "hyperfine JSON: $RESULTS"
} | tee "$RESULTS/summary.txt"
