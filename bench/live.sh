#!/usr/bin/env bash
# live.sh BUILD [RATE...] - the highest packet rate at which `ecnwatch -i`
# drops nothing at snapshot length 128 (bench/README.md). As root.
#
# Two network namespaces joined by a veth pair, without addresses: tcpreplay
# sends the benchmark capture's first packets into one end at each rate
# (--pps), for about BENCH_LIVE_SECONDS seconds; the frames are whole (the
# same packets as BUILD/bench/prefix.pcap, written by benchgen with their
# zero payloads, BUILD/bench/replay.pcap). ecnwatch -i -s 128 captures the
# other end in NDJSON mode (standard output to /dev/null) and writes its
# report with -o when stopped. A rate is clean when the frames ecnwatch
# counted equal the frames tcpreplay sent and the veth delivered. The
# namespaces are deleted at the end, also on failure.
#
# Environment: BENCH_LIVE_SECONDS [3], BENCH_LIVE_BUFFER_KIB [0: ecnwatch's
# default], BENCH_LIVE_PAD [1: whole frames; 0: the 128 captured bytes of
# prefix.pcap], BENCH_LIVE_INTERVAL [1: ecnwatch --interval, seconds],
# BENCH_PREFIX [500000] and BENCH_FLOWS [4096] as for run.sh.
set -u
export LC_ALL=C

B=${1:-build}
shift || true
RATES=${*:-50000 100000 150000 200000 300000 400000 500000 700000 1000000}
SECS=${BENCH_LIVE_SECONDS:-3}
BUF=${BENCH_LIVE_BUFFER_KIB:-0}
PAD=${BENCH_LIVE_PAD:-1}
INTERVAL=${BENCH_LIVE_INTERVAL:-1}
PREFIX=${BENCH_PREFIX:-500000}
FLOWS=${BENCH_FLOWS:-4096}
CAP=$B/bench/prefix.pcap
NS_TX=ewbench-tx
NS_RX=ewbench-rx

[ "$(id -u)" = 0 ] || { echo "live: run as root (network namespaces)" >&2; exit 2; }
command -v tcpreplay >/dev/null || { echo "live: tcpreplay not found: apt-get install tcpreplay" >&2; exit 2; }
if [ "$PAD" = 1 ]; then
    CAP=$B/bench/replay.pcap
    "$B/benchgen" "$CAP" --packets "$PREFIX" --flows "$FLOWS" --snaplen 65535 2>/dev/null ||
        { echo "live: cannot write $CAP (make bench builds $B/benchgen)" >&2; exit 2; }
fi
[ -f "$CAP" ] || { echo "live: $CAP missing: run make bench first" >&2; exit 2; }

del_ns() {
    ip netns del "$NS_TX" 2>/dev/null
    ip netns del "$NS_RX" 2>/dev/null
}
del_ns # left over from an interrupted run
tmp=$(mktemp -d)
chmod 0777 "$tmp" # ecnwatch writes its report after dropping to nobody
trap 'del_ns; rm -rf "$tmp"' EXIT

ip netns add "$NS_TX" && ip netns add "$NS_RX" || exit 1
ip link add ewb0 netns "$NS_TX" type veth peer name ewb1 netns "$NS_RX" || exit 1
for ns in "$NS_TX" "$NS_RX"; do
    # no IPv6 autoconfiguration chatter on the link: only the replayed frames
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
ip -n "$NS_TX" link set ewb0 mtu 1500 up
ip -n "$NS_RX" link set ewb1 mtu 1500 up

rx_packets() { ip -n "$NS_RX" -s -j link show ewb1 | sed 's/.*"rx":{[^}]*"packets":\([0-9]*\).*/\1/'; }

bufopt=()
[ "$BUF" != 0 ] && bufopt=(-B "$BUF")
total=$(capinfos -c -M "$CAP" 2>/dev/null | awk '/Number of packets/ { print $NF }')
echo "== live capture: tcpreplay -> veth -> ecnwatch -i (snaplen 128, NDJSON to /dev/null, -o report)"
echo "   $(nproc) CPUs, $(uname -r); $CAP; about $SECS s per rate; kernel buffer $BUF KiB (0: ecnwatch's default, 32 MiB); --interval $INTERVAL"
printf "  %10s %10s %10s %10s %10s %10s  %s\n" "asked pps" "sent pps" "sent" "delivered" "counted" "lost" "verdict"
best=0
for rate in $RATES; do
    limit=$((rate * SECS))
    [ -n "$total" ] && [ "$limit" -gt "$total" ] && limit=$total
    rm -f "$tmp/report.json"
    ip netns exec "$NS_RX" "$B/ecnwatch" -i ewb1 -s 128 "${bufopt[@]}" --interval "$INTERVAL" --ndjson -o "$tmp/report.json" \
        >/dev/null 2>"$tmp/ew.err" &
    ewpid=$!
    sleep 1
    before=$(rx_packets)
    ip netns exec "$NS_TX" tcpreplay -K --no-flow-stats -i ewb0 --pps="$rate" --limit="$limit" "$CAP" \
        >"$tmp/replay.out" 2>&1
    sleep 1
    after=$(rx_packets)
    kill -INT "$ewpid"
    wait "$ewpid"
    sent=$(awk '/Actual:/ { print $2; exit }' "$tmp/replay.out")
    spps=$(awk '/Rated:/ { for (i = 1; i <= NF; i++) if ($i ~ /pps/) { print int($(i - 1)); exit } }' "$tmp/replay.out")
    counted=$(sed -n 's/.*"frames": *\([0-9]*\).*/\1/p' "$tmp/report.json" 2>/dev/null | head -1)
    delivered=$((after - before))
    [ -n "$counted" ] || { echo "live: no report at $rate pps:"; cat "$tmp/ew.err"; counted=0; }
    lost=$((sent - counted))
    verdict=clean
    if [ "$counted" != "$sent" ] || [ "$delivered" != "$sent" ]; then verdict=LOSS; fi
    printf "  %10d %10s %10s %10s %10s %10s  %s\n" "$rate" "$spps" "$sent" "$delivered" "$counted" "$lost" "$verdict"
    if [ "$verdict" = clean ] && [ "${spps:-0}" -gt "$best" ]; then best=$spps; fi
done
echo "   highest clean rate: $best packets/s"
