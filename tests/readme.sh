#!/usr/bin/env bash
# readme.sh BUILD [--update] - every "$ COMMAND" example in README.md is run
# with BUILD's binaries and its printed output must be the README's, line for
# line (tests/readme.py); --update writes the outputs into README.md instead.
# Then, as root, the live example of "Watching a link live" that writes
# files (-o, -w, --plot) is run verbatim, as `ecnwatch` (BUILD's), on an
# interface eth0 of a network namespace made here (tests/netns.sh), from a
# folder of root's that no one else may enter (0700), with test traffic
# through it: the report, the packets and the plots must be there, whole and
# root's; the same for --metrics-file; and a write refused after the drop
# (the folder removed after start) must name the user and -Z. Without root
# that part is skipped, with a line that says so.
# Ends "readme: N passed, N failed".
. "$(dirname "$0")/lib.sh"
mode=check
[ "${2:-}" = --update ] && mode=update
if [ $mode = update ]; then
    timeout -k 5 600 python3 tests/readme.py "$mode" "$BUILD" README.md
    exit
fi
out=$(timeout -k 5 600 python3 tests/readme.py "$mode" "$BUILD" README.md)
py_rc=$?
echo "$out" | grep -v '^readme: [0-9]* passed'
pass=$(echo "$out" | grep -c '^ok')
fail=$(echo "$out" | grep -c '^FAIL')
[ $py_rc != 0 ] && [ $fail = 0 ] && bad "README: tests/readme.py ended with status $py_rc"

# --- the live example, as root from a folder of root's
EW=$(readlink -f "$EW")
. "$(dirname "$0")/netns.sh"

# the README's line: the first block after "## Watching a link live", the
# line that writes the report, the packets and the plots
live_cmd=$(awk '/^## Watching a link live/ { s = 1 } s && /^```/ { if (b) exit; b = 1; next }
    b && /^ecnwatch -i eth0 / && / -o / && / -w / && / --plot / { print; exit }' README.md)
live_show=$(printf '%s\n' "${live_cmd%%#*}" | sed 's/ *$//') # without its comment
# its argument after OPT (the comment cut off)
arg_of() { printf '%s\n' "${live_cmd%%#*}" | tr -s ' ' '\n' | awk -v o="$1" 'p { print; exit } $0 == o { p = 1 }'; }

netns_pair readme 10.79.0 && netns_step ip -n "$NS_S" link set s0 down &&
    netns_step ip -n "$NS_S" link set s0 name eth0 && netns_step ip -n "$NS_S" link set eth0 up
st=$?
if [ $st = 2 ]; then
    echo "     README: the live example: skipped: $why"
    finish readme
    exit
fi
if [ $st != 0 ]; then
    bad "README: the live example: setting up the namespaces: $why"
    finish readme
    exit
fi

# `ecnwatch` is BUILD's; each run in a folder of its own: root's, 0700,
# inside $tmp (0700 too): a user root drops to can reach nothing there
mkdir -p "$tmp/bin" && ln -sf "$EW" "$tmp/bin/ecnwatch"
want_mode=$(printf '%o' $((0666 & ~$(umask))))
nobody=$(id -un 65534 2>/dev/null || echo nobody)
for d in ex met gone; do mkdir -m 0700 "$tmp/$d"; done
# start NAME FOLDER CMD: CMD by bash in FOLDER, in eth0's namespace, as a
# session of its own (its id in $NAME_sid): stdout, stderr in $tmp/NAME.*
start() {
    (cd "$2" && exec setsid ip netns exec "$NS_S" env PATH="$tmp/bin:$PATH" bash -c "$3" \
        >"$tmp/$1.out" 2>"$tmp/$1.err") &
    eval "$1_sid=$!"
    bg="$bg $!"
}
# dropped_in SID: the session's ecnwatch runs as the user it dropped to
dropped_in() { pgrep -s "$1" -u 65534 -x ecnwatch >/dev/null 2>&1; }
wait_dropped() { # wait_dropped SECONDS SID
    local t=0
    until dropped_in "$2"; do
        kill -0 "$2" 2>/dev/null || { why="ecnwatch exited at once"; return 1; }
        [ $t -ge $(($1 * 10)) ] && { why="still root after $1 s"; return 1; }
        sleep 0.1
        t=$((t + 1))
    done
}
# stop NAME: SIGINT to the session (Ctrl-C), its exit status in $rc
stop() {
    local sid
    eval "sid=\$$1_sid"
    kill -INT -- "-$sid" 2>/dev/null
    wait_rc 30 "$sid"
}
err1() { head -c 300 "$tmp/$1.err" | tr '\n' ' '; }
# root's, mode 0666 less the umask, not empty
rootfile() {
    [ -s "$1" ] || { why="$1: missing or empty"; return 1; }
    [ "$(stat -c '%u %a' "$1")" = "0 $want_mode" ] ||
        { why="$1: owner and mode $(stat -c '%U %a' "$1"), want root $want_mode"; return 1; }
}

begin "README: the live example"
if [ -z "$live_cmd" ]; then
    bad "README: no live example that writes -o, -w and --plot in \"Watching a link live\""
    finish readme
    exit
fi
report=$(arg_of -o)
pcap=$(arg_of -w)
plots=$(arg_of --plot)
case "$report $pcap $plots" in
*/*) bad "README: the live example names its files by relative names, not: $report $pcap $plots" ;;
esac
start ex "$tmp/ex" "$live_cmd"
start met "$tmp/met" "ecnwatch -i eth0 --metrics-file ecnwatch.prom --interval 0.5 >/dev/null"
start gone "$tmp/gone" "ecnwatch -i eth0 -o report.json"
for r in ex met gone; do
    eval "sid=\$${r}_sid"
    check "README: $r: ecnwatch opened eth0 and dropped to $nobody" wait_dropped 20 "$sid"
done
# the folder of "gone" goes away after the drop: its report cannot be written
rm -rf "$tmp/gone"
traffic 2
sleep 1 # the last refresh of the metrics file
stop ex
ex_rc=$rc
stop met
met_rc=$rc
stop gone
gone_rc=$rc

name="README: \$ $live_show (as root, in a 0700 folder of root's): exit 0, the report there"
begin "$name"
if [ "$ex_rc" != 0 ]; then
    bad "$name: exit $ex_rc: $(err1 ex)"
elif [ ! -s "$tmp/ex/$report" ]; then
    bad "$name: exit 0 and no $report"
else
    ok "$name"
fi

report_ok() {
    rootfile "$tmp/ex/$report" &&
        jq_true "$tmp/ex/$report" 'type == "object" and .totals.frames > 0 and (.flows | length) > 0'
}
check "README: $report: the report, root's, with the frames and flows" report_ok

pcap_ok() {
    local n m
    rootfile "$tmp/ex/$pcap" || return 1
    # read by ecnwatch itself, and by tcpdump where there is one: the frames the report counted
    ew_json "$tmp/ex.reread.json" -r "$tmp/ex/$pcap" --json || return 1
    n=$(jq_get "$tmp/ex.reread.json" '.totals.frames') || return 1
    m=$(jq_get "$tmp/ex/$report" '.totals.frames') || return 1
    [ "$n" = "$m" ] && [ "$n" -gt 0 ] || { why="$pcap holds $n frames, the report counts $m"; return 1; }
    if command -v tcpdump >/dev/null; then
        n=$(bounded 30 tcpdump -nr "$tmp/ex/$pcap" 2>/dev/null | wc -l)
        [ "$n" = "$m" ] || { why="tcpdump -r $pcap reads $n packets, the report counts $m"; return 1; }
    fi
}
check "README: $pcap: the packets, root's, the report's frames" pcap_ok

plots_ok() {
    local f n=0
    rootfile "$tmp/ex/$plots/index.html" || return 1
    [ "$(stat -c %u "$tmp/ex/$plots")" = 0 ] || { why="$plots is $(stat -c %U "$tmp/ex/$plots")'s"; return 1; }
    grep -q '<html' "$tmp/ex/$plots/index.html" || { why="index.html has no <html"; return 1; }
    for f in "$tmp/ex/$plots"/flow-*.svg; do
        [ -e "$f" ] || break
        rootfile "$f" || return 1
        python3 -c 'import sys, xml.etree.ElementTree as E; sys.exit(E.parse(sys.argv[1]).getroot().tag != "{http://www.w3.org/2000/svg}svg")' "$f" 2>/dev/null ||
            { why="$(basename "$f") is not an SVG document"; return 1; }
        grep -q "$(basename "$f")" "$tmp/ex/$plots/index.html" || { why="index.html does not link $(basename "$f")"; return 1; }
        n=$((n + 1))
    done
    [ $n -gt 0 ] || { why="no flow-*.svg in $plots"; return 1; }
}
check "README: $plots/: the index and the flows' SVGs, root's" plots_ok

leftovers() {
    local l
    [ -s "$tmp/ex/$report" ] || { why="nothing written"; return 1; }
    l=$(find "$tmp/ex" "$tmp/met" -name '.ecnwatch*' 2>/dev/null | head -3)
    [ -z "$l" ] || { why="left behind: $l"; return 1; }
}
check "README: no temporary file left in the folders" leftovers

metrics_ok() {
    local v
    [ "$met_rc" = 0 ] || { why="exit $met_rc: $(err1 met)"; return 1; }
    rootfile "$tmp/met/ecnwatch.prom" || return 1
    v=$(awk '$1 == "ecnwatch_frames_total" { print $2 }' "$tmp/met/ecnwatch.prom")
    [ -n "$v" ] && [ "${v%%.*}" -gt 0 ] 2>/dev/null || { why="ecnwatch_frames_total is '$v'"; return 1; }
}
check "--metrics-file ecnwatch.prom (as root, in a 0700 folder of root's): written, root's, frames > 0" metrics_ok

gone_ok() {
    [ "$gone_rc" = 4 ] || { why="exit $gone_rc, want 4: $(err1 gone)"; return 1; }
    grep -qE "^ecnwatch: report\.json: cannot write the report as user $nobody \(see -Z\): No such file or directory$" "$tmp/gone.err" ||
        { why="want the line naming user $nobody and -Z, got: $(err1 gone)"; return 1; }
}
check "the folder removed after the drop: exit 4, a line naming user $nobody and -Z" gone_ok

finish readme
