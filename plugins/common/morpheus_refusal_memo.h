/*
 * morpheus_refusal_memo.h - cons_tres's main-scheduler refusals, remembered until resources
 * are released (morpheus_refusal_memo.c). Private to plugins/common; callers hold glue_lock.
 */
#ifndef MORPHEUS_REFUSAL_MEMO_H
#define MORPHEUS_REFUSAL_MEMO_H

#include "morpheus_glue.h"

/* cons_tres's RUN_NOW verdict on nodes for the job, from the memo when a job of the same
 * request was refused those nodes since the last release; else cons_tres runs (try_fn). */
extern int glue_try_remembering(job_record_t *job_ptr, bitstr_t *nodes, uint32_t min_nodes,
				placement_try_fn try_fn, void *try_arg);
/* Something may have freed CPUs, memory or GRES (a job ended, was suspended or shrank, nodes
 * changed): every remembered refusal goes. Takes no lock (an atomic counter); also the
 * layers' placement_resources_released(). */
extern void glue_resources_released(void);
/* Runs of cons_tres the memo answered instead, since slurmctld started. */
extern uint64_t glue_refusals_remembered(void);

#endif /* MORPHEUS_REFUSAL_MEMO_H */
