#!/bin/bash
# Inside slurmctld: MetricsPort serves GET /metrics (promtool accepts it, a running job shows),
# and `morpheus update` drains a blade with a reason that slurmctld picks up and pools shows.
. "$(dirname "$0")/lib.sh"
server=(--server "127.0.0.1:$E2E_STATUS_PORT")
inv=$(dirname "$E2E_MORPHEUS_CONF")/inventory.json
cp "$inv" "$TEST_TMP/inventory.good"
trap 'cp "$TEST_TMP/inventory.good" "$inv"; touch -d "+6 seconds" "$inv"; _cleanup_test' EXIT

job=$(submit -N1 --mem-hot=64G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
wait_state "$job" RUNNING 20
m=$(curl -sf "http://127.0.0.1:$E2E_METRICS_PORT/metrics") || fail "GET /metrics from slurmctld failed"
assert_match "jobs placed in /metrics" 'morpheus_jobs_placed 1' "$m"
assert_match "pod gauge in /metrics" 'morpheus_pod_hot_free_bytes\{pod="pod1",within_ns="250"\} 1030792151040' "$m"
if command -v promtool >/dev/null; then
	echo "$m" | promtool check metrics >/dev/null 2>&1 || fail "promtool check metrics: $(echo "$m" | promtool check metrics 2>&1)"
fi
scancel "$job"
wait_state "$job" CANCELLED 20

out=$(SLURM_CONF="$SLURM_CONF" morpheus_cli update blade=blade1 state=drain reason="DIMM errors") || fail "update: $out"
touch -d '+2 seconds' "$inv" # a new mtime even within the same second
sleep 1.5
waiting=$(submit -N1 --mem-hot=64G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 1')
wait_state "$waiting" PENDING 10
out=$(morpheus_cli pools "${server[@]}" -t drain -O blade,state,reason -h) || fail "pools: $out"
assert_match "pools shows the drain and its reason" 'blade1 +draining +DIMM errors' "$out"
r=""
for i in $(seq 40); do r=$(squeue -h -j "$waiting" -o %r); [[ $r =~ ^Morpheus ]] && break; sleep 0.25; done
assert_match "reason of a job that needs the drained blade" '^Morpheus: .*draining' "$r"
[ ${#r} -le 90 ] || fail "reason longer than 90 characters: $r"
out=$(SLURM_CONF="$SLURM_CONF" morpheus_cli update blade=blade1 state=resume) || fail "update up: $out"
touch -d '+4 seconds' "$inv"
wait_state "$waiting" COMPLETED 30
