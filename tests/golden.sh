#!/usr/bin/env bash
# golden.sh BUILD [--update] - the outputs of every capture, compared byte for
# byte with the files kept in tests/golden/: the text summary (NAME.txt, with
# the exit status and standard error at its end), the JSON report
# (NAME.json) and the NDJSON stream (NAME.ndjson), for every capture in
# captures/ and tests/quic-captures/ and the generated ones listed in
# tests/golden/cases. A difference fails with a diff; --update (make golden)
# writes the files anew, so that a deliberate change of output is reviewed in
# the commit that makes it. One check per capture, its three outputs; ends
# "golden: N passed, N failed".
. "$(dirname "$0")/lib.sh"
UPDATE=${2:-}
EW=$(realpath "$BUILD/ecnwatch")
G=tests/golden
GEN=$BUILD/gen/golden
rm -rf "$GEN"
mkdir -p "$GEN"
GEN=$(realpath "$GEN")

# outputs DIR CAPTURE NAME OPTIONS... - the three outputs of one capture into
# $tmp/NAME.*, ecnwatch run in DIR on CAPTURE (a path relative to DIR): one
# run prints the text summary and writes the JSON report with -o (the same
# bytes as --json prints: tests/cli.sh), one prints the NDJSON stream
# (--ndjson cannot share standard output with the summary)
outputs() {
    local dir=$1 cap=$2 name=$3 rc
    shift 3
    (
        cd "$dir" || exit 1
        rm -f "$tmp/$name.json"
        timeout -k 5 "$EW_CMD_TIMEOUT" "$EW" -r "$cap" -o "$tmp/$name.json" "$@" >"$tmp/$name.txt" 2>"$tmp/$name.err"
        rc=$?
        echo "# exit $rc" >>"$tmp/$name.txt"
        sed 's/^/# stderr: /' "$tmp/$name.err" >>"$tmp/$name.txt"
        # no report written: what --json prints then, nothing
        [ -f "$tmp/$name.json" ] || : >"$tmp/$name.json"
        timeout -k 5 "$EW_CMD_TIMEOUT" "$EW" -r "$cap" --ndjson "$@" >"$tmp/$name.ndjson" 2>/dev/null
        rm -f "$tmp/$name.err"
    )
}

# compare NAME - the three outputs against their golden files (or writes
# them with --update): one check, failed with a diff of each that differs
compare() {
    local name=$1 ext d differ="" shown=""
    if [ "$UPDATE" = --update ]; then
        for ext in txt json ndjson; do cp "$tmp/$name.$ext" "$G/$name.$ext"; done
        return
    fi
    for ext in txt json ndjson; do
        if [ ! -f "$G/$name.$ext" ]; then
            differ="$differ $ext"
            shown+="    $name.$ext: no golden file (make golden writes it)"$'\n'
        elif [ ! -s "$tmp/$name.$ext" ] && [ -s "$G/$name.$ext" ]; then
            differ="$differ $ext"
            shown+="    $name.$ext: no output"$'\n'
        elif ! d=$(diff -u --label "golden/$name.$ext" --label "now" "$G/$name.$ext" "$tmp/$name.$ext"); then
            # an event is one long line: show the events' members one a line
            if [ $ext = ndjson ] && jq . "$G/$name.$ext" >"$tmp/g.pretty" 2>/dev/null &&
                jq . "$tmp/$name.$ext" >"$tmp/n.pretty" 2>/dev/null; then
                d=$(diff -u --label "golden/$name.$ext (one member a line)" --label "now" \
                    "$tmp/g.pretty" "$tmp/n.pretty")
            fi
            differ="$differ $ext"
            shown+=$(echo "$d" | head -40 | sed 's/^/    /')$'\n'
            [ "$(echo "$d" | wc -l)" -gt 40 ] && shown+="    ... ($(echo "$d" | wc -l) lines of diff)"$'\n'
        fi
    done
    if [ -z "$differ" ]; then
        ok "$name"
    else
        bad "$name: differs:$differ"
        printf '%s' "$shown"
    fi
}

# every case: NAME, the folder ecnwatch runs in, the capture, its options, and
# the tool that writes a generated capture ("" for a bundled one)
names=() dirs=() caps=() optss=() tools=()
for cap in captures/*.pcap tests/quic-captures/*.pcap; do
    names+=("$(basename "$cap" .pcap)") dirs+=(.) caps+=("$cap") optss+=("") tools+=("")
done
while read -r name tool rest; do
    case $name in '' | '#'*) continue ;; esac
    args=${rest%% -- *}
    opts=""
    [ "$args" != "$rest" ] && opts=${rest#* -- }
    if [ "$tool" = capture ]; then
        names+=("$name") dirs+=(.) caps+=("$args") optss+=("$opts") tools+=("")
    else
        names+=("$name") dirs+=("$GEN") caps+=("$name.pcap") optss+=("$opts") tools+=("$tool $args")
    fi
done <"$G/cases"

# one_case I - case I's capture written (when generated) and its outputs, in
# the background; a generator's failure is kept in $tmp/NAME.generr
one_case() {
    local i=$1 name=${names[$1]} t=${tools[$1]}
    if [ -n "$t" ]; then
        # shellcheck disable=SC2086
        if ! bounded "$EW_CMD_TIMEOUT" "$BUILD/${t%% *}" ${t#* } >"$tmp/$name.gen" 2>&1; then
            head -c 200 "$tmp/$name.gen" >"$tmp/$name.generr"
            echo >>"$tmp/$name.generr"
            return
        fi
    fi
    # shellcheck disable=SC2086
    outputs "${dirs[$i]}" "${caps[$i]}" "$name" ${optss[$i]}
}

# the cases two at a time (as many as the processors, at most 4), compared in
# their order as each one's outputs are there
JOBS=$(nproc 2>/dev/null || echo 2)
[ "$JOBS" -gt 4 ] && JOBS=4
[ "$JOBS" -lt 1 ] && JOBS=1
for i in "${!names[@]}"; do
    tools[i]=${tools[i]//OUT/$GEN/${names[i]}.pcap}
done
next=0 # the next case to start
started=() # the pid of each case started
for i in "${!names[@]}"; do
    while [ "$next" -lt "${#names[@]}" ] && [ "$next" -lt $((i + JOBS)) ]; do
        one_case "$next" &
        started[next]=$!
        next=$((next + 1))
    done
    name=${names[i]}
    begin "golden $name: ${tools[i]:-${caps[i]}} ${optss[i]}"
    wait "${started[i]}"
    if [ -s "$tmp/$name.generr" ]; then
        bad "$name: ${tools[i]}: $(cat "$tmp/$name.generr")"
        continue
    fi
    compare "$name"
    rm -f "$tmp/$name.txt" "$tmp/$name.json" "$tmp/$name.ndjson" "$tmp/$name.gen"
done

# pictures: a bottleneck's plot and a flow's, byte for byte, so that a change
# of colour, layout or quantity drawn is reviewed (tests/golden/plots/): the
# lab's DualQ pair (captures/shared-dualq-client.pcap) and its single-queue
# pair (captures/shared-single-client.pcap)
mkdir -p "$G/plots"
rm -rf "${tmp:?}"/plot-*
for pic in shared-dualq-client:bottleneck-1 shared-dualq-client:flow-2 \
    shared-single-client:bottleneck-1; do
    cap=${pic%%:*} file=${pic#*:}
    begin "golden plot $cap $file.svg"
    if [ ! -d "$tmp/plot-$cap" ] &&
        ! timeout -k 5 "$EW_CMD_TIMEOUT" "$EW" -r "captures/$cap.pcap" -q --plot "$tmp/plot-$cap" 2>"$tmp/plot.err"; then
        bad "$cap: --plot failed: $(head -c 200 "$tmp/plot.err")"
        continue
    fi
    if [ "$UPDATE" = --update ]; then
        cp "$tmp/plot-$cap/$file.svg" "$G/plots/$cap-$file.svg"
    elif [ ! -f "$G/plots/$cap-$file.svg" ]; then
        bad "$cap-$file.svg: no golden file (make golden writes it)"
    elif ! d=$(diff -u --label "golden/plots/$cap-$file.svg" --label now "$G/plots/$cap-$file.svg" "$tmp/plot-$cap/$file.svg"); then
        bad "$cap-$file.svg differs (make golden after a deliberate change):"$'\n'"$(printf '%s\n' "$d" | head -40)"
    else
        ok "golden plot $cap-$file.svg"
    fi
done

# golden files of no case: a capture removed without its outputs
if [ "$UPDATE" = --update ]; then
    for f in "$G"/*.txt "$G"/*.json "$G"/*.ndjson; do
        n=$(basename "${f%.*}")
        printf '%s\n' "${names[@]}" | grep -qxF "$n" || rm -f "$f"
    done
    echo "golden: $(ls "$G" | grep -vc '^cases$\|^plots$') files and $(ls "$G/plots" | wc -l) plots written for ${#names[@]} captures"
    exit 0
fi
# (not a check of ecnwatch: not counted when none is left, a failure when one is)
begin "golden files without a case"
stale=$(for f in "$G"/*.txt "$G"/*.json "$G"/*.ndjson; do
    n=$(basename "${f%.*}")
    printf '%s\n' "${names[@]}" | grep -qxF "$n" || echo "$n"
done | sort -u | tr '\n' ' ')
[ -z "$stale" ] || bad "golden files of no capture: $stale"
finish golden
