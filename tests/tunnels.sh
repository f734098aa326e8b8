#!/usr/bin/env bash
# tunnels.sh BUILD - ecnwatch opens the tunnels: for a capture of each kind
# that tungen writes (four TCP flows inside IP in IP, GRE, GRE with
# Ethernet, ERSPAN I/II/III, VXLAN, VXLAN-GPE with NSH, Geneve, GTP-U, MPLS,
# MACsec, VXLAN in GRE; outer codepoints that differ from the inner ones),
# per inner flow and direction, the codepoint counts of ecnwatch's JSON
# report equal tshark's of the innermost IP header (tests/tshark.sh
# --innermost), and the counts of the outer header nearest the inner one
# those of tshark's IP header before the innermost (--outer); VXLAN on port
# 8472 with --decap vxlan:8472; MPLS, MACsec and ERSPAN packets counted as
# not compared. Ends with
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
# the outer header nearest each packet, per inner flow and direction
oracle --outer $(ls "$tmp"/*.pcap | grep -Ev '8472|erspan|mpls|macsec')
oracle --outer --decap vxlan:8472 "$tmp/vxlan-8472.pcap"
# no outer header to compare: none for MPLS and MACsec alone, a mirror
# session's for ERSPAN; every packet of those counted as such
notcompared() { # CAPTURE MEMBER
    if bounded "$EW_CMD_TIMEOUT" "$EW" -r "$tmp/$1.pcap" --json --hash-seed 1 >"$tmp/$1.json" 2>/dev/null &&
        jq_true "$tmp/$1.json" '[.flows[] | .c2s, .s2c | .tunnel] | length > 0 and
            all(.[]; .packets > 0 and .[$m] == .packets and .rfc6040_applies == false and
                      (.outer_ecn | add) == 0)' --arg m "$2"; then
        echo "ok   $1: every tunnelled packet counted in $2, none compared"
        passed=$((passed + 1))
    else
        echo "FAIL $1: not every tunnelled packet counted in $2 alone"
        failed=$((failed + 1))
    fi
}
# the metrics' outer and inner pairs are the report's, summed over the flows
pairs_agree() { # CAPTURE
    local m=$tmp/$1.prom j=$tmp/$1.pairs.json
    bounded "$EW_CMD_TIMEOUT" "$EW" -r "$tmp/$1.pcap" --hash-seed 1 -q -o "$j" --metrics-file "$m" 2>/dev/null || return 1
    json_ok "$j" || return 1
    [ "$(grep -c '^ecnwatch_tunnel_codepoints_total{' "$m" 2>/dev/null)" = 16 ] ||
        { echo "not the 16 pairs" >"$tmp/$1.pairs.diff"; return 1; }
    diff <(jq -r '[.flows[] | .c2s, .s2c | .tunnel // empty | .outer_to_inner | to_entries[] |
                   .key as $o | .value | to_entries[] | {o: $o, i: .key, n: .value}] |
                  group_by(.o, .i)[] | "\(.[0].o) \(.[0].i) \(map(.n) | add)"' "$j" | sort) \
         <(sed -n 's/^ecnwatch_tunnel_codepoints_total{outer="\([a-z_0-9]*\)",inner="\([a-z_0-9]*\)"} \([0-9]*\)$/\1 \2 \3/p' "$m" | sort) \
        >"$tmp/$1.pairs.diff"
}
for t in vxlan nested gtpu; do
    if pairs_agree "$t"; then
        echo "ok   $t: the metrics' outer and inner pairs are the report's"
        passed=$((passed + 1))
    else
        echo "FAIL $t: the metrics' outer and inner pairs differ from the report's: $(head -c 300 "$tmp/$t.pairs.diff" | tr '\n' ' ')"
        failed=$((failed + 1))
    fi
done
notcompared mpls no_outer_ip
notcompared macsec no_outer_ip
notcompared erspan mirrored
echo "tunnels: $passed passed, $failed failed"
[ "$failed" = 0 ] || status=1
exit $status
