/*
 * morpheus_engine_glue.c - opens, reconfigures and closes the engine slurmctld places with,
 * and maps Slurm's node indexes and job records to the core's.
 */
#include "config.h"

#include <string.h>
#include <time.h>

#include "morpheus_decision_cache.h"
#include "morpheus_refusal_memo.h"

pthread_mutex_t glue_lock = PTHREAD_MUTEX_INITIALIZER;
bool glue_configured;
morpheus_engine_t *glue_engine;
char *glue_open_error;

/* Slurm node index -> fabric node index (-1: not in the fabric). */
static int *fabric_of;
static int fabric_of_cnt;
static uint64_t fabric_of_generation;
static bool nodes_changed = true;

extern void glue_touch_jobs(void)
{
	if (&last_job_update)
		last_job_update = time(NULL);
}

extern char *glue_err_text(const morpheus_error_t *err)
{
	if (err->file[0] && !strstr(err->message, err->file))
		return xstrdup_printf("%s: %s", err->file, err->message);
	return xstrdup(err->message[0] ? err->message : "unknown error");
}

/* Sets glue_engine from NULL (see morpheus_glue.h for why that keeps it valid unlocked). */
static void _open_locked(void)
{
	char *conf = get_extra_conf_path("morpheus.conf");
	char *state = xstrdup_printf("%s/morpheus_ledger.json", slurm_conf.state_save_location);
	morpheus_error_t err;

	xfree(glue_open_error);
	glue_engine = morpheus_engine_open(conf, state, &err);
	if (glue_engine) {
		char *ledger = morpheus_engine_state_file(glue_engine);
		/* The scheduler must not wait for the disk: two fsyncs per job start and end
		 * were most of a main scheduling cycle (issue 26). Recovery repairs what a crash
		 * loses (morpheus_recovery.c). */
		morpheus_engine_set_background_saves(glue_engine, 1);
		info("select/morpheus: engine open: %s, %zu fabric nodes, ledger %s", conf,
		     morpheus_node_count(glue_engine), ledger ? ledger : "?");
		free(ledger);
		glue_status_service_locked();
	} else {
		glue_open_error = glue_err_text(&err);
		error("select/morpheus: cannot open the engine, jobs asking for Morpheus memory stay pending until scontrol reconfigure succeeds: %s",
		      glue_open_error);
	}
	nodes_changed = true;
	xfree(conf);
	xfree(state);
}

extern void placement_open(void)
{
	slurm_mutex_lock(&glue_lock);
	glue_configured = true;
	_open_locked();
	glue_watcher_start_locked();
	slurm_mutex_unlock(&glue_lock);
}

extern void placement_close(void)
{
	glue_watcher_stop();
	/* The service answers through the engine: joined (outside glue_lock) before it closes. */
	slurm_mutex_lock(&glue_lock);
	glue_status_service_detach_locked();
	slurm_mutex_unlock(&glue_lock);
	glue_retire_status_service();
	slurm_mutex_lock(&glue_lock);
	glue_decision_clear();
	morpheus_engine_close(&glue_engine);
	xfree(glue_open_error);
	xfree(fabric_of);
	fabric_of_cnt = 0;
	glue_configured = false;
	slurm_mutex_unlock(&glue_lock);
}

extern bool placement_active(void)
{
	return glue_engine != NULL;
}

extern const char *placement_open_error(void)
{
	return glue_open_error;
}

extern void placement_nodes_changed(void)
{
	glue_resources_released();
	slurm_mutex_lock(&glue_lock);
	nodes_changed = true;
	slurm_mutex_unlock(&glue_lock);
}

extern void glue_reconfigure_locked(void)
{
	morpheus_error_t err;

	if (!glue_engine) {
		_open_locked(); /* reconfigure after a failed open: retry */
	} else {
		/* Parsed without glue_lock (see morpheus_glue.h: `glue_engine` stays alive); the
		 * core swaps under its own lock, so the watcher and the status service go on
		 * meanwhile. */
		morpheus_engine_t *e = glue_engine;
		int rc;

		slurm_mutex_unlock(&glue_lock);
		rc = morpheus_engine_reload(e, &err);
		slurm_mutex_lock(&glue_lock);
		if (rc < 0) {
			char *why = glue_err_text(&err);
			error("select/morpheus: reload failed, keeping the last good configuration: %s",
			      why);
			xfree(why);
		} else {
			info("select/morpheus: reloaded morpheus.conf, fabric and inventory");
			nodes_changed = true;
			glue_status_service_locked();
		}
	}
}

extern void glue_refresh_node_map_locked(void)
{
	uint64_t gen = morpheus_engine_generation(glue_engine);
	node_record_t *node_ptr;
	int mapped = 0;

	if (!nodes_changed && fabric_of && (fabric_of_cnt == node_record_count) &&
	    (gen == fabric_of_generation))
		return;

	glue_decision_clear(); /* kept answers name nodes by the old indexes */
	xfree(fabric_of);
	fabric_of_cnt = node_record_count;
	fabric_of = xcalloc(MAX(fabric_of_cnt, 1), sizeof(int));
	for (int i = 0; i < fabric_of_cnt; i++)
		fabric_of[i] = -1;
	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		if ((fabric_of[i] = morpheus_node_index(glue_engine, node_ptr->name)) >= 0)
			mapped++;
	}
	fabric_of_generation = gen;
	nodes_changed = false;
	verbose("select/morpheus: %d of %d Slurm nodes are in the fabric (%zu fabric nodes)",
		mapped, fabric_of_cnt, morpheus_node_count(glue_engine));
}

extern int glue_fabric_index(int slurm_index)
{
	return (slurm_index < fabric_of_cnt) ? fabric_of[slurm_index] : -1;
}

extern int glue_job_request(job_record_t *job_ptr, uint32_t nodes, morpheus_request_t *req,
			    morpheus_error_t *err)
{
	memset(req, 0, sizeof(*req));
	req->job_id = job_ptr->job_id;
	req->uid = job_ptr->user_id;
	req->nodes = nodes ? nodes : 1;
	/* A soft bound's wait runs from when the job could first start (sbatch --begin). */
	if (job_ptr->details)
		req->waiting_since = (int64_t) MAX(job_ptr->details->submit_time,
						   job_ptr->details->begin_time);
	/* Minutes in Slurm; NO_VAL (not set yet: the partition's) and INFINITE give none. */
	if (job_ptr->time_limit != NO_VAL && job_ptr->time_limit != INFINITE)
		req->time_limit_s = (int64_t) job_ptr->time_limit * 60;
	return morpheus_request_from_env(job_ptr->spank_job_env, job_ptr->spank_job_env_size, req,
					 err);
}
