#!/bin/bash
# The core, the CLI and their tests under ASan + UBSan (float-cast-overflow included; any
# report fails the run), built with clang in a clone of the committed tree so the main build's
# configured tree is left alone. The Slurm plugins are left out: sanitized code is never loaded
# into slurmctld.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$top/build/sanitizers}
rm -rf "$dir"
git clone -q "$top" "$dir"
cd "$dir"
./autogen.sh >/dev/null 2>&1
export CC=${CC:-clang} CXX=${CXX:-clang++}
./configure --enable-sanitizers=address --with-slurm=/nonexistent >/dev/null
# The clone is not beside ../shared; the tests that read it are told where it is.
[ -d "$top/../shared/reference/nccl-topo" ] && export MORPHEUS_NCCL_REFERENCE_DIR=$top/../shared/reference/nccl-topo
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
make -j"$(nproc)" check
echo "sanitizers: make check passed under ASan+UBSan ($CXX)"
