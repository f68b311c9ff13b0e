#!/bin/bash
# Installs what Morpheus needs to build and test on Debian 12 (run as root). Idempotent.
set -euo pipefail
packages=(
	build-essential autoconf automake libtool pkg-config bc
	libjansson-dev libhwloc-dev hwloc libboost-graph-dev libcmocka-dev
	munge libmunge-dev
	slurmctld slurmd slurm-client libslurm-dev slurm-wlm-basic-plugins-dev
	python3 python3-yaml curl libxml2-utils gnuplot-nox dpkg-dev fakeroot debhelper lintian groff-base man-db
	prometheus
	clang libclang-rt-14-dev clang-format
	slurmdbd mariadb-server
)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#packages[@]} packages present"
	exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian starts no daemon on install here, but a machine with systemd might: the tests run
# their own munged/slurmctld/slurmd and must own the ports and sockets.
for svc in slurmctld slurmd; do
	if command -v systemctl >/dev/null && systemctl is-active --quiet "$svc" 2>/dev/null; then
		systemctl stop "$svc" || true
	fi
done
