#!/usr/bin/env bash
# scripts/bench.sh: benchmark comparison of `pgnkit validate` against its peers.
#
# This is a benchmark, not a test: it never fails because a target is missed,
# it prints the figures and says which targets were met.
#
# What it measures (wall-clock medians with hyperfine, peak RSS with
# /usr/bin/time -v):
#   * on mix100.pgn (~100 MB, 232,335 games: the two corpus/bench files plus 20
#     copies of the two shakmaty 1000k files):
#       pgnkit validate -j1, pgnkit validate -j2, pgn-reader 0.29.0's own
#       `validate` example (built from the crate source), Disservin's
#       chess-library (C++) replaying every move (scripts/chess_library_replay.cpp,
#       built with g++; left out with a message when its header cannot be
#       had, see CHESS_LIBRARY_DIR), and pgn-extract -r (replay and report
#       errors, extract nothing), with each peer's CPU against pgnkit -j1
#       paired round by round, and instructions (callgrind) of pgnkit -j1,
#       the pgn-reader example and chess-library on sample10.pgn;
#   * on real_games_mix.pgn alone (comment-heavy): pgnkit -j1 against -j2;
#   * on a 10 MB slice of mix100.pgn cut at a game boundary: python-chess
#     replaying every game against pgnkit -j1;
#   * pgnkit -j1 on sample10.pgn, mix100.pgn and mix200.pgn (the same mix at
#     10, 100 and 200 MB): time per byte, which must not grow with the size;
#   * peak RSS of pgnkit -j1 and -j2 on the slice, sample10.pgn (every 10th
#     game of mix100.pgn), mix100.pgn, a ~200 MB file (mix100.pgn twice),
#     and the .zst of sample10, mix100 and mix200.
# It ends with a summary: median seconds, MB/s (10^6 bytes/s) and the ratios
# the project targets (see the table printed at the end). Every timed row is
# also appended to $BENCH_DIR/results/figures.tsv (run, group, command,
# input, bytes, median_s, cpu_s), which scripts/perf_chart.py draws.
#
# --convert times `pgnkit convert` against `pgnkit validate` instead (no
# peers, no RSS): on mix100.pgn, validate, convert --to uci and convert --to
# csv (output to /dev/null), at -j1 and -j2, all six alternated round-robin;
# then it prints each convert's throughput as a fraction of validate's at
# the same -j (target: within 25%, i.e. at least 0.75). As wall-clock times
# on a shared machine are noisy, it also counts instructions with valgrind's
# callgrind (-j1), a steadier A/B, on two ~10 MB inputs: slice10.pgn (426
# long engine games with comments) and sample10.pgn (every 10th game of
# mix100.pgn, so the same mix of game lengths as the timed file); the
# callgrind files are kept in $BENCH_DIR/results for callgrind_annotate.
#
# The inputs are built from the read-only shared corpus into a scratch
# directory (BENCH_DIR, default target/bench, which is git-ignored). The
# benchmark data and results are never committed.
#
# --stats times `pgnkit stats` against `pgnkit validate` on mix100.pgn (-j1
# and -j2, alternated): the summary (default) and a grouped run (--by
# player, the heaviest key: two groups per game); targets: the summary
# within 15% of validate's throughput (at least 0.85) and -j2 at least 1.7
# times as fast as its own -j1; then callgrind counts on sample10.pgn.
#
# --filter times `pgnkit filter` against `pgnkit validate` on mix100.pgn (-j1
# and -j2, alternated): a tag-only filter (--white Carlsen: never replays;
# target at least 3x validate's throughput), a position filter (--fen after
# 1. e4 e5; target within 20%, i.e. at least 0.8) and a material filter
# (--material KRvKR: replays every game to its end), with pgn-extract's
# -TwCarlsen for reference; then callgrind counts on sample10.pgn.
#
# --compressed times `pgnkit validate` -j1 against -j2 on sample10.pgn
# compressed three ways (gzip -6, bzip2 -9, zstd -3; built next to it) and
# plain, all alternated, 9 runs each (3 with --quick). -j1 decompresses in
# place, on its one core; with more threads the decompressor runs on a
# thread of its own, beside the workers, and a .bz2's blocks on -jN
# threads of their own (target: .bz2 -j2 at most 0.6 of -j1's time; .gz
# and .zst shown).
# It prints the cores plain -j2 kept busy: near 1, another process held a
# core and the ratios are moot. Then peak RSS: the .gz of sample10, a gzip
# of 256 MiB of short games (memory must not grow with what the stream
# holds: within 10% of the .gz of sample10) and a gzip of 1 GiB of zero
# bytes (one junk "game" that the framer cuts at --max-game-size; target
# 32 MB plus 3 times --max-game-size, 32 MiB, per thread).
#
# --fen times `pgnkit fen check` (text output to /dev/null, -j1 and all
# cores) against fenbase, a bare shakmaty reading of the same records: each
# line's position fields through Fen::from_ascii into a legal Chess
# position, counted, nothing else. The script writes fenbase's sources into
# $BENCH_DIR/fenbase and builds it with pgnkit's release profile and
# lockfile. Its input, fen-mix.epd, is every record line under
# $SHARED/corpus/fen (kokopu's table for its FEN column; blank and `#` lines
# left out) over and over, ~1.5 million lines; no PGN input is built.
# Targets: fen check -j1 at most 1.5 times fenbase, in CPU seconds (paired
# by round) and in callgrind instructions, counted on fen-sample.epd (the
# first 10 passes over the corpus).
#
# --dedup times `pgnkit dedup` against `pgnkit validate` on mix100.pgn (-j1
# and -j2, alternated; output to /dev/null): the games kept (the default)
# and the clusters (--list); then callgrind counts (-j1) on slice10.pgn and
# sample10.pgn (every 10th game of mix100.pgn, so with its copies: a tenth
# of its games are copies of an earlier one), with the target: dedup at
# most 1.3 times validate's instructions on sample10.pgn.
#
# --targets prints the figures of issue 21 (one pass, linear time) in one
# run, each against its target: callgrind counts (-j1) of validate on
# sample10.pgn and rgm10.pgn (the first 10 MB of real_games_mix.pgn, engine
# games with comments) against the pgn-reader example, of --format jsonl
# against text output, and of dedup against validate; then, paired round by
# round (9 rounds, alternated), validate -j1's CPU against the example's
# and -j2's wall time against -j1's on mix100.pgn, -j2 against -j1 on
# sample10.pgn.bz2, and CPU per byte of a 30 MiB game of junk tokens
# against clean games of the same size (scripts/hostile.sh measures the
# memory targets). It also gives -j1's CPU against the example's on the
# mix's short games alone (bjbraams_chessdb_198350_lines.pgn; not a
# target, but where that figure is lost or won), names the host's CPU and
# says how much longer two validate -j1 runs take side by side than one
# alone, on mix100.pgn (before and after its rounds) and on
# sample10.pgn.bz2 (before its rounds; bzip2's decoding is bound by memory,
# which the cores share): near 1, the two cores do not slow each other;
# above, they do, and -j2 bears it too (not as a bound: two processes
# read the input twice, -j2 once).
#
# --memory measures what `stats --by player` and `ratings` keep per
# player: peak RSS (/usr/bin/time -v) on players-50k-100k.pgn, 50,000
# short games between 100,000 distinct players (scripts/gen_players.py,
# seed 1: each player plays once), of stats -j1 --by player (text, CSV)
# and ratings -j1 for each --scheme (text, CSV), against the target of 64
# MB each. That file is 50,000 separate pools, which ml refuses (exit 2)
# before fitting, so ml is also measured on players-ring-150k-100k.pgn
# (the same players in a ring of drawn games, then 50,000 random ones: one
# pool with finite ratings). JSON output, which holds the whole partial, is
# shown without a target. Then callgrind counts (-j1) of stats --by player
# on players-50k-100k.pgn. No corpus input and no peer is needed.
#
# --startup counts what one-shot runs cost, start-up included (callgrind
# instructions of the whole process: the loader, Rust's runtime, the
# command line, the run; every thread): a one-game `validate` on
# testdata/valid/evergreen-game.pgn (47 plies) against pgn-extract on the
# same file (target: at most pgn-extract's), and `moves e4 e5 Nf3`
# (target: at most 0.6 M); `fen check startpos` is shown. Scripts that
# call pgnkit once per game or position pay this at each call. No corpus
# input is needed.
#
# --costs counts (callgrind, -j1, whole process) what each command that
# replays and writes games costs against `validate -j1 -q` on
# sample10.pgn, with the targets of issue 46: `validate --lint` at most
# 1.3, `fix` 1.5, `convert --to pgn` 1.5, `--to jsonl` 1.5, `--to san`
# 1.25 (stretch: 1.2 each). Outputs go to /dev/null, findings are
# silenced (-q).
#
# --book times `polyglot make-book` (/usr/games/polyglot, or $POLYGLOT)
# against `pgnkit book -j1` and `-j2` on book-clean.pgn, the games of
# mix100.pgn polyglot can read (valid, from the standard start: pgnkit
# filter --valid, then without a FEN tag), default options, alternated;
# the books must be the same bytes. Targets (issue 47): -j1 at most
# polyglot's CPU time (paired by round), -j2 at most 0.6 of -j1's wall
# time. Then callgrind counts of polyglot and pgnkit book -j1 on the clean
# games of sample10.pgn. Without polyglot it says so and stops.
#
# Usage: scripts/bench.sh [--quick] [--peers-only] [--grouped] [--rebuild]
#                         [--convert] [--filter] [--stats] [--dedup]
#                         [--compressed] [--fen] [--targets] [--memory]
#                         [--startup] [--costs] [--book]
#   --quick        3 runs instead of 5, and skip the ~200 MB input
#   --peers-only   do not build or time pgnkit (peers and inputs only)
#   --grouped      all runs of one command before the next (one hyperfine
#                  call per group). By default the runs alternate, round
#                  robin (one hyperfine call per round, --runs 1 each, times
#                  merged into one JSON), so that the host's speed, which
#                  drifts by 20% within minutes here, weighs on every
#                  command alike. (--interleave, the old name of the
#                  default, is still accepted.)
#   --rebuild      rebuild the inputs and the pgn-reader example
#   --convert      convert against validate (see above)
#   --filter       filter against validate (see above)
#   --stats        stats against validate (see above)
#   --compressed   compressed inputs, -j1 against -j2 (see above)
#   --fen          fen check against a bare shakmaty parse (see above)
#   --dedup        dedup against validate (see above)
#   --targets      issue 21's figures against their targets (see above)
#   --memory       peak RSS of stats --by player and ratings (see above)
#   --startup      instructions of one-shot runs, start-up included (see above)
#   --book         polyglot make-book against pgnkit book (see above)
# Environment:
#   SHARED     shared folder (default: <repo>/../shared); inputs from $SHARED/corpus
#   BENCH_DIR  scratch directory (default: <repo>/target/bench)
#   PYTHON     python interpreter for python-chess (default: python3)
#   PGNKIT     time this pgnkit binary and skip `cargo build --release`
#              (default: build, then use target/release/pgnkit)
#   CHESS_LIBRARY_DIR  a checkout of github.com/Disservin/chess-library
#              (include/chess.hpp) for the chess-library peer (default:
#              $BENCH_DIR/chess-library, cloned at a pinned commit when the
#              network allows)
#   PEER_PROFILE=default  build the pgn-reader example with cargo's default
#              release profile instead of pgnkit's (fat LTO, codegen-units=1)
set -euo pipefail

QUICK=0
PEERS_ONLY=0
INTERLEAVE=1
REBUILD=0
CONVERT=0
FILTER=0
STATS=0
COMPRESSED=0
FEN=0
DEDUP=0
TARGETS=0
MEMORY=0
STARTUP=0
COSTS=0
BOOK=0
for arg in "$@"; do
    case "$arg" in
        --quick) QUICK=1 ;;
        --peers-only) PEERS_ONLY=1 ;;
        --interleave) INTERLEAVE=1 ;;
        --grouped) INTERLEAVE=0 ;;
        --rebuild) REBUILD=1 ;;
        --convert) CONVERT=1 ;;
        --filter) FILTER=1 CONVERT=1 ;;
        --stats) STATS=1 CONVERT=1 ;;
        --compressed) COMPRESSED=1 CONVERT=1 ;;
        --fen) FEN=1 CONVERT=1 ;;
        --dedup) DEDUP=1 CONVERT=1 ;;
        --targets) TARGETS=1 CONVERT=1 ;;
        --memory) MEMORY=1 CONVERT=1 ;;
        --startup) STARTUP=1 CONVERT=1 ;;
        --costs) COSTS=1 CONVERT=1 ;;
        --book) BOOK=1 CONVERT=1 ;;
        -h | --help)
            sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "bench.sh: unknown option: $arg (try --help)" >&2
            exit 2
            ;;
    esac
done

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(git -C "$SCRIPT_DIR" rev-parse --show-toplevel)
SHARED=$(realpath -m "${SHARED:-$ROOT/../shared}")
CORPUS=$SHARED/corpus
BENCH_DIR=$(realpath -m "${BENCH_DIR:-$ROOT/target/bench}")
PYTHON=${PYTHON:-python3}
BUILD_PGNKIT=1
if [[ -n ${PGNKIT:-} ]]; then
    PGNKIT=$(realpath -m "$PGNKIT")
    BUILD_PGNKIT=0
else
    PGNKIT=$(realpath -m "${CARGO_TARGET_DIR:-$ROOT/target}")/release/pgnkit
fi
RESULTS=$BENCH_DIR/results
WARMUP=1
RUNS=5
if ((QUICK)); then RUNS=3; fi
if ((CONVERT && PEERS_ONLY)); then
    echo "bench.sh: --convert times pgnkit only; it cannot go with --peers-only" >&2
    exit 2
fi
cd "$ROOT"

log() { printf '\n==> %s\n' "$*" >&2; }
die() {
    printf 'bench.sh: %s\n' "$*" >&2
    exit 2
}

# ---------------------------------------------------------------- tools ----
APT_UPDATED=0
apt_install() {
    if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
        die "missing tool(s); install the Debian package(s): $*"
    fi
    if ((!APT_UPDATED)); then
        apt-get update -qq >&2
        APT_UPDATED=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

log "checking tools"
for pair in hyperfine:hyperfine zstd:zstd jq:jq; do
    command -v "${pair%%:*}" >/dev/null || apt_install "${pair#*:}"
done
[[ -x /usr/bin/time ]] || apt_install time
if ((CONVERT && !COMPRESSED)) || ((STARTUP)); then
    command -v valgrind >/dev/null || apt_install valgrind
fi
# The PGN peers; --fen has its own, built below.
PGN_EXTRACT=pgn-extract PE_FLAGS=()
if { ((!FEN && !MEMORY)) || ((STARTUP || COSTS)); }; then
    # Debian installs pgn-extract as /usr/games/pgn-extract, often not on PATH.
    PGN_EXTRACT=$(command -v pgn-extract || true)
    if [[ -z $PGN_EXTRACT && ! -x /usr/games/pgn-extract ]]; then
        apt_install pgn-extract
    fi
    PGN_EXTRACT=${PGN_EXTRACT:-$(command -v pgn-extract || echo /usr/games/pgn-extract)}
    [[ -x $PGN_EXTRACT ]] || die "pgn-extract not found"
    if ((!STARTUP)); then
        if ! "$PYTHON" -c 'import chess.pgn' 2>/dev/null; then
            "$PYTHON" -m pip install -q chess >&2
        fi
        PY_CHESS_VERSION=$("$PYTHON" -c 'import chess; print(chess.__version__)')
    fi
    PGN_EXTRACT_VERSION=$(dpkg-query -W -f '${Version}' pgn-extract 2>/dev/null || echo unknown)

    # pgn-extract flags: -r replays every game and reports errors without
    # extracting, -s is silent (no per-game report). --quiet (no status
    # processing output) exists in Debian's 19.04 and in current upstream
    # releases; the check below drops it for a build that lacks it.
    # (Without --quiet, 19.04 prints "Games: 1000" ... progress to stderr even
    # with -s.) `pgn-extract -h` exits 1, hence the `|| true`.
    PE_HELP=$("$PGN_EXTRACT" -h 2>&1 || true)
    PE_FLAGS=(-s --quiet -r)
    if [[ $PE_HELP != *--quiet* ]]; then
        PE_FLAGS=(-s -r)
    fi
fi

# --------------------------------------------------------------- pgnkit ----
if ((!PEERS_ONLY)); then
    if ((BUILD_PGNKIT)); then
        log "building pgnkit (cargo build --release)"
        cargo build --release >&2
    fi
    [[ -x $PGNKIT ]] || die "no pgnkit binary at $PGNKIT"
fi

# --------------------------------------------------------------- inputs ----
mkdir -p "$BENCH_DIR" "$RESULTS"
# Every timed row of every table is also a line of $FIGURES, tab-separated,
# for scripts (scripts/perf_chart.py draws docs/performance.svg from it):
# run (this run's start, UTC), group (the table's key), command, input,
# bytes, median_s (wall clock), cpu_s (mean user + system). Runs append.
FIGURES=$RESULTS/figures.tsv
RUN_ID=$(date -u +%Y-%m-%dT%H:%MZ)
if [[ ! -s $FIGURES ]]; then
    printf 'run\tgroup\tcommand\tinput\tbytes\tmedian_s\tcpu_s\n' >"$FIGURES"
fi
MIX=$BENCH_DIR/mix100.pgn
REAL=$BENCH_DIR/real_games_mix.pgn
SLICE=$BENCH_DIR/slice10.pgn
MIX_ZST=$BENCH_DIR/mix100.pgn.zst
MIX200=$BENCH_DIR/mix200.pgn
SLICE_BYTES=10000000

count_games() { grep -c '^\[Result ' "$1" || true; }
# -L: an input may be a symbolic link to another tree's (read in place).
size_of() { stat -L -c %s "$1"; }

if { ((!FEN && !MEMORY && !STARTUP)) || ((COSTS)); }; then
    for f in bench/real_games_mix.pgn.gz bench/bjbraams_chessdb_198350_lines.pgn.gz \
        pgn/shakmaty/lichess_db_1000k.pgn pgn/shakmaty/twic1599_1000k.pgn; do
        [[ -r $CORPUS/$f ]] || die "missing corpus file $CORPUS/$f (set SHARED=...)"
    done

    # Write file $1 to stdout so that it ends with exactly one newline followed
    # by one empty line, whatever it ended with (nothing, one or several newlines).
    emit_part() {
        local n=0 tail
        tail=$(tail -c 8 "$1" | od -An -tx1 | tr -d ' \n')
        while [[ $tail == *0a ]]; do
            n=$((n + 1))
            tail=${tail%0a}
        done
        head -c "$(($(stat -c %s "$1") - n))" "$1"
        printf '\n\n'
    }

    if ((REBUILD)) || [[ ! -s $MIX || ! -s $REAL || ! -s $SLICE || ! -s $MIX_ZST ]]; then
        log "building inputs in $BENCH_DIR"
        gzip -dc "$CORPUS/bench/real_games_mix.pgn.gz" >"$REAL"
        bj=$BENCH_DIR/bjbraams_chessdb_198350_lines.pgn
        gzip -dc "$CORPUS/bench/bjbraams_chessdb_198350_lines.pgn.gz" >"$bj"
        {
            emit_part "$REAL"
            emit_part "$bj"
            for _ in $(seq 20); do
                emit_part "$CORPUS/pgn/shakmaty/lichess_db_1000k.pgn"
                emit_part "$CORPUS/pgn/shakmaty/twic1599_1000k.pgn"
            done
        } >"$MIX.tmp"
        mv "$MIX.tmp" "$MIX"
        rm -f "$bj"

        # 10 MB slice: up to the last game start (an `[Event ` line after an
        # empty line) within the first 10^7 bytes; it ends with the empty line.
        cut_line=$(head -c "$SLICE_BYTES" "$MIX" | awk '
            /^\[Event / && prev_blank { last = NR }
            { prev_blank = ($0 == "" || $0 == "\r") }
            END { print last + 0 }')
        ((cut_line > 1)) || die "no game boundary in the first $SLICE_BYTES bytes of $MIX"
        head -n "$((cut_line - 1))" "$MIX" >"$SLICE"

        zstd -q -f -3 -T0 "$MIX" -o "$MIX_ZST"
    fi
    if ((!QUICK && !CONVERT)) && [[ ! -s $MIX200 || $(size_of "$MIX200") -ne $((2 * $(size_of "$MIX"))) || $MIX200 -ot $MIX ]]; then
        # mix100.pgn ends with "\n\n", so the two copies are one blank line apart.
        cat "$MIX" "$MIX" >"$MIX200"
    fi

    MIX_SIZE=$(size_of "$MIX")
    MIX_GAMES=$(count_games "$MIX")
    REAL_SIZE=$(size_of "$REAL")
    SLICE_SIZE=$(size_of "$SLICE")
    SLICE_GAMES=$(count_games "$SLICE")
    printf '%s: %d bytes, %d games ([Result lines)\n' "$MIX" "$MIX_SIZE" "$MIX_GAMES" >&2
    printf '%s: %d bytes, %d games\n' "$SLICE" "$SLICE_SIZE" "$SLICE_GAMES" >&2
    if [[ $MIX_GAMES -ne 232335 ]]; then
        echo "warning: expected 232,335 games in mix100.pgn, found $MIX_GAMES" >&2
    fi
fi

# ------------------------------------------- pgn-reader validate example ----
PR_DIR=$BENCH_DIR/pgn-reader-0.29.0
PR_BIN=$PR_DIR/target/release/examples/validate
if { ((!CONVERT)) || ((TARGETS)); } && { ((REBUILD)) || [[ ! -x $PR_BIN ]]; }; then
    log "building pgn-reader 0.29.0 examples/validate.rs"
    registry=${CARGO_HOME:-$HOME/.cargo}/registry/src
    src=$(compgen -G "$registry/*/pgn-reader-0.29.0" | head -n 1 || true)
    if [[ -z $src ]]; then
        cargo fetch >&2
        src=$(compgen -G "$registry/*/pgn-reader-0.29.0" | head -n 1 || true)
    fi
    [[ -n $src ]] || die "pgn-reader-0.29.0 source not found under $registry"
    rm -rf "$PR_DIR"
    cp -R "$src" "$PR_DIR"
    chmod -R u+w "$PR_DIR"
    # A standalone workspace, so no enclosing Cargo.toml is ever picked up.
    printf '\n[workspace]\n' >>"$PR_DIR/Cargo.toml"
    (
        cd "$PR_DIR"
        # The crate's lockfile has shakmaty 0.30.0; use pgnkit's 0.30.1 so the
        # same move generator is compared (0.30.2 would need Rust 1.97).
        cargo update -q -p shakmaty --precise 0.30.1 >&2 || true
        if [[ ${PEER_PROFILE:-} == default ]]; then
            env -u CARGO_TARGET_DIR cargo build -q --release --example validate >&2
        else
            # Same release profile as pgnkit's Cargo.toml.
            env -u CARGO_TARGET_DIR CARGO_PROFILE_RELEASE_LTO=fat \
                CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
                cargo build -q --release --example validate >&2
        fi
    )
fi
((CONVERT)) || [[ -x $PR_BIN ]] || die "no pgn-reader example at $PR_BIN"

# ------------------------------------------------ chess-library harness ----
# Disservin's chess-library (C++, one header): scripts/chess_library_replay.cpp
# reads the PGN with its streaming reader (pgn::StreamParser and a Visitor)
# and replays every move (uci::parseSan, makeMove), as the pgn-reader
# example does with shakmaty. The header comes from CHESS_LIBRARY_DIR (a
# checkout with include/chess.hpp), else from a clone at CL_COMMIT in
# $BENCH_DIR/chess-library; with neither (no network), or no g++, the peer
# is left out with a message. Built with g++ -O3 -march=native, C++17 (g++
# 12 stops with an internal error on the header's C++20 path; with
# -march=native its C++17 bit counts are the same instructions), and again
# for baseline x86-64, as cargo builds the Rust peers, for callgrind (which
# cannot run AVX-512 code).
CL_COMMIT=1aafb2eb8786933b58f4d129f30adce91036a491 # release 0.9.3
CL_BIN=
CL_VERSION=
if ((!CONVERT)); then
    cl_dir=$(realpath -m "${CHESS_LIBRARY_DIR:-$BENCH_DIR/chess-library}")
    if [[ -z ${CHESS_LIBRARY_DIR:-} && ! -s $cl_dir/include/chess.hpp ]]; then
        log "cloning chess-library at $CL_COMMIT into $cl_dir"
        rm -rf "$cl_dir.tmp"
        if GIT_TERMINAL_PROMPT=0 timeout 120 git clone -q --no-checkout \
            https://github.com/Disservin/chess-library "$cl_dir.tmp" >&2 &&
            git -C "$cl_dir.tmp" checkout -q "$CL_COMMIT" >&2; then
            mv "$cl_dir.tmp" "$cl_dir"
        else
            rm -rf "$cl_dir.tmp"
        fi
    fi
    if ! command -v g++ >/dev/null && [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
        apt_install g++
    fi
    CL_BIN=$BENCH_DIR/chess_library_replay
    cl_src=$ROOT/scripts/chess_library_replay.cpp
    if [[ ! -s $cl_dir/include/chess.hpp ]]; then
        echo "bench.sh: chess-library left out: no $cl_dir/include/chess.hpp" \
            "(set CHESS_LIBRARY_DIR to a checkout of https://github.com/Disservin/chess-library)" >&2
        CL_BIN=
    elif ! command -v g++ >/dev/null; then
        echo "bench.sh: chess-library left out: no g++ (apt-get install g++)" >&2
        CL_BIN=
    elif ((REBUILD)) || [[ ! -x $CL_BIN || ! -x $CL_BIN-x86-64 || $CL_BIN -ot $cl_src || $CL_BIN -ot $cl_dir/include/chess.hpp ]]; then
        log "building $CL_BIN (g++ -O3 -march=native, and -x86-64 for callgrind)"
        g++ -std=c++17 -O3 -march=native -DNDEBUG -I "$cl_dir/include" "$cl_src" -o "$CL_BIN.tmp" >&2
        g++ -std=c++17 -O3 -DNDEBUG -I "$cl_dir/include" "$cl_src" -o "$CL_BIN-x86-64" >&2
        mv "$CL_BIN.tmp" "$CL_BIN"
    fi
    if [[ -n $CL_BIN ]]; then
        CL_VERSION=$(sed -n 's/^VERSION: *//p' "$cl_dir/include/chess.hpp" | head -n 1)
        cl_rev="not a git checkout"
        if [[ -e $cl_dir/.git ]]; then cl_rev=$(git -C "$cl_dir" rev-parse --short HEAD); fi
        CL_VERSION="${CL_VERSION:-unknown} ($cl_rev)"
    fi
fi

# python-chess: replay every game's main line on a board.
PY_REPLAY=$BENCH_DIR/python_chess_replay.py
cat >"$PY_REPLAY" <<'EOF'
import sys

import chess.pgn

games = plies = bad = 0
with open(sys.argv[1], encoding="utf-8", errors="replace") as handle:
    while True:
        game = chess.pgn.read_game(handle)
        if game is None:
            break
        games += 1
        board = game.board()
        for move in game.mainline_moves():
            board.push(move)
            plies += 1
        bad += bool(game.errors)
print(f"{sys.argv[1]}: {games} games, {plies} plies, {bad} with errors")
EOF

# ------------------------------------------------------------- timing ----
q() { printf '%q' "$1"; }

# Run a command once before timing it: show its exit status and last output
# line, so that a command that fails at once (exit 2: usage or I/O error)
# is never timed as a fast one.
sanity() {
    local name=$1 cmd=$2 rc=0 out=$RESULTS/sanity-${1// /}.log
    bash -c "$cmd" >"$out" 2>&1 || rc=$?
    printf '  sanity %-20s exit %d, %d output lines, last: %s\n' "$name" "$rc" \
        "$(wc -l <"$out")" "$(tail -n 1 "$out" | cut -c 1-80)" >&2
    if ((rc >= 2)); then
        die "$name exits $rc (usage or I/O error; see $out): $cmd"
    fi
}

# bench NAME [LABEL CMD]...: time the commands with hyperfine; results in
# $RESULTS/NAME.json (hyperfine's format; alternated rounds merged).
# -i: `validate` exits 1 when the data has problems, which is not a failure.
# -N: no shell in between (the commands are plain words); a shell's start
# and hyperfine's correction for it moved the 20 ms slice run by 5-25 ms.
bench() {
    local name=$1 json=$RESULTS/$1.json args=() r w
    shift
    while (($#)); do
        args+=(-n "$1" "$2")
        shift 2
    done
    log "hyperfine: $name"
    if ((!INTERLEAVE)); then
        hyperfine -N --warmup "$WARMUP" --runs "$RUNS" -i --output null \
            --export-json "$json" "${args[@]}" >&2
        return
    fi
    for ((r = 1; r <= RUNS; r++)); do
        w=0
        if ((r == 1)); then w=$WARMUP; fi
        hyperfine -N --style basic --warmup "$w" --runs 1 -i --output null \
            --export-json "$json.round$r" "${args[@]}" >&2
    done
    jq -s '{results: (map(.results) | transpose | map({
            command: .[0].command,
            user: (map(.user) | add / length),
            system: (map(.system) | add / length),
            times: map(.times[]),
            cpus: map(.user + .system),
            exit_codes: map(.exit_codes[])})
        | map(. + {
            mean: (.times | add / length),
            median: (.times | sort | if length % 2 == 1
                then .[(length - 1) / 2]
                else (.[length / 2 - 1] + .[length / 2]) / 2 end)}))}' \
        "$json".round* >"$json"
    rm -f "$json".round*
}

median() {
    jq -r --arg n "$2" '.results[] | select(.command == $n) | .median' "$RESULTS/$1.json"
}
cpu_mean() { # user + system seconds, mean over the runs
    jq -r --arg n "$2" '.results[] | select(.command == $n) | .user + .system' "$RESULTS/$1.json"
}
# paired_ratios KEY FIELD A B: A's over B's, round by round (FIELD `times`
# for wall clock, `cpus` for user + system), one line per round: a ratio
# within a round is steadier than one of medians when the host's speed
# drifts. With --grouped, runs are not paired: one ratio of means.
paired_ratios() {
    jq -r --arg f "$2" --arg a "$3" --arg b "$4" '
        def runs($n): .results[] | select(.command == $n)
            | if $f == "cpus" then (.cpus // [.user + .system]) else .times end;
        if (runs($a) | length) == (runs($b) | length)
        then [runs($a), runs($b)] | transpose | map(.[0] / .[1])[]
        else (runs($a) | add / length) / (runs($b) | add / length) end' "$RESULTS/$1.json"
}
# paired_median KEY FIELD A B [DIGITS]: the median of paired_ratios, with
# DIGITS decimals (2 unless given).
paired_median() {
    paired_ratios "$1" "$2" "$3" "$4" | sort -g | awk -v d="${5:-2}" '{ r[NR] = $1 }
        END { printf "%.*f", d, NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }'
}

PK_J1="$(q "$PGNKIT") validate -j1"
PK_J2="$(q "$PGNKIT") validate -j2"
PR_CMD=$(q "$PR_BIN")
PE_CMD="$(q "$PGN_EXTRACT") ${PE_FLAGS[*]}"
PY_CMD="$(q "$PYTHON") $(q "$PY_REPLAY")"

# The machine has 2 vCPUs: anything else running (a cargo build) skews the
# wall-clock medians; the summary also shows CPU seconds for that reason.
read -r LOAD_BEFORE _ </proc/loadavg
if awk -v l="$LOAD_BEFORE" 'BEGIN { exit !(l > 0.5) }'; then
    echo "warning: load average $LOAD_BEFORE before timing: other processes compete for the CPUs" >&2
fi

MIX_Q=$(q "$MIX")
REAL_Q=$(q "$REAL")
SLICE_Q=$(q "$SLICE")
# The chess-library peer on mix100.pgn, when built: bench()'s label and command.
CL_ARGS=()
if [[ -n $CL_BIN ]]; then CL_ARGS=(chess-library "$(q "$CL_BIN") $MIX_Q"); fi

# ------------------------------------------------------------- report ----
mbps() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.1f", b / 1e6 / s }'; }
ratio() { awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN { printf "%.*f", d, a / b }'; } # A B [DIGITS]
# verdict VALUE OP TARGET -> "ok" or "MISSED"
verdict() {
    awk -v v="$1" -v op="$2" -v t="$3" \
        'BEGIN { ok = (op == "<=") ? (v <= t) : (v >= t); print ok ? "ok" : "MISSED" }'
}

target_row() { # target_row LABEL VALUE OP TARGET
    printf '%-44s %8s %8s %s\n' "$1" "$2" "$3$4" "$(verdict "$2" "$3" "$4")"
}

row() { # row JSON LABEL INPUT_NAME BYTES (and a line of $FIGURES)
    local m
    m=$(median "$1" "$2")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$RUN_ID" "$1" "$2" "$3" "$4" "$m" \
        "$(cpu_mean "$1" "$2")" >>"$FIGURES"
    printf '%-22s %-20s %10.3f %10s %10.3f\n' "$2" "$3" "$m" "$(mbps "$4" "$m")" \
        "$(cpu_mean "$1" "$2")"
}

# ------------------------------------------------------ --convert mode ----
SAMPLE=$BENCH_DIR/sample10.pgn

# sample10.pgn: every 10th game of mix100.pgn, the same mix at a tenth of
# the size.
ensure_sample() {
    if ((REBUILD)) || [[ ! -s $SAMPLE || $SAMPLE -ot $MIX ]]; then
        # A game starts at a tag line that follows an empty line (or the
        # start of the file); the short database lines have no [Event] tag.
        awk 'BEGIN { prev_blank = 1 }
            /^\[/ && prev_blank { n++ }
            { prev_blank = ($0 == "" || $0 == "\r") }
            n % 10 == 1' "$MIX" >"$SAMPLE.tmp"
        mv "$SAMPLE.tmp" "$SAMPLE"
    fi
}

# callgrind_ir NAME ARGS...: instructions executed (Ir, all threads) by one
# `pgnkit ARGS...` run under callgrind; the profile stays in $RESULTS.
callgrind_ir() {
    local name=$1
    shift
    callgrind_bin_ir "$name" "$PGNKIT" "$@"
}

# callgrind_bin_ir NAME PROGRAM ARGS...: the same for any program.
callgrind_bin_ir() {
    local out=$RESULTS/callgrind.$1.out
    shift
    rm -f "$out"
    valgrind --tool=callgrind --callgrind-out-file="$out" "$@" \
        >/dev/null 2>"$out.log" || true
    [[ -s $out ]] || die "callgrind wrote no profile (see $out.log)"
    # A program killed under callgrind (an instruction it cannot run) still
    # leaves a profile, of the instructions before it stopped.
    ! grep -q 'Process terminating' "$out.log" || die "$1 stopped under callgrind (see $out.log)"
    awk '/^(summary|totals):/ { print $2; exit }' "$out"
}

# timing_table KEY NOTE: the heading and one row per command of the
# caller's array `names`, timed under KEY on mix100.pgn.
timing_table() {
    local i
    echo "== pgnkit $1 against validate ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cpus," \
        "runs=$RUNS, alternated, load before timing $LOAD_BEFORE)"
    echo "mix100.pgn: $MIX_SIZE bytes, $MIX_GAMES games; $2"
    echo
    printf '%-22s %-20s %10s %10s %10s\n' command input "median s" "MB/s" "cpu s"
    for i in "${names[@]}"; do
        row "$1" "$i" mix100.pgn "$MIX_SIZE"
    done
}

# sanity_then_bench KEY: one sanity run of each command of the caller's
# arrays `names` and `cmds`, then all of them timed, alternated, under KEY.
sanity_then_bench() {
    local i args=()
    log "sanity runs (exit 0: clean, 1: problems found in the data)"
    for i in "${!names[@]}"; do
        sanity "${names[$i]}" "${cmds[$i]}"
        args+=("${names[$i]}" "${cmds[$i]}")
    done
    bench "$1" "${args[@]}"
}

filter_mode() {
    local i j v pk cmds=() names=() fen
    pk=$(q "$PGNKIT")
    fen=$(q "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1")
    for j in 1 2; do
        names+=("validate-j$j" "tags-j$j" "fen-j$j" "material-j$j")
        cmds+=("$pk validate -j$j $MIX_Q"
            "$pk filter -j$j --white Carlsen $MIX_Q"
            "$pk filter -j$j --fen $fen $MIX_Q"
            "$pk filter -j$j --material KRvKR $MIX_Q")
    done
    names+=(pgn-extract-tags)
    cmds+=("$(q "$PGN_EXTRACT") -s --quiet -TwCarlsen -o /dev/null $MIX_Q")
    sanity_then_bench filter
    ensure_sample
    local input=$SAMPLE ir_validate ir_fen ir_material
    log "callgrind on $input (-j1; takes a few minutes)"
    ir_validate=$(callgrind_ir filter.validate validate -j1 "$input")
    ir_fen=$(callgrind_ir filter.fen filter -j1 --fen "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1" "$input")
    ir_material=$(callgrind_ir filter.material filter -j1 --material KRvKR "$input")
    {
        echo
        timing_table filter "filter output to /dev/null"
        echo
        printf '%-44s %8s %8s %s\n' "throughput, filter / validate" value target ""
        for j in 1 2; do
            v=$(median filter "validate-j$j")
            target_row "filter --white (tags) -j$j / validate" "$(ratio "$v" "$(median filter "tags-j$j")")" ">=" 3
            target_row "filter --fen -j$j / validate" "$(ratio "$v" "$(median filter "fen-j$j")")" ">=" 0.8
            printf '%-44s %8s\n' "filter --material -j$j / validate" "$(ratio "$v" "$(median filter "material-j$j")")"
        done
        printf '%-44s %8s\n' "pgn-extract -Tw / filter --white -j1 (time)" \
            "$(ratio "$(median filter pgn-extract-tags)" "$(median filter tags-j1)")"
        echo
        echo "callgrind, -j1, $(basename "$input"): Ir validate $ir_validate, filter --fen $ir_fen" \
            "($(ratio "$ir_fen" "$ir_validate")x), filter --material $ir_material ($(ratio "$ir_material" "$ir_validate")x)"
    } | tee "$RESULTS/filter-summary.txt"
}

stats_mode() {
    local i j v pk cmds=() names=()
    pk=$(q "$PGNKIT")
    for j in 1 2; do
        names+=("validate-j$j" "stats-j$j" "player-j$j")
        cmds+=("$pk validate -j$j $MIX_Q"
            "$pk stats -j$j $MIX_Q"
            "$pk stats -j$j --by player $MIX_Q")
    done
    sanity_then_bench stats
    ensure_sample
    local input=$SAMPLE ir_validate ir_stats ir_player
    log "callgrind on $input (-j1; takes a few minutes)"
    ir_validate=$(callgrind_ir stats.validate validate -j1 "$input")
    ir_stats=$(callgrind_ir stats.summary stats -j1 "$input")
    ir_player=$(callgrind_ir stats.player stats -j1 --by player "$input")
    {
        echo
        timing_table stats "stats output to /dev/null"
        echo
        printf '%-44s %8s %8s %s\n' "ratio" value target ""
        for j in 1 2; do
            v=$(median stats "validate-j$j")
            target_row "throughput, stats -j$j / validate -j$j" "$(ratio "$v" "$(median stats "stats-j$j")")" ">=" 0.85
            printf '%-44s %8s\n' "throughput, stats --by player -j$j / validate" \
                "$(ratio "$v" "$(median stats "player-j$j")")"
        done
        target_row "speed-up, stats -j1 / stats -j2 (time)" \
            "$(ratio "$(median stats stats-j1)" "$(median stats stats-j2)")" ">=" 1.7
        printf '%-44s %8s\n' "speed-up, stats --by player -j1 / -j2" \
            "$(ratio "$(median stats player-j1)" "$(median stats player-j2)")"
        printf '%-44s %8s\n' "speed-up, validate -j1 / -j2 (same runs)" \
            "$(ratio "$(median stats validate-j1)" "$(median stats validate-j2)")"
        echo
        echo "callgrind, -j1, $(basename "$input"): Ir validate $ir_validate, stats $ir_stats" \
            "($(ratio "$ir_stats" "$ir_validate")x), stats --by player $ir_player ($(ratio "$ir_player" "$ir_validate")x)"
    } | tee "$RESULTS/stats-summary.txt"
}

# ----------------------------------------------------------- --fen mode ----
FEN_MIX=$BENCH_DIR/fen-mix.epd
FEN_SAMPLE=$BENCH_DIR/fen-sample.epd
FEN_LINES=1500000
FEN_SAMPLE_PASSES=10
FENBASE_DIR=$BENCH_DIR/fenbase
FENBASE=$FENBASE_DIR/target/release/fenbase

# One pass over the FEN corpus: every record line of every file, in path
# order, without carriage returns; blank and `#` lines are no records.
fen_pass() {
    local f
    find "$CORPUS/fen" -type f | LC_ALL=C sort | while read -r f; do
        case $f in
            # kokopu's test table: a header row, then the FEN in column 2.
            *.csv) awk -F'\t' 'NR > 1 { print $2 }' "$f" ;;
            # awk ends a last line that has no newline with one.
            *) awk 1 "$f" ;;
        esac
    done | tr -d '\r' | grep -v -e '^[[:space:]]*$' -e '^[[:space:]]*#'
}

# fen-mix.epd: the pass repeated up to FEN_LINES lines or just over;
# fen-sample.epd: its first FEN_SAMPLE_PASSES passes, for callgrind.
ensure_fen_inputs() {
    local pass=$BENCH_DIR/fen-pass.epd lines passes i
    [[ -d $CORPUS/fen ]] || die "missing $CORPUS/fen (set SHARED=...)"
    if ((REBUILD)) || [[ ! -s $FEN_MIX || ! -s $FEN_SAMPLE || ! -s $pass ]]; then
        log "building fen-mix.epd and fen-sample.epd in $BENCH_DIR"
        fen_pass >"$pass"
        lines=$(wc -l <"$pass")
        ((lines > 0)) || die "no FEN records under $CORPUS/fen"
        passes=$(((FEN_LINES + lines - 1) / lines))
        for ((i = 0; i < passes; i++)); do cat "$pass"; done >"$FEN_MIX.tmp"
        mv "$FEN_MIX.tmp" "$FEN_MIX"
        head -n "$((FEN_SAMPLE_PASSES * lines))" "$FEN_MIX" >"$FEN_SAMPLE"
    fi
    FEN_PASS_LINES=$(wc -l <"$pass")
}

# replace_file FILE: stdin into FILE, unless FILE has that text already
# (cargo goes by modification times: an unchanged source is not rebuilt).
replace_file() {
    local text
    text=$(cat)
    if [[ ! -f $1 || $(cat "$1") != "$text" ]]; then
        printf '%s\n' "$text" >"$1"
    fi
}

# fenbase: what reading a record costs at least, shakmaty's FEN parser and
# its legality check, to measure fen check against. Built with pgnkit's
# release profile, and first with pgnkit's lockfile (the same shakmaty
# dependencies).
build_fenbase() {
    mkdir -p "$FENBASE_DIR/src"
    replace_file "$FENBASE_DIR/Cargo.toml" <<'EOF'
[package]
name = "fenbase"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
shakmaty = "=0.30.1"

# pgnkit's release profile, so that both are built alike.
[profile.release]
lto = "fat"
codegen-units = 1
panic = "unwind"

# Its own workspace: no enclosing Cargo.toml is ever picked up.
[workspace]
EOF
    replace_file "$FENBASE_DIR/src/main.rs" <<'EOF'
//! fenbase: the bare cost of reading FEN and EPD records with shakmaty,
//! line by line: the position fields parsed and set up as a legal
//! position, counted, nothing else.

use std::{
    fs::File,
    io::{BufRead, BufReader},
};

use shakmaty::{CastlingMode, Chess, fen::Fen};

/// The part of a record shakmaty's FEN parser reads: six fields when the
/// fifth and sixth are the move counters, else the first four (an EPD
/// record, whose operations follow).
fn position_fields(line: &[u8]) -> &[u8] {
    let mut ends = [line.len(); 6];
    let (mut fields, mut in_field) = (0, false);
    for (i, &b) in line.iter().enumerate() {
        if b.is_ascii_whitespace() {
            if in_field {
                ends[fields] = i;
                fields += 1;
                if fields == 6 {
                    break;
                }
            }
            in_field = false;
        } else {
            in_field = true;
        }
    }
    let counter = |from: usize, to: usize| {
        let field = line[from..to].trim_ascii();
        !field.is_empty() && field.iter().all(u8::is_ascii_digit)
    };
    if counter(ends[3], ends[4]) && counter(ends[4], ends[5]) { &line[..ends[5]] } else { &line[..ends[3]] }
}

fn main() {
    let path = std::env::args_os().nth(1).expect("usage: fenbase FILE");
    let mut reader = BufReader::with_capacity(1 << 16, File::open(path).expect("cannot open the input"));
    let (mut legal, mut not) = (0u64, 0u64);
    let mut line = Vec::new();
    while reader.read_until(b'\n', &mut line).expect("cannot read the input") > 0 {
        let text = line.trim_ascii();
        if !text.is_empty() && !text.starts_with(b"#") {
            let ok = Fen::from_ascii(position_fields(text)).ok().is_some_and(|fen| {
                // Chess960 castling when the castling field needs it.
                let mode = CastlingMode::detect(fen.as_setup());
                fen.into_position::<Chess>(mode).is_ok()
            });
            if ok {
                legal += 1;
            } else {
                not += 1;
            }
        }
        line.clear();
    }
    println!("{legal} legal, {not} not");
}
EOF
    if ((REBUILD)) || [[ ! -f $FENBASE_DIR/Cargo.lock ]]; then
        cp "$ROOT/Cargo.lock" "$FENBASE_DIR/Cargo.lock"
    fi
    log "building fenbase"
    (cd "$FENBASE_DIR" && env -u CARGO_TARGET_DIR cargo build -q --release >&2)
    [[ -x $FENBASE ]] || die "no fenbase binary at $FENBASE"
}

fen_mode() {
    local pk name names=() cmds=() mix_q ir_base ir_j1 ir_all round_ratios
    ensure_fen_inputs
    build_fenbase
    pk=$(q "$PGNKIT")
    mix_q=$(q "$FEN_MIX")
    names=(fenbase fen-check-j1 fen-check)
    cmds=("$(q "$FENBASE") $mix_q" "$pk fen check -j1 $mix_q" "$pk fen check $mix_q")
    sanity_then_bench fen
    log "callgrind on $FEN_SAMPLE (takes a few minutes)"
    ir_base=$(callgrind_bin_ir fen.fenbase "$FENBASE" "$FEN_SAMPLE")
    ir_j1=$(callgrind_ir fen.check-j1 fen check -j1 "$FEN_SAMPLE")
    ir_all=$(callgrind_ir fen.check fen check "$FEN_SAMPLE")
    round_ratios=$(paired_ratios fen cpus fen-check-j1 fenbase | awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), $1 }')
    {
        echo
        echo "== pgnkit fen check against fenbase ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cpus," \
            "runs=$RUNS, alternated, load before timing $LOAD_BEFORE)"
        echo "fen-mix.epd: $(size_of "$FEN_MIX") bytes, $(wc -l <"$FEN_MIX") lines (the corpus's" \
            "$FEN_PASS_LINES FEN/EPD records over and over); fen check's text output to /dev/null"
        echo
        printf '%-22s %-20s %10s %10s %10s\n' command input "median s" "MB/s" "cpu s"
        for name in "${names[@]}"; do
            row fen "$name" fen-mix.epd "$(size_of "$FEN_MIX")"
        done
        echo "(fen-check: all $(nproc) cores; cpu s: mean user+system over the runs)"
        echo
        printf '%-44s %8s %8s %s\n' "fen check / fenbase" value target ""
        target_row "cpu s, fen check -j1 / fenbase (paired)" \
            "$(paired_median fen cpus fen-check-j1 fenbase)" "<=" 1.5
        printf '%-44s %s\n' "  the same, round by round" "$round_ratios"
        printf '%-44s %8s\n' "median s, fen check -j1 / fenbase (paired)" \
            "$(paired_median fen times fen-check-j1 fenbase)"
        printf '%-44s %8s\n' "cpu s, fen check / fenbase (paired)" "$(paired_median fen cpus fen-check fenbase)"
        printf '%-44s %8s\n' "median s, fen check / fenbase (paired)" "$(paired_median fen times fen-check fenbase)"
        echo
        echo "callgrind on fen-sample.epd ($(wc -l <"$FEN_SAMPLE") lines, $(size_of "$FEN_SAMPLE") bytes):" \
            "Ir fenbase $ir_base, fen check -j1 $ir_j1, fen check $ir_all"
        target_row "instructions, fen check -j1 / fenbase" "$(ratio "$ir_j1" "$ir_base")" "<=" 1.5
        printf '%-44s %8s\n' "instructions, fen check / fenbase" "$(ratio "$ir_all" "$ir_base")"
        echo "(profiles: $RESULTS/callgrind.fen.*.out; see callgrind_annotate)"
    } | tee "$RESULTS/fen-summary.txt"
}

dedup_mode() {
    local j v pk cmds=() names=()
    pk=$(q "$PGNKIT")
    for j in 1 2; do
        names+=("validate-j$j" "dedup-j$j" "list-j$j")
        cmds+=("$pk validate -j$j $MIX_Q"
            "$pk dedup -j$j $MIX_Q"
            "$pk dedup -j$j --list $MIX_Q")
    done
    sanity_then_bench dedup
    ensure_sample
    local input name ir_validate ir_dedup ir_list sample_ratio callgrind_rows=()
    for input in "$SLICE" "$SAMPLE"; do
        name=$(basename "$input" .pgn)
        log "callgrind on $input (-j1; takes a few minutes)"
        ir_validate=$(callgrind_ir "$name.validate" validate -j1 "$input")
        ir_dedup=$(callgrind_ir "$name.dedup" dedup -j1 "$input")
        ir_list=$(callgrind_ir "$name.dedup-list" dedup -j1 --list "$input")
        callgrind_rows+=("$(printf '%-14s %7s %14s %14s %6s %14s %6s' "$name.pgn" \
            "$(count_games "$input")" "$ir_validate" "$ir_dedup" "$(ratio "$ir_dedup" "$ir_validate")" \
            "$ir_list" "$(ratio "$ir_list" "$ir_validate")")")
        if [[ $input == "$SAMPLE" ]]; then sample_ratio=$(ratio "$ir_dedup" "$ir_validate"); fi
    done
    {
        echo
        timing_table dedup "dedup writes to /dev/null"
        echo
        printf '%-44s %8s\n' "throughput, dedup / validate" value
        for j in 1 2; do
            v=$(median dedup "validate-j$j")
            printf '%-44s %8s\n' "dedup -j$j / validate -j$j" "$(ratio "$v" "$(median dedup "dedup-j$j")")"
            printf '%-44s %8s\n' "dedup --list -j$j / validate -j$j" "$(ratio "$v" "$(median dedup "list-j$j")")"
        done
        echo
        echo "callgrind, -j1: instructions executed (Ir), and dedup's as a multiple of validate's"
        printf '%-14s %7s %14s %14s %6s %14s %6s\n' input games validate dedup "x" "--list" "x"
        printf '%s\n' "${callgrind_rows[@]}"
        echo
        printf '%-44s %8s %8s %s\n' ratio value target ""
        target_row "dedup -j1 / validate -j1, Ir (sample10)" "$sample_ratio" "<=" 1.3
        echo "(profiles: $RESULTS/callgrind.{slice10,sample10}.{validate,dedup,dedup-list}.out; see callgrind_annotate)"
        echo
        echo "hyperfine JSON: $RESULTS/dedup.json"
    } | tee "$RESULTS/summary-dedup.txt"
}

convert_mode() {
    local i j v to pk cmds=() names=()
    pk=$(q "$PGNKIT")
    for j in 1 2; do
        names+=("validate-j$j" "uci-j$j" "csv-j$j")
        cmds+=("$pk validate -j$j $MIX_Q"
            "$pk convert --to uci -j$j -o /dev/null $MIX_Q"
            "$pk convert --to csv -j$j -o /dev/null $MIX_Q")
    done
    sanity_then_bench convert

    ensure_sample
    local input name ir_validate ir_uci ir_csv callgrind_rows=()
    for input in "$SLICE" "$SAMPLE"; do
        name=$(basename "$input" .pgn)
        log "callgrind on $input (-j1; takes a few minutes)"
        ir_validate=$(callgrind_ir "$name.validate" validate -j1 "$input")
        ir_uci=$(callgrind_ir "$name.uci" convert --to uci -j1 -o /dev/null "$input")
        ir_csv=$(callgrind_ir "$name.csv" convert --to csv -j1 -o /dev/null "$input")
        callgrind_rows+=("$(printf '%-14s %7s %14s %14s %6s %14s %6s' "$name.pgn" \
            "$(count_games "$input")" "$ir_validate" "$ir_uci" "$(ratio "$ir_uci" "$ir_validate")" \
            "$ir_csv" "$(ratio "$ir_csv" "$ir_validate")")")
    done

    {
        echo
        timing_table convert "convert writes to /dev/null"
        echo "(median s: wall clock; MB/s = 10^6 bytes per median second; cpu s: mean user+system)"
        echo
        # Throughput ratio = validate's median time / convert's; "within 25%
        # of validate's throughput" is a ratio of at least 0.75.
        printf '%-44s %8s %8s %s\n' "throughput, convert / validate" value target ""
        for j in 1 2; do
            v=$(median convert "validate-j$j")
            for to in uci csv; do
                target_row "convert --to $to -j$j / validate -j$j" \
                    "$(ratio "$v" "$(median convert "$to-j$j")")" ">=" 0.75
            done
        done
        # CPU seconds vary less than wall-clock time when other jobs share
        # the cores; shown for comparison, not judged.
        for j in 1 2; do
            v=$(cpu_mean convert "validate-j$j")
            for to in uci csv; do
                printf '%-44s %8s\n' "cpu s, validate -j$j / convert --to $to -j$j" \
                    "$(ratio "$v" "$(cpu_mean convert "$to-j$j")")"
            done
        done
        echo
        echo "callgrind, -j1: instructions executed (Ir), and convert's as a multiple of validate's"
        printf '%-14s %7s %14s %14s %6s %14s %6s\n' input games validate "--to uci" "x" "--to csv" "x"
        printf '%s\n' "${callgrind_rows[@]}"
        echo "(profiles: $RESULTS/callgrind.{slice10,sample10}.{validate,uci,csv}.out; see callgrind_annotate)"
        echo
        echo "hyperfine JSON: $RESULTS/convert.json"
    } | tee "$RESULTS/summary-convert.txt"
}

# peak_rss_kb CMD...: peak RSS in kB of one run (its exit status ignored).
peak_rss_kb() {
    local out=$RESULTS/time-peak.txt
    /usr/bin/time -v -o "$out" "$@" >/dev/null 2>&1 || true
    awk -F': ' '/Maximum resident set size/ { print $2 }' "$out"
}

# side_by_side FILE: how much longer two validate -j1 runs of FILE take at
# once than one alone (wall clock, the median of 5 rounds). Well above 1,
# the host's two cores slow each other (hardware threads of one core, or
# another tenant's load on their shared cache and memory), and -j2's
# figure says more of the host than of the code; near 1, what -j2 loses
# is in what its two threads share.
side_by_side() {
    local r t0 t1 t2 ratios=()
    for ((r = 0; r < 5; r++)); do
        t0=$(date +%s%N)
        "$PGNKIT" validate -j1 "$1" >/dev/null 2>&1 || true
        t1=$(date +%s%N)
        "$PGNKIT" validate -j1 "$1" >/dev/null 2>&1 &
        "$PGNKIT" validate -j1 "$1" >/dev/null 2>&1 || true
        wait "$!" || true
        t2=$(date +%s%N)
        ratios+=("$(ratio $((t2 - t1)) $((t1 - t0)) 3)")
    done
    printf '%s\n' "${ratios[@]}" | sort -g | sed -n 3p
}

targets_mode() {
    local pk ex rgm=$BENCH_DIR/rgm10.pgn junk=$BENCH_DIR/junk30.pgn clean=$BENCH_DIR/clean30.pgn
    local lines=$BENCH_DIR/bjbraams.pgn
    ensure_sample
    # The short games of the mix alone (198,350 lines of about 12 plies,
    # some 40% of -j1's time on it): where its CPU against the example's
    # is lost or won.
    if [[ ! -s $lines ]]; then
        gzip -dc "$CORPUS/bench/bjbraams_chessdb_198350_lines.pgn.gz" >"$lines.tmp"
        mv "$lines.tmp" "$lines"
    fi
    pk=$(q "$PGNKIT")
    ex=$(q "$PR_BIN")
    if ((REBUILD)) || [[ ! -s $rgm || $rgm -ot $REAL ]]; then
        head -c 10000000 "$REAL" >"$rgm"
    fi
    if ((REBUILD)) || [[ ! -s $SAMPLE.bz2 || $SAMPLE.bz2 -ot $SAMPLE ]]; then
        bzip2 -9 -c "$SAMPLE" >"$SAMPLE.bz2.tmp"
        mv "$SAMPLE.bz2.tmp" "$SAMPLE.bz2"
    fi
    # As scripts/hostile.sh makes them: one game of 30 MiB of `x ` tokens,
    # and sample10.pgn over and over to at least as many bytes.
    if [[ ! -s $junk || ! -s $clean || $clean -ot $SAMPLE ]]; then
        { printf '[Event "junk"]\n\n1. e4 '; yes x | tr '\n' ' ' | head -c $((30 << 20)) || true; printf '*\n\n'; } >"$junk"
        : >"$clean"
        while (($(size_of "$clean") < 30 << 20)); do cat "$SAMPLE" >>"$clean"; done
    fi

    log "callgrind, -j1 (takes a few minutes)"
    local ir_s ir_r ex_s ex_r ir_jsonl ir_dedup_s ir_dedup_r
    ir_s=$(callgrind_ir targets.validate.sample10 validate -j1 "$SAMPLE")
    ex_s=$(callgrind_bin_ir targets.example.sample10 "$PR_BIN" "$SAMPLE")
    ir_r=$(callgrind_ir targets.validate.rgm10 validate -j1 "$rgm")
    ex_r=$(callgrind_bin_ir targets.example.rgm10 "$PR_BIN" "$rgm")
    ir_jsonl=$(callgrind_ir targets.jsonl.sample10 validate -j1 --format jsonl "$SAMPLE")
    ir_dedup_s=$(callgrind_ir targets.dedup.sample10 dedup -j1 "$SAMPLE")
    ir_dedup_r=$(callgrind_ir targets.dedup.rgm10 dedup -j1 "$rgm")

    if ((!QUICK)); then RUNS=9; fi
    local host side_before side_after side_bz2
    host=$(awk -F': ' '/^model name/ { n = $2 } /^cpu family/ { f = $2 } /^model\t/ { m = $2 }
        END { printf "%s, cpu family %s, model %s", n, f, m; exit }' /proc/cpuinfo)
    log "two validate -j1 side by side against one alone"
    side_before=$(side_by_side "$MIX")
    local names=(pgnkit-j1 pgnkit-j2 example) cmds=("$pk validate -j1 $MIX_Q" "$pk validate -j2 $MIX_Q" "$ex $MIX_Q")
    sanity_then_bench targets
    side_after=$(side_by_side "$MIX")
    names=(lines-j1 lines-example)
    cmds=("$pk validate -j1 $(q "$lines")" "$ex $(q "$lines")")
    sanity_then_bench targets-lines
    log "two validate -j1 of the .bz2 side by side against one alone"
    side_bz2=$(side_by_side "$SAMPLE.bz2")
    names=(bz2-j1 bz2-j2)
    cmds=("$pk validate -j1 $(q "$SAMPLE.bz2")" "$pk validate -j2 $(q "$SAMPLE.bz2")")
    sanity_then_bench targets-bz2
    names=(junk clean)
    cmds=("$pk validate -j1 $(q "$junk")" "$pk validate -j1 $(q "$clean")")
    sanity_then_bench targets-junk
    local junk_ns clean_ns
    # CPU seconds times 1e9 over bytes: nanoseconds a byte.
    junk_ns=$(ratio "$(cpu_mean targets-junk junk)e9" "$(size_of "$junk")")
    clean_ns=$(ratio "$(cpu_mean targets-junk clean)e9" "$(size_of "$clean")")
    {
        echo
        echo "== issue 21's figures ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cpus, runs=$RUNS, alternated," \
            "load before timing $LOAD_BEFORE)"
        echo "callgrind Ir, -j1: validate sample10.pgn $ir_s (example $ex_s), rgm10.pgn $ir_r (example $ex_r);" \
            "jsonl $ir_jsonl; dedup sample10.pgn $ir_dedup_s, rgm10.pgn $ir_dedup_r"
        echo "junk game $junk_ns ns of CPU a byte, clean games $clean_ns (means of $RUNS runs)"
        echo "host: $host; two validate -j1 runs side by side took, against one alone, $side_before" \
            "(mix100.pgn, before its rounds), $side_after (after them) and $side_bz2 (sample10.pgn.bz2)" \
            "(medians of 5; above 1, the cores slow each other when both are busy, as they are at -j2)"
        echo
        printf '%-44s %8s %8s %s\n' figure value target ""
        target_row "validate -j1 / example, Ir (sample10)" "$(ratio "$ir_s" "$ex_s" 3)" "<=" 0.95
        target_row "validate -j1 / example, Ir (rgm10)" "$(ratio "$ir_r" "$ex_r" 3)" "<=" 1.1
        target_row "jsonl / text, Ir (sample10)" "$(ratio "$ir_jsonl" "$ir_s" 3)" "<=" 1.1
        target_row "dedup / validate, Ir (sample10)" "$(ratio "$ir_dedup_s" "$ir_s" 3)" "<=" 1.3
        target_row "dedup / validate, Ir (rgm10)" "$(ratio "$ir_dedup_r" "$ir_r" 3)" "<=" 1.3
        target_row "validate -j1 / example, CPU (mix100, paired)" "$(paired_median targets cpus pgnkit-j1 example 3)" "<=" 1.0
        target_row "validate -j2 / -j1, wall (mix100, paired)" "$(paired_median targets times pgnkit-j2 pgnkit-j1 3)" "<=" 0.52
        target_row "validate -j2 / -j1, wall (.bz2, paired)" "$(paired_median targets-bz2 times bz2-j2 bz2-j1 3)" "<=" 0.6
        target_row "junk / clean, CPU a byte" "$(ratio "$junk_ns" "$clean_ns")" "<=" 3
        echo "(paired: the median of the rounds' ratios; profiles: $RESULTS/callgrind.targets.*.out)"
        echo "not a target: validate -j1 / example, CPU on the bjbraams lines alone (the mix's short games," \
            "paired): $(paired_median targets-lines cpus lines-j1 lines-example 3)"
    } | tee "$RESULTS/summary-targets.txt"
}

compressed_mode() {
    local j f fmt pk cmds=() names=() input=$SAMPLE
    ensure_sample
    pk=$(q "$PGNKIT")
    # Rebuilt when older than sample10.pgn.
    for fmt in gz bz2 zst; do
        f=$input.$fmt
        if ((REBUILD)) || [[ ! -s $f || $f -ot $input ]]; then
            case $fmt in
                gz) gzip -6 -c "$input" >"$f.tmp" ;;
                bz2) bzip2 -9 -c "$input" >"$f.tmp" ;;
                zst) zstd -q -3 -c "$input" >"$f.tmp" ;;
            esac
            mv "$f.tmp" "$f"
        fi
    done
    local games_bomb=$BENCH_DIR/games256M.pgn.gz zero_bomb=$BENCH_DIR/zero1G.gz
    if [[ ! -s $games_bomb ]]; then
        yes "$(printf '[Event "x"]\n\n1. e4 e5 *\n')" | head -c 256M | gzip -6 >"$games_bomb.tmp" || true
        mv "$games_bomb.tmp" "$games_bomb"
    fi
    if [[ ! -s $zero_bomb ]]; then
        head -c 1G /dev/zero | gzip -6 >"$zero_bomb.tmp"
        mv "$zero_bomb.tmp" "$zero_bomb"
    fi
    for fmt in pgn gz bz2 zst; do
        f=$input
        if [[ $fmt != pgn ]]; then f=$input.$fmt; fi
        for j in 1 2; do
            names+=("$fmt-j$j")
            cmds+=("$pk validate -j$j $(q "$f")")
        done
    done
    if ((!QUICK)); then RUNS=9; fi
    sanity_then_bench compressed
    log "peak RSS (/usr/bin/time -v)"
    local -A rss=()
    for j in 1 2; do
        rss[gz-j$j]=$(peak_rss_kb "$PGNKIT" validate -j$j "$input.gz")
        rss[games-j$j]=$(peak_rss_kb "$PGNKIT" validate -j$j "$games_bomb")
        rss[zero-j$j]=$(peak_rss_kb "$PGNKIT" validate -j$j "$zero_bomb")
    done
    {
        echo
        echo "== pgnkit validate on compressed inputs ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cpus," \
            "runs=$RUNS, alternated, load before timing $LOAD_BEFORE)"
        echo "sample10.pgn: $(size_of "$input") bytes, $(count_games "$input") games;" \
            "compressed: .gz $(size_of "$input.gz"), .bz2 $(size_of "$input.bz2"), .zst $(size_of "$input.zst") bytes"
        echo
        printf '%-22s %-20s %10s %10s %10s\n' command input "median s" "MB/s" "cpu s"
        for i in "${names[@]}"; do
            fmt=${i%-j*}
            f=sample10.pgn
            if [[ $fmt != pgn ]]; then f=sample10.pgn.$fmt; fi
            row compressed "$i" "$f" "$(size_of "$input")"
        done
        echo "(median s: wall clock; MB/s = 10^6 decompressed bytes per median second; cpu s: mean user+system)"
        echo
        printf '%-44s %8s %8s %s\n' "time, -j2 / -j1" value target ""
        for fmt in pgn gz zst; do
            printf '%-44s %8s\n' "validate -j2 / -j1 ($fmt)" \
                "$(ratio "$(median compressed "$fmt-j2")" "$(median compressed "$fmt-j1")")"
        done
        target_row "validate -j2 / -j1 (bz2)" \
            "$(ratio "$(median compressed bz2-j2)" "$(median compressed bz2-j1)")" "<=" 0.6
        # Plain -j2 keeps two cores busy (1.7 here when the host is idle):
        # near 1, another process held a core and every ratio above is moot.
        local cores
        cores=$(ratio "$(cpu_mean compressed pgn-j2)" "$(median compressed pgn-j2)")
        printf '%-44s %8s\n' "cores used by plain -j2 (cpu s / median s)" "$cores"
        if awk -v c="$cores" 'BEGIN { exit !(c < 1.3) }'; then
            echo "warning: plain -j2 had one core, not two: the host was busy, time again"
        fi
        echo
        printf '%-44s %8s %8s %s\n' "peak RSS, MiB" value target ""
        for j in 1 2; do
            printf '%-44s %8s\n' "-j$j sample10.pgn.gz" "$(awk -v k="${rss[gz-j$j]}" 'BEGIN { printf "%.1f", k / 1024 }')"
            printf '%-44s %8s\n' "-j$j 256 MiB of games (.gz)" \
                "$(awk -v k="${rss[games-j$j]}" 'BEGIN { printf "%.1f", k / 1024 }')"
            target_row "-j$j 256 MiB of games / sample10.pgn.gz" "$(ratio "${rss[games-j$j]}" "${rss[gz-j$j]}")" "<=" 1.10
            target_row "-j$j 1 GiB of zero bytes (.gz)" \
                "$(awk -v k="${rss[zero-j$j]}" 'BEGIN { printf "%.1f", k / 1024 }')" "<=" $((32 + 3 * 32 * j))
        done
        echo
        echo "hyperfine JSON: $RESULTS/compressed.json"
    } | tee "$RESULTS/summary-compressed.txt"
}

# ------------------------------------------------------- --memory mode ----
PLAYERS=$BENCH_DIR/players-50k-100k.pgn
PLAYERS_RING=$BENCH_DIR/players-ring-150k-100k.pgn

# gen_players FILE ARGS...: FILE written by scripts/gen_players.py ARGS,
# unless it is there and newer than the script.
gen_players() {
    local file=$1
    shift
    if ((REBUILD)) || [[ ! -s $file || $file -ot $SCRIPT_DIR/gen_players.py ]]; then
        log "generating $file (gen_players.py $*)"
        "$PYTHON" "$SCRIPT_DIR/gen_players.py" "$@" -o "$file.tmp"
        mv "$file.tmp" "$file"
    fi
}

memory_mode() {
    local i kb name ir
    gen_players "$PLAYERS" 50000 100000 --seed 1
    gen_players "$PLAYERS_RING" 150000 100000 --seed 1 --ring
    # name|input|arguments|target in MB (none: shown only)
    local runs=(
        "stats --by player|$PLAYERS|stats -j1 --by player|64"
        "stats --by player --format csv|$PLAYERS|stats -j1 --by player --format csv|64"
        "ratings (elo)|$PLAYERS|ratings -j1|64"
        "ratings --format csv (elo)|$PLAYERS|ratings -j1 --format csv|64"
        "ratings --scheme club|$PLAYERS|ratings -j1 --scheme club|64"
        "ratings --scheme club --format csv|$PLAYERS|ratings -j1 --scheme club --format csv|64"
        "ratings --scheme ml (refused: pools)|$PLAYERS|ratings -j1 --scheme ml|64"
        "ratings --scheme ml --format csv (refused)|$PLAYERS|ratings -j1 --scheme ml --format csv|64"
        "ratings --scheme ml|$PLAYERS_RING|ratings -j1 --scheme ml|64"
        "ratings --scheme ml --format csv|$PLAYERS_RING|ratings -j1 --scheme ml --format csv|64"
        "ratings --history|$PLAYERS|ratings -j1 --history|"
        "stats --by player --format json|$PLAYERS|stats -j1 --by player --format json|"
    )
    local rows=()
    for i in "${runs[@]}"; do
        IFS='|' read -r name input args target <<<"$i"
        log "peak RSS: pgnkit $args $(basename "$input")"
        # shellcheck disable=SC2086
        kb=$(peak_rss_kb "$PGNKIT" $args "$input")
        rows+=("$name|$(basename "$input")|$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')|$target")
    done
    log "callgrind: stats -j1 --by player $(basename "$PLAYERS")"
    ir=$(callgrind_ir memory.player stats -j1 --by player "$PLAYERS")
    {
        echo "== peak RSS of stats --by player and ratings ($(date -u +%Y-%m-%dT%H:%MZ), $PGNKIT)"
        printf '%-44s %-28s %8s %8s %s\n' command input MB target ""
        for i in "${rows[@]}"; do
            IFS='|' read -r name input mb target <<<"$i"
            if [[ -n $target ]]; then
                printf '%-44s %-28s %8s %8s %s\n' "$name" "$input" "$mb" "<=$target" "$(verdict "$mb" "<=" "$target")"
            else
                printf '%-44s %-28s %8s\n' "$name" "$input" "$mb"
            fi
        done
        echo
        echo "callgrind, stats -j1 --by player, $(basename "$PLAYERS"): Ir $ir"
    } | tee "$RESULTS/memory-summary.txt"
}


# ------------------------------------------------------ --startup mode ----
startup_mode() {
    local game=$ROOT/testdata/valid/evergreen-game.pgn validate extract moves fen
    log "callgrind: one-shot runs"
    validate=$(callgrind_ir startup.validate validate "$game")
    extract=$(callgrind_bin_ir startup.pgn-extract "$PGN_EXTRACT" "${PE_FLAGS[@]}" "$game")
    moves=$(callgrind_ir startup.moves moves e4 e5 Nf3)
    fen=$RESULTS/startpos.fen
    echo 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' >"$fen"
    fen=$(callgrind_ir startup.fen-check fen check "$fen")
    {
        echo "== start-up: instructions of one-shot runs, whole process ($(date -u +%Y-%m-%dT%H:%MZ), $PGNKIT)"
        printf '%-44s %8s %8s %s\n' run Ir target ""
        target_row "validate $(basename "$game") (one game)" "$validate" "<=" "$extract"
        printf '%-44s %8s\n' "pgn-extract ${PE_FLAGS[*]} $(basename "$game")" "$extract"
        target_row "moves e4 e5 Nf3" "$moves" "<=" 600000
        printf '%-44s %8s\n' "fen check (the start position, a file)" "$fen"
        echo
        echo "callgrind files: $RESULTS/callgrind.startup.*.out"
    } | tee "$RESULTS/startup-summary.txt"
}


# -------------------------------------------------------- --costs mode ----
costs_mode() {
    local base ir label target
    ensure_sample
    log "callgrind, -j1, on $(basename "$SAMPLE") (takes a few minutes)"
    base=$(callgrind_ir costs.validate validate -j1 -q "$SAMPLE")
    {
        echo "== costs: instructions against validate -j1 -q on $(basename "$SAMPLE") ($(date -u +%Y-%m-%dT%H:%MZ), $PGNKIT)"
        printf '%-44s %14s\n' "validate -j1 -q" "$base"
        printf '%-44s %8s %8s %s\n' command ratio target ""
        while read -r target label; do
            # shellcheck disable=SC2086 # the label is the command's words
            ir=$(callgrind_ir "costs.${label// /_}" $label -j1 -q "$SAMPLE")
            target_row "$label ($ir)" "$(ratio "$ir" "$base")" "<=" "$target"
        done <<'COSTS'
1.3 validate --lint
1.5 fix
1.5 convert --to pgn
1.5 convert --to jsonl
1.25 convert --to san
COSTS
        echo
        echo "callgrind files: $RESULTS/callgrind.costs.*.out"
    } | tee "$RESULTS/costs-summary.txt"
}

# --memory, --startup and --costs each run on their own, and together in
# one run (issue 46's figures: `--memory --startup --costs`).
if ((MEMORY || STARTUP || COSTS)); then
    if ((MEMORY)); then memory_mode; fi
    if ((STARTUP)); then startup_mode; fi
    if ((COSTS)); then costs_mode; fi
    exit 0
fi

# --------------------------------------------------------- --book mode ----
POLYGLOT=${POLYGLOT:-/usr/games/polyglot}

# book_clean IN OUT: the games of IN polyglot can read (valid, from the
# standard start), rebuilt when IN is newer.
book_clean() {
    if ((REBUILD)) || [[ ! -s $2 || $2 -ot $1 ]]; then
        log "clean games of $(basename "$1") for polyglot"
        "$PGNKIT" filter -q --valid "$1" | "$PGNKIT" filter -q --has-tag FEN --invert >"$2.tmp"
        mv "$2.tmp" "$2"
    fi
}

book_mode() {
    local i j pk clean=$BENCH_DIR/book-clean.pgn small=$BENCH_DIR/book-clean10.pgn
    local names=(polyglot book-j1 book-j2) cmds=() bytes games ir_pg ir_pk
    if [[ ! -x $POLYGLOT ]]; then
        echo "bench.sh --book: no polyglot at $POLYGLOT (apt-get install polyglot, or set POLYGLOT): skipped" >&2
        return
    fi
    pk=$(q "$PGNKIT")
    book_clean "$MIX" "$clean"
    bytes=$(size_of "$clean")
    games=$(count_games "$clean")
    cmds=("$(q "$POLYGLOT") make-book -pgn $(q "$clean") -bin $(q "$RESULTS/book-polyglot.bin")"
        "$pk book -j1 -q -o $(q "$RESULTS/book-j1.bin") $(q "$clean")"
        "$pk book -j2 -q -o $(q "$RESULTS/book-j2.bin") $(q "$clean")")
    sanity_then_bench book
    for j in 1 2; do
        cmp -s "$RESULTS/book-polyglot.bin" "$RESULTS/book-j$j.bin" ||
            die "pgnkit book -j$j wrote another book than polyglot's ($RESULTS/book-j$j.bin)"
    done
    ensure_sample
    book_clean "$SAMPLE" "$small"
    log "callgrind on $(basename "$small") (takes a few minutes)"
    ir_pg=$(callgrind_bin_ir book.polyglot "$POLYGLOT" make-book -pgn "$small" -bin "$RESULTS/book-small-polyglot.bin")
    ir_pk=$(callgrind_ir book.pgnkit book -j1 -q -o "$RESULTS/book-small-j1.bin" "$small")
    {
        echo
        echo "== pgnkit book against polyglot make-book ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cpus,"             "runs=$RUNS, alternated, load before timing $LOAD_BEFORE)"
        echo "book-clean.pgn (the games of mix100.pgn polyglot reads): $bytes bytes, $games games; the same book bytes"
        echo
        printf '%-22s %-20s %10s %10s %10s\n' command input "median s" "MB/s" "cpu s"
        for i in "${names[@]}"; do
            row book "$i" book-clean.pgn "$bytes"
        done
        echo
        printf '%-44s %8s %8s %s\n' "ratio (median of rounds)" value target ""
        target_row "cpu, book -j1 / polyglot" "$(paired_median book cpus book-j1 polyglot)" "<=" 1
        target_row "time, book -j2 / book -j1" "$(paired_median book times book-j2 book-j1)" "<=" 0.6
        printf '%-44s %8s\n' "time, book -j1 / polyglot" "$(paired_median book times book-j1 polyglot)"
        echo
        echo "callgrind, $(basename "$small"): Ir polyglot $ir_pg, pgnkit book -j1 $ir_pk" \
            "($(ratio "$ir_pk" "$ir_pg")x)"
    } | tee "$RESULTS/book-summary.txt"
}

if ((BOOK)); then
    book_mode
    exit 0
fi

if ((TARGETS)); then
    targets_mode
    exit 0
fi

if ((COMPRESSED)); then
    compressed_mode
    exit 0
fi
if ((FEN)); then
    fen_mode
    exit 0
fi
if ((FILTER)); then
    filter_mode
    exit 0
fi
if ((DEDUP)); then
    dedup_mode
    exit 0
fi
if ((STATS)); then
    stats_mode
    exit 0
fi
if ((CONVERT)); then
    convert_mode
    exit 0
fi

log "sanity runs (exit 0: clean, 1: problems found in the data)"
sanity pgn-reader-validate "$PR_CMD $MIX_Q"
sanity pgn-extract "$PE_CMD $MIX_Q"
if [[ -n $CL_BIN ]]; then sanity chess-library "${CL_ARGS[1]}"; fi
sanity python-chess-slice "$PY_CMD $SLICE_Q"
if ((!PEERS_ONLY)); then
    sanity "pgnkit -j1" "$PK_J1 $MIX_Q"
    sanity "pgnkit -j2" "$PK_J2 $MIX_Q"
fi

if ((PEERS_ONLY)); then
    bench mix100 \
        pgn-reader-validate "$PR_CMD $MIX_Q" \
        "${CL_ARGS[@]}" \
        pgn-extract "$PE_CMD $MIX_Q"
    bench slice \
        python-chess "$PY_CMD $SLICE_Q"
else
    bench mix100 \
        pgnkit-j1 "$PK_J1 $MIX_Q" \
        pgnkit-j2 "$PK_J2 $MIX_Q" \
        pgn-reader-validate "$PR_CMD $MIX_Q" \
        "${CL_ARGS[@]}" \
        pgn-extract "$PE_CMD $MIX_Q"
    bench real \
        pgnkit-j1 "$PK_J1 $REAL_Q" \
        pgnkit-j2 "$PK_J2 $REAL_Q"
    bench slice \
        python-chess "$PY_CMD $SLICE_Q" \
        pgnkit-j1 "$PK_J1 $SLICE_Q"
    # Time linear in the input's size: the same mix at 10, 100 and 200 MB.
    ensure_sample
    LINEAR=(sample10 "$PK_J1 $(q "$SAMPLE")" mix100 "$PK_J1 $MIX_Q")
    if ((!QUICK)); then LINEAR+=(mix200 "$PK_J1 $(q "$MIX200")"); fi
    bench linear "${LINEAR[@]}"
fi

# ------------------------------------------------------------ peak RSS ----
declare -A RSS_KB=()
rss() { # rss KEY CMD...: peak RSS in kB of one run
    local key=$1 out=$RESULTS/time-$1.txt
    shift
    /usr/bin/time -v -o "$out" "$@" >/dev/null 2>&1 || true
    RSS_KB[$key]=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out")
}
ensure_sample
# The small and the large input compressed too (zstd -3, as mix100.pgn.zst):
# memory must not grow with the input when it is compressed either.
zst_of() {
    if [[ ! -s $1.zst || $1.zst -ot $1 ]]; then
        zstd -q -f -3 -T0 "$1" -o "$1.zst"
    fi
}
zst_of "$SAMPLE"
RSS_INPUTS=(slice10.pgn sample10.pgn mix100.pgn sample10.pgn.zst mix100.pgn.zst)
if ((!QUICK)); then
    zst_of "$MIX200"
    RSS_INPUTS+=(mix200.pgn mix200.pgn.zst)
fi
if ((!PEERS_ONLY)); then
    log "peak RSS (/usr/bin/time -v)"
    for input in "${RSS_INPUTS[@]}"; do
        for j in 1 2; do
            rss "j$j:$input" "$PGNKIT" validate "-j$j" "$BENCH_DIR/$input"
        done
    done
fi
rss "reader:mix100.pgn" "$PR_BIN" "$MIX"
rss "extract:mix100.pgn" "$PGN_EXTRACT" "${PE_FLAGS[@]}" "$MIX"
if [[ -n $CL_BIN ]]; then rss "chess-library:mix100.pgn" "$CL_BIN" "$MIX"; fi

# ----------------------------------------------- replay peers' counts ----
# Instructions (callgrind, whole process) of the replaying peers and of
# pgnkit validate -j1 on sample10.pgn: the steady comparison, as wall and
# CPU times drift on a shared host. pgn-extract and python-chess, many
# times slower, are left to the timings.
command -v valgrind >/dev/null || apt_install valgrind
log "callgrind on sample10.pgn (the replaying peers; a few minutes)"
declare -A PEER_IR=()
if ((!PEERS_ONLY)); then PEER_IR[pgnkit-j1]=$(callgrind_ir peers.pgnkit-j1 validate -j1 "$SAMPLE"); fi
PEER_IR[pgn-reader-validate]=$(callgrind_bin_ir peers.pgn-reader-validate "$PR_BIN" "$SAMPLE")
if [[ -n $CL_BIN ]]; then PEER_IR[chess-library]=$(callgrind_bin_ir peers.chess-library "$CL_BIN-x86-64" "$SAMPLE"); fi

# paired_range KEY FIELD A B: the median of A's over B's round by round,
# and the lowest and highest (the noise of the host).
paired_range() {
    printf '%s ' "$(paired_median "$@")"
    paired_ratios "$1" "$2" "$3" "$4" | sort -g |
        awk '{ r[NR] = $1 } END { printf "(%.2f to %.2f, %d rounds)", r[1], r[NR], NR }'
}

# ------------------------------------------------------------- summary ----
{
    echo
    mode=""
    if ((INTERLEAVE)); then mode=", interleaved"; fi
    echo "== pgnkit benchmark summary ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cpus, runs=$RUNS$mode, load before timing $LOAD_BEFORE)"
    echo "mix100.pgn: $MIX_SIZE bytes, $MIX_GAMES games; real_games_mix.pgn: $REAL_SIZE bytes;" \
        "slice10.pgn: $SLICE_SIZE bytes, $SLICE_GAMES games"
    echo "peers: pgn-reader 0.29.0 examples/validate ($([[ ${PEER_PROFILE:-} == default ]] && echo 'default release profile' || echo 'fat LTO, codegen-units=1')), pgn-extract $PGN_EXTRACT_VERSION (${PE_FLAGS[*]}), python-chess $PY_CHESS_VERSION, chess-library ${CL_VERSION:-left out} (g++ -O3 -march=native)"
    echo
    printf '%-22s %-20s %10s %10s %10s\n' command input "median s" "MB/s" "cpu s"
    if ((!PEERS_ONLY)); then
        row mix100 pgnkit-j1 mix100.pgn "$MIX_SIZE"
        row mix100 pgnkit-j2 mix100.pgn "$MIX_SIZE"
    fi
    row mix100 pgn-reader-validate mix100.pgn "$MIX_SIZE"
    if [[ -n $CL_BIN ]]; then row mix100 chess-library mix100.pgn "$MIX_SIZE"; fi
    row mix100 pgn-extract mix100.pgn "$MIX_SIZE"
    if ((!PEERS_ONLY)); then
        row real pgnkit-j1 real_games_mix.pgn "$REAL_SIZE"
        row real pgnkit-j2 real_games_mix.pgn "$REAL_SIZE"
        row slice pgnkit-j1 slice10.pgn "$SLICE_SIZE"
    fi
    row slice python-chess slice10.pgn "$SLICE_SIZE"
    echo "(median s: wall clock; MB/s = 10^6 bytes per median second; cpu s: mean user+system)"

    echo
    if ((!PEERS_ONLY)); then
        printf '%-28s %s\n' "mix100, against pgnkit -j1" "paired by round: median (lowest to highest)"
        printf '%-28s %s\n' "pgnkit-j2 wall" "$(paired_range mix100 times pgnkit-j2 pgnkit-j1)"
        for peer in pgn-reader-validate ${CL_BIN:+chess-library} pgn-extract; do
            printf '%-28s %s\n' "$peer cpu" "$(paired_range mix100 cpus "$peer" pgnkit-j1)"
        done
        printf '%-28s %s\n' "python-chess cpu (slice10)" "$(paired_range slice cpus python-chess pgnkit-j1)"
        echo
    fi
    printf '%-28s %14s %s\n' "sample10.pgn, callgrind" Ir "$( ((PEERS_ONLY)) || echo 'against pgnkit -j1')"
    for peer in pgnkit-j1 pgn-reader-validate chess-library; do
        [[ -n ${PEER_IR[$peer]:-} ]] || continue
        printf '%-28s %14s %s\n' "$peer" "${PEER_IR[$peer]}" \
            "$( ((PEERS_ONLY)) || ratio "${PEER_IR[$peer]}" "${PEER_IR[pgnkit-j1]}")"
    done

    if ((!PEERS_ONLY)); then
        j1=$(median mix100 pgnkit-j1)
        j2=$(median mix100 pgnkit-j2)
        pr=$(median mix100 pgn-reader-validate)
        pe=$(median mix100 pgn-extract)
        rj1=$(median real pgnkit-j1)
        rj2=$(median real pgnkit-j2)
        py=$(median slice python-chess)
        sj1=$(median slice pgnkit-j1)
        echo
        printf '%-44s %8s %8s %s\n' ratio value target ""
        target_row "pgnkit -j1 / pgn-reader example (mix100)" "$(ratio "$j1" "$pr")" "<=" 1.5
        target_row "pgnkit -j2 / pgnkit -j1 (mix100)" "$(ratio "$j2" "$j1")" "<=" 0.55
        # real_games_mix.pgn is 44 MB, under the 50 MB from which the issue
        # asks for 0.55: on it -j2 must only never be slower than -j1.
        target_row "pgnkit -j2 / pgnkit -j1 (real_games_mix)" "$(ratio "$rj2" "$rj1")" "<=" 1.0
        target_row "pgn-extract / pgnkit -j1 (mix100)" "$(ratio "$pe" "$j1")" ">=" 4.5
        target_row "pgn-extract / pgnkit -j2 (mix100)" "$(ratio "$pe" "$j2")" ">=" 8
        target_row "python-chess / pgnkit -j1 (slice10)" "$(ratio "$py" "$sj1")" ">=" 150

        # Seconds per byte of the largest input against the smallest (the
        # same mix): above 1, time grows faster than the input.
        echo
        printf '%-44s %8s\n' "pgnkit -j1, same mix" "ns/byte"
        local_sizes=(sample10 "$(size_of "$SAMPLE")" mix100 "$MIX_SIZE")
        if ((!QUICK)); then local_sizes+=(mix200 "$(size_of "$MIX200")"); fi
        per_byte=()
        for ((i = 0; i < ${#local_sizes[@]}; i += 2)); do
            per_byte+=("$(awk -v t="$(median linear "${local_sizes[i]}")" -v b="${local_sizes[i + 1]}" \
                'BEGIN { printf "%.3f", t / b * 1e9 }')")
            printf '%-44s %8s\n' "${local_sizes[i]}.pgn (${local_sizes[i + 1]} bytes)" "${per_byte[-1]}"
        done
        target_row "time per byte, ${local_sizes[-2]} / sample10" "$(ratio "${per_byte[-1]}" "${per_byte[0]}")" "<=" 1.10
    fi

    echo
    printf '%-30s %12s %9s %8s %s\n' "peak RSS" kB MiB target ""
    for key in "${!RSS_KB[@]}"; do echo "$key"; done | sort | while read -r key; do
        kb=${RSS_KB[$key]}
        mib=$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')
        case $key in
            j1:*) target=16 ;;
            j2:*) target=32 ;;
            *) target= ;;
        esac
        if [[ -n $target ]]; then
            printf '%-30s %12s %9s %8s %s\n' "pgnkit -${key/:/ }" "$kb" "$mib" "<=$target" \
                "$(verdict "$mib" "<=" "$target")"
        else
            printf '%-30s %12s %9s\n' "${key/:/ }" "$kb" "$mib"
        fi
    done
    if ((!PEERS_ONLY)); then
        # Memory must not grow with the input: the largest input of the mix
        # against sample10.pgn, the same mix at a tenth of the size, plain
        # and compressed. slice10 (engine games only: few games per batch)
        # and compressed against plain (the decompressor's window, 2 MiB at
        # level 3, and its buffers) are shown too.
        echo
        printf '%-44s %8s %8s %s\n' "peak RSS ratio" value target ""
        largest=mix200.pgn
        if ((QUICK)); then largest=mix100.pgn; fi
        for j in 1 2; do
            target_row "-j$j $largest / sample10.pgn" \
                "$(ratio "${RSS_KB[j$j:$largest]}" "${RSS_KB[j$j:sample10.pgn]}")" "<=" 1.10
            target_row "-j$j $largest.zst / sample10.pgn.zst" \
                "$(ratio "${RSS_KB[j$j:$largest.zst]}" "${RSS_KB[j$j:sample10.pgn.zst]}")" "<=" 1.10
            printf '%-44s %8s\n' "-j$j $largest / slice10.pgn" \
                "$(ratio "${RSS_KB[j$j:$largest]}" "${RSS_KB[j$j:slice10.pgn]}")"
            printf '%-44s %8s\n' "-j$j mix100.pgn.zst / mix100.pgn" \
                "$(ratio "${RSS_KB[j$j:mix100.pgn.zst]}" "${RSS_KB[j$j:mix100.pgn]}")"
        done
    fi
    echo
    echo "hyperfine JSON and /usr/bin/time output: $RESULTS"
} | tee "$RESULTS/summary.txt"
