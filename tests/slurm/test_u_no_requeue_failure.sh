#!/bin/bash
# (u) BladeFailurePolicy=requeue and a job that may not be requeued (--no-requeue): it is
# signalled (SIGUSR1) like under the signal policy instead of running on unwarned.
. "$(dirname "$0")/lib.sh"

inv=$(dirname "$E2E_MORPHEUS_CONF")/inventory.json
cp "$inv" "$TEST_TMP/inventory.good"
trap 'cp "$TEST_TMP/inventory.good" "$inv"; touch -d "+12 seconds" "$inv"; _cleanup_test' EXIT
grep -q '^BladeFailurePolicy=requeue' "$E2E_MORPHEUS_CONF" || fail "test setup: policy is not requeue"

out=$TEST_TMP/u.out
job=$(submit -N1 --mem-hot=64G --mem-hot-latency=250ns --no-requeue -o "$out" --wrap \
	'trap "echo GOT-USR1" USR1; for i in $(seq 300); do sleep 0.2; done')
wait_state "$job" RUNNING 20
sleep 1
python3 - "$inv" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	for b in d["blades"]:
	    if b["name"] == "blade1":
	        b["state"] = "failed"
	json.dump(d, open(sys.argv[1], "w"), indent=1)
PY
touch -d '+6 seconds' "$inv"
for _ in $(seq 75); do grep -q GOT-USR1 "$out" 2>/dev/null && break; sleep 0.2; done
grep -q GOT-USR1 "$out" || fail "job $job got no SIGUSR1: $(cat "$out" 2>/dev/null)"
assert_eq "state of $job" RUNNING "$(job_state "$job")"
grep -q "JobId=$job cannot be requeued: signalled (SIGUSR1) instead" "$E2E_RUN/log/slurmctld.log" ||
	fail "no fallback line for $job in the log"
note "ok: --no-requeue job $job signalled on the failed blade"
