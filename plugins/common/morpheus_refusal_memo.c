/*
 * morpheus_refusal_memo.c - cons_tres's main-scheduler refusals, remembered until resources
 * are released (issue 26).
 *
 * The main scheduler tests the tasks of an array one after the other, each with the same
 * request. Once cons_tres refused the first the best node set (that pod's CPUs are taken), it
 * refuses the next ones the same set until something frees CPUs, memory or GRES: a job ends,
 * is suspended or shrinks, or nodes change. A refusal is kept under the request's shape, the
 * nodes offered and the partition, and answers again while no release happened, for one
 * second at most (advance reservations and partition updates free nothing through the select
 * plugin). Only refusals are kept: an acceptance builds the job's resources. Not used when
 * preemption is configured (cons_tres may accept by preempting, which depends on more than
 * the request). Callers hold glue_lock.
 */
#include "config.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "morpheus_decision_cache.h"
#include "morpheus_refusal_memo.h"

#define MEMO_SLOTS 256 /* power of two; a collision only costs a run of cons_tres */

struct refusal {
	uint64_t key;	  /* 0: empty */
	uint64_t release; /* releases counted when it was refused */
	time_t when;
	int rc;		  /* cons_tres's return code, given again */
};

static struct refusal memo[MEMO_SLOTS];
static atomic_uint_fast64_t releases = 1;
static uint64_t remembered; /* glue_lock */

static uint64_t _mix_text(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = glue_hash_mix(h, (unsigned char) *s);
	return glue_hash_mix(h, 0xff);
}

/* Everything of the request cons_tres judges; tasks of one array share it, and the array's id
 * keeps two arrays with equal numbers apart (their GRES or features may be spelled elsewhere). */
static uint64_t _key(job_record_t *job_ptr, bitstr_t *nodes, uint32_t min_nodes)
{
	__typeof__(job_ptr->details) d = job_ptr->details;
	uint64_t h = 0xcbf29ce484222325ULL;

	if (!d)
		return 0;
	h = glue_hash_mix(h, (job_ptr->array_task_id != NO_VAL) ? job_ptr->array_job_id : job_ptr->job_id);
	h = glue_hash_mix(h, (uint64_t) (uintptr_t) job_ptr->part_ptr);
	h = glue_hash_mix(h, min_nodes);
	h = glue_hash_mix(h, d->min_cpus);
	h = glue_hash_mix(h, d->pn_min_cpus);
	h = glue_hash_mix(h, d->pn_min_memory);
	h = glue_hash_mix(h, d->num_tasks);
	h = glue_hash_mix(h, d->cpus_per_task);
	h = glue_hash_mix(h, d->ntasks_per_node);
	h = glue_hash_mix(h, ((uint64_t) d->whole_node << 8) | d->share_res);
	h = _mix_text(h, job_ptr->tres_per_node);
	h = _mix_text(h, d->features);
	h = glue_hash_bitmap(h, nodes);
	return h ? h : 1;
}

static bool _preemption_configured(void)
{
	return slurm_conf.preempt_type && xstrcmp(slurm_conf.preempt_type, "preempt/none");
}

extern int glue_try_remembering(job_record_t *job_ptr, bitstr_t *nodes, uint32_t min_nodes,
				placement_try_fn try_fn, void *try_arg)
{
	uint64_t key, now_releases = atomic_load(&releases);
	struct refusal *r;
	time_t now = time(NULL);
	int rc;

	if (_preemption_configured() || !(key = _key(job_ptr, nodes, min_nodes)))
		return try_fn(try_arg, nodes);
	r = &memo[key & (MEMO_SLOTS - 1)];
	if ((r->key == key) && (r->release == now_releases) && (now - r->when <= 1)) {
		log_flag(SELECT_TYPE, "select/morpheus: %pJ: cons_tres refused these %ld nodes to the same request since the last release",
			 job_ptr, (long) bit_set_count(nodes));
		remembered++;
		return r->rc;
	}
	rc = try_fn(try_arg, nodes);
	if (rc != SLURM_SUCCESS)
		*r = (struct refusal) { key, now_releases, now, rc };
	return rc;
}

extern uint64_t glue_refusals_remembered(void)
{
	return remembered;
}

extern void glue_resources_released(void)
{
	atomic_fetch_add(&releases, 1);
}

extern void placement_resources_released(void)
{
	glue_resources_released();
}
