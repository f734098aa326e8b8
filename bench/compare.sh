#!/usr/bin/env bash
# compare.sh [BASE-REV] - this tree's ecnwatch side by side with another
# revision's (default: the previous commit), in one run, on the same
# generated capture:
#   - instructions per packet under callgrind, on a prefix (-q and --json):
#     the same on any load, so the ratio means something on a busy machine;
#   - wall and CPU time of the whole capture, the two binaries taking turns
#     (BENCH_RUNS each, median shown).
# Prints each figure for the base and this tree and their ratio (this tree /
# base; below 1.00 is faster). Builds the base in a temporary worktree and
# removes it. Needs git, valgrind and GNU time.
#
# Environment: BENCH_RUNS [5], BENCH_PACKETS [2000000], BENCH_PREFIX [200000],
# BENCH_FLOWS [4096].
set -eu
export LC_ALL=C TZ=UTC
cd "$(dirname "$0")/.."
BASE=${1:-HEAD~1}
RUNS=${BENCH_RUNS:-5}
PACKETS=${BENCH_PACKETS:-2000000}
PREFIX=${BENCH_PREFIX:-200000}
FLOWS=${BENCH_FLOWS:-4096}
rev=$(git rev-parse --short "$BASE")
tmp=$(mktemp -d)
wt=$tmp/base
trap 'git worktree remove --force "$wt" >/dev/null 2>&1; rm -rf "$tmp"' EXIT

command -v valgrind >/dev/null || { echo "compare: valgrind is needed" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "compare: GNU time (/usr/bin/time) is needed" >&2; exit 2; }

make -s build/ecnwatch build/benchgen >/dev/null
git worktree add -q --detach "$wt" "$rev"
make -s -C "$wt" build/ecnwatch >/dev/null
NEW=build/ecnwatch
OLD=$wt/build/ecnwatch
build/benchgen "$tmp/bench.pcap" --packets "$PACKETS" --flows "$FLOWS" 2>/dev/null
build/benchgen "$tmp/prefix.pcap" --packets "$PREFIX" --flows "$FLOWS" 2>/dev/null
echo "== ecnwatch: this tree ($(git rev-parse --short HEAD)$(git diff --quiet || echo +changes)) against $rev"
echo "   $PACKETS packets, $FLOWS flows at once (bench/benchgen); prefix $PREFIX packets"

# the same report from both, or the comparison is of different work
for m in -q --json; do
    "$OLD" -r "$tmp/prefix.pcap" $m >"$tmp/old.out" 2>/dev/null || true
    "$NEW" -r "$tmp/prefix.pcap" $m >"$tmp/new.out" 2>/dev/null || true
    cmp -s "$tmp/old.out" "$tmp/new.out" || echo "   note: the $m outputs differ on the prefix"
done

instr() { # instr BINARY ARGS...: instructions of the whole run, on one thread
    # (-Z root: run as root, ecnwatch would give up its privileges after
    # opening the capture, and callgrind could then not write its counts
    # into this root's folder: the figure would be the start-up's alone)
    rm -f "$tmp"/cg.out.*
    ECNWATCH_READ_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out.%p" "$@" -Z root \
        >/dev/null 2>"$tmp/cg.err"
    awk '/^summary:/ { s += $2 } END { print s + 0 }' "$tmp"/cg.out.*
}
echo
echo "-- instructions per packet on the prefix (callgrind)"
printf "   %-8s %12s %12s %7s\n" mode "$rev" "this" ratio
for m in -q --json; do
    o=$(instr "$OLD" -r "$tmp/prefix.pcap" $m)
    n=$(instr "$NEW" -r "$tmp/prefix.pcap" $m)
    awk -v m="$m" -v o="$o" -v n="$n" -v p="$PREFIX" \
        'BEGIN { printf "   %-8s %12.1f %12.1f %7.2f\n", m, o / p, n / p, n / o }'
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo
echo "-- the whole capture, taking turns ($RUNS runs each, median)"
cat "$tmp/bench.pcap" >/dev/null
for ((i = 0; i < RUNS; i++)); do
    for who in old new; do
        bin=$OLD
        [ $who = new ] && bin=$NEW
        for m in -q --json; do
            t0=$(date +%s%N)
            /usr/bin/time -f "%U %S" -o "$tmp/t" "$bin" -r "$tmp/bench.pcap" $m >/dev/null 2>&1 || true
            t1=$(date +%s%N)
            echo $(((t1 - t0) / 1000)) >>"$tmp/$who$m.wall"
            awk '{ print $1 + $2 }' "$tmp/t" >>"$tmp/$who$m.cpu"
        done
    done
done
printf "   %-8s %10s %10s %7s   %10s %10s %7s\n" mode "wall $rev" "this" ratio "cpu $rev" "this" ratio
for m in -q --json; do
    ow=$(median <"$tmp/old$m.wall"); nw=$(median <"$tmp/new$m.wall")
    oc=$(median <"$tmp/old$m.cpu"); nc=$(median <"$tmp/new$m.cpu")
    awk -v m="$m" -v ow="$ow" -v nw="$nw" -v oc="$oc" -v nc="$nc" 'BEGIN {
        printf "   %-8s %9.3fs %9.3fs %7.2f   %9.2fs %9.2fs %7.2f\n", m, ow / 1e6, nw / 1e6, nw / ow, oc, nc, (oc > 0 ? nc / oc : 0) }'
done
