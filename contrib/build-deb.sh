#!/bin/bash
# Builds the Debian package of Morpheus against the distribution's Slurm (dpkg-buildpackage on
# this machine) from the files git knows, into build/deb/. Run as root the first time (it may
# fetch Slurm's source tree through contrib/ci/slurm-source.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/deb
"$top/contrib/ci/slurm-source.sh" >/dev/null
version=$(dpkg-query -W -f='${Version}' libslurm-dev)
tree=$top/.cache/slurm-${version%%-*}
work=$(mktemp -d /tmp/morpheus-deb-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/morpheus-0.1.0"
(cd "$top" && git ls-files -co --exclude-standard | tar -cf - -T -) | tar -xf - -C "$work/morpheus-0.1.0"
cp -r "$top/contrib/debian" "$work/morpheus-0.1.0/debian"
(cd "$work/morpheus-0.1.0" && MORPHEUS_SLURM_SOURCE="$tree" DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-nocheck}" \
	dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1) || { tail -40 "$work/build.log"; exit 1; }
mkdir -p "$out"
mv "$work"/*.deb "$out"/
ls -1 "$out"/*.deb
