#!/usr/bin/env bash
# tshark_check.sh ECNWATCH CAPTURE...
# For every capture: per flow and direction, the ECN codepoint counts in
# ecnwatch's JSON report must equal what tshark (an independent dissector)
# reads from the same file. IP reassembly is off in tshark, so that later
# fragments stay apart from their first fragment, as ecnwatch keeps them.
# Prints one "ok"/"FAIL" line per capture; exits non-zero on any mismatch.
set -u
ECNWATCH=$1
shift
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for cap in "$@"; do
    # tshark: src sport dst dport proto -> counts of Not-ECT ECT(0) ECT(1) CE
    tshark -r "$cap" -n -o ip.defragment:FALSE -o ipv6.defragment:FALSE \
        -T fields -E separator='|' \
        -e ip.src -e ip.dst -e ipv6.src -e ipv6.dst -e ip.dsfield.ecn -e ipv6.tclass.ecn \
        -e tcp.srcport -e tcp.dstport -e udp.srcport -e udp.dstport 2>"$tmp/tshark.err" |
    awk -F'|' '
        function first(v) { sub(/,.*/, "", v); return v }
        {
            src = first($1); dst = first($2)
            if (src == "") { src = first($3); dst = first($4) }
            if (src == "") next                     # not IP
            ecn = first($5)
            if (ecn == "") ecn = first($6)
            if (ecn == "") next
            if (first($7) != "")      { p = "tcp";   sp = first($7); dp = first($8) }
            else if (first($9) != "") { p = "udp";   sp = first($9); dp = first($10) }
            else                      { p = "other"; sp = "-"; dp = "-" }
            k = src " " sp " " dst " " dp " " p
            n[k, ecn + 0]++; keys[k] = 1
        }
        END { for (k in keys) printf "%s %d %d %d %d\n", k, n[k,0], n[k,2], n[k,1], n[k,3] }
    ' | sort >"$tmp/tshark.txt"

    if ! "$ECNWATCH" -r "$cap" --json --hash-seed 1 >"$tmp/report.json" 2>"$tmp/ecnwatch.err"; then
        echo "FAIL $cap: ecnwatch exited non-zero: $(head -1 "$tmp/ecnwatch.err")"
        fail=1
        continue
    fi
    jq -r '
        .flows | group_by(.client.addr, .client.port, .server.addr, .server.port, .proto)[] |
        (.[0] | {c: .client, s: .server, p: .proto}) as $k |
        ([.[].c2s.ecn] | {not_ect: (map(.not_ect) | add), ect0: (map(.ect0) | add),
                           ect1: (map(.ect1) | add), ce: (map(.ce) | add)}) as $c2s |
        ([.[].s2c.ecn] | {not_ect: (map(.not_ect) | add), ect0: (map(.ect0) | add),
                           ect1: (map(.ect1) | add), ce: (map(.ce) | add)}) as $s2c |
        ($k.c.port // "-" | tostring) as $cp | ($k.s.port // "-" | tostring) as $sp |
        ([$k.c.addr, $cp, $k.s.addr, $sp, $k.p, $c2s.not_ect, $c2s.ect0, $c2s.ect1, $c2s.ce] | map(tostring) | join(" ")),
        ([$k.s.addr, $sp, $k.c.addr, $cp, $k.p, $s2c.not_ect, $s2c.ect0, $s2c.ect1, $s2c.ce] | map(tostring) | join(" "))
    ' "$tmp/report.json" | awk '$6 + $7 + $8 + $9 > 0' | sort >"$tmp/ecnwatch.txt"

    if [ ! -s "$tmp/tshark.txt" ]; then
        echo "FAIL $cap: tshark read no IP packets ($(head -1 "$tmp/tshark.err"))"
        fail=1
    elif diff -u "$tmp/tshark.txt" "$tmp/ecnwatch.txt" >"$tmp/diff.txt"; then
        echo "ok   $cap: $(wc -l <"$tmp/tshark.txt") flow directions agree with tshark"
    else
        echo "FAIL $cap: ecnwatch and tshark disagree (- tshark, + ecnwatch):"
        head -20 "$tmp/diff.txt" | sed 's/^/    /'
        fail=1
    fi
done
exit $fail
