#!/usr/bin/env bash
# prometheus.sh BUILD - the path a fleet operator takes: a real Prometheus
# server (Debian's prometheus) scrapes a live ecnwatch in a network namespace
# made for the test, and the series are read back through Prometheus's HTTP
# API; every query of the Grafana dashboard in contrib/ is evaluated there and
# must name only metrics that ecnwatch exports.
# Everything runs inside the namespace, on its loopback: ecnwatch captures
# `lo` while TCP (classic ECN, ECT(0)) and UDP (ECT(1)) test traffic and the
# scrapes themselves cross it. Needs root; without prometheus or network
# namespaces it says "prometheus: skipped" (make test counts that a failure).
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

begin "ecnwatch serves /metrics live in the namespace"
ip netns exec "$NS" "$EW" -i lo -q --interval 0.5 --metrics "127.0.0.1:$PORT" >/dev/null 2>"$tmp/ew.err" &
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

# test traffic on the namespace's loopback: the server listens before the client starts
begin "test traffic: TCP with classic ECN and ECT(1) UDP"
traffic 4 && ok "test traffic: TCP with classic ECN and ECT(1) UDP"
sleep 3 # two more scrapes after the traffic

begin "the series read back: frames counted, ECT(0) and ECT(1) packets, a classic flow"
f=$(value 'ecnwatch_frames_total{job="ecnwatch"}')
e0=$(value 'ecnwatch_packets_total{codepoint="ect0"}')
e1=$(value 'ecnwatch_packets_total{codepoint="ect1"}')
cl=$(value 'ecnwatch_flows{verdict="classic"}')
if [ -n "$f" ] && [ "${f%.*}" -gt 1000 ] && [ -n "$e0" ] && [ "${e0%.*}" -gt 100 ] &&
    [ -n "$e1" ] && [ "${e1%.*}" -gt 100 ] && [ -n "$cl" ] && [ "${cl%.*}" -ge 1 ]; then
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
        # Grafana's variables, as Grafana would put them in
        q=$(printf '%s' "$e" | sed 's/\$__rate_interval/10s/g; s/=~"\$instance"/=~".+"/g')
        query "$q"
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
kill -TERM $prompid $ewpid 2>/dev/null
wait_bounded 20 $prompid $ewpid
finish prometheus
