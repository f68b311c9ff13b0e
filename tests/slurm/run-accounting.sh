#!/bin/bash
# The accounting suite (tests/slurm/accounting/test_*.sh) in a cluster of its own with a
# MariaDB and a slurmdbd (harness.sh, E2E_ACCOUNTING=1). Separate from run-all.sh because
# every user must then have an association. Needs the Slurm build's accounting_storage/mysql
# (Debian's slurmdbd for 22.05); exit 77 (skipped) when slurmdbd or MariaDB is missing.
#
#   tests/slurm/run-accounting.sh [test_accounting.sh ...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${E2E_RUN:-}" ]; then
	for c in slurmdbd mariadbd mariadb-install-db; do
		command -v "$c" >/dev/null || { echo "run-accounting: $c not installed: skipped" >&2; exit 77; }
	done
	E2E_ACCOUNTING=1 exec "$here/harness.sh" run-test "$0" "$@"
fi
tests=("$@")
[ ${#tests[@]} = 0 ] && mapfile -t tests < <(cd "$here/accounting" && ls test_*.sh)
failed=0
for t in "${tests[@]}"; do
	t0=$(date +%s.%N)
	if "$here/accounting/$(basename "$t")"; then s=PASS; else s=FAIL; failed=$((failed + 1)); fi
	printf 'run-accounting: %-24s %s  %5.1f s\n' "$(basename "$t" .sh)" "$s" "$(echo "$(date +%s.%N) - $t0" | bc)" >&2
done
exit $failed
