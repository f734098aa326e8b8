#!/usr/bin/env bash
# plots.sh BUILD - what --plot draws, read from the SVG text: the plots a
# person pastes into a bug report, drawn the way flent draws its own (round
# time ticks in seconds, gridlines, y ticks with units on every panel, a
# legend on every panel of more than one line), the queueing delay the AQM
# verdict rests on, RTT on an axis from near its minimum (a 0.3 ms queue on
# a 20 ms path must show), every direction that carries data, a width that
# follows the page, the same bytes for the same capture. The plots are then
# rendered in headless Chromium at two widths; the screenshots stay in
# $EW_TEST_LOGS (BUILD/test-logs by default) and their paths are printed.
# Ends "plots: N passed, N failed".
. "$(dirname "$0")/lib.sh"
GEN=$BUILD/gen/plots
LOGS=${EW_TEST_LOGS:-$BUILD/test-logs}/plots
mkdir -p "$GEN" "$LOGS"
LOGS=$(cd "$LOGS" && pwd)
C=captures

# the captures: a Prague sender on a 20 ms path (tcpgen's queue model, RTT
# timed from timestamps), the lab's AccECN L4S flow (20 ms path, marks fed
# back), a QUIC exchange whose client sends ECT(0) and whose server sends
# Not-ECT, the lab's UDP flows (one direction each)
begin "tcpgen prague sender --ts 1"
if bounded 120 "$BUILD/tcpgen" prague sender "$GEN/prague.pcap" --ts 1 >"$tmp/gen.out" 2>&1 &&
    [ -s "$GEN/prague.pcap" ]; then :; else bad "tcpgen prague sender: $(head -c 200 "$tmp/gen.out")"; fi
begin "quicgen missing"
if bounded 120 "$BUILD/quicgen" missing "$GEN/quic-missing.pcap" >"$tmp/gen.out" 2>&1 &&
    [ -s "$GEN/quic-missing.pcap" ]; then :; else bad "quicgen missing: $(head -c 200 "$tmp/gen.out")"; fi

plot() { # plot NAME CAPTURE: the plots of CAPTURE in $tmp/NAME
    rm -rf "${tmp:?}/$1"
    [ -s "$2" ] || { why="no capture $2"; return 1; }
    run_ew 0 "$tmp/$1.out" "$tmp/$1.err" "$EW" -r "$2" -q --plot "$tmp/$1" || return 1
    [ -f "$tmp/$1/index.html" ] && [ -f "$tmp/$1/flow-1.svg" ] ||
        { why="--plot wrote: $(ls "$tmp/$1" 2>&1 | tr '\n' ' ')"; return 1; }
}

# svg_true SVG PYTHON: PYTHON, run with r (the parsed SVG root), panels
# (id -> <g class="panel">), texts(el, cls) and why(msg), does not fail
svg_true() {
    local f=$1
    [ -s "$f" ] || { why="no plot $f"; return 1; }
    if ! bounded 60 python3 - "$f" "$2" >"$tmp/py.out" 2>&1 <<'PY'; then
import re, sys, xml.etree.ElementTree as E
NS = "{http://www.w3.org/2000/svg}"
r = E.parse(sys.argv[1]).getroot()
def cls(el, c):
    return [e for e in el.iter() if c in (e.get("class") or "").split()]
def texts(el, c):
    return ["".join(e.itertext()) for e in cls(el, c)]
panels = {g.get("id"): g for g in cls(r, "panel")}
def ys_of(g, name):
    # the y of every point of the line called name in panel g
    ys = set()
    for e in cls(g, "series"):
        if e.get("data-name") != name: continue
        if e.tag == NS + "circle": ys.add(e.get("cy"))
        else: ys |= set(pt.split(",")[1] for pt in e.get("points").split())
    return ys
def at_value(g, v):
    # the y of the gridline of the y tick labelled v
    for ln, t in zip(cls(g, "grid-y"), texts(g, "tick-y")):
        if float(t.split()[0]) == v: return ln.get("y1")
def line_values(g, name):
    # the values of the line called name in panel g, read back through the
    # panel's y ticks (linear between the first and the last)
    ticks = [(float(t.split()[0]), float(ln.get("y1"))) for ln, t in zip(cls(g, "grid-y"), texts(g, "tick-y"))]
    (v0, y0), (v1, y1) = ticks[0], ticks[-1]
    ys = []
    for e in cls(g, "series"):
        if e.get("data-name") != name: continue
        if e.tag == NS + "circle": ys.append(float(e.get("cy")))
        else: ys += [float(pt.split(",")[1]) for pt in e.get("points").split()]
    return [v0 + (y - y0) * (v1 - v0) / (y1 - y0) for y in ys]
def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2
def text_median(path, flow):
    # the median queueing delay the text summary gives flow (its first
    # direction with one), ms
    t = open(path).read()
    i = t.find("\n#%d " % flow)
    if i < 0: why("flow #%d is not in the text" % flow)
    j = min([k for k in (t.find("\n#", i + 1), t.find("\nTerms:", i + 1)) if k > 0] or [len(t)])
    m = re.search(r"queueing delay (c2s|s2c): median ([0-9.]+) ms", t[i:j])
    if not m: why("the text gives no median queueing delay for flow #%d" % flow)
    return float(m.group(2))
# the text's median and the plotted bin medians' median agree within 30 %
# and 0.3 ms (the plot draws each bin's median of the same histograms, in
# bins of half an octave, that the text reads the flow's median from)
def agrees(text, plotted):
    return abs(text - plotted) <= 0.3 * text + 0.3
def why(msg):
    print(msg)
    sys.exit(1)
exec(sys.argv[2])
PY
        why=$(tail -1 "$tmp/py.out" | head -c 300)
        return 1
    fi
    grep '^     ' "$tmp/py.out" || true
}

# every panel: y ticks (at least two) that each carry the panel's unit, one
# horizontal gridline a y tick, one vertical gridline a time tick; the
# bottom panel of each direction labels the time ticks in seconds
ticks() {
    plot "$1" "$2" || return 1
    svg_true "$tmp/$1/flow-1.svg" '
units = {"throughput": "Mbit/s", "rtt": "ms", "qdelay": "ms", "marks": "marks", "codepoints": "%"}
if not panels: why("no panel")
for pid, g in panels.items():
    unit = units.get(pid.split("-", 1)[1])
    if unit is None: why("panel %s of no known kind" % pid)
    ty = texts(g, "tick-y")
    if len(ty) < 2: why("panel %s: %d y tick labels" % (pid, len(ty)))
    for t in ty:
        if not re.fullmatch(r"-?[0-9]+(\.[0-9]+)? " + re.escape(unit), t):
            why("panel %s: y tick label %r without the unit %s" % (pid, t, unit))
    if len(cls(g, "grid-y")) != len(ty): why("panel %s: %d horizontal gridlines, %d y ticks" % (pid, len(cls(g, "grid-y")), len(ty)))
for d in ("c2s", "s2c"):
    if d + "-codepoints" not in panels: continue
    tx = texts(panels[d + "-codepoints"], "tick-x")
    if len(tx) < 3: why("%s: %d time tick labels" % (d, len(tx)))
    vals = []
    for t in tx:
        if not re.fullmatch(r"[0-9]+(\.[0-9]+)? s", t): why("%s: time tick label %r, not in seconds" % (d, t))
        vals.append(float(t[:-2]))
    step = round(vals[1] - vals[0], 9)
    m = step / 10 ** __import__("math").floor(__import__("math").log10(step))
    if round(m, 6) not in (1, 2, 5): why("%s: time step %g is not 1, 2 or 5 times a power of ten" % (d, step))
    for pid, g in panels.items():
        if pid.startswith(d) and len(cls(g, "grid-x")) != len(tx):
            why("panel %s: %d vertical gridlines, %d time ticks" % (pid, len(cls(g, "grid-x")), len(tx)))
'
}
check "accecn-l4s-client: each panel has y ticks with units, a gridline a tick, time ticks in round seconds" ticks l4s "$C/accecn-l4s-client.pcap"
check "tcpgen prague: each panel has y ticks with units, a gridline a tick, time ticks in round seconds" ticks prague "$GEN/prague.pcap"
check "quicgen missing: each panel has y ticks with units, a gridline a tick, time ticks in round seconds" ticks qm "$GEN/quic-missing.pcap"

# the panels of more than one line say which is which
legend() {
    svg_true "$tmp/l4s/flow-1.svg" '
for pid, want in (("c2s-marks", ["CE seen here", "marks fed back"]), ("c2s-codepoints", ["ECT(1) share", "ECT(0) share", "CE share"])):
    g = panels.get(pid)
    if g is None: why("no panel " + pid)
    lg = cls(g, "legend")
    if not lg: why(pid + ": no legend")
    names = texts(lg[0], "") if False else ["".join(t.itertext()) for t in lg[0].iter(NS + "text")]
    for w in want:
        if w not in names: why("%s: legend %r lacks %r" % (pid, names, w))
    if len(cls(g, "series")) < 2: why(pid + ": fewer than two lines")
'
}
check "the CE panel tells 'CE seen here' from 'marks fed back' in a legend" legend

# RTT on an axis from near the flow's minimum: on a 20 ms path the lowest
# tick is above half the minimum (an axis from 0 flattens a 0.3 ms queue);
# the queueing-delay panel is there, from 0
rtt_axis() {
    svg_true "$tmp/$1/flow-1.svg" '
g = panels.get("c2s-rtt")
if g is None: why("no RTT panel")
lo = min(float(t.split()[0]) for t in texts(g, "tick-y"))
m = re.search(r"flow minimum ([0-9.]+) ms", "".join(texts(g, "title")))
if not m: why("the RTT panel does not name the flow minimum")
mn = float(m.group(1))
if not (15 < mn < 30): why("flow minimum %g ms, want about 20 ms (the path)" % mn)
if not (lo > 0 and lo > mn / 2 and lo <= mn): why("RTT axis from %g ms, flow minimum %g ms" % (lo, mn))
q = panels.get("c2s-qdelay")
if q is None: why("no queueing-delay panel")
if min(float(t.split()[0]) for t in texts(q, "tick-y")) != 0: why("the queueing-delay axis does not start at 0")
if not cls(q, "series"): why("the queueing-delay panel draws nothing")
'
}
check "accecn-l4s-client (20 ms path): RTT axis from near its minimum, not 0; a queueing-delay panel" rtt_axis l4s
check "tcpgen prague --ts 1 (20 ms path): RTT axis from near its minimum, not 0; a queueing-delay panel" rtt_axis prague

# the queueing-delay panel tells the text's story: timed where the path
# verdict times it (data to ACK at the sender, the timestamp loop to the
# sender next to the receiver), each bin's median with p10 to p90 shaded,
# the bin medians' median agreeing with the text's median (agrees() above)
# and the axis reaching the p90 the report gives. Someone else's bytes: an
# L4S Wi-Fi sender (the field capture bundled in captures/field/) and a
# classic flow captured next to its receiver (the L4STeam capture in
# ../shared/field/), where the lowest data-to-ACK RTT is the receiver's own
# ACK delay of microseconds
qd_story() { # qd_story NAME CAPTURE FLOW DIR
    plot "$1" "$2" || return 1
    ew_json "$tmp/$1.json" -r "$2" --json || return 1
    run_ew 0 "$tmp/$1.txt" "$tmp/$1.txterr" "$EW" -r "$2" || return 1
    local from p90
    from=$(jq -r ".flows[] | select(.id == $3) | .$4.path.qdelay_from" "$tmp/$1.json")
    p90=$(jq -r ".flows[] | select(.id == $3) | .$4.path.qdelay_p90_ms" "$tmp/$1.json")
    svg_true "$tmp/$1/flow-$3.svg" "
q = panels.get('$4-qdelay')
if q is None: why('no queueing-delay panel')
words = {'data_to_ack': 'data to ACK', 'ts_from_sender': 'timestamps to the sender and back'}['$from']
title = ''.join(texts(q, 'title'))
if words not in title: why('panel timed otherwise than the path verdict ($from): ' + title)
if 'median' not in title or 'p10 to p90' not in title: why('the panel does not say it draws medians and p10 to p90: ' + title)
if not cls(q, 'band'): why('no p10 to p90 band')
top = max(float(t.split()[0]) for t in texts(q, 'tick-y'))
if not (top >= $p90): why('axis to %g ms, the report gives p90 %g ms' % (top, $p90))
t, pm = text_median('$tmp/$1.txt', $3), median(line_values(q, 'queueing delay'))
if not agrees(t, pm): why('plotted median %.2f ms, the text says %.2f ms' % (pm, t))
print('     flow #$3 $4: plotted median %.2f ms, text %.2f ms' % (pm, t))
"
}
check "field prague_dualpi2_wifi (at the sender): queueing delay as the report times it, its median as the text's" \
    qd_story wifi "$C/field/prague_dualpi2_wifi.pcap.gz" 2 c2s
SRV=${ECNWATCH_FIELD:-$(dirname "$0")/../../shared/field}/batch-l4s-s2-twoflow-ns-cubic-vs-prague-dualpi2-20ms.tcpdump_srv_srv.pcap.xz
if [ -f "$SRV" ]; then
    check "field cubic-vs-prague at the receiver: queueing delay from the timestamps, its median as the text's" \
        qd_story srv "$SRV" 3 c2s
fi

# the flows of a bottleneck on one time axis, as flent draws them, captioned
# with the verdict and its reason: each flow a line named with its id and
# kind in each of the throughput, queueing delay, marks and codepoint
# panels, every point within the one plot area, the L4S to classic ratio
# with its line of equal shares, each flow's plotted median delay agreeing
# with the text's. At a DualQ the L4S flow's delay is drawn far below the
# classic one's; in one shared queue the two are drawn alike. The lab's
# DualQ and single-queue pairs (captures/shared-dualq-client.pcap,
# captures/shared-single-client.pcap) and the L4STeam DualPI2 two-flow
# capture taken at the receiver (../shared/field/)
bottleneck_plot() { # bottleneck_plot NAME CAPTURE LOOKS_LIKE
    plot "$1" "$2" || return 1
    grep -q 'src="bottleneck-1.svg"' "$tmp/$1/index.html" || { why="the index does not show bottleneck-1.svg"; return 1; }
    run_ew 0 "$tmp/$1.txt" "$tmp/$1.txterr" "$EW" -r "$2" || return 1
    svg_true "$tmp/$1/bottleneck-1.svg" "
cap = ' '.join(texts(r, 'caption'))
if not cap.startswith('$3'): why('the caption does not give the verdict $3: ' + cap[:120])
if len(cap) < 60: why('the caption gives no reason: ' + cap)
flows = None
for pid in ('throughput', 'qdelay', 'marks', 'codepoints'):
    g = panels.get(pid)
    if g is None: why('no %s panel' % pid)
    names = sorted(set(e.get('data-name') for e in cls(g, 'series')))
    if flows is None: flows = names
    if names != flows or len(names) < 2: why('%s panel lines %s, want %s' % (pid, names, flows))
    if not any(n.endswith(' L4S') for n in names) or not any(n.endswith(' classic') for n in names):
        why('%s panel: not an L4S and a classic flow: %s' % (pid, names))
    for e in cls(g, 'series'):
        xs = [float(pt.split(',')[0]) for pt in (e.get('points') or '').split()] or [float(e.get('cx'))]
        if min(xs) < 84 - 0.5 or max(xs) > 1000 - 24 + 0.5: why('a point off the time axis in %s' % pid)
# one time axis: the time ticks only under the bottom panel
for pid, g in panels.items():
    if texts(g, 'tick-x') and pid != 'codepoints': why('time ticks under the %s panel too' % pid)
if len(texts(panels['codepoints'], 'tick-x')) < 3: why('fewer than 3 time ticks')
ratio = panels.get('ratio')
if ratio is None: why('no throughput ratio panel')
for e in cls(ratio, 'series'):
    xs = [float(pt.split(',')[0]) for pt in (e.get('points') or '').split()] or [float(e.get('cx'))]
    if min(xs) < 84 - 0.5 or max(xs) > 1000 - 24 + 0.5: why('a point off the time axis in the ratio panel: %s' % e.get('data-name'))
if not [e for e in cls(ratio, 'series') if e.get('data-name') == 'equal (1)' and e.tag == NS + 'polyline']:
    why('the line of equal shares is not drawn across the panel')
if sorted(set(e.get('data-name') for e in cls(ratio, 'series'))) != ['L4S : classic', 'equal (1)']:
    why('ratio panel lines %s' % sorted(set(e.get('data-name') for e in cls(ratio, 'series'))))
q, med = panels['qdelay'], {}
for n in flows:
    t, pm = text_median('$tmp/$1.txt', int(n[1:].split()[0])), median(line_values(q, n))
    if not agrees(t, pm): why('flow %s: plotted median %.2f ms, the text says %.2f ms' % (n, pm, t))
    print('     flow %s: plotted median %.2f ms, text %.2f ms' % (n, pm, t))
    med['L4S' if n.endswith('L4S') else 'classic'] = pm
if '$3' == 'dualq' and not med['L4S'] * 3 < med['classic']:
    why('a DualQ drawn with L4S at %.2f ms, classic at %.2f ms' % (med['L4S'], med['classic']))
if '$3' == 'single_queue' and not (med['L4S'] < 3 * med['classic'] + 0.3 and med['classic'] < 3 * med['L4S'] + 0.3):
    why('one queue drawn with L4S at %.2f ms, classic at %.2f ms' % (med['L4S'], med['classic']))
"
}
check "shared-dualq-client: its bottleneck's L4S and classic flows on one time axis" \
    bottleneck_plot dq "$C/shared-dualq-client.pcap" dualq
check "shared-single-client: one shared queue's L4S and classic flows on one time axis" \
    bottleneck_plot sq "$C/shared-single-client.pcap" single_queue
if [ -f "$SRV" ]; then
    check "field cubic-vs-prague DualPI2 at the receiver: both flows on one time axis" \
        bottleneck_plot bsrv "$SRV" dualq
fi

# the index lists the flows by bytes, the largest first, each with its size;
# a protocol without ports named as such (ICMP: no ":0"); small flows
# without ECN or a finding folded into a line. The lab's DualQ pair with
# five lone SYNs merged in (ecngen flood), and the L4STeam capture with its
# ICMP flow (../shared/field/)
index_order() {
    local rows
    bounded 30 "$BUILD/ecngen" flood "$tmp/syn5.pcap" 5 >/dev/null 2>&1 &&
        bounded 30 mergecap -F pcap -w "$tmp/dq-syn.pcap" "$C/shared-dualq-client.pcap" "$tmp/syn5.pcap" ||
        { why="could not make the capture"; return 1; }
    plot dqs "$tmp/dq-syn.pcap" || return 1
    rows=$(grep -c '^<tr><td>' "$tmp/dqs/index.html")
    [ "$rows" = 2 ] || { why="$rows rows, want the 2 flows of the DualQ pair"; return 1; }
    grep -q '5 small flows without ECN and without a finding' "$tmp/dqs/index.html" ||
        { why="no line for the 5 folded flows"; return 1; }
    grep '^<tr><td>' "$tmp/dqs/index.html" | head -1 | grep -q '<td>5.9 MB</td><td>classic</td>' ||
        { why="the classic flow (5.9 MB) is not first"; return 1; }
    if [ -f "$SRV" ]; then
        plot srvi "$SRV" || return 1
        [ "$(grep -o '^<tr><td><a href="flow-[0-9]*' "$tmp/srvi/index.html" | sed 's/.*flow-//' | tr '\n' ' ')" = "3 5 1 2 4 " ] ||
            { why="order $(grep -o '^<tr><td><a href="flow-[0-9]*' "$tmp/srvi/index.html" | sed 's/.*flow-//' | tr '\n' ' '), want 3 5 1 2 4 (by bytes)"; return 1; }
        grep -q '<td>icmp 10.9.9.1 &harr; 10.9.9.2</td><td>42.0 kB</td>' "$tmp/srvi/index.html" ||
            { why="the ICMP flow's row: $(grep 'flow-1.svg">1<' "$tmp/srvi/index.html" | head -c 200)"; return 1; }
    fi
}
check "the index: flows by bytes with their size, ICMP without ports, small plain flows folded" index_order

# every direction that carries data: a QUIC client sending ECT(0) and a
# server sending Not-ECT (quicgen missing) are both drawn, c2s first, each
# named with its endpoints; a one-way UDP flow (the lab's ECT(1) sender,
# captures/udp-ect-client.pcap) is drawn from its sending side only
directions() {
    svg_true "$tmp/qm/flow-1.svg" '
h = texts(r, "direction")
if len(h) != 2: why("%d directions drawn: %r" % (len(h), h))
if not (h[0].startswith("c2s (client to server): 192.0.2.1:50000 ") and h[1].startswith("s2c (server to client): 198.51.100.2:443 ")):
    why("directions %r" % h)
for d in ("c2s", "s2c"):
    if d + "-throughput" not in panels: why("no throughput panel for " + d)
# the client sends ECT(0), the server Not-ECT: 100 % and 0 % ECT(0)
for d, want in (("c2s", 100), ("s2c", 0)):
    g = panels[d + "-codepoints"]
    ys = ys_of(g, "ECT(0) share")
    at = at_value(g, want)
    if not ys or ys != {at}: why("%s: ECT(0) share drawn at %r, want %d %% (y %s)" % (d, sorted(ys), want, at))
' || return 1
    plot udp "$C/udp-ect-client.pcap" || return 1
    svg_true "$tmp/udp/flow-1.svg" '
h = texts(r, "direction")
if len(h) != 1 or not h[0].startswith("c2s (client to server): 10.200.1.2:56301 "): why("directions %r" % h)
g = panels["c2s-codepoints"]
ys = ys_of(g, "ECT(1) share")
if ys != {at_value(g, 100)}: why("the ECT(1) share of an all-ECT(1) sender is not 100%% throughout: %r" % sorted(ys))
'
}
check "both directions of a bidirectional UDP flow are drawn; a one-way ECT(1) flow from its sender" directions

# the width follows the page: a viewBox, width="100%", no fixed size; the
# index lays the plots out to the page
width() {
    svg_true "$tmp/l4s/flow-1.svg" '
vb = r.get("viewBox")
if not vb or len(vb.split()) != 4: why("no viewBox")
if r.get("width") != "100%": why("width=%r, not 100%%" % r.get("width"))
if r.get("height") is not None: why("a fixed height %r" % r.get("height"))
' || return 1
    grep -q 'name="viewport"' "$tmp/l4s/index.html" || { why="index.html: no viewport"; return 1; }
    grep -q '\.plots img { width: 100%' "$tmp/l4s/index.html" || { why="index.html: the plots are not as wide as the page"; return 1; }
    grep -q '<img src="flow-1.svg"' "$tmp/l4s/index.html" || { why="index.html: no flow-1.svg"; return 1; }
}
check "the SVG has a viewBox and width=100%, no fixed size; the index lays plots out to the page" width

same_bytes() {
    rm -rf "$tmp/again"
    run_ew 0 "$tmp/again.out" "$tmp/again.err" "$EW" -r "$GEN/quic-missing.pcap" -q --plot "$tmp/again" || return 1
    cmp -s "$tmp/again/flow-1.svg" "$tmp/qm/flow-1.svg" || { why="two runs drew different bytes"; return 1; }
    run_ew 0 "$tmp/again.out" "$tmp/again.err" "$EW" -r "$C/accecn-l4s-client.pcap" -q --plot "$tmp/again" || return 1
    cmp -s "$tmp/again/flow-1.svg" "$tmp/l4s/flow-1.svg" || { why="two runs drew different bytes"; return 1; }
}
check "the same capture gives the same SVG bytes" same_bytes

# rendered: the index at a wide and a narrow window, not blank; the plot
# fills the width of the page at both
shot() { # shot NAME W H URL
    local browser out=$LOGS/$1.png
    browser=$(command -v chromium || command -v chromium-browser) ||
        { why="no Chromium to render the plot (scripts/install-deps.sh installs it)"; return 1; }
    [ -f "$tmp/l4s/index.html" ] || { why="no plot to render"; return 1; }
    rm -f "$out"
    bounded 60 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$tmp/profile" --window-size="$2,$3" --screenshot="$out" \
        "$4" >"$tmp/chromium.log" 2>&1
    [ -s "$out" ] || { why="no screenshot: $(tail -2 "$tmp/chromium.log" | tr '\n' ' ' | head -c 200)"; return 1; }
    echo "     screenshot: $out"
    # not blank, and drawn across the page: many colours, and dark pixels
    # (lines, text) in the right quarter of the picture
    bounded 60 python3 - "$out" <<'PY' || { why="the screenshot $out is blank or does not fill the width"; return 1; }
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", data[pos + 8:pos + 18])
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
assert depth == 8 and ctype in (2, 6)
bpp = 4 if ctype == 6 else 3
raw, stride = zlib.decompress(idat), w * bpp
rows, prev = [], bytearray(stride)
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line)); prev = line
colours, right = set(), 0
for y in range(0, h, 2):
    for x in range(0, w, 2):
        px = rows[y][x * bpp:x * bpp + 3]
        colours.add(px)
        if x > 3 * w // 4 and sum(px) < 300: right += 1
sys.exit(0 if len(colours) > 20 and right > 20 else 1)
PY
}
check "the index renders in headless Chromium at 1400 px wide, across the page" shot index-1400 1400 900 "file://$tmp/l4s/index.html"
check "the index renders in headless Chromium at 600 px wide, across the page" shot index-600 600 900 "file://$tmp/l4s/index.html"
check "a bidirectional flow's plot renders in headless Chromium at 900 px wide" shot quic-900 900 1100 "file://$tmp/qm/flow-1.svg"
check "a bottleneck's plot renders in headless Chromium at 700 px wide" shot dualq-700 700 900 "file://$tmp/dq/bottleneck-1.svg"

# in print: the bottleneck's plot as a PDF page (Chromium's print), not empty
print_pdf() {
    local browser out=$LOGS/dualq-print.pdf
    browser=$(command -v chromium || command -v chromium-browser) || { why="no Chromium"; return 1; }
    rm -f "$out"
    bounded 60 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$tmp/profile" --no-pdf-header-footer --print-to-pdf="$out" \
        "file://$tmp/dq/bottleneck-1.svg" >"$tmp/chromium.log" 2>&1
    [ -s "$out" ] && head -c 5 "$out" | grep -q '%PDF-' || { why="no PDF: $(tail -2 "$tmp/chromium.log" | tr '\n' ' ' | head -c 200)"; return 1; }
    [ "$(stat -c %s "$out")" -gt 10000 ] || { why="a PDF of $(stat -c %s "$out") bytes: nothing drawn"; return 1; }
    echo "     printed: $out"
}
check "a bottleneck's plot prints (headless Chromium, PDF)" print_pdf

finish plots
