# The steps contrib/ci/slurm-24.11.sh and slurm-26.05.sh share: lock, build dependencies,
# configure, make and install an unpacked Slurm source tree into a private prefix, and the
# .env file the lanes read. Sourced by them, never run on its own. Each step is skipped when
# its result is already there.
#
# The sourcing script sets, before calling anything here:
#   rel     the release, "24.11": names the lock, the .env file, its variables and the log lines
#   ver     the version config.h must report, "24.11.5"
#   cache   the cache directory (absolute)
#   tree    $cache/slurm-$ver: the source tree
#   prefix  $cache/slurm-$ver-prefix: the install prefix
#   jobs    make -j
# shellcheck shell=bash disable=SC2154

nice="nice -n 19"

# One build at a time (a second run waits, then finds everything done).
slurm_lock() {
	exec 9>"$cache/.slurm-$rel.lock"
	flock 9
}

step() { # step NAME START: prints how long the step took
	awk -v r="$rel" -v n="$1" -v s="$2" -v e="$(date +%s.%N)" \
		'BEGIN { printf "slurm-%s: %-10s %7.1f s\n", r, n, e - s }'
}

# Build dependencies: libmunge-dev is required (auth/munge, cred/munge); libjson-c-dev gives
# serializer/json (scontrol/squeue --json); libmariadb-dev(-compat) gives slurmdbd's
# accounting_storage/mysql, which the accounting lane (tests/slurm/run-accounting.sh) needs on
# every release; hwloc and yaml were already installed here. configure skips optional
# features whose -dev package is missing.
#   slurm_build_deps update|no-update   update: apt-get update before installing
slurm_build_deps() {
	local need=() p t
	for p in libmunge-dev libhwloc-dev libjson-c-dev libyaml-dev libmariadb-dev libmariadb-dev-compat; do
		[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || need+=("$p")
	done
	[ ${#need[@]} -gt 0 ] || return 0
	t=$(date +%s.%N)
	[ "$1" != update ] || apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
	step build-deps "$t"
}

# configure with a private prefix: munge, multiple slurmd per host (what the harness runs;
# Debian's relevant flags, debian/rules). sysconfdir is inside the prefix so it never reads
# /etc/slurm. Then make (daemons, clients, libslurm, plugins; a stamp makes a rerun a no-op)
# and make install into the prefix.
slurm_configure_make_install() {
	local t
	# A tree configured before MariaDB's headers were there (a cache from an older CI) has no
	# accounting_storage/mysql: configure and build it again.
	if [ -f "$tree/config.h" ] && ! grep -q '^#define HAVE_MYSQL 1' "$tree/config.h"; then
		echo "slurm-$rel: cached tree has no MySQL support: configuring again"
		rm -f "$tree/config.status" "$tree/config.h" "$tree/.morpheus-built"
	fi
	if [ ! -f "$tree/config.status" ] || [ ! -f "$tree/config.h" ]; then
		t=$(date +%s.%N)
		(cd "$tree" && $nice ./configure \
			--prefix="$prefix" \
			--sysconfdir="$prefix/etc" \
			--localstatedir="$prefix/var" \
			--with-munge --enable-multiple-slurmd --disable-debug \
			SUCMD=/bin/su SLEEP_CMD=/bin/sleep \
			>"$cache/slurm-$ver.configure.log" 2>&1) || {
			echo "slurm-$rel: configure failed; see $cache/slurm-$ver.configure.log" >&2
			tail -20 "$cache/slurm-$ver.configure.log" >&2
			rm -f "$tree/config.h" "$tree/config.status"
			exit 1
		}
		step configure "$t"
	fi
	grep -q "SLURM_VERSION_STRING \"$ver\"" "$tree/config.h" || {
		echo "slurm-$rel: $tree/config.h is not Slurm $ver" >&2
		exit 1
	}

	if [ ! -f "$tree/.morpheus-built" ]; then
		t=$(date +%s.%N)
		(cd "$tree" && $nice make -j"$jobs" >"$cache/slurm-$ver.make.log" 2>&1) || {
			echo "slurm-$rel: make failed; see $cache/slurm-$ver.make.log" >&2
			tail -30 "$cache/slurm-$ver.make.log" >&2
			exit 1
		}
		touch "$tree/.morpheus-built"
		step make "$t"
	fi

	if [ ! -x "$prefix/sbin/slurmctld" ] || [ ! -f "$prefix/lib/slurm/select_cons_tres.so" ] ||
		[ "$tree/.morpheus-built" -nt "$prefix/sbin/slurmctld" ]; then
		t=$(date +%s.%N)
		(cd "$tree" && $nice make -j"$jobs" install >"$cache/slurm-$ver.install.log" 2>&1) || {
			echo "slurm-$rel: make install failed; see $cache/slurm-$ver.install.log" >&2
			tail -30 "$cache/slurm-$ver.install.log" >&2
			exit 1
		}
		step install "$t"
	fi

	"$prefix/sbin/slurmctld" -V
	ls "$prefix/lib/slurm/select_cons_tres.so" "$prefix/lib/slurm/accounting_storage_mysql.so" \
		"$prefix/sbin/slurmdbd" >/dev/null
}

# For contrib/ci/test-lane.sh and by hand: . /var/cache/morpheus/slurm-$rel.env
# (SLURM2411_TREE=..., SLURM2411_PREFIX=...).
slurm_write_env() {
	local tag=${rel/./}
	printf 'SLURM%s_TREE=%s\nSLURM%s_PREFIX=%s\n' "$tag" "$tree" "$tag" "$prefix" >"$cache/slurm-$rel.env"
}
