#!/usr/bin/env bash
# path.sh BUILD - two captures of the same traffic (the lab's client and
# server vantage, with the router between them): the two-capture mode must
# name exactly the packets the router rewrote, as its own log
# (captures/lab/<scenario>-marks.csv) lists them, and nothing else.
# A scenario whose captures are missing, or whose frames tshark cannot list,
# is a failure. Ends "path: N passed, N failed".
. "$(dirname "$0")/lib.sh"

same_as_router() { # same_as_router SCENARIO CLIENT-CAPTURE SERVER-CAPTURE MARKS
    local sc=$1 cli=$2 srv=$3 marks=$4
    [ -f "$cli" ] && [ -f "$srv" ] || { why="capture $cli or $srv missing"; return 1; }

    # the router's log: proto src sport dst dport iplen seq ipid old new
    tail -n +2 "$marks" | awk -F, '{ gsub("-", "_", $10); gsub("-", "_", $11);
        print $2, $3, $4, $5, $6, $7, ($8 == -1 ? "-" : $8), ($9 == -1 ? "-" : $9), $10, $11 }' |
        sort >"$tmp/router.txt"

    # ecnwatch: every changed pair, described by the upstream packet's fields
    ew_json "$tmp/r.json" -r "$cli" -r "$srv" --json || return 1
    jq_true "$tmp/r.json" '(.path.hops | length) >= 1 and (.path.hops[0].changes | type == "array")' || return 1
    if ! jq -r '.path.hops[0].changes[] | .from as $f | .to as $t | .frames[] | "\(.[0]) \($f) \($t)"' \
        "$tmp/r.json" >"$tmp/pairs.unsorted" 2>"$tmp/jq.err"; then
        why="the changes do not list frames: $(head -c 200 "$tmp/jq.err")"
        return 1
    fi
    sort -n "$tmp/pairs.unsorted" >"$tmp/pairs.txt"
    # the client capture's frames as tshark reads them (a tool beside ecnwatch: its failure fails the check)
    if ! bounded 120 tshark -r "$cli" -n -T fields -E separator=/t -e frame.number -e ip.src -e ipv6.src \
        -e tcp.srcport -e udp.srcport -e ip.dst -e ipv6.dst -e tcp.dstport -e udp.dstport \
        -e ip.len -e ipv6.plen -e tcp.seq_raw -e ip.id >"$tmp/frames.txt" 2>"$tmp/tshark.err" ||
        [ ! -s "$tmp/frames.txt" ]; then
        why="tshark could not list the frames of $cli: $(head -c 200 "$tmp/tshark.err" | tr '\n' ' ')"
        return 1
    fi
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
         }' "$tmp/pairs.txt" "$tmp/frames.txt" | sort >"$tmp/ecnwatch.txt"

    if ! diff -q "$tmp/router.txt" "$tmp/ecnwatch.txt" >/dev/null; then
        why="ecnwatch's changes differ from the router's log (- router, + ecnwatch):
$(diff "$tmp/router.txt" "$tmp/ecnwatch.txt" | head -10 | sed 's/^/    /')"
        return 1
    fi
}

n=0
for marks in captures/lab/*-marks.csv; do
    [ -f "$marks" ] || continue
    n=$((n + 1))
    sc=$(basename "$marks" -marks.csv)
    check "$sc: the $(($(wc -l <"$marks") - 1)) rewrites in the router's log, and nothing else" \
        same_as_router "$sc" "captures/$sc-client.pcap" "captures/$sc-server.pcap" "$marks"
done
[ $n -gt 0 ] || bad "no router logs in captures/lab/*-marks.csv"

# a clean path (no rewrite) lists no change, and --fail-on passes
clean() {
    ew_json "$tmp/r.json" -r captures/no-ecn-client.pcap -r captures/no-ecn-server.pcap --json \
        --fail-on bleaching,remarking || return 1
    jq_true "$tmp/r.json" '.schema == "ecnwatch.report/1" and (.flows | length) >= 1 and
        .path.hops[0].changes == [] and .path.hops[0].matched > 0'
}
check "no-ecn: no change between the two captures" clean
# a bleaching hop makes --fail-on bleaching fail the run
check "--fail-on bleaching exits 1 on a bleaching hop" run_ew 1 "$tmp/o" "$tmp/e" \
    "$EW" -r captures/bleach-rfc3168-client.pcap -r captures/bleach-rfc3168-server.pcap -q --fail-on bleaching

finish path
