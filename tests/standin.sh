#!/usr/bin/env bash
# standin.sh BUILD [SUITE...] - every shell suite run against stand-ins for
# ecnwatch that print nothing and exit 3 (failed), then 0 (did nothing, said
# it succeeded), beside the real tools of BUILD (generators, the TSan
# build's place). A check that passes there passes on nothing: the run
# fails when any check passes, or when a suite does not end within its time
# limit. EW_STANDIN_RCS chooses the exit statuses ("3 0"). Ends "standin: N
# passed, N failed", where a passed check is a suite whose every check
# failed, for one stand-in.
. "$(dirname "$0")/lib.sh"
shift
SUITES=${*:-cli views lists golden inference field misuse path pathdiag imperfect plots quic outputs neighbours hostile schema tshark tunnels vxlan probe flood threads install readme live metrics metrics-tls prometheus}
# a command of a suite that waits on the stand-in gives up sooner than on the real binary
export EW_CMD_TIMEOUT=20

fake=$tmp
mkdir -p "$fake/build" "$fake/tsan"
for f in "$BUILD"/*; do
    case $(basename "$f") in
        ecnwatch | gen | asan | tsan | fuzz | h[0-9]*) ;;
        *) ln -s "$(realpath "$f")" "$fake/build/$(basename "$f")" ;;
    esac
done
standin() { # standin RC: the stand-in that exits RC
    local d
    for d in "$fake/build" "$fake/tsan"; do
        printf '#!/bin/sh\nexit %s\n' "$1" >"$d/ecnwatch"
        chmod 755 "$d/ecnwatch"
    done
}
# the TSan build's unit runner is not the binary under test: a real one, when built
[ -x build/tsan/run_tests ] && ln -s "$(realpath build/tsan/run_tests)" "$fake/tsan/run_tests"

# the suites, as run.sh runs them: each takes the build folder
cmd_of() {
    case $1 in
        threads) echo "bash tests/threads.sh $fake/build $fake/tsan" ;;
        tshark) echo "bash tests/tshark.sh $fake/build $(ls captures/*.pcap | head -3 | tr '\n' ' ')" ;;
        *) echo "bash tests/$1.sh $fake/build" ;;
    esac
}

for code in ${EW_STANDIN_RCS:-3 0}; do
standin "$code"
for s in $SUITES; do
    cur=$fake/current
    : >"$cur"
    start=$(date +%s)
    out=$(EW_TEST_CURRENT=$cur timeout -k 10 600 $(cmd_of "$s") 2>&1)
    rc=$?
    took=$(($(date +%s) - start))
    # the suite's own count when it closes with one, else its "ok" lines
    n=$(echo "$out" | awk 'NF >= 4 && $(NF-3) ~ /^[0-9]+$/ && $(NF-2) == "passed," { p = $(NF-3) } END { print p + 0 }')
    [ "$n" = 0 ] && n=$(echo "$out" | grep -c '^ok')
    if [ $rc = 124 ] || [ $rc = 137 ]; then
        fail=$((fail + 1))
        echo "FAIL standin $s (exit $code): no end after 600 s, in check: $(cat "$cur")"
    elif [ "$n" != 0 ]; then
        fail=$((fail + 1))
        echo "FAIL standin $s: $n checks pass on a binary that prints nothing and exits $code:"
        echo "$out" | grep '^ok' | sed 's/^/    /'
    elif ! echo "$out" | grep -q '^FAIL'; then
        fail=$((fail + 1))
        echo "FAIL standin $s (exit $code): no check ran ($(echo "$out" | tail -1))"
    else
        pass=$((pass + 1))
        echo "ok   standin $s (exit $code): $(echo "$out" | grep -c '^FAIL') checks fail, none pass (${took} s)"
    fi
done
done
finish standin
