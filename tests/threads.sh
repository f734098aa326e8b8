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
# Also the reader's unit suite, beside a TSan ecnwatch that runs; and live
# capture with --workers 2 (a thread per capture socket, in one fan-out
# group) of TCP connections carried in a VXLAN tunnel between two network
# namespaces: each inner flow reported once, both directions counted as
# tcpdump saw them (the kernel's own fan-out hash splits them; how many it
# split is printed). Skipped where namespaces cannot be made.
# Ends with "threads: N passed, N failed".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netns.sh"
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

# --- --workers 2 on the underlay of a VXLAN tunnel: 8 TCP connections at
# once over the overlay (10.204.0.1 to .2, port 5301), classic ECN asked
# for, offloads off so that each segment is a frame on the underlay. The
# outer UDP source port of each direction is the sending end's hash of the
# inner packet: the two directions of a connection differ, and the
# kernel's flow hash (PACKET_FANOUT_HASH) sends them to either worker at
# random, one direction then lost in the merge. ecnwatch's own fan-out
# program hashes a tunnel's outer addresses: each connection must be
# reported once, both directions seen, their packets those tcpdump took on
# the same interface at the same time. The TSan build runs it when there
# is one that works (the workers are threads).
cat >"$tmp/conns.py" <<'PY'
import socket, sys, threading
mode, addr, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def serve(c):
    c.settimeout(30)
    while c.recv(65536):
        pass
    c.sendall(b"r" * 20000)
    c.close()
def talk():
    c = socket.create_connection((addr, 5301), timeout=30)
    for _ in range(40):
        c.sendall(b"x" * 4096)
    c.shutdown(socket.SHUT_WR)
    while c.recv(65536):
        pass
    c.close()
if mode == "server":
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, 5301))
    s.listen(n)
    s.settimeout(30)
    ts = []
    for _ in range(n):
        c, _ = s.accept()
        ts.append(threading.Thread(target=serve, args=(c,)))
        ts[-1].start()
else:
    ts = [threading.Thread(target=talk) for _ in range(n)]
    for t in ts:
        t.start()
for t in ts:
    t.join()
PY
# the tunnel: vx0 in each namespace over c0 and s0, VNI 42, port 4789
vx_net() {
    local side ns dev me peer
    netns_pair fan 10.203.1 || return $?
    for side in c s; do
        if [ $side = c ]; then ns=$NS_C dev=c0 me=1 peer=2; else ns=$NS_S dev=s0 me=2 peer=1; fi
        netns_step ip -n "$ns" link add vx0 type vxlan id 42 local 10.203.1.$me \
            remote 10.203.1.$peer dstport 4789 tos inherit
        netns_step ip -n "$ns" addr add 10.204.0.$me/24 dev vx0
        netns_step ip netns exec "$ns" ethtool -K $dev tx off rx off tso off gso off gro off
        netns_step ip netns exec "$ns" ethtool -K vx0 tx off rx off tso off gso off gro off
        netns_step ip -n "$ns" link set vx0 up
    done
    [ -z "$_ew_setup" ] || { why=$_ew_setup; return 1; }
}
# vx_run TAG [VAR=VALUE...]: ecnwatch --workers 2 -o $tmp/TAG/report.json
# and tcpdump -w $tmp/TAG/cap.pcap on s0 (the environment given to
# ecnwatch) while the connections run; 0 when both took the whole run
# and ecnwatch ended with status 0, its standard error in $tmp/TAG/ew.err
vx_run() {
    local tag=$1 d=$tmp/$1 ep tp sp ew t
    shift
    mkdir -m 0777 "$d" # ecnwatch drops to nobody before it writes the report
    # timeout itself in the background (not a function's subshell): it
    # passes SIGINT on to what it runs
    timeout -k 5 120 ip netns exec "$NS_S" env "$@" "${VXRUN[@]}" -i s0 --workers 2 -q \
        -o "$d/report.json" >"$d/ew.out" 2>"$d/ew.err" &
    ep=$!
    timeout -k 5 120 ip netns exec "$NS_S" tcpdump -i s0 -U -w "$d/cap.pcap" >/dev/null 2>"$d/td.err" &
    tp=$!
    bg="$bg $ep $tp"
    # ecnwatch (timeout's child: ip, env and setarch exec it) has opened its
    # captures once it runs as nobody; tcpdump once it says it listens
    for t in $(seq 300); do
        ew=$(pgrep -P $ep | head -1)
        [ -n "$ew" ] && grep -q '^Uid:.*65534' "/proc/$ew/status" 2>/dev/null &&
            grep -q 'listening on' "$d/td.err" && break
        kill -0 $ep 2>/dev/null && kill -0 $tp 2>/dev/null || break
        sleep 0.1
    done
    bounded 60 ip netns exec "$NS_S" python3 "$tmp/conns.py" server 10.204.0.2 8 >"$d/srv.out" 2>&1 &
    sp=$!
    bg="$bg $sp"
    why=""
    if ! wait_port 20 5301 "$NS_S"; then
        why="the server does not listen: $(head -c 200 "$d/srv.out")"
    elif ! bounded 60 ip netns exec "$NS_C" python3 "$tmp/conns.py" client 10.204.0.2 8 \
        >"$d/cli.out" 2>&1; then
        why="the client failed: $(head -c 200 "$d/cli.out" | tr '\n' ' ')"
    elif ! wait_rc 30 $sp || [ "$rc" != 0 ]; then
        why="the server: exit $rc $(head -c 200 "$d/srv.out" | tr '\n' ' ')"
    fi
    wait_bounded 5 $sp
    sleep 1
    kill -INT $ep $tp 2>/dev/null
    wait_rc 60 $ep
    t=$rc
    wait_bounded 30 $tp
    [ -z "$why" ] || return 1
    [ "$t" = 0 ] || { why="ecnwatch: exit $t: $(head -c 300 "$d/ew.err" | tr '\n' ' ')"; return 1; }
}
# vx_flows TAG: each inner connection, once per record the report has of
# it: client-addr client-port server-addr server-port c2s s2c packets, where
# packets is what tcpdump took of it; sorted
vx_flows() {
    local d=$tmp/$1
    bounded 120 tshark -r "$d/cap.pcap" -Y 'vxlan && tcp' -T fields -E occurrence=l \
        -e ip.src -e tcp.srcport -e ip.dst -e tcp.dstport 2>/dev/null |
        awk '$4 == 5301 { print $1, $2, $3, $4 } $2 == 5301 { print $3, $4, $1, $2 }' |
        sort | uniq -c | awk '{ print $2, $3, $4, $5, $1 }' >"$d/seen"
    jq -r '.flows[] | select(.server.port == 5301) |
        "\(.client.addr) \(.client.port) \(.server.addr) \(.server.port) \(.c2s.packets) \(.s2c.packets)"' \
        "$d/report.json" | sort >"$d/reported"
    join -j1 <(awk '{ print $1 ":" $2 ">" $3 ":" $4, $5, $6 }' "$d/reported") \
        <(awk '{ print $1 ":" $2 ">" $3 ":" $4, $5 }' "$d/seen") -a1 -e 0 -o 0,1.2,1.3,2.2
}
# vx_split FLOWS: how many of the 8 connections were not reported once,
# whole (both directions, the packets tcpdump took)
vx_split() {
    awk '{ n[$1]++; if ($2 > 0 && $3 > 0 && $2 + $3 == $4) whole[$1] = 1 }
        END { k = 0; for (f in n) if (n[f] == 1 && whole[f]) k++; print 8 - k }' "$1"
}
VXRUN=("$PLAIN/ecnwatch")
vxname="the plain build"
if [ "$tsan_ok" = yes ]; then
    VXRUN=("${NORAND[@]}" "$TS/ecnwatch")
    vxname="TSan"
fi
chmod 0755 "$tmp"
vx_net
case $? in
0)
    begin "--workers 2, VXLAN: the kernel's hash"
    if vx_run hash ECNWATCH_FANOUT_HASH=1; then
        vx_flows hash >"$tmp/hash.flows"
        echo "     --- the kernel's fan-out hash (ECNWATCH_FANOUT_HASH=1): $(vx_split "$tmp/hash.flows") of 8 connections split ($(grep 'by worker' "$tmp/hash/ew.err" | sed 's/ecnwatch: //'))"
    else
        echo "     --- the kernel's fan-out hash: not measured: $why"
    fi
    vx_workers() {
        local n
        vx_run prog || return 1
        if grep -q ThreadSanitizer "$tmp/prog/ew.err"; then
            why=$(tsan_said "$tmp/prog/ew.err")
            return 1
        fi
        json_ok "$tmp/prog/report.json" || return 1
        vx_flows prog >"$tmp/prog.flows"
        n=$(awk '{ print $1 }' "$tmp/prog.flows" | sort -u | wc -l)
        [ "$n" = 8 ] || { why="$n connections reported, want 8: $(head -c 300 "$tmp/prog.flows" | tr '\n' ' ')"; return 1; }
        n=$(vx_split "$tmp/prog.flows")
        [ "$n" = 0 ] || {
            why="$n of 8 split (connection c2s s2c tcpdump): $(head -c 600 "$tmp/prog.flows" | tr '\n' ' ')"
            return 1
        }
    }
    check "--workers 2 ($vxname), 8 TCP connections in VXLAN: each reported once, both directions, the packets tcpdump took" vx_workers
    echo "     --- the fan-out program: $(vx_split "$tmp/prog.flows" 2>/dev/null) of 8 connections split ($(grep 'by worker' "$tmp/prog/ew.err" 2>/dev/null | sed 's/ecnwatch: //'))"
    ;;
2) echo "     --- --workers over VXLAN: skipped: $why" ;;
*) bad "--workers over VXLAN: setting up the namespaces: $why" ;;
esac

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
