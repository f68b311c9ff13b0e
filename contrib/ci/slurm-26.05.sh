#!/bin/bash
# Builds and installs Slurm 26.05 (upstream release tarball; no distribution packages it yet)
# into a private prefix, beside the distro's Slurm 22.05 in /usr and the 24.11 prefix, so
# Morpheus can be built and tested against the newest Slurm too. Nothing is installed over /usr.
# Idempotent: every step is skipped when its result is already there, and the whole script is
# a no-op when the prefix's slurmctld already reports the wanted version. The steps it shares
# with slurm-24.11.sh (configure, make, install) are in slurm-build.sh.
#
#   contrib/ci/slurm-26.05.sh [CACHE_DIR]   (default: $MORPHEUS_CACHE, else /var/cache/morpheus)
#
# Environment: SLURM2605_TARBALL  the release tarball (default: ../shared/slurm/slurm-26.05.3.tar.xz
#                                  relative to the clone; it is only read)
#              JOBS               make -j (default: the number of CPUs)
#
# Result: CACHE_DIR/slurm-<ver>/         configured and built source tree (config.h),
#                                        for --with-slurm-source
#         CACHE_DIR/slurm-26.05.env      SLURM2605_TREE=..., SLURM2605_PREFIX=...
#         CACHE_DIR/slurm-<ver>-prefix/  bin, sbin, lib/slurm (PluginDir), include,
#                                        for --with-slurm and MORPHEUS_SLURM_PREFIX
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${1:-${MORPHEUS_CACHE:-/var/cache/morpheus}}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
tarball=${SLURM2605_TARBALL:-$repo/../shared/slurm/slurm-26.05.3.tar.xz}
ver=$(basename "$tarball" .tar.xz)
ver=${ver#slurm-}
tree=$cache/slurm-$ver
prefix=$cache/slurm-$ver-prefix
jobs=${JOBS:-$(nproc)}
rel=26.05
# shellcheck source=contrib/ci/slurm-build.sh
. "$repo/contrib/ci/slurm-build.sh"

slurm_lock
t0=$(date +%s.%N)

# Done already: the installed slurmctld is this version (and the tree is still there).
if [ -x "$prefix/sbin/slurmctld" ] && [ -f "$tree/.morpheus-built" ] &&
	[ "$("$prefix/sbin/slurmctld" -V 2>/dev/null)" = "slurm $ver" ] &&
	[ -f "$prefix/lib/slurm/select_cons_tres.so" ]; then
	echo "slurm-26.05: $prefix already holds slurm $ver"
	slurm_write_env
	exit 0
fi
echo "slurm-26.05: source $tarball, tree $tree, prefix $prefix"

# 1. Build dependencies (the same as for 24.11).
slurm_build_deps update

# 2. Unpack the release tarball.
if [ ! -f "$tree/src/interfaces/select.h" ]; then
	[ -r "$tarball" ] || {
		echo "slurm-26.05: $tarball not found; set SLURM2605_TARBALL to slurm-26.05.x.tar.xz" >&2
		exit 1
	}
	t=$(date +%s.%N)
	work=$(mktemp -d "$cache/fetch.XXXXXX")
	tar -C "$work" -xJf "$tarball"
	rm -rf "$tree"
	mv "$work/slurm-$ver" "$tree"
	rm -rf "$work"
	step unpack "$t"
fi

# 3-5. configure, make, make install into the prefix.
slurm_configure_make_install
slurm_write_env
step total "$t0"
