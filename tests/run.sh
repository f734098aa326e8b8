#!/usr/bin/env bash
# run.sh [--check] BUILD [BUILD...] - every test, once per build directory
# given (the plain build and the AddressSanitizer + UndefinedBehaviorSanitizer
# build): CUnit suites, the golden outputs, the command line, the snaplen
# sweep and the tshark cross-check, over the captures in captures/ and their
# re-encapsulations under every supported link type; then, once, every shell
# suite against a stand-in binary that prints nothing (no check may pass).
# Every shell suite (tests/*.sh) takes the build folder.
#
# Each suite runs under a time limit (seconds, doubled for a sanitizer build);
# a suite that reaches it is stopped and reported with the check it was in.
# --check (make check): only what needs neither root nor network namespaces;
# without it (make test) the live and metrics suites must run, not skip.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
export TZ=UTC LC_ALL=C
export ECNWATCH_HASH_SEED=1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

CHECK=0
if [ "${1:-}" = --check ]; then
    CHECK=1
    shift
fi
passed=0
failed=0
t_start=$(date +%s)
count() { # count OK-COUNT FAIL-COUNT
    passed=$((passed + $1))
    failed=$((failed + $2))
}
factor=1
cur=$(mktemp "${TMPDIR:-/tmp}/ecnwatch-check.XXXXXX")
trap 'rm -f "$cur"' EXIT

# suite NAME LIMIT COMMAND... - run a test script that ends "NAME: N passed, M
# failed", stopped after LIMIT*factor seconds; print what is not "ok", and
# count its closing line (a missing one is a failure)
suite() {
    local name=$1 limit=$(($2 * factor)) out p f rc t0
    shift 2
    : >"$cur"
    t0=$(date +%s)
    out=$(EW_TEST_CURRENT=$cur timeout -k 15 "$limit" "$@" 2>&1)
    rc=$?
    echo "$out" | grep -v '^ok'
    if [ $rc = 124 ] || [ $rc = 137 ]; then
        echo "FAIL $name: stopped at its time limit of $limit s, in check: $(cat "$cur")"
        count 0 1
    fi
    read -r p f < <(echo "$out" | awk -v n="$name:" '$1 == n && $3 == "passed," { print $2, $4 }')
    if [ -n "${p:-}" ]; then count "$p" "$f"; else count 0 1; fi
    if [ $CHECK = 0 ] && echo "$out" | grep -q "^$name: skipped"; then
        echo "FAIL $name: skipped under make test, which must run it (as root)"
        count 0 1
    fi
    echo "   ($name: $(($(date +%s) - t0)) s)"
}

for build in "$@"; do
    echo "== $build"
    factor=1
    [ "$build" != "$1" ] && factor=2
    gen=$build/gen
    mkdir -p "$gen"

    # CUnit
    out=$(timeout -k 15 $((600 * factor)) "$build/run_tests" 2>&1)
    rc=$?
    echo "$out" | grep -E 'FAILED|^Run Summary|^ +(suites|tests|asserts)'
    t=$(echo "$out" | awk '$1 == "tests" { print $3, $5 }')
    if [ -n "$t" ] && [ $rc = 0 ]; then
        set -- $t "$@"; count "$(($1 - $2))" "$2"; shift 2
    else
        echo "FAIL unit tests (exit $rc)"; echo "$out" | tail -20; count 0 1
    fi

    # every capture's text, JSON and NDJSON outputs, byte for byte
    suite golden 900 bash tests/golden.sh "$build"

    # re-encapsulate real captures under every link type
    relinked=()
    for link in vlan qinq sll sll2 raw ipv4 ipv6 null loop ppp chdlc ipoib; do
        for base in rfc3168-ce-client accecn-ce-v6-server udp-ect-client; do
            # the IPv4 and IPv6 link types carry one family each
            [ $link = ipv4 ] && [ $base = accecn-ce-v6-server ] && continue
            [ $link = ipv6 ] && [ $base = rfc3168-ce-client ] && continue
            f=$gen/$base-$link.pcap
            if "$build/ecngen" relink "$link" "captures/$base.pcap" "$f" 2>/dev/null; then
                relinked+=("$f")
            else
                echo "FAIL ecngen relink $link $base"; count 0 1
            fi
        done
    done

    # a pcapng file with interfaces of three link types (ecngen hostile
    # pcapng-two-links): swept and cross-checked with the re-encapsulations
    if "$build/ecngen" hostile pcapng-two-links "$gen/pcapng-two-links.pcapng" 2>/dev/null; then
        relinked+=("$gen/pcapng-two-links.pcapng")
    else
        echo "FAIL ecngen hostile pcapng-two-links"; count 0 1
    fi

    # command line
    suite cli 900 bash tests/cli.sh "$build"

    # every output tells the same story of each flow
    suite views 600 bash tests/views.sh "$build"

    # verdicts on real and generated captures
    suite inference 600 bash tests/inference.sh "$build"
    # captures other people recorded: what is known of their testbeds
    suite field 600 bash tests/field.sh "$build"

    # misuse findings, the two-capture localisation against the router's logs,
    # and the path diagnosis (AQM kind, shared bottlenecks, time series, plots)
    suite misuse 600 bash tests/misuse.sh "$build"
    suite path 600 bash tests/path.sh "$build"
    suite pathdiag 900 bash tests/pathdiag.sh "$build"
    # captures as people take them: joined mid-flow, doubled, thinned,
    # behind jitter, through flow queueing, compared over their overlap
    suite imperfect 900 bash tests/imperfect.sh "$build"
    # the plots: ticks, units, gridlines, legends, directions, width; rendered
    suite plots 600 bash tests/plots.sh "$build"

    # QUIC: generated Initial exchanges, their ECN counts validated (RFC 9000 §13.4.2.1)
    suite quic 600 bash tests/quic.sh "$build"

    # snaplen sweep, one check per capture
    for f in captures/*.pcap "${relinked[@]}"; do
        if out=$(timeout -k 15 $((600 * factor)) "$build/sweep" "$f" 2>&1); then
            count 1 0
        else
            echo "FAIL sweep $f"; echo "$out" | tail -5; count 0 1
        fi
    done
    echo "sweep: $(ls captures/*.pcap | wc -l) captures and ${#relinked[@]} re-encapsulations, every snaplen"

    # tshark cross-check, one check per capture
    : >"$cur"
    out=$(EW_TEST_CURRENT=$cur timeout -k 15 $((900 * factor)) \
        bash tests/tshark.sh "$build" captures/*.pcap "${relinked[@]}" 2>&1)
    [ $? = 124 ] && { echo "FAIL tshark: stopped at its time limit, in check: $(cat "$cur")"; count 0 1; }
    echo "$out" | grep -v '^ok' || true
    count "$(echo "$out" | grep -c '^ok')" "$(echo "$out" | grep -c '^FAIL')"
    echo "tshark: $(echo "$out" | grep -c '^ok') captures agree"

    if [ $CHECK = 0 ]; then
        # the live view in tmux, on traffic between network namespaces made for it
        suite live 900 bash tests/live.sh "$build"

        # Prometheus metrics: /metrics scraped with curl and the metrics file, in namespaces made for it
        suite metrics 900 bash tests/metrics.sh "$build"
    fi

    # the files and devices ecnwatch writes to, and start-up checks of them
    suite outputs 300 bash tests/outputs.sh "$build"

    # hostile captures: malformed files and headers, each with its outcome
    suite hostile 600 bash tests/hostile.sh "$build"

    # every report and event line against the JSON Schema (after the tests that fill $build/gen)
    suite schema 1500 bash tests/schema.sh "$build"

    # fuzz regression inputs and hand-made seeds, replayed through each harness
    for h in dissect pipeline quic; do
        dirs=$(ls -d tests/fuzz/seeds/fuzz_$h tests/fuzz/regressions/fuzz_$h 2>/dev/null)
        # a replay of no input would prove nothing
        if out=$(timeout -k 15 $((600 * factor)) "$build/replay_$h" $dirs 2>&1) &&
            ! echo "$out" | grep -q "replay: 0 inputs"; then
            count 1 0; echo "fuzz_$h $out"
        else
            echo "FAIL replay fuzz_$h"; echo "$out" | tail -20; count 0 1
        fi
    done
done

# once, with the first (plain) build: a million flows through a capped table,
# SIGINT mid-read, a failed write (RSS is measured: not under the sanitizers)
plain=$1
factor=1
suite flood 900 bash tests/flood.sh "$plain"

# once: a real Prometheus server scrapes a live ecnwatch; the Grafana
# dashboard's queries evaluated there (root and network namespaces)
if [ $CHECK = 0 ]; then
    suite prometheus 300 bash tests/prometheus.sh "$plain"
fi

# once: the two-thread paths (the file reader, the report's helper) under
# ThreadSanitizer, against the plain build's output
suite threads 1800 bash tests/threads.sh "$plain"

# once: make install and uninstall into a temporary DESTDIR, man pages, bash completion
suite install 600 bash tests/install.sh "$plain"

# once: every "$ COMMAND" example of the README prints what the README shows
suite readme 300 bash tests/readme.sh "$plain"

# once: the source files' dependencies, read from the objects: no cycle
suite deps 300 bash tests/deps.sh "$plain"

# once: every shell suite against a binary that prints nothing and exits 3
if [ $CHECK = 0 ]; then
    suite standin 2400 bash tests/standin.sh "$plain"
else
    suite standin 2400 bash tests/standin.sh "$plain" \
        cli views inference misuse path pathdiag plots quic outputs hostile schema tshark flood threads install readme
fi

# once: each libFuzzer harness for a short while, when clang can build them
if bash tests/fuzz/run.sh --available; then
    suite fuzz 900 make --no-print-directory fuzz-smoke
elif [ $CHECK = 0 ]; then
    echo "FAIL fuzz: clang cannot build libFuzzer binaries here (make deps installs clang)"
    count 0 1
else
    echo "fuzz: clang cannot build libFuzzer binaries here; smoke run not part of this make check"
fi

[ $CHECK = 1 ] && echo "not run by make check (root and network namespaces): live, metrics; make test runs them"
echo "   (all: $(($(date +%s) - t_start)) s)"
echo
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
