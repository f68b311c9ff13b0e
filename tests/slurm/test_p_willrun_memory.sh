#!/bin/bash
# (p) A job that only has to wait for blade memory gets a start time: `sbatch --test-only`
# says when (the end of the job holding the memory), not "Requested node configuration is not
# available", and backfill plans a submitted copy (StartTime in scontrol, not Unknown) while
# its pending reason stays Morpheus's. pod1's blade1 is the only 1T blade within 250ns.
. "$(dirname "$0")/lib.sh"

slack=30 # a scheduling pass, and the second-granularity of Slurm's times

first=$(submit -N1 -t 2 --mem-hot=800G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
wait_state "$first" RUNNING 20
first_end=$(date -d "$(job_field "$first" EndTime)" +%s)

probe=$(sbatch --test-only -N1 -t 1 --mem-hot=600G --mem-hot-latency=250ns --wrap true 2>&1) || true
assert_match "sbatch --test-only behind $first" 'to start at [0-9T:-]+ .*on nodes gpu10[1-4]' "$probe"
at=$(sed -n 's/.* to start at \([0-9T:-]*\) .*/\1/p' <<<"$probe")
start=$(date -d "$at" +%s)
[ "$start" -ge $((first_end - 1)) ] && [ "$start" -le $((first_end + slack)) ] ||
	fail "--test-only start $at is not when $first ends ($(date -d "@$first_end" +%FT%T)): $probe"

second=$(submit -N1 -t 1 --mem-hot=600G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 1')
planned=Unknown
for _ in $(seq 40); do # backfill runs every second (bf_interval=1)
	planned=$(job_field "$second" StartTime)
	[ "$planned" != Unknown ] && break
	sleep 0.5
done
[ "$planned" != Unknown ] || fail "job $second has no StartTime: backfill did not plan it"
s=$(date -d "$planned" +%s)
[ "$s" -ge $((first_end - 1)) ] && [ "$s" -le $((first_end + slack)) ] ||
	fail "job $second planned at $planned, not when $first ends ($(date -d "@$first_end" +%FT%T))"
assert_eq "state of $second" PENDING "$(job_state "$second")"
wait_morpheus_reason "$second"
assert_match "squeue reason of $second" '^Morpheus: ' "$squeue_reason"
assert_no_overcommit

# Planned is not started: it still waits for the memory, and gets it when the first ends.
scancel "$first"
wait_state "$second" 'RUNNING|COMPLETED' 20
note "ok: --test-only and backfill both say $at/$planned for a job behind $first (ends $(date -d "@$first_end" +%T))"
