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
#              and --to jsonl and fix (linear time); a game of one tag
#              given a million times, through validate, fix and convert
#              --to pgn (linear time, the repairs listed up to 100)
#   games      SIZE MB of games, one in 200 with a Result tag its marker
#              contradicts, through `fix --diff` (diffed a window at a time,
#              never as a whole file)
#   long game  a legal game of 30 MB (3.4 million plies, under the cap),
#              through every command that replays and keeps a game (`convert
#              --to epd` writes a line per position, 12 times the game, and
#              --to jsonl 50 MB: both streamed where the output goes rather
#              than held)
#   ml chain   20,000 players, each meeting only the next, through `ratings
#              --scheme ml` (time and result: all rated, in seconds)
#   structures games of about 30 MB, each of one structure (variations
#              nested a million deep, unclosed or side by side, comments,
#              ten million tags at --max-game-size 200), through every
#              command that writes games
#   files, pipes and signals  (issue 43) outputs that are inputs, closed
#              pipes, signals during split, appends during fix --in-place,
#              owners and setuid, temporary files left by a killed run
#   inputs and text  (issue 43, a section of its own) a line of SIZE MB of
#              spaces through a pipe and zipped, a tag line as long through
#              a pipe, pzstd, controls in names and text, CSV formula
#              cells, an overlapping zip, --max-game-size past its bound
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

# measure NAME FILE [TIMEOUT [THREADS [CAP]]]: seconds and peak RSS of one
# run of `pgnkit $COMMAND` (validate unless set), against 32 MB plus 3x
# CAP MiB (the game size cap, 32 unless given) a thread.
COMMAND=validate
measure() {
    local name=$1 file=$2 secs=${3:-600} jobs=${4:-1} cap=${5:-32} out rc limit
    limit=$(((32 + 3 * cap * jobs) * 1024))
    # shellcheck disable=SC2086 # COMMAND is a command and its options
    /usr/bin/time -o "$WORK/time" -f '%e %M' timeout "$secs" "$PGNKIT" $COMMAND -q -j"$jobs" "$file" >/dev/null 2>&1 || true
    read -r wall rss < <(tail -1 "$WORK/time")
    rc=ok
    ((rss <= limit)) || rc=MISSED
    printf '%-36s %9s s %9d kB  (target <= %d kB) %s\n' "$name" "$wall" "$rss" "$limit" "$rc"
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
# One tag given a million times (20 MB): each earlier one is a finding
# and a repair, of which a game lists 100 (locating each cost a count of
# the lines before it: quadratic, 15 s for 200,000), and the repairs'
# messages are made for those only (460 MB for them all).
awk 'BEGIN {
    for (i = 0; i < 1000000; i++) printf "[Same \"v%d\"]\n", i
    printf "\n1. e4 *\n"
}' >"$WORK/tags"
for COMMAND in validate fix "convert --to pgn"; do
    measure "one tag repeated: ${COMMAND/convert --to /convert }" "$WORK/tags"
done
COMMAND=validate
rm -f "$WORK/tags"

# Games of about 30 MB (under the cap) made of one structure each, through
# every command that writes games (issue 43): a variation inside each
# variation a million deep (read to 1,000), four million `(` then as many
# `)`, eight million `(` never closed, 7.5 million comments on one move,
# 3.9 million variations of one move beside each other; and ten million
# tags (149 MB) at --max-game-size 200, against 3x that cap.
python3 - "$WORK" <<'PY'
import sys
work = sys.argv[1]
def game(name, movetext):
    with open(f"{work}/{name}", "w") as f:
        f.write('[Event "s"]\n\n' + movetext + ' *\n\n[Event "next"]\n\n1. d4 *\n')
game("nested", "1. e4 e5 " + "(1... c5 " * 3_000_000 + ")" * 3_000_000)
game("parens", "1. e4 " + "(" * 4_000_000 + "e4" + ")" * 4_000_000)
game("unclosed", "1. e4 " + "(" * 8_000_000 + "e4")
game("comments", "1. e4 " + "{c} " * 7_500_000 + "e5")
game("siblings", "1. e4 " + "(1. d4) " * 3_900_000 + "e5")
with open(f"{work}/tags10m", "w") as f:
    f.write('[Event "t"]\n' + "".join(f'[T{i} "v"]\n' for i in range(10_000_000)) + "\n1. e4 *\n")
PY
for shape in nested parens unclosed comments siblings; do
    for COMMAND in validate "convert --to pgn" "convert --to jsonl" fix "split --normalize --games 1 --out-dir $WORK/split-$shape"; do
        measure "$shape: ${COMMAND%% --out-dir*}" "$WORK/$shape"
    done
    rm -rf "$WORK/split-$shape"
done
for COMMAND in validate "convert --to pgn" "convert --to jsonl" fix; do
    COMMAND="$COMMAND --max-game-size 200"
    measure "10M tags: ${COMMAND% --max-game-size 200}" "$WORK/tags10m" 600 1 200
done
COMMAND=validate
rm -f "$WORK/tags10m"

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

# A chain of 20,000 players, each winning with White and drawing with Black
# against the next: every rating finite, the ends 3.8 million points apart.
# `ratings --scheme ml` must rate it in seconds (it was refused as having no
# finite ratings).
awk 'BEGIN {
    for (i = 0; i < 19999; i++) {
        printf "[White \"P%d\"]\n[Black \"P%d\"]\n[Result \"1-0\"]\n\n1-0\n\n", i, i + 1
        printf "[White \"P%d\"]\n[Black \"P%d\"]\n[Result \"1/2-1/2\"]\n\n1/2-1/2\n\n", i + 1, i
    }
}' >"$WORK/chain"
rc=0
/usr/bin/time -o "$WORK/time" -f '%e %M' "$PGNKIT" ratings -q --scheme ml --format csv "$WORK/chain" \
    >"$WORK/chain.csv" 2>"$WORK/chain.err" || rc=$?
read -r wall rss < <(tail -1 "$WORK/time")
# Rows best first: the spread is the first rating less the last.
result=$(awk -F, -v rc="$rc" 'NR == 2 { top = $(NF - 1) } NR > 1 { rows++; last = $(NF - 1) }
    END { if (rc == 0) printf "%d players rated, %.1f points from end to end", rows, top - last; else printf "exit %d", rc }' \
    "$WORK/chain.csv")
verdict=$(awk -v rc="$rc" -v t="$wall" -v r="$result" 'BEGIN { print (rc == 0 && r ~ /^20000 / && t <= 10) ? "ok" : "MISSED" }')
printf '%-36s %9s s %9d kB  %s (target: all rated, <= 10 s) %s\n' "ml chain: 20000 players" "$wall" "$rss" "$result" "$verdict"
[[ $rc == 0 ]] || sed 's/^/    /' "$WORK/chain.err"
rm -f "$WORK/chain" "$WORK/chain.csv" "$WORK/chain.err"

# Files, pipes and signals (issue 43): what a run does to its inputs and
# outputs under redirections, closed pipes, signals and other writers.
# Each line gives its figure and its target. Input: 10,000 games between
# 20,000 players, none with a result marker (each is repaired by fix).
io_section() {
    local dir=$WORK/io n rc pid tries ok lo hi
    mkdir -p "$dir"
    awk 'BEGIN { for (i = 0; i < 10000; i++) printf "[White \"W%d\"]\n[Black \"B%d\"]\n[Result \"1-0\"]\n\n1. e4 e5\n\n", i, i }' >"$dir/players.pgn"
    met() { if "$@"; then echo ok; else echo MISSED; fi; }
    # Runs are started with SIGINT and SIGTERM at their default, as from
    # a terminal: a script's `cmd &` would have them ignored.
    start() { env --default-signal=INT,TERM,HUP "$PGNKIT" "$@" & }

    # input destroyed, endless: an output that is an input, by any name.
    io_case() { # NAME REDIRECT ARGS...: exit status and s.pgn's size
        local name=$1 redirect=$2 before after rc
        shift 2
        cp "$dir/players.pgn" "$dir/s.pgn"
        before=$(stat -c %s "$dir/s.pgn")
        # shellcheck disable=SC2086 # REDIRECT is shell syntax
        (cd "$dir" && eval "timeout 20 \"\$PGNKIT\" \"\$@\" $redirect" 2>/dev/null) && rc=0 || rc=$?
        after=$(stat -c %s "$dir/s.pgn")
        printf '%-44s exit %3d, s.pgn %8d -> %9d bytes (target exit 2, unchanged) %s\n' "$name" "$rc" "$before" \
            "$after" "$(met test "$rc" = 2 -a "$before" = "$after")"
    }
    io_case "convert -o /dev/stdout s.pgn >> s.pgn" ">> s.pgn" convert -q --to pgn -o /dev/stdout s.pgn
    io_case "convert -o /dev/fd/3 s.pgn 3>> s.pgn" "3>> s.pgn" convert -q --to pgn -o /dev/fd/3 s.pgn
    io_case "filter --rejects /dev/stdout s.pgn >> s.pgn" ">> s.pgn" filter -q --white x --rejects /dev/stdout s.pgn
    io_case "stats --svg /dev/stdout s.pgn >> s.pgn" ">> s.pgn" stats -q --svg /dev/stdout s.pgn
    io_case "fix s.pgn >> s.pgn (20 s at most)" ">> s.pgn" fix -q s.pgn
    io_case "convert s.pgn >> s.pgn (20 s at most)" ">> s.pgn" convert -q --to pgn s.pgn
    io_case "filter s.pgn >> s.pgn (20 s at most)" ">> s.pgn" filter -q s.pgn
    io_case "fix < s.pgn >> s.pgn (20 s at most)" "< s.pgn >> s.pgn" fix -q
    printf 'earlier line\n' >"$dir/log"
    (cd "$dir" && "$PGNKIT" convert -q --to uci -o /dev/stdout players.pgn >>log 2>/dev/null) || true
    n=$(grep -c 'earlier line' "$dir/log" || true)
    printf '%-44s %d of 1 earlier line kept (target 1) %s\n' "convert -o /dev/stdout >> log" "$n" "$(met test "$n" = 1)"

    # exit code: a closed pipe in the middle of a CSV output.
    for command in "ratings --format csv" "ratings --history --format csv" "stats --by white --format csv" \
        "dedup --list --format csv"; do
        set +eo pipefail
        # shellcheck disable=SC2086 # COMMAND is a command and its options
        "$PGNKIT" $command "$dir/players.pgn" "$dir/players.pgn" 2>"$dir/err" | head -1 >/dev/null
        rc=${PIPESTATUS[0]}
        set -eo pipefail
        # The findings of the games (no result marker) still go there.
        n=$(grep -c 'pgnkit: error' "$dir/err" || true)
        printf '%-44s exit %3d, %d errors on stderr (target exit 0, none) %s\n' "$command | head -1" "$rc" "$n" \
            "$(met test "$rc" = 0 -a "$n" = 0)"
    done

    # exit code: SIGINT while split makes its files, 20 times, after 100
    # to 2,000 of them.
    ok=0
    for tries in $(seq 20); do
        rm -rf "$dir/out"
        start split -q --by player --out-dir "$dir/out" "$dir/players.pgn" 2>/dev/null
        pid=$!
        n=$((100 + RANDOM % 1900))
        until (($(ls -U "$dir/out" 2>/dev/null | wc -l) > n)) || ! kill -0 "$pid" 2>/dev/null; do sleep 0.005; done
        kill -INT "$pid" 2>/dev/null || true
        { wait "$pid"; } 2>/dev/null && rc=0 || rc=$?
        [[ $rc != 130 ]] || ok=$((ok + 1))
    done
    printf '%-44s %d of %d runs exit 130 (target all) %s\n' "SIGINT during split --by player" "$ok" "$tries" \
        "$(met test "$ok" = "$tries")"

    # partial set: SIGINT once split's first file has its final name.
    lo=20000 hi=0
    for tries in $(seq 5); do
        rm -rf "$dir/out"
        start split -q --by player --out-dir "$dir/out" "$dir/players.pgn" 2>/dev/null
        pid=$!
        until compgen -G "$dir/out/[!.]*" >/dev/null || ! kill -0 "$pid" 2>/dev/null; do :; done
        kill -INT "$pid" 2>/dev/null || true
        { wait "$pid"; } 2>/dev/null || true
        n=$(find "$dir/out" -mindepth 1 -maxdepth 1 -name '[!.]*' | wc -l)
        ((n >= lo)) || lo=$n
        ((n <= hi)) || hi=$n
    done
    printf '%-44s %d to %d of 20000 files (target 20000 each time) %s\n' "SIGINT while split renames its files" "$lo" \
        "$hi" "$(met test "$lo" = 20000)"

    # lost games: 2,000 games appended one by one while fix --in-place
    # runs on the file again and again.
    for tries in $(seq 10); do cat "$dir/players.pgn"; done >"$dir/f.pgn"
    (for i in $(seq 2000); do
        printf '[Event "appended %d"]\n[Result "*"]\n\n1. d4 *\n\n' "$i" >>"$dir/f.pgn"
        sleep 0.001
    done) &
    pid=$!
    tries=0
    while kill -0 "$pid" 2>/dev/null; do
        "$PGNKIT" fix -q --in-place "$dir/f.pgn" 2>/dev/null || true
        tries=$((tries + 1))
    done
    wait "$pid" || true
    n=$(grep -c '^\[Event "appended' "$dir/f.pgn" || true)
    printf '%-44s %d of 2000 appended games lost in %d runs (target 0) %s\n' "appends during fix --in-place" \
        "$((2000 - n))" "$tries" "$(met test "$n" = 2000)"

    # other: fix --in-place of another user's setuid file, as root.
    cp "$dir/players.pgn" "$dir/own.pgn"
    chmod 6755 "$dir/own.pgn"
    if chown 65534:65534 "$dir/own.pgn" 2>/dev/null; then
        "$PGNKIT" fix -q --in-place "$dir/own.pgn" || true
        n=$(stat -c '%u:%g %a' "$dir/own.pgn")
        printf '%-44s %s (target 65534:65534 755) %s\n' "fix --in-place of a setuid file as root" "$n" \
            "$(met test "$n" = "65534:65534 755")"
    else
        echo "fix --in-place of a setuid file as root: skipped (not root)"
    fi

    # other: temporary files a SIGKILL left, after the next run.
    rm -rf "$dir/out"
    start split -q --by player --out-dir "$dir/out" "$dir/players.pgn" 2>/dev/null
    pid=$!
    until (($(find "$dir/out" -name '*.pgnkit-tmp' 2>/dev/null | wc -l) > 1000)) || ! kill -0 "$pid" 2>/dev/null; do
        sleep 0.005
    done
    kill -KILL "$pid" 2>/dev/null || true
    { wait "$pid"; } 2>/dev/null || true
    lo=$(find "$dir/out" -name '*.pgnkit-tmp' | wc -l)
    "$PGNKIT" split -q --games 5000 --out-dir "$dir/out" "$dir/players.pgn" || true
    n=$(find "$dir/out" -name '*.pgnkit-tmp' | wc -l)
    printf '%-44s %d left by SIGKILL, %d after the next run (target 0) %s\n' "temporary files of split" "$lo" "$n" \
        "$(met test "$n" = 0)"
    rm -rf "$dir"
}
io_section
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
    printf '%-36s %9s s %9d kB  (target <= %d kB) %s\n' "$1" "$wall" "$rss" "$limit" "$rc"
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
    printf '%-36s %s (target %s) %s\n' "$1" "$2" "$3" "$([[ $2 == "$3" ]] && echo ok || echo MISSED)"
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
    c=$(per_byte "$WORK/clean")
    for hostile in junk30 nested parens unclosed comments siblings; do
        j=$(per_byte "$WORK/$hostile")
        ratio=$(awk -v j="$j" -v c="$c" 'BEGIN { printf "%.2f", j / c }')
        verdict=$(awk -v r="$ratio" 'BEGIN { print (r <= 3) ? "ok" : "MISSED" }')
        echo "time per byte: $hostile $j ns, clean games $c ns: ratio $ratio (target <= 3) $verdict"
    done
else
    echo "time per byte: skipped (no $CLEAN; run scripts/bench.sh once to build it)"
fi
