#!/bin/bash
# Fails when a C++ source (core, CLI, simulator, unit tests, benchmarks, fuzz harnesses) is not
# formatted as .clang-format says. Fix: clang-format -i FILE (the same clang-format, 14).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v clang-format >/dev/null || { echo "format-check: clang-format not installed (apt-get install clang-format)" >&2; exit 1; }
mapfile -t files < <(git ls-files 'src/*.cpp' 'src/*.hpp' 'tests/unit/*.cpp' 'tests/unit/*.hpp' \
	'tests/bench/*.cpp' 'tests/fuzz/*.cpp' 'tests/fuzz/*.hpp')
if ! clang-format --dry-run --Werror "${files[@]}" 2>/tmp/morpheus-format.log; then
	grep -E '^[^ ].*: (error|warning):' /tmp/morpheus-format.log | cut -d: -f1 | sort -u |
		sed 's/^/format-check: not formatted: /' >&2
	echo "format-check: run clang-format -i on those files ($(clang-format --version | head -1))" >&2
	exit 1
fi
echo "format-check: ${#files[@]} C++ files formatted as .clang-format says"
