#!/bin/bash
# (zc) The decision cache (issue 26) is correct: a pending job's answer changes when a blade
# frees, when a plan ahead of it changes, and when a node returns, and NOT otherwise: while
# nothing a waiting job depends on changes, the main scheduler and backfill keep testing it
# (cache hits grow) and the core decides nothing afresh (misses stay put; the counters are
# /metrics' morpheus_decision_cache_total). pod1's blade1 is the only 1T blade within 250ns.
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
for _ in $(seq 60); do
	[[ $(squeue -h -j "$behind" -o %r) =~ would\ delay\ job\ $planned ]] && break
	sleep 0.25
done
assert_match "reason of $behind" "would delay job $planned" "$(squeue -h -j "$behind" -o %r)"
quiet "behind a planned job"
assert_eq "state of $behind" PENDING "$(job_state "$behind")"
scancel "$planned"
wait_state "$behind" RUNNING 15
note "ok: $behind started once the plan of $planned was gone"
assert_no_overcommit
