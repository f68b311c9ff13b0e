/*
 * morpheus_charge.c - the blade-memory charge, as Slurm licences (LicenseHot=/LicenseCold=):
 * computed from the request alone (it needs no fabric, so a job submitted while the engine is
 * down is charged too), for the most nodes the job can be given in any form its size takes,
 * merged into the licences the job names so a user can never lower it, recomputed on every
 * update, and checked once more before the job starts: what runs is never more than what was
 * charged (issue 24).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "morpheus_glue.h"

extern uint32_t glue_tres_gpus(const char *tres)
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

static uint32_t _given(uint32_t v)
{
	return ((v == NO_VAL) || (v == INFINITE)) ? 0 : v;
}

extern uint32_t glue_most_nodes(uint32_t min_nodes, uint32_t max_nodes, uint32_t tasks,
				const char *tres_per_job)
{
	morpheus_job_size_t size = {
		.min_nodes = _given(min_nodes),
		.max_nodes = _given(max_nodes),
		.tasks = _given(tasks),
		.gpus = glue_tres_gpus(tres_per_job),
		.cluster_nodes = (uint32_t) MAX(node_record_count, 0),
	};

	return morpheus_most_nodes(&size);
}

extern int glue_charge_locked(const morpheus_request_t *req, uint32_t nodes, const char *named,
			      char **licenses, char **err_msg)
{
	char *conf = glue_engine ? NULL : get_extra_conf_path("morpheus.conf");
	char *merged = NULL;
	morpheus_error_t err;
	int rc;

	rc = morpheus_charge_licenses(glue_engine, conf, req, nodes, named, &merged, &err);
	xfree(conf);
	if (rc < 0) {
		char *why = glue_err_text(&err);
		*err_msg = xstrdup_printf("Morpheus: the job's blade memory cannot be charged: %s",
					  why);
		xfree(why);
		return ESLURM_INVALID_LICENSES;
	}
	xfree(*licenses);
	*licenses = merged ? xstrdup(merged) : NULL;
	free(merged); /* the core's strings are malloc'd */
	return SLURM_SUCCESS;
}

extern int glue_charge_covers_locked(job_record_t *job_ptr, const morpheus_request_t *req,
				     uint32_t nodes)
{
	morpheus_error_t err;

	if (morpheus_charge_covers(glue_engine, req, nodes, job_ptr->licenses, &err) == 0)
		return SLURM_SUCCESS;
	char *why = glue_err_text(&err);
	error("select/morpheus: %pJ not started: %s", job_ptr, why);
	glue_set_reason(job_ptr, why);
	xfree(why);
	return SLURM_ERROR;
}
