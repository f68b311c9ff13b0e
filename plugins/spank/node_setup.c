/*
 * node_setup.c - translation between SPANK's remote context and the core's node-level C ABI:
 * job items and the job's environment in, spank_setenv() and messages out. Nothing here
 * decides anything; see morpheus_node.h for what is set when.
 */
#include <limits.h>
#include <string.h>
#include <sys/types.h>

#include <slurm/spank.h>

#include "morpheus/morpheus_node.h"
#include "node_setup.h"

/*
 * The file this slurmstepd wrote in user_init, removed in slurm_spank_exit: both run in the
 * step's slurmstepd process, so the path never has to be trusted from the job's environment.
 */
static char nccl_file[PATH_MAX];

static int _lookup(void *ctx, const char *name, char *buf, size_t len)
{
	spank_err_t rc = spank_getenv((spank_t) ctx, name, buf, len > INT_MAX ? INT_MAX : (int) len);

	if (rc == ESPANK_SUCCESS)
		return 1;
	return rc == ESPANK_NOSPACE ? -1 : 0;
}

static int _hints(const struct morpheus_spank_node_args *args)
{
	if (!args || !args->nccl_hints)
		return -1;
	return strcmp(args->nccl_hints, "off") ? 1 : 0;
}

/* Fills job from the step; the strings point into the caller's buffers. */
static void _job(spank_t sp, const struct morpheus_spank_node_args *args, morpheus_node_job_t *job,
		 char *node, int node_len)
{
	uint32_t job_id = 0, step_id = 0, node_id = 0;
	uid_t uid;
	gid_t gid;

	memset(job, 0, sizeof(*job));
	job->uid = -1;
	job->gid = -1;
	if (spank_get_item(sp, S_JOB_ID, &job_id) == ESPANK_SUCCESS)
		job->job_id = job_id;
	if (spank_get_item(sp, S_JOB_STEPID, &step_id) == ESPANK_SUCCESS)
		job->step_id = step_id;
	if (spank_get_item(sp, S_JOB_UID, &uid) == ESPANK_SUCCESS)
		job->uid = uid;
	/* This node's index in the step's node list: the core names the node from it. */
	job->step_node_index = -1;
	if ((spank_get_item(sp, S_JOB_NODEID, &node_id) == ESPANK_SUCCESS) && (node_id <= INT32_MAX))
		job->step_node_index = (int32_t) node_id;
	if (spank_get_item(sp, S_JOB_GID, &gid) == ESPANK_SUCCESS)
		job->gid = gid;
	if (spank_getenv(sp, "SLURMD_NODENAME", node, node_len) == ESPANK_SUCCESS)
		job->node_name = node;
	job->tmpdir = args ? args->tmpdir : NULL; /* NULL: the core takes $TMPDIR, else /tmp */
	job->topology_xml = args ? args->topology_xml : NULL;
	job->nccl_hints = _hints(args);
	job->mem_cold = args ? args->mem_cold : NULL;
	job->lookup = _lookup;
	job->lookup_ctx = sp;
}

/* Sets the NAME=VALUE pairs the core chose (a value the user set is never among them). */
static void _apply(spank_t sp, const morpheus_node_result_t *res)
{
	for (size_t i = 0; i < res->env_count; i++) {
		char *eq = strchr(res->env[i], '=');
		spank_err_t rc;

		if (!eq)
			continue;
		*eq = '\0';
		/* The core left out every name the user set; what it returns replaces values an
		 * earlier step of ours set (srun hands the batch host's values to every node). */
		rc = spank_setenv(sp, res->env[i], eq + 1, 1);
		if ((rc != ESPANK_SUCCESS) && (rc != ESPANK_ENV_EXISTS))
			slurm_error("morpheus: cannot set %s: %s", res->env[i], spank_strerror(rc));
		*eq = '=';
	}
	/* Warnings are for the user: slurm_spank_log reaches the step's stderr. */
	for (size_t i = 0; i < res->warning_count; i++)
		slurm_spank_log("%s", res->warnings[i]);
}

/* What the node side computes, for the step (NCCL file, environment) or for one task (its
 * memory policy); either way the job runs without it when it fails: hints are an optimisation. */
typedef int (*node_call_fn)(const morpheus_node_job_t *job, morpheus_node_result_t **res,
			    morpheus_error_t *err);

static int _node_call(spank_t sp, const struct morpheus_spank_node_args *args, node_call_fn call,
		      const char *what)
{
	morpheus_node_job_t job;
	morpheus_node_result_t *res = NULL;
	morpheus_error_t err;
	char node[256];

	if (spank_context() != S_CTX_REMOTE)
		return 0;
	_job(sp, args, &job, node, sizeof(node));
	if (call(&job, &res, &err) < 0) {
		slurm_error("morpheus: no %s: %s", what, err.message);
		return 0;
	}
	if (res->nccl_topo_file) {
		strncpy(nccl_file, res->nccl_topo_file, sizeof(nccl_file) - 1);
		nccl_file[sizeof(nccl_file) - 1] = '\0';
	}
	_apply(sp, res);
	morpheus_node_result_free(&res);
	return 0;
}

int morpheus_spank_node_setup(spank_t sp, const struct morpheus_spank_node_args *args)
{
	return _node_call(sp, args, morpheus_node_prepare, "NCCL topology hints for this step");
}

int morpheus_spank_node_task(spank_t sp, const struct morpheus_spank_node_args *args)
{
	return _node_call(sp, args, morpheus_node_bind_task, "cold-tier memory policy for this task");
}

int morpheus_spank_node_cleanup(spank_t sp)
{
	morpheus_error_t err;
	uid_t uid;
	int64_t owner = -1;

	if ((spank_context() != S_CTX_REMOTE) || !nccl_file[0])
		return 0;
	if (spank_get_item(sp, S_JOB_UID, &uid) == ESPANK_SUCCESS)
		owner = uid;
	if (morpheus_node_cleanup(nccl_file, owner, &err) < 0)
		slurm_error("morpheus: %s", err.message);
	nccl_file[0] = '\0';
	return 0;
}

const char *morpheus_spank_arg(int ac, char **av, const char *key)
{
	size_t len = strlen(key);

	for (int i = 0; i < ac; i++) {
		if (av[i] && !strncmp(av[i], key, len))
			return av[i] + len;
	}
	return NULL;
}
