#!/bin/bash
# make check (the core's unit and CLI tests) under ThreadSanitizer (clang -fsanitize=thread): the C ABI promises
# that every call is thread-safe, and tests/unit/test_capi_threads calls it from several
# threads beside reloads. Any TSan report fails the run (halt_on_error, and the logs are
# searched too). Built in a clone of the committed tree, like sanitizers.sh (sanitized-clone.sh).
#
#   contrib/ci/tsan.sh [BUILD_DIR] [TEST...]     default: all of make check
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$top/build/tsan}
shift || true
# shellcheck source=contrib/ci/sanitized-clone.sh
. "$top/contrib/ci/sanitized-clone.sh"
sanitized_clone "$top" "$dir" thread
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 history_size=4"
export MORPHEUS_TEST_TIME_SCALE=${MORPHEUS_TEST_TIME_SCALE:-5}  # timing bounds in the unit tests, for TSan's slowdown
if [ $# -gt 0 ]; then
	make -j"$(nproc)" check TESTS="$*"
else
	make -j"$(nproc)" check
fi
if grep -rl --include='*.log' "WARNING: ThreadSanitizer" tests; then
	echo "tsan: ThreadSanitizer reports in the logs above" >&2
	exit 1
fi
echo "tsan: make check passed under ThreadSanitizer ($CXX)"
