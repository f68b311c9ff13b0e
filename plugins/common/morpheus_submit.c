/*
 * morpheus_submit.c - job_submit's check: a Morpheus request that is malformed, or that no
 * empty cluster could take, is refused at submission; one that fits gets its blade memory as
 * licenses.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "morpheus_glue.h"

/* Sets allowed[] for the fabric nodes of a required node list (names outside the fabric
 * are Slurm's to judge); returns how many names the list has. */
static int _required_nodes(const char *req_nodes, uint8_t *allowed)
{
	struct hostlist *hl = hostlist_create(req_nodes); /* hostlist_t differs by release */
	char *name;
	int count = 0;

	if (!hl)
		return 0;
	while ((name = hostlist_shift(hl))) {
		int f = morpheus_node_index(glue_engine, name);
		if (f >= 0)
			allowed[f] = 1;
		count++;
		free(name);
	}
	hostlist_destroy(hl);
	return count;
}

/* Submission: what the job asks of nodes and GPUs, as the core counts them. Slurm fills in
 * min_nodes from --gpus only later, so a --gpus=16 job is 2 nodes of 8 GPUs here, not 1. */
static void _submit_request(const job_desc_msg_t *job_desc, morpheus_request_t *req)
{
	uint32_t gpus = glue_tres_gpus(job_desc->tres_per_job);
	uint32_t per_node = glue_tres_gpus(job_desc->tres_per_node);
	bool nodes_set = (job_desc->min_nodes != NO_VAL) && job_desc->min_nodes;

	req->nodes = nodes_set ? job_desc->min_nodes : 1;
	if (!nodes_set && gpus) {
		/* 0: the core derives the nodes from each pod's GPUs per node */
		req->nodes = per_node ? (gpus + per_node - 1) / per_node : 0;
		req->gpus = gpus;
	}
}

/* Whether the request could ever be placed, confined to a required node list when it names
 * as many nodes as the job needs (more nodes than listed may come from anywhere): SLURM_SUCCESS,
 * or the refusal with the reason in *err_msg. */
static int _check_feasible_locked(morpheus_request_t *req, const char *req_nodes, uint32_t uid,
				  char **err_msg)
{
	morpheus_error_t err;
	uint8_t *allowed = NULL;
	int rc = SLURM_SUCCESS;

	if (req_nodes && req_nodes[0]) {
		allowed = xcalloc(MAX(morpheus_node_count(glue_engine), 1), 1);
		if (!req->nodes || (_required_nodes(req_nodes, allowed) < req->nodes))
			xfree(allowed);
	}
	req->allowed_nodes = allowed;
	if (morpheus_check_feasible(glue_engine, req, &err) < 0) {
		*err_msg = glue_err_text(&err);
		info("select/morpheus: request by uid %u refused: %s", uid, *err_msg);
		rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	}
	req->allowed_nodes = NULL;
	xfree(allowed);
	return rc;
}

extern int placement_submit_check(job_desc_msg_t *job_desc, uint32_t uid,
				  char **err_msg)
{
	morpheus_request_t req;
	morpheus_error_t err;
	int rc = SLURM_SUCCESS, wants;

	if (!glue_configured)
		return SLURM_SUCCESS;
	memset(&req, 0, sizeof(req));
	req.uid = uid;
	_submit_request(job_desc, &req);
	if ((wants = morpheus_request_from_env(job_desc->spank_job_env,
					       job_desc->spank_job_env_size, &req, &err)) < 0) {
		*err_msg = glue_err_text(&err);
		return ESLURM_INVALID_TRES; /* closest code to "a resource request is malformed" */
	}
	if (!wants)
		return SLURM_SUCCESS;

	slurm_mutex_lock(&glue_lock);
	/* No engine: whether it fits waits for the files to be fixed (job_test holds the job
	 * meanwhile), but the charge needs no fabric: the job is never free. */
	if (glue_engine)
		rc = _check_feasible_locked(&req, job_desc->req_nodes, uid, err_msg);
	if (rc == SLURM_SUCCESS)
		rc = glue_charge_locked(&req,
					glue_most_nodes(job_desc->min_nodes, job_desc->max_nodes,
							job_desc->num_tasks,
							job_desc->tres_per_job),
					job_desc->licenses, &job_desc->licenses, err_msg);
	if (rc == SLURM_SUCCESS)
		debug("select/morpheus: submission licenses %s", job_desc->licenses);
	slurm_mutex_unlock(&glue_lock);
	return rc;
}

static int _modify_check(job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t uid,
			 char **err_msg);

/*
 * job_modify sees every update a user or admin makes (scontrol update, before Slurm applies
 * it). A Morpheus job's charge follows its new size and can never be lowered by a Licenses=
 * update; a pending job whose new node list or size can never be placed is refused with the
 * reason; a pending job that still fits keeps pending, and job_test decides it afresh.
 */
extern int placement_modify_check(job_desc_msg_t *job_desc, job_record_t *job_ptr,
				  uint32_t uid, char **err_msg)
{
	char *logged_only = NULL; /* 22.05: job_modify has no err_msg */
	int rc;

	rc = _modify_check(job_desc, job_ptr, uid, err_msg ? err_msg : &logged_only);
	if (logged_only)
		info("select/morpheus: update of %pJ by uid %u refused: %s", job_ptr, uid,
		     logged_only);
	xfree(logged_only);
	return rc;
}

static int _modify_check(job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t uid,
			 char **err_msg)
{
	__typeof__(job_ptr->details) details = job_ptr->details;
	morpheus_request_t req;
	morpheus_error_t err;
	uint32_t min_nodes, max_nodes, tasks;
	const char *tres, *req_nodes;
	char *licenses = NULL;
	bool resized, placed_again;
	int rc = SLURM_SUCCESS;

	if (!glue_configured || !details || (glue_job_request(job_ptr, 1, &req, &err) != 1))
		return SLURM_SUCCESS;
	/* A running job's end moves: the "when?" kept for jobs waiting for its memory is stale. */
	if ((job_desc->time_limit != NO_VAL) && IS_JOB_RUNNING(job_ptr)) {
		slurm_mutex_lock(&glue_lock);
		if (glue_engine)
			morpheus_engine_touch(glue_engine);
		slurm_mutex_unlock(&glue_lock);
	}
	resized = (job_desc->min_nodes != NO_VAL) || (job_desc->max_nodes != NO_VAL) ||
		  (job_desc->num_tasks != NO_VAL) || job_desc->tres_per_job;
	placed_again = resized || job_desc->req_nodes;
	if (!placed_again && !job_desc->licenses)
		return SLURM_SUCCESS; /* Comment=, Priority=, ...: nothing of ours */

	min_nodes = (job_desc->min_nodes != NO_VAL) ? job_desc->min_nodes : details->min_nodes;
	if (job_desc->max_nodes != NO_VAL)
		max_nodes = job_desc->max_nodes;
	else if (job_desc->min_nodes != NO_VAL)
		max_nodes = MAX(job_desc->min_nodes, details->max_nodes);
	else
		max_nodes = details->max_nodes;
	tasks = (job_desc->num_tasks != NO_VAL) ? job_desc->num_tasks : details->num_tasks;
	tres = job_desc->tres_per_job ? job_desc->tres_per_job : job_ptr->tres_per_job;
	req_nodes = job_desc->req_nodes ? job_desc->req_nodes : details->req_nodes;
	req.nodes = min_nodes ? min_nodes : 1;

	slurm_mutex_lock(&glue_lock);
	if (glue_engine && placed_again && IS_JOB_PENDING(job_ptr))
		rc = _check_feasible_locked(&req, req_nodes, uid, err_msg);
	/* A running job's licences are Slurm's to keep (a shrink only lowers its use). */
	if ((rc == SLURM_SUCCESS) && (IS_JOB_PENDING(job_ptr) || job_desc->licenses))
		rc = glue_charge_locked(&req, glue_most_nodes(min_nodes, max_nodes, tasks, tres),
					job_desc->licenses ? job_desc->licenses :
							     job_ptr->licenses,
					&licenses, err_msg);
	slurm_mutex_unlock(&glue_lock);
	if (rc != SLURM_SUCCESS) {
		xfree(licenses);
		return rc;
	}
	if (job_desc->licenses || xstrcmp(licenses, job_ptr->licenses)) {
		info("select/morpheus: %pJ updated by uid %u: licenses %s -> %s", job_ptr, uid,
		     job_ptr->licenses, licenses ? licenses : "(none)");
		xfree(job_desc->licenses);
		job_desc->licenses = licenses ? licenses : xstrdup("");
	} else {
		xfree(licenses);
	}
	return SLURM_SUCCESS;
}
