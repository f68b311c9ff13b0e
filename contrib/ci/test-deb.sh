#!/bin/bash
# Builds the package, installs it, checks what it put where, and removes it again (an
# installed select_morpheus.so in Slurm's plugin dir would clash with the test builds').
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
deb=$("$top/contrib/build-deb.sh" | tail -1)
echo "test-deb: built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"
# lintian: errors fail the package test; warnings are printed.
if command -v lintian >/dev/null; then
	lintian --fail-on error --display-level '>=warning' "$deb" || { echo "test-deb: lintian errors"; exit 1; }
else
	echo "test-deb: lintian missing (contrib/ci/install-deps.sh installs it)"; exit 1
fi
# Not pinned to Debian's revision: any build of the same upstream Slurm release.
depends=$(dpkg-deb -f "$deb" Depends)
if ! [[ $depends =~ slurm-wlm-basic-plugins\ \(\>=\ [0-9.]+\),\ slurm-wlm-basic-plugins\ \(\<\<\ [0-9.]+~\) ]] ||
	[[ $depends =~ \(=\  ]] || ! [[ $depends =~ munge ]]; then
	echo "test-deb: Depends: $depends"; exit 1
fi
[[ $(dpkg-deb -f "$deb" Recommends) =~ gnuplot ]] || { echo "test-deb: gnuplot not recommended"; exit 1; }
dpkg -i "$deb" >/dev/null
trap 'dpkg -P morpheus >/dev/null' EXIT  # purge: no conffile left behind
plugindir=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/slurm-wlm
fail=0
for f in /usr/bin/morpheus "$plugindir/select_morpheus.so" "$plugindir/spank_morpheus.so" \
	"$plugindir/job_submit_morpheus.so" /usr/share/man/man1/morpheus.1.gz /usr/share/man/man5/morpheus.conf.5.gz \
	/usr/share/man/man5/morpheus-fabric.5.gz /usr/share/man/man5/morpheus-inventory.5.gz \
	/usr/share/man/man8/morpheus-spank.8.gz; do
	[ -e "$f" ] || { echo "test-deb: missing $f"; fail=1; }
done
grep -qx /etc/slurm/plugstack.conf.d/morpheus.conf <(dpkg-query -W -f='${Conffiles}\n' morpheus | awk '{print $1}') ||
	{ echo "test-deb: plugstack.conf.d/morpheus.conf is not a conffile"; fail=1; }
grep -q "^optional .*/spank_morpheus.so$" /etc/slurm/plugstack.conf.d/morpheus.conf ||
	{ echo "test-deb: plugstack.conf.d/morpheus.conf does not load the SPANK plugin"; fail=1; }
! readelf -d "$plugindir/select_morpheus.so" | grep -qE 'RPATH|RUNPATH' || { echo "test-deb: select_morpheus.so has a RUNPATH"; fail=1; }
examples=$(dpkg -L morpheus | grep -m1 'examples/fabric.json$' || true)
[ -n "$examples" ] || { echo "test-deb: no example fabric"; fail=1; }
morpheus version
morpheus check "$examples" "${examples%fabric.json}inventory.json"
man -w morpheus.conf >/dev/null
[ "$fail" -eq 0 ] && echo "test-deb: package installs and works"
