#!/usr/bin/env bash
# install.sh BUILD - `make install DESTDIR=tmp PREFIX=/usr` puts every file
# in place (the binary from BUILD, default build/, installed as it is: make
# rebuilds nothing), the installed binary runs, man renders both pages without
# a warning, the bash completion completes options, misuse kinds, interfaces,
# users and files, and `make uninstall` with the same DESTDIR removes exactly
# what was installed.
# The pages, the schema and the completion describe the installed binary: every
# check also requires that binary to work (-V, --help listing every option of
# src/cli/cli.c, a JSON report of a capture), and checks what it can against it:
# the page lists the options --help lists, the report validates against the
# installed schema, the binary takes every misuse kind the completion offers.
# Prints one line per check and ends with "install: N passed, N failed".
. "$(dirname "$0")/lib.sh"
dest=$tmp/dest
IEW=$dest/usr/bin/ecnwatch
CAP=captures/no-ecn-client.pcap

# make without what a calling make passes down (jobserver, variables), bounded;
# -o: the binary of BUILD is installed as it is, nothing is rebuilt
mk() {
    bounded "$EW_CMD_TIMEOUT" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u PREFIX -u DESTDIR \
        make --no-print-directory -o "$BUILD/ecnwatch" "$@"
}

# every option of the getopt table and the usage text of src/cli/cli.c
longs=$(sed -n '/longopts\[\] = {/,/};/p' src/cli/cli.c | grep -o '{"[a-z0-9-]*"' | tr -d '{"' | sed 's/^/--/')
shorts=$(grep -o 'getopt_long(argc, argv, "[^"]*"' src/cli/cli.c | sed 's/.*"\(.*\)"/\1/' | tr -d ':' | sed 's/./-&\n/g')
usage=$(sed -n '/^usage(FILE/,/^}/p' src/cli/cli.c | grep -o '"  --*[A-Za-z0-9][a-z0-9-]*\(, --[a-z0-9-]*\)\?' | tr -d '",' | tr ' ' '\n')
all=$(printf '%s\n' $longs $shorts $usage | sed '/^$/d' | sort -u)
nall=$(echo "$all" | wc -l)

# the options an --help text in FILE lists, as the completion reads them
help_opts() {
    grep -oE '^  (-[A-Za-z0-9](, --[a-z0-9-]+)?|--[a-z0-9-]+)' "$1" | tr -d ',' | tr ' ' '\n' | sed '/^$/d' | sort -u
}

# whether the installed binary works, found once after the install: -V prints a
# version, --help lists every option of src/cli/cli.c, a capture gives a report
binwhy="not installed"
probe_installed() {
    local miss
    binwhy=""
    if [ "$nall" -lt 15 ]; then
        binwhy="could not read the options from src/cli/cli.c (found: $(echo $all))"
    elif ! run_ew 0 "$tmp/v.out" "$tmp/v.err" "$IEW" -V; then
        binwhy="-V: $why"
    elif ! [[ $(head -1 "$tmp/v.out") =~ ^ecnwatch\ [0-9]+\.[0-9]+ ]]; then
        binwhy="-V printed '$(head -c 100 "$tmp/v.out")'"
    elif ! run_ew 0 "$tmp/help.out" "$tmp/help.err" "$IEW" --help; then
        binwhy="--help: $why"
    elif miss=$(comm -23 <(echo "$all") <(help_opts "$tmp/help.out") | tr '\n' ' ') && [ -n "$miss" ]; then
        binwhy="--help does not list: $miss"
    elif ! ew_json_of "$tmp/report.json" "$IEW" -r "$CAP" --json; then
        binwhy="-r $CAP --json: $why"
    elif ! jq_true "$tmp/report.json" '.schema == "ecnwatch.report/1" and (.flows | length) == 1'; then
        binwhy="-r $CAP --json: $why"
    fi
}
# installed: the installed binary works (else why says how it does not)
installed() {
    [ -z "$binwhy" ] && return 0
    why="the installed ecnwatch does not work: $binwhy"
    return 1
}
# ew_json_of OUT CMD...: CMD (an ecnwatch) exits 0 and writes one JSON object to OUT
ew_json_of() {
    local out=$1
    shift
    run_ew 0 "$out" "$out.err" "$@" || return 1
    json_ok "$out" || return 1
    if [ "$(jq -r 'type' "$out" 2>/dev/null | head -1)" != object ]; then
        why="the report is not a JSON object"
        return 1
    fi
}

# make install: it succeeds, runs nothing but install (no compiler), leaves the
# binary of BUILD as it was, and the binary it installed works
before=$(stat -c '%Y %s' "$BUILD/ecnwatch" 2>/dev/null)
begin "make install"
if ! out=$(mk install BUILD="$BUILD" DESTDIR="$dest" PREFIX=/usr 2>&1); then
    bad "make install DESTDIR=$dest PREFIX=/usr: $(echo "$out" | tail -5)"
    finish install
    exit
fi
probe_installed
do_install() {
    local other
    other=$(echo "$out" | grep -v -e '^install ' -e '^[[:space:]]')
    if [ -n "$other" ]; then
        why="make install ran more than install: $(echo "$other" | head -3 | tr '\n' ' ')"
        return 1
    fi
    if [ "$(stat -c '%Y %s' "$BUILD/ecnwatch" 2>/dev/null)" != "$before" ]; then
        why="make install changed $BUILD/ecnwatch"
        return 1
    fi
    installed
}
check "make install DESTDIR=... PREFIX=/usr" do_install

# the default prefix, without installing anything
dry_default() {
    installed || return 1
    if ! mk -n install BUILD="$BUILD" DESTDIR="$tmp/dry" >"$tmp/dry.out" 2>&1; then
        why="make -n install: $(tail -3 "$tmp/dry.out" | tr '\n' ' ')"
        return 1
    fi
    if ! grep -q "$tmp/dry/usr/local/bin/ecnwatch" "$tmp/dry.out"; then
        why="make -n install does not install to /usr/local/bin by default"
        return 1
    fi
    if [ -e "$tmp/dry" ]; then
        why="make -n install created $tmp/dry"
        return 1
    fi
}
check "PREFIX defaults to /usr/local" dry_default

# every file, with its mode and the content of its source
in_place() { # in_place FILE MODE SOURCE
    installed || return 1
    if [ ! -f "$dest/$1" ]; then
        why="$1 not installed"
    elif [ "$(stat -c %a "$dest/$1")" != "${2#0}" ]; then
        why="$1 has mode $(stat -c %a "$dest/$1"), want $2"
    elif ! cmp -s "$dest/$1" "$3"; then
        why="$1 differs from $3"
    else
        return 0
    fi
    return 1
}
files="usr/bin/ecnwatch:0755:$BUILD/ecnwatch
usr/share/man/man1/ecnwatch.1:0644:man/ecnwatch.1
usr/share/man/man5/ecnwatch-report.5:0644:man/ecnwatch-report.5
usr/share/ecnwatch/ecnwatch-report.schema.json:0644:man/ecnwatch-report.schema.json
usr/share/bash-completion/completions/ecnwatch:0644:completion/ecnwatch.bash"
while IFS=: read -r f mode src; do
    check "$f ($mode)" in_place "$f" "$mode" "$src"
done <<<"$files"
five_files() {
    installed || return 1
    n=$(find "$dest" -type f | wc -l)
    [ "$n" = 5 ] && return 0
    why="$n files installed: $(find "$dest" -type f | sed "s|$dest/||" | tr '\n' ' ')"
    return 1
}
check "5 files installed, no other" five_files

# the installed binary runs
version() {
    run_ew 0 "$tmp/v2.out" "$tmp/v2.err" "$IEW" -V || return 1
    [[ $(cat "$tmp/v2.out") =~ ^ecnwatch\ [0-9]+\.[0-9]+ ]] && return 0
    why="installed ecnwatch -V: '$(head -c 100 "$tmp/v2.out")'"
    return 1
}
check "installed ecnwatch -V prints its version" version

# a report run loads only what every run uses: ncurses (the live view),
# libmicrohttpd (--metrics-listen), libcrypto (QUIC decryption,
# --web-config), libyaml and libcrypt (--web-config) are loaded when needed
# (src/base/dynlib.h), by sonames that load on this machine
lazy_libs() {
    local needed so
    needed=$(readelf -d "$IEW" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
    if [ -z "$needed" ]; then
        why="readelf -d found no NEEDED library in $IEW"
        return 1
    fi
    if [[ $needed =~ (libncurses|libtinfo|libmicrohttpd|libcrypto|libgnutls|libyaml|libcrypt\.) ]]; then
        why="installed ecnwatch is linked against ${BASH_REMATCH[1]}: $needed"
        return 1
    fi
    for so in $(grep -aoE 'lib(ncursesw|microhttpd|crypto|yaml-0|crypt)\.so\.[0-9.]*[0-9]' "$IEW" | sort -u); do
        if ! python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$so" 2>"$tmp/so.err"; then
            why="$so, which installed ecnwatch loads when needed, does not load: $(head -c 200 "$tmp/so.err")"
            return 1
        fi
        so_seen="$so_seen $so"
    done
    if [ "$(echo $so_seen | wc -w)" != 5 ]; then
        why="the sonames of ncursesw, libmicrohttpd, libcrypto, libyaml and libcrypt, not all in $IEW: ${so_seen:-none}"
        return 1
    fi
}
so_seen=""
check "installed ecnwatch starts without ncurses, libmicrohttpd, libcrypto, libyaml, libcrypt, and can load them" lazy_libs
check "installed ecnwatch --help lists all $nall options of src/cli/cli.c" installed

# the installed schema parses, and the installed binary's report validates against it
schema_ok() {
    local s=$dest/usr/share/ecnwatch/ecnwatch-report.schema.json
    installed || return 1
    jq_true "$s" '(.["$schema"] and .["$defs"].report) == true' || {
        why="the installed schema does not parse or lacks \$schema, \$defs.report: $why"
        return 1
    }
    if python3 -c 'import jsonschema' 2>/dev/null; then
        if ! res=$(bounded "$EW_CMD_TIMEOUT" python3 tests/schema_validate.py "$s" "$tmp/report.json" 2>&1); then
            why="the report of $CAP against the installed schema: $(echo "$res" | head -3 | tr '\n' ' ')"
            return 1
        fi
    fi
}
check "the installed schema is JSON, and the installed binary's report validates against it" schema_ok

# both pages render without a warning, and man finds them in their sections;
# ecnwatch(1) names every option the installed binary's --help lists, and
# ecnwatch-report(5) the schema of its report
page_ok() { # page_ok PAGE
    local err o miss=
    installed || return 1
    err=$(MANWIDTH=80 bounded 60 man --warnings -l "$dest/$1" 2>&1 >/dev/null)
    if [ -n "$err" ]; then
        why="man --warnings -l $1: $(echo "$err" | head -5 | tr '\n' ' ')"
        return 1
    fi
    MANWIDTH=80 bounded 60 man -l "$dest/$1" >"$tmp/page.txt" 2>/dev/null
    if [ "$(grep -c . "$tmp/page.txt")" -lt 20 ]; then
        why="man -l $1 renders almost nothing"
        return 1
    fi
    case $1 in
        *.1)
            for o in $(help_opts "$tmp/help.out"); do
                grep -qF -- "$o" "$tmp/page.txt" || miss="$miss $o"
            done
            [ -z "$miss" ] || { why="$1 does not document:$miss"; return 1; } ;;
        *.5)
            s=$(jq_get "$tmp/report.json" '.schema' -r) || return 1
            grep -qF -- "$s" "$tmp/page.txt" || { why="$1 does not name the report's schema $s"; return 1; } ;;
    esac
}
for page in usr/share/man/man1/ecnwatch.1 usr/share/man/man5/ecnwatch-report.5; do
    check "man --warnings -l $page: no warning" page_ok "$page"
done
man_finds() { # man_finds SECTION NAME
    local got
    installed || return 1
    got=$(bounded 60 man -M "$dest/usr/share/man" -w "$1" "$2" 2>&1)
    [ "$got" = "$dest/usr/share/man/man$1/$2.$1" ] && return 0
    why="man -M $dest/usr/share/man -w $1 $2: $got"
    return 1
}
check "man -M ... 1 ecnwatch finds the page" man_finds 1 ecnwatch
check "man -M ... 5 ecnwatch-report finds the page" man_finds 5 ecnwatch-report

# bash completion, sourced from where it was installed, in a clean bash; it
# reads the options from the installed binary's --help
# comp CMD WORD...: the completions of the last WORD, one per line
comp() {
    bounded 30 env -i HOME="$HOME" PATH="$dest/usr/bin:/usr/bin:/bin" bash --norc --noprofile -c '
        source "$1" || exit 1
        shift
        COMP_WORDS=("$@")
        COMP_CWORD=$(($# - 1))
        COMP_LINE="$*"
        COMP_POINT=${#COMP_LINE}
        _ecnwatch
        printf "%s\n" "${COMPREPLY[@]}"' _ "$dest/usr/share/bash-completion/completions/ecnwatch" "$@"
}
# expect_c WANT-REGEX WORD...: some completion matches ^WANT-REGEX$
expect_c() {
    local want=$1 got
    shift
    installed || return 1
    got=$(comp "$@" 2>&1)
    echo "$got" | grep -qx -- "$want" && return 0
    why="want $want, got: $(echo "$got" | head -10 | tr '\n' ' ')"
    return 1
}
expect() { # expect NAME WANT-REGEX WORD...
    local name=$1 want=$2
    shift 2
    check "complete '$*' -> $want ($name)" expect_c "$want" "$@"
}
# only_c WANT WORD...: exactly the completions WANT (space-separated, any order)
only_c() {
    local want got
    want=$(echo "$1" | tr ' ' '\n' | sed '/^$/d' | sort)
    shift
    installed || return 1
    got=$(comp "$@" 2>&1 | sed '/^$/d' | sort)
    [ "$got" = "$want" ] && return 0
    why="want '$(echo $want)', got '$(echo $got)'"
    return 1
}
only() { # only NAME WANT WORD...
    local name=$1 words=$2
    shift 2
    check "complete '$*' -> ${words:-nothing} ($name)" only_c "$words" "$@"
}
sources() {
    installed || return 1
    if ! comp ecnwatch >/dev/null 2>"$tmp/err"; then
        why="the completion does not source: $(head -3 "$tmp/err" | tr '\n' ' ')"
        return 1
    fi
    err=$(bash -n "$dest/usr/share/bash-completion/completions/ecnwatch" 2>&1)
    [ -z "$err" ] && return 0
    why="bash -n: $(echo "$err" | head -3 | tr '\n' ' ')"
    return 1
}
check "the completion sources in bash --norc" sources
only option "--fail-on" ecnwatch --fail-o
only kind "bleaching" ecnwatch --fail-on blea
only "second kind" "bleaching,remarking" ecnwatch --fail-on bleaching,rem
only "kind after =" "--fail-on=bleaching" ecnwatch --fail-on=blea
only "kind after = split" "bleaching" ecnwatch --fail-on = blea
expect interface lo ecnwatch -i ""
only "interfaces from /sys/class/net" "$(ls /sys/class/net | tr '\n' ' ')" ecnwatch -i ""
expect user "$(id -un)" ecnwatch -Z "$(id -un | cut -c1-2)"
expect "capture file" captures/rfc3168-ce-client.pcap ecnwatch -r captures/rfc3168-ce-cl
expect "report file" man/ecnwatch-report.5 ecnwatch -q -o man/ecnwatch-rep
expect "a folder" captures ecnwatch -r x.pcap --plot captur
only "a count" "" ecnwatch -c ""
only "a filter word" "" ecnwatch -r x.pcap tcp

# every option of the getopt table and the usage text, from the installed
# binary's --help and from the list the completion falls back on
all_options() { # all_options CMD
    local got miss
    installed || return 1
    got=$(comp "$1" - | sort -u)
    miss=$(comm -23 <(echo "$all") <(echo "$got") | tr '\n' ' ')
    [ -z "$miss" ] && return 0
    why="'$1 -<TAB>' does not offer: $miss"
    return 1
}
for cmd in ecnwatch /nonexistent/ecnwatch; do
    check "'$cmd -<TAB>' offers all $nall options of src/cli/cli.c" all_options "$cmd"
done

# every misuse kind the list in src/findings/misuse.h defines (its
# EW_MISUSE_KINDS rows), and "any"; the installed binary takes every one of
# them (a capture without misuse: exit 0), and refuses a name that is not
# one (exit 2, naming it)
kinds=$( (awk '/^#define EW_MISUSE_KINDS\(X\)/ { on = 1; next } on && /^ *X\(/ { print } on && !/\\$/ { exit }' \
    src/findings/misuse.h | sed -n 's/^ *X([A-Z0-9_]*, *"\([^"]*\)".*/\1/p'; echo any) | sort -u)
nkinds=$(($(echo "$kinds" | wc -l) - 1))
all_kinds() {
    local got
    installed || return 1
    got=$(comp ecnwatch --fail-on "" | sort -u)
    if [ "$nkinds" -le 9 ] || [ "$got" != "$kinds" ]; then
        why="--fail-on offers other names than src/findings/misuse.h: $(diff <(echo "$kinds") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
        return 1
    fi
    ew_json_of "$tmp/kinds.json" "$IEW" -r "$CAP" --json --fail-on "$(echo $got | tr ' ' ,)" || {
        why="the installed ecnwatch --fail-on <every kind offered>: $why"
        return 1
    }
    jq_true "$tmp/kinds.json" '(.flows | length) == 1 and ([.flows[].misuse | length] | add) == 0' || return 1
    run_ew 2 "$tmp/k.out" "$tmp/k.err" "$IEW" -r "$CAP" -q --fail-on bleaching,no_such_kind || {
        why="--fail-on bleaching,no_such_kind: $why"
        return 1
    }
    grep -q "no_such_kind" "$tmp/k.err" && return 0
    why="--fail-on no_such_kind: the error does not name it: '$(head -c 200 "$tmp/k.err")'"
    return 1
}
check "--fail-on offers the $nkinds kinds of src/findings/misuse.h and any, and ecnwatch takes them" all_kinds

# uninstall removes exactly what install put there
echo keep >"$dest/usr/share/man/man1/other.1"
unout=$(mk uninstall BUILD="$BUILD" DESTDIR="$dest" PREFIX=/usr 2>&1)
unrc=$?
uninstalled() {
    installed || return 1
    if [ "$unrc" != 0 ]; then
        why="make uninstall: exit $unrc: $(echo "$unout" | tail -5 | tr '\n' ' ')"
        return 1
    fi
}
removes_all() {
    uninstalled || return 1
    left=$(find "$dest" ! -type d | sed "s|$dest/||")
    [ "$left" = "usr/share/man/man1/other.1" ] && return 0
    why="after make uninstall: $(echo "$left" | tr '\n' ' ')"
    return 1
}
removes_dir() {
    uninstalled || return 1
    [ ! -d "$dest/usr/share/ecnwatch" ] && return 0
    why="make uninstall leaves usr/share/ecnwatch/"
    return 1
}
check "make uninstall removes every installed file and nothing else" removes_all
check "make uninstall removes the emptied usr/share/ecnwatch/" removes_dir

finish install
