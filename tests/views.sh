#!/usr/bin/env bash
# views.sh BUILD - every output tells the same story of a flow: for every
# bundled capture, each flow's verdict, misuse kinds and path verdicts (the
# AQM of each direction, as its bottleneck refines it) in the JSON report,
# the flow table (--csv),
# the NDJSON stream's flow_end events and finding events, the text summary,
# and the Prometheus metrics file (the counts of flows by verdict and by
# misuse kind) all agree. Each comes from the flow's one conclusion
# (src/findings/conclude.c); a renderer that concluded on its own would differ, as
# the metrics did for QUIC flows (tests/quic-captures/ngtcp2-clean-client.pcap:
# "classic" in the report, "unknown" in the metrics).
# Ends "views: N passed, N failed".
. "$(dirname "$0")/lib.sh"

# one capture: the four views, each as lines "ID VERDICT KIND,KIND" sorted,
# or as histograms for the metrics
agree() { # agree CAPTURE
    local cap=$1 a b
    ew_json "$tmp/r.json" -r "$cap" --json || return 1
    jq_true "$tmp/r.json" '.flows | length > 0' || return 1
    jq -r '.flows[] | "\(.id) \(.verdict) \([.misuse[].kind] | unique | join(","))"' \
        "$tmp/r.json" | sort >"$tmp/json.txt"
    run_ew 0 "$tmp/r.ndjson" "$tmp/err" "$EW" -r "$cap" --ndjson || return 1
    json_ok "$tmp/r.ndjson" || return 1
    # flow_end's own verdict and findings, and the finding events seen for it
    jq -rs '(map(select(.event == "finding")) | group_by(.flow) |
              map({key: (.[0].flow | tostring), value: (map(.kind) | unique)}) | from_entries) as $ev |
            .[] | select(.event == "flow_end") | .flow |
            "\(.id) \(.verdict) \([.misuse[].kind] | unique | join(","))" +
            " \(($ev[.id | tostring] // []) | join(","))"' "$tmp/r.ndjson" |
        sort >"$tmp/ndjson4.txt"
    cut -d' ' -f1-3 "$tmp/ndjson4.txt" >"$tmp/ndjson.txt"
    if ! a=$(diff "$tmp/json.txt" "$tmp/ndjson.txt"); then
        why="JSON and NDJSON flow_end differ: $(echo "$a" | head -4 | tr '\n' ' ')"
        return 1
    fi
    # the path verdicts, by flow and direction, refined by the bottleneck
    jq -r '.flows[] | . as $f | ("c2s", "s2c") | select($f[.].path.aqm != null) |
           "\($f.id) \(.) \($f[.].path.aqm)"' "$tmp/r.json" | sort >"$tmp/jpath.txt"
    jq -r 'select(.event == "flow_end") | .flow | . as $f | ("c2s", "s2c") |
           select($f[.].path.aqm != null) | "\($f.id) \(.) \($f[.].path.aqm)"' \
        "$tmp/r.ndjson" | sort >"$tmp/npath.txt"
    if ! a=$(diff "$tmp/jpath.txt" "$tmp/npath.txt"); then
        why="JSON and NDJSON path verdicts differ: $(echo "$a" | head -4 | tr '\n' ' ')"
        return 1
    fi
    # every finding event belongs to a kind the flow ends with
    if ! awk '{ split($3, k, ","); split($4, e, ",");
                for (i in e) { f = 0; for (j in k) if (e[i] == k[j]) f = 1;
                               if (e[i] != "" && !f) { print $1, e[i]; bad = 1 } } }
              END { exit bad }' "$tmp/ndjson4.txt" >"$tmp/extra"; then
        why="finding events of kinds the flow does not end with: $(head -3 "$tmp/extra" | tr '\n' ' ')"
        return 1
    fi
    # the text summary: "#ID ..." then "    verdict V[, captured ...]: ..."
    run_ew 0 "$tmp/r.txt" "$tmp/err" "$EW" -r "$cap" --text-flows 100000 --text-all || return 1
    awk '/^#[0-9]+ / { id = substr($1, 2) }
         /^    verdict / && id != "" { v = $2; sub(/[,:]$/, "", v); print id, v; id = "" }' \
        "$tmp/r.txt" | sort >"$tmp/text.txt"
    cut -d' ' -f1-2 "$tmp/json.txt" >"$tmp/json2.txt"
    if ! a=$(diff "$tmp/json2.txt" "$tmp/text.txt"); then
        why="JSON and the text summary differ: $(echo "$a" | head -4 | tr '\n' ' ')"
        return 1
    fi
    # ... and its "    path DIR: AQM ..." lines: every one the JSON's, and
    # every AQM the JSON names among them (the text leaves out none_seen, and
    # directions that carried no data, which the table already shows)
    awk '/^#[0-9]+ / { id = substr($1, 2) }
         /^    path (c2s|s2c): / && id != "" { d = $2; sub(/:$/, "", d); a = $3; sub(/[,:]$/, "", a);
                                             print id, d, a }' "$tmp/r.txt" | sort >"$tmp/tpath.txt"
    if a=$(comm -23 "$tmp/tpath.txt" "$tmp/jpath.txt") && [ -n "$a" ]; then
        why="path verdicts in the text that the JSON does not give: $(echo "$a" | head -4 | tr '\n' ' ')"
        return 1
    fi
    if a=$(grep -Ev ' (none_seen|unknown)$' "$tmp/jpath.txt" | comm -23 - "$tmp/tpath.txt") &&
        [ -n "$a" ]; then
        why="path verdicts of the JSON that the text does not give: $(echo "$a" | head -4 | tr '\n' ' ')"
        return 1
    fi
    # the flow table (--csv): verdict, confidence, kinds and path verdicts
    run_ew 0 "$tmp/out" "$tmp/err" "$EW" -r "$cap" -q --csv "$tmp/r.csv" || return 1
    [ "$(head -1 "$tmp/r.csv" | cut -d, -f1,9,10)" = "id,verdict,verdict_confidence" ] ||
        { why="the CSV's header is not the flow table's"; return 1; }
    awk -F, 'NR > 1 { print $1, $9, $28 }' "$tmp/r.csv" | tr ';' ',' | sed 's/ $//' | sort >"$tmp/csv.txt"
    sed 's/ $//' "$tmp/json.txt" >"$tmp/json3.txt"
    if ! a=$(diff "$tmp/json3.txt" "$tmp/csv.txt"); then
        why="JSON and the CSV differ: $(echo "$a" | head -4 | tr '\n' ' ')"
        return 1
    fi
    jq -r '.flows[] | "\(.id) \(.verdict_confidence // "")"' "$tmp/r.json" | sort >"$tmp/jconf.txt"
    awk -F, 'NR > 1 { print $1, $10 }' "$tmp/r.csv" | sort >"$tmp/cconf.txt"
    if ! a=$(diff "$tmp/jconf.txt" "$tmp/cconf.txt"); then
        why="JSON and the CSV's confidence differ: $(echo "$a" | head -4 | tr '\n' ' ')"
        return 1
    fi
    awk -F, 'NR > 1 { if ($19 != "") print $1, "c2s", $19; if ($27 != "") print $1, "s2c", $27 }' \
        "$tmp/r.csv" | sort >"$tmp/cpath.txt"
    if ! a=$(diff "$tmp/jpath.txt" "$tmp/cpath.txt"); then
        why="JSON and the CSV's path verdicts differ: $(echo "$a" | head -4 | tr '\n' ' ')"
        return 1
    fi
    # the metrics file: flows by verdict and by misuse kind
    run_ew 0 "$tmp/out" "$tmp/err" "$EW" -r "$cap" -q --metrics-file "$tmp/m.prom" || return 1
    [ -s "$tmp/m.prom" ] || { why="no metrics file"; return 1; }
    a=$(awk -F'"' '/^ecnwatch_flows\{verdict=/ { split($3, n, " "); if (n[2] > 0) print $2, n[2] }' \
        "$tmp/m.prom" | sort)
    b=$(jq -r '.flows | group_by(.verdict)[] | "\(.[0].verdict) \(length)"' "$tmp/r.json" | sort)
    if [ "$a" != "$b" ]; then
        why="metrics by verdict '$(echo $a)', report '$(echo $b)'"
        return 1
    fi
    a=$(awk -F'"' '/^ecnwatch_misuse_flows\{kind=/ { split($3, n, " "); if (n[2] > 0) print $2, n[2] }' \
        "$tmp/m.prom" | sort)
    b=$(jq -r '[.flows[] | .misuse | map(.kind) | unique[]] | group_by(.)[] | "\(.[0]) \(length)"' \
        "$tmp/r.json" | sort)
    if [ "$a" != "$b" ]; then
        why="metrics by misuse kind '$(echo $a)', report '$(echo $b)'"
        return 1
    fi
    return 0
}

# and captures whose verdicts can only be "likely": joined mid-flow, beside
# the binary's own generator (tcpgen, tests/tools/)
mid=()
for s in prague classic; do
    if timeout -k 5 60 "$BUILD/tcpgen" $s receiver "$tmp/mid-$s.pcap" --skip 10 >/dev/null 2>&1; then
        mid+=("$tmp/mid-$s.pcap")
    fi
done
for cap in captures/*.pcap tests/quic-captures/*.pcap tests/link-captures/*.pcap "${mid[@]}"; do
    check "$(basename "$cap"): JSON, NDJSON, text and metrics agree" agree "$cap"
done
# the text lists the largest flows first (bytes both ways, the first seen
# first among equals; the JSON's order is the first seen), --text-flows N
# keeps the N largest, a capture without findings says it was checked, no
# line runs past 100 columns, and standard input is called so
text_order() { # text_order CAPTURE
    local cap=$1 a b
    ew_json "$tmp/o.json" -r "$cap" --json || return 1
    run_ew 0 "$tmp/o.txt" "$tmp/err" "$EW" -r "$cap" --text-flows 100000 --text-all || return 1
    a=$(awk '/^#[0-9]+ / { print substr($1, 2) }' "$tmp/o.txt" | tr '\n' ' ')
    b=$(jq -r '[.flows[] | {id, b: (.c2s.bytes + .s2c.bytes)}] | sort_by(-.b, .id) | map(.id) | join(" ")' \
        "$tmp/o.json")
    [ "${a% }" = "$b" ] || { why="text order '${a:0:80}', by size '${b:0:80}'"; return 1; }
    run_ew 0 "$tmp/o1.txt" "$tmp/err" "$EW" -r - --text-flows 1 --text-all <"$cap" || return 1
    a=$(awk '/^#[0-9]+ / { print substr($1, 2) }' "$tmp/o1.txt" | tr -d '\n')
    [ "$a" = "${b%% *}" ] || { why="--text-flows 1 lists '$a', the largest is ${b%% *}"; return 1; }
    grep -q '^standard input (' "$tmp/o1.txt" || { why="-r - not called standard input: $(head -1 "$tmp/o1.txt")"; return 1; }
    # folded to 80 columns off a terminal, its following lines indented
    # (a line of one word, as a long file name, is never cut)
    a=$(awk '{ s = $0; sub(/^ +/, "", s) } length($0) > 80 && index(s, " ") { n++ } END { print n + 0 }' "$tmp/o.txt")
    [ "$a" = 0 ] || { why="$a lines over 80 columns"; return 1; }
    # --sort packets and --sort first
    a=$("$EW" -r "$cap" --text-flows 100000 --text-all --sort packets | awk '/^#[0-9]+ / { print substr($1, 2) }' | tr '\n' ' ')
    b=$(jq -r '[.flows[] | {id, p: (.c2s.packets + .s2c.packets)}] | sort_by(-.p, .id) | map(.id) | join(" ")' "$tmp/o.json")
    [ "${a% }" = "$b" ] || { why="--sort packets '${a:0:60}', want '${b:0:60}'"; return 1; }
    a=$("$EW" -r "$cap" --text-flows 100000 --text-all --sort first | awk '/^#[0-9]+ / { print substr($1, 2) }' | tr '\n' ' ')
    b=$(jq -r '[.flows[].id] | join(" ")' "$tmp/o.json")
    [ "${a% }" = "$b" ] || { why="--sort first '${a:0:60}', want '${b:0:60}'"; return 1; }
    # without --text-all: the small flows without ECN or a finding are one line
    "$EW" -r "$cap" --text-flows 100000 >"$tmp/f.txt" || { why="exit $? without --text-all"; return 1; }
    a=$(awk '/^#[0-9]+ / { print substr($1, 2) }' "$tmp/f.txt" | sort -n | tr '\n' ' ')
    b=$(jq -r '[.flows[] | select((.c2s.packets + .s2c.packets) >= 20 or (.misuse | length) > 0 or
              ([.c2s.ecn, .s2c.ecn][] | .ect0 + .ect1 + .ce) > 0) | .id] | unique | sort | join(" ")' "$tmp/o.json")
    # (all of them small: listed, there being nothing else)
    [ -n "$b" ] || b=$(jq -r '[.flows[].id] | sort | join(" ")' "$tmp/o.json")
    [ "${a% }" = "$b" ] || { why="listed without --text-all '${a:0:60}', want '${b:0:60}'"; return 1; }
    n=$(jq -r '[.flows[].id] | length' "$tmp/o.json")
    k=$(echo $b | wc -w)
    if [ "$n" != "$k" ] && ! grep -q "^$((n - k)) small flows\? without ECN" "$tmp/f.txt"; then
        why="$((n - k)) folded flows, no line that says so"
        return 1
    fi
    a=$(grep -c '^No misuse found in ' "$tmp/o.txt")
    b=$(jq -r '[.flows[].misuse[]] | length' "$tmp/o.json")
    if [ "$b" = 0 ] && [ "$a" != 1 ]; then
        why="no findings, and no line that says so"
        return 1
    elif [ "$b" != 0 ] && [ "$a" != 0 ]; then
        why="$b findings, and a line that says none"
        return 1
    fi
}
for cap in captures/field/prague_dualpi2_wifi.pcap.gz captures/shared-dualq-client.pcap captures/bleach-accecn-client.pcap \
    tests/link-captures/nflog-local-ce.pcap \
    captures/no-ecn-server.pcap tests/quic-captures/*.pcap; do
    check "$(basename "$cap"): the text in size order, 80 columns, small flows folded, says when it is clean" text_order "$cap"
done
# someone else's bytes with the noise of a real host: 24 small flows
# without ECN (mDNS, ICMPv6, ...) beside one Prague flow (L4STeam)
S1=${ECNWATCH_FIELD:-$(dirname "$0")/../../shared/field}/batch-l4s-s1-oneflow-ns-prague-dualpi2-5Mbit-20ms.tcpdump_cli_cli.pcap.xz
if [ -f "$S1" ]; then
    check "$(basename "$S1"): the text in size order, 80 columns, small flows folded" text_order "$S1"
fi
finish views
