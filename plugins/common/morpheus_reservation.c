/*
 * morpheus_reservation.c - the ledger's reservations follow the job: made in job_begin,
 * released in job_fini, chosen again when a running job gives nodes up.
 */
#include "config.h"

#include <stdlib.h>
#include <time.h>

#include "morpheus_decision_cache.h"
#include "morpheus_refusal_memo.h"
#include "morpheus_test_timing.h"

/* Reserves blades for the nodes the job holds (its node_bitmap), as the core chooses them. */
extern int glue_reserve_locked(job_record_t *job_ptr, const morpheus_request_t *req,
			       morpheus_error_t *err)
{
	uint32_t *nodes = xcalloc(MAX(bit_size(job_ptr->node_bitmap), 1), sizeof(uint32_t));
	size_t count = 0;
	int rc;

	glue_refresh_node_map_locked();
	for (int i = 0; i < bit_size(job_ptr->node_bitmap); i++) {
		int f;
		if (bit_test(job_ptr->node_bitmap, i) && ((f = glue_fabric_index(i)) >= 0))
			nodes[count++] = f;
	}
	rc = morpheus_reserve(glue_engine, req, nodes, count, err);
	xfree(nodes);
	return rc;
}

extern int placement_job_begin(placement_job_fn job_begin, job_record_t *job_ptr)
{
	morpheus_request_t req;
	morpheus_error_t err;
	int rc;
	double started = glue_clock();

	/*
	 * Reserve here, not in job_test: select_nodes() commits a job only after job_test (and
	 * burst buffers, preemption) succeeded, and calls job_begin right before the job runs.
	 * A job_test success that is not followed by a start (preemption pending, another
	 * partition chosen) would otherwise leak a reservation. cons_tres commits here too.
	 */
	if (!glue_configured || !job_ptr->node_bitmap ||
	    (glue_job_request(job_ptr, bit_set_count(job_ptr->node_bitmap), &req, &err) != 1))
		return job_begin(job_ptr);

	slurm_mutex_lock(&glue_lock);
	if (!glue_engine) {
		slurm_mutex_unlock(&glue_lock);
		return SLURM_ERROR; /* job_test refused it already; never start it unreserved */
	}
	/* What runs is never more than what was charged (the licences job_submit set). */
	if (glue_charge_covers_locked(job_ptr, &req, bit_set_count(job_ptr->node_bitmap)) !=
	    SLURM_SUCCESS) {
		rc = SLURM_ERROR;
		goto fini;
	}
	if (glue_reserve_locked(job_ptr, &req, &err) < 0) {
		char *why = glue_err_text(&err);
		error("select/morpheus: %pJ: reservation failed, job stays pending: %s", job_ptr,
		      why);
		glue_set_reason(job_ptr, why);
		xfree(why);
		rc = SLURM_ERROR;
		goto fini;
	}
	if ((rc = job_begin(job_ptr)) != SLURM_SUCCESS) {
		if (morpheus_release(glue_engine, job_ptr->job_id, &err) < 0)
			error("select/morpheus: %pJ: release after failed job_begin: %s", job_ptr,
			      err.message);
		goto fini;
	}
	morpheus_drop_plan(glue_engine, job_ptr->job_id); /* started: it holds its memory now */
	glue_decision_forget(job_ptr->job_id);		  /* and is tested no more */
	glue_publish(job_ptr);
fini:
	glue_note_begin_locked(started);
	slurm_mutex_unlock(&glue_lock);
	return rc;
}

/*
 * Whether job_fini ends the job for now only: scontrol requeue and BladeFailurePolicy set
 * JOB_REQUEUE; a node failure of a requeueable batch job deallocates it as NODE_FAIL and makes
 * it pending right after (kill_running_job_by_node_ptr, 22.05 to 26.05).
 */
static bool _requeued(job_record_t *job_ptr)
{
	__typeof__(job_ptr->details) details = job_ptr->details;

	return IS_JOB_REQUEUED(job_ptr) || IS_JOB_PENDING(job_ptr) ||
	       (IS_JOB_NODE_FAILED(job_ptr) && job_ptr->batch_flag && details && details->requeue);
}

extern void placement_job_fini(job_record_t *job_ptr)
{
	morpheus_request_t req;
	morpheus_error_t err;
	int rc;

	glue_resources_released(); /* any job's end: cons_tres may accept what it refused */
	if (!glue_configured || (glue_job_request(job_ptr, 1, &req, &err) != 1))
		return;
	slurm_mutex_lock(&glue_lock);
	glue_decision_forget(job_ptr->job_id);
	if (glue_engine) {
		morpheus_drop_plan(glue_engine, job_ptr->job_id);
		/* A checkpointing job that is requeued keeps its region for its next start. */
		if (req.ckpt_bytes && _requeued(job_ptr))
			rc = morpheus_release_for_requeue(glue_engine, job_ptr->job_id, &err);
		else
			rc = morpheus_release(glue_engine, job_ptr->job_id, &err);
		if (rc < 0)
			error("select/morpheus: %pJ: release failed: %s", job_ptr, err.message);
		else if (rc == 2) {
			info("select/morpheus: %pJ requeued: its checkpoint region is kept for its restart",
			     job_ptr);
			glue_publish(job_ptr); /* SystemComment: what it holds while it waits */
		}
		if (rc >= 1) {
			verbose("select/morpheus: %pJ released its memory", job_ptr);
			/* Moves first: memory freed inside a bound goes to the running jobs
			 * beyond it before the scheduler this end triggers gives it to a new
			 * start (as the simulator orders it). The watcher publishes them. */
			if (morpheus_engine_start_moves(glue_engine, (int64_t) time(NULL),
							&err) < 0)
				error("select/morpheus: moves after %pJ ended: %s", job_ptr,
				      err.message);
		}
	}
	slurm_mutex_unlock(&glue_lock);
}

/* A running job gave nodes up (scontrol update NumNodes=, a node excised): Slurm has already
 * cleared them from node_bitmap. The core chooses blades again for the nodes kept, which
 * replaces the reservation and frees the share of the nodes given up. */
extern void placement_job_resized(job_record_t *job_ptr)
{
	morpheus_request_t req;
	morpheus_error_t err;
	char *held;

	glue_resources_released();
	if (!glue_configured || !job_ptr->node_bitmap || !bit_set_count(job_ptr->node_bitmap) ||
	    (glue_job_request(job_ptr, bit_set_count(job_ptr->node_bitmap), &req, &err) != 1))
		return;
	slurm_mutex_lock(&glue_lock);
	if (!glue_engine || !(held = morpheus_job_summary(glue_engine, job_ptr->job_id)))
		goto fini;
	free(held);
	if (glue_reserve_locked(job_ptr, &req, &err) < 0) {
		char *why = glue_err_text(&err);
		error("select/morpheus: %pJ resized to %s: reservation kept as it was: %s", job_ptr,
		      job_ptr->nodes, why);
		xfree(why);
		goto fini;
	}
	info("select/morpheus: %pJ resized to %s: memory of the nodes given up released", job_ptr,
	     job_ptr->nodes);
	glue_publish(job_ptr);
fini:
	slurm_mutex_unlock(&glue_lock);
}
