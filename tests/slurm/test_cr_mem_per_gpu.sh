#!/bin/bash
# (cr) --mem-per-gpu and --cpus-per-gpu with Morpheus memory: cons_tres-only options. From
# 25.05 slurmctld rejects them unless the select plugin's plugin_id is cons_tres's
# (running_cons_tres(), gres.c: ESLURM_UNSUPPORTED_GRES); the 26.05 layer keeps that id.
. "$(dirname "$0")/lib.sh"

job=$(submit -N1 --gpus-per-node=2 --mem-per-gpu=8G --cpus-per-gpu=4 \
	--mem-hot=64G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 30')
wait_state "$job" RUNNING 20
tres=$(job_tres "$job")
# mem = 2 GPUs x 8G, cpus = 2 GPUs x 4: computed by cons_tres from the per-GPU options.
assert_match "TRES of $job" '(^|,)mem=16G(,|$)' "$tres"
assert_match "TRES of $job" '(^|,)cpu=8(,|$)' "$tres"
assert_match "GRES of $job" 'gpu[^ ]*:2' "$(scontrol show job -d "$job" | grep -o 'GRES=[^ ]*')"
in_pod1 "$(job_nodes "$job")" || fail "$job ran on $(job_nodes "$job"), outside pod1"
assert_eq "hot memory of $job" $((64 << 30)) "$(ledger_bytes "$job" hot)"
# --gpus (per job) is cons_tres-only too.
job2=$(submit -N1 --gpus=1 --mem-per-gpu=4G -o /dev/null --wrap 'sleep 1')
wait_state "$job2" 'RUNNING|COMPLETED' 20
assert_match "TRES of $job2" '(^|,)mem=4G(,|$)' "$(job_tres "$job2")"
scancel "$job"
note "ok: $job got $tres"
