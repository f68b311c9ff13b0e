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

struct running_ids {
	uint64_t *ids;
	size_t count;
};

static int _append_running(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	struct running_ids *running = arg;

	/* Running and suspended jobs hold memory; a completing one was released in job_fini. */
	if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr))
		running->ids[running->count++] = job_ptr->job_id;
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
	struct running_ids running = { NULL, 0 };
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

	running.ids = xcalloc(list_count(jobs) + 1, sizeof(uint64_t));
	list_for_each(jobs, _append_running, &running);
	if ((n = morpheus_reconcile(glue_engine, running.ids, running.count, &err)) < 0)
		error("select/morpheus: reconcile with running jobs failed: %s", err.message);
	else if (n > 0)
		info("select/morpheus: released %d reservations of jobs that are no longer running",
		     n);
	else
		debug("select/morpheus: ledger agrees with the %zu running jobs", running.count);
	/* Jobs without a node bitmap yet (22.05 builds them after this call) are repaired by
	 * the first job_test; those with one now. */
	_restore_running_locked(jobs);
	restore_due = true;
fini:
	slurm_mutex_unlock(&glue_lock);
	glue_retire_status_service(); /* the new one starts on the watcher's next pass */
	xfree(running.ids);
}
