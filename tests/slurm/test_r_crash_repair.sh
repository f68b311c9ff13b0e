#!/bin/bash
# (r) Crash repair: a running job whose ledger entry was lost (slurmctld killed, the entry gone)
# gets its reservation back after the restart, before any new job is placed on its blade. On
# 22.05 select_g_job_init() runs before the recovered jobs have node bitmaps, so the repair
# must wait for the first scheduling pass.
. "$(dirname "$0")/lib.sh"

log=$E2E_RUN/log/slurmctld.log
holder=$(submit -N1 --mem-hot=600G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
wait_state "$holder" RUNNING 20
ledger_has "$holder" || fail "no reservation for $holder"
wait_job_state_saved "$holder" # the restart must know the job runs

kill_ctld
edit_ledger 'd["jobs"] = [j for j in d["jobs"] if j["job_id"] != int(args[0])]' "$holder"
ledger_has "$holder" && fail "test setup: the ledger entry of $holder is still there"
start_ctld
# No scontrol reconfigure here: on 22.05 it would run the repair with bitmaps built and hide
# the startup case.
for _ in $(seq 100); do [ "$(sinfo -h -t idle -o %D)" != "" ] && break; sleep 0.2; done
state=$(job_state "$holder")
[ "$state" = RUNNING ] || {
	grep -E "JobId=$holder[^0-9]" "$log" | tail -n 20 >&2
	scontrol show job "$holder" >&2
}
assert_eq "state of $holder after restart" RUNNING "$state"

# A new job for the same blade: it must not get memory the holder still uses.
newcomer=$(submit -N1 --mem-hot=600G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 1')
wait_morpheus_reason "$newcomer"
ledger_has "$holder" || fail "running job $holder did not get its reservation back"
assert_eq "state of $newcomer (blade1 held by $holder)" PENDING "$(job_state "$newcomer")"
assert_match "reason of $newcomer" '^Morpheus: ' "$squeue_reason"
assert_eq "hot memory held by $holder" $((600 << 30)) "$(ledger_bytes "$holder" hot)"
assert_no_overcommit
grep -q "JobId=$holder recovered running without a reservation: memory reserved again" "$log" ||
	fail "no repair line for $holder in $log"
note "ok: $holder's reservation restored after the restart; $newcomer waits"
