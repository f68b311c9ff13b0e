#!/bin/bash
# The status service inside slurmctld answers `morpheus pools --server`, and an inventory edit
# (a blade failing) is picked up without a reconfigure: new jobs avoid the failed blade.
. "$(dirname "$0")/lib.sh"

job=$(submit -N1 --mem-hot=64G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
wait_state "$job" RUNNING 20
out=$(morpheus_cli pools --server "127.0.0.1:$E2E_STATUS_PORT" 2>&1) ||
	fail "morpheus pools --server failed: $out"
assert_match "pools from the status service" 'blade1 +up' "$out"
assert_match "pools from the status service" 'JOBS 1' "$out"
scancel "$job"
wait_state "$job" CANCELLED 20

inv=$(dirname "$E2E_MORPHEUS_CONF")/inventory.json
cp "$inv" "$TEST_TMP/inventory.good"
# Whatever happens, the next test finds blade1 up again.
trap 'cp "$TEST_TMP/inventory.good" "$inv"; touch -d "+6 seconds" "$inv"; _cleanup_test' EXIT
python3 - "$inv" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	for b in d["blades"]:
	    if b["name"] == "blade1":
	        b["state"] = "failed"
	json.dump(d, open(sys.argv[1], "w"), indent=1)
PY
touch -d '+2 seconds' "$inv" # a new mtime even within the same second
sleep 1.5
# blade1 was pod1's only blade within 250ns: now nothing qualifies, the job waits.
waiting=$(submit -N1 --mem-hot=64G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 1')
wait_morpheus_reason "$waiting"
assert_eq "state with blade1 failed" PENDING "$(job_state "$waiting")"
assert_match "reason with blade1 failed" '^Morpheus: ' "$squeue_reason"
grep -q 'select/morpheus: inventory changed, re-read' "$E2E_RUN/log/slurmctld.log" ||
	fail "no inventory re-read in the log"
cp "$TEST_TMP/inventory.good" "$inv"
touch -d '+4 seconds' "$inv"
wait_state "$waiting" 'RUNNING|COMPLETED' 20
note "ok: status service answers; blade failure and return picked up"
