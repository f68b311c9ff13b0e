#!/bin/bash
# (t) `morpheus jobs` shows live jobs only: a submission refused at sbatch (no job id yet), a
# pending job cancelled, and a `sbatch --test-only` probe (its job record is deleted at once)
# leave no row behind. Before, they stayed forever as "job 0" and stale pending rows.
. "$(dirname "$0")/lib.sh"

out=$(sbatch -N1 --mem-hot=1G --mem-hot-latency=50ns --wrap true 2>&1) && fail "accepted: $out"

big=$(submit -N1 --mem-hot=900G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
wait_state "$big" RUNNING 20
waiting=$(submit -N1 --mem-hot=900G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 1')
wait_morpheus_reason "$waiting"
morpheus_job_ids | grep -qx "$waiting" || fail "test setup: pending $waiting not in morpheus jobs"
# A probe that fits (one that does not gets no job id back from sbatch).
probe_out=$(sbatch --test-only -N1 --mem-hot=8G --mem-hot-latency=300ns --wrap true 2>&1) || true
probe=$(sed -n 's/.*Job \([0-9][0-9]*\) to start.*/\1/p' <<<"$probe_out")
[ -n "$probe" ] || fail "no job id in the --test-only answer: $probe_out"
scancel "$waiting"
wait_state "$waiting" CANCELLED 10

# Decisions of gone jobs are swept on a later scheduling pass (at most every 5 s).
sleep 6
later=$(submit -N1 --mem-hot=8G --mem-hot-latency=300ns -o /dev/null --wrap 'sleep 1')
wait_state "$later" 'RUNNING|COMPLETED' 20
ids=$(morpheus_job_ids | tr '\n' ' ')
for gone in 0 "$waiting" "$probe"; do
	[[ " $ids" == *" $gone "* ]] && fail "morpheus jobs still shows job $gone: $ids"
done
out=$(morpheus_cli explain "$probe" --server "127.0.0.1:$E2E_STATUS_PORT" 2>&1) || true
assert_match "explain of probe $probe" 'no decision' "$out"
note "ok: no rows for job 0, cancelled $waiting, probe $probe (shown: $ids)"
