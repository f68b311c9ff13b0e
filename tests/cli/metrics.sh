#!/bin/sh
# GET /metrics over HTTP (morpheus metrics --http, the server MetricsPort= starts inside
# slurmctld): Prometheus text that promtool accepts and a real Prometheus scrapes, aggregate
# figures only, and nothing but GET /metrics answered.
. "$top_srcdir/tests/cli/lib.sh"
F="$ETC/fabric.json"; I="$ETC/inventory.json"; L="$WORK/ledger.json"
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }
pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$WORK"' EXIT

run 0 "$MORPHEUS" place "$F" "$I" --nodes 2 --mem-hot 100G --mem-hot-latency 250ns --state "$L" --reserve --job-id 42
"$MORPHEUS" metrics "$F" "$I" --state "$L" --http 127.0.0.1:0 2>"$WORK/serve.err" &
pids="$pids $!"
for i in $(seq 50); do grep -q "serving http" "$WORK/serve.err" && break; sleep 0.1; done
port=$(sed -n 's|.*serving http://127.0.0.1:\([0-9]*\)/metrics|\1|p' "$WORK/serve.err")
[ -n "$port" ] || { fail "no server: $(cat "$WORK/serve.err")"; finish; }
url="http://127.0.0.1:$port/metrics"

curl -sS -D "$WORK/headers" -o "$WORK/out" "$url" || fail "curl $url"
grep -q "^HTTP/1.1 200" "$WORK/headers" || fail "status: $(head -1 "$WORK/headers")"
grep -qi "^Content-Type: text/plain; version=0.0.4" "$WORK/headers" || fail "content type"
# Pod1's free DRAM inside half of DefaultHotLatency (250ns: blade1 only) after job 42's 200G.
contains "$WORK/out" "morpheus_pod_hot_free_bytes{pod=\"pod1\",within_ns=\"250\"} $(((1024 - 200) * 1024 * 1024 * 1024))"
contains "$WORK/out" "morpheus_pod_hot_free_bytes{pod=\"pod2\",within_ns=\"1000\"}"
# Aggregate only: it is unauthenticated, so no job id, uid or user appears.
if grep -v '^#' "$WORK/out" | grep -qiE 'job_id|uid|user|="42"'; then fail "a job or user in /metrics"; fi
if command -v promtool >/dev/null; then
    promtool check metrics <"$WORK/out" >"$WORK/promtool" 2>&1 || { fail "promtool check metrics"; cat "$WORK/promtool"; }
else
    echo "SKIP: promtool not installed (contrib/ci/install-deps.sh installs prometheus)"
fi
# Nothing else is served.
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/")" = 404 ] || fail "GET / is not 404"
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$url")" = 405 ] || fail "POST is not 405"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "X-Big: $(printf '%09000d' 0)" "$url")" = 431 ] || fail "9 kB of headers are not 431"
reply=$(python3 -c "
import socket; s = socket.create_connection(('127.0.0.1', $port), timeout=5)
s.sendall(b'hello\\n\\n'); print(s.recv(100).split(b'\\r\\n')[0].decode())")
[ "$reply" = "HTTP/1.1 400 Bad Request" ] || fail "garbage got '$reply', not 400"

# A real Prometheus scrapes it once: up == 1 and the pod gauge arrives.
if command -v prometheus >/dev/null; then
    cat >"$WORK/prometheus.yml" <<YML
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: morpheus
    static_configs: [{targets: ['127.0.0.1:$port']}]
YML
    # A port below the ephemeral range (any outgoing connection may hold one above 32768), and
    # another if it is taken between the choice and the bind (other tests run beside this one).
    for try in 1 2 3 4 5; do
        pport=$(shuf -i 20000-32000 -n 1)
        prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
            --web.listen-address="127.0.0.1:$pport" >"$WORK/prometheus.log" 2>&1 &
        ppid=$!
        for i in $(seq 20); do
            grep -q "Start listening\|address already in use" "$WORK/prometheus.log" 2>/dev/null && break
            sleep 0.1
        done
        sleep 0.3
        kill -0 "$ppid" 2>/dev/null && ! grep -q "address already in use" "$WORK/prometheus.log" && break
        wait "$ppid" 2>/dev/null
    done
    pids="$pids $ppid"
    up=""
    for i in $(seq 60); do
        up=$(curl -s "http://127.0.0.1:$pport/api/v1/query?query=up" |
            python3 -c "import json,sys; r=json.load(sys.stdin)['data']['result']; print(r[0]['value'][1] if r else '')" 2>/dev/null)
        [ "$up" = 1 ] && break
        sleep 0.25
    done
    [ "$up" = 1 ] || { fail "Prometheus: up is '$up'"; tail -5 "$WORK/prometheus.log"; }
    got=$(curl -s "http://127.0.0.1:$pport/api/v1/query?query=morpheus_pod_hot_free_bytes%7Bpod%3D%22pod1%22%2Cwithin_ns%3D%22250%22%7D" |
        python3 -c "import json,sys; r=json.load(sys.stdin)['data']['result']; print(r[0]['value'][1] if r else '')")
    [ "$got" = $(((1024 - 200) * 1024 * 1024 * 1024)) ] || fail "Prometheus has pod1's free hot memory as '$got'"
else
    echo "SKIP: prometheus not installed (contrib/ci/install-deps.sh installs it)"
fi
finish
