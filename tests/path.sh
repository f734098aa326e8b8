#!/usr/bin/env bash
# path.sh ECNWATCH - two captures of the same traffic (the lab's client and
# server vantage, with the router between them): the two-capture mode must
# name exactly the packets the router rewrote, as its own log
# (captures/lab/<scenario>-marks.csv) lists them, and nothing else.
# Ends "path: N passed, N failed".
set -u
EW=$1
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for marks in captures/lab/*-marks.csv; do
    sc=$(basename "$marks" -marks.csv)
    cli=captures/$sc-client.pcap
    srv=captures/$sc-server.pcap
    [ -f "$cli" ] && [ -f "$srv" ] || continue

    # the router's log: proto src sport dst dport iplen seq ipid old new
    tail -n +2 "$marks" | awk -F, '{ gsub("-", "_", $10); gsub("-", "_", $11);
        print $2, $3, $4, $5, $6, $7, ($8 == -1 ? "-" : $8), ($9 == -1 ? "-" : $9), $10, $11 }' |
        sort >"$tmp/router.txt"

    # ecnwatch: every changed pair, described by the upstream packet's fields
    if ! "$EW" -r "$cli" -r "$srv" --json >"$tmp/r.json" 2>"$tmp/err"; then
        echo "FAIL $sc: ecnwatch exited non-zero: $(head -1 "$tmp/err")"; fail=$((fail + 1)); continue
    fi
    jq -r '.path.hops[0].changes[] | .from as $f | .to as $t | .frames[] | "\(.[0]) \($f) \($t)"' \
        "$tmp/r.json" | sort -n >"$tmp/pairs.txt"
    tshark -r "$cli" -n -T fields -E separator=/t -e frame.number -e ip.src -e ipv6.src \
        -e tcp.srcport -e udp.srcport -e ip.dst -e ipv6.dst -e tcp.dstport -e udp.dstport \
        -e ip.len -e ipv6.plen -e tcp.seq_raw -e ip.id 2>/dev/null |
    awk 'NR == FNR { chg[$1] = $2 " " $3; next }
         ($1 in chg) {
             # tab-separated, empty fields included
             n = split($0, f, "\t")
             src = f[2] != "" ? f[2] : f[3]; dst = f[6] != "" ? f[6] : f[7]
             proto = f[4] != "" ? "tcp" : "udp"
             sp = f[4] != "" ? f[4] : f[5]; dp = f[8] != "" ? f[8] : f[9]
             len = f[10] != "" ? f[10] : f[11] + 40
             seq = f[12] != "" ? f[12] : "-"
             id = f[13] != "" ? sprintf("%d", strtonum_hex(f[13])) : "-"
             print proto, src, sp, dst, dp, len, seq, id, chg[$1]
         }
         function strtonum_hex(h,   i, c, v) {
             v = 0; h = tolower(h); sub(/^0x/, "", h)
             for (i = 1; i <= length(h); i++) { c = index("0123456789abcdef", substr(h, i, 1)) - 1; v = v * 16 + c }
             return v
         }' "$tmp/pairs.txt" - | sort >"$tmp/ecnwatch.txt"

    if diff -q "$tmp/router.txt" "$tmp/ecnwatch.txt" >/dev/null; then
        echo "ok   $sc: the $(wc -l <"$tmp/router.txt") rewrites in the router's log, and nothing else"
        pass=$((pass + 1))
    else
        echo "FAIL $sc: ecnwatch's changes differ from the router's log (- router, + ecnwatch):"
        diff "$tmp/router.txt" "$tmp/ecnwatch.txt" | head -10 | sed 's/^/    /'
        fail=$((fail + 1))
    fi
done

# a clean path (no rewrite) lists no change, and --fail-on passes
if "$EW" -r captures/no-ecn-client.pcap -r captures/no-ecn-server.pcap --json --fail-on bleaching,remarking |
    jq -e '.path.hops[0].changes == [] and .path.hops[0].matched > 0' >/dev/null; then
    echo "ok   no-ecn: no change between the two captures"; pass=$((pass + 1))
else
    echo "FAIL no-ecn: changes reported on a clean path"; fail=$((fail + 1))
fi
# a bleaching hop makes --fail-on bleaching fail the run
"$EW" -r captures/bleach-rfc3168-client.pcap -r captures/bleach-rfc3168-server.pcap -q --fail-on bleaching 2>/dev/null
[ $? = 1 ] && { echo "ok   --fail-on bleaching exits 1 on a bleaching hop"; pass=$((pass + 1)); } ||
    { echo "FAIL --fail-on bleaching on a bleaching hop"; fail=$((fail + 1)); }

echo "path: $pass passed, $fail failed"
[ $fail = 0 ]
