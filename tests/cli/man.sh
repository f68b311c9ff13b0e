#!/bin/sh
# Every man page renders without groff warnings and has its NAME section.
. "$top_srcdir/tests/cli/lib.sh"
for page in "$top_builddir"/doc/*.[158]; do
    run 0 sh -c "MANWIDTH=80 man -l '$page'"
    contains "$WORK/out" "NAME"
    if command -v groff >/dev/null; then
        warnings=$(groff -man -ww -z "$page" 2>&1)
        [ -z "$warnings" ] || { echo "FAIL: $page: $warnings"; failures=$((failures + 1)); }
    fi
done
finish
