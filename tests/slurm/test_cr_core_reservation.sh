#!/bin/bash
# (cr) A core-count reservation (scontrol create reservation CoreCnt=): cons_tres-only. From
# 25.05 slurmctld refuses CoreCnt unless the select plugin's plugin_id is cons_tres's
# (reservation.c: running_cons_tres()); 24.11 asks the plugin (forwarded to cons_tres).
# 22.05's scontrol checks the client's select plugin_id (state_control.c), and there
# select/morpheus must have an id of its own: a known limitation, asserted as such.
. "$(dirname "$0")/lib.sh"

resv=morpheus_cores_$$
out=$(scontrol create reservation ReservationName="$resv" Users=root Nodes=gpu102 CoreCnt=8 \
	StartTime=now Duration=10 2>&1) && rc=0 || rc=$?
if [ "${E2E_LAYER:-}" = slurm-22.05 ]; then
	[ $rc != 0 ] || { scontrol delete reservation="$resv"; fail "22.05 took CoreCnt: update the README"; }
	assert_match "22.05 refusal" 'CoreCnt' "$out"
	note "ok: 22.05 refuses CoreCnt with select/morpheus (documented limitation)"
	exit 0
fi
[ $rc = 0 ] || fail "CoreCnt reservation refused: $out"
trap 'scontrol delete reservation="$resv" >/dev/null 2>&1 || true; _cleanup_test' EXIT
assert_match "reservation $resv" 'CoreCnt=8' "$(scontrol show reservation "$resv")"
# Inside it a Morpheus job runs on the reserved node with at most the reserved cores; the
# node's other 56 cores stay usable outside it.
job=$(submit -N1 -n8 --mem=8G --reservation="$resv" --mem-hot=16G --mem-hot-latency=250ns \
	-o /dev/null --wrap 'sleep 20')
wait_state "$job" RUNNING 20
assert_eq "node of $job" gpu102 "$(job_nodes "$job")"
# 9 cores in an 8-core reservation: refused at submission or left pending, never run.
if over=$(sbatch --parsable -N1 -n9 --mem=8G --reservation="$resv" -o /dev/null --wrap 'sleep 1' 2>&1); then
	echo "$over" >>"$TEST_TMP/jobs"
	sleep 3
	assert_eq "state of $over (9 cores in an 8-core reservation)" PENDING "$(job_state "$over")"
	scancel "$over"
fi
other=$(submit -N1 -w gpu102 -n48 --mem=8G -o /dev/null --wrap 'sleep 1')
wait_state "$other" 'RUNNING|COMPLETED' 20
scancel "$job"
note "ok: $job in $resv (8 cores of gpu102), 9 cores refused, $other uses the rest"
