#!/usr/bin/env bash
# run.sh [--check | --only NAME] [-j N] BUILD [BUILD...] - the tests, once
# per build folder given (the plain build, then the AddressSanitizer +
# UndefinedBehaviorSanitizer build): the CUnit suites, the golden outputs,
# every shell suite (tests/*.sh, each taking the build folder), the snaplen
# sweep and the tshark cross-check over the captures in captures/ and their
# re-encapsulations under every supported link type, the fuzz regression
# inputs; then, once, with the first build: the flood, Prometheus, the
# ThreadSanitizer run, install, the README's examples, the layers, every
# shell suite against a stand-in binary that prints nothing (no check may
# pass there), and the libFuzzer smoke run.
#
#   (no option)   make test: everything; the live, metrics, metrics-tls, prometheus,
#                 vxlan and probe suites must run (as root), a skip of theirs is a failure
#   --check       make check: the quick tests, of the first build only
#                 (CHECK_SUITES below); what it leaves out make test runs
#   --only NAME   make check T=NAME: one suite of the first build: a shell
#                 suite's name (cli, golden, ...), sweep, tshark, replay,
#                 unit, or unit:SUITE[/TEST] for one CUnit suite or test
#   -j N          suites run N at a time (default: the processors, at most
#                 4); of the suites that build network namespaces and time
#                 live traffic (LANE below), one at a time
#
# Each suite runs under a time limit (seconds, doubled for a sanitizer
# build); a suite that reaches it is stopped and reported with the check it
# was in. Each suite's output is shown whole when it ends, with its time.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 2
export TZ=UTC LC_ALL=C
export ECNWATCH_HASH_SEED=1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# the quick set of make check (some three minutes on two processors): every
# suite of the plain build but the slowest, which make test runs: the
# exhaustive ones (cli: some 800 runs of the binary; hostile: every malformed
# capture, cut at every byte; tshark: every capture against tshark; tunnels:
# tunnelled captures against tshark's innermost headers; schema:
# every report written, against the JSON Schema; imperfect; flood;
# ThreadSanitizer; the libFuzzer run; the stand-in run of every suite), the
# sanitizer build, and those that need root and network namespaces (live,
# metrics, metrics-tls, prometheus, vxlan, probe)
CHECK_SUITES="unit golden views lists inference field misuse path pathdiag plots quic sweep outputs neighbours replay install readme deps"
# one at a time, beside the other suites: those that build network namespaces
# and watch live traffic on time (and the stand-in run, which runs them too)
LANE="standin live metrics metrics-tls prometheus vxlan probe"

RELINK_LINKS="vlan qinq sll sll2 raw ipv4 ipv6 null loop ppp chdlc ipoib nflog"
RELINK_BASES="rfc3168-ce-client accecn-ce-v6-server udp-ect-client"

# relinked BUILD - the re-encapsulated captures (and a pcapng file of three
# link types), written into BUILD/gen/relink once; their names, one a line.
# A capture ecngen cannot write is a "FAIL" line on standard error.
relinked() {
    local b=$1 d=$1/gen/relink link base f
    mkdir -p "$d"
    for link in $RELINK_LINKS; do
        for base in $RELINK_BASES; do
            # the IPv4 and IPv6 link types carry one family each
            [ $link = ipv4 ] && [ $base = accecn-ce-v6-server ] && continue
            [ $link = ipv6 ] && [ $base = rfc3168-ce-client ] && continue
            f=$d/$base-$link.pcap
            if [ -s "$f" ] || { timeout -k 5 120 "$b/ecngen" relink "$link" "captures/$base.pcap" "$f.part" 2>/dev/null &&
                mv "$f.part" "$f"; }; then
                echo "$f"
            else
                echo "FAIL ecngen relink $link $base" >&2
            fi
        done
    done
    # a pcapng file with interfaces of three link types (ecngen hostile pcapng-two-links)
    f=$d/pcapng-two-links.pcapng
    if [ -s "$f" ] || { timeout -k 5 120 "$b/ecngen" hostile pcapng-two-links "$f.part" 2>/dev/null &&
        mv "$f.part" "$f"; }; then
        echo "$f"
    else
        echo "FAIL ecngen hostile pcapng-two-links" >&2
    fi
    # captures of link types no Ethernet capture turns into, as their programs wrote them
    ls tests/link-captures/*.pcap
}

# --- the jobs that are not shell suites: run.sh --job NAME BUILD [ARG...];
# each ends "NAME: N passed, N failed" as a suite does
if [ "${1:-}" = --job ]; then
    job=$2 build=$3
    shift 3
    p=0 f=0
    case $job in
    unit) # the CUnit suites (all, or those named); one check per test
        out=$("$build/run_tests" "$@" 2>&1)
        rc=$?
        echo "$out" | grep -E 'FAILED|^Run Summary|^ +(suites|tests|asserts)|^run_tests:'
        read -r ran failed < <(echo "$out" | awk '$1 == "tests" { print $3, $5 }')
        if [ -n "${ran:-}" ] && [ $rc = 0 ]; then
            p=$((ran - failed)) f=$failed
        else
            echo "FAIL unit tests (exit $rc)"
            echo "$out" | tail -20
            p=$((${ran:-0} - ${failed:-0})) f=$((${failed:-0} > 0 ? failed : 1))
        fi
        ;;
    sweep) # every frame of every capture re-dissected at every snapshot length; one check per capture
        mapfile -t rl < <(relinked "$build")
        # and a capture of every tunnel tungen writes (cut inside a tunnel,
        # a frame is the packet that carries it)
        tun=()
        mkdir -p "$build/gen/sweep"
        for t in ipip gre gre-eth erspan vxlan vxlan-gpe geneve gtpu mpls macsec nested; do
            if timeout 60 "$build/tungen" "$t" "$build/gen/sweep/tunnel-$t.pcap" >/dev/null 2>&1; then
                tun+=("$build/gen/sweep/tunnel-$t.pcap")
            else
                f=$((f + 1))
                echo "FAIL sweep: tungen $t"
            fi
        done
        for c in captures/*.pcap "${rl[@]}" "${tun[@]}"; do
            printf '%s\n' "$c" >"${EW_TEST_CURRENT:-/dev/null}"
            if out=$(timeout -k 15 600 "$build/sweep" "$c" 2>&1); then
                p=$((p + 1))
            else
                f=$((f + 1))
                echo "FAIL sweep $c"
                echo "$out" | tail -5
            fi
        done
        echo "sweep: $(ls captures/*.pcap | wc -l) captures, ${#rl[@]} re-encapsulations and ${#tun[@]} tunnels, every snaplen"
        ;;
    tshark) # the tshark cross-check; one check per capture
        mapfile -t rl < <(relinked "$build")
        exec bash tests/tshark.sh "$build" captures/*.pcap "${rl[@]}"
        ;;
    replay) # the fuzz regression inputs and hand-made seeds, replayed through each harness
        for h in dissect pipeline quic pipeline_mem pcapng unzip probe; do
            dirs=$(ls -d tests/fuzz/seeds/fuzz_$h tests/fuzz/regressions/fuzz_$h 2>/dev/null)
            # a replay of no input would prove nothing
            # shellcheck disable=SC2086
            if out=$(timeout -k 15 600 "$build/replay_$h" $dirs 2>&1) &&
                ! echo "$out" | grep -q "replay: 0 inputs"; then
                p=$((p + 1))
                echo "fuzz_$h $out"
            else
                f=$((f + 1))
                echo "FAIL replay fuzz_$h"
                echo "$out" | tail -20
            fi
        done
        ;;
    fuzz) # each libFuzzer harness for a short while, when clang can build them
        if bash tests/fuzz/run.sh --available; then
            exec make --no-print-directory fuzz-smoke
        fi
        echo "FAIL fuzz: clang cannot build libFuzzer binaries here (make deps installs clang)"
        f=1
        ;;
    *)
        echo "run.sh: no job $job" >&2
        exit 2
        ;;
    esac
    echo "$job: $p passed, $f failed"
    [ $f = 0 ]
    exit
fi

CHECK=0
ONLY=""
JOBS=$(nproc 2>/dev/null || echo 1)
[ "$JOBS" -gt 4 ] && JOBS=4
while [ $# -gt 0 ]; do
    case $1 in
    --check) CHECK=1 ;;
    --only) ONLY=$2; shift ;;
    -j) JOBS=$2; shift ;;
    *) break ;;
    esac
    shift
done
if [ $# = 0 ]; then
    echo "usage: tests/run.sh [--check | --only NAME] [-j N] BUILD [BUILD...]" >&2
    exit 2
fi
[ "$JOBS" -ge 1 ] 2>/dev/null || JOBS=1

passed=0
failed=0
t_start=$(date +%s)
count() { # count OK-COUNT FAIL-COUNT
    passed=$((passed + $1))
    failed=$((failed + $2))
}
work=$(mktemp -d "${TMPDIR:-/tmp}/ecnwatch-run.XXXXXX")
queue=() state=()
# stopped (make interrupted, or its own time limit): the suites still running
# are ended too, each through its own exit handler (TERM to its timeout,
# which passes it on, then KILL after 30 s)
stop_running() {
    local f p t=0 left
    trap - EXIT INT TERM HUP
    for f in "$work"/*.pid; do
        [ -f "$f" ] && [ ! -f "${f%.pid}.rc" ] && kill -TERM "$(cat "$f")" 2>/dev/null
    done
    while :; do
        left=""
        for f in "$work"/*.pid; do
            [ -f "$f" ] && [ ! -f "${f%.pid}.rc" ] && p=$(cat "$f") && kill -0 "$p" 2>/dev/null && left="$left $p"
        done
        [ -z "$left" ] && break
        if [ $t -ge 300 ]; then
            # shellcheck disable=SC2086
            kill -KILL $left 2>/dev/null
            break
        fi
        sleep 0.1
        t=$((t + 1))
    done
    rm -rf "$work"
}
trap stop_running EXIT
trap 'exit 130' INT TERM HUP

# the queue: one line per suite, "NAME BUILD LIMIT COMMAND..."
add() { # add NAME BUILD LIMIT COMMAND...
    local name=$1 build=$2 limit=$3
    shift 3
    # the sanitizer build (any build but the first) gets twice the time
    [ "$build" != "$plain" ] && limit=$((limit * 2))
    # the command quoted, so that a unit test's name keeps its spaces
    queue+=("$name $build $limit $(printf '%q ' "$@")")
}
# suite NAME BUILD LIMIT: a shell suite, or one of run.sh's own jobs
suite() {
    local name=$1 build=$2 limit=$3
    case $name in
    unit | sweep | tshark | replay | fuzz) add "$name" "$build" "$limit" bash tests/run.sh --job "$name" "$build" ;;
    threads) add threads "$build" "$limit" bash tests/threads.sh "$build" ;;
    *) add "$name" "$build" "$limit" bash "tests/$name.sh" "$build" ;;
    esac
}

plain=$1
# the time limit of each suite, in seconds (doubled for a sanitizer build)
limit_of() {
    case $1 in
    unit | views | lists | inference | field | misuse | path | plots | quic | sweep | hostile | replay | install | vxlan | probe) echo 600 ;;
    golden | cli | pathdiag | imperfect | tshark | tunnels | live | metrics | flood | fuzz) echo 900 ;;
    outputs | neighbours | prometheus | metrics-tls | readme | deps) echo 300 ;;
    schema) echo 1500 ;;
    threads) echo 1800 ;;
    standin) echo 3600 ;; # two stand-ins: one that exits 3, one that exits 0
    *) echo 600 ;;
    esac
}
EACH="unit golden cli views lists inference field misuse path pathdiag imperfect plots quic sweep tshark tunnels vxlan probe outputs neighbours hostile replay schema live metrics metrics-tls"
ONCE="flood prometheus threads install readme deps standin fuzz"
# the order they start in: the longest first, so that the last to end is short;
# the lane's suites early, so that each starts as soon as the one before it ends
ORDER="standin live metrics metrics-tls prometheus vxlan probe imperfect cli hostile golden threads fuzz inference path misuse sweep tshark tunnels schema plots views quic pathdiag lists outputs neighbours field unit replay install readme deps flood"

if [ -n "$ONLY" ]; then
    builds=("$plain")
    case $ONLY in
    unit:*) add unit "$plain" 600 bash tests/run.sh --job unit "$plain" "${ONLY#unit:}" ;;
    *)
        if ! echo " $EACH $ONCE " | grep -q " $ONLY "; then
            echo "run.sh: no suite $ONLY; the suites: $EACH $ONCE, unit:SUITE[/TEST]" >&2
            exit 2
        fi
        suite "$ONLY" "$plain" "$(limit_of "$ONLY")"
        ;;
    esac
elif [ $CHECK = 1 ]; then
    builds=("$plain")
    for name in $ORDER; do
        echo " $CHECK_SUITES " | grep -q " $name " && suite "$name" "$plain" "$(limit_of "$name")"
    done
else
    builds=("$@")
    for name in $ORDER; do
        if echo " $ONCE " | grep -q " $name "; then
            suite "$name" "$plain" "$(limit_of "$name")"
        else
            for b in "$@"; do suite "$name" "$b" "$(limit_of "$name")"; done
        fi
    done
fi

# the re-encapsulations that sweep and tshark read: written before the
# suites start, so that no two suites write them at once
for b in "${builds[@]}"; do
    mkdir -p "$b/gen"
    rm -rf "$b/gen/relink"
    relinked "$b" >/dev/null 2>"$work/relink.err"
    n=$(grep -c '^FAIL' "$work/relink.err")
    cat "$work/relink.err"
    count 0 "$n"
done

# start I - suite I of the queue in the background; its output in
# $work/I.out, its status and time in $work/I.rc, its current check in $work/I.cur
start() {
    local i=$1 name build limit cmd
    read -r name build limit cmd <<<"${queue[$1]}"
    (
        t0=$(date +%s)
        export EW_TEST_CURRENT=$work/$i.cur
        # in the background, its pid kept: timeout puts the suite in a
        # process group of its own, which a signal to run.sh's does not reach
        eval "exec timeout -k 15 $limit $cmd" >"$work/$i.out" 2>&1 &
        echo $! >"$work/$i.pid"
        wait $!
        echo "$? $(($(date +%s) - t0))" >"$work/$i.rc.part"
        mv "$work/$i.rc.part" "$work/$i.rc"
    ) &
}

# report I - suite I's output (all but its "ok" lines), its count and time
report() {
    local i=$1 name build limit cmd rc took p f
    read -r name build limit cmd <<<"${queue[$1]}"
    read -r rc took <"$work/$i.rc"
    echo "== $build: $name"
    grep -v '^ok' "$work/$i.out"
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        echo "FAIL $name: stopped at its time limit of $limit s, in check: $(cat "$work/$i.cur" 2>/dev/null)"
        count 0 1
    fi
    read -r p f < <(awk -v n="$name:" '$1 == n && $3 == "passed," { print $2, $4 }' "$work/$i.out")
    if [ -n "${p:-}" ]; then
        count "$p" "$f"
    else
        echo "FAIL $name: ended without its line \"$name: N passed, N failed\""
        count 0 1
    fi
    if [ $CHECK = 0 ] && [ -z "$ONLY" ] && grep -q "^$name: skipped" "$work/$i.out"; then
        echo "FAIL $name: skipped under make test, which must run it (as root)"
        count 0 1
    fi
    echo "   ($build: $name: $took s)"
}

# run the queue: up to $JOBS suites at a time, of which one at most of LANE;
# a build's schema suite starts only when the others of its build have
# ended (it reads what they left in BUILD/gen)
in_lane() { echo " $LANE " | grep -q " ${queue[$1]%% *} "; }
is_schema() { [ "${queue[$1]%% *}" = schema ]; }
build_of() { local a; read -r _ a _ <<<"${queue[$1]}"; echo "$a"; }
# state: "" waiting, r running, d done
for i in "${!queue[@]}"; do state[i]=""; done
running=0
lane=0 # a suite of LANE is running
others_done() { # others_done BUILD: every suite of BUILD but schema and LANE's has ended
    local j
    for j in "${!queue[@]}"; do
        is_schema "$j" || in_lane "$j" && continue
        [ "$(build_of "$j")" = "$1" ] && [ "${state[j]}" != d ] && return 1
    done
    return 0
}
reap() { # report every suite that has ended
    local j
    for j in "${!queue[@]}"; do
        if [ "${state[j]}" = r ] && [ -f "$work/$j.rc" ]; then
            state[j]=d
            running=$((running - 1))
            in_lane "$j" && lane=0
            report "$j"
        fi
    done
}
while :; do
    left=0
    for i in "${!queue[@]}"; do
        [ -z "${state[i]}" ] || continue
        left=1
        [ $running -lt "$JOBS" ] || continue
        in_lane "$i" && [ $lane = 1 ] && continue
        is_schema "$i" && ! others_done "$(build_of "$i")" && continue
        start "$i"
        state[i]=r
        running=$((running + 1))
        in_lane "$i" && lane=1
    done
    [ $left = 0 ] && [ $running = 0 ] && break
    sleep 0.2
    reap
done

[ $CHECK = 1 ] && echo "not run by make check (make test runs them): the sanitizer build; cli, hostile, tshark, tunnels, vxlan, probe, schema, imperfect, live, metrics, metrics-tls, prometheus, flood, threads, fuzz, standin"
echo "   (all: $(($(date +%s) - t_start)) s)"
echo
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
