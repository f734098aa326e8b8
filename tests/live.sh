#!/usr/bin/env bash
# live.sh ECNWATCH - the live mode as a user meets it, on real traffic between
# two network namespaces this script creates (addresses inside them only):
# the terminal view driven in tmux (send-keys, capture-pane), the -o report,
# the NDJSON stream, privilege dropping and the capture errors.
# Prints "live: N passed, N failed" (or why it was skipped) and exits non-zero
# on a failure.
set -u
EW=$(readlink -f "$1")
NS_C=ewlive-c$$
NS_S=ewlive-s$$
TM=ewlive$$
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

if [ "$(id -u)" != 0 ]; then
    echo "live: skipped: needs root to create network namespaces"; echo "live: 0 passed, 0 failed"; exit 0
fi
if ! ip netns add "$NS_C" 2>/dev/null; then
    echo "live: skipped: this machine cannot create network namespaces"; echo "live: 0 passed, 0 failed"; exit 0
fi
tmp=$(mktemp -d)
chmod 0777 "$tmp" # the view drops to nobody and writes its report here
cleanup() {
    tmux kill-session -t "$TM" 2>/dev/null
    ip netns pids "$NS_C" 2>/dev/null | xargs -r kill 2>/dev/null
    ip netns pids "$NS_S" 2>/dev/null | xargs -r kill 2>/dev/null
    ip netns del "$NS_C" 2>/dev/null
    ip netns del "$NS_S" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$NS_S"
ip link add c0 netns "$NS_C" type veth peer name s0 netns "$NS_S"
ip -n "$NS_C" addr add 10.77.0.1/24 dev c0
ip -n "$NS_S" addr add 10.77.0.2/24 dev s0
ip -n "$NS_C" link set c0 up
ip -n "$NS_S" link set s0 up
ip -n "$NS_C" link set lo up
ip -n "$NS_S" link set lo up
ip netns exec "$NS_C" sysctl -qw net.ipv4.tcp_ecn=1   # the client asks for classic ECN
ip netns exec "$NS_S" sysctl -qw net.ipv4.tcp_ecn=1
ip link add dn0 netns "$NS_S" type veth peer name dn1 netns "$NS_S"   # stays down

# traffic: a TCP transfer (classic ECN, data ECT(0)) and UDP datagrams marked ECT(1)
TRAFFIC=$(cd "$(dirname "$0")" && pwd)/traffic.py
traffic() { # traffic SECONDS
    local sp
    ip netns exec "$NS_S" python3 "$TRAFFIC" server "$1" 10.77.0.2 &
    sp=$!
    sleep 0.3
    ip netns exec "$NS_C" python3 "$TRAFFIC" client "$1" 10.77.0.2
    wait $sp
}

# --- the terminal view, in tmux at 80x24
tmux new-session -d -s "$TM" -x 80 -y 24 \
    "ip netns exec $NS_S $EW -i s0 -o $tmp/live.json --interval 0.5; echo EXITED \$?; sleep 60"
sleep 1
pid=$(pgrep -f "^$EW -i s0 -o $tmp/live.json" | head -1)
if [ -n "$pid" ] && grep -q '^Uid:.*65534' /proc/"$pid"/status; then
    ok "privileges dropped to nobody after opening the capture"
else
    bad "privileges dropped to nobody (pid '$pid')"
fi
traffic 3
sleep 1.5
screen() { tmux capture-pane -p -t "$TM"; }
screen >"$tmp/s1.txt"
grep -q "ecnwatch s0" "$tmp/s1.txt" && grep -q "flows [1-9]" "$tmp/s1.txt" && ok "header: interface, packets, flows" ||
    bad "header: $(head -1 "$tmp/s1.txt")"
grep -E "10\.77\.0\.1:[0-9]+>10\.77\.0\.2:52" "$tmp/s1.txt" | grep -q "rfc3168.*classic" &&
    ok "the TCP flow: classic ECN negotiated, verdict classic" || bad "the TCP flow row: $(grep 5201 "$tmp/s1.txt")"
grep -E "10\.77\.0\.1:[0-9]+>10\.77\.0\.2:60" "$tmp/s1.txt" | grep -qE " 100 +0\.0 " &&
    ok "the UDP flow: 100% ECT(1)" || bad "the UDP flow row: $(grep 6001 "$tmp/s1.txt")"
[ "$(wc -L <"$tmp/s1.txt")" -le 80 ] && ok "fits 80 columns" || bad "wider than 80 columns"
tmux send-keys -t "$TM" s
sleep 0.8
screen | head -1 | grep -q "sort: CE share" && ok "s changes the sort key" || bad "s: $(screen | head -1)"
tmux send-keys -t "$TM" / 5 2 0 1 Enter
sleep 0.5
tmux send-keys -t "$TM" Enter
sleep 0.8
screen >"$tmp/s2.txt"
grep -q "CE share" "$tmp/s2.txt" && grep -q "ECT1 share" "$tmp/s2.txt" && grep -q "verdict classic" "$tmp/s2.txt" &&
    grep -q "SYN requests classic ECN" "$tmp/s2.txt" &&
    ok "Enter opens the detail pane (verdict, sparklines)" || bad "detail pane: $(cat "$tmp/s2.txt")"
tmux send-keys -t "$TM" h
sleep 0.5
screen | grep -q "ecnwatch keys" && ok "h shows the help" || bad "help not shown"
tmux send-keys -t "$TM" x
tmux send-keys -t "$TM" / u d p Enter
sleep 0.8
screen >"$tmp/s3.txt"
grep -q ":60" "$tmp/s3.txt" && ! grep -q ":5201" "$tmp/s3.txt" && ok "/ filters the flows" ||
    bad "filter: $(cat "$tmp/s3.txt")"
tmux send-keys -t "$TM" C-l
tmux send-keys -t "$TM" q
sleep 1.5
screen >"$tmp/s4.txt"
grep -q "EXITED 0" "$tmp/s4.txt" && ok "q exits with status 0" || bad "q: $(cat "$tmp/s4.txt")"
[ "$(tmux display -p -t "$TM" '#{alternate_on}')" = 0 ] && ok "the terminal is restored" || bad "terminal left in the view"
if jq -e '.source.kind == "interface" and .source.name == "s0" and
        ([.flows[] | select(.proto == "tcp" and .server.port == 5201)][0] |
            .negotiation == "rfc3168" and .c2s.ecn.ect0 > 10 and .verdict == "classic") and
        ([.flows[] | select(.proto == "udp")][0] | .c2s.ecn.ect1 > 10 and .c2s.ecn.ect0 == 0)' \
        "$tmp/live.json" >/dev/null; then
    ok "the -o report matches the traffic"
else
    bad "the -o report: $(head -c 300 "$tmp/live.json")"
fi

# --- NDJSON when standard output is not a terminal; SIGTERM ends it cleanly
ip netns exec "$NS_S" "$EW" -i s0 --interval 0.5 -o "$tmp/nd.json" >"$tmp/live.ndjson" 2>"$tmp/nd.err" &
ndpid=$!
sleep 1
traffic 2
sleep 1
kill -TERM $ndpid
wait $ndpid
st=$?
if [ $st = 0 ] && [ -s "$tmp/live.ndjson" ] &&
    [ "$(jq -c . "$tmp/live.ndjson" 2>/dev/null | wc -l)" = "$(wc -l <"$tmp/live.ndjson")" ] &&
    jq -e -s 'any(.[]; .event == "flow_update") and .[-1].event == "summary" and
        .[-1].source.interrupted == true' "$tmp/live.ndjson" >/dev/null &&
    jq -e '.source.interrupted == true and (.flows | length) >= 2' "$tmp/nd.json" >/dev/null; then
    ok "NDJSON stream: every line parses, flow updates, a summary; SIGTERM writes -o"
else
    bad "NDJSON stream (exit $st): $(head -c 300 "$tmp/live.ndjson") $(cat "$tmp/nd.err")"
fi
# -c stops after N packets
ip netns exec "$NS_S" "$EW" -i s0 -c 20 -o "$tmp/c.json" >/dev/null 2>&1 &
cpid=$!
sleep 0.5
traffic 1
wait $cpid
[ $? = 0 ] && jq -e '.totals.frames == 20' "$tmp/c.json" >/dev/null && ok "-c 20 stops after 20 packets" ||
    bad "-c 20: $(jq -c .totals "$tmp/c.json" 2>&1 | head -c 200)"

# --- capture errors, one line each with the documented status
err() { # err NAME STATUS PATTERN -- command
    local name=$1 want=$2 pat=$3
    shift 4
    "$@" >/dev/null 2>"$tmp/err"
    local got=$?
    if [ $got = "$want" ] && grep -qE "$pat" "$tmp/err" && [ "$(wc -l <"$tmp/err")" = 1 ]; then
        ok "$name"
    else
        bad "$name: exit $got: $(cat "$tmp/err")"
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

# LIVE_SCREENS=DIR keeps the captured screens (for the README)
[ -n "${LIVE_SCREENS:-}" ] && cp "$tmp"/s[0-9].txt "$LIVE_SCREENS"/ 2>/dev/null
echo "live: $pass passed, $fail failed"
[ $fail = 0 ]
