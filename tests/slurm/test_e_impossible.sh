#!/bin/bash
# (e) A request no empty cluster could satisfy is rejected at submission with the reason
# (job_submit/morpheus), not left pending forever.
. "$(dirname "$0")/lib.sh"

last_id() { scontrol show config | sed -n 's/^NEXT_JOB_ID *= *//p'; }
before=$(last_id)
expect_refused 'error: Morpheus: .*50ns' -N1 --mem-hot=1G --mem-hot-latency=50ns
expect_refused 'error: Morpheus: .*100T' -N1 --mem-hot=100T
expect_refused 'error: Morpheus: ' -N1 --mem-cold=1P
assert_eq "next job id (no job created)" "$before" "$(last_id)"
note "ok: impossible requests rejected at sbatch"
