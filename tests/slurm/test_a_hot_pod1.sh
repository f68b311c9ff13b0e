#!/bin/bash
# (a) --mem-hot with --mem-hot-latency=250ns lands in pod1 (the only pod with a blade within
# 250ns), and the placement shows in scontrol and in the environment of every task.
. "$(dirname "$0")/lib.sh"

out=$TEST_TMP/a.out
job=$(submit -N2 --mem-hot=64G --mem-hot-latency=250ns -o "$out" --wrap \
	'srun bash -c "echo TASK \$SLURMD_NODENAME pod=\$MORPHEUS_POD hot=\$MORPHEUS_HOT_BLADES"; env | grep ^MORPHEUS_ | sed "s/^/BATCH /"')
wait_state "$job" COMPLETED 30

for n in $(job_nodes "$job"); do in_pod1 "$n" || fail "job $job ran on $n, outside pod1"; done
comment=$(scontrol show job "$job" | sed -n 's/^ *SystemComment=//p')
assert_match "SystemComment of $job" 'pod=pod1 hot=blade[0-9]+:' "$comment"
blades=$(grep -o 'hot=[^ ]*' <<<"$comment" | sed 's/^hot=//')

grep -q '^BATCH MORPHEUS_POD=pod1$' "$out" || fail "batch script lacks MORPHEUS_POD=pod1: $(cat "$out")"
grep -q "^BATCH MORPHEUS_HOT_BLADES=$blades\$" "$out" ||
	fail "batch MORPHEUS_HOT_BLADES differs from SystemComment ($blades): $(cat "$out")"
assert_eq "tasks that saw the placement" 2 "$(grep -c "^TASK gpu10[1-4] pod=pod1 hot=$blades\$" "$out")"

# srun outside a batch script gets it through the allocation response.
line=$(srun -N1 --mem-hot=16G --mem-hot-latency=250ns bash -c 'echo $MORPHEUS_POD $MORPHEUS_HOT_BLADES')
assert_match "srun task environment" '^pod1 blade[0-9]+:16G@[0-9]+ns$' "$line"
note "ok: $job on $(job_nodes "$job" | tr '\n' ' ')with $blades"
