#!/usr/bin/env bash
# vxlan.sh BUILD - a real Linux VXLAN tunnel, in three network namespaces
# this script creates (addresses inside them only), a router between its
# ends that marks CE on the outer header, and ecnwatch's reports of the
# captures on both sides of the decapsulation:
#
#   A                         U (routes, marks)                 B
#   a0 10.201.1.1 ---- ua 10.201.1.2 | ub 10.201.2.2 ---- b0 10.201.2.1
#   vx0 10.202.0.1  ====== VXLAN 42, UDP 4789 (underlay) ======  vx0 10.202.0.2
#
# A TCP transfer with classic ECN (and UDP datagrams marked ECT(1),
# tests/traffic.py) goes from A to B over the overlay. On U an NFQUEUE
# program (the lab's nfq_ecn, mode aqm -p: this kernel has no qdisc that
# marks, and no act_pedit) turns a fraction of the ECT packets from A to B
# CE, in the outer header: it reads the first IP header it is given, the
# underlay's. It seeds its generator with a constant, so that the same
# packets in the same order are marked the same. Three captures:
#   before  U's ua, toward A: the tunnel as A's kernel sent it
#   under   U's ub, toward B, after the marking: outer and inner headers
#   over    B's vx0: the inner packets after B's kernel decapsulated them
# Three runs of the tunnel:
#   inherit  tos inherit
#   tos0     tos 0: the outer DSCP is 0, and the ECN field is still copied
#            outward (below)
#   cleared  tos 0 and the outer ECN field cleared at A's egress (nfq_ecn
#            bleach on A's POSTROUTING): an encapsulator that does not
#            propagate ECN, as RFC 6040 forbids; U has no ECT to mark
#   notect   tos inherit; no TCP, only Not-ECT datagrams from A, every one
#            marked CE by U (nfq_ecn -N -p 1): B's kernel drops them all
# Where the ground truth comes from (Linux, drivers/net/vxlan and
# include/net/inet_ecn.h):
#   encapsulation: vxlan_xmit_one passes the outer TOS through
#     ip_tunnel_ecn_encap, which is INET_ECN_encapsulate: the outer ECN field
#     is the inner's (CE becomes ECT(0)), RFC 6040 section 4.1, whatever the
#     tos setting: tos chooses the DSCP only. So tos 0 propagates ECN too
#     (the tos0 run's ground truth holds it to that).
#   decapsulation: vxlan_rcv's vxlan_ecn_decapsulate, INET_ECN_decapsulate
#     (RFC 6040 section 4.2): outer CE over inner ECT becomes inner CE;
#     outer CE over inner Not-ECT is dropped (the notect run).
# tshark reads every capture, apart from ecnwatch, and the run fails when
# the set-up did not do what it should (that is a failure, never a pass, and
# not a check of ecnwatch): the numbers ecnwatch must report are tshark's,
# never constants. Then per run, of ecnwatch's JSON report:
#   under: one inner TCP flow (not a UDP 4789 conversation), its codepoints
#     as tshark's innermost; its tunnel (vxlan, id 42, the underlay's
#     addresses) and, per direction, the outer codepoints, the outer-to-inner
#     pairs and the packets whose two differ, as tshark counts them; a
#     tunnel_ecn_not_propagated finding on c2s exactly when the outer header
#     was cleared, and --fail-on tunnel_ecn_not_propagated's exit status
#   under and over: every flow's innermost codepoints as tshark's
#     (tests/tshark.sh --innermost)
#   over: the same flow, no tunnel, its inner CE the outer CE of under
#   under then over (two capture points): no tunnel_decap_violation change
#   notect: the datagrams' flow under, its outer CE over inner Not-ECT as
#     tshark counts them; under then over: every datagram only upstream
# When this machine cannot make namespaces (not root) it prints why and
# "vxlan: 0 passed, 0 failed"; make test counts that skip as a failure.
# Ends "vxlan: N passed, N failed". EW_VXLAN_KEEP=DIR keeps the captures and
# nfq_ecn's summaries there; EW_VXLAN_FROM=DIR judges those again, without
# namespaces or traffic. LAB names the lab (default: ../shared/lab beside
# the repository), whose src/nfq_ecn.c is built here.
. "$(dirname "$0")/lib.sh"

SECS=3      # each transfer's length (tests/traffic.py sends at least 60 x 16 KiB a second)
MARK_P=0.05 # the share of ECT packets U marks CE
NOTECT=50   # the Not-ECT datagrams of the notect run
A_U=10.201.1.1 B_U=10.201.2.1 U_A=10.201.1.2 U_B=10.201.2.2 # the underlay
A_O=10.202.0.1 B_O=10.202.0.2                                # the overlay
MAC_A=02:00:00:ca:02:01 MAC_B=02:00:00:ca:02:02
VNI=42
Q_U=7 Q_A=8 # the NFQUEUE numbers (each namespace has its own queues)
LAB=${LAB:-$(cd "$EW_ROOT/.." && pwd)/shared/lab}
NS_A=ewvx-a$$ NS_U=ewvx-u$$ NS_B=ewvx-b$$

# the NFQUEUE rules go before the namespaces (netns.sh removes those on exit,
# after this): a queue left without its reader would drop the tunnel
_vx_rules_clean() {
    local ns
    for ns in $NS_U $NS_A; do
        ip netns list 2>/dev/null | grep -qw "$ns" || continue
        bounded 10 ip netns exec "$ns" iptables-legacy -t mangle -F 2>/dev/null
    done
}
on_exit _vx_rules_clean
. "$(dirname "$0")/netns.sh"
# netns.sh's traffic: the client in A, the server on B's overlay address
# shellcheck disable=SC2034 # read by netns.sh's functions
NS_C=$NS_A NS_S=$NS_B SERVER=$B_O

# needs: what the live part needs besides ecnwatch, nfq_ecn built; missing,
# it fails
needs() {
    local t
    for t in tcpdump iptables-legacy ethtool gcc pkg-config python3; do
        command -v "$t" >/dev/null || { why="no $t (bash scripts/install-deps.sh installs it)"; return 1; }
    done
    if ! pkg-config --exists libnetfilter_queue; then
        why="no libnetfilter_queue (bash scripts/install-deps.sh installs libnetfilter-queue-dev)"
        return 1
    fi
    [ -f "$LAB/src/nfq_ecn.c" ] || { why="no $LAB/src/nfq_ecn.c (LAB=DIR names the lab)"; return 1; }
    # shellcheck disable=SC2046 # pkg-config's flags are words
    if ! gcc -O2 -Wall -o "$tmp/nfq_ecn" "$LAB/src/nfq_ecn.c" $(pkg-config --cflags --libs libnetfilter_queue) \
        2>"$tmp/gcc.err"; then
        why="nfq_ecn does not build: $(head -c 300 "$tmp/gcc.err" | tr '\n' ' ')"
        return 1
    fi
}

# --- the underlay: A - U - B, routed; no IPv6 (nothing but the test's
# packets in the tunnel), no offloads (the captures hold wire-sized packets)
offloads_off() { # offloads_off NS DEV
    netns_step ip netns exec "$1" ethtool -K "$2" tx off tso off gso off gro off
}
underlay() {
    local ns
    _ew_netns_add "$NS_A" || return
    _ew_setup=""
    for ns in $NS_U $NS_B; do netns_step ip netns add "$ns" && _ew_netns="$_ew_netns $ns"; done
    for ns in $NS_A $NS_U $NS_B; do
        netns_step ip -n "$ns" link set lo up
        netns_step ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
    done
    netns_step ip link add a0 netns "$NS_A" type veth peer name ua netns "$NS_U"
    netns_step ip link add ub netns "$NS_U" type veth peer name b0 netns "$NS_B"
    netns_step ip -n "$NS_A" addr add $A_U/24 dev a0
    netns_step ip -n "$NS_U" addr add $U_A/24 dev ua
    netns_step ip -n "$NS_U" addr add $U_B/24 dev ub
    netns_step ip -n "$NS_B" addr add $B_U/24 dev b0
    netns_step ip -n "$NS_A" link set a0 up
    netns_step ip -n "$NS_U" link set ua up
    netns_step ip -n "$NS_U" link set ub up
    netns_step ip -n "$NS_B" link set b0 up
    offloads_off "$NS_A" a0
    offloads_off "$NS_U" ua
    offloads_off "$NS_U" ub
    offloads_off "$NS_B" b0
    netns_step ip netns exec "$NS_U" sysctl -qw net.ipv4.ip_forward=1
    netns_step ip -n "$NS_A" route add 10.201.2.0/24 via $U_A
    netns_step ip -n "$NS_B" route add 10.201.1.0/24 via $U_B
    # classic ECN asked for by both ends of the TCP connection
    netns_step ip netns exec "$NS_A" sysctl -qw net.ipv4.tcp_ecn=1
    netns_step ip netns exec "$NS_B" sysctl -qw net.ipv4.tcp_ecn=1
    [ -z "$_ew_setup" ] || { why=$_ew_setup; return 1; }
}

# tunnel TOS: vx0 on A and B anew, with that tos; MTU 1450 (1500 less
# VXLAN's 50 bytes), fixed MAC addresses and permanent neighbours, so that
# no ARP crosses the tunnel
tunnel() {
    local tos=$1 ns
    _ew_setup=""
    for ns in $NS_A $NS_B; do
        ip -n "$ns" link del vx0 2>/dev/null
    done
    netns_step ip -n "$NS_A" link add vx0 address $MAC_A mtu 1450 type vxlan id $VNI \
        local $A_U remote $B_U dstport 4789 dev a0 tos "$tos"
    netns_step ip -n "$NS_B" link add vx0 address $MAC_B mtu 1450 type vxlan id $VNI \
        local $B_U remote $A_U dstport 4789 dev b0 tos "$tos"
    netns_step ip -n "$NS_A" addr add $A_O/24 dev vx0
    netns_step ip -n "$NS_B" addr add $B_O/24 dev vx0
    offloads_off "$NS_A" vx0
    offloads_off "$NS_B" vx0
    netns_step ip -n "$NS_A" link set vx0 up
    netns_step ip -n "$NS_B" link set vx0 up
    netns_step ip -n "$NS_A" neigh replace $B_O lladdr $MAC_B dev vx0 nud permanent
    netns_step ip -n "$NS_B" neigh replace $A_O lladdr $MAC_A dev vx0 nud permanent
    [ -z "$_ew_setup" ] || { why=$_ew_setup; return 1; }
}

# table NAME: tshark's reading of $tmp/NAME.pcap (which may hold no frame:
# the ground truth counts them), a line a frame in
# $tmp/NAME.txt: outer source, outer ECN, inner source, inner destination,
# inner transport (tcp, udp, other), inner ECN (0 Not-ECT, 1 ECT(1),
# 2 ECT(0), 3 CE). Outside a tunnel the outer header is the inner one.
table() {
    bounded 120 tshark -r "$tmp/$1.pcap" -n -o ip.defragment:FALSE -T fields -E separator='|' \
        -e ip.src -e ip.dst -e ip.dsfield.ecn -e tcp.srcport -e udp.srcport 2>"$tmp/$1.tshark" |
        awk -F'|' '{
            n = split($1, s, ","); split($2, d, ","); split($3, e, ","); u = split($5, up, ",")
            if (n == 0) next
            p = $4 != "" ? "tcp" : (u == n ? "udp" : "other")
            print s[1], e[1], s[n], d[n], p, e[n]
        }' >"$tmp/$1.txt"
    [ "${PIPESTATUS[0]}" = 0 ] && return 0
    why="tshark cannot read $1: $(head -c 200 "$tmp/$1.tshark" | tr '\n' ' ')"
    return 1
}
# nwhere NAME CONDITION: how many frames of NAME's table meet the awk CONDITION
# ($1 outer source, $2 outer ECN, $3 inner source, $4 inner destination,
# $5 transport, $6 inner ECN)
nwhere() { awk "($2) { c++ } END { print c + 0 }" "$tmp/$1.txt"; }
AB="\$1 == \"$A_U\" && \$3 == \"$A_O\""    # a frame from A to B, under or before
AB_TCP="$AB && \$5 == \"tcp\""             # of the TCP transfer
BA_TCP="\$3 == \"$B_O\" && \$5 == \"tcp\"" # the TCP transfer's ACKs
# want NAME CONDITION: what ecnwatch must count of those frames, as JSON:
# packets, inner and outer codepoints, the outer-to-inner pairs, how many differ
want() {
    awk "($2)"' {
        o[$2]++; i[$6]++; m[$2, $6]++; t++; if ($2 != $6) d++
    } END {
        split("not_ect ect1 ect0 ce", k, " ")
        printf "{\"packets\": %d, \"differ\": %d, \"outer_ecn\": {", t, d
        for (a = 0; a < 4; a++) printf "%s\"%s\": %d", a ? ", " : "", k[a + 1], o[a]
        printf "}, \"inner_ecn\": {"
        for (a = 0; a < 4; a++) printf "%s\"%s\": %d", a ? ", " : "", k[a + 1], i[a]
        printf "}, \"outer_to_inner\": {"
        for (a = 0; a < 4; a++) {
            printf "%s\"%s\": {", a ? ", " : "", k[a + 1]
            for (b = 0; b < 4; b++) printf "%s\"%s\": %d", b ? ", " : "", k[b + 1], m[a, b]
            printf "}"
        }
        print "}}"
    }' "$tmp/$1.txt"
}
# the TCP transfer's flow in a report
FLOW="first(.flows[] | select(.proto == \"tcp\" and .client.addr == \"$A_O\" and .server.addr == \"$B_O\" and .server.port == 5201))"
# tunnel_is REPORT DIR WANT [FLOW]: the flow's (the TCP transfer's unless
# FLOW selects another) tunnel counts of DIR (c2s, s2c) in REPORT are WANT's
# (want's output; pairs left out of the report are 0)
tunnel_is() {
    local FLOW=${4:-$FLOW}
    jq_true "$1" "($FLOW.$2.tunnel) as \$t | \$w[0] as \$w | \$t.packets == \$w.packets and \$t.differ == \$w.differ and
        (\$t.outer_ecn | {not_ect, ect0, ect1, ce}) == \$w.outer_ecn and
        all(\$w.outer_to_inner | to_entries[]; .key as \$o |
            all(.value | to_entries[]; .value == (\$t.outer_to_inner[\$o][.key] // 0)))" --slurpfile w "$3" && return 0
    why="ecnwatch: $(jq -c "$FLOW.$2.tunnel" "$1" 2>&1 | head -c 300); tshark: $(jq -c 'del(.inner_ecn)' "$3" | head -c 300)"
    return 1
}
# oracle CAPTURE...: tests/tshark.sh --innermost passes every capture (its
# lines shown, its count one check here)
oracle() {
    local out
    out=$(bash tests/tshark.sh "$BUILD" --innermost "$@")
    printf '%s\n' "$out" | grep -v '^tshark: [0-9]* passed, [0-9]* failed$' | sed 's/^/     /'
    printf '%s\n' "$out" | grep -qx "tshark: $# passed, 0 failed" && return 0
    why="tshark.sh: $(printf '%s\n' "$out" | tail -1)"
    return 1
}
# marks NAME: the CE marks nfq_ecn's summary counts
marks() { jq '[.rewrites | to_entries[] | select(.key | endswith("->ce")) | .value] | add // 0' "$tmp/$1.json"; }

# truth RUN MESSAGE CONDITION...: a fact of the set-up, shown; a failure
# when it does not hold (never a pass: it is not a check of ecnwatch)
truth() {
    local r=$1 msg=$2
    shift 2
    if "$@"; then
        echo "     ground truth ($r): $msg"
    else
        bad "ground truth ($r): $msg${why:+ ($why)}"
        why=""
    fi
}
# ew_then OUT EXPR ARGS...: ecnwatch ARGS's report in OUT, and EXPR true of it
ew_then() {
    local out=$1 e=$2
    shift 2
    ew_json "$out" "$@" && jq_true "$out" "$e"
}
# fail_on RC OUT: --fail-on tunnel_ecn_not_propagated over under's capture
# exits RC, with the report (a stand-in that prints nothing fails it)
fail_on() {
    run_ew "$1" "$2" "$2.err" "$EW" --fail-on tunnel_ecn_not_propagated -r "${2%.fo.json}-under.pcap" \
        --json --hash-seed 1 && jq_true "$2" "$FLOW.client.addr == \"$A_O\""
}
eq() { [ "$1" = "$2" ] || { why="$1 != $2"; return 1; }; }
gt0() { [ "$1" -gt 0 ] 2>/dev/null || { why="$1 is not above 0"; return 1; }; }

# live_abort: a run that failed ends what it started (its captures, its
# NFQUEUE programs, its rules), so that the next run starts clean
live_abort() {
    local ns
    _vx_rules_clean
    for ns in $NS_A $NS_U $NS_B; do
        bounded 5 ip netns pids "$ns" 2>/dev/null | xargs -r kill -TERM 2>/dev/null
    done
    sleep 0.5
    for ns in $NS_A $NS_U $NS_B; do
        bounded 5 ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
    done
}

# send_tcp: the TCP transfer (and ECT(1) datagrams), tests/traffic.py
send_tcp() { traffic "$SECS"; }
# send_notect: NOTECT datagrams, Not-ECT, from A to B's port 6002 over the
# overlay; none arrives once U has marked them CE (B's kernel drops them)
send_notect() {
    bounded 30 ip netns exec "$NS_A" python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 0)
for _ in range(int(sys.argv[2])):
    s.sendto(b"n" * 600, (sys.argv[1], 6002))
    time.sleep(0.02)
' $B_O $NOTECT >"$tmp/notect.out" 2>&1 && return 0
    bad "notect: the sender: $(head -c 300 "$tmp/notect.out" | tr '\n' ' ')"
    return 1
}

# ---------------------------------------------------------------- the view
# the terminal view on U's link toward B, in tmux (a server of its own, its
# socket in $tmp) at 160x30, while the inherit run's traffic crosses it: the
# TUN column names the inner connection's tunnel; -o: the report it writes
# when it ends (q) holds the flow with its tunnel
tm() { bounded 10 tmux -S "$tmp/tmux.sock" -f /dev/null "$@"; }
_vx_tmux_end() { tm kill-server >/dev/null 2>&1 || :; }
on_exit _vx_tmux_end
view_start() {
    tm new-session -d -s vxview -x 160 -y 30 \
        "ip netns exec $NS_U timeout --foreground -k 5 120 $EW -i ub -o $tmp/view.json --interval 0.5; echo EXITED \$?; sleep 600"
}
view_tun() { # the pane: the heading's TUN, and the connection's row naming vxlan
    local t=0
    while [ $t -lt 20 ]; do
        tm capture-pane -p -t vxview >"$tmp/view.txt" 2>/dev/null || :
        if grep -q ' TUN ' "$tmp/view.txt" && grep "$A_O" "$tmp/view.txt" | grep -q ' vxlan '; then
            return 0
        fi
        sleep 0.5
        t=$((t + 1))
    done
    why="no TUN column naming vxlan on the row of $A_O: $(grep -m2 -e ID -e "$A_O" "$tmp/view.txt" | tr -s ' ' | tr '\n' '|')"
    return 1
}
view_detail() { # the TCP flow's detail pane: its tunnel, and the outer header of c2s
    local t=0
    tm send-keys -t vxview / t c p Enter
    sleep 0.5
    tm send-keys -t vxview d
    while [ $t -lt 20 ]; do
        tm capture-pane -p -t vxview >"$tmp/detail.txt" 2>/dev/null || :
        if grep -q "tunnel: vxlan $A_U -> $B_U id $VNI" "$tmp/detail.txt" &&
            grep -q 'c2s outer [0-9]*  Not-ECT' "$tmp/detail.txt"; then
            return 0
        fi
        sleep 0.5
        t=$((t + 1))
    done
    why="no tunnel in the detail pane: $(grep -m3 -e tunnel -e outer -e '^ *#' "$tmp/detail.txt" | tr -s ' ' | tr '\n' '|')"
    return 1
}
view_end() { # q: the view ends and writes its report
    local t=0
    tm send-keys -t vxview q
    while [ $t -lt 40 ] && ! tm capture-pane -p -t vxview 2>/dev/null | grep -q '^EXITED'; do
        sleep 0.25
        t=$((t + 1))
    done
    tm capture-pane -p -t vxview 2>/dev/null | grep -q '^EXITED 0' || { why="the view did not end with 0"; return 1; }
    jq_true "$tmp/view.json" "[.flows[] | select(.proto == \"tcp\" and .client.addr == \"$A_O\") |
        .tunnel.layers[0].type == \"vxlan\" and .tunnel.layers[0].id == $VNI and .c2s.tunnel.packets > 0] |
        length > 0 and all"
}

# ---------------------------------------------------------------- one run
# live RUN TOS CLEAR MARK SEND: the tunnel with TOS, the outer ECN field
# cleared at A's egress when CLEAR is 1, U's nfq_ecn run with the words of
# MARK; the traffic SEND sends and the captures; 0 when all went as it
# should (else counted as failed)
live() {
    local r=$1 tos=$2 clear=$3 mark=$4 send=$5 p_u p_a="" pids="" st=0 x c ns dev
    begin "$r: set-up"
    if ! tunnel "$tos"; then
        bad "$r: the tunnel: $why"
        return 1
    fi
    # U marks the tunnel from A to B; A clears its outer header when asked
    # shellcheck disable=SC2086 # MARK is words
    if ! nfq "$r-u" "$NS_U" "$tmp/nfq_ecn" -q $Q_U -m aqm $mark; then
        bad "$r: U's marking: $why"
        live_abort
        return 1
    fi
    p_u=$nfq_pid
    if [ "$clear" = 1 ]; then
        if ! nfq "$r-a" "$NS_A" "$tmp/nfq_ecn" -q $Q_A -m bleach; then
            bad "$r: A's clearing: $why"
            live_abort
            return 1
        fi
        p_a=$nfq_pid
    fi
    _ew_setup=""
    netns_step ip netns exec "$NS_U" iptables-legacy -t mangle -A FORWARD -i ua -o ub -p udp --dport 4789 \
        -j NFQUEUE --queue-num $Q_U
    [ "$clear" = 1 ] && netns_step ip netns exec "$NS_A" iptables-legacy -t mangle -A POSTROUTING -o a0 -p udp \
        --dport 4789 -j NFQUEUE --queue-num $Q_A
    [ -z "$_ew_setup" ] || { bad "$r: the NFQUEUE rules: $why"; live_abort; return 1; }

    begin "$r: captures and traffic"
    for x in "before $NS_U ua" "under $NS_U ub" "over $NS_B vx0"; do
        read -r c ns dev <<<"$x"
        if ! cap "$r-$c" "$ns" "$dev" "$([ "$dev" = vx0 ] && echo ip || echo 'udp port 4789')"; then
            bad "$r: the captures: $why"
            live_abort
            return 1
        fi
        pids="$pids $c:$cap_pid"
    done
    if [ "$r" = inherit ]; then
        view_start || bad "$r: the view: tmux new-session failed"
        sleep 1
    fi
    $send || st=1
    if [ "$r" = inherit ]; then
        check "$r: the view names the tunnel in its TUN column" view_tun
        check "$r: the view's detail pane names the tunnel and the outer codepoints" view_detail
        check "$r: the view ends at q and its report holds the flow's tunnel" view_end
    fi
    sleep 0.3 # the last ACKs
    cap_settle "$tmp/$r-before.pcap" "$tmp/$r-under.pcap" "$tmp/$r-over.pcap"
    for x in $pids; do
        cap_end "$r-${x%:*}" "${x#*:}" || { bad "$r: the capture ${x%:*}: $why"; st=1; }
    done
    nfq_end "$r-u" $p_u || { bad "$r: U's marking: $why"; st=1; }
    [ -n "$p_a" ] && { nfq_end "$r-a" "$p_a" || { bad "$r: A's clearing: $why"; st=1; }; }
    _vx_rules_clean
    [ $st = 0 ] || { live_abort; return 1; }
    if [ -n "${EW_VXLAN_KEEP:-}" ]; then
        mkdir -p "$EW_VXLAN_KEEP" && cp "$tmp/$r-"*.pcap "$tmp/$r-"*.json "$EW_VXLAN_KEEP/"
    fi
}

# judge RUN CLEAR: the captures of RUN read by tshark (the ground truth),
# then by ecnwatch
judge() {
    local r=$1 clear=$2 c
    for c in before under over; do
        table "$r-$c" || { bad "$r: $why"; return; }
    done

    # --- ground truth, tshark's
    local ab_tcp ect0 ce_u ce_tcp ce_over marked
    ab_tcp=$(nwhere "$r-under" "$AB_TCP")
    ect0=$(nwhere "$r-before" "$AB_TCP && \$6 == 2")
    ce_u=$(nwhere "$r-under" "$AB && \$2 == 3")
    ce_tcp=$(nwhere "$r-under" "$AB_TCP && \$2 == 3")
    ce_over=$(nwhere "$r-over" "\$3 == \"$A_O\" && \$5 == \"tcp\" && \$6 == 3")
    marked=$(marks "$r-u")
    echo "     $r: $ab_tcp TCP packets A to B under the tunnel, $ect0 of them ECT(0) as sent;" \
        "$ce_u outer CE ($ce_tcp of TCP), U marked $marked; CE on B's vx0: $ce_over"
    truth "$r" "TCP data left A ECT(0)" gt0 "$ect0"
    truth "$r" "no CE before U" eq "$(nwhere "$r-before" "$AB && (\$2 == 3 || \$6 == 3)")" 0
    truth "$r" "U forwarded every packet it was given" eq "$(nwhere "$r-before" "$AB")" "$(nwhere "$r-under" "$AB")"
    if [ "$clear" = 1 ]; then
        truth "$r" "every outer header from A Not-ECT" eq "$(nwhere "$r-before" "$AB && \$2 != 0")" 0
        # A's kernel had copied ECT outward despite tos 0: nfq_ecn cleared it
        truth "$r" "A's clearing changed every ECT outer header" \
            eq "$(jq '.changed' "$tmp/$r-a.json")" "$(nwhere "$r-before" "$AB && (\$6 == 1 || \$6 == 2)")"
        truth "$r" "U marked nothing (no outer ECT)" eq "$marked" 0
        truth "$r" "no outer CE after U" eq "$ce_u" 0
    else
        # INET_ECN_encapsulate: the outer ECN field is the inner's, tos inherit or 0
        truth "$r" "every outer header from A as its inner one" eq "$(nwhere "$r-before" "$AB && \$2 != \$6")" 0
        truth "$r" "U marked some" gt0 "$marked"
        truth "$r" "the outer CE after U are U's marks" eq "$ce_u" "$marked"
        truth "$r" "after U, outer and inner differ only as outer CE over inner ECT" \
            eq "$(nwhere "$r-under" "$AB && \$2 != \$6 && !(\$2 == 3 && (\$6 == 1 || \$6 == 2))")" 0
    fi
    # INET_ECN_decapsulate: outer CE over inner ECT is inner CE on B's vx0
    truth "$r" "B decapsulated every TCP packet" eq "$(nwhere "$r-over" "\$3 == \"$A_O\" && \$5 == \"tcp\"")" "$ab_tcp"
    truth "$r" "inner CE on B's vx0 = outer CE of the TCP packets under" eq "$ce_over" "$ce_tcp"

    # --- ecnwatch: the underlay's capture
    want "$r-under" "$AB_TCP" >"$tmp/$r.c2s.json"
    want "$r-under" "$BA_TCP" >"$tmp/$r.s2c.json"
    local U=$tmp/$r-under.json d
    check "$r: under: the inner TCP connection is one flow, no UDP 4789 flow" ew_then "$U" \
        "([.flows[] | select(.proto == \"tcp\" and
            ((.client.addr == \"$A_O\" and .server.addr == \"$B_O\") or
             (.client.addr == \"$B_O\" and .server.addr == \"$A_O\")))] | length) == 1 and
         $FLOW.client.addr == \"$A_O\" and all(.flows[]; .client.port != 4789 and .server.port != 4789)" \
        -r "$tmp/$r-under.pcap" --json --hash-seed 1
    check "$r: under: the flow's inner codepoints as tshark's" jq_true "$U" \
        "($FLOW | [(.c2s.ecn | {not_ect, ect0, ect1, ce}), (.s2c.ecn | {not_ect, ect0, ect1, ce})]) ==
         [\$c[0].inner_ecn, \$s[0].inner_ecn]" --slurpfile c "$tmp/$r.c2s.json" --slurpfile s "$tmp/$r.s2c.json"
    check "$r: under: the flow's tunnel: vxlan $VNI from $A_U to $B_U" jq_true "$U" \
        "$FLOW.tunnel.layers | length == 1 and (.[0] | .type == \"vxlan\" and .outer_family == 4 and
         .outer_src == \"$A_U\" and .outer_dst == \"$B_U\" and .id == $VNI)"
    for d in c2s s2c; do
        check "$r: under: $d: the outer codepoints, outer to inner, and those that differ as tshark's" \
            tunnel_is "$U" $d "$tmp/$r.$d.json"
    done
    if [ "$clear" = 1 ]; then
        check "$r: under: tunnel_ecn_not_propagated on c2s" jq_true "$U" \
            "$FLOW.misuse | any(.[]; .kind == \"tunnel_ecn_not_propagated\" and (.dir // .direction) == \"c2s\")"
        check "$r: under: --fail-on tunnel_ecn_not_propagated exits 1" fail_on 1 "$tmp/$r.fo.json"
    else
        check "$r: under: outer CE over inner ECT(0) counted" jq_true "$U" \
            "$FLOW.c2s.tunnel.outer_to_inner.ce.ect0 > 0"
        check "$r: under: no tunnel_ecn_not_propagated" jq_true "$U" \
            "$FLOW.misuse | type == \"array\" and all(.[]; .kind != \"tunnel_ecn_not_propagated\")"
        check "$r: under: --fail-on tunnel_ecn_not_propagated exits 0" fail_on 0 "$tmp/$r.fo.json"
    fi

    check "$r: under and over: every flow's innermost codepoints as tshark's (tests/tshark.sh)" \
        oracle "$tmp/$r-under.pcap" "$tmp/$r-over.pcap"

    # --- ecnwatch: the overlay's capture, and both (upstream first)
    check "$r: over: the same flow, no tunnel, its CE the outer CE under" ew_then "$tmp/$r-over.json" \
        "$FLOW | has(\"tunnel\") == false and .c2s.tunnel == null and
            .c2s.ecn.ce == $ce_tcp and .c2s.packets == $ab_tcp" \
        -r "$tmp/$r-over.pcap" --json --hash-seed 1
    check "$r: under then over: matched, no tunnel_decap_violation" ew_then "$tmp/$r-path.json" \
        '(.path.hops | length) == 1 and .path.hops[0].matched > 0 and
         ([.path.hops[].changes[] | select(any(.. | strings; . == "tunnel_decap_violation"))] | length) == 0' \
        -r "$tmp/$r-under.pcap" -r "$tmp/$r-over.pcap" --json --hash-seed 1
    # the egress carried each outer CE of the connection's data inward
    # (INET_ECN_decapsulate, RFC 6040 §4.2): the path lists them as ECT(0)
    # to CE from an outer CE, marking and no misuse, as many as tshark counts
    check "$r: under then over: the outer CE carried inward, each listed from its outer header" jq_true \
        "$tmp/$r-path.json" "[.path.hops[0].changes[] | select(.proto == \"tcp\" and .src.addr == \"$A_O\" and
            .from_outer == \"ce\" and .from == \"ect0\" and .to == \"ce\" and .misuse == null) | .count] |
            (add // 0) == $ce_tcp"
}

# judge_notect: the notect run: Not-ECT datagrams that U marked CE on the
# outer header, which B's kernel dropped (INET_ECN_decapsulate: outer CE
# over inner Not-ECT)
judge_notect() {
    local r=notect c ab marked flow
    for c in before under over; do
        table "$r-$c" || { bad "$r: $why"; return; }
    done
    ab="$AB && \$5 == \"udp\""
    marked=$(marks "$r-u")
    echo "     $r: $(nwhere $r-under "$ab") datagrams A to B under the tunnel, U marked $marked;" \
        "on B's vx0: $(nwhere $r-over "\$3 == \"$A_O\"")"
    truth $r "A sent every datagram Not-ECT, inside and out" \
        eq "$(nwhere $r-before "$ab && \$2 == 0 && \$6 == 0")" $NOTECT
    truth $r "nothing else crossed U from A" eq "$(nwhere $r-before "$AB")" $NOTECT
    truth $r "U marked every one" eq "$marked" $NOTECT
    truth $r "every one outer CE over inner Not-ECT after U" eq "$(nwhere $r-under "$ab && \$2 == 3 && \$6 == 0")" $NOTECT
    truth $r "B dropped every one" eq "$(nwhere $r-over "\$3 == \"$A_O\"")" 0

    want $r-under "$ab" >"$tmp/$r.c2s.json"
    flow="first(.flows[] | select(.proto == \"udp\" and .client.addr == \"$A_O\" and .server.addr == \"$B_O\" and .server.port == 6002))"
    check "$r: under: one flow, the datagrams Not-ECT inside" ew_then "$tmp/$r-under.json" \
        "(.flows | length) == 1 and $flow.c2s.ecn.not_ect == $NOTECT" -r "$tmp/$r-under.pcap" --json --hash-seed 1
    check "$r: under: c2s: the outer codepoints, outer to inner, and those that differ as tshark's" \
        tunnel_is "$tmp/$r-under.json" c2s "$tmp/$r.c2s.json" "$flow"
    check "$r: under: every flow's innermost codepoints as tshark's (tests/tshark.sh)" oracle "$tmp/$r-under.pcap"
    check "$r: under then over: every datagram only upstream, no tunnel_decap_violation" ew_then "$tmp/$r-path.json" \
        "(.path.hops | length) == 1 and .path.hops[0].only_upstream == $NOTECT and .path.hops[0].matched == 0 and
         ([.path.hops[].changes[] | select(any(.. | strings; . == \"tunnel_decap_violation\"))] | length) == 0" \
        -r "$tmp/$r-under.pcap" -r "$tmp/$r-over.pcap" --json --hash-seed 1
}

if [ -n "${EW_VXLAN_FROM:-}" ]; then
    # the captures an earlier run kept (EW_VXLAN_KEEP), judged again: no namespaces
    for r in inherit tos0 cleared notect; do
        cp "$EW_VXLAN_FROM/$r-"* "$tmp/" || bad "$r: nothing kept in $EW_VXLAN_FROM"
    done
else
    netns_or_skip vxlan underlay
    needs || { bad "set-up: $why"; finish vxlan; exit; }
    live inherit inherit 0 "-p $MARK_P" send_tcp || : >"$tmp/inherit.failed"
    live tos0 0 0 "-p $MARK_P" send_tcp || : >"$tmp/tos0.failed"
    live cleared 0 1 "-p $MARK_P" send_tcp || : >"$tmp/cleared.failed"
    # -N: Not-ECT packets too, -p 1: every one
    live notect inherit 0 "-N -p 1" send_notect || : >"$tmp/notect.failed"
fi
for x in "inherit 0" "tos0 0" "cleared 1"; do
    [ -f "$tmp/${x% *}.failed" ] || judge "${x% *}" "${x#* }"
done
[ -f "$tmp/notect.failed" ] || judge_notect
finish vxlan
