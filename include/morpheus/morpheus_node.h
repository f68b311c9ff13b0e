/*
 * morpheus_node.h - the C interface of the node-level core, for the SPANK plugin's remote
 * context (slurmstepd): NCCL topology file and settings, cold-tier memory policy, cleanup.
 *
 * Same conventions as morpheus.h: 0 on success, -1 with a filled morpheus_error_t; results
 * are allocated by the core and released with morpheus_node_result_free(). No function ever
 * lets a C++ exception out. The shim only translates Slurm's items into morpheus_node_job_t
 * and the result back into spank_setenv() calls and messages.
 */
#ifndef MORPHEUS_NODE_H
#define MORPHEUS_NODE_H

#include <stddef.h>
#include <stdint.h>

#include "morpheus/morpheus.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Looks NAME up in the job's environment (spank_getenv() in the shim). Returns 1 with the
 * NUL-terminated value in buf, 0 when NAME is unset, -1 when buf (len bytes) is too small
 * (the core then retries with a larger one).
 */
typedef int (*morpheus_env_lookup_fn)(void *ctx, const char *name, char *buf, size_t len);

typedef struct morpheus_node_job {
	uint64_t job_id;
	uint32_t step_id;
	int64_t uid, gid;         /* the job's user; files are given to it when called as root. -1: unknown */
	const char *tmpdir;       /* the site's node-local directory ("%n": node name); NULL or "": $TMPDIR, else /tmp */
	const char *node_name;    /* this node's Slurm name (SLURMD_NODENAME); NULL: the host name */
	const char *topology_xml; /* an hwloc XML to read instead of this machine (tests); NULL: live */
	int nccl_hints;           /* 1 on, 0 off (--nccl-hints=off), -1: MORPHEUS_NCCL_HINTS from the env, default on */
	const char *mem_cold;     /* --mem-cold as the option callback saw it; NULL: from the env */
	morpheus_env_lookup_fn lookup; /* the job's environment (user values, SLURM_*, MORPHEUS_*); NULL: empty */
	void *lookup_ctx;
	/* S_JOB_NODEID: this node's place in the step's SLURM_STEP_NODELIST, which names the node
	 * where SLURMD_NODENAME cannot (before tasks start it is the batch host's, inherited
	 * through srun). -1: unknown, use node_name. */
	int32_t step_node_index;
} morpheus_node_job_t;

typedef struct morpheus_node_result {
	char *nccl_topo_file;  /* the file written, NULL if none; remove it with morpheus_node_cleanup() */
	size_t env_count;
	char **env;            /* "NAME=VALUE": set each without overwriting (the user's value wins) */
	size_t warning_count;
	char **warnings;       /* whole lines ("morpheus: warning: ...") for the job's stderr */
} morpheus_node_result_t;

/*
 * Once per step and node, in slurm_spank_user_init (the user's identity): reads the node's
 * topology and, where the job's placement justifies it and the user has not set them, writes
 * the NCCL topology file (mode 0600) into the job's temporary directory and returns
 * NCCL_TOPO_FILE, NCCL_IB_HCA, NCCL_CROSS_NIC, MORPHEUS_TOPOLOGY_ADDR; with a cold-tier
 * request on a node without CXL memory, a warning. *out is NULL only on error.
 */
int morpheus_node_prepare(const morpheus_node_job_t *job, morpheus_node_result_t **out, morpheus_error_t *err);

/*
 * Per task, in slurm_spank_task_init (the task's process, before exec, single-threaded):
 * with a cold-tier request, sets the task's memory policy (local DRAM + the CXL nodes near
 * its CPUs) through hwloc and returns MORPHEUS_HOT_NUMA_NODES / MORPHEUS_COLD_NUMA_NODES.
 * A policy that cannot be set is a warning, not an error.
 */
int morpheus_node_bind_task(const morpheus_node_job_t *job, morpheus_node_result_t **out, morpheus_error_t *err);

/*
 * At step end (slurm_spank_exit, root): removes the file morpheus_node_prepare() wrote, only
 * if it is a regular file named like ours and owned by uid (-1: any owner). 1 removed,
 * 0 already gone, -1 refused or failed (err says why).
 */
int morpheus_node_cleanup(const char *path, int64_t uid, morpheus_error_t *err);

void morpheus_node_result_free(morpheus_node_result_t **res);

#ifdef __cplusplus
}
#endif

#endif /* MORPHEUS_NODE_H */
