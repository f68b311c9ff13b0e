#!/bin/sh
# The SPANK plugin is loaded by every srun, sbatch and salloc and by slurmstepd on the compute
# node: it must carry the node side of the core only (src/core/Makefile.inc). Fails when it
# exports more than SPANK's entry points, or contains or links munge, the status service, the
# ledger or the scoring.
set -u
so=${top_builddir:-.}/plugins/spank/.libs/spank_morpheus.so
[ -f "$so" ] || { echo "layering: $so not built (no Slurm headers?)"; exit 77; }
rc=0
exported=$(nm -D --defined-only "$so" | awk '{print $3}' |
	grep -v -E '^(plugin_name|plugin_type|plugin_version|spank_plugin_version|slurm_spank_[a-z_]+)$' |
	grep -v -E '^_(init|fini|edata|end|_bss_start)$')
[ -z "$exported" ] || { echo "layering: $so exports more than SPANK's entry points:"; echo "$exported"; rc=1; }
controller=$(nm -C "$so" | grep -E 'munge_|StatusService|morpheus::Ledger|morpheus::decide|morpheus::Engine|ClusterModel' | head -5)
[ -z "$controller" ] || { echo "layering: controller code in $so:"; echo "$controller"; rc=1; }
libs=$(ldd "$so" | grep -E 'libmunge|libjansson' || true)
[ -z "$libs" ] || { echo "layering: $so links controller libraries:"; echo "$libs"; rc=1; }
[ $rc = 0 ] && echo "layering: $so: SPANK entry points only, no controller code or libraries"
exit $rc
