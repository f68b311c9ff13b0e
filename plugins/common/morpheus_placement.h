/*
 * morpheus_placement.h - the slurmctld side of select/morpheus that does not depend on the
 * Slurm release: translation between slurmctld's records (job_record_t, node bitmaps) and the
 * Morpheus core (include/morpheus/morpheus.h).
 *
 * Used by every layer (plugins/select/slurm-22.05, plugins/select/slurm-24.11). What differs
 * between releases stays in the layer:
 *   - the select_p_job_test signature: the layer packs cons_tres's arguments into its own
 *     struct and hands the glue a placement_try_fn that runs cons_tres on a narrowed bitmap;
 *   - the pending-reason convention: morpheus_slurm_layer.h (found on the layer's include
 *     path) defines MORPHEUS_PENDING_REASON and MORPHEUS_REASON_IN_WILL_RUN.
 * Needs Slurm's internal headers (config.h of a configured tree first on the include path).
 */
#ifndef MORPHEUS_PLACEMENT_H
#define MORPHEUS_PLACEMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "src/common/bitstring.h"
#include "src/slurmctld/slurmctld.h"

/* One run of cons_tres's job_test on BITMAP (a narrowed copy of the caller's), with every
 * other argument as the caller got it; frees a preemptee list of an earlier run first. */
typedef int (*placement_try_fn)(void *arg, bitstr_t *bitmap);
typedef int (*placement_job_fn)(job_record_t *job_ptr);

/* slurmctld with SelectType=select/morpheus only: opens the engine (errors are logged and
 * keep Morpheus jobs pending; scontrol reconfigure retries). */
extern void placement_open(void);
extern void placement_close(void);
extern bool placement_active(void);
/* Why the last open failed (NULL when it did not); valid until the next open or close. */
extern const char *placement_open_error(void);

/* MODE is cons_tres's (SELECT_MODE_RUN_NOW, _TEST_ONLY, _WILL_RUN). On success the caller's
 * BITMAP holds what cons_tres chose. */
extern int placement_job_test(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
			      uint16_t mode, placement_try_fn try_fn, void *try_arg);
extern int placement_job_begin(placement_job_fn job_begin, job_record_t *job_ptr);
extern void placement_job_fini(job_record_t *job_ptr);
/* A job was suspended (cons_tres gave its CPUs back): what cons_tres refused may fit now. */
extern void placement_resources_released(void);

/* After jobs are recovered (startup) or on reconfigure: reload files, reconcile the ledger.
 * JOBS is slurmctld's job list (List in 22.05, list_t * later: the same struct xlist). */
extern void placement_jobs_recovered(struct xlist *jobs);
extern void placement_nodes_changed(void);

/* A running job gave nodes up: its reservation shrinks to the nodes it keeps. */
extern void placement_job_resized(job_record_t *job_ptr);

/* job_submit: a malformed request, or one no empty cluster could take (nodes from -N or
 * --gpus, a --nodelist it is confined to), is refused with the reason in err_msg. */
extern int placement_submit_check(job_desc_msg_t *job_desc, uint32_t uid,
				  char **err_msg);

/* job_modify: an update of a Morpheus job's size, node list or licences gets the charge
 * recomputed (never lowered) in job_desc->licenses; a pending job's update that could never
 * be placed is refused with the reason in err_msg. */
extern int placement_modify_check(job_desc_msg_t *job_desc, job_record_t *job_ptr,
				  uint32_t uid, char **err_msg);

#endif /* MORPHEUS_PLACEMENT_H */
