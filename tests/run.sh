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
    out=$(bash tests/cli.sh "$build/ecnwatch" 2>&1)
    echo "$out" | grep -v '^ok'
    c=$(echo "$out" | awk '/^cli: [0-9]+ passed/ { print $2, $4 }')
    if [ -n "$c" ]; then set -- $c "$@"; count "$1" "$2"; shift 2; else count 0 1; fi

    # verdicts on real and generated captures
    out=$(bash tests/inference.sh "$build" 2>&1)
    echo "$out" | grep -v '^ok'
    c=$(echo "$out" | awk '/^inference: [0-9]+ passed/ { print $2, $4 }')
    if [ -n "$c" ]; then set -- $c "$@"; count "$1" "$2"; shift 2; else count 0 1; fi

    # misuse findings, the two-capture localisation against the router's logs,
    # and the path diagnosis (AQM kind, shared bottlenecks, time series, plots)
    for t in "misuse.sh $build" "path.sh $build/ecnwatch" "pathdiag.sh $build"; do
        out=$(bash tests/$t 2>&1)
        echo "$out" | grep -v '^ok'
        c=$(echo "$out" | awk '/^(misuse|path|pathdiag): [0-9]+ passed/ { print $2, $4 }')
        if [ -n "$c" ]; then set -- $c "$@"; count "$1" "$2"; shift 2; else count 0 1; fi
    done

    # QUIC: generated Initial exchanges, their ECN counts validated (RFC 9000 §13.4.2.1)
    out=$(bash tests/quic.sh "$build" 2>&1)
    echo "$out" | grep -v '^ok'
    c=$(echo "$out" | awk '/^quic: [0-9]+ passed/ { print $2, $4 }')
    if [ -n "$c" ]; then set -- $c "$@"; count "$1" "$2"; shift 2; else count 0 1; fi

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
    out=$(bash tests/live.sh "$build/ecnwatch" 2>&1)
    echo "$out" | grep -v '^ok'
    c=$(echo "$out" | awk '/^live: [0-9]+ passed/ { print $2, $4 }')
    if [ -n "$c" ]; then set -- $c "$@"; count "$1" "$2"; shift 2; else count 0 1; fi

    # Prometheus metrics: /metrics scraped with curl and the metrics file, in namespaces made for it
    out=$(bash tests/metrics.sh "$build/ecnwatch" 2>&1)
    echo "$out" | grep -v '^ok'
    c=$(echo "$out" | awk '/^metrics: [0-9]+ passed/ { print $2, $4 }')
    if [ -n "$c" ]; then set -- $c "$@"; count "$1" "$2"; shift 2; else count 0 1; fi

    # hostile captures: malformed files and headers, each with its outcome
    out=$(bash tests/hostile.sh "$build/ecnwatch" 2>&1)
    echo "$out" | grep -v '^ok'
    c=$(echo "$out" | awk '/^hostile: [0-9]+ passed/ { print $2, $4 }')
    if [ -n "$c" ]; then set -- $c "$@"; count "$1" "$2"; shift 2; else count 0 1; fi

    # every report and event line against the JSON Schema (after the tests that fill $build/gen)
    out=$(bash tests/schema.sh "$build" 2>&1)
    echo "$out" | grep -v '^ok'
    c=$(echo "$out" | awk '/^schema: [0-9]+ passed/ { print $2, $4 }')
    if [ -n "$c" ]; then set -- $c "$@"; count "$1" "$2"; shift 2; else count 0 1; fi

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
out=$(bash tests/flood.sh "$plain/ecnwatch" 2>&1)
echo "$out"
c=$(echo "$out" | awk '/^flood: [0-9]+ passed/ { print $2, $4 }')
if [ -n "$c" ]; then set -- $c "$@"; count "$1" "$2"; shift 2; else count 0 1; fi

# once: make install and uninstall into a temporary DESTDIR, man pages, bash completion
out=$(bash tests/install.sh "$plain" 2>&1)
echo "$out" | grep -v '^ok'
c=$(echo "$out" | awk '/^install: [0-9]+ passed/ { print $2, $4 }')
if [ -n "$c" ]; then set -- $c "$@"; count "$1" "$2"; shift 2; else count 0 1; fi

# once: each libFuzzer harness for a short while, when clang can build them
if bash tests/fuzz/run.sh --available; then
    out=$(make --no-print-directory fuzz-smoke 2>&1)
    echo "$out" | grep -E '^(ok|FAIL) |^fuzz:|rror'
    c=$(echo "$out" | awk '/^fuzz: [0-9]+ passed/ { print $2, $4 }')
    if [ -n "$c" ]; then set -- $c "$@"; count "$1" "$2"; shift 2; else count 0 1; fi
else
    echo "fuzz: clang cannot build libFuzzer binaries here; smoke run skipped"
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
