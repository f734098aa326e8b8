#!/usr/bin/env bash
# misuse.sh BUILD - the misuse findings of real and generated captures: the
# expected kinds (kind/direction/confidence), and nothing else; zero findings
# on every clean capture, once the report is shown to be a real one (its
# schema, its flows). A generator that fails is a failure, never a pass.
# Ends "misuse: N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1
EW=$BUILD/ecnwatch
GEN=$BUILD/gen/misuse
mkdir -p "$GEN"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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
    $C/rfc3168-sce-*.pcap; do
    expect "$f" ""
done
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
expect $C/ce-on-notect-server.pcap "ce_on_not_ect/c2s/certain"
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
