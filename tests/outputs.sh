#!/usr/bin/env bash
# outputs.sh BUILD - what ecnwatch does to the files around it, as a
# user meets it: -o, --metrics-file and --plot write a regular file (or a
# new path) atomically, write a device or FIFO in place like tcpdump -w, never
# replace one; -o - is standard output; an unwritable output is found before
# the first packet is read (exit 4, one line naming the path); a stop before
# the capture's header still writes the report. The /dev/null case runs in a
# private mount namespace with a /dev of its own (root only; as any other
# user it is reported as not run). Ends "outputs: N passed, N failed".
. "$(dirname "$0")/lib.sh"
CAP=$(cd "$(dirname "$0")/.." && pwd)/captures/accecn-ce-client.pcap
chmod 755 "$tmp"

# one line on standard error that names $1 (and nothing on standard output)
one_line_naming() { # one_line_naming ERRFILE WORD
    if [ "$(wc -l <"$1")" != 1 ] || ! grep -qF -- "$2" "$1"; then
        why="standard error is not one line naming $2: $(head -c 200 "$1" | tr '\n' '|')"
        return 1
    fi
}

# --- a regular file: made with the mode from the umask, replaced atomically
# keeping its mode, nothing left beside it
regular_replaced() {
    rm -f "$tmp/r.json"
    (umask 027 && run_ew 0 "$tmp/o" "$tmp/e" "$EW" -r "$CAP" -q -o "$tmp/r.json") || return 1
    [ "$(stat -c %a "$tmp/r.json")" = 640 ] || { why="new: mode $(stat -c %a "$tmp/r.json"), not 640 (umask 027)"; return 1; }
    echo old >"$tmp/r.json"
    chmod 604 "$tmp/r.json"
    (umask 027 && run_ew 0 "$tmp/o" "$tmp/e" "$EW" -r "$CAP" -q -o "$tmp/r.json") || return 1
    jq_true "$tmp/r.json" '.schema == "ecnwatch.report/1" and (.flows | length) == 1' || return 1
    [ "$(stat -c %a "$tmp/r.json")" = 604 ] || { why="replaced: mode $(stat -c %a "$tmp/r.json"), not its 604"; return 1; }
    if compgen -G "$tmp/.ecnwatch*" >/dev/null || compgen -G "$tmp/*.tmp*" >/dev/null; then
        why="a temporary file was left: $(ls -A "$tmp" | tr '\n' ' ')"
        return 1
    fi
}
check "-o FILE: made 0666 less the umask, replaced whole keeping its mode, no temporary left" regular_replaced

# --- a symbolic link to a report: the link stays a link, its target gets the report
link_kept() {
    mkdir -p "$tmp/reports"
    echo old >"$tmp/reports/target.json"
    ln -sfn reports/target.json "$tmp/link.json"
    run_ew 0 "$tmp/o" "$tmp/e" "$EW" -r "$CAP" -q -o "$tmp/link.json" || return 1
    [ -L "$tmp/link.json" ] || { why="the link was replaced by a file"; return 1; }
    jq_true "$tmp/reports/target.json" '.schema == "ecnwatch.report/1"'
}
check "-o LINK: the link stays, the file it names gets the report" link_kept

# --- a FIFO: written in place, never replaced (a reader started first, bounded)
fifo_in_place() {
    rm -f "$tmp/fifo"
    mkfifo "$tmp/fifo"
    bounded 30 cat "$tmp/fifo" >"$tmp/fifo.out" &
    local reader=$!
    bg="$bg $reader"
    run_ew 0 "$tmp/o" "$tmp/e" "$EW" -r "$CAP" -q -o "$tmp/fifo" || return 1
    wait_bounded 30 "$reader" || { why="the FIFO's reader did not finish"; return 1; }
    [ -p "$tmp/fifo" ] || { why="the FIFO was replaced: $(stat -c %F "$tmp/fifo")"; return 1; }
    jq_true "$tmp/fifo.out" '.schema == "ecnwatch.report/1" and (.flows | length) == 1'
}
check "-o FIFO: written in place (the reader gets the report), the FIFO stays a FIFO" fifo_in_place

# --- -o -: the report on standard output, alone (no text summary)
dash_stdout() {
    run_ew 0 "$tmp/dash.json" "$tmp/e" "$EW" -r "$CAP" -o - || return 1
    jq_true "$tmp/dash.json" '.schema == "ecnwatch.report/1" and (.flows | length) == 1'
}
check "-o -: the JSON report on standard output, nothing else" dash_stdout
dash_and_json() {
    run_ew 2 "$tmp/o" "$tmp/e" "$EW" -r "$CAP" -o - --json || return 1
    one_line_naming "$tmp/e" "standard output"
}
check "-o - with --json: exit 2, one line" dash_and_json

# --- a directory: refused, one line, exit 4
dir_refused() {
    mkdir -p "$tmp/adir"
    run_ew 4 "$tmp/o" "$tmp/e" "$EW" -r "$CAP" -q -o "$tmp/adir" || return 1
    one_line_naming "$tmp/e" "$tmp/adir" && [ -d "$tmp/adir" ]
}
check "-o DIR: exit 4, one line naming it, the folder untouched" dir_refused

# --- found before the first packet: the input is a FIFO that never delivers
# a byte, so a check made only at the end would wait until the time limit
early() { # early ARGS... : exit 4 within 10 s, one line naming the output
    local name=$1
    shift
    rm -f "$tmp/never"
    mkfifo "$tmp/never"
    sleep 60 >"$tmp/never" &
    local holder=$!
    bg="$bg $holder"
    EW_CMD_TIMEOUT=10 run_ew 4 "$tmp/o" "$tmp/e" "$EW" -r - -q "$@" <"$tmp/never"
    local r=$?
    kill "$holder" 2>/dev/null
    [ $r = 0 ] || return 1
    one_line_naming "$tmp/e" "$name"
}
check "-o in a missing folder: exit 4 before any packet is read" early "$tmp/nope/r.json" -o "$tmp/nope/r.json"
check "--metrics-file in a missing folder: exit 4 before any packet is read" \
    early "$tmp/nope/m.prom" --metrics-file "$tmp/nope/m.prom"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    mkdir -p "$tmp/ro"
    chmod 555 "$tmp/ro"
    nobody_early() {
        rm -f "$tmp/never"
        mkfifo "$tmp/never"
        chmod 666 "$tmp/never"
        sleep 60 >"$tmp/never" &
        local holder=$!
        bg="$bg $holder"
        EW_CMD_TIMEOUT=10 run_ew 4 "$tmp/o" "$tmp/e" setpriv --reuid=nobody --regid=nogroup --clear-groups \
            "$EW" -r - -q "$@" <"$tmp/never"
        local r=$?
        kill "$holder" 2>/dev/null
        [ $r = 0 ] || return 1
        one_line_naming "$tmp/e" "$tmp/ro"
    }
    check "-o in a folder its user cannot write: exit 4 at once" nobody_early -o "$tmp/ro/r.json"
    check "--plot in a folder its user cannot write: exit 4 at once" nobody_early --plot "$tmp/ro/plots"
fi

# --- --plot makes the missing folders at start-up and writes there
plot_parents() {
    run_ew 0 "$tmp/o" "$tmp/e" "$EW" -r "$CAP" -q --plot "$tmp/p/q/r" || return 1
    [ -s "$tmp/p/q/r/index.html" ] || { why="no index.html in $tmp/p/q/r"; return 1; }
    compgen -G "$tmp/p/q/r/flow-*.svg" >/dev/null || { why="no flow SVG"; return 1; }
}
check "--plot A/B/C: the missing folders are made, the plots written" plot_parents

# --- a stop before the capture's header: report written, interrupted, exit 0
early_stop() {
    rm -f "$tmp/never"
    mkfifo "$tmp/never"
    sleep 60 >"$tmp/never" &
    local holder=$! ew
    bg="$bg $holder"
    # timeout itself in the background (a shell function would be a subshell
    # that ignores SIGINT); it hands the signal to ecnwatch
    timeout -k 5 20 "$EW" -r - -o "$tmp/int.json" <"$tmp/never" >"$tmp/o" 2>"$tmp/e" &
    ew=$!
    sleep 1
    kill -INT "$ew" 2>/dev/null
    wait_rc 20 "$ew"
    local st=$rc
    kill "$holder" 2>/dev/null
    [ "$st" = 0 ] || { why="exit $st: $(head -c 200 "$tmp/e")"; return 1; }
    jq_true "$tmp/int.json" '.source.interrupted == true and .totals.frames == 0'
}
check "SIGINT before the capture header: exit 0, the report written with interrupted: true" early_stop

# --- /dev/null stays a device (a private mount namespace with its own /dev)
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
    devnull() {
        bounded 30 unshare -m sh -c '
            set -e
            mount --make-rprivate / 2>/dev/null || true
            mount -t tmpfs none /dev
            mknod -m 666 /dev/null c 1 3
            mknod -m 666 /dev/full c 1 7
            "$1" -r "$2" -q -o /dev/null
            [ -c /dev/null ] || { echo "/dev/null is now $(stat -c %F /dev/null)"; exit 1; }
            # written in place, not skipped: the same write to /dev/full
            # fails as the device says (a binary that did nothing would not)
            rc=0
            "$1" -r "$2" -q -o /dev/full 2>/dev/full.err || rc=$?
            [ $rc = 4 ] && grep -q "No space left on device" /dev/full.err ||
                { echo "-o /dev/full: exit $rc: $(cat /dev/full.err)"; exit 1; }
            [ -c /dev/full ] || { echo "/dev/full is now $(stat -c %F /dev/full)"; exit 1; }
            # /dev/stdout, a link to the descriptor of the process (a pipe):
            # the report reaches the pipe, the link stays a link
            ln -s /proc/self/fd/1 /dev/stdout
            "$1" -r "$2" -q -o /dev/stdout | cat >"$3"
            [ -L /dev/stdout ] || { echo "/dev/stdout is now $(stat -c %F /dev/stdout)"; exit 1; }
            grep -q "ecnwatch.report/1" "$3" || { echo "-o /dev/stdout: no report through the pipe"; exit 1; }
        ' sh "$EW" "$CAP" "$tmp/stdout.json" >"$tmp/dn.out" 2>&1 || { why="$(head -c 200 "$tmp/dn.out")"; return 1; }
    }
    check "-o /dev/null, /dev/full, /dev/stdout (own /dev): written in place, devices and link kept" devnull
else
    # make check runs as any user; make test (as root) counts this skip a failure
    echo "outputs: skipped the -o /dev/null case: needs root and unshare"
fi

# --- --csv, a row of the outputs' table: the same rules as -o
csv_file() {
    mkdir -p "$tmp/csv"
    echo old >"$tmp/csv/t.csv"
    run_ew 0 "$tmp/o" "$tmp/e" "$EW" -r "$CAP" -q --csv "$tmp/csv/t.csv" || return 1
    [ "$(head -c 3 "$tmp/csv/t.csv")" = "id," ] ||
        { why="not a flow table: $(head -c 80 "$tmp/csv/t.csv")"; return 1; }
    [ "$(wc -l <"$tmp/csv/t.csv")" = 2 ] ||
        { why="not a header and one flow: $(wc -l <"$tmp/csv/t.csv") lines"; return 1; }
    [ "$(ls -A "$tmp/csv")" = t.csv ] || { why="left beside it: $(ls -A "$tmp/csv" | tr '\n' ' ')"; return 1; }
}
check "--csv FILE: the flow table, replaced whole" csv_file
csv_stdout() {
    run_ew 0 "$tmp/o" "$tmp/e" "$EW" -r "$CAP" --csv - || return 1
    [ "$(head -c 3 "$tmp/o")" = "id," ] || { why="standard output is not the table alone: $(head -c 80 "$tmp/o")"; return 1; }
}
check "--csv -: the table alone on standard output" csv_stdout
csv_unwritable() {
    run_ew 4 "$tmp/o" "$tmp/e" "$EW" -r "$CAP" --csv "$tmp/no/such/t.csv" || return 1
    one_line_naming "$tmp/e" "$tmp/no/such/t.csv" || return 1
    [ ! -s "$tmp/o" ] || { why="standard output written: $(head -c 80 "$tmp/o")"; return 1; }
}
check "--csv into a missing folder: exit 4 before reading, one line" csv_unwritable
# another local user who creates the temporary names ecnwatch would use
# (they were .ecnwatch-PID-0.tmp to -99.tmp) in a shared folder cannot make
# the report fail: the names are random. ecnwatch waits on a FIFO for its
# capture while the names of its pid are taken; the report it replaces is
# there already (a new one is linked to its name directly)
tmp_names_taken() {
    local pid ewpid="" i rc
    rm -rf "$tmp/shared"
    mkdir -m 1777 "$tmp/shared"
    echo '{"old": true}' >"$tmp/shared/r.json" # replaced: through a temporary name
    mkfifo "$tmp/shared.fifo"
    timeout -k 5 "$EW_CMD_TIMEOUT" "$EW" -r - -q -o "$tmp/shared/r.json" <"$tmp/shared.fifo" 2>"$tmp/e" &
    exec 7>"$tmp/shared.fifo"
    # ecnwatch's own pid (timeout's child)
    for i in $(seq 1 50); do
        ewpid=$(pgrep -P $! -x ecnwatch) && break
        sleep 0.1
    done
    [ -n "$ewpid" ] || { why="ecnwatch did not start"; exec 7>&-; return 1; }
    pid=$!
    for i in $(seq 0 99); do : >"$tmp/shared/.ecnwatch-$ewpid-$i.tmp"; done
    cat "$CAP" >&7
    exec 7>&-
    wait $pid
    rc=$?
    rm -f "$tmp/shared.fifo"
    [ $rc = 0 ] || { why="exit $rc: $(head -c 200 "$tmp/e")"; return 1; }
    jq_true "$tmp/shared/r.json" '.totals.frames > 0' || return 1
    [ "$(ls -A "$tmp/shared" | grep -vc '^\.ecnwatch-'"$ewpid"'-')" = 1 ] ||
        { why="left beside it: $(ls -A "$tmp/shared" | grep -v "^.ecnwatch-$ewpid-" | tr '\n' ' ')"; return 1; }
}
check "-o into a shared folder whose predictable temporary names are taken: written all the same" tmp_names_taken
# a full disk is named as such: -w and -o on a 64 KiB file system (a
# private mount), exit 4 and "No space left on device", not "Input/output
# error" (what -w said: the reason is in errno when the write fails, not at
# the flush)
full_disk() {
    if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
        why="needs root and unshare to mount a small file system"
        return 1
    fi
    mkdir -p "$tmp/tiny"
    rm -f "$tmp/after.json" "$tmp/after.prom"
    bounded 60 unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs "$1" &&
        "$2" -r "$3" -q -w "$1/x.pcap" -o "$1/../after.json" --metrics-file "$1/../after.prom" \
            2>"$1/../tiny.w.err"; echo $? >"$1/../tiny.w.rc"
        "$2" -r "$3" -q --timeseries -o "$1/r.json" 2>"$1/../tiny.o.err"; echo $? >"$1/../tiny.o.rc"' \
        sh "$tmp/tiny" "$EW" captures/shared-dualq-client.pcap || { why="could not mount"; return 1; }
    [ "$(cat "$tmp/tiny.w.rc")" = 4 ] && grep -q "cannot write the packets: No space left on device" "$tmp/tiny.w.err" ||
        { why="-w: exit $(cat "$tmp/tiny.w.rc"): $(head -c 200 "$tmp/tiny.w.err")"; return 1; }
    # the failed -w loses nothing else asked for: the report and the metrics
    # are written (they were not, offline)
    json_ok "$tmp/after.json" && jq -e '.totals.frames > 0' "$tmp/after.json" >/dev/null 2>&1 && [ -s "$tmp/after.prom" ] ||
        { why="-w failed and took the report or the metrics with it"; return 1; }
    # the report of this capture fits in 64 KiB or is refused by name
    [ "$(cat "$tmp/tiny.o.rc")" = 0 ] || grep -q "No space left on device" "$tmp/tiny.o.err" ||
        { why="-o: exit $(cat "$tmp/tiny.o.rc"): $(head -c 200 "$tmp/tiny.o.err")"; return 1; }
}
check "a full file system: -w says 'No space left on device', exit 4, the report and metrics still written" full_disk
# a FIFO nobody reads: the report is refused after 10 s, named, exit 4 (an
# open that waits for a reader would wait for ever once the capture is read)
fifo_no_reader() {
    rm -f "$tmp/lonely.fifo"
    mkfifo "$tmp/lonely.fifo"
    EW_CMD_TIMEOUT=40 run_ew 4 "$tmp/o" "$tmp/e" "$EW" -r "$CAP" -q -o "$tmp/lonely.fifo" || return 1
    [ "$(wc -l <"$tmp/e")" = 1 ] && grep -q "lonely.fifo: cannot write the report: no reader on the FIFO" "$tmp/e" ||
        { why="$(head -c 200 "$tmp/e")"; return 1; }
    [ -p "$tmp/lonely.fifo" ] || { why="the FIFO is gone"; return 1; }
}
check "-o FIFO that nobody reads: refused after 10 s, exit 4, one line" fifo_no_reader
finish outputs
