/*
 * morpheus_placement.c - translates between slurmctld's job and node records and the Morpheus
 * core (include/morpheus/morpheus.h). No placement logic lives here: the core ranks, reserves
 * and explains; this file maps node indexes, narrows bitmaps and writes results back into the
 * job record where Slurm shows them. Release-independent (see morpheus_placement.h): cons_tres's
 * job_test sits behind a callback and the pending-reason code comes from the layer's
 * morpheus_slurm_layer.h.
 *
 * Where results go, and why there (checked in the 22.05 and 24.11 sources):
 *   - the decision: job_ptr->system_comment ("slurmctld's arbitrary comment"), shown by
 *     scontrol show job (SystemComment=), squeue -O SystemComment and sacct; admin_comment
 *     belongs to admins and is overwritten by scontrol update.
 *   - the environment: job_ptr->details->env_sup, which slurmctld appends to a batch script's
 *     environment (get_job_env) and sends in the allocation response that srun and salloc
 *     export (build_alloc_msg); tasks of srun inherit it. spank_job_env would only reach
 *     Prolog/Epilog.
 *   - "nothing fits now": state_desc "Morpheus: <reason>" with state_reason
 *     MORPHEUS_PENDING_REASON; squeue and scontrol print state_desc when it is set.
 *     22.05: WAIT_BLOCK_D_ACTION, the one pending reason that select_nodes() leaves alone
 *     after a failed job_test. 24.11 has no such code (select_nodes() sets WAIT_RESOURCES
 *     and frees state_desc after any failed job_test), but sched/backfill keeps a reason
 *     set during its will-run test: the layer sets MORPHEUS_REASON_IN_WILL_RUN, and the
 *     reason is re-asserted by every backfill pass (bf_interval).
 */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/hostlist.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "morpheus/morpheus.h"
#include "morpheus_job_env.h"
#include "morpheus_placement.h"
#include "morpheus_slurm_layer.h"

/* slurmctld's, absent in client commands that load this plugin: referenced weakly and only
 * touched when the engine is open, which only happens in slurmctld. */
#pragma weak last_job_update
#pragma weak queue_job_scheduler
#pragma weak lock_slurmctld
#pragma weak unlock_slurmctld
#if MORPHEUS_JOB_CALLS_BY_RECORD
#pragma weak job_requeue_internal
#pragma weak job_signal
#else
#pragma weak job_requeue
#pragma weak job_signal_id
#endif
#pragma weak job_list
#pragma weak find_job_record

#define MORPHEUS_REASON_PREFIX "Morpheus:"
#ifndef MORPHEUS_PENDING_REASON
#error "morpheus_slurm_layer.h must define MORPHEUS_PENDING_REASON"
#endif
#ifndef MORPHEUS_REASON_IN_WILL_RUN
#define MORPHEUS_REASON_IN_WILL_RUN 0
#endif
#ifndef MORPHEUS_JOB_CALLS_BY_RECORD
#define MORPHEUS_JOB_CALLS_BY_RECORD 0
#endif

/* Whether a refusal in this job_test mode becomes the job's visible pending reason. */
static bool _reason_mode(uint16_t mode)
{
	return (mode == SELECT_MODE_RUN_NOW) ||
	       (MORPHEUS_REASON_IN_WILL_RUN && (mode == SELECT_MODE_WILL_RUN));
}

static pthread_mutex_t glue_lock = PTHREAD_MUTEX_INITIALIZER;
static bool configured;		   /* SelectType=select/morpheus in slurmctld */
static morpheus_engine_t *engine;  /* NULL: not configured, or open failed */
static char *open_error;	   /* why engine is NULL when configured */
static bool jobs_recovered_once;   /* the first job_init is startup, later ones reconfigure */
static bool restore_due;	   /* repair running jobs once their node bitmaps exist */
static time_t decisions_checked;   /* last sweep of pending decisions, see _forget_gone_jobs */
static int status_port;		   /* the status service's port, 0: not running */
static int status_failed_port;	   /* last port that could not be bound (logged once) */
static char *status_conf_address;  /* StatusAddress the service started with ("": default) */
static unsigned status_flags;	   /* MORPHEUS_STATUS_* the service started with */
static morpheus_status_service_t *retired_status; /* joined outside glue_lock, see below */
static char *inventory_error;	   /* last inventory refresh error, logged once */
static pthread_t watcher;	   /* inventory watcher, see _watch_inventory */
static bool watcher_running, watcher_stop;
static pthread_cond_t watcher_cond = PTHREAD_COND_INITIALIZER;

/* Slurm node index -> fabric node index (-1: not in the fabric). */
static int *fabric_of;
static int fabric_of_cnt;
static uint64_t fabric_of_generation;
static bool nodes_changed = true;

static void _touch_jobs(void)
{
	if (&last_job_update)
		last_job_update = time(NULL);
}

/* One line for logs and users: the core's message is complete ("fix included"); the file is
 * added when the message does not name it. */
static char *_err_text(const morpheus_error_t *err)
{
	if (err->file[0] && !strstr(err->message, err->file))
		return xstrdup_printf("%s: %s", err->file, err->message);
	return xstrdup(err->message[0] ? err->message : "unknown error");
}

static unsigned _status_flags(void)
{
	return (slurm_conf.private_data & PRIVATE_DATA_JOBS) ? MORPHEUS_STATUS_PRIVATE_JOBS : 0;
}

/*
 * StatusPort and StatusAddress of morpheus.conf, PrivateData of slurm.conf: the status service
 * is (re)started when they change; root and SlurmUser are privileged. A running service is
 * only detached here, never joined: job_test waits for glue_lock, so the caller joins it with
 * _retire_status_service() after unlocking, and the next call starts the new one.
 */
static void _status_service_locked(void)
{
	int port = morpheus_engine_status_port(engine);
	char *address_copy = morpheus_engine_status_address(engine);
	char conf_address[256];
	unsigned flags = _status_flags();
	uint32_t privileged = slurm_conf.slurm_user_id;
	morpheus_error_t err;
	int rc = -1, tries;

	/* A copy the size of an address: a reload (outside glue_lock) may replace the config. */
	snprintf(conf_address, sizeof(conf_address), "%s", address_copy ? address_copy : "");
	free(address_copy);
	if (retired_status)
		return; /* the old one still holds the port until it is joined */
	if ((port == status_port) && (!status_port || ((flags == status_flags) &&
	    !xstrcmp(conf_address, status_conf_address))))
		return;
	if (status_port) {
		retired_status = morpheus_status_service_detach(engine);
		status_port = 0;
		return;
	}
	if (port <= 0)
		return;
	/* By default on slurmctld's own address, never on all: try each SlurmctldHost's, as this
	 * slurmctld may be a backup. Retried every second by the watcher: a port can be held for
	 * a moment by the slurmctld this one replaces (24.11 reconfigure, a quick restart). */
	tries = (conf_address[0] || !slurm_conf.control_addr || (slurm_conf.control_cnt < 1)) ?
		1 : slurm_conf.control_cnt;
	for (int i = 0; (rc < 0) && (i < tries); i++)
		rc = morpheus_status_service_start_ex(
			engine, port,
			(slurm_conf.control_addr && (i < slurm_conf.control_cnt)) ?
				slurm_conf.control_addr[i] : NULL,
			&privileged, 1, flags, &err);
	if (rc < 0) {
		char *why = _err_text(&err);
		if (port != status_failed_port)
			error("select/morpheus: status service on port %d not started (retried every second): %s",
			      port, why);
		status_failed_port = port;
		xfree(why);
		return;
	}
	status_port = port;
	status_failed_port = 0;
	status_flags = flags;
	xfree(status_conf_address);
	status_conf_address = xstrdup(conf_address);
	info("select/morpheus: status service listening on %s port %d%s",
	     morpheus_status_service_address(engine), port,
	     (flags & MORPHEUS_STATUS_PRIVATE_JOBS) ? ", PrivateData=jobs" : "");
}

/* Stops and joins the service _status_service_locked() detached. Called without glue_lock. */
static void _retire_status_service(void)
{
	morpheus_status_service_t *s;

	slurm_mutex_lock(&glue_lock);
	s = retired_status;
	retired_status = NULL;
	slurm_mutex_unlock(&glue_lock);
	morpheus_status_service_destroy(&s);
}

/*
 * The engine pointer outlives every call made without glue_lock: `engine` is only set in
 * _open_locked() (from NULL: at init, or on a reconfigure after a failed open) and only freed
 * in placement_close(), which joins the watcher first, and which slurmctld never runs beside
 * a reconfigure (job_init). So a non-NULL `engine` read under glue_lock stays valid while the
 * watcher or placement_jobs_recovered() use it unlocked; the core serialises reload and
 * inventory refresh between the two, and locks its own state.
 * job_test may hold glue_lock while a reload runs unlocked, yet never sees the fabric change
 * between its node map and its plan: reloads run only in job_init (reconfigure), under
 * slurmctld's job and node write locks, which job_test needs too; an inventory refresh keeps
 * the fabric (and the generation).
 */

/* The inventory (blade states, loads) changes without a reconfigure; the core looks at the
 * file's mtime at most every InventoryCheckInterval seconds. Called WITHOUT glue_lock: the
 * file is read and parsed meanwhile, and job_test must not wait for that. */
static void _refresh_inventory(morpheus_engine_t *e)
{
	morpheus_error_t err;
	int rc = morpheus_engine_refresh_inventory(e, (int64_t) time(NULL), &err);

	if (rc < 0) {
		char *why = _err_text(&err);
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

/*
 * A blade failing or coming back is an inventory edit Slurm knows nothing about, and a job
 * pending on Morpheus memory is only re-tested when Slurm schedules: so slurmctld gets this
 * one thread, which looks at the inventory once a second (the core throttles to
 * InventoryCheckInterval) and asks for a scheduling pass when it changed. It takes no
 * slurmctld lock, only glue_lock (job_test takes slurmctld's locks, then glue_lock).
 */
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
static void _apply_failure_policy(const char *policy, const uint64_t *ids, size_t count)
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
		info("select/morpheus: JobId=%u holds memory on a failed blade: BladeFailurePolicy=%s%s%s",
		     job_id, policy, rc == SLURM_SUCCESS ? "" : " failed: ",
		     rc == SLURM_SUCCESS ? "" : slurm_strerror(rc));
		/* A job that may not be requeued (--no-requeue, JobRequeue=0) must still hear of
		 * the failure: the signal policy is the next best. */
		if ((rc != SLURM_SUCCESS) && !xstrcmp(policy, "requeue")) {
			rc = _signal_job(job_id, SIGUSR1);
			info("select/morpheus: JobId=%u cannot be requeued: signalled (SIGUSR1) instead%s%s",
			     job_id, rc == SLURM_SUCCESS ? "" : ", which failed: ",
			     rc == SLURM_SUCCESS ? "" : slurm_strerror(rc));
		}
	}
	unlock_slurmctld(job_write_lock);
}

static void *_watch_inventory(void *arg)
{
	struct timespec until;
	uint64_t affected[256];
	size_t count;
	char policy[16];

	slurm_mutex_lock(&glue_lock);
	while (!watcher_stop) {
		count = 0;
		if (engine) {
			morpheus_engine_t *e = engine; /* alive until we are joined: see above */
			morpheus_error_t err;
			if (morpheus_engine_sync(e, &err) < 0)
				error("select/morpheus: ledger fsync: %s", err.message);
			slurm_mutex_unlock(&glue_lock);
			_refresh_inventory(e);
			slurm_mutex_lock(&glue_lock);
			if (watcher_stop)
				break;
			_status_service_locked();
			if (retired_status) {
				slurm_mutex_unlock(&glue_lock);
				_retire_status_service();
				slurm_mutex_lock(&glue_lock);
				if (engine)
					_status_service_locked(); /* the port is free now */
			}
			count = morpheus_jobs_newly_affected(engine, affected, 256);
			strlcpy(policy, morpheus_engine_failure_policy(engine), sizeof(policy));
		}
		if (count) {
			slurm_mutex_unlock(&glue_lock);
			_apply_failure_policy(policy, affected, count);
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

static void _open_locked(void)
{
	char *conf = get_extra_conf_path("morpheus.conf");
	char *state = xstrdup_printf("%s/morpheus_ledger.json", slurm_conf.state_save_location);
	morpheus_error_t err;

	xfree(open_error);
	engine = morpheus_engine_open(conf, state, &err);
	if (engine) {
		char *ledger = morpheus_engine_state_file(engine);
		info("select/morpheus: engine open: %s, %zu fabric nodes, ledger %s", conf,
		     morpheus_node_count(engine), ledger ? ledger : "?");
		free(ledger);
		_status_service_locked();
	} else {
		open_error = _err_text(&err);
		error("select/morpheus: cannot open the engine, jobs asking for Morpheus memory stay pending until scontrol reconfigure succeeds: %s",
		      open_error);
	}
	nodes_changed = true;
	xfree(conf);
	xfree(state);
}

extern void placement_open(void)
{
	slurm_mutex_lock(&glue_lock);
	configured = true;
	_open_locked();
	watcher_stop = false;
	watcher_running = !pthread_create(&watcher, NULL, _watch_inventory, NULL);
	if (!watcher_running)
		error("select/morpheus: no inventory watcher thread: %m");
	slurm_mutex_unlock(&glue_lock);
}

extern void placement_close(void)
{
	if (watcher_running) {
		slurm_mutex_lock(&glue_lock);
		watcher_stop = true;
		pthread_cond_signal(&watcher_cond);
		slurm_mutex_unlock(&glue_lock);
		pthread_join(watcher, NULL);
		watcher_running = false;
	}
	/* The service answers through the engine: joined (outside glue_lock) before it closes. */
	slurm_mutex_lock(&glue_lock);
	if (engine && status_port && !retired_status)
		retired_status = morpheus_status_service_detach(engine);
	status_port = 0;
	slurm_mutex_unlock(&glue_lock);
	_retire_status_service();
	slurm_mutex_lock(&glue_lock);
	morpheus_engine_close(&engine);
	xfree(status_conf_address);
	xfree(open_error);
	xfree(inventory_error);
	xfree(fabric_of);
	fabric_of_cnt = 0;
	configured = false;
	slurm_mutex_unlock(&glue_lock);
}

extern bool placement_active(void)
{
	return engine != NULL;
}

extern const char *placement_open_error(void)
{
	return open_error;
}

extern void placement_nodes_changed(void)
{
	slurm_mutex_lock(&glue_lock);
	nodes_changed = true;
	slurm_mutex_unlock(&glue_lock);
}

static void _refresh_node_map_locked(void)
{
	uint64_t gen = morpheus_engine_generation(engine);
	node_record_t *node_ptr;
	int mapped = 0;

	if (!nodes_changed && fabric_of && (fabric_of_cnt == node_record_count) &&
	    (gen == fabric_of_generation))
		return;

	xfree(fabric_of);
	fabric_of_cnt = node_record_count;
	fabric_of = xcalloc(MAX(fabric_of_cnt, 1), sizeof(int));
	for (int i = 0; i < fabric_of_cnt; i++)
		fabric_of[i] = -1;
	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		if ((fabric_of[i] = morpheus_node_index(engine, node_ptr->name)) >= 0)
			mapped++;
	}
	fabric_of_generation = gen;
	nodes_changed = false;
	verbose("select/morpheus: %d of %d Slurm nodes are in the fabric (%zu fabric nodes)",
		mapped, fabric_of_cnt, morpheus_node_count(engine));
}

static int _fabric_index(int slurm_index)
{
	return (slurm_index < fabric_of_cnt) ? fabric_of[slurm_index] : -1;
}

/* 1 Morpheus job (req filled), 0 not one, -1 malformed request (err filled). */
static int _job_request(job_record_t *job_ptr, uint32_t nodes, morpheus_request_t *req,
			morpheus_error_t *err)
{
	memset(req, 0, sizeof(*req));
	req->job_id = job_ptr->job_id;
	req->uid = job_ptr->user_id;
	req->nodes = nodes ? nodes : 1;
	return morpheus_request_from_env(job_ptr->spank_job_env, job_ptr->spank_job_env_size, req,
					 err);
}

static bool _has_own_reason(job_record_t *job_ptr)
{
	return (job_ptr->state_reason == MORPHEUS_PENDING_REASON) &&
	       !xstrncmp(job_ptr->state_desc, MORPHEUS_REASON_PREFIX,
			 strlen(MORPHEUS_REASON_PREFIX));
}

/* A reason set by an earlier pass must not outlive its cause (Slurm keeps our reason code):
 * cleared when this pass was not refused by Morpheus, so Slurm's own reason shows instead. */
static void _clear_reason(job_record_t *job_ptr)
{
	if (!_has_own_reason(job_ptr))
		return;
	job_ptr->state_reason = WAIT_NO_REASON;
	xfree(job_ptr->state_desc);
	_touch_jobs();
}

static void _set_reason(job_record_t *job_ptr, const char *why)
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
	_touch_jobs();
}

#define NO_STEP ((size_t) -1)

/* narrowed = the nodes of bitmap that the plan's step k allows; false if fewer than
 * min_nodes remain. */
static bool _narrow_to_step(morpheus_plan_t *plan, size_t k, bitstr_t *bitmap,
			    bitstr_t *narrowed, uint8_t *allowed, uint32_t min_nodes)
{
	int nbits = bit_size(bitmap);

	morpheus_plan_step_nodes(plan, k, allowed);
	bit_copybits(narrowed, bitmap);
	for (int i = 0; i < nbits; i++) {
		int f;
		if (bit_test(narrowed, i) && (((f = _fabric_index(i)) < 0) || !allowed[f]))
			bit_clear(narrowed, i);
	}
	return bit_set_count(narrowed) >= min_nodes;
}

/* Running jobs' reservations end with them: their ends for morpheus_earliest_start(). A job
 * without a time limit, or suspended (its end moves when it resumes), is left out: the core
 * then holds its memory for ever. */
struct running_ends {
	uint64_t *ids;
	int64_t *ends;
	size_t count;
};

static int _append_running_end(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	struct running_ends *running = arg;

	if (!IS_JOB_RUNNING(job_ptr) || (job_ptr->time_limit == INFINITE) ||
	    (job_ptr->time_limit == NO_VAL) || !job_ptr->end_time)
		return 0;
	running->ids[running->count] = job_ptr->job_id;
	running->ends[running->count++] = (int64_t) job_ptr->end_time;
	return 0;
}

/*
 * WILL_RUN for a job refused only for blade memory: when will the memory be free (the core),
 * and when will cons_tres give it nodes of the pod the core chose? The later of the two. The
 * reason Morpheus set stays: the job still waits for memory, and RUN_NOW still refuses it
 * until the memory is back.
 */
/* Fills running from job_list (the caller holds the job lock); false without one. */
static bool _collect_running_ends(struct running_ends *running)
{
	int n;

	if (!&job_list || !job_list)
		return false;
	n = list_count(job_list);
	running->ids = xcalloc(n + 1, sizeof(uint64_t));
	running->ends = xcalloc(n + 1, sizeof(int64_t));
	running->count = 0;
	list_for_each(job_list, _append_running_end, running);
	return true;
}

/* The job's time limit in seconds, 0 when unlimited. */
static int64_t _duration(job_record_t *job_ptr)
{
	if ((job_ptr->time_limit == INFINITE) || (job_ptr->time_limit == NO_VAL))
		return 0;
	return (int64_t) job_ptr->time_limit * 60;
}

static time_t _submit_time(job_record_t *job_ptr)
{
	return job_ptr->details ? job_ptr->details->submit_time : 0;
}

/* PlanDepth: the plan WILL_RUN just made for the job is kept if it is among the highest
 * priorities, so RUN_NOW keeps lower-priority jobs off its memory (_delays_planned_job). */
static void _keep_plan(job_record_t *job_ptr, time_t now)
{
	if (morpheus_keep_plan(engine, job_ptr->job_id, job_ptr->priority, _submit_time(job_ptr),
			       (int64_t) job_ptr->start_time, (int64_t) now) == 1)
		log_flag(SELECT_TYPE, "select/morpheus: %pJ blade memory planned from %ld (priority %u)",
			 job_ptr, (long) job_ptr->start_time, job_ptr->priority);
}

static int _will_run_after_memory(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
				  placement_try_fn try_fn, void *try_arg,
				  const morpheus_request_t *req, const uint8_t *candidates,
				  uint8_t *pod_nodes)
{
	struct running_ends running = { NULL, NULL, 0 };
	morpheus_error_t err;
	time_t now = time(NULL);
	int64_t start = 0, duration = _duration(job_ptr); /* 0: unlimited */
	bitstr_t *narrowed = NULL;
	int rc = SLURM_ERROR, nbits = bit_size(bitmap);

	if (!_collect_running_ends(&running))
		return SLURM_ERROR;
	if (morpheus_earliest_start(engine, req, candidates, (int64_t) now, duration, running.ids,
				    running.ends, running.count, &start, pod_nodes, &err) < 0) {
		char *why = _err_text(&err);
		debug("select/morpheus: %pJ will not run: %s", job_ptr, why);
		xfree(why);
		goto fini;
	}
	narrowed = bit_copy(bitmap);
	for (int i = 0; i < nbits; i++) {
		int f;
		if (bit_test(narrowed, i) && (((f = _fabric_index(i)) < 0) || !pod_nodes[f]))
			bit_clear(narrowed, i);
	}
	if (bit_set_count(narrowed) < min_nodes)
		goto fini;
	if ((rc = try_fn(try_arg, narrowed)) != SLURM_SUCCESS) {
		debug("select/morpheus: %pJ fits blade memory at %ld, cons_tres refused the nodes",
		      job_ptr, (long) start);
		goto fini;
	}
	job_ptr->start_time = MAX(job_ptr->start_time, (time_t) start);
	bit_copybits(bitmap, narrowed);
	log_flag(SELECT_TYPE, "select/morpheus: %pJ will run at %ld, when its blade memory is free at %ld",
		 job_ptr, (long) job_ptr->start_time, (long) start);
	_keep_plan(job_ptr, now);

fini:
	FREE_NULL_BITMAP(narrowed);
	xfree(running.ids);
	xfree(running.ends);
	return rc;
}

/*
 * PlanDepth, RUN_NOW: would the job, on the nodes cons_tres chose, hold blade memory that a
 * planned job of higher priority waits for, past its planned start? Then *why says whose. A
 * core error (the memory does not fit these nodes) is not a delay: job_begin's reservation
 * judges that.
 */
static bool _delays_planned_job(job_record_t *job_ptr, bitstr_t *nodes,
				const morpheus_request_t *req, char **why)
{
	struct running_ends running = { NULL, NULL, 0 };
	morpheus_error_t err;
	uint32_t *fabric_nodes = xcalloc(MAX(bit_size(nodes), 1), sizeof(uint32_t));
	size_t count = 0;
	uint64_t victim = 0;
	int64_t victim_start = 0;
	time_t now = time(NULL);
	int rc = 0;

	/* No plan (the usual case): no walk over the job list for every job tested. */
	if (!morpheus_planned_jobs(engine, (int64_t) now, &victim, 1)) {
		xfree(fabric_nodes);
		return false;
	}
	for (int i = 0; i < bit_size(nodes); i++) {
		int f;
		if (bit_test(nodes, i) && ((f = _fabric_index(i)) >= 0))
			fabric_nodes[count++] = f;
	}
	if (count && _collect_running_ends(&running))
		rc = morpheus_delays_planned(engine, req, fabric_nodes, count, (int64_t) now,
					     _duration(job_ptr), job_ptr->priority,
					     _submit_time(job_ptr), running.ids, running.ends,
					     running.count, &victim, &victim_start, &err);
	if (rc < 0) {
		char *e = _err_text(&err);
		debug2("select/morpheus: %pJ delay check: %s", job_ptr, e);
		xfree(e);
	} else if (rc == 1) {
		char hms[16] = "";
		time_t t = (time_t) victim_start;
		struct tm tm;
		if (localtime_r(&t, &tm))
			strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
		xfree(*why);
		*why = xstrdup_printf("would delay job %" PRIu64 "'s blade memory (planned start %s)",
				      victim, hms);
	}
	xfree(fabric_nodes);
	xfree(running.ids);
	xfree(running.ends);
	return rc == 1;
}

/* Offers cons_tres the plan's node sets one at a time, best first. RUN_NOW takes the first
 * it accepts; WILL_RUN (backfill asks "when?") the one that starts soonest. */
static int _job_test_by_plan(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
			     uint16_t mode, placement_try_fn try_fn, void *try_arg,
			     const morpheus_request_t *req, bool *refused)
{
	size_t fabric_nodes = morpheus_node_count(engine);
	uint8_t *free_nodes = xcalloc(MAX(fabric_nodes, 1), 1);
	uint8_t *allowed = xcalloc(MAX(fabric_nodes, 1), 1);
	bitstr_t *narrowed = NULL;
	morpheus_plan_t *plan = NULL;
	morpheus_error_t err;
	int rc = SLURM_ERROR, nbits = bit_size(bitmap);
	bitstr_t *best_nodes = NULL;
	size_t steps, best = NO_STEP, last_tried = NO_STEP;
	time_t best_start = 0;
	char *delay_why = NULL; /* refused now to keep a planned job's memory */

	for (int i = 0; i < nbits; i++) {
		int f;
		if (bit_test(bitmap, i) && ((f = _fabric_index(i)) >= 0))
			free_nodes[f] = 1;
	}
	if (!(plan = morpheus_plan_new(engine, req, free_nodes, &err))) {
		char *why = _err_text(&err);
		*refused = true;
		/* A verdict (pending, impossible) is the job's business; anything else the admin's. */
		if ((err.code != MORPHEUS_E_PENDING) && (err.code != MORPHEUS_E_IMPOSSIBLE))
			error("select/morpheus: %pJ: %s", job_ptr, why);
		if (_reason_mode(mode))
			_set_reason(job_ptr, why);
		else
			debug2("select/morpheus: %pJ (mode %u): %s", job_ptr, mode, why);
		xfree(why);
		if (mode == SELECT_MODE_WILL_RUN)
			rc = _will_run_after_memory(job_ptr, bitmap, min_nodes, try_fn, try_arg,
						    req, free_nodes, allowed);
		goto fini;
	}

	narrowed = bit_alloc(nbits);
	steps = morpheus_plan_steps(plan);
	for (size_t k = 0; k < steps; k++) {
		if (!_narrow_to_step(plan, k, bitmap, narrowed, allowed, min_nodes))
			continue;
		rc = try_fn(try_arg, narrowed);
		last_tried = k;
		log_flag(SELECT_TYPE, "select/morpheus: %pJ mode %u step %zu/%zu (%s): %s",
			 job_ptr, mode, k + 1, steps, morpheus_plan_step_pods(plan, k),
			 rc == SLURM_SUCCESS ? "accepted" : "refused by cons_tres");
		if (rc != SLURM_SUCCESS)
			continue;
		/* Backfill's will-run must agree with RUN_NOW, or it would start the job
		 * anyway and (24.11) Slurm's "Resources" would replace the reason. */
		if (((mode == SELECT_MODE_RUN_NOW) ||
		     ((mode == SELECT_MODE_WILL_RUN) && (job_ptr->start_time <= time(NULL)))) &&
		    _delays_planned_job(job_ptr, narrowed, req, &delay_why)) {
			/* cons_tres accepted and built the job's resources: drop them, as Slurm
			 * does when it refuses a job after the node selection (accounting). */
			free_job_resources(&job_ptr->job_resrcs);
			rc = SLURM_ERROR; /* another pod's memory may not be planned for anyone */
			continue;
		}
		if ((mode != SELECT_MODE_WILL_RUN) || (job_ptr->start_time <= time(NULL))) {
			bit_copybits(bitmap, narrowed);
			goto fini;
		}
		/* cons_tres accepts a busy pod with a late start: keep the earliest. After a
		 * crash, jobs Slurm wrongly believes running can hold the best pod for their
		 * whole time limit while the other pods stand idle. */
		if ((best == NO_STEP) || (job_ptr->start_time < best_start)) {
			best = k;
			best_start = job_ptr->start_time;
			FREE_NULL_BITMAP(best_nodes);
			best_nodes = bit_copy(narrowed);
		}
	}
	if (best != NO_STEP) {
		/* The start time and preemptee list cons_tres left are those of its last
		 * run: if that was not the best step, run the best one again. */
		rc = SLURM_ERROR;
		if (best == last_tried) {
			rc = SLURM_SUCCESS;
			bit_copybits(narrowed, best_nodes);
		} else if (_narrow_to_step(plan, best, bitmap, narrowed, allowed, min_nodes)) {
			rc = try_fn(try_arg, narrowed);
		}
		if (rc == SLURM_SUCCESS) {
			job_ptr->start_time = MIN(job_ptr->start_time, best_start);
			bit_copybits(bitmap, narrowed);
		}
		log_flag(SELECT_TYPE, "select/morpheus: %pJ will run at %ld on step %zu/%zu (%s)",
			 job_ptr, (long) job_ptr->start_time, best + 1, steps,
			 morpheus_plan_step_pods(plan, best));
	}
	if (delay_why && (rc != SLURM_SUCCESS)) {
		*refused = true;
		/* Set in will-run on every release: a job held back only by this check is never
		 * offered to RUN_NOW (22.05's main scheduler would show "Priority" instead). */
		if (_reason_mode(mode) || (mode == SELECT_MODE_WILL_RUN))
			_set_reason(job_ptr, delay_why);
		goto fini;
	}
	/* Every pod the core offered was refused by cons_tres (CPUs, GRES, memory busy): the
	 * job waits like any other job, with Slurm's own reason. */

fini:
	morpheus_plan_destroy(&plan);
	FREE_NULL_BITMAP(narrowed);
	FREE_NULL_BITMAP(best_nodes);
	xfree(free_nodes);
	xfree(allowed);
	xfree(delay_why);
	return rc;
}

static void _restore_running_locked(struct xlist *jobs);

/* PlanDepth: a plan whose job is no longer pending (started, gone, held back by a requeue
 * that did not reach job_fini) goes, so it keeps no memory from anyone. */
static void _drop_gone_plans_locked(time_t now)
{
	uint64_t ids[1024];
	size_t count = morpheus_planned_jobs(engine, (int64_t) now, ids, 1024);

	for (size_t i = 0; i < count; i++) {
		job_record_t *job_ptr = find_job_record((uint32_t) ids[i]);
		if (!job_ptr || !IS_JOB_PENDING(job_ptr)) {
			morpheus_drop_plan(engine, ids[i]);
			debug2("select/morpheus: dropped the plan of JobId=%" PRIu64, ids[i]);
		}
	}
}

/*
 * Decisions are kept for `morpheus explain` until the job's reservation is released; a job
 * that never ran has none (cancelled while pending, a --test-only probe whose record Slurm
 * deletes at once): forget those whose job is gone or finished. Every few seconds at most,
 * with slurmctld's job lock held (job_test runs under it).
 */
static void _forget_gone_jobs_locked(void)
{
	uint64_t ids[512];
	size_t count;
	time_t now = time(NULL);

	if (!find_job_record || (now - decisions_checked < 5))
		return;
	decisions_checked = now;
	count = morpheus_pending_decisions(engine, ids, 512);
	for (size_t i = 0; i < count; i++) {
		job_record_t *job_ptr = find_job_record((uint32_t) ids[i]);
		if (!job_ptr || IS_JOB_FINISHED(job_ptr)) {
			morpheus_forget_decision(engine, ids[i]);
			debug2("select/morpheus: forgot the decision of JobId=%" PRIu64 " (%s)", ids[i],
			       job_ptr ? "finished" : "gone");
		}
	}
	_drop_gone_plans_locked(now);
}

extern int placement_job_test(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
			      uint16_t mode, placement_try_fn try_fn, void *try_arg)
{
	morpheus_request_t req;
	morpheus_error_t err;
	bool refused = true; /* by Morpheus, as opposed to cons_tres */
	int rc, wants;

	if (!configured)
		goto pass_through;
	if ((wants = _job_request(job_ptr, min_nodes, &req, &err)) == 0)
		goto pass_through;

	slurm_mutex_lock(&glue_lock);
	if (engine && restore_due && &job_list && job_list) {
		/* The first scheduling pass after startup: node bitmaps exist now (22.05 builds
		 * them after select_g_job_init), and no new job gets memory before the running
		 * ones have theirs back. */
		restore_due = false;
		_refresh_node_map_locked();
		_restore_running_locked(job_list);
	}
	if (engine)
		_forget_gone_jobs_locked();
	if (wants < 0) {
		/* Only reachable by bypassing the SPANK plugin and job_submit/morpheus. */
		char *why = _err_text(&err);
		if (_reason_mode(mode))
			_set_reason(job_ptr, why);
		xfree(why);
		rc = SLURM_ERROR;
	} else if (!engine) {
		/* Nothing is placed until the files are fixed, so backfill's test (WILL_RUN) says
		 * so too: jobs queued behind the first one are only tested there, and would keep
		 * whatever reason Slurm gave them before (e.g. "ReqNodeNotAvail" while the nodes
		 * of a restarted slurmctld were not yet registered). */
		if (_reason_mode(mode) || (mode == SELECT_MODE_WILL_RUN)) {
			char *why = xstrdup_printf("engine not loaded (%s)", open_error);
			_set_reason(job_ptr, why);
			xfree(why);
		}
		/* TEST_ONLY: the request may be fine once the files are fixed; cons_tres judges
		 * the rest, and narrows the bitmap as Slurm expects (a success that leaves every
		 * node set reads as "needs more nodes than allowed", and select_nodes() writes
		 * "ReqNodeNotAvail" over our reason). */
		rc = (mode == SELECT_MODE_TEST_ONLY) ? try_fn(try_arg, bitmap) : SLURM_ERROR;
	} else if (mode == SELECT_MODE_TEST_ONLY) {
		/* "Could it ever run?" The core judges the memory, cons_tres the rest. */
		if (morpheus_check_feasible(engine, &req, &err) < 0) {
			char *why = _err_text(&err);
			info("select/morpheus: %pJ can never be placed: %s", job_ptr, why);
			xfree(why);
			rc = SLURM_ERROR;
		} else {
			rc = try_fn(try_arg, bitmap);
		}
	} else {
		/* RUN_NOW, and WILL_RUN (backfill): the same narrowing, so backfill plans the job
		 * on nodes it may really get. The core's view of memory is "now" in both. */
		_refresh_node_map_locked();
		refused = false;
		rc = _job_test_by_plan(job_ptr, bitmap, min_nodes, mode, try_fn, try_arg, &req,
				       &refused);
		if (_reason_mode(mode) && !refused)
			_clear_reason(job_ptr);
	}
	slurm_mutex_unlock(&glue_lock);
	return rc;

pass_through:
	return try_fn(try_arg, bitmap);
}

/* Whether env_sup entry e is a MORPHEUS_* variable whose name ends in suffix ("": no het suffix). */
static bool _is_ours(const char *e, const char *suffix)
{
	const char *eq = strchr(e, '=');
	size_t name_len, suffix_len = strlen(suffix);
	char *het;

	if (!eq || xstrncmp(e, "MORPHEUS_", 9))
		return false;
	name_len = eq - e;
	het = xstrstr(e, "_HET_GROUP_");
	if (!suffix_len)
		return !het || (het > eq);
	return (name_len > suffix_len) && !strncmp(eq - suffix_len, suffix, suffix_len);
}

/*
 * Replaces the MORPHEUS_* entries of job_ptr's env_sup that end in suffix by the lines of env,
 * each name given that suffix (requeue runs again). The batch script sees env_sup.
 */
static void _set_job_environment(job_record_t *job_ptr, const char *env, const char *suffix)
{
	/* struct job_details in 22.05, job_details_t (anonymous struct) in 24.11 */
	__typeof__(job_ptr->details) details = job_ptr->details;
	char *copy, *line, *save = NULL;
	uint32_t kept = 0;

	for (uint32_t i = 0; i < details->env_cnt; i++) {
		if (_is_ours(details->env_sup[i], suffix))
			xfree(details->env_sup[i]);
		else
			details->env_sup[kept++] = details->env_sup[i];
	}
	details->env_cnt = kept;

	copy = xstrdup(env);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		xrecalloc(details->env_sup, details->env_cnt + 1, sizeof(char *));
		details->env_sup[details->env_cnt++] =
			xstrdup_printf("%s%s=%s", line, suffix, eq + 1);
	}
	xfree(copy);
}

/*
 * A heterogeneous job runs one batch script, on the leader's node, with the leader's env_sup;
 * srun hands that environment to the steps of every component. So each component's
 * placement also goes into the leader's env_sup as MORPHEUS_*_HET_GROUP_<offset> (Slurm's own
 * convention for per-component variables), and the node side picks the step's own.
 */
static void _publish_het_component(job_record_t *job_ptr, const char *env)
{
	job_record_t *leader = job_ptr;
	char suffix[32];

	if (!job_ptr->het_job_id)
		return;
	if ((job_ptr->het_job_id != job_ptr->job_id) && find_job_record)
		leader = find_job_record(job_ptr->het_job_id);
	if (!leader || !leader->details)
		return;
	snprintf(suffix, sizeof(suffix), "_HET_GROUP_%u", job_ptr->het_job_offset);
	_set_job_environment(leader, env, suffix);
}

static void _publish(job_record_t *job_ptr)
{
	char *summary = morpheus_job_summary(engine, job_ptr->job_id);
	char *env = morpheus_job_environment(engine, job_ptr->job_id);

	if (summary) {
		xfree(job_ptr->system_comment);
		/* The field is shared (burst buffers write there too): the text must say whose. */
		if (!xstrncasecmp(summary, "morpheus", 8))
			job_ptr->system_comment = xstrdup(summary);
		else
			job_ptr->system_comment = xstrdup_printf("Morpheus: %s", summary);
		info("select/morpheus: %pJ placed: %s", job_ptr, summary);
	}
	if (env && job_ptr->details)
		_set_job_environment(job_ptr, env, "");
	if (env)
		_publish_het_component(job_ptr, env);
	free(summary); /* the core's strings are malloc'd */
	free(env);
	_touch_jobs();
}

/* Reserves blades for the nodes the job holds (its node_bitmap), as the core chooses them. */
static int _reserve_locked(job_record_t *job_ptr, const morpheus_request_t *req,
			   morpheus_error_t *err)
{
	uint32_t *nodes = xcalloc(MAX(bit_size(job_ptr->node_bitmap), 1), sizeof(uint32_t));
	size_t count = 0;
	int rc;

	_refresh_node_map_locked();
	for (int i = 0; i < bit_size(job_ptr->node_bitmap); i++) {
		int f;
		if (bit_test(job_ptr->node_bitmap, i) && ((f = _fabric_index(i)) >= 0))
			nodes[count++] = f;
	}
	rc = morpheus_reserve(engine, req, nodes, count, err);
	xfree(nodes);
	return rc;
}

extern int placement_job_begin(placement_job_fn job_begin, job_record_t *job_ptr)
{
	morpheus_request_t req;
	morpheus_error_t err;
	int rc;

	/*
	 * Reserve here, not in job_test: select_nodes() commits a job only after job_test (and
	 * burst buffers, preemption) succeeded, and calls job_begin right before the job runs.
	 * A job_test success that is not followed by a start (preemption pending, another
	 * partition chosen) would otherwise leak a reservation. cons_tres commits here too.
	 */
	if (!configured || !job_ptr->node_bitmap ||
	    (_job_request(job_ptr, bit_set_count(job_ptr->node_bitmap), &req, &err) != 1))
		return job_begin(job_ptr);

	slurm_mutex_lock(&glue_lock);
	if (!engine) {
		slurm_mutex_unlock(&glue_lock);
		return SLURM_ERROR; /* job_test refused it already; never start it unreserved */
	}
	if (_reserve_locked(job_ptr, &req, &err) < 0) {
		char *why = _err_text(&err);
		error("select/morpheus: %pJ: reservation failed, job stays pending: %s", job_ptr,
		      why);
		_set_reason(job_ptr, why);
		xfree(why);
		rc = SLURM_ERROR;
		goto fini;
	}
	if ((rc = job_begin(job_ptr)) != SLURM_SUCCESS) {
		if (morpheus_release(engine, job_ptr->job_id, &err) < 0)
			error("select/morpheus: %pJ: release after failed job_begin: %s", job_ptr,
			      err.message);
		goto fini;
	}
	morpheus_drop_plan(engine, job_ptr->job_id); /* started: it holds its memory now */
	_publish(job_ptr);
fini:
	slurm_mutex_unlock(&glue_lock);
	return rc;
}

extern void placement_job_fini(job_record_t *job_ptr)
{
	morpheus_request_t req;
	morpheus_error_t err;
	int rc;

	if (!configured || (_job_request(job_ptr, 1, &req, &err) != 1))
		return;
	slurm_mutex_lock(&glue_lock);
	if (engine) {
		morpheus_drop_plan(engine, job_ptr->job_id);
		if ((rc = morpheus_release(engine, job_ptr->job_id, &err)) < 0)
			error("select/morpheus: %pJ: release failed: %s", job_ptr, err.message);
		else if (rc == 1)
			verbose("select/morpheus: %pJ released its memory", job_ptr);
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

	if (!configured || !job_ptr->node_bitmap || !bit_set_count(job_ptr->node_bitmap) ||
	    (_job_request(job_ptr, bit_set_count(job_ptr->node_bitmap), &req, &err) != 1))
		return;
	slurm_mutex_lock(&glue_lock);
	if (!engine || !(held = morpheus_job_summary(engine, job_ptr->job_id)))
		goto fini;
	free(held);
	if (_reserve_locked(job_ptr, &req, &err) < 0) {
		char *why = _err_text(&err);
		error("select/morpheus: %pJ resized to %s: reservation kept as it was: %s", job_ptr,
		      job_ptr->nodes, why);
		xfree(why);
		goto fini;
	}
	info("select/morpheus: %pJ resized to %s: memory of the nodes given up released", job_ptr,
	     job_ptr->nodes);
	_publish(job_ptr);
fini:
	slurm_mutex_unlock(&glue_lock);
}

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
	    (_job_request(job_ptr, bit_set_count(job_ptr->node_bitmap), &req, &err) != 1))
		return 0;
	if ((held = morpheus_job_summary(engine, job_ptr->job_id))) {
		free(held);
		return 0;
	}
	if (_reserve_locked(job_ptr, &req, &err) < 0)
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

extern void placement_jobs_recovered(struct xlist *jobs)
{
	struct running_ids running = { NULL, 0 };
	morpheus_error_t err;
	int n;

	slurm_mutex_lock(&glue_lock);
	if (!configured)
		goto fini;
	if (!jobs_recovered_once) {
		jobs_recovered_once = true; /* startup: the engine was opened in init() */
	} else if (!engine) {
		_open_locked(); /* reconfigure after a failed open: retry */
	} else {
		/* Parsed without glue_lock (see above: `engine` stays alive); the core swaps under
		 * its own lock, so the watcher and the status service go on meanwhile. */
		morpheus_engine_t *e = engine;
		int rc;

		slurm_mutex_unlock(&glue_lock);
		rc = morpheus_engine_reload(e, &err);
		slurm_mutex_lock(&glue_lock);
		if (rc < 0) {
			char *why = _err_text(&err);
			error("select/morpheus: reload failed, keeping the last good configuration: %s",
			      why);
			xfree(why);
		} else {
			info("select/morpheus: reloaded morpheus.conf, fabric and inventory");
			nodes_changed = true;
			_status_service_locked();
		}
	}
	if (!engine || !jobs)
		goto fini;

	running.ids = xcalloc(list_count(jobs) + 1, sizeof(uint64_t));
	list_for_each(jobs, _append_running, &running);
	if ((n = morpheus_reconcile(engine, running.ids, running.count, &err)) < 0)
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
	_retire_status_service(); /* the new one starts on the watcher's next pass */
	xfree(running.ids);
}

/* GPUs in a TRES request ("gres:gpu:16" in 22.05, "gres/gpu:a100:16" later; several entries
 * comma-separated): the count of the gpu entry, 0 when there is none. */
static uint32_t _tres_gpus(const char *tres)
{
	const char *p = tres;
	uint32_t total = 0;

	while (p && *p) {
		const char *end = strchr(p, ','), *colon;
		size_t len = end ? (size_t) (end - p) : strlen(p);
		char *entry = xstrndup(p, len), *name = entry;

		if (!xstrncmp(name, "gres:", 5) || !xstrncmp(name, "gres/", 5))
			name += 5;
		if (!xstrncmp(name, "gpu", 3) && ((name[3] == ':') || (name[3] == '\0')) &&
		    (colon = strrchr(name, ':')))
			total += (uint32_t) strtoul(colon + 1, NULL, 10);
		xfree(entry);
		p = end ? end + 1 : NULL;
	}
	return total;
}

/* Sets allowed[] for the fabric nodes of a required node list (names outside the fabric
 * are Slurm's to judge); returns how many names the list has. */
static int _required_nodes(const char *req_nodes, uint8_t *allowed)
{
	struct hostlist *hl = hostlist_create(req_nodes); /* hostlist_t differs by release */
	char *name;
	int count = 0;

	if (!hl)
		return 0;
	while ((name = hostlist_shift(hl))) {
		int f = morpheus_node_index(engine, name);
		if (f >= 0)
			allowed[f] = 1;
		count++;
		free(name);
	}
	hostlist_destroy(hl);
	return count;
}

/* Submission: what the job asks of nodes and GPUs, as the core counts them. Slurm fills in
 * min_nodes from --gpus only later, so a --gpus=16 job is 2 nodes of 8 GPUs here, not 1. */
static void _submit_request(const job_desc_msg_t *job_desc, morpheus_request_t *req)
{
	uint32_t gpus = _tres_gpus(job_desc->tres_per_job);
	uint32_t per_node = _tres_gpus(job_desc->tres_per_node);
	bool nodes_set = (job_desc->min_nodes != NO_VAL) && job_desc->min_nodes;

	req->nodes = nodes_set ? job_desc->min_nodes : 1;
	if (!nodes_set && gpus) {
		/* 0: the core derives the nodes from each pod's GPUs per node */
		req->nodes = per_node ? (gpus + per_node - 1) / per_node : 0;
		req->gpus = gpus;
	}
}

/* LicenseHot=/LicenseCold=: the job's blade memory as Slurm licenses (GiB), added to what it
 * asked, so sacct/sreport/QOS GrpTRES see it. A license the job names itself is left as is. */
static void _add_licenses(job_desc_msg_t *job_desc, const morpheus_request_t *req)
{
	char *lic = morpheus_request_licenses(engine, req), *save = NULL, *item;
	char *copy;

	if (!lic)
		return;
	copy = xstrdup(lic);
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(item, ':');
		size_t len = colon ? (size_t) (colon - item) : strlen(item);
		bool named = false;
		/* Already named by the user (-L NAME or NAME:count)? */
		for (char *p = job_desc->licenses; p && *p;) {
			if (!strncmp(p, item, len) && strchr(":,@", p[len] ? p[len] : ','))
				named = true;
			p = strchr(p, ',');
			p = p ? p + 1 : NULL;
		}
		if (named)
			continue;
		if (job_desc->licenses && job_desc->licenses[0])
			xstrfmtcat(job_desc->licenses, ",%s", item);
		else {
			xfree(job_desc->licenses);
			job_desc->licenses = xstrdup(item);
		}
	}
	debug("select/morpheus: submission licenses %s", job_desc->licenses);
	xfree(copy);
	free(lic);
}

extern int placement_submit_check(job_desc_msg_t *job_desc, uint32_t uid,
				  char **err_msg)
{
	morpheus_request_t req;
	morpheus_error_t err;
	uint8_t *allowed = NULL;
	int rc = SLURM_SUCCESS, wants;

	if (!configured)
		return SLURM_SUCCESS;
	memset(&req, 0, sizeof(req));
	req.uid = uid;
	_submit_request(job_desc, &req);
	if ((wants = morpheus_request_from_env(job_desc->spank_job_env,
					       job_desc->spank_job_env_size, &req, &err)) < 0) {
		*err_msg = _err_text(&err);
		return ESLURM_INVALID_TRES; /* closest code to "a resource request is malformed" */
	}
	if (!wants)
		return SLURM_SUCCESS;

	slurm_mutex_lock(&glue_lock);
	/* No engine: the request may be fine once the files are fixed; job_test holds it. */
	if (!engine)
		goto fini;
	if (job_desc->req_nodes && job_desc->req_nodes[0]) {
		/* --nodelist: the job can only have those nodes (when they are as many as it
		 * needs; more nodes than listed may come from anywhere). */
		allowed = xcalloc(MAX(morpheus_node_count(engine), 1), 1);
		if (!req.nodes || (_required_nodes(job_desc->req_nodes, allowed) < req.nodes))
			xfree(allowed);
		req.allowed_nodes = allowed;
	}
	if (morpheus_check_feasible(engine, &req, &err) < 0) {
		*err_msg = _err_text(&err);
		info("select/morpheus: submission by uid %u rejected: %s", uid, *err_msg);
		rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	} else {
		_add_licenses(job_desc, &req);
	}
fini:
	slurm_mutex_unlock(&glue_lock);
	xfree(allowed);
	return rc;
}
