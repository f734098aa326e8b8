# lib.sh - the one set-up of every shell suite, and its checks. Each suite
# takes the same arguments, a build folder first (build, build/asan), and
# opens with the same line:
#
#     . "$(dirname "$0")/lib.sh"
#
# which sets: set -u; the working folder (the repository's root); TZ, LC_ALL,
# the hash seed and the sanitizers' options; BUILD (the folder given, as
# given when it names the same folder from the root) and EW ($BUILD/ecnwatch);
# a temporary folder $tmp, removed on exit with every process listed in $bg
# (ended TERM, then KILL) after the commands given to on_exit. A suite
# started without a build folder stops with its usage and exit status 2.
#
# A check passes only on evidence: an exit status that was asked for,
# standard output that is there and parses, a jq expression that yields
# exactly `true`. jq 1.6's `jq -e` exits 0 on empty input, so no check here
# relies on it. Every command runs with a time bound, and every check names
# itself before it runs, so that a suite stopped at its time limit says which
# check hung (run.sh reads EW_TEST_CURRENT).
#
#   on_exit CMD           run CMD on exit, before $bg is ended and $tmp removed
#   abs PATH              PATH as the suite's caller meant it, made absolute
#   begin NAME            the check about to run (written to $EW_TEST_CURRENT)
#   ok NAME / bad NAME    count one check
#   check NAME CMD...     ok when CMD succeeds, else bad with CMD's reason ($why)
#   run_ew RC OUT ERR CMD...
#                         CMD bounded by $EW_CMD_TIMEOUT s; stdout to OUT, stderr
#                         to ERR; fails unless the exit status is RC
#   ew_json OUT ARGS...   "$EW" ARGS with exit 0 and one JSON object in OUT
#   json_ok FILE          FILE is not empty and parses as JSON (one or more values)
#   jq_true FILE EXPR [jq options]
#                         FILE parses, and EXPR over it yields exactly "true"
#   jq_get FILE EXPR [jq options]
#                         EXPR's raw output; fails on an empty or unparsable FILE
#                         or when EXPR yields nothing
#   bounded SECONDS CMD...  CMD, killed with its process group after SECONDS
#   wait_bounded SECONDS PID...  wait for PIDs, killing them after SECONDS
#   wait_rc SECONDS PID   wait for a background PID, its exit status in $rc;
#                         fails (killing it) when it runs longer
#   wait_port SECONDS PORT [NETNS]  a TCP or UDP socket listening on PORT
#   finish NAME           "NAME: N passed, M failed"; the suite's exit status
set -u
EW_CALLER_PWD=$PWD
EW_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$EW_CALLER_PWD/$1" ;; esac; }
if [ -z "${1:-}" ] || [ ! -d "${1:-}" ]; then
    echo "usage: tests/$(basename "$0") BUILD [...]  (BUILD: a build folder, such as build or build/asan)" >&2
    exit 2
fi
BUILD=${1%/}
# a relative folder named from elsewhere than the root is made absolute
[ "$EW_CALLER_PWD" = "$EW_ROOT" ] || BUILD=$(abs "$BUILD")
cd "$EW_ROOT" || exit 2
EW=$BUILD/ecnwatch
export TZ=UTC LC_ALL=C ECNWATCH_HASH_SEED=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecnwatch-$(basename "$0" .sh).XXXXXX")
bg="" # the background processes a suite started: ended on exit
_ew_exit=()
on_exit() { _ew_exit+=("$1"); }
_ew_cleanup() {
    local h p
    # the suite's own shell only: a subshell that ends must not remove what the suite still uses
    [ "$BASHPID" = "$$" ] || return 0
    trap - EXIT INT TERM HUP
    for h in "${_ew_exit[@]}"; do eval "$h"; done
    if [ -n "$bg" ]; then
        for p in $bg; do kill -TERM "$p" 2>/dev/null; done
        sleep 0.3
        for p in $bg; do kill -KILL "$p" 2>/dev/null; done
    fi
    chmod -R u+w "$tmp" 2>/dev/null
    rm -rf "$tmp"
}
trap _ew_cleanup EXIT
trap 'exit 130' INT TERM HUP

pass=0
fail=0
why=""
: "${EW_CMD_TIMEOUT:=120}"

begin() {
    [ -n "${EW_TEST_CURRENT:-}" ] && printf '%s\n' "$*" >"$EW_TEST_CURRENT"
    return 0
}
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

check() { # check NAME CMD...
    local name=$1
    shift
    begin "$name"
    why=""
    if "$@"; then ok "$name"; else bad "$name${why:+: $why}"; fi
}

bounded() { # bounded SECONDS CMD...
    local s=$1
    shift
    timeout -k 5 "$s" "$@"
}

run_ew() { # run_ew RC OUT ERR CMD...
    local want=$1 out=$2 err=$3 got
    shift 3
    timeout -k 5 "$EW_CMD_TIMEOUT" "$@" >"$out" 2>"$err"
    got=$?
    if [ "$got" = 124 ] || [ "$got" = 137 ]; then
        why="timed out after $EW_CMD_TIMEOUT s: $*"
        return 1
    fi
    if [ "$got" != "$want" ]; then
        why="exit $got, want $want ($(head -c 200 "$err" | tr '\n' ' '))"
        return 1
    fi
    return 0
}

json_ok() { # json_ok FILE
    if [ ! -s "$1" ]; then
        why="no output"
        return 1
    fi
    if ! jq -e 'true' "$1" >/dev/null 2>&1; then
        why="output is not JSON: $(head -c 120 "$1" | tr '\n' ' ')"
        return 1
    fi
    return 0
}

ew_json() { # ew_json OUT ARGS...  (the report of "$EW" ARGS, exit 0)
    local out=$1
    shift
    run_ew 0 "$out" "$out.err" "$EW" "$@" || return 1
    json_ok "$out" || return 1
    if [ "$(jq -r 'type' "$out" 2>/dev/null | head -1)" != object ]; then
        why="the report is not a JSON object"
        return 1
    fi
    return 0
}

jq_true() { # jq_true FILE EXPR [jq options]
    local f=$1 e=$2 got
    shift 2
    json_ok "$f" || return 1
    got=$(jq "$@" "$e" "$f" 2>&1)
    if [ "$got" != true ]; then
        why="jq '$(echo "$e" | tr -s ' \n' '  ' | head -c 100)' gave '$(echo "$got" | head -c 200 | tr '\n' ' ')'"
        return 1
    fi
    return 0
}

jq_get() { # jq_get FILE EXPR [jq options]
    local f=$1 e=$2 got
    shift 2
    json_ok "$f" || return 1
    if ! got=$(jq "$@" "$e" "$f" 2>&1) || [ -z "$got" ]; then
        why="jq '$(echo "$e" | head -c 100)' gave nothing${got:+: $got}"
        return 1
    fi
    printf '%s\n' "$got"
}

wait_bounded() { # wait_bounded SECONDS PID...  (0 when every PID ended in time)
    local s=$1 t=0 p alive
    shift
    while :; do
        alive=0
        for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && break
        if [ $t -ge $((s * 10)) ]; then
            for p in "$@"; do kill -TERM "$p" 2>/dev/null; done
            sleep 1
            for p in "$@"; do kill -KILL "$p" 2>/dev/null; done
            why="still running after $s s"
            for p in "$@"; do wait "$p" 2>/dev/null; done
            return 1
        fi
        sleep 0.1
        t=$((t + 1))
    done
    for p in "$@"; do wait "$p" 2>/dev/null; done
    return 0
}

rc=""
wait_rc() {
    local t=0
    while kill -0 "$2" 2>/dev/null; do
        if [ $t -ge $(($1 * 10)) ]; then
            kill -TERM "$2" 2>/dev/null
            sleep 1
            kill -KILL "$2" 2>/dev/null
            wait "$2" 2>/dev/null
            rc=killed
            why="still running after $1 s"
            return 1
        fi
        sleep 0.1
        t=$((t + 1))
    done
    wait "$2"
    rc=$?
    return 0
}

wait_port() { # wait_port SECONDS PORT [NETNS]
    local s=$1 port=$2 ns=${3:-} t=0
    while [ $t -lt $((s * 10)) ]; do
        if [ -n "$ns" ]; then
            ip netns exec "$ns" ss -Hltnu "sport = :$port" 2>/dev/null | grep -q . && return 0
        else
            ss -Hltnu "sport = :$port" 2>/dev/null | grep -q . && return 0
        fi
        sleep 0.1
        t=$((t + 1))
    done
    why="nothing listening on port $port${ns:+ in $ns} after $s s"
    return 1
}

# wait_http SECONDS NETNS URL PID: until URL answers 200 from inside NETNS, PID
# (the server) ends, or SECONDS pass; the last HTTP status in $code
wait_http() {
    local end=$((SECONDS + $1))
    code=000
    while [ $SECONDS -lt $end ]; do
        code=$(bounded 10 ip netns exec "$2" curl -s -m 2 -o /dev/null -w '%{http_code}' "$3")
        [ "$code" = 200 ] && return 0
        kill -0 "$4" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

finish() { # finish NAME
    begin "(finished)"
    echo "$1: $pass passed, $fail failed"
    [ "$fail" = 0 ]
}
