/*
 * morpheus_inventory_watcher.c - the slurmctld thread that re-reads the inventory, keeps the
 * status service up, applies BladeFailurePolicy to jobs on a failed blade, and begins the
 * moves of hot memory into jobs' bounds (issue 27; the nodes migrate the pages and report
 * through the status service, `morpheus node agent`), and settles the live heat map (issue
 * 29), flagging jobs its latencies put beyond their bound (HeatMapBeyondBound).
 */
#include "config.h"

#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "morpheus_glue.h"

static char *inventory_error; /* last inventory refresh error, logged once */
static pthread_t watcher;     /* inventory watcher, see _watch_inventory */
static bool watcher_running, watcher_stop;
static pthread_cond_t watcher_cond = PTHREAD_COND_INITIALIZER;

/* The inventory (blade states, loads) changes without a reconfigure; the core looks at the
 * file's mtime at most every InventoryCheckInterval seconds. Called WITHOUT glue_lock: the
 * file is read and parsed meanwhile, and job_test must not wait for that. */
static void _refresh_inventory(morpheus_engine_t *e)
{
	morpheus_error_t err;
	int rc = morpheus_engine_refresh_inventory(e, (int64_t) time(NULL), &err);

	if (rc < 0) {
		char *why = glue_err_text(&err);
		slurm_mutex_lock(&glue_lock);
		if (xstrcmp(why, inventory_error))
			error("select/morpheus: inventory not re-read, keeping the last good one: %s",
			      why);
		xfree(inventory_error);
		inventory_error = why;
		slurm_mutex_unlock(&glue_lock);
	} else if (rc == 1) {
		info("select/morpheus: inventory changed, re-read");
		slurm_mutex_lock(&glue_lock);
		xfree(inventory_error);
		slurm_mutex_unlock(&glue_lock);
		/* Slurm sees no change of its own: without a nudge, jobs waiting for memory that
		 * just came back would wait for the next periodic pass (sched_interval). */
		if (queue_job_scheduler)
			queue_job_scheduler();
	}
}

/* Hot memory that moves closer: the moves that can begin now (MaxMoves at most under way)
 * reserve their targets in the ledger. Called WITHOUT glue_lock, like _refresh_inventory:
 * planning walks the ledger, and job_test must not wait for that. */
static void _start_moves(morpheus_engine_t *e)
{
	static char *last_error;
	morpheus_error_t err;
	int n = morpheus_engine_start_moves(e, (int64_t) time(NULL), &err);

	slurm_mutex_lock(&glue_lock);
	if (n < 0) {
		if (xstrcmp(last_error, err.message))
			error("select/morpheus: moves not begun: %s", err.message);
		xfree(last_error);
		last_error = xstrdup(err.message);
	} else {
		if (n > 0)
			info("select/morpheus: %d move(s) of hot memory into the jobs' bounds begun",
			     n);
		xfree(last_error);
	}
	slurm_mutex_unlock(&glue_lock);
}

/* Publishes again the placement of jobs a move changed (begun, finished, given up), so
 * SystemComment and the environment say where their hot memory is. Called without glue_lock:
 * slurmctld's job lock comes first, then glue_lock, as in job_test. */
static void _publish_moved(const uint64_t *ids, size_t count)
{
	slurmctld_lock_t job_write_lock = { NO_LOCK, WRITE_LOCK, NO_LOCK, NO_LOCK, NO_LOCK };

	if (!lock_slurmctld || !find_job_record)
		return;
	lock_slurmctld(job_write_lock);
	slurm_mutex_lock(&glue_lock);
	for (size_t i = 0; glue_engine && (i < count); i++) {
		job_record_t *job_ptr = find_job_record((uint32_t) ids[i]);
		if (job_ptr)
			glue_publish(job_ptr);
	}
	slurm_mutex_unlock(&glue_lock);
	unlock_slurmctld(job_write_lock);
	if (queue_job_scheduler)
		queue_job_scheduler(); /* a finished move freed memory */
}

/* Requeue / signal a job by id, as slurmctld itself would (uid 0). 25.05 dropped the by-id
 * calls (job_requeue, job_signal_id): there the layer sets MORPHEUS_JOB_CALLS_BY_RECORD. */
#if MORPHEUS_JOB_CALLS_BY_RECORD
static bool _have_job_calls(void)
{
	return job_requeue_internal && job_signal && find_job_record;
}

static int _requeue_job(uint32_t job_id)
{
	job_record_t *job_ptr = find_job_record(job_id);

	return job_ptr ? job_requeue_internal(0, job_ptr, false, 0) : ESLURM_INVALID_JOB_ID;
}

static int _signal_job(uint32_t job_id, uint16_t sig)
{
	job_record_t *job_ptr = find_job_record(job_id);

	return job_ptr ? job_signal(job_ptr, sig, KILL_FULL_JOB, 0, false) : ESLURM_INVALID_JOB_ID;
}
#else
static bool _have_job_calls(void)
{
	return job_requeue && job_signal_id;
}

static int _requeue_job(uint32_t job_id)
{
	return job_requeue(0, job_id, NULL, false, 0);
}

static int _signal_job(uint32_t job_id, uint16_t sig)
{
	return job_signal_id(job_id, sig, KILL_FULL_JOB, 0, false);
}
#endif

/*
 * BladeFailurePolicy for jobs that came onto a failed blade: requeue them, or SIGUSR1 and let
 * them run, or only log. Called without glue_lock: requeue ends in job_fini, which takes it,
 * and slurmctld's job lock must come first (job_test holds it, then takes glue_lock).
 */
static void _apply_policy(const char *policy, const uint64_t *ids, size_t count, const char *why,
			  const char *key, const char *shown)
{
	slurmctld_lock_t job_write_lock = { NO_LOCK, WRITE_LOCK, WRITE_LOCK, NO_LOCK, READ_LOCK };

	if (!lock_slurmctld || !_have_job_calls())
		return;
	lock_slurmctld(job_write_lock);
	for (size_t i = 0; i < count; i++) {
		uint32_t job_id = (uint32_t) ids[i];
		int rc = SLURM_SUCCESS;

		if (!xstrcmp(policy, "requeue"))
			rc = _requeue_job(job_id);
		else if (!xstrcmp(policy, "signal"))
			rc = _signal_job(job_id, SIGUSR1);
		info("select/morpheus: JobId=%u %s: %s=%s%s%s", job_id, why, key, shown,
		     rc == SLURM_SUCCESS ? "" : " failed: ",
		     rc == SLURM_SUCCESS ? "" : slurm_strerror(rc));
		/* A job that may not be requeued (--no-requeue, JobRequeue=0) must still hear of
		 * it: the signal policy is the next best. */
		if ((rc != SLURM_SUCCESS) && !xstrcmp(policy, "requeue")) {
			rc = _signal_job(job_id, SIGUSR1);
			info("select/morpheus: JobId=%u cannot be requeued: signalled (SIGUSR1) instead%s%s",
			     job_id, rc == SLURM_SUCCESS ? "" : ", which failed: ",
			     rc == SLURM_SUCCESS ? "" : slurm_strerror(rc));
		}
	}
	unlock_slurmctld(job_write_lock);
}

/*
 * The live heat map (issue 29): a settle round every HeatMapSettleInterval (the core keeps
 * time); when the latencies placement uses changed, the engine's epoch moved, so every kept
 * decision of a pending job is stale (morpheus_decision_cache.c) and a scheduling pass decides
 * them again now rather than at the next periodic one. Called WITHOUT glue_lock: the new model
 * is built meanwhile.
 */
static void _settle_heat_map(morpheus_engine_t *e)
{
	static char *last_error;
	morpheus_error_t err;
	int rc = morpheus_heat_map_settle_due(e, (int64_t) time(NULL), &err);

	slurm_mutex_lock(&glue_lock);
	if (rc < 0) {
		if (xstrcmp(last_error, err.message))
			error("select/morpheus: heat map not settled: %s", err.message);
		xfree(last_error);
		last_error = xstrdup(err.message);
	} else {
		xfree(last_error);
	}
	slurm_mutex_unlock(&glue_lock);
	if (rc == 1) {
		info("select/morpheus: heat map: the measured latencies placement uses changed");
		if (queue_job_scheduler)
			queue_job_scheduler();
	}
}

/*
 * Slurm's NodeAddr and NodeHostname of every node, for the rule that a node reports latencies
 * only for itself (the munge credential's encoding address must be the node's). Pushed when
 * slurmctld's node table changed (last_node_update) and every few seconds, as `scontrol update
 * NodeAddr=` does not move last_node_update (22.05); copied under the node read lock and
 * resolved by the core after it is released (only names that changed). Called without
 * glue_lock (slurmctld's first).
 */
#define NODE_ADDRESS_PUSH_SECONDS 5
static void _push_node_addresses(morpheus_engine_t *e)
{
	static time_t pushed, pushed_at;
	time_t now = time(NULL);
	slurmctld_lock_t node_read_lock = { NO_LOCK, NO_LOCK, READ_LOCK, NO_LOCK, NO_LOCK };
	node_record_t *node_ptr;
	char **names, **addrs, **hosts;
	size_t n = 0, cap;
	morpheus_error_t err;

	if (!lock_slurmctld || !&last_node_update ||
	    ((pushed == last_node_update) && (now - pushed_at < NODE_ADDRESS_PUSH_SECONDS)))
		return;
	lock_slurmctld(node_read_lock);
	pushed = last_node_update;
	pushed_at = now;
	cap = MAX(node_record_count, 1);
	names = xcalloc(cap, sizeof(char *));
	addrs = xcalloc(cap, sizeof(char *));
	hosts = xcalloc(cap, sizeof(char *));
	for (int i = 0; (node_ptr = next_node(&i)) && (n < cap); i++) {
		names[n] = xstrdup(node_ptr->name);
		addrs[n] = xstrdup(node_ptr->comm_name);
		hosts[n] = xstrdup(node_ptr->node_hostname);
		n++;
	}
	unlock_slurmctld(node_read_lock);
	if (morpheus_set_node_addresses(e, (const char *const *) names,
					(const char *const *) addrs,
					(const char *const *) hosts, n, &err) < 0)
		error("select/morpheus: node addresses not taken: %s", err.message);
	for (size_t i = 0; i < n; i++) {
		xfree(names[i]);
		xfree(addrs[i]);
		xfree(hosts[i]);
	}
	xfree(names);
	xfree(addrs);
	xfree(hosts);
}

/*
 * Every few seconds, with slurmctld's job lock then glue_lock (as job_test takes them):
 *
 * The ledger follows the jobs. A reservation whose job is not running any more and never
 * reached job_fini is released: a region kept for a requeued job that was cancelled while
 * pending (no job_fini comes), a job Slurm relaunched after a SIGKILL and recovered as pending,
 * a job select_nodes() left pending after job_begin. Only a requeued job's checkpoint region
 * stays with a pending job (the core's reconcile keeps it). The cost is the reservations'
 * number, never the queue's.
 *
 * Checkpoint regions (issue 28): a job whose region has a copy on a failed blade gets its
 * placement published again (SystemComment: its copies left, or CKPT-LOST) and the admin one
 * log line per change. The job is told at its next start (MORPHEUS_CKPT_RESTORE, _LOST).
 */
static void _reservation_upkeep(void)
{
	slurmctld_lock_t job_write_lock = { NO_LOCK, WRITE_LOCK, NO_LOCK, NO_LOCK, NO_LOCK };
	static time_t last;
	static char *logged; /* "id summary\n" of the degraded regions logged last pass */
	char *now_logged = NULL;
	uint64_t *ids, *running, *pending;
	size_t n, degraded, running_count = 0, pending_count = 0;
	morpheus_error_t err;
	time_t now = time(NULL);
	int released;

	if (!lock_slurmctld || !find_job_record || (now - last < 5))
		return;
	last = now;
	lock_slurmctld(job_write_lock);
	slurm_mutex_lock(&glue_lock);
	/* Before slurmctld recovered its jobs find_job_record() has no table to look in. */
	if (!glue_engine || !glue_jobs_recovered_locked())
		goto fini;
	n = morpheus_reserved_jobs(glue_engine, NULL, 0);
	ids = xcalloc(n + 1, sizeof(uint64_t));
	running = xcalloc(n + 1, sizeof(uint64_t));
	pending = xcalloc(n + 1, sizeof(uint64_t));
	n = MIN(n, morpheus_reserved_jobs(glue_engine, ids, n));
	for (size_t i = 0; i < n; i++) {
		job_record_t *job_ptr = find_job_record((uint32_t) ids[i]);

		if (job_ptr && (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)))
			running[running_count++] = ids[i];
		else if (job_ptr && IS_JOB_PENDING(job_ptr))
			pending[pending_count++] = ids[i];
		else if (job_ptr && IS_JOB_COMPLETING(job_ptr))
			running[running_count++] = ids[i]; /* its job_fini is under way */
		else
			info("select/morpheus: JobId=%" PRIu64 " %s: releasing its reservation",
			     ids[i], job_ptr ? "ended while not running" : "is gone");
	}
	if (n > running_count) {
		int gone = (int) (n - running_count - pending_count);

		released = morpheus_reconcile(glue_engine, running, running_count, pending,
					      pending_count, &err);
		if (released < 0)
			error("select/morpheus: releasing the reservations of jobs not running failed: %s",
			      err.message);
		else if (released > gone)
			info("select/morpheus: released the reservations of %d pending jobs (only a requeued job's checkpoint region waits with its job)",
			     released - gone);
	}
	xfree(running);
	xfree(pending);
	degraded = MIN(n, morpheus_jobs_checkpoint_degraded(glue_engine, ids, n));
	for (size_t i = 0; i < degraded; i++) {
		job_record_t *job_ptr = find_job_record((uint32_t) ids[i]);
		char *summary = morpheus_job_summary(glue_engine, ids[i]);
		char *line;

		if (!summary)
			continue;
		line = xstrdup_printf("%" PRIu64 " %s\n", ids[i], summary);
		if (!logged || !strstr(logged, line)) {
			error("select/morpheus: JobId=%" PRIu64 " has its checkpoint region on a failed blade (%s): %s",
			      ids[i], strstr(summary, "CKPT-LOST") ? "no intact copy: nothing to restore" :
				      "restorable from a replica", summary);
			if (job_ptr)
				glue_publish(job_ptr);
		}
		xstrcat(now_logged, line);
		xfree(line);
		free(summary);
	}
	xfree(logged);
	logged = now_logged;
	xfree(ids);
fini:
	slurm_mutex_unlock(&glue_lock);
	unlock_slurmctld(job_write_lock);
}

/*
 * A blade failing or coming back is an inventory edit Slurm knows nothing about, and a job
 * pending on Morpheus memory is only re-tested when Slurm schedules: so slurmctld gets this
 * one thread, which looks at the inventory once a second (the core throttles to
 * InventoryCheckInterval) and asks for a scheduling pass when it changed. It takes no
 * slurmctld lock, only glue_lock (job_test takes slurmctld's locks, then glue_lock).
 */
/* Releases that could not be saved (a full disk at job end) are retried here, once a second,
 * until they succeed: nothing reserved outlives its job. The failure is logged once per
 * distinct error; `morpheus jobs` shows the job as releasing, /metrics counts it. */
static void _retry_releases_locked(morpheus_engine_t *e)
{
	static char *last_error;
	morpheus_error_t err;
	int n = morpheus_retry_releases(e, &err);

	if (n < 0) {
		if (xstrcmp(last_error, err.message))
			error("select/morpheus: release still not saved, retried every second: %s",
			      err.message);
		xfree(last_error);
		last_error = xstrdup(err.message);
	} else if (n > 0) {
		info("select/morpheus: %d release(s) saved on retry", n);
		xfree(last_error);
		if (queue_job_scheduler)
			queue_job_scheduler(); /* the memory is free for pending jobs now */
	}
}

static void *_watch_inventory(void *arg)
{
	struct timespec until;
	uint64_t affected[256], moved[256], beyond[256];
	size_t count, moved_count, beyond_count;
	char policy[16], beyond_policy[16];

	slurm_mutex_lock(&glue_lock);
	while (!watcher_stop) {
		count = moved_count = beyond_count = 0;
		if (glue_engine) {
			/* alive until we are joined: see morpheus_glue.h */
			morpheus_engine_t *e = glue_engine;
			morpheus_error_t err;
			if (morpheus_engine_sync(e, &err) < 0)
				error("select/morpheus: ledger fsync: %s", err.message);
			slurm_mutex_unlock(&glue_lock);
			_refresh_inventory(e);
			_start_moves(e);
			_push_node_addresses(e);
			_settle_heat_map(e);
			slurm_mutex_lock(&glue_lock);
			if (watcher_stop)
				break;
			glue_status_service_locked();
			if (glue_status_service_retired_locked()) {
				slurm_mutex_unlock(&glue_lock);
				glue_retire_status_service();
				slurm_mutex_lock(&glue_lock);
				if (glue_engine)
					glue_status_service_locked(); /* the port is free now */
			}
			_retry_releases_locked(glue_engine);
			count = morpheus_jobs_newly_affected(glue_engine, affected, 256);
			moved_count = morpheus_engine_take_moved(glue_engine, moved, 256);
			strlcpy(policy, morpheus_engine_failure_policy(glue_engine),
				sizeof(policy));
			beyond_count = morpheus_jobs_newly_beyond_bound(glue_engine, beyond, 256);
			strlcpy(beyond_policy, morpheus_engine_beyond_bound_policy(glue_engine),
				sizeof(beyond_policy));
		}
		if (beyond_count) {
			/* notify: SIGUSR1, as BladeFailurePolicy=signal; requeue: where the job
			 * allows it, else signalled; none: flagged in the views and logged only. */
			const char *how = !xstrcmp(beyond_policy, "notify") ? "signal" : beyond_policy;
			slurm_mutex_unlock(&glue_lock);
			_apply_policy(how, beyond, beyond_count,
				      "hot memory beyond its bound by the live heat map",
				      "HeatMapBeyondBound", beyond_policy);
			slurm_mutex_lock(&glue_lock);
		}
		if (moved_count) {
			slurm_mutex_unlock(&glue_lock);
			_publish_moved(moved, moved_count);
			slurm_mutex_lock(&glue_lock);
		}
		if (glue_engine && !watcher_stop) {
			slurm_mutex_unlock(&glue_lock);
			_reservation_upkeep();
			slurm_mutex_lock(&glue_lock);
		}
		if (count) {
			slurm_mutex_unlock(&glue_lock);
			_apply_policy(policy, affected, count, "holds memory on a failed blade",
				      "BladeFailurePolicy", policy);
			slurm_mutex_lock(&glue_lock);
			continue; /* more may be waiting (over 256) */
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&watcher_cond, &glue_lock, &until);
	}
	slurm_mutex_unlock(&glue_lock);
	return NULL;
}

/* placement_open(), with glue_lock held. */
extern void glue_watcher_start_locked(void)
{
	watcher_stop = false;
	watcher_running = !pthread_create(&watcher, NULL, _watch_inventory, NULL);
	if (!watcher_running)
		error("select/morpheus: no inventory watcher thread: %m");
}

/* placement_close(), without glue_lock: the watcher takes it until it is joined. */
extern void glue_watcher_stop(void)
{
	if (watcher_running) {
		slurm_mutex_lock(&glue_lock);
		watcher_stop = true;
		pthread_cond_signal(&watcher_cond);
		slurm_mutex_unlock(&glue_lock);
		pthread_join(watcher, NULL);
		watcher_running = false;
	}
	xfree(inventory_error); /* only the watcher sets it, and it is joined */
}
