#!/usr/bin/env bash
# metrics.sh ECNWATCH - the Prometheus metrics as a user meets them, on real
# traffic between two network namespaces this script creates (addresses
# inside them only): --metrics scraped with curl from inside the server's
# namespace (127.0.0.1 there is that namespace's own loopback), the
# --metrics-file rewritten under a reader that must never see a part of it,
# the format checked strictly (and by promtool when it is installed), the
# counters against the traffic and the -o report, and the usage errors.
# Prints "metrics: N passed, N failed" (or why it was skipped) and exits
# non-zero on a failure.
set -u
EW=$(readlink -f "$1")
NS_C=ewmet-c$$
NS_S=ewmet-s$$
PORT=$((20000 + $$ % 20000))
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# usage errors need no namespace: one line, exit 2
tmp=$(mktemp -d)
chmod 0777 "$tmp" # ecnwatch drops to nobody and writes its files here
expect() { # expect NAME STATUS PATTERN -- command...
    local name=$1 want=$2 pat=$3
    shift 4
    "$@" >/dev/null 2>"$tmp/err"
    local got=$?
    if [ $got = "$want" ] && grep -qE -- "$pat" "$tmp/err" && [ "$(wc -l <"$tmp/err")" = 1 ]; then
        ok "$name"
    else
        bad "$name: exit $got: $(cat "$tmp/err")"
    fi
}
for a in 9109 127.0.0.1 127.0.0.1:0 127.0.0.1:70000 localhost:9109 ::1:9109 '[::1]' 1.2.3:80 ''; do
    expect "--metrics '$a' -> 2" 2 "bad value '.*' for --metrics: " -- "$EW" -i lo --metrics "$a"
done
expect "--metrics with -r -> 2" 2 "with -r use --metrics-file" -- \
    "$EW" -r captures/rfc3168-ce-server.pcap --metrics 127.0.0.1:9109
expect "--metrics-file in a missing folder -> 4" 4 "--metrics-file .*No such file or directory" -- \
    "$EW" -r captures/rfc3168-ce-server.pcap -q --metrics-file "$tmp/no/such/m.prom"

# the strict format check: promtool's rules and the exposition grammar
cat >"$tmp/promcheck.py" <<'PY'
import re, sys, time
NAME = r'[a-zA-Z_:][a-zA-Z0-9_:]*'
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*'
VALUE = r'"(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(r'^(%s)(\{(?:%s=%s(?:,%s=%s)*,?)?\})? (\S+)$' % (NAME, LABEL, VALUE, LABEL, VALUE))
PAIR = re.compile(r'(%s)=(%s)' % (LABEL, VALUE))
FAMILIES = """ecnwatch_info ecnwatch_frames_total ecnwatch_packets_total ecnwatch_undecodable_frames_total
ecnwatch_truncated_frames_total ecnwatch_flows_total ecnwatch_flows_active ecnwatch_flows_held
ecnwatch_flows_evicted_total ecnwatch_flows_evaluated ecnwatch_flows ecnwatch_flows_by_negotiation
ecnwatch_misuse_flows""".split()
LIVE = ["ecnwatch_capture_received_total", "ecnwatch_capture_dropped_total"]

def check(text, live):
    """the problems of one exposition, [] when none"""
    errs, help_, type_, done, series = [], {}, {}, set(), set()
    cur = None
    if not text.endswith("\n"):
        return ["does not end with a newline (a partial read?)"]
    for n, line in enumerate(text[:-1].split("\n"), 1):
        m = re.match(r'^# (HELP|TYPE) (%s) ?(.*)$' % NAME, line)
        if m:
            kind, name, rest = m.groups()
            if name != cur:
                if name in done or name in help_ or name in type_:
                    errs.append("%d: %s declared again" % (n, name))
                if cur:
                    done.add(cur)
                cur = name
            if kind == "HELP":
                if name in help_ or not rest or re.search(r'\\[^\\n]', rest):
                    errs.append("%d: bad or second HELP" % n)
                help_[name] = rest
            else:
                if name in type_ or rest not in ("counter", "gauge"):
                    errs.append("%d: bad or second TYPE" % n)
                if name not in help_:
                    errs.append("%d: TYPE before HELP" % n)
                type_[name] = rest
                if (rest == "counter") != name.endswith("_total"):
                    errs.append("%d: %s: counters end in _total, nothing else does" % (n, name))
            continue
        if line.startswith("#"):
            if not line.startswith("# "):
                errs.append("%d: bad comment" % n)
            continue
        m = SAMPLE.match(line)
        if not m:
            errs.append("%d: not a sample: %r" % (n, line))
            continue
        name, labels, value = m.groups()
        if name != cur or name not in type_:
            errs.append("%d: %s: no TYPE before it, or its family is split" % (n, name))
        try:
            v = float(value)
        except ValueError:
            errs.append("%d: bad value %r" % (n, value))
            continue
        if v < 0 or v != int(v):
            errs.append("%d: %s: not a count" % (n, line))
        names = [k for k, _ in PAIR.findall(labels or "")]
        if len(names) != len(set(names)) or any(k.startswith("__") for k in names):
            errs.append("%d: bad label names" % n)
        key = (name, tuple(sorted(PAIR.findall(labels or ""))))
        if key in series:
            errs.append("%d: duplicate series" % n)
        series.add(key)
    want = FAMILIES + (LIVE if live else [])
    for f in want:
        if f not in type_:
            errs.append("family %s missing" % f)
    for f in type_:
        if not any(s[0] == f for s in series):
            errs.append("family %s has no sample" % f)
    return errs

mode = sys.argv[1]
if mode == "check":                      # check FILE [live]
    errs = check(open(sys.argv[2]).read(), len(sys.argv) > 3)
    for e in errs[:10]:
        print(e)
    sys.exit(1 if errs else 0)
if mode == "watch":                      # watch FILE SECONDS: read it over and over
    path, end = sys.argv[2], time.time() + float(sys.argv[3])
    reads = bad = 0
    seen = set()
    while time.time() < end:
        try:
            with open(path) as f:
                text = f.read()
        except FileNotFoundError:
            continue
        reads += 1
        seen.add(text)
        errs = check(text, True)
        if errs:
            bad += 1
            if bad <= 3:
                print("bad read: %s" % "; ".join(errs[:3]))
    print("%d reads, %d versions, %d bad" % (reads, len(seen), bad))
    sys.exit(1 if bad or reads < 100 or len(seen) < 5 else 0)
PY

val() { awk -v s="$2" '$1 == s { print $2 }' "$1"; }

# offline: -r writes the file once, at the end
OFF=$tmp/off.prom
"$EW" -r captures/rfc3168-ce-server.pcap -q --metrics-file "$OFF" 2>"$tmp/err"
st=$?
if [ $st = 0 ] && out=$(python3 "$tmp/promcheck.py" check "$OFF"); then
    ok "-r --metrics-file: written and well formed"
else
    bad "-r --metrics-file: exit $st $(cat "$tmp/err") $out"
fi
[ "$(val "$OFF" ecnwatch_frames_total)" = 2198 ] && [ "$(val "$OFF" 'ecnwatch_packets_total{codepoint="ce"}')" = 24 ] &&
    [ "$(val "$OFF" 'ecnwatch_flows{verdict="classic"}')" = 1 ] && ! grep -q ecnwatch_capture_ "$OFF" &&
    ok "-r: the capture's counts (2198 frames, 24 CE, 1 classic flow), no capture counters" ||
    bad "-r counts: $(grep -v '^#' "$OFF" | head -12 | tr '\n' ' ')"
if command -v promtool >/dev/null; then
    out=$(promtool check metrics <"$OFF" 2>&1) && ok "promtool check metrics: clean (-r)" || bad "promtool (-r): $out"
fi
# the strict check itself catches a cut file, a redeclared family, a counter without _total
head -c 1500 "$OFF" >"$tmp/cut.prom"
{ cat "$OFF"; grep -A2 '^# HELP ecnwatch_frames_total' "$OFF"; } >"$tmp/dup.prom"
sed 's/ecnwatch_frames_total/ecnwatch_frames/' "$OFF" >"$tmp/name.prom"
sed 's/^ecnwatch_flows_held \(.*\)$/ecnwatch_flows_held \1 1700000000000/' "$OFF" >"$tmp/ts.prom"
n=0
for f in cut dup name ts; do python3 "$tmp/promcheck.py" check "$tmp/$f.prom" >/dev/null || n=$((n + 1)); done
[ $n = 4 ] && ok "the strict check rejects a cut file, a family declared twice, a counter's name, a timestamp" ||
    bad "the strict check let $((4 - n)) broken files pass"

if [ "$(id -u)" != 0 ]; then
    echo "metrics: skipped the live part: needs root to create network namespaces"
    echo "metrics: $pass passed, $fail failed"; rm -rf "$tmp"; [ $fail = 0 ]; exit
fi
if ! ip netns add "$NS_C" 2>/dev/null; then
    echo "metrics: skipped the live part: this machine cannot create network namespaces"
    echo "metrics: $pass passed, $fail failed"; rm -rf "$tmp"; [ $fail = 0 ]; exit
fi
cleanup() {
    ip netns pids "$NS_C" 2>/dev/null | xargs -r kill 2>/dev/null
    ip netns pids "$NS_S" 2>/dev/null | xargs -r kill 2>/dev/null
    ip netns del "$NS_C" 2>/dev/null
    ip netns del "$NS_S" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$NS_S"
ip link add c0 netns "$NS_C" type veth peer name s0 netns "$NS_S"
ip -n "$NS_C" addr add 10.78.0.1/24 dev c0
ip -n "$NS_S" addr add 10.78.0.2/24 dev s0
ip -n "$NS_C" link set c0 up
ip -n "$NS_S" link set s0 up
ip -n "$NS_C" link set lo up
ip -n "$NS_S" link set lo up
ip netns exec "$NS_C" sysctl -qw net.ipv4.tcp_ecn=1   # the client asks for classic ECN
ip netns exec "$NS_S" sysctl -qw net.ipv4.tcp_ecn=1

# traffic: a TCP transfer (classic ECN, data ECT(0)) and UDP datagrams marked ECT(1)
TRAFFIC=$(cd "$(dirname "$0")" && pwd)/traffic.py
traffic() { # traffic SECONDS
    local sp
    ip netns exec "$NS_S" python3 "$TRAFFIC" server "$1" 10.78.0.2 &
    sp=$!
    sleep 0.3
    ip netns exec "$NS_C" python3 "$TRAFFIC" client "$1" 10.78.0.2
    wait $sp
}
inside() { ip netns exec "$NS_S" "$@"; }
scrape() { # scrape PATH OUTFILE: prints the HTTP status
    inside curl -s -m 5 -o "$2" -w '%{http_code}' "http://127.0.0.1:$PORT$1"
}
check() { python3 "$tmp/promcheck.py" check "$1" live; }

mkdir -m 0777 "$tmp/m"
MF=$tmp/m/ecnwatch.prom
ip netns exec "$NS_S" "$EW" -i s0 --ndjson --interval 0.2 --metrics "127.0.0.1:$PORT" --metrics-file "$MF" \
    -o "$tmp/report.json" >"$tmp/out.ndjson" 2>"$tmp/ew.err" &
ewpid=$! # ip netns exec execs ecnwatch: this is its pid
up=0
for _ in $(seq 50); do
    [ "$(scrape /metrics "$tmp/s0.txt")" = 200 ] && { up=1; break; }
    sleep 0.1
done
[ $up = 1 ] && ok "GET /metrics answers once capture starts" || bad "no answer on 127.0.0.1:$PORT: $(cat "$tmp/ew.err")"
[ "$(ls /proc/$ewpid/task 2>/dev/null | wc -l)" = 1 ] && ok "one thread serves HTTP and captures" ||
    bad "threads: $(ls /proc/$ewpid/task 2>/dev/null | wc -l)"
grep -q '^Uid:.*65534' /proc/$ewpid/status && ok "privileges dropped with the port bound" || bad "still root"

# read the file over and over while it is rewritten every 0.2 s
python3 "$tmp/promcheck.py" watch "$MF" 4 >"$tmp/watch.out" 2>&1 &
watchpid=$!
# scrapes in parallel while traffic flows
(
    for i in $(seq 10); do
        for j in 1 2 3 4 5; do scrape /metrics "$tmp/p$i-$j.txt" >"$tmp/p$i-$j.code" & done
        wait
        sleep 0.2
    done
) &
scrapers=$!
traffic 3
wait $scrapers
wait $watchpid && ok "metrics file: every read complete and well formed ($(cat "$tmp/watch.out"))" ||
    bad "metrics file reads: $(cat "$tmp/watch.out")"
codes=$(for f in "$tmp"/p*.code; do cat "$f"; echo; done | sort | uniq -c | tr -s ' ')
badscrape=0
for f in "$tmp"/p*-*.txt; do check "$f" >/dev/null || badscrape=$((badscrape + 1)); done
[ "$codes" = " 50 200" ] && [ $badscrape = 0 ] && ok "50 scrapes during traffic, 5 at a time: all 200 and well formed" ||
    bad "parallel scrapes: codes$codes, $badscrape malformed"

sleep 0.5
code=$(scrape /metrics "$tmp/s1.txt")
if out=$(check "$tmp/s1.txt"); then ok "the exposition passes the strict format check"; else bad "format: $out"; fi
if command -v promtool >/dev/null; then
    if out=$(promtool check metrics <"$tmp/s1.txt" 2>&1); then ok "promtool check metrics: clean"; else bad "promtool: $out"; fi
else
    echo "     (promtool is not installed: the strict check above stands in for it)"
fi
[ "$code" = 200 ] && [ "$(val "$tmp/s1.txt" 'ecnwatch_packets_total{codepoint="ect1"}')" -gt 100 ] &&
    [ "$(val "$tmp/s1.txt" 'ecnwatch_packets_total{codepoint="ect0"}')" -gt 100 ] &&
    ok "ECT(1) and ECT(0) packets counted" || bad "codepoints: $(grep packets_total "$tmp/s1.txt")"
[ "$(val "$tmp/s1.txt" ecnwatch_flows_total)" -ge 2 ] && [ "$(val "$tmp/s1.txt" ecnwatch_frames_total)" -gt 200 ] &&
    ok "flows_total >= 2, frames counted" || bad "flows/frames: $(grep -E '^ecnwatch_(flows|frames)_total' "$tmp/s1.txt")"
[ "$(val "$tmp/s1.txt" 'ecnwatch_flows{verdict="classic"}')" -ge 1 ] &&
    [ "$(val "$tmp/s1.txt" 'ecnwatch_flows_by_negotiation{negotiation="rfc3168"}')" -ge 1 ] &&
    [ "$(val "$tmp/s1.txt" 'ecnwatch_flows_by_negotiation{negotiation="not_tcp"}')" -ge 1 ] &&
    ok "the TCP flow is classic and negotiated rfc3168; the UDP flow is not_tcp" ||
    bad "verdict gauges: $(grep -E '^ecnwatch_flows(\{| |_by)' "$tmp/s1.txt" | tr '\n' ' ')"
held=$(val "$tmp/s1.txt" ecnwatch_flows_held)
sum=$(awk '/^ecnwatch_flows\{/ { s += $2 } END { print s }' "$tmp/s1.txt")
[ "$held" = "$sum" ] && [ "$(val "$tmp/s1.txt" ecnwatch_flows_evaluated)" = "$held" ] &&
    ok "the verdict gauges add up to the flows held ($held)" || bad "held $held, sum $sum"
[ "$(val "$tmp/s1.txt" ecnwatch_capture_received_total)" -ge "$(val "$tmp/s1.txt" ecnwatch_frames_total)" ] &&
    [ -n "$(val "$tmp/s1.txt" ecnwatch_capture_dropped_total)" ] &&
    ok "capture received/dropped from pcap_stats" || bad "capture stats: $(grep capture "$tmp/s1.txt")"
grep -qE '^ecnwatch_info\{version="[0-9.]+",interface="s0"\} 1$' "$tmp/s1.txt" && ok "ecnwatch_info names the version and s0" ||
    bad "info: $(grep ecnwatch_info "$tmp/s1.txt")"
! grep -qE '^ecnwatch_[a-z_]+\{[^}]*(10\.78|port|flow=)' "$tmp/s1.txt" && [ "$(grep -vc '^#' "$tmp/s1.txt")" -lt 60 ] &&
    ok "no per-flow labels: $(grep -vc '^#' "$tmp/s1.txt") series" || bad "per-flow series"

# HTTP: content type, 404 elsewhere, 405 for other methods, HEAD
hdr=$(inside curl -s -m 5 -D - -o /dev/null "http://127.0.0.1:$PORT/metrics" | tr -d '\r')
echo "$hdr" | grep -qi '^content-type: text/plain; version=0.0.4' && ok "Content-Type: text/plain; version=0.0.4" ||
    bad "headers: $hdr"
[ "$(scrape /foo /dev/null)" = 404 ] && [ "$(scrape / /dev/null)" = 404 ] && [ "$(scrape /metrics/x /dev/null)" = 404 ] &&
    ok "/foo, / and /metrics/x: 404" || bad "not 404 elsewhere"
[ "$(inside curl -s -m 5 -o /dev/null -w '%{http_code}' -X POST -d x "http://127.0.0.1:$PORT/metrics")" = 405 ] &&
    [ "$(inside curl -s -m 5 -o /dev/null -w '%{http_code}' -I "http://127.0.0.1:$PORT/metrics")" = 200 ] &&
    ok "POST: 405; HEAD: 200" || bad "POST/HEAD"
[ "$(scrape '/metrics?x=1' /dev/null)" = 200 ] && ok "a query string is ignored" || bad "query string"
# bound exactly to 127.0.0.1: not on the namespace's other address, not from the client
! inside curl -s -m 2 -o /dev/null "http://10.78.0.2:$PORT/metrics" &&
    ! ip netns exec "$NS_C" curl -s -m 2 -o /dev/null "http://10.78.0.2:$PORT/metrics" &&
    ok "listens on 127.0.0.1 only" || bad "answers on 10.78.0.2"
# a client that connects and says nothing does not stall the capture
inside python3 -c "import socket,time; s=socket.create_connection(('127.0.0.1',$PORT)); time.sleep(3)" &
idle=$!
sleep 0.3
f1=$(val "$MF" ecnwatch_frames_total)
traffic 1
f2=$(val "$MF" ecnwatch_frames_total)
[ "$(scrape /metrics /dev/null)" = 200 ] && [ "$f2" -gt "$f1" ] && ok "a silent connection stalls neither scrapes nor capture" ||
    bad "silent connection: $f1 -> $f2"
wait $idle

kill -TERM $ewpid
wait $ewpid
st=$?
[ $st = 0 ] && ok "SIGTERM: exit 0" || bad "SIGTERM: exit $st: $(cat "$tmp/ew.err")"
[ "$(val "$MF" ecnwatch_frames_total)" = "$(jq .totals.frames "$tmp/report.json")" ] &&
    [ "$(val "$MF" ecnwatch_flows_total)" = "$(jq .totals.flows "$tmp/report.json")" ] &&
    [ "$(val "$MF" 'ecnwatch_packets_total{codepoint="ect1"}')" = "$(jq .totals.ecn.ect1 "$tmp/report.json")" ] &&
    ok "the file's final counts equal the -o report's totals" ||
    bad "final file vs report: $(val "$MF" ecnwatch_frames_total) vs $(jq .totals.frames "$tmp/report.json")"
[ "$(ls -A "$tmp/m")" = ecnwatch.prom ] && ok "no temporary file left beside it" || bad "left: $(ls -A "$tmp/m")"
[ "$(stat -c %A "$MF" | cut -c8)" = r ] && ok "the file is readable by others (the textfile collector)" ||
    bad "mode $(stat -c %a "$MF")"
jq -e -s 'any(.[]; .event == "flow_update") and .[-1].event == "summary"' "$tmp/out.ndjson" >/dev/null &&
    ok "the NDJSON stream still flows beside the metrics" || bad "NDJSON: $(head -c 200 "$tmp/out.ndjson")"

# IPv6 loopback; a port in use is exit 3 with one line
ip netns exec "$NS_S" "$EW" -i s0 -q --metrics "[::1]:$PORT" >/dev/null 2>"$tmp/v6.err" &
v6pid=$!
code=000
for _ in $(seq 30); do
    code=$(inside curl -s -m 2 -g -o "$tmp/v6.txt" -w '%{http_code}' "http://[::1]:$PORT/metrics")
    [ "$code" = 200 ] && break
    sleep 0.1
done
[ "$code" = 200 ] && check "$tmp/v6.txt" >/dev/null && ok "[::1]:$PORT serves /metrics" || bad "[::1]: $code $(cat "$tmp/v6.err")"
! inside curl -s -m 2 -o /dev/null "http://127.0.0.1:$PORT/metrics" && ok "[::1] is IPv6 only" || bad "[::1] also answers on 127.0.0.1"
expect "port in use -> 3" 3 "--metrics \[::1\]:$PORT: cannot listen: Address already in use" -- \
    inside timeout 10 "$EW" -i s0 --metrics "[::1]:$PORT"
kill -TERM $v6pid
wait $v6pid
expect "address not on this host -> 3" 3 "cannot listen: Cannot assign requested address" -- \
    inside timeout 10 "$EW" -i s0 --metrics "192.0.2.1:$PORT"
# the metrics file's folder unwritable for the user ecnwatch runs as: exit 4 at once
mkdir -m 0755 "$tmp/ro"
expect "unwritable metrics folder -> 4" 4 "--metrics-file .*Permission denied" -- \
    inside timeout 10 "$EW" -i s0 --ndjson --metrics-file "$tmp/ro/m.prom"

echo "metrics: $pass passed, $fail failed"
[ $fail = 0 ]
