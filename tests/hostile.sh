#!/usr/bin/env bash
# hostile.sh ECNWATCH - malformed and unusual captures, written by
# `ecngen hostile KIND` (ecngen beside ECNWATCH), each with the outcome it must
# have: exit status, source.truncated, and the counters in .totals. Every
# capture is read twice, for the JSON report and for the text summary.
# Under the sanitizer build any memory or UB error aborts, and fails the check.
# Prints one line per check and ends with "hostile: N passed, N failed".
set -u
EW=$1
GEN=$(dirname "$EW")/ecngen
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# hostile KIND STATUS JQ-EXPRESSION: the report of KIND's capture satisfies the
# expression (skipped when STATUS is not 0), and the text summary exits alike
hostile() {
    local kind=$1 want=$2 expr=$3 f=$tmp/$1.pcap st st2
    if ! "$GEN" hostile "$kind" "$f" 2>"$tmp/gen.err"; then
        bad "$kind: ecngen: $(cat "$tmp/gen.err")"
        return
    fi
    "$EW" -r "$f" --json >"$tmp/out.json" 2>"$tmp/err"
    st=$?
    "$EW" -r "$f" >/dev/null 2>"$tmp/err2"
    st2=$?
    if [ "$st" != "$want" ] || [ "$st2" != "$want" ]; then
        bad "$kind: exit $st (text: $st2), want $want: $(head -c 300 "$tmp/err")"
    elif [ "$want" = 0 ] && ! jq -e "$expr" "$tmp/out.json" >/dev/null 2>&1; then
        bad "$kind: report fails '$expr': $(jq -c '{source: .source | {truncated}, totals: .totals | del(.ecn)}' "$tmp/out.json" 2>&1 | head -c 400)"
    elif [ "$want" != 0 ] && [ -n "$expr" ] && ! grep -qE "$expr" "$tmp/err"; then
        bad "$kind: stderr '$(head -c 200 "$tmp/err")' lacks /$expr/"
    else
        ok "$kind"
    fi
}

# cut_every_byte FILE NAME B:F...: FILE cut at every byte from 0 to the last boundary B.
# Below the first boundary it cannot be read (3, a one-line error); from there
# on exit 0 with the F frames of the last boundary reached, truncated unless
# the cut falls on a boundary.
cut_every_byte() {
    local f=$1 name=$2 n st b frames trunc errs=0 first="" why
    shift 2
    local bounds=("$@")
    local last=${bounds[-1]%%:*} min=${bounds[0]%%:*}
    for n in $(seq 0 "$last"); do
        head -c "$n" "$f" >"$tmp/cut.pcap"
        "$EW" -r "$tmp/cut.pcap" --json >"$tmp/cut.json" 2>"$tmp/cut.err"
        st=$?
        if [ "$n" -lt "$min" ]; then
            [ $st = 3 ] && [ "$(wc -l <"$tmp/cut.err")" = 1 ] && grep -q "^ecnwatch: " "$tmp/cut.err" &&
                continue
            why="exit $st, want 3 and a one-line error: $(head -c 200 "$tmp/cut.err")"
        else
            trunc=true
            for b in "${bounds[@]}"; do
                [ "${b%%:*}" -le "$n" ] && frames=${b##*:}
                [ "${b%%:*}" = "$n" ] && trunc=false
            done
            [ $st = 0 ] && jq -e ".totals.frames == $frames and .source.truncated == $trunc" \
                "$tmp/cut.json" >/dev/null 2>&1 && continue
            why="exit $st, want 0 with $frames frames, truncated $trunc: $(head -c 200 "$tmp/cut.err")"
        fi
        errs=$((errs + 1))
        [ -z "$first" ] && first="cut at $n: $why"
    done
    if [ $errs = 0 ]; then
        ok "$name cut at every byte 0..$last: exit 3 below $min bytes, else truncated or whole"
    else
        bad "$name cut at every byte: $errs cuts wrong, first $first"
    fi
}

# pcap: file header 24 bytes, records of 16 + 54 (the first two)
if "$GEN" hostile valid "$tmp/valid.pcap"; then
    cut_every_byte "$tmp/valid.pcap" pcap 24:0 94:1 164:2
else
    bad "ecngen hostile valid"
fi
# pcapng: SHB 28 + IDB 20 (opening needs both), unknown block 52, EPB 88
if "$GEN" hostile pcapng-unknown-block "$tmp/ng.pcapng"; then
    cut_every_byte "$tmp/ng.pcapng" pcapng 48:0 100:0 188:1
else
    bad "ecngen hostile pcapng-unknown-block"
fi

hostile valid 0 '.totals.frames == 3 and .totals.ip_packets == 3 and .totals.flows == 1 and
    .source.truncated == false and .totals.undecodable == 0 and .totals.invalid == 0'
hostile garbage-after-header 0 '.source.truncated == true and .totals.frames == 0'
hostile caplen-over-snaplen 0 '.source.truncated == false and .totals.frames == 2 and
    .totals.ip_packets == 2 and .totals.ecn.ect1 == 1 and .totals.ecn.ce == 1'
hostile caplen-over-256k 0 '.source.truncated == true and .totals.frames == 1 and .totals.ip_packets == 1'
hostile caplen-over-wirelen 0 '.source.truncated == false and .totals.frames == 1 and .totals.ip_packets == 1 and
    .totals.invalid == 1 and .totals.events.ip_length_past_frame == 1'
hostile zero-length 0 '.source.truncated == false and .totals.frames == 3 and .totals.undecodable == 3 and
    .totals.truncated == 3 and .totals.events.link_truncated == 3 and .totals.flows == 0'
hostile time-backwards 0 '.totals.frames == 10 and .totals.ip_packets == 10 and .totals.flows == 1 and
    .totals.flows_expired == 0 and (.flows[0].c2s.packets + .flows[0].s2c.packets) == 10'
hostile pcapng-unknown-block 0 '.source.truncated == false and .source.linktype == "EN10MB" and
    .totals.frames == 1 and .totals.ip_packets == 1 and .totals.flows == 1'
hostile pcapng-bad-length 0 '.source.truncated == true and .totals.frames == 0'
hostile pcapng-huge-time 0 '.totals.frames == 1 and .totals.ip_packets == 1 and
    (.source.first_time | startswith("2096-"))'
hostile link-unsupported 3 'link type 105 \(.*\) is not supported'
hostile ipv4-ihl-small 0 '.totals.frames == 1 and .totals.ip_packets == 0 and .totals.undecodable == 1 and
    .totals.invalid == 1 and .totals.events.ipv4_header_length_small == 1'
hostile ipv4-ihl-past-end 0 '.totals.frames == 2 and .totals.events.ipv4_total_length_bad == 1 and
    .totals.events.ipv4_truncated == 1 and .totals.events.ip_length_past_frame == 1 and
    .totals.truncated == 1 and .totals.invalid == 2'
hostile tcp-doff-small 0 '.totals.ip_packets == 1 and .totals.invalid == 1 and
    .totals.events.tcp_data_offset_small == 1'
hostile tcp-doff-past-end 0 '.totals.ip_packets == 1 and .totals.invalid == 1 and
    .totals.events.tcp_data_offset_past_end == 1'
hostile tcp-opt-len0 0 '.totals.ip_packets == 1 and .totals.invalid == 1 and
    .totals.events.tcp_option_length_bad == 1'
hostile tcp-opt-len1 0 '.totals.ip_packets == 1 and .totals.invalid == 1 and
    .totals.events.tcp_option_length_bad == 1'
hostile tcp-opt-overrun 0 '.totals.ip_packets == 1 and .totals.invalid == 1 and
    .totals.events.tcp_option_overrun == 1 and (.totals.events | has("tcp_options_truncated") | not)'
hostile ipv6-ext-chain-9 0 '.totals.ip_packets == 1 and .totals.ecn.ect0 == 1 and .totals.invalid == 1 and
    .totals.events.ipv6_extension_chain_too_long == 1'
hostile vlan-3-deep 0 '.totals.frames == 1 and .totals.ip_packets == 0 and .totals.undecodable == 1 and
    .totals.events.vlan_too_deep == 1'

echo "hostile: $pass passed, $fail failed"
[ $fail = 0 ]
