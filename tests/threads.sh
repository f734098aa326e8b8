#!/usr/bin/env bash
# threads.sh BUILD [TSAN-BUILD] - the paths that use two threads, under
# ThreadSanitizer: a capture file read by the reader thread while the main
# thread accounts, and a report of many flows written by two threads. Builds
# build/tsan (make TSAN=1), or takes the ThreadSanitizer build already in
# TSAN-BUILD (its ecnwatch and run_tests), and runs it on a capture of some
# 3,000 flows and 20,000 frames (the reader's ring goes round), in the modes
# that take both threads, with -c, a report that cannot be written, and SIGINT
# mid-read, switching between one thread and two every few frames
# (ECNWATCH_READ_SWITCH), and one way to the end (ECNWATCH_READ_THREADS). Each run must end with the expected status, no ThreadSanitizer
# report, and (where it completes) the same bytes as the plain build in BUILD.
# Also the reader's unit suite, beside a TSan ecnwatch that runs.
# Ends with "threads: N passed, N failed".
. "$(dirname "$0")/lib.sh"
PLAIN=$(cd "$BUILD" && pwd)
TS=${2:+$(abs "$2")}
# reports go to stderr; ASLR off, which some kernels' mappings need for TSan
export TSAN_OPTIONS="halt_on_error=0 exitcode=66 report_signal_unsafe=0"
NORAND=(setarch "$(uname -m)" -R)

# the first ThreadSanitizer report in FILE, on one line
tsan_said() { grep -m1 -A3 'WARNING: ThreadSanitizer' "$1" | tr '\n' ' ' | head -c 400; }

if [ -z "$TS" ]; then
    TS=build/tsan
    begin "make TSAN=1"
    if ! bounded 1500 make --no-print-directory -j"$(nproc)" TSAN=1 "$TS/ecnwatch" "$TS/run_tests" \
        >"$tmp/build.log" 2>&1; then
        bad "make TSAN=1: $(grep -m1 -E 'error|cannot|Terminated' "$tmp/build.log")"
        finish threads
        exit 1
    fi
    ok "make TSAN=1"
fi

# the TSan build: its ecnwatch runs (-V), and both binaries carry ThreadSanitizer
tsan_build() {
    local b
    run_ew 0 "$tmp/v.out" "$tmp/v.err" "${NORAND[@]}" "$TS/ecnwatch" -V || {
        why="$TS/ecnwatch -V: $why"
        return 1
    }
    if ! [[ $(head -1 "$tmp/v.out") =~ ^ecnwatch\ [0-9]+\.[0-9]+ ]]; then
        why="$TS/ecnwatch -V printed '$(head -c 100 "$tmp/v.out")'"
        return 1
    fi
    for b in ecnwatch run_tests; do
        if ! grep -qa __tsan_init "$TS/$b" 2>/dev/null; then
            why="$TS/$b is not built with ThreadSanitizer"
            return 1
        fi
    done
}
check "TSan build: ecnwatch -V runs, ecnwatch and run_tests instrumented" tsan_build
tsan_ok=$([ -z "$why" ] && echo yes || echo "$why")

# 3,000 single-SYN flows and every bundled capture's traffic, as one pcap
# (a precondition: not counted, its failure ends the suite)
begin "the test capture"
if ! bounded 120 "$PLAIN/ecngen" flood "$tmp/syns.pcap" 3000 >/dev/null 2>"$tmp/gen.err" ||
    ! bounded 120 mergecap -F pcap -w "$tmp/many.pcap" "$tmp/syns.pcap" captures/rfc3168-ce-server.pcap \
        captures/accecn-l4s-client.pcap captures/shared-dualq-client.pcap \
        captures/udp-ect-client.pcap 2>>"$tmp/gen.err"; then
    bad "the test capture (ecngen flood, mergecap): $(head -c 200 "$tmp/gen.err")"
    finish threads
    exit 1
fi
capture() {
    local frames
    ew_json "$tmp/plain.json" -r "$tmp/many.pcap" --json || return 1
    frames=$(jq_get "$tmp/plain.json" '.totals.frames') || return 1
    if [ "$frames" -gt 10000 ] 2>/dev/null; then
        why="$frames frames"
        return 0
    fi
    why="$frames frames, want more than 10000"
    return 1
}
EW=$PLAIN/ecnwatch
begin "test capture"
if capture; then ok "test capture: $why"; else bad "test capture: $why"; fi

# run NAME WANT-STATUS OUTPUT ECNWATCH-ARGS...: under TSan, the status and no
# report; when the run completes, its standard output (OUTPUT: json, ndjson or
# none) equals the plain build's, and is what OUTPUT says
run() {
    local name=$1 want=$2 kind=$3
    shift 3
    begin "$name"
    run_ew "$want" "$tmp/t.out" "$tmp/t.err" "${NORAND[@]}" "$TS/ecnwatch" "$@"
    local r=$?
    if grep -q "ThreadSanitizer" "$tmp/t.err"; then
        bad "$name: $(tsan_said "$tmp/t.err")"
        return
    fi
    if [ $r != 0 ]; then
        bad "$name: $why"
        return
    fi
    if [ "$want" = 0 ]; then
        case $kind in
            json | ndjson)
                if ! json_ok "$tmp/t.out"; then
                    bad "$name: $why"
                    return
                fi ;;
            none | file:*)
                if [ -s "$tmp/t.out" ]; then
                    bad "$name: wrote to standard output: $(head -c 100 "$tmp/t.out")"
                    return
                fi ;;
        esac
        # file:PATH: the run wrote PATH instead
        if [ "${kind#file:}" != "$kind" ] && ! [ -s "${kind#file:}" ]; then
            bad "$name: ${kind#file:} not written"
            return
        fi
        if ! run_ew 0 "$tmp/p.out" "$tmp/p.err" "$PLAIN/ecnwatch" "$@"; then
            bad "$name: the plain build: $why"
            return
        fi
        if ! cmp -s "$tmp/t.out" "$tmp/p.out"; then
            bad "$name: output differs from the plain build's"
            return
        fi
    fi
    ok "$name"
}

run "-q" 0 "file:$tmp/q.csv" -r "$tmp/many.pcap" -q --csv "$tmp/q.csv"
run "--json" 0 json -r "$tmp/many.pcap" --json
run "--json --timeseries" 0 json -r "$tmp/many.pcap" --json --timeseries
run "--ndjson" 0 ndjson -r "$tmp/many.pcap" --ndjson
run "-c 5000 --json" 0 json -r "$tmp/many.pcap" -c 5000 --json
run "--max-flows 100 --json" 0 json -r "$tmp/many.pcap" --max-flows 100 --json
# flows beyond the hot set packed: the report's two threads unpack them at once
run "--hot-flows 100 --json" 0 json -r "$tmp/many.pcap" --hot-flows 100 --json
# the capture taken back from the reader thread and given to it again every
# N frames (ECNWATCH_READ_SWITCH), or read one way to the end
# (ECNWATCH_READ_THREADS): the same bytes as the plain build's unswitched run
for way in SWITCH=1 SWITCH=999 SWITCH=4096 THREADS=1 THREADS=2; do
    case $way in
    SWITCH=*) what="one thread and two in turn every ${way#*=} frames" ;;
    *) what="${way#*=} thread(s) to the end" ;;
    esac
    export "ECNWATCH_READ_$way"
    run "--json, $what" 0 json -r "$tmp/many.pcap" --json
    unset "ECNWATCH_READ_${way%%=*}"
    begin "$what: the report"
    if json_ok "$tmp/t.out" && cmp -s "$tmp/t.out" "$tmp/plain.json"; then
        ok "$what: the report equals the plain build's unswitched --json"
    else
        bad "$what: the report differs from the plain build's unswitched --json"
    fi
done
ECNWATCH_READ_SWITCH=999 run "-c 5000 --json, switching every 999 frames" 0 json \
    -r "$tmp/many.pcap" -c 5000 --json
# the report written with -o: the same bytes as the plain build's --json
rm -f "$tmp/report.json"
run "-o" 0 "file:$tmp/report.json" -r "$tmp/many.pcap" -q -o "$tmp/report.json"
begin "-o: the report"
why=""
if json_ok "$tmp/report.json" && cmp -s "$tmp/report.json" "$tmp/plain.json"; then
    ok "-o: the report equals the plain build's --json"
else
    bad "-o: the report: ${why:-not the bytes of the plain build --json}"
fi
if [ -w /dev/full ]; then
    begin "report to a full device"
    run_ew 4 /dev/full "$tmp/full.err" "${NORAND[@]}" "$TS/ecnwatch" -r "$tmp/many.pcap" --json
    r=$?
    if grep -q ThreadSanitizer "$tmp/full.err"; then
        bad "report to a full device: $(tsan_said "$tmp/full.err")"
    elif [ $r != 0 ]; then
        bad "report to a full device: $why"
    elif ! grep -q "cannot write the report" "$tmp/full.err"; then
        bad "report to a full device: exit 4 without 'cannot write the report': $(head -c 200 "$tmp/full.err")"
    else
        ok "report to a full device -> 4"
    fi
fi

# SIGINT while the reader thread is reading (a file of the capture 20 times over)
begin "SIGINT mid-read"
if ! for i in $(seq 20); do echo "$tmp/many.pcap"; done |
    bounded 120 xargs mergecap -F pcap -a -w "$tmp/long.pcap" 2>"$tmp/gen.err"; then
    bad "SIGINT mid-read: mergecap -a: $(head -c 200 "$tmp/gen.err")"
else
    # setarch execs ecnwatch: $! is its process, not a subshell's
    "${NORAND[@]}" "$TS/ecnwatch" -r "$tmp/long.pcap" -q -o "$tmp/int.json" 2>"$tmp/int.err" &
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
    if ! wait_bounded "$EW_CMD_TIMEOUT" $pid; then
        bad "SIGINT mid-read: ecnwatch $why (sent: $sent)"
    else
        wait $pid
        st=$?
        why=""
        if grep -q ThreadSanitizer "$tmp/int.err"; then
            bad "SIGINT mid-read: $(tsan_said "$tmp/int.err")"
        elif [ $sent = no ]; then
            bad "SIGINT mid-read: ecnwatch ended (exit $st) before it could be stopped: $(head -c 200 "$tmp/int.err")"
        elif [ $st = 0 ] && jq_true "$tmp/int.json" '.source.interrupted == true and .totals.frames > 0' &&
            grep -q "interrupted after" "$tmp/int.err"; then
            ok "SIGINT mid-read: exit 0, interrupted after $(jq .totals.frames "$tmp/int.json") frames"
        else
            bad "SIGINT mid-read: exit $st, ${why:+$why, }$(head -c 200 "$tmp/int.err")"
        fi
    fi
fi

# the reader's unit suite (counted only beside a TSan ecnwatch that runs)
begin "unit tests"
if [ "$tsan_ok" != yes ]; then
    bad "unit tests: no TSan build to test: $tsan_ok"
else
    bounded 600 "${NORAND[@]}" "$TS/run_tests" >"$tmp/unit.out" 2>&1
    st=$?
    if grep -q ThreadSanitizer "$tmp/unit.out"; then
        bad "unit tests: $(tsan_said "$tmp/unit.out")"
    elif [ $st = 0 ] && grep -q "Suite: reader" "$tmp/unit.out" &&
        n=$(awk '$1 == "tests" { print $3 }' "$tmp/unit.out") && [ -n "$n" ]; then
        ok "unit tests ($n tests)"
    else
        bad "unit tests: exit $st: $(grep -m1 -A1 'FAILED' "$tmp/unit.out" | tr -s ' \n' '  ')$(grep -E '^ +tests ' "$tmp/unit.out" | tr -s ' ')"
    fi
fi

finish threads
