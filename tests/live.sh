#!/usr/bin/env bash
# live.sh BUILD - the live mode as a user meets it, on real traffic between
# two network namespaces this script creates (addresses inside them only):
# the terminal view driven in tmux (send-keys, capture-pane) at 80x24,
# 200x60 and 60x15, its screens printed into the log (c clears the screen
# and nothing the outputs get, the help's legend, UTF-8 and its ASCII
# fallback, a detail pane that says it goes on and scrolls, flows that have
# ended marked idle and dim, a selection that follows its flow), the -o
# report, the NDJSON stream, --workers (each flow whole on one thread),
# privilege dropping and the capture errors.
# Prints "live: N passed, N failed" (or why it was skipped) and exits non-zero
# on a failure. Every process it starts is bounded in time and ended on exit;
# every wait for the screen gives up as soon as the view has exited.
. "$(dirname "$0")/lib.sh"
EW=$(readlink -f "$EW")
. "$(dirname "$0")/netns.sh"
TM=ewlive$$

chmod 0777 "$tmp" # the view drops to nobody and writes its report here
# tmux on a server of its own (its socket in $tmp), without a configuration file
tm() { bounded 10 tmux -S "$tmp/tmux.sock" -f /dev/null "$@"; }
on_exit 'tm kill-server 2>/dev/null'

# the namespaces: a veth pair between them, classic ECN on both sides, and an
# interface that stays down; a step that fails is a failure
netns_pair live 10.77.0 && netns_step ip link add dn0 netns "$NS_S" type veth peer name dn1 netns "$NS_S" # stays down
case $? in
0) ;;
2) echo "live: skipped: $why"; echo "live: 0 passed, 0 failed"; exit 0 ;;
*) bad "setting up the namespaces: $why"; finish live; exit ;;
esac

dropped() { grep -q '^Uid:.*65534' /proc/"$1"/status 2>/dev/null; } # dropped PID: runs as nobody
# wait_dropped SECONDS PID: until PID has opened the capture and dropped to
# nobody; fails at once when it has exited
wait_dropped() {
    local t=0
    until dropped "$2"; do
        if ! kill -0 "$2" 2>/dev/null; then
            why="ecnwatch exited at once"
            return 1
        fi
        if [ $t -ge $(($1 * 10)) ]; then
            why="still root after $1 s"
            return 1
        fi
        sleep 0.1
        t=$((t + 1))
    done
}

# the screens the checks read are printed into the log
show() { echo "     --- $1:"; sed 's/^/     | /' "$2"; }
# the pcap's frames, sent as they are on an interface (AF_PACKET); prints
# how many
cat >"$tmp/replay.py" <<'PY'
import socket, struct, sys, time
f = open(sys.argv[1], "rb")
magic = struct.unpack("<I", f.read(24)[:4])[0]
e = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[2], 0))
n = 0
while True:
    rh = f.read(16)
    if len(rh) < 16:
        break
    incl = struct.unpack(e + "IIII", rh)[2]
    s.send(f.read(incl))
    n += 1
    if n % 50 == 0:
        time.sleep(0.005)
print(n)
PY
# ICMP echo requests (no ping on every machine): ping.py ADDRESS COUNT
cat >"$tmp/ping.py" <<'PY'
import socket, struct, sys, time
def csum(b):
    v = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    v = (v >> 16) + (v & 0xFFFF)
    return ~(v + (v >> 16)) & 0xFFFF
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
for i in range(int(sys.argv[2])):
    m = struct.pack("!BBHHH", 8, 0, 0, 0x1234, i) + b"ecnwatch" * 4
    s.sendto(m[:2] + struct.pack("!H", csum(m)) + m[4:], (sys.argv[1], 0))
    time.sleep(0.2)
PY
BLEACH=$(cd "$(dirname "$0")/.." && pwd)/captures/bleach-accecn-client.pcap
# the sentence of its SYN's finding (the same whatever the timing)
syn_finding="the SYN left here ECT(0) but the server reports it arrived Not-ECT: a device between this point and the server clears the ECN field"

# --- the terminal view, in tmux at 80x24, under the C locale (lib.sh): c
# clears only the screen, what the outputs get at the end is the whole capture
screen() { tm capture-pane -p -t "$TM"; }
exited() { grep -q '^EXITED ' "$1"; } # the view is gone: the pane's shell printed its status
# wait_screen SECONDS FILE TEST: capture the pane into FILE until TEST FILE
# succeeds; gives up when the view has exited (unless TEST is exited) or the
# session is gone
wait_screen() {
    local s=$1 f=$2 t=0
    shift 2
    while :; do
        if ! screen >"$f" 2>"$tmp/tmux.err"; then
            why="the tmux session is gone: $(head -c 200 "$tmp/tmux.err" | tr '\n' ' ')"
            return 1
        fi
        "$@" "$f" && return 0
        if exited "$f"; then
            why="the view has exited ($(grep -m1 '^EXITED' "$f"))"
            return 1
        fi
        if [ $t -ge $((s * 5)) ]; then
            why="not on the screen after $s s"
            return 1
        fi
        sleep 0.2
        t=$((t + 1))
    done
}
keys() { tm send-keys -t "$TM" "$@"; }
flat() { grep -v '^ *$' "$1" 2>/dev/null | sed 's/  */ /g' | tr '\n' '|' | head -c 600; } # a screen on one line
begin "starting the view in tmux"
# the view gets 300 s at most (--foreground: it stays in the terminal's
# foreground process group)
tm new-session -d -s "$TM" -x 80 -y 24 \
    "ip netns exec $NS_S timeout --foreground -k 5 300 $EW -i s0 -o $tmp/live.json --interval 0.5 --metrics-file $tmp/live.prom --plot $tmp/liveplots; echo EXITED \$?; sleep 600" ||
    bad "tmux new-session failed"
view_pid() { pgrep -f "^$EW -i s0 -o $tmp/live.json" | head -1; }

begin "privileges dropped to nobody after opening the capture"
pid=""
t=0
while :; do
    pid=$(view_pid)
    [ -n "$pid" ] && dropped "$pid" && break
    screen >"$tmp/pane.txt" 2>/dev/null
    if exited "$tmp/pane.txt" || [ $t -ge 200 ]; then
        pid=""
        break
    fi
    sleep 0.1
    t=$((t + 1))
done
if [ -n "$pid" ]; then
    ok "privileges dropped to nobody after opening the capture"
else
    bad "privileges dropped to nobody (pid '$(view_pid)'; $(grep -m1 '^EXITED' "$tmp/pane.txt" 2>/dev/null))"
fi

traffic 3
# the header and both flows' rows, as soon as the view shows them
s1_full() {
    grep -q "ecnwatch s0" "$1" && grep -q "flows [1-9]" "$1" &&
        grep -E "10\.77\.0\.1:[0-9]+>10\.77\.0\.2:52" "$1" | grep -q "rfc3168.*classic" &&
        grep -E "10\.77\.0\.1:[0-9]+>10\.77\.0\.2:60" "$1" | grep -qE " 100 +0\.0 "
}
begin "the view shows the traffic"
wait_screen 20 "$tmp/s1.txt" s1_full
alt_view=$(tm display -p -t "$TM" '#{alternate_on}' 2>&1)
begin "header: interface, packets, flows"
grep -q "ecnwatch s0" "$tmp/s1.txt" && grep -q "flows [1-9]" "$tmp/s1.txt" && ok "header: interface, packets, flows" ||
    bad "header: the first line is: $(head -1 "$tmp/s1.txt")"
begin "the TCP flow: classic ECN negotiated, verdict classic"
grep -E "10\.77\.0\.1:[0-9]+>10\.77\.0\.2:52" "$tmp/s1.txt" | grep -q "rfc3168.*classic" &&
    ok "the TCP flow: classic ECN negotiated, verdict classic" || bad "the TCP flow row: $(grep 5201 "$tmp/s1.txt" | tr -s ' \n' '  ')"
begin "the UDP flow: 100% ECT(1)"
grep -E "10\.77\.0\.1:[0-9]+>10\.77\.0\.2:60" "$tmp/s1.txt" | grep -qE " 100 +0\.0 " &&
    ok "the UDP flow: 100% ECT(1)" || bad "the UDP flow row: $(grep 6001 "$tmp/s1.txt" | tr -s ' \n' '  ')"
# on the view's screen (a pane with nothing on it fits any width)
begin "fits 80 columns"
if ! grep -q "ecnwatch s0" "$tmp/s1.txt"; then
    bad "fits 80 columns: the view is not on the screen"
elif [ "$(wc -L <"$tmp/s1.txt")" -le 80 ]; then
    ok "fits 80 columns"
else
    bad "wider than 80 columns"
fi

sort_key() { head -1 "$1" | grep -q "sort: CE share"; }
begin "s changes the sort key"
keys s
wait_screen 10 "$tmp/s1s.txt" sort_key && ok "s changes the sort key" || bad "s changes the sort key: $why: $(head -1 "$tmp/s1s.txt")"

detail() {
    grep -q "CE share" "$1" && grep -q "ECT1 share" "$1" && grep -q "verdict classic" "$1" &&
        grep -q "^ queue " "$1"
}
begin "Enter opens the detail pane (verdict, sparklines)"
keys / 5 2 0 1 Enter
sleep 0.5
keys Enter
wait_screen 10 "$tmp/s2.txt" detail && ok "Enter opens the detail pane (verdict, sparklines)" ||
    bad "detail pane: $why: $(flat "$tmp/s2.txt")"
# the evidence below the sparklines, scrolled to where the pane is short
evidence() { grep -q "SYN requests classic ECN" "$1"; }
begin "the detail pane's evidence, scrolled to (J)"
keys J J J J
wait_screen 10 "$tmp/s2e.txt" evidence && ok "the detail pane's evidence, scrolled to (J)" ||
    bad "the detail pane's evidence: $why: $(flat "$tmp/s2e.txt")"

help_shown() { grep -q "ecnwatch keys" "$1"; }
begin "h shows the help"
keys h
wait_screen 10 "$tmp/s2h.txt" help_shown && ok "h shows the help" || bad "h shows the help: not shown: $why"

filtered() { grep -q ":60" "$1" && ! grep -q ":5201" "$1"; }
begin "/ filters the flows"
keys x
keys / u d p Enter
wait_screen 10 "$tmp/s3.txt" filtered && ok "/ filters the flows" || bad "/ filters the flows: $why: $(flat "$tmp/s3.txt")"

# the AccECN capture sent onto the link: its bleaching finding cites
# "RFC 9768 §3.2.2.3", which a terminal without UTF-8 gets in ASCII, never
# as blanks (the detail pane scrolled, J, until the finding is in view)
begin "C locale: a finding's section sign is written 'sect.', not blanks"
bounded 30 ip netns exec "$NS_C" python3 "$tmp/replay.py" "$BLEACH" c0 >"$tmp/replay.out" 2>&1 ||
    bad "replaying $(basename "$BLEACH"): $(head -c 200 "$tmp/replay.out")"
keys / 5 0 0 1 Enter
onscreen() { sed 's/^ *//; s/ *$//' "$1" | tr '\n' ' ' | tr -s ' '; } # the screen's words on one line
ascii_ref() {
    onscreen "$1" | grep -qF "RFC 9768 sect. 3.2.2.3: the SYN left here" && return 0
    keys J
    return 1
}
if wait_screen 15 "$tmp/s5.txt" ascii_ref && ! grep -qE "RFC 9768 +3\.2" "$tmp/s5.txt"; then
    ok "C locale: a finding's section sign is written 'sect.', not blanks"
else
    bad "C locale: the finding's reference: $why: $(onscreen "$tmp/s5.txt" | grep -oE ".{30}RFC 9768.{30}" | head -2)"
fi
show "80x24, C locale, detail of the AccECN flow" "$tmp/s5.txt"

# c: the flows before it leave the screen, its counts start again (the line
# below the header says since c:); the analyzer, and so the -o report, the
# metrics file and the plots at the end, keep every packet
all_rows() { grep -q "10\.77\.0\.2:5201" "$1" && grep -q "10\.200\.2\.2:5001" "$1"; }
keys Enter / Enter
wait_screen 10 "$tmp/c0.txt" all_rows || bad "before c: the flows: $why: $(flat "$tmp/c0.txt")"
show "80x24, before c" "$tmp/c0.txt"
# the frames read before c: the metrics file's count, written each interval
frames_of() { awk '$1 == "ecnwatch_frames_total" { v = $2 } END { print v }' "$1" 2>/dev/null; }
sleep 1
before_c=$(frames_of "$tmp/live.prom")
pkts_of() { head -1 "$1" | grep -oE '[0-9]+ pkts' | grep -oE '[0-9]+'; }
cleared() { # since c: on the line below the header; the header's packets (when shown) fewer
    local n
    n=$(pkts_of "$1")
    sed -n 2p "$1" | grep -q "since c:" && [ "${n:-0}" -lt "${before_c:-0}" ] &&
        ! grep -qE "10\.77\.0\.2:5201|10\.200\.2\.2:5001" "$1"
}
begin "c clears the view: its packets count again, the flows before it leave the list"
keys c
wait_screen 10 "$tmp/c1.txt" cleared && ok "c clears the view: its packets count again, the flows before it leave the list" ||
    bad "c clears the view: $why (before c: ${before_c:-?} frames): $(flat "$tmp/c1.txt")"
show "80x24, after c" "$tmp/c1.txt"

begin "q exits with status 0"
keys C-l
keys q
wait_screen 15 "$tmp/s4.txt" exited
# (after the view was on the screen: a binary that exits 0 at once is no view)
if ! all_rows "$tmp/c0.txt"; then
    bad "q exits with status 0: the view never showed its flows"
elif grep -q "EXITED 0" "$tmp/s4.txt"; then
    ok "q exits with status 0"
else
    bad "q exits with status 0: the screen: $(flat "$tmp/s4.txt")"
fi
# the view was on the alternate screen, and is no longer once it has exited
begin "the terminal is restored"
alt_after=$(tm display -p -t "$TM" '#{alternate_on}' 2>&1)
if [ "$alt_view" = 1 ] && exited "$tmp/s4.txt" && [ "$alt_after" = 0 ]; then
    ok "the terminal is restored"
else
    bad "terminal: alternate screen '$alt_view' in the view, '$alt_after' after it ($(grep -m1 '^EXITED' "$tmp/s4.txt"))"
fi
[ -n "$pid" ] && wait_bounded 10 "$pid" # the report is written before the view exits; no process lingers
check "the -o report matches the traffic" jq_true "$tmp/live.json" \
    '.source.kind == "interface" and .source.name == "s0" and
        ([.flows[] | select(.proto == "tcp" and .server.port == 5201)][0] |
            .negotiation == "rfc3168" and .c2s.ecn.ect0 > 10 and .verdict == "classic") and
        ([.flows[] | select(.proto == "udp")][0] | .c2s.ecn.ect1 > 10 and .c2s.ecn.ect0 == 0)'
# the capture's own loss, from pcap_stats (Linux reports the interface's too)
check "the -o report of a live capture has its loss: totals.capture" jq_true "$tmp/live.json" \
    '.totals.capture.received >= .totals.frames and .totals.capture.dropped >= 0 and
        (.totals.capture.interface_dropped | type) == "number"'
ROOT=$(cd "$(dirname "$0")/.." && pwd)
check "the -o report of a live capture validates against the schema" \
    bounded 60 python3 "$ROOT/tests/schema_validate.py" "$ROOT/man/ecnwatch-report.schema.json" "$tmp/live.json"
# c cleared the screen only: the outputs written at the end have every frame
check "after c, the -o report still counts every frame (${before_c:-?} before c) and every flow" jq_true "$tmp/live.json" \
    ".totals.frames >= ${before_c:-1000000000} and .totals.capture.received >= .totals.frames and
     ([.flows[] | select(.proto == \"tcp\" and .server.port == 5001)] | length) == 1 and
     ([.flows[] | select(.proto == \"tcp\" and .server.port == 5201)] | length) == 1"
metrics_all() {
    local n m
    n=$(frames_of "$tmp/live.prom")
    m=$(jq -r .totals.frames "$tmp/live.json" 2>/dev/null)
    [ -n "$n" ] && [ "$n" = "$m" ] && [ "$n" -ge "${before_c:-1000000000}" ] && return 0
    why="ecnwatch_frames_total '$n', the report's frames '$m', ${before_c:-?} before c"
    return 1
}
check "after c, the --metrics-file's last frames count is the report's, all of them" metrics_all
plots_all() {
    local id
    id=$(jq -r '[.flows[] | select(.proto == "tcp" and .server.port == 5201)][0].id' "$tmp/live.json" 2>/dev/null)
    [ -s "$tmp/liveplots/flow-$id.svg" ] && return 0
    why="no flow-$id.svg (the TCP flow): $(ls "$tmp/liveplots" 2>&1 | tr '\n' ' ' | head -c 200)"
    return 1
}
check "after c, --plot still draws the flows from before it" plots_all
tm kill-server 2>/dev/null

# --- joined mid-flow, as a live view meets most flows: the transfer runs
# before the view starts, so that its handshake is never seen; the detail
# pane says so, and the verdict is only likely
begin "mid-flow: the traffic starts before the view"
why=""
bounded 80 ip netns exec "$NS_S" python3 "$TRAFFIC" server 8 10.77.0.2 >"$tmp/mserver.out" 2>&1 &
msp=$!
bg="$bg $msp"
mcp=""
if wait_port 30 5201 "$NS_S" && wait_port 10 6001 "$NS_S"; then
    bounded 80 ip netns exec "$NS_C" python3 "$TRAFFIC" client 8 10.77.0.2 >"$tmp/mclient.out" 2>&1 &
    mcp=$!
    bg="$bg $mcp"
    # the view starts only once the transfer's connection is up (its
    # handshake done), however long a loaded machine takes to start it
    for _ in $(seq 150); do
        [ -n "$(ip netns exec "$NS_C" ss -Htn state established '( dport = :5201 )' 2>/dev/null)" ] && break
        sleep 0.2
    done
    sleep 0.5
    tm new-session -d -s "$TM-mid" -x 100 -y 30 \
        "ip netns exec $NS_S timeout --foreground -k 5 120 $EW -i s0 -o $tmp/mid.json --interval 0.5; echo EXITED \$?; sleep 600" ||
        bad "mid-flow: tmux new-session failed"
    TM0=$TM
    TM=$TM-mid
    mid_row() { grep -E "10\.77\.0\.1:[0-9]+>10\.77\.0\.2:52" "$1" | grep -q "classic"; }
    mid_detail() {
        grep -q "capture: handshake not captured" "$1" && grep -q "verdict classic (likely)" "$1" &&
            grep -q "neg unseen, as rfc3168?" "$1"
    }
    if wait_screen 20 "$tmp/m1.txt" mid_row; then
        keys / 5 2 0 1 Enter
        sleep 0.5
        keys Enter
        check "mid-flow: the detail pane says the handshake was not captured, the verdict likely" \
            wait_screen 10 "$tmp/m2.txt" mid_detail
        [ -f "$tmp/m2.txt" ] && { echo "     --- joined mid-flow, the detail pane:"; sed 's/^/     | /' "$tmp/m2.txt"; }
    else
        bad "mid-flow: the transfer's row: $why: $(flat "$tmp/m1.txt")"
    fi
    wait_bounded 30 $mcp
    keys q
    wait_screen 15 "$tmp/m3.txt" exited
    mid_report() {
        jq_true "$tmp/mid.json" '[.flows[] | select(.proto == "tcp" and .server.port == 5201)][0] |
            .handshake_seen == false and .negotiation == "unseen" and .verdict_confidence == "likely"' && return 0
        why="the flows: $(jq -c '[.flows[] | {id, proto, port: .server.port, handshake_seen, negotiation,
            verdict, verdict_confidence}]' "$tmp/mid.json" 2>&1 | head -c 600)"
        return 1
    }
    check "mid-flow: the -o report says the handshake was not seen, and counts the flow" mid_report
    check "mid-flow: totals.capture_quality.flows_midstream counts it" jq_true "$tmp/mid.json" \
        '.totals.capture_quality.flows_midstream >= 1'
    TM=$TM0
else
    bad "mid-flow: the server did not listen: $why $(head -c 200 "$tmp/mserver.out" | tr '\n' ' ')"
fi
wait_bounded 30 $msp
tm kill-server 2>/dev/null

# --- the view at three terminal sizes: 80x24, 200x60, 60x15 (the smallest
# it is made for). Real traffic (TCP to 5201, UDP), a ping (an ICMP flow),
# and a bundled capture sent onto the link (an AccECN flow to port 5001
# whose two bleaching findings make a long verdict beside a findings count).
# Under a UTF-8 locale, as most terminals are: the findings' section signs
# are drawn as such. Each screen is printed into the log.
tm kill-server 2>/dev/null
begin "sizes: starting the view at 80x24"
tm new-session -d -s "$TM" -x 80 -y 24 \
    "LC_ALL=C.UTF-8 ip netns exec $NS_S timeout --foreground -k 5 300 $EW -i s0 --interval 0.5; echo EXITED \$?; sleep 600" ||
    bad "sizes: tmux new-session failed"
header_up() { grep -q "ecnwatch s0" "$1"; }
if ! wait_screen 20 "$tmp/z0.txt" header_up; then
    bad "sizes: the view did not start: $why"
else
    ( traffic 14 ) >"$tmp/ztraffic.out" 2>&1 &
    ztp=$!
    bg="$bg $ztp"
    wait_port 30 5201 "$NS_S" >/dev/null 2>&1
    sleep 1
    bounded 30 ip netns exec "$NS_C" python3 "$tmp/replay.py" "$BLEACH" c0 >"$tmp/replay.out" 2>&1 ||
        bad "sizes: replaying $(basename "$BLEACH"): $(head -c 200 "$tmp/replay.out")"
    bounded 20 ip netns exec "$NS_C" python3 "$tmp/ping.py" 10.77.0.2 3 >"$tmp/ping.out" 2>&1 ||
        bad "sizes: ICMP echo: $(head -c 200 "$tmp/ping.out")"
    # every flow and a rate on screen
    z_all() {
        grep -q "10\.77\.0\.2:5201" "$1" && grep -q "10\.200\.2\.2:5001" "$1" &&
            grep -q "10\.77\.0\.1>10\.77\.0\.2" "$1" && grep -qE "[0-9.]+[kMG] bit/s" "$1"
    }
    begin "sizes: 80x24 shows every flow and a bit rate"
    wait_screen 20 "$tmp/z80.txt" z_all && ok "sizes: 80x24 shows every flow and a bit rate" ||
        bad "sizes: 80x24 shows every flow and a bit rate: $why"
    show "80x24" "$tmp/z80.txt"
    # the header: items whole, two spaces apart, within the width
    header_whole() { # FILE WIDTH
        local h
        h=$(head -1 "$1" | sed 's/ *$//')
        [ "${#h}" -le "$2" ] && echo "$h" | grep -qE '^ ecnwatch s0(  (PAUSED|filter "[^"]*"|[0-9]+ pkts|[0-9]+ pkt/s|(-|[0-9.]+[kMG]?) bit/s|drops \??[0-9]+|flows [0-9]+|sort: (packets|CE share|ECT\(1\) share|last active|first seen|bit rate)))*$' &&
            return 0
        why="the header is '$h'"
        return 1
    }
    check "sizes 80: the header's items are whole" header_whole "$tmp/z80.txt" 80
    port_whole() { grep -qE "10\.77\.0\.2:5201( |$)" "$1" && grep -qE "10\.200\.2\.2:5001( |$)" "$1" && return 0; why="$(grep -E '5201|500' "$1" | head -2 | tr -s ' \n' '  ')"; return 1; }
    check "sizes 80: the server ports are whole (:5201, :5001)" port_whole "$tmp/z80.txt"
    verdict_apart() {
        grep "10\.200\.2\.2:5001" "$1" | grep -qE " accecn_classic +[0-9]+( |$)" && return 0
        why="the row: $(grep "10\.200\.2\.2:5001" "$1" | tr -s ' ' ' ')"
        return 1
    }
    check "sizes 80: the verdict accecn_classic and its findings count stand apart" verdict_apart "$tmp/z80.txt"
    proto_col() {
        grep "10\.77\.0\.2:5201" "$1" | grep -qw tcp && grep "10\.77\.0\.2:6001" "$1" | grep -qw udp &&
            grep "10\.77\.0\.1>10\.77\.0\.2" "$1" | grep -qw icmp && return 0
        why="$(grep "10\.77\.0\." "$1" | tr -s ' ' ' ' | tr '\n' '|')"
        return 1
    }
    check "sizes 80: the protocol column says tcp, udp, icmp" proto_col "$tmp/z80.txt"
    flow_rate() {
        grep "10\.77\.0\.2:5201" "$1" | grep -qE " [0-9.]+[kMG] " && grep -q "BIT/S" "$1" && return 0
        why="$(grep -E "BIT|5201" "$1" | tr -s ' ' ' ' | tr '\n' '|')"
        return 1
    }
    check "sizes 80: the TCP flow's bit rate has a unit (BIT/S column)" flow_rate "$tmp/z80.txt"
    check "sizes 80: fits 80 columns" test "$(wc -L <"$tmp/z80.txt")" -le 80
    # the filter text in the header; the detail pane's RTT range, and a
    # finding's sentence whole, wrapped
    filter_shown() { head -1 "$1" | grep -q 'filter "5201"'; }
    begin "sizes 80: the filter text is shown"
    keys / 5 2 0 1 Enter
    wait_screen 10 "$tmp/z80f.txt" filter_shown && ok "sizes 80: the filter text is shown" ||
        bad "sizes 80: the filter text is shown: $why: $(head -1 "$tmp/z80f.txt")"
    rtt_range() { grep -qE "^ RTT .*[0-9.]+(us|ms)\.\.[0-9.]+(us|ms)" "$1"; }
    begin "sizes 80: the RTT sparkline's lowest and highest values are printed"
    keys Enter
    wait_screen 10 "$tmp/z80d.txt" rtt_range && ok "sizes 80: the RTT sparkline's lowest and highest values are printed" ||
        bad "sizes 80: the RTT range: $why: $(grep RTT "$tmp/z80d.txt")"
    # the queueing delay beside it, timed as the path verdict times it (the
    # view runs at the TCP flow's client: data to ACK)
    queue_line() { grep -qE "^ queue .*0\.\.[0-9.]+(us|ms) +\(data to ACK\)" "$1"; }
    check "sizes 80: the queueing-delay sparkline, its top and its source are printed" \
        queue_line "$tmp/z80d.txt"
    show "80x24, detail of the TCP flow" "$tmp/z80d.txt"
    # the AccECN flow's detail is longer than its pane: the pane's foot says
    # so, and J scrolls it
    cue() { grep -qE "^ v more below +J/K" "$1" && grep -q "verdict accecn_classic" "$1"; }
    begin "sizes 80: a pane longer than its room says so at its foot (v more below, J/K)"
    keys / 5 0 0 1 Enter
    wait_screen 10 "$tmp/z80c.txt" cue && ok "sizes 80: a pane longer than its room says so at its foot (v more below, J/K)" ||
        bad "sizes 80: the pane's foot: $why: $(tail -3 "$tmp/z80c.txt" | tr -s ' \n' '  ')"
    show "80x24, detail of the AccECN flow" "$tmp/z80c.txt"
    # the pane's lines joined: the sentence is there whole (scrolled, J, until it is)
    joined() { sed -n '/^ ! /,$p' "$1" | sed 's/^ *//; s/ *$//' | tr '\n' ' '; }
    finding_whole() {
        joined "$1" | grep -qF "$syn_finding" && return 0
        keys J
        return 1
    }
    begin "sizes 80: a finding's sentence wraps whole in the detail pane"
    wait_screen 15 "$tmp/z80g.txt" finding_whole && ok "sizes 80: a finding's sentence wraps whole in the detail pane" ||
        bad "sizes 80: the finding's sentence: $why: $(joined "$tmp/z80g.txt" | head -c 300)"
    show "80x24, the AccECN flow's detail scrolled (J)" "$tmp/z80g.txt"
    # UTF-8: the finding's reference with its section sign
    utf8_ref() { onscreen "$1" | grep -qF "RFC 9768 §3.2.2.3: the SYN left here"; }
    check "sizes 80, UTF-8: a finding's section sign is drawn as such (RFC 9768 §3.2.2.3)" utf8_ref "$tmp/z80g.txt"
    keys Enter / Enter

    # a flow that has ended (the AccECN capture's ends with its FIN) is
    # marked idle, and its row is dim
    idle_row() { grep "10\.200\.2\.2:5001" "$1" | grep -qw idle; }
    dim_row() { # the row's text has the dim attribute (SGR 2)
        tm capture-pane -e -p -t "$TM" | grep "10\.200\.2\.2:5001" |
            grep -qE $'\e\[([0-9]+;)*2(;[0-9]+)*m' && return 0
        why="no dim attribute on its row"
        return 1
    }
    begin "sizes 80: an ended flow is marked idle, and dim"
    if wait_screen 15 "$tmp/z80i.txt" idle_row && dim_row; then
        ok "sizes 80: an ended flow is marked idle, and dim"
    else
        bad "sizes 80: an ended flow is marked idle, and dim: $why: $(grep 5001 "$tmp/z80i.txt" | tr -s ' ')"
    fi
    show "80x24, the AccECN flow idle" "$tmp/z80i.txt"

    # the selection is a flow: moved (j), the list re-sorted (S) and the
    # pane opened (Enter) before the next redraw (one write), the pane shows
    # the flow selected. The row to select is one the re-sort moves: sorted
    # by first seen it is not where it is sorted by last activity; of the
    # flows whose last packet is long past (the AccECN capture's, the
    # ping's), so that their order stays.
    list_ids() { sed -n '4,$p' "$1" | sed '/^ *$/q' | awk '$1 ~ /^[0-9]+$/ { print $1 }'; }
    done_ids() { sed -n '4,$p' "$1" | sed '/^ *$/q' | grep -E "10\.200\.2\.2:5001|10\.77\.0\.1>10\.77\.0\.2" | awk '{ print $1 }'; }
    sort_is() { head -1 "$1" | grep -q "sort: $want_sort"; }
    to_sort() { # press s until the header says sort: $1, into $tmp/zs.txt
        local i
        want_sort=$1
        for i in 1 2 3 4 5 6 7 8; do
            screen >"$tmp/zs.txt" 2>/dev/null
            sort_is "$tmp/zs.txt" && return 0
            keys s
            sleep 0.4
        done
        why="no 'sort: $1' in the header: $(head -1 "$tmp/zs.txt")"
        return 1
    }
    begin "sizes 80: the selection follows its flow as the list re-sorts: Enter opens it"
    want="" k=""
    if to_sort "last active"; then
        sleep 0.6
        screen >"$tmp/zsel0.txt"
        list_ids "$tmp/zsel0.txt" >"$tmp/zlast.ids"
        if to_sort "first seen"; then
            keys Home
            sleep 0.6
            screen >"$tmp/zsel0.txt"
            list_ids "$tmp/zsel0.txt" >"$tmp/zid.ids"
            # the first row (after the first) of such a flow that is elsewhere by last activity
            k=$(paste -d' ' "$tmp/zid.ids" "$tmp/zlast.ids" | awk -v idle=" $(done_ids "$tmp/zsel0.txt" | tr '\n' ' ')" \
                'NR > 1 && $1 != $2 && index(idle, " " $1 " ") { print NR - 1; exit }')
            [ -n "$k" ] && want=$(sed -n "$((k + 1))p" "$tmp/zid.ids")
        fi
    fi
    if [ -z "$want" ]; then
        bad "sizes 80: the selection: no row of a flow that has ended that a re-sort moves: $why: $(flat "$tmp/zsel0.txt")"
    else
        show "80x24, sorted by first seen: flow $want is row $((k + 1)), sorted by last activity it was not" "$tmp/zsel0.txt"
        # shellcheck disable=SC2046
        keys $(for i in $(seq "$k"); do printf 'j '; done) S Enter
        detail_of() { grep -qE "^ #[0-9]+ " "$1" && grep -q "sort: last active" "$1"; }
        if wait_screen 10 "$tmp/zsel1.txt" detail_of; then
            got=$(grep -oE "^ #[0-9]+ " "$tmp/zsel1.txt" | head -1 | tr -dc 0-9)
            at=$(list_ids "$tmp/zsel1.txt" | grep -nx "$want" | cut -d: -f1)
            if [ "$got" != "$want" ]; then
                bad "sizes 80: the selection follows its flow: flow $want selected (row $((k + 1))), Enter opened flow $got"
            elif [ "${at:-$((k + 1))}" = $((k + 1)) ]; then
                bad "sizes 80: the selection follows its flow: the re-sort left flow $want on row $((k + 1)) (nothing shown)"
            else
                ok "sizes 80: the selection follows its flow as the list re-sorts: Enter opens it"
            fi
        else
            bad "sizes 80: the selection: the detail pane did not open: $why"
        fi
        show "80x24, after ${k}x j, S, Enter: sorted by last activity, the detail pane" "$tmp/zsel1.txt"
    fi
    # the detail pane closed again, whatever happened
    screen >"$tmp/zsel2.txt"
    grep -qE "^ #[0-9]+ |more (above|below)|\(both directions, last interval\)" "$tmp/zsel2.txt" && keys Enter
    to_sort packets >/dev/null


    # 200x60: the rows use the width
    begin "sizes 200: rows use more than 80 columns"
    tm resize-window -t "$TM" -x 200 -y 60 2>/dev/null
    wide_rows() { [ "$(grep -E "10\.77\.0\.2:5201" "$1" | sed 's/ *$//' | wc -L)" -gt 80 ] && ! head -1 "$1" | grep -q 'filter "'; }
    wait_screen 10 "$tmp/z200.txt" wide_rows && ok "sizes 200: rows use more than 80 columns" ||
        bad "sizes 200: rows use more than 80 columns: $why: $(grep 5201 "$tmp/z200.txt" | sed 's/ *$//' | wc -L) columns"
    show "200x60" "$tmp/z200.txt"
    check "sizes 200: the server ports are whole" port_whole "$tmp/z200.txt"
    check "sizes 200: the header's items are whole" header_whole "$tmp/z200.txt" 200
    check "sizes 200: the verdict and the findings count stand apart" verdict_apart "$tmp/z200.txt"
    check "sizes 200: the AccECN flow, ended, is marked idle" idle_row "$tmp/z200.txt"
    # the help's legend: every column and glyph of the list, whole at 200x60
    # but for its last lines
    legend() { # FILE: the legend's lines for D, E1%, FB, ECT1, !, idle, the sparklines
        local t
        t=$(onscreen "$1")
        for w in "D the direction E1% CE% FB ECT1 are of" "E1% its share of packets marked ECT(1)" \
            "FB the ECN feedback seen for it" "ECT1 what ECT(1) means there" \
            "! its misuse findings" "idle in BIT/S (at the end where BIT/S is not shown): the flow has ended" \
            "The detail pane's sparklines" "c clear the view"; do
            echo "$t" | grep -qF -- "$w" || { why="no '$w'"; return 1; }
        done
    }
    begin "sizes 200: the help (h) has a legend of the list's columns and glyphs"
    keys h
    wait_screen 10 "$tmp/z200h.txt" legend && ok "sizes 200: the help (h) has a legend of the list's columns and glyphs" ||
        bad "sizes 200: the help's legend: $why"
    show "200x60, help" "$tmp/z200h.txt"
    keys q

    # 60x15: the header whole, PAUSED whole after p, nothing past 60 columns
    begin "sizes 60: the header's items are whole"
    tm resize-window -t "$TM" -x 60 -y 15 2>/dev/null
    narrow() { [ "$(head -1 "$1" | sed 's/ *$//' | wc -L)" -le 60 ] && grep -q "ecnwatch s0" "$1" && [ "$(wc -L <"$1")" -le 60 ]; }
    wait_screen 10 "$tmp/z60.txt" narrow || bad "sizes 60: the view at 60 columns: $why"
    show "60x15" "$tmp/z60.txt"
    check "sizes 60: the header's items are whole" header_whole "$tmp/z60.txt" 60
    paused() { head -1 "$1" | grep -qE "(^|  )PAUSED(  | *$)" && header_whole "$1" 60; }
    begin "sizes 60: p shows PAUSED whole"
    keys p
    wait_screen 10 "$tmp/z60p.txt" paused && ok "sizes 60: p shows PAUSED whole" ||
        bad "sizes 60: p shows PAUSED whole: $why: $(head -1 "$tmp/z60p.txt")"
    show "60x15, paused" "$tmp/z60p.txt"
    check "sizes 60: the server ports are whole" port_whole "$tmp/z60p.txt"
    keys p
    detail60() { grep -q "^ #[0-9]* tcp 10\.200\.1\.2:34950>10\.200\.2\.2:5001" "$1" && grep -q "verdict accecn_classic" "$1" && [ "$(wc -L <"$1")" -le 60 ]; }
    begin "sizes 60: the detail pane fits 60 columns"
    keys / 5 0 0 1 Enter
    sleep 0.3
    keys Enter
    wait_screen 10 "$tmp/z60d.txt" detail60 && ok "sizes 60: the detail pane fits 60 columns" ||
        bad "sizes 60: the detail pane fits 60 columns: $why ($(wc -L <"$tmp/z60d.txt") columns)"
    show "60x15, detail" "$tmp/z60d.txt"
    begin "sizes 60: the detail pane says it goes on (v more below)"
    wait_screen 10 "$tmp/z60c.txt" cue && ok "sizes 60: the detail pane says it goes on (v more below)" ||
        bad "sizes 60: the pane's foot: $why: $(tail -3 "$tmp/z60c.txt" | tr -s ' \n' '  ')"
    # ] scrolls a page at a time, until the finding and its reference are in view
    ref60() {
        onscreen "$1" | grep -qF "RFC 9768 §3.2.2.3: the SYN left here" && [ "$(wc -L <"$1")" -le 60 ] && return 0
        keys ']'
        return 1
    }
    begin "sizes 60: the pane scrolls (]) to the finding, drawn with its section sign"
    wait_screen 15 "$tmp/z60s.txt" ref60 && ok "sizes 60: the pane scrolls (]) to the finding, drawn with its section sign" ||
        bad "sizes 60: the pane scrolled to the finding: $why: $(onscreen "$tmp/z60s.txt" | head -c 400)"
    show "60x15, the detail scrolled (])" "$tmp/z60s.txt"
    keys Enter / Enter

    # the help at 60x15: shorter than the legend, it scrolls (PgDn) and its
    # foot says so; every page within 60 columns, the pages together the legend
    begin "sizes 60: the help scrolls, and its pages hold the legend"
    keys h
    : >"$tmp/z60h.all"
    hpage=0
    help_end=""
    why=""
    while [ $hpage -lt 12 ]; do
        hpage=$((hpage + 1))
        help_page() { grep -q "more above\|more below" "$1" && ! cmp -s "$1" "$tmp/z60h.prev"; }
        : >"$tmp/z60h.prev"
        [ $hpage -gt 1 ] && cp "$tmp/z60h$((hpage - 1)).txt" "$tmp/z60h.prev"
        wait_screen 5 "$tmp/z60h$hpage.txt" help_page || break
        show "60x15, help page $hpage" "$tmp/z60h$hpage.txt"
        [ "$(wc -L <"$tmp/z60h$hpage.txt")" -le 60 ] || { why="page $hpage is wider than 60 columns"; break; }
        cat "$tmp/z60h$hpage.txt" >>"$tmp/z60h.all"
        if grep -qE "lines [0-9]+-([0-9]+) of \1" "$tmp/z60h$hpage.txt"; then
            help_end=1
            break
        fi
        keys NPage
    done
    if [ -n "$help_end" ] && [ $hpage -gt 1 ] && legend "$tmp/z60h.all"; then
        ok "sizes 60: the help scrolls, and its pages hold the legend"
    else
        bad "sizes 60: the help's pages ($hpage, end ${help_end:-not reached}): ${why:-no scroll cue}"
    fi
    keys q

    # the TCP transfer has ended (FIN both ways): its row is marked idle
    wait_rc 60 "$ztp"
    [ "$rc" = 0 ] || bad "sizes: the traffic: $(head -c 300 "$tmp/ztraffic.out" | tr '\n' ' ')"
    idle_tcp() { grep "10\.77\.0\.2:5201" "$1" | grep -qw idle && [ "$(wc -L <"$1")" -le 60 ]; }
    begin "sizes 60: the TCP transfer, ended, is marked idle"
    wait_screen 15 "$tmp/z60i.txt" idle_tcp && ok "sizes 60: the TCP transfer, ended, is marked idle" ||
        bad "sizes 60: the TCP flow idle: $why: $(grep 5201 "$tmp/z60i.txt" | tr -s ' ')"
    show "60x15, the flows ended" "$tmp/z60i.txt"
    keys q
    wait_screen 15 "$tmp/z9.txt" exited
    begin "sizes: q exits with status 0"
    grep -q "EXITED 0" "$tmp/z9.txt" && ok "sizes: q exits with status 0" || bad "sizes: q exits with status 0: $(flat "$tmp/z9.txt")"
fi
tm kill-server 2>/dev/null

# --- NDJSON when standard output is not a terminal; SIGTERM ends it cleanly
name="NDJSON stream: every line parses, flow updates, a summary; SIGTERM writes -o"
begin "$name"
ip netns exec "$NS_S" "$EW" -i s0 --interval 0.5 -o "$tmp/nd.json" >"$tmp/live.ndjson" 2>"$tmp/nd.err" &
ndpid=$! # ip netns exec execs ecnwatch: this is its pid
bg="$bg $ndpid"
why=""
wait_dropped 20 $ndpid && traffic 2 && sleep 1
started=${why:-ok}
kill -TERM $ndpid 2>/dev/null
wait_rc 20 $ndpid
st=$rc
why=""
if [ "$st" = 0 ] && json_ok "$tmp/live.ndjson" &&
    [ "$(jq -c . "$tmp/live.ndjson" 2>/dev/null | wc -l)" = "$(wc -l <"$tmp/live.ndjson")" ] &&
    jq_true "$tmp/live.ndjson" 'any(.[]; .event == "flow_update") and .[-1].event == "summary" and
        .[-1].source.interrupted == true and .[-1].totals.capture.received >= .[-1].totals.frames' -s &&
    jq_true "$tmp/nd.json" '.source.interrupted == true and (.flows | length) >= 2'; then
    ok "$name"
else
    bad "NDJSON stream (exit $st; start: $started; $why): $(head -c 300 "$tmp/live.ndjson" | tr '\n' ' ') $(head -c 300 "$tmp/nd.err" | tr '\n' ' ')"
fi
# --- SIGHUP (a closed terminal or SSH session) ends the run as SIGTERM
# does: the -o report and the -w capture are written, exit 0
name="SIGHUP: -o and -w written, interrupted, exit 0"
begin "$name"
rm -f "$tmp/hup.json" "$tmp/hup.pcap"
ip netns exec "$NS_S" "$EW" -i s0 --interval 0.5 -q -o "$tmp/hup.json" -w "$tmp/hup.pcap" \
    >/dev/null 2>"$tmp/hup.err" &
huppid=$!
bg="$bg $huppid"
why=""
wait_dropped 20 $huppid && traffic 1 && sleep 1
started=${why:-ok}
kill -HUP $huppid 2>/dev/null
wait_rc 20 $huppid
if [ "$rc" = 0 ] && jq_true "$tmp/hup.json" '.source.interrupted == true and .totals.frames > 0' &&
    [ "$(bounded 30 tcpdump -r "$tmp/hup.pcap" -nn 2>/dev/null | wc -l)" = "$(jq .totals.frames "$tmp/hup.json")" ]; then
    ok "$name"
else
    bad "$name: exit $rc (start: $started; $why) $(head -c 200 "$tmp/hup.err" | tr '\n' ' ')"
fi
# --- a reader that leaves (| head -1): the event stream's write fails with
# EPIPE, and the run ends as a signal ends it: -o and -w written, exit 0
# (it was killed by SIGPIPE, 141, leaving neither)
name="| head -1: the reader leaves, -o and -w written, exit 0"
begin "$name"
rm -f "$tmp/pipe.json" "$tmp/pipe.pcap" "$tmp/pipe.rc"
(
    ip netns exec "$NS_S" "$EW" -i s0 --interval 0.5 -o "$tmp/pipe.json" -w "$tmp/pipe.pcap" 2>"$tmp/pipe.err" &
    echo $! >"$tmp/pipe.pid"
    wait $!
    echo $? >"$tmp/pipe.rc"
) | head -1 >"$tmp/pipe.first" &
pipepid=$!
bg="$bg $pipepid"
sleep 2
traffic 2
t=0
while [ ! -s "$tmp/pipe.rc" ] && [ $t -lt 200 ]; do sleep 0.1; t=$((t + 1)); done
if [ ! -s "$tmp/pipe.rc" ]; then
    kill -TERM "$(cat "$tmp/pipe.pid")" 2>/dev/null
    bad "$name: still running 20 s after the traffic"
elif [ "$(cat "$tmp/pipe.rc")" = 0 ] && [ -s "$tmp/pipe.first" ] && jq -e . "$tmp/pipe.first" >/dev/null 2>&1 &&
    jq_true "$tmp/pipe.json" '.source.interrupted == true and .totals.frames > 0' &&
    [ "$(bounded 30 tcpdump -r "$tmp/pipe.pcap" -nn 2>/dev/null | wc -l)" = "$(jq .totals.frames "$tmp/pipe.json")" ]; then
    ok "$name"
else
    bad "$name: exit $(cat "$tmp/pipe.rc"), $why $(head -c 200 "$tmp/pipe.err" | tr '\n' ' ')"
fi
wait_bounded 10 $pipepid 2>/dev/null

# --- the interface deleted under the capture: an error naming it (exit 3),
# and the report of what was read says it was cut short (interrupted)
name="interface deleted: exit 3, the report written and interrupted"
begin "$name"
rm -f "$tmp/gone.json"
if ip netns exec "$NS_S" ip link add g0 type veth peer name g1 &&
    ip netns exec "$NS_S" ip link set g0 up && ip netns exec "$NS_S" ip link set g1 up; then
    ip netns exec "$NS_S" "$EW" -i g0 -q -o "$tmp/gone.json" >/dev/null 2>"$tmp/gone.err" &
    gonepid=$!
    bg="$bg $gonepid"
    why=""
    wait_dropped 20 $gonepid
    started=${why:-ok}
    ip netns exec "$NS_S" ip link del g0
    wait_rc 20 $gonepid
    if [ "$rc" = 3 ] && grep -q "ecnwatch: g0: " "$tmp/gone.err" &&
        jq_true "$tmp/gone.json" '.source.interrupted == true'; then
        ok "$name"
    else
        bad "$name: exit $rc (start: $started) $(head -c 200 "$tmp/gone.err" | tr '\n' ' ') $(jq -c .source "$tmp/gone.json" 2>&1 | head -c 200)"
    fi
else
    bad "$name: could not make the veth pair g0/g1"
fi

# the live stream's flow_end events and the -o report of the same session
# tell the same story of each flow: one conclusion feeds both
live_views_agree() {
    local a b
    json_ok "$tmp/live.ndjson" && json_ok "$tmp/nd.json" || return 1
    a=$(jq -r 'select(.event == "flow_end") | .flow | "\(.id) \(.verdict) \([.misuse[].kind] | unique | join(","))"' \
        "$tmp/live.ndjson" | sort)
    # a flow of no interest (fewer than 32 packets, Not-ECT both ways, no
    # ECN asked for, no finding: a stray ND or mDNS packet) is only counted
    # by the stream, not ended there
    b=$(jq -r '.flows[] | select((.c2s.packets + .s2c.packets >= 32) or .verdict != "not_ecn" or
            (.misuse | length) > 0 or ((.c2s.ecn.ect0 + .c2s.ecn.ect1 + .c2s.ecn.ce + .s2c.ecn.ect0 +
            .s2c.ecn.ect1 + .s2c.ecn.ce) > 0)) |
            "\(.id) \(.verdict) \([.misuse[].kind] | unique | join(","))"' "$tmp/nd.json" | sort)
    [ -n "$a" ] || { why="no flow_end event"; return 1; }
    [ "$a" = "$b" ] || { why="stream '$(echo $a)', report '$(echo $b)'"; return 1; }
}
check "live: the stream's flow ends and the -o report agree on every flow's verdict and findings" live_views_agree

# --- the capture's own loss: ecnwatch stopped (SIGSTOP) with a small kernel
# buffer while a capture's worth of frames arrives must miss some, and say so
# in the -o report, the NDJSON summary and on standard error
name="a lossy capture says so: totals.capture.dropped > 0 (report, summary), a line on stderr"
begin "$name"
ip netns exec "$NS_S" "$EW" -i s0 -B 64 --interval 0.5 -o "$tmp/loss.json" >"$tmp/loss.ndjson" 2>"$tmp/loss.err" &
lpid=$!
bg="$bg $lpid"
why=""
if wait_dropped 20 $lpid; then
    kill -STOP $lpid
    for i in 1 2 3; do
        bounded 30 ip netns exec "$NS_C" python3 "$tmp/replay.py" "$BLEACH" c0 >"$tmp/replay.out" 2>&1 ||
            why="replay: $(head -c 200 "$tmp/replay.out")"
    done
    kill -CONT $lpid
    sleep 1
    kill -TERM $lpid 2>/dev/null
fi
wait_rc 20 $lpid
st=$rc
if [ "$st" = 0 ] && [ -z "$why" ] &&
    jq_true "$tmp/loss.json" '.totals.capture.dropped > 0 and .totals.capture.received >= .totals.frames' &&
    jq_true "$tmp/loss.ndjson" '.[-1].event == "summary" and .[-1].totals.capture.dropped > 0' -s &&
    grep -qE "^ecnwatch: capture loss: of [0-9]+ packets the kernel received, [1-9][0-9]* dropped by its buffer" "$tmp/loss.err"; then
    ok "$name"
else
    bad "$name (exit $st; $why): $(jq -c .totals.capture "$tmp/loss.json" 2>&1 | head -c 200) $(head -c 300 "$tmp/loss.err" | tr '\n' ' ')"
fi

# -c stops after N packets
begin "-c 20 stops after 20 packets"
ip netns exec "$NS_S" "$EW" -i s0 -c 20 -o "$tmp/c.json" >/dev/null 2>"$tmp/c.err" &
cpid=$!
bg="$bg $cpid"
why=""
wait_dropped 20 $cpid && traffic 1
started=${why:-ok}
wait_rc 30 $cpid
st=$rc
why=""
if [ "$st" = 0 ] && jq_true "$tmp/c.json" '.totals.frames == 20'; then
    ok "-c 20 stops after 20 packets"
else
    bad "-c 20 (exit $st; start: $started; $why): $(jq -c .totals "$tmp/c.json" 2>&1 | head -c 200 | tr '\n' ' ') $(head -c 200 "$tmp/c.err" | tr '\n' ' ')"
fi

# -w, --timeseries, --plot and --fail-on live, on a capture with a known
# finding replayed onto the link (captures/bleach-accecn-client.pcap: one
# flow whose ECT marks are bleached, the finding "bleaching"): the packets
# kept as they pass (re-read: the same frames), the series in the -o report,
# the plots written when capture stops, and --fail-on's line naming the kind
REPLAY_CAP=$(cd "$(dirname "$0")/.." && pwd)/captures/bleach-accecn-client.pcap
replay() { # replay PCAP IFACE: each frame of a classic pcap file sent on IFACE
    python3 - "$1" "$2" <<'PY'
import socket, struct, sys, time
d = open(sys.argv[1], 'rb').read()
assert struct.unpack('<I', d[:4])[0] == 0xa1b2c3d4, "a little-endian microsecond pcap"
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[2], 0))
off, n = 24, 0
while off + 16 <= len(d):
    caplen = struct.unpack('<I', d[off + 8:off + 12])[0]
    s.send(d[off + 16:off + 16 + caplen])
    off += 16 + caplen
    n += 1
    if n % 200 == 0:
        time.sleep(0.005)  # the capture buffer is large; this keeps the veth queue short
PY
}
begin "live -q, -w, --timeseries, --plot, --fail-on"
ip netns exec "$NS_S" "$EW" -i s0 -q -c 2746 -w "$tmp/lw.pcap" --timeseries --plot "$tmp/lplots" \
    -o "$tmp/lw.json" --fail-on bleaching,remarking tcp >"$tmp/lw.out" 2>"$tmp/lw.err" &
wpid=$!
bg="$bg $wpid"
why=""
wait_dropped 20 $wpid && { bounded 60 ip netns exec "$NS_C" bash -c "$(declare -f replay); replay '$REPLAY_CAP' c0" \
    >"$tmp/replay.out" 2>&1 || why="the replay failed: $(head -c 200 "$tmp/replay.out")"; }
started=${why:-ok}
wait_rc 30 $wpid
wst=$rc
why=""
live_w() {
    local n
    jq_true "$tmp/lw.json" '.totals.frames == 2746' || return 1
    ew_json "$tmp/lwr.json" -r "$tmp/lw.pcap" --json || return 1
    jq_true "$tmp/lwr.json" '.totals.frames == 2746 and .source.linktype == "EN10MB"' || return 1
    n=$(bounded 60 tshark -r "$tmp/lw.pcap" -T fields -e frame.number 2>/dev/null | wc -l)
    [ "$n" = 2746 ] || { why="tshark reads $n frames of the -w file"; return 1; }
}
check "live -w keeps the 2746 frames captured (ecnwatch and tshark re-read them; start: $started)" live_w
# -q: quiet on standard output (no event stream off a terminal), the files still written
quiet_out() {
    [ -e "$tmp/lw.out" ] || { why="the run did not start"; return 1; }
    [ ! -s "$tmp/lw.out" ] || { why="$(wc -c <"$tmp/lw.out") bytes: $(head -c 120 "$tmp/lw.out")"; return 1; }
    [ -s "$tmp/lw.json" ] || { why="and no -o report"; return 1; }
}
check "live -q writes nothing to standard output, and the -o report" quiet_out
check "live --timeseries: the -o report's flow has its series" jq_true "$tmp/lw.json" \
    '[.flows[] | select(.timeseries)] | length == 1'
live_plots() {
    [ -s "$tmp/lplots/index.html" ] && ls "$tmp/lplots"/flow-*.svg >/dev/null 2>&1 ||
        { why="no index.html or flow SVG in the --plot folder: $(ls "$tmp/lplots" 2>&1 | head -c 200)"; return 1; }
}
check "live --plot: written when capture stops" live_plots
live_fail_on() {
    [ "$wst" = 1 ] || { why="exit $wst, want 1: $(head -c 300 "$tmp/lw.err" | tr '\n' ' ')"; return 1; }
    grep -qE "^ecnwatch: --fail-on matched: bleaching \(1 flow\)$" "$tmp/lw.err" ||
        { why="stderr: $(head -c 300 "$tmp/lw.err" | tr '\n' ' ')"; return 1; }
}
check "live --fail-on names the kind found (bleaching, 1 flow)" live_fail_on

# --- --workers 2: the interface fanned out over two capture threads
# (PACKET_FANOUT_HASH). 64 TCP flows, each with its own number of packets
# in each direction (a handshake, then data one way and ACKs the other),
# sent interleaved from c0: every flow must be reported once, with both
# directions' packets counted right, which holds only when the kernel sent
# each flow's two directions to the same worker (a flow split between the
# workers would be two records of one key, one direction's counts lost);
# and both workers must have had frames, or the check proves nothing.
cat >"$tmp/flows.py" <<'PY'
import socket, struct, sys, time
def csum(b):
    v = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    v = (v >> 16) + (v & 0xFFFF)
    return ~(v + (v >> 16)) & 0xFFFF
def frame(src, dst, sp, dp, seq, ack, flags, payload, ecn):
    tcp = struct.pack("!HHIIBBHHH", sp, dp, seq, ack, 5 << 4, flags, 65535, 0, 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, ecn, 20 + len(tcp), 0, 0x4000, 64, 6, 0,
                     socket.inet_aton(src), socket.inet_aton(dst))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return b"\x02\x00\x00\x00\x00\x02" + b"\x02\x00\x00\x00\x00\x01" + b"\x08\x00" + ip + tcp
flows = []
for i in range(64):
    c, srv, cp = "10.99.%d.1" % i, "10.98.0.2", 40000 + i
    n_c2s, n_s2c = 3 + i % 5, 2 + i % 7  # each direction's packets, handshake included
    pk = [(0, frame(c, srv, cp, 5001, 1000, 0, 0x02, b"", 0)),
          (1, frame(srv, c, 5001, cp, 9000, 1001, 0x12, b"", 0))]
    for k in range(n_c2s - 1):
        pk.append((2 + 2 * k, frame(c, srv, cp, 5001, 1001 + 100 * k, 9001, 0x10, b"x" * 100, 2)))
    for k in range(n_s2c - 1):
        pk.append((3 + 2 * k, frame(srv, c, 5001, cp, 9001, 1001 + 100 * k, 0x10, b"", 0)))
    pk.sort(key=lambda p: p[0])
    flows.append([p[1] for p in pk])
    print("%s %d %d" % (c, n_c2s, n_s2c), file=sys.stderr)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
n = 0
while any(flows):
    for f in flows:  # the flows take turns, a packet each
        if f:
            s.send(f.pop(0))
            n += 1
            if n % 100 == 0:
                time.sleep(0.005)
print(n)
PY
begin "live --workers 2"
ip netns exec "$NS_S" "$EW" --workers 2 -i s0 -q -o "$tmp/wk.json" tcp and net 10.99.0.0/16 \
    >"$tmp/wk.out" 2>"$tmp/wk.err" &
wkpid=$!
bg="$bg $wkpid"
why=""
wait_dropped 20 $wkpid && { bounded 60 ip netns exec "$NS_C" python3 "$tmp/flows.py" c0 \
    >"$tmp/flows.out" 2>"$tmp/flows.want" || why="the sender failed: $(head -c 200 "$tmp/flows.out")"; }
sleep 1
kill -INT $wkpid 2>/dev/null
wait_rc 30 $wkpid
wkst=$rc
live_workers() {
    local want got
    [ -z "$why" ] || return 1
    [ "$wkst" = 0 ] || { why="exit $wkst: $(head -c 300 "$tmp/wk.err" | tr '\n' ' ')"; return 1; }
    want=$(sort "$tmp/flows.want")
    got=$(jq -r '.flows[] | "\(.client.addr) \(.c2s.packets) \(.s2c.packets)"' "$tmp/wk.json" | sort)
    [ "$got" = "$want" ] || {
        why="flows reported (client c2s s2c) differ from those sent: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | head -6 | tr '\n' ' ')"
        return 1
    }
    jq_true "$tmp/wk.json" ".totals.frames == $(cat "$tmp/flows.out")" || return 1
    grep -qE '^ecnwatch: frames by worker: [1-9][0-9]* [1-9][0-9]*$' "$tmp/wk.err" ||
        { why="both workers should have frames: $(grep 'by worker' "$tmp/wk.err")"; return 1; }
}
check "live --workers 2: 64 flows sent both ways each reported once, both directions counted right ($(grep 'by worker' "$tmp/wk.err" 2>/dev/null | sed 's/ecnwatch: //'))" live_workers

# --- capture errors, one line each with the documented status
err() { # err NAME STATUS PATTERN -- command
    local name=$1 want=$2 pat=$3
    shift 4
    begin "$name"
    why=""
    if ! EW_CMD_TIMEOUT=$((EW_CMD_TIMEOUT < 30 ? EW_CMD_TIMEOUT : 30)) run_ew "$want" "$tmp/err.out" "$tmp/err" "$@"; then
        bad "$name: $why"
    elif ! grep -qE -- "$pat" "$tmp/err" || [ "$(wc -l <"$tmp/err")" != 1 ]; then
        bad "$name: want one line matching '$pat': $(head -c 300 "$tmp/err" | tr '\n' ' ')"
    else
        ok "$name"
    fi
}
err "no such interface -> 3" 3 "nosuch0: no such interface" -- "$EW" -i nosuch0
err "interface down -> 3" 3 "dn0: the interface is down" -- ip netns exec "$NS_S" "$EW" -i dn0
if command -v setpriv >/dev/null; then
    err "no permission -> 3, names CAP_NET_RAW" 3 "CAP_NET_RAW" -- \
        ip netns exec "$NS_S" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$EW" -i s0
fi
err "unknown -Z user -> 2" 2 "no such user" -- ip netns exec "$NS_S" "$EW" -i s0 -Z no-such-user-x
err "bad live filter -> 2" 2 "bad filter expression" -- ip netns exec "$NS_S" "$EW" -i s0 tcp port nonsense
err "--workers with -w -> 2" 2 "--workers cannot be combined with -w" -- "$EW" -i s0 --workers 2 -w "$tmp/x.pcap"

# LIVE_SCREENS=DIR keeps the captured screens (for the README)
[ -n "${LIVE_SCREENS:-}" ] && cp "$tmp"/s[0-9].txt "$LIVE_SCREENS"/ 2>/dev/null
finish live
