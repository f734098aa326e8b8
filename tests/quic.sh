#!/usr/bin/env bash
# quic.sh BUILD - QUIC connections written by quicgen (Initial packets
# protected as RFC 9001 says, ACK frames with ECN counts): the connection's
# QUIC verdict, the flow's verdict, each direction's validation (RFC 9000
# §13.4.2.1) and the misuse findings; the counts ecnwatch read against those
# tshark reads; a capture cut by a short snaplen. Ends "quic: N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=$1
EW=$BUILD/ecnwatch
GEN=$BUILD/gen/quic
mkdir -p "$GEN"
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

Q=quic_ecn_validation_failed

# run NAME "quic-verdict flow-verdict c2s-validation c2s-failure s2c-validation" MISUSE CASE [quicgen options]
run() {
    local name=$1 want=$2 want_mu=$3 c=$4 f got mu
    shift 4
    f=$GEN/$name.pcap
    if ! "$BUILD/quicgen" "$c" "$f" "$@"; then
        bad "$name: quicgen $c $*"
        return
    fi
    got=$("$EW" -r "$f" --json 2>/dev/null | jq -r '.flows[0] | [.quic.verdict, .verdict,
        .quic.c2s.validation, (.quic.c2s.failure // "-"), .quic.s2c.validation] | join(" ")')
    mu=$("$EW" -r "$f" --json 2>/dev/null |
        jq -r '[.flows[].misuse[] | "\(.kind)/\(.dir)/\(.confidence)"] | unique | join(" ")')
    if [ "$got" = "$want" ] && [ "$mu" = "$want_mu" ]; then
        ok "$name: $got${mu:+; $mu}"
    else
        bad "$name: got '$got' / '$mu', want '$want' / '$want_mu'"
    fi
}

run ect0 "ecn_validated classic validated - validated" "" ect0
run ect1 "l4s_candidate l4s validated - validated" "" ect1
run missing "ecn_failed ambiguous failed counts_missing not_ect" "$Q/c2s/certain" missing
run bleached "ecn_failed ambiguous failed bleached validated" "$Q/c2s/certain" bleached
run swapped "ecn_failed ambiguous failed remarked validated" "$Q/c2s/certain" swapped
run allce "ecn_failed ambiguous failed all_ce validated" "$Q/c2s/likely" allce
run notect "not_ecn not_ecn not_ect - not_ect" "" notect
run noanswer "unknown unknown no_ack - not_ect" "" noanswer
# QUIC version 2 (RFC 9369), a Retry (keys from its SCID, RFC 9001 §5.2), both
run ect0-v2 "ecn_validated classic validated - validated" "" ect0 --version 2
run ect0-retry "ecn_validated classic validated - validated" "" ect0 --retry
run bleached-v2-retry "ecn_failed ambiguous failed bleached validated" "$Q/c2s/certain" \
    bleached --version 2 --retry
run swapped-v2 "ecn_failed ambiguous failed remarked validated" "$Q/c2s/certain" swapped --version 2
# the snaplen cuts the Initial packets: QUIC is seen, nothing decrypts, nothing is claimed
run ect0-snaplen200 "unknown unknown no_ack - no_ack" "" ect0 --snaplen 200

# real exchanges between ngtcp2's client and server (tests/quic-captures/README):
# the verdicts, and the client's own validation verdict beside each
real() { # real MODE WANT MISUSE NGTCP2-CAPABLE(yes|no)
    local f=tests/quic-captures/ngtcp2-$1-client.pcap got mu says
    got=$("$EW" -r "$f" --json 2>/dev/null | jq -r '.flows[0] | [.quic.verdict, .verdict,
        .quic.c2s.validation, (.quic.c2s.failure // "-"), .quic.s2c.validation] | join(" ")')
    mu=$("$EW" -r "$f" --json 2>/dev/null |
        jq -r '[.flows[].misuse[] | "\(.kind)/\(.dir)/\(.confidence)"] | unique | join(" ")')
    says=$(grep -q 'not ECN capable' "${f%.pcap}.ngtcp2" && echo no || echo yes)
    if [ "$got" = "$2" ] && [ "$mu" = "$3" ] && [ "$says" = "$4" ]; then
        ok "ngtcp2 $1: $got${mu:+; $mu} (ngtcp2: ECN capable $says)"
    else
        bad "ngtcp2 $1: got '$got' / '$mu' / ngtcp2 $says, want '$2' / '$3' / $4"
    fi
}
real clean "ecn_validated classic validated - no_ack" "" yes
real bleach "ecn_failed ambiguous failed counts_missing no_ack" "$Q/c2s/certain" no
real remark "ecn_failed ambiguous failed remarked no_ack" "$Q/c2s/certain" no
real ce "ecn_failed ambiguous failed all_ce no_ack" "$Q/c2s/likely" yes

# the packets themselves: client and server found, every Initial decrypted
f=$GEN/ect0-retry.pcap
if "$EW" -r "$f" --json | jq -e '.flows | length == 1 and (.[0] | .client.port == 50000 and
    .server.port == 443 and .quic.retry == true and .quic.initial_packets_undecrypted == 0 and
    .quic.packets.initial == 4 and .quic.packets.retry == 1 and .quic.packets.handshake == 3 and
    .quic.packets.short == 6 and .quic.coalesced_datagrams == 2 and .quic.dcid_len == 8)' >/dev/null; then
    ok "ect0-retry: packets by type, Retry, coalesced datagrams, all Initials decrypted"
else
    bad "ect0-retry: packet counts"
fi

# the ECN counts ecnwatch read equal those tshark reads in the server's Initial ACKs
if command -v tshark >/dev/null; then
    for name in ect0 ect1 bleached swapped allce ect0-v2 bleached-v2-retry; do
        f=$GEN/$name.pcap
        ts=$(tshark -r "$f" -Y 'udp.srcport == 443 && quic.ack.ect0_count' -T fields \
            -e quic.ack.ect0_count -e quic.ack.ect1_count -e quic.ack.ecn_ce_count 2>/dev/null |
            tail -1 | tr '\t' ' ')
        ew=$("$EW" -r "$f" --json | jq -r '.flows[0].quic.c2s.reported_by_peer | "\(.ect0) \(.ect1) \(.ce)"')
        if [ -n "$ts" ] && [ "$ts" = "$ew" ]; then
            ok "$name: counts $ew as tshark reads them"
        else
            bad "$name: ecnwatch reads counts '$ew', tshark '$ts'"
        fi
    done
fi

# the text summary names the finding and the verdict
out=$("$EW" -r "$GEN/swapped.pcap" 2>&1)
if echo "$out" | grep -q "quic_ecn_validation_failed c2s (certain" &&
    echo "$out" | grep -q "verdict ambiguous: QUIC ECN validation fails (remarked)"; then
    ok "text summary: finding and verdict"
else
    bad "text summary"; echo "$out"
fi
# --fail-on the QUIC kind
"$EW" -r "$GEN/bleached.pcap" -q --fail-on $Q 2>/dev/null; a=$?
"$EW" -r "$GEN/ect0.pcap" -q --fail-on $Q 2>/dev/null; b=$?
if [ $a = 1 ] && [ $b = 0 ]; then ok "--fail-on $Q: 1 on bleached, 0 on ect0"; else bad "--fail-on: $a $b"; fi

echo "quic: $pass passed, $fail failed"
[ "$fail" = 0 ]
