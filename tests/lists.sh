#!/usr/bin/env bash
# lists.sh BUILD - the misuse kinds, path (AQM) verdicts, link types,
# decoding events, tunnels and probe types come from one list each in the code (X(ID,
# name, text) rows: src/findings/misuse.h, src/infer/infer.h, dissectors/pkt.h,
# src/probe/probe.h), which
# `ecnwatch --list` prints. The schema's enums, the report's manual page, the
# command's manual page and the shell completion must name exactly those, in
# the same order where they list them, so that a row added in the code and
# forgotten in the documents fails here. Ends "lists: N passed, N failed".
. "$(dirname "$0")/lib.sh"
SCHEMA=man/ecnwatch-report.schema.json

# names WHAT: the names of --list WHAT, one per line, into $tmp/WHAT
names() {
    run_ew 0 "$tmp/$1.out" "$tmp/err" "$EW" --list "$1" || return 1
    [ -s "$tmp/$1.out" ] || { why="--list $1 printed nothing"; return 1; }
    # every line NUMBER<TAB>NAME<TAB>TEXT, numbered from 0
    if ! awk -F'\t' 'NF != 3 || $1 != NR - 1 || $2 == "" || $3 == "" { bad = 1 } END { exit bad }' \
        "$tmp/$1.out"; then
        why="--list $1: not NUMBER, NAME, TEXT from 0: $(head -2 "$tmp/$1.out" | tr '\t\n' '| ')"
        return 1
    fi
    cut -f2 "$tmp/$1.out" >"$tmp/$1"
}

# same_as WHAT FILE LABEL: the names of WHAT are FILE's lines, in order
same_as() {
    local d
    [ -s "$tmp/$1" ] || { why="no list of $1 to compare with"; return 1; }
    if ! d=$(diff "$tmp/$1" "$2"); then
        why="$3 differs from --list $1: $(echo "$d" | head -4 | tr '\n' ' ')"
        return 1
    fi
}

schema_enum() { # schema_enum JQ-PATH WHAT
    jq -r "$1 | .[] | select(. != null)" "$SCHEMA" >"$tmp/schema.$2" || return 1
    same_as "$2" "$tmp/schema.$2" "the schema's enum $1"
}

in_man() { # in_man PAGE WHAT: every name of WHAT appears in the page
    local n missing=
    [ -s "$tmp/$2" ] || { why="no list of $2 to look for"; return 1; }
    for n in $(cat "$tmp/$2"); do
        grep -q -- "$(echo "$n" | sed 's/_/\\\\\\?_/g')" "$1" || grep -qF -- "$n" "$1" ||
            missing="$missing $n"
    done
    [ -z "$missing" ] || { why="$1 does not name:$missing"; return 1; }
}

for w in kinds aqm links events tunnels probes; do
    check "--list $w: a numbered line per entry" names "$w"
done
check "schema: misuse kinds are the list's" schema_enum '."$defs".misuse_kind.enum' kinds
check "schema: path verdicts are the list's" schema_enum '."$defs".dir_path.properties.aqm.enum' aqm
check "schema: decoding events are the list's" schema_enum '."$defs".event_name.enum' events
check "schema: tunnel types are the list's" schema_enum '."$defs".tunnel_layer.properties.type.enum' tunnels
check "ecnwatch-report(5) names every tunnel" in_man man/ecnwatch-report.5 tunnels
completion_kinds() {
    bash -c '. completion/ecnwatch.bash; printf "%s\n" $_ecnwatch_kinds' | grep -vx any \
        >"$tmp/compl.kinds"
    same_as kinds "$tmp/compl.kinds" "the completion's kinds"
}
check "completion: --fail-on offers the list's kinds" completion_kinds
check "ecnwatch-report(5) names every misuse kind" in_man man/ecnwatch-report.5 kinds
check "ecnwatch-report(5) names every path verdict" in_man man/ecnwatch-report.5 aqm
check "ecnwatch-report(5) names every decoding event" in_man man/ecnwatch-report.5 events
check "ecnwatch(1) names every link type" in_man man/ecnwatch.1 links
check "ecnwatch(1) names every tunnel" in_man man/ecnwatch.1 tunnels
check "schema: probe types are the list's" schema_enum '."$defs".probe_type.enum' probes
check "ecnwatch(1) names every probe type" in_man man/ecnwatch.1 probes
check "ecnwatch-report(5) names every probe type" in_man man/ecnwatch-report.5 probes
finish lists
