/*
 * morpheus_pending_reason.c - shows why Morpheus holds a job back as its pending reason,
 * "Morpheus: <reason>", and clears it once the cause is gone.
 *
 * Where the reason goes, and why there (checked in the 22.05 and 24.11 sources):
 *   - "nothing fits now": state_desc "Morpheus: <reason>" with state_reason
 *     MORPHEUS_PENDING_REASON; squeue and scontrol print state_desc when it is set.
 *     22.05: WAIT_BLOCK_D_ACTION, the one pending reason that select_nodes() leaves alone
 *     after a failed job_test. 24.11 has no such code (select_nodes() sets WAIT_RESOURCES
 *     and frees state_desc after any failed job_test), but sched/backfill keeps a reason
 *     set during its will-run test: the layer sets MORPHEUS_REASON_IN_WILL_RUN, and the
 *     reason is re-asserted by every backfill pass (bf_interval).
 */
#include "config.h"

#include <string.h>

#include "morpheus_glue.h"

#define MORPHEUS_REASON_PREFIX "Morpheus:"
#ifndef MORPHEUS_PENDING_REASON
#error "morpheus_slurm_layer.h must define MORPHEUS_PENDING_REASON"
#endif
#ifndef MORPHEUS_REASON_IN_WILL_RUN
#define MORPHEUS_REASON_IN_WILL_RUN 0
#endif

/* Whether a refusal in this job_test mode becomes the job's visible pending reason. */
extern bool glue_reason_mode(uint16_t mode)
{
	return (mode == SELECT_MODE_RUN_NOW) ||
	       (MORPHEUS_REASON_IN_WILL_RUN && (mode == SELECT_MODE_WILL_RUN));
}

static bool _has_own_reason(job_record_t *job_ptr)
{
	return (job_ptr->state_reason == MORPHEUS_PENDING_REASON) &&
	       !xstrncmp(job_ptr->state_desc, MORPHEUS_REASON_PREFIX,
			 strlen(MORPHEUS_REASON_PREFIX));
}

/* A reason set by an earlier pass must not outlive its cause (Slurm keeps our reason code):
 * cleared when this pass was not refused by Morpheus, so Slurm's own reason shows instead. */
extern void glue_clear_reason(job_record_t *job_ptr)
{
	if (!_has_own_reason(job_ptr))
		return;
	job_ptr->state_reason = WAIT_NO_REASON;
	xfree(job_ptr->state_desc);
	glue_touch_jobs();
}

extern void glue_set_reason(job_record_t *job_ptr, const char *why)
{
	char *desc;

	if (!xstrncmp(why, MORPHEUS_REASON_PREFIX, strlen(MORPHEUS_REASON_PREFIX)))
		desc = xstrdup(why);
	else
		desc = xstrdup_printf(MORPHEUS_REASON_PREFIX " %s", why);
	if ((job_ptr->state_reason == MORPHEUS_PENDING_REASON) &&
	    !xstrcmp(job_ptr->state_desc, desc)) {
		xfree(desc); /* unchanged: do not make every client reload the job table */
		return;
	}
	debug("select/morpheus: %pJ pending: %s", job_ptr, desc);
	xfree(job_ptr->state_desc);
	job_ptr->state_desc = desc;
	job_ptr->state_reason = MORPHEUS_PENDING_REASON;
	glue_touch_jobs();
}
