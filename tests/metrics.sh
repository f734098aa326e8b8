#!/usr/bin/env bash
# metrics.sh BUILD - the Prometheus metrics as a user meets them, on real
# traffic between two network namespaces this script creates (addresses
# inside them only): --metrics scraped with curl from inside the server's
# namespace (127.0.0.1 there is that namespace's own loopback), the
# --metrics-file rewritten under a reader that must never see a part of it,
# the format checked strictly (histograms included; and by promtool when it
# is installed), the counters against the traffic and the -o report, the
# diagnosis (paths, bottlenecks, the queueing delay histogram) exactly for a
# DualQ capture and against the JSON report of every bundled capture and of
# the live run (tests/diagnosis.jq), every family documented, and the usage
# errors.
# Prints "metrics: N passed, N failed" (or why it was skipped) and exits
# non-zero on a failure. Every process it starts is bounded in time and ended
# on exit.
. "$(dirname "$0")/lib.sh"
EW=$(readlink -f "$EW")
. "$(dirname "$0")/netns.sh"
PORT=$((20000 + $$ % 20000))

chmod 0777 "$tmp" # ecnwatch drops to nobody and writes its files here

oneline() { head -c "${2:-300}" "$1" 2>/dev/null | tr '\n' ' '; } # oneline FILE [BYTES]

# expect NAME STATUS PATTERN -- command...: the status, and one line on
# standard error matching PATTERN (a command that should end at once gets 30 s
# at most)
expect() {
    local name=$1 want=$2 pat=$3
    shift 4
    begin "$name"
    why=""
    if ! EW_CMD_TIMEOUT=$((EW_CMD_TIMEOUT < 30 ? EW_CMD_TIMEOUT : 30)) run_ew "$want" "$tmp/err.out" "$tmp/err" "$@"; then
        bad "$name: $why"
    elif ! grep -qE -- "$pat" "$tmp/err" || [ "$(wc -l <"$tmp/err")" != 1 ]; then
        bad "$name: want one line matching '$pat': $(oneline "$tmp/err")"
    else
        ok "$name"
    fi
}

# usage errors need no namespace: one line, exit 2
# (localhost:PORT and :PORT are addresses: 127.0.0.1 and 0.0.0.0, served below)
for a in 9109 127.0.0.1 127.0.0.1:0 127.0.0.1:70000 localhost: :0 :x ::1:9109 '[::1]' 1.2.3:80 ''; do
    expect "--metrics '$a' -> 2" 2 "bad value '.*' for --metrics: " -- "$EW" -i lo --metrics "$a"
done
expect "--metrics with -r -> 2" 2 "with -r use --metrics-file" -- \
    "$EW" -r captures/rfc3168-ce-server.pcap --metrics 127.0.0.1:9109
expect "--metrics-file in a missing folder -> 4" 4 "m.prom: cannot write the metrics: No such file or directory" -- \
    "$EW" -r captures/rfc3168-ce-server.pcap -q --metrics-file "$tmp/no/such/m.prom"

# the strict format check: promtool's rules and the exposition grammar
cat >"$tmp/promcheck.py" <<'PY'
import re, sys, time
NAME = r'[a-zA-Z_:][a-zA-Z0-9_:]*'
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*'
VALUE = r'"(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(r'^(%s)(\{(?:%s=%s(?:,%s=%s)*,?)?\})? (\S+)$' % (NAME, LABEL, VALUE, LABEL, VALUE))
PAIR = re.compile(r'(%s)=(%s)' % (LABEL, VALUE))
FAMILIES = """ecnwatch_info ecnwatch_frames_total ecnwatch_packets_total ecnwatch_bytes_total ecnwatch_undecodable_frames_total
ecnwatch_truncated_frames_total ecnwatch_flows_total ecnwatch_flows_active ecnwatch_flows_held
ecnwatch_flows_evicted_total ecnwatch_tunnelled_packets_total ecnwatch_tunnelled_flows_total
ecnwatch_tunnel_records_refused_total ecnwatch_tunnel_codepoints_total ecnwatch_flows_evaluated ecnwatch_flows ecnwatch_flows_by_negotiation
ecnwatch_misuse_flows ecnwatch_flow_directions_by_path ecnwatch_bottlenecks ecnwatch_bottleneck_flows
ecnwatch_flow_queueing_delay_seconds""".split()
HIST = ("_bucket", "_sum", "_count")

def family_of(name, type_):
    """the family a sample's name belongs to: itself, or a histogram's"""
    for suf in HIST:
        f = name[:-len(suf)]
        if name.endswith(suf) and type_.get(f) == "histogram":
            return f
    return name

def check_histograms(samples):
    """a histogram's series: buckets by le rising to +Inf, which is _count"""
    errs, by = [], {}
    for name, labels, v in samples:
        ls = dict(labels)
        le = ls.pop("le", None)
        key = tuple(sorted(ls.items()))
        h = by.setdefault(key, {"b": [], "sum": None, "count": None})
        if name.endswith("_bucket"):
            if le is None:
                errs.append("%s%s: a bucket without le" % (name, labels))
                continue
            h["b"].append((float(le.strip('"')), v))
        elif name.endswith("_sum"):
            h["sum"] = v
        elif name.endswith("_count"):
            h["count"] = v
        else:
            errs.append("%s: not _bucket, _sum or _count" % name)
    for key, h in by.items():
        b = h["b"]
        if h["sum"] is None or h["count"] is None or not b or b[-1][0] != float("inf"):
            errs.append("histogram %s: no _sum, _count or +Inf bucket" % (key,))
            continue
        if [x for x, _ in b] != sorted(x for x, _ in b) or any(b[i][1] > b[i + 1][1] for i in range(len(b) - 1)):
            errs.append("histogram %s: buckets out of order or falling" % (key,))
        if b[-1][1] != h["count"]:
            errs.append("histogram %s: +Inf bucket %s, count %s" % (key, b[-1][1], h["count"]))
        if any(v != int(v) for _, v in b):
            errs.append("histogram %s: a bucket not a count" % (key,))
    return errs
LIVE = ["ecnwatch_capture_received_total", "ecnwatch_capture_dropped_total"]

def check(text, live):
    """the problems of one exposition, [] when none"""
    errs, help_, type_, done, series = [], {}, {}, set(), set()
    hists = {}
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
                if name in type_ or rest not in ("counter", "gauge", "histogram"):
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
        fam = family_of(name, type_)
        if fam != cur or fam not in type_:
            errs.append("%d: %s: no TYPE before it, or its family is split" % (n, name))
        try:
            v = float(value)
        except ValueError:
            errs.append("%d: bad value %r" % (n, value))
            continue
        if v < 0 or (v != int(v) and not (fam != name and name.endswith("_sum"))):
            errs.append("%d: %s: not a count" % (n, line))
        if fam != name:
            hists.setdefault(fam, []).append((name, PAIR.findall(labels or ""), v))
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
        if not any(family_of(s[0], type_) == f for s in series):
            errs.append("family %s has no sample" % f)
    for f, samples in hists.items():
        errs += check_histograms(samples)
    return errs

mode = sys.argv[1]
if mode == "check":                      # check FILE [live]
    errs = check(open(sys.argv[2]).read(), len(sys.argv) > 3)
    for e in errs[:10]:
        print(e)
    sys.exit(1 if errs else 0)
if mode == "many":                       # many FILE...: live expositions; prints the bad ones
    nbad = 0
    for p in sys.argv[2:]:
        try:
            errs = check(open(p).read(), True)
        except (OSError, UnicodeDecodeError) as e:
            errs = [str(e)]
        if errs:
            nbad += 1
            print("%s: %s" % (p, "; ".join(errs[:3])))
    sys.exit(1 if nbad else 0)
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

val() { awk -v s="$2" '$1 == s { print $2 }' "$1" 2>/dev/null; }
isnum() { case ${1:-} in '' | *[!0-9]*) return 1 ;; esac; } # a count
# num VAR FILE SERIES: the sample's value, a count, into VAR; fails (why) otherwise
num() {
    local v
    v=$(val "$2" "$3")
    if ! isnum "$v"; then
        if [ -z "$v" ]; then why="no $3 in $(basename "$2")"; else why="$3 is '$(echo "$v" | tr '\n' ' ')' in $(basename "$2")"; fi
        return 1
    fi
    printf -v "$1" '%s' "$v"
}
promcheck() { bounded 60 python3 "$tmp/promcheck.py" "$@"; }

# offline: -r writes the file once, at the end
OFF=$tmp/off.prom
begin "-r --metrics-file: written and well formed"
why=""
out=""
if run_ew 0 "$tmp/off.out" "$tmp/err" "$EW" -r captures/rfc3168-ce-server.pcap -q --metrics-file "$OFF" &&
    out=$(promcheck check "$OFF"); then
    ok "-r --metrics-file: written and well formed"
else
    bad "-r --metrics-file: $why $(echo "$out" | tr '\n' ' ')"
fi
r_counts() {
    local f c k
    num f "$OFF" ecnwatch_frames_total && num c "$OFF" 'ecnwatch_packets_total{codepoint="ce"}' &&
        num k "$OFF" 'ecnwatch_flows{verdict="classic"}' || return 1
    if [ "$f" = 2198 ] && [ "$c" = 24 ] && [ "$k" = 1 ] && ! grep -q ecnwatch_capture_ "$OFF"; then
        return 0
    fi
    why="$(grep -v '^#' "$OFF" | head -12 | tr '\n' ' ')"
    return 1
}
check "-r: the capture's counts (2198 frames, 24 CE, 1 classic flow), no capture counters" r_counts
# the bytes by codepoint add up to the IP bytes of the JSON report's flows
# (both read the IP length), and the CE bytes are the CE packets' (24 full
# segments of 1500 bytes in this capture)
r_bytes() {
    local n e0 e1 ce flows
    num n "$OFF" 'ecnwatch_bytes_total{codepoint="not_ect"}' && num e0 "$OFF" 'ecnwatch_bytes_total{codepoint="ect0"}' &&
        num e1 "$OFF" 'ecnwatch_bytes_total{codepoint="ect1"}' && num ce "$OFF" 'ecnwatch_bytes_total{codepoint="ce"}' || return 1
    flows=$("$EW" -r captures/rfc3168-ce-server.pcap --json 2>/dev/null | jq '[.flows[] | .c2s.bytes + .s2c.bytes] | add')
    [ "$((n + e0 + e1 + ce))" = "$flows" ] && [ "$ce" = 36000 ] && [ "$e1" = 0 ] && return 0
    why="bytes $n $e0 $e1 $ce (sum $((n + e0 + e1 + ce))), the report's flows $flows"
    return 1
}
check "-r: ecnwatch_bytes_total by codepoint adds up to the report's flow bytes; 36000 CE bytes" r_bytes

# The diagnosis, exactly, for a capture whose bottleneck is known:
# shared-dualq-client.pcap holds a CUBIC flow (ECT(0)) and a Prague-style
# flow (ECT(1)) through one DualQ (captures/README, section 7). The report
# calls the bottleneck "dualq", the classic flow's path "dualq_classic" at
# 3.78 ms of median queueing delay and the L4S flow's "l4s_shallow" at 0.717 ms;
# the ACK directions carry no data and have no path. Every other label value
# is there with 0.
DIAG='^(# TYPE )?(ecnwatch_flow_directions_by_path|ecnwatch_bottlenecks|ecnwatch_bottleneck_flows|ecnwatch_flow_queueing_delay_seconds(_bucket|_sum|_count)?)[{ ]'
diag_lines() { grep -E "$DIAG" "$1"; } # diag_lines FILE: the diagnosis's TYPE and sample lines
# hist CLASS COUNT FROM SUM: the histogram series of one sender codepoint,
# COUNT directions from bucket number FROM (0: le="0.0005") on
hist() {
    local le i=0
    for le in 0.0005 0.001 0.002 0.005 0.01 0.02 0.05 0.1 0.2 0.5 1 +Inf; do
        echo "ecnwatch_flow_queueing_delay_seconds_bucket{sender_codepoint=\"$1\",le=\"$le\"} $([ $i -ge "$3" ] && echo "$2" || echo 0)"
        i=$((i + 1))
    done
    echo "ecnwatch_flow_queueing_delay_seconds_sum{sender_codepoint=\"$1\"} $4"
    echo "ecnwatch_flow_queueing_delay_seconds_count{sender_codepoint=\"$1\"} $2"
}
{
    cat <<'WANT'
# TYPE ecnwatch_flow_directions_by_path gauge
ecnwatch_flow_directions_by_path{aqm="none_seen"} 0
ecnwatch_flow_directions_by_path{aqm="l4s_shallow"} 1
ecnwatch_flow_directions_by_path{aqm="classic"} 0
ecnwatch_flow_directions_by_path{aqm="sce"} 0
ecnwatch_flow_directions_by_path{aqm="drop_tail"} 0
ecnwatch_flow_directions_by_path{aqm="unknown"} 0
ecnwatch_flow_directions_by_path{aqm="dualq_classic"} 1
ecnwatch_flow_directions_by_path{aqm="classic_single_queue"} 0
ecnwatch_flow_directions_by_path{aqm="fq_classic"} 0
# TYPE ecnwatch_bottlenecks gauge
ecnwatch_bottlenecks{looks_like="dualq"} 1
ecnwatch_bottlenecks{looks_like="single_queue"} 0
ecnwatch_bottlenecks{looks_like="fq"} 0
ecnwatch_bottlenecks{looks_like="unknown"} 0
# TYPE ecnwatch_bottleneck_flows gauge
ecnwatch_bottleneck_flows{looks_like="dualq"} 2
ecnwatch_bottleneck_flows{looks_like="single_queue"} 0
ecnwatch_bottleneck_flows{looks_like="fq"} 0
ecnwatch_bottleneck_flows{looks_like="unknown"} 0
# TYPE ecnwatch_flow_queueing_delay_seconds histogram
WANT
    hist not_ect 0 0 0
    hist ect0 1 3 0.00378 # 3.78 ms: from le="0.005"
    hist ect1 1 1 0.000717 # 0.717 ms: from le="0.001"
    hist mixed 0 0 0
    hist none 0 0 0
} >"$tmp/dualq.want"
DQ=$tmp/dualq.prom
dualq_exact() {
    local d out
    run_ew 0 "$tmp/dq.out" "$tmp/err" "$EW" -r captures/shared-dualq-client.pcap -q --metrics-file "$DQ" || return 1
    if ! d=$(diff "$tmp/dualq.want" <(diag_lines "$DQ")); then
        why="want < got >: $(echo "$d" | head -8 | tr '\n' ' ')"
        return 1
    fi
    out=$(promcheck check "$DQ") || { why="the strict check: $(echo "$out" | tr '\n' ' ')"; return 1; }
}
check "shared-dualq-client.pcap: the diagnosis exactly (a dualq bottleneck of 2 flows; dualq_classic at a median 3.78 ms, l4s_shallow at 0.717 ms)" dualq_exact

# The same families from every bundled capture agree with that run's JSON
# report, worked out from the report alone (tests/diagnosis.jq): directions
# by path.aqm, bottlenecks by looks_like and their flows, and each
# direction's path.qdelay_median_ms by its sender_codepoint in the histogram.
from_report() { # from_report REPORT: the diagnosis's sample lines the report calls for
    jq -r --slurpfile schema man/ecnwatch-report.schema.json -f tests/diagnosis.jq "$1"
}
diag_agrees() {
    local cap n=0 d seen=""
    for cap in captures/*.pcap captures/field/*.pcap.gz; do
        run_ew 0 "$tmp/a.out" "$tmp/err" "$EW" -r "$cap" -q -o "$tmp/a.json" --metrics-file "$tmp/a.prom" ||
            { why="$cap: $why"; return 1; }
        if ! d=$(diff <(from_report "$tmp/a.json") <(diag_lines "$tmp/a.prom" | grep -v '^#')); then
            why="$cap: the report says < the metrics say >: $(echo "$d" | head -6 | tr '\n' ' ')"
            return 1
        fi
        seen="$seen $(jq -r '[.flows[] | .c2s, .s2c | .path.aqm // empty] | join(" ")' "$tmp/a.json")"
        n=$((n + 1))
    done
    # the captures between them show most verdicts, the refined ones included
    for d in none_seen l4s_shallow classic sce unknown dualq_classic classic_single_queue; do
        case " $seen " in *" $d "*) ;; *) why="no capture's report has a $d path: nothing compared"; return 1 ;; esac
    done
    [ $n -ge 30 ] || { why="only $n captures"; return 1; }
}
check "every bundled capture: the diagnosis's metrics are what its JSON report says" diag_agrees

# every family the text declares, and the two live ones, is documented where
# the metrics are listed: ecnwatch(1) (Metrics) and the README's table
documented() {
    local f missing=""
    [ -s "$DQ" ] || { why="no metrics file to read the families from"; return 1; }
    for f in $(awk '/^# TYPE / { print $3 }' "$DQ") ecnwatch_capture_received_total ecnwatch_capture_dropped_total; do
        grep -qF "\\fB$f\\fR" man/ecnwatch.1 || missing="$missing $f(man)"
        grep -qE "\`$f(\`|\{)" README.md || missing="$missing $f(README)"
    done
    [ -z "$missing" ] || { why="not documented:$missing"; return 1; }
}
check "every family is listed in ecnwatch(1) and the README" documented
if command -v promtool >/dev/null; then
    begin "promtool check metrics: clean (-r)"
    if [ ! -s "$OFF" ]; then
        bad "promtool (-r): no metrics file"
    elif out=$(bounded 60 promtool check metrics <"$OFF" 2>&1); then
        ok "promtool check metrics: clean (-r)"
    else
        bad "promtool (-r): $(echo "$out" | tr '\n' ' ')"
    fi
fi
# the strict check itself catches a cut file, a redeclared family, a counter
# without _total, a timestamp (each a change of the good file it accepts)
strict_rejects() {
    local f n=0
    if [ ! -s "$OFF" ] || ! promcheck check "$OFF" >/dev/null; then
        why="no good file to break (the -r metrics file is missing or rejected)"
        return 1
    fi
    head -c 1500 "$OFF" >"$tmp/cut.prom"
    { cat "$OFF"; grep -A2 '^# HELP ecnwatch_frames_total' "$OFF"; } >"$tmp/dup.prom"
    sed 's/ecnwatch_frames_total/ecnwatch_frames/' "$OFF" >"$tmp/name.prom"
    sed 's/^ecnwatch_flows_held \(.*\)$/ecnwatch_flows_held \1 1700000000000/' "$OFF" >"$tmp/ts.prom"
    sed 's/^\(ecnwatch_flow_queueing_delay_seconds_bucket{sender_codepoint="ect0",le="0.0005"}\) .*$/\1 9/' "$OFF" >"$tmp/hist.prom"
    for f in cut dup name ts hist; do
        if cmp -s "$OFF" "$tmp/$f.prom"; then
            why="the $f change left the file as it was"
            return 1
        fi
        promcheck check "$tmp/$f.prom" >/dev/null || n=$((n + 1))
    done
    [ $n = 5 ] && return 0
    why="the strict check let $((5 - n)) broken files pass"
    return 1
}
check "the strict check rejects a cut file, a family declared twice, a counter's name, a timestamp, a falling histogram" strict_rejects

# the namespaces: a veth pair between them, classic ECN on both sides; a step
# that fails is a failure
netns_pair met 10.78.0
case $? in
0) ;;
2) echo "metrics: skipped the live part: $why"; finish metrics; exit ;;
*) bad "setting up the namespaces: $why"; finish metrics; exit ;;
esac

# no_answer NETNS URL: curl, run, gets no connection there (refused, or timed out)
no_answer() {
    bounded 10 ip netns exec "$1" curl -s -m 2 -o /dev/null "$2"
    case $? in 7 | 28) return 0 ;; esac
    return 1
}
scrape() { # scrape PATH OUTFILE: prints the HTTP status (000: no answer)
    bounded 10 ip netns exec "$NS_S" curl -s -m 5 -o "$2" -w '%{http_code}' "http://127.0.0.1:$PORT$1"
}
wellformed() { # wellformed FILE: a live exposition, its problems on standard output
    if [ ! -s "$1" ]; then
        echo "no exposition"
        return 1
    fi
    promcheck check "$1" live
}

mkdir -m 0777 "$tmp/m"
MF=$tmp/m/ecnwatch.prom
begin "GET /metrics answers once capture starts"
ip netns exec "$NS_S" "$EW" -i s0 --ndjson --interval 0.2 --metrics "127.0.0.1:$PORT" --metrics-file "$MF" \
    -o "$tmp/report.json" >"$tmp/out.ndjson" 2>"$tmp/ew.err" &
ewpid=$! # ip netns exec execs ecnwatch: this is its pid
bg="$bg $ewpid"
up=0
end=$((SECONDS + 30))
while [ $SECONDS -lt $end ]; do
    [ "$(scrape /metrics "$tmp/s0.txt")" = 200 ] && { up=1; break; }
    kill -0 $ewpid 2>/dev/null || break
    sleep 0.1
done
[ $up = 1 ] && ok "GET /metrics answers once capture starts" ||
    bad "no answer on 127.0.0.1:$PORT: $(kill -0 $ewpid 2>/dev/null || echo "ecnwatch exited:") $(oneline "$tmp/ew.err")"
begin "one thread serves HTTP and captures"
[ "$(ls /proc/$ewpid/task 2>/dev/null | wc -l)" = 1 ] && ok "one thread serves HTTP and captures" ||
    bad "one thread serves HTTP and captures: $(ls /proc/$ewpid/task 2>/dev/null | wc -l) threads"
begin "privileges dropped with the port bound"
grep -q '^Uid:.*65534' /proc/$ewpid/status 2>/dev/null && ok "privileges dropped with the port bound" ||
    bad "privileges dropped with the port bound: still root (or gone): $(grep '^Uid:' /proc/$ewpid/status 2>&1 | tr -s '\t ' '  ')"

# once the traffic's server listens: read the file over and over while it is
# rewritten every 0.2 s, and scrape in parallel while traffic flows
begin "metrics file: every read complete and well formed"
if traffic_server 3; then
    bounded 30 python3 "$tmp/promcheck.py" watch "$MF" 4 >"$tmp/watch.out" 2>&1 &
    watchpid=$!
    bg="$bg $watchpid"
    (
        for i in $(seq 10); do
            for j in 1 2 3 4 5; do scrape /metrics "$tmp/p$i-$j.txt" >"$tmp/p$i-$j.code" & done
            wait
            sleep 0.2
        done
    ) &
    scrapers=$!
    bg="$bg $scrapers"
    traffic_client 3
    wait_bounded 60 $scrapers || bad "the parallel scrapes: $why"
    why=""
    if wait_rc 30 $watchpid && [ "$rc" = 0 ]; then
        ok "metrics file: every read complete and well formed ($(oneline "$tmp/watch.out"))"
    else
        bad "metrics file reads: ${why:-exit $rc} $(oneline "$tmp/watch.out")"
    fi
else
    bad "metrics file reads: no traffic"
fi
begin "50 scrapes during traffic, 5 at a time: all 200 and well formed"
codes=$(for f in "$tmp"/p*.code; do cat "$f" 2>/dev/null; echo; done | sort | uniq -c | tr -s ' ')
badscrape=0
if ! promcheck many "$tmp"/p*-*.txt >"$tmp/many.out" 2>&1; then
    badscrape=$(grep -c . "$tmp/many.out")
    [ "$badscrape" = 0 ] && badscrape="? (the strict check did not run)"
fi
[ "$codes" = " 50 200" ] && [ "$badscrape" = 0 ] && ok "50 scrapes during traffic, 5 at a time: all 200 and well formed" ||
    bad "parallel scrapes: codes$(echo "$codes" | tr '\n' ' '), $badscrape malformed"

sleep 0.5
begin "the exposition passes the strict format check"
code=$(scrape /metrics "$tmp/s1.txt")
S1=$tmp/s1.txt
if out=$(wellformed "$S1"); then ok "the exposition passes the strict format check"; else
    bad "format (HTTP $code): $(echo "$out" | tr '\n' ' ')"
fi
if command -v promtool >/dev/null; then
    begin "promtool check metrics: clean"
    if [ "$code" != 200 ] || [ ! -s "$S1" ]; then
        bad "promtool: no exposition (HTTP $code)"
    elif out=$(bounded 60 promtool check metrics <"$S1" 2>&1); then
        ok "promtool check metrics: clean"
    else
        bad "promtool: $(echo "$out" | tr '\n' ' ')"
    fi
else
    echo "     (promtool is not installed: the strict check above stands in for it)"
fi
# each check below reads the exposition of one scrape that answered 200
answered() {
    [ "$code" = 200 ] && [ -s "$S1" ] && return 0
    why="the scrape answered $code"
    return 1
}
codepoints() {
    local e1 e0
    answered && num e1 "$S1" 'ecnwatch_packets_total{codepoint="ect1"}' &&
        num e0 "$S1" 'ecnwatch_packets_total{codepoint="ect0"}' || return 1
    [ "$e1" -gt 100 ] && [ "$e0" -gt 100 ] && return 0
    why="$(grep packets_total "$S1" | tr '\n' ' ')"
    return 1
}
check "ECT(1) and ECT(0) packets counted" codepoints
# every ECT(1) packet of the traffic is one UDP datagram of 800 bytes: 828
# IP bytes (traffic.py); the ECT(0) bytes are the TCP transfer's, more than
# a kilobyte a packet on average
bytes_counted() {
    local e1 b1 e0 b0
    answered && num e1 "$S1" 'ecnwatch_packets_total{codepoint="ect1"}' &&
        num b1 "$S1" 'ecnwatch_bytes_total{codepoint="ect1"}' &&
        num e0 "$S1" 'ecnwatch_packets_total{codepoint="ect0"}' &&
        num b0 "$S1" 'ecnwatch_bytes_total{codepoint="ect0"}' || return 1
    [ "$b1" = "$((e1 * 828))" ] && [ "$b0" -gt "$((e0 * 1000))" ] && return 0
    why="$(grep -E '^ecnwatch_(bytes|packets)_total' "$S1" | tr '\n' ' ')"
    return 1
}
check "bytes by codepoint: 828 per ECT(1) datagram, the TCP transfer's in ECT(0)" bytes_counted
flows_frames() {
    local fl fr
    answered && num fl "$S1" ecnwatch_flows_total && num fr "$S1" ecnwatch_frames_total || return 1
    [ "$fl" -ge 2 ] && [ "$fr" -gt 200 ] && return 0
    why="$(grep -E '^ecnwatch_(flows|frames)_total' "$S1" | tr '\n' ' ')"
    return 1
}
check "flows_total >= 2, frames counted" flows_frames
verdicts() {
    local k r u
    answered && num k "$S1" 'ecnwatch_flows{verdict="classic"}' &&
        num r "$S1" 'ecnwatch_flows_by_negotiation{negotiation="rfc3168"}' &&
        num u "$S1" 'ecnwatch_flows_by_negotiation{negotiation="not_tcp"}' || return 1
    [ "$k" -ge 1 ] && [ "$r" -ge 1 ] && [ "$u" -ge 1 ] && return 0
    why="$(grep -E '^ecnwatch_flows(\{| |_by)' "$S1" | tr '\n' ' ')"
    return 1
}
check "the TCP flow is classic and negotiated rfc3168; the UDP flow is not_tcp" verdicts
held_sum() {
    local held ev sum
    answered && num held "$S1" ecnwatch_flows_held && num ev "$S1" ecnwatch_flows_evaluated || return 1
    sum=$(awk '/^ecnwatch_flows\{/ { s += $2; n++ } END { if (n) print s }' "$S1")
    [ "$held" = "$sum" ] && [ "$ev" = "$held" ] && return 0
    why="held $held, sum '$sum', evaluated $ev"
    return 1
}
begin "the verdict gauges add up to the flows held"
if held_sum; then ok "the verdict gauges add up to the flows held ($(val "$S1" ecnwatch_flows_held))"; else
    bad "the verdict gauges add up to the flows held: $why"
fi
capture_stats() {
    local rcv fr dr
    answered && num rcv "$S1" ecnwatch_capture_received_total && num fr "$S1" ecnwatch_frames_total &&
        num dr "$S1" ecnwatch_capture_dropped_total || return 1
    [ "$rcv" -ge "$fr" ] && [ "$dr" -ge 0 ] && return 0
    why="$(grep capture "$S1" | tr '\n' ' ')"
    return 1
}
check "capture received/dropped from pcap_stats" capture_stats
begin "ecnwatch_info names the version and s0"
grep -qE '^ecnwatch_info\{version="[0-9.]+",interface="s0"\} 1$' "$S1" 2>/dev/null && ok "ecnwatch_info names the version and s0" ||
    bad "ecnwatch_info: the line is: $(grep ecnwatch_info "$S1" 2>&1 | tr '\n' ' ')"
# the same series as the one-flow capture's file, and the two capture
# counters: a fixed set, whatever the traffic
nseries=$(grep -vc "^#" "$S1" 2>/dev/null)
noff=$(grep -vc "^#" "$OFF" 2>/dev/null)
begin "no per-flow labels"
if answered && [ "$nseries" -gt 0 ] && ! grep -qE '^ecnwatch_[a-z_]+\{[^}]*(10\.78|port|flow=)' "$S1" &&
    [ "$nseries" = $((noff + 2)) ]; then
    ok "no per-flow labels: $nseries series, as many as the one-flow capture's and the capture counters"
else
    bad "per-flow series ($nseries series, the one-flow capture's $noff) ${why}"
fi

# HTTP: content type, 404 elsewhere, 405 for other methods, HEAD
begin "Content-Type: text/plain; version=0.0.4"
hdr=$(bounded 10 ip netns exec "$NS_S" curl -s -m 5 -D - -o /dev/null "http://127.0.0.1:$PORT/metrics" | tr -d '\r')
echo "$hdr" | grep -qi '^content-type: text/plain; version=0.0.4' && ok "Content-Type: text/plain; version=0.0.4" ||
    bad "Content-Type: the headers are: $(echo "$hdr" | tr '\n' ' ')"
begin "/foo, / and /metrics/x: 404"
c1=$(scrape /foo /dev/null) c2=$(scrape / /dev/null) c3=$(scrape /metrics/x /dev/null)
[ "$c1" = 404 ] && [ "$c2" = 404 ] && [ "$c3" = 404 ] &&
    ok "/foo, / and /metrics/x: 404" || bad "not 404 elsewhere: /foo $c1, / $c2, /metrics/x $c3"
begin "POST: 405; HEAD: 200"
c1=$(bounded 10 ip netns exec "$NS_S" curl -s -m 5 -o /dev/null -w '%{http_code}' -X POST -d x "http://127.0.0.1:$PORT/metrics")
c2=$(bounded 10 ip netns exec "$NS_S" curl -s -m 5 -o /dev/null -w '%{http_code}' -I "http://127.0.0.1:$PORT/metrics")
[ "$c1" = 405 ] && [ "$c2" = 200 ] && ok "POST: 405; HEAD: 200" || bad "POST/HEAD: POST $c1, HEAD $c2"
begin "a query string is ignored"
c1=$(scrape '/metrics?x=1' /dev/null)
[ "$c1" = 200 ] && ok "a query string is ignored" || bad "a query string is ignored: HTTP $c1"
# bound exactly to 127.0.0.1 (which answers): not on the namespace's other
# address, not from the client
begin "listens on 127.0.0.1 only"
c1=$(scrape /metrics /dev/null)
if [ "$c1" = 200 ] && no_answer "$NS_S" "http://10.78.0.2:$PORT/metrics" &&
    no_answer "$NS_C" "http://10.78.0.2:$PORT/metrics"; then
    ok "listens on 127.0.0.1 only"
else
    bad "listens on 127.0.0.1 only: 127.0.0.1 answers $c1, or 10.78.0.2 answers"
fi
# a client that connects and says nothing (for as long as this check lasts)
# does not stall the capture
name="a silent connection stalls neither scrapes nor capture"
begin "$name"
bounded 60 ip netns exec "$NS_S" python3 -c "
import socket, sys, time
s = socket.create_connection(('127.0.0.1', $PORT), timeout=5)
print('connected', flush=True)
time.sleep(40)" >"$tmp/idle.out" 2>&1 &
idle=$!
bg="$bg $idle"
end=$((SECONDS + 20))
until grep -q connected "$tmp/idle.out" || ! kill -0 $idle 2>/dev/null || [ $SECONDS -ge $end ]; do sleep 0.1; done
why=""
f1="" f2="" c1=""
if ! grep -q connected "$tmp/idle.out"; then
    why="no silent connection: $(oneline "$tmp/idle.out" 200)"
elif num f1 "$MF" ecnwatch_frames_total && traffic 1; then
    # the frames counted while the silent connection stays open
    end=$((SECONDS + 10))
    while [ $SECONDS -lt $end ]; do
        num f2 "$MF" ecnwatch_frames_total && [ "$f2" -gt "$f1" ] && break
        sleep 0.2
    done
    c1=$(scrape /metrics /dev/null)
fi
if grep -q connected "$tmp/idle.out" && kill -0 $idle 2>/dev/null && [ "$c1" = 200 ] && isnum "$f1" && isnum "$f2" &&
    [ "$f2" -gt "$f1" ]; then
    ok "$name"
else
    bad "silent connection: $f1 -> $f2, scrape $c1 $why"
fi
kill $idle 2>/dev/null
wait_bounded 10 $idle

begin "SIGTERM: exit 0"
why=""
if ! kill -TERM $ewpid 2>/dev/null; then
    # it must still be running to be stopped (a binary that ended at once is no exporter)
    bad "SIGTERM: ecnwatch had already ended"
    wait_rc 20 $ewpid
else
    wait_rc 20 $ewpid
    [ "$rc" = 0 ] && ok "SIGTERM: exit 0" || bad "SIGTERM: exit $rc $why: $(oneline "$tmp/ew.err")"
fi
final_counts() {
    local mf mfl me1 rf rfl re1
    num mf "$MF" ecnwatch_frames_total && num mfl "$MF" ecnwatch_flows_total &&
        num me1 "$MF" 'ecnwatch_packets_total{codepoint="ect1"}' || return 1
    rf=$(jq_get "$tmp/report.json" .totals.frames) && rfl=$(jq_get "$tmp/report.json" .totals.flows) &&
        re1=$(jq_get "$tmp/report.json" .totals.ecn.ect1) || { why="the -o report: $why"; return 1; }
    [ "$mf" = "$rf" ] && [ "$mfl" = "$rfl" ] && [ "$me1" = "$re1" ] && return 0
    why="frames $mf vs $rf, flows $mfl vs $rfl, ect1 $me1 vs $re1"
    return 1
}
check "the file's final counts equal the -o report's totals" final_counts
# the live run's diagnosis as its -o report says it: the TCP transfer's data
# direction has a path (and the client's direction none: it sends no data
# back), and its delay is in the histogram where it was timed
final_diagnosis() {
    local d
    [ -s "$tmp/report.json" ] || { why="no -o report"; return 1; }
    if ! d=$(diff <(from_report "$tmp/report.json") <(diag_lines "$MF" | grep -v '^#')); then
        why="the report says < the metrics say >: $(echo "$d" | head -6 | tr '\n' ' ')"
        return 1
    fi
    [ "$(awk '/^ecnwatch_flow_directions_by_path\{/ { s += $2 } END { print s + 0 }' "$MF")" -ge 1 ] ||
        { why="no direction with a path"; return 1; }
}
check "the file's final diagnosis (paths, bottlenecks, queueing delay) is the -o report's" final_diagnosis
begin "no temporary file left beside it"
[ "$(ls -A "$tmp/m")" = ecnwatch.prom ] && ok "no temporary file left beside it" || bad "no temporary file left beside it: the folder holds '$(ls -A "$tmp/m" | tr '\n' ' ')'"
begin "the file is readable by others (the textfile collector)"
[ "$(stat -c %A "$MF" 2>/dev/null | cut -c8)" = r ] && ok "the file is readable by others (the textfile collector)" ||
    bad "the file readable by others: mode $(stat -c %a "$MF" 2>&1)"
check "the NDJSON stream still flows beside the metrics" \
    jq_true "$tmp/out.ndjson" 'any(.[]; .event == "flow_update") and .[-1].event == "summary"' -s

# Held connections cannot silence the endpoint: while one address (127.0.0.1)
# holds 300 connections, half of them sending a header line a second and
# never ending the request (slowloris), half idle, a scraper from another
# loopback address (127.0.0.2) is answered every second for 30 s.
HOLD=$(cd "$(dirname "$0")" && pwd)/holdconns.py
# the holders run long (a loaded machine makes 30 scrapes slow) and are
# stopped once the scrapes are done: SIGTERM to holdconns, the child of
# bounded's timeout (ip netns exec runs it in its place); it prints its
# line and ends
stop_holder() {
    pkill -TERM -P "$1" 2>/dev/null
    wait_bounded 20 "$1"
}
begin "300 held connections from one address: scrapes from another answered every second for 30 s"
ip netns exec "$NS_S" "$EW" -i s0 -q --interval 0.5 --metrics "127.0.0.1:$PORT" >/dev/null 2>"$tmp/held.err" &
heldpid=$!
bg="$bg $heldpid"
if ! wait_http 30 "$NS_S" "http://127.0.0.1:$PORT/metrics" $heldpid; then
    bad "held connections: the endpoint never answered: $(oneline "$tmp/held.err")"
else
    bounded 200 ip netns exec "$NS_S" python3 "$HOLD" 127.0.0.1 127.0.0.1 "$PORT" 300 180 >"$tmp/hold.out" 2>&1 &
    holdpid=$!
    bg="$bg $holdpid"
    sleep 3 # the connections are opened and the request lines sent
    answered=0 tries=0 codes=""
    for i in $(seq 30); do
        t0=$(date +%s%N)
        c=$(bounded 10 ip netns exec "$NS_S" curl -s -m 2 --interface 127.0.0.2 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")
        tries=$((tries + 1))
        [ "$c" = 200 ] && answered=$((answered + 1)) || codes="$codes $i:$c"
        left=$((1000 - ($(date +%s%N) - t0) / 1000000))
        [ $left -gt 0 ] && sleep "$(awk -v l=$left 'BEGIN { print l / 1000 }')"
    done
    holding=$(kill -0 $holdpid 2>/dev/null && echo yes || echo "no ($(oneline "$tmp/hold.out"))")
    if [ $answered = 30 ] && [ "$holding" = yes ]; then
        ok "300 held connections from one address: scrapes from another answered every second for 30 s"
    else
        bad "held connections: $answered of $tries scrapes answered (failed:$codes); the holder still running: $holding"
    fi
    stop_holder $holdpid
fi
kill -TERM $heldpid 2>/dev/null
wait_bounded 20 $heldpid
# Slow clients from many addresses cannot keep a scraper out either: 49
# addresses of the client's namespace (10.78.0.101 to .149) each hold 10
# connections (slowloris, as above) and open them again as soon as they are
# closed, against the server's address; a scraper on another address
# (10.78.0.200) sends its request whole at once and must be answered in at
# least 29 of 30 scrapes, one a second.
name="49 addresses of slow connections: a scraper on another is answered (29 of 30 at least)"
begin "$name"
srcs=""
for i in $(seq 101 149) 200; do
    netns_step ip -n "$NS_C" addr add "10.78.0.$i/24" dev c0
    [ "$i" = 200 ] || srcs="$srcs${srcs:+,}10.78.0.$i"
done
if [ -n "$_ew_setup" ]; then
    bad "$name: the addresses: $why"
else
    ip netns exec "$NS_S" "$EW" -i s0 -q --interval 0.5 --metrics "$SERVER:$PORT" not tcp port "$PORT" \
        >/dev/null 2>"$tmp/many.err" &
    manypid=$!
    bg="$bg $manypid"
    if ! wait_http 30 "$NS_C" "http://$SERVER:$PORT/metrics" $manypid; then
        bad "$name: the endpoint never answered: $(oneline "$tmp/many.err")"
    else
        bounded 200 ip netns exec "$NS_C" python3 "$HOLD" "$srcs" "$SERVER" "$PORT" 10 180 >"$tmp/hold49.out" 2>&1 &
        holdpid=$!
        bg="$bg $holdpid"
        sleep 5 # every connection opened, the slots taken, the evictions under way
        answered=0 codes=""
        for i in $(seq 30); do
            t0=$(date +%s%N)
            c=$(bounded 10 ip netns exec "$NS_C" curl -s -m 2 --interface 10.78.0.200 -o "$tmp/s49.txt" \
                -w '%{http_code}' "http://$SERVER:$PORT/metrics")
            if [ "$c" = 200 ] && grep -q '^ecnwatch_frames_total ' "$tmp/s49.txt"; then
                answered=$((answered + 1))
            else
                codes="$codes $i:$c"
            fi
            left=$((1000 - ($(date +%s%N) - t0) / 1000000))
            [ $left -gt 0 ] && sleep "$(awk -v l=$left 'BEGIN { print l / 1000 }')"
        done
        holding=$(kill -0 $holdpid 2>/dev/null && echo yes || echo "no ($(oneline "$tmp/hold49.out"))")
        held=$(ip netns exec "$NS_S" ss -Htn state established "sport = :$PORT" 2>/dev/null | wc -l)
        if [ $answered -ge 29 ] && [ "$holding" = yes ] && [ "$held" -ge 100 ]; then
            ok "$name: $answered of 30 answered ($held connections held at the end)"
        else
            bad "$name: $answered of 30 scrapes answered (failed:$codes); $held connections held; the holder still running: $holding"
        fi
        stop_holder $holdpid
        echo "     ($(oneline "$tmp/hold49.out"))"
    fi
    kill -TERM $manypid 2>/dev/null
    wait_bounded 20 $manypid
fi
# a wildcard address, also as the exporters spell it (":PORT"): a warning
for spec in "0.0.0.0:$PORT" ":$PORT"; do
    begin "a wildcard --metrics address ($spec): a warning on standard error"
    ip netns exec "$NS_S" "$EW" -i s0 -q --metrics "$spec" >/dev/null 2>"$tmp/wild.err" &
    wildpid=$!
    bg="$bg $wildpid"
    end=$((SECONDS + 20))
    while [ $SECONDS -lt $end ] && ! grep -q warning "$tmp/wild.err" 2>/dev/null; do
        kill -0 $wildpid 2>/dev/null || break
        sleep 0.1
    done
    kill -TERM $wildpid 2>/dev/null
    wait_bounded 20 $wildpid
    if grep -q '^ecnwatch: warning: --metrics 0.0.0.0:'"$PORT"' serves the metrics on every address' "$tmp/wild.err"; then
        ok "a wildcard --metrics address ($spec): a warning on standard error"
    else
        bad "a wildcard --metrics address ($spec): no warning: $(oneline "$tmp/wild.err")"
    fi
done
# localhost:PORT is 127.0.0.1:PORT: served there, with no warning
begin "--metrics localhost:$PORT serves 127.0.0.1"
ip netns exec "$NS_S" "$EW" -i s0 -q --metrics "localhost:$PORT" >/dev/null 2>"$tmp/lh.err" &
lhpid=$!
bg="$bg $lhpid"
code=000
if wait_port 20 "$PORT" "$NS_S"; then
    code=$(scrape /metrics "$tmp/lh.txt")
fi
kill -TERM $lhpid 2>/dev/null
wait_bounded 20 $lhpid
if [ "$code" = 200 ] && grep -q '^ecnwatch_frames_total' "$tmp/lh.txt" && ! grep -q warning "$tmp/lh.err"; then
    ok "--metrics localhost:$PORT serves 127.0.0.1"
else
    bad "--metrics localhost:$PORT: HTTP $code; stderr: $(oneline "$tmp/lh.err")"
fi

# IPv6 loopback; a port in use is exit 3 with one line
begin "[::1]:$PORT serves /metrics"
ip netns exec "$NS_S" "$EW" -i s0 -q --metrics "[::1]:$PORT" >/dev/null 2>"$tmp/v6.err" &
v6pid=$!
bg="$bg $v6pid"
code=000
end=$((SECONDS + 30))
while [ $SECONDS -lt $end ]; do
    code=$(bounded 10 ip netns exec "$NS_S" curl -s -m 2 -g -o "$tmp/v6.txt" -w '%{http_code}' "http://[::1]:$PORT/metrics")
    [ "$code" = 200 ] && break
    kill -0 $v6pid 2>/dev/null || break
    sleep 0.1
done
[ "$code" = 200 ] && wellformed "$tmp/v6.txt" >/dev/null && ok "[::1]:$PORT serves /metrics" ||
    bad "[::1]:$PORT serves /metrics: HTTP $code $(oneline "$tmp/v6.err")"
begin "[::1] is IPv6 only"
c1=$(bounded 10 ip netns exec "$NS_S" curl -s -m 2 -g -o /dev/null -w '%{http_code}' "http://[::1]:$PORT/metrics")
[ "$c1" = 200 ] && no_answer "$NS_S" "http://127.0.0.1:$PORT/metrics" && ok "[::1] is IPv6 only" ||
    bad "[::1] answers $c1, or 127.0.0.1 answers too"
EW_CMD_TIMEOUT=10 expect "port in use -> 3" 3 "--metrics \[::1\]:$PORT: cannot listen: Address already in use" -- \
    ip netns exec "$NS_S" "$EW" -i s0 --metrics "[::1]:$PORT"
kill -TERM $v6pid 2>/dev/null
wait_bounded 20 $v6pid
EW_CMD_TIMEOUT=10 expect "address not on this host -> 3" 3 "cannot listen: Cannot assign requested address" -- \
    ip netns exec "$NS_S" "$EW" -i s0 --metrics "192.0.2.1:$PORT"
# the metrics file's folder missing: exit 4 at once, before any packet (a
# root-owned folder is written, as root's: the outputs are settled before
# privileges are dropped, tests/readme.sh)
EW_CMD_TIMEOUT=10 expect "missing metrics folder -> 4" 4 "m.prom: cannot write the metrics: No such file or directory" -- \
    ip netns exec "$NS_S" "$EW" -i s0 --ndjson --metrics-file "$tmp/no/such/m.prom"

finish metrics
