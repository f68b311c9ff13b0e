#!/bin/bash
# (s) Submission counts the nodes the job will really get: --gpus=16 is 2 nodes of 8 GPUs, and
# --nodelist confines a job to its nodes. Requests impossible for those nodes are refused at
# sbatch (before, they were judged as 1 node anywhere and pended forever on "Resources").
. "$(dirname "$0")/lib.sh"

expect_impossible() { # REGEX SBATCH-ARGS...
	local want=$1 out rc=0
	shift
	out=$(sbatch "$@" -o /dev/null --wrap true 2>&1) || rc=$?
	[ $rc != 0 ] || { echo "${out##* }" >>"$TEST_TMP/jobs"; fail "sbatch $* was accepted: $out"; }
	assert_match "message of sbatch $*" "$want" "$out"
}
expect_accepted() { # SBATCH-ARGS...
	local job
	job=$(submit -H "$@" -o /dev/null --wrap true)
	scancel "$job"
}
# 2 nodes x 900G within 250ns: only pod1's 1T blade is that near.
expect_impossible 'error: Morpheus: .*250ns' --gpus=16 --mem-hot=900G --mem-hot-latency=250ns
expect_impossible 'error: Morpheus: ' --gpus=56 --mem-hot=900G --mem-hot-latency=250ns
expect_impossible 'error: Morpheus: ' --gpus=16 --gpus-per-node=8 --mem-hot=900G --mem-hot-latency=250ns
# gpu401's nearest blade is 280ns away.
expect_impossible 'error: Morpheus: .*250ns' -N1 --nodelist=gpu401 --mem-hot=64G --mem-hot-latency=250ns
# What fits is still accepted.
expect_accepted --gpus=8 --mem-hot=900G --mem-hot-latency=250ns
expect_accepted --gpus=16 --mem-hot=400G --mem-hot-latency=250ns
expect_accepted -N1 --nodelist=gpu101 --mem-hot=64G --mem-hot-latency=250ns
expect_accepted -N1 --nodelist=gpu401 --mem-hot=64G --mem-hot-latency=300ns
note "ok: GPU-derived node counts and required node lists judged at submission"
