#!/usr/bin/env bash
# metrics-tls.sh BUILD - --web-config, as a fleet operator meets it: the
# --metrics endpoint of a live ecnwatch in a network namespace made for the
# test (its loopback only), served over TLS with a certificate made here for
# 127.0.0.1 by a CA made here (openssl), with basic authentication against a
# bcrypt hash made here (mkpasswd); scraped by curl and by a real Prometheus
# server (Debian's prometheus) that checks the certificate against the CA:
# the right user and password get the metrics, a wrong password or none gets
# 401 (the target is down), plain HTTP to the TLS port gets nothing. The key
# is readable by root only: ecnwatch reads it before it drops to nobody. A
# bad configuration (a missing file, a key that cannot be read, bad YAML, a
# key ecnwatch does not implement, a hash that is not bcrypt) is one line on
# standard error and exit status 2, and nothing listens.
# Needs root; without prometheus, openssl, mkpasswd or network namespaces it
# says "metrics-tls: skipped" (make test counts that a failure). Every
# process it starts is bounded in time and ended on exit.
# Ends "metrics-tls: N passed, N failed".
. "$(dirname "$0")/lib.sh"
EW=$(readlink -f "$EW")
. "$(dirname "$0")/netns.sh"
PORT=$((22000 + $$ % 20000))
PPORT=$((PORT + 1))
oneline() { head -c "${2:-300}" "$1" 2>/dev/null | tr '\n' ' '; } # oneline FILE [BYTES]

for t in prometheus openssl mkpasswd; do
    if ! command -v $t >/dev/null; then
        echo "metrics-tls: skipped: needs $t (scripts/install-deps.sh)"
        finish metrics-tls
        exit
    fi
done
netns_one tls
case $? in
0) ;;
2) echo "metrics-tls: skipped: $why"; finish metrics-tls; exit ;;
*) bad "setting up the namespace: $why"; finish metrics-tls; exit ;;
esac

# the CA, the server's certificate for 127.0.0.1, another key, the hash; in
# a folder of root's that nobody else may enter
W=$tmp/web
mkdir -m 0700 "$W"
PW="scrape pass 1"
begin "test certificates and the bcrypt hash"
if bounded 30 openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj /CN=ecnwatch-test-ca -keyout "$W/ca.key" -out "$W/ca.crt" >/dev/null 2>"$tmp/ssl.err" &&
    bounded 30 openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=127.0.0.1 \
        -keyout "$W/server.key" -out "$W/server.csr" >/dev/null 2>>"$tmp/ssl.err" &&
    printf 'subjectAltName=IP:127.0.0.1\n' >"$W/ext" &&
    bounded 30 openssl x509 -req -in "$W/server.csr" -CA "$W/ca.crt" -CAkey "$W/ca.key" -CAcreateserial \
        -days 2 -extfile "$W/ext" -out "$W/server.crt" >/dev/null 2>>"$tmp/ssl.err" &&
    bounded 30 openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:prime256v1 -out "$W/other.key" 2>>"$tmp/ssl.err" &&
    chmod 0600 "$W"/*.key &&
    HASH=$(printf '%s' "$PW" | bounded 30 mkpasswd -m bcrypt -s) && case $HASH in '$2'[aby]'$'*) ;; *) false ;; esac &&
    SHA=$(printf '%s' "$PW" | bounded 30 mkpasswd -m sha512crypt -s); then
    : # not a check of ecnwatch: it counts (bad) only when it fails
else
    bad "test certificates and the bcrypt hash: $(oneline "$tmp/ssl.err")"
    finish metrics-tls
    exit
fi
# the configuration: relative names, resolved against its own folder
cat >"$W/web.yml" <<EOF2
# ecnwatch --web-config: TLS and basic authentication
tls_server_config:
  cert_file: server.crt
  key_file: server.key
basic_auth_users:
  prom: $HASH
EOF2

# bad configurations: one line, exit 2, nothing listening
listening() { ip netns exec "$NS" ss -Hltn "sport = :$PORT" 2>/dev/null | grep -q .; }
refused() { # refused NAME PATTERN FILE
    local name=$1 pat=$2
    begin "$name"
    why=""
    if ! EW_CMD_TIMEOUT=20 run_ew 2 "$tmp/bad.out" "$tmp/bad.err" \
        ip netns exec "$NS" "$EW" -i lo -q --metrics "127.0.0.1:$PORT" --web-config "$3"; then
        bad "$name: $why"
    elif ! grep -qE -- "$pat" "$tmp/bad.err" || [ "$(wc -l <"$tmp/bad.err")" != 1 ]; then
        bad "$name: want one line matching '$pat': $(oneline "$tmp/bad.err")"
    elif listening; then
        bad "$name: something listens on $PORT"
    else
        ok "$name"
    fi
}
mkconf() { # mkconf NAME: standard input as $W/NAME.yml
    cat >"$W/$1.yml"
}
refused "a missing file -> 2" "^ecnwatch: --web-config $W/none\.yml: No such file or directory$" "$W/none.yml"
mkconf nokey <<EOF2
tls_server_config:
  cert_file: server.crt
  key_file: missing.key
EOF2
refused "a key that cannot be read -> 2" "--web-config $W/nokey\.yml:3: tls_server_config\.key_file $W/missing\.key: No such file or directory" "$W/nokey.yml"
mkconf wrongkey <<EOF2
tls_server_config:
  cert_file: server.crt
  key_file: other.key
EOF2
refused "a key that is not the certificate's -> 2" "wrongkey\.yml:3: tls_server_config\.key_file: not the private key of cert_file" "$W/wrongkey.yml"
mkconf notkey <<EOF2
tls_server_config:
  cert_file: server.crt
  key_file: web.yml
EOF2
refused "a key that is not PEM -> 2" "notkey\.yml:3: tls_server_config\.key_file: not a PEM private key" "$W/notkey.yml"
mkconf badyaml <<EOF2
tls_server_config:
  cert_file: [server.crt
  key_file: server.key
EOF2
refused "bad YAML -> 2" "badyaml\.yml:[0-9]+: not YAML: " "$W/badyaml.yml"
mkconf clientauth <<EOF2
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
EOF2
refused "client_auth_type (not implemented) -> 2" "clientauth\.yml:4: tls_server_config\.client_auth_type: not supported by ecnwatch" "$W/clientauth.yml"
mkconf unknown <<EOF2
basic_auth_user:
  prom: $HASH
EOF2
refused "an unknown key -> 2" "unknown\.yml:1: basic_auth_user: unknown key" "$W/unknown.yml"
mkconf sha <<EOF2
basic_auth_users:
  prom: $SHA
EOF2
refused "a hash that is not bcrypt -> 2" "sha\.yml:2: basic_auth_users\.prom: not a bcrypt hash" "$W/sha.yml"
mkconf plainpw <<EOF2
basic_auth_users:
  prom: "$PW"
EOF2
refused "a password in the clear -> 2" "plainpw\.yml:2: basic_auth_users\.prom: not a bcrypt hash" "$W/plainpw.yml"
begin "--web-config without --metrics -> 2"
if EW_CMD_TIMEOUT=20 run_ew 2 "$tmp/bad.out" "$tmp/bad.err" "$EW" -r captures/rfc3168-ce-server.pcap --web-config "$W/web.yml" &&
    grep -q "^ecnwatch: --web-config configures the --metrics endpoint" "$tmp/bad.err"; then
    ok "--web-config without --metrics -> 2"
else
    bad "--web-config without --metrics: ${why:-$(oneline "$tmp/bad.err")}"
fi

# the endpoint over TLS with authentication; ecnwatch drops to nobody
begin "ecnwatch serves /metrics over TLS"
bounded 300 ip netns exec "$NS" "$EW" -i lo -q --interval 0.5 --metrics "127.0.0.1:$PORT" --web-config "$W/web.yml" \
    not tcp port "$PORT" and not tcp port "$PPORT" >/dev/null 2>"$tmp/ew.err" &
ewpid=$!
bg="$bg $ewpid"
# curl_code ARGS...: the HTTP status of a scrape of /metrics over TLS (000: none)
curl_code() {
    bounded 10 ip netns exec "$NS" curl -s -m 5 --cacert "$W/ca.crt" -o "$tmp/c.txt" -D "$tmp/c.hdr" \
        -w '%{http_code}' "$@" "https://127.0.0.1:$PORT/metrics"
}
code=000
end=$((SECONDS + 30))
while [ $SECONDS -lt $end ]; do
    code=$(curl_code -u "prom:$PW")
    [ "$code" = 200 ] && break
    kill -0 $ewpid 2>/dev/null || break
    sleep 0.2
done
if [ "$code" = 200 ] && grep -q '^ecnwatch_frames_total ' "$tmp/c.txt"; then
    ok "ecnwatch serves /metrics over TLS (the certificate checked against the test CA, the user's password)"
else
    bad "ecnwatch over TLS: HTTP $code: $(oneline "$tmp/ew.err")"
fi
begin "the key was read before the drop to nobody"
ewreal=$(ip netns pids "$NS" 2>/dev/null | while read -r p; do [ "$(cat /proc/$p/comm 2>/dev/null)" = ecnwatch ] && echo "$p"; done | head -1)
if [ -n "$ewreal" ] && grep -q '^Uid:.*65534' "/proc/$ewreal/status" 2>/dev/null && [ "$code" = 200 ] &&
    [ "$(stat -c %a "$W/server.key")" = 600 ]; then
    ok "the key was read before the drop to nobody (it is root's, mode 0600)"
else
    bad "the key and the drop: pid '$ewreal', $(grep '^Uid:' "/proc/$ewreal/status" 2>&1 | tr -s '\t ' '  ')"
fi
begin "no password: 401 with WWW-Authenticate: Basic realm=\"ecnwatch\""
c=$(curl_code)
if [ "$c" = 401 ] && tr -d '\r' <"$tmp/c.hdr" | grep -qx 'WWW-Authenticate: Basic realm="ecnwatch"' &&
    ! grep -q '^ecnwatch_' "$tmp/c.txt"; then
    ok "no password: 401 with WWW-Authenticate: Basic realm=\"ecnwatch\""
else
    bad "no password: HTTP $c: $(tr -d '\r' <"$tmp/c.hdr" | tr '\n' ' ')"
fi
begin "a wrong password, an unknown user, another path: 401"
c1=$(curl_code -u "prom:wrong") c2=$(curl_code -u "root:$PW")
c3=$(bounded 10 ip netns exec "$NS" curl -s -m 5 --cacert "$W/ca.crt" -o /dev/null -w '%{http_code}' "https://127.0.0.1:$PORT/")
[ "$c1" = 401 ] && [ "$c2" = 401 ] && [ "$c3" = 401 ] && ok "a wrong password, an unknown user, another path: 401" ||
    bad "401s: wrong password $c1, unknown user $c2, / without a password $c3"
begin "plain HTTP to the TLS port: no answer"
c=$(bounded 10 ip netns exec "$NS" curl -s -m 5 -u "prom:$PW" -o "$tmp/p.txt" -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")
if [ "$c" != 200 ] && ! grep -q '^ecnwatch_' "$tmp/p.txt" 2>/dev/null && [ "$(curl_code -u "prom:$PW")" = 200 ]; then
    ok "plain HTTP to the TLS port: no answer (HTTP $c), TLS still served"
else
    bad "plain HTTP to the TLS port: HTTP $c"
fi

# Prometheus: one job with the right user and password, one with a wrong
# password, one with none, one over plain HTTP; the CA checks the certificate
printf '%s' "$PW" >"$W/pw"
printf 'wrong' >"$W/wrongpw"
job() { # job NAME SCHEME [PASSWORD-FILE]
    cat <<EOF2
  - job_name: $1
    scheme: $2
    tls_config:
      ca_file: $W/ca.crt
      insecure_skip_verify: false
$([ -n "${3:-}" ] && printf '    basic_auth:\n      username: prom\n      password_file: %s\n' "$3")
    static_configs:
      - targets: ["127.0.0.1:$PORT"]
EOF2
}
{
    printf 'global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n'
    job good https "$W/pw"
    job wrongpw https "$W/wrongpw"
    job noauth https
    job plain http "$W/pw"
} >"$W/prometheus.yml"
begin "Prometheus scrapes over TLS with basic auth: the target is up"
bounded 240 ip netns exec "$NS" prometheus --config.file="$W/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
    --web.listen-address="127.0.0.1:$PPORT" >"$tmp/prom.log" 2>&1 &
prompid=$!
bg="$bg $prompid"
# health JOB: the target's health and last error, from the targets API
targets() { bounded 10 ip netns exec "$NS" curl -s -m 2 "http://127.0.0.1:$PPORT/api/v1/targets" >"$tmp/t.json" 2>/dev/null; }
health() { jq -r --arg j "$1" '.data.activeTargets[] | select(.labels.job == $j) | "\(.health) \(.lastError)"' "$tmp/t.json" 2>/dev/null; }
end=$((SECONDS + 60))
while [ $SECONDS -lt $end ]; do
    if targets; then
        n=0
        for j in good wrongpw noauth plain; do
            case $(health $j) in up* | down*) n=$((n + 1)) ;; esac
        done
        [ $n = 4 ] && [ "$(health good | cut -d' ' -f1)" = up ] && break
    fi
    kill -0 $prompid 2>/dev/null || break
    sleep 0.5
done
sleep 2 # a few more scrapes of each
targets
if [ "$(health good | cut -d' ' -f1)" = up ]; then
    ok "Prometheus scrapes over TLS with basic auth: the target is up"
else
    bad "Prometheus over TLS: the target is '$(health good)': $(tail -c 300 "$tmp/prom.log" | tr '\n' ' ')"
fi
begin "the series read back through Prometheus"
bounded 10 ip netns exec "$NS" curl -s -m 5 -G "http://127.0.0.1:$PPORT/api/v1/query" \
    --data-urlencode 'query=ecnwatch_frames_total{job="good"}' -o "$tmp/q.json"
n=$(jq -r '.data.result | length' "$tmp/q.json" 2>/dev/null)
bounded 10 ip netns exec "$NS" curl -s -m 5 -G "http://127.0.0.1:$PPORT/api/v1/query" \
    --data-urlencode 'query=count({__name__=~"ecnwatch_.+",job!="good"})' -o "$tmp/q2.json"
other=$(jq -r '.data.result | length' "$tmp/q2.json" 2>/dev/null)
if [ "$n" = 1 ] && [ "$other" = 0 ]; then
    ok "the series read back through Prometheus (from the authenticated job only)"
else
    bad "the series through Prometheus: ecnwatch_frames_total of the good job: '$n' series; of the others: '$other'"
fi
for j in wrongpw noauth; do
    begin "Prometheus with $j: the target is down, 401"
    h=$(health $j)
    case $h in
    "down "*401*) ok "Prometheus with $j: the target is down ($h)" ;;
    *) bad "Prometheus with $j: '$h', want down with 401" ;;
    esac
done
begin "Prometheus over plain HTTP to the TLS port: the target is down"
h=$(health plain)
# only when the TLS jobs got an answer: nothing listening would be down too
case "$h $(health good)" in
*"connection refused"*) bad "Prometheus over plain HTTP: '$h', and the endpoint refuses connections" ;;
"down "*" up "*) ok "Prometheus over plain HTTP to the TLS port: the target is down ($h)" ;;
*) bad "Prometheus over plain HTTP: '$h', want down" ;;
esac
kill -TERM $prompid 2>/dev/null
wait_bounded 20 $prompid
kill -TERM $ewpid 2>/dev/null
wait_bounded 20 $ewpid
finish metrics-tls
