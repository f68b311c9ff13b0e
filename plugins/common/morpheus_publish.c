/*
 * morpheus_publish.c - writes a placed job's decision and environment into its job record,
 * where Slurm shows them.
 *
 * Where results go, and why there (checked in the 22.05 and 24.11 sources):
 *   - the decision: job_ptr->system_comment ("slurmctld's arbitrary comment"), shown by
 *     scontrol show job (SystemComment=), squeue -O SystemComment and sacct; admin_comment
 *     belongs to admins and is overwritten by scontrol update.
 *   - the environment: job_ptr->details->env_sup, which slurmctld appends to a batch script's
 *     environment (get_job_env) and sends in the allocation response that srun and salloc
 *     export (build_alloc_msg); tasks of srun inherit it. spank_job_env would only reach
 *     Prolog/Epilog.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "morpheus_glue.h"

/* Whether env_sup entry e is a MORPHEUS_* variable whose name ends in suffix ("": no het suffix). */
static bool _is_ours(const char *e, const char *suffix)
{
	const char *eq = strchr(e, '=');
	size_t name_len, suffix_len = strlen(suffix);
	char *het;

	if (!eq || xstrncmp(e, "MORPHEUS_", 9))
		return false;
	name_len = eq - e;
	het = xstrstr(e, "_HET_GROUP_");
	if (!suffix_len)
		return !het || (het > eq);
	return (name_len > suffix_len) && !strncmp(eq - suffix_len, suffix, suffix_len);
}

/*
 * Replaces the MORPHEUS_* entries of job_ptr's env_sup that end in suffix by the lines of env,
 * each name given that suffix (requeue runs again). The batch script sees env_sup.
 */
static void _set_job_environment(job_record_t *job_ptr, const char *env, const char *suffix)
{
	/* struct job_details in 22.05, job_details_t (anonymous struct) in 24.11 */
	__typeof__(job_ptr->details) details = job_ptr->details;
	char *copy, *line, *save = NULL;
	uint32_t kept = 0;

	for (uint32_t i = 0; i < details->env_cnt; i++) {
		if (_is_ours(details->env_sup[i], suffix))
			xfree(details->env_sup[i]);
		else
			details->env_sup[kept++] = details->env_sup[i];
	}
	details->env_cnt = kept;

	copy = xstrdup(env);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		xrecalloc(details->env_sup, details->env_cnt + 1, sizeof(char *));
		details->env_sup[details->env_cnt++] =
			xstrdup_printf("%s%s=%s", line, suffix, eq + 1);
	}
	xfree(copy);
}

/*
 * A heterogeneous job runs one batch script, on the leader's node, with the leader's env_sup;
 * srun hands that environment to the steps of every component. So each component's
 * placement also goes into the leader's env_sup as MORPHEUS_*_HET_GROUP_<offset> (Slurm's own
 * convention for per-component variables), and the node side picks the step's own.
 */
static void _publish_het_component(job_record_t *job_ptr, const char *env)
{
	job_record_t *leader = job_ptr;
	char suffix[32];

	if (!job_ptr->het_job_id)
		return;
	if ((job_ptr->het_job_id != job_ptr->job_id) && find_job_record)
		leader = find_job_record(job_ptr->het_job_id);
	if (!leader || !leader->details)
		return;
	snprintf(suffix, sizeof(suffix), "_HET_GROUP_%u", job_ptr->het_job_offset);
	_set_job_environment(leader, env, suffix);
}

extern void glue_publish(job_record_t *job_ptr)
{
	char *summary = morpheus_job_summary(glue_engine, job_ptr->job_id);
	char *env = morpheus_job_environment(glue_engine, job_ptr->job_id);

	if (summary) {
		xfree(job_ptr->system_comment);
		/* The field is shared (burst buffers write there too): the text must say whose. */
		if (!xstrncasecmp(summary, "morpheus", 8))
			job_ptr->system_comment = xstrdup(summary);
		else
			job_ptr->system_comment = xstrdup_printf("Morpheus: %s", summary);
		/* verbose, not info: slurmctld logs each start already ("sched: Allocate"), the
		 * placement is in SystemComment, and a line costs the start ~30 us (issue 26). */
		verbose("select/morpheus: %pJ placed: %s", job_ptr, summary);
	}
	if (env && job_ptr->details)
		_set_job_environment(job_ptr, env, "");
	if (env)
		_publish_het_component(job_ptr, env);
	free(summary); /* the core's strings are malloc'd */
	free(env);
	glue_touch_jobs();
}
