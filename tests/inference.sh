#!/usr/bin/env bash
# inference.sh BUILD - verdicts on real and generated captures.
# Real captures come from captures/ (Linux 6.18 in network namespaces);
# generated ones from tcpgen, for what Linux cannot produce (DCTCP echo, SCE
# receivers, Prague-like senders, the L4S/SCE conflicts), each at the sender's
# and at the receiver's side, with and without the handshake.
# Each line: capture, then the expected negotiation, verdict, vantage, and the
# client-to-server direction's feedback and ect1. Ends "inference: N passed, N failed".
set -u
BUILD=$1
EW=$BUILD/ecnwatch
GEN=$BUILD/gen/infer
mkdir -p "$GEN"
pass=0
fail=0

check() { # check CAPTURE NEG VERDICT VANTAGE FEEDBACK ECT1
    local cap=$1 want="$2 $3 $4 $5 $6" got
    got=$("$EW" -r "$cap" --json 2>/dev/null | jq -r '.flows[0] | [.negotiation, .verdict, .vantage, .c2s.feedback, .c2s.ect1] | join(" ")')
    if [ "$got" = "$want" ]; then
        pass=$((pass + 1))
        echo "ok   $(basename "$cap"): $got"
    else
        fail=$((fail + 1))
        echo "FAIL $(basename "$cap"): got '$got', want '$want'"
    fi
    # every verdict has a reason, and its evidence lies inside the flow
    if "$EW" -r "$cap" --json 2>/dev/null | jq -e '.flows[0] | (.verdict_reason | length > 0) and
            (.proto != "tcp" or (.evidence | length > 0)) and
            all(.evidence[]; .frame >= 1 and .note != "") and
            (.negotiation != "unseen" or has("negotiation_inferred"))' >/dev/null; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $(basename "$cap"): reason or evidence missing"
    fi
}

gen() { # gen SCHEME VANTAGE [ARGS] -> path
    local f="$GEN/$1-$2${3:+-mid}.pcap"
    "$BUILD/tcpgen" "$1" "$2" "$f" ${3:+--skip $3} || { echo "FAIL tcpgen $*"; fail=$((fail + 1)); }
    echo "$f"
}

C=captures
# real Linux traffic
check $C/no-ecn-client.pcap                  none    not_ecn        client_side none    none
check $C/no-ecn-server.pcap                  none    not_ecn        server_side none    none
check $C/rfc3168-ce-client.pcap              rfc3168 classic        client_side rfc3168 none
check $C/rfc3168-ce-server.pcap              rfc3168 classic        server_side rfc3168 none
check $C/rfc3168-ce-v6-client.pcap           rfc3168 classic        client_side rfc3168 none
check $C/rfc3168-ce-v6-server.pcap           rfc3168 classic        server_side rfc3168 none
check $C/accecn-ce-client.pcap               accecn  accecn_classic client_side accecn  none
check $C/accecn-ce-server.pcap               accecn  accecn_classic server_side accecn  none
check $C/accecn-ce-v6-client.pcap            accecn  accecn_classic client_side accecn  none
check $C/accecn-ce-v6-server.pcap            accecn  accecn_classic server_side accecn  none
check $C/accecn-l4s-client.pcap              accecn  l4s            client_side accecn  l4s
check $C/accecn-l4s-server.pcap              accecn  l4s            server_side accecn  l4s
# an SCE-style AQM remarks ECT(0)->ECT(1), but Linux echoes no ESCE: the
# sender's side sees plain classic ECN, the receiver's side cannot tell
check $C/rfc3168-sce-client.pcap             rfc3168 classic        client_side rfc3168 none
check $C/rfc3168-sce-server.pcap             rfc3168 ambiguous      server_side rfc3168 ambiguous
check $C/bleach-rfc3168-client.pcap          rfc3168 classic        client_side rfc3168 none
check $C/bleach-rfc3168-server.pcap          rfc3168 ambiguous      server_side rfc3168 none
check $C/bleach-accecn-client.pcap           accecn  accecn_classic client_side accecn  none
check $C/bleach-accecn-server.pcap           accecn  ambiguous      server_side accecn  none
check $C/remark-ect1-ect0-client.pcap        accecn  l4s            client_side accecn  l4s
check $C/remark-ect1-ect0-server.pcap        accecn  accecn_classic server_side accecn  none
check $C/ce-on-notect-client.pcap            none    not_ecn        client_side none    none
check $C/ce-on-notect-server.pcap            none    not_ecn        server_side none    none
check $C/ect-without-negotiation-client.pcap refused not_ecn        client_side none    none
check $C/ect-without-negotiation-server.pcap refused not_ecn        server_side none    none

# generated: every scheme at both ends
for v in sender receiver; do
    side=client_side
    [ $v = receiver ] && side=server_side
    check "$(gen notecn $v)"        none    not_ecn        $side none    none
    check "$(gen classic $v)"       rfc3168 classic        $side rfc3168 none
    check "$(gen dctcp $v)"         rfc3168 dctcp          $side dctcp   none
    check "$(gen accecn $v)"        accecn  accecn_classic $side accecn  none
    check "$(gen prague $v)"        accecn  l4s            $side accecn  l4s
    check "$(gen sce $v)"           rfc3168 sce            $side sce     sce
    check "$(gen l4s-into-sce $v)"  rfc3168 conflict       $side sce     conflict
    check "$(gen sce-on-accecn $v)" accecn  conflict       $side accecn  conflict
done
# generated, joined mid-flow: the mode is inferred; AccECN feedback that
# follows the CE arrivals exactly places the capture point at the receiver
check "$(gen notecn sender 10)"        unseen not_ecn        unknown     none    none
check "$(gen classic receiver 10)"     unseen classic        unknown     rfc3168 none
check "$(gen dctcp sender 10)"         unseen dctcp          unknown     dctcp   none
check "$(gen accecn sender 10)"        unseen accecn_classic unknown     accecn  none
check "$(gen accecn receiver 10)"      unseen accecn_classic server_side accecn  none
check "$(gen prague sender 10)"        unseen l4s            unknown     accecn  l4s
check "$(gen prague receiver 10)"      unseen l4s            server_side accecn  l4s
check "$(gen sce receiver 10)"         unseen sce            unknown     sce     sce
check "$(gen l4s-into-sce sender 10)"  unseen conflict       unknown     sce     conflict
check "$(gen sce-on-accecn sender 10)" unseen conflict       unknown     accecn  conflict

# the generator is deterministic: the same arguments give the same bytes
"$BUILD/tcpgen" sce receiver "$GEN/a.pcap" && "$BUILD/tcpgen" sce receiver "$GEN/b.pcap"
if cmp -s "$GEN/a.pcap" "$GEN/b.pcap"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL tcpgen not deterministic"; fi

# feedback checked exactly where the capture point sees what the receiver sees
for v in accecn prague sce-on-accecn; do
    "$EW" -r "$GEN/$v-receiver.pcap" --json | jq -e '.flows[0].c2s.feedback_detail |
        .checked_exactly and .ace_differs_from_seen == 0 and .ce_reported == .ce_seen and
        .option.differs_from_seen == 0' >/dev/null &&
        { pass=$((pass + 1)); echo "ok   $v-receiver: ACE and option counters equal the marks seen"; } ||
        { fail=$((fail + 1)); echo "FAIL $v-receiver: feedback not exact"; }
    "$EW" -r "$GEN/$v-sender.pcap" --json | jq -e '.flows[0].c2s.feedback_detail |
        .marks_downstream and .ce_seen == 0 and .ce_reported > 0' >/dev/null &&
        { pass=$((pass + 1)); echo "ok   $v-sender: marks reported downstream of the capture point"; } ||
        { fail=$((fail + 1)); echo "FAIL $v-sender: downstream marks not reported"; }
done

echo "inference: $pass passed, $fail failed"
[ $fail = 0 ]
