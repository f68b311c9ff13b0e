#!/bin/bash
# (c) Ending a job frees its reservation: completion, scancel and requeue all release it.
. "$(dirname "$0")/lib.sh"

hot_reserved() { # bytes of DRAM reserved on all blades, from the CLI over the ledger
	morpheus_cli pools --conf "$E2E_MORPHEUS_CONF" --state "$E2E_LEDGER" --json |
		python3 -c 'import json,sys; print(sum(b["dram"]["reserved"] for b in json.load(sys.stdin)["blades"]))'
}
base=$(hot_reserved)

# Long enough that a loaded machine still finds it running when it looks at the ledger.
done_job=$(submit -N1 --mem-hot=64G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 6')
wait_state "$done_job" RUNNING 20
ledger_has "$done_job" || fail "running job $done_job not in the ledger"
assert_eq "DRAM reserved while $done_job runs" $((base + 64 * 1024 ** 3)) "$(hot_reserved)"
wait_state "$done_job" COMPLETED 20
ledger_has "$done_job" && fail "completed job $done_job still in the ledger"
assert_eq "DRAM reserved after completion" "$base" "$(hot_reserved)"

cancelled=$(submit -N1 --mem-hot=64G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
wait_state "$cancelled" RUNNING 20
scancel "$cancelled"
wait_state "$cancelled" CANCELLED 20
ledger_has "$cancelled" && fail "cancelled job $cancelled still in the ledger"

requeued=$(submit -N1 --requeue --mem-hot=64G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
wait_state "$requeued" RUNNING 20
scontrol requeue "$requeued"
# Requeue releases (job_fini); the job starts again after its begin time and re-reserves.
wait_state "$requeued" 'PENDING|RUNNING' 20
if [ "$(job_state "$requeued")" = PENDING ]; then
	ledger_has "$requeued" && fail "requeued (pending) job $requeued still holds memory"
fi
scancel "$requeued"
wait_state "$requeued" CANCELLED 20
ledger_has "$requeued" && fail "job $requeued still in the ledger after cancel"
assert_eq "DRAM reserved at the end" "$base" "$(hot_reserved)"
note "ok: completion, cancel and requeue release"
