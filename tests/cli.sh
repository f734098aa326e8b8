#!/usr/bin/env bash
# cli.sh ECNWATCH - the command line as a user meets it: exit statuses, one-line
# errors, standard input, -c, -o written atomically, determinism, truncated
# captures. Prints "N passed, N failed" and exits non-zero on any failure.
set -u
EW=$1
CAP=captures/rfc3168-ce-server.pcap
CAP6=captures/accecn-ce-v6-client.pcap
pass=0
fail=0
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# expect NAME STATUS STDERR-PATTERN -- command...
expect() {
    local name=$1 want=$2 pat=$3
    shift 4
    "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" != "$want" ]; then
        bad "$name: exit $got, want $want ($(head -c 200 "$tmp/err"))"
    elif [ -n "$pat" ] && ! grep -qE "$pat" "$tmp/err"; then
        bad "$name: stderr '$(head -c 200 "$tmp/err")' lacks /$pat/"
    elif [ -n "$pat" ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
        bad "$name: error is not one line: $(cat "$tmp/err")"
    else
        ok "$name"
    fi
}

expect "missing file -> 3" 3 "nofile.pcap: No such file or directory" -- "$EW" -r "$tmp/nofile.pcap"
expect "directory -> 3" 3 "is a directory" -- "$EW" -r "$tmp"
printf 'this is not a capture file, just text\n' >"$tmp/text.pcap"
expect "not a capture -> 3" 3 "not a pcap or pcapng capture" -- "$EW" -r "$tmp/text.pcap"
: >"$tmp/empty.pcap"
expect "empty file -> 3" 3 "not a pcap or pcapng capture" -- "$EW" -r "$tmp/empty.pcap"
expect "bad filter -> 2" 2 "bad filter expression 'tcp port nonsense'" -- "$EW" -r "$CAP" tcp port nonsense
expect "unknown option -> 2" 2 "unknown option '--bogus'" -- "$EW" --bogus -r "$CAP"
expect "unknown short option -> 2" 2 "unknown option '-Y'" -- "$EW" -Y -r "$CAP"
expect "missing value -> 2" 2 "needs a value" -- "$EW" -r
expect "no input -> 2" 2 "no input" -- "$EW"
expect "bad -c -> 2" 2 "bad value 'x' for -c" -- "$EW" -r "$CAP" -c x
expect "bad --max-flows -> 2" 2 "bad value '0' for --max-flows" -- "$EW" -r "$CAP" --max-flows 0
expect "bad --hot-flows -> 2" 2 "bad value '0' for --hot-flows" -- "$EW" -r "$CAP" --hot-flows 0
expect "help -> 0" 0 "" -- "$EW" --help
expect "version -> 0" 0 "" -- "$EW" -V
grep -q "^ecnwatch [0-9]" "$tmp/out" && ok "version printed" || bad "version printed"

# an unsupported link type: a pcap header with link type 147 (USER0) and one record
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x93\x00\x00\x00' >"$tmp/user0.pcap"
printf '\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x04\x00\x00\x00abcd' >>"$tmp/user0.pcap"
expect "unsupported link type -> 3" 3 "link type 147 \\(.*\\) is not supported" -- "$EW" -r "$tmp/user0.pcap"

# the summary and the JSON report
expect "summary -> 0" 0 "" -- "$EW" -r "$CAP"
grep -q "2198 frames, 2198 IP packets, 1 flow" "$tmp/out" && ok "summary counts" || bad "summary counts: $(head -1 "$tmp/out")"
"$EW" -r "$CAP" --json --hash-seed 1 >"$tmp/a.json" 2>/dev/null
"$EW" -r "$CAP" --json --hash-seed 999 >"$tmp/b.json" 2>/dev/null
jq -e '.schema == "ecnwatch.report/1" and .totals.frames == 2198 and (.flows | length) == 1' "$tmp/a.json" >/dev/null &&
    ok "json report parses" || bad "json report parses"
cmp -s "$tmp/a.json" "$tmp/b.json" && ok "deterministic whatever the hash seed" || bad "deterministic whatever the hash seed"
"$EW" -r "$CAP" --json >"$tmp/c.json" 2>/dev/null
cmp -s "$tmp/a.json" "$tmp/c.json" && ok "deterministic with a random seed" || bad "deterministic with a random seed"

# the contract's fields are all there
jq -e '.source.kind == "file" and .source.linktype == "EN10MB" and .source.truncated == false and
       (.totals | has("frames") and has("undecodable") and has("ecn") and has("flows") and has("flows_evicted")) and
       (.flows[0] | has("id") and has("proto") and has("family") and has("client") and has("server") and
        has("first_frame") and has("last_frame") and has("c2s") and has("s2c") and has("negotiation") and
        has("verdict") and has("vantage") and has("misuse") and has("evidence")) and
       (.flows[0].c2s | has("packets") and has("bytes") and has("ecn") and has("tcp_flags") and
        has("sender_codepoint") and has("feedback") and has("ect1"))' "$tmp/a.json" >/dev/null &&
    ok "contract fields present" || bad "contract fields present"
jq -e '.flows[0].client.addr == "10.200.1.2" and .flows[0].server.port == 5001 and
       .flows[0].negotiation == "rfc3168" and .flows[0].c2s.ecn.ce == 24' "$tmp/a.json" >/dev/null &&
    ok "client from the SYN, negotiation, CE count" || bad "client from the SYN, negotiation, CE count"
jq -e '[.flows[0].c2s.by_kind[] | .not_ect + .ect0 + .ect1 + .ce] | add == 1407' "$tmp/a.json" >/dev/null &&
    ok "segment kinds add up to the packets" || bad "segment kinds add up to the packets"

# standard input, gzip through a pipe
gzip -c "$CAP" >"$tmp/c.pcap.gz"
zcat "$tmp/c.pcap.gz" | "$EW" -r - --json --hash-seed 1 >"$tmp/stdin.json" 2>/dev/null
jq -e '.source.name == "-" and .totals.frames == 2198' "$tmp/stdin.json" >/dev/null &&
    ok "-r - reads standard input" || bad "-r - reads standard input"

# pcapng input gives the same counts
if command -v editcap >/dev/null; then
    editcap -F pcapng "$CAP6" "$tmp/x.pcapng" 2>/dev/null
    a=$("$EW" -r "$CAP6" --json | jq -c '.totals.ecn')
    b=$("$EW" -r "$tmp/x.pcapng" --json | jq -c '.totals.ecn')
    [ -n "$a" ] && [ "$a" = "$b" ] && ok "pcapng reads like pcap" || bad "pcapng reads like pcap ($a vs $b)"
fi

# -c and a filter
"$EW" -r "$CAP" -c 10 --json | jq -e '.totals.frames == 10 and .source.packet_limit == 10' >/dev/null &&
    ok "-c stops after N" || bad "-c stops after N"
"$EW" -r "$CAP" --json src host 10.200.2.2 | jq -e '.totals.frames == 791 and .source.filter == "src host 10.200.2.2"' >/dev/null &&
    ok "filter words" || bad "filter words"

# a filter keeps the file's frame numbers (as Wireshark numbers them)
"$EW" -r "$CAP" --json 'tcp[tcpflags] & tcp-syn == 0' | jq -e '.totals.frames == 2196 and .flows[0].first_frame == 3 and .flows[0].last_frame == 2198' >/dev/null &&
    ok "a filter keeps the file's frame numbers" || bad "a filter keeps the file's frame numbers"

# -o: atomic, complete, no temporaries left; a failed write leaves nothing
"$EW" -r "$CAP" -q -o "$tmp/report.json"
jq -e '.totals.frames == 2198' "$tmp/report.json" >/dev/null && ok "-o writes the report" || bad "-o writes the report"
ls "$tmp" | grep -q 'tmp\.' && bad "-o leaves no temporary file" || ok "-o leaves no temporary file"
echo '{"old": true}' >"$tmp/keep.json"
expect "-o into a missing folder -> 4" 4 "cannot create a temporary file" -- "$EW" -r "$CAP" -q -o "$tmp/nodir/r.json"
mkdir "$tmp/ro" && chmod 0555 "$tmp/ro"
if [ "$(id -u)" != 0 ]; then
    expect "-o into a read-only folder -> 4" 4 "cannot" -- "$EW" -r "$CAP" -q -o "$tmp/ro/r.json"
fi
# a full disk: /dev/full as the folder's file cannot be renamed over, so write to stdout instead
if [ -w /dev/full ]; then
    "$EW" -r "$CAP" --json >/dev/full 2>"$tmp/err"
    [ $? = 4 ] && ok "report to a full device -> 4" || bad "report to a full device -> 4"
fi

# a capture cut mid-record: still a report, truncated, a warning
head -c 100000 "$CAP" >"$tmp/cut.pcap"
"$EW" -r "$tmp/cut.pcap" --json >"$tmp/cut.json" 2>"$tmp/err"
st=$?
[ $st = 0 ] && jq -e '.source.truncated == true and .totals.frames > 100' "$tmp/cut.json" >/dev/null &&
    grep -q "warning: .*capture ends mid-record" "$tmp/err" &&
    ok "cut capture reported as truncated with a warning" || bad "cut capture reported as truncated (exit $st)"

# A file on disk is read and decoded by a thread of its own, a pipe in one
# thread: the same report, byte for byte, whole or cut short, and the same -c
same=0 differ=""
for f in captures/*.pcap "$tmp/cut.pcap"; do
    for mode in "--json" "--ndjson" "--json --timeseries -c 1000" "--json --max-flows 2 --idle-timeout 0.05"; do
        "$EW" -r "$f" $mode 2>"$tmp/t.err" | sed -E 's|"name": ?"[^"]*"|"name":"?"|' >"$tmp/t.out"
        "$EW" -r - $mode <"$f" 2>"$tmp/p.err" | sed -E 's|"name": ?"[^"]*"|"name":"?"|' >"$tmp/p.out"
        sed -i "s|$f|standard input|" "$tmp/t.err"
        if cmp -s "$tmp/t.out" "$tmp/p.out" && cmp -s "$tmp/t.err" "$tmp/p.err" && [ -s "$tmp/t.out" ]; then
            same=$((same + 1))
        else
            differ="$differ $f($mode)"
        fi
    done
done
[ -z "$differ" ] && [ $same -gt 40 ] && ok "file and pipe give the same report ($same runs)" ||
    bad "file and pipe give the same report:$differ"

# With one processor to run on, no second thread is started (neither the
# reader nor the report's helper, which takes over from 256 flows): the
# same report, byte for byte
"$(dirname "$EW")/ecngen" flood "$tmp/syns.pcap" 3000 >/dev/null 2>&1
mergecap -F pcap -w "$tmp/many.pcap" "$tmp/syns.pcap" captures/rfc3168-ce-server.pcap captures/accecn-l4s-client.pcap
same=0 differ=""
for mode in "--json" "--json --timeseries" "-q -o $tmp/one.json"; do
    taskset -c 0 "$EW" -r "$tmp/many.pcap" $mode >"$tmp/one.out" 2>&1
    [ -f "$tmp/one.json" ] && mv "$tmp/one.json" "$tmp/one.out"
    "$EW" -r "$tmp/many.pcap" $mode >"$tmp/two.out" 2>&1
    [ -f "$tmp/one.json" ] && mv "$tmp/one.json" "$tmp/two.out"
    if cmp -s "$tmp/one.out" "$tmp/two.out" && [ "$(jq '.flows | length' "$tmp/two.out")" -gt 3000 ]; then
        same=$((same + 1))
    else
        differ="$differ ($mode)"
    fi
done
[ $same = 3 ] && ok "one processor or two: the same report of 3,000 flows" ||
    bad "one processor or two: the same report:$differ"

# Flows beyond the hot set are kept packed and unpacked when a packet comes:
# with one flow hot (every other flow packed at each switch) or a hundred,
# the same reports, events and summaries as with every flow hot
same=0 differ=""
for f in captures/*.pcap tests/quic-captures/*.pcap "$tmp/many.pcap"; do
    for mode in "--json" "--ndjson" "--json --max-flows 2 --idle-timeout 0.05" "--text-flows 9"; do
        "$EW" -r "$f" $mode >"$tmp/all.out" 2>&1
        for h in 1 100; do
            "$EW" -r "$f" $mode --hot-flows $h >"$tmp/hot.out" 2>&1
            if cmp -s "$tmp/all.out" "$tmp/hot.out" && [ -s "$tmp/all.out" ]; then
                same=$((same + 1))
            else
                differ="$differ $f($mode --hot-flows $h)"
            fi
        done
    done
done
[ -z "$differ" ] && [ $same -gt 200 ] && ok "flows packed or all hot: the same output ($same runs)" ||
    bad "flows packed or all hot: the same output:$differ"

# SIGTERM during a long read from a pipe still writes a complete report
mkfifo "$tmp/fifo"
("$EW" -r "$tmp/fifo" -q -o "$tmp/sig.json" 2>"$tmp/sig.err"; echo $? >"$tmp/sig.rc") &
exec 7>"$tmp/fifo"
cat "$CAP" >&7
sleep 0.5
pkill -TERM -f "$EW -r $tmp/fifo" || true
sleep 0.5
exec 7>&-
wait
jq -e '.source.interrupted == true and .totals.frames == 2198' "$tmp/sig.json" >/dev/null &&
    ok "SIGTERM writes a complete report" || bad "SIGTERM writes a complete report ($(cat "$tmp/sig.rc" 2>/dev/null))"

# --ndjson: every line an object with an event; findings before the flow ends; summary last
"$EW" -r captures/bleach-accecn-client.pcap --ndjson >"$tmp/ev.ndjson" 2>/dev/null
if jq -e -s 'length >= 3 and all(.[]; has("event") and has("time")) and
        (map(.event) | index("finding")) < (map(.event) | index("flow_end")) and
        .[-1].event == "summary" and .[-1].totals.frames == 2746 and
        ([.[] | select(.event == "finding")][0] | .kind == "bleaching" and .flow == 1)' \
        "$tmp/ev.ndjson" >/dev/null && [ "$(jq -c . "$tmp/ev.ndjson" | wc -l)" = "$(wc -l <"$tmp/ev.ndjson")" ]; then
    ok "--ndjson streams findings, flow ends, a summary"
else
    bad "--ndjson streams findings, flow ends, a summary"
fi
expect "--json with --ndjson -> 2" 2 "both write to standard output" -- "$EW" -r "$CAP" --json --ndjson
# flows ended by the idle timeout stream as they end, before the capture's end
# (two scenarios recorded seconds apart, merged: the first flow falls idle)
mergecap -w "$tmp/two.pcap" captures/rfc3168-ce-client.pcap captures/udp-ect-client.pcap
"$EW" -r "$tmp/two.pcap" --ndjson --idle-timeout 1 >"$tmp/idle.ndjson" 2>/dev/null
jq -e -s '(map(select(.event == "flow_end")) | .[0] | .reason == "idle" and .flow.proto == "tcp") and
    (map(select(.event == "flow_end" and .reason == "capture_end")) | length == 3)' "$tmp/idle.ndjson" >/dev/null &&
    ok "--ndjson flow_end on idle timeout" || bad "--ndjson flow_end on idle timeout"

echo "cli: $pass passed, $fail failed"
[ $fail = 0 ]
