#!/bin/bash
# Builds and installs Slurm 24.11 (Debian 13 "trixie" source package, Debian's patches applied)
# into a private prefix, beside the distro's Slurm 22.05 in /usr, so Morpheus can be built and
# tested against current Slurm too. Nothing is installed over /usr and no package is upgraded:
# only a deb-src line for trixie is added (no binary `deb` line).
# Idempotent: every step is skipped when its result is already there. The steps it shares
# with slurm-26.05.sh (configure, make, install) are in slurm-build.sh.
#
#   contrib/ci/slurm-24.11.sh [CACHE_DIR]   (default: $MORPHEUS_CACHE, else /var/cache/morpheus)
#
# The cache lives outside the clone, keyed by version, so CI on a clean clone of the same
# machine skips the 20-minute build; a fresh machine builds it once.
#
# Environment: SLURM2411_DEBVER  the trixie source version (default 24.11.5-4+deb13u1)
#              JOBS              make -j (default: the number of CPUs)
#
# Result: CACHE_DIR/slurm-<ver>/              configured and built source tree (config.h),
#                                             for --with-slurm-source
#         CACHE_DIR/slurm-24.11.env           SLURM2411_TREE=..., SLURM2411_PREFIX=...
#         CACHE_DIR/slurm-<ver>-prefix/       bin, sbin, lib/slurm (PluginDir), include,
#                                             for --with-slurm and MORPHEUS_SLURM_PREFIX
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${1:-${MORPHEUS_CACHE:-/var/cache/morpheus}}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
debver=${SLURM2411_DEBVER:-24.11.5-4+deb13u1}
rel=24.11
ver=${debver%%-*}
tree=$cache/slurm-$ver
prefix=$cache/slurm-$ver-prefix
jobs=${JOBS:-$(nproc)}
# shellcheck source=contrib/ci/slurm-build.sh
. "$repo/contrib/ci/slurm-build.sh"

slurm_lock
t0=$(date +%s.%N)
echo "slurm-24.11: source slurm-wlm $debver, tree $tree, prefix $prefix"

# 1. A deb-src entry for trixie, in its own file (source only: no binary trixie packages).
srcfile=/etc/apt/sources.list.d/morpheus-trixie-src.sources
if ! grep -qx "Version: $debver" <<<"$(apt-cache showsrc slurm-wlm 2>/dev/null)"; then
	t=$(date +%s.%N)
	if [ ! -f "$srcfile" ]; then
		cat >"$srcfile" <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	fi
	apt-get update -qq
	step deb-src "$t"
fi

# 2. Build dependencies (apt-get update ran in step 1 when it was needed).
slurm_build_deps no-update

# 3. The source package (apt-get source unpacks into the cwd and applies Debian's patches).
if [ ! -f "$tree/src/interfaces/select.h" ]; then
	t=$(date +%s.%N)
	work=$(mktemp -d "$cache/fetch.XXXXXX")
	# The full source package first; where the mirror only holds the upstream tarball (the
	# .dsc/.debian.tar.xz of a point release can be missing), fall back to --tar-only (apt
	# still checks its hash against the Sources index): upstream 24.11.x without Debian's
	# patches, which only touch packaging, paths and docs.
	if (cd "$work" && apt-get source -qq "slurm-wlm=$debver"); then
		src=$work/slurm-wlm-$ver
	else
		echo "slurm-24.11: full source package not fetchable; using the upstream tarball" >&2
		(cd "$work" && rm -rf ./* && apt-get source -qq --tar-only "slurm-wlm=$debver" &&
			tar xzf "slurm-wlm_$ver.orig.tar.gz")
		src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'slurm-*' | head -1)
	fi
	rm -rf "$tree"
	mv "$src" "$tree"
	rm -rf "$work"
	step fetch "$t"
fi

# 4-6. configure, make, make install into the prefix.
slurm_configure_make_install
slurm_write_env
step total "$t0"
