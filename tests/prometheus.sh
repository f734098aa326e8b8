#!/usr/bin/env bash
# prometheus.sh BUILD - the path a fleet operator takes: a real Prometheus
# server (Debian's prometheus) scrapes a live ecnwatch in a network namespace
# made for the test, and the series are read back through Prometheus's HTTP
# API; every query of the Grafana dashboard in contrib/ is evaluated there and
# must name only metrics that ecnwatch exports. The diagnosis (flow
# directions by path verdict, bottlenecks, the queueing delay histogram) read
# back from Prometheus must be what the -o report of the same run says
# (tests/diagnosis.jq), the dashboard's misuse panel must show 0 on this
# clean traffic, and once ecnwatch is gone (a broken scrape, `up` 0) every
# panel must show no data rather than a number.
# Everything runs inside the namespace, on its loopback: ecnwatch captures
# `lo` while TCP (classic ECN, ECT(0)) and UDP (ECT(1)) test traffic crosses
# it, through a 10 Mbit/s bottleneck (htb, when tc can make one) so that the
# transfer queues; the scrapes and the API's queries cross it too, left out
# of the capture by a filter so that what ecnwatch holds stops changing when
# the traffic ends. Needs root; without prometheus or network namespaces it
# says "prometheus: skipped" (make test counts that a failure).
# Ends "prometheus: N passed, N failed".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netns.sh"
DASH=$EW_ROOT/contrib/grafana-ecnwatch.json
chmod 755 "$tmp"
PORT=$((21000 + $$ % 20000))
PPORT=$((PORT + 1))

if ! command -v prometheus >/dev/null; then
    echo "prometheus: skipped: needs Debian's prometheus (scripts/install-deps.sh)"
    finish prometheus
    exit
fi
netns_one prom
case $? in
0) ;;
2) echo "prometheus: skipped: $why"; finish prometheus; exit ;;
*) bad "setting up the namespace: $why"; finish prometheus; exit ;;
esac

# query EXPR: Prometheus's answer to an instant query, in $tmp/q.json
query() {
    bounded 10 ip netns exec "$NS" curl -s -m 5 -G "http://127.0.0.1:$PPORT/api/v1/query" \
        --data-urlencode "query=$1" -o "$tmp/q.json"
}
# value EXPR: the first sample's value of an instant query ("" when none)
value() { query "$1" && jq -r '.data.result[0].value[1] // empty' "$tmp/q.json" 2>/dev/null; }
# dash_query EXPR: a dashboard query as Grafana would send it (its variables put in)
dash_query() { query "$(printf '%s' "$1" | sed 's/\$__rate_interval/10s/g; s/=~"\$instance"/=~".+"/g')"; }
# panel_results TITLE: the answers of the panel's queries, one line each:
# the values as a JSON array ("no answer" when the query failed)
panel_results() {
    local e
    while IFS= read -r e; do
        dash_query "$e"
        jq -c '[.data.result[].value[1]]' "$tmp/q.json" 2>/dev/null || echo "no answer"
    done < <(jq -r --arg t "$1" '.panels[] | select(.title == $t) | .targets[].expr' "$DASH")
}
MISUSE="Flows with a misuse finding"

# a bottleneck for the transfer (TCP port 5201): lo at Ethernet's MTU, its
# data and its ACKs through a 10 Mbit/s htb class with a 100-packet FIFO (the
# ACKs wait behind the data, so that the round trips timed at the capture
# point hold the queue), all else (the UDP datagrams, the scrapes) through a
# class too fast to queue; without it the traffic still runs, unqueued
if netns_step ip -n "$NS" link set lo mtu 1500 &&
    netns_step tc -n "$NS" qdisc add dev lo root handle 1: htb default 2 &&
    netns_step tc -n "$NS" class add dev lo parent 1: classid 1:1 htb rate 10mbit &&
    netns_step tc -n "$NS" class add dev lo parent 1: classid 1:2 htb rate 10gbit &&
    netns_step tc -n "$NS" qdisc add dev lo parent 1:1 handle 10: pfifo limit 100 &&
    netns_step tc -n "$NS" filter add dev lo parent 1: protocol ip prio 1 u32 match ip dport 5201 0xffff flowid 1:1 &&
    netns_step tc -n "$NS" filter add dev lo parent 1: protocol ip prio 1 u32 match ip sport 5201 0xffff flowid 1:1; then
    :
else
    echo "     (no bottleneck on lo: $why; the traffic runs unqueued)"
    _ew_setup=""
fi

# the -o report is written as the user ecnwatch drops to
mkdir -m 0777 "$tmp/out"
REPORT=$tmp/out/report.json
begin "ecnwatch serves /metrics live in the namespace"
ip netns exec "$NS" "$EW" -i lo -q --interval 0.5 --metrics "127.0.0.1:$PORT" -o "$REPORT" \
    not tcp port "$PORT" and not tcp port "$PPORT" >/dev/null 2>"$tmp/ew.err" &
ewpid=$!
bg="$bg $ewpid"
if ! wait_http 30 "$NS" "http://127.0.0.1:$PORT/metrics" $ewpid; then
    bad "ecnwatch serves /metrics: HTTP $code: $(head -c 200 "$tmp/ew.err")"
    finish prometheus
    exit
fi
ok "ecnwatch serves /metrics live in the namespace"

cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: ecnwatch
    static_configs:
      - targets: ["127.0.0.1:$PORT"]
EOF
begin "Prometheus scrapes ecnwatch: the target is up"
ip netns exec "$NS" prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
    --web.listen-address="127.0.0.1:$PPORT" >"$tmp/prom.log" 2>&1 &
prompid=$!
bg="$bg $prompid"
health=""
end=$((SECONDS + 60))
while [ $SECONDS -lt $end ]; do
    health=$(bounded 10 ip netns exec "$NS" curl -s -m 2 "http://127.0.0.1:$PPORT/api/v1/targets" 2>/dev/null |
        jq -r '.data.activeTargets[0].health // empty' 2>/dev/null)
    [ "$health" = up ] && break
    kill -0 $prompid 2>/dev/null || break
    sleep 0.5
done
if [ "$health" = up ]; then
    ok "Prometheus scrapes ecnwatch: the target is up"
else
    bad "Prometheus target health '${health:-none}': $(tail -c 300 "$tmp/prom.log" | tr '\n' ' ')"
    finish prometheus
    exit
fi

# The misuse panel tells 0 from no data: before any traffic the capture holds
# no flow, so no finding (every ecnwatch_misuse_flows sample 0, as exported):
# the per-kind query shows nothing and the other one series at 0, not "No data".
begin "the misuse panel shows 0 on a clean probe"
got=""
end=$((SECONDS + 10))
while [ $SECONDS -lt $end ]; do
    got=$(panel_results "$MISUSE" | tr '\n' ' ')
    [ "$got" = '[] ["0"] ' ] && break
    sleep 0.5
done
if [ "$got" = '[] ["0"] ' ] && [ "$(value 'sum(ecnwatch_flows_held)')" = 0 ]; then
    ok "the misuse panel shows 0 on a clean probe (its queries: $got)"
else
    bad "the misuse panel on a clean probe: its queries gave $got (want [] [\"0\"]); flows held: $(value 'sum(ecnwatch_flows_held)')"
fi

# test traffic on the namespace's loopback: the server listens before the client starts
begin "test traffic: TCP with classic ECN and ECT(1) UDP"
traffic 4 && ok "test traffic: TCP with classic ECN and ECT(1) UDP"
sleep 3 # two more scrapes after the traffic

begin "the series read back: frames counted, ECT(0) and ECT(1) packets, a classic flow"
f=$(value 'ecnwatch_frames_total{job="ecnwatch"}')
e0=$(value 'ecnwatch_packets_total{codepoint="ect0"}')
e1=$(value 'ecnwatch_packets_total{codepoint="ect1"}')
cl=$(value 'ecnwatch_flows{verdict="classic"}')
if [ -n "$f" ] && [ -n "$e0" ] && [ -n "$e1" ] && [ "${f%.*}" -gt 400 ] &&
    [ "${f%.*}" -gt $((${e0%.*} + ${e1%.*})) ] && [ "${e0%.*}" -gt 50 ] &&
    [ "${e1%.*}" -gt 100 ] && [ -n "$cl" ] && [ "${cl%.*}" -ge 1 ]; then
    ok "the series read back: $f frames, $e0 ECT(0) and $e1 ECT(1) packets, $cl classic flows"
else
    bad "series through Prometheus: frames '$f', ect0 '$e0', ect1 '$e1', classic flows '$cl'"
fi
begin "a rate over the scrapes is positive"
r=$(value 'sum(rate(ecnwatch_packets_total[10s]))')
if [ -n "$r" ] && awk -v r="$r" 'BEGIN { exit !(r > 0) }'; then
    ok "a rate over the scrapes is positive ($r packets/s)"
else
    bad "rate(ecnwatch_packets_total[10s]): '$r' ($(head -c 200 "$tmp/q.json"))"
fi

# The diagnosis through Prometheus: every label value's series is there,
# zero or not (9 path verdicts, 4 bottleneck kinds twice, 5 sender codepoints
# with 12 buckets, a sum and a count each), and their values are kept to be
# set against the -o report when ecnwatch has stopped.
DIAG='ecnwatch_flow_directions_by_path|ecnwatch_bottlenecks|ecnwatch_bottleneck_flows|ecnwatch_flow_queueing_delay_seconds_(bucket|sum|count)'
# as_lines: an instant query's answer as exposition lines, ecnwatch's labels
# in its order, Prometheus's own (instance, job) left out
as_lines() {
    jq -r '.data.result[] | .metric as $m
        | "\($m.__name__){" + ([["aqm", "looks_like", "sender_codepoint", "le"][] as $k
            | select($m[$k] != null) | "\($k)=\"\($m[$k])\""] | join(",")) + "} \(.value[1])"' "$tmp/q.json"
}
begin "the diagnosis's series are all scraped"
query "count by (__name__) ({__name__=~\"$DIAG\"})"
got=$(jq -r '[.data.result[] | "\(.metric.__name__)=\(.value[1])"] | sort | join(" ")' "$tmp/q.json" 2>/dev/null)
want="ecnwatch_bottleneck_flows=4 ecnwatch_bottlenecks=4 ecnwatch_flow_directions_by_path=9 ecnwatch_flow_queueing_delay_seconds_bucket=60 ecnwatch_flow_queueing_delay_seconds_count=5 ecnwatch_flow_queueing_delay_seconds_sum=5"
if [ "$got" = "$want" ]; then
    ok "the diagnosis's series are all scraped ($got)"
else
    bad "the diagnosis's series in Prometheus: '$got', want '$want'"
fi
query "{__name__=~\"$DIAG\"}"
as_lines | sort >"$tmp/prom.diag" 2>/dev/null

# the Grafana dashboard: every query evaluates, and names only metrics ecnwatch exports
begin "contrib/grafana-ecnwatch.json: every query evaluates in Prometheus"
bounded 10 ip netns exec "$NS" curl -s -m 5 -o "$tmp/exposition.txt" "http://127.0.0.1:$PORT/metrics"
nq=0
problems=""
if ! jq -e '.panels | length > 0' "$DASH" >/dev/null 2>&1; then
    problems="not a dashboard with panels"
else
    while IFS= read -r e; do
        nq=$((nq + 1))
        dash_query "$e"
        st=$(jq -r '.status // empty' "$tmp/q.json" 2>/dev/null)
        [ "$st" = success ] || problems="$problems [$e: ${st:-no answer} $(jq -r '.error // empty' "$tmp/q.json" 2>/dev/null)]"
        for m in $(printf '%s' "$e" | grep -o 'ecnwatch_[a-z_]*' | sort -u); do
            grep -q "^$m[{ ]" "$tmp/exposition.txt" || problems="$problems [$m: not exported]"
        done
    done < <(jq -r '.panels[].targets[].expr' "$DASH")
fi
if [ -z "$problems" ] && [ $nq -ge 5 ]; then
    ok "contrib/grafana-ecnwatch.json: all $nq queries evaluate in Prometheus, on exported metrics"
else
    bad "the dashboard's queries ($nq):$problems"
fi

# After the traffic the misuse panel says what the exposition says: the kinds
# with flows, each with its count, and "none" only when there is none.
begin "the misuse panel after the traffic: what the exposition says"
nz=$(awk -F'"' '/^ecnwatch_misuse_flows\{/ { split($3, v, " "); if (v[2] != 0) printf "\"%s\",", v[2] }' "$tmp/exposition.txt")
want="[${nz%,}] $([ -z "$nz" ] && echo '["0"]' || echo '[]') "
got=$(panel_results "$MISUSE" | tr '\n' ' ')
if grep -q '^ecnwatch_misuse_flows{' "$tmp/exposition.txt" && [ "$got" = "$want" ]; then
    ok "the misuse panel after the traffic: what the exposition says (its queries: $got)"
else
    bad "the misuse panel after the traffic: its queries gave $got, the exposition calls for $want"
fi

# the report of the same run, written when ecnwatch stops; the diagnosis
# Prometheus holds must be what it says
begin "SIGTERM: ecnwatch writes its report"
kill -TERM $ewpid 2>/dev/null
if wait_rc 20 $ewpid && [ "$rc" = 0 ] && json_ok "$REPORT"; then
    ok "SIGTERM: ecnwatch writes its report"
else
    bad "SIGTERM: exit ${rc:-?} $why, report: $(head -c 100 "$REPORT" 2>&1): $(head -c 200 "$tmp/ew.err")"
fi
cp "$REPORT" /tmp/prom-report.json; begin "the diagnosis through Prometheus is the -o report's"
jq -r --slurpfile schema man/ecnwatch-report.schema.json -f tests/diagnosis.jq "$REPORT" 2>/dev/null | sort >"$tmp/report.diag"
paths=$(awk '/^ecnwatch_flow_directions_by_path\{/ { s += $2 } END { print s + 0 }' "$tmp/prom.diag")
timed=$(awk '/^ecnwatch_flow_queueing_delay_seconds_count\{/ { s += $2 } END { print s + 0 }' "$tmp/prom.diag")
if [ -s "$tmp/report.diag" ] && d=$(diff "$tmp/report.diag" "$tmp/prom.diag") && [ "$paths" -ge 1 ]; then
    ok "the diagnosis through Prometheus is the -o report's ($paths directions with a path: $(grep -v ' 0$' "$tmp/prom.diag" | grep directions_by_path | sed 's/.*aqm="\([a-z_]*\)"} \(.*\)/\2 \1/' | tr '\n' ' ')$timed timed)"
else
    bad "the diagnosis: the report says < Prometheus says >: $(echo "${d:-}" | head -8 | tr '\n' ' ') ($paths directions with a path)"
fi

# A broken scrape: with ecnwatch gone, Prometheus says so (up 0) and marks
# its series stale; once the rate windows (10 s) have passed, every panel of
# the dashboard shows no data, none a number that looks like a reading.
begin "a broken scrape: up is 0 and every panel shows no data"
up=""
end=$((SECONDS + 30))
while [ $SECONDS -lt $end ]; do
    up=$(value 'up{job="ecnwatch"}')
    [ "$up" = 0 ] && break
    sleep 0.5
done
sleep 12
problems=""
while IFS= read -r e; do
    dash_query "$e"
    n=$(jq -r 'if .status == "success" then .data.result | length else "error" end' "$tmp/q.json" 2>/dev/null)
    [ "$n" = 0 ] || problems="$problems [$e: ${n:-no answer} results]"
done < <(jq -r '.panels[].targets[].expr' "$DASH")
if [ "$up" = 0 ] && [ -z "$problems" ]; then
    ok "a broken scrape: up is 0 and every panel shows no data"
else
    bad "a broken scrape: up '$up';$problems"
fi
kill -TERM $prompid 2>/dev/null
wait_bounded 20 $prompid
finish prometheus
