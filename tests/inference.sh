#!/usr/bin/env bash
# inference.sh BUILD - verdicts on real and generated captures.
# Real captures come from captures/ (Linux 6.18 in network namespaces);
# generated ones from tcpgen, for what Linux cannot produce (DCTCP echo, SCE
# receivers, Prague-like senders, the L4S/SCE conflicts), each at the sender's
# and at the receiver's side, with and without the handshake.
# Each line: capture, then the expected negotiation, verdict, vantage, and the
# client-to-server direction's feedback and ect1. Every capture is two checks:
# the verdict line, and a reason with evidence inside the flow. A generator
# that fails is a failure, never a pass. Ends "inference: N passed, N failed".
. "$(dirname "$0")/lib.sh"
GEN=$BUILD/gen/infer
mkdir -p "$GEN"

verdict_is() { # verdict_is CAPTURE "NEG VERDICT VANTAGE FEEDBACK ECT1"
    local got
    ew_json "$tmp/v.json" -r "$1" --json || return 1
    got=$(jq_get "$tmp/v.json" '.flows[0] | [.negotiation, .verdict, .vantage, .c2s.feedback, .c2s.ect1] | join(" ")' -r) ||
        return 1
    [ "$got" = "$2" ] || { why="got '$got', want '$2'"; return 1; }
}

has_reason() { # has_reason CAPTURE: every verdict has a reason, and its evidence lies inside the flow
    ew_json "$tmp/e.json" -r "$1" --json || return 1
    jq_true "$tmp/e.json" '(.flows | length) >= 1 and (.flows[0] | (.verdict_reason | length > 0) and
            (.proto != "tcp" or (.evidence | length > 0)) and
            all(.evidence[]; .frame >= 1 and .note != "") and
            (.negotiation != "unseen" or has("negotiation_inferred")))'
}

vcheck() { # vcheck CAPTURE NEG VERDICT VANTAGE FEEDBACK ECT1
    local cap=$1 name
    name=$(basename "$cap")
    shift
    check "$name: $*" verdict_is "$cap" "$*"
    check "$name: the verdict has a reason, its evidence inside the flow" has_reason "$cap"
}

# gen SCHEME VANTAGE [SKIP]: tcpgen's capture in $cap; a failure is counted, success is not
gen() {
    cap="$GEN/$1-$2${3:+-mid}.pcap"
    tcpgen "$cap" "$1" "$2" ${3:+--skip $3}
}
tcpgen() { # tcpgen OUT SCHEME VANTAGE [OPTIONS]
    local out=$1 what rc
    shift
    what="tcpgen $*"
    rm -f "$out"
    begin "$what"
    bounded 60 "$BUILD/tcpgen" "$1" "$2" "$out" "${@:3}" >"$tmp/gen.err" 2>&1
    rc=$?
    if [ $rc != 0 ]; then
        bad "$what: exit $rc ($(head -c 200 "$tmp/gen.err" | tr '\n' ' '))"
        return 1
    fi
    if [ ! -s "$out" ]; then
        bad "$what: no capture written"
        return 1
    fi
}

C=captures
# real Linux traffic
vcheck $C/no-ecn-client.pcap                  none    not_ecn        client_side none    none
vcheck $C/no-ecn-server.pcap                  none    not_ecn        server_side none    none
vcheck $C/rfc3168-ce-client.pcap              rfc3168 classic        client_side rfc3168 none
vcheck $C/rfc3168-ce-server.pcap              rfc3168 classic        server_side rfc3168 none
vcheck $C/rfc3168-ce-v6-client.pcap           rfc3168 classic        client_side rfc3168 none
vcheck $C/rfc3168-ce-v6-server.pcap           rfc3168 classic        server_side rfc3168 none
vcheck $C/accecn-ce-client.pcap               accecn  accecn_classic client_side accecn  none
vcheck $C/accecn-ce-server.pcap               accecn  accecn_classic server_side accecn  none
vcheck $C/accecn-ce-v6-client.pcap            accecn  accecn_classic client_side accecn  none
vcheck $C/accecn-ce-v6-server.pcap            accecn  accecn_classic server_side accecn  none
vcheck $C/accecn-l4s-client.pcap              accecn  l4s            client_side accecn  l4s
vcheck $C/accecn-l4s-server.pcap              accecn  l4s            server_side accecn  l4s
# an SCE-style AQM remarks ECT(0)->ECT(1), but Linux echoes no ESCE: the
# sender's side sees plain classic ECN, the receiver's side cannot tell
vcheck $C/rfc3168-sce-client.pcap             rfc3168 classic        client_side rfc3168 none
vcheck $C/rfc3168-sce-server.pcap             rfc3168 ambiguous      server_side rfc3168 ambiguous
vcheck $C/bleach-rfc3168-client.pcap          rfc3168 classic        client_side rfc3168 none
vcheck $C/bleach-rfc3168-server.pcap          rfc3168 ambiguous      server_side rfc3168 none
vcheck $C/bleach-accecn-client.pcap           accecn  accecn_classic client_side accecn  none
vcheck $C/bleach-accecn-server.pcap           accecn  ambiguous      server_side accecn  none
vcheck $C/remark-ect1-ect0-client.pcap        accecn  l4s            client_side accecn  l4s
vcheck $C/remark-ect1-ect0-server.pcap        accecn  accecn_classic server_side accecn  none
vcheck $C/ce-on-notect-client.pcap            none    not_ecn        client_side none    none
vcheck $C/ce-on-notect-server.pcap            none    not_ecn        server_side none    none
vcheck $C/ect-without-negotiation-client.pcap refused not_ecn        client_side none    none
vcheck $C/ect-without-negotiation-server.pcap refused not_ecn        server_side none    none

# generated: every scheme at both ends
for v in sender receiver; do
    side=client_side
    [ $v = receiver ] && side=server_side
    gen notecn $v        && vcheck "$cap" none    not_ecn        $side none    none
    gen classic $v       && vcheck "$cap" rfc3168 classic        $side rfc3168 none
    gen dctcp $v         && vcheck "$cap" rfc3168 dctcp          $side dctcp   none
    gen accecn $v        && vcheck "$cap" accecn  accecn_classic $side accecn  none
    gen prague $v        && vcheck "$cap" accecn  l4s            $side accecn  l4s
    gen sce $v           && vcheck "$cap" rfc3168 sce            $side sce     sce
    gen l4s-into-sce $v  && vcheck "$cap" rfc3168 conflict       $side sce     conflict
    gen sce-on-accecn $v && vcheck "$cap" accecn  conflict       $side accecn  conflict
done
# DCTCP whose CE bursts outlast the 20 ms round trip: the sender's CWR lands
# inside all seven long ECE runs, as under latching, and one short run clears
# with no CWR at all, which RFC 3168 §6.1.3 latching cannot do (RFC 8257 §3.2;
# digest §3.3): DCTCP by that evidence, not classic by a majority of runs
for v in sender receiver; do
    side=client_side
    [ $v = receiver ] && side=server_side
    cap="$GEN/dctcp-burst-$v.pcap"
    tcpgen "$cap" dctcp $v --ce-burst 60 --segments 1500 &&
        vcheck "$cap" rfc3168 dctcp $side dctcp none
done
# a classic ECT(0) flow a device rewrites to ECT(1) after the AQM, with no
# ESCE echo: the sender's side sees classic ECN leave it; the receiver's side
# sees ECT(1) runs nobody uses as SCE (digest §8.3: ambiguous)
cap="$GEN/classic-remark01-sender.pcap"
tcpgen "$cap" classic sender --fault remark01 && vcheck "$cap" rfc3168 classic client_side rfc3168 none
cap="$GEN/classic-remark01-receiver.pcap"
tcpgen "$cap" classic receiver --fault remark01 &&
    vcheck "$cap" rfc3168 ambiguous server_side rfc3168 ambiguous
# generated, joined mid-flow: the mode is inferred; AccECN feedback that
# follows the CE arrivals exactly places the capture point at the receiver
gen notecn sender 10        && vcheck "$cap" unseen not_ecn        unknown     none    none
gen classic receiver 10     && vcheck "$cap" unseen classic        unknown     rfc3168 none
gen dctcp sender 10         && vcheck "$cap" unseen dctcp          unknown     dctcp   none
gen accecn sender 10        && vcheck "$cap" unseen accecn_classic unknown     accecn  none
gen accecn receiver 10      && vcheck "$cap" unseen accecn_classic server_side accecn  none
gen prague sender 10        && vcheck "$cap" unseen l4s            unknown     accecn  l4s
gen prague receiver 10      && vcheck "$cap" unseen l4s            server_side accecn  l4s
gen sce receiver 10         && vcheck "$cap" unseen sce            unknown     sce     sce
gen l4s-into-sce sender 10  && vcheck "$cap" unseen conflict       unknown     sce     conflict
gen sce-on-accecn sender 10 && vcheck "$cap" unseen conflict       unknown     accecn  conflict

# generated: what the heistp field captures hold (2021 L4S kernel, captured
# at the sender; captures/field/): pre-RFC AccECN endpoints (option 254, ExID
# 0xACC0, EE1B from 0 where RFC 9768 §3.2.1 starts it at 1) must not read as
# ECT(1) arrivals, and a Prague sender whose first write (iperf3's 37-byte
# cookie) left ECT(0) before the socket turned L4S is an L4S sender, not
# ECT(0)->ECT(1) remarking; its receiver's ECT(1) ACKs carry no data, so
# that direction's ECT(1) means nothing (none)
genx() { # genx NAME SCHEME VANTAGE OPTIONS...: tcpgen's capture in $cap
    cap="$GEN/$1-$3.pcap"
    tcpgen "$cap" "$2" "$3" "${@:4}"
}
s2c_ect1_is() { # s2c_ect1_is CAPTURE ECT1
    local got
    ew_json "$tmp/s.json" -r "$1" --json || return 1
    got=$(jq_get "$tmp/s.json" '.flows[0].s2c.ect1' -r) || return 1
    [ "$got" = "$2" ] || { why="s2c ect1 got '$got', want '$2'"; return 1; }
}
pre_rfc_said() { # pre_rfc_said CAPTURE: the evidence names the pre-RFC endpoint
    ew_json "$tmp/p.json" -r "$1" --json || return 1
    jq_true "$tmp/p.json" '[.flows[0].evidence[].note | select(test("pre-RFC"))] | length >= 2'
}
for v in sender receiver; do
    side=client_side
    [ $v = receiver ] && side=server_side
    genx prague-prerfc prague $v --prerfc --ect0-prefix 37 --ack-ect1 &&
        vcheck "$cap" accecn l4s $side accecn l4s &&
        check "$(basename "$cap"): s2c carries no data: ect1 none" s2c_ect1_is "$cap" none &&
        check "$(basename "$cap"): the evidence names both pre-RFC endpoints" pre_rfc_said "$cap"
    genx accecn-prerfc accecn $v --prerfc && vcheck "$cap" accecn accecn_classic $side accecn none
    # digest §1.3: an L4S-negotiating congestion control may put ECT(1) on
    # the SYN and SYN-ACK alone; that does not outweigh ECT(0) data
    genx accecn-ect1syn accecn $v --ect1-syn && vcheck "$cap" accecn accecn_classic $side accecn none
done

# the generator is deterministic: the same arguments give the same bytes (a
# property of tcpgen, not of ecnwatch: not counted when it holds, a failure when not)
if tcpgen "$GEN/a.pcap" sce receiver && tcpgen "$GEN/b.pcap" sce receiver &&
    ! cmp -s "$GEN/a.pcap" "$GEN/b.pcap"; then
    bad "tcpgen not deterministic: sce receiver gave two different captures"
fi

# feedback checked exactly where the capture point sees what the receiver sees
feedback() { # feedback CAPTURE JQ-EXPR-OVER-feedback_detail
    [ -s "$1" ] || { why="no capture $1 (tcpgen failed above)"; return 1; }
    ew_json "$tmp/f.json" -r "$1" --json || return 1
    jq_true "$tmp/f.json" "(.flows | length) >= 1 and (.flows[0].c2s.feedback_detail | $2)"
}
for v in accecn prague sce-on-accecn; do
    check "$v-receiver: ACE and option counters equal the marks seen" feedback "$GEN/$v-receiver.pcap" \
        '.checked_exactly and .ace_differs_from_seen == 0 and .ce_reported == .ce_seen and .option.differs_from_seen == 0'
    check "$v-sender: marks reported downstream of the capture point" feedback "$GEN/$v-sender.pcap" \
        '.marks_downstream and .ce_seen == 0 and .ce_reported > 0'
done

# a UDP flow's verdict reads both directions: ECT(1) and CE from the client
# in small datagrams, Not-ECT from the server in larger ones. CE is only
# ever set on an ECN-capable packet (RFC 3168 §5), so the flow is ECN-capable;
# without transport feedback nothing more can be said (unknown, not not_ecn)
udp_oneway() {
    local f=$GEN/udp-oneway.pcap
    rm -f "$f"
    bounded 60 "$BUILD/ecngen" udp-oneway "$f" >"$tmp/gen.err" 2>&1 && [ -s "$f" ] ||
        { why="ecngen udp-oneway failed: $(head -c 200 "$tmp/gen.err")"; return 1; }
    ew_json "$tmp/u.json" -r "$f" --json || return 1
    jq_true "$tmp/u.json" '(.flows | length) == 1 and (.flows[0] | .proto == "udp" and
        .verdict == "unknown" and .c2s.sender_codepoint == "ect1" and
        .s2c.sender_codepoint == "not_ect" and (.verdict_reason | test("from the client")))'
}
check "udp-oneway: ECT(1)/CE in the smaller direction only: unknown, not not_ecn" udp_oneway

finish inference
