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
failed=() t_all=$(date +%s.%N)
for t in "${tests[@]}"; do
	t0=$(date +%s.%N)
	if "$here/$(basename "$t")"; then status=PASS; else status=FAIL; failed+=("$t"); fi
	printf 'run-all: %-28s %s  %5.1f s\n' "$(basename "$t" .sh)" "$status" \
		"$(echo "$(date +%s.%N) - $t0" | bc)" >&2
done
printf 'run-all: %d tests, %d failed, %.1f s (cluster start not included)\n' "${#tests[@]}" \
	"${#failed[@]}" "$(echo "$(date +%s.%N) - $t_all" | bc)" >&2
[ ${#failed[@]} = 0 ] || printf 'run-all: failed: %s (logs: %s/log)\n' "${failed[*]}" "$E2E_RUN" >&2
exit ${#failed[@]}
