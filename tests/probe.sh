#!/usr/bin/env bash
# probe.sh BUILD - the active probe (ecnwatch --probe HOST[:PORT]) through a
# path of real Linux routers, in five network namespaces this script
# creates (addresses inside them only), one router at a time made to break
# ECN in a known way:
#
#   S ---- R1 ---- R2 ---- R3 ---- D       link k: 10.213.k.0/24, fd00:213:k::/64
#     l1      l2      l3      l4           the hop toward S .1, toward D .2
#
# Hop limit 1 expires at R1, 2 at R2, 3 at R3; 4 reaches D (10.213.4.2,
# fd00:213:4::2), which listens on TCP 80 and has UDP 443 closed (its Port
# Unreachable quotes the datagram). Each router answers from its address
# toward S (10.213.k.2), and neither a router nor D limits its ICMP rate.
# D asks for classic ECN (net.ipv4.tcp_ecn=1): this kernel (6.18) has the
# AccECN option sysctls (tcp_ecn_option) but refuses tcp_ecn=3 (EINVAL), so
# D does not negotiate AccECN; the probe's AccECN setup SYN still crosses
# the routers as sent, and the suite judges the path, never D's answer.
#
# A broken router is router k running tests/tools/pathbox (built here) on
# an NFQUEUE of its mangle PREROUTING, for what arrives from S's side: its
# own ICMP quote already shows the change, so the probe must name hop k as
# the first changed and hop k-1 as the last as sent (0: the sender). For
# shortquote the queue is router k's mangle OUTPUT, for the ICMP it sends.
# The cases: clean; bleach at R2 (IPv4, and IPv6 as [fd00:213:4::2]:80);
# remark01 at R1; clearce at R3; stripsyn, stripopt, dropecnsyn, shortquote
# and shortquote with stripsyn at R2; then the misuse of the command line
# (not root: exit 3; a bad target: exit 2).
#
# Before ecnwatch is judged, every set-up is checked apart from it (a set-up
# that did not do what it should is a failure, never a pass): the suite's
# own packets (tests/pathwitness.py: one of each probe type at each hop
# limit, captured on S's link and read by tshark) must come back from each
# hop changed exactly as the box should change them, and the box's summary
# must count what it changed or dropped. In the bleach case the probe's own
# packets are captured on R1's link toward R2 and R3's toward R2, and
# ecnwatch's two-capture comparison of those must say what the probe says.
#
# When this machine cannot make namespaces (not root) it prints why and
# "probe: 0 passed, 0 failed"; make test counts that skip as a failure.
# Ends "probe: N passed, N failed". EW_PROBE_KEEP=DIR keeps the captures,
# reports and summaries there; EW_PROBE_CASES="clean bleach-v4 ..." runs
# only those cases.
. "$(dirname "$0")/lib.sh"

PROBE_OPTS="--probe-max-ttl 8 --probe-rate 200 --probe-wait 500"
Q_IN=5 Q_OUT=6 # the NFQUEUE numbers (each router has its own)
S4=10.213.1.1 D4=10.213.4.2
S6=fd00:213:1::1 D6=fd00:213:4::2
# the ECN probe types and the others
ECN_TCP="tcp_ect0 tcp_ect1 tcp_ce"
ECN_UDP="udp_ect0 udp_ect1 udp_ce"
ALL_TYPES="tcp_plain tcp_ect0 tcp_ect1 tcp_ce tcp_ecn_setup tcp_accecn_setup tcp_accecn_option udp_not_ect udp_ect0 udp_ect1 udp_ce"

ns_of() { local a; read -ra a <<<"$HOPS"; echo "${a[$1]}"; } # ns_of HOP: its namespace
addr_of() { [ "$2" = 6 ] && echo "fd00:213:$1::2" || echo "10.213.$1.2"; } # addr_of HOP FAM: its address toward S

# the NFQUEUE rules go before the namespaces (netns.sh removes those on exit,
# after this): a queue left without its reader must not hold packets
rules_clean() {
    local ns t
    for ns in $ROUTERS; do
        ip netns list 2>/dev/null | grep -qw "$ns" || continue
        for t in iptables-legacy ip6tables-legacy; do
            bounded 10 ip netns exec "$ns" $t -t mangle -F 2>/dev/null
        done
    done
}
on_exit rules_clean
. "$(dirname "$0")/netns.sh"
# the namespaces (after netns.sh, which clears NS_S)
NS_S=ewpb-s$$ NS_R1=ewpb-r1$$ NS_R2=ewpb-r2$$ NS_R3=ewpb-r3$$ NS_D=ewpb-d$$
HOPS="$NS_S $NS_R1 $NS_R2 $NS_R3 $NS_D" # hop n is the (n+1)th
ROUTERS="$NS_R1 $NS_R2 $NS_R3"

# needs: what the suite needs besides ecnwatch, pathbox built; missing, it fails
needs() {
    local t
    for t in tcpdump tshark iptables-legacy ip6tables-legacy ethtool gcc pkg-config python3 setpriv jq; do
        command -v "$t" >/dev/null || { why="no $t (bash scripts/install-deps.sh installs it)"; return 1; }
    done
    if ! pkg-config --exists libnetfilter_queue; then
        why="no libnetfilter_queue (bash scripts/install-deps.sh installs libnetfilter-queue-dev)"
        return 1
    fi
    # shellcheck disable=SC2046 # pkg-config's flags are words
    if ! gcc -O2 -Wall -Werror -o "$tmp/pathbox" tests/tools/pathbox.c $(pkg-config --cflags --libs libnetfilter_queue) \
        2>"$tmp/gcc.err"; then
        why="pathbox does not build: $(head -c 300 "$tmp/gcc.err" | tr '\n' ' ')"
        return 1
    fi
}

# ------------------------------------------------------------ the network
# topology: 0 when the path is up; 2 when no namespace can be made here
topology() {
    local n k j ns
    _ew_netns_add "$NS_S" || return
    _ew_setup=""
    for ns in $NS_R1 $NS_R2 $NS_R3 $NS_D; do netns_step ip netns add "$ns" && _ew_netns="$_ew_netns $ns"; done
    for ns in $HOPS; do
        netns_step ip -n "$ns" link set lo up
        netns_step ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
    done
    for k in 1 2 3 4; do
        netns_step ip link add l$k netns "$(ns_of $((k - 1)))" type veth peer name l$k netns "$(ns_of $k)"
        for j in 1 2; do
            n=$((k - 2 + j))
            ns=$(ns_of $n)
            netns_step ip -n "$ns" addr add 10.213.$k.$j/24 dev l$k
            netns_step ip -n "$ns" addr add fd00:213:$k::$j/64 dev l$k nodad
            netns_step ip netns exec "$ns" ethtool -K l$k tx off tso off gso off gro off
            netns_step ip -n "$ns" link set l$k up
        done
    done
    # routes: toward S through the link below, toward D through the link above
    for n in 0 1 2 3 4; do
        ns=$(ns_of $n)
        for k in 1 2 3 4; do
            [ $k = $n ] || [ $k = $((n + 1)) ] && continue
            if [ $k -lt $n ]; then
                netns_step ip -n "$ns" route add 10.213.$k.0/24 via 10.213.$n.1
                netns_step ip -n "$ns" -6 route add fd00:213:$k::/64 via fd00:213:$n::1
            else
                netns_step ip -n "$ns" route add 10.213.$k.0/24 via 10.213.$((n + 1)).2
                netns_step ip -n "$ns" -6 route add fd00:213:$k::/64 via fd00:213:$((n + 1))::2
            fi
        done
    done
    # every answer counts: no ICMP rate limit, answers from the interface toward S
    for ns in $NS_R1 $NS_R2 $NS_R3 $NS_D; do
        netns_step ip netns exec "$ns" sysctl -qw net.ipv4.icmp_ratelimit=0 net.ipv6.icmp.ratelimit=0 \
            net.ipv4.icmp_msgs_per_sec=100000 net.ipv4.icmp_msgs_burst=100000 \
            net.ipv4.icmp_errors_use_inbound_ifaddr=1
    done
    for ns in $ROUTERS; do
        netns_step ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
    done
    netns_step ip netns exec "$NS_D" sysctl -qw net.ipv4.tcp_ecn=1
    [ -z "$_ew_setup" ] || { why=$_ew_setup; return 1; }
}

# hops_answer FAM: from S, a datagram to UDP 443 at hop limit k expires at
# hop k (1-3), answered from that hop's address; at 4 D answers Port
# Unreachable (nothing listens there)
hops_answer() {
    local fam=$1 d out want
    d=$([ "$fam" = 6 ] && echo $D6 || echo $D4)
    out=$(bounded 30 ip netns exec "$NS_S" python3 tests/pathwitness.py hops $d 2>&1)
    if [ "$fam" = 6 ]; then
        want="1 3 $(addr_of 1 6)|2 3 $(addr_of 2 6)|3 3 $(addr_of 3 6)|4 1 $D6"
    else
        want="1 11 $(addr_of 1 4)|2 11 $(addr_of 2 4)|3 11 $(addr_of 3 4)|4 3 $D4"
    fi
    [ "$(echo "$out" | tr '\n' '|' | sed 's/|$//')" = "$want" ] && return 0
    why="hop limit, ICMP type, from: $(echo "$out" | tr '\n' '|'), want $want"
    return 1
}

# the listener on D: TCP 80 on both families, until the suite ends
listener() {
    bounded 900 ip netns exec "$NS_D" python3 -c '
import socket
s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("::", 80))
s.listen(128)
s.settimeout(5)
while True:
    try:
        c, _ = s.accept()
        c.close()
    except socket.timeout:
        pass
' >"$tmp/listener.out" 2>&1 &
    bg="$bg $!"
    wait_port 10 80 "$NS_D" || return 1
    if bounded 10 ip netns exec "$NS_D" ss -Hlun "sport = :443" | grep -q .; then
        why="something listens on UDP 443 in D"
        return 1
    fi
}

# ---------------------------------------------------------- the processes
# (netns.sh: started, nfq, nfq_end, cap, cap_settle, cap_end)
# box NAME NS QUEUE MODE: pathbox in NS, its pid in $box_pid, its summary
# $tmp/NAME.json when it ends
box_pid=""
box() {
    nfq "$1" "$2" "$tmp/pathbox" -q "$3" -m "$4" && box_pid=$nfq_pid
}
# capture NAME NS DEV / capture_end NAME PID: every IP packet on DEV
capture() { cap "$1" "$2" "$3" 'ip or ip6'; }
capture_end() { cap_settle "$tmp/$1.pcap"; cap_end "$@"; }

# truth CASE MESSAGE CMD...: a fact of the set-up, shown; a failure when it
# does not hold (never a pass: it is not a check of ecnwatch)
truth() {
    local c=$1 msg=$2
    shift 2
    why=""
    if "$@"; then
        echo "     ground truth ($c): $msg"
    else
        bad "ground truth ($c): $msg${why:+ ($why)}"
        why=""
    fi
}

# ------------------------------------------------------------ the witness
# witness CASE FAM: the suite's own packets from S, their answers captured
# on S's link, read by tshark into $tmp/CASE.w (a JSON line an answer)
witness() {
    local c=$1 fam=$2 s d
    s=$([ "$fam" = 6 ] && echo $S6 || echo $S4)
    d=$([ "$fam" = 6 ] && echo $D6 || echo $D4)
    capture "$c-w" "$NS_S" l1 || return 1
    bounded 30 ip netns exec "$NS_S" python3 tests/pathwitness.py send $s $d >"$tmp/$c-w.out" 2>&1 ||
        { why="pathwitness: $(head -c 300 "$tmp/$c-w.out" | tr '\n' ' ')"; capture_end "$c-w" $cap_pid; return 1; }
    capture_end "$c-w" $cap_pid || return 1
    bounded 120 python3 tests/pathwitness.py table "$tmp/$c-w.pcap" $s >"$tmp/$c.w" 2>"$tmp/$c.w.err" ||
        { why="reading the witness: $(head -c 300 "$tmp/$c.w.err" | tr '\n' ' ')"; return 1; }
}
# w CASE EXPR: EXPR (jq, over the array of the witness's answers, with $sent
# the ECN field each type was sent with and $h the hops' addresses) is true
W_DEFS='{"tcp_plain":"not_ect","tcp_ect0":"ect0","tcp_ect1":"ect1","tcp_ce":"ce","tcp_ecn_setup":"not_ect",
 "tcp_accecn_setup":"not_ect","tcp_accecn_option":"not_ect","udp_not_ect":"not_ect","udp_ect0":"ect0",
 "udp_ect1":"ect1","udp_ce":"ce"} as $sent'
w() {
    local f=$tmp/$1.w e=$2 got
    [ -s "$f" ] || { why="no answer captured"; return 1; }
    got=$(jq -s --argjson h "$HOPADDR" "$W_DEFS | $e" "$f" 2>&1)
    [ "$got" = true ] && return 0
    why="jq '$(echo "$e" | tr -s ' \n' '  ' | head -c 140)' gave '$(echo "$got" | head -c 160 | tr '\n' ' ')'"
    return 1
}

# ------------------------------------------------------- ecnwatch's report
# probe CASE TARGET [ARGS...]: the probe from S, its report $tmp/CASE.json
probe() {
    local c=$1 t=$2
    shift 2
    # shellcheck disable=SC2086 # PROBE_OPTS is words
    run_ew 0 "$tmp/$c.json" "$tmp/$c.err" ip netns exec "$NS_S" "$EW" --probe "$t" --json $PROBE_OPTS "$@" &&
        json_ok "$tmp/$c.json"
}
# pj CASE EXPR: EXPR over the probe's report, with $h the hops' addresses
# and dim(NAME; FIELD) the dimension
PJ_DEFS='def dim($n; $f): first(.dimensions[] | select(.name == $n and .field == $f));
 def hop($t): first(.hops[] | select(.ttl == $t));'
pj() { jq_true "$tmp/$1.json" "$PJ_DEFS $2" --argjson h "$HOPADDR"; }

# the report's frame: the target, the source, the hops up to D
frame() { # frame CASE FAM
    local c=$1 fam=$2 d s
    d=$([ "$fam" = 6 ] && echo $D6 || echo $D4)
    s=$([ "$fam" = 6 ] && echo $S6 || echo $S4)
    check "$c: the report: schema, target $d TCP 80 UDP 443, source $s, D at hop 4" pj "$c" \
        ".schema == \"ecnwatch.probe/1\" and .target.addr == \"$d\" and .target.family == $fam and
         .target.tcp_port == 80 and .target.udp_port == 443 and .source.addr == \"$s\" and
         .stopped == \"destination\" and .destination_ttl == 4 and .sent > 0 and .answers > 0"
    check "$c: the report: hops 1-3 answer Time Exceeded from their own address" pj "$c" \
        ". as \$r | all(1, 2, 3; . as \$k | \$r | hop(\$k).probes.tcp_plain | .answer == \"time_exceeded\" and .from == \$h[\"\(\$k)\"])
         and (hop(4).probes.tcp_plain.answer == \"syn_ack\") and (hop(4).probes.udp_not_ect.answer == \"unreachable\")"
    check "$c: the report validates against man/ecnwatch-report.schema.json" schema_ok "$tmp/$c.json"
    check "$c: the report: a dimension for each probe type" pj "$c" \
        "([.dimensions[].name] | unique) == ($(printf '"%s",' $ALL_TYPES | sed 's/,$//; s/^/[/; s/$/]/') | sort)"
}
schema_ok() { # schema_ok FILE: a probe's report the schema takes
    json_ok "$1" && bounded 60 python3 "$EW_ROOT/tests/schema_validate.py" \
        "$EW_ROOT/man/ecnwatch-report.schema.json" "$1" >/dev/null
}
# unchanged CASE FIELD TYPE...: those dimensions unchanged
unchanged() {
    local c=$1 f=$2 t
    shift 2
    for t in "$@"; do
        check "$c: $t ($f) unchanged" pj "$c" "dim(\"$t\"; \"$f\") | .verdict == \"unchanged\" and .change == null"
    done
}
# changed CASE FIELD CHANGE HOP CONFIDENCE TYPE...: those dimensions changed
# at HOP, last as sent at HOP-1 (at $LAST when it is set)
changed() {
    local c=$1 f=$2 ch=$3 k=$4 conf=$5 t last
    shift 5
    last=${LAST:-$((k - 1))}
    for t in "$@"; do
        check "$c: $t ($f) $ch at hop $k ($conf), as sent to hop $last" pj "$c" \
            "dim(\"$t\"; \"$f\") | .verdict == \"changed\" and .change == \"$ch\" and .confidence == \"$conf\" and
             .first_changed.ttl == $k and .first_changed.addr == \$h[\"$k\"] and .last_as_sent.ttl == $last and
             (if $last == 0 then true else .last_as_sent.addr == \$h[\"$last\"] end)"
    done
}
# finding CASE KIND HOP TYPE...: a finding of KIND at HOP for each TYPE
finding() {
    local c=$1 kind=$2 k=$3 t
    shift 3
    for t in "$@"; do
        check "$c: finding $kind on $t at hop $k" pj "$c" \
            "any(.findings[]; .kind == \"$kind\" and .dimension == \"$t\" and .ttl == $k and .addr == \$h[\"$k\"])"
    done
}
# fail_on CASE KIND RC: --fail-on KIND exited RC, with its report (and with
# RC 1 the line naming KIND and how many findings), in the run that run_case
# made while the boxes ran (FAIL_ON="KIND RC")
fail_on() {
    check "$1: --fail-on $2 exits $3" fail_on_was "$1"
}
fail_on_was() {
    [ -f "$tmp/$1.fo-failed" ] && { why=$(cat "$tmp/$1.fo-failed"); return 1; }
    [ -f "$tmp/$1.fo.json" ] || { why="not run"; return 1; }
}
run_fail_on() { # run_fail_on CASE TARGET KIND RC
    # shellcheck disable=SC2086
    run_ew "$4" "$tmp/$1.fo.json" "$tmp/$1.fo.err" ip netns exec "$NS_S" "$EW" --probe "$2" --json $PROBE_OPTS \
        --fail-on "$3" && jq_true "$tmp/$1.fo.json" '.schema == "ecnwatch.probe/1" and (.dimensions | length) > 0' &&
        { [ "$4" != 1 ] || grep -qx "ecnwatch: --fail-on matched: $3 ([0-9]* in the probe's report)" "$tmp/$1.fo.err" ||
            { why="standard error: $(head -c 200 "$tmp/$1.fo.err")"; false; }; }
}

# ---------------------------------------------------------------- a case
# run_case CASE FAM BOXES...: the rules flushed, each box (HOP:MODE, or
# HOP:MODE:out for router HOP's OUTPUT) started, the witness, the probe
# (captured on R1 toward R2 and R3 toward R2 when $PASSIVE is 1), and again
# with --fail-on when $FAIL_ON is "KIND RC", the boxes
# ended; 0 when all of that went as it should
PASSIVE=0
run_case() {
    local c=$1 fam=$2 b k m o ns q pids="" st=0 t x i=0
    shift 2
    t=$([ "$fam" = 6 ] && echo "[$D6]:80" || echo "$D4:80")
    begin "$c: set-up"
    rules_clean
    HOPADDR=$(printf '{"1":"%s","2":"%s","3":"%s","4":"%s"}' \
        "$(addr_of 1 "$fam")" "$(addr_of 2 "$fam")" "$(addr_of 3 "$fam")" "$(addr_of 4 "$fam")")
    for b in "$@"; do
        IFS=: read -r k m o <<<"$b"
        ns=$(ns_of "$k")
        i=$((i + 1))
        if [ "$o" = out ]; then q=$Q_OUT; else q=$Q_IN; fi
        box "$c-$i" "$ns" $q "$m" || { bad "$c: pathbox $m: $why"; st=1; break; }
        pids="$pids $c-$i:$box_pid"
        _ew_setup=""
        if [ "$o" = out ]; then
            netns_step ip netns exec "$ns" iptables-legacy -t mangle -A OUTPUT -p icmp -j NFQUEUE --queue-num $q --queue-bypass
            netns_step ip netns exec "$ns" ip6tables-legacy -t mangle -A OUTPUT -p icmpv6 -j NFQUEUE --queue-num $q --queue-bypass
        else
            netns_step ip netns exec "$ns" iptables-legacy -t mangle -A PREROUTING -i l$k -j NFQUEUE --queue-num $q --queue-bypass
            netns_step ip netns exec "$ns" ip6tables-legacy -t mangle -A PREROUTING -i l$k -j NFQUEUE --queue-num $q --queue-bypass
        fi
        [ -z "$_ew_setup" ] || { bad "$c: the NFQUEUE rules: $why"; st=1; break; }
    done
    if [ $st = 0 ]; then
        begin "$c: the witness"
        witness "$c" "$fam" || { bad "$c: the witness: $why"; st=1; }
    fi
    if [ $st = 0 ]; then
        begin "$c: the probe"
        if [ "$PASSIVE" = 1 ]; then
            capture "$c-r1" "$NS_R1" l2 && x="$cap_pid" && capture "$c-r3" "$NS_R3" l3 ||
                { bad "$c: the captures: $why"; st=1; }
        fi
        probe "$c" "$t" || echo "$why" >"$tmp/$c.probe-failed"
        if [ -n "${FAIL_ON:-}" ]; then
            # shellcheck disable=SC2086 # KIND RC
            run_fail_on "$c" "$t" $FAIL_ON || echo "${why:-failed}" >"$tmp/$c.fo-failed"
        fi
        if [ "$PASSIVE" = 1 ] && [ $st = 0 ]; then
            capture_end "$c-r1" "$x" || { bad "$c: the capture on R1: $why"; st=1; }
            capture_end "$c-r3" "$cap_pid" || { bad "$c: the capture on R3: $why"; st=1; }
        fi
    fi
    for x in $pids; do
        nfq_end "${x%:*}" "${x#*:}" || { bad "$c: pathbox ${x%:*}: $why"; st=1; }
    done
    rules_clean
    if [ -n "${EW_PROBE_KEEP:-}" ]; then
        mkdir -p "$EW_PROBE_KEEP" && cp "$tmp/$c"[.-]* "$EW_PROBE_KEEP/" 2>/dev/null
    fi
    [ $st = 0 ] || return 1
    for x in $pids; do
        echo "     $c: pathbox ${x%:*}: $(cat "$tmp/${x%:*}.json")"
    done
    echo "     $c: the witness: $(wc -l <"$tmp/$c.w") answers to $(head -1 "$tmp/$c-w.out")"
    # the probe's own run: its failure is a check (the first of the case's)
    check "$c: ecnwatch --probe $t --json exits 0 with a report" eval "[ ! -f '$tmp/$c.probe-failed' ] ||
        { why=\$(cat '$tmp/$c.probe-failed'); false; }"
}
# box_count NAME WHAT: a number of the box's summary (changed, dropped, ...)
box_count() { jq -r ".$2" "$tmp/$1.json"; }
box_gt0() { gt0 "$(box_count "$1" "$2")"; } # box_gt0 NAME WHAT: above 0
gt0() { [ "$1" -gt 0 ] 2>/dev/null || { why="$1 is not above 0"; return 1; }; }

# witness truths shared by the cases
# w_as_sent CASE HOPS TYPES: the quotes from those hops show those types' ECN field as sent
w_ecn() { # w_ecn CASE TTLS TYPES ECN|sent: the quotes at those hop limits of those types show ECN
    local c=$1 ttls=$2 types=$3 want=$4 e
    if [ "$want" = sent ]; then e='$sent[.type]'; else e="\"$want\""; fi
    w "$c" "[.[] | select(.ttl as \$t | [$ttls] | index(\$t)) | select(.type as \$y | [$types] | index(\$y)) |
        select(.from == \$h[\"\(.ttl)\"] and (.answer == \"time_exceeded\" or .answer == \"unreachable\"))] as \$q |
        (\$q | length) == ([$ttls] | length) * ([$types] | length) and all(\$q[]; .ecn == $e)"
}
q() { printf '"%s",' "$@" | sed 's/,$//'; } # q WORD...: "a","b"

# ---------------------------------------------------------------- the cases
case_clean() {
    local c=clean
    FAIL_ON="any 0" run_case $c 4 || return
    truth $c "every hop quotes every probe as sent; D answers the SYNs and the datagrams" w $c \
        "(map(select(.ttl < 4 and .answer == \"time_exceeded\" and .from == \$h[\"\(.ttl)\"])) |
            length == 33 and all(.[]; .ecn == \$sent[.type]))
         and (map(select(.ttl == 4 and .answer == \"syn_ack\" and .from == \$h[\"4\"])) | length == 6)
         and (map(select(.ttl == 4 and .answer == \"unreachable\" and .from == \$h[\"4\"])) | length == 4)"
    frame $c 4
    destination $c
    check "$c: every dimension unchanged, no finding" pj $c \
        "(.dimensions | length) >= 11 and all(.dimensions[]; .verdict == \"unchanged\" and .change == null) and .findings == []"
    fail_on $c any 0
}

# destination CASE: what the report says of D's SYN-ACKs is what the suite's
# own SYNs got from D (its flags to the RFC 3168 and AccECN set-ups, its
# codepoint to the plain SYN)
destination() {
    local c=$1 neg acc cp
    neg='map(select(.ttl == 4 and .type == $t and .answer == "syn_ack"))[0].flags |
         if . == null then "unseen" elif .ece == 1 and .cwr == 0 and .ae == 0 then "rfc3168"
         elif .ece + .cwr + .ae == 0 then "refused" else "other" end'
    acc=$(jq -rs --arg t tcp_accecn_setup "$neg" "$tmp/$c.w")
    neg=$(jq -rs --arg t tcp_ecn_setup "$neg" "$tmp/$c.w")
    cp=$(jq -rs 'map(select(.ttl == 4 and .type == "tcp_plain" and .answer == "syn_ack"))[0].ecn // "none"' "$tmp/$c.w")
    truth $c "D's SYN-ACKs: $neg to the RFC 3168 set-up, $acc to the AccECN one, $cp to the plain SYN" \
        eval "[ '$neg' = rfc3168 ] && [ '$cp' != none ]"
    check "$c: the destination: RFC 3168 set-up $neg, AccECN set-up $acc, SYN-ACK $cp, as D answered the suite's SYNs" pj $c \
        ".destination.rfc3168 == \"$neg\" and .destination.accecn == \"$acc\" and .destination.synack_codepoint == \"$cp\""
}

# case_ecn CASE FAM HOP MODE CHANGE KIND NEW TYPES...: router HOP rewrites
# the ECN field of TYPES' probes to NEW (MODE); the probe must name the
# change at HOP and leave every other dimension unchanged
case_ecn() {
    local c=$1 fam=$2 k=$3 m=$4 ch=$5 kind=$6 new=$7 t before="" from="" others="" x
    shift 7
    t=$([ "$fam" = 6 ] && echo "[$D6]:80" || echo "$D4:80")
    FAIL_ON="$kind 1" run_case $c "$fam" "$k:$m" || return 1
    for x in 1 2 3; do if [ $x -lt $k ]; then before="$before${before:+,}$x"; else from="$from${from:+,}$x"; fi; done
    for x in tcp_plain $ECN_TCP udp_not_ect $ECN_UDP; do
        echo " $* " | grep -q " $x " || others="$others $x"
    done
    truth $c "pathbox changed TCP packets" box_gt0 $c-1 changed_by.tcp
    truth $c "pathbox changed UDP packets" box_gt0 $c-1 changed_by.udp
    [ -n "$before" ] && truth $c "the hops before R$k quote $* as sent" w_ecn $c "$before" "$(q "$@")" sent
    truth $c "R$k and after quote $* $new, and so does D's Port Unreachable" \
        eval "w_ecn $c $from '$(q "$@")' $new && w_ecn $c 4 '$(q $(printf '%s\n' "$@" | grep udp_))' $new"
    truth $c "every hop quotes$others as sent" w_ecn $c 1,2,3 "$(q $others)" sent
    frame $c "$fam"
    changed $c ecn "$ch" "$k" certain "$@"
    # shellcheck disable=SC2086 # the types are words
    unchanged $c ecn $others
    unchanged $c tcp_flags tcp_ecn_setup tcp_accecn_setup
    unchanged $c accecn_option tcp_accecn_option
    finding $c "$kind" "$k" "$@"
    fail_on $c "$kind" 1
}

case_bleach() { # case_bleach FAM
    local fam=$1 c=bleach-v$1
    PASSIVE=$([ "$fam" = 4 ] && echo 1 || echo 0)
    # shellcheck disable=SC2086
    case_ecn $c "$fam" 2 bleach bleached bleaching not_ect $ECN_TCP $ECN_UDP || { PASSIVE=0; return; }
    PASSIVE=0
    check "$c: the hops: R1 quotes tcp_ect0 ECT(0), R2 Not-ECT" pj $c \
        'hop(1).probes.tcp_ect0.ecn == "ect0" and hop(2).probes.tcp_ect0.ecn == "not_ect" and hop(2).probes.tcp_ect0.from == $h["2"]'
    [ "$fam" = 4 ] && passive $c
}

# passive CASE: the probe's packets as captured on R1's link toward R2 and
# R3's toward R2, compared by ecnwatch's two-capture mode
passive() {
    local c=$1 ect n3
    # tshark: the probe's ECT packets toward D that R2 forwarded (more than
    # one hop left at R1's capture point), and R3's side has no ECT toward D
    ect=$(bounded 120 tshark -r "$tmp/$c-r1.pcap" -n -Y "ip.dst == $D4 && ip.dsfield.ecn != 0 && ip.ttl >= 2" 2>/dev/null | wc -l)
    n3=$(bounded 120 tshark -r "$tmp/$c-r3.pcap" -n -Y "ip.dst == $D4 && ip.dsfield.ecn != 0" 2>/dev/null | wc -l)
    echo "     $c: tshark: $ect ECT packets to D forwarded past R2 on R1's side; $n3 ECT to D on R3's side"
    truth $c "no ECT packet toward D on R3's side of R2" eval "[ '$n3' = 0 ] || { why='$n3 of them'; false; }"
    check "$c: two captures: the probe's ECT packets to D are on R1's side" gt0 "$ect"
    # ecnwatch names ECT to Not-ECT bleaching, and CE to Not-ECT ce_unmarked
    check "$c: two captures (R1 then R3): the ECN field of the probe's packets to D turned Not-ECT, as many as tshark counts" \
        ew_then "$tmp/$c-path.json" \
        "(.path.hops | length) == 1 and .path.hops[0].matched > 0 and
         ([.path.hops[0].changes[] | select(.dst.addr == \"$D4\")] as \$ch | (\$ch | length) > 0 and
          all(\$ch[]; .to == \"not_ect\" and .misuse == (if .from == \"ce\" then \"ce_unmarked\" else \"bleaching\" end)) and
          ([\$ch[].from] | unique) == [\"ce\", \"ect0\", \"ect1\"] and ([\$ch[].count] | add) == $ect)" \
        -r "$tmp/$c-r1.pcap" -r "$tmp/$c-r3.pcap" --json --hash-seed 1
    check "$c: the probe and the two captures agree: bleached between R1 and R3, at R2" jq_true "$tmp/$c.json" \
        "[.dimensions[] | select(.verdict == \"changed\")] as \$d | (\$d | length) > 0 and
         all(\$d[]; .change == \"bleached\" and .first_changed.ttl == 2) and
         ([\$d[].name | select(startswith(\"tcp_\"))] | sort) == ([\$p[0].path.hops[0].changes[] |
            select(.proto == \"tcp\" and .dst.addr == \"$D4\") | {ect0: \"tcp_ect0\", ect1: \"tcp_ect1\", ce: \"tcp_ce\"}[.from]] | unique)" \
        --slurpfile p "$tmp/$c-path.json"
    # the probe's report given back beside the two captures (--probe-report)
    check "$c: two captures and the probe's report: each of its findings bleaching at hop 2, shown by the captures too" \
        ew_then "$tmp/$c-with.json" \
        "(.probe.findings | length) > 0 and all(.probe.findings[]; .kind == \"bleaching\" and .ttl == 2 and
          .last_as_sent.ttl == 1 and .captures_show_it == true) and .probe.addr == \"$D4\"" \
        -r "$tmp/$c-r1.pcap" -r "$tmp/$c-r3.pcap" --probe-report "$tmp/$c.json" --json --hash-seed 1
    check "$c: two captures and the probe's report: the summary's PROBE REPORT block says where" \
        eval "bounded 120 \"\$EW\" -r '$tmp/$c-r1.pcap' -r '$tmp/$c-r3.pcap' --probe-report '$tmp/$c.json' | tr -s ' \\n' ' ' |
              grep -q 'bleaching (tcp_ect0) at hop 2 (10.213.2.2), after hop 1 (10.213.1.2), certain; these captures show it too'"
    check "$c: --fail-on bleaching with only the probe's report to show it exits 1" \
        eval "bounded 120 \"\$EW\" -r '$tmp/$c-r3.pcap' -q --probe-report '$tmp/$c.json' --fail-on bleaching 2>/dev/null; [ \$? = 1 ]"
}
ew_then() { # ew_then OUT EXPR ARGS...
    local out=$1 e=$2
    shift 2
    ew_json "$out" "$@" && jq_true "$out" "$e"
}

# the quoted TCP flags of the ECN setup SYNs
W_SETUP="select(.type == \"tcp_ecn_setup\" or .type == \"tcp_accecn_setup\")"
W_FLAGS_SENT='{ae: (if .type == "tcp_accecn_setup" then 1 else 0 end), cwr: 1, ece: 1}'
case_stripsyn() {
    local c=stripsyn
    FAIL_ON="ecn_setup_stripped 1" run_case $c 4 2:stripsyn || return
    truth $c "pathbox changed TCP SYNs" box_gt0 $c-1 changed_by.tcp
    truth $c "R1 quotes the setup SYNs' flags as sent, R2 and R3 none of ECE, CWR, AE" w $c \
        "([.[] | $W_SETUP | select(.answer == \"time_exceeded\" and .ttl == 1 and .from == \$h[\"1\"])] |
            length == 2 and all(.[]; .flags == $W_FLAGS_SENT)) and
         ([.[] | $W_SETUP | select(.answer == \"time_exceeded\" and (.ttl == 2 or .ttl == 3) and .from == \$h[\"\(.ttl)\"])] |
            length == 4 and all(.[]; .flags == {ae: 0, cwr: 0, ece: 0}))"
    truth $c "D answers the stripped SYNs (their checksum holds), without ECE" w $c \
        "[.[] | $W_SETUP | select(.ttl == 4 and .answer == \"syn_ack\")] | length == 2 and all(.[]; .flags.ece == 0)"
    frame $c 4
    changed $c tcp_flags flags_stripped 2 certain tcp_ecn_setup tcp_accecn_setup
    unchanged $c ecn tcp_plain tcp_ect0 udp_not_ect udp_ect0
    unchanged $c accecn_option tcp_accecn_option
    finding $c ecn_setup_stripped 2 tcp_ecn_setup tcp_accecn_setup
    fail_on $c ecn_setup_stripped 1
}

case_stripopt() {
    local c=stripopt
    FAIL_ON="accecn_option_mangled 1" run_case $c 4 2:stripopt || return
    truth $c "pathbox changed TCP segments" box_gt0 $c-1 changed_by.tcp
    truth $c "R1 quotes the AccECN option, R2 and R3 NOPs in its place" w $c \
        "([.[] | select(.type == \"tcp_accecn_option\" and .answer == \"time_exceeded\" and .from == \$h[\"\(.ttl)\"])] |
            length == 3 and all(.[]; .option == (.ttl == 1)))"
    truth $c "D answers the segment with a RST (its checksum holds)" w $c \
        "any(.[]; .type == \"tcp_accecn_option\" and .ttl == 4 and .answer == \"rst\")"
    frame $c 4
    changed $c accecn_option option_removed 2 certain tcp_accecn_option
    unchanged $c tcp_flags tcp_ecn_setup tcp_accecn_setup
    unchanged $c ecn tcp_plain udp_not_ect
    finding $c accecn_option_mangled 2 tcp_accecn_option
    fail_on $c accecn_option_mangled 1
}

case_dropecnsyn() {
    local c=dropecnsyn t
    FAIL_ON="ecn_blackhole 1" run_case $c 4 2:dropecnsyn || return
    truth $c "pathbox dropped TCP SYNs" box_gt0 $c-1 dropped_by.tcp
    truth $c "the setup SYNs: R1 answers, nothing from hop 2 on; the plain SYN reaches D" w $c \
        "([.[] | $W_SETUP] | length == 2 and all(.[]; .ttl == 1 and .from == \$h[\"1\"])) and
         any(.[]; .type == \"tcp_plain\" and .ttl == 4 and .answer == \"syn_ack\")"
    frame $c 4
    for t in tcp_ecn_setup tcp_accecn_setup; do
        check "$c: $t (tcp_flags) a blackhole after hop 1, silent from hop 2" pj $c \
            "dim(\"$t\"; \"tcp_flags\") | .verdict == \"blackhole\" and .last_as_sent.ttl == 1 and
             .last_as_sent.addr == \$h[\"1\"] and .first_silent.ttl == 2"
    done
    check "$c: the plain SYN reaches D at hop 4" pj $c \
        '.destination_ttl == 4 and hop(4).probes.tcp_plain.answer == "syn_ack" and hop(4).probes.tcp_plain.from == $h["4"]'
    unchanged $c ecn tcp_plain tcp_ect0 udp_not_ect
    check "$c: finding ecn_blackhole on the setup SYNs at hop 2" pj $c \
        '. as $r | all("tcp_ecn_setup", "tcp_accecn_setup"; . as $t | any($r.findings[]; .kind == "ecn_blackhole" and .dimension == $t and .ttl == 2))'
    fail_on $c ecn_blackhole 1
}

# R2's quote cut to the IP header and 8 bytes: W_SHORT (R2's quotes are 28 bytes, their checksum good)
W_SHORT="([.[] | select(.ttl == 2 and .from == \$h[\"2\"] and .answer == \"time_exceeded\")] |
    length == 11 and all(.[]; .quoted == 28 and .cksum == 1 and .flags == null and .option == null and .ecn == \$sent[.type]))
  and ([.[] | select(.ttl != 2 and (.answer == \"time_exceeded\" or .answer == \"unreachable\"))] |
    length > 0 and all(.[]; .quoted > 28))"
case_shortquote() {
    local c=shortquote tt
    run_case $c 4 2:shortquote:out || return
    truth $c "pathbox cut ICMP messages" box_gt0 $c-1 changed_by.icmp
    truth $c "R2 quotes 28 bytes (ECN field, no TCP flags), checksum good; the others more" w $c "$W_SHORT"
    frame $c 4
    for tt in tcp_plain tcp_ecn_setup tcp_accecn_setup tcp_accecn_option; do
        check "$c: hop 2's $tt: its flags and option not quoted, its ECN field quoted" pj $c \
            "hop(2).probes.$tt | .tcp_flags == \"not_quoted\" and .accecn_option == \"not_quoted\" and .ecn != \"not_quoted\""
    done
    unchanged $c tcp_flags tcp_ecn_setup tcp_accecn_setup
    unchanged $c accecn_option tcp_accecn_option
    check "$c: no dimension changed" pj $c '(.dimensions | length) >= 11 and all(.dimensions[]; .verdict != "changed")'
}

case_short_strip() {
    local c=shortquote-stripsyn
    run_case $c 4 2:stripsyn 2:shortquote:out || return
    truth $c "pathbox stripped SYNs" box_gt0 $c-1 changed_by.tcp
    truth $c "pathbox cut ICMP messages" box_gt0 $c-2 changed_by.icmp
    truth $c "R2 quotes 28 bytes; R3 quotes the setup SYNs stripped" w $c \
        "$W_SHORT and ([.[] | $W_SETUP | select(.ttl == 3 and .from == \$h[\"3\"])] |
            length == 2 and all(.[]; .flags == {ae: 0, cwr: 0, ece: 0}))"
    frame $c 4
    # hop 2 cannot show the flags: the change is seen first at 3, last as sent at 1
    LAST=1 changed $c tcp_flags flags_stripped 3 likely tcp_ecn_setup tcp_accecn_setup
}

# the command line: not root (exit 3, one line, nothing sent), a bad target (exit 2)
case_misuse() {
    local c=misuse n
    begin "$c: set-up"
    capture "$c" "$NS_S" l1 || { bad "$c: the capture: $why"; return; }
    why=""
    # shellcheck disable=SC2086
    run_ew 3 "$tmp/$c.out" "$tmp/$c.err" ip netns exec "$NS_S" setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$EW" --probe "$D4:80" --json $PROBE_OPTS
    echo "${why:-}" >"$tmp/$c.why"
    # the capture's own proof that it works: one datagram to D's port 9
    bounded 10 ip netns exec "$NS_S" python3 -c 'import socket, sys
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"mark", (sys.argv[1], 9))' $D4
    capture_end "$c" $cap_pid || { bad "$c: the capture: $why"; return; }
    n=$(bounded 60 tshark -r "$tmp/$c.pcap" -n -Y "(ip.src == $S4) && (tcp || udp) && !(udp.dstport == 9)" 2>/dev/null | wc -l)
    truth $c "the capture on S's link works (it holds the marking datagram)" \
        eval "[ \"\$(bounded 60 tshark -r '$tmp/$c.pcap' -n -Y 'udp.dstport == 9' 2>/dev/null | wc -l)\" -gt 0 ]"
    check "$c: not root: exit 3, one line on standard error, nothing sent; as root the same probe runs" \
        not_root "$c" "$n"
    check "$c: --probe 300.1.1.1 exits 2 with a message; a good target runs" bad_target "$c"
    check "$c: as root, the probe runs as nobody (-Z's default) once its sockets are open" dropped
    check "$c: -Z root keeps root, as tcpdump's -Z does" kept_root
}
# probe_uid [ARGS...]: the real, effective, saved and file-system user IDs of
# a slow probe as root (one probe a second), read from /proc while it runs
probe_uid() {
    local pid i uid=""
    timeout 30 ip netns exec "$NS_S" "$EW" --probe "$D4:80" -q --probe-rate 1 --probe-max 4 \
        --probe-wait 2000 "$@" >/dev/null 2>&1 &
    pid=$!
    for i in $(seq 50); do
        sleep 0.1
        local child
        child=$(pgrep -P "$pid" -f ecnwatch 2>/dev/null | head -1)
        [ -n "$child" ] || child=$pid
        uid=$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/$child/status" 2>/dev/null)
        [ -n "$uid" ] && [ "$(tr -d '\0' <"/proc/$child/cmdline" 2>/dev/null | grep -c -- --probe)" = 1 ] &&
            [ "$i" -ge 10 ] && break
    done
    wait_bounded 40 "$pid" || true
    echo "$uid"
}
dropped() {
    local uid
    uid=$(probe_uid)
    [ "$uid" = "65534 65534 65534 65534" ] || { why="user IDs while probing: '$uid'"; return 1; }
    probe_runs
}
kept_root() {
    local uid
    uid=$(probe_uid -Z root)
    [ "$uid" = "0 0 0 0" ] || { why="user IDs while probing with -Z root: '$uid'"; return 1; }
}
# probe_runs: the clean case's probe (root, a good target) wrote its report:
# the exit statuses below are the probe's, not those of an unknown option
probe_runs() {
    jq_true "$tmp/clean.json" '.schema == "ecnwatch.probe/1" and (.dimensions | length) > 0' ||
        { why="as root, --probe $D4:80 wrote no report: $why"; return 1; }
}
not_root() { # not_root CASE SENT
    [ -z "$(cat "$tmp/$1.why")" ] || { why=$(cat "$tmp/$1.why"); return 1; }
    [ "$(grep -c . "$tmp/$1.err")" = 1 ] || { why="standard error: $(head -c 200 "$tmp/$1.err")"; return 1; }
    [ "$2" = 0 ] || { why="$2 TCP or UDP packets sent"; return 1; }
    probe_runs
}
bad_target() { # bad_target CASE
    run_ew 2 "$tmp/$1.bad.out" "$tmp/$1.bad.err" ip netns exec "$NS_S" "$EW" --probe 300.1.1.1 --json || return 1
    [ -s "$tmp/$1.bad.err" ] || { why="nothing on standard error"; return 1; }
    probe_runs
}

# ------------------------------------------------------------------ main
netns_or_skip probe topology
needs || { bad "set-up: $why"; finish probe; exit; }
for f in 4 6; do
    hops_answer $f || { bad "set-up: the path over IPv$f: $why"; finish probe; exit; }
done
listener || { bad "set-up: D's listener: $why"; finish probe; exit; }
echo "     set-up: hops 1-3 answer from 10.213.k.2 and fd00:213:k::2; D listens on TCP 80, UDP 443 closed"

# EW_PROBE_CASES="clean bleach-v4 ..." runs only those cases
want() { [ -z "${EW_PROBE_CASES:-}" ] || echo " $EW_PROBE_CASES " | grep -q " $1 "; }
want clean && case_clean
want bleach-v4 && case_bleach 4
want bleach-v6 && case_bleach 6
want remark01 && case_ecn remark01 4 1 remark01 remarked remarking ect1 tcp_ect0 udp_ect0
want clearce && case_ecn clearce 4 3 clearce ce_cleared ce_unmarked ect0 tcp_ce udp_ce
want stripsyn && case_stripsyn
want stripopt && case_stripopt
want dropecnsyn && case_dropecnsyn
want shortquote && case_shortquote
want shortquote-stripsyn && case_short_strip
want misuse && case_misuse
finish probe
