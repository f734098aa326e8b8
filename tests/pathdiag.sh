#!/usr/bin/env bash
# pathdiag.sh BUILD - which kind of AQM marked each flow, where, the
# L4S-against-classic picture of flows sharing a bottleneck, time series and
# plots. Real captures (the lab router marks ECT(1) above 1 ms, or any ECT
# above 5 ms; two flows at once through a DualQ or a FIFO) and generated ones
# (tcpgen's queue model). The plots are
# rendered in headless Chromium and the screenshot must not be blank.
# Ends "pathdiag: N passed, N failed".
set -u
BUILD=$1
EW=$BUILD/ecnwatch
GEN=$BUILD/gen/pathdiag
mkdir -p "$GEN"
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

aqm() { # aqm CAPTURE EXPECTED-AQM EXPECTED-MARKING
    local got
    got=$("$EW" -r "$1" --json 2>/dev/null | jq -r '.flows[0].c2s.path | "\(.aqm) \(.marking)"')
    [ "$got" = "$2 $3" ] && ok "$(basename "$1"): $got" || bad "$(basename "$1"): got '$got', want '$2 $3'"
}
tg() { # tg NAME tcpgen-args... -> path
    local name=$1
    shift
    "$BUILD/tcpgen" "$1" "$2" "$GEN/$name.pcap" "${@:3}" >/dev/null 2>&1 || bad "tcpgen $*"
    echo "$GEN/$name.pcap"
}

C=captures
# real: at the sender, the RTT shows the queue each mark was fed back from
aqm $C/accecn-l4s-client.pcap  l4s_shallow          downstream
aqm $C/accecn-ce-client.pcap   classic_single_queue downstream
aqm $C/rfc3168-ce-client.pcap  classic_single_queue downstream
aqm $C/no-ecn-client.pcap      none_seen            none
# real: at the receiver the marks are seen (upstream) but the queue is not measurable
aqm $C/accecn-ce-server.pcap   unknown              upstream
aqm $C/rfc3168-sce-server.pcap sce                  upstream
# generated
aqm "$(tg prague-shallow prague sender)"  l4s_shallow          downstream
aqm "$(tg classic-deep classic sender)"   classic_single_queue downstream
aqm "$(tg sce-runs sce receiver)"         sce                  upstream
p=$(tg prague-classic prague sender --qdelay 8 --mark-p 0.03)
aqm "$p" classic_single_queue downstream
"$EW" -r "$p" --json | jq -e '.flows[0].misuse | map(.kind) == ["classic_aqm_under_l4s"]' >/dev/null &&
    ok "an L4S flow under a classic AQM is a finding" || bad "classic_aqm_under_l4s not found"
"$EW" -r "$(tg prague-shallow2 prague sender)" --json | jq -e '.flows[0].misuse == []' >/dev/null &&
    ok "an L4S flow under a shallow AQM is not" || bad "finding on a shallow L4S flow"

# shared bottleneck: a DualQ against one shared queue
for kind in dualq single; do
    want=$([ $kind = dualq ] && echo dualq || echo single_queue)
    got=$("$EW" -r "$(tg pair-$kind prague sender --pair $kind)" --json |
        jq -r '.bottlenecks | length as $n | .[0] | "\($n) \(.looks_like) \(.l4s.flows) \(.classic.flows)"')
    [ "$got" = "1 $want [1] [2]" ] && ok "two flows through a $kind: $want" || bad "$kind: got '$got'"
done
# real: an L4S flow (port 5001) and a classic one (5002) at once through the
# lab router's DualQ, its FIFO, and a FIFO with the L4S thresholds but no L
# queue (captures/lab/record-shared.sh; the expected answer is in the spec)
bn() { # bn CAPTURE -> "GROUPS LOOKS_LIKE [L4S PORTS] [CLASSIC PORTS]"
    "$EW" -r "$1" --json | jq -r '. as $r | def ports($ids): [$ids[] as $i | $r.flows[] | select(.id == $i) | .server.port];
        .bottlenecks | length as $n | .[0] | "\($n) \(.looks_like) \(ports(.l4s.flows)) \(ports(.classic.flows))"'
}
for s in dualq single fifo-two-thresholds; do
    lab=$C/lab/shared-$s
    want=$(jq -r .expect_looks_like "$lab-spec.json")
    got=$(bn "$C/shared-$s-client.pcap")
    [ "$got" = "1 $want [5001] [5002]" ] && ok "shared-$s at the senders: $want" || bad "shared-$s-client: got '$got', want '1 $want [5001] [5002]'"
    # next to the receivers the marks are seen but the queue is not measurable
    got=$(bn "$C/shared-$s-server.pcap")
    [ "$got" = "1 unknown [5001] [5002]" ] && ok "shared-$s at the receivers: unknown" || bad "shared-$s-server: got '$got'"
    # the throughput ratio as the senders counted it, and every router mark seen at the receivers
    "$EW" -r "$C/shared-$s-server.pcap" --json | jq -e --slurpfile t "$lab-marks-summary.json" '
        ($t[0].l4s.sender.mbit / $t[0].classic.sender.mbit) as $want |
        (.bottlenecks[0].throughput_ratio_l4s_to_classic / $want - 1 | fabs) < 0.1 and
        ([.flows[] | [.server.port, .c2s.path.marks]] | sort) == [[5001, $t[0].l4s.marks], [5002, $t[0].classic.marks]]' >/dev/null &&
        ok "shared-$s: throughput ratio and marks as the senders and the router counted" ||
        bad "shared-$s: ratio or marks differ from $lab-marks-summary.json"
    # per flow, at the senders: the classic flow is marked by a classic (deep)
    # AQM; the L4S flow too, and flagged, unless it has a queue of its own
    if [ "$want" = dualq ]; then flag='[]'; l4s_aqm='!= "classic_single_queue"'; else
        flag='["classic_aqm_under_l4s"]'; l4s_aqm='== "classic_single_queue"'; fi
    "$EW" -r "$C/shared-$s-client.pcap" --json | jq -e "
        (.flows[] | select(.server.port == 5002) | .c2s.path.aqm == \"classic_single_queue\" and .misuse == []) and
        (.flows[] | select(.server.port == 5001) | .verdict == \"l4s\" and (.c2s.path.aqm $l4s_aqm) and
            ([.misuse[].kind] == $flag))" >/dev/null &&
        ok "shared-$s: per-flow path verdicts; classic_aqm_under_l4s $([ "$flag" = '[]' ] && echo 'not ')on the L4S flow" ||
        bad "shared-$s: per-flow path verdicts $("$EW" -r "$C/shared-$s-client.pcap" --json | jq -c '[.flows[] | [.server.port, .c2s.path.aqm, [.misuse[].kind]]]')"
done
"$EW" -r "$C/rfc3168-ce-client.pcap" --json | jq -e '.bottlenecks == []' >/dev/null &&
    ok "one flow alone is no shared bottleneck" || bad "bottleneck reported for one flow"

# time series: only when asked, bins of the chosen interval, every row the same columns
r=$("$EW" -r "$C/accecn-l4s-client.pcap" --json --timeseries --interval 0.05)
echo "$r" | jq -e '.flows[0].timeseries | .columns == ["t_ms","mbps","ce_share","ect1_share","ce_per_rtt","rtt_ms","qdelay_ms"] and
    .c2s.interval_ms == 50 and (.c2s.bins | length) > 10 and all(.c2s.bins[]; length == 7) and
    ([.c2s.bins[][3]] | max) > 0.9' >/dev/null && ok "--timeseries: 50 ms bins with throughput, shares, RTT" ||
    bad "--timeseries: $(echo "$r" | jq -c '.flows[0].timeseries' | head -c 300)"
# the pool holds 1024 series: of 3000 one-way flows of two packets each, 1976
# directions are refused, each once
"$BUILD/ecngen" flood "$GEN/syn3000-once.pcap" 3000 &&
    mergecap -F pcap -w "$GEN/syn3000.pcap" "$GEN/syn3000-once.pcap" "$GEN/syn3000-once.pcap" &&
    "$EW" -r "$GEN/syn3000.pcap" --json --timeseries |
    jq -e '.totals.timeseries_refused == 1976 and ([.flows[] | select(has("timeseries"))] | length) == 1024' >/dev/null &&
    ok "--timeseries: a full pool refuses each further flow direction once" ||
    bad "--timeseries: refused directions ($("$EW" -r "$GEN/syn3000.pcap" --json --timeseries | jq -c .totals.timeseries_refused))"
"$EW" -r "$C/accecn-l4s-client.pcap" --json | jq -e '.flows[0] | has("timeseries") | not' >/dev/null &&
    ok "no time series unless asked" || bad "time series without --timeseries"
"$EW" -r "$C/accecn-l4s-client.pcap" --ndjson --timeseries | jq -e -s '[.[] | select(.event == "flow_end")][0].flow | has("timeseries")' >/dev/null &&
    ok "--ndjson flow_end events carry the time series" || bad "no time series in --ndjson"

# plots: an SVG per flow and an index, well-formed; rendered, not blank
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$EW" -r "$GEN/pair-dualq.pcap" -q --plot "$out/plots"
if [ -f "$out/plots/index.html" ] && [ -f "$out/plots/flow-1.svg" ] && [ -f "$out/plots/flow-2.svg" ] &&
    python3 -c 'import sys, xml.etree.ElementTree as E
for f in sys.argv[1:]:
    r = E.parse(f).getroot()
    assert r.tag.endswith("svg"), f
    assert len(r.findall(".//{http://www.w3.org/2000/svg}polyline")) >= 4, f' "$out"/plots/*.svg &&
    grep -q 'href="flow-1.svg"' "$out/plots/index.html"; then
    ok "--plot writes well-formed SVGs and an index"
else
    bad "--plot output: $(ls "$out/plots" 2>&1)"
fi
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$browser" ]; then
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$out/profile" --window-size=900,560 --screenshot="$out/shot.png" \
        "file://$out/plots/flow-1.svg" >/dev/null 2>&1
    # not blank: the decoded image holds many different pixel values
    if [ -s "$out/shot.png" ] && python3 - "$out/shot.png" <<'PY'
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
    then
        ok "the plot renders in headless Chromium, not blank"
    else
        bad "the Chromium screenshot is blank or missing"
    fi
else
    bad "no Chromium to render the plot (scripts/install-deps.sh installs it)"
fi

echo "pathdiag: $pass passed, $fail failed"
[ $fail = 0 ]
