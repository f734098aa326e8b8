#!/usr/bin/env bash
# views.sh BUILD - every output tells the same story of a flow: for every
# bundled capture, each flow's verdict and misuse kinds in the JSON report,
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
    # every finding event belongs to a kind the flow ends with
    if ! awk '{ split($3, k, ","); split($4, e, ",");
                for (i in e) { f = 0; for (j in k) if (e[i] == k[j]) f = 1;
                               if (e[i] != "" && !f) { print $1, e[i]; bad = 1 } } }
              END { exit bad }' "$tmp/ndjson4.txt" >"$tmp/extra"; then
        why="finding events of kinds the flow does not end with: $(head -3 "$tmp/extra" | tr '\n' ' ')"
        return 1
    fi
    # the text summary: "#ID ..." then "    verdict V[, captured ...]: ..."
    run_ew 0 "$tmp/r.txt" "$tmp/err" "$EW" -r "$cap" --text-flows 100000 || return 1
    awk '/^#[0-9]+ / { id = substr($1, 2) }
         /^    verdict / && id != "" { v = $2; sub(/[,:]$/, "", v); print id, v; id = "" }' \
        "$tmp/r.txt" | sort >"$tmp/text.txt"
    cut -d' ' -f1-2 "$tmp/json.txt" >"$tmp/json2.txt"
    if ! a=$(diff "$tmp/json2.txt" "$tmp/text.txt"); then
        why="JSON and the text summary differ: $(echo "$a" | head -4 | tr '\n' ' ')"
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

for cap in captures/*.pcap tests/quic-captures/*.pcap; do
    check "$(basename "$cap"): JSON, NDJSON, text and metrics agree" agree "$cap"
done
finish views
