#!/usr/bin/env bash
# golden.sh BUILD [--update] - the outputs of every capture, compared byte for
# byte with the files kept in tests/golden/: the text summary (NAME.txt, with
# the exit status and standard error at its end), the JSON report
# (NAME.json) and the NDJSON stream (NAME.ndjson), for every capture in
# captures/ and tests/quic-captures/ and the generated ones listed in
# tests/golden/cases. A difference fails with a diff; --update (make golden)
# writes the files anew, so that a deliberate change of output is reviewed in
# the commit that makes it. Ends "golden: N passed, N failed".
. "$(dirname "$0")/lib.sh"
UPDATE=${2:-}
EW=$(realpath "$BUILD/ecnwatch")
G=tests/golden
GEN=$BUILD/gen/golden
rm -rf "$GEN"
mkdir -p "$GEN"
GEN=$(realpath "$GEN")

# outputs DIR CAPTURE NAME OPTIONS... - the three outputs of one capture into
# $tmp/NAME.*, ecnwatch run in DIR on CAPTURE (a path relative to DIR)
outputs() {
    local dir=$1 cap=$2 name=$3 rc
    shift 3
    (
        cd "$dir" || exit 1
        timeout -k 5 "$EW_CMD_TIMEOUT" "$EW" -r "$cap" "$@" >"$tmp/$name.txt" 2>"$tmp/$name.err"
        rc=$?
        echo "# exit $rc" >>"$tmp/$name.txt"
        sed 's/^/# stderr: /' "$tmp/$name.err" >>"$tmp/$name.txt"
        timeout -k 5 "$EW_CMD_TIMEOUT" "$EW" -r "$cap" --json "$@" >"$tmp/$name.json" 2>/dev/null
        timeout -k 5 "$EW_CMD_TIMEOUT" "$EW" -r "$cap" --ndjson "$@" >"$tmp/$name.ndjson" 2>/dev/null
        rm -f "$tmp/$name.err"
    )
}

# compare NAME - each output against its golden file (or writes it with --update)
compare() {
    local name=$1 ext d
    for ext in txt json ndjson; do
        begin "golden $name.$ext"
        if [ "$UPDATE" = --update ]; then
            cp "$tmp/$name.$ext" "$G/$name.$ext"
            continue
        fi
        if [ ! -f "$G/$name.$ext" ]; then
            bad "$name.$ext: no golden file (make golden writes it)"
        elif [ ! -s "$tmp/$name.$ext" ] && [ -s "$G/$name.$ext" ]; then
            bad "$name.$ext: no output"
        elif d=$(diff -u --label "golden/$name.$ext" --label "now" "$G/$name.$ext" "$tmp/$name.$ext"); then
            ok "$name.$ext"
        else
            # an event is one long line: show the events' members one a line
            if [ $ext = ndjson ] && jq . "$G/$name.$ext" >"$tmp/g.pretty" 2>/dev/null &&
                jq . "$tmp/$name.$ext" >"$tmp/n.pretty" 2>/dev/null; then
                d=$(diff -u --label "golden/$name.$ext (one member a line)" --label "now" \
                    "$tmp/g.pretty" "$tmp/n.pretty")
            fi
            bad "$name.$ext differs:"
            echo "$d" | head -40 | sed 's/^/    /'
            [ "$(echo "$d" | wc -l)" -gt 40 ] && echo "    ... ($(echo "$d" | wc -l) lines of diff)"
        fi
    done
}

names=()
# the bundled captures, as they are
for cap in captures/*.pcap tests/quic-captures/*.pcap; do
    name=$(basename "$cap" .pcap)
    outputs . "$cap" "$name"
    compare "$name"
    names+=("$name")
done

# the generated ones
while read -r name tool rest; do
    case $name in '' | '#'*) continue ;; esac
    args=${rest%% -- *}
    opts=""
    [ "$args" != "$rest" ] && opts=${rest#* -- }
    begin "golden $name: $tool $args"
    if [ "$tool" = capture ]; then
        # shellcheck disable=SC2086
        outputs . "$args" "$name" $opts
    else
        # shellcheck disable=SC2086
        if ! "$BUILD/$tool" ${args//OUT/$GEN/$name.pcap} >"$tmp/gen.log" 2>&1; then
            bad "$name: $tool $args: $(head -c 200 "$tmp/gen.log")"
            continue
        fi
        # shellcheck disable=SC2086
        outputs "$GEN" "$name.pcap" "$name" $opts
    fi
    compare "$name"
    names+=("$name")
done <"$G/cases"

# golden files of no case: a capture removed without its outputs
if [ "$UPDATE" = --update ]; then
    for f in "$G"/*.txt "$G"/*.json "$G"/*.ndjson; do
        n=$(basename "${f%.*}")
        printf '%s\n' "${names[@]}" | grep -qxF "$n" || rm -f "$f"
    done
    echo "golden: $(ls "$G" | grep -vc '^cases$') files written for ${#names[@]} captures"
    exit 0
fi
begin "golden files without a case"
stale=$(for f in "$G"/*.txt "$G"/*.json "$G"/*.ndjson; do
    n=$(basename "${f%.*}")
    printf '%s\n' "${names[@]}" | grep -qxF "$n" || echo "$n"
done | sort -u | tr '\n' ' ')
[ -z "$stale" ] && ok "every golden file has its capture" || bad "golden files of no capture: $stale"
finish golden
