#!/usr/bin/env bash
# readme.sh BUILD [--update] - every "$ COMMAND" example in README.md is run
# with BUILD's binaries and its printed output must be the README's, line for
# line (tests/readme.py); --update writes the outputs into README.md instead.
# Ends "readme: N passed, N failed".
. "$(dirname "$0")/lib.sh"
mode=check
[ "${2:-}" = --update ] && mode=update
timeout -k 5 600 python3 tests/readme.py "$mode" "$BUILD" README.md
