#!/usr/bin/env bash
# pathdiag.sh BUILD - which kind of AQM marked each flow, where, the
# L4S-against-classic picture of flows sharing a bottleneck, time series and
# plots. Real captures (the lab router marks ECT(1) above 1 ms, or any ECT
# above 5 ms; two flows at once through a DualQ or a FIFO) and generated ones
# (tcpgen's queue model). The plots are
# rendered in headless Chromium and the screenshot must not be blank.
# A generator or helper tool that fails is a failure, never a pass.
# Ends "pathdiag: N passed, N failed".
. "$(dirname "$0")/lib.sh"
GEN=$BUILD/gen/pathdiag
mkdir -p "$GEN"

# need NAME CMD...: a step that is not ecnwatch's (a generator, mergecap):
# not counted when it works, a failure when it does not
need() {
    local name=$1 rc
    shift
    begin "$name"
    bounded 120 "$@" >"$tmp/need.out" 2>&1
    rc=$?
    [ $rc = 0 ] && return 0
    bad "$name: exit $rc ($(head -c 200 "$tmp/need.out" | tr '\n' ' '))"
    return 1
}
tg() { # tg NAME tcpgen-args...: the capture in $cap
    local name=$1
    shift
    cap=$GEN/$name.pcap
    rm -f "$cap"
    need "tcpgen $*" "$BUILD/tcpgen" "$1" "$2" "$cap" "${@:3}" || return 1
    [ -s "$cap" ] || { bad "tcpgen $*: no capture written"; return 1; }
}

value_is() { # value_is CAPTURE JQ-EXPR WANT [ecnwatch options]: EXPR over the report, read raw, is WANT
    local f=$1 e=$2 want=$3 got
    shift 3
    [ -s "$f" ] || { why="no capture $f"; return 1; }
    ew_json "$tmp/r.json" -r "$f" --json "$@" || return 1
    got=$(jq_get "$tmp/r.json" "$e" -r) || return 1
    [ "$got" = "$want" ] || { why="got '$got', want '$want'"; return 1; }
}
report_true() { # report_true CAPTURE JQ-EXPR [ecnwatch options]: EXPR over the report is true
    local f=$1 e=$2
    shift 2
    [ -s "$f" ] || { why="no capture $f"; return 1; }
    ew_json "$tmp/r.json" -r "$f" --json "$@" || return 1
    jq_true "$tmp/r.json" "$e"
}

aqm() { # aqm CAPTURE EXPECTED-AQM EXPECTED-MARKING
    check "$(basename "$1"): $2 $3" value_is "$1" '.flows[0].c2s.path | "\(.aqm) \(.marking)"' "$2 $3"
}

C=captures
# real: at the sender, the RTT shows the queue each mark was fed back from;
# one flow's capture cannot show whether its queue is shared: "classic"
aqm $C/accecn-l4s-client.pcap  l4s_shallow          downstream
aqm $C/accecn-ce-client.pcap   classic              downstream
# Not-ECT data cannot be marked (an AQM drops it): no marks name no queue,
# though this one queued up to 54 ms
aqm $C/no-ecn-client.pcap      unknown              none
# RFC 3168 feeds back one mark a congestion episode (ECE until CWR): the
# sender sees 2 of the router's 24 marks, too few to name the AQM
aqm $C/rfc3168-ce-client.pcap  unknown              downstream
check "rfc3168-ce-client.pcap: too few marks, said so" report_true $C/rfc3168-ce-client.pcap \
    '.flows[0].c2s.path | .confidence == null and (.reason | test("too few to name the AQM")) and
     .marks_with_qdelay < 10'
# real: at the receiver the marks are seen (upstream) and the queue they
# crossed is timed by TCP timestamps (RFC 7323 §3, as pping): the sender's
# echo of the receiver's TSval crossed the bottleneck; the same verdict as
# at the sender
aqm $C/accecn-ce-server.pcap   classic              upstream
aqm $C/rfc3168-sce-server.pcap sce                  upstream
# a classic AQM marks when its queue is long: most marks above the median
# delay (the lab router marks above 5 ms of tbf backlog)
check "accecn-ce-server.pcap: the marks line up with the delay" report_true $C/accecn-ce-server.pcap \
    '.flows[0].c2s.path | .confidence == "likely" and .marks_above_median >= 0.6 and
     .marks_with_qdelay >= 10 and .qdelay_samples >= 10'
# generated (tcpgen's classic AQM marks the upper half of its queue's swing)
tg prague-shallow prague sender                  && aqm "$cap" l4s_shallow downstream
tg classic-deep classic sender --segments 4000   && aqm "$cap" classic     downstream
tg classic-short classic sender                  && aqm "$cap" unknown     downstream
tg sce-runs sce receiver                         && aqm "$cap" sce         upstream
# an L4S flow alone through a classic AQM loses its low latency, a path note;
# the harm of RFC 9331 §4.3 needs a classic flow in the same queue (below)
if tg prague-classic prague sender --qdelay 8 --mark-p 0.03 --segments 4000; then
    aqm "$cap" classic downstream
    check "an L4S flow alone under a classic AQM: a path note, no finding" report_true "$cap" \
        '(.flows | length) == 1 and .flows[0].misuse == [] and
         (.flows[0].c2s.path.note | test("low latency is lost"))'
fi
tg prague-shallow2 prague sender &&
    check "an L4S flow under a shallow AQM is not" report_true "$cap" \
        '.schema == "ecnwatch.report/1" and (.flows | length) == 1 and .flows[0].verdict == "l4s" and
         .flows[0].misuse == []'

# shared bottleneck: a DualQ against one shared queue, two seconds of both
# (the flows are compared over their overlap, interval by interval: a tenth
# of a second of it shows neither whose delays move together)
for kind in dualq single; do
    want=$([ $kind = dualq ] && echo dualq || echo single_queue)
    tg pair-$kind prague sender --pair $kind --segments 4000 &&
        check "two flows through a $kind: $want" value_is "$cap" \
            '.bottlenecks | length as $n | .[0] | "\($n) \(.looks_like) \(.l4s.flows) \(.classic.flows)"' "1 $want [1] [2]"
done
# the same pairs with TCP timestamps (tcpgen --ts), from either side: next to
# the receiver the queue is timed as pping does, the first TSval one way
# against the first TSecr echoing it (RFC 7323 §3), so that both sides agree.
# Field captures: L4STeam CUBIC + Prague through DualPI2 and through a
# single-queue CoDel, captured next to the receiver (tests/field.sh).
for kind in dualq single; do
    want=$([ $kind = dualq ] && echo dualq || echo single_queue)
    l4s=$([ $kind = dualq ] && echo l4s_shallow || echo classic_single_queue)
    cl=$([ $kind = dualq ] && echo dualq_classic || echo classic_single_queue)
    for side in sender receiver; do
        tg pair-$kind-ts-$side prague $side --pair $kind --ts 1 --segments 4000 &&
            check "two flows through a $kind, timestamps, at the $side: $want, paths $l4s and $cl" \
                value_is "$cap" '. as $r | .bottlenecks | length as $n | .[0] as $b |
                    ([.[0].l4s.flows[0], .[0].classic.flows[0]] | map(. as $i | $r.flows[] | select(.id == $i) | .c2s.path.aqm)) as $p |
                    "\($n) \($b.looks_like) \($p[0]) \($p[1])"' "1 $want $l4s $cl"
    done
done
# without timestamps, next to the receiver: the marking alone. RFC 9332 §2.1
# couples p_C = (p_L/2)^2: ECT(1) CE-marked on 12 % of packets, ECT(0) on
# 1 % (the coupling predicts 0.4 %), 4.9 marks per RTT: a DualQ
tg pair-dualq-nots-receiver prague receiver --pair dualq &&
    check "a DualQ from its marking alone, next to the receiver" value_is "$cap" \
        '.bottlenecks | "\(length) \(.[0].looks_like) \(.[0].l4s.qdelay_ms)"' "1 dualq null"
# at a low rate even an L4S queue holds a few packets: 7 ms of queue where a
# segment takes 2.4 ms (5 Mbit/s, as the L4STeam oneflow-5Mbit capture
# through DualPI2) is L4S-shallow; the same 7 ms at 23 Mbit/s is classic
if tg prague-lowrate prague sender --gap 2.4 --qdelay 7 --mark-p 0.1 --ts 1; then
    aqm "$cap" l4s_shallow downstream
    check "no classic_aqm_under_l4s through a shallow queue at 5 Mbit/s" report_true "$cap" \
        '(.flows | length) == 1 and .flows[0].misuse == [] and .flows[0].c2s.path.serialisation_ms > 2'
fi
tg prague-highrate prague sender --qdelay 7 --mark-p 0.1 --ts 1 && aqm "$cap" classic downstream
# marked several times a round trip (an L4S AQM's rate, RFC 9332 §2.1) at a
# delay up to twice the shallow limit: a bursty link, not a classic AQM (the
# heistp Prague-over-Wi-Fi capture through DualPI2, captures/field/: 2.0
# marks per RTT at 7.0 ms against 4.6 ms; field.sh checks it has no finding)
tg prague-bursty prague sender --qdelay 3.5 --mark-p 0.1 --ts 1 && aqm "$cap" l4s_shallow downstream
# the same delay with a classic AQM's rare marks is a classic AQM
tg prague-bursty-rare prague sender --qdelay 3.5 --mark-p 0.002 --ts 1 --segments 8000 &&
    aqm "$cap" classic downstream

# real: an L4S flow (port 5001) and a classic one (5002) at once through the
# lab router's DualQ, its FIFO, and a FIFO with the L4S thresholds but no L
# queue (captures/lab/record-shared.sh; the expected answer is in the spec)
ratio_marks() { # ratio_marks SCENARIO
    local lab=$C/lab/shared-$1
    json_ok "$lab-marks-summary.json" || { why="$lab-marks-summary.json: $why"; return 1; }
    ew_json "$tmp/r.json" -r "$C/shared-$1-server.pcap" --json || return 1
    jq_true "$tmp/r.json" '
        ($t[0].l4s.sender.mbit / $t[0].classic.sender.mbit) as $want |
        (.bottlenecks[0].throughput_ratio_l4s_to_classic / $want - 1 | fabs) < 0.1 and
        ([.flows[] | [.server.port, .c2s.path.marks]] | sort) == [[5001, $t[0].l4s.marks], [5002, $t[0].classic.marks]]' \
        --slurpfile t "$lab-marks-summary.json" ||
        { why="ratio or marks differ from $lab-marks-summary.json: $why"; return 1; }
}
per_flow() { # per_flow SCENARIO LOOKS-LIKE
    local flag l4s_aqm cl_aqm=classic_single_queue
    if [ "$2" = dualq ]; then flag='[]'; l4s_aqm='!= "classic_single_queue"'; else
        flag='["classic_aqm_under_l4s"]'; l4s_aqm='== "classic_single_queue"'; fi
    # the classic flow through a DualQ is in its classic queue (RFC 9332 §2.1)
    [ "$2" = dualq ] && cl_aqm=dualq_classic
    # one FIFO marking ECT(1) above 1 ms (captures/README §7): the marking is
    # L4S-shallow, and the L4S flow gets a tenth of the classic flow's
    # throughput (the router's own counts): not the harm of RFC 9331 §4.3
    [ "$1" = fifo-two-thresholds ] && { flag='[]'; l4s_aqm='== "l4s_shallow"'; }
    ew_json "$tmp/r.json" -r "$C/shared-$1-client.pcap" --json || return 1
    jq_true "$tmp/r.json" "
        ([.flows[].server.port] | sort) == [5001, 5002] and
        (.flows[] | select(.server.port == 5002) | .c2s.path.aqm == \"$cl_aqm\" and .misuse == []) and
        (.flows[] | select(.server.port == 5001) | .verdict == \"l4s\" and (.c2s.path.aqm $l4s_aqm) and
            ([.misuse[].kind] == $flag))" ||
        { why="$why; per flow: $(jq -c '[.flows[] | [.server.port, .c2s.path.aqm, [.misuse[].kind]]]' "$tmp/r.json" 2>&1 | head -c 300)"; return 1; }
}
BN='. as $r | def ports($ids): [$ids[] as $i | $r.flows[] | select(.id == $i) | .server.port];
    .bottlenecks | length as $n | .[0] | "\($n) \(.looks_like) \(ports(.l4s.flows)) \(ports(.classic.flows))"'
for s in dualq single fifo-two-thresholds; do
    lab=$C/lab/shared-$s
    why=""
    if ! want=$(jq_get "$lab-spec.json" .expect_looks_like -r) || [ "$want" = null ]; then
        bad "shared-$s: no expected answer in $lab-spec.json${why:+: $why}"
        continue
    fi
    check "shared-$s at the senders: $want" value_is "$C/shared-$s-client.pcap" "$BN" "1 $want [5001] [5002]"
    # next to the receivers the queue is timed by TCP timestamps: the same answer
    check "shared-$s at the receivers: $want" value_is "$C/shared-$s-server.pcap" "$BN" "1 $want [5001] [5002]"
    # the throughput ratio as the senders counted it, and every router mark seen at the receivers
    check "shared-$s: throughput ratio and marks as the senders and the router counted" ratio_marks "$s"
    # per flow, at the senders: the classic flow is marked by a classic (deep)
    # AQM; the L4S flow too, and flagged, unless it has a queue of its own
    if [ "$want" = dualq ] || [ $s = fifo-two-thresholds ]; then flag='[]'; else flag='["classic_aqm_under_l4s"]'; fi
    check "shared-$s: per-flow path verdicts; classic_aqm_under_l4s $([ "$flag" = '[]' ] && echo 'not ')on the L4S flow" \
        per_flow "$s" "$want"
done
check "one flow alone is no shared bottleneck" report_true "$C/rfc3168-ce-client.pcap" \
    '.schema == "ecnwatch.report/1" and (.flows | length) == 1 and .bottlenecks == []'


# time series: only when asked, bins of the chosen interval, every row the same columns
check "--timeseries: 50 ms bins with throughput, shares, RTT, the queueing delay's quantiles" report_true "$C/accecn-l4s-client.pcap" \
    '.flows[0].timeseries | .columns == ["t_ms","mbps","ce_share","ect1_share","ce_per_rtt","rtt_ms","qdelay_ms","qdelay_p10_ms","qdelay_p90_ms"] and
    .c2s.interval_ms == 50 and (.c2s.bins | length) > 10 and all(.c2s.bins[]; length == 9) and
    ([.c2s.bins[][3]] | max) > 0.9 and
    all(.c2s.bins[] | select(.[6] != null); .[7] <= .[6] and .[6] <= .[8]) and
    ([.c2s.bins[] | select(.[6] != null)] | length) > 5' --timeseries --interval 0.05
# the pool holds 1024 series: of 3000 one-way flows of two packets each, 1976
# directions are refused, each once
rm -f "$GEN/syn3000-once.pcap" "$GEN/syn3000.pcap"
if need "ecngen flood 3000" "$BUILD/ecngen" flood "$GEN/syn3000-once.pcap" 3000 &&
    need "mergecap (the flood twice)" mergecap -F pcap -w "$GEN/syn3000.pcap" "$GEN/syn3000-once.pcap" "$GEN/syn3000-once.pcap"; then
    check "--timeseries: a full pool refuses each further flow direction once" report_true "$GEN/syn3000.pcap" \
        '(.flows | length) == 3000 and .totals.timeseries_refused == 1976 and
         ([.flows[] | select(has("timeseries"))] | length) == 1024' --timeseries
fi
check "no time series unless asked" report_true "$C/accecn-l4s-client.pcap" \
    '.schema == "ecnwatch.report/1" and (.flows | length) == 1 and (.flows[0] | has("timeseries") | not)'
ndjson_series() {
    run_ew 0 "$tmp/events" "$tmp/events.err" "$EW" -r "$C/accecn-l4s-client.pcap" --ndjson --timeseries || return 1
    jq_true "$tmp/events" '[.[] | select(.event == "flow_end")][0].flow | has("timeseries")' -s
}
check "--ndjson flow_end events carry the time series" ndjson_series

# plots: an SVG per flow and an index, well-formed; rendered, not blank
plots() {
    [ -s "$GEN/pair-dualq.pcap" ] || { why="no capture $GEN/pair-dualq.pcap"; return 1; }
    rm -rf "$tmp/plots"
    run_ew 0 "$tmp/plot.out" "$tmp/plot.err" "$EW" -r "$GEN/pair-dualq.pcap" -q --plot "$tmp/plots" || return 1
    if ! [ -f "$tmp/plots/index.html" ] || ! [ -f "$tmp/plots/flow-1.svg" ] || ! [ -f "$tmp/plots/flow-2.svg" ]; then
        why="--plot output: $(ls "$tmp/plots" 2>&1 | tr '\n' ' ')"
        return 1
    fi
    if ! bounded 60 python3 -c 'import sys, xml.etree.ElementTree as E
for f in sys.argv[1:]:
    r = E.parse(f).getroot()
    assert r.tag.endswith("svg"), f
    assert len(r.findall(".//{http://www.w3.org/2000/svg}polyline")) >= 4, f' "$tmp"/plots/*.svg >"$tmp/py.err" 2>&1; then
        why="an SVG is not well-formed or has too few lines: $(tail -1 "$tmp/py.err")"
        return 1
    fi
    grep -q 'href="flow-1.svg"' "$tmp/plots/index.html" || { why="index.html does not link flow-1.svg"; return 1; }
    plotted=1
}
plotted=0
check "--plot writes well-formed SVGs and an index" plots
render() {
    local browser
    # only a plot that ecnwatch wrote and that was found well-formed above
    [ "$plotted" = 1 ] || { why="no plot to render (--plot failed above)"; return 1; }
    browser=$(command -v chromium || command -v chromium-browser) ||
        { why="no Chromium to render the plot (scripts/install-deps.sh installs it)"; return 1; }
    rm -f "$tmp/shot.png"
    bounded 60 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$tmp/profile" --window-size=900,560 --screenshot="$tmp/shot.png" \
        "file://$tmp/plots/flow-1.svg" >"$tmp/chromium.log" 2>&1
    [ -s "$tmp/shot.png" ] || { why="no screenshot from Chromium: $(tail -2 "$tmp/chromium.log" | tr '\n' ' ' | head -c 200)"; return 1; }
    # not blank: the decoded image holds many different pixel values
    bounded 60 python3 - "$tmp/shot.png" <<'PY' || { why="the Chromium screenshot is blank"; return 1; }
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IHDR":
        w = struct.unpack(">I", data[pos + 8:pos + 12])[0]
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
colours = set(raw[i:i + 3] for i in range(1, min(len(raw), 4 * w * 400), 4))
sys.exit(0 if len(colours) > 20 else 1)
PY
}
check "the plot renders in headless Chromium, not blank" render

finish pathdiag
