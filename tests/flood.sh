#!/usr/bin/env bash
# flood.sh BUILD - bounded memory and clean stops under a flood of flows.
# `ecngen flood` (beside ECNWATCH) writes 1,000,000 TCP SYNs, each a flow of its
# own; ecnwatch reads them with --max-flows 10000. Checks: the totals and the
# evictions; peak RSS within bounds derived from --max-flows and independent
# of the packet count; SIGINT or SIGTERM mid-read still writes a complete -o
# report; a report that cannot be written leaves the old file alone and no
# temporary; 100,000 UDP flows held at once take under 512 bytes each.
# Meant for the plain build (the sanitizers inflate RSS). Prints one line per
# check and ends with "flood: N passed, N failed". FLOOD_N sets the SYN count;
# peak RSS comes from GNU time (package time), else python3 (FLOOD_NO_TIME=1).
# A memory bound is met only by a run that exited 0 with the report asked for.
#
# Bounds, with M = --max-flows (a TCP flow's record and inference state are
# about 2.6 KiB, bench/statesize: record 344 + inference state 2336 bytes,
# of which the two TCP timestamp loops of the path diagnosis, 8 pending
# TSvals a direction, are some 300; its slot in the index 8 bytes; the report
# is written a flow at a time). What does not depend on flows is measured,
# the same capture read with --max-flows 16 (BASE): the libraries mapped
# (libpcap, libcrypto, ncurses, jansson), the file reader's ring of 4,096
# frames and the 2 MiB buffer of their copies; it is bounded too, so that
# the flows' bounds cannot hide in it:
#   what does not depend on flows:   BASE at most 16 MiB
#   reading alone (-q, no report):   BASE + M * 3 KiB (2.8 KiB with entry, index
#                                    and links, and allocator slack)
#   reading and writing the report:  BASE + M * 48 KiB
#   1,000,000 SYNs vs 2 * M SYNs:    at most 10% + 4 MiB more
. "$(dirname "$0")/lib.sh"
GEN=$(dirname "$EW")/ecngen
N=${FLOOD_N:-1000000}
M=10000

# true when a temporary report (a named temporary file: .ecnwatch.XXXXXX or
# .ecnwatch-PID-N.tmp, or the older NAME.tmp.XXXXXX) was left in $tmp
leftover() { compgen -G "$tmp/*.tmp.*" >/dev/null || compgen -G "$tmp/.ecnwatch*" >/dev/null; }

# rss_run ARGS...: run ecnwatch (bounded), set $st (exit status) and $rss (peak KiB)
if [ -x /usr/bin/time ] && [ -z "${FLOOD_NO_TIME:-}" ]; then
    rss_run() {
        rm -f "$tmp/rss"
        bounded "$EW_CMD_TIMEOUT" /usr/bin/time -f '%M' -o "$tmp/rss" "$EW" "$@" >/dev/null 2>"$tmp/err"
        st=$?
        rss=$(tail -1 "$tmp/rss" 2>/dev/null)
        [[ $rss =~ ^[0-9]+$ ]] || rss=""
    }
elif command -v python3 >/dev/null; then
    rss_run() {
        local r
        r=$(bounded "$EW_CMD_TIMEOUT" python3 -c 'import resource, subprocess, sys
with open(sys.argv[1], "w") as err:
    st = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=err).returncode
print(st, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$tmp/err" "$EW" "$@")
        st=$?
        if [ $st = 0 ] && [ -n "$r" ]; then
            st=${r% *}
            rss=${r#* }
        else
            rss=""
        fi
    }
else
    rss_run() {
        bounded "$EW_CMD_TIMEOUT" "$EW" "$@" >/dev/null 2>"$tmp/err"
        st=$?
        rss=""
    }
fi
# ran NAME: the last rss_run exited 0 (else why says how it ended)
ran() {
    [ "$st" = 0 ] && return 0
    if [ "$st" = 124 ] || [ "$st" = 137 ]; then
        why="$1: timed out after $EW_CMD_TIMEOUT s"
    else
        why="$1: exit $st, want 0 ($(head -c 200 "$tmp/err" | tr '\n' ' '))"
    fi
    return 1
}

# read_all NAME PROM: the run's metrics file counts every frame (the
# reading was done, not skipped)
read_all() {
    local v
    v=$(awk '$1 == "ecnwatch_frames_total" { print $2 }' "$2" 2>/dev/null)
    [ "${v%%.*}" = "$N" ] && return 0
    why="$1: ecnwatch_frames_total is '${v}', want $N"
    return 1
}

# seconds since START (an $EPOCHREALTIME)
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }

# within NAME KIB BOUND-KIB: a measured peak RSS within its bound
within() {
    if [ -z "$2" ]; then
        bad "$1: no way to measure peak RSS (install the package 'time')"
    elif [ "$2" -le "$3" ]; then
        ok "$1: peak RSS $(($2 / 1024)) MiB, bound $(($3 / 1024)) MiB"
    else
        bad "$1: peak RSS $(($2 / 1024)) MiB over the bound $(($3 / 1024)) MiB"
    fi
}

# the capture (a precondition: not a check of ecnwatch, its failure ends the suite)
t0=$EPOCHREALTIME
begin "ecngen flood $N"
if bounded "$EW_CMD_TIMEOUT" "$GEN" flood "$tmp/flood.pcap" "$N" >/dev/null 2>"$tmp/gen.err" &&
    [ "$(stat -c %s "$tmp/flood.pcap")" = $((24 + N * 70)) ]; then
    echo "--   ecngen flood: $N SYNs in $(since "$t0") s"
else
    bad "ecngen flood: $N SYNs: $(head -c 200 "$tmp/gen.err")"
    finish flood
    exit 1
fi

# what does not depend on flows: the same capture into 16 flows
name="reading $N SYNs into 16 flows (what does not depend on flows)"
begin "$name"
rss_run -r "$tmp/flood.pcap" --max-flows 16 -q --metrics-file "$tmp/m16.prom"
base=
if ran "$name" && read_all "$name" "$tmp/m16.prom"; then
    within "$name" "$rss" $((16 * 1024))
    base=$rss
else
    bad "$why"
fi
base=${base:-$((16 * 1024))}

# reading alone
name="reading $N SYNs into $M flows"
begin "$name"
rss_run -r "$tmp/flood.pcap" --max-flows $M -q --metrics-file "$tmp/m.prom"
if ran "$name" && read_all "$name" "$tmp/m.prom"; then
    within "$name" "$rss" $((base + M * 3))
else
    bad "$why"
fi

# the whole report
name="report of $N SYNs"
begin "$name"
t0=$EPOCHREALTIME
rm -f "$tmp/report.json"
rss_run -r "$tmp/flood.pcap" --max-flows $M -q -o "$tmp/report.json"
secs=$(since "$t0")
full=$rss
full_ok=no
if ran "$name" && jq_true "$tmp/report.json" '.totals.frames == $n and .totals.flows == $n and
        .totals.flows_evicted == $n - $m and .totals.flows_reported == $m and (.flows | length) == $m and
        .source.truncated == false and .source.interrupted == false' --argjson n "$N" --argjson m $M; then
    full_ok=yes
    ok "report of $N SYNs: $N flows, $((N - M)) evicted, $M listed ($secs s)"
else
    bad "report of $N SYNs: $why; totals: $(jq -c '.totals | del(.ecn, .events)' "$tmp/report.json" 2>&1 | head -c 300)"
fi
name="reading $N SYNs and writing the report of $M flows"
begin "$name"
if [ $full_ok = yes ]; then
    within "$name" "$full" $((base + M * 48))
else
    bad "$name: no complete report to measure (above)"
fi

# memory does not grow with the packets once the table is full
name="peak RSS for $N SYNs as for $((2 * M))"
begin "$name"
rm -f "$tmp/small.json"
rss_run -r "$tmp/flood.pcap" --max-flows $M -q -c $((2 * M)) -o "$tmp/small.json"
if [ $full_ok != yes ]; then
    bad "$name: no complete report of $N SYNs (above)"
elif ! ran "$name (-c $((2 * M)))" || ! jq_true "$tmp/small.json" \
        '.totals.frames == $c and .totals.flows == $c and .totals.flows_reported == $m' \
        --argjson c $((2 * M)) --argjson m $M; then
    bad "$name: the run of $((2 * M)) SYNs: $why"
elif [ -n "$full" ] && [ -n "$rss" ] && [ "$full" -le $((rss * 110 / 100 + 4096)) ]; then
    ok "peak RSS for $N SYNs ($((full / 1024)) MiB) as for $((2 * M)) ($((rss / 1024)) MiB)"
else
    bad "peak RSS for $N SYNs (${full:-?} KiB) against $((2 * M)) SYNs (${rss:-?} KiB)"
fi

# a signal mid-read (once a few MB are read, while most of the file is left)
# still writes a complete report, marked interrupted
stop_mid_read() {
    local sig=$1 pid st sent=no r
    begin "SIG$sig mid-read"
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
    if ! wait_bounded "$EW_CMD_TIMEOUT" $pid; then
        bad "SIG$sig mid-read: ecnwatch $why (sent: $sent)"
        return
    fi
    wait $pid
    st=$?
    why=""
    if [ $sent = no ]; then
        bad "SIG$sig mid-read: ecnwatch ended (exit $st) before it could be stopped: $(head -c 200 "$tmp/int.err")"
    elif [ $st = 0 ] && jq_true "$tmp/int.json" '.source.interrupted == true and .totals.frames > 0 and
            .totals.frames < $n' --argjson n "$N" &&
            grep -q "interrupted after" "$tmp/int.err" && ! leftover; then
        ok "SIG$sig mid-read: complete report, interrupted after $(jq .totals.frames "$tmp/int.json") frames"
    else
        bad "SIG$sig mid-read: exit $st, ${why:+$why, }$(head -c 200 "$tmp/int.err")$(leftover && echo ", a temporary left")"
    fi
}
stop_mid_read INT
stop_mid_read TERM

# a report that cannot be written (the file size limit) leaves the old file
# and no temporary beside it
begin "failed write"
echo '{"old": true}' >"$tmp/keep.json"
(
    trap '' XFSZ
    ulimit -f 16
    exec timeout -k 5 "$EW_CMD_TIMEOUT" "$EW" -r "$tmp/flood.pcap" --max-flows $M -q -c $((2 * M)) -o "$tmp/keep.json"
) 2>"$tmp/err"
st=$?
if [ $st = 4 ] && [ "$(cat "$tmp/keep.json")" = '{"old": true}' ] && ! leftover &&
    grep -q "cannot write the report" "$tmp/err"; then
    ok "failed write -> 4, old file intact, no temporary left"
else
    bad "failed write: exit $st, want 4, $(head -c 200 "$tmp/err"), left: $(ls "$tmp" | tr '\n' ' ')"
fi

# Output volume: the NDJSON stream of the SYN flood summarises its one-packet
# flows (nothing of interest: Not-ECT, no ECN asked for, no finding) in a
# count, however they end: evicted from the full table, or held to the
# capture's end; the stream is then a few hundred bytes for a capture of
# megabytes
name="--ndjson of $N SYNs through $M flows"
begin "$name"
if run_ew 0 "$tmp/flood.ndjson" "$tmp/nd.err" "$EW" -r "$tmp/flood.pcap" --max-flows $M --ndjson &&
    jq_true "$tmp/flood.ndjson" '(map(select(.event == "flow_end")) | length == 0)
        and .[-1].event == "summary" and .[-1].flow_ends_summarised == $n
        and .[-1].totals.flows_evicted == $n - $m' -s --argjson n "$N" --argjson m $M &&
    [ "$(stat -c %s "$tmp/flood.ndjson")" -lt 65536 ]; then
    ok "$name: no flow_end, $N summarised, $(stat -c %s "$tmp/flood.ndjson") bytes"
else
    bad "$name: $why ($(stat -c %s "$tmp/flood.ndjson" 2>/dev/null) bytes)"
fi
rm -f "$tmp/flood.ndjson"
# the same for flows that end idle: 20,000 SYNs 2 s apart (1.4 MB), each
# flow over after 1 s of packet time (that wrote 44.6 MB, 32 times the
# capture); now within the capture's size
S=20000
name="--ndjson of $S SYNs that each end idle"
begin "$name"
if ! bounded "$EW_CMD_TIMEOUT" "$GEN" flood "$tmp/spread.pcap" $S spread >/dev/null 2>"$tmp/gen.err"; then
    bad "ecngen flood $S spread: $(head -c 200 "$tmp/gen.err")"
elif run_ew 0 "$tmp/spread.ndjson" "$tmp/nd.err" "$EW" -r "$tmp/spread.pcap" --idle-timeout 1 --ndjson &&
    jq_true "$tmp/spread.ndjson" '(map(select(.event == "flow_end")) | length == 0)
        and .[-1].event == "summary" and .[-1].flow_ends_summarised == $s
        and .[-1].totals.flows == $s' -s --argjson s $S &&
    [ "$(stat -c %s "$tmp/spread.ndjson")" -lt "$(stat -c %s "$tmp/spread.pcap")" ]; then
    ok "$name: $(stat -c %s "$tmp/spread.ndjson") bytes for a capture of $(stat -c %s "$tmp/spread.pcap")"
else
    bad "$name: $why ($(stat -c %s "$tmp/spread.ndjson" 2>/dev/null) bytes)"
fi
rm -f "$tmp/spread.ndjson" "$tmp/spread.pcap"
# flows of interest keep their events: ECN-setup SYNs sent ECT(0) (a
# finding each), and --max-output bounds the stream
if ! bounded "$EW_CMD_TIMEOUT" "$GEN" flood "$tmp/ecnflood.pcap" $M ecn >/dev/null 2>"$tmp/gen.err"; then
    bad "ecngen flood $M ecn: $(head -c 200 "$tmp/gen.err")"
fi
name="--ndjson of $M ECN-setup SYNs: a flow_end each"
begin "$name"
if run_ew 0 "$tmp/ecn.ndjson" "$tmp/nd.err" "$EW" -r "$tmp/ecnflood.pcap" --ndjson &&
    jq_true "$tmp/ecn.ndjson" '(map(select(.event == "flow_end")) | length == $m)
        and .[-1].flow_ends_summarised == 0' -s --argjson m $M; then
    ok "$name"
else
    bad "$name: $why"
fi
rm -f "$tmp/ecn.ndjson"
name="--max-output 64k on a stream of flows of interest"
begin "$name"
if run_ew 0 "$tmp/cap.ndjson" "$tmp/nd.err" "$EW" -r "$tmp/ecnflood.pcap" --ndjson --max-output 64k &&
    [ "$(stat -c %s "$tmp/cap.ndjson")" -lt $((64 * 1024 + 16384)) ] &&
    jq_true "$tmp/cap.ndjson" '.[-1].event == "summary" and .[-1].events_dropped > 0
        and (.[:-1] | length) + .[-1].events_dropped == 2 * $m' -s --argjson m $M; then
    ok "$name: $(stat -c %s "$tmp/cap.ndjson") bytes, the summary counts what was left out"
else
    bad "$name: $why ($(stat -c %s "$tmp/cap.ndjson" 2>/dev/null) bytes)"
fi
rm -f "$tmp/ecnflood.pcap" "$tmp/cap.ndjson"

# flows that are not TCP carry no TCP inference state: 100,000 UDP flows held
# at once fit in 512 bytes each: record, index and links (a TCP flow takes about 2.2 KB)
U=100000
name="holding $U UDP flows"
begin "$name"
if ! bounded "$EW_CMD_TIMEOUT" "$GEN" flood "$tmp/udp.pcap" $U udp >/dev/null 2>"$tmp/gen.err"; then
    bad "ecngen flood $U udp: $(head -c 200 "$tmp/gen.err")"
else
    rss_run -r "$tmp/udp.pcap" --max-flows $U -q -o "$tmp/udp.json"
    if ran "$name" && jq_true "$tmp/udp.json" '.totals.flows == $u and .totals.flows_evicted == 0' --argjson u $U; then
        within "$name" "$rss" $((10 * 1024 + U * 512 / 1024))
    else
        bad "$name: $why"
    fi
fi

finish flood
