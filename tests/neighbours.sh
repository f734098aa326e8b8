#!/usr/bin/env bash
# neighbours.sh BUILD - what another local user can make ecnwatch do when
# root runs it. The neighbour is the system user "daemon"; -Z's user is
# "nobody". A symbolic link planted in a folder the neighbour owns, in a
# /tmp whose kernel protection does not apply, or inside a --plot folder
# must not lead root's outputs elsewhere; a file root replaces keeps its
# owner and mode; captures are parsed as -Z's user, with an empty
# capability bounding set and no_new_privs, offline as live; a path with a
# newline still gives a one-line error. Root only (any other user: not run).
# Ends "neighbours: N passed, N failed".
. "$(dirname "$0")/lib.sh"
CAP=$(cd "$(dirname "$0")/.." && pwd)/captures/accecn-ce-client.pcap
GEN=$(dirname "$EW")/ecngen

if [ "$(id -u)" != 0 ] || ! id daemon >/dev/null 2>&1 || ! id nobody >/dev/null 2>&1; then
    # make check runs as any user; make test (as root) counts this a failure
    echo "neighbours: not run: needs root and the users daemon and nobody"
    finish neighbours
    exit
fi
chmod 755 "$tmp"
as_daemon() { setpriv --reuid=daemon --regid=daemon --clear-groups "$@"; }

# one line on standard error that names $1
one_line_naming() { # one_line_naming ERRFILE WORD
    if [ "$(wc -l <"$1")" != 1 ] || ! grep -qF -- "$2" "$1"; then
        why="standard error is not one line naming $2: $(head -c 300 "$1" | tr '\n' '|')"
        return 1
    fi
}

# root's file that a planted link points at: unchanged afterwards
victim() { # victim NAME
    printf 'secret of root\n' >"$tmp/$1"
    chmod 600 "$tmp/$1"
}
untouched() { # untouched NAME
    [ "$(cat "$tmp/$1")" = "secret of root" ] && [ "$(stat -c '%U %a' "$tmp/$1")" = "root 600" ] ||
        { why="$1 was overwritten: $(stat -c '%U %a %s bytes' "$tmp/$1")"; return 1; }
}

# --- a link the neighbour planted in a folder of its own, for each output
# option: not followed (exit 4, one line that says why), the target intact.
# Before, root replaced the target with a 0644 file of its own.
planted_in_own_folder() { # planted_in_own_folder OPTION NAME
    rm -rf "$tmp/evil"
    mkdir "$tmp/evil"
    chown daemon:daemon "$tmp/evil"
    victim "v-$2"
    as_daemon ln -s "$tmp/v-$2" "$tmp/evil/$2" || { why="ln as daemon"; return 1; }
    run_ew 4 "$tmp/o" "$tmp/e" "$EW" -r "$CAP" -q "$1" "$tmp/evil/$2" || return 1
    one_line_naming "$tmp/e" "symbolic link" || return 1
    untouched "v-$2"
}
check "-o to a link planted in the neighbour's folder: not followed, target intact" \
    planted_in_own_folder -o r.json
check "-w to a link planted in the neighbour's folder: not followed, target intact" \
    planted_in_own_folder -w p.pcap
check "--csv to a link planted in the neighbour's folder: not followed, target intact" \
    planted_in_own_folder --csv f.csv
check "--metrics-file to a link planted in the neighbour's folder: not followed" \
    planted_in_own_folder --metrics-file m.prom

# a link on the way to the file (a folder link), planted the same way
planted_folder_link() {
    rm -rf "$tmp/evil2" "$tmp/rootdir"
    mkdir "$tmp/evil2" "$tmp/rootdir"
    chmod 700 "$tmp/rootdir"
    chown daemon:daemon "$tmp/evil2"
    as_daemon ln -s "$tmp/rootdir" "$tmp/evil2/d" || { why="ln as daemon"; return 1; }
    run_ew 4 "$tmp/o" "$tmp/e" "$EW" -r "$CAP" -q -o "$tmp/evil2/d/r.json" || return 1
    one_line_naming "$tmp/e" "symbolic link" || return 1
    [ ! -e "$tmp/rootdir/r.json" ] || { why="written into root's folder through the link"; return 1; }
}
check "-o through a folder link the neighbour planted: not followed" planted_folder_link

# --- /tmp as on a system whose fs.protected_symlinks is off: a /tmp of its
# own (private mount namespace), world-writable without the sticky bit, so
# that the kernel's protection does not apply; the neighbour plants
# /tmp/report.json -> root's file
tmp_unprotected() {
    victim v-tmp
    # the test's folder is seen as /mnt there (it is under the /tmp replaced)
    bounded 60 unshare -m sh -c '
        mount --make-rprivate / 2>/dev/null || true
        mount --bind "$3" /mnt || exit 90
        mount -t tmpfs -o mode=0777 none /tmp || exit 90
        setpriv --reuid=daemon --regid=daemon --clear-groups ln -s /mnt/v-tmp /tmp/report.json || exit 91
        "$1" -r "$2" -q -o /tmp/report.json 2>/mnt/tmp.err
        echo "rc=$?" >>/mnt/tmp.err
    ' sh "$EW" "$CAP" "$tmp" >"$tmp/tmp.out" 2>&1
    case $? in 90 | 91) why="namespace set-up failed: $(cat "$tmp/tmp.out")"; return 1 ;; esac
    grep -q '^rc=4$' "$tmp/tmp.err" || { why="$(tr '\n' '|' <"$tmp/tmp.err")"; return 1; }
    grep -q "symbolic link" "$tmp/tmp.err" || { why="$(tr '\n' '|' <"$tmp/tmp.err")"; return 1; }
    untouched v-tmp
}
check "-o /tmp/report.json planted in an unprotected /tmp: not followed, target intact" tmp_unprotected

# --- the --plot folder: its fixed names are never followed, whoever owns
# the link; the links are replaced by the plots, the targets intact
plot_links() {
    rm -rf "$tmp/plots"
    mkdir "$tmp/plots"
    chown daemon:daemon "$tmp/plots"
    victim v-svg
    victim v-index
    as_daemon ln -s "$tmp/v-svg" "$tmp/plots/flow-1.svg" &&
        as_daemon ln -s "$tmp/v-index" "$tmp/plots/index.html" || { why="ln as daemon"; return 1; }
    run_ew 0 "$tmp/o" "$tmp/e" "$EW" -r "$CAP" -q --plot "$tmp/plots" || return 1
    untouched v-svg && untouched v-index || return 1
    [ -f "$tmp/plots/flow-1.svg" ] && [ ! -L "$tmp/plots/flow-1.svg" ] &&
        [ -f "$tmp/plots/index.html" ] && [ ! -L "$tmp/plots/index.html" ] ||
        { why="the plots are not regular files: $(ls -l "$tmp/plots" | tr '\n' '|')"; return 1; }
    grep -q '<svg' "$tmp/plots/flow-1.svg" || { why="flow-1.svg is no plot"; return 1; }
}
check "--plot: links in the folder replaced by the plots, never followed" plot_links

# the same as a user who is not root, with a link of root's own in the folder
plot_links_user() {
    rm -rf "$tmp/uplots"
    mkdir "$tmp/uplots"
    chown nobody "$tmp/uplots"
    victim v-uplot
    chmod 666 "$tmp/v-uplot" # writable by nobody: only the link decides
    ln -s "$tmp/v-uplot" "$tmp/uplots/flow-1.svg"
    run_ew 0 "$tmp/o" "$tmp/e" setpriv --reuid=nobody --regid=nogroup --clear-groups \
        "$EW" -r "$CAP" -q --plot "$tmp/uplots" || return 1
    [ "$(cat "$tmp/v-uplot")" = "secret of root" ] || { why="the link's target was written"; return 1; }
    [ ! -L "$tmp/uplots/flow-1.svg" ] || { why="flow-1.svg is still a link"; return 1; }
}
check "--plot as nobody: a link in the folder is replaced, not followed" plot_links_user

# a user who is not root follows only its own links (and root's): the
# neighbour's link in a shared folder is refused
user_refuses_neighbour() {
    rm -rf "$tmp/shared"
    mkdir "$tmp/shared"
    chmod 777 "$tmp/shared"
    printf 'nobody wrote this\n' >"$tmp/nobodys"
    chown nobody "$tmp/nobodys"
    as_daemon ln -s "$tmp/nobodys" "$tmp/shared/r.json" || { why="ln as daemon"; return 1; }
    run_ew 4 "$tmp/o" "$tmp/e" setpriv --reuid=nobody --regid=nogroup --clear-groups \
        "$EW" -r "$CAP" -q -o "$tmp/shared/r.json" || return 1
    one_line_naming "$tmp/e" "symbolic link" || return 1
    [ "$(cat "$tmp/nobodys")" = "nobody wrote this" ] || { why="the link's target was written"; return 1; }
}
check "as nobody: the neighbour's link in a shared folder is not followed" user_refuses_neighbour

# a user's own link is followed, as before
user_own_link() {
    rm -rf "$tmp/own"
    mkdir "$tmp/own"
    chown nobody "$tmp/own"
    setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c \
        'echo old >"$1/target.json" && ln -s target.json "$1/r.json"' sh "$tmp/own" ||
        { why="set-up as nobody"; return 1; }
    run_ew 0 "$tmp/o" "$tmp/e" setpriv --reuid=nobody --regid=nogroup --clear-groups \
        "$EW" -r "$CAP" -q -o "$tmp/own/r.json" || return 1
    [ -L "$tmp/own/r.json" ] || { why="the link was replaced"; return 1; }
    jq_true "$tmp/own/target.json" '.schema == "ecnwatch.report/1"'
}
check "as nobody: its own link is followed, the link kept" user_own_link

# --- a file root replaces keeps its owner and mode (a 0600 file of the
# neighbour's stays 0600 and the neighbour's: its packets stay private)
keeps_owner() { # keeps_owner OPTION NAME
    rm -f "$tmp/$2"
    echo old >"$tmp/$2"
    chown daemon:daemon "$tmp/$2"
    chmod 600 "$tmp/$2"
    run_ew 0 "$tmp/o" "$tmp/e" "$EW" -r "$CAP" -q "$1" "$tmp/$2" || return 1
    [ "$(stat -c '%U:%G %a' "$tmp/$2")" = "daemon:daemon 600" ] ||
        { why="now $(stat -c '%U:%G %a' "$tmp/$2")"; return 1; }
    ! grep -qx old "$tmp/$2" || { why="not replaced"; return 1; }
}
check "-o over the neighbour's 0600 file: replaced, still daemon's and 0600" keeps_owner -o priv.json
check "-w over the neighbour's 0600 file: replaced, still daemon's and 0600" keeps_owner -w priv.pcap
check "--csv over the neighbour's 0600 file: replaced, still daemon's and 0600" keeps_owner --csv priv.csv

# --- offline, root parses the capture as -Z's user: while it waits for
# the capture's header on a FIFO, it already runs as nobody, with no
# capability to regain (bounding set empty) and no_new_privs
proc_field() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }
dropped_offline() { # dropped_offline [-Z USER] WANT_UID
    local want=${!#} ew holder i uid="" bnd="" nnp=""
    rm -f "$tmp/hold"
    mkfifo "$tmp/hold"
    sleep 30 >"$tmp/hold" &
    holder=$!
    bg="$bg $holder"
    timeout -k 5 30 "$EW" -r "$tmp/hold" -q -o "$tmp/drop.json" "${@:1:$#-1}" 2>"$tmp/drop.err" &
    ew=$!
    bg="$bg $ew"
    for i in $(seq 100); do
        local pid
        pid=$(pgrep -P "$ew" -x ecnwatch | head -1)
        if [ -n "$pid" ]; then
            uid=$(proc_field "$pid" Uid)
            bnd=$(proc_field "$pid" CapBnd)
            nnp=$(proc_field "$pid" NoNewPrivs)
            [ "$uid" = "$want" ] && break
        fi
        sleep 0.1
    done
    kill "$holder" 2>/dev/null
    wait_rc 20 "$ew"
    [ "$uid" = "$want" ] && [ "$bnd" = 0000000000000000 ] && [ "$nnp" = 1 ] ||
        { why="Uid $uid (want $want), CapBnd $bnd, NoNewPrivs $nnp"; return 1; }
}
check "-r as root: the capture is read as nobody, bounding set empty, no_new_privs" \
    dropped_offline "$(id -u nobody)"
check "-r as root -Z daemon: the capture is read as daemon" dropped_offline -Z daemon "$(id -u daemon)"

# root's own files still work after the drop: a 0600 capture (gzip'd
# pcapng of several link types: it is decompressed twice) in a 0700
# folder, the report and plots written into that folder
root_only_files() {
    rm -rf "$tmp/private"
    mkdir "$tmp/private"
    chmod 700 "$tmp/private"
    bounded 30 "$GEN" hostile pcapng-two-links "$tmp/private/links.pcapng" 2>/dev/null || { why="ecngen"; return 1; }
    gzip -f "$tmp/private/links.pcapng" && chmod 600 "$tmp/private/links.pcapng.gz" || return 1
    run_ew 0 "$tmp/o" "$tmp/e" "$EW" -r "$tmp/private/links.pcapng.gz" -q \
        -o "$tmp/private/r.json" --plot "$tmp/private/plots" || return 1
    jq_true "$tmp/private/r.json" '.totals.frames > 0 and .source.linktype != null' || return 1
    [ -f "$tmp/private/plots/index.html" ] || { why="no plot index"; return 1; }
    [ "$(stat -c %U "$tmp/private/r.json")" = root ] || { why="report owned by $(stat -c %U "$tmp/private/r.json")"; return 1; }
}
check "-r as root: a 0600 compressed capture and outputs in a 0700 folder still work" root_only_files

# a capture named after the drop cannot be: every -r is opened before it
# (a second capture that only root may read is read, for the path report)
two_private_captures() {
    rm -rf "$tmp/p2"
    mkdir "$tmp/p2"
    chmod 700 "$tmp/p2"
    cp "$CAP" "$tmp/p2/a.pcap" && cp "$CAP" "$tmp/p2/b.pcap" && chmod 600 "$tmp/p2/"*.pcap
    run_ew 0 "$tmp/o" "$tmp/e" "$EW" -r "$tmp/p2/a.pcap" -r "$tmp/p2/b.pcap" -q -o "$tmp/p2/r.json" || return 1
    json_ok "$tmp/p2/r.json"
}
check "-r as root, two captures only root may read: both read" two_private_captures

# --- live: the same drop (a network namespace of its own, its loopback)
dropped_live() {
    local ns=ewnb$$ ew i pid uid="" bnd="" nnp=""
    ip netns add "$ns" || { why="ip netns add"; return 1; }
    on_exit "ip netns del $ns"
    ip -n "$ns" link set lo up
    timeout -k 5 30 ip netns exec "$ns" "$EW" -i lo -q -o "$tmp/live.json" 2>"$tmp/live.err" &
    ew=$!
    bg="$bg $ew"
    for i in $(seq 100); do
        pid=$(pgrep -P "$ew" | head -1)
        if [ -n "$pid" ]; then
            uid=$(proc_field "$pid" Uid)
            bnd=$(proc_field "$pid" CapBnd)
            nnp=$(proc_field "$pid" NoNewPrivs)
            [ "$uid" = "$(id -u nobody)" ] && [ "$nnp" = 1 ] && break
        fi
        sleep 0.1
    done
    [ -n "$pid" ] && kill -TERM "$pid"
    wait_rc 20 "$ew"
    [ "$uid" = "$(id -u nobody)" ] && [ "$bnd" = 0000000000000000 ] && [ "$nnp" = 1 ] ||
        { why="Uid $uid, CapBnd $bnd, NoNewPrivs $nnp"; return 1; }
    json_ok "$tmp/live.json"
}
check "live as root: nobody, bounding set empty, no_new_privs; the report written" dropped_live

# --- a newline in a path does not split the one-line error
newline_path() {
    run_ew 4 "$tmp/o" "$tmp/e" "$EW" -r "$CAP" -q -o "$tmp/no such"$'\n'"folder/r.json" || return 1
    [ "$(wc -l <"$tmp/e")" = 1 ] || { why="$(wc -l <"$tmp/e") lines: $(tr '\n' '|' <"$tmp/e")"; return 1; }
    run_ew 3 "$tmp/o" "$tmp/e" "$EW" -r "$tmp/no"$'\n'"capture.pcap" -q || return 1
    [ "$(wc -l <"$tmp/e")" = 1 ] || { why="input: $(wc -l <"$tmp/e") lines: $(tr '\n' '|' <"$tmp/e")"; return 1; }
}
check "a newline in an output or input path: still a one-line error" newline_path

finish neighbours
