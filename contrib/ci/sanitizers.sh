#!/bin/bash
# The core, the CLI and their tests under ASan + UBSan (float-cast-overflow included; any
# report fails the run), built with clang in a clone of the committed tree (sanitized-clone.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$top/build/sanitizers}
# shellcheck source=contrib/ci/sanitized-clone.sh
. "$top/contrib/ci/sanitized-clone.sh"
sanitized_clone "$top" "$dir" address
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export MORPHEUS_TEST_TIME_SCALE=${MORPHEUS_TEST_TIME_SCALE:-3}  # timing bounds in the unit tests, for the sanitizers' slowdown
make -j"$(nproc)" check
echo "sanitizers: make check passed under ASan+UBSan ($CXX)"
