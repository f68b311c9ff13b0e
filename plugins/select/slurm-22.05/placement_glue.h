/*
 * placement_glue.h - what select_morpheus.c asks of the Morpheus core, in Slurm 22.05 terms:
 * translation between Slurm's records (job_record_t, node bitmaps) and morpheus.h.
 */
#ifndef MORPHEUS_PLACEMENT_GLUE_H
#define MORPHEUS_PLACEMENT_GLUE_H

#include "src/common/select.h"

/* The cons_tres entry points the glue wraps (same types as in slurm_select_ops_t). */
typedef int (*cons_job_test_fn)(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
				uint32_t max_nodes, uint32_t req_nodes, uint16_t mode,
				List preemptee_candidates, List *preemptee_job_list,
				bitstr_t *exc_core_bitmap);
typedef int (*cons_job_fn)(job_record_t *job_ptr);

/* slurmctld with SelectType=select/morpheus only: opens the engine (errors are logged and
 * keep Morpheus jobs pending; scontrol reconfigure retries). */
extern void placement_open(void);
extern void placement_close(void);
extern bool placement_active(void);

extern int placement_job_test(cons_job_test_fn job_test, job_record_t *job_ptr,
			      bitstr_t *bitmap, uint32_t min_nodes, uint32_t max_nodes,
			      uint32_t req_nodes, uint16_t mode, List preemptee_candidates,
			      List *preemptee_job_list, bitstr_t *exc_core_bitmap);
extern int placement_job_begin(cons_job_fn job_begin, cons_job_fn job_fini,
			       job_record_t *job_ptr);
extern void placement_job_fini(job_record_t *job_ptr);

/* After jobs are recovered (startup) or on reconfigure: reload files, reconcile the ledger. */
extern void placement_jobs_recovered(List jobs);
extern void placement_nodes_changed(void);

extern int placement_submit_check(char **spank_env, uint32_t spank_env_size,
				  uint32_t min_nodes, uint32_t uid, char **err_msg);

#endif /* MORPHEUS_PLACEMENT_GLUE_H */
