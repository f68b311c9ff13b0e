#!/bin/bash
# Builds Morpheus against Slurm 26.05 (private prefix, contrib/ci/slurm-26.05.sh) in a copy of
# this working tree, and runs the real-Slurm end-to-end suite (tests/slurm) with it.
# The repository's own (22.05) build is never touched: the copy is configured separately.
#
#   contrib/ci/test-26.05.sh [test_a_hot_pod1.sh ...]      (default: every test)
#
# Environment: M2605_DIR  the copy (default <repo>/.cache/morpheus-26.05)
#              JOBS       make -j (default 2)
# Needs root (slurmd) and munge, like tests/slurm.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=$repo/.cache
slurm_cache=${MORPHEUS_CACHE:-/var/cache/morpheus}  # Slurm's build, outside the clone
dst=${M2605_DIR:-$cache/morpheus-26.05}
jobs=${JOBS:-2}
nice="nice -n 19"

step() { # step NAME START
	awk -v n="$1" -v s="$2" -v e="$(date +%s.%N)" 'BEGIN { printf "test-26.05: %-10s %7.1f s\n", n, e - s }'
}

# 1. Slurm 26.05 (cached: a no-op once built).
"$repo/contrib/ci/slurm-26.05.sh" "$slurm_cache"
# shellcheck disable=SC1091
. "$slurm_cache/slurm-26.05.env"
tree=$SLURM2605_TREE prefix=$SLURM2605_PREFIX

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

# 3. configure for 26.05 (once; config.status --recheck handles later changes).
if [ ! -f "$dst/config.status" ] ||
	! grep -qs '^SLURM_LAYER = slurm-26.05$' "$dst/Makefile"; then
	t=$(date +%s.%N)
	(cd "$dst" && $nice ./autogen.sh >autogen.log 2>&1 &&
		$nice ./configure -q --with-slurm="$prefix" --with-slurm-source="$tree" \
			>configure.log 2>&1) || {
		echo "test-26.05: configure failed; see $dst/autogen.log, $dst/configure.log" >&2
		tail -20 "$dst/configure.log" >&2 || true
		exit 1
	}
	grep -q '^SLURM_LAYER = slurm-26.05$' "$dst/Makefile" || {
		echo "test-26.05: configure did not pick the slurm-26.05 layer" >&2
		grep -E '^SLURM_(LAYER|VERSION|SOURCE|PLUGIN_DIR) =' "$dst/Makefile" >&2
		exit 1
	}
	step configure "$t"
fi

# 4. make: the core, the CLI, and the 26.05 plugins.
t=$(date +%s.%N)
(cd "$dst" && $nice make -j"$jobs" >make.log 2>&1) || {
	echo "test-26.05: make failed; see $dst/make.log" >&2
	grep -E 'error|Error' "$dst/make.log" | head -20 >&2
	exit 1
}
step make "$t"
for so in plugins/select/slurm-26.05/.libs/select_cons_tres_morpheus.so \
	plugins/job_submit/slurm-26.05/.libs/job_submit_morpheus.so \
	plugins/spank/.libs/spank_morpheus.so; do
	[ -f "$dst/$so" ] || { echo "test-26.05: $so not built" >&2; exit 1; }
done

# 5. The end-to-end suite against the 26.05 daemons and clients.
t=$(date +%s.%N)
rc=0
MORPHEUS_SLURM_PREFIX=$prefix E2E_BUILD=$dst "$dst/tests/slurm/run-all.sh" "$@" || rc=$?
step e2e "$t"
exit $rc
