#!/usr/bin/env bash
# quic-record.sh OUTDIR - records real QUIC exchanges between ngtcp2's example
# client and server (Debian's ngtcp2-client and ngtcp2-server: gtlsclient,
# gtlsserver) in two network namespaces made for it, captured at the client,
# with a device at the server's door that leaves the ECN field alone (clean),
# clears it (bleach), turns it into ECT(1) (remark) or into CE (ce): iptables'
# TOS target in the server namespace's PREROUTING, after the capture point.
# ngtcp2 marks its packets ECT(0) and validates ECN itself (RFC 9000
# §13.4.2); its verdict is written beside each capture (*.ngtcp2).
# Run as root. Writes OUTDIR/ngtcp2-MODE-client.pcap for each mode.
set -eu
out=${1:?usage: quic-record.sh OUTDIR}
for t in gtlsclient gtlsserver tcpdump iptables openssl ip; do
    command -v $t >/dev/null || { echo "quic-record: $t is missing" >&2; exit 2; }
done
work=$(mktemp -d)
C=ewq_c$$
S=ewq_s$$
cleanup() {
    for ns in $C $S; do
        ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null || true
        ip netns del $ns 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$out" "$work/htdocs"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" \
    -days 2 -subj /CN=test >/dev/null 2>&1
head -c 20000 /dev/urandom >"$work/htdocs/file"

for mode in clean bleach remark ce; do
    ip netns add $C
    ip netns add $S
    ip link add vq0 netns $C type veth peer name vq1 netns $S
    ip -n $C addr add 10.201.7.1/24 dev vq0
    ip -n $S addr add 10.201.7.2/24 dev vq1
    for ns in $C $S; do ip -n $ns link set lo up; done
    ip -n $C link set vq0 up
    ip -n $S link set vq1 up
    case $mode in
    bleach) tos=0x00/0x03 ;;
    remark) tos=0x01/0x03 ;;
    ce) tos=0x03/0x03 ;;
    *) tos= ;;
    esac
    [ -n "$tos" ] && ip netns exec $S iptables -t mangle -A PREROUTING -i vq1 -p udp -j TOS --set-tos $tos
    ip netns exec $S gtlsserver -q -d "$work/htdocs" 10.201.7.2 4433 "$work/key.pem" "$work/cert.pem" \
        >"$work/server.log" 2>&1 &
    f=$out/ngtcp2-$mode-client.pcap
    ip netns exec $C tcpdump -Z root -U --immediate-mode -q -i vq0 -s 0 -w "$f" udp port 4433 \
        >"$work/tcpdump.log" 2>&1 &
    tp=$!
    sleep 1
    timeout 10 ip netns exec $C gtlsclient --exit-on-all-streams-close 10.201.7.2 4433 \
        https://10.201.7.2:4433/file >"$work/client.log" 2>&1 || true
    sleep 0.5
    kill $tp
    wait $tp 2>/dev/null || true
    grep -m1 -o 'path is .*ECN capable' "$work/client.log" >"${f%.pcap}.ngtcp2" || echo "no verdict" >"${f%.pcap}.ngtcp2"
    echo "$mode: $(cat "${f%.pcap}.ngtcp2"), $(tail -3 "$work/tcpdump.log" | head -1)"
    ip netns pids $S | xargs -r kill 2>/dev/null || true
    ip netns del $C
    ip netns del $S
done
