#!/bin/bash
# run-all.sh - the real-Slurm end-to-end suite: starts one private cluster (harness.sh), runs
# every tests/slurm/test_*.sh against it (or the ones named), prints a summary, tears the
# cluster down. Exit status: the number of failed tests (0 = all passed).
#
#   tests/slurm/run-all.sh [test_a_hot_pod1.sh ...]      (make check-slurm runs all)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [ -z "${E2E_RUN:-}" ]; then
	exec "$here/harness.sh" run-test "$0" "$@"
fi

tests=("$@")
[ ${#tests[@]} = 0 ] && mapfile -t tests < <(cd "$here" && ls test_*.sh)
# After a failed test, the next one must not inherit its queue or its drained nodes: every job
# is cancelled (a failing test may leave hundreds queued) and every node resumed.
clear_cluster() {
	local t0
	squeue -h -o %i | xargs -r scancel 2>/dev/null
	t0=$(date +%s)
	while [ -n "$(squeue -h -o %i 2>/dev/null)" ] && [ $(($(date +%s) - t0)) -lt 120 ]; do sleep 0.5; done
	scontrol update NodeName="$(sinfo -h -o %N | paste -sd,)" State=RESUME >/dev/null 2>&1
	[ -z "$(squeue -h -o %i 2>/dev/null)" ] || echo "run-all: warning: jobs left after a failed test: $(squeue -h -o '%i %T' | head -5)" >&2
}

failed=() t_all=$(date +%s.%N)
for t in "${tests[@]}"; do
	t0=$(date +%s.%N)
	if "$here/$(basename "$t")"; then status=PASS; else status=FAIL; failed+=("$t"); fi
	printf 'run-all: %-28s %s  %5.1f s\n' "$(basename "$t" .sh)" "$status" \
		"$(echo "$(date +%s.%N) - $t0" | bc)" >&2
	[ "$status" = PASS ] || clear_cluster
done
printf 'run-all: %d tests, %d failed, %.1f s (cluster start not included)\n' "${#tests[@]}" \
	"${#failed[@]}" "$(echo "$(date +%s.%N) - $t_all" | bc)" >&2
[ ${#failed[@]} = 0 ] || printf 'run-all: failed: %s (logs: %s/log)\n' "${failed[*]}" "$E2E_RUN" >&2
exit ${#failed[@]}
