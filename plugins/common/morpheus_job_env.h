/*
 * morpheus_job_env.h - the names under which a job's Morpheus request travels, shared by the
 * SPANK plugin (which sets them) and the slurmctld plugins (which read them).
 *
 * The SPANK plugin stores each option with spank_job_control_setenv() in allocator and local
 * context; Slurm carries them in the job's spank_job_env as "NAME=value" (no prefix there;
 * Prolog/Epilog see them as SPANK_NAME, batch scripts as SLURM_SPANK_NAME). Slurm-free C.
 */
#ifndef MORPHEUS_JOB_ENV_H
#define MORPHEUS_JOB_ENV_H

#include <stdint.h>

#include "morpheus/morpheus.h"
#include "morpheus/morpheus_env.h"


/* The value of NAME in a "NAME=value" array, or NULL. */
const char *morpheus_env_lookup(char *const *env, uint32_t env_size, const char *name);

/*
 * Fills req's memory fields from a job's spank_job_env. Returns 1 when the job asks Morpheus
 * for memory, 0 when it does not (req untouched beyond the flags), -1 with err when a value is
 * malformed (only possible if the job bypassed the SPANK plugin's checks).
 */
int morpheus_request_from_env(char *const *env, uint32_t env_size, morpheus_request_t *req,
			      morpheus_error_t *err);

#endif /* MORPHEUS_JOB_ENV_H */
