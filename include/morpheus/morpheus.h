/*
 * morpheus.h - the C interface of the Morpheus core, for the Slurm plugin shims.
 *
 * The core is Slurm-free C++; this header is all a shim sees. Conventions (after flux-sched's
 * planner.h): an opaque handle, x_open()/x_close(T **), functions return 0 on success and -1
 * with a filled morpheus_error_t on failure, strings returned to the caller are malloc'd and
 * freed with free(). Every function is safe to call from several threads: each takes the
 * engine's lock for what it reads or changes, and returns values or copies, never a pointer
 * into state that a reload replaces (the const char * returned below are static strings, or
 * owned by a plan the caller destroys).
 */
#ifndef MORPHEUS_H
#define MORPHEUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What kind of outcome a morpheus_error_t describes (its code). */
typedef enum morpheus_error_code {
	MORPHEUS_OK = 0,
	MORPHEUS_E_INPUT = 1,      /* a file or value someone gave: file, where, message (with the fix) */
	MORPHEUS_E_PENDING = 2,    /* not a failure: the job cannot be placed now; message says why */
	MORPHEUS_E_IMPOSSIBLE = 3, /* the job can never be placed on this fabric and inventory */
	MORPHEUS_E_SYSTEM = 4,     /* the operating system refused (I/O, permissions): sys_errno */
	MORPHEUS_E_NOMEM = 5,      /* out of memory */
	MORPHEUS_E_INTERNAL = 6,   /* a bug in Morpheus: the message is worth a report */
} morpheus_error_code_t;

typedef struct morpheus_error {
	char file[256];     /* the file at fault, or "" */
	char where[128];    /* "line 12", "$.links[3].to", "--mem-hot", or "" */
	char message[1024]; /* the whole message for people, fix included */
	int code;           /* morpheus_error_code_t; MORPHEUS_OK when the call succeeded */
	int sys_errno;      /* MORPHEUS_E_SYSTEM: the errno the system gave; otherwise 0 */
} morpheus_error_t;

typedef struct morpheus_engine morpheus_engine_t;

/* A job's request as the shims see it. Sizes in bytes, latency in ns, 0 = not asked. */
typedef struct morpheus_request {
	uint64_t job_id;
	uint32_t uid;
	uint32_t nodes;          /* nodes wanted (0: derive from gpus) */
	uint32_t gpus;           /* total GPUs when nodes is 0 */
	uint64_t hot_per_node;   /* --mem-hot, per node */
	uint64_t hot_latency_ns; /* --mem-hot-latency (0: DefaultHotLatency) */
	uint64_t cold_per_node;  /* --mem-cold, per node */
	/* --mem-hot-wait: 0 not given (DefaultHotWait), -1 hard, -2 no wait, else seconds. */
	int64_t hot_wait_s;
	/* When the job became eligible (unix seconds; 0: unknown, the wait never runs out): a
	 * soft bound lapses at waiting_since + its wait, and the job may then take hot memory
	 * beyond its bound (morpheus_plan_new, morpheus_reserve). */
	int64_t waiting_since;
	/* The job's time limit in seconds (0: none): with morpheus.conf HotWaitShare, a soft
	 * bound's wait ends after that share of it at the latest (expected completion). */
	int64_t time_limit_s;
	/* Optional: node_count flags, nonzero = Slurm lets the job use that node at all (its
	 * required node list, exclusions, partition); NULL = any node. morpheus_check_feasible
	 * judges the job on these alone; morpheus_plan_new ranks only pods that have one, and
	 * offers only these nodes. */
	const uint8_t *allowed_nodes;
	/* Checkpoint offload (--ckpt-size, --ckpt-period, --ckpt-period-max, --ckpt-replicas):
	 * the whole job's checkpoint in bytes (0: none), how often it is flushed, the longest
	 * period the job accepts when no window can be booked at its own (0: exactly the
	 * period), and the copies in separate failure domains (0: 1). */
	uint64_t ckpt_bytes;
	int64_t ckpt_period_s;
	int64_t ckpt_period_max_s;
	uint32_t ckpt_replicas;
} morpheus_request_t;

/* Loads morpheus.conf and the fabric, inventory and ledger it names. default_state_file is
 * used when the file sets no StateFile (select/morpheus passes StateSaveLocation's). */
morpheus_engine_t *morpheus_engine_open(const char *conf_path, const char *default_state_file,
					morpheus_error_t *err);
void morpheus_engine_close(morpheus_engine_t **engine);

/* Without background saves (morpheus_engine_set_background_saves) every change to the ledger
 * is durable (written, fsync'ed, renamed, directory fsync'ed) before morpheus_reserve()/
 * morpheus_release() return, and this has nothing to do. With them: -1 with the error while
 * the newest save failed (it is retried every second); it waits for nothing. */
int morpheus_engine_sync(morpheus_engine_t *engine, morpheus_error_t *err);

/* Re-reads morpheus.conf, fabric and inventory; validates everything before swapping it in.
 * On error the last good state stays and -1 is returned. The files are read and parsed
 * without the engine's lock, which is taken only for the swap: other calls (plan, reserve,
 * status) go on meanwhile. Reloads and inventory refreshes run one at a time. */
int morpheus_engine_reload(morpheus_engine_t *engine, morpheus_error_t *err);

/* Looks at the inventory file's mtime (at most every InventoryCheckInterval seconds, `now` in
 * unix seconds) and re-reads it when changed: 1 changed, 0 unchanged, -1 bad file (kept). */
int morpheus_engine_refresh_inventory(morpheus_engine_t *engine, int64_t now, morpheus_error_t *err);

/* The live fabric heat map (morpheus.conf HeatMap* keys). morpheus_report_latency: one
 * measurement by node_name of its load-to-use latency to blade_name's memory, at now (the
 * controller's unix seconds). node_name must be the node the caller authenticated: a node
 * reports only for itself. 0 accepted; -1 refused, with err saying why (unknown node or blade,
 * no path in the fabric, a latency of 0 or over 10ms), the map unchanged. */
int morpheus_report_latency(morpheus_engine_t *engine, const char *node_name, const char *blade_name,
			    uint64_t latency_ns, int64_t now, morpheus_error_t *err);
/* One settle round of the heat map at now: 1 when the latencies placement uses changed (the
 * epoch moved: decide pending jobs again), 0 when not, -1 on error. Builds the new model
 * without the engine's lock, like morpheus_engine_refresh_inventory. */
int morpheus_heat_map_settle(morpheus_engine_t *engine, int64_t now, morpheus_error_t *err);
/* morpheus_heat_map_settle when HeatMapSettleInterval seconds passed since the last round
 * (slurmctld's watcher calls it every second): 1 changed, 0 not (or not due), -1 error. */
int morpheus_heat_map_settle_due(morpheus_engine_t *engine, int64_t now, morpheus_error_t *err);
/* Running jobs whose hot memory, placed inside their bound, the live map now puts beyond it,
 * each once per time it goes beyond (logged as "beyond-bound" for morpheus explain): the
 * shim applies HeatMapBeyondBound to them. At most max ids; the rest wait for the next call. */
size_t morpheus_jobs_newly_beyond_bound(morpheus_engine_t *engine, uint64_t *ids, size_t max);
/* HeatMapBeyondBound: "none", "notify" or "requeue" (a static string). */
const char *morpheus_engine_beyond_bound_policy(const morpheus_engine_t *engine);
/* Slurm's address of every node (NodeName, NodeAddr, NodeHostname; count entries each), for the
 * rule that a node reports latencies only for itself: the munge credential of a report must
 * come from the named node's address (a node at a loopback or this host's address lives on the
 * controller's host). Replaces the previous table; resolves names that changed, so call it
 * WITHOUT holding a lock the scheduler needs. 0, or -1 with err. */
int morpheus_set_node_addresses(morpheus_engine_t *engine, const char *const *names,
				const char *const *addrs, const char *const *hostnames, size_t count,
				morpheus_error_t *err);

/* Config values the shims need, as of the call (a reload may change them later).
 * state_file: malloc'd copy (free() it), NULL if out of memory.
 * failure_policy: a static string, valid for ever. */
char *morpheus_engine_state_file(const morpheus_engine_t *engine);
const char *morpheus_engine_failure_policy(const morpheus_engine_t *engine); /* requeue|signal|none */
int morpheus_engine_status_port(const morpheus_engine_t *engine);
/* StatusAddress of morpheus.conf, "" when unset (the service then listens on the default):
 * a malloc'd copy (free() it), NULL if out of memory. */
char *morpheus_engine_status_address(const morpheus_engine_t *engine);

/* Fabric nodes are numbered 0..node_count-1; a shim maps its node table once per load. */
size_t morpheus_node_count(const morpheus_engine_t *engine);
int morpheus_node_index(const morpheus_engine_t *engine, const char *node_name); /* -1: unknown */
/* Counts the engine's reloads, so a shim knows when to rebuild its node map. */
uint64_t morpheus_engine_generation(const morpheus_engine_t *engine);
/* Moves whenever anything a decision reads may have changed (reservations, releases, reloads,
 * inventory, blade states, the plans PlanDepth keeps; a plan renewed unchanged is no change):
 * a shim may reuse what it told a pending job until it moves. */
uint64_t morpheus_engine_epoch(const morpheus_engine_t *engine);
/* Something decisions read changed outside the engine (a running job's end moved). */
void morpheus_engine_touch(morpheus_engine_t *engine);
/* Background saves (slurmctld): ledger changes take effect in memory and return at once; a
 * thread of the engine writes them durably right after (one save for the changes made while
 * the last one was under way), and morpheus_engine_sync() reports a save that failed (it is
 * retried every second). Closing the engine writes what is still owed. Off by default: every
 * change is durable before it returns. */
void morpheus_engine_set_background_saves(morpheus_engine_t *engine, int on);
/* Waits at most SECONDS for every change made so far to be on disk; 0 then, -1 if not. */
int morpheus_engine_flush(morpheus_engine_t *engine, int seconds);
/* A shim's decision cache totals (job tests answered from a kept decision, and decided
 * afresh), for `morpheus metrics` (morpheus_decision_cache_total). */
void morpheus_decision_cache_counts(morpheus_engine_t *engine, uint64_t hits, uint64_t misses);
/* Where a shim's scheduler time goes (issue 26), as totals since it loaded: the job tests of
 * jobs with Morpheus flags, per mode (the main scheduler's RUN_NOW, backfill's WILL_RUN), their
 * wall time and how much of it was cons_tres's own job test and the wait for the shim's lock;
 * and the starts (job_begin) of those jobs. For `morpheus metrics` (morpheus_job_test_*,
 * morpheus_job_begin_*). */
typedef struct morpheus_mode_timing {
	uint64_t tests;		  /* job tests */
	uint64_t cons_tres_runs;  /* cons_tres job tests they made (narrowed node sets) */
	double seconds;		  /* their wall time, all of it */
	double cons_tres_seconds; /* of which inside cons_tres */
	double lock_wait_seconds; /* of which waiting for the shim's lock */
	uint64_t cons_tres_remembered; /* runs not made: cons_tres had refused those nodes to the
					* same request since the last release (RUN_NOW) */
} morpheus_mode_timing_t;
typedef struct morpheus_test_timing {
	morpheus_mode_timing_t run_now, will_run;
	uint64_t begins;      /* job starts */
	double begin_seconds; /* their wall time (reservation, publishing, cons_tres's begin) */
} morpheus_test_timing_t;
void morpheus_test_timing(morpheus_engine_t *engine, const morpheus_test_timing_t *timing);

/* Parses the flag texts (each may be NULL or ""); -1 with err naming the flag. */
int morpheus_request_set_flags(morpheus_request_t *req, const char *hot, const char *hot_latency,
			       const char *cold, morpheus_error_t *err);
/* Parses --mem-hot-wait's text (NULL or "": unset); -1 with err naming the flag. */
int morpheus_request_set_wait(morpheus_request_t *req, const char *hot_wait, morpheus_error_t *err);
/* 1 when the job's soft bound has lapsed at `now` (its wait is over), 0 otherwise (hard,
 * nothing hot, still waiting): what a shim adds to what a decision depends on. */
int morpheus_bound_lapsed(morpheus_engine_t *engine, const morpheus_request_t *req, int64_t now);
/* Parses the checkpoint flags' texts (--ckpt-size, --ckpt-period, --ckpt-period-max,
 * --ckpt-replicas; each may be NULL or ""); -1 with err naming the flag and the fix, also when
 * they do not go together (a size without a period). */
int morpheus_request_set_checkpoint(morpheus_request_t *req, const char *size, const char *period,
				    const char *period_max, const char *replicas, morpheus_error_t *err);
/* 1 if the request asks Morpheus for anything (hot or cold memory, a checkpoint region). */
int morpheus_request_wants_memory(const morpheus_request_t *req);

/* At submission: 0 if the request could be placed some day, -1 with the reason otherwise.
 * Judged on the fabric file's latencies: a blade the heat map measures slow now makes a job
 * wait, never impossible. */
int morpheus_check_feasible(morpheus_engine_t *engine, const morpheus_request_t *req,
			    morpheus_error_t *err);

/* The forms of a job's size (0: not given), for the charge. */
typedef struct morpheus_job_size {
	uint32_t min_nodes;     /* -N MIN */
	uint32_t max_nodes;     /* -N MIN-MAX (a plain -N sets both) */
	uint32_t tasks;         /* -n */
	uint32_t gpus;          /* --gpus, whole job */
	uint32_t cluster_nodes; /* the nodes Slurm has */
} morpheus_job_size_t;
/* The most nodes Slurm can give a job of that size: its blade memory is charged for these. */
uint32_t morpheus_most_nodes(const morpheus_job_size_t *size);

/* The licences a job must carry so that accounting and QOS/association limits see its blade
 * memory (morpheus.conf LicenseHot=/LicenseCold=, GiB for `nodes` nodes): `named` (the job's
 * -L, or a Licenses= update; NULL: none) with Morpheus's charge merged in, never lowered by a
 * count the user named. engine NULL (its files failed to load): morpheus.conf is read from
 * conf_path alone, as the charge needs no fabric. 0: *licenses is malloc'd, NULL when the job
 * carries none; -1: err says why (an -L that names the charge among alternatives, an
 * unreadable morpheus.conf). */
int morpheus_charge_licenses(morpheus_engine_t *engine, const char *conf_path,
			     const morpheus_request_t *req, uint32_t nodes, const char *named,
			     char **licenses, morpheus_error_t *err);
/* Before a job starts: 0 when `licenses` (what it carries) cover the blade memory of `nodes`
 * nodes of req, -1 with the shortfall in err otherwise (what runs is never more than what
 * was charged). */
int morpheus_charge_covers(morpheus_engine_t *engine, const morpheus_request_t *req, uint32_t nodes,
			   const char *licenses, morpheus_error_t *err);

/* A ranked list of node sets to offer the node selector, best first. */
typedef struct morpheus_plan morpheus_plan_t;
/* free_nodes: node_count flags, nonzero = usable now. Returns NULL and the reason (in
 * err->message) when nothing fits now; the job should stay pending with that reason. */
morpheus_plan_t *morpheus_plan_new(morpheus_engine_t *engine, const morpheus_request_t *req,
				   const uint8_t *free_nodes, morpheus_error_t *err);
size_t morpheus_plan_steps(const morpheus_plan_t *plan);
/* Fills allowed[node_count] with the nodes of step k (1 = may be used). A step spread over
 * several pods allows exactly the nodes it assigns each pod (as many as the share, the first
 * free ones in node order): any wider set would let the node selector pick a split whose
 * memory the reservation refuses. */
void morpheus_plan_step_nodes(const morpheus_plan_t *plan, size_t k, uint8_t *allowed);
const char *morpheus_plan_step_pods(const morpheus_plan_t *plan, size_t k); /* "pod1" or "pod1,pod2" */
void morpheus_plan_destroy(morpheus_plan_t **plan);

/* Chooses blades for the nodes actually allocated and reserves them, saved to the state file
 * before returning. A second call for the same job replaces its reservation. */
int morpheus_reserve(morpheus_engine_t *engine, const morpheus_request_t *req,
		     const uint32_t *nodes, size_t node_count, morpheus_error_t *err);
/* 1 released, 0 the job held nothing (idempotent), -1 the state file could not be saved. */
int morpheus_release(morpheus_engine_t *engine, uint64_t job_id, morpheus_error_t *err);
/* A job requeued (its node failed, scontrol requeue): its checkpoint region and window are
 * kept for its next start, where it is told to restore (MORPHEUS_CKPT_RESTORE); the rest of
 * its memory is released. 2 region kept, 1 released (no checkpoint), 0 held nothing, -1 error.
 * morpheus_release() frees the region when the job ends for good. */
int morpheus_release_for_requeue(morpheus_engine_t *engine, uint64_t job_id, morpheus_error_t *err);
/* Jobs whose checkpoint region has a copy on a failed blade (restorable from a replica, or
 * lost): fills up to max ids, returns how many there are. */
size_t morpheus_jobs_checkpoint_degraded(morpheus_engine_t *engine, uint64_t *ids, size_t max);

/* Retries the releases that failed to save (their jobs ended; the memory is held until one
 * succeeds, shown as "releasing" in the views): the number released now, or -1 with the error
 * of one that still fails. The shim calls it once a second. */
int morpheus_retry_releases(morpheus_engine_t *engine, morpheus_error_t *err);

/* After a restart: releases every reservation whose job is not in running_ids, except the
 * checkpoint region a requeued job in pending_ids keeps for its restart (a pending job holds
 * nothing else). Returns the number released, or -1. */
int morpheus_reconcile(morpheus_engine_t *engine, const uint64_t *running_ids, size_t running_count,
		       const uint64_t *pending_ids, size_t pending_count, morpheus_error_t *err);

/* The job's placement, malloc'd, or NULL if it holds nothing:
 * summary: one line for a job field ("pod=pod1 hot=blade1a:32G@120ns,... cold=...");
 * environment: "MORPHEUS_POD=pod1\nMORPHEUS_HOT_BLADES=...\n" lines. */
char *morpheus_job_summary(morpheus_engine_t *engine, uint64_t job_id);
char *morpheus_job_environment(morpheus_engine_t *engine, uint64_t job_id);

/* Jobs holding memory on blades that are failed now; returns how many ids were written. */
size_t morpheus_jobs_on_failed_blades(morpheus_engine_t *engine, uint64_t *ids, size_t max);
/* Jobs that came onto a failed blade since the last call (hand each to BladeFailurePolicy once). */
size_t morpheus_jobs_newly_affected(morpheus_engine_t *engine, uint64_t *ids, size_t max);

/* Hot memory that moves closer (issue 27). A running job whose hot memory lies beyond its
 * bound (its soft bound lapsed) is moved inside it when memory there frees, at most
 * morpheus.conf MaxMoves at once. morpheus_engine_start_moves: reserves the targets of the
 * moves that can begin now beside the jobs' old memory (the ledger's "incoming" segments, so
 * no byte is ever booked twice), durably, logs each as the job's decision ("moving") and
 * moves the epoch; the number begun, -1 on error (nothing begun). The job's nodes then migrate
 * the pages (`morpheus node agent`). morpheus_engine_finish_move: the target becomes the job's
 * hot memory and the old region is freed; morpheus_engine_abandon_move: the target is freed.
 * Both: 1 done, 0 the job has no move under way, -1 on error. `now`: unix seconds. */
int morpheus_engine_start_moves(morpheus_engine_t *engine, int64_t now, morpheus_error_t *err);
int morpheus_engine_finish_move(morpheus_engine_t *engine, uint64_t job_id, int64_t now,
				morpheus_error_t *err);
int morpheus_engine_abandon_move(morpheus_engine_t *engine, uint64_t job_id, int64_t now,
				 morpheus_error_t *err);
/* Up to max jobs whose placement a move changed (begun, finished, given up) since the last
 * call, the rest staying for the next: their placement fields are to be published again. */
size_t morpheus_engine_take_moved(morpheus_engine_t *engine, uint64_t *ids, size_t max);

/* Decisions kept for `morpheus explain` of jobs that hold no reservation (pending rows):
 * writes up to max job ids, returns how many. The shim forgets those whose job is gone
 * (cancelled while pending, a --test-only probe). */
/* The jobs holding a reservation: fills up to MAX ids, returns how many there are. */
size_t morpheus_reserved_jobs(morpheus_engine_t *engine, uint64_t *ids, size_t max);
size_t morpheus_pending_decisions(morpheus_engine_t *engine, uint64_t *ids, size_t max);
void morpheus_forget_decision(morpheus_engine_t *engine, uint64_t job_id);

/* Status for `morpheus pools/jobs/metrics` as JSON (malloc'd). A non-privileged viewer sees
 * pool totals and the placement detail of its own jobs only. */
char *morpheus_status_json(morpheus_engine_t *engine, uint32_t viewer_uid, int privileged);

/* Starts the status service (a thread) on `port`: requests carry munge credentials; root and
 * the given uids (SlurmUser) are privileged. Restarting replaces a running one (and joins its
 * thread: prefer detaching it first, see below). Listens on StatusAddress, else 127.0.0.1. */
int morpheus_status_service_start(morpheus_engine_t *engine, int port, const uint32_t *privileged_uids,
				  size_t count, morpheus_error_t *err);

/* Slurm's PrivateData=jobs: unprivileged viewers see no other user's job at all. */
#define MORPHEUS_STATUS_PRIVATE_JOBS 0x1u

/* As morpheus_status_service_start, listening on StatusAddress of morpheus.conf, else on
 * `default_address` (the slurmctld's own address; NULL or "": 127.0.0.1). `flags`:
 * MORPHEUS_STATUS_PRIVATE_JOBS or 0. */
int morpheus_status_service_start_ex(morpheus_engine_t *engine, int port, const char *default_address,
				     const uint32_t *privileged_uids, size_t count, unsigned flags,
				     morpheus_error_t *err);

/* The listen address of the running service ("" when none), e.g. for the log. */
const char *morpheus_status_service_address(const morpheus_engine_t *engine);

/* Takes the running service (or NULL) off the engine without stopping it, so the caller can
 * stop it with morpheus_status_service_destroy outside its own locks. It answers through the
 * engine until destroyed: destroy it before morpheus_engine_close. */
typedef struct morpheus_status_service morpheus_status_service_t;
morpheus_status_service_t *morpheus_status_service_detach(morpheus_engine_t *engine);
void morpheus_status_service_destroy(morpheus_status_service_t **service); /* stops, joins; prompt */

/* Detach and destroy in one: joins the thread in the caller. */
void morpheus_status_service_stop(morpheus_engine_t *engine);

/* When a job that has to wait for blade memory could start (the answer select/morpheus gives
 * SELECT_MODE_WILL_RUN: sbatch --test-only, sched/backfill). Running jobs hold their
 * reservations until their ends: running_ends[i] (unix seconds, as slurmctld's end_time) for
 * running_ids[i]; a reservation whose job is not listed is held for ever. candidate_nodes:
 * node_count flags, nonzero = the job may use that node some day (busy or not). Each pod with
 * enough candidate nodes is tried, as decide() would, for `duration` seconds (<= 0: unlimited).
 * 0: *start >= now is the earliest start (the soonest pod; ties: the lower pod), and, when
 * pod_nodes is not NULL, pod_nodes[node_count] flags that pod's nodes. A job no single pod
 * can take (too few candidate nodes, or more hot memory than one pod's bound holds) is spread
 * as decide() spreads it on an empty cluster, and pod_nodes flags the nodes of all its pods.
 * -1: it never fits, even after every listed job ends; err says what is missing. */
int morpheus_earliest_start(morpheus_engine_t *engine, const morpheus_request_t *req,
			    const uint8_t *candidate_nodes, int64_t now, int64_t duration,
			    const uint64_t *running_ids, const int64_t *running_ends,
			    size_t running_count, int64_t *start, uint8_t *pod_nodes,
			    morpheus_error_t *err);

/* Blade memory kept for the PlanDepth highest-priority pending jobs (morpheus.conf).
 * morpheus_keep_plan: after morpheus_earliest_start() answered for job_id, keeps that plan
 * (its blades, held from `start`, the later of the memory's and the nodes' start, for the
 * duration asked) with the job's Slurm priority (higher first) and submit time (ties: earlier
 * first). Replaces the job's earlier plan. 1 kept, 0 not (not among the PlanDepth highest, or
 * no answer for job_id). Plans not renewed for 120 s expire. */
int morpheus_keep_plan(morpheus_engine_t *engine, uint64_t job_id, uint32_t priority, int64_t submit_time,
		       int64_t start, int64_t now);
/* Backfill asked again and the answer is the one it had (reused, not recomputed): the job's
 * plan, if it has one, is renewed as it stands. 1 renewed, 0 no plan. */
int morpheus_renew_plan(morpheus_engine_t *engine, uint64_t job_id, int64_t now);
/* The job started, ended or was cancelled: its plan goes (harmless when it has none). */
void morpheus_drop_plan(morpheus_engine_t *engine, uint64_t job_id);
/* Jobs with a live plan, highest priority first; returns how many ids were written. */
size_t morpheus_planned_jobs(morpheus_engine_t *engine, int64_t now, uint64_t *ids, size_t max);
/* RUN_NOW: would the job, placed on `nodes` (fabric indexes, as morpheus_reserve) and holding
 * that memory until now + duration (<= 0: unlimited), push back the planned start of a job
 * that outranks it (priority, then submit time)? Running jobs hold their memory until their
 * ends (as morpheus_earliest_start). 1: yes, *victim and *victim_start (its planned start) say
 * whose; 0: no (a job is never delayed by its own plan); -1: err says why (e.g. the memory
 * does not fit those nodes). */
int morpheus_delays_planned(morpheus_engine_t *engine, const morpheus_request_t *req, const uint32_t *nodes,
			    size_t node_count, int64_t now, int64_t duration, uint32_t priority,
			    int64_t submit_time, const uint64_t *running_ids, const int64_t *running_ends,
			    size_t running_count, uint64_t *victim, int64_t *victim_start,
			    morpheus_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* MORPHEUS_H */
