#!/bin/bash
# Builds and installs Slurm 24.11 (Debian 13 "trixie" source package, Debian's patches applied)
# into a private prefix, beside the distro's Slurm 22.05 in /usr, so Morpheus can be built and
# tested against current Slurm too. Nothing is installed over /usr and no package is upgraded:
# only a deb-src line for trixie is added (no binary `deb` line).
# Idempotent: every step is skipped when its result is already there.
#
#   contrib/ci/slurm-24.11.sh [CACHE_DIR]   (default: $MORPHEUS_CACHE, else /var/cache/morpheus)
#
# The cache lives outside the clone, keyed by version, so CI on a clean clone of the same
# machine skips the 20-minute build; a fresh machine builds it once.
#
# Environment: SLURM2411_DEBVER  the trixie source version (default 24.11.5-4+deb13u1)
#              JOBS              make -j (default 2)
#
# Result: CACHE_DIR/slurm-<upver>/            configured and built source tree (config.h),
#                                             for --with-slurm-source
#         CACHE_DIR/slurm-24.11.env           SLURM2411_TREE=..., SLURM2411_PREFIX=...
#         CACHE_DIR/slurm-<upver>-prefix/     bin, sbin, lib/slurm (PluginDir), include,
#                                             for --with-slurm and MORPHEUS_SLURM_PREFIX
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${1:-${MORPHEUS_CACHE:-/var/cache/morpheus}}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
debver=${SLURM2411_DEBVER:-24.11.5-4+deb13u1}
upver=${debver%%-*}
tree=$cache/slurm-$upver
prefix=$cache/slurm-$upver-prefix
jobs=${JOBS:-2}
nice="nice -n 19"

# One build at a time (a second run waits, then finds everything done).
exec 9>"$cache/.slurm-24.11.lock"
flock 9

t0=$(date +%s.%N)
step() { # step NAME START: prints how long the step took
	awk -v n="$1" -v s="$2" -v e="$(date +%s.%N)" 'BEGIN { printf "slurm-24.11: %-10s %7.1f s\n", n, e - s }'
}
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

# 2. Build dependencies: libmunge-dev is required (auth/munge, cred/munge); libjson-c-dev
# gives serializer/json (scontrol/squeue --json); hwloc and yaml were already installed here.
# configure skips optional features whose -dev package is missing.
need=()
for p in libmunge-dev libhwloc-dev libjson-c-dev libyaml-dev; do
	[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	t=$(date +%s.%N)
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
	step build-deps "$t"
fi

# 3. The source package (apt-get source unpacks into the cwd and applies Debian's patches).
if [ ! -f "$tree/src/interfaces/select.h" ]; then
	t=$(date +%s.%N)
	work=$(mktemp -d "$cache/fetch.XXXXXX")
	# The full source package first; where the mirror only holds the upstream tarball (the
	# .dsc/.debian.tar.xz of a point release can be missing), fall back to --tar-only (apt
	# still checks its hash against the Sources index): upstream 24.11.x without Debian's
	# patches, which only touch packaging, paths and docs.
	if (cd "$work" && apt-get source -qq "slurm-wlm=$debver"); then
		src=$work/slurm-wlm-$upver
	else
		echo "slurm-24.11: full source package not fetchable; using the upstream tarball" >&2
		(cd "$work" && rm -rf ./* && apt-get source -qq --tar-only "slurm-wlm=$debver" &&
			tar xzf "slurm-wlm_$upver.orig.tar.gz")
		src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'slurm-*' | head -1)
	fi
	rm -rf "$tree"
	mv "$src" "$tree"
	rm -rf "$work"
	step fetch "$t"
fi

# 4. configure with a private prefix; Debian's relevant flags (debian/rules): munge,
# multiple slurmd per host. sysconfdir is inside the prefix so it never reads /etc/slurm.
if [ ! -f "$tree/config.status" ] || [ ! -f "$tree/config.h" ]; then
	t=$(date +%s.%N)
	(cd "$tree" && $nice ./configure \
		--prefix="$prefix" \
		--sysconfdir="$prefix/etc" \
		--localstatedir="$prefix/var" \
		--with-munge --enable-multiple-slurmd --disable-debug \
		SUCMD=/bin/su SLEEP_CMD=/bin/sleep \
		>"$cache/slurm-$upver.configure.log" 2>&1) || {
		echo "slurm-24.11: configure failed; see $cache/slurm-$upver.configure.log" >&2
		tail -20 "$cache/slurm-$upver.configure.log" >&2
		rm -f "$tree/config.h" "$tree/config.status"
		exit 1
	}
	step configure "$t"
fi
grep -q "SLURM_VERSION_STRING \"$upver\"" "$tree/config.h" || {
	echo "slurm-24.11: $tree/config.h is not Slurm $upver" >&2
	exit 1
}

# 5. make (daemons, clients, libslurm, plugins). The stamp makes a rerun a no-op.
if [ ! -f "$tree/.morpheus-built" ]; then
	t=$(date +%s.%N)
	(cd "$tree" && $nice make -j"$jobs" >"$cache/slurm-$upver.make.log" 2>&1) || {
		echo "slurm-24.11: make failed; see $cache/slurm-$upver.make.log" >&2
		tail -30 "$cache/slurm-$upver.make.log" >&2
		exit 1
	}
	touch "$tree/.morpheus-built"
	step make "$t"
fi

# 6. make install into the prefix.
if [ ! -x "$prefix/sbin/slurmctld" ] || [ ! -f "$prefix/lib/slurm/select_cons_tres.so" ] ||
	[ "$tree/.morpheus-built" -nt "$prefix/sbin/slurmctld" ]; then
	t=$(date +%s.%N)
	(cd "$tree" && $nice make -j"$jobs" install >"$cache/slurm-$upver.install.log" 2>&1) || {
		echo "slurm-24.11: make install failed; see $cache/slurm-$upver.install.log" >&2
		tail -30 "$cache/slurm-$upver.install.log" >&2
		exit 1
	}
	step install "$t"
fi

"$prefix/sbin/slurmctld" -V
ls "$prefix/lib/slurm/select_cons_tres.so" >/dev/null
# For contrib/ci/test-24.11.sh and by hand: . /var/cache/morpheus/slurm-24.11.env
printf 'SLURM2411_TREE=%s\nSLURM2411_PREFIX=%s\n' "$tree" "$prefix" >"$cache/slurm-24.11.env"
step total "$t0"
