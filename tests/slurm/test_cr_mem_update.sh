#!/bin/bash
# (cr) 26.05 lowers a running job's node memory (--mem-update, or scontrol update
# MinMemoryNode=; both end in select_p_job_mem_reduce). Policy: node memory shrinks as under
# cons_tres, the Morpheus blade reservation (--mem-hot/--mem-cold) is kept as it is. Slurm
# before 26.05 refuses a memory change of a running job: asserted as such.
. "$(dirname "$0")/lib.sh"

job=$(submit -N1 --mem=64G --mem-hot=100G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 60')
wait_state "$job" RUNNING 20
assert_eq "hot memory of $job" $((100 << 30)) "$(ledger_bytes "$job" hot)"
out=$(scontrol update jobid="$job" MinMemoryNode=16384 2>&1) && rc=0 || rc=$?
case ${E2E_LAYER:-} in
slurm-22.05 | slurm-24.11)
	[ $rc != 0 ] || fail "$E2E_LAYER lowered the memory of a running job: update the test"
	note "ok: $E2E_LAYER refuses a memory change of running $job ($out)"
	scancel "$job"
	exit 0
	;;
esac
[ $rc = 0 ] || fail "scontrol update MinMemoryNode=16384 of running $job refused: $out"
for _ in $(seq 50); do
	[[ $(job_tres "$job") =~ (^|,)mem=16G(,|$) ]] && break
	sleep 0.2
done
assert_match "TRES of $job after the update" '(^|,)mem=16G(,|$)' "$(job_tres "$job")"
assert_eq "state of $job" RUNNING "$(job_state "$job")"
assert_eq "hot memory of $job after the update" $((100 << 30)) "$(ledger_bytes "$job" hot)"
assert_match "SystemComment of $job" '100G' "$(scontrol show job "$job" | sed -n 's/^ *SystemComment=//p')"
# The node memory given back is usable: 512000M node, 16G held.
node=$(job_nodes "$job")
other=$(submit -N1 -w "$node" --mem=480000M -o /dev/null --wrap 'sleep 1')
wait_state "$other" 'RUNNING|COMPLETED' 20
scancel "$job"
note "ok: $job node memory 64G -> 16G, blade memory kept at 100G; $other used the rest"
