/*
 * morpheus_recovery.c - after slurmctld recovers its jobs (startup) or reconfigures: the
 * ledger is reconciled with the running jobs, and running jobs without a reservation get
 * theirs back.
 */
#include "config.h"

#include <stdlib.h>

#include "morpheus_glue.h"

static bool jobs_recovered_once; /* the first job_init is startup, later ones reconfigure */
static bool restore_due;	 /* repair running jobs once their node bitmaps exist */

struct recovered_ids {
	uint64_t *running, *pending;
	size_t running_count, pending_count;
};

static int _append_recovered(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	struct recovered_ids *ids = arg;

	/* Running and suspended jobs hold memory; a completing one was released in job_fini.
	 * A pending one holds only a checkpoint region kept for its restart (requeued): the
	 * core keeps that and releases anything else (a job Slurm relaunched after a SIGKILL). */
	if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr))
		ids->running[ids->running_count++] = job_ptr->job_id;
	else if (IS_JOB_PENDING(job_ptr))
		ids->pending[ids->pending_count++] = job_ptr->job_id;
	return 0;
}

/*
 * A job Slurm recovered as running that holds no reservation: Slurm's state file may be older
 * than the ledger (SIGKILL between two state saves), so Slurm believes in a job that the
 * ledger already saw end. Until Slurm learns better, it holds nodes: hold its memory too,
 * so no blade is promised twice.
 */
static int _restore_missing(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	int *restored = arg;
	morpheus_request_t req;
	morpheus_error_t err;
	char *held;

	if (!(IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) || !job_ptr->node_bitmap ||
	    (glue_job_request(job_ptr, bit_set_count(job_ptr->node_bitmap), &req, &err) != 1))
		return 0;
	if ((held = morpheus_job_summary(glue_engine, job_ptr->job_id))) {
		free(held);
		return 0;
	}
	if (glue_reserve_locked(job_ptr, &req, &err) < 0)
		error("select/morpheus: %pJ recovered running without a reservation, and none fits: %s",
		      job_ptr, err.message);
	else {
		info("select/morpheus: %pJ recovered running without a reservation: memory reserved again",
		     job_ptr);
		(*restored)++;
	}
	return 0;
}

static void _restore_running_locked(struct xlist *jobs)
{
	int restored = 0;

	list_for_each(jobs, _restore_missing, &restored);
	if (restored)
		info("select/morpheus: %d jobs recovered running without a reservation", restored);
}

/* Whether slurmctld has recovered its jobs (job_list and its hash exist): before that, a
 * thread of ours may not look jobs up. glue_lock held. */
extern bool glue_jobs_recovered_locked(void)
{
	return jobs_recovered_once && &job_list && job_list;
}

/* job_test, with slurmctld's job lock and glue_lock held. */
extern void glue_restore_running_if_due_locked(void)
{
	if (glue_engine && restore_due && &job_list && job_list) {
		/* The first scheduling pass after startup: node bitmaps exist now (22.05 builds
		 * them after select_g_job_init), and no new job gets memory before the running
		 * ones have theirs back. */
		restore_due = false;
		glue_refresh_node_map_locked();
		_restore_running_locked(job_list);
	}
}

extern void placement_jobs_recovered(struct xlist *jobs)
{
	struct recovered_ids ids = { NULL, NULL, 0, 0 };
	morpheus_error_t err;
	int n;

	slurm_mutex_lock(&glue_lock);
	if (!glue_configured)
		goto fini;
	if (!jobs_recovered_once)
		jobs_recovered_once = true; /* startup: the engine was opened in init() */
	else
		glue_reconfigure_locked();
	if (!glue_engine || !jobs)
		goto fini;

	ids.running = xcalloc(list_count(jobs) + 1, sizeof(uint64_t));
	ids.pending = xcalloc(list_count(jobs) + 1, sizeof(uint64_t));
	list_for_each(jobs, _append_recovered, &ids);
	if ((n = morpheus_reconcile(glue_engine, ids.running, ids.running_count, ids.pending,
				    ids.pending_count, &err)) < 0)
		error("select/morpheus: reconcile with running jobs failed: %s", err.message);
	else if (n > 0)
		info("select/morpheus: released %d reservations of jobs that are no longer running",
		     n);
	else
		debug("select/morpheus: ledger agrees with the %zu running jobs",
		      ids.running_count);
	/* Jobs without a node bitmap yet (22.05 builds them after this call) are repaired by
	 * the first job_test; those with one now. */
	_restore_running_locked(jobs);
	restore_due = true;
fini:
	slurm_mutex_unlock(&glue_lock);
	glue_retire_status_service(); /* the new one starts on the watcher's next pass */
	xfree(ids.running);
	xfree(ids.pending);
}
