#!/usr/bin/env bash
# threads.sh BUILD - the paths that use two threads, under ThreadSanitizer:
# a capture file read by the reader thread while the main thread accounts,
# and a report of many flows written by two threads. Builds build/tsan (make
# TSAN=1) and runs it on a capture of some 3,000 flows and 20,000 frames (the
# reader's ring goes round), in the modes that take both threads, with -c, a
# report that cannot be written, and SIGINT mid-read. Each run must end with
# the expected status, no ThreadSanitizer report, and (where it completes)
# the same bytes as the plain build in BUILD. Also the reader's unit suite.
# Ends with "threads: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
PLAIN=$1
TS=build/tsan
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ECNWATCH_HASH_SEED=1 TZ=UTC LC_ALL=C
# reports go to stderr; ASLR off, which some kernels' mappings need for TSan
export TSAN_OPTIONS="halt_on_error=0 exitcode=66 report_signal_unsafe=0"
norand() { setarch "$(uname -m)" -R "$@"; }

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
# the first ThreadSanitizer report in FILE, on one line
tsan_said() { grep -m1 -A3 'WARNING: ThreadSanitizer' "$1" | tr '\n' ' ' | head -c 400; }

if ! make --no-print-directory TSAN=1 "$TS/ecnwatch" "$TS/run_tests" >"$tmp/build.log" 2>&1; then
    bad "make TSAN=1: $(grep -m1 -E 'error|cannot' "$tmp/build.log")"
    echo "threads: $pass passed, $fail failed"
    exit 1
fi
ok "make TSAN=1"

# 3,000 single-SYN flows and every bundled capture's traffic, as one pcap
"$PLAIN/ecngen" flood "$tmp/syns.pcap" 3000 >/dev/null 2>&1
mergecap -F pcap -w "$tmp/many.pcap" "$tmp/syns.pcap" captures/rfc3168-ce-server.pcap \
    captures/accecn-l4s-client.pcap captures/shared-dualq-client.pcap captures/udp-ect-client.pcap
frames=$("$PLAIN/ecnwatch" -r "$tmp/many.pcap" --json | jq '.totals.frames')
[ "${frames:-0}" -gt 10000 ] && ok "test capture: $frames frames" || bad "test capture: ${frames:-no} frames"

# run NAME WANT-STATUS ECNWATCH-ARGS...: under TSan, the status and no report;
# when the run writes to standard output, its bytes equal the plain build's
run() {
    local name=$1 want=$2 st
    shift 2
    norand "$TS/ecnwatch" "$@" >"$tmp/t.out" 2>"$tmp/t.err"
    st=$?
    if grep -q "ThreadSanitizer" "$tmp/t.err"; then
        bad "$name: $(tsan_said "$tmp/t.err")"
        return
    fi
    if [ $st != "$want" ]; then
        bad "$name: exit $st, want $want ($(head -c 200 "$tmp/t.err"))"
        return
    fi
    if [ "$want" = 0 ]; then
        "$PLAIN/ecnwatch" "$@" >"$tmp/p.out" 2>/dev/null
        if ! cmp -s "$tmp/t.out" "$tmp/p.out"; then
            bad "$name: output differs from the plain build's"
            return
        fi
    fi
    ok "$name"
}

run "-q" 0 -r "$tmp/many.pcap" -q
run "--json" 0 -r "$tmp/many.pcap" --json
run "--json --timeseries" 0 -r "$tmp/many.pcap" --json --timeseries
run "--ndjson" 0 -r "$tmp/many.pcap" --ndjson
run "-c 5000 --json" 0 -r "$tmp/many.pcap" -c 5000 --json
run "--max-flows 100 --json" 0 -r "$tmp/many.pcap" --max-flows 100 --json
# flows beyond the hot set packed: the report's two threads unpack them at once
run "--hot-flows 100 --json" 0 -r "$tmp/many.pcap" --hot-flows 100 --json
run "-o" 0 -r "$tmp/many.pcap" -q -o "$tmp/report.json"
if [ -w /dev/full ]; then
    norand "$TS/ecnwatch" -r "$tmp/many.pcap" --json >/dev/full 2>"$tmp/full.err"
    st=$?
    if grep -q ThreadSanitizer "$tmp/full.err"; then
        bad "report to a full device: $(tsan_said "$tmp/full.err")"
    elif [ $st = 4 ]; then
        ok "report to a full device -> 4"
    else
        bad "report to a full device: exit $st"
    fi
fi

# SIGINT while the reader thread is reading (a file of the capture 20 times over)
for i in $(seq 20); do echo "$tmp/many.pcap"; done | xargs mergecap -F pcap -a -w "$tmp/long.pcap"
# setarch execs ecnwatch: $! is its process, not a subshell's
setarch "$(uname -m)" -R "$TS/ecnwatch" -r "$tmp/long.pcap" -q -o "$tmp/int.json" 2>"$tmp/int.err" &
pid=$!
sent=no
for _ in $(seq 1 2000); do # once 4 MB are read, while most of the file is left
    r=$(awk '/^rchar:/ { print $2 }' "/proc/$pid/io" 2>/dev/null)
    [ -z "$r" ] && break
    if [ "$r" -ge 4000000 ]; then
        kill -INT $pid && sent=yes
        break
    fi
    sleep 0.005
done
wait $pid
st=$?
if grep -q ThreadSanitizer "$tmp/int.err"; then
    bad "SIGINT mid-read: $(tsan_said "$tmp/int.err")"
elif [ $sent = no ]; then
    bad "SIGINT mid-read: ecnwatch ended (exit $st) before it could be stopped"
elif [ $st = 0 ] && jq -e '.source.interrupted == true and .totals.frames > 0' "$tmp/int.json" >/dev/null 2>&1; then
    ok "SIGINT mid-read: exit 0, interrupted after $(jq .totals.frames "$tmp/int.json") frames"
else
    bad "SIGINT mid-read: exit $st, $(head -c 200 "$tmp/int.err")"
fi

# the reader's unit suite
norand "$TS/run_tests" >"$tmp/unit.out" 2>&1
st=$?
out=$(cat "$tmp/unit.out")
if grep -q ThreadSanitizer "$tmp/unit.out"; then
    bad "unit tests: $(tsan_said "$tmp/unit.out")"
elif [ $st = 0 ] && echo "$out" | grep -q "Suite: reader"; then
    ok "unit tests ($(echo "$out" | awk '$1 == "tests" { print $3 }') tests)"
else
    bad "unit tests: exit $st"
fi

echo "threads: $pass passed, $fail failed"
[ $fail = 0 ]
