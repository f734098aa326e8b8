#!/usr/bin/env bash
# run.sh BUILD - the benchmark behind `make bench` (bench/README.md).
#
# Writes a large capture with benchgen, then times over the same file the
# physical floor (a bare pcap_next_ex loop), ecnwatch with everything on
# (--json), and tshark; then ecnwatch at 10 k, 100 k and 1 M concurrent
# flows. Prints packets per second, the ratios, and peak RSS. Records
# nothing in the repository: the captures stay in BUILD/bench/.
#
# Environment (defaults in brackets):
#   BENCH_RUNS [3]              runs of each measurement; the median is shown
#   BENCH_PACKETS [5000000]     packets in the main capture
#   BENCH_PREFIX [500000]       packets of its prefix that tshark is timed on
#   BENCH_FLOWS [4096]          flows in progress at once in the main capture
#   BENCH_SCALE ["10000 100000 1000000"]  concurrent flows of the scaling runs
#   BENCH_SCALE_PACKETS [5000000]         packets of each scaling capture
#   BENCH_SCALE_JSON_MAX [1000000] --json in the scaling runs up to this many
#                               flows (a smaller limit shortens the run)
#   BENCH_TSHARK [1]            0: leave tshark out
#   BENCH_REAL [1]              the second input, real ECN test captures (the
#                               field captures of BENCH_FIELD [../shared/field],
#                               concatenated; generated look-alikes without them);
#                               0: leave it out
#   BENCH_REAL_PREFIX [250000]  its packets that tshark is timed on
#   BENCH_CALLGRIND [1]         instructions per packet on the prefix with
#                               callgrind (repeatable, unlike times on a
#                               shared machine); 0: leave it out
set -eu
export LC_ALL=C TZ=UTC
. "$(dirname "$0")/field.sh"

B=${1:-build}
OUT=$B/bench
RUNS=${BENCH_RUNS:-3}
PACKETS=${BENCH_PACKETS:-5000000}
PREFIX=${BENCH_PREFIX:-500000}
FLOWS=${BENCH_FLOWS:-4096}
SCALE=${BENCH_SCALE:-10000 100000 1000000}
SCALE_PACKETS=${BENCH_SCALE_PACKETS:-5000000}
SCALE_JSON_MAX=${BENCH_SCALE_JSON_MAX:-1000000}
TSHARK=${BENCH_TSHARK:-1}
CALLGRIND=${BENCH_CALLGRIND:-1}
REAL=${BENCH_REAL:-1}
REAL_PREFIX=${BENCH_REAL_PREFIX:-250000}
FIELD=${BENCH_FIELD:-$(cd "$(dirname "$0")/.." && pwd)/../shared/field}
command -v valgrind >/dev/null || CALLGRIND=0
EW=$B/ecnwatch
TIME=/usr/bin/time

if [ ! -x "$TIME" ] || ! "$TIME" -f %M true >/dev/null 2>&1; then
    echo "bench: GNU time (/usr/bin/time) is needed for peak RSS: apt-get install time" >&2
    exit 2
fi
if [ "$TSHARK" = 1 ] && ! command -v tshark >/dev/null; then
    echo "bench: tshark not found (BENCH_TSHARK=0 leaves it out)" >&2
    exit 2
fi
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_once KEY CMD...: run CMD once (stdout to /dev/null), add its wall
# time, CPU time (user + system) and peak RSS to KEY's lists
run_once() {
    local key=$1 t0 t1
    shift
    t0=$(date +%s%N)
    if ! "$TIME" -f "%M %U %S" -o "$tmp/rss" "$@" >/dev/null 2>"$tmp/err"; then
        echo "bench: failed: $*" >&2
        cat "$tmp/err" >&2
        exit 1
    fi
    t1=$(date +%s%N)
    echo "$(((t1 - t0) / 1000))" >>"$tmp/$key.secs"
    tail -1 "$tmp/rss" | awk '{ print $1 >> "'"$tmp/$key.kbs"'"; printf "%.2f\n", $2 + $3 >> "'"$tmp/$key.cpus"'" }'
}

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# show KEY NAME PACKETS: sets M_SEC (median wall seconds), M_CPU (median
# CPU seconds) and M_KB (median peak RSS, KiB) of KEY's runs; prints a line
show() {
    local key=$1 name=$2 pkts=$3
    M_SEC=$(median "$tmp/$key.secs" | awk '{ printf "%.3f", $1 / 1e6 }')
    M_CPU=$(median "$tmp/$key.cpus")
    M_KB=$(median "$tmp/$key.kbs")
    awk -v n="$name" -v p="$pkts" -v s="$M_SEC" -v c="$M_CPU" -v k="$M_KB" \
        -v all="$(tr '\n' ' ' <"$tmp/$key.secs")" 'BEGIN {
        split(all, a, " "); runs = "";
        for (i = 1; i in a; i++) runs = runs sprintf("%s%.2f", i > 1 ? "/" : "", a[i] / 1e6);
        printf "  %-34s %9d %8.3f %7.2f %12.0f %9.1f MB  (runs %s s)\n", n, p, s, c, p / s, k / 1024, runs }'
}

# measure KEY NAME PACKETS CMD...: BENCH_RUNS runs of CMD, then show
measure() {
    local key=$1 name=$2 pkts=$3 i
    shift 3
    for ((i = 0; i < RUNS; i++)); do
        run_once "$key" "$@"
    done
    show "$key" "$name" "$pkts"
}

header() {
    printf "  %-34s %9s %8s %7s %12s %12s\n" "" "packets" "time s" "cpu s" "packets/s" "peak RSS"
}

echo "== ecnwatch benchmark ($(nproc) CPUs, $(uname -r), median of $RUNS runs)"
# the read-ahead only pays when the compiler kept the prefetches (it once
# dropped them silently): count them in the object code
if command -v objdump >/dev/null; then
    npf=$(objdump -d --no-show-raw-insn "$EW" | awk '/<ew_flowtab_prefetch_flow>:$/ { on = 1; next }
        on && /^$/ { exit } on && /prefetch/ { n++ } END { print n + 0 }')
    echo "   prefetch instructions in ew_flowtab_prefetch_flow: $npf"
    [ "$npf" -ge 3 ] || echo "   WARNING: the flow records are not prefetched; this build reads slower than it should"
fi
echo "-- capture: $OUT/bench.pcap"
t0=$(date +%s%N)
"$B/benchgen" "$OUT/bench.pcap" --packets "$PACKETS" --flows "$FLOWS" 2>"$tmp/gen"
t1=$(date +%s%N)
sed 's/^/   /' "$tmp/gen"
echo "   written in $(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.2f", d / 1e9 }') s, $(du -m "$OUT/bench.pcap" | cut -f1) MB"
"$B/benchgen" "$OUT/prefix.pcap" --packets "$PREFIX" --flows "$FLOWS" 2>/dev/null
# the prefix is the same generator's first PREFIX packets: check it is a byte prefix
cmp -s -n "$(stat -c %s "$OUT/prefix.pcap")" "$OUT/prefix.pcap" "$OUT/bench.pcap" || {
    echo "bench: $OUT/prefix.pcap is not a prefix of $OUT/bench.pcap" >&2
    exit 1
}
flows=$("$EW" -r "$OUT/bench.pcap" --text-flows 0 | awk 'NR == 1 { print $(NF - 1) }')
echo "   $flows flows (TCP: not-ECN, RFC 3168, DCTCP, AccECN, L4S, SCE; UDP)"
cat "$OUT/bench.pcap" "$OUT/prefix.pcap" >/dev/null # in the page cache for every run

echo
echo "-- the whole capture (the commands take turns, so that a busy machine slows all alike)"
header
for ((i = 0; i < RUNS; i++)); do
    run_once floor "$B/floor" "$OUT/bench.pcap"
    run_once json "$EW" -r "$OUT/bench.pcap" --json
    run_once json1 env ECNWATCH_REPORT_THREADS=1 "$EW" -r "$OUT/bench.pcap" --json
    run_once q "$EW" -r "$OUT/bench.pcap" -q
done
show floor "floor (bare pcap_next_ex loop)" "$PACKETS"
floor_sec=$M_SEC
floor_cpu=$M_CPU
show json "ecnwatch --json" "$PACKETS"
ew_sec=$M_SEC
ew_cpu=$M_CPU
ew_kb=$M_KB
show json1 "ecnwatch --json, report: 1 thread" "$PACKETS"
ew1_sec=$M_SEC
show q "ecnwatch -q (analysis, no report)" "$PACKETS"
q_sec=$M_SEC
q_cpu=$M_CPU
awk -v t="$ew_sec" -v o="$ew1_sec" -v q="$q_sec" 'BEGIN {
    printf "   the report'"'"'s second thread: --json %.3f s against %.3f s with one (%+.1f %%); the report itself %.3f s against %.3f s\n", t, o, 100 * (t - o) / o, t - q, o - q }'

echo
echo "-- the first $PREFIX packets of the same capture ($OUT/prefix.pcap; tshark is slow)"
header
for ((i = 0; i < RUNS; i++)); do
    run_once pfloor "$B/floor" "$OUT/prefix.pcap"
    run_once pjson "$EW" -r "$OUT/prefix.pcap" --json
    run_once pq "$EW" -r "$OUT/prefix.pcap" -q
    if [ "$TSHARK" = 1 ]; then
        run_once conv tshark -r "$OUT/prefix.pcap" -q -z conv,tcp
        run_once fields tshark -r "$OUT/prefix.pcap" -T fields \
            -e ip.dsfield.ecn -e ipv6.tclass -e tcp.flags.ece -e tcp.flags.cwr -e tcp.flags.ae
    fi
done
show pfloor "floor (bare pcap_next_ex loop)" "$PREFIX"
pfloor_sec=$M_SEC
pfloor_cpu=$M_CPU
show pjson "ecnwatch --json" "$PREFIX"
pew_sec=$M_SEC
pew_cpu=$M_CPU
pew_kb=$M_KB
show pq "ecnwatch -q (analysis, no report)" "$PREFIX"
pq_sec=$M_SEC
pq_cpu=$M_CPU
if [ "$TSHARK" = 1 ]; then
    show conv "tshark -q -z conv,tcp" "$PREFIX"
    conv_sec=$M_SEC
    conv_cpu=$M_CPU
    show fields "tshark -T fields (ECN fields)" "$PREFIX"
    fields_sec=$M_SEC
    fields_cpu=$M_CPU
fi
echo
echo "-- ratios"
awk -v e="$ew_sec" -v f="$floor_sec" -v q="$q_sec" -v ec="$ew_cpu" -v fc="$floor_cpu" -v qc="$q_cpu" 'BEGIN {
    printf "  ecnwatch --json at %5.1f %% of the floor'"'"'s packet rate, whole capture (target >= 50 %%); by CPU time %5.1f %%\n", 100 * f / e, 100 * fc / ec
    printf "  ecnwatch -q     at %5.1f %% of the floor'"'"'s packet rate, whole capture (analysis without the report); by CPU time %5.1f %%\n", 100 * f / q, 100 * fc / qc }'
awk -v e="$pew_sec" -v f="$pfloor_sec" -v ec="$pew_cpu" -v fc="$pfloor_cpu" 'BEGIN {
    printf "  ecnwatch --json at %5.1f %% of the floor'"'"'s packet rate, prefix; by CPU time %5.1f %%\n", 100 * f / e, 100 * fc / (ec > 0 ? ec : 0.01) }'
if [ "$TSHARK" = 1 ]; then
    awk -v e="$pew_sec" -v c="$conv_sec" -v t="$fields_sec" -v ec="$pew_cpu" -v cc="$conv_cpu" -v tc="$fields_cpu" 'BEGIN {
        printf "  ecnwatch --json is %6.1fx faster than tshark -z conv,tcp (prefix; target >= 30x); by CPU time %.1fx\n", c / e, cc / ec
        printf "  ecnwatch --json is %6.1fx faster than tshark field extraction (prefix; target >= 100x); by CPU time %.1fx\n", t / e, tc / ec }'
    awk -v e="$pq_sec" -v c="$conv_sec" -v t="$fields_sec" -v ec="$pq_cpu" -v cc="$conv_cpu" -v tc="$fields_cpu" 'BEGIN {
        if (ec <= 0) ec = 0.01
        printf "  ecnwatch -q     is %6.1fx faster than tshark -z conv,tcp, %.1fx than field extraction (prefix); by CPU time %.1fx, %.1fx\n", c / e, t / e, cc / ec, tc / ec }'
fi
echo "  peak RSS: ecnwatch --json $((pew_kb / 1024)) MB on $PREFIX packets, $((ew_kb / 1024)) MB on $PACKETS"

if [ "$CALLGRIND" = 1 ]; then
    echo
    echo "-- instructions (callgrind) on the prefix: the same on any load"
    # instr NAME CMD...: instructions of one run, per packet of the prefix
    instr() {
        local name=$1 n
        shift
        valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$@" >/dev/null 2>"$tmp/cg.err"
        n=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/cg.err")
        I_PER=$(awk -v n="$n" -v p="$PREFIX" 'BEGIN { printf "%.0f", n / p }')
        printf "  %-34s %14d instructions %8d per packet\n" "$name" "$n" "$I_PER"
    }
    instr "floor (bare pcap_next_ex loop)" "$B/floor" "$OUT/prefix.pcap"
    i_floor=$I_PER
    instr "ecnwatch -q (analysis, no report)" "$EW" -r "$OUT/prefix.pcap" -q
    i_q=$I_PER
    instr "ecnwatch --json" "$EW" -r "$OUT/prefix.pcap" --json
    i_json=$I_PER
    awk -v f="$i_floor" -v q="$i_q" -v j="$i_json" 'BEGIN {
        printf "  by instructions: ecnwatch -q does %.2fx the floor'"'"'s work per packet, ecnwatch --json %.2fx\n", q / f, j / f
        printf "  (the report: %.0f instructions per packet of this prefix)\n", j - q }'
fi

# --- the second input: real ECN test captures, or a capture with their traits
if [ "$REAL" = 1 ]; then
    echo
    real=$OUT/real.pcap
    rprefix=$OUT/real-prefix.pcap
    # every field capture decompressed, then end to end (mergecap -a)
    if field_capture "$FIELD" "$tmp" "$real"; then
        echo "-- real captures: the field captures of $FIELD, decompressed and concatenated"
        echo "   ($(ls "$FIELD"/*.pcap.* | xargs -n1 basename | tr '\n' ' '))"
    else
        # long AccECN flows, an option on every segment, CE every few packets
        "$B/tcpgen" prague sender "$tmp/g1.pcap" --segments 400000 --mark-p 0.2 2>/dev/null
        "$B/tcpgen" accecn sender "$tmp/g2.pcap" --segments 400000 --seed 2 2>/dev/null
        "$B/tcpgen" prague receiver "$tmp/g3.pcap" --segments 400000 --pair dualq --seed 3 2>/dev/null
        mergecap -a -F pcap -w "$real" "$tmp"/g[123].pcap 2>/dev/null ||
            cat "$tmp/g1.pcap" >"$real"
        rm -f "$tmp"/g[123].pcap
        echo "-- real captures: not found ($FIELD); a generated capture with their traits instead:"
        echo "   tcpgen Prague and AccECN senders and a DualQ pair, AccECN options on every segment, CE every few packets"
    fi
    rpk=$("$B/floor" "$real" 2>/dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { print $i; exit } }')
    if command -v editcap >/dev/null; then
        editcap -r "$real" "$rprefix" "1-$REAL_PREFIX" 2>/dev/null
    else
        cp "$real" "$rprefix"
    fi
    rppk=$("$B/floor" "$rprefix" 2>/dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { print $i; exit } }')
    echo "   $real: $rpk packets, $(du -m "$real" | cut -f1) MB; its first $rppk packets for tshark"
    cat "$real" "$rprefix" >/dev/null
    header
    for ((i = 0; i < RUNS; i++)); do
        run_once rfloor "$B/floor" "$real"
        run_once rjson "$EW" -r "$real" --json
        run_once rq "$EW" -r "$real" -q
        run_once rrep "$EW" -r "$real" -q -o "$tmp/real-report.json"
    done
    show rfloor "floor (bare pcap_next_ex loop)" "$rpk"
    rfloor_sec=$M_SEC
    rfloor_cpu=$M_CPU
    show rjson "ecnwatch --json" "$rpk"
    rew_sec=$M_SEC
    rew_cpu=$M_CPU
    show rq "ecnwatch -q (analysis, no report)" "$rpk"
    show rrep "ecnwatch -q -o report.json" "$rpk"
    rrep_sec=$M_SEC
    rrep_cpu=$M_CPU
    header
    for ((i = 0; i < RUNS; i++)); do
        run_once rpjson "$EW" -r "$rprefix" --json
        [ "$TSHARK" = 1 ] && run_once rconv tshark -r "$rprefix" -q -z conv,tcp
    done
    show rpjson "ecnwatch --json (prefix)" "$rppk"
    rpew_sec=$M_SEC
    if [ "$TSHARK" = 1 ]; then
        show rconv "tshark -q -z conv,tcp (prefix)" "$rppk"
        rconv_sec=$M_SEC
    fi
    echo
    echo "-- ratios, real captures"
    awk -v e="$rew_sec" -v f="$rfloor_sec" -v ec="$rew_cpu" -v fc="$rfloor_cpu" -v o="$rrep_sec" -v oc="$rrep_cpu" 'BEGIN {
        printf "  ecnwatch --json       at %5.1f %% of the floor'"'"'s packet rate (target >= 50 %%); by CPU time %5.1f %%\n", 100 * f / e, 100 * fc / ec
        printf "  ecnwatch -o report    at %5.1f %% of the floor'"'"'s packet rate; %.2fx its wall time, %.2fx its CPU time\n", 100 * f / o, o / f, oc / (fc > 0 ? fc : 0.01) }'
    if [ "$TSHARK" = 1 ]; then
        awk -v e="$rpew_sec" -v c="$rconv_sec" 'BEGIN {
            printf "  ecnwatch --json is %6.1fx faster than tshark -z conv,tcp (prefix; target >= 50x)\n", c / e }'
    fi
    if [ "$CALLGRIND" = 1 ]; then
        PREFIX_SAVED=$PREFIX
        PREFIX=$rppk
        instr "floor, real prefix" "$B/floor" "$rprefix"
        ri_floor=$I_PER
        instr "ecnwatch --json, real prefix" "$EW" -r "$rprefix" --json
        awk -v f="$ri_floor" -v j="$I_PER" 'BEGIN {
            printf "  by instructions: ecnwatch --json does %.2fx the floor'"'"'s work per packet of the real prefix\n", j / f }'
        PREFIX=$PREFIX_SAVED
    fi
    rm -f "$rprefix"
fi

echo
echo "-- concurrent flows: each capture holds exactly N flows, all in progress to its end,"
echo "   $SCALE_PACKETS packets; --max-flows N (no eviction); RSS per flow = peak RSS / N,"
echo "   and the increase per added flow from the row above"
printf "  %-10s %-8s %9s %8s %7s %12s %12s %10s %10s\n" "flows" "mode" "packets" "time s" "cpu s" "packets/s" "peak RSS" "B/flow" "B/added"
prev_n=""
prev_kb=""
for n in $SCALE; do
    f=$OUT/flows-$n.pcap
    "$B/benchgen" "$f" --packets "$SCALE_PACKETS" --flows "$n" --flow-len 0 2>/dev/null
    cat "$f" >/dev/null
    for mode in -q --json; do
        if [ "$mode" = --json ] && [ "$n" -gt "$SCALE_JSON_MAX" ]; then
            printf "  %-10s %-8s %s\n" "$n" "$mode" "(left out: BENCH_SCALE_JSON_MAX)"
            continue
        fi
        measure "s$n$mode" "x" "$SCALE_PACKETS" "$EW" -r "$f" "$mode" --max-flows "$n" >/dev/null
        added=""
        if [ "$mode" = -q ] && [ -n "$prev_n" ]; then
            added=$(awk -v a="$M_KB" -v b="$prev_kb" -v n="$n" -v m="$prev_n" 'BEGIN { printf "%.0f", (a - b) * 1024 / (n - m) }')
        fi
        awk -v n="$n" -v m="$mode" -v p="$SCALE_PACKETS" -v s="$M_SEC" -v c="$M_CPU" -v k="$M_KB" -v a="$added" 'BEGIN {
            printf "  %-10d %-8s %9d %8.3f %7.2f %12.0f %9.1f MB %10.0f %10s\n", n, m, p, s, c, p / s, k / 1024, k * 1024 / n, a }'
        if [ "$mode" = -q ]; then
            prev_n=$n
            prev_kb=$M_KB
        fi
    done
    # the same flows packed as idle flows could be kept (bench/statesize.c)
    "$B/statesize" "$f" "$n" >"$tmp/packed-$n" 2>&1 || echo "   statesize failed: see above" >>"$tmp/packed-$n"
    rm -f "$f"
done
echo
echo "-- a TCP flow's state today, and packed (src/flow/pack.h): the 512-byte target"
for n in $SCALE; do
    echo "  $n flows:"
    sed 's/^   /    /' "$tmp/packed-$n"
done

# RSS against packets at a fixed number of flows
n=$(echo "$SCALE" | awk '{ print $1 }')
echo
echo "-- peak RSS against packets, $n flows (-q)"
for p in $((SCALE_PACKETS / 5)) "$SCALE_PACKETS"; do
    f=$OUT/flows-$n-$p.pcap
    "$B/benchgen" "$f" --packets "$p" --flows "$n" --flow-len 0 2>/dev/null
    measure "p$p" "$n flows, $p packets" "$p" "$EW" -r "$f" -q --max-flows "$n"
    rm -f "$f"
done
