#!/usr/bin/env bash
# hostile.sh BUILD - malformed and unusual captures, written by
# `ecngen hostile KIND` (ecngen beside ECNWATCH), each with the outcome it must
# have: exit status, source.truncated, and the counters in .totals. Every
# capture is read twice, for the JSON report and for the text summary.
# Under the sanitizer build any memory or UB error aborts, and fails the check.
# Prints one line per check and ends with "hostile: N passed, N failed".
. "$(dirname "$0")/lib.sh"
GEN=$(dirname "$EW")/ecngen

# hostile KIND STATUS EXPRESSION: `ecngen hostile KIND` writes the capture (a
# generator that fails is a failure); ECNWATCH exits STATUS on it, for the
# JSON report and for the text summary. With STATUS 0 the report is there,
# parses, and satisfies the jq EXPRESSION, and the summary is not empty;
# otherwise both runs print a one-line error matching the regular EXPRESSION.
hostile() {
    local kind=$1 want=$2 expr=$3 f=$tmp/$1.pcap e
    begin "$kind"
    why=""
    if ! bounded "$EW_CMD_TIMEOUT" "$GEN" hostile "$kind" "$f" 2>"$tmp/gen.err" || [ ! -s "$f" ]; then
        bad "$kind: ecngen: $(head -c 300 "$tmp/gen.err")"
        return
    fi
    if ! run_ew "$want" "$tmp/out.json" "$tmp/err" "$EW" -r "$f" --json; then
        bad "$kind: $why"
        return
    fi
    if ! run_ew "$want" "$tmp/out.txt" "$tmp/err2" "$EW" -r "$f"; then
        bad "$kind: text summary: $why"
        return
    fi
    if [ "$want" = 0 ]; then
        if ! jq_true "$tmp/out.json" "$expr"; then
            bad "$kind: report fails '$expr': $why: $(jq -c '{source: .source | {truncated}, totals: .totals | del(.ecn)}' "$tmp/out.json" 2>&1 | head -c 400)"
        elif [ ! -s "$tmp/out.txt" ]; then
            bad "$kind: the text summary is empty"
        else
            ok "$kind"
        fi
        return
    fi
    if [ -z "$expr" ]; then
        bad "$kind: exit $want is expected without the error it must print"
        return
    fi
    for e in "$tmp/err" "$tmp/err2"; do
        if ! grep -qE "$expr" "$e"; then
            bad "$kind: stderr '$(head -c 200 "$e")' lacks /$expr/"
            return
        fi
        if [ "$(wc -l <"$e")" != 1 ]; then
            bad "$kind: error is not one line: $(head -c 300 "$e")"
            return
        fi
    done
    ok "$kind"
}

# cut_every_byte FILE NAME B:F...: FILE cut at every byte from 0 to the last boundary B.
# Below the first boundary it cannot be read (3, a one-line error naming the
# file); from there on exit 0 with the F frames of the last boundary reached,
# truncated unless the cut falls on a boundary.
cut_every_byte() {
    local f=$1 name=$2 n b frames trunc errs=0 first=""
    shift 2
    local bounds=("$@")
    local last=${bounds[-1]%%:*} min=${bounds[0]%%:*}
    begin "$name cut at every byte"
    for n in $(seq 0 "$last"); do
        head -c "$n" "$f" >"$tmp/cut.pcap"
        why=""
        if [ "$n" -lt "$min" ]; then
            if run_ew 3 "$tmp/cut.json" "$tmp/cut.err" "$EW" -r "$tmp/cut.pcap" --json; then
                [ "$(wc -l <"$tmp/cut.err")" = 1 ] && grep -q "^ecnwatch: $tmp/cut.pcap: " "$tmp/cut.err" &&
                    continue
                why="want a one-line error naming the file: '$(head -c 200 "$tmp/cut.err")'"
            fi
        else
            trunc=true
            for b in "${bounds[@]}"; do
                [ "${b%%:*}" -le "$n" ] && frames=${b##*:}
                [ "${b%%:*}" = "$n" ] && trunc=false
            done
            run_ew 0 "$tmp/cut.json" "$tmp/cut.err" "$EW" -r "$tmp/cut.pcap" --json &&
                jq_true "$tmp/cut.json" ".totals.frames == $frames and .source.truncated == $trunc" && continue
            why="want 0 with $frames frames, truncated $trunc: $why"
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
begin "ecngen hostile valid"
if bounded "$EW_CMD_TIMEOUT" "$GEN" hostile valid "$tmp/valid.pcap"; then
    cut_every_byte "$tmp/valid.pcap" pcap 24:0 94:1 164:2
else
    bad "ecngen hostile valid"
fi
# pcapng: SHB 28 + IDB 20 (opening needs both), unknown block 52, EPB 88
begin "ecngen hostile pcapng-unknown-block"
if bounded "$EW_CMD_TIMEOUT" "$GEN" hostile pcapng-unknown-block "$tmp/ng.pcapng"; then
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
# a pcapng that breaks the format's rules is invalid, not cut: exit 3, one
# line saying so, and the report of what was read before is still written
# (pcapng §4.3: a packet names an interface its IDBs describe; §3.1: a block's
# length fits the file, here 2 GB claimed)
hostile pcapng-bad-length 3 'bad-length.pcap: invalid capture after 0 frames: pcapng block at offset 48 claims'
hostile pcapng-undeclared-if 3 'undeclared-if.pcap: invalid capture after 0 frames: packet block at offset 48 for interface 1'
invalid_line() { # invalid_line KIND: one line naming the file, "invalid capture"
    bounded "$EW_CMD_TIMEOUT" "$GEN" hostile "$1" "$tmp/inv.pcapng" || return 1
    run_ew 3 "$tmp/inv.out" "$tmp/inv.err" "$EW" -r "$tmp/inv.pcapng" -q || return 1
    [ "$(wc -l <"$tmp/inv.err")" = 1 ] && grep -q "inv.pcapng: invalid capture after 0 frames" "$tmp/inv.err" ||
        { why="stderr: $(head -c 200 "$tmp/inv.err")"; return 1; }
    # the report of what was read is still written
    run_ew 3 "$tmp/inv.json" "$tmp/inv.err" "$EW" -r "$tmp/inv.pcapng" --json || return 1
    jq_true "$tmp/inv.json" '.source.truncated == true and .totals.frames == 0' || return 1
    # from standard input libpcap reads it: its words, the same outcome
    run_ew 3 "$tmp/inv.out" "$tmp/inv.err" sh -c "'$EW' -r - -q <'$tmp/inv.pcapng'" || return 1
    grep -q "standard input: invalid capture" "$tmp/inv.err" || { why="stdin: $(head -c 200 "$tmp/inv.err")"; return 1; }
}
check "pcapng-undeclared-if: 'invalid capture' and the report, from a file and from standard input" invalid_line pcapng-undeclared-if
hostile pcapng-huge-time 0 '.totals.frames == 1 and .totals.ip_packets == 1 and
    (.source.first_time | startswith("2096-"))'
# pcapng §4.2: each interface its own link type (mergecap writes them so):
# Ethernet, LINKTYPE_RAW in nanoseconds, and IEEE 802.11, which is not
# decoded: its frame is counted undecodable (link_type_unsupported), not invalid
hostile pcapng-two-links 0 '.source.truncated == false and .totals.frames == 3 and
    .totals.ip_packets == 2 and .totals.flows == 1 and .totals.undecodable == 1 and
    .totals.invalid == 0 and .totals.events == {"link_type_unsupported": 1} and
    .totals.ecn.ect0 == 1 and .totals.ecn.ect1 == 1 and
    .flows[0].c2s.packets == 1 and .flows[0].s2c.packets == 1 and
    .source.last_time == "2023-11-14T22:13:20.000002Z"'
# the same file on standard input: libpcap reads one link type per file, and
# standard input cannot be read again from the start: refused in one line,
# exit 3 (input cannot be read), never 0 frames and exit 0
begin "pcapng-two-links on standard input"
if bounded "$EW_CMD_TIMEOUT" "$GEN" hostile pcapng-two-links "$tmp/2l.pcapng"; then
    why=""
    if run_ew 3 "$tmp/2l.json" "$tmp/2l.err" "$EW" -r - --json <"$tmp/2l.pcapng" &&
        [ "$(wc -l <"$tmp/2l.err")" = 1 ] && grep -q "^ecnwatch: standard input: .*different link types" "$tmp/2l.err"; then
        ok "pcapng-two-links on standard input: exit 3, one line"
    else
        bad "pcapng-two-links on standard input: $why: $(head -c 300 "$tmp/2l.err")"
    fi
    # SHB 28 + IDB 20 (libpcap opens it), IDBs 32 and 20, EPBs 88, 72, 56
    cut_every_byte "$tmp/2l.pcapng" pcapng-two-links 48:0 80:0 100:0 188:1 260:2 316:3
else
    bad "ecngen hostile pcapng-two-links"
fi
# a filter compiled for each interface's link type
begin "pcapng-two-links with a filter"
why=""
if run_ew 0 "$tmp/2lf.json" "$tmp/2lf.err" "$EW" -r "$tmp/2l.pcapng" --json 'tcp[13] == 0x12' &&
    jq_true "$tmp/2lf.json" '.totals.frames == 1 and .totals.ecn.ect1 == 1'; then
    ok "pcapng-two-links with a filter: the raw-IP SYN-ACK matches on its own link type"
else
    bad "pcapng-two-links with a filter: $why"
fi
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
# tunnels that cannot be opened: the event, and the frame counted as the
# packet that carries them (its flow, no tunnel), or as undecodable / not IP
hostile tunnel-ipip-5-deep 0 '.totals.ip_packets == 1 and .totals.invalid == 1 and
    .totals.events.tunnel_too_deep == 1 and .totals.tunnelled_packets == 1 and
    (.flows | length) == 1 and (.flows[0].tunnel.layers | length) == 4 and .flows[0].ip_proto == 4'
hostile tunnel-vxlan-cut 0 '.totals.ip_packets == 1 and .totals.events.tunnel_header_bad == 1 and
    .totals.tunnelled_packets == 0 and .flows[0].proto == "udp" and .flows[0].server.port == 4789 and
    (.flows[0] | has("tunnel") | not)'
hostile tunnel-gre-version 0 '.totals.ip_packets == 1 and .totals.events.tunnel_header_bad == 1 and
    .flows[0].ip_proto == 47 and (.flows[0] | has("tunnel") | not)'
hostile tunnel-mpls-9 0 '.totals.frames == 1 and .totals.ip_packets == 0 and .totals.undecodable == 1 and
    .totals.events.mpls_too_deep == 1'
hostile tunnel-macsec-encrypted 0 '.totals.frames == 1 and .totals.ip_packets == 0 and .totals.non_ip == 1 and
    .totals.events.macsec_encrypted == 1'
hostile tunnel-vxlan-arp 0 '.totals.ip_packets == 1 and .totals.events.tunnel_inner_non_ip == 1 and
    .flows[0].proto == "udp" and .flows[0].server.port == 4789 and (.flows[0] | has("tunnel") | not)'

# the cost of a file's structure: 10,000 pcapng sections (what a careless
# concatenation of small dumps gives, or an attacker), each a section header,
# an interface and one SYN, read with a long filter. The filter is compiled
# once per link type, not once a section (that took 65 s); it still applies
# in every section: the SYNs alternate between ports 5201 and 80. A bound
# of 20 s, not a speed measurement: the old cost is 300 times the new.
many_sections() {
    local f=$tmp/sections.pcapng flt="tcp dst port 5201"
    local i
    for i in $(seq 1 40); do flt="$flt or (udp and dst port $((10000 + i)) and src port $((20000 + i)))"; done
    bounded 60 python3 - "$f" <<'PY' || { why="could not write the capture"; return 1; }
import struct, sys
def block(t, body):
    body += b"\0" * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack("<II", t, n) + body + struct.pack("<I", n)
def syn(dport):
    eth = b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00"
    tcp = struct.pack(">HHIIBBHHH", 40000, dport, 1, 0, 5 << 4, 0x02, 65535, 0, 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0x02, 20 + len(tcp), 1, 0, 64, 6, 0,
                     bytes([192, 0, 2, 1]), bytes([198, 51, 100, 2]))
    return eth + ip + tcp
out = open(sys.argv[1], "wb")
for i in range(10000):
    out.write(block(0x0a0d0d0a, struct.pack("<IHHq", 0x1a2b3c4d, 1, 0, -1)))
    out.write(block(1, struct.pack("<HHI", 1, 0, 65535)))
    f = syn(5201 if i % 2 == 0 else 80)
    ts = (1700000000 + i) * 1000000
    out.write(block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xffffffff, len(f), len(f)) + f))
PY
    EW_CMD_TIMEOUT=20 run_ew 0 "$tmp/sections.json" "$tmp/sections.err" "$EW" -r "$f" --json "$flt" || return 1
    jq_true "$tmp/sections.json" '.totals.frames == 5000 and .source.truncated == false'
}
check "10,000 pcapng sections with a long filter: compiled once per link type, applied in each" many_sections
# more interfaces than any capture has: invalid (exit 3, named), not a file
# cut short (it was reported as "capture ends mid-record", exit 0)
many_interfaces() {
    local f=$tmp/ifs.pcapng
    bounded 60 python3 - "$f" <<'PY' || { why="could not write the capture"; return 1; }
import struct, sys
def block(t, body):
    body += b"\0" * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack("<II", t, n) + body + struct.pack("<I", n)
with open(sys.argv[1], "wb") as o:
    o.write(block(0x0a0d0d0a, struct.pack("<IHHq", 0x1a2b3c4d, 1, 0, -1)))
    o.write(block(1, struct.pack("<HHI", 1, 0, 65535)) * 65537)
PY
    run_ew 3 "$tmp/ifs.out" "$tmp/ifs.err" "$EW" -r "$f" -q || return 1
    [ "$(wc -l <"$tmp/ifs.err")" = 1 ] && grep -q "invalid capture.*more than 65536 interfaces" "$tmp/ifs.err" ||
        { why="$(head -c 200 "$tmp/ifs.err")"; return 1; }
}
check "65,537 pcapng interfaces: invalid, exit 3, named; not a cut file" many_interfaces
# a compressed pcapng of several link types (what mergecap writes, then
# gzip or xz): read by the block reader like the plain file, not refused
# as if it came on standard input
compressed_links() {
    local z
    bounded 30 "$GEN" hostile pcapng-two-links "$tmp/links.pcapng" 2>/dev/null || { why="ecngen"; return 1; }
    run_ew 0 "$tmp/links.json" "$tmp/links.err" "$EW" -r "$tmp/links.pcapng" --json || return 1
    jq_true "$tmp/links.json" '.totals.frames > 0' || return 1
    for z in gzip xz; do
        $z -kf "$tmp/links.pcapng" || { why="$z"; return 1; }
    done
    for z in gz xz; do
        run_ew 0 "$tmp/links.$z.json" "$tmp/links.err" "$EW" -r "$tmp/links.pcapng.$z" --json || return 1
        [ "$(jq -c .totals "$tmp/links.$z.json")" = "$(jq -c .totals "$tmp/links.json")" ] ||
            { why=".$z: totals $(jq -c .totals.frames "$tmp/links.$z.json"), plain $(jq -c .totals.frames "$tmp/links.json")"; return 1; }
    done
}
check "pcapng of three link types, gzip and xz: read as the plain file is" compressed_links
# a compressed pcapng whose decompression fails (gzip's check value broken,
# xz cut short) ends as a compressed pcap file does: a warning that names
# the decompression's failure, not a pcapng block cut short
compressed_ng_broken() {
    python3 - "$tmp/links.pcapng.gz" "$tmp/crc.pcapng.gz" "$tmp/links.pcapng.xz" "$tmp/cut.pcapng.xz" <<'PY' || { why="python3"; return 1; }
import sys
g = bytearray(open(sys.argv[1], 'rb').read()); g[-8] ^= 0xff
open(sys.argv[2], 'wb').write(g)
x = open(sys.argv[3], 'rb').read()
open(sys.argv[4], 'wb').write(x[:len(x) // 2])
PY
    run_ew 0 "$tmp/crc.json" "$tmp/crc.err" "$EW" -r "$tmp/crc.pcapng.gz" --json || return 1
    grep -q "warning: .*crc.pcapng.gz: .*(gzip: corrupt data (incorrect data check))" "$tmp/crc.err" &&
        jq_true "$tmp/crc.json" '.source.truncated == true and .totals.frames == 3' ||
        { why="$(head -c 300 "$tmp/crc.err")"; return 1; }
    run_ew 0 "$tmp/cut.json" "$tmp/cut.err" "$EW" -r "$tmp/cut.pcapng.xz" --json || return 1
    grep -q "warning: .*cut.pcapng.xz: .*(xz: the compressed stream ends early" "$tmp/cut.err" &&
        jq_true "$tmp/cut.json" '.source.truncated == true' ||
        { why="$(head -c 300 "$tmp/cut.err")"; return 1; }
}
check "a compressed pcapng that fails to decompress: the decompression's words, truncated" compressed_ng_broken

finish hostile
