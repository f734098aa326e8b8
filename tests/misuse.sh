#!/usr/bin/env bash
# misuse.sh BUILD - the misuse findings of real and generated captures: the
# expected kinds (kind/direction/confidence), and nothing else; zero findings
# on every clean capture, once the report is shown to be a real one (its
# schema, its flows). A generator that fails is a failure, never a pass.
# Ends "misuse: N passed, N failed".
. "$(dirname "$0")/lib.sh"
GEN=$BUILD/gen/misuse
mkdir -p "$GEN"

findings_are() { # findings_are CAPTURE "kind/dir/confidence ..." FLOWS
    local got
    [ -s "$1" ] || { why="no capture $1"; return 1; }
    ew_json "$tmp/r.json" -r "$1" --json || return 1
    # a real report first: its schema, the flows expected, a findings list on each
    jq_true "$tmp/r.json" ".schema == \"ecnwatch.report/1\" and (.flows | type == \"array\" and length == $3) and
        all(.flows[]; .misuse | type == \"array\")" || return 1
    # a JSON string, so that "no findings" is a value ("") and not a missing answer
    got=$(jq_get "$tmp/r.json" '[.flows[].misuse[] | "\(.kind)/\(.dir)/\(.confidence)"] | unique | join(" ")') ||
        return 1
    got=${got#\"}
    got=${got%\"}
    [ "$got" = "$2" ] || { why="got '$got', want '$2'"; return 1; }
}

expect() { # expect CAPTURE "kind/dir/confidence ..." [FLOWS, 1 unless given] (sorted; empty for none)
    check "$(basename "$1"): ${2:-no findings}" findings_are "$1" "$2" "${3:-1}"
}

gen() { # gen SCHEME VANTAGE FAULT: tcpgen's capture in $cap; a failure is counted, success is not
    cap="$GEN/$1-$2-$3.pcap"
    rm -f "$cap"
    local rc
    begin "tcpgen $1 $2 --fault $3"
    bounded 60 "$BUILD/tcpgen" "$1" "$2" "$cap" --fault "$3" >"$tmp/gen.err" 2>&1
    rc=$?
    if [ $rc != 0 ]; then
        bad "tcpgen $1 $2 --fault $3: exit $rc ($(head -c 200 "$tmp/gen.err" | tr '\n' ' '))"
        return 1
    fi
    [ -s "$cap" ] || { bad "tcpgen $1 $2 --fault $3: no capture written"; return 1; }
}

C=captures
# clean real captures: nothing to report (the UDP captures hold three flows)
for f in $C/no-ecn-*.pcap $C/rfc3168-ce-*.pcap $C/accecn-ce-*.pcap $C/accecn-l4s-*.pcap \
    $C/rfc3168-sce-client.pcap; do
    expect "$f" ""
done
# the lab's router rewrites ECT(0) to ECT(1) and Linux echoes no ESCE (lab/rfc3168-sce-spec.json:
# "expected_misuse": ECT(0)->ECT(1) re-marking by the path): seen arriving at the server, where
# the client's data starts ECT(0); the client's own capture sees only its ECT(0) leave
expect $C/rfc3168-sce-server.pcap "remarking/c2s/likely"
for f in $C/udp-ect-*.pcap; do
    expect "$f" "" 3
done
# real misuse, seen from each end
expect $C/bleach-rfc3168-client.pcap ""
expect $C/bleach-rfc3168-server.pcap "bleaching/c2s/likely"
expect $C/bleach-accecn-client.pcap "bleaching/c2s/certain"
expect $C/bleach-accecn-server.pcap "bleaching/c2s/likely"
expect $C/remark-ect1-ect0-client.pcap "remarking/c2s/certain"
expect $C/remark-ect1-ect0-server.pcap ""
expect $C/ce-on-notect-client.pcap ""
# next to the receiver, a sender that sets CE itself cannot be told from a
# router marking its Not-ECT packets: likely (certain only where the capture
# point shows who set it: tests/imperfect.sh, tcpgen --sender-ce, ecngen ptp-ce)
expect $C/ce-on-notect-server.pcap "ce_on_not_ect/c2s/likely"
expect $C/ect-without-negotiation-client.pcap "ect_without_negotiation/c2s/certain"
expect $C/ect-without-negotiation-server.pcap "ect_without_negotiation/c2s/likely"

# generated: clean schemes report nothing; the conflicts report what breaks
for v in sender receiver; do
    for s in notecn classic dctcp accecn prague sce; do
        gen $s $v none && expect "$cap" ""
    done
done
gen l4s-into-sce sender none && expect "$cap" "ect1_without_l4s/c2s/certain"
gen l4s-into-sce receiver none && expect "$cap" "ect1_without_l4s/c2s/likely"
gen sce-on-accecn sender none && expect "$cap" "remarking/c2s/likely"
gen sce-on-accecn receiver none && expect "$cap" "remarking/c2s/likely"
# generated: the heistp field captures' endpoints (2021 L4S kernel, captured
# at the sender): pre-RFC AccECN (option 254, EE1B from 0) and a Prague
# sender whose first write left ECT(0): no misuse at all, from either end
genopts() { # genopts NAME SCHEME VANTAGE OPTIONS...: tcpgen's capture in $cap
    cap="$GEN/$1-$3.pcap"
    rm -f "$cap"
    begin "tcpgen $2 $3 ${*:4}"
    bounded 60 "$BUILD/tcpgen" "$2" "$3" "$cap" "${@:4}" >"$tmp/gen.err" 2>&1 ||
        { bad "tcpgen $2 $3 ${*:4}: $(head -c 200 "$tmp/gen.err" | tr '\n' ' ')"; return 1; }
    [ -s "$cap" ] || { bad "tcpgen $2 $3 ${*:4}: no capture written"; return 1; }
}
for v in sender receiver; do
    genopts prague-prerfc prague $v --prerfc --ect0-prefix 37 --ack-ect1 && expect "$cap" ""
    genopts accecn-prerfc accecn $v --prerfc && expect "$cap" ""
    genopts accecn-ect1syn accecn $v --ect1-syn && expect "$cap" ""
done
# generated: one broken rule each
gen classic sender reflect && expect "$cap" "ecn_flags_reflected/s2c/certain ect_without_negotiation/c2s/certain"
gen accecn sender reflect && expect "$cap" "ecn_flags_reflected/s2c/certain ect_without_negotiation/c2s/certain"
gen accecn sender synack101 && expect "$cap" "accecn_handshake_violation/s2c/certain"
gen accecn sender synopt && expect "$cap" "accecn_handshake_violation/c2s/certain"
gen classic sender ectsyn && expect "$cap" "ect_on_syn/c2s/certain"
gen classic receiver ectsyn && expect "$cap" "ect_on_syn/c2s/likely"
gen classic receiver ectack && expect "$cap" "ect_on_control/s2c/certain"
gen classic receiver noecho && expect "$cap" "feedback_missing/c2s/certain"
gen classic sender nocwr && expect "$cap" "ece_ignored/c2s/certain"
# RFC 3168 §6.1.3: after the CWR the receiver's echo clears; held, it shows
# only where the arrivals are seen (the receiver): at the sender a CE set
# past the capture point would explain every ECE, so nothing is said there.
# Real Linux receivers clear it: the lab's rfc3168-*-server captures and the
# shared-*-server ones (bundled, golden) carry CWRs and find nothing.
gen classic receiver holdece && expect "$cap" "ece_held/c2s/certain"
gen classic sender holdece && expect "$cap" ""
# a zero first EE0B is how pre-RFC endpoints start (heistp field captures,
# 2021 L4S kernel: EE1B 0 on the SYN-ACK; the prerfc cases above), never read
# as tampering; a counter back at 0 after a higher value is (RFC 9768 §3.2:
# counters only grow; zeroopt: EE0B 1 on the SYN-ACK, 0 on the first ACK),
# but one capture point cannot say where: likely; zeroed on the path, it is
# seen at the sender and invisible at the receiver, which sends it whole
gen accecn sender zeroopt && expect "$cap" "accecn_option_mangled/s2c/likely"
gen accecn receiver zeroopt && expect "$cap" "accecn_option_mangled/s2c/likely"
gen accecn sender zeroopt-path && expect "$cap" "accecn_option_mangled/s2c/likely"
gen accecn receiver zeroopt-path && expect "$cap" ""
# ACE 0 arriving at the sender: the path or the peer (likely); seen leaving
# the receiver: its own, certain (digest §8.5)
gen accecn sender zeroace && expect "$cap" "accecn_ace_zeroed/s2c/likely"
gen accecn receiver zeroace && expect "$cap" "accecn_ace_zeroed/s2c/certain"
# DCTCP with CE bursts longer than a round trip: one ECE run clears with no
# CWR, so the flow is DCTCP (digest §3.3), and its ECT SYN, SYN-ACK and pure
# ACKs are what it sends by design (RFC 8257 §3.6; Linux DCTCP: ECT on every
# packet, digest §1.3), not RFC 3168 §6.1.1/§6.1.4 misuse
for v in sender receiver; do
    cap="$GEN/dctcp-burst-$v.pcap"
    begin "tcpgen dctcp $v --ce-burst 60"
    if bounded 60 "$BUILD/tcpgen" dctcp $v "$cap" --ce-burst 60 --segments 1500 >"$tmp/gen.err" 2>&1 &&
        [ -s "$cap" ]; then
        expect "$cap" ""
    else
        bad "tcpgen dctcp $v --ce-burst 60: $(head -c 200 "$tmp/gen.err" | tr '\n' ' ')"
    fi
done
# a classic ECT(0) flow rewritten to ECT(1) after the AQM, no ESCE echo: at
# the receiver's side the change happened upstream (likely: the sender's
# ECT(0) is inferred from its first data); at the sender's side ECT(0) left
# it and nothing can be seen (RFC 9331 §5.1; digest §6.5)
gen classic receiver remark01 && expect "$cap" "remarking/c2s/likely"
gen classic sender remark01 && expect "$cap" ""

# two captures of the same traffic, sender's side first: ECT(0) -> ECT(1)
# between them is SCE marking where the receiver echoes ESCE, as the
# single-capture report calls it (draft-morton-tsvwg-sce; digest §6.3), and
# remarking where it echoes nothing (the lab's rfc3168-sce: its
# lab/rfc3168-sce-spec.json expects "ECT(0)->ECT(1) re-marking by the path")
hop_is() { # hop_is UP DOWN MISUSE-OF-ECT0->ECT1 FAIL-ON-RC
    ew_json "$tmp/h.json" -r "$1" -r "$2" --json || return 1
    jq_true "$tmp/h.json" "[.path.hops[0].changes[] | select(.from == \"ect0\" and .to == \"ect1\")] |
        length == 1 and .[0].count > 0 and .[0].misuse == $3" || return 1
    run_ew "$4" "$tmp/o" "$tmp/e" "$EW" -r "$1" -r "$2" -q --fail-on remarking
}
gen sce sender none && up=$cap && gen sce receiver none &&
    check "two captures, SCE receiver: ECT(0)->ECT(1) is SCE marking, --fail-on remarking passes" \
        hop_is "$up" "$cap" null 0
gen classic sender remark01 && up=$cap && gen classic receiver remark01 &&
    check "two captures, no ESCE: ECT(0)->ECT(1) is remarking, --fail-on remarking fails" \
        hop_is "$up" "$cap" '"remarking"' 1
check "two captures of the lab's rfc3168-sce: remarking" \
    hop_is $C/rfc3168-sce-client.pcap $C/rfc3168-sce-server.pcap '"remarking"' 1

# every finding carries what the contract promises
fields() {
    ew_json "$tmp/r.json" -r "$C/bleach-accecn-client.pcap" --json || return 1
    jq_true "$tmp/r.json" '[.flows[].misuse[]] | length > 0 and
        all(.[]; (.kind | type == "string") and (.dir == "c2s" or .dir == "s2c") and .first_frame >= 1 and
            .count >= 1 and (.ref | startswith("RFC")) and (.detail | length > 20) and
            (.confidence == "certain" or .confidence == "likely"))'
}
check "findings carry kind, dir, frame, count, ref, detail, confidence" fields

# --fail-on: 1 on a match, 0 on a clean capture, 2 on an unknown kind, named on standard error
fail_on() {
    run_ew 1 "$tmp/o" "$tmp/e" "$EW" -r "$C/ce-on-notect-server.pcap" -q --fail-on bleaching,ce_on_not_ect ||
        { why="a match: $why"; return 1; }
    run_ew 0 "$tmp/o" "$tmp/e" "$EW" -r "$C/accecn-ce-server.pcap" -q --fail-on any ||
        { why="a clean capture: $why"; return 1; }
    run_ew 2 "$tmp/o" "$tmp/e" "$EW" -r "$C/accecn-ce-server.pcap" -q --fail-on bleech ||
        { why="an unknown kind: $why"; return 1; }
    grep -q "bleech" "$tmp/e" ||
        { why="exit 2 without naming the unknown kind 'bleech' on standard error: '$(head -c 200 "$tmp/e")'"; return 1; }
}
check "--fail-on exit statuses 1, 0, 2" fail_on

finish misuse
