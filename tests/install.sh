#!/usr/bin/env bash
# install.sh [BUILD] - `make install DESTDIR=tmp PREFIX=/usr` puts every file
# in place (the binary from BUILD, default build/), the installed binary runs,
# man renders both pages without a warning, the bash completion completes
# options, misuse kinds, interfaces, users and files, and `make uninstall`
# with the same DESTDIR removes exactly what was installed.
# Prints one line per check and ends with "install: N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${1:-build}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
finish() { echo "install: $pass passed, $fail failed"; [ "$fail" = 0 ]; exit; }
# make without what a calling make passes down (jobserver, variables)
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u PREFIX -u DESTDIR make --no-print-directory "$@"; }

# the default prefix, without installing anything
if mk -n install BUILD="$BUILD" DESTDIR="$tmp/dry" 2>&1 | grep -q "$tmp/dry/usr/local/bin/ecnwatch"; then
    ok "PREFIX defaults to /usr/local"
else
    bad "make -n install does not install to /usr/local/bin by default"
fi

if ! out=$(mk install BUILD="$BUILD" DESTDIR="$dest" PREFIX=/usr 2>&1); then
    bad "make install DESTDIR=$dest PREFIX=/usr: $(echo "$out" | tail -5)"
    finish
fi
ok "make install DESTDIR=... PREFIX=/usr"

# every file, with its mode and the content of its source
files="usr/bin/ecnwatch:0755:$BUILD/ecnwatch
usr/share/man/man1/ecnwatch.1:0644:man/ecnwatch.1
usr/share/man/man5/ecnwatch-report.5:0644:man/ecnwatch-report.5
usr/share/ecnwatch/ecnwatch-report.schema.json:0644:man/ecnwatch-report.schema.json
usr/share/bash-completion/completions/ecnwatch:0644:completion/ecnwatch.bash"
while IFS=: read -r f mode src; do
    if [ ! -f "$dest/$f" ]; then
        bad "$f not installed"
    elif [ "$(stat -c %a "$dest/$f")" != "${mode#0}" ]; then
        bad "$f has mode $(stat -c %a "$dest/$f"), want $mode"
    elif ! cmp -s "$dest/$f" "$src"; then
        bad "$f differs from $src"
    else
        ok "$f ($mode)"
    fi
done <<<"$files"
n=$(find "$dest" -type f | wc -l)
if [ "$n" = 5 ]; then ok "5 files installed, no other"; else bad "$n files installed: $(find "$dest" -type f | sed "s|$dest/||" | tr '\n' ' ')"; fi

# the installed binary runs
if v=$("$dest/usr/bin/ecnwatch" -V 2>&1) && [[ $v =~ ^ecnwatch\ [0-9]+\.[0-9]+ ]]; then
    ok "ecnwatch -V: $v"
else
    bad "installed ecnwatch -V: '$v'"
fi
if jq -e '.["$schema"] and .["$defs"].report' "$dest/usr/share/ecnwatch/ecnwatch-report.schema.json" >/dev/null 2>&1; then
    ok "the installed schema is JSON"
else
    bad "the installed schema does not parse"
fi

# both pages render without a warning, and man finds them in their sections
for page in usr/share/man/man1/ecnwatch.1 usr/share/man/man5/ecnwatch-report.5; do
    err=$(MANWIDTH=80 man --warnings -l "$dest/$page" 2>&1 >/dev/null)
    if [ -n "$err" ]; then
        bad "man --warnings -l $page: $(echo "$err" | head -5 | tr '\n' ' ')"
    elif [ "$(MANWIDTH=80 man -l "$dest/$page" 2>/dev/null | grep -c .)" -lt 20 ]; then
        bad "man -l $page renders almost nothing"
    else
        ok "man --warnings -l $page: no warning"
    fi
done
for s in "1 ecnwatch" "5 ecnwatch-report"; do
    set -- $s
    if [ "$(man -M "$dest/usr/share/man" -w "$1" "$2" 2>/dev/null)" = "$dest/usr/share/man/man$1/$2.$1" ]; then
        ok "man -M ... $1 $2 finds the page"
    else
        bad "man -M $dest/usr/share/man -w $1 $2: $(man -M "$dest/usr/share/man" -w "$1" "$2" 2>&1)"
    fi
done

# bash completion, sourced from where it was installed, in a clean bash
# comp CMD WORD...: the completions of the last WORD, one per line
comp() {
    env -i HOME="$HOME" PATH="$dest/usr/bin:/usr/bin:/bin" bash --norc --noprofile -c '
        source "$1" || exit 1
        shift
        COMP_WORDS=("$@")
        COMP_CWORD=$(($# - 1))
        COMP_LINE="$*"
        COMP_POINT=${#COMP_LINE}
        _ecnwatch
        printf "%s\n" "${COMPREPLY[@]}"' _ "$dest/usr/share/bash-completion/completions/ecnwatch" "$@"
}
# expect NAME WANT-REGEX WORD...: some completion matches ^WANT-REGEX$
expect() {
    local name=$1 want=$2 got
    shift 2
    got=$(comp "$@" 2>&1)
    if echo "$got" | grep -qx -- "$want"; then
        ok "complete '$*' -> $want"
    else
        bad "complete '$*' ($name): want $want, got: $(echo "$got" | head -10 | tr '\n' ' ')"
    fi
}
# only NAME WANT WORD...: exactly the completions WANT (space-separated, any order)
only() {
    local name=$1 words=$2 want got
    want=$(echo "$words" | tr ' ' '\n' | sed '/^$/d' | sort)
    shift 2
    got=$(comp "$@" 2>&1 | sed '/^$/d' | sort)
    if [ "$got" = "$want" ]; then
        ok "complete '$*' -> ${words:-nothing}"
    else
        bad "complete '$*' ($name): want '$(echo $want)', got '$(echo $got)'"
    fi
}
if comp ecnwatch >/dev/null 2>"$tmp/err" && [ "$(bash -n "$dest/usr/share/bash-completion/completions/ecnwatch" 2>&1)" = "" ]; then
    ok "the completion sources in bash --norc"
else
    bad "the completion does not source: $(head -3 "$tmp/err")"
fi
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
longs=$(sed -n '/longopts\[\] = {/,/};/p' src/main.c | grep -o '{"[a-z0-9-]*"' | tr -d '{"' | sed 's/^/--/')
shorts=$(grep -o 'getopt_long(argc, argv, "[^"]*"' src/main.c | sed 's/.*"\(.*\)"/\1/' | tr -d ':' | sed 's/./-&\n/g')
usage=$(sed -n '/^usage(FILE/,/^}/p' src/main.c | grep -o '"  --*[A-Za-z0-9][a-z0-9-]*\(, --[a-z0-9-]*\)\?' | tr -d '",' | tr ' ' '\n')
all=$(printf '%s\n' $longs $shorts $usage | sed '/^$/d' | sort -u)
if [ "$(echo "$all" | wc -l)" -lt 15 ]; then
    bad "could not read the options from src/main.c (found: $(echo $all))"
else
    for cmd in ecnwatch /nonexistent/ecnwatch; do
        got=$(comp "$cmd" - | sort -u)
        miss=$(comm -23 <(echo "$all") <(echo "$got") | tr '\n' ' ')
        if [ -z "$miss" ]; then
            ok "'$cmd -<TAB>' offers all $(echo "$all" | wc -l) options of src/main.c"
        else
            bad "'$cmd -<TAB>' does not offer: $miss"
        fi
    done
fi
# every misuse kind ew_misuse_name defines, and "any"
kinds=$( (awk '/const char \*const ew_misuse_name\[/ { on = 1 } on { print } on && /};/ { exit }' src/misuse.c |
    grep -o '"[a-z0-9_]*"' | tr -d '"'; echo any) | sort -u)
got=$(comp ecnwatch --fail-on "" | sort -u)
if [ "$(echo "$kinds" | wc -l)" -gt 10 ] && [ "$got" = "$kinds" ]; then
    ok "--fail-on offers the $(($(echo "$kinds" | wc -l) - 1)) kinds of src/misuse.c and any"
else
    bad "--fail-on offers other names than src/misuse.c: $(diff <(echo "$kinds") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
fi

# uninstall removes exactly what install put there
echo keep >"$dest/usr/share/man/man1/other.1"
if ! out=$(mk uninstall BUILD="$BUILD" DESTDIR="$dest" PREFIX=/usr 2>&1); then
    bad "make uninstall: $(echo "$out" | tail -5)"
else
    left=$(find "$dest" ! -type d | sed "s|$dest/||")
    if [ "$left" = "usr/share/man/man1/other.1" ]; then
        ok "make uninstall removes every installed file and nothing else"
    else
        bad "after make uninstall: $(echo "$left" | tr '\n' ' ')"
    fi
    if [ -d "$dest/usr/share/ecnwatch" ]; then
        bad "make uninstall leaves usr/share/ecnwatch/"
    else
        ok "make uninstall removes the emptied usr/share/ecnwatch/"
    fi
fi

finish
