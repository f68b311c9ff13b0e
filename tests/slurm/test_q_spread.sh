#!/bin/bash
# (q) A job no single pod can hold is spread over pods, and it starts. 3 nodes with 400G of hot
# memory each within 300ns: every pod has one 1T blade in that bound, so the plan is 2 nodes
# of one pod and 1 of another. The node set offered to cons_tres must admit only that split:
# before, it offered both pods whole, cons_tres took 3 nodes of one pod, the reservation
# (1.2T on one 1T blade) failed on every pass and the job never started.
. "$(dirname "$0")/lib.sh"

log=$E2E_RUN/log/slurmctld.log
job=$(submit -N3 --mem-hot=400G --mem-hot-latency=300ns -t 5 -o /dev/null --wrap 'sleep 60')
wait_state "$job" RUNNING 20
per_pod=$(job_nodes "$job" | sed 's/^gpu\([0-9]\).*/pod\1/' | sort | uniq -c | awk '{print $2 "=" $1}' | tr '\n' ' ')
assert_match "nodes per pod of $job" '^pod[1-4]=[12] pod[1-4]=[12] $' "$per_pod"
assert_eq "hot memory held by $job" $((3 * 400 << 30)) "$(ledger_bytes "$job" hot)"
assert_no_overcommit
failures=$(grep -c "JobId=$job: reservation failed" "$log" || true)
assert_eq "failed reservations of $job" 0 "$failures"
note "ok: $job spread as $per_pod and started"
