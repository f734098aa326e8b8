# netns.sh - the test network of the suites that watch live traffic (live,
# metrics, prometheus), sourced after lib.sh. Every address it uses is inside
# network namespaces made here, named after the suite's process so that two
# runs never meet; on exit whatever runs in them is ended (TERM, then KILL)
# and they are removed, each step bounded in time.
#
#   netns_pair TAG NET  two hosts: namespaces $NS_C and $NS_S (ewTAG-c$$,
#                       ewTAG-s$$) joined by a veth pair, c0 (NET.1/24) in the
#                       client's and s0 (NET.2/24) in the server's; loopback
#                       up and classic ECN asked for on both. $SERVER is NET.2
#   netns_one TAG       one host: namespace $NS (ewTAG$$), its loopback up and
#                       classic ECN asked for; $NS_C and $NS_S are $NS, and
#                       $SERVER is 127.0.0.1
#                       Both return 0 when the network is up; 2 when this
#                       machine cannot make namespaces (not root, or no
#                       support), the reason in $why; 1 when a step failed,
#                       the step and its error in $why
#   netns_step CMD...   one more step of the set-up, as above (20 s at most)
#   traffic_server SECONDS  the test traffic's server (tests/traffic.py) in
#                       $NS_S on $SERVER: 0 once it listens on TCP 5201 and
#                       UDP 6001 (its pid in $tsp, and in $bg)
#   traffic_client SECONDS  the client from $NS_C: a TCP transfer (classic
#                       ECN, data ECT(0)) and UDP datagrams marked ECT(1); then
#                       the server's end
#   traffic SECONDS     both, the client once the server listens
# The traffic is not a check of ecnwatch: it counts (bad) only when it fails.
# The programs a suite runs beside its traffic (vxlan, probe), each bounded:
#   started NAME PID PATTERN FILE  PID's output FILE has a line matching PATTERN
#   nfq NAME NS PROGRAM ARGS...    an NFQUEUE program in NS; nfq_end NAME PID
#   cap NAME NS DEV FILTER         tcpdump into $tmp/NAME.pcap; cap_settle FILE...,
#                                  cap_end NAME PID
#   netns_or_skip SUITE CMD...     CMD builds the network; the suite ends skipped
#                                  when no namespace can be made here
NS_C=""
NS_S=""
NS=""
SERVER=""
TRAFFIC=$EW_ROOT/tests/traffic.py
_ew_netns=""  # the namespaces made here
_ew_setup=""  # the first step that failed

_ew_netns_cleanup() {
    local ns
    [ -n "$_ew_netns" ] || return 0
    for ns in $_ew_netns; do bounded 5 ip netns pids "$ns" 2>/dev/null | xargs -r kill -TERM 2>/dev/null; done
    sleep 0.3
    for ns in $_ew_netns; do
        bounded 5 ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
        bounded 10 ip netns del "$ns" 2>/dev/null
    done
    _ew_netns=""
}
on_exit _ew_netns_cleanup

netns_step() { # netns_step CMD...
    [ -n "$_ew_setup" ] && return 1
    bounded 20 "$@" >/dev/null 2>"$tmp/netns.err" && return 0
    _ew_setup="$* ($(head -c 200 "$tmp/netns.err" | tr '\n' ' '))"
    why=$_ew_setup
    return 1
}

# _ew_netns_add NAME: the first namespace; 2 when none can be made here
_ew_netns_add() {
    if [ "$(id -u)" != 0 ]; then
        why="needs root to create network namespaces"
        return 2
    fi
    if ! bounded 10 ip netns add "$1" 2>/dev/null; then
        why="this machine cannot create network namespaces"
        return 2
    fi
    _ew_netns="$_ew_netns $1"
}

netns_pair() { # netns_pair TAG NET
    local st
    NS_C=ew$1-c$$
    NS_S=ew$1-s$$
    SERVER=$2.2
    _ew_netns_add "$NS_C" || { st=$?; return $st; }
    _ew_setup=""
    netns_step ip netns add "$NS_S" && _ew_netns="$_ew_netns $NS_S"
    netns_step ip link add c0 netns "$NS_C" type veth peer name s0 netns "$NS_S"
    netns_step ip -n "$NS_C" addr add "$2.1/24" dev c0
    netns_step ip -n "$NS_S" addr add "$2.2/24" dev s0
    netns_step ip -n "$NS_C" link set c0 up
    netns_step ip -n "$NS_S" link set s0 up
    netns_step ip -n "$NS_C" link set lo up
    netns_step ip -n "$NS_S" link set lo up
    netns_step ip netns exec "$NS_C" sysctl -qw net.ipv4.tcp_ecn=1 # the client asks for classic ECN
    netns_step ip netns exec "$NS_S" sysctl -qw net.ipv4.tcp_ecn=1
    [ -z "$_ew_setup" ] || { why=$_ew_setup; return 1; }
}

netns_one() { # netns_one TAG
    local st
    NS=ew$1$$
    NS_C=$NS
    NS_S=$NS
    SERVER=127.0.0.1
    _ew_netns_add "$NS" || { st=$?; return $st; }
    _ew_setup=""
    netns_step ip -n "$NS" link set lo up
    netns_step ip netns exec "$NS" sysctl -qw net.ipv4.tcp_ecn=1
    [ -z "$_ew_setup" ] || { why=$_ew_setup; return 1; }
}

tsp=""
traffic_server() { # traffic_server SECONDS
    why=""
    bounded $(($1 + 60)) ip netns exec "$NS_S" python3 "$TRAFFIC" server "$1" "$SERVER" >"$tmp/server.out" 2>&1 &
    tsp=$!
    bg="$bg $tsp"
    if ! wait_port 30 5201 "$NS_S" || ! wait_port 10 6001 "$NS_S"; then
        bad "traffic: the server: $why $(head -c 300 "$tmp/server.out" | tr '\n' ' ')"
        wait_bounded 1 "$tsp"
        return 1
    fi
}

traffic_client() { # traffic_client SECONDS
    why=""
    if ! bounded $(($1 + 60)) ip netns exec "$NS_C" python3 "$TRAFFIC" client "$1" "$SERVER" >"$tmp/client.out" 2>&1; then
        bad "traffic: the client failed: $(head -c 300 "$tmp/client.out" | tr '\n' ' ')"
        wait_bounded 5 "$tsp"
        return 1
    fi
    if ! wait_rc 30 "$tsp" || [ "$rc" != 0 ]; then
        bad "traffic: the server: ${why:-exit $rc} $(head -c 300 "$tmp/server.out" | tr '\n' ' ')"
        return 1
    fi
}

traffic() { traffic_server "$1" && traffic_client "$1"; } # traffic SECONDS

# started NAME PID PATTERN FILE: 0 once FILE (PID's output) has a line
# matching PATTERN, 10 s at most; else the output's start in $why
started() {
    local t=0
    until grep -q "$3" "$4" 2>/dev/null; do
        if ! kill -0 "$2" 2>/dev/null || [ $t -ge 100 ]; then
            why="$1: not started: $(head -c 200 "$4" | tr '\n' ' ')"
            return 1
        fi
        sleep 0.1
        t=$((t + 1))
    done
}

# Both programs run under timeout itself (bounded is a function, and a
# function in the background is a shell, which passes no signal on): the
# pid kept is timeout's, which passes TERM on to the program.
# nfq NAME NS PROGRAM ARGS...: an NFQUEUE program (the lab's nfq_ecn,
# tests/tools/pathbox) in NS, that pid in $nfq_pid; it prints "ready" once it
# reads its queue, and writes its summary to -s $tmp/NAME.json when it is
# ended (TERM); 0 once it is ready
nfq_pid=""
nfq() {
    local name=$1 ns=$2 prog=$3
    shift 3
    rm -f "$tmp/$name.json"
    timeout -k 5 300 ip netns exec "$ns" "$prog" "$@" -s "$tmp/$name.json" >"$tmp/$name.out" 2>&1 &
    nfq_pid=$!
    bg="$bg $nfq_pid"
    started "$(basename "$prog") $*" $nfq_pid '^ready' "$tmp/$name.out"
}
# nfq_end NAME PID: ends it; 0 when it wrote its summary
nfq_end() {
    kill -TERM "$2" 2>/dev/null
    wait_rc 10 "$2" || return 1
    json_ok "$tmp/$1.json" || { why="$1 wrote no summary: $why"; return 1; }
}

# cap NAME NS DEV FILTER: tcpdump into $tmp/NAME.pcap, that pid in $cap_pid;
# 0 once it listens
cap_pid=""
cap() {
    timeout -k 5 300 ip netns exec "$2" tcpdump -Z root -U --immediate-mode -n -B 8192 -s 256 -i "$3" \
        -w "$tmp/$1.pcap" "$4" 2>"$tmp/$1.tcpdump" &
    cap_pid=$!
    bg="$bg $cap_pid"
    started "tcpdump on $3" $cap_pid 'listening on' "$tmp/$1.tcpdump"
}
# cap_settle FILE...: until the captures stop growing (tcpdump ends at TERM
# without reading what its ring still holds), 20 s at most
cap_settle() {
    local t=0 same=0 now last=""
    while [ $same -lt 5 ] && [ $t -lt 100 ]; do
        now=$(stat -c %s "$@" 2>/dev/null | tr '\n' ' ')
        if [ "$now" = "$last" ]; then same=$((same + 1)); else same=0; fi
        last=$now
        sleep 0.2
        t=$((t + 1))
    done
}
# cap_end NAME PID: tcpdump ended (TERM, passed on by timeout); 0 when it
# wrote every packet its filter took, and the kernel dropped none
cap_end() {
    local got took
    kill -TERM "$2" 2>/dev/null
    wait_rc 10 "$2" || return 1
    got=$(awk '$2 == "packets" && $3 == "captured" { print $1 }' "$tmp/$1.tcpdump")
    took=$(awk '$3 == "received" && $5 == "filter" { print $1 }' "$tmp/$1.tcpdump")
    if [ -z "$got" ] || [ "$got" != "$took" ] || ! grep -q '^0 packets dropped by kernel' "$tmp/$1.tcpdump"; then
        why="tcpdump on $1: $(tail -n +2 "$tmp/$1.tcpdump" | tr '\n' ' ')"
        return 1
    fi
}

# netns_or_skip SUITE CMD...: CMD builds the suite's network (0: up; 2: no
# namespaces can be made here; else a step failed, the step in $why); on 2
# the suite ends skipped ("SUITE: 0 passed, 0 failed"), on a failure it ends
# with that failure counted
netns_or_skip() {
    local suite=$1
    shift
    "$@"
    case $? in
    0) return 0 ;;
    2) echo "$suite: skipped: $why"; echo "$suite: 0 passed, 0 failed"; exit 0 ;;
    *) bad "setting up the namespaces: $why"; finish "$suite"; exit ;;
    esac
}
