#!/bin/bash
# (w) slurmctld restarted with a broken fabric file: Morpheus jobs pend with a Morpheus reason
# that names the file (not Slurm's "ReqNodeNotAvail"), jobs without Morpheus flags run, and
# they start once the file is fixed and scontrol reconfigure re-reads it.
. "$(dirname "$0")/lib.sh"

log=$E2E_RUN/log/slurmctld.log
fabric=$(dirname "$E2E_MORPHEUS_CONF")/fabric.json
cp "$fabric" "$TEST_TMP/fabric.good"
trap 'cp "$TEST_TMP/fabric.good" "$fabric"; scontrol reconfigure >/dev/null 2>&1 || true; _cleanup_test' EXIT

waiting=$(submit -N1 --mem-hot=64G --mem-hot-latency=250ns --begin=now+4 -o /dev/null --wrap 'sleep 1')
kill_ctld TERM
echo '{ "version": 1, "pods": [' >"$fabric"
start_ctld
grep -q 'select/morpheus: cannot open the engine.*fabric.json' "$log" || fail "no open error in $log"
fresh=$(submit -N1 --mem-hot=64G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 1')
plain=$(submit -N1 -o /dev/null --wrap 'sleep 1')
wait_state "$plain" 'RUNNING|COMPLETED' 30
sleep 5 # --begin of $waiting passes
for job in "$fresh" "$waiting"; do
	wait_morpheus_reason "$job"
	assert_eq "state of $job" PENDING "$(job_state "$job")"
	assert_match "squeue reason of $job" '^Morpheus: .*fabric\.json' "$squeue_reason"
	assert_match "scontrol reason of $job" '^Morpheus:.*fabric\.json' "$scontrol_reason"
done

cp "$TEST_TMP/fabric.good" "$fabric"
scontrol reconfigure
wait_state "$fresh" 'RUNNING|COMPLETED' 30
wait_state "$waiting" 'RUNNING|COMPLETED' 30
note "ok: broken fabric at startup named in the reasons of $fresh and $waiting; both ran once fixed"
