/*
 * morpheus_decision_cache.c - decide once per change, not once per scheduling pass (issue 26).
 *
 * Slurm's main scheduler and backfill test every pending job again on every pass, although
 * for most of them nothing changed: the same nodes are free, the ledger and the plans are
 * the same. What the core told a job is kept here with what it depended on (the key): the
 * engine's epoch (reservations, releases, reloads, inventory, plans), a hash of the node
 * bitmap Slurm offered (availability, partition, features), the job's own confinement (its
 * required and excluded nodes) and size, and the test mode. The next test with the same key
 * reuses the answer; any change of any of them decides afresh. Cons_tres is still asked every
 * time (CPUs, memory and GRES are its to judge), so only Morpheus's own work is saved.
 *
 * Two-way sets by job id and mode: a collision only costs a recomputation. Holds slurmctld's
 * glue_lock (every caller does).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "morpheus_decision_cache.h"

/* 2,048 slots: more than the main scheduler (default_queue_depth) and backfill
 * (bf_max_job_test) test in a pass by default. 4,096 sets made 720 KiB of slurmctld's memory
 * (every set is touched as job ids advance): 4% of its RSS at 16 nodes (issue 26). */
#define CACHE_SETS 1024 /* power of two */
#define CACHE_WAYS 2

/*
 * A job's set for a test mode: the main scheduler (RUN_NOW) and backfill (WILL_RUN) test
 * the same pending job in turn, on different node bitmaps; one slot for both would have each
 * pass throw the other's answer away (every test a miss). Two ways a set: backfill tests a
 * job refused now again on the nodes free when it could start (another bitmap), every pass.
 */
static glue_decision_t slots[CACHE_SETS][CACHE_WAYS];
static uint8_t newest[CACHE_SETS]; /* the way stored last: the other one goes next */

static unsigned _set(uint32_t job_id, uint16_t mode)
{
	return ((job_id << 1) | (mode == SELECT_MODE_WILL_RUN)) & (CACHE_SETS - 1);
}

static uint64_t hits, misses;

/*
 * FNV-1a over the bitmap: availability changes the hash. Slurm 22.05 exposes the bitmap's
 * header size, so its words are hashed directly; later versions keep it private
 * (bitstring.c), so there the set bits are walked through the public API instead.
 */
extern uint64_t glue_hash_mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ULL;
}

extern uint64_t glue_hash_bitmap(uint64_t h, bitstr_t *b)
{
	if (!b)
		return h ^ 0x9e3779b97f4a7c15ULL;
	int64_t bits = bit_size(b);

	h = glue_hash_mix(h, (uint64_t) bits);
#ifdef BITSTR_OVERHEAD
	const int64_t *w = (const int64_t *) b + BITSTR_OVERHEAD;

	for (int64_t i = 0; i < (bits + 63) / 64; i++)
		h = glue_hash_mix(h, (uint64_t) w[i]);
#else
	for (bitoff_t i = bit_ffs(b); i >= 0; i = bit_ffs_from_bit(b, i + 1))
		h = glue_hash_mix(h, (uint64_t) i);
#endif
	return h;
}

extern void glue_decision_key(glue_decision_key_t *key, job_record_t *job_ptr, bitstr_t *bitmap,
			      uint32_t min_nodes, uint16_t mode)
{
	__typeof__(job_ptr->details) details = job_ptr->details;
	uint64_t h = 0xcbf29ce484222325ULL;

	memset(key, 0, sizeof(*key));
	key->job_id = job_ptr->job_id;
	key->epoch = morpheus_engine_epoch(glue_engine);
	key->min_nodes = min_nodes;
	key->mode = mode;
	key->part = job_ptr->part_ptr;
	h = glue_hash_bitmap(h, bitmap);
	h = glue_hash_bitmap(h, details ? details->req_node_bitmap : NULL);
	h = glue_hash_bitmap(h, details ? details->exc_node_bitmap : NULL);
	h = glue_hash_mix(h, (uint64_t) job_ptr->time_limit);
	key->nodes_hash = h;
}

static bool _same_key(const glue_decision_key_t *a, const glue_decision_key_t *b)
{
	return (a->job_id == b->job_id) && (a->epoch == b->epoch) &&
	       (a->nodes_hash == b->nodes_hash) && (a->min_nodes == b->min_nodes) &&
	       (a->mode == b->mode) && (a->part == b->part) && (a->epoch != UINT64_MAX);
}

static void _empty(glue_decision_t *d)
{
	morpheus_plan_destroy(&d->plan);
	xfree(d->why);
	FREE_NULL_BITMAP(d->pod_nodes);
	memset(d, 0, sizeof(*d));
}

extern glue_decision_t *glue_decision_find(const glue_decision_key_t *key)
{
	unsigned set = _set(key->job_id, key->mode);

	for (int w = 0; w < CACHE_WAYS; w++) {
		glue_decision_t *d = &slots[set][w];
		if ((d->kind != GLUE_DECISION_NONE) && _same_key(&d->key, key)) {
			newest[set] = w;
			return d;
		}
	}
	return NULL;
}

extern void glue_decision_count(bool hit)
{
	if (hit)
		hits++;
	else
		misses++;
	/* For `morpheus metrics` (morpheus_decision_cache_total): an uncontended lock. */
	if (glue_engine)
		morpheus_decision_cache_counts(glue_engine, hits, misses);
}

extern glue_decision_t *glue_decision_store(const glue_decision_key_t *key)
{
	unsigned set = _set(key->job_id, key->mode);
	int w = !newest[set];
	glue_decision_t *d;

	/* Another job's answers in the set (ids CACHE_SETS / 2 apart) go first. */
	for (int i = 0; i < CACHE_WAYS; i++)
		if (slots[set][i].key.job_id != key->job_id)
			w = i;
	d = &slots[set][w];
	_empty(d);
	d->key = *key;
	newest[set] = w;
	return d;
}

extern void glue_decision_forget(uint32_t job_id)
{
	for (int will_run = 0; will_run < 2; will_run++) {
		unsigned set = _set(job_id, will_run ? SELECT_MODE_WILL_RUN : SELECT_MODE_RUN_NOW);
		for (int w = 0; w < CACHE_WAYS; w++)
			if (slots[set][w].key.job_id == job_id)
				_empty(&slots[set][w]);
	}
}

extern void glue_decision_clear(void)
{
	for (int i = 0; i < CACHE_SETS; i++)
		for (int w = 0; w < CACHE_WAYS; w++)
			_empty(&slots[i][w]);
	debug("select/morpheus: decision cache cleared (%" PRIu64 " hits, %" PRIu64 " misses)",
	      hits, misses);
}

extern void glue_decision_counts(uint64_t *hit_count, uint64_t *miss_count)
{
	*hit_count = hits;
	*miss_count = misses;
}
