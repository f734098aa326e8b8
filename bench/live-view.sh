#!/usr/bin/env bash
# live-view.sh BUILD [RATE] - the live view under load (bench/README.md). As
# root, after bench/live.sh has written BUILD/bench/replay.pcap.
#
# Two network namespaces joined by a veth pair, without addresses; the view
# (ecnwatch -i -s 128, 100x30, in tmux) watches one end while tcpreplay sends
# replay.pcap into the other at RATE packets/s (default 300000). Once the
# packets flow it prints the view's first line each second, presses `s`
# (sort) and times until the view shows the new order, and at the end
# compares the frames of the report written on `q` with those sent. The
# namespaces and the tmux session are removed at the end, also on failure.
set -u
cd "$(dirname "$0")/.."
export LC_ALL=C

B=${1:-build}
RATE=${2:-300000}
CAP=$B/bench/replay.pcap
NS_TX=ewview-tx
NS_RX=ewview-rx
S=ewview

[ "$(id -u)" = 0 ] || { echo "live-view: run as root (network namespaces)" >&2; exit 2; }
for c in tcpreplay tmux jq; do
    command -v $c >/dev/null || { echo "live-view: $c not found" >&2; exit 2; }
done
[ -f "$CAP" ] || { echo "live-view: $CAP missing: run bench/live.sh first" >&2; exit 2; }

cleanup() {
    tmux kill-session -t $S 2>/dev/null
    ip netns del $NS_TX 2>/dev/null
    ip netns del $NS_RX 2>/dev/null
    rm -rf "${tmp:-}"
}
cleanup
tmp=$(mktemp -d)
chmod 0777 "$tmp" # ecnwatch writes its report after dropping to nobody
trap cleanup EXIT

ip netns add $NS_TX && ip netns add $NS_RX || exit 1
ip link add ewv0 netns $NS_TX type veth peer name ewv1 netns $NS_RX || exit 1
for ns in $NS_TX $NS_RX; do
    ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
ip -n $NS_TX link set ewv0 up
ip -n $NS_RX link set ewv1 up

head1() { tmux capture-pane -p -t $S | head -1; }
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }

tmux new-session -d -s $S -x 100 -y 30 \
    "ip netns exec $NS_RX $B/ecnwatch -i ewv1 -s 128 -o $tmp/report.json 2>$tmp/err"
sleep 1
ip netns exec $NS_TX tcpreplay -K --pps="$RATE" -i ewv0 "$CAP" >"$tmp/replay.log" 2>&1 &
rp=$!
echo "== the live view at $RATE packets/s ($(nproc) CPUs, $(uname -r); $CAP)"
# tcpreplay -K loads the whole file first: wait for the packets to flow
for _ in $(seq 1 600); do
    head1 | grep -q " 0 pkts " || break
    sleep 0.1
done
t=0
while kill -0 $rp 2>/dev/null; do
    sleep 1
    t=$((t + 1))
    echo "  t=${t}s $(head1)"
    if [ $t = 3 ]; then
        t0=$EPOCHREALTIME
        before=$(head1 | sed 's/.*sort: //')
        tmux send-keys -t $S s
        for _ in $(seq 1 250); do
            [ "$(head1 | sed 's/.*sort: //')" != "$before" ] && break
            sleep 0.02
        done
        echo "  key 's' answered in $(since "$t0") s: sort $before -> $(head1 | sed 's/.*sort: //')"
    fi
done
sent=$(awk '/Successful packets:/ { print $3 }' "$tmp/replay.log")
tmux send-keys -t $S q
for _ in $(seq 1 100); do
    [ -s "$tmp/report.json" ] && break
    sleep 0.1
done
counted=$(jq .totals.frames "$tmp/report.json" 2>/dev/null)
echo "  sent $sent, counted by ecnwatch ${counted:-?}"
[ -n "$counted" ] && [ "$counted" = "$sent" ]
