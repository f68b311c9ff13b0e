#!/bin/bash
# (cr) Dynamic nodes (scontrol create/delete NodeName=) and MaxNodeCount: Slurm allows them
# only when the SelectType's name contains "cons_tres" (node_mgr.c, read_config.c), which is
# why the 26.05 layer is select/cons_tres_morpheus. With select/morpheus (22.05, 24.11) node
# creation is refused: a known limitation, asserted as such. A node Morpheus's fabric does not
# know must not disturb placement.
. "$(dirname "$0")/lib.sh"

out=$(scontrol create NodeName=dyn901 CPUs=4 RealMemory=1000 State=FUTURE 2>&1) && rc=0 || rc=$?
case ${E2E_LAYER:-} in
slurm-22.05 | slurm-24.11)
	[ $rc != 0 ] || { scontrol delete NodeName=dyn901; fail "$E2E_LAYER created a node: update the README"; }
	assert_match "$E2E_LAYER refusal" 'cons_tres' "$out"
	note "ok: $E2E_LAYER refuses dynamic nodes with select/morpheus (documented limitation)"
	exit 0
	;;
esac
[ $rc = 0 ] || fail "scontrol create NodeName=dyn901 refused: $out"
trap 'scontrol delete NodeName=dyn901 >/dev/null 2>&1 || true; _cleanup_test' EXIT
assert_match "MaxNodeCount" '= 64$' "$(scontrol show config | grep '^MaxNodeCount')"
assert_match "dyn901" "NodeName=dyn901" "$(scontrol --future show node dyn901)"
# Placement goes on with a node outside the fabric in Slurm's table.
job=$(submit -N2 --mem-hot=64G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 1')
wait_state "$job" 'RUNNING|COMPLETED' 20
for n in $(job_nodes "$job"); do in_pod1 "$n" || fail "$job ran on $n, outside pod1"; done
out=$(scontrol delete NodeName=dyn901 2>&1) || fail "scontrol delete NodeName=dyn901 refused: $out"
trap _cleanup_test EXIT
job2=$(submit -N1 --mem-hot=64G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 1')
wait_state "$job2" 'RUNNING|COMPLETED' 20
note "ok: dyn901 created and deleted (MaxNodeCount=64); $job and $job2 placed in pod1"
