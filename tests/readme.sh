#!/usr/bin/env bash
# readme.sh [--update] BUILD - every "$ COMMAND" example in README.md is run
# with BUILD's binaries and its printed output must be the README's, line for
# line (tests/readme.py); --update writes the outputs into README.md instead.
# Ends "readme: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
mode=check
if [ "${1:-}" = --update ]; then
    mode=update
    shift
fi
exec timeout -k 5 600 python3 tests/readme.py "$mode" "$1" README.md
