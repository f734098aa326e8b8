#!/usr/bin/env bash
# quic.sh BUILD - QUIC connections written by quicgen (Initial packets
# protected as RFC 9001 says, ACK frames with ECN counts): the connection's
# QUIC verdict, the flow's verdict, each direction's validation (RFC 9000
# §13.4.2.1) and the misuse findings; the counts ecnwatch read against those
# tshark reads; a capture cut by a short snaplen. A generator that fails is a
# failure, never a pass. Ends "quic: N passed, N failed".
. "$(dirname "$0")/lib.sh"
GEN=$BUILD/gen/quic
mkdir -p "$GEN"

Q=quic_ecn_validation_failed
QV='.flows[0] | [.quic.verdict, .verdict, .quic.c2s.validation, (.quic.c2s.failure // "-"), .quic.s2c.validation] | join(" ")'

# verdicts_are CAPTURE "quic-verdict flow-verdict c2s-validation c2s-failure s2c-validation" MISUSE
verdicts_are() {
    local got mu
    [ -s "$1" ] || { why="no capture $1"; return 1; }
    ew_json "$tmp/r.json" -r "$1" --json || return 1
    # a real report of one connection, a findings list on its flow
    jq_true "$tmp/r.json" '.schema == "ecnwatch.report/1" and (.flows | length) == 1 and
        (.flows[0].misuse | type == "array")' || return 1
    got=$(jq_get "$tmp/r.json" "$QV" -r) || return 1
    # a JSON string, so that "no findings" is a value ("") and not a missing answer
    mu=$(jq_get "$tmp/r.json" '[.flows[].misuse[] | "\(.kind)/\(.dir)/\(.confidence)"] | unique | join(" ")') || return 1
    mu=${mu#\"}
    mu=${mu%\"}
    [ "$got" = "$2" ] && [ "$mu" = "$3" ] || { why="got '$got' / '$mu', want '$2' / '$3'"; return 1; }
}

# run NAME "quic-verdict flow-verdict c2s-validation c2s-failure s2c-validation" MISUSE CASE [quicgen options]
run() {
    local name=$1 want=$2 want_mu=$3 c=$4 f rc
    shift 4
    f=$GEN/$name.pcap
    rm -f "$f"
    begin "quicgen $c $*"
    bounded 60 "$BUILD/quicgen" "$c" "$f" "$@" >"$tmp/gen.err" 2>&1
    rc=$?
    if [ $rc != 0 ] || [ ! -s "$f" ]; then
        bad "$name: quicgen $c $*: exit $rc, $([ -s "$f" ] && echo capture written || echo no capture) ($(head -c 200 "$tmp/gen.err" | tr '\n' ' '))"
        return
    fi
    check "$name: $want${want_mu:+; $want_mu}" verdicts_are "$f" "$want" "$want_mu"
}

run ect0 "ecn_validated classic validated - validated" "" ect0
run ect1 "l4s_candidate l4s validated - validated" "" ect1
run missing "ecn_failed ambiguous failed counts_missing not_ect" "$Q/c2s/certain" missing
run bleached "ecn_failed ambiguous failed bleached validated" "$Q/c2s/certain" bleached
run swapped "ecn_failed ambiguous failed remarked validated" "$Q/c2s/certain" swapped
run allce "ecn_failed ambiguous failed all_ce validated" "$Q/c2s/likely" allce
run notect "not_ecn not_ecn not_ect - not_ect" "" notect
run noanswer "unknown unknown no_ack - not_ect" "" noanswer
# Not-ECT Initials, ECT(0) Handshake and 1-RTT packets: ECN-capable, so not
# not_ecn; the counts for those packets ride in ACK frames no observer can
# decrypt (RFC 9001 §4, §5: only Initial keys derive from the wire), so unknown
run late "unknown unknown not_ect - not_ect" "" late
# a Version Negotiation (RFC 9000 §17.2.1) before the connection, and alone
run vn "ecn_validated classic validated - validated" "" vn
run vnonly "unknown unknown not_ect - not_ect" "" vnonly
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
ngtcp2() { # ngtcp2 MODE WANT MISUSE NGTCP2-CAPABLE(yes|no)
    local f=tests/quic-captures/ngtcp2-$1-client.pcap says
    [ -s "${f%.pcap}.ngtcp2" ] || { why="no ngtcp2 log ${f%.pcap}.ngtcp2"; return 1; }
    says=$(grep -q 'not ECN capable' "${f%.pcap}.ngtcp2" && echo no || echo yes)
    [ "$says" = "$4" ] || { why="ngtcp2 says ECN capable $says, want $4"; return 1; }
    verdicts_are "$f" "$2" "$3"
}
real() { # real MODE WANT MISUSE NGTCP2-CAPABLE(yes|no)
    check "ngtcp2 $1: $2${3:+; $3} (ngtcp2: ECN capable $4)" ngtcp2 "$@"
}
real clean "ecn_validated classic validated - no_ack" "" yes
real bleach "ecn_failed ambiguous failed counts_missing no_ack" "$Q/c2s/certain" no
real remark "ecn_failed ambiguous failed remarked no_ack" "$Q/c2s/certain" no
real ce "ecn_failed ambiguous failed all_ce no_ack" "$Q/c2s/likely" yes

# the packets themselves: client and server found, every Initial decrypted
packets() {
    local f=$GEN/ect0-retry.pcap
    [ -s "$f" ] || { why="no capture $f"; return 1; }
    ew_json "$tmp/r.json" -r "$f" --json || return 1
    jq_true "$tmp/r.json" '.flows | length == 1 and (.[0] | .client.port == 50000 and
        .server.port == 443 and .quic.retry == true and .quic.initial_packets_undecrypted == 0 and
        .quic.packets.initial == 4 and .quic.packets.retry == 1 and .quic.packets.handshake == 3 and
        .quic.packets.short == 6 and .quic.coalesced_datagrams == 2 and .quic.dcid_len == 8)'
}
check "ect0-retry: packets by type, Retry, coalesced datagrams, all Initials decrypted" packets

# what the late and vn cases show beyond the verdicts
late_vn() {
    local f=$GEN/late.pcap
    [ -s "$f" ] && [ -s "$GEN/vn.pcap" ] && [ -s "$GEN/vnonly.pcap" ] ||
        { why="no capture (quicgen failed above)"; return 1; }
    ew_json "$tmp/r.json" -r "$f" --json || return 1
    jq_true "$tmp/r.json" '.flows[0] | (.quic.c2s.later_packets | .ect0 == 4 and .not_ect == 0) and
        .quic.s2c.later_packets.ect0 == 5 and .quic.c2s.initial_packets.ect0 == 0 and
        .quic.c2s.frames.first_ect_later_packet != null and
        (.verdict_reason | test("later packets are ECN-capable.*encrypted"))' ||
        { why="late: $why"; return 1; }
    ew_json "$tmp/r.json" -r "$GEN/vn.pcap" --json || return 1
    jq_true "$tmp/r.json" '.flows | length == 1 and (.[0].quic | .version == "v1" and
        .version_changed == false and .packets.version_negotiation == 1 and
        .version_negotiation == {"frame": 2, "versions_listed": 3, "versions": ["v1", "v2", "0x5a6a7a8a"]})' ||
        { why="vn: $why"; return 1; }
    ew_json "$tmp/r.json" -r "$GEN/vnonly.pcap" --json || return 1
    jq_true "$tmp/r.json" '.flows[0] | .quic.version == "0x00000000" and
        .quic.packets.version_negotiation == 1 and (.quic.reason | test("Version Negotiation"))' ||
        { why="vnonly: $why"; return 1; }
}
check "late: later packets counted by codepoint; vn, vnonly: Version Negotiation reported" late_vn

# the ECN counts ecnwatch read equal those tshark reads in the server's Initial ACKs
counts() { # counts NAME
    local f=$GEN/$1.pcap ts ew
    [ -s "$f" ] || { why="no capture $f"; return 1; }
    ew_json "$tmp/r.json" -r "$f" --json || return 1
    ew=$(jq_get "$tmp/r.json" '.flows[0].quic.c2s.reported_by_peer | "\(.ect0) \(.ect1) \(.ce)"' -r) || return 1
    # tshark is a tool beside ecnwatch: no count from it fails the check
    if ! bounded 120 tshark -r "$f" -Y 'udp.srcport == 443 && quic.ack.ect0_count' -T fields \
        -e quic.ack.ect0_count -e quic.ack.ect1_count -e quic.ack.ecn_ce_count >"$tmp/ts" 2>"$tmp/ts.err"; then
        why="tshark failed: $(head -c 200 "$tmp/ts.err" | tr '\n' ' ')"
        return 1
    fi
    ts=$(tail -1 "$tmp/ts" | tr '\t' ' ')
    [ -n "$ts" ] && [ "$ts" = "$ew" ] || { why="ecnwatch reads counts '$ew', tshark '$ts'"; return 1; }
}
for name in ect0 ect1 bleached swapped allce ect0-v2 bleached-v2-retry; do
    if command -v tshark >/dev/null; then
        check "$name: counts as tshark reads them" counts "$name"
    else
        bad "$name: no tshark to read the counts"
    fi
done

# the text summary names the finding and the verdict
summary() {
    [ -s "$GEN/swapped.pcap" ] || { why="no capture $GEN/swapped.pcap"; return 1; }
    run_ew 0 "$tmp/out" "$tmp/err" "$EW" -r "$GEN/swapped.pcap" || return 1
    grep -q "quic_ecn_validation_failed c2s (certain" "$tmp/out" ||
        { why="no finding line in: $(head -c 300 "$tmp/out" | tr '\n' ' ')"; return 1; }
    grep -q "verdict ambiguous: QUIC ECN validation fails (remarked)" "$tmp/out" ||
        { why="no verdict line in: $(head -c 300 "$tmp/out" | tr '\n' ' ')"; return 1; }
}
check "text summary: finding and verdict" summary
# --fail-on the QUIC kind
fail_on() {
    [ -s "$GEN/bleached.pcap" ] && [ -s "$GEN/ect0.pcap" ] || { why="no capture (quicgen failed above)"; return 1; }
    run_ew 1 "$tmp/out" "$tmp/err" "$EW" -r "$GEN/bleached.pcap" -q --fail-on $Q || { why="bleached: $why"; return 1; }
    run_ew 0 "$tmp/out" "$tmp/err" "$EW" -r "$GEN/ect0.pcap" -q --fail-on $Q || { why="ect0: $why"; return 1; }
}
check "--fail-on $Q: 1 on bleached, 0 on ect0" fail_on

finish quic
