#!/usr/bin/env bash
# run.sh SECONDS HARNESS... - run each libFuzzer harness in build/fuzz/ for
# SECONDS, one after the other, on its corpus (build/fuzz/corpus-HARNESS,
# which grows), the seeds cut from captures/ (build/fuzz/seeds-HARNESS), the
# hand-made seeds and the regression inputs (tests/fuzz/seeds/HARNESS,
# tests/fuzz/regressions/HARNESS). Crashing inputs are saved in
# build/fuzz/artifacts/HARNESS-crash-*. One line per harness with libFuzzer's final figures;
# ends with "fuzz: N passed, N failed".
#   run.sh --available   exit 0 when clang can build a libFuzzer binary
# Extra libFuzzer flags can be given in FUZZ_OPTS (e.g. "-max_len=4096");
# FUZZ_OUT moves the corpus, logs and artifacts elsewhere (default build/fuzz).
set -u
cd "$(dirname "$0")/../.." || exit 2
FB=build/fuzz
OUT=${FUZZ_OUT:-$FB}
CC=${FUZZ_CC:-clang}

if [ "${1:-}" = --available ]; then
    t=$(mktemp -d)
    cat >"$t/a.c" <<'EOF'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
EOF
    "$CC" -fsanitize=fuzzer,address,undefined -o "$t/a" "$t/a.c" >/dev/null 2>&1 &&
        "$t/a" -runs=1 >/dev/null 2>&1
    rc=$?
    rm -rf "$t"
    exit $rc
fi

secs=$1
shift
pass=0
fail=0
mkdir -p "$OUT/artifacts"
for h in "$@"; do
    corpus=$OUT/corpus-$h
    mkdir -p "$corpus"
    dirs=("$corpus")
    for d in "$FB/seeds-$h" "tests/fuzz/seeds/$h" "tests/fuzz/regressions/$h"; do
        [ -d "$d" ] && dirs+=("$d")
    done
    log=$OUT/$h.log
    # shellcheck disable=SC2086
    "$FB/$h" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$OUT/artifacts/$h-" \
        -timeout=10 -rss_limit_mb=2048 ${FUZZ_OPTS:-} "${dirs[@]}" >"$log" 2>&1
    rc=$?
    execs=$(awk '/stat::number_of_executed_units/ { print $2 }' "$log")
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p')
    line="$h: ${secs}s, ${execs:-?} execs, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}"
    if [ $rc = 0 ] && ! grep -qE '^==[0-9]+==ERROR|runtime error|deadly signal' "$log"; then
        echo "ok   $line"
        pass=$((pass + 1))
    else
        echo "FAIL $line (exit $rc, see $log)"
        grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$log" | head -5
        fail=$((fail + 1))
    fi
done
echo "fuzz: $pass passed, $fail failed"
[ $fail = 0 ]
