#!/usr/bin/env bash
# flood.sh ECNWATCH - bounded memory and clean stops under a flood of flows.
# `ecngen flood` (beside ECNWATCH) writes 1,000,000 TCP SYNs, each a flow of its
# own; ecnwatch reads them with --max-flows 10000. Checks: the totals and the
# evictions; peak RSS within bounds derived from --max-flows and independent
# of the packet count; SIGINT or SIGTERM mid-read still writes a complete -o
# report; a report that cannot be written leaves the old file alone and no
# temporary; 100,000 UDP flows held at once take under 512 bytes each.
# Meant for the plain build (the sanitizers inflate RSS). Prints one line per
# check and ends with "flood: N passed, N failed". FLOOD_N sets the SYN count;
# peak RSS comes from GNU time (package time), else python3 (FLOOD_NO_TIME=1).
#
# Bounds, with M = --max-flows (a TCP flow's record and inference state are
# about 1.7 KiB, its slot in the index 8 bytes; the report is written a flow
# at a time; 10 MiB is what does not depend on flows, the file reader's ring
# of 4,096 frames and the 2 MiB buffer of their copies, about 3 MiB, among it):
#   reading alone (-q, no report):   10 MiB + M * 2 KiB
#   reading and writing the report:  10 MiB + M * 48 KiB
#   1,000,000 SYNs vs 2 * M SYNs:    at most 10% + 4 MiB more
set -u
EW=$1
GEN=$(dirname "$EW")/ecngen
N=${FLOOD_N:-1000000}
M=10000
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); echo "ok   $1"; }
# true when a temporary report (NAME.tmp.XXXXXX) was left in $tmp
leftover() { compgen -G "$tmp/*.tmp.*" >/dev/null; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# rss_run ARGS...: run ecnwatch, set $st (exit status) and $rss (peak KiB)
if [ -x /usr/bin/time ] && [ -z "${FLOOD_NO_TIME:-}" ]; then
    rss_run() {
        /usr/bin/time -f '%M' -o "$tmp/rss" "$EW" "$@" >/dev/null 2>"$tmp/err"
        st=$?
        rss=$(tail -1 "$tmp/rss")
    }
elif command -v python3 >/dev/null; then
    rss_run() {
        local r
        r=$(python3 -c 'import resource, subprocess, sys
with open(sys.argv[1], "w") as err:
    st = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=err).returncode
print(st, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$tmp/err" "$EW" "$@")
        st=${r% *}
        rss=${r#* }
    }
else
    rss_run() {
        "$EW" "$@" >/dev/null 2>"$tmp/err"
        st=$?
        rss=""
    }
fi

# seconds since START (an $EPOCHREALTIME)
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }

# within NAME KIB BOUND-KIB
within() {
    if [ -z "$2" ]; then
        bad "$1: no way to measure peak RSS (install the package 'time')"
    elif [ "$2" -le "$3" ]; then
        ok "$1: peak RSS $(($2 / 1024)) MiB, bound $(($3 / 1024)) MiB"
    else
        bad "$1: peak RSS $(($2 / 1024)) MiB over the bound $(($3 / 1024)) MiB"
    fi
}

t0=$EPOCHREALTIME
if "$GEN" flood "$tmp/flood.pcap" "$N" && [ "$(stat -c %s "$tmp/flood.pcap")" = $((24 + N * 70)) ]; then
    ok "ecngen flood: $N SYNs in $(since "$t0") s"
else
    bad "ecngen flood: $N SYNs"
    echo "flood: $pass passed, $fail failed"
    exit 1
fi

# reading alone
rss_run -r "$tmp/flood.pcap" --max-flows $M -q
[ $st = 0 ] || bad "reading $N SYNs: exit $st: $(head -c 200 "$tmp/err")"
within "reading $N SYNs into $M flows" "$rss" $((10 * 1024 + M * 2))

# the whole report
t0=$EPOCHREALTIME
rss_run -r "$tmp/flood.pcap" --max-flows $M -q -o "$tmp/report.json"
secs=$(since "$t0")
full=$rss
if [ $st = 0 ] && jq -e --argjson n "$N" --argjson m $M '.totals.frames == $n and .totals.flows == $n and
        .totals.flows_evicted == $n - $m and .totals.flows_reported == $m and (.flows | length) == $m and
        .source.truncated == false and .source.interrupted == false' "$tmp/report.json" >/dev/null; then
    ok "report of $N SYNs: $N flows, $((N - M)) evicted, $M listed ($secs s)"
else
    bad "report of $N SYNs (exit $st): $(jq -c '.totals | del(.ecn, .events)' "$tmp/report.json" 2>&1 | head -c 300)"
fi
within "reading $N SYNs and writing the report of $M flows" "$full" $((10 * 1024 + M * 48))

# memory does not grow with the packets once the table is full
rss_run -r "$tmp/flood.pcap" --max-flows $M -q -c $((2 * M)) -o "$tmp/small.json"
if [ -n "$full" ] && [ -n "$rss" ] && [ "$full" -le $((rss * 110 / 100 + 4096)) ]; then
    ok "peak RSS for $N SYNs ($((full / 1024)) MiB) as for $((2 * M)) ($((rss / 1024)) MiB)"
else
    bad "peak RSS for $N SYNs (${full:-?} KiB) against $((2 * M)) SYNs (${rss:-?} KiB)"
fi

# a signal mid-read (once a few MB are read, while most of the file is left)
# still writes a complete report, marked interrupted
stop_mid_read() {
    local sig=$1 pid st sent=no r
    rm -f "$tmp/int.json"
    "$EW" -r "$tmp/flood.pcap" --max-flows $M -q -o "$tmp/int.json" 2>"$tmp/int.err" &
    pid=$!
    for _ in $(seq 1 1000); do
        r=$(awk '/^rchar:/ { print $2 }' "/proc/$pid/io" 2>/dev/null)
        [ -z "$r" ] && break
        if [ "$r" -ge 5000000 ]; then
            kill -"$sig" $pid && sent=yes
            break
        fi
        sleep 0.01
    done
    wait $pid
    st=$?
    if [ $sent = no ]; then
        bad "SIG$sig mid-read: ecnwatch ended (exit $st) before it could be stopped"
    elif [ $st = 0 ] && jq -e --argjson n "$N" '.source.interrupted == true and .totals.frames > 0 and
            .totals.frames < $n' "$tmp/int.json" >/dev/null 2>&1 &&
            grep -q "interrupted after" "$tmp/int.err" && ! leftover; then
        ok "SIG$sig mid-read: complete report, interrupted after $(jq .totals.frames "$tmp/int.json") frames"
    else
        bad "SIG$sig mid-read: exit $st, $(head -c 200 "$tmp/int.err")"
    fi
}
stop_mid_read INT
stop_mid_read TERM

# a report that cannot be written (the file size limit) leaves the old file
# and no temporary beside it
echo '{"old": true}' >"$tmp/keep.json"
(
    trap '' XFSZ
    ulimit -f 16
    exec "$EW" -r "$tmp/flood.pcap" --max-flows $M -q -c $((2 * M)) -o "$tmp/keep.json"
) 2>"$tmp/err"
st=$?
if [ $st = 4 ] && [ "$(cat "$tmp/keep.json")" = '{"old": true}' ] && ! leftover &&
    grep -q "cannot write the report" "$tmp/err"; then
    ok "failed write -> 4, old file intact, no temporary left"
else
    bad "failed write: exit $st, $(head -c 200 "$tmp/err"), left: $(ls "$tmp" | tr '\n' ' ')"
fi

# flows that are not TCP carry no TCP inference state: 100,000 UDP flows held
# at once fit in 512 bytes each: record, index and links (a TCP flow takes about 1.7 KB)
U=100000
if "$GEN" flood "$tmp/udp.pcap" $U udp; then
    rss_run -r "$tmp/udp.pcap" --max-flows $U -q -o "$tmp/udp.json"
    if [ $st = 0 ] && jq -e --argjson u $U '.totals.flows == $u and .totals.flows_evicted == 0' \
            "$tmp/udp.json" >/dev/null; then
        within "holding $U UDP flows" "$rss" $((10 * 1024 + U * 512 / 1024))
    else
        bad "holding $U UDP flows: exit $st"
    fi
else
    bad "ecngen flood $U udp"
fi

echo "flood: $pass passed, $fail failed"
[ $fail = 0 ]
