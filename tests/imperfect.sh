#!/usr/bin/env bash
# imperfect.sh BUILD - captures as people really take them: joined mid-flow,
# every packet twice (a mirror port, a bridge, merged captures), with packets
# the capture missed, behind delay that is not queueing (jitter, a bursty
# link), through flow queueing, flows compared over the time they share a
# queue, CE set by the sender.
#
# Two kinds of capture:
# - someone else's bytes: the field captures (../shared/field/, recorded by
#   the L4STeam and heistp/l4s-tests on their testbeds; captures/field/ holds
#   the heistp ones) and the lab's real Linux captures (captures/), each
#   taken whole and then cut with Wireshark's editcap (joined mid-flow),
#   doubled with mergecap (every packet twice) and thinned with tshark (the
#   capture missed 60 % or 20 % of the frames). What ecnwatch says of a cut
#   capture must be what it says of the whole one, or "unknown": never
#   something else, never a finding the whole capture does not have, never
#   "certain" where the whole capture is not;
# - generated ones (tcpgen, ecngen): each rule in isolation, against the same
#   case without the imperfection, so that a check can fail both ways.
# Ends "imperfect: N passed, N failed".
. "$(dirname "$0")/lib.sh"
root=$EW_ROOT
FIELD=${ECNWATCH_FIELD:-$root/../shared/field}
GEN=$BUILD/gen/imperfect
rm -rf "$GEN"
mkdir -p "$GEN"

# need NAME CMD...: a step that is not ecnwatch's (a generator, editcap):
# not counted when it works, a failure when it does not
need() {
    local name=$1 rc
    shift
    begin "$name"
    bounded 300 "$@" >"$tmp/need.out" 2>&1
    rc=$?
    [ $rc = 0 ] && return 0
    bad "$name: exit $rc ($(head -c 200 "$tmp/need.out" | tr '\n' ' '))"
    return 1
}
report() { # report CAPTURE JSON: the JSON report of CAPTURE
    ew_json "$2" -r "$1" --json
}
expect() { # expect NAME JSON JQ-EXPR [jq options]
    local name=$1 f=$2 e=$3
    shift 3
    begin "$name"
    if [ ! -s "$f" ]; then
        bad "$name: no report"
    elif jq_true "$f" "$e" "$@"; then
        ok "$name"
    else
        bad "$name: $why; $(jq -c '[.flows[] | select(.proto == "tcp") | [.id, .verdict, .verdict_confidence, .c2s.path.aqm, [.misuse[] | "\(.kind)/\(.confidence)"]]] | .[:6]' "$f" 2>/dev/null | head -c 400)"
    fi
}

# ------------------------------------------------------------ someone else's bytes

# A derived capture against its whole: flows matched by their two ends.
# coarse(): a classic AQM's queue (shared, DualQ's, a flow's own) is what
# other flows show; a cut capture may show less.
CMP='def ends: [(.client | "\(.addr) \(.port)"), (.server | "\(.addr) \(.port)")] | sort;
     def coarse: if . == "classic_single_queue" or . == "dualq_classic" or . == "fq_classic"
                 then "classic" else . end;
     def certain($f): [$f.misuse[] | select(.confidence == "certain") | .kind];
     . as $d | $w[0] as $w |
     [$d.flows[] | select(.proto == "tcp") as $x |
      ($w.flows[] | select(.proto == "tcp" and ends == ($x | ends))) as $y |
      {id: $x.id,
       verdict: ($x.verdict == $y.verdict or $x.verdict == "unknown"),
       aqm: (([$x.c2s.path.aqm, $x.s2c.path.aqm] | map(. // "-")) as $a |
             ([$y.c2s.path.aqm, $y.s2c.path.aqm] | map(. // "-")) as $b |
             [0, 1] | all(. as $i | $a[$i] == $b[$i] or $a[$i] == "unknown" or $a[$i] == "-" or
                          ($a[$i] | coarse) == ($b[$i] | coarse))),
       kinds: (([$x.misuse[].kind] - [$y.misuse[].kind]) == []),
       certain: ((certain($x) - certain($y)) == [])}]'

# derived NAME WHOLE-JSON DERIVED-JSON WHAT: the four promises above
derived() {
    local name=$1 w=$2 d=$3 what=$4
    expect "$name ($what): every flow's verdict as the whole capture's, or unknown" "$d" \
        "$CMP | length > 0 and all(.verdict)" --slurpfile w "$w"
    expect "$name ($what): every path verdict as the whole capture's, coarser, or unknown" "$d" \
        "$CMP | all(.aqm)" --slurpfile w "$w"
    expect "$name ($what): no finding the whole capture does not have" "$d" \
        "$CMP | all(.kinds)" --slurpfile w "$w"
    expect "$name ($what): nothing certain that the whole capture does not find certain" "$d" \
        "$CMP | all(.certain)" --slurpfile w "$w"
    expect "$name ($what): the bottlenecks as the whole capture's, or unknown" "$d" \
        '(([.bottlenecks[].looks_like] - ["unknown"]) - [$w[0].bottlenecks[].looks_like]) == []' \
        --slurpfile w "$w"
}

# one_source NAME FILE FIRST-BULK-FRAME: the whole capture and its cuts
one_source() {
    local name=$1 src=$2 mid=$3 c=$GEN/$1
    case $src in
    *.xz) need "$name: xzcat" sh -c "xzcat '$src' >'$c.pcap'" || return ;;
    *.gz) need "$name: zcat" sh -c "zcat '$src' >'$c.pcap'" || return ;;
    *) need "$name: copy" cp "$src" "$c.pcap" || return ;;
    esac
    check "$name: whole" report "$c.pcap" "$c.json" || return
    # joined mid-flow: from frame $mid on (editcap -r keeps a range)
    if need "$name: editcap -r $mid-" editcap -r "$c.pcap" "$c-mid.pcap" "$mid-999999999" &&
        check "$name, joined mid-flow: read" report "$c-mid.pcap" "$c-mid.json"; then
        derived "$name" "$c.json" "$c-mid.json" "joined mid-flow"
        expect "$name (joined mid-flow): the flows without a handshake are counted and said so" \
            "$c-mid.json" '.totals.capture_quality.flows_midstream >= 1 and
            any(.flows[]; .proto == "tcp" and .handshake_seen == false and .negotiation == "unseen"
                and (.verdict == "unknown" or .verdict_confidence == "likely"))'
    fi
    # every packet twice (mergecap of the capture with itself)
    if need "$name: mergecap (twice)" mergecap -F pcap -w "$c-dup.pcap" "$c.pcap" "$c.pcap" &&
        check "$name, every packet twice: read" report "$c-dup.pcap" "$c-dup.json"; then
        derived "$name" "$c.json" "$c-dup.json" "every packet twice"
        expect "$name (every packet twice): the copies left out, the counts as the whole's" \
            "$c-dup.json" '.totals.capture_quality.duplicates + .totals.capture_quality.duplicates_unsure
             >= $w[0].totals.ip_packets and .totals.ip_packets <= $w[0].totals.ip_packets + .totals.capture_quality.duplicates_unsure and
             .totals.ecn.ce == $w[0].totals.ecn.ce and
             ([.flows[] | select(.proto == "tcp") | .c2s.path.marks // 0] ==
              [$w[0].flows[] | select(.proto == "tcp") | .c2s.path.marks // 0])' --slurpfile w "$c.json"
    fi
    # the capture missed 60 % of its frames (keeps frames 5n and 5n+1), and
    # 20 % (every fifth)
    if need "$name: tshark (thinned to 40 %)" tshark -r "$c.pcap" -Y 'frame.number % 5 < 2' -w "$c-thin.pcap" &&
        check "$name, 60 % missed: read" report "$c-thin.pcap" "$c-thin.json"; then
        derived "$name" "$c.json" "$c-thin.json" "60 % missed"
        expect "$name (60 % missed): data acknowledged but not captured is counted, and the bulk flows' verdicts are likely" \
            "$c-thin.json" '.totals.capture_quality.missed_bytes > 0 and
            all(.flows[] | select(.proto == "tcp" and .c2s.payload_bytes > 1000000);
                .c2s.capture.missed_bytes > 0 and (.verdict == "unknown" or .verdict_confidence == "likely"))'
    fi
    if need "$name: tshark (a fifth missed)" tshark -r "$c.pcap" -Y 'frame.number % 5 != 0' -w "$c-thin20.pcap" &&
        check "$name, 20 % missed: read" report "$c-thin20.pcap" "$c-thin20.json"; then
        derived "$name" "$c.json" "$c-thin20.json" "20 % missed"
    fi
}

# the lab's real Linux captures (captures/README): the router marks CE
# above 5 ms; RFC 3168 and AccECN; next to the sender and the receiver
for n in rfc3168-ce-client rfc3168-ce-server accecn-ce-server accecn-l4s-client; do
    one_source "lab-$n" "$root/captures/$n.pcap" 400
done
# heistp/l4s-tests (captures/field/README): Prague and CUBIC through DualPI2
# over Wi-Fi, captured at the sender
for n in prague_dualpi2_wifi cubic_dualpi2_wifi; do
    one_source "heistp-$n" "$root/captures/field/$n.pcap.gz" 5000
done
if [ ! -d "$FIELD" ]; then
    echo "note: $FIELD not found: the L4STeam field captures were not cut"
else
    l4st=batch-l4s-s2-twoflow-ns-cubic-vs-prague
    # L4STeam: CUBIC and Prague through DualPI2, next to the receiver; and
    # through one CoDel queue; Prague over fq_codel (heistp); Prague behind
    # a bursty link (netem slotting) through DualPI2
    one_source l4steam-dualpi2-srv "$FIELD/$l4st-dualpi2-20ms.tcpdump_srv_srv.pcap.xz" 70000
    one_source l4steam-codel1q-srv "$FIELD/$l4st-codel1q-20ms.tcpdump_srv_srv.pcap.xz" 70000
    one_source heistp-prague-fq-codel "$FIELD/prague_fq_codel_wifi.pcap.gz" 5000
    one_source l4steam-burstiness \
        "$FIELD/batch-l4s-s5-burstiness-ns-prague-dualpi2-50Mbit-20ms.tcpdump_cli_cli.pcap.xz" 5000
    # the whole captures themselves: a flow queue or a bursty link is no
    # classic single queue, and harms no classic flow
    expect "heistp-prague-fq-codel: no classic_aqm_under_l4s, no classic_single_queue (fq_codel isolates the flow)" \
        "$GEN/heistp-prague-fq-codel.json" \
        '([.flows[].misuse[].kind] | index("classic_aqm_under_l4s")) == null and
         all(.flows[]; .c2s.path.aqm != "classic_single_queue")'
    expect "l4steam-burstiness: no classic AQM named from delay the marks do not line up with" \
        "$GEN/l4steam-burstiness.json" \
        '([.flows[].misuse[].kind] | index("classic_aqm_under_l4s")) == null and
         all(.flows[] | select(.c2s.payload_bytes > 1000000); .c2s.path.aqm == "unknown" and
             .c2s.path.marks_above_median < 0.6)'
    expect "l4steam-dualpi2-srv joined mid-flow: Prague's AccECN from the ACE that follows the CE seen (no option on this kernel)" \
        "$GEN/l4steam-dualpi2-srv-mid.json" \
        'any(.flows[]; .verdict == "l4s" and .c2s.feedback == "accecn" and
             (.negotiation_inferred | test("ACE")) and .c2s.feedback_detail.ace_differs_from_seen == 0)'
    expect "l4steam-codel1q-srv: one queue over the time both flows run, delays that move together" \
        "$GEN/l4steam-codel1q-srv.json" \
        '.bottlenecks | length == 1 and .[0].looks_like == "single_queue" and
         .[0].compared_over == "overlap" and .[0].qdelay_correlation >= 0.6'
fi

# tunnels (tungen: four TCP flows in VXLAN, and in VXLAN inside GRE, with
# outer codepoints that differ from the inner ones; two flows IPv4, two
# IPv6 without timestamps, whose copies cannot be told from resends and are
# kept as possible copies): cut, doubled and thinned, with the four promises
# above; doubled, every copy left out or counted as a possible copy, and a
# direction without possible copies keeps the whole capture's outer and
# inner counts (a copy is left out of those too)
for t in vxlan nested; do
    c=$GEN/tungen-$t
    need "tungen $t" "$BUILD/tungen" "$t" "$c.pcap" || continue
    check "tungen-$t: whole" report "$c.pcap" "$c.json" || continue
    if need "tungen-$t: editcap -r 20-" editcap -r "$c.pcap" "$c-mid.pcap" 20-999999 &&
        check "tungen-$t, joined mid-flow: read" report "$c-mid.pcap" "$c-mid.json"; then
        derived "tungen-$t" "$c.json" "$c-mid.json" "joined mid-flow"
        expect "tungen-$t (joined mid-flow): the flows still tunnelled" "$c-mid.json" \
            '([.flows[] | select(.tunnel)] | length) >= 3'
    fi
    if need "tungen-$t: mergecap (twice)" mergecap -F pcap -w "$c-dup.pcap" "$c.pcap" "$c.pcap" &&
        check "tungen-$t, every packet twice: read" report "$c-dup.pcap" "$c-dup.json"; then
        derived "tungen-$t" "$c.json" "$c-dup.json" "every packet twice"
        expect "tungen-$t (every packet twice): every copy left out or counted a possible copy" \
            "$c-dup.json" '.totals.capture_quality.duplicates + .totals.capture_quality.duplicates_unsure
                           == $w[0].totals.ip_packets' --slurpfile w "$c.json"
        expect "tungen-$t (every packet twice): outer and inner counts as the whole's where no copy is in doubt" \
            "$c-dup.json" '[.flows[] | .c2s, .s2c | select(.capture.duplicates_unsure == 0) | .tunnel] as $d |
             [$w[0].flows[] as $f | $f.c2s, $f.s2c] as $all |
             ($d | length) >= 2 and
             ([.flows[] | .c2s, .s2c | select(.capture.duplicates_unsure == 0) | .packets] | add) > 0 and
             all($d[]; . as $x | any($all[]; .tunnel == $x))' --slurpfile w "$c.json"
    fi
    for keep in '% 5 < 2' '% 5 != 0'; do
        if need "tungen-$t: tshark (frame.number $keep)" tshark -r "$c.pcap" -Y "frame.number $keep" -w "$c-thin.pcap" &&
            check "tungen-$t, thinned ($keep): read" report "$c-thin.pcap" "$c-thin.json"; then
            derived "tungen-$t" "$c.json" "$c-thin.json" "frames kept: number $keep"
        fi
    done
done

# ------------------------------------------------------------ generated, rule by rule

tg() { # tg NAME tcpgen-args...: the capture in $cap
    local name=$1
    shift
    cap=$GEN/$name.pcap
    need "tcpgen $*" "$BUILD/tcpgen" "$1" "$2" "$cap" "${@:3}" || return 1
}
gen_report() { # gen_report NAME tcpgen-args...: $cap and its report $GEN/NAME.json
    local name=$1
    shift
    tg "$name" "$@" && check "$name: read" report "$cap" "$GEN/$name.json"
}

# delay that is not queueing: a classic AQM's marks line up with its queue
# (most above the median delay); TCP Prague through an L4S queue's step
# marking (about 1 ms) behind 20 ms of jitter has its marks at several
# milliseconds of delay that is not the queue's, and they do not line up
# (the L4STeam burstiness capture: 39 % above the median)
if gen_report classic-steady classic sender --segments 4000 --ts 1 &&
    gen_report prague-steady prague sender --segments 4000 --ts 1 &&
    gen_report prague-jitter prague sender --segments 4000 --ts 1 --jitter 20; then
    expect "a classic AQM: classic, the marks above the median delay" "$GEN/classic-steady.json" \
        '.flows[0].c2s.path | .aqm == "classic" and .marks_above_median >= 0.6'
    expect "Prague through a shallow AQM: l4s_shallow" "$GEN/prague-steady.json" \
        '.flows[0].c2s.path.aqm == "l4s_shallow"'
    expect "the same behind 20 ms of jitter: unknown, and why; no finding" "$GEN/prague-jitter.json" \
        '.flows[0].verdict == "l4s" and .flows[0].misuse == [] and (.flows[0].c2s.path |
         .aqm == "unknown" and .confidence == null and .qdelay_at_marks_ms > 5 and
         .marks_above_median < 0.6 and (.reason | test("not the marking queue")))'
fi
if gen_report classic-jitter classic sender --segments 4000 --ts 1 --jitter 10; then
    expect "a classic AQM behind 10 ms of jitter: still classic or unknown, never shallow" \
        "$GEN/classic-jitter.json" \
        '.flows[0].c2s.path.aqm == "classic" or .flows[0].c2s.path.aqm == "unknown"'
fi
if gen_report prague-slot prague sender --segments 4000 --ts 1 --slot 10; then
    expect "Prague behind a bursty link (10 ms slots): no classic AQM, no finding" "$GEN/prague-slot.json" \
        '.flows[0].verdict == "l4s" and .flows[0].c2s.path.aqm != "classic" and .flows[0].misuse == []'
fi
# a handful of marks names no AQM
if gen_report prague-first20 prague sender --segments 20 --ts 1; then
    expect "the first 20 segments of a Prague flow: too few marks to name an AQM" "$GEN/prague-first20.json" \
        '.flows[0].c2s.path | (.aqm == "unknown" or .aqm == "none_seen") and .marks_with_qdelay < 10'
fi

# flows compared over the time they share a bottleneck
for side in sender receiver; do
    if gen_report fq-$side prague $side --pair fq --ts 1; then
        expect "flow queueing at the $side: fq, delays apart, no harm finding" "$GEN/fq-$side.json" \
            '(.bottlenecks | length == 1 and .[0].looks_like == "fq" and .[0].qdelay_correlation < 0.3 and
              .[0].compared_over == "overlap") and
             ([.flows[].misuse[].kind] | index("classic_aqm_under_l4s")) == null and
             ([.flows[].c2s.path.aqm] | all(. == "fq_classic"))'
    fi
    if gen_report single-stagger-$side prague $side --pair single --stagger 3 --ts 1; then
        expect "one CoDel queue, the classic flow alone first, at the $side: single_queue over the overlap, L4S 3-4x the classic throughput, the harm found" \
            "$GEN/single-stagger-$side.json" \
            '(.bottlenecks | length == 1 and .[0].looks_like == "single_queue" and .[0].compared_over == "overlap" and
              .[0].overlap_s > 4 and .[0].overlap_s < 6 and .[0].qdelay_correlation >= 0.6 and
              .[0].throughput_ratio_l4s_to_classic > 3 and .[0].throughput_ratio_l4s_to_classic < 4) and
             ([.flows[] | select(.c2s.ecn.ect1 > 0) | .misuse[].kind] == ["classic_aqm_under_l4s"]) and
             ([.flows[] | select(.c2s.ecn.ect1 == 0) | .misuse[]] == [])'
    fi
    if gen_report fifo-$side prague $side --pair fifo --ts 1; then
        expect "a FIFO with no marks, the L4S flow joining a standing queue, at the $side: never a DualQ" \
            "$GEN/fifo-$side.json" \
            '(.bottlenecks | length == 1 and .[0].looks_like != "dualq") and
             all(.flows[]; .c2s.path.marks == 0) and ([.flows[].misuse[]] == [])'
    fi
done
if gen_report dualq-stagger prague sender --pair dualq --stagger 2 --ts 1; then
    expect "a DualQ, the classic flow alone first: dualq, its classic flow in the classic queue" \
        "$GEN/dualq-stagger.json" \
        '(.bottlenecks | length == 1 and .[0].looks_like == "dualq" and .[0].compared_over == "overlap") and
         ([.flows[] | select(.c2s.ecn.ect1 == 0) | .c2s.path.aqm] == ["dualq_classic"])'
fi

# the capture missed 60 % of the packets at the sender, CWRs among them: a
# classic flow stays classic (or unknown), never DCTCP for want of CWRs
if gen_report classic-whole classic sender --segments 4000 &&
    gen_report classic-lossy classic sender --segments 4000 --capture-loss 0.6; then
    expect "a classic flow, whole: classic, certain" "$GEN/classic-whole.json" \
        '.flows[0].verdict == "classic" and .flows[0].verdict_confidence == "certain" and
         .flows[0].c2s.capture.missed_bytes == 0'
    expect "the same with 60 % of it missed: not dctcp, likely, the loss counted, no finding from absence" \
        "$GEN/classic-lossy.json" \
        '.flows[0].verdict != "dctcp" and .flows[0].c2s.feedback != "dctcp" and
         (.flows[0].verdict == "unknown" or .flows[0].verdict_confidence == "likely") and
         .flows[0].c2s.capture.missed_bytes > 0 and .flows[0].c2s.capture.missed_gaps > 0 and
         ([.flows[0].misuse[].kind] | index("ece_ignored")) == null'
fi
# an ECE held after CWR (RFC 3168 §6.1.3) rests on no CE arriving since the
# CWR: found where the capture is whole or has copies, never from a capture
# that missed packets (the CE may be among them), nor joined mid-flow
if gen_report holdece-whole classic receiver --segments 2000 --fault holdece &&
    gen_report holdece-dup classic receiver --segments 2000 --fault holdece --capture-dup &&
    gen_report holdece-lossy classic receiver --segments 2000 --fault holdece --capture-loss 0.3 &&
    gen_report holdece-mid classic receiver --segments 2000 --fault holdece --skip 200; then
    expect "ECE held after CWR, at the receiver, whole: found, certain" "$GEN/holdece-whole.json" \
        '[.flows[0].misuse[] | select(.kind == "ece_held") | .confidence] == ["certain"]'
    expect "the same, every packet twice: the same finding and count" "$GEN/holdece-dup.json" \
        '[.flows[0].misuse[] | [.kind, .confidence, .count]] == [$p[0].flows[0].misuse[] | [.kind, .confidence, .count]]' \
        --slurpfile p "$GEN/holdece-whole.json"
    expect "the same with 30 % missed: not found (a CE may be in what was missed)" "$GEN/holdece-lossy.json" \
        '.flows[0].c2s.capture.missed_bytes > 0 and ([.flows[0].misuse[].kind] | index("ece_held")) == null'
    expect "the same joined mid-flow: never certain" "$GEN/holdece-mid.json" \
        '[.flows[].misuse[] | select(.kind == "ece_held" and .confidence == "certain")] == []'
fi
# no marks on Not-ECT data name no queue (an AQM drops, not marks, them):
# "unknown" with that reason, whole or thinned or jittered, never
# "none_seen" (the lab's no-ecn-client.pcap, real Linux: 54 ms of queue)
for v in "" "--capture-loss 0.3" "--jitter 3" "--skip 50"; do
    n=notect${v// /}
    if gen_report "$n" notecn sender --segments 1000 $v; then
        expect "Not-ECT data, no marks ${v:-whole}: unknown, for that reason" "$GEN/$n.json" \
            '.flows[0].c2s.path.aqm == "unknown" and .flows[0].c2s.path.confidence == null and
             (.flows[0].c2s.path.reason | test("passed here Not-ECT"))'
    fi
done
# every packet twice: the counts, verdict and findings of the plain capture
for side in sender receiver; do
    for s in classic accecn prague; do
        if gen_report $s-$side-plain $s $side --segments 1000 &&
            gen_report $s-$side-dup $s $side --segments 1000 --capture-dup; then
            expect "$s at the $side, every packet twice: the plain capture's counts, verdict and findings, the copies counted" \
                "$GEN/$s-$side-dup.json" \
                '.totals.capture_quality.duplicates == $p[0].totals.ip_packets and
                 .totals.ecn == $p[0].totals.ecn and
                 [.flows[] | [.verdict, .c2s.path.marks, [.misuse[] | [.kind, .confidence, .count]]]] ==
                 [$p[0].flows[] | [.verdict, .c2s.path.marks, [.misuse[] | [.kind, .confidence, .count]]]] and
                 .flows[0].c2s.capture.duplicates > 0 and .flows[0].s2c.capture.duplicates > 0' \
                --slurpfile p "$GEN/$s-$side-plain.json"
        fi
    done
done
if gen_report prague-receiver-dupsome prague receiver --segments 1000 --capture-dup-some 7; then
    expect "Prague at the receiver, every 7th packet twice: no feedback_missing, exact ACE" \
        "$GEN/prague-receiver-dupsome.json" \
        '.flows[0].misuse == [] and .flows[0].verdict == "l4s" and .totals.capture_quality.duplicates > 0'
fi

# joined mid-flow: the feedback read from the traffic itself
for side in sender receiver; do
    for s in prague accecn classic dctcp; do
        if gen_report $s-$side-mid $s $side --segments 1000 --skip 300; then
            expect "$s at the $side, joined mid-flow: negotiation unseen, the verdict of the whole or unknown, likely, no finding" \
                "$GEN/$s-$side-mid.json" \
                '.flows[0] | .negotiation == "unseen" and .handshake_seen == false and
                 (.verdict == $v or .verdict == "unknown") and
                 (.verdict == "unknown" or .verdict_confidence == "likely") and .misuse == []' \
                --arg v "$(case $s in prague) echo l4s ;; accecn) echo accecn_classic ;; *) echo $s ;; esac)"
        fi
    done
done
expect "Prague joined mid-flow at the receiver: AccECN from its option, the ACE counted from its first value" \
    "$GEN/prague-receiver-mid.json" \
    '.flows[0] | .verdict == "l4s" and .c2s.feedback == "accecn" and (.negotiation_inferred | test("AccECN option")) and
     .c2s.feedback_detail.ace_differs_from_seen == 0 and .c2s.feedback_detail.checked_exactly'

# CE set by the sender
if gen_report sender-ce-receiver notecn receiver --sender-ce && gen_report sender-ce-sender notecn sender --sender-ce; then
    expect "CE on every data segment of a sender without ECN, at the receiver: ce_on_not_ect, likely" \
        "$GEN/sender-ce-receiver.json" \
        '[.flows[0].misuse[] | [.kind, .dir, .confidence]] == [["ce_on_not_ect", "c2s", "likely"]]'
    expect "the same next to the sender: certain, the sender's own doing" "$GEN/sender-ce-sender.json" \
        '[.flows[0].misuse[] | [.kind, .dir, .confidence]] == [["ce_on_not_ect", "c2s", "certain"]] and
         (.flows[0].misuse[0].detail | test("sending host sets CE"))'
fi
if need "ecngen ptp-ce" "$BUILD/ecngen" ptp-ce "$GEN/ptp-ce.pcap" &&
    check "ptp-ce: read" report "$GEN/ptp-ce.pcap" "$GEN/ptp-ce.json"; then
    expect "link-local PTP, CE from the first packet, never ECT: ce_on_not_ect on each of its flows, certain" \
        "$GEN/ptp-ce.json" \
        '[.flows[] | select(.client.addr == "fe80::1")] as $s | ($s | length) >= 1 and
         all($s[]; [.misuse[] | [.kind, .confidence]] == [["ce_on_not_ect", "certain"]]) and
         all(.flows[] | select(.client.addr != "fe80::1"); .misuse == [])'
fi

finish imperfect
