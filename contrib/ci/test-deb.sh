#!/bin/bash
# Builds the package, installs it, checks what it put where, and removes it again (an
# installed select_morpheus.so in Slurm's plugin dir would clash with the test builds').
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
deb=$("$top/contrib/build-deb.sh" | tail -1)
echo "test-deb: built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"
dpkg -i "$deb" >/dev/null
trap 'dpkg -r morpheus >/dev/null' EXIT
plugindir=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/slurm-wlm
fail=0
for f in /usr/bin/morpheus "$plugindir/select_morpheus.so" "$plugindir/spank_morpheus.so" \
	"$plugindir/job_submit_morpheus.so" /usr/share/man/man1/morpheus.1.gz /usr/share/man/man5/morpheus.conf.5.gz \
	/usr/share/man/man5/morpheus-fabric.5.gz /usr/share/man/man5/morpheus-inventory.5.gz \
	/usr/share/man/man8/morpheus-spank.8.gz; do
	[ -e "$f" ] || { echo "test-deb: missing $f"; fail=1; }
done
examples=$(dpkg -L morpheus | grep -m1 'examples/fabric.json$' || true)
[ -n "$examples" ] || { echo "test-deb: no example fabric"; fail=1; }
morpheus version
morpheus check "$examples" "${examples%fabric.json}inventory.json"
man -w morpheus.conf >/dev/null
[ "$fail" -eq 0 ] && echo "test-deb: package installs and works"
