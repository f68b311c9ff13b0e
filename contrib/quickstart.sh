#!/bin/bash
# Quick start: installs the dependencies (as root), builds Morpheus, shows a placement on the
# embedded example cluster (4 pods x 4 nodes x 8 GPUs, 8 CXL blades), and, where the
# real-Slurm harness is built, brings up the emulated cluster with select/morpheus and runs a
# demo job through sbatch.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -eq 0 ]; then
	contrib/ci/install-deps.sh
	contrib/ci/slurm-source.sh
fi
[ -x configure ] || ./autogen.sh
[ -f Makefile ] || ./configure
make -j"$(nproc)"

echo
echo "== morpheus check etc/fabric.json etc/inventory.json"
src/cli/morpheus check etc/fabric.json etc/inventory.json
echo
echo "== morpheus place: 2 nodes, 256G hot memory per node within 250ns (only pod1 can)"
src/cli/morpheus place etc/fabric.json etc/inventory.json --nodes 2 --mem-hot 256G --mem-hot-latency 250ns --mem-cold 1T

if [ -x tests/slurm/demo.sh ] && [ "$(id -u)" -eq 0 ]; then
	echo
	echo "== real Slurm: emulated cluster with select/morpheus, one demo job"
	tests/slurm/demo.sh
fi
