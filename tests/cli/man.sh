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
# The command's page says what it reads from the environment and what its exit codes mean;
# the node side's what it sets.
run 0 sh -c "MANWIDTH=80 man -l '$top_builddir/doc/morpheus.1'"
for section in ENVIRONMENT "EXIT STATUS" MORPHEUS_CONF SLURM_CONF "VIEW OPTIONS"; do contains "$WORK/out" "$section"; done
run 0 sh -c "MANWIDTH=80 man -l '$top_builddir/doc/morpheus-spank.8'"
for section in ENVIRONMENT MORPHEUS_HOT_BLADES NCCL_TOPO_FILE; do contains "$WORK/out" "$section"; done
finish
