#!/usr/bin/env bash
# tunnels.sh BUILD - ecnwatch opens the tunnels: for a capture of each kind
# that tungen writes (four TCP flows inside IP in IP, GRE, GRE with
# Ethernet, ERSPAN I/II/III, VXLAN, VXLAN-GPE with NSH, Geneve, GTP-U, MPLS,
# MACsec, VXLAN in GRE; outer codepoints that differ from the inner ones),
# per inner flow and direction, the codepoint counts of ecnwatch's JSON
# report equal tshark's of the innermost IP header (tests/tshark.sh
# --innermost); VXLAN on port 8472 with --decap vxlan:8472. Ends with
# tshark.sh's lines, "tshark: N passed, N failed", once per run of it.
. "$(dirname "$0")/lib.sh"
status=0
for t in ipip gre gre-eth erspan vxlan vxlan-gpe geneve gtpu mpls macsec nested vxlan-8472; do
    "$BUILD/tungen" "$t" "$tmp/$t.pcap" || { echo "tunnels: tungen $t failed" >&2; exit 1; }
done
bash tests/tshark.sh "$BUILD" --innermost $(ls "$tmp"/*.pcap | grep -v 8472) || status=1
bash tests/tshark.sh "$BUILD" --innermost --decap vxlan:8472 "$tmp/vxlan-8472.pcap" || status=1
exit $status
