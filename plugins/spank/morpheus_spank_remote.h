/* morpheus_spank_remote.h - the slurmstepd side of the Morpheus SPANK plugin. */
#ifndef MORPHEUS_SPANK_REMOTE_H
#define MORPHEUS_SPANK_REMOTE_H

#include <slurm/spank.h>

/*
 * Called from slurm_spank_user_init in remote context (once per step, as the user, before
 * the tasks fork). The job's placement is already in the step's environment (MORPHEUS_POD,
 * MORPHEUS_HOT_BLADES, ...; read it with spank_getenv). nccl_hints: --nccl-hints=on.
 * Returns 0, or -1 to fail the step.
 */
int morpheus_spank_remote_user_init(spank_t sp, int nccl_hints);

#endif /* MORPHEUS_SPANK_REMOTE_H */
