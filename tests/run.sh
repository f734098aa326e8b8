#!/usr/bin/env bash
# run.sh BUILD [BUILD...] - every test, once per build directory given (the
# plain build and the AddressSanitizer + UndefinedBehaviorSanitizer build):
# CUnit suites, the command line, the snaplen sweep and the tshark
# cross-check, over the captures in captures/ and their re-encapsulations
# under every supported link type. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
export TZ=UTC LC_ALL=C
export ECNWATCH_HASH_SEED=1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

passed=0
failed=0
count() { # count OK-COUNT FAIL-COUNT
    passed=$((passed + $1))
    failed=$((failed + $2))
}

# suite NAME COMMAND... - run a test script that ends "NAME: N passed, M failed";
# print what is not "ok", and count its closing line (a missing one is a failure)
suite() {
    local name=$1 out p f
    shift
    out=$("$@" 2>&1)
    echo "$out" | grep -v '^ok'
    read -r p f < <(echo "$out" | awk -v n="$name:" '$1 == n && $3 == "passed," { print $2, $4 }')
    if [ -n "${p:-}" ]; then count "$p" "$f"; else count 0 1; fi
}

for build in "$@"; do
    echo "== $build"
    gen=$build/gen
    mkdir -p "$gen"

    # CUnit
    out=$("$build/run_tests" 2>&1)
    rc=$?
    echo "$out" | grep -E 'FAILED|^Run Summary|^ +(suites|tests|asserts)'
    t=$(echo "$out" | awk '$1 == "tests" { print $3, $5 }')
    if [ -n "$t" ] && [ $rc = 0 ]; then
        set -- $t "$@"; count "$(($1 - $2))" "$2"; shift 2
    else
        echo "FAIL unit tests (exit $rc)"; echo "$out" | tail -20; count 0 1
    fi

    # re-encapsulate real captures under every link type
    relinked=()
    for link in vlan qinq sll sll2 raw ipv4 ipv6 null loop; do
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

    # command line
    suite cli bash tests/cli.sh "$build/ecnwatch"

    # verdicts on real and generated captures
    suite inference bash tests/inference.sh "$build"

    # misuse findings, the two-capture localisation against the router's logs,
    # and the path diagnosis (AQM kind, shared bottlenecks, time series, plots)
    suite misuse bash tests/misuse.sh "$build"
    suite path bash tests/path.sh "$build/ecnwatch"
    suite pathdiag bash tests/pathdiag.sh "$build"

    # QUIC: generated Initial exchanges, their ECN counts validated (RFC 9000 §13.4.2.1)
    suite quic bash tests/quic.sh "$build"

    # snaplen sweep, one check per capture
    for f in captures/*.pcap "${relinked[@]}"; do
        if out=$("$build/sweep" "$f" 2>&1); then
            count 1 0
        else
            echo "FAIL sweep $f"; echo "$out" | tail -5; count 0 1
        fi
    done
    echo "sweep: $(ls captures/*.pcap | wc -l) captures and ${#relinked[@]} re-encapsulations, every snaplen"

    # tshark cross-check, one check per capture
    out=$(bash tests/tshark_check.sh "$build/ecnwatch" captures/*.pcap "${relinked[@]}" 2>&1)
    echo "$out" | grep -v '^ok' || true
    count "$(echo "$out" | grep -c '^ok')" "$(echo "$out" | grep -c '^FAIL')"
    echo "tshark: $(echo "$out" | grep -c '^ok') captures agree"

    # the live view in tmux, on traffic between network namespaces made for it
    suite live bash tests/live.sh "$build/ecnwatch"

    # Prometheus metrics: /metrics scraped with curl and the metrics file, in namespaces made for it
    suite metrics bash tests/metrics.sh "$build/ecnwatch"

    # hostile captures: malformed files and headers, each with its outcome
    suite hostile bash tests/hostile.sh "$build/ecnwatch"

    # every report and event line against the JSON Schema (after the tests that fill $build/gen)
    suite schema bash tests/schema.sh "$build"

    # fuzz regression inputs and hand-made seeds, replayed through each harness
    for h in dissect pipeline quic; do
        dirs=$(ls -d tests/fuzz/seeds/fuzz_$h tests/fuzz/regressions/fuzz_$h 2>/dev/null)
        # a replay of no input would prove nothing
        if out=$("$build/replay_$h" $dirs 2>&1) && ! echo "$out" | grep -q "replay: 0 inputs"; then
            count 1 0; echo "fuzz_$h $out"
        else
            echo "FAIL replay fuzz_$h"; echo "$out" | tail -20; count 0 1
        fi
    done
done

# once, with the first (plain) build: a million flows through a capped table,
# SIGINT mid-read, a failed write (RSS is measured: not under the sanitizers)
plain=$1
suite flood bash tests/flood.sh "$plain/ecnwatch"

# once: the two-thread paths (the file reader, the report's helper) under
# ThreadSanitizer, against the plain build's output
suite threads bash tests/threads.sh "$plain"

# once: make install and uninstall into a temporary DESTDIR, man pages, bash completion
suite install bash tests/install.sh "$plain"

# once: each libFuzzer harness for a short while, when clang can build them
if bash tests/fuzz/run.sh --available; then
    suite fuzz make --no-print-directory fuzz-smoke
else
    echo "fuzz: clang cannot build libFuzzer binaries here; smoke run skipped"
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
