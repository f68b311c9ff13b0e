/*
 * morpheus_job_test.c - job_test: offers cons_tres the node sets the core's plan allows, best
 * first; answers backfill's "when?" for a job waiting for blade memory; keeps PlanDepth's
 * plans and refuses a job that would delay one.
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "morpheus_decision_cache.h"
#include "morpheus_refusal_memo.h"
#include "morpheus_test_timing.h"

static time_t decisions_checked; /* last sweep of pending decisions, see _forget_gone_jobs */

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
		if (bit_test(narrowed, i) && (((f = glue_fabric_index(i)) < 0) || !allowed[f]))
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

/*
 * Fills running with the ends of the jobs that hold a reservation (the caller holds the job
 * lock); false without a job table. Only those hold memory: looking them up by id costs what
 * the running Morpheus jobs number, never what the queue does (a walk of job_list for every
 * pending job tested made a pass cost the queue's length squared).
 */
static bool _collect_running_ends(struct running_ends *running)
{
	size_t n;

	if (!find_job_record)
		return false;
	n = morpheus_reserved_jobs(glue_engine, NULL, 0);
	running->ids = xcalloc(n + 1, sizeof(uint64_t));
	running->ends = xcalloc(n + 1, sizeof(int64_t));
	running->count = 0;
	n = MIN(n, morpheus_reserved_jobs(glue_engine, running->ids, n));
	for (size_t i = 0; i < n; i++) {
		job_record_t *job_ptr = find_job_record((uint32_t) running->ids[i]);
		if (!job_ptr || !IS_JOB_RUNNING(job_ptr) || (job_ptr->time_limit == INFINITE) ||
		    (job_ptr->time_limit == NO_VAL) || !job_ptr->end_time)
			continue;
		running->ids[running->count] = running->ids[i];
		running->ends[running->count++] = (int64_t) job_ptr->end_time;
	}
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
	if (morpheus_keep_plan(glue_engine, job_ptr->job_id, job_ptr->priority,
			       _submit_time(job_ptr), (int64_t) job_ptr->start_time,
			       (int64_t) now) == 1)
		log_flag(SELECT_TYPE, "select/morpheus: %pJ blade memory planned from %ld (priority %u)",
			 job_ptr, (long) job_ptr->start_time, job_ptr->priority);
}

/*
 * WILL_RUN for a job refused only for blade memory: when will the memory be free (the core),
 * and when will cons_tres give it nodes of the pod the core chose? The later of the two. The
 * reason Morpheus set stays: the job still waits for memory, and RUN_NOW still refuses it
 * until the memory is back. The core's answer (d) may be one kept from an earlier pass.
 */
static int _will_run_after_memory(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
				  placement_try_fn try_fn, void *try_arg,
				  const glue_decision_t *d, bool fresh)
{
	time_t now = time(NULL);
	bitstr_t *narrowed = NULL;
	int rc = SLURM_ERROR;

	if (!d->will_run || !d->pod_nodes)
		return SLURM_ERROR;
	narrowed = bit_copy(bitmap);
	bit_and(narrowed, d->pod_nodes);
	if (bit_set_count(narrowed) < min_nodes)
		goto fini;
	if ((rc = try_fn(try_arg, narrowed)) != SLURM_SUCCESS) {
		debug("select/morpheus: %pJ fits blade memory at %ld, cons_tres refused the nodes",
		      job_ptr, (long) d->start);
		goto fini;
	}
	job_ptr->start_time = MAX(job_ptr->start_time, (time_t) d->start);
	bit_copybits(bitmap, narrowed);
	log_flag(SELECT_TYPE, "select/morpheus: %pJ will run at %ld, when its blade memory is free at %ld",
		 job_ptr, (long) job_ptr->start_time, (long) d->start);
	if (fresh)
		_keep_plan(job_ptr, now);
	else
		morpheus_renew_plan(glue_engine, job_ptr->job_id, (int64_t) now);
fini:
	FREE_NULL_BITMAP(narrowed);
	return rc;
}

/* The core's "when?" for a job it refused now, kept in d: the start and, as Slurm node
 * indexes, the nodes of the pods its memory fits on then. */
static void _earliest_start(job_record_t *job_ptr, const morpheus_request_t *req,
			    const uint8_t *candidates, glue_decision_t *d)
{
	struct running_ends running = { NULL, NULL, 0 };
	size_t fabric_nodes = morpheus_node_count(glue_engine);
	uint8_t *pod_nodes = xcalloc(MAX(fabric_nodes, 1), 1);
	morpheus_error_t err;
	int64_t start = 0;

	if (!_collect_running_ends(&running))
		goto fini;
	if (morpheus_earliest_start(glue_engine, req, candidates, (int64_t) time(NULL),
				    _duration(job_ptr), running.ids, running.ends, running.count,
				    &start, pod_nodes, &err) < 0) {
		char *why = glue_err_text(&err);
		debug("select/morpheus: %pJ will not run: %s", job_ptr, why);
		xfree(why);
		goto fini;
	}
	d->will_run = true;
	d->start = start;
	d->pod_nodes = bit_alloc(node_record_count);
	for (int i = 0; i < node_record_count; i++) {
		int f = glue_fabric_index(i);
		if ((f >= 0) && pod_nodes[f])
			bit_set(d->pod_nodes, i);
	}
fini:
	xfree(pod_nodes);
	xfree(running.ids);
	xfree(running.ends);
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
	if (!morpheus_planned_jobs(glue_engine, (int64_t) now, &victim, 1)) {
		xfree(fabric_nodes);
		return false;
	}
	for (int i = 0; i < bit_size(nodes); i++) {
		int f;
		if (bit_test(nodes, i) && ((f = glue_fabric_index(i)) >= 0))
			fabric_nodes[count++] = f;
	}
	if (count && _collect_running_ends(&running))
		rc = morpheus_delays_planned(glue_engine, req, fabric_nodes, count, (int64_t) now,
					     _duration(job_ptr), job_ptr->priority,
					     _submit_time(job_ptr), running.ids, running.ends,
					     running.count, &victim, &victim_start, &err);
	if (rc < 0) {
		char *e = glue_err_text(&err);
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

/*
 * The nodes Slurm lets the job use at all, as fabric node flags: its required node list when
 * that names every node it needs (-w NODE -N1), less its excluded nodes (-x), within the
 * partition it is tested for (features and availability are in the bitmap Slurm passes). The
 * core decides on these alone, so a pinned job is placed, planned, told its reason and
 * explained on its own pod, never on one it may not have (issue 25). false: no confinement.
 */
static bool _confined_nodes(job_record_t *job_ptr, uint32_t min_nodes, uint8_t *confined)
{
	__typeof__(job_ptr->details) details = job_ptr->details;
	bitstr_t *req = details ? details->req_node_bitmap : NULL;
	bitstr_t *exc = details ? details->exc_node_bitmap : NULL;
	bitstr_t *part = job_ptr->part_ptr ? job_ptr->part_ptr->node_bitmap : NULL;
	bool by_req = req && (bit_set_count(req) >= (int64_t) MAX(min_nodes, 1));

	if (!by_req && !exc && !part)
		return false;
	for (int i = 0; i < node_record_count; i++) {
		int f = glue_fabric_index(i);
		if (f < 0)
			continue;
		confined[f] = (!by_req || (i < bit_size(req) && bit_test(req, i))) &&
			      (!exc || (i >= bit_size(exc)) || !bit_test(exc, i)) &&
			      (!part || (i < bit_size(part) && bit_test(part, i)));
	}
	return true;
}

/*
 * Decides afresh (the core, once per change): the plan of node sets to offer cons_tres, or
 * Morpheus's refusal with its reason and, for WILL_RUN, when the memory fits. Kept in the
 * decision cache under key.
 */
static glue_decision_t *_decide(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
				uint16_t mode, const morpheus_request_t *req,
				const glue_decision_key_t *key)
{
	size_t fabric_nodes = morpheus_node_count(glue_engine);
	uint8_t *free_nodes = xcalloc(MAX(fabric_nodes, 1), 1);
	uint8_t *confined = xcalloc(MAX(fabric_nodes, 1), 1);
	morpheus_request_t confined_req = *req;
	glue_decision_t *d = glue_decision_store(key);
	morpheus_error_t err;
	int nbits = bit_size(bitmap);

	for (int i = 0; i < nbits; i++) {
		int f;
		if (bit_test(bitmap, i) && ((f = glue_fabric_index(i)) >= 0))
			free_nodes[f] = 1;
	}
	if (_confined_nodes(job_ptr, min_nodes, confined)) {
		for (size_t f = 0; f < fabric_nodes; f++)
			free_nodes[f] = free_nodes[f] && confined[f];
		confined_req.allowed_nodes = confined;
	}
	if ((d->plan = morpheus_plan_new(glue_engine, &confined_req, free_nodes, &err))) {
		d->kind = GLUE_DECISION_PLAN;
		goto fini;
	}
	d->kind = GLUE_DECISION_REFUSED;
	d->code = err.code;
	d->why = glue_err_text(&err);
	/* A verdict (pending, impossible) is the job's business; anything else the admin's,
	 * logged once per change rather than once per pass. */
	if ((err.code != MORPHEUS_E_PENDING) && (err.code != MORPHEUS_E_IMPOSSIBLE))
		error("select/morpheus: %pJ: %s", job_ptr, d->why);
	if (mode == SELECT_MODE_WILL_RUN)
		_earliest_start(job_ptr, &confined_req, free_nodes, d);
fini:
	xfree(free_nodes);
	xfree(confined);
	return d;
}

/* cons_tres on nodes; in RUN_NOW a refusal is remembered until something is released (the
 * next task of an array is refused the same busy pod without a run, morpheus_refusal_memo.c). */
static int _try(job_record_t *job_ptr, uint16_t mode, bitstr_t *nodes, uint32_t min_nodes,
		placement_try_fn try_fn, void *try_arg)
{
	if (mode == SELECT_MODE_RUN_NOW)
		return glue_try_remembering(job_ptr, nodes, min_nodes, try_fn, try_arg);
	return try_fn(try_arg, nodes);
}

/* The first node set from step `from` on that holds every node of `chosen`; NO_STEP if none. */
static size_t _step_holding(morpheus_plan_t *plan, size_t from, bitstr_t *chosen, uint8_t *allowed)
{
	size_t steps = morpheus_plan_steps(plan);
	int nbits = bit_size(chosen);

	for (size_t k = from; k < steps; k++) {
		bool holds = true;
		morpheus_plan_step_nodes(plan, k, allowed);
		for (int i = 0; holds && (i < nbits); i++) {
			int f;
			if (bit_test(chosen, i))
				holds = ((f = glue_fabric_index(i)) >= 0) && allowed[f];
		}
		if (holds)
			return k;
	}
	return NO_STEP;
}

/*
 * Offers cons_tres the plan's node sets, best first. RUN_NOW takes the best it accepts;
 * WILL_RUN (backfill asks "when?") the one that starts soonest. With several sets, cons_tres
 * is asked once about all of them together: fewer nodes never help, so when it refuses them
 * all (the usual answer for a job queued behind busy nodes) no set is tried one by one, and a
 * will-run set that starts as early as all of them together is the best there is.
 * RUN_NOW asks about the best set alone first: the main scheduler tests jobs that start (it
 * stops at a partition's first refusal), and one run of cons_tres is then all a start costs,
 * as without Morpheus. When the best set is busy, the rest go together, and the nodes
 * cons_tres chose among them are taken when they lie in one set (that set's placement is
 * what job_begin reserves): a main-scheduler test costs two runs of cons_tres at most in the
 * usual case, not two plus one per set (issue 26: 2.4 runs a test were most of the main
 * scheduler's time). The price: among the sets after the best one, cons_tres's choice wins
 * over the core's order; every one of them meets the job's bound. A set cons_tres refused to
 * the same request since the last release is refused again without a run
 * (morpheus_refusal_memo.c): the next tasks of an array skip the full best pod. WILL_RUN takes
 * the set holding cons_tres's choice among all of them when the start is later, or now in the
 * best set (one run).
 */
static int _offer_steps(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
			uint16_t mode, placement_try_fn try_fn, void *try_arg,
			const morpheus_request_t *req, morpheus_plan_t *plan, bool *refused)
{
	size_t fabric_nodes = morpheus_node_count(glue_engine);
	uint8_t *allowed = xcalloc(MAX(fabric_nodes, 1), 1);
	bitstr_t *narrowed = NULL;
	int rc = SLURM_ERROR, nbits = bit_size(bitmap);
	bitstr_t *best_nodes = NULL;
	size_t steps, best = NO_STEP, last_tried = NO_STEP;
	time_t best_start = 0, all_start = 0;
	char *delay_why = NULL; /* refused now to keep a planned job's memory */
	bool first_tried = false; /* RUN_NOW: the best set, alone, before all of them */

	steps = morpheus_plan_steps(plan);
	if ((steps > 1) && (mode == SELECT_MODE_RUN_NOW)) {
		narrowed = bit_alloc(nbits);
		if (_narrow_to_step(plan, 0, bitmap, narrowed, allowed, min_nodes)) {
			first_tried = true;
			rc = _try(job_ptr, mode, narrowed, min_nodes, try_fn, try_arg);
			log_flag(SELECT_TYPE, "select/morpheus: %pJ mode %u step 1/%zu (%s): %s", job_ptr,
				 mode, steps, morpheus_plan_step_pods(plan, 0),
				 rc == SLURM_SUCCESS ? "accepted" : "refused by cons_tres");
			if ((rc == SLURM_SUCCESS) &&
			    !_delays_planned_job(job_ptr, narrowed, req, &delay_why)) {
				bit_copybits(bitmap, narrowed);
				goto fini;
			}
			if (rc == SLURM_SUCCESS)
				free_job_resources(&job_ptr->job_resrcs);
			rc = SLURM_ERROR;
		}
		FREE_NULL_BITMAP(narrowed);
	}
	if (steps > 1) {
		bitstr_t *all = bit_alloc(nbits);
		size_t held;
		narrowed = bit_alloc(nbits);
		for (size_t k = first_tried ? 1 : 0; k < steps; k++)
			if (_narrow_to_step(plan, k, bitmap, narrowed, allowed, 0))
				bit_or(all, narrowed);
		rc = (bit_set_count(all) >= min_nodes) ?
			     _try(job_ptr, mode, all, min_nodes, try_fn, try_arg) :
			     SLURM_ERROR;
		FREE_NULL_BITMAP(narrowed);
		if (rc != SLURM_SUCCESS) {
			log_flag(SELECT_TYPE, "select/morpheus: %pJ mode %u: cons_tres refuses all %zu node sets",
				 job_ptr, mode, steps - first_tried);
			FREE_NULL_BITMAP(all);
			goto fini;
		}
		all_start = job_ptr->start_time;
		if ((mode == SELECT_MODE_WILL_RUN) &&
		    ((held = _step_holding(plan, 0, all, allowed)) != NO_STEP) &&
		    ((all_start > time(NULL)) || !_delays_planned_job(job_ptr, all, req, &delay_why))) {
			/* A later start is only backfill's plan: the set holding the nodes
			 * cons_tres chose starts then too (fewer nodes never start sooner), and
			 * RUN_NOW offers the best set first when the time comes. A start now is
			 * one too: backfill starts the job through RUN_NOW on every node not
			 * held for others (_start_job), which tries the best set first, so the
			 * set named here only has to start now. One run (a run per set before:
			 * a third of backfill's tests at 16 nodes). */
			log_flag(SELECT_TYPE, "select/morpheus: %pJ will run at %ld on step %zu/%zu (%s), chosen by cons_tres",
				 job_ptr, (long) all_start, held + 1, steps,
				 morpheus_plan_step_pods(plan, held));
			bit_copybits(bitmap, all);
			FREE_NULL_BITMAP(all);
			goto fini;
		}
		if (mode == SELECT_MODE_RUN_NOW) {
			/* cons_tres chose nodes among the sets (all): one set holding them all is
			 * the one taken, with no run per set. */
			held = _step_holding(plan, first_tried ? 1 : 0, all, allowed);
			if ((held != NO_STEP) && !_delays_planned_job(job_ptr, all, req, &delay_why)) {
				log_flag(SELECT_TYPE, "select/morpheus: %pJ mode %u step %zu/%zu (%s): chosen by cons_tres among the rest",
					 job_ptr, mode, held + 1, steps,
					 morpheus_plan_step_pods(plan, held));
				bit_copybits(bitmap, all);
				FREE_NULL_BITMAP(all);
				goto fini;
			}
			free_job_resources(&job_ptr->job_resrcs); /* built again for the step taken */
		}
		FREE_NULL_BITMAP(all);
		rc = SLURM_ERROR;
	}

	narrowed = bit_alloc(nbits);
	steps = morpheus_plan_steps(plan);
	for (size_t k = first_tried ? 1 : 0; k < steps; k++) {
		if (!_narrow_to_step(plan, k, bitmap, narrowed, allowed, min_nodes))
			continue;
		rc = _try(job_ptr, mode, narrowed, min_nodes, try_fn, try_arg);
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
		if (all_start && (best_start <= all_start))
			break; /* no set starts earlier than all of them together */
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
		if (glue_reason_mode(mode) || (mode == SELECT_MODE_WILL_RUN))
			glue_set_reason(job_ptr, delay_why);
		goto fini;
	}
	/* Every pod the core offered was refused by cons_tres (CPUs, GRES, memory busy): the
	 * job waits like any other job, with Slurm's own reason. */

fini:
	FREE_NULL_BITMAP(narrowed);
	FREE_NULL_BITMAP(best_nodes);
	xfree(allowed);
	xfree(delay_why);
	return rc;
}

/* RUN_NOW and WILL_RUN of a Morpheus job: what the core decided (kept until something it
 * depends on changes), then cons_tres on the nodes that allows. */
static int _job_test_by_plan(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
			     uint16_t mode, placement_try_fn try_fn, void *try_arg,
			     const morpheus_request_t *req, bool *refused)
{
	glue_decision_key_t key;
	glue_decision_t *d;
	bool fresh = false;

	glue_decision_key(&key, job_ptr, bitmap, min_nodes, mode);
	/* A soft bound whose wait ran out changes the answer with nothing else changed. */
	if (req->hot_per_node && morpheus_bound_lapsed(glue_engine, req, (int64_t) time(NULL)))
		key.nodes_hash = ~key.nodes_hash;
	d = glue_decision_find(&key);
	/* A kept "when?" in the past is stale: running jobs past their ends hold memory still. */
	if (d && (d->kind == GLUE_DECISION_REFUSED) && d->will_run && (d->start < time(NULL)))
		d = NULL;
	glue_decision_count(d != NULL);
	if (!d) {
		d = _decide(job_ptr, bitmap, min_nodes, mode, req, &key);
		fresh = true;
	}
	if (d->kind == GLUE_DECISION_PLAN)
		return _offer_steps(job_ptr, bitmap, min_nodes, mode, try_fn, try_arg, req, d->plan,
				    refused);
	*refused = true;
	if (glue_reason_mode(mode))
		glue_set_reason(job_ptr, d->why);
	else
		debug2("select/morpheus: %pJ (mode %u): %s", job_ptr, mode, d->why);
	if (mode == SELECT_MODE_WILL_RUN)
		return _will_run_after_memory(job_ptr, bitmap, min_nodes, try_fn, try_arg, d, fresh);
	return SLURM_ERROR;
}

/* PlanDepth: a plan whose job is no longer pending (started, gone, held back by a requeue
 * that did not reach job_fini) goes, so it keeps no memory from anyone. */
static void _drop_gone_plans_locked(time_t now)
{
	uint64_t ids[1024];
	size_t count = morpheus_planned_jobs(glue_engine, (int64_t) now, ids, 1024);

	for (size_t i = 0; i < count; i++) {
		job_record_t *job_ptr = find_job_record((uint32_t) ids[i]);
		if (!job_ptr || !IS_JOB_PENDING(job_ptr)) {
			morpheus_drop_plan(glue_engine, ids[i]);
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
	count = morpheus_pending_decisions(glue_engine, ids, 512);
	for (size_t i = 0; i < count; i++) {
		job_record_t *job_ptr = find_job_record((uint32_t) ids[i]);
		if (!job_ptr || IS_JOB_FINISHED(job_ptr)) {
			morpheus_forget_decision(glue_engine, ids[i]);
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
	double started, locked;
	glue_timed_try_t timed = { try_fn, try_arg, 0, 0 };

	if (!glue_configured)
		goto pass_through;
	if ((wants = glue_job_request(job_ptr, min_nodes, &req, &err)) == 0)
		goto pass_through;

	/* From here on cons_tres runs through the timer (morpheus_test_timing.h). */
	try_fn = glue_timed_try;
	try_arg = &timed;
	started = glue_clock();
	slurm_mutex_lock(&glue_lock);
	locked = glue_clock();
	glue_restore_running_if_due_locked();
	if (glue_engine)
		_forget_gone_jobs_locked();
	if (wants < 0) {
		/* Only reachable by bypassing the SPANK plugin and job_submit/morpheus. */
		char *why = glue_err_text(&err);
		if (glue_reason_mode(mode))
			glue_set_reason(job_ptr, why);
		xfree(why);
		rc = SLURM_ERROR;
	} else if (!glue_engine) {
		/* Nothing is placed until the files are fixed, so backfill's test (WILL_RUN) says
		 * so too: jobs queued behind the first one are only tested there, and would keep
		 * whatever reason Slurm gave them before (e.g. "ReqNodeNotAvail" while the nodes
		 * of a restarted slurmctld were not yet registered). */
		if (glue_reason_mode(mode) || (mode == SELECT_MODE_WILL_RUN)) {
			char *why = xstrdup_printf("engine not loaded (%s)", glue_open_error);
			glue_set_reason(job_ptr, why);
			xfree(why);
		}
		/* TEST_ONLY: the request may be fine once the files are fixed; cons_tres judges
		 * the rest, and narrows the bitmap as Slurm expects (a success that leaves every
		 * node set reads as "needs more nodes than allowed", and select_nodes() writes
		 * "ReqNodeNotAvail" over our reason). */
		rc = (mode == SELECT_MODE_TEST_ONLY) ? try_fn(try_arg, bitmap) : SLURM_ERROR;
	} else if (mode == SELECT_MODE_TEST_ONLY) {
		/* "Could it ever run?" The core judges the memory on the nodes the job may have,
		 * cons_tres the rest. */
		size_t fabric_nodes = morpheus_node_count(glue_engine);
		uint8_t *confined = xcalloc(MAX(fabric_nodes, 1), 1);
		int feasible;

		glue_refresh_node_map_locked();
		if (_confined_nodes(job_ptr, min_nodes, confined))
			req.allowed_nodes = confined;
		feasible = morpheus_check_feasible(glue_engine, &req, &err);
		req.allowed_nodes = NULL;
		xfree(confined);
		if (feasible < 0) {
			char *why = glue_err_text(&err);
			info("select/morpheus: %pJ can never be placed: %s", job_ptr, why);
			xfree(why);
			rc = SLURM_ERROR;
		} else {
			rc = try_fn(try_arg, bitmap);
		}
	} else {
		/* RUN_NOW, and WILL_RUN (backfill): the same narrowing, so backfill plans the job
		 * on nodes it may really get. The core's view of memory is "now" in both. */
		glue_refresh_node_map_locked();
		refused = false;
		rc = _job_test_by_plan(job_ptr, bitmap, min_nodes, mode, try_fn, try_arg, &req,
				       &refused);
		if (glue_reason_mode(mode) && !refused)
			glue_clear_reason(job_ptr);
		glue_note_test_locked(mode, started, locked, &timed);
	}
	slurm_mutex_unlock(&glue_lock);
	return rc;

pass_through:
	return try_fn(try_arg, bitmap);
}
