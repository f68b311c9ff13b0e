/*
 * morpheus_submit.c - job_submit's check: a Morpheus request that is malformed, or that no
 * empty cluster could take, is refused at submission; one that fits gets its blade memory as
 * licenses.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "morpheus_glue.h"

/* GPUs in a TRES request ("gres:gpu:16" in 22.05, "gres/gpu:a100:16" later; several entries
 * comma-separated): the count of the gpu entry, 0 when there is none. */
static uint32_t _tres_gpus(const char *tres)
{
	const char *p = tres;
	uint32_t total = 0;

	while (p && *p) {
		const char *end = strchr(p, ','), *colon;
		size_t len = end ? (size_t) (end - p) : strlen(p);
		char *entry = xstrndup(p, len), *name = entry;

		if (!xstrncmp(name, "gres:", 5) || !xstrncmp(name, "gres/", 5))
			name += 5;
		if (!xstrncmp(name, "gpu", 3) && ((name[3] == ':') || (name[3] == '\0')) &&
		    (colon = strrchr(name, ':')))
			total += (uint32_t) strtoul(colon + 1, NULL, 10);
		xfree(entry);
		p = end ? end + 1 : NULL;
	}
	return total;
}

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
	uint32_t gpus = _tres_gpus(job_desc->tres_per_job);
	uint32_t per_node = _tres_gpus(job_desc->tres_per_node);
	bool nodes_set = (job_desc->min_nodes != NO_VAL) && job_desc->min_nodes;

	req->nodes = nodes_set ? job_desc->min_nodes : 1;
	if (!nodes_set && gpus) {
		/* 0: the core derives the nodes from each pod's GPUs per node */
		req->nodes = per_node ? (gpus + per_node - 1) / per_node : 0;
		req->gpus = gpus;
	}
}

/* LicenseHot=/LicenseCold=: the job's blade memory as Slurm licenses (GiB), added to what it
 * asked, so sacct/sreport/QOS GrpTRES see it. A license the job names itself is left as is. */
static void _add_licenses(job_desc_msg_t *job_desc, const morpheus_request_t *req)
{
	char *lic = morpheus_request_licenses(glue_engine, req), *save = NULL, *item;
	char *copy;

	if (!lic)
		return;
	copy = xstrdup(lic);
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(item, ':');
		size_t len = colon ? (size_t) (colon - item) : strlen(item);
		bool named = false;
		/* Already named by the user (-L NAME or NAME:count)? */
		for (char *p = job_desc->licenses; p && *p;) {
			if (!strncmp(p, item, len) && strchr(":,@", p[len] ? p[len] : ','))
				named = true;
			p = strchr(p, ',');
			p = p ? p + 1 : NULL;
		}
		if (named)
			continue;
		if (job_desc->licenses && job_desc->licenses[0])
			xstrfmtcat(job_desc->licenses, ",%s", item);
		else {
			xfree(job_desc->licenses);
			job_desc->licenses = xstrdup(item);
		}
	}
	debug("select/morpheus: submission licenses %s", job_desc->licenses);
	xfree(copy);
	free(lic);
}

extern int placement_submit_check(job_desc_msg_t *job_desc, uint32_t uid,
				  char **err_msg)
{
	morpheus_request_t req;
	morpheus_error_t err;
	uint8_t *allowed = NULL;
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
	/* No engine: the request may be fine once the files are fixed; job_test holds it. */
	if (!glue_engine)
		goto fini;
	if (job_desc->req_nodes && job_desc->req_nodes[0]) {
		/* --nodelist: the job can only have those nodes (when they are as many as it
		 * needs; more nodes than listed may come from anywhere). */
		allowed = xcalloc(MAX(morpheus_node_count(glue_engine), 1), 1);
		if (!req.nodes || (_required_nodes(job_desc->req_nodes, allowed) < req.nodes))
			xfree(allowed);
		req.allowed_nodes = allowed;
	}
	if (morpheus_check_feasible(glue_engine, &req, &err) < 0) {
		*err_msg = glue_err_text(&err);
		info("select/morpheus: submission by uid %u rejected: %s", uid, *err_msg);
		rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	} else {
		_add_licenses(job_desc, &req);
	}
fini:
	slurm_mutex_unlock(&glue_lock);
	xfree(allowed);
	return rc;
}
