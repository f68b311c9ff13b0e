#!/bin/bash
# One Slurm lane: builds Morpheus against a Slurm release built into a private prefix
# (contrib/ci/slurm-RELEASE.sh) in a copy of this working tree, and runs the real-Slurm
# end-to-end suite (tests/slurm) and the accounting suite (tests/slurm/run-accounting.sh) with it. contrib/ci/test-24.11.sh and test-26.05.sh call it.
# The repository's own (22.05) build is never touched: the copy is configured separately.
#
#   contrib/ci/test-lane.sh RELEASE [test_a_hot_pod1.sh ...]      (default: every test)
#
# Environment: M<RELEASE without the dot>_DIR, e.g. M2411_DIR: the copy
#              (default <repo>/.cache/morpheus-RELEASE)
#              JOBS       make -j (default: the number of CPUs)
# Needs root (slurmd) and munge, like tests/slurm.
set -euo pipefail

rel=${1:?usage: test-lane.sh RELEASE [tests...]}
shift
tag=${rel/./}  # 24.11 -> 2411: the names of the lane's variables
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=$repo/.cache
slurm_cache=${MORPHEUS_CACHE:-/var/cache/morpheus}  # Slurm's build, outside the clone
dir_var=M${tag}_DIR
dst=${!dir_var:-$cache/morpheus-$rel}
jobs=${JOBS:-$(nproc)}
nice="nice -n 19"

step() { # step NAME START
	awk -v r="$rel" -v n="$1" -v s="$2" -v e="$(date +%s.%N)" 'BEGIN { printf "test-%s: %-10s %7.1f s\n", r, n, e - s }'
}

# 1. Slurm $rel (cached: a no-op once built).
"$repo/contrib/ci/slurm-$rel.sh" "$slurm_cache"
# shellcheck disable=SC1091
. "$slurm_cache/slurm-$rel.env"
tree_var=SLURM${tag}_TREE prefix_var=SLURM${tag}_PREFIX
tree=${!tree_var} prefix=${!prefix_var}

# 2. A copy of the working tree: tracked and untracked-but-not-ignored files, so uncommitted
# work is tested too; build outputs of the 22.05 build (ignored) stay behind. Only changed
# files are copied, so make rebuilds only what changed.
t=$(date +%s.%N)
mkdir -p "$dst"
(cd "$repo" && git ls-files -z -co --exclude-standard) |
	while IFS= read -r -d '' f; do
		[ -f "$repo/$f" ] || continue
		cmp -s "$repo/$f" "$dst/$f" 2>/dev/null && continue
		mkdir -p "$dst/$(dirname "$f")"
		cp -p "$repo/$f" "$dst/$f"
	done
step copy "$t"

# 3. configure for $rel (once; config.status --recheck handles later changes).
if [ ! -f "$dst/config.status" ] ||
	! grep -qs "^SLURM_LAYER = slurm-$rel\$" "$dst/Makefile"; then
	t=$(date +%s.%N)
	(cd "$dst" && $nice ./autogen.sh >autogen.log 2>&1 &&
		$nice ./configure -q --with-slurm="$prefix" --with-slurm-source="$tree" \
			>configure.log 2>&1) || {
		echo "test-$rel: configure failed; see $dst/autogen.log, $dst/configure.log" >&2
		tail -20 "$dst/configure.log" >&2 || true
		exit 1
	}
	grep -q "^SLURM_LAYER = slurm-$rel\$" "$dst/Makefile" || {
		echo "test-$rel: configure did not pick the slurm-$rel layer" >&2
		grep -E '^SLURM_(LAYER|VERSION|SOURCE|PLUGIN_DIR) =' "$dst/Makefile" >&2
		exit 1
	}
	step configure "$t"
fi

# 4. make: the core, the CLI, and the $rel plugins (26.05 names select/cons_tres_morpheus).
[ "$rel" = 26.05 ] && select_name=cons_tres_morpheus || select_name=morpheus
t=$(date +%s.%N)
(cd "$dst" && $nice make -j"$jobs" >make.log 2>&1) || {
	echo "test-$rel: make failed; see $dst/make.log" >&2
	grep -E 'error|Error' "$dst/make.log" | head -20 >&2
	exit 1
}
step make "$t"
for so in plugins/select/slurm-$rel/.libs/select_$select_name.so \
	plugins/job_submit/slurm-$rel/.libs/job_submit_morpheus.so \
	plugins/spank/.libs/spank_morpheus.so; do
	[ -f "$dst/$so" ] || { echo "test-$rel: $so not built" >&2; exit 1; }
done

# 5. The end-to-end suite against the $rel daemons and clients, then (with no tests named)
# the accounting suite against the $rel slurmdbd: blade-memory charges and limits must hold
# on every release CI covers.
t=$(date +%s.%N)
rc=0
MORPHEUS_SLURM_PREFIX=$prefix E2E_BUILD=$dst "$dst/tests/slurm/run-all.sh" "$@" || rc=$?
step e2e "$t"
if [ $# = 0 ]; then
	t=$(date +%s.%N)
	MORPHEUS_SLURM_PREFIX=$prefix E2E_BUILD=$dst "$dst/tests/slurm/run-accounting.sh" || rc=$?
	step accounting "$t"
fi
exit $rc
