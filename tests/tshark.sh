#!/usr/bin/env bash
# tshark.sh BUILD [--innermost | --outer] [--decap TYPE:PORT] [CAPTURE...]
# For every capture: per flow and direction, the ECN codepoint counts in
# ecnwatch's JSON report must equal what tshark (an independent dissector)
# reads from the same file. IP reassembly is off in tshark, so that later
# fragments stay apart from their first fragment, as ecnwatch keeps them.
# With --innermost a frame's flow is its innermost IP header and the
# transport header after it (tunnels opened, tests/tunnels.sh), else its
# first; --decap is given to ecnwatch, and to tshark as its decode-as.
# With --outer the flows are the innermost ones, and the counts are those of
# the IP header nearest the innermost one (the tunnel's outer header, which
# its egress reads), against each direction's tunnel.outer_ecn; frames with
# no such header, or with ERSPAN between the two (a mirror session's header),
# are not counted, as ecnwatch does not compare them.
# A capture passes only when ecnwatch exits 0 with a JSON report whose flows
# have counts, and tshark reads IP packets from it. Prints one "ok"/"FAIL"
# line per capture, then "tshark: N passed, N failed"; exits non-zero on any
# mismatch.
. "$(dirname "$0")/lib.sh"
ECNWATCH=$EW
shift
INNER=0
OUTER=0
ew_args=()
ts_args=()
while [ $# -gt 0 ]; do
    case $1 in
    --innermost) INNER=1 ;;
    --outer) INNER=1 OUTER=1 ;;
    --decap)
        ew_args+=(--decap "$2")
        ts_args+=(-d "udp.port==${2#*:},$(echo "${2%%:*}" | sed 's/^gtpu$/gtp/; s/^vxlan-gpe$/vxlan_gpe/')")
        shift
        ;;
    *) break ;;
    esac
    shift
done
# no capture named: every bundled one
[ $# = 0 ] && set -- captures/*.pcap

for cap in "$@"; do
    begin "$cap"
    why=""
    # ecnwatch first: a capture it gives no report of needs no tshark
    if ! run_ew 0 "$tmp/report.json" "$tmp/ecnwatch.err" "$ECNWATCH" -r "$cap" --json --hash-seed 1 "${ew_args[@]}"; then
        bad "$cap: ecnwatch: $why"
        continue
    fi
    if ! jq_true "$tmp/report.json" '.flows | type == "array"'; then
        bad "$cap: ecnwatch's report: $why"
        continue
    fi
    # tshark: src sport dst dport proto -> counts of Not-ECT ECT(0) ECT(1) CE
    bounded "$EW_CMD_TIMEOUT" tshark -r "$cap" -n -o ip.defragment:FALSE -o ipv6.defragment:FALSE \
        "${ts_args[@]}" -T fields -E separator='|' \
        -e ip.src -e ip.dst -e ipv6.src -e ipv6.dst -e ip.dsfield.ecn -e ipv6.tclass.ecn \
        -e tcp.srcport -e tcp.dstport -e udp.srcport -e udp.dstport -e frame.protocols \
        2>"$tmp/tshark.err" |
    awk -F'|' -v inner=$INNER -v outer=$OUTER '
        function first(v) { sub(/,.*/, "", v); return v }
        function last(v) { sub(/.*,/, "", v); return v }
        # the innermost: the family of the last IP header in frame.protocols
        # and the transport after it; every field its last value
        function innermost(  n, i, pr, fam, tr) {
            n = split($11, pr, ":"); fam = ""; tr = ""
            for (i = 1; i <= n; i++)
                if (pr[i] == "ip" || pr[i] == "ipv6") { fam = pr[i]; tr = "" }
                else if ((pr[i] == "tcp" || pr[i] == "udp") && tr == "") tr = pr[i]
            src = ""; p = "other"; sp = "-"; dp = "-"
            if (fam == "ip")   { src = last($1); dst = last($2); ecn = last($5) }
            if (fam == "ipv6") { src = last($3); dst = last($4); ecn = last($6) }
            if (tr == "tcp")   { p = "tcp"; sp = last($7); dp = last($8) }
            if (tr == "udp")   { p = "udp"; sp = last($9); dp = last($10) }
        }
        # the IP header before the innermost: its ECN field in ecn, "" when
        # there is none or ERSPAN lies between the two
        function nearest_outer(  n, i, pr, n4, n6, cf, ci, pf, pi, seg, between, v) {
            n = split($11, pr, ":"); n4 = n6 = 0; cf = pf = ""; seg = between = ""
            for (i = 1; i <= n; i++) {
                if (pr[i] == "ip" || pr[i] == "ipv6") {
                    pf = cf; pi = ci; between = seg; seg = ""
                    cf = pr[i]; ci = pr[i] == "ip" ? ++n4 : ++n6
                } else seg = seg ":" pr[i]
            }
            ecn = ""
            if (pf == "" || between ~ /:erspan/) return
            split(pf == "ip" ? $5 : $6, v, ",")
            ecn = v[pi]
        }
        {
            if (inner) {
                innermost()
                if (outer) nearest_outer()
                if (src == "" || ecn == "") next
            } else {
            src = first($1); dst = first($2)
            if (src == "") { src = first($3); dst = first($4) }
            if (src == "") next                     # not IP
            ecn = first($5)
            if (ecn == "") ecn = first($6)
            if (ecn == "") next
            if (first($7) != "")      { p = "tcp";   sp = first($7); dp = first($8) }
            else if (first($9) != "") { p = "udp";   sp = first($9); dp = first($10) }
            else                      { p = "other"; sp = "-"; dp = "-" }
            }
            k = src " " sp " " dst " " dp " " p
            n[k, ecn + 0]++; keys[k] = 1
        }
        END { for (k in keys) printf "%s %d %d %d %d\n", k, n[k,0], n[k,2], n[k,1], n[k,3] }
    ' | sort >"$tmp/tshark.txt"
    st=${PIPESTATUS[0]}
    if [ "$st" != 0 ]; then
        bad "$cap: tshark exited $st: $(head -c 200 "$tmp/tshark.err")"
        continue
    fi

    if [ $OUTER = 1 ]; then cnt=".tunnel.outer_ecn // {not_ect: 0, ect0: 0, ect1: 0, ce: 0}"; else cnt=".ecn"; fi
    if ! jq -r '
        .flows | group_by(.client.addr, .client.port, .server.addr, .server.port, .proto)[] |
        (.[0] | {c: .client, s: .server, p: .proto}) as $k |
        ([.[].c2s | '"$cnt"'] | {not_ect: (map(.not_ect) | add), ect0: (map(.ect0) | add),
                           ect1: (map(.ect1) | add), ce: (map(.ce) | add)}) as $c2s |
        ([.[].s2c | '"$cnt"'] | {not_ect: (map(.not_ect) | add), ect0: (map(.ect0) | add),
                           ect1: (map(.ect1) | add), ce: (map(.ce) | add)}) as $s2c |
        ($k.c.port // "-" | tostring) as $cp | ($k.s.port // "-" | tostring) as $sp |
        ([$k.c.addr, $cp, $k.s.addr, $sp, $k.p, $c2s.not_ect, $c2s.ect0, $c2s.ect1, $c2s.ce] | map(tostring) | join(" ")),
        ([$k.s.addr, $sp, $k.c.addr, $cp, $k.p, $s2c.not_ect, $s2c.ect0, $s2c.ect1, $s2c.ce] | map(tostring) | join(" "))
    ' "$tmp/report.json" >"$tmp/ecnwatch.all" 2>"$tmp/jq.err"; then
        bad "$cap: ecnwatch's report has no flows to count: $(head -c 200 "$tmp/jq.err")"
        continue
    fi
    awk '$6 + $7 + $8 + $9 > 0' "$tmp/ecnwatch.all" | sort >"$tmp/ecnwatch.txt"

    if [ ! -s "$tmp/tshark.txt" ]; then
        bad "$cap: tshark read no IP packets ($(head -1 "$tmp/tshark.err"))"
    elif [ ! -s "$tmp/ecnwatch.txt" ]; then
        bad "$cap: ecnwatch counted no IP packet in any flow, tshark $(wc -l <"$tmp/tshark.txt") flow directions"
    elif diff -u "$tmp/tshark.txt" "$tmp/ecnwatch.txt" >"$tmp/diff.txt"; then
        ok "$cap: $(wc -l <"$tmp/tshark.txt") flow directions agree with tshark"
    else
        bad "$cap: ecnwatch and tshark disagree (- tshark, + ecnwatch):"
        head -20 "$tmp/diff.txt" | sed 's/^/    /'
    fi
done
finish tshark
