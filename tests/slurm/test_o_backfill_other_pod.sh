#!/bin/bash
# (o) Backfill starts a job on another pod now instead of planning it behind busy nodes of the
# best pod. Pod1's nodes are all taken by long jobs; a job that only pod1 can take (hot memory
# within 250ns) heads the queue and blocks the main scheduler; a job that any pod can take
# (300ns) comes next. Backfill must start it now on a free pod. (Before, Morpheus offered
# cons_tres pod1 first, cons_tres accepted it with a start after the long jobs, and backfill
# took that: after a crash of slurmctld, phantom jobs held the queue for minutes.)
. "$(dirname "$0")/lib.sh"

long=()
for n in gpu101 gpu102 gpu103 gpu104; do
	long+=("$(submit -N1 -w "$n" --exclusive -t 30 -o /dev/null --wrap 'sleep 600')")
done
for j in "${long[@]}"; do wait_state "$j" RUNNING 20; done

head_job=$(submit -N1 --exclusive -t 5 --mem-hot=64G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 1')
any_pod=$(submit -N1 --exclusive -t 5 --mem-hot=64G --mem-hot-latency=300ns -o /dev/null --wrap 'sleep 30')
wait_state "$any_pod" RUNNING 20
n=$(job_nodes "$any_pod")
in_pod1 "$n" && fail "job $any_pod ran in pod1 ($n), whose nodes are all busy"
assert_eq "state of the pod1-only job" PENDING "$(job_state "$head_job")"
assert_no_overcommit

# The pod1-only job starts once a pod1 node is free.
scancel "${long[0]}"
wait_state "$head_job" 'RUNNING|COMPLETED' 20
note "ok: $any_pod started on $n while $head_job waited for pod1"
