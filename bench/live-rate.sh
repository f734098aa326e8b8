#!/usr/bin/env bash
# live-rate.sh BUILD [COMMAND...] - live capture against a load generator
# that is not the limit (bench/README.md, "Live capture at a million
# packets per second"). As root, after make bench (BUILD/blast).
#
# Two network namespaces joined by a veth pair, without addresses: blast
# sends the TCP frames of the field captures (BENCH_FIELD), rewritten into
# BENCH_RATE_FLOWS copies of their flows, into one end at each rate; each
# COMMAND (an ecnwatch binary and its own options, e.g. "build/ecnwatch
# --workers 2"; BUILD/ecnwatch by default) captures the other end, in turn,
# in each configuration, at each snapshot length:
#   ndjson   --ndjson -o report.json (the events to /dev/null)
#   metrics  -q --metrics 127.0.0.1:9900 -o report.json, scraped each second
#   view     the live view in tmux (100x30), -o report.json, quit with q
#   all      the view, --metrics (scraped) and -o report.json at once
#   stream   --ndjson, --metrics (scraped) and -o report.json at once (the
#            view and the events both want standard output: not in one run)
# The capture is listening (its packet sockets are open) before blast
# starts; every process runs under timeout; the namespaces and the tmux
# session are removed at the end, also on failure.
#
# Per run: blast's frames sent and rate, the frames the veth delivered (its
# receive counter), the frames ecnwatch counted (totals.frames of its
# report), those its capture lost (totals.capture: dropped by the kernel
# buffer and by the interface), the CPU ecnwatch and blast took and the
# share of both processors idle while blast sent. A run is clean when sent,
# delivered and counted are equal.
#
# Environment: BENCH_RATE_RATES ["500000 1000000 0"; 0: as fast as blast
# can], BENCH_RATE_SNAPS ["128 65535"], BENCH_RATE_CONFIGS ["ndjson metrics
# view all stream"], BENCH_RATE_SECONDS [4], BENCH_RATE_FLOWS [1024],
# BENCH_RATE_FRAMES [200000: template frames], BENCH_FIELD [../shared/field].
set -u
cd "$(dirname "$0")/.."
export LC_ALL=C

B=${1:-build}
shift || true
if [ $# -gt 0 ]; then CMDS=("$@"); else CMDS=("$B/ecnwatch"); fi
RATES=${BENCH_RATE_RATES:-500000 1000000 0}
SNAPS=${BENCH_RATE_SNAPS:-128 65535}
CONFIGS=${BENCH_RATE_CONFIGS:-ndjson metrics view all stream}
SECS=${BENCH_RATE_SECONDS:-4}
FLOWS=${BENCH_RATE_FLOWS:-1024}
FRAMES=${BENCH_RATE_FRAMES:-200000}
FIELD=${BENCH_FIELD:-../shared/field}
NS_TX=ewrate-tx
NS_RX=ewrate-rx
S=ewrate
PORT=9900

[ "$(id -u)" = 0 ] || { echo "live-rate: run as root (network namespaces)" >&2; exit 2; }
for c in tmux jq curl xz gzip; do
    command -v $c >/dev/null || { echo "live-rate: $c not found" >&2; exit 2; }
done
[ -x "$B/blast" ] || { echo "live-rate: $B/blast missing: make $B/blast" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "live-rate: /usr/bin/time missing (Debian package time)" >&2; exit 2; }

cleanup() {
    tmux kill-session -t $S 2>/dev/null
    ip netns del $NS_TX 2>/dev/null
    ip netns del $NS_RX 2>/dev/null
    [ -n "${BENCH_RATE_KEEP:-}" ] || rm -rf "${tmp:-}"
}
cleanup # left over from an interrupted run
tmp=$(mktemp -d)
chmod 0777 "$tmp" # ecnwatch writes its report after dropping to nobody
trap cleanup EXIT

# the templates: the field captures' TCP frames (blast skips what is not
# Ethernet)
tmpls=()
for f in "$FIELD"/*.pcap.xz "$FIELD"/*.pcap.gz; do
    [ -f "$f" ] || continue
    out=$tmp/$(basename "${f%.*}")
    case $f in
    *.xz) xz -dc "$f" >"$out" ;;
    *.gz) gzip -dc "$f" >"$out" ;;
    esac && tmpls+=("$out")
done
[ ${#tmpls[@]} -gt 0 ] || { echo "live-rate: no field captures in $FIELD" >&2; exit 2; }

ip netns add $NS_TX && ip netns add $NS_RX || exit 1
ip link add ewr0 netns $NS_TX type veth peer name ewr1 netns $NS_RX || exit 1
for ns in $NS_TX $NS_RX; do
    # no IPv6 autoconfiguration chatter on the link: only blast's frames
    ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
ip -n $NS_TX link set ewr0 mtu 1500 up
ip -n $NS_RX link set ewr1 mtu 1500 up
ip -n $NS_RX link set lo up # the metrics endpoint, 127.0.0.1 in the namespace

rx_packets() { ip -n $NS_RX -s -j link show ewr1 | jq '.[0].stats64.rx.packets'; }
tx_dropped() { ip -n $NS_TX -s -j link show ewr0 | jq '.[0].stats64.tx.dropped'; }
# busy and total jiffies of both processors
cpu_now() { awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t }' /proc/stat; }
# packet sockets open in the capture's namespace
psockets() { ip netns exec $NS_RX cat /proc/net/packet | tail -n +2 | wc -l; }
blast() {
    # shellcheck disable=SC2086 # $1: the rate option, or none
    ip netns exec $NS_TX timeout $((SECS + 60)) "$B/blast" ewr0 "${tmpls[@]}" --flows "$FLOWS" \
        --frames "$FRAMES" --seconds "$SECS" $1
}

echo "== live capture at high rates: blast -> veth -> ecnwatch -i"
echo "   $(nproc) CPUs, $(uname -r); $SECS s per run; $FLOWS copies of the field captures' flows; templates: ${tmpls[*]##*/}"
echo "   $(uptime)"
top -bn1 | head -12 | sed 's/^/   /'

# blast alone, nothing capturing: what the generator reaches here
before=$(rx_packets)
read -r b0 t0 < <(cpu_now)
out=$(blast "" 2>/dev/null)
read -r b1 t1 < <(cpu_now)
echo "   blast alone: $out; delivered $(($(rx_packets) - before)); processors idle $(((100 * (t1 - t0 - b1 + b0)) / (t1 - t0 + 1)))%"

printf "  %-28s %-7s %5s %8s %9s %9s %9s %9s %9s %6s %6s %5s  %s\n" command config snap "asked" \
    "sent/s" sent delivered counted lost "ew cpu" "bl cpu" idle verdict

# one run: $1 the command, $2 the configuration, $3 the snapshot length, $4 the rate
run() {
    local cmd=$1 cfg=$2 snap=$3 rate=$4 opts=() view=0 scrape=0 rep=$tmp/report.json
    local ropt="" pid tpid ewpid before after b0 t0 b1 t1 out sent spps counted lost cpu bcpu v
    local base
    read -r -a base <<<"$cmd"
    case $cfg in
    ndjson) opts=(--ndjson -o "$rep") ;;
    metrics) opts=(-q --metrics 127.0.0.1:$PORT -o "$rep"); scrape=1 ;;
    view) opts=(-o "$rep"); view=1 ;;
    all) opts=(--metrics 127.0.0.1:$PORT -o "$rep"); view=1; scrape=1 ;;
    stream) opts=(--ndjson --metrics 127.0.0.1:$PORT -o "$rep"); scrape=1 ;;
    esac
    [ "$rate" != 0 ] && ropt="--rate $rate"
    rm -f "$rep" "$tmp/time" "$tmp/err"
    local sockets0
    sockets0=$(psockets)
    if [ $view = 1 ]; then
        tmux new-session -d -s $S -x 100 -y 30 \
            "ip netns exec $NS_RX /usr/bin/time -o $tmp/time -f '%U %S' timeout --foreground -s INT $((SECS + 60)) ${base[*]} -i ewr1 -s $snap ${opts[*]} 2>$tmp/err"
    else
        ip netns exec $NS_RX timeout -s INT $((SECS + 60)) /usr/bin/time -o "$tmp/time" -f '%U %S' \
            "${base[@]}" -i ewr1 -s "$snap" "${opts[@]}" >/dev/null 2>"$tmp/err" &
        pid=$!
    fi
    # listening: its packet sockets open, and a moment to settle
    for _ in $(seq 1 100); do
        [ "$(psockets)" -gt "$sockets0" ] && break
        sleep 0.05
    done
    sleep 0.5
    if [ $scrape = 1 ]; then
        (for _ in $(seq 1 $((SECS + 3))); do
            ip netns exec $NS_RX timeout 5 curl -s -o /dev/null http://127.0.0.1:$PORT/metrics
            sleep 1
        done) &
        spid=$!
    fi
    before=$(rx_packets)
    read -r b0 t0 < <(cpu_now)
    out=$(blast "$ropt" 2>/dev/null)
    read -r b1 t1 < <(cpu_now)
    sleep 1
    after=$(rx_packets)
    [ $scrape = 1 ] && wait "$spid" 2>/dev/null
    if [ $view = 1 ]; then
        tmux send-keys -t $S q
        for _ in $(seq 1 300); do
            tmux has-session -t $S 2>/dev/null || break
            sleep 0.1
        done
        tmux kill-session -t $S 2>/dev/null
    else
        tpid=$(pgrep -P "$pid" | head -1)
        ewpid=$(pgrep -P "${tpid:-0}" | head -1)
        [ -n "$ewpid" ] && kill -INT "$ewpid"
        wait "$pid"
    fi
    sent=$(sed -n 's/^sent \([0-9]*\) frames.*/\1/p' <<<"$out")
    spps=$(sed -n 's/.*: \([0-9]*\) frames\/s.*/\1/p' <<<"$out")
    bcpu=$(sed -n 's/.*cpu \([0-9.]*\) s.*/\1/p' <<<"$out")
    counted=$(jq '.totals.frames' "$rep" 2>/dev/null)
    lost=$(jq '.totals.capture.dropped + (.totals.capture.interface_dropped // 0)' "$rep" 2>/dev/null)
    cpu=$(tail -1 "$tmp/time" 2>/dev/null | awk '{ printf "%.2f", $1 + $2 }')
    [ -n "$counted" ] || { echo "   no report: $(head -3 "$tmp/err")"; counted=0; lost=?; }
    v=clean
    if [ "$counted" != "${sent:-x}" ] || [ "$((after - before))" != "${sent:-x}" ]; then v=LOSS; fi
    printf "  %-28s %-7s %5s %8s %9s %9s %9s %9s %9s %6s %6s %4s%%  %s\n" "${cmd#"$B"/}" "$cfg" "$snap" \
        "$rate" "${spps:-?}" "${sent:-?}" "$((after - before))" "$counted" "$lost" "${cpu:-?}" \
        "${bcpu:-?}" "$(((100 * (t1 - t0 - b1 + b0)) / (t1 - t0 + 1)))" "$v"
}

for rate in $RATES; do
    for snap in $SNAPS; do
        for cfg in $CONFIGS; do
            for cmd in "${CMDS[@]}"; do
                run "$cmd" "$cfg" "$snap" "$rate"
            done
        done
    done
done
echo "   veth send drops (blast's frames the link could not take): $(tx_dropped)"
echo "   $(uptime)"
