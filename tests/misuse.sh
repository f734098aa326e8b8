#!/usr/bin/env bash
# misuse.sh BUILD - the misuse findings of real and generated captures: the
# expected kinds (kind/direction/confidence), and nothing else; zero findings
# on every clean capture. Ends "misuse: N passed, N failed".
set -u
BUILD=$1
EW=$BUILD/ecnwatch
GEN=$BUILD/gen/misuse
mkdir -p "$GEN"
pass=0
fail=0

expect() { # expect CAPTURE "kind/dir/confidence ..." (sorted; empty for none)
    local got
    got=$("$EW" -r "$1" --json 2>/dev/null |
        jq -r '[.flows[].misuse[] | "\(.kind)/\(.dir)/\(.confidence)"] | unique | join(" ")')
    if [ "$got" = "$2" ]; then
        pass=$((pass + 1)); echo "ok   $(basename "$1"): ${got:-no findings}"
    else
        fail=$((fail + 1)); echo "FAIL $(basename "$1"): got '$got', want '$2'"
    fi
}

gen() { # gen SCHEME VANTAGE FAULT -> path
    local f="$GEN/$1-$2-$3.pcap"
    "$BUILD/tcpgen" "$1" "$2" "$f" --fault "$3" || { echo "FAIL tcpgen $*"; fail=$((fail + 1)); }
    echo "$f"
}

C=captures
# clean real captures: nothing to report
for f in $C/no-ecn-*.pcap $C/rfc3168-ce-*.pcap $C/accecn-ce-*.pcap $C/accecn-l4s-*.pcap \
    $C/udp-ect-*.pcap $C/rfc3168-sce-*.pcap; do
    expect "$f" ""
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
        expect "$(gen $s $v none)" ""
    done
done
expect "$(gen l4s-into-sce sender none)" "ect1_without_l4s/c2s/certain"
expect "$(gen l4s-into-sce receiver none)" "ect1_without_l4s/c2s/likely"
expect "$(gen sce-on-accecn sender none)" "remarking/c2s/likely"
expect "$(gen sce-on-accecn receiver none)" "remarking/c2s/likely"
# generated: one broken rule each
expect "$(gen classic sender reflect)" "ecn_flags_reflected/s2c/certain ect_without_negotiation/c2s/certain"
expect "$(gen accecn sender reflect)" "ecn_flags_reflected/s2c/certain ect_without_negotiation/c2s/certain"
expect "$(gen accecn sender synack101)" "accecn_handshake_violation/s2c/certain"
expect "$(gen accecn sender synopt)" "accecn_handshake_violation/c2s/certain"
expect "$(gen classic sender ectsyn)" "ect_on_syn/c2s/certain"
expect "$(gen classic receiver ectsyn)" "ect_on_syn/c2s/likely"
expect "$(gen classic receiver ectack)" "ect_on_control/s2c/certain"
expect "$(gen classic receiver noecho)" "feedback_missing/c2s/certain"
expect "$(gen classic sender nocwr)" "ece_ignored/c2s/certain"
expect "$(gen accecn sender zeroopt)" "accecn_option_mangled/s2c/certain"
expect "$(gen accecn sender zeroace)" "accecn_ace_zeroed/s2c/certain"

# every finding carries what the contract promises
"$EW" -r "$C/bleach-accecn-client.pcap" --json | jq -e '[.flows[].misuse[]] | length > 0 and
    all(.[]; (.kind | type == "string") and (.dir == "c2s" or .dir == "s2c") and .first_frame >= 1 and
        .count >= 1 and (.ref | startswith("RFC")) and (.detail | length > 20) and
        (.confidence == "certain" or .confidence == "likely"))' >/dev/null &&
    { pass=$((pass + 1)); echo "ok   findings carry kind, dir, frame, count, ref, detail, confidence"; } ||
    { fail=$((fail + 1)); echo "FAIL findings lack a field"; }
# --fail-on: 1 on a match, 0 on a clean capture, 2 on an unknown kind
"$EW" -r "$C/ce-on-notect-server.pcap" -q --fail-on bleaching,ce_on_not_ect 2>/dev/null; a=$?
"$EW" -r "$C/accecn-ce-server.pcap" -q --fail-on any 2>/dev/null; b=$?
"$EW" -r "$C/accecn-ce-server.pcap" -q --fail-on bleech 2>/dev/null; c=$?
[ "$a$b$c" = 102 ] && { pass=$((pass + 1)); echo "ok   --fail-on exit statuses 1, 0, 2"; } ||
    { fail=$((fail + 1)); echo "FAIL --fail-on exit statuses: $a $b $c"; }

echo "misuse: $pass passed, $fail failed"
[ $fail = 0 ]
