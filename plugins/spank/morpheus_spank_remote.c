/*
 * morpheus_spank_remote.c - slurmstepd-side work of the Morpheus SPANK plugin.
 *
 * The hook for per-job NCCL hints (NCCL_TOPO_FILE, NCCL_IB_HCA, ... derived from the job's
 * placement): they belong here, set with spank_setenv() so every task of the step sees them.
 * Nothing is needed for the placement itself: select/morpheus puts MORPHEUS_* into the job's
 * environment, which batch scripts and srun tasks already inherit.
 */
#include "morpheus_spank_remote.h"

int morpheus_spank_remote_user_init(spank_t sp, int nccl_hints)
{
	(void) sp;
	(void) nccl_hints; /* NCCL hints: not implemented yet (see file comment) */
	return 0;
}
