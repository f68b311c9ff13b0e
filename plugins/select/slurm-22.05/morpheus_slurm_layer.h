/*
 * morpheus_slurm_layer.h - what the glue in plugins/common (morpheus_glue.h) needs to know about
 * Slurm 22.05 (checked in src/slurmctld/node_scheduler.c).
 */
#ifndef MORPHEUS_SLURM_LAYER_H
#define MORPHEUS_SLURM_LAYER_H

/* SELECT_MODE_*: src/common/select.h in 22.05. */
#include "src/common/select.h"

/*
 * After a failed job_test, select_nodes() resets every reason but WAIT_BLOCK_D_ACTION, and
 * frees state_desc with the others: so that is the code our "Morpheus: ..." text rides on.
 * Backfill's will-run test leaves it alone, so the reason is set in RUN_NOW only.
 */
#define MORPHEUS_PENDING_REASON WAIT_BLOCK_D_ACTION
#define MORPHEUS_REASON_IN_WILL_RUN 0

#endif /* MORPHEUS_SLURM_LAYER_H */
