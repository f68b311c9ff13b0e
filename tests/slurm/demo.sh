#!/bin/bash
# The quick start's second half: brings up the emulated cluster (munged, slurmctld, 16 slurmd
# with select/morpheus and the SPANK plugin, tests/slurm/harness.sh), submits a demo job that
# asks for hot memory only pod1 can give, shows where it went and what it holds, and tears the
# cluster down again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${E2E_RUN:-}" ]; then
	exec "$here/harness.sh" run-test "$0" "$@"
fi
morpheus=$E2E_BUILD/src/cli/morpheus
# Every command shown must work: a view that errors fails the demo (and its test, test_z).
run() { echo "\$ $*"; "$@" || { echo "demo: $1 failed" >&2; exit 1; }; echo; }

out=$E2E_RUN/demo.out
run sinfo
job=$(sbatch --parsable -N2 --mem-hot=256G --mem-hot-latency=250ns --mem-cold=1T -o "$out" \
	--wrap 'env | grep ^MORPHEUS_ | sort; sleep 5')
echo "submitted job $job: 2 nodes, 256G of hot memory per node within 250ns, 1T cold"
for _ in $(seq 50); do [ "$(squeue -h -j "$job" -o %T)" = RUNNING ] && break; sleep 0.2; done
run squeue -O JobID,State,NodeList,system_comment:80
run "$morpheus" jobs --server "127.0.0.1:$E2E_STATUS_PORT"
run "$morpheus" pools --server "127.0.0.1:$E2E_STATUS_PORT"
run "$morpheus" explain "$job" --server "127.0.0.1:$E2E_STATUS_PORT"
for _ in $(seq 100); do [ -z "$(squeue -h -j "$job" -o %T)" ] && break; sleep 0.2; done
echo "the job's environment:"
cat "$out"
