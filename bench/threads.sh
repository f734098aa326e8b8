#!/usr/bin/env bash
# threads.sh [BASE-REV] - what reading with two threads gains or costs, this
# tree's ecnwatch (B) against another revision's (A, default main), in one
# run, on an idle machine and beside a busy processor; and what starting
# costs, for a report of a tiny capture.
#
#   - inputs: the generated capture (bench/benchgen, BENCH_PACKETS packets),
#     the field captures of BENCH_FIELD decompressed and concatenated (as
#     bench/run.sh does), and the largest of them read compressed as it is;
#   - each binary -q by default and pinned to one processor (taskset -c 0),
#     and the bare libpcap loop (bench/floor.c) on the uncompressed inputs,
#     taking turns, BENCH_RUNS runs each; medians of wall time and of user +
#     system time, and their ratios;
#   - then the same with a CPU-bound shell loop at normal priority pinned to
#     processor 1 (the other one), started and stopped by this script;
#   - start-up: instructions of `ecnwatch -r captures/no-ecn-client.pcap`
#     under callgrind, and the wall time of 100 such runs (BENCH_RUNS rounds,
#     median), A and B.
# Needs 2 processors, GNU time, taskset, mergecap, valgrind. Builds A in a
# temporary worktree unless BENCH_BASE_BUILD names a build folder that holds
# A's ecnwatch. Run it alone: flock /tmp/ecnwatch-bench.lock bash bench/threads.sh
#
# Environment: BENCH_RUNS [5], BENCH_PACKETS [2700000], BENCH_FLOWS [4096],
# BENCH_FIELD [../shared/field], BENCH_BASE_BUILD [], BENCH_BUILD [build]: the
# build folder of this tree's binaries (made there), BENCH_TABLES [1]: 0 for
# the start-up only.
set -eu
export LC_ALL=C TZ=UTC
cd "$(dirname "$0")/.."
. bench/field.sh
BASE=${1:-main}
RUNS=${BENCH_RUNS:-5}
PACKETS=${BENCH_PACKETS:-2700000}
FLOWS=${BENCH_FLOWS:-4096}
FIELD=${BENCH_FIELD:-$(pwd)/../shared/field}
tmp=$(mktemp -d)
wt=$tmp/base
hog=""
cleanup() {
    [ -n "$hog" ] && kill "$hog" 2>/dev/null
    git worktree remove --force "$wt" >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT

[ -x /usr/bin/time ] || { echo "threads: GNU time (/usr/bin/time) is needed" >&2; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "threads: two processors are needed" >&2; exit 2; }

BUILD=${BENCH_BUILD:-build}
make -s BUILD="$BUILD" "$BUILD/ecnwatch" "$BUILD/benchgen" "$BUILD/floor" >/dev/null
B=$BUILD/ecnwatch
if [ -n "${BENCH_BASE_BUILD:-}" ]; then
    A=$BENCH_BASE_BUILD/ecnwatch
    arev="$BENCH_BASE_BUILD"
else
    arev=$(git rev-parse --short "$BASE")
    git worktree add -q --detach "$wt" "$arev"
    make -s -C "$wt" build/ecnwatch >/dev/null
    A=$wt/build/ecnwatch
fi
echo "== reading with two threads: A = $arev, B = this tree ($(git rev-parse --short HEAD)$(git diff --quiet || echo +changes))"
echo "   $(date -u '+%F %T') UTC; $(nproc) processors; uptime:$(uptime | sed 's/.*up/ up/')"

# the inputs
inputs=()
"$BUILD/benchgen" "$tmp/gen.pcap" --packets "$PACKETS" --flows "$FLOWS" 2>/dev/null
inputs+=("$tmp/gen.pcap")
biggest=""
if field_capture "$FIELD" "$tmp" "$tmp/field.pcap"; then
    inputs+=("$tmp/field.pcap")
    biggest=$(ls -S "$FIELD"/*.pcap.* | head -1)
    inputs+=("$biggest")
fi
for f in "${inputs[@]}"; do
    n=$("$B" -r "$f" --json 2>/dev/null | jq .totals.frames 2>/dev/null)
    echo "   input $(basename "$f"): ${n:-?} frames"
    # the same report from both, or the comparison is of different work
    "$A" -r "$f" --json >"$tmp/a.out" 2>&1 || true
    "$B" -r "$f" --json >"$tmp/b.out" 2>&1 || true
    cmp -s "$tmp/a.out" "$tmp/b.out" || echo "   note: A and B report $(basename "$f") differently"
    cat "$f" >/dev/null
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# one NAME CMD...: a run, its wall and user + system seconds appended to $tmp/NAME.{wall,cpu}
one() {
    local name=$1 t0 t1
    shift
    t0=$(date +%s%N)
    /usr/bin/time -f "%U %S" -o "$tmp/t" "$@" >/dev/null 2>&1 || true
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000)) | awk '{ print $1 / 1e6 }' >>"$tmp/$name.wall"
    awk '{ print $1 + $2 }' "$tmp/t" >>"$tmp/$name.cpu"
}

# table COND: every input, the binaries by default and pinned, the floor, taking turns
table() {
    local cond=$1 f k i
    for f in "${inputs[@]}"; do
        k=$(basename "$f")
        rm -f "$tmp"/*.wall "$tmp"/*.cpu
        for ((i = 0; i < RUNS; i++)); do
            one A-default "$A" -r "$f" -q
            one B-default "$B" -r "$f" -q
            one A-pinned taskset -c 0 "$A" -r "$f" -q
            one B-pinned taskset -c 0 "$B" -r "$f" -q
            case $f in *.pcap) one floor taskset -c 0 "$BUILD/floor" "$f" ;; esac
        done
        echo
        echo "-- $cond: $k ($RUNS runs each, taking turns; median)"
        printf "   %-10s %9s %9s\n" run wall cpu
        for n in A-default B-default A-pinned B-pinned floor; do
            [ -f "$tmp/$n.wall" ] || continue
            printf "   %-10s %8.3fs %8.3fs\n" $n "$(median <"$tmp/$n.wall")" "$(median <"$tmp/$n.cpu")"
        done
        for n in A-default B-default A-pinned B-pinned floor; do
            [ -f "$tmp/$n.wall" ] || continue
            echo "$n $(median <"$tmp/$n.wall") $(median <"$tmp/$n.cpu")"
        done >"$tmp/m"
        awk '{ w[$1] = $2; c[$1] = $3 }
            function r(a, b) { return (b > 0 ? a / b : 0) }
            END {
                printf "   B/A default      wall %5.2f  cpu %5.2f\n", r(w["B-default"], w["A-default"]), r(c["B-default"], c["A-default"])
                printf "   A default/pinned wall %5.2f  cpu %5.2f\n", r(w["A-default"], w["A-pinned"]), r(c["A-default"], c["A-pinned"])
                printf "   B default/pinned wall %5.2f  cpu %5.2f\n", r(w["B-default"], w["B-pinned"]), r(c["B-default"], c["B-pinned"])
                if ("floor" in w)
                    printf "   default/floor    wall A %5.2f B %5.2f   cpu A %5.2f B %5.2f\n", r(w["A-default"], w["floor"]), r(w["B-default"], w["floor"]), r(c["A-default"], c["floor"]), r(c["B-default"], c["floor"])
            }' "$tmp/m"
    done
}

if [ "${BENCH_TABLES:-1}" = 1 ]; then
    table "idle (nothing started by this script)"

    timeout 3600 taskset -c 1 sh -c 'while :; do :; done' &
    hog=$!
    sleep 1
    table "busy: a CPU-bound loop at normal priority on processor 1"
    kill "$hog" 2>/dev/null
    wait "$hog" 2>/dev/null || true
    hog=""
fi

# start-up: the instructions and the wall time of a report of a tiny capture;
# -Z root: run as root, ecnwatch would otherwise become nobody, who cannot
# write callgrind's output, and start a helper that keeps root (ecnwatch(1),
# Files and other users), which a user's run does not
tiny=captures/no-ecn-client.pcap
zroot=()
[ "$(id -u)" = 0 ] && zroot=(-Z root)
echo
echo "-- start-up: ecnwatch -r $tiny (a report of $("$BUILD/floor" "$tiny") frames)"
if command -v valgrind >/dev/null; then
    for w in A B; do
        bin=$A
        [ $w = B ] && bin=$B
        valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$bin" -r "$tiny" "${zroot[@]}" >/dev/null 2>&1
        echo "$w $(awk '/^summary:/ { print $2 }' "$tmp/cg.out")"
    done >"$tmp/instr"
    awk '{ v[$1] = $2 } END { printf "   instructions (callgrind)  A %10d  B %10d  B/A %5.2f\n", v["A"], v["B"], v["B"] / v["A"] }' "$tmp/instr"
fi
rm -f "$tmp"/*.wall
for ((i = 0; i < RUNS; i++)); do
    for w in A B; do
        bin=$A
        [ $w = B ] && bin=$B
        t0=$(date +%s%N)
        for ((j = 0; j < 100; j++)); do "$bin" -r "$tiny" "${zroot[@]}" >/dev/null 2>&1; done
        t1=$(date +%s%N)
        echo $(((t1 - t0) / 100000)) >>"$tmp/$w.wall"
    done
done
awk -v a="$(median <"$tmp/A.wall")" -v b="$(median <"$tmp/B.wall")" \
    'BEGIN { printf "   wall per run (100 runs, median of rounds)  A %6.2f ms  B %6.2f ms  B/A %5.2f\n", a / 1000, b / 1000, b / a }'
echo "   uptime at the end:$(uptime | sed 's/.*up/ up/')"
