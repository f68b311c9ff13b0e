/*
 * morpheus_slurm_layer.h - what the glue in plugins/common (morpheus_glue.h) needs to know about
 * Slurm 26.05 (checked in src/slurmctld/node_scheduler.c and src/plugins/sched/backfill).
 */
#ifndef MORPHEUS_SLURM_LAYER_H
#define MORPHEUS_SLURM_LAYER_H

/* SELECT_MODE_*, will_run_data_t, resv_exc_t. */
#include "src/interfaces/select.h"

/*
 * As in 24.11: after a failed job_test select_nodes() sets WAIT_RESOURCES and frees
 * state_desc, so our "Morpheus: ..." text rides on WAIT_RESOURCES and is also set in
 * backfill's will-run test, which every backfill pass re-asserts (and, as there, the main
 * scheduler replaces it by "Priority" for a job behind one that failed in its partition).
 */
#define MORPHEUS_PENDING_REASON WAIT_RESOURCES
#define MORPHEUS_REASON_IN_WILL_RUN 1

/* 25.05 dropped job_requeue(uid, job_id, ...) and job_signal_id(): requeue and signal take
 * the job record (job_requeue_internal(), job_signal()). */
#define MORPHEUS_JOB_CALLS_BY_RECORD 1

#endif /* MORPHEUS_SLURM_LAYER_H */
