#!/bin/bash
# Builds and installs Slurm 26.05 (upstream release tarball; no distribution packages it yet)
# into a private prefix, beside the distro's Slurm 22.05 in /usr and the 24.11 prefix, so
# Morpheus can be built and tested against the newest Slurm too. Nothing is installed over /usr.
# Idempotent: every step is skipped when its result is already there, and the whole script is
# a no-op when the prefix's slurmctld already reports the wanted version.
#
#   contrib/ci/slurm-26.05.sh [CACHE_DIR]   (default: $MORPHEUS_CACHE, else /var/cache/morpheus)
#
# Environment: SLURM2605_TARBALL  the release tarball (default: ../shared/slurm/slurm-26.05.3.tar.xz
#                                  relative to the clone; it is only read)
#              JOBS               make -j (default 2)
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
jobs=${JOBS:-2}
nice="nice -n 19"

# One build at a time (a second run waits, then finds everything done).
exec 9>"$cache/.slurm-26.05.lock"
flock 9

t0=$(date +%s.%N)
step() { # step NAME START: prints how long the step took
	awk -v n="$1" -v s="$2" -v e="$(date +%s.%N)" 'BEGIN { printf "slurm-26.05: %-10s %7.1f s\n", n, e - s }'
}
writeenv() { # for contrib/ci/test-26.05.sh and by hand: . /var/cache/morpheus/slurm-26.05.env
	printf 'SLURM2605_TREE=%s\nSLURM2605_PREFIX=%s\n' "$tree" "$prefix" >"$cache/slurm-26.05.env"
}

# Done already: the installed slurmctld is this version (and the tree is still there).
if [ -x "$prefix/sbin/slurmctld" ] && [ -f "$tree/.morpheus-built" ] &&
	[ "$("$prefix/sbin/slurmctld" -V 2>/dev/null)" = "slurm $ver" ] &&
	[ -f "$prefix/lib/slurm/select_cons_tres.so" ]; then
	echo "slurm-26.05: $prefix already holds slurm $ver"
	writeenv
	exit 0
fi
echo "slurm-26.05: source $tarball, tree $tree, prefix $prefix"

# 1. Build dependencies (the same as for 24.11): libmunge-dev is required (auth/munge,
# cred/munge); libjson-c-dev gives serializer/json (scontrol/squeue --json). configure skips
# optional features whose -dev package is missing.
need=()
for p in libmunge-dev libhwloc-dev libjson-c-dev libyaml-dev; do
	[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	t=$(date +%s.%N)
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
	step build-deps "$t"
fi

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

# 3. configure with a private prefix: munge, multiple slurmd per host (what the harness runs).
# sysconfdir is inside the prefix so it never reads /etc/slurm.
if [ ! -f "$tree/config.status" ] || [ ! -f "$tree/config.h" ]; then
	t=$(date +%s.%N)
	(cd "$tree" && $nice ./configure \
		--prefix="$prefix" \
		--sysconfdir="$prefix/etc" \
		--localstatedir="$prefix/var" \
		--with-munge --enable-multiple-slurmd --disable-debug \
		SUCMD=/bin/su SLEEP_CMD=/bin/sleep \
		>"$cache/slurm-$ver.configure.log" 2>&1) || {
		echo "slurm-26.05: configure failed; see $cache/slurm-$ver.configure.log" >&2
		tail -20 "$cache/slurm-$ver.configure.log" >&2
		rm -f "$tree/config.h" "$tree/config.status"
		exit 1
	}
	step configure "$t"
fi
grep -q "SLURM_VERSION_STRING \"$ver\"" "$tree/config.h" || {
	echo "slurm-26.05: $tree/config.h is not Slurm $ver" >&2
	exit 1
}

# 4. make (daemons, clients, libslurm, plugins). The stamp makes a rerun a no-op.
if [ ! -f "$tree/.morpheus-built" ]; then
	t=$(date +%s.%N)
	(cd "$tree" && $nice make -j"$jobs" >"$cache/slurm-$ver.make.log" 2>&1) || {
		echo "slurm-26.05: make failed; see $cache/slurm-$ver.make.log" >&2
		tail -30 "$cache/slurm-$ver.make.log" >&2
		exit 1
	}
	touch "$tree/.morpheus-built"
	step make "$t"
fi

# 5. make install into the prefix.
if [ ! -x "$prefix/sbin/slurmctld" ] || [ ! -f "$prefix/lib/slurm/select_cons_tres.so" ] ||
	[ "$tree/.morpheus-built" -nt "$prefix/sbin/slurmctld" ]; then
	t=$(date +%s.%N)
	(cd "$tree" && $nice make -j"$jobs" install >"$cache/slurm-$ver.install.log" 2>&1) || {
		echo "slurm-26.05: make install failed; see $cache/slurm-$ver.install.log" >&2
		tail -30 "$cache/slurm-$ver.install.log" >&2
		exit 1
	}
	step install "$t"
fi

"$prefix/sbin/slurmctld" -V
ls "$prefix/lib/slurm/select_cons_tres.so" >/dev/null
writeenv
step total "$t0"
