#!/usr/bin/env bash
# scripts/hostile.sh: time and peak memory of `pgnkit validate -j1` on
# hostile inputs, generated on the fly (never committed): what must stay
# bounded in memory and linear in time, whatever a stream holds.
#
#   scripts/hostile.sh [--size MB] [PGNKIT]
#
# Inputs (SIZE MB each, default 1024; a game before and after each):
#   comment    one `{...}` comment between two games (also through `fix
#              --diff`, which deletes it as a line of SIZE MB)
#   comment.bz2  the same, bzip2-compressed (45 MB of it in each block,
#              given in pieces), at -j1 and -j2 (blocks on two threads)
#   percent    one `%` escape line between two games
#   semicolon  one `;` comment between two games
#   in-game    one comment inside a game (cut at --max-game-size)
#   junk       a game of SIZE MB of two-byte junk tokens (cut)
#   zeros.gz   SIZE MB of zero bytes, gzip-compressed (a small file)
#   /dev/zero  read for 10 s: must stream or fail, never grow
#   many tags  a game of a million distinct tags, through convert --to pgn
#              and --to jsonl and fix (linear time)
#   games      SIZE MB of games, one in 200 with a Result tag its marker
#              contradicts, through `fix --diff` (diffed a window at a time,
#              never as a whole file)
#   long game  a legal game of 30 MB (3.4 million plies, under the cap),
#              through every command that replays and keeps a game (`convert
#              --to epd` writes a line per position, 12 times the game, and
#              --to jsonl 50 MB: both streamed where the output goes rather
#              than held)
#   inputs and text  (issue 43, a section of its own) a line of SIZE MB of
#              spaces through a pipe and zipped, a tag line as long through
#              a pipe, pzstd, controls in names
#              and text, CSV formula cells, an overlapping zip,
#              --max-game-size past its bound
# and, for time per byte, a 32 MB junk game against sample10-like clean
# games of the same size (from target/bench/sample10.pgn when present).
#
# Targets (issue 21): peak RSS at most 32 MB plus 3x --max-game-size (32
# MiB) per thread, that is 128 MB at -j1; a junk game's time per byte
# within 3x a clean game's. A benchmark, not a test: it prints figures and
# says which targets were met.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIZE=1024
while [[ $# -gt 0 ]]; do
    case $1 in
        --size) SIZE=$2; shift 2 ;;
        *) break ;;
    esac
done
PGNKIT=${1:-$ROOT/target/release/pgnkit}
[[ -x $PGNKIT ]] || { echo "no pgnkit binary at $PGNKIT (cargo build --release)" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
GAME='[Event "a"]\n[Result "*"]\n\n1. e4 e5 *\n\n'

# make NAME OPEN BYTE CLOSE: a game, OPEN, SIZE MB of BYTE, CLOSE, a game.
make() {
    { printf "$GAME%s" "$2"; head -c $((SIZE << 20)) /dev/zero | tr '\0' "$3"; printf "%s\n\n$GAME" "$4"; } >"$WORK/$1"
}

# measure NAME FILE [TIMEOUT [THREADS]]: seconds and peak RSS of one run of
# `pgnkit $COMMAND` (validate unless set).
COMMAND=validate
measure() {
    local name=$1 file=$2 secs=${3:-600} jobs=${4:-1} out rc limit
    limit=$(((32 + 3 * 32 * jobs) * 1024))
    # shellcheck disable=SC2086 # COMMAND is a command and its options
    /usr/bin/time -o "$WORK/time" -f '%e %M' timeout "$secs" "$PGNKIT" $COMMAND -q -j"$jobs" "$file" >/dev/null 2>&1 || true
    read -r wall rss < <(tail -1 "$WORK/time")
    rc=ok
    ((rss <= limit)) || rc=MISSED
    printf '%-24s %9s s %9d kB  (target <= %d kB) %s\n' "$name" "$wall" "$rss" "$limit" "$rc"
}

echo "pgnkit: $PGNKIT; inputs of $SIZE MB; $(nproc) cpus, load $(cut -d' ' -f1 /proc/loadavg)"
make comment '{' x '}'
measure comment "$WORK/comment"
COMMAND="fix --diff"
measure "comment: fix --diff" "$WORK/comment"
COMMAND=validate
bzip2 -9 -c "$WORK/comment" >"$WORK/comment.bz2"
measure comment.bz2 "$WORK/comment.bz2"
measure "comment.bz2 -j2" "$WORK/comment.bz2" 600 2
rm -f "$WORK/comment.bz2"
make percent '%' x ''
measure percent "$WORK/percent"
make semicolon ';' x ''
measure semicolon "$WORK/semicolon"
{ printf '[Event "b"]\n\n1. e4 {'; head -c $((SIZE << 20)) /dev/zero | tr '\0' x; printf '} e5 *\n\n'"$GAME"; } >"$WORK/in-game"
measure in-game "$WORK/in-game"
rm -f "$WORK"/comment "$WORK"/percent "$WORK"/semicolon "$WORK"/in-game
head -c $((SIZE << 20)) /dev/zero | gzip -1 >"$WORK/zeros.gz"
measure zeros.gz "$WORK/zeros.gz"
measure /dev/zero /dev/zero 10

# A junk game: "x " repeated, then the same size of clean games.
junk_game() { # BYTES (head ends the pipe early: no pipefail here)
    set +o pipefail
    { printf '[Event "junk"]\n\n1. e4 '; yes x | tr '\n' ' ' | head -c "$1"; printf '*\n\n'; }
    set -o pipefail
}
junk_game $((SIZE << 20)) >"$WORK/junk"
measure junk "$WORK/junk"
rm -f "$WORK/junk"

# Knights out and back: every move legal, 8 bytes a ply.
awk 'BEGIN {
    printf "[Event \"long\"]\n\n"
    for (n = 1; size < 30 * 2^20; n += 2) {
        line = sprintf("%d. Nf3 Nf6 %d. Ng1 Ng8\n", n, n + 1)
        printf "%s", line
        size += length(line)
    }
    printf "*\n"
}' >"$WORK/long"
for COMMAND in validate stats "convert --to pgn" "convert --to san" "convert --to uci" "convert --to csv" "convert --to jsonl" "convert --to epd" dedup; do
    measure "long game: ${COMMAND/convert --to /convert }" "$WORK/long"
done
COMMAND=validate
rm -f "$WORK/long"

# A game of a million distinct tags (17 MB): writing its tags again must
# stay linear (a look through the tags written for each was quadratic).
awk 'BEGIN {
    printf "[Event \"tags\"]\n"
    for (i = 0; i < 1000000; i++) printf "[T%d \"v\"]\n", i
    printf "\n1. e4 *\n"
}' >"$WORK/tags"
for COMMAND in "convert --to pgn" "convert --to jsonl" fix; do
    measure "many tags: ${COMMAND/convert --to /convert }" "$WORK/tags"
done
COMMAND=validate
rm -f "$WORK/tags"

awk -v size=$((SIZE << 20)) 'BEGIN {
    for (n = 0; bytes < size; n++) {
        game = sprintf("[Event \"e%d\"]\n[Site \"?\"]\n[Date \"2024.01.01\"]\n[Round \"%d\"]\n[White \"w\"]\n[Black \"b\"]\n[Result \"%s\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n\n", n, n, n % 200 == 7 ? "0-1" : "1-0")
        printf "%s", game
        bytes += length(game)
    }
}' >"$WORK/games"
COMMAND="fix --diff"
measure "games: fix --diff" "$WORK/games"
COMMAND=validate
rm -f "$WORK/games"

# Inputs and text (issue 43): a line of SIZE MB of spaces between two
# games, through a pipe and zipped, and a tag line as long through a pipe
# (linear, bounded: a line is neither held whole nor rescanned at each
# read); a pzstd file (a skippable frame
# first); a file name and game text with escape and bidi controls (none
# may reach the output raw); CSV cells that would start a formula; a zip
# whose entries overlap (refused, not decompressed entry by entry); and
# --max-game-size past its bound (refused).
make spaces.pgn '' ' ' ''
measure_pipe() { # NAME FILE: as measure, the file given through a pipe
    local limit=$(((32 + 3 * 32) * 1024)) rc=ok
    /usr/bin/time -o "$WORK/time" -f '%e %M' timeout 600 sh -c 'cat "$2" | "$1" validate -q -j1 -' sh "$PGNKIT" "$2" >/dev/null 2>&1 || true
    read -r wall rss < <(tail -1 "$WORK/time")
    ((rss <= limit)) || rc=MISSED
    printf '%-24s %9s s %9d kB  (target <= %d kB) %s\n' "$1" "$wall" "$rss" "$limit" "$rc"
}
measure_pipe "spaces | pipe" "$WORK/spaces.pgn"
# A tag line as long (cut at the cap) was read again at each 64 KiB that
# a pipe gave, up to the cap.
make tag.pgn '[Site "' x '"]'
measure_pipe "tag line | pipe" "$WORK/tag.pgn"
rm -f "$WORK/tag.pgn"
(cd "$WORK" && zip -q -1 spaces.zip spaces.pgn)
measure spaces.zip "$WORK/spaces.zip"
rm -f "$WORK/spaces.pgn" "$WORK/spaces.zip"
# Time per byte of a line of spaces (and of one in a zip) against real
# games, both through a pipe: within 3x.
bytes=$((30 << 20))
corpus=$ROOT/../shared/corpus/pgn/shakmaty
if [[ -s $ROOT/target/bench/sample10.pgn || -d $corpus ]]; then
    while [[ $(stat -c %s "$WORK/real.pgn" 2>/dev/null || echo 0) -lt $bytes ]]; do
        if [[ -s $ROOT/target/bench/sample10.pgn ]]; then cat "$ROOT/target/bench/sample10.pgn"; else cat "$corpus"/*.pgn; fi >>"$WORK/real.pgn"
    done
    SIZE=30 make spaces30.pgn '' ' ' ''
    (cd "$WORK" && zip -q -1 real.zip real.pgn && zip -q -1 spaces30.zip spaces30.pgn)
    pipe_per_byte() { # FILE [BYTES] -> ns per byte through a pipe (user+sys of pgnkit, best of 3)
        local best= t
        for _ in 1 2 3; do
            /usr/bin/time -o "$WORK/time" -f '%U %S' sh -c 'cat "$2" | "$1" validate -q -j1 -' sh "$PGNKIT" "$1" >/dev/null 2>&1 || true
            t=$(tail -1 "$WORK/time" | awk '{print $1 + $2}')
            [[ -z $best ]] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }' && best=$t
        done
        awk -v t="$best" -v n="${2:-$(stat -c %s "$1")}" 'BEGIN { printf "%.2f", t * 1e9 / n }'
    }
    for pair in "spaces30.pgn real.pgn" "spaces30.zip real.zip"; do
        read -r hostile clean <<<"$pair"
        # A zip's bytes per byte of what it holds: the text's size.
        h=$(pipe_per_byte "$WORK/$hostile" "$(stat -c %s "$WORK/${hostile%.*}.pgn")")
        c=$(pipe_per_byte "$WORK/$clean" "$(stat -c %s "$WORK/${clean%.*}.pgn")")
        ratio=$(awk -v h="$h" -v c="$c" 'BEGIN { printf "%.2f", h / c }')
        verdict=$(awk -v r="$ratio" 'BEGIN { print (r <= 3) ? "ok" : "MISSED" }')
        echo "time per byte: $hostile $h ns, $clean $c ns: ratio $ratio (target <= 3) $verdict"
    done
    rm -f "$WORK"/spaces30* "$WORK"/real*
else
    echo "time per byte of spaces: skipped (no target/bench/sample10.pgn, no $corpus)"
fi
# A pzstd file starts with a skippable frame.
verdict() { # NAME GOT WANT
    printf '%-24s %s (target %s) %s\n' "$1" "$2" "$3" "$([[ $2 == "$3" ]] && echo ok || echo MISSED)"
}
printf "$GAME$GAME" >"$WORK/two.pgn"
if command -v pzstd >/dev/null; then
    pzstd -q -f "$WORK/two.pgn" -o "$WORK/two.pgn.zst"
    code=0
    "$PGNKIT" validate -q -j1 "$WORK/two.pgn.zst" >/dev/null 2>&1 || code=$?
    verdict "pzstd: exit" "$code" 0
else
    echo "pzstd: skipped (no pzstd; apt-get install zstd)"
fi
# Escape and bidi controls in a file name and in game text: how many reach
# validate -v's and convert's output raw.
name=$(printf 'x\033[2J\342\200\256y.pgn')
printf '[Event "a"]\n[White "\342\200\256evil"]\n[Black "\033]0;t\007"]\n[Result "*"]\n\n1. e4 Zz9 *\n\n' >"$WORK/$name"
printf 'not a text file\000\000\000' | head -c 4096 >"$WORK/$name.bin"
raw=$({ "$PGNKIT" validate -v -j1 "$WORK/$name" "$WORK/$name.bin" 2>&1; "$PGNKIT" convert -j1 --to san "$WORK/$name" 2>&1; } | LC_ALL=C grep -c $'\033\\|\342\200\256' || true)
verdict "raw controls (lines)" "$raw" 0
rm -f "$WORK/$name" "$WORK/$name.bin"
# CSV cells that a spreadsheet would read as a formula.
printf '[Event "=1+2"]\n[White "@SUM(A1)"]\n[Black "+cmd"]\n[Round "-2+3"]\n[Result "*"]\n\n1. e4 *\n\n' >"$WORK/formula.pgn"
cells=$("$PGNKIT" convert -j1 --to csv "$WORK/formula.pgn" 2>/dev/null | tail -n +2 | tr ',' '\n' | grep -c '^[=+@-]' || true)
verdict "CSV formula cells" "$cells" 0
rm -f "$WORK/formula.pgn"
# A zip of 2000 entries over one deflated MB of spaces (Fifield's
# overlap): refused at once, not decompressed 2000 times.
python3 - "$WORK/overlap.zip" <<'PY'
import struct, sys, zlib
raw = b" " * (1 << 20)
body = zlib.compressobj(9, zlib.DEFLATED, -15)
data = body.compress(raw) + body.flush()
crc = zlib.crc32(raw)
entries = 2000
names = [b"a%04d.pgn" % i for i in range(entries)]
local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc, len(data), len(raw), 9, 0) + names[0]
central = b"".join(
    struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0, crc, len(data), len(raw), 9, 0, 0, 0, 0, 0, 0) + name
    for name in names)
start = len(local) + len(data)
end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, entries, entries, len(central), start, 0)
open(sys.argv[1], "wb").write(local + data + central + end)
PY
code=0
/usr/bin/time -o "$WORK/time" -f '%e %U' timeout 600 "$PGNKIT" validate -q -j1 "$WORK/overlap.zip" >/dev/null 2>&1 || code=$?
read -r wall cpu < <(tail -1 "$WORK/time")
verdict "overlapping zip: exit" "$code" 2
echo "overlapping zip: $wall s, $cpu s of CPU ($(stat -c %s "$WORK/overlap.zip") bytes)"
rm -f "$WORK/overlap.zip"
code=0
msg=$("$PGNKIT" validate -q --max-game-size 99999999 "$WORK/two.pgn" 2>&1 >/dev/null) || code=$?
verdict "--max-game-size 99999999" "$code" 2
echo "  ${msg%%$'\n'*}"
rm -f "$WORK/two.pgn" "$WORK/two.pgn.zst"

CLEAN=$ROOT/target/bench/sample10.pgn
if [[ -s $CLEAN ]]; then
    bytes=$((30 << 20))
    junk_game "$bytes" >"$WORK/junk30"
    while [[ $(stat -c %s "$WORK/clean" 2>/dev/null || echo 0) -lt $bytes ]]; do cat "$CLEAN" >>"$WORK/clean"; done
    per_byte() { # FILE -> ns per byte (user+sys, best of 3)
        local best=
        for _ in 1 2 3; do
            /usr/bin/time -o "$WORK/time" -f '%U %S' "$PGNKIT" validate -q -j1 "$1" >/dev/null 2>&1 || true
            t=$(tail -1 "$WORK/time" | awk '{print $1 + $2}')
            [[ -z $best ]] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }' && best=$t
        done
        awk -v t="$best" -v n="$(stat -c %s "$1")" 'BEGIN { printf "%.2f", t * 1e9 / n }'
    }
    j=$(per_byte "$WORK/junk30") c=$(per_byte "$WORK/clean")
    ratio=$(awk -v j="$j" -v c="$c" 'BEGIN { printf "%.2f", j / c }')
    verdict=$(awk -v r="$ratio" 'BEGIN { print (r <= 3) ? "ok" : "MISSED" }')
    echo "time per byte: junk game $j ns, clean games $c ns: ratio $ratio (target <= 3) $verdict"
else
    echo "time per byte: skipped (no $CLEAN; run scripts/bench.sh once to build it)"
fi
