#!/bin/bash
# slurmctld restart reconciles the ledger with the recovered jobs; scontrol reconfigure re-reads
# the Morpheus files and keeps the last good state when one is broken.
. "$(dirname "$0")/lib.sh"

log=$E2E_RUN/log/slurmctld.log
job=$(submit -N1 --mem-hot=64G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
wait_state "$job" RUNNING 20

# A reservation for a job that no longer exists, as after a crash between end and save.
kill_ctld TERM
edit_ledger 'import copy; ghost = copy.deepcopy(d["jobs"][0]); ghost["job_id"] = 999999; d["jobs"].append(ghost)'
E2E_HARNESS_RUN=$E2E_RUN slurmctld -f "$SLURM_CONF"
for _ in $(seq 100); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.1; done
sleep 1
assert_eq "state of $job after restart" RUNNING "$(job_state "$job")"
ledger_has "$job" || fail "running job $job lost its reservation in the restart"
ledger_has 999999 && fail "reservation of the vanished job 999999 survived the restart"
grep -q 'select/morpheus: released 1 reservations of jobs that are no longer running' "$log" ||
	fail "no reconcile line in $log"
assert_match "SystemComment after restart" 'pod=pod1' \
	"$(scontrol show job "$job" | sed -n 's/^ *SystemComment=//p')"

# A broken fabric file on reconfigure: error logged, last good state kept, jobs still placed.
fabric=$(dirname "$E2E_MORPHEUS_CONF")/fabric.json
cp "$fabric" "$TEST_TMP/fabric.good"
echo '{ "version": 1, "pods": [' >"$fabric"
# 22.05 reloads in-process and cannot report the failure; from 24.05 slurmctld re-execs, the
# new one refuses the broken files and the old one carries on, so scontrol reports it failed.
reconfigure_refused "broken fabric"
sleep 1
grep -q 'error: select/morpheus: reload failed, keeping the last good configuration: .*fabric.json' "$log" ||
	fail "no reload error in $log"
other=$(submit -N1 --mem-hot=8G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 1')
wait_state "$other" 'RUNNING|COMPLETED' 20
cp "$TEST_TMP/fabric.good" "$fabric"
scontrol reconfigure
sleep 1
grep -q 'select/morpheus: reloaded morpheus.conf' "$log" || fail "no reload line in $log"
note "ok: restart reconciled, reconfigure kept the last good files"
