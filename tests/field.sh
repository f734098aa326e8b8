#!/usr/bin/env bash
# field.sh BUILD - captures other people recorded on other testbeds, with
# what is known to be true of them (captures/field/README and
# ../shared/field/README.md): no SCE and no ECN-breaking middlebox anywhere;
# every TCP connection negotiates AccECN; the control connections and CUBIC
# send ECT(0), Prague ECT(1); the bottleneck is DualPI2 or a single-queue
# CoDel. ecnwatch must say so from whichever side the capture was taken.
#
# The two heistp captures are bundled (captures/field/); the L4STeam
# captures are read from ../shared/field/ when it exists (their licence does
# not allow bundling them) and the suite says so when it does not.
# Ends "field: N passed, N failed".
. "$(dirname "$0")/lib.sh"
root=$EW_ROOT
FIELD=${ECNWATCH_FIELD:-$root/../shared/field}

report() { # report NAME COMPRESSED-FILE: decompress, then the JSON report in $tmp/NAME.json
    local name=$1 f=$2
    case $f in
    *.xz) bounded 120 xzcat "$f" >"$tmp/$name.pcap" ;;
    *.gz) bounded 120 zcat "$f" >"$tmp/$name.pcap" ;;
    esac || { why="cannot decompress $f"; return 1; }
    ew_json "$tmp/$name.json" -r "$tmp/$name.pcap" --json
}

# jq definitions: the bulk flows by what their sender puts on its data
DEFS='def bulk: .flows[] | select(.proto == "tcp" and .c2s.payload_bytes > 1000000);
      def prague: bulk | select(.c2s.ecn.ect1 + .c2s.ecn.ce > .c2s.ecn.ect0);
      def cubic: bulk | select(.c2s.ecn.ect0 > .c2s.ecn.ect1 + .c2s.ecn.ce);
      def control: .flows[] | select(.proto == "tcp" and .c2s.payload_bytes < 100000);
      def kinds: [.flows[].misuse[].kind];'

expect() { # expect NAME WHAT JQ-EXPR
    local name=$1 what=$2 e=$3
    if [ ! -s "$tmp/$name.json" ]; then
        bad "$name: $what: no report"
        return
    fi
    begin "$name: $what"
    got=$(jq "$DEFS $e" "$tmp/$name.json" 2>&1)
    if [ "$got" = true ]; then
        ok "$name: $what"
    else
        bad "$name: $what: '$(echo "$e" | tr -s ' \n' '  ' | head -c 120)' gave '$(echo "$got" | head -c 200 | tr '\n' ' ')'"
    fi
}

no_conflict='[.flows[] | select(.verdict == "conflict")] | length == 0'
prague_l4s='[prague] | length == 1 and all(.verdict == "l4s")'
others_classic='[cubic, control] | length >= 1 and all(.verdict == "accecn_classic")'

# --- bundled: heistp/l4s-tests, DualPI2 over Wi-Fi, captured at the sender
for n in prague_dualpi2_wifi cubic_dualpi2_wifi; do
    check "$n: read" report "$n" "$root/captures/field/$n.pcap.gz"
    expect "$n" "no flow is a conflict" "$no_conflict"
    expect "$n" "no misuse on a clean testbed" 'kinds | length == 0'
    expect "$n" "the control connection is accecn_classic" \
        '[control] | length >= 1 and all(.verdict == "accecn_classic")'
done
expect prague_dualpi2_wifi "the Prague flow is l4s" "$prague_l4s"
expect cubic_dualpi2_wifi "the CUBIC flow is accecn_classic" \
    '[cubic] | length == 1 and all(.verdict == "accecn_classic")'

# --- L4STeam ect1-tests, when ../shared/field is there
l4st=batch-l4s-s2-twoflow-ns-cubic-vs-prague
if [ ! -d "$FIELD" ]; then
    echo "note: $FIELD not found: the L4STeam captures were not read"
else
    for side in cli_cli srv_srv; do
        n=dualpi2-$side
        check "$n: read" report "$n" "$FIELD/$l4st-dualpi2-20ms.tcpdump_$side.pcap.xz"
        expect "$n" "no flow is a conflict, no misuse" "($no_conflict) and (kinds | length == 0)"
        expect "$n" "Prague is l4s" "$prague_l4s"
        expect "$n" "CUBIC and the control connections are accecn_classic" "$others_classic"
        expect "$n" "the bottleneck looks like a DualQ" \
            '[.bottlenecks[] | select(.l4s.flows | length > 0)] | length == 1 and all(.looks_like == "dualq")'
        expect "$n" "Prague's path: an L4S AQM" '[prague] | all(.c2s.path.aqm == "l4s_shallow")'
    done
    n=codel1q-srv_srv
    check "$n: read" report "$n" "$FIELD/$l4st-codel1q-20ms.tcpdump_srv_srv.pcap.xz"
    expect "$n" "no flow is a conflict" "$no_conflict"
    expect "$n" "Prague is l4s" "$prague_l4s"
    expect "$n" "CUBIC and the control connections are accecn_classic" "$others_classic"
    expect "$n" "the bottleneck looks like a single queue" \
        '[.bottlenecks[] | select(.l4s.flows | length > 0)] | length == 1 and all(.looks_like == "single_queue")'
    expect "$n" "Prague's path: a classic single-queue AQM" \
        '[prague] | all(.c2s.path.aqm == "classic_single_queue")'
    expect "$n" "classic_aqm_under_l4s on the Prague flow" \
        '[prague | .misuse[].kind] | index("classic_aqm_under_l4s") != null'
    n=oneflow-5Mbit
    check "$n: read" report "$n" \
        "$FIELD/batch-l4s-s1-oneflow-ns-prague-dualpi2-5Mbit-20ms.tcpdump_cli_cli.pcap.xz"
    expect "$n" "no flow is a conflict" "$no_conflict"
    expect "$n" "Prague is l4s" "$prague_l4s"
    expect "$n" "no classic_aqm_under_l4s through DualPI2 at 5 Mbit/s" \
        '(kinds | index("classic_aqm_under_l4s")) == null'
    expect "$n" "Prague's path is not called a classic AQM" \
        '[prague] | all(.c2s.path.aqm != "classic_single_queue")'
fi
finish field
