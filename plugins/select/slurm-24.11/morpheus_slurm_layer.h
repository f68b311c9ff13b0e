/*
 * morpheus_slurm_layer.h - what the glue in plugins/common (morpheus_glue.h) needs to know about
 * Slurm 24.11 (checked in src/slurmctld/node_scheduler.c and src/plugins/sched/backfill).
 */
#ifndef MORPHEUS_SLURM_LAYER_H
#define MORPHEUS_SLURM_LAYER_H

/* SELECT_MODE_*, will_run_data_t: moved here from 22.05's src/common/select.h. */
#include "src/interfaces/select.h"

/*
 * 24.11 dropped WAIT_BLOCK_D_ACTION (22.05's reason that select_nodes() left alone): after a
 * failed job_test select_nodes() now always sets WAIT_RESOURCES and frees state_desc. Our
 * "Morpheus: ..." text is kept as state_desc of WAIT_RESOURCES ("waiting for resources" is
 * what it means), set also in backfill's will-run test, where sched/backfill leaves a reason
 * that is not WAIT_NO_REASON alone; every backfill pass re-asserts it. The price: a job that
 * the main scheduler skips because a job ahead of it in its partition failed (schedule(),
 * PART_FLAG_SCHED_FAILED) has a WAIT_RESOURCES reason replaced by "Priority" there, so such a
 * job (e.g. one Morpheus keeps off a planned job's memory) shows ours and "Priority" in turn
 * (measured: 73 and 27 of 100 reads, bf_interval=1, sched_interval=2).
 */
#define MORPHEUS_PENDING_REASON WAIT_RESOURCES
#define MORPHEUS_REASON_IN_WILL_RUN 1

#endif /* MORPHEUS_SLURM_LAYER_H */
