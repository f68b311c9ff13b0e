/*
 * morpheus_decision_cache.h - what a pending job was told, kept until something it depends on
 * changes (morpheus_decision_cache.c). Private to plugins/common; callers hold glue_lock.
 */
#ifndef MORPHEUS_DECISION_CACHE_H
#define MORPHEUS_DECISION_CACHE_H

#include <inttypes.h>

#include "morpheus_glue.h"

/* Everything a decision depends on. */
typedef struct glue_decision_key {
	uint32_t job_id;
	uint64_t epoch;	     /* morpheus_engine_epoch() */
	uint64_t nodes_hash; /* the offered bitmap, the job's required/excluded nodes, time limit */
	uint32_t min_nodes;
	uint16_t mode;	     /* SELECT_MODE_* */
	const void *part;    /* the partition it was tested for */
} glue_decision_key_t;

typedef enum glue_decision_kind {
	GLUE_DECISION_NONE = 0,
	GLUE_DECISION_PLAN,    /* placed: the node sets to offer cons_tres (plan) */
	GLUE_DECISION_REFUSED, /* Morpheus refused it now (why, code); WILL_RUN: when it fits */
} glue_decision_kind_t;

typedef struct glue_decision {
	glue_decision_key_t key;
	glue_decision_kind_t kind;
	morpheus_plan_t *plan; /* PLAN: owned by the cache */
	char *why;	       /* REFUSED: the reason (xmalloc'd) */
	int code;	       /* REFUSED: the core's error code */
	bool will_run;	       /* REFUSED, WILL_RUN: the memory fits at `start` on pod_nodes */
	int64_t start;
	bitstr_t *pod_nodes;   /* Slurm node indexes of the pods the memory fits on */
} glue_decision_t;

/* FNV-1a: h with one more value; h with the bitmap's bits (NULL hashes as a constant). Also
 * the refusal memo's key (morpheus_refusal_memo.c). */
extern uint64_t glue_hash_mix(uint64_t h, uint64_t v);
extern uint64_t glue_hash_bitmap(uint64_t h, bitstr_t *b);
/* The key of a job test: the engine's epoch now, and what Slurm offered. */
extern void glue_decision_key(glue_decision_key_t *key, job_record_t *job_ptr, bitstr_t *bitmap,
			      uint32_t min_nodes, uint16_t mode);
/* The kept decision for exactly that key, or NULL (decide afresh). */
extern glue_decision_t *glue_decision_find(const glue_decision_key_t *key);
/* A job test answered from a kept decision (hit) or decided afresh: counted, and published
 * for `morpheus metrics` (morpheus_decision_cache_total). */
extern void glue_decision_count(bool hit);
/* An empty slot for the key's decision (what was there before goes). */
extern glue_decision_t *glue_decision_store(const glue_decision_key_t *key);
/* A job that started or ended: its decision goes. */
extern void glue_decision_forget(uint32_t job_id);
/* Reconfigure and close: every decision goes (node indexes may have changed). */
extern void glue_decision_clear(void);
extern void glue_decision_counts(uint64_t *hits, uint64_t *misses);

#endif /* MORPHEUS_DECISION_CACHE_H */
