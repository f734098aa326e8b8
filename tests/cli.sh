#!/usr/bin/env bash
# cli.sh BUILD - the command line as a user meets it: exit statuses, one-line
# errors, standard input, -c, -o written atomically, determinism, truncated
# captures. Every run of ECNWATCH is bounded in time and has the exit status
# it must have; a failure's status comes with a one-line error naming the
# problem; a report read is there and parses. A tool the checks rely on
# (ecngen, editcap, mergecap) that fails is a failure, never a pass.
# Prints one line per check and ends with "cli: N passed, N failed".
. "$(dirname "$0")/lib.sh"
CAP=captures/rfc3168-ce-server.pcap
CAP6=captures/accecn-ce-v6-client.pcap

# expect NAME STATUS STDERR-PATTERN [STDOUT-PATTERN] -- command...
# The command exits STATUS. A non-zero STATUS needs STDERR-PATTERN, matched by
# a standard error of exactly one line; STDOUT-PATTERN, when given, is matched
# by standard output. Output in $tmp/out and $tmp/err.
expect() {
    local name=$1 want=$2 pat=$3 opat=""
    shift 3
    if [ "$1" != -- ]; then
        opat=$1
        shift
    fi
    shift
    begin "$name"
    why=""
    if ! run_ew "$want" "$tmp/out" "$tmp/err" "$@"; then
        bad "$name: $why"
    elif [ "$want" != 0 ] && [ -z "$pat" ]; then
        bad "$name: exit $want is expected without the error it must print"
    elif [ -n "$pat" ] && ! grep -qE -- "$pat" "$tmp/err"; then
        bad "$name: stderr '$(head -c 200 "$tmp/err")' lacks /$pat/"
    elif [ -n "$pat" ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
        bad "$name: error is not one line: $(head -c 400 "$tmp/err")"
    elif [ -n "$opat" ] && ! grep -qE -- "$opat" "$tmp/out"; then
        bad "$name: standard output '$(head -c 200 "$tmp/out" | tr '\n' ' ')' lacks /$opat/"
    else
        ok "$name"
    fi
}

# report NAME OUT EXPR ARGS...: "$EW" ARGS exits 0 with a JSON object in OUT
# (its stderr in OUT.err), over which EXPR is true
report() {
    local name=$1 out=$2 expr=$3
    shift 3
    begin "$name"
    why=""
    if ew_json "$out" "$@" && jq_true "$out" "$expr"; then ok "$name"; else bad "$name: $why"; fi
}

# pre NAME CMD...: a step the checks after it need, not itself a check of
# ecnwatch: counted only when it fails
pre() {
    local name=$1
    shift
    begin "$name"
    if ! bounded "$EW_CMD_TIMEOUT" "$@" >"$tmp/pre.out" 2>&1; then
        bad "$name: $* failed: $(head -c 300 "$tmp/pre.out" | tr '\n' ' ')"
        return 1
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
expect "bad --decap type -> 2" 2 "bad value 'vxlanx:8472' for --decap: TYPE:PORT" -- \
    "$EW" -r "$CAP" --decap vxlanx:8472
expect "bad --decap port -> 2" 2 "bad value 'vxlan:0' for --decap" -- "$EW" -r "$CAP" --decap vxlan:0
expect "--decap without a port -> 2" 2 "bad value 'geneve' for --decap" -- "$EW" -r "$CAP" --decap geneve
expect "--decap and --no-decap -> 2" 2 "--no-decap leaves closed; pick one" -- \
    "$EW" -r "$CAP" --decap gtpu:2153 --no-decap
expect "help -> 0" 0 "" "^Usage: ecnwatch " -- "$EW" --help
expect "version -> 0" 0 "" "^ecnwatch [0-9]" -- "$EW" -V
check "version printed" grep -q "^ecnwatch [0-9]" "$tmp/out"

# an unsupported link type: a pcap header with link type 147 (USER0) and one record
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x93\x00\x00\x00' >"$tmp/user0.pcap"
printf '\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x04\x00\x00\x00abcd' >>"$tmp/user0.pcap"
expect "unsupported link type -> 3" 3 "link type 147 \\(.*\\) is not supported" -- "$EW" -r "$tmp/user0.pcap"

# the summary and the JSON report
expect "summary -> 0" 0 "" "[0-9]+ frames" -- "$EW" -r "$CAP"
begin "summary counts"
if grep -q "2198 frames, 2198 IP packets, 1 flow" "$tmp/out"; then ok "summary counts"; else bad "summary counts: '$(head -1 "$tmp/out")'"; fi
report "json report parses" "$tmp/a.json" \
    '.schema == "ecnwatch.report/1" and .totals.frames == 2198 and (.flows | length) == 1' \
    -r "$CAP" --json --hash-seed 1
same_report() { # same_report A B: two reports, both there, equal byte for byte
    jq_true "$1" '.schema == "ecnwatch.report/1" and .totals.frames == 2198' || return 1
    jq_true "$2" '.schema == "ecnwatch.report/1" and .totals.frames == 2198' || return 1
    cmp -s "$1" "$2" || { why="$(cmp "$1" "$2" 2>&1 | head -1)"; return 1; }
}
seed_999() { ew_json "$tmp/b.json" -r "$CAP" --json --hash-seed 999 && same_report "$tmp/a.json" "$tmp/b.json"; }
check "deterministic whatever the hash seed" seed_999
# no tunnel in the capture: the same report without decapsulation, or with another port
no_decap() { ew_json "$tmp/b.json" -r "$CAP" --json --hash-seed 1 --no-decap && same_report "$tmp/a.json" "$tmp/b.json"; }
check "--no-decap: the same report of a capture without tunnels" no_decap
more_decap() { ew_json "$tmp/b.json" -r "$CAP" --json --hash-seed 1 --decap vxlan:8472 --decap geneve:6082 && same_report "$tmp/a.json" "$tmp/b.json"; }
check "--decap: the same report of a capture without tunnels" more_decap
seed_random() { ew_json "$tmp/c.json" -r "$CAP" --json && same_report "$tmp/a.json" "$tmp/c.json"; }
check "deterministic with a random seed" seed_random

# the contract's fields are all there
check "contract fields present" jq_true "$tmp/a.json" '.source.kind == "file" and .source.linktype == "EN10MB" and .source.truncated == false and
       (.totals | has("frames") and has("undecodable") and has("ecn") and has("flows") and has("flows_evicted")) and
       (.flows[0] | has("id") and has("proto") and has("family") and has("client") and has("server") and
        has("first_frame") and has("last_frame") and has("c2s") and has("s2c") and has("negotiation") and
        has("verdict") and has("vantage") and has("misuse") and has("evidence")) and
       (.flows[0].c2s | has("packets") and has("bytes") and has("ecn") and has("tcp_flags") and
        has("sender_codepoint") and has("feedback") and has("ect1"))'
check "client from the SYN, negotiation, CE count" jq_true "$tmp/a.json" \
    '.flows[0].client.addr == "10.200.1.2" and .flows[0].server.port == 5001 and
       .flows[0].negotiation == "rfc3168" and .flows[0].c2s.ecn.ce == 24'
check "segment kinds add up to the packets" jq_true "$tmp/a.json" \
    '[.flows[0].c2s.by_kind[] | .not_ect + .ect0 + .ect1 + .ce] | add == 1407'

# standard input, gzip through a pipe
stdin_report() {
    bounded "$EW_CMD_TIMEOUT" gzip -c "$CAP" >"$tmp/c.pcap.gz" || { why="gzip failed"; return 1; }
    run_ew 0 "$tmp/stdin.json" "$tmp/stdin.err" "$EW" -r - --json --hash-seed 1 < <(zcat "$tmp/c.pcap.gz") || return 1
    jq_true "$tmp/stdin.json" '.source.name == "-" and .totals.frames == 2198'
}
check "-r - reads standard input" stdin_report

# pcapng input gives the same counts
same_as_pcapng() {
    local a b
    if ! command -v editcap >/dev/null; then
        why="editcap (wireshark-common) is not installed"
        return 1
    fi
    bounded "$EW_CMD_TIMEOUT" editcap -F pcapng "$CAP6" "$tmp/x.pcapng" >/dev/null 2>&1 || { why="editcap failed"; return 1; }
    ew_json "$tmp/p1.json" -r "$CAP6" --json || return 1
    ew_json "$tmp/p2.json" -r "$tmp/x.pcapng" --json || return 1
    a=$(jq_get "$tmp/p1.json" '.totals.ecn' -c) || { why="no .totals.ecn in the pcap's report"; return 1; }
    b=$(jq_get "$tmp/p2.json" '.totals.ecn' -c) || { why="no .totals.ecn in the pcapng's report"; return 1; }
    jq_true "$tmp/p2.json" '.source.linktype == "EN10MB" and .totals.frames > 0' || return 1
    [ "$a" = "$b" ] || { why="$a vs $b"; return 1; }
}
check "pcapng reads like pcap" same_as_pcapng

# a pcapng of a capture spanning several of the reader's 256 KiB chunks:
# blocks read in place and blocks cut by a chunk's end (copied) give the
# pcap's flows and totals exactly
same_flows_as_pcapng() {
    local big=captures/shared-dualq-client.pcap
    bounded "$EW_CMD_TIMEOUT" editcap -F pcapng "$big" "$tmp/big.pcapng" >/dev/null 2>&1 || { why="editcap failed"; return 1; }
    ew_json "$tmp/b1.json" -r "$big" --json || return 1
    ew_json "$tmp/b2.json" -r "$tmp/big.pcapng" --json || return 1
    jq_true "$tmp/b1.json" '(.flows | length) > 0 and .totals.frames > 5000' || return 1
    jq -S '{flows, totals}' "$tmp/b1.json" >"$tmp/b1.cmp" && jq -S '{flows, totals}' "$tmp/b2.json" >"$tmp/b2.cmp" ||
        { why="jq failed"; return 1; }
    cmp -s "$tmp/b1.cmp" "$tmp/b2.cmp" || { why="flows or totals differ: $(diff "$tmp/b1.cmp" "$tmp/b2.cmp" | head -c 300 | tr '\n' ' ')"; return 1; }
}
check "a pcapng across the reader's chunks reads like its pcap" same_flows_as_pcapng

# -c and a filter
report "-c stops after N" "$tmp/c10.json" '.totals.frames == 10 and .source.packet_limit == 10' \
    -r "$CAP" -c 10 --json
report "filter words" "$tmp/filter.json" '.totals.frames == 791 and .source.filter == "src host 10.200.2.2"' \
    -r "$CAP" --json src host 10.200.2.2

# a filter keeps the file's frame numbers (as Wireshark numbers them)
report "a filter keeps the file's frame numbers" "$tmp/nosyn.json" \
    '.totals.frames == 2196 and .flows[0].first_frame == 3 and .flows[0].last_frame == 2198' \
    -r "$CAP" --json 'tcp[tcpflags] & tcp-syn == 0'

# -o: atomic, complete, no temporaries left; a failed write leaves nothing
o_report() {
    run_ew 0 "$tmp/o.out" "$tmp/o.err" "$EW" -r "$CAP" -q -o "$tmp/report.json" &&
        jq_true "$tmp/report.json" '.schema == "ecnwatch.report/1" and .totals.frames == 2198'
}
check "-o writes the report" o_report
# -o writes the bytes --json prints (the golden files keep the -o report),
# beside the text summary: every bundled capture, with options, two captures
# of a path, and a file that cannot be read (no report at all, exit 3)
json_is_o() {
    local args rc1 rc2 want same=0 differ=""
    for args in captures/*.pcap tests/quic-captures/*.pcap "captures/shared-dualq-server.pcap --timeseries -c 400" \
        "captures/accecn-l4s-client.pcap --max-flows 2 --idle-timeout 0.05 tcp" \
        "captures/bleach-rfc3168-client.pcap -r captures/bleach-rfc3168-server.pcap" "$tmp/none.pcap"; do
        want=0
        [ "$args" = "$tmp/none.pcap" ] && want=3
        rm -f "$tmp/jo.json"
        # shellcheck disable=SC2086
        bounded "$EW_CMD_TIMEOUT" "$EW" -r $args --json >"$tmp/jo.stdout" 2>/dev/null
        rc1=$?
        # shellcheck disable=SC2086
        bounded "$EW_CMD_TIMEOUT" "$EW" -r $args -o "$tmp/jo.json" >"$tmp/jo.txt" 2>/dev/null
        rc2=$?
        [ -f "$tmp/jo.json" ] || : >"$tmp/jo.json"
        if [ "$rc1" = "$want" ] && [ "$rc2" = "$want" ] && cmp -s "$tmp/jo.stdout" "$tmp/jo.json" &&
            { [ "$want" != 0 ] || { json_ok "$tmp/jo.json" && [ -s "$tmp/jo.txt" ]; }; }; then
            same=$((same + 1))
        else
            differ="$differ ${args##*/} (exit $rc1 and $rc2)"
        fi
    done
    [ -z "$differ" ] && [ $same -gt 30 ] || { why="$same alike;${differ:0:600}"; return 1; }
    [ ! -s "$tmp/jo.stdout" ] || { why="a report of an unreadable file"; return 1; }
}
check "-o beside the summary writes what --json prints" json_is_o
no_temporary() {
    [ -s "$tmp/report.json" ] || { why="no report written"; return 1; }
    if ls "$tmp" | grep -q 'tmp\.'; then
        why="left: $(ls "$tmp" | grep 'tmp\.' | tr '\n' ' ')"
        return 1
    fi
}
check "-o leaves no temporary file" no_temporary
echo '{"old": true}' >"$tmp/keep.json"
expect "-o into a missing folder -> 4" 4 "nodir/r.json: cannot write the report" -- "$EW" -r "$CAP" -q -o "$tmp/nodir/r.json"
mkdir "$tmp/ro" && chmod 0555 "$tmp/ro"
if [ "$(id -u)" != 0 ]; then
    expect "-o into a read-only folder -> 4" 4 "cannot" -- "$EW" -r "$CAP" -q -o "$tmp/ro/r.json"
fi
# a full disk: /dev/full as the folder's file cannot be renamed over, so write to stdout instead
if [ -w /dev/full ]; then
    full_device() {
        run_ew 4 /dev/full "$tmp/full.err" "$EW" -r "$CAP" --json || return 1
        grep -q "cannot write the report to standard output" "$tmp/full.err" &&
            [ "$(wc -l <"$tmp/full.err")" = 1 ] ||
            { why="stderr '$(head -c 200 "$tmp/full.err")' is not one line naming the failed write"; return 1; }
    }
    check "report to a full device -> 4" full_device
    full_other() { # full_other WHAT OPTION...: one line naming WHAT and the reason
        local what=$1
        shift
        run_ew 4 /dev/full "$tmp/full.err" "$EW" -r "$CAP" "$@" || return 1
        grep -q "cannot write the $what to standard output: No space left on device" "$tmp/full.err" &&
            [ "$(wc -l <"$tmp/full.err")" = 1 ] ||
            { why="stderr '$(head -c 200 "$tmp/full.err")' is not one line naming the failed write"; return 1; }
    }
    check "text summary to a full device -> 4, one line" full_other summary
    check "event stream to a full device -> 4, one line" full_other "event stream" --ndjson
fi

# a capture cut mid-record: still a report, truncated, a warning
cut_capture() {
    head -c 100000 "$CAP" >"$tmp/cut.pcap" && [ "$(wc -c <"$tmp/cut.pcap")" = 100000 ] ||
        { why="cannot cut $CAP"; return 1; }
    ew_json "$tmp/cut.json" -r "$tmp/cut.pcap" --json || return 1
    jq_true "$tmp/cut.json" '.source.truncated == true and .totals.frames > 100' || return 1
    grep -q "warning: .*capture ends mid-record" "$tmp/cut.json.err" ||
        { why="no warning on stderr: '$(head -c 200 "$tmp/cut.json.err")'"; return 1; }
}
check "cut capture reported as truncated with a warning" cut_capture

# A file on disk is read and decoded by a thread of its own, a pipe in one
# thread: the same report, byte for byte, whole or cut short, and the same -c
file_and_pipe() {
    local f mode same=0 differ=""
    for f in captures/*.pcap "$tmp/cut.pcap"; do
        for mode in "--json" "--ndjson" "--json --timeseries -c 1000" "--json --max-flows 2 --idle-timeout 0.05"; do
            why=""
            if run_ew 0 "$tmp/t.raw" "$tmp/t.err" "$EW" -r "$f" $mode &&
                run_ew 0 "$tmp/p.raw" "$tmp/p.err" "$EW" -r - $mode <"$f" &&
                json_ok "$tmp/t.raw" && json_ok "$tmp/p.raw"; then
                sed -E 's|"name": ?"[^"]*"|"name":"?"|' "$tmp/t.raw" >"$tmp/t.out"
                sed -E 's|"name": ?"[^"]*"|"name":"?"|' "$tmp/p.raw" >"$tmp/p.out"
                sed -i "s|$f|standard input|" "$tmp/t.err"
                if cmp -s "$tmp/t.out" "$tmp/p.out" && cmp -s "$tmp/t.err" "$tmp/p.err"; then
                    same=$((same + 1))
                    continue
                fi
                why="they differ"
            fi
            differ="$differ $f($mode: $why)"
        done
    done
    [ -z "$differ" ] && [ $same -gt 40 ] || { why="$same runs alike;${differ:0:600}"; return 1; }
    echo "cli: file and pipe alike in $same runs"
}
check "file and pipe give the same report" file_and_pipe

# With one processor to run on, no second thread is started (neither the
# reader nor the report's helper, which takes over from 256 flows): the
# same report, byte for byte
pre "ecngen flood (3,000 SYNs)" "$(dirname "$EW")/ecngen" flood "$tmp/syns.pcap" 3000 &&
    pre "mergecap of three captures" mergecap -F pcap -w "$tmp/many.pcap" "$tmp/syns.pcap" \
        captures/rfc3168-ce-server.pcap captures/accecn-l4s-client.pcap
one_or_two() {
    local mode same=0 differ="" n
    for mode in "--json" "--json --timeseries" "-q -o $tmp/one.json"; do
        why=""
        rm -f "$tmp/one.json"
        if run_ew 0 "$tmp/one.out" "$tmp/one.err" taskset -c 0 "$EW" -r "$tmp/many.pcap" $mode; then
            [ -f "$tmp/one.json" ] && mv "$tmp/one.json" "$tmp/one.out"
            if run_ew 0 "$tmp/two.out" "$tmp/two.err" "$EW" -r "$tmp/many.pcap" $mode; then
                [ -f "$tmp/one.json" ] && mv "$tmp/one.json" "$tmp/two.out"
                if n=$(jq_get "$tmp/two.out" '.flows | length') && [ "$n" -gt 3000 ] &&
                    cmp -s "$tmp/one.out" "$tmp/two.out" && cmp -s "$tmp/one.err" "$tmp/two.err"; then
                    same=$((same + 1))
                    continue
                fi
                [ -z "$why" ] && why="$n flows, or the outputs differ"
            fi
        fi
        differ="$differ ($mode: $why)"
    done
    [ $same = 3 ] || { why="${differ:0:600}"; return 1; }
}
check "one processor or two: the same report of 3,000 flows" one_or_two

# ECNWATCH_REPORT_THREADS=1 (ecnwatch(1)): the report's flows written by one
# thread while the file is still read by two; the same report
report_one_thread() {
    local n
    run_ew 0 "$tmp/rt1.out" "$tmp/rt1.err" env ECNWATCH_REPORT_THREADS=1 "$EW" -r "$tmp/many.pcap" --json &&
        run_ew 0 "$tmp/rt2.out" "$tmp/rt2.err" "$EW" -r "$tmp/many.pcap" --json || return 1
    n=$(jq_get "$tmp/rt1.out" '.flows | length') && [ "$n" -gt 3000 ] ||
        { why="$n flows"; return 1; }
    cmp -s "$tmp/rt1.out" "$tmp/rt2.out" || { why="the reports differ"; return 1; }
}
check "ECNWATCH_REPORT_THREADS=1: the same report of 3,000 flows" report_one_thread

# Flows beyond the hot set are kept packed and unpacked when a packet comes:
# with one flow hot (every other flow packed at each switch) or a hundred,
# the same reports, events and summaries as with every flow hot
packed_or_hot() {
    local f mode h same=0 differ=""
    for f in captures/*.pcap tests/quic-captures/*.pcap "$tmp/many.pcap"; do
        for mode in "--json" "--ndjson" "--json --max-flows 2 --idle-timeout 0.05" "--text-flows 9"; do
            why=""
            if ! run_ew 0 "$tmp/all.out" "$tmp/all.err" "$EW" -r "$f" $mode || [ ! -s "$tmp/all.out" ]; then
                differ="$differ $f($mode: ${why:-no output})"
                continue
            fi
            if [ "$mode" != "--text-flows 9" ] && ! json_ok "$tmp/all.out"; then
                differ="$differ $f($mode: $why)"
                continue
            fi
            for h in 1 100; do
                why=""
                if run_ew 0 "$tmp/hot.out" "$tmp/hot.err" "$EW" -r "$f" $mode --hot-flows $h &&
                    cmp -s "$tmp/all.out" "$tmp/hot.out" && cmp -s "$tmp/all.err" "$tmp/hot.err"; then
                    same=$((same + 1))
                else
                    differ="$differ $f($mode --hot-flows $h${why:+: $why})"
                fi
            done
        done
    done
    [ -z "$differ" ] && [ $same -gt 200 ] || { why="$same runs alike;${differ:0:600}"; return 1; }
    echo "cli: packed or all hot alike in $same runs"
}
check "flows packed or all hot: the same output" packed_or_hot

# SIGTERM during a long read from a pipe still writes a complete report
sigterm_report() {
    local sub pid t=0
    mkfifo "$tmp/fifo" || { why="mkfifo failed"; return 1; }
    (
        "$EW" -r "$tmp/fifo" -q -o "$tmp/sig.json" 2>"$tmp/sig.err" &
        echo $! >"$tmp/sig.pid"
        wait $!
        echo $? >"$tmp/sig.rc"
    ) &
    sub=$!
    while [ ! -s "$tmp/sig.pid" ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
    pid=$(cat "$tmp/sig.pid" 2>/dev/null)
    # opened for reading and writing, so that the open does not wait for a reader
    exec 7<>"$tmp/fifo"
    bounded 10 cat "$CAP" >&7
    sleep 0.5
    [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null
    sleep 0.5
    exec 7>&-
    if ! wait_bounded 30 "$sub" ${pid:+"$pid"}; then
        why="ecnwatch $why after SIGTERM"
        return 1
    fi
    [ "$(cat "$tmp/sig.rc" 2>/dev/null)" = 0 ] ||
        { why="exit $(cat "$tmp/sig.rc" 2>/dev/null), want 0 ($(head -c 200 "$tmp/sig.err"))"; return 1; }
    grep -q "interrupted" "$tmp/sig.err" ||
        { why="stderr '$(head -c 200 "$tmp/sig.err")' does not say it was interrupted"; return 1; }
    jq_true "$tmp/sig.json" '.source.interrupted == true and .totals.frames == 2198'
}
check "SIGTERM writes a complete report" sigterm_report

# --ndjson: every line an object with an event; findings before the flow ends; summary last
ndjson_stream() {
    ew_json "$tmp/ev.ndjson" -r captures/bleach-accecn-client.pcap --ndjson || return 1
    jq_true "$tmp/ev.ndjson" 'length >= 3 and all(.[]; has("event") and has("time")) and
        (map(.event) | index("finding")) < (map(.event) | index("flow_end")) and
        .[-1].event == "summary" and .[-1].totals.frames == 2746 and
        ([.[] | select(.event == "finding")][0] | .kind == "bleaching" and .flow == 1)' -s || return 1
    [ "$(jq -c . "$tmp/ev.ndjson" | wc -l)" = "$(wc -l <"$tmp/ev.ndjson")" ] ||
        { why="not one JSON object per line"; return 1; }
}
check "--ndjson streams findings, flow ends, a summary" ndjson_stream
expect "--json with --ndjson -> 2" 2 "both write to standard output" -- "$EW" -r "$CAP" --json --ndjson
# flows ended by the idle timeout stream as they end, before the capture's end
# (two scenarios recorded seconds apart, merged: the first flow falls idle)
if pre "mergecap of two scenarios" mergecap -w "$tmp/two.pcap" captures/rfc3168-ce-client.pcap captures/udp-ect-client.pcap; then
    idle_end() {
        ew_json "$tmp/idle.ndjson" -r "$tmp/two.pcap" --ndjson --idle-timeout 1 || return 1
        jq_true "$tmp/idle.ndjson" '(map(select(.event == "flow_end")) | .[0] | .reason == "idle" and .flow.proto == "tcp") and
            (map(select(.event == "flow_end" and .reason == "capture_end")) | length == 3)' -s
    }
    check "--ndjson flow_end on idle timeout" idle_end
fi

# mergecap of captures of two link types writes one pcapng interface per link
# type (pcapng §4.2): every frame is read, each flow as in its own capture
GEN_EW=$(dirname "$EW")/ecngen
if pre "ecngen relink raw" "$GEN_EW" relink raw captures/udp-ect-client.pcap "$tmp/raw.pcap" &&
    pre "mergecap of Ethernet and raw IP" mergecap -w "$tmp/mixed.pcapng" captures/rfc3168-ce-client.pcap "$tmp/raw.pcap"; then
    mixed() {
        local want got
        ew_json "$tmp/mix-a.json" -r captures/rfc3168-ce-client.pcap --json || return 1
        ew_json "$tmp/mix-b.json" -r "$tmp/raw.pcap" --json || return 1
        ew_json "$tmp/m.json" -r "$tmp/mixed.pcapng" --json || return 1
        want=$(jq -sc '[.[].flows[] | [.proto, .client.port, .server.port, .c2s.ecn, .s2c.ecn, .verdict]] | sort' "$tmp/mix-a.json" "$tmp/mix-b.json")
        got=$(jq -c '[.flows[] | [.proto, .client.port, .server.port, .c2s.ecn, .s2c.ecn, .verdict]] | sort' "$tmp/m.json")
        [ -n "$want" ] && [ "$want" = "$got" ] || { why="flows differ: merged $got, apart $want"; return 1; }
        jq_true "$tmp/m.json" '.totals.frames == 3033 and .totals.undecodable == 0 and .source.truncated == false'
    }
    check "mergecap of two link types: every frame read, each flow as apart" mixed
fi

# --- tcpdump's habits (tcpdump(8)): -n, -D, -w, -F, compressed captures
# -n is accepted and changes nothing: ecnwatch never resolves names
n_same() { ew_json "$tmp/n.json" -r "$CAP" --json --hash-seed 1 -n && same_report "$tmp/a.json" "$tmp/n.json"; }
check "-n is accepted and changes nothing" n_same
# -D lists as tcpdump -D does: "1.NAME ..." lines, the loopback among them
expect "-D lists the interfaces -> 0" 0 "" "^1\.[^ ]+" -- "$EW" -D
check "-D names the loopback as tcpdump does" grep -qE '^[0-9]+\.lo .*Loopback' "$tmp/out"
# -c is in frames in --help as in the man page
expect "--help: -c counts frames, as ecnwatch(1) says" 0 "" "-c N +stop after N frames" -- "$EW" --help

# gzip and xz captures read directly, recognised by their first bytes, also
# on standard input: the plain file's report, byte for byte (the same name:
# each copy is read from a folder of its own)
mkdir -p "$tmp/plain" "$tmp/gz" "$tmp/xz" "$tmp/named"
cp "$CAP" "$tmp/plain/c.pcap"
EWA=$(readlink -f "$EW")
compressed_same() { # compressed_same DIR: DIR/c.pcap (compressed) reads as the plain one
    (cd "$tmp/plain" && run_ew 0 "$tmp/plain.json" "$tmp/plain.err" "$EWA" -r c.pcap --json --hash-seed 1) ||
        { why="the plain file: exit status or time"; return 1; }
    (cd "$1" && run_ew 0 "$tmp/z.json" "$tmp/z.err" "$EWA" -r c.pcap --json --hash-seed 1) ||
        { why="the compressed file: exit $(head -c 200 "$tmp/z.err")"; return 1; }
    same_report "$tmp/plain.json" "$tmp/z.json" || return 1
    [ ! -s "$tmp/z.err" ] || { why="stderr: $(head -c 200 "$tmp/z.err")"; return 1; }
}
if pre "gzip -c" sh -c "gzip -c '$CAP' >'$tmp/gz/c.pcap'" && pre "xz -c" sh -c "xz -c '$CAP' >'$tmp/xz/c.pcap'"; then
    check "a gzip capture (named .pcap) gives the plain file's report" compressed_same "$tmp/gz"
    check "an xz capture (named .pcap) gives the plain file's report" compressed_same "$tmp/xz"
    cp "$tmp/gz/c.pcap" "$tmp/named/c.pcap.gz"
    cp "$tmp/xz/c.pcap" "$tmp/named/c.pcap.xz"
    report "a .pcap.gz file reads" "$tmp/gzn.json" '.source.name | endswith("c.pcap.gz")' -r "$tmp/named/c.pcap.gz" --json
    report "a .pcap.xz file reads" "$tmp/xzn.json" '.totals.frames == 2198 and .source.truncated == false' -r "$tmp/named/c.pcap.xz" --json
    stdin_xz() {
        run_ew 0 "$tmp/sx.json" "$tmp/sx.err" "$EW" -r - --json --hash-seed 1 <"$tmp/xz/c.pcap" || return 1
        sed 's|"name":"-"|"name":"c.pcap"|; s|"name": "-"|"name": "c.pcap"|' "$tmp/sx.json" >"$tmp/sx2.json"
        same_report "$tmp/plain.json" "$tmp/sx2.json"
    }
    check "-r - reads an xz stream from standard input" stdin_xz
    stdin_gz() {
        run_ew 0 "$tmp/sg.json" "$tmp/sg.err" "$EW" -r - --json --hash-seed 1 <"$tmp/gz/c.pcap" || return 1
        jq_true "$tmp/sg.json" '.source.name == "-" and .totals.frames == 2198 and .source.truncated == false'
    }
    check "-r - reads a gzip stream from standard input" stdin_gz
    # a corrupt stream: its check value (the gzip trailer's CRC-32) broken, so
    # that every frame decompresses and the failure comes at the end, as a
    # cut capture's does: exit 0, truncated, one warning line naming the file
    python3 - "$tmp/gz/c.pcap" "$tmp/crc.pcap.gz" "$tmp/hdr.pcap.gz" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
c = bytearray(d); c[-8] ^= 0xff
open(sys.argv[2], 'wb').write(c)
h = bytearray(d); h[3] = 0xe0   # reserved FLG bits (RFC 1952 2.3.1): not a gzip stream zlib reads
open(sys.argv[3], 'wb').write(h)
PY
    expect "a gzip stream with a bad check value: exit 0, one warning line" 0 \
        "warning: .*crc.pcap.gz: .*gzip: corrupt data \(incorrect data check\)" -- "$EW" -r "$tmp/crc.pcap.gz" --json
    check "... and the report says truncated" jq_true "$tmp/out" '.source.truncated == true and .totals.frames == 2198'
    expect "a gzip stream corrupt before the capture header -> 3, one line" 3 \
        "hdr.pcap.gz: gzip: corrupt data" -- "$EW" -r "$tmp/hdr.pcap.gz"
    head -c $(($(wc -c <"$tmp/xz/c.pcap") / 2)) "$tmp/xz/c.pcap" >"$tmp/cut.pcap.xz"
    expect "an xz stream cut short: exit 0 as a cut capture, one warning line" 0 \
        "warning: .*cut.pcap.xz: capture ends mid-record .*xz: the compressed stream ends early" -- "$EW" -r "$tmp/cut.pcap.xz" -q
    head -c 40 "$tmp/gz/c.pcap" >"$tmp/cut40.gz"
    expect "a gzip stream cut inside the capture header -> 3, one line" 3 \
        "cut40.gz: gzip: the compressed stream ends early" -- "$EW" -r "$tmp/cut40.gz"
    printf '\x1f\x00 not gzip at all' >"$tmp/notgz.pcap"
    expect "a file that starts like gzip and is not -> 3, one line" 3 "notgz.pcap: gzip: " -- "$EW" -r "$tmp/notgz.pcap"
fi

# -w: the frames read (after the filter, up to -c) as a pcap file, re-read
# by ecnwatch and by tshark: the same frames
w_same() {
    run_ew 0 "$tmp/w.out" "$tmp/w.err" "$EW" -r "$CAP" -q -w "$tmp/w.pcap" || return 1
    ew_json "$tmp/w.json" -r "$tmp/w.pcap" --json || return 1
    jq_true "$tmp/w.json" '.totals.frames == 2198 and .source.linktype == "EN10MB"' || return 1
    command -v tshark >/dev/null || { why="tshark is not installed"; return 1; }
    n=$(bounded 60 tshark -r "$tmp/w.pcap" -T fields -e frame.number 2>/dev/null | wc -l)
    [ "$n" = 2198 ] || { why="tshark reads $n frames of the -w file"; return 1; }
}
check "-w writes every frame read: ecnwatch and tshark read 2198" w_same
w_filtered() {
    run_ew 0 "$tmp/wf.out" "$tmp/wf.err" "$EW" -r "$tmp/named/c.pcap.gz" -q -c 500 -w "$tmp/wf.pcap" src host 10.200.2.2 || return 1
    ew_json "$tmp/wf.json" -r "$tmp/wf.pcap" --json || return 1
    jq_true "$tmp/wf.json" '.totals.frames == 500 and .totals.ecn == ([.flows[0].s2c.ecn] | .[0])' || return 1
    n=$(bounded 60 tshark -r "$tmp/wf.pcap" -T fields -e frame.number 2>/dev/null | wc -l)
    [ "$n" = 500 ] || { why="tshark reads $n frames"; return 1; }
}
check "-w keeps what the filter and -c let through (of a .gz)" w_filtered
w_stdout() {
    bounded "$EW_CMD_TIMEOUT" "$EW" -r "$CAP" -q -c 42 -w - 2>"$tmp/ws.err" >"$tmp/ws.pcap" || { why="exit $?"; return 1; }
    ew_json "$tmp/ws.json" -r - --json <"$tmp/ws.pcap" && jq_true "$tmp/ws.json" '.totals.frames == 42'
}
check "-w - writes the packets to standard output" w_stdout
expect "-w - with the summary on standard output -> 2" 2 "-w - writes the packets to standard output" -- "$EW" -r "$CAP" -w -
expect "-w into a missing folder -> 4, before reading" 4 "nodir/w.pcap: cannot write the packets" -- "$EW" -r "$CAP" -q -w "$tmp/nodir/w.pcap"
expect "-w with two captures -> 2" 2 "-w writes the packets of one capture" -- "$EW" -r "$CAP" -r "$CAP" -q -w "$tmp/w2.pcap"
w_replaced() { # an old file is replaced whole, no temporary file left
    echo old >"$tmp/wr.pcap"
    run_ew 0 "$tmp/wr.out" "$tmp/wr.err" "$EW" -r "$CAP" -q -c 10 -w "$tmp/wr.pcap" || return 1
    ew_json "$tmp/wr.json" -r "$tmp/wr.pcap" --json && jq_true "$tmp/wr.json" '.totals.frames == 10' || return 1
    if ls -a "$tmp" | grep -q '^\.ecnwatch'; then why="left: $(ls -a "$tmp" | grep '^\.ecnwatch')"; return 1; fi
}
check "-w replaces a file whole and leaves no temporary file" w_replaced

# -F: the filter from a file, as tcpdump reads it ('#' comments, lines)
printf '# the server'"'"'s packets\nsrc host\n   10.200.2.2   # its address\n' >"$tmp/filter.txt"
f_same() {
    ew_json "$tmp/fi.json" -r "$CAP" --json --hash-seed 1 src host 10.200.2.2 || return 1
    ew_json "$tmp/ff.json" -r "$CAP" --json --hash-seed 1 -F "$tmp/filter.txt" || return 1
    jq_true "$tmp/ff.json" '.totals.frames == 791 and .source.filter == "src host 10.200.2.2"' || return 1
    cmp -s "$tmp/fi.json" "$tmp/ff.json" || { why="$(cmp "$tmp/fi.json" "$tmp/ff.json" 2>&1)"; return 1; }
}
check "-F FILE gives the report of the same filter inline" f_same
expect "-F with a filter on the command line too -> 2" 2 "-F .*filter.txt gives the filter expression" -- "$EW" -r "$CAP" -F "$tmp/filter.txt" tcp
expect "-F of a missing file -> 2, one line" 2 "-F .*nofilter.txt: No such file or directory" -- "$EW" -r "$CAP" -F "$tmp/nofilter.txt"
printf 'tcp port nonsense\n' >"$tmp/badfilter.txt"
expect "-F of a bad expression -> 2" 2 "bad filter expression 'tcp port nonsense'" -- "$EW" -r "$CAP" -F "$tmp/badfilter.txt"

# --fail-on: a typo suggests the nearest kind (edit distance); a word near
# none gets the list's pointer instead
expect "--fail-on typo suggests the kind" 2 "unknown misuse kind 'bleching'; did you mean 'bleaching'\?" -- "$EW" -r "$CAP" --fail-on bleching
expect "--fail-on typo in the second kind" 2 "'ce_unmarkd'; did you mean 'ce_unmarked'\?" -- "$EW" -r "$CAP" --fail-on remarking,ce_unmarkd
expect "--fail-on far from any kind: no guess" 2 "unknown misuse kind 'xyzzy' \(see ecnwatch\(1\)" -- "$EW" -r "$CAP" --fail-on xyzzy
expect "--fail-on names the kinds found" 1 "--fail-on matched: bleaching \(1 flow\)" -- "$EW" -r captures/bleach-accecn-client.pcap -q --fail-on bleaching

# --metrics: ":PORT" and "localhost:PORT" are addresses (refused here only
# because -r serves no metrics), a bad port still is not
expect "--metrics :9109 is an address" 2 "--metrics serves a live capture" -- "$EW" -r "$CAP" --metrics :9109
expect "--metrics localhost:9109 is an address" 2 "--metrics serves a live capture" -- "$EW" -r "$CAP" --metrics localhost:9109
expect "--metrics :0 -> bad port" 2 "bad value ':0' for --metrics: want a port" -- "$EW" -r "$CAP" --metrics :0
# a capture whose file name is not UTF-8 (a file name is bytes): the report
# still names it, each stray byte as U+FFFD, and still meets its schema
# (source.name is required)
not_utf8_name() {
    local f
    f=$(printf '%s/caf\xe9.pcap' "$tmp")
    cp "$CAP" "$f"
    run_ew 0 "$tmp/nu.json" "$tmp/nu.err" "$EW" -r "$f" --json || return 1
    json_ok "$tmp/nu.json" || return 1
    jq -e --arg want "$tmp/caf"$'\xef\xbf\xbd'".pcap" '.source.name == $want' "$tmp/nu.json" >/dev/null ||
        { why="source.name $(jq -c .source.name "$tmp/nu.json")"; return 1; }
    bounded 60 python3 tests/schema_validate.py man/ecnwatch-report.schema.json "$tmp/nu.json" >"$tmp/nu.val" 2>&1 ||
        { why="schema: $(head -c 200 "$tmp/nu.val")"; return 1; }
}
check "a capture name that is not UTF-8: named with U+FFFD, the report meets its schema" not_utf8_name

# --probe: bad arguments end before anything is sent (no root is needed to
# see that); --probe-report: a probe's report set beside captures
# (captures/probe: tests/probe.sh's bleach case, Linux routers' own quotes)
PB=captures/probe/bleach-at-r2
expect "--probe with -r -> 2" 2 "--probe sends probes and reads their answers" -- "$EW" --probe 192.0.2.1 -r "$CAP"
expect "--probe with a filter -> 2" 2 "--probe takes no filter expression \('tcp'\)" -- "$EW" --probe 192.0.2.1 tcp
expect "--probe port 0 -> 2" 2 "'0' is not a port from 1 to 65535" -- "$EW" --probe 192.0.2.1:0
expect "--probe [v6 without ] -> 2" 2 "no '\]' after the IPv6 address" -- "$EW" --probe '[2001:db8::1:80'
expect "--probe-rate 0 -> 2" 2 "bad value '0' for --probe-rate" -- "$EW" --probe 192.0.2.1 --probe-rate 0
expect "--probe-max-ttl 65 -> 2" 2 "bad value '65' for --probe-max-ttl" -- "$EW" --probe 192.0.2.1 --probe-max-ttl 65
expect "--probe-types with an unknown type -> 2" 2 "unknown probe type 'tcp_ect2'" -- "$EW" --probe 192.0.2.1 --probe-types tcp_ect0,tcp_ect2
expect "--probe a host that does not resolve -> 2" 2 "--probe no-such-host.invalid: " -- "$EW" --probe no-such-host.invalid:80
expect "--probe-report without -r -> 2" 2 "--probe-report sets a probe's report beside captures" -- "$EW" --probe-report "$PB-probe.json"
expect "--probe-report missing -> 3" 3 "--probe-report $tmp/none.json: No such file" -- "$EW" -r "$CAP" --probe-report "$tmp/none.json"
expect "--probe-report a capture -> 3" 3 "--probe-report $CAP: not JSON" -- "$EW" -r "$CAP" --probe-report "$CAP"
printf '{"schema": "ecnwatch.report/1"}' >"$tmp/notprobe.json"
expect "--probe-report a capture's report -> 3" 3 "not a probe report \(its schema is not ecnwatch.probe/1\)" -- "$EW" -r "$CAP" --probe-report "$tmp/notprobe.json"
jq '.findings[0].kind = "bleeching"' "$PB-probe.json" >"$tmp/badkind.json"
expect "--probe-report with an unknown kind -> 3" 3 "finding 1: unknown kind 'bleeching'" -- "$EW" -r "$CAP" --probe-report "$tmp/badkind.json"
jq '.findings[1].ttl = "2"' "$PB-probe.json" >"$tmp/badttl.json"
expect "--probe-report with a string for a number -> 3" 3 "finding 2: a member is missing or of another type" -- "$EW" -r "$CAP" --probe-report "$tmp/badttl.json"
head -c 3000 "$PB-probe.json" >"$tmp/cut.json"
expect "--probe-report cut short -> 3" 3 "not JSON \(line" -- "$EW" -r "$CAP" --probe-report "$tmp/cut.json"
{ printf '{"schema": "ecnwatch.probe/1", "pad": "'; head -c 4200000 /dev/zero | tr '\0' a; printf '"}'; } >"$tmp/big.json"
expect "--probe-report past 4 MiB -> 3" 3 "larger than a probe report can be" -- "$EW" -r "$CAP" --probe-report "$tmp/big.json"
probe_report() {
    ew_json "$tmp/pr.json" -r "$PB-before.pcap" -r "$PB-after.pcap" --probe-report "$PB-probe.json" --json &&
        jq_true "$tmp/pr.json" '.probe.file == "'"$PB-probe.json"'" and .probe.addr == "10.213.4.2" and
            (.probe.findings | length) == 6 and
            all(.probe.findings[]; .kind == "bleaching" and .ttl == 2 and .addr == "10.213.2.2" and
                .last_as_sent == {ttl: 1, addr: "10.213.1.2"} and .captures_show_it) and
            ([.path.hops[0].changes[] | select(.to == "not_ect" and .misuse == "bleaching")] | length) > 0' &&
        bounded 60 python3 tests/schema_validate.py man/ecnwatch-report.schema.json "$tmp/pr.json" >"$tmp/pr.val" 2>&1 ||
        { why="${why:-schema: $(head -c 200 "$tmp/pr.val")}"; return 1; }
}
check "--probe-report beside two captures: the probe's hop, shown by the captures too; the schema holds" probe_report
probe_report_alone() {
    ew_json "$tmp/pa.json" -r "$CAP" --probe-report "$PB-probe.json" --json &&
        jq_true "$tmp/pa.json" '(.probe.findings | length) == 6 and all(.probe.findings[]; .captures_show_it == false)'
}
check "--probe-report beside a capture of other traffic: the captures do not show it" probe_report_alone
expect "--probe-report: --fail-on bleaching matches the probe's findings" 1 "--fail-on matched: bleaching \(6 in the probe's report\)" -- \
    "$EW" -r "$CAP" -q --probe-report "$PB-probe.json" --fail-on bleaching
expect "--probe-report: --fail-on ecn_blackhole does not match" 0 "" "PROBE REPORT \(" -- \
    "$EW" -r "$CAP" --probe-report "$PB-probe.json" --fail-on ecn_blackhole
expect "--probe-report: the summary's PROBE REPORT block" 0 "" "bleaching \(tcp_ect0\) at hop 2 \(10.213.2.2\), after hop 1" -- \
    "$EW" -r "$PB-before.pcap" -r "$PB-after.pcap" --probe-report "$PB-probe.json"

finish cli
