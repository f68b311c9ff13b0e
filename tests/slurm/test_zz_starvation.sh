#!/bin/bash
# (zz) No starvation behind a stream of small jobs (issue 14, PlanDepth). pod1's blade1 is the
# only 1T blade within 250ns. A running 600G job holds it; a 900G job of the highest priority
# must wait for it and gets a planned StartTime; a stream of small 128G jobs of lower priority
# that would still hold memory at that planned start is refused ("would delay job N's blade
# memory"), while small jobs that do not delay it start: one that ends before the planned
# start, one whose 300ns bound lets it use other memory. When the first job goes, the large
# job starts within its planned StartTime plus a backfill interval. Before PlanDepth, the
# stream took blade1 and the large job waited until the stream stopped.
# ZZ_PIN=NODE,OTHER (test_zz_starvation_pinned.sh): the same stream with every job tied to a
# node of pod1 (--mem=1G, so jobs share nodes), as issue 25 found pinned jobs starving:
# decisions, plans and reasons must honour the node list. The first and the large job are
# pinned to NODE, the stream to OTHER: on NODE itself Slurm's backfill would hold the stream
# back by its own node plan, and this test is about the blade memory they share. The looser
# job then needs 400ns (pod1 reaches the spine pool at 370ns), as it cannot go to another pod.
. "$(dirname "$0")/lib.sh"

pin=() pin_stream=()
loose_bound=300ns
if [ -n "${ZZ_PIN:-}" ]; then
	pin=(-w "${ZZ_PIN%,*}" --mem=1G)
	pin_stream=(-w "${ZZ_PIN#*,}" --mem=1G)
	loose_bound=400ns
fi
slack=5 # bf_interval=1, sched_interval=2, and Slurm's second-granularity times

first=$(submit "${pin[@]}" -N1 -t 3 --mem-hot=600G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
wait_state "$first" RUNNING 20
large=$(submit "${pin[@]}" -N1 -t 2 --nice=0 --mem-hot=900G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 2')
planned=Unknown
for _ in $(seq 40); do # backfill runs every second
	planned=$(job_field "$large" StartTime)
	[ "$planned" != Unknown ] && break
	sleep 0.5
done
[ "$planned" != Unknown ] || fail "job $large has no StartTime: backfill did not plan it"
planned_s=$(date -d "$planned" +%s)

# The stream: each would hold blade1 (600G + 128G fit now) past the planned start.
small=()
for _ in $(seq 10); do
	small+=("$(submit "${pin_stream[@]}" -N1 -t 5 --nice=100 --mem-hot=128G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')")
	sleep 2
done
# Not in the way: ends well before the planned start; and a looser bound.
short=$(submit "${pin_stream[@]}" -N1 -t 1 --nice=100 --mem-hot=128G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 3')
loose=$(submit "${pin_stream[@]}" -N1 -t 5 --nice=100 --mem-hot=128G --mem-hot-latency=$loose_bound -o /dev/null --wrap 'sleep 300')
wait_state "$short" 'RUNNING|COMPLETED' 20
wait_state "$loose" RUNNING 20
for j in "${small[@]}"; do
	st=$(job_state "$j")
	assert_eq "state of small job $j (would delay $large)" PENDING "$st"
done
reason=
for _ in $(seq 60); do
	reason=$(squeue -h -j "${small[0]}" -o %r)
	[[ $reason =~ would\ delay ]] && break
	sleep 0.25
done
assert_match "reason of small job ${small[0]}" "^Morpheus: would delay job $large's blade memory \(planned start [0-9:]+\)" \
	"$reason"
assert_eq "state of $large" PENDING "$(job_state "$large")"
assert_no_overcommit

# The memory comes back early: the large job starts, at the latest at its planned start.
scancel "$first"
wait_state "$large" 'RUNNING|COMPLETED' $((planned_s - $(date +%s) + slack))
started=$(date -d "$(job_field "$large" StartTime)" +%s)
[ "$started" -le $((planned_s + slack)) ] ||
	fail "job $large started at $(date -d "@$started" +%T), planned $planned (+${slack}s)"
assert_no_overcommit
if [ -n "${ZZ_PIN:-}" ]; then
	for j in "$first" "$large"; do assert_eq "node of $j (pinned)" "${ZZ_PIN%,*}" "$(job_field "$j" NodeList)"; done
	for j in "$short" "$loose"; do assert_eq "node of $j (pinned)" "${ZZ_PIN#*,}" "$(job_field "$j" NodeList)"; done
fi
note "ok${ZZ_PIN:+ (every job pinned to $ZZ_PIN)}: $large planned $planned, started $(date -d "@$started" +%T); ${#small[@]} small jobs held back, $short and $loose ran"
