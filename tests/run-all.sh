#!/bin/bash
# Runs every test level: unit and CLI tests (make check), then the end-to-end tests against
# real munged, slurmctld and slurmd with the Morpheus plugins loaded (needs root and the
# configured Slurm source tree; see contrib/ci/slurm-source.sh), then the accounting tests in
# a cluster with its own slurmdbd and MariaDB.
set -euo pipefail
cd "$(dirname "$0")/.."
make -j"$(nproc)" check
if [ "$(id -u)" -ne 0 ]; then
	echo "run-all: not root: the real-Slurm tests need root (munged, slurmctld, slurmd)" >&2
	exit 1
fi
tests/slurm/run-all.sh
tests/slurm/run-accounting.sh
