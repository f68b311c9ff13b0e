#!/bin/bash
# (zc) The decision cache (issue 26) is correct: a pending job's answer changes when a blade
# frees, when a plan ahead of it changes, and when a node returns, and NOT otherwise: while
# nothing a waiting job depends on changes, the main scheduler and backfill keep testing it
# (cache hits grow) and the core decides nothing afresh (misses stay put; the counters are
# /metrics' morpheus_decision_cache_total). pod1's blade1 is the only 1T blade within 250ns.
# And cons_tres's own refusals, remembered until a release (part 4).
. "$(dirname "$0")/lib.sh"

metric() { # RESULT: hit|miss
	curl -sf "http://127.0.0.1:$E2E_METRICS_PORT/metrics" |
		sed -n "s/^morpheus_decision_cache_total{result=\"$1\"} //p"
}
# quiet WHAT: over 6 s (3 main passes at sched_interval=2, 6 backfill passes), the waiting
# jobs are tested again and again, all from the cache. The first 3 s let the passes settle
# (backfill's first plan of a job is a change).
quiet() {
	local h0 m0 h1 m1
	sleep 3
	h0=$(metric hit) m0=$(metric miss)
	sleep 6
	h1=$(metric hit) m1=$(metric miss)
	[ -n "$h0" ] && [ -n "$m1" ] || fail "no morpheus_decision_cache_total in /metrics"
	[ "$h1" -gt "$h0" ] || fail "$1: no job test was answered from the cache (hits $h0 -> $h1)"
	[ "$m1" = "$m0" ] || fail "$1: decided afresh while nothing changed (misses $m0 -> $m1, hits $h0 -> $h1)"
	note "ok: $1: $((h1 - h0)) tests from the cache, no miss, in 6 s"
}

# 1. A blade frees: the waiter starts.
hold=$(submit -N1 -t 5 --mem-hot=900G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
wait_state "$hold" RUNNING 20
waiter=$(submit -N1 -t 1 --mem-hot=600G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
wait_morpheus_reason "$waiter"
assert_match "reason of $waiter behind $hold" '^Morpheus' "$squeue_reason"
quiet "waiting for blade memory"
assert_eq "state of $waiter" PENDING "$(job_state "$waiter")"
scancel "$hold"
wait_state "$waiter" RUNNING 15
note "ok: $waiter started once $hold freed blade1"

# 2. A node returns: a four-node job bound to pod1 (the only pod within 250ns of blade1)
# waits while a node of pod1 is drained, and starts when it is resumed. Nothing in the
# engine moves on a node's state: only the nodes Slurm offers (the key's bitmap) tell.
scancel "$waiter"
wait_no_jobs 20 || fail "jobs still running"
scontrol update nodename=gpu104 state=drain reason=test_zc
four=$(submit -N4 -t 1 --mem-hot=100G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
sleep 4
assert_eq "state of $four with gpu104 drained" PENDING "$(job_state "$four")"
quiet "waiting for a node"
scontrol update nodename=gpu104 state=resume
wait_state "$four" RUNNING 15
assert_eq "nodes of $four" "gpu[101-104]" "$(job_field "$four" NodeList)"
note "ok: $four started on pod1 once gpu104 returned"
scancel "$four"
wait_no_jobs 20 || fail "jobs still running"

# 3. A plan ahead changes: with 500G of blade1 held, a planned 600G job of higher priority
# keeps a 450G job that would still hold its memory at the planned start off blade1
# ("would delay"); when the planned job goes, its plan goes, and the 450G job starts.
hold=$(submit -N1 -t 3 --mem-hot=500G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
wait_state "$hold" RUNNING 20
planned=$(submit -N1 -t 2 --mem-hot=600G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
for _ in $(seq 40); do
	[ "$(job_field "$planned" StartTime)" != Unknown ] && break
	sleep 0.5
done
[ "$(job_field "$planned" StartTime)" != Unknown ] || fail "job $planned was not planned by backfill"
behind=$(submit -N1 -t 10 --nice=100 --mem-hot=450G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
# From 24.11 on, the reason alternates: each backfill pass sets Morpheus's (as state_desc of
# WAIT_RESOURCES), and each main pass in between, where the planned job failed first, replaces
# a WAIT_RESOURCES reason of a lower-priority job in its partition by Slurm's 'Priority'. So the
# reason is judged as read, once: it must say whose plan it keeps, at least once.
reason=
for _ in $(seq 60); do
	reason=$(squeue -h -j "$behind" -o %r)
	[[ $reason =~ would\ delay\ job\ $planned ]] && break
	sleep 0.25
done
if ! [[ $reason =~ would\ delay\ job\ $planned ]]; then
	grep -E "JobId=($planned|$behind)[^0-9]" "$E2E_RUN/log/slurmctld.log" | tail -30 >&2 || true
	scontrol show job "$planned" | grep -E "StartTime|Reason" >&2 || true
fi
assert_match "reason of $behind" "would delay job $planned" "$reason"
quiet "behind a planned job"
assert_eq "state of $behind" PENDING "$(job_state "$behind")"
scancel "$planned"
wait_state "$behind" RUNNING 15
note "ok: $behind started once the plan of $planned was gone"
scancel "$behind" "$hold"
wait_no_jobs 20 || fail "jobs still running"

# 4. cons_tres's refusals are remembered until something is released (the refusal memo):
# every CPU of pod1 (the best pod for 32G within 400ns) taken by a job without Morpheus
# memory, four tasks of one array, let go in one main pass, start on other pods, and from the
# second task on pod1 is refused from memory, with no cons_tres run
# (morpheus_job_test_cons_tres_remembered_total). Once the filler ends, tasks start on pod1.
remembered() {
	curl -sf "http://127.0.0.1:$E2E_METRICS_PORT/metrics" |
		sed -n 's/^morpheus_job_test_cons_tres_remembered_total{mode="run_now"} //p'
}
filler=$(submit -N4 -w 'gpu[101-104]' --ntasks-per-node=1 -c 64 -t 5 -o /dev/null --wrap 'sleep 300')
wait_state "$filler" RUNNING 20
r0=$(remembered)
[ -n "$r0" ] || fail "no morpheus_job_test_cons_tres_remembered_total in /metrics"
scontrol update partitionname=gpu state=down
array=$(submit --array=1-4 -N1 -c 1 -t 2 --mem-hot=32G --mem-hot-latency=400ns -o /dev/null --wrap 'sleep 300')
scontrol update partitionname=gpu state=up
for _ in $(seq 40); do
	[ "$(squeue -h -j "$array" -t R -o %i | wc -l)" = 4 ] && break
	sleep 0.5
done
assert_eq "running tasks of $array" 4 "$(squeue -h -j "$array" -t R -o %i | wc -l)"
on_pod1=$(squeue -h -j "$array" -o %N | grep -c 'gpu10[1-4]' || true)
assert_eq "tasks of $array on pod1 (its CPUs all taken)" 0 "$on_pod1"
r1=$(remembered)
[ "$r1" -gt "$r0" ] || fail "pod1's refusal was not remembered for the next tasks of $array ($r0 -> $r1)"
note "ok: $array started beside full pod1; $((r1 - r0)) runs of cons_tres answered from the memo"
scancel "$filler" "$array"
wait_no_jobs 20 || fail "jobs still running"
again=$(submit --array=1-2 -N1 -c 1 -t 2 --mem-hot=32G --mem-hot-latency=400ns -o /dev/null --wrap 'sleep 300')
for _ in $(seq 40); do
	[ "$(squeue -h -j "$again" -t R -o %i | wc -l)" = 2 ] && break
	sleep 0.5
done
assert_eq "tasks of $again on pod1 once it is free" 2 "$(squeue -h -j "$again" -t R -o %N | grep -c 'gpu10[1-4]' || true)"
note "ok: after the release, $again started on pod1 again"
assert_no_overcommit
