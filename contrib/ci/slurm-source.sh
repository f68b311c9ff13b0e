#!/bin/bash
# Fetches the Debian source of the installed Slurm and configures it, so select/morpheus can
# compile against Slurm's internal headers (they include config.h). Only headers are needed:
# no build. Idempotent: every step is skipped when its result is already there.
#
#   contrib/ci/slurm-source.sh [CACHE_DIR]      (default: <repo>/.cache)
#
# Result: CACHE_DIR/slurm-<upstream version>/config.h, found by m4/morpheus_slurm.m4.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${1:-$repo/.cache}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

t0=$(date +%s.%N)
step() { # step NAME START: prints how long the step took
	printf 'slurm-source: %-10s %6.1f s\n' "$1" "$(echo "$(date +%s.%N) - $2" | bc)"
}

# The exact installed package version (e.g. 22.05.8-4+deb12u3): the source must match it,
# security updates included, because select plugins are checked against SLURM_VERSION_NUMBER.
pkgver=$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null || dpkg-query -W -f='${Version}' libslurm-dev)
upver=${pkgver%%-*}
tree=$cache/slurm-$upver
echo "slurm-source: installed slurm-wlm $pkgver, tree $tree"

# 1. deb-src entries for bookworm, -updates and -security (deb822, beside debian.sources).
srcfile=/etc/apt/sources.list.d/morpheus-debsrc.sources
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
	t=$(date +%s.%N)
	cat >"$srcfile" <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	apt-get update -qq
	step deb-src "$t"
fi

# 2. The source package, Debian's patches applied (apt-get source unpacks into the cwd).
if [ ! -f "$tree/src/slurmctld/slurmctld.h" ]; then
	t=$(date +%s.%N)
	work=$(mktemp -d "$cache/fetch.XXXXXX")
	(cd "$work" && apt-get source -qq "slurm-wlm=$pkgver")
	rm -rf "$tree"
	mv "$work/slurm-wlm-$upver" "$tree"
	rm -rf "$work"
	step fetch "$t"
fi

# 3. configure with Debian's flags (debian/rules, override_dh_auto_configure; dh_auto_configure
# adds prefix/libdir/localstatedir), enough for config.h and the generated headers.
# --with-pmix only matters for the mpi/pmix plugin, so it is passed only when libpmix-dev is
# there (configure fails on a missing PMIx dir).
if [ ! -f "$tree/config.h" ]; then
	t=$(date +%s.%N)
	multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
	pmix=
	[ -d "/usr/lib/$multiarch/pmix2/include" ] && pmix="--with-pmix=/usr/lib/$multiarch/pmix2"
	(cd "$tree" && ./configure \
		--prefix=/usr \
		--libdir="/usr/lib/$multiarch" \
		--sysconfdir=/etc/slurm \
		--localstatedir=/var \
		--with-munge --enable-pam --without-rpath --disable-debug \
		--enable-multiple-slurmd $pmix \
		SUCMD=/bin/su SLEEP_CMD=/bin/sleep \
		>"$cache/slurm-$upver.configure.log" 2>&1) || {
		echo "slurm-source: configure failed; see $cache/slurm-$upver.configure.log" >&2
		tail -20 "$cache/slurm-$upver.configure.log" >&2
		rm -f "$tree/config.h" # a half-configured tree must not pass for a good one
		exit 1
	}
	step configure "$t"
fi

grep -q "SLURM_VERSION_STRING \"$upver\"" "$tree/config.h" || {
	echo "slurm-source: $tree/config.h is not Slurm $upver" >&2
	exit 1
}
step total "$t0"
