#!/usr/bin/env bash
# tunnels.sh BUILD - ecnwatch opens the tunnels: for a capture of each kind
# that tungen writes (four TCP flows inside IP in IP, GRE, GRE with
# Ethernet, ERSPAN I/II/III, VXLAN, VXLAN-GPE with NSH, Geneve, GTP-U, MPLS,
# MACsec, VXLAN in GRE; outer codepoints that differ from the inner ones),
# per inner flow and direction, the codepoint counts of ecnwatch's JSON
# report equal tshark's of the innermost IP header (tests/tshark.sh
# --innermost); VXLAN on port 8472 with --decap vxlan:8472. Ends with
# "tunnels: N passed, N failed", tshark.sh's checks summed (a run of it
# that ends without its own count is a failure).
. "$(dirname "$0")/lib.sh"
status=0 passed=0 failed=0
for t in ipip gre gre-eth erspan vxlan vxlan-gpe geneve gtpu mpls macsec nested vxlan-8472; do
    "$BUILD/tungen" "$t" "$tmp/$t.pcap" || { echo "tunnels: tungen $t failed" >&2; exit 1; }
done
# oracle ARGS...: one run of tshark.sh, its lines shown but its count, which is summed
oracle() {
    local out p f
    out=$(bash tests/tshark.sh "$BUILD" "$@") || status=1
    printf '%s\n' "$out" | grep -v '^tshark: [0-9]* passed, [0-9]* failed$'
    read -r p f < <(printf '%s\n' "$out" | awk '$1 == "tshark:" && $3 == "passed," { print $2, $4 }')
    if [ -z "${p:-}" ]; then
        echo "FAIL tunnels: tshark.sh $* ended without its count"
        p=0 f=1 status=1
    fi
    passed=$((passed + p)) failed=$((failed + f))
}
oracle --innermost $(ls "$tmp"/*.pcap | grep -v 8472)
oracle --innermost --decap vxlan:8472 "$tmp/vxlan-8472.pcap"
echo "tunnels: $passed passed, $failed failed"
[ "$failed" = 0 ] || status=1
exit $status
