#!/bin/bash
# (d) A malformed value fails sbatch/srun at the option, with the core's message: it names the
# flag and the expected form. No job is created.
. "$(dirname "$0")/lib.sh"

before=$(squeue -h -o %i | wc -l)
expect_reject() { # REGEX CMD...
	local want=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	[ $rc != 0 ] || fail "'$*' was accepted: $out"
	assert_match "message of '$*'" "$want" "$out"
}
expect_reject "error: --mem-hot: .*12XB.*--mem-hot=[0-9]" sbatch -N1 --mem-hot=12XB --wrap true
expect_reject "error: --mem-hot-latency: .*fast" sbatch -N1 --mem-hot=1G --mem-hot-latency=fast --wrap true
expect_reject "error: --mem-cold: " sbatch -N1 --mem-cold=-5G --wrap true
expect_reject "error: --nccl-hints=maybe: expected on or off" sbatch -N1 --nccl-hints=maybe --wrap true
expect_reject "error: --mem-hot: .*12XB" srun -N1 --mem-hot=12XB true
assert_eq "jobs in the queue" "$before" "$(squeue -h -o %i | wc -l)"
note "ok: malformed values rejected with the core's message"
