#!/usr/bin/env bash
# record-shared.sh - records two concurrent real Linux TCP flows through one
# bottleneck of the lab router, for ecnwatch's shared-bottleneck comparison:
# an L4S-style flow (AccECN, ECT(1) data) and a classic one (RFC 3168 ECN,
# ECT(0) data), from the same client to the same server, at the same time.
#
#   sudo bash captures/lab/record-shared.sh                 # both scenarios
#   sudo bash captures/lab/record-shared.sh shared-single   # one
#
# Scenarios (the router's marking program is the lab's nfq_ecn):
#   shared-dualq   two queues behind the bottleneck: ECT(1) packets go to an
#                  L queue served first, the rest to a C queue (htb, strict
#                  priority, one shared rate); ECT(1) is CE-marked when the L
#                  queue holds more than L_US of delay, ECT(0) when the whole
#                  backlog holds more than C_US
#   shared-single  one FIFO: every ECT packet is CE-marked above T_US
#   shared-fifo-two-thresholds
#                  one FIFO, ECT(1) CE-marked above L_US and ECT(0) above
#                  C_US: the L4S thresholds without the L queue, so both
#                  kinds still wait in one queue
#
# It reuses the lab in ../shared/lab (LAB=...): lib.sh for the namespaces and
# tcpdump, src/nfq_ecn.c as the router's AQM and the delay line on the ACK
# path, src/acc_cc.bpf.c for the AccECN congestion controls (registered for the
# run, unregistered on exit), flow.py as the TCP sender and receiver.
# All traffic stays in three network namespaces made here (ewshared-cli,
# ewshared-rtr, ewshared-srv), deleted on exit.
#
# env: OUT (pcaps, default captures/), SIDE (ground truth, default
#      captures/lab/), SECS=3 (flow length), RATE_MBIT=20, DELAY_US=20000 (delay
#      line on the ACK path), L_US=1000, C_US=10000, T_US=5000 (thresholds),
#      BUILD (helpers, default /tmp/ewshared-build), LAB (default ../shared/lab)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
LAB=${LAB:-$(cd "$REPO/.." && pwd)/shared/lab}
OUT=${OUT:-$REPO/captures}
SIDE=${SIDE:-$REPO/captures/lab}
BUILD=${BUILD:-/tmp/ewshared-build}
SECS=${SECS:-3}
RATE_MBIT=${RATE_MBIT:-20}
DELAY_US=${DELAY_US:-20000}
L_US=${L_US:-1000}
C_US=${C_US:-10000}
T_US=${T_US:-5000}
RATE=${RATE_MBIT}mbit
export RATE
[ -f "$LAB/lib.sh" ] || { echo "record-shared: no lab at $LAB (set LAB=)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "record-shared: must run as root" >&2; exit 1; }
for b in ip iptables-legacy tcpdump python3 gcc clang bpftool ethtool pkg-config tc; do
    command -v $b >/dev/null || { echo "record-shared: $b is missing" >&2; exit 2; }
done
# shellcheck source=/dev/null
source "$LAB/lib.sh"
# our own namespace names, so that a run of the lab's own recorder is not disturbed
NS_C=ewshared-cli
NS_R=ewshared-rtr
NS_S=ewshared-srv
LAB_CCS="lab_acc lab_acc_ect lab_acc_e1 lab_ecn"
L4S_PORT=5001
CLASSIC_PORT=5002

mkdir -p "$OUT" "$SIDE" "$BUILD"
WORK=$(mktemp -d /tmp/ewshared.XXXXXX)
REGISTERED=0
NFQ_PIDS=()
cc_unregister() {
    local n
    for n in $LAB_CCS; do bpftool struct_ops unregister name "$n" >/dev/null 2>&1 || true; done
}
nfq_stop_all() {
    local p
    for p in "${NFQ_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${NFQ_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    NFQ_PIDS=()
}
cleanup() {
    cap_stop_all >/dev/null 2>&1 || true
    nfq_stop_all
    topo_down >/dev/null 2>&1 || true
    [ "$REGISTERED" = 1 ] && cc_unregister
    rm -rf "$WORK"
    return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- build
read -ra NFQ_FLAGS <<<"$(pkg-config --cflags --libs libnetfilter_queue)"
gcc -O2 -Wall -o "$BUILD/nfq_ecn" "$LAB/src/nfq_ecn.c" "${NFQ_FLAGS[@]}"
# the same program, reading the backlog of the qdisc whose parent is class
# 1:10 (the L queue) instead of the root qdisc's
sed 's/t->tcm_parent != TC_H_ROOT/t->tcm_parent != TC_H_MAKE(1 << 16, 0x10)/' "$LAB/src/nfq_ecn.c" \
    >"$BUILD/nfq_ecn_lq.c"
grep -q 'TC_H_MAKE(1 << 16, 0x10)' "$BUILD/nfq_ecn_lq.c"
gcc -O2 -Wall -o "$BUILD/nfq_ecn_lq" "$BUILD/nfq_ecn_lq.c" "${NFQ_FLAGS[@]}"
bpftool btf dump file /sys/kernel/btf/vmlinux format c >"$BUILD/vmlinux.h"
clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -I"$BUILD" -c "$LAB/src/acc_cc.bpf.c" -o "$BUILD/acc_cc.bpf.o"
cc_unregister
bpftool struct_ops register "$BUILD/acc_cc.bpf.o" >"$WORK/register.log" 2>&1 ||
    { cat "$WORK/register.log" >&2; exit 1; }
REGISTERED=1
grep -qw lab_acc_e1 /proc/sys/net/ipv4/tcp_available_congestion_control

wait_ready() { # file
    local _
    for _ in $(seq 1 100); do grep -q ready "$1" 2>/dev/null && return 0; sleep 0.05; done
    echo "not ready: $1" >&2; cat "$1" >&2; return 1
}
nfq_start() { # ns prefix binary args...
    local ns=$1 pfx=$2 bin=$3
    shift 3
    ip netns exec "$ns" "$bin" "$@" -s "$pfx.json" >"$pfx.out" 2>&1 &
    NFQ_PIDS+=($!)
    wait_ready "$pfx.out"
}

# ---------------------------------------------------------------- one scenario
record() { # name
    local name=$1 W=$WORK/$1
    topo_up
    set_ecn $NS_C 1
    set_ecn $NS_S 2
    # ACK path: the lab's 20 ms delay line
    nsx $NS_R iptables-legacy -t mangle -A FORWARD -i rs -o rc -j NFQUEUE --queue-num 1
    nfq_start $NS_R "$W-delay" "$BUILD/nfq_ecn" -q 1 -m delay -D "$DELAY_US"
    # data path
    local r=$((RATE_MBIT * 1000000))
    case $name in
    shared-fifo-two-thresholds)
        # one FIFO, two thresholds: not a DualQ, both kinds wait in the same queue
        nsx $NS_R iptables-legacy -t mangle -A FORWARD -i rc -o rs -j NFQUEUE --queue-num 0
        nfq_start $NS_R "$W-router" "$BUILD/nfq_ecn" -q 0 -i rs -r $r -l "$W-marks.csv" -m aqm -L "$L_US" -T "$C_US"
        ;;
    shared-dualq)
        # the bottleneck becomes two queues under one rate: htb class 1:10
        # (L, served first) for ECT(1), 1:20 (C) for the rest
        nsx $NS_R tc qdisc del dev rs root
        nsx $NS_R tc qdisc add dev rs root handle 1: htb default 20
        nsx $NS_R tc class add dev rs parent 1: classid 1:1 htb rate "$RATE" ceil "$RATE" burst 3000 cburst 3000 quantum 1514
        nsx $NS_R tc class add dev rs parent 1:1 classid 1:10 htb rate 1mbit ceil "$RATE" prio 0 burst 3000 cburst 3000 quantum 1514
        nsx $NS_R tc class add dev rs parent 1:1 classid 1:20 htb rate 1mbit ceil "$RATE" prio 1 burst 3000 cburst 3000 quantum 1514
        nsx $NS_R tc qdisc add dev rs parent 1:10 handle 10: bfifo limit "$TBF_LIMIT"
        nsx $NS_R tc qdisc add dev rs parent 1:20 handle 20: bfifo limit "$TBF_LIMIT"
        # ECT(1) packets -> the L queue, by the codepoint they arrive with
        # (CLASSIFY sets skb->priority, which htb takes as the class; set
        # before the marking, so that a classic packet turned CE stays in the
        # C queue and does not overtake its flow); the rest -> the C queue.
        # ECT(1) is marked on the L queue's own delay, ECT(0) on the whole backlog
        nsx $NS_R iptables-legacy -t mangle -A FORWARD -i rc -o rs -m ecn --ecn-ip-ect 1 -j CLASSIFY --set-class 1:10
        nsx $NS_R iptables-legacy -t mangle -A FORWARD -i rc -o rs -m ecn --ecn-ip-ect 1 -j NFQUEUE --queue-num 0
        nsx $NS_R iptables-legacy -t mangle -A FORWARD -i rc -o rs -m ecn --ecn-ip-ect 2 -j NFQUEUE --queue-num 3
        nfq_start $NS_R "$W-router-l" "$BUILD/nfq_ecn_lq" -q 0 -i rs -r $r -l "$W-marks-l.csv" -m aqm -L "$L_US"
        nfq_start $NS_R "$W-router-c" "$BUILD/nfq_ecn" -q 3 -i rs -r $r -l "$W-marks-c.csv" -m aqm -T "$C_US"
        ;;
    shared-single)
        nsx $NS_R iptables-legacy -t mangle -A FORWARD -i rc -o rs -j NFQUEUE --queue-num 0
        nfq_start $NS_R "$W-router" "$BUILD/nfq_ecn" -q 0 -i rs -r $r -l "$W-marks.csv" -m aqm -T "$T_US"
        ;;
    *) echo "record-shared: unknown scenario $name" >&2; return 2 ;;
    esac
    # the L4S flow's sender: ECT(0) -> ECT(1) at the client's egress, its packets only
    nsx $NS_C iptables-legacy -t mangle -A POSTROUTING -o c0 -p tcp --dport $L4S_PORT -j NFQUEUE --queue-num 2
    nfq_start $NS_C "$W-sender" "$BUILD/nfq_ecn" -q 2 -m setect1

    nsx $NS_S python3 "$LAB/flow.py" tcp-server $L4S_PORT --count 1 --cc lab_acc --info "$W-tcpinfo.json" >"$W-srv1.out" 2>&1 &
    local s1=$!
    nsx $NS_S python3 "$LAB/flow.py" tcp-server $CLASSIC_PORT --count 1 --cc cubic --info "$W-tcpinfo.json" >"$W-srv2.out" 2>&1 &
    local s2=$!
    wait_ready "$W-srv1.out"
    wait_ready "$W-srv2.out"
    export CAP_LOGDIR=$WORK CAP_STATS=$W-capstats.json
    cap_start $NS_C c0 "$OUT/$name-client.pcap"
    cap_start $NS_S s0 "$OUT/$name-server.pcap"
    nsx $NS_C python3 "$LAB/flow.py" tcp-client "$S4" $L4S_PORT --secs "$SECS" --cc lab_acc_e1 --info "$W-tcpinfo.json" >"$W-cli1.out" 2>&1 &
    local c1=$!
    nsx $NS_C python3 "$LAB/flow.py" tcp-client "$S4" $CLASSIC_PORT --secs "$SECS" --cc cubic --info "$W-tcpinfo.json" >"$W-cli2.out" 2>&1 &
    local c2=$!
    wait $c1 $c2
    wait $s1 $s2 || true
    cap_stop_all
    nfq_stop_all
    nsx $NS_R tc -s -j qdisc show dev rs >"$W-qdisc.json"
    topo_down
    echo "  l4s:     $(cat "$W-cli1.out")"
    echo "  classic: $(cat "$W-cli2.out")"

    # ground truth beside the other scenarios' (captures/lab/)
    python3 - "$W" "$SIDE/$name" "$name" $L4S_PORT $CLASSIC_PORT "$L_US" "$C_US" "$T_US" "$SECS" "$RATE_MBIT" "$DELAY_US" <<'EOF'
import csv, glob, json, sys
w, dst, name, lport, cport, l_us, c_us, t_us, secs, rate, delay = sys.argv[1:]
dual = name == 'shared-dualq'
spec = {
    'name': name, 'kind': 'tcp-pair', 'family': '4',
    'flows': {
        'l4s': f'client cc=lab_acc_e1 (AccECN, ECT(1) SYN) + egress rewrite ECT(0)->ECT(1) on dport {lport}; '
               f'server listener cc=lab_acc; 10.200.1.2 -> 10.200.2.2:{lport}',
        'classic': f'client tcp_ecn=1 cc=cubic, server tcp_ecn=2 cc=cubic (RFC 3168); 10.200.1.2 -> 10.200.2.2:{cport}',
    },
    'secs': float(secs), 'rate_mbit': int(rate), 'ack_path_delay_us': int(delay),
    'bottleneck': ('htb 1:1 at the rate; class 1:10 (L queue, prio 0) for packets arriving ECT(1) (iptables CLASSIFY), class 1:20 (C queue, prio 1) '
                   'for the rest, each a bfifo of 200000 bytes' if dual else
                   'tbf at the rate, burst 3000, limit 200000 (one FIFO)'),
    'marking': (f'ECT(1)->CE when the L queue backlog is above {l_us} us at the rate; '
                f'ECT(0)->CE when the whole backlog is above {c_us} us' if dual else
                f'ECT(1)->CE above {l_us} us, ECT(0)->CE above {c_us} us of backlog in the one FIFO'
                if name == 'shared-fifo-two-thresholds' else
                f'ECT(0)/ECT(1)->CE when the backlog is above {t_us} us'),
    'expect_looks_like': 'dualq' if dual else 'single_queue',
}
json.dump(spec, open(dst + '-spec.json', 'w'), indent=1)
rows = []
for f in sorted(glob.glob(w + '-marks*.csv')):
    with open(f) as fh:
        rows += list(csv.DictReader(fh))
rows.sort(key=lambda r: float(r['t_s']))
cols = 't_s,proto,src,sport,dst,dport,iplen,tcp_seq,ipv4_id,old_ecn,new_ecn,qdelay_us'.split(',')
with open(dst + '-marks.csv', 'w', newline='') as fh:
    wr = csv.DictWriter(fh, cols, lineterminator='\n')
    wr.writeheader()
    wr.writerows(rows)
routers = {}
for f in sorted(glob.glob(w + '-router*.json')):
    routers[f[len(w) + 1:-5]] = json.load(open(f))
json.dump(routers, open(dst + '-router.json', 'w'), indent=1)
summ = {}
for kind, port in (('l4s', lport), ('classic', cport)):
    m = [r for r in rows if r['dport'] == port]
    qd = [float(r['qdelay_us']) for r in m]
    trans = {}
    for r in m:
        k = r['old_ecn'] + '->' + r['new_ecn']
        trans[k] = trans.get(k, 0) + 1
    summ[kind] = {'dport': int(port), 'marks': len(m), 'rewrites': trans,
                  'qdelay_us_at_marks_mean': round(sum(qd) / len(qd)) if qd else None}
info = [json.loads(l) for l in open(w + '-tcpinfo.json')]
for i in info:
    if i['role'] == 'sender':
        kind = 'l4s' if str(i['port']) == lport else 'classic'
        summ[kind]['sender'] = {k: i[k] for k in ('bytes', 'secs', 'mbit')}
        summ[kind]['sender']['delivered_ce'] = i['tcp_info'].get('delivered_ce')
rcv = [i for i in info if i['role'] == 'receiver']
for kind in ('l4s', 'classic'):
    b = summ[kind].get('sender', {}).get('bytes')
    for i in rcv:
        if i['bytes'] == b:
            summ[kind]['receiver_received_ce'] = i['tcp_info'].get('received_ce')
json.dump(summ, open(dst + '-marks-summary.json', 'w'), indent=1)
with open(dst + '-tcpinfo.json', 'w') as fh:
    for i in info:
        fh.write(json.dumps(i) + '\n')
print('  marks:', json.dumps({k: (v['marks'], v['rewrites']) for k, v in summ.items()}))
EOF
    for f in sender.json delay.json capstats.json qdisc.json; do
        cp "$W-$f" "$SIDE/$name-$f"
    done
}

[ $# -gt 0 ] || set -- shared-dualq shared-single shared-fifo-two-thresholds
for s in "$@"; do
    echo "== $s"
    record "$s"
done
