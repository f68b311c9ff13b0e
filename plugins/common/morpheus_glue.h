/*
 * morpheus_glue.h - what the files of the slurmctld glue share: glue_lock, the engine, the
 * Slurm-to-fabric node map, and the helpers every one of them calls. Private to
 * plugins/common; the layers see only morpheus_placement.h.
 *
 * The glue translates between slurmctld's job and node records and the Morpheus core
 * (include/morpheus/morpheus.h). No placement logic lives here: the core ranks, reserves and
 * explains; the glue maps node indexes, narrows bitmaps and writes results back into the job
 * record where Slurm shows them. Release-independent (see morpheus_placement.h): cons_tres's
 * job_test sits behind a callback and the pending-reason code comes from the layer's
 * morpheus_slurm_layer.h. One file per concern:
 *   morpheus_engine_glue.c        open, close, reconfigure; node map; a job's request
 *   morpheus_status_lifecycle.c   the status service started, restarted and joined
 *   morpheus_inventory_watcher.c  the thread that re-reads the inventory; BladeFailurePolicy
 *   morpheus_job_test.c           job_test: the plan's node sets, will-run, PlanDepth
 *   morpheus_pending_reason.c     "Morpheus: ..." as the job's pending reason
 *   morpheus_publish.c            the decision and environment written into the job record
 *   morpheus_reservation.c        job_begin, job_fini, a resized job: the ledger's reservations
 *   morpheus_recovery.c           startup and reconfigure: reconcile, restore running jobs
 *   morpheus_submit.c             job_submit's check, and the licenses it adds
 *
 * Names: glue_* are shared between these files and declared here; placement_* are the
 * interface in morpheus_placement.h. Everything else stays static in its file.
 *
 * Locking: slurmctld's locks first, then glue_lock (job_test holds slurmctld's when it takes
 * glue_lock); a call that may take slurmctld's locks, or that reads a file, runs without
 * glue_lock. Functions named *_locked are called with glue_lock held.
 *
 * The engine pointer outlives every call made without glue_lock: `glue_engine` is only set in
 * _open_locked() (from NULL: at init, or on a reconfigure after a failed open) and only freed
 * in placement_close(), which joins the watcher first, and which slurmctld never runs beside
 * a reconfigure (job_init). So a non-NULL `glue_engine` read under glue_lock stays valid while
 * the watcher or placement_jobs_recovered() use it unlocked; the core serialises reload and
 * inventory refresh between the two, and locks its own state.
 * job_test may hold glue_lock while a reload runs unlocked, yet never sees the fabric change
 * between its node map and its plan: reloads run only in job_init (reconfigure), under
 * slurmctld's job and node write locks, which job_test needs too; an inventory refresh keeps
 * the fabric (and the generation).
 */
#ifndef MORPHEUS_GLUE_H
#define MORPHEUS_GLUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

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

#ifndef MORPHEUS_JOB_CALLS_BY_RECORD
#define MORPHEUS_JOB_CALLS_BY_RECORD 0
#endif

/* slurmctld's, absent in client commands that load this plugin: referenced weakly and only
 * touched when the engine is open, which only happens in slurmctld. */
#pragma weak last_job_update
#pragma weak last_node_update
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

extern pthread_mutex_t glue_lock;
extern bool glue_configured;		/* SelectType=select/morpheus in slurmctld */
extern morpheus_engine_t *glue_engine;	/* NULL: not configured, or open failed */
extern char *glue_open_error;		/* why glue_engine is NULL when configured */

/* Clients reload the job table when last_job_update moves. */
extern void glue_touch_jobs(void);
/* One line for logs and users: the core's message is complete ("fix included"); the file is
 * added when the message does not name it. */
extern char *glue_err_text(const morpheus_error_t *err);

/* Node map (morpheus_engine_glue.c). */
extern void glue_refresh_node_map_locked(void);
/* Slurm node index -> fabric node index (-1: not in the fabric). */
extern int glue_fabric_index(int slurm_index);
/* 1 Morpheus job (req filled), 0 not one, -1 malformed request (err filled). */
extern int glue_job_request(job_record_t *job_ptr, uint32_t nodes, morpheus_request_t *req,
			    morpheus_error_t *err);
/* scontrol reconfigure: opens the engine again after a failed open, or re-reads its files. */
extern void glue_reconfigure_locked(void);

/* Status service (morpheus_status_lifecycle.c). */
extern void glue_status_service_locked(void);
extern bool glue_status_service_retired_locked(void);
extern void glue_status_service_detach_locked(void);
extern void glue_retire_status_service(void);

/* Inventory watcher (morpheus_inventory_watcher.c). */
extern void glue_watcher_start_locked(void);
extern void glue_watcher_stop(void);

/* Pending reason (morpheus_pending_reason.c). */
extern bool glue_reason_mode(uint16_t mode);
extern void glue_set_reason(job_record_t *job_ptr, const char *why);
extern void glue_clear_reason(job_record_t *job_ptr);

/* The job record (morpheus_publish.c, morpheus_reservation.c). */
extern void glue_publish(job_record_t *job_ptr);
extern int glue_reserve_locked(job_record_t *job_ptr, const morpheus_request_t *req,
			       morpheus_error_t *err);

/* The blade-memory charge (morpheus_charge.c). */
/* GPUs in a TRES request ("gres:gpu:16", "gres/gpu:a100:16"): the gpu entry's count, or 0. */
extern uint32_t glue_tres_gpus(const char *tres);
/* The most nodes a job of that size can be given (NO_VAL/0: not given). */
extern uint32_t glue_most_nodes(uint32_t min_nodes, uint32_t max_nodes, uint32_t tasks,
				const char *tres_per_job);
/* *licenses (xmalloc'd, may be NULL) := `named` with the charge for `nodes` nodes merged in,
 * never lowered; works with the engine down (reads morpheus.conf alone). SLURM_SUCCESS, or an
 * error code with *err_msg. */
extern int glue_charge_locked(const morpheus_request_t *req, uint32_t nodes, const char *named,
			      char **licenses, char **err_msg);
/* Before a start: SLURM_SUCCESS when the job's licences cover `nodes` nodes of its memory;
 * otherwise the job gets the reason and SLURM_ERROR. */
extern int glue_charge_covers_locked(job_record_t *job_ptr, const morpheus_request_t *req,
				     uint32_t nodes);

/* Recovery (morpheus_recovery.c). */
extern void glue_restore_running_if_due_locked(void);
extern bool glue_jobs_recovered_locked(void);

#endif /* MORPHEUS_GLUE_H */
