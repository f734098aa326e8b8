#!/usr/bin/env bash
# schema.sh BUILD - every report and event line the tests can produce, checked
# against man/ecnwatch-report.schema.json with Python's jsonschema module
# (Debian's python3-jsonschema, through /usr/bin/python3):
#   --json and --ndjson on every capture in captures/ and in BUILD/gen/ (the
#   captures other tests generate, when present), the two-capture mode on each
#   captures/*-client.pcap / *-server.pcap pair, a path of three captures,
#   --timeseries on the real captures and those of the path diagnosis, -o,
#   -r -, a filter with -c, idle and evicted flows, and the
#   malformed captures of `ecngen hostile` that still give a report;
# then that the schema rejects reports and events with a member deleted,
# misspelled or given a value outside its enum, that its enums list the names
# the sources define, and that ecnwatch-report(5) describes every member.
# Prints one line per check and ends with "schema: N passed, N failed".
. "$(dirname "$0")/lib.sh"
GEN=$BUILD/ecngen
SCHEMA=man/ecnwatch-report.schema.json
MAN=man/ecnwatch-report.5
PY=${ECNWATCH_PYTHON:-/usr/bin/python3}
mkdir "$tmp/out" "$tmp/bad" "$tmp/cap"

begin "python3 jsonschema"
if ! "$PY" -c 'import jsonschema' 2>/dev/null; then
    bad "$PY cannot import jsonschema: install python3-jsonschema (scripts/install-deps.sh)"
    finish schema
    exit
fi

# out NAME.json|NAME.ndjson ARGS...: ecnwatch ARGS into $tmp/out/NAME, which
# must exit 0 (else a failure, and no file); what it writes, even nothing, is
# left for the validator, which fails an empty report or event stream
out() {
    local name=$1
    shift
    begin "$name"
    if ! run_ew 0 "$tmp/out/$name" "$tmp/err" "$EW" "$@"; then
        bad "$name: ecnwatch $*: $why"
        rm -f "$tmp/out/$name"
    fi
}
# a file name for a capture path
slug() { echo "$1" | tr '/' '_'; }

# every capture, real and generated: the report and the event stream (not
# the copies of `ecngen hostile` captures some tests keep in BUILD/gen: those
# are made afresh below, and only those that give a report are validated)
gen_files=()
if [ -d "$BUILD/gen" ]; then
    while IFS= read -r f; do gen_files+=("$f"); done < <(find "$BUILD/gen" -type f \( -name '*.pcap' -o -name '*.pcapng' \) \
        ! -name 'hostile-*' | sort)
fi
for f in captures/*.pcap "${gen_files[@]}"; do
    out "$(slug "$f").json" -r "$f" --json
    out "$(slug "$f").ndjson" -r "$f" --ndjson
done
# and with time series, on the real captures and those made for the path diagnosis
for f in captures/*.pcap "$BUILD"/gen/pathdiag/*.pcap; do
    [ -f "$f" ] && out "timeseries-$(slug "$f").json" -r "$f" --timeseries --json
done
echo "schema: ${#gen_files[@]} generated captures in $BUILD/gen"

# tunnels (tungen): the flows' and directions' tunnel members, every type
for t in ipip gre gre-eth erspan vxlan vxlan-gpe geneve gtpu mpls macsec nested; do
    if bounded 60 "$BUILD/tungen" "$t" "$tmp/cap/tunnel-$t.pcap" 2>"$tmp/err"; then
        out "tunnel-$t.json" -r "$tmp/cap/tunnel-$t.pcap" --json
        out "tunnel-$t.ndjson" -r "$tmp/cap/tunnel-$t.pcap" --ndjson
    else
        begin "tungen $t"
        bad "tungen $t: $(head -c 200 "$tmp/err")"
    fi
done

# the same traffic at both ends: the path section
pairs=0
for c in captures/*-client.pcap; do
    s=${c%-client.pcap}-server.pcap
    [ -f "$s" ] || continue
    out "path-$(slug "$c").json" -r "$c" -r "$s" --json
    pairs=$((pairs + 1))
done
out path-three-hops.json -r captures/bleach-rfc3168-client.pcap -r captures/bleach-rfc3168-server.pcap \
    -r captures/bleach-rfc3168-server.pcap --json

# options that change what the report holds
out filter-count.json -r captures/rfc3168-ce-client.pcap -c 100 --json tcp port 5001
out timeseries-interval.json -r captures/udp-ect-client.pcap --timeseries --interval 0.05 --json
out idle.json -r captures/udp-ect-client.pcap --idle-timeout 0.001 --json
out idle.ndjson -r captures/udp-ect-client.pcap --idle-timeout 0.001 --ndjson
out evicted.json -r captures/udp-ect-client.pcap --max-flows 1 --json
out evicted.ndjson -r captures/udp-ect-client.pcap --max-flows 1 --ndjson
out stdin.json -r - --json <captures/accecn-ce-v6-server.pcap
begin "o-file.json"
if ! run_ew 0 "$tmp/o.out" "$tmp/err" "$EW" -r captures/bleach-accecn-client.pcap -q -o "$tmp/out/o-file.json"; then
    bad "-o: $why"
    rm -f "$tmp/out/o-file.json"
elif [ ! -e "$tmp/out/o-file.json" ]; then
    bad "-o: exit 0 and no file written"
fi

# malformed captures that still give a report (hostile.sh checks the others)
hostile=0
begin "ecngen hostile kinds"
kinds=$(bounded "$EW_CMD_TIMEOUT" "$GEN" 2>&1 | sed -n 's/^hostile kinds://p')
if [ -z "$kinds" ]; then
    bad "ecngen lists no hostile kinds: $GEN"
fi
for k in $kinds; do
    begin "hostile-$k.json"
    if ! bounded "$EW_CMD_TIMEOUT" "$GEN" hostile "$k" "$tmp/cap/$k.pcap" 2>"$tmp/err"; then
        bad "ecngen hostile $k: $(head -c 300 "$tmp/err")"
        continue
    fi
    if run_ew 0 "$tmp/out/hostile-$k.json" "$tmp/err" "$EW" -r "$tmp/cap/$k.pcap" --json; then
        hostile=$((hostile + 1))
    else
        rm -f "$tmp/out/hostile-$k.json"
    fi
done
echo "schema: $pairs capture pairs, $hostile malformed captures with a report"

# validate them all in one run: one verdict per file, printed and counted
# validate DIR: the validator over every file in DIR into $tmp/verdicts; fails
# (with $why) unless it gave one verdict per file
validate() {
    local dir=$1 n v
    : >"$tmp/verdicts"
    n=$(find "$dir" -type f | wc -l)
    if [ "$n" = 0 ]; then
        why="nothing to validate"
        return 1
    fi
    bounded 600 "$PY" tests/schema_validate.py "$SCHEMA" "$dir"/* >"$tmp/verdicts" 2>&1
    v=$(grep -cE '^(ok|FAIL) ' "$tmp/verdicts")
    if [ "$v" != "$n" ]; then
        why="$v verdicts for $n files: $(grep -vE '^(ok|FAIL) ' "$tmp/verdicts" | tail -3 | tr '\n' ' ')"
        return 1
    fi
}
begin "validate the reports"
if validate "$tmp/out"; then
    valid=0
    while IFS= read -r line; do
        line=${line//"$tmp/out/"/}
        case $line in
        "ok "*)
            line=${line#ok}
            ok "${line#"${line%%[! ]*}"}"
            valid=$((valid + 1))
            ;;
        FAIL*) bad "${line#FAIL }" ;;
        esac
    done <"$tmp/verdicts"
    echo "schema: $valid reports and event streams valid"
else
    bad "validate the reports: $why"
fi

# the schema must reject what breaks the contract: each mutant fails validation
ref=$tmp/out/$(slug captures/accecn-ce-server.pcap).json
fnd=$tmp/out/$(slug captures/bleach-accecn-client.pcap).json
classic=$tmp/out/$(slug captures/rfc3168-ce-server.pcap).json
udp=$tmp/out/$(slug captures/udp-ect-client.pcap).json
pth=$tmp/out/path-$(slug captures/bleach-rfc3168-client.pcap).json
nd=$tmp/out/$(slug captures/bleach-accecn-client.pcap).ndjson
declare -A why
mutant() { # mutant NAME FILE JQ-PROGRAM [--ndjson]: a broken copy of FILE
    local name=$1 file=$2 prog=$3 ext=json
    [ "${4-}" = --ndjson ] && ext=ndjson
    if [ ! -s "$file" ]; then
        bad "mutant $name: no $file to break"
        return
    fi
    if [ $ext = ndjson ]; then
        jq -c "$prog" "$file" >"$tmp/bad/$name.$ext" 2>"$tmp/err"
    else
        jq "$prog" "$file" >"$tmp/bad/$name.$ext" 2>"$tmp/err"
    fi || { bad "mutant $name: jq: $(head -c 200 "$tmp/err")"; rm -f "$tmp/bad/$name.$ext"; return; }
    if cmp -s <(jq -cS . "$file") <(jq -cS . "$tmp/bad/$name.$ext"); then
        bad "mutant $name: the program changed nothing"
        rm -f "$tmp/bad/$name.$ext"
        return
    fi
    why[$name.$ext]=$prog
}
mutant no-verdict "$ref" 'del(.flows[0].verdict)'
mutant no-schema "$ref" 'del(.schema)'
mutant schema-version-2 "$ref" '.schema = "ecnwatch.report/2"'
mutant no-source-truncated "$ref" 'del(.source.truncated)'
mutant no-totals-findings "$ref" 'del(.totals.findings)'
mutant no-totals-events "$ref" 'del(.totals.events)'
mutant no-client "$ref" 'del(.flows[0].client)'
mutant no-client-port "$ref" 'del(.flows[0].client.port)'
mutant client-addr-not-ip "$ref" '.flows[0].client.addr = "10.200.1"'
mutant no-client-from "$ref" 'del(.flows[0].client_from)'
mutant no-first-time "$ref" 'del(.flows[0].first_time)'
mutant no-handshake "$ref" 'del(.flows[0].handshake)'
mutant no-syn-ecn "$ref" 'del(.flows[0].handshake.syn_ecn)'
mutant no-c2s-packets "$ref" 'del(.flows[0].c2s.packets)'
mutant no-c2s-payload-bytes "$ref" 'del(.flows[0].c2s.payload_bytes)'
mutant no-s2c-ecn-ce "$ref" 'del(.flows[0].s2c.ecn.ce)'
mutant no-tcp-flags-ae "$ref" 'del(.flows[0].c2s.tcp_flags.ae)'
mutant no-by-kind-pure-ack "$ref" 'del(.flows[0].c2s.by_kind.pure_ack)'
mutant misspelled-sender-codepoint "$ref" '.flows[0].c2s.sender_codepiont = .flows[0].c2s.sender_codepoint | del(.flows[0].c2s.sender_codepoint)'
mutant misspelled-ect1-reason "$ref" '.flows[0].s2c.ect1_reasons = .flows[0].s2c.ect1_reason | del(.flows[0].s2c.ect1_reason)'
mutant no-feedback-detail "$ref" 'del(.flows[0].c2s.feedback_detail)'
mutant no-ce-reported "$ref" 'del(.flows[0].c2s.feedback_detail.ce_reported)'
mutant no-option-ce-bytes "$ref" 'del(.flows[0].c2s.feedback_detail.option.ce_bytes)'
mutant no-checked-exactly "$ref" 'del(.flows[0].c2s.feedback_detail.checked_exactly)'
mutant accecn-with-ece-runs "$ref" '.flows[0].c2s.feedback_detail.ece_runs = 0'
mutant mode-not-feedback "$ref" '.flows[0].c2s.feedback_detail.mode = "rfc3168"'
mutant no-ece-runs "$classic" 'del(.flows[0].c2s.feedback_detail.ece_runs)'
mutant no-rtt-srtt "$ref" 'del(.flows[0].c2s.rtt.srtt_ms)'
mutant unseen-without-inferred "$ref" '.flows[0].negotiation = "unseen"'
mutant negotiation-enum "$ref" '.flows[0].negotiation = "accecn2"'
mutant verdict-enum "$ref" '.flows[0].verdict = "clasic"'
mutant vantage-enum "$ref" '.flows[0].vantage = "client"'
mutant feedback-enum "$ref" '.flows[0].c2s.feedback = "ecn"'
mutant ect1-enum "$ref" '.flows[0].c2s.ect1 = "L4S"'
mutant sender-codepoint-enum "$ref" '.flows[0].c2s.sender_codepoint = "ect2"'
mutant no-verdict-reason "$ref" 'del(.flows[0].verdict_reason)'
mutant no-vantage-reason "$ref" 'del(.flows[0].vantage_reason)'
mutant no-evidence "$ref" 'del(.flows[0].evidence)'
mutant evidence-no-note "$ref" 'del(.flows[0].evidence[0].note)'
mutant no-misuse "$fnd" 'del(.flows[0].misuse)'
mutant misuse-kind-enum "$fnd" '.flows[0].misuse[0].kind = "bleeching"'
mutant misuse-confidence-enum "$fnd" '.flows[0].misuse[0].confidence = "sure"'
mutant misuse-no-ref "$fnd" 'del(.flows[0].misuse[0].ref)'
mutant misuse-no-dir "$fnd" 'del(.flows[0].misuse[0].dir)'
mutant findings-kind-enum "$fnd" '.totals.findings.bleeching = 1'
mutant udp-with-tcp-flags "$udp" '.flows[0].c2s.tcp_flags = {"ece": 0, "cwr": 0, "ae": 0}'
mutant udp-feedback-none "$udp" '.flows[0].c2s.feedback = "none"'
mutant path-no-frames "$pth" 'del(.path.hops[0].changes[0].frames)'
mutant path-no-only-upstream "$pth" 'del(.path.hops[0].only_upstream)'
mutant path-misuse-enum "$pth" '.path.hops[0].changes[0].misuse = "bleeched"'
tun=$tmp/out/tunnel-nested.json
mutant tunnel-no-layers "$tun" 'del(.flows[0].tunnel.layers)'
mutant tunnel-layer-type-enum "$tun" '.flows[0].tunnel.layers[0].type = "vxlan4"'
mutant tunnel-layer-src-alone "$tun" 'del(.flows[0].tunnel.layers[0].outer_family)'
mutant tunnel-dir-no-outer-ce "$tun" 'del(.flows[0].c2s.tunnel.outer_to_inner.ce)'
mutant tunnel-dir-no-differ "$tun" 'del(.flows[0].s2c.tunnel.differ)'
mutant tunnel-misuse-enum "$tun" '.flows[0].misuse[0].kind = "tunnel_ecn_not_propagate"'
mutant totals-no-tunnelled-flows "$tun" 'del(.totals.tunnelled_flows)'
mutant path-from-outer-enum "$pth" '.path.hops[0].changes[0].from_outer = "ect2"'
mutant no-bottlenecks "$ref" 'del(.bottlenecks)'
mutant dir-path-aqm-enum "$ref" '.flows[0].c2s.path.aqm = "codel"'
mutant dir-path-no-marking "$ref" 'del(.flows[0].c2s.path.marking)'
ts=$tmp/out/timeseries-$(slug captures/accecn-ce-server.pcap).json
mutant timeseries-no-columns "$ts" 'del(.flows[0].timeseries.columns)'
mutant timeseries-short-bin "$ts" '.flows[0].timeseries.c2s.bins[0] |= .[0:6]'
bn=$tmp/out/$(slug "$BUILD/gen/pathdiag/pair-dualq.pcap").json
if [ -s "$bn" ]; then
    mutant bottleneck-looks-like-enum "$bn" '.bottlenecks[0].looks_like = "dual_queue"'
    mutant bottleneck-no-l4s-flows "$bn" 'del(.bottlenecks[0].l4s.flows)'
fi
qc=$tmp/out/$(slug "$BUILD/gen/quic/bleached.pcap").json
if [ -s "$qc" ]; then
    mutant quic-verdict-enum "$qc" '.flows[0].quic.verdict = "failed"'
    mutant quic-no-validation "$qc" 'del(.flows[0].quic.c2s.validation)'
    mutant quic-failure-without-failed "$qc" '.flows[0].quic.c2s.validation = "validated"'
    mutant quic-on-tcp "$ref" '.flows[0].quic = {}'
fi
mutant ndjson-finding-no-kind "$nd" 'if .event == "finding" then del(.kind) else . end' --ndjson
mutant ndjson-flow-end-reason "$nd" 'if .event == "flow_end" then .reason = "timeout" else . end' --ndjson
mutant ndjson-flow-end-no-verdict "$nd" 'if .event == "flow_end" then del(.flow.verdict) else . end' --ndjson
mutant ndjson-summary-no-frames "$nd" 'if .event == "summary" then del(.totals.frames) else . end' --ndjson
mutant ndjson-event-enum "$nd" 'if .event == "summary" then .event = "end" else . end' --ndjson
begin "validate the mutants"
if validate "$tmp/bad"; then :; elif [ -n "$(ls "$tmp/bad")" ]; then
    bad "validate the mutants: $why"
fi
for f in "$tmp"/bad/*; do
    [ -e "$f" ] || continue
    n=${f##*/}
    line=$(grep -F " $f" "$tmp/verdicts" | head -1)
    case $line in
    FAIL*) ok "rejects ${n%.*} (${why[$n]}): ${line#*: }" ;;
    ok*) bad "accepts ${n%.*}: ${why[$n]}" ;;
    *) bad "${n%.*}: no verdict from the validator: $(tail -3 "$tmp/verdicts")" ;;
    esac
done

# the schema's enums name exactly what the sources define, and the binary
# under test holds every name (it was built from these sources)
tr '\0' '\n' <"$EW" >"$tmp/ew.strings" 2>/dev/null
# names SYMBOL: the strings of the C array SYMBOL, one per line, sorted; an
# array made from a list (X(ID, "name", "text") rows of a macro: misuse.h,
# infer.h, dissectors/pkt.h) is read from the list's rows
names() {
    local list=
    case $1 in
        ew_misuse_name) list=EW_MISUSE_KINDS ;;
        ew_event_name) list=EW_EVENTS ;;
        ew_aqm_name) list=EW_AQM_VERDICTS ;;
        ew_link_name) list=EW_LINK_TYPES ;;
    esac
    if [ -n "$list" ]; then
        awk -v m="$list" '$0 ~ "^#define " m "\\(X\\)" { on = 1; next } on && /^ *X\(/ { print }
                          on && !/\\$/ { exit }' src/*/*.h dissectors/*.h |
            sed -n 's/^ *X([A-Z0-9_]*, *"\([^"]*\)".*/\1/p' | sort -u
        return
    fi
    awk -v sym="$1" '$0 ~ "const char \\*const " sym "\\[" { on = 1 } on { print } on && /};/ { exit }' \
        src/*/*.c dissectors/*.c | grep -o '"[a-z0-9_]*"' | tr -d '"' | sort -u
}
enum_check() { # enum_check SYMBOL JQ-PATH-IN-SCHEMA [NAME-THE-REPORT-WRITES-AS-NULL]
    local src sch missing
    begin "enum $1"
    src=$(names "$1" | grep -vx -- "${3:-}")
    sch=$(jq -r "$2 | .[]" "$SCHEMA" 2>/dev/null | sort -u)
    missing=$(echo "$src" | while IFS= read -r n; do grep -qF -- "$n" "$tmp/ew.strings" || echo "$n"; done)
    if [ -z "$src" ]; then
        bad "enum $1: not found in src/ or dissectors/"
    elif [ -n "$missing" ]; then
        bad "enum $1: $EW does not hold: $(echo "$missing" | tr '\n' ' ')"
    elif [ "$src" = "$sch" ]; then
        ok "enum $1: $(echo "$src" | wc -l) names, as in the schema and the binary"
    else
        bad "enum $1: sources and schema differ: $(diff <(echo "$src") <(echo "$sch") | grep '^[<>]' | tr '\n' ' ')"
    fi
}
enum_check ew_misuse_name '.["$defs"].misuse_kind.enum'
enum_check ew_event_name '.["$defs"].event_name.enum'
enum_check ew_verdict_name '.["$defs"].verdict.enum'
enum_check ew_fb_name '.["$defs"].feedback.enum'
enum_check ew_ect1_name '.["$defs"].ect1.enum'
enum_check ew_vantage_name '.["$defs"].vantage.enum'
enum_check ew_neg_name '.["$defs"].negotiation.enum'
enum_check ew_confidence_name '.["$defs"].confidence.enum'
enum_check ew_seg_kind_name '.["$defs"].direction.properties.by_kind.required'
enum_check ew_aqm_name '.["$defs"].dir_path.properties.aqm.enum'
enum_check ew_quic_verdict_name '.["$defs"].quic.properties.verdict.enum'
enum_check ew_quic_ptype_name '.["$defs"].quic.properties.packets.required'
enum_check ew_quic_dir_result_name '.["$defs"].quic_dir.properties.validation.enum'
enum_check ew_quic_fail_name '.["$defs"].quic_dir.properties.failure.anyOf[0].enum' none

# ecnwatch-report(5) describes every member the schema names, for the
# schema version the reports carry
begin "ecnwatch-report(5)"
sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' "$MAN" >"$tmp/man.txt"
missing=""
for m in $(jq -r '[.. | objects | .properties? // empty | keys[]] | unique | .[]' "$SCHEMA"); do
    grep -qw -- "$m" "$tmp/man.txt" || missing="$missing $m"
done
if ! json_ok "$ref"; then
    bad "ecnwatch-report(5): no report's schema version to look for: ${ref##*/}: $why"
elif ! version=$(jq_get "$ref" '.schema' -r); then
    bad "ecnwatch-report(5): ${ref##*/} has no schema version"
elif ! grep -qF "\"$version\"" "$tmp/man.txt"; then
    bad "ecnwatch-report(5) does not describe the schema version the reports carry, $version"
elif [ -z "$missing" ]; then
    ok "ecnwatch-report(5) names every member of the schema, version $version"
else
    bad "ecnwatch-report(5) does not name:$missing"
fi

finish schema
