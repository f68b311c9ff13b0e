/*
 * node_setup.h - the compute-node side of the Morpheus SPANK plugin (remote context): NCCL
 * topology file and settings, cold-tier memory policy, cleanup at step end. A thin shim over
 * include/morpheus/morpheus_node.h; all decisions are the core's.
 */
#ifndef MORPHEUS_SPANK_NODE_SETUP_H
#define MORPHEUS_SPANK_NODE_SETUP_H

#include <slurm/spank.h>

/* What the main plugin knows from its options and plugstack.conf arguments. */
struct morpheus_spank_node_args {
	const char *nccl_hints;   /* --nccl-hints value ("on"/"off"), NULL: not given (default on) */
	const char *mem_cold;     /* --mem-cold value, NULL: not given (the job env is consulted) */
	const char *topology_xml; /* plugstack.conf node_topology=FILE, NULL: this machine */
	const char *tmpdir;       /* plugstack.conf tmpdir=DIR (%n: node name), NULL: $TMPDIR */
};

/*
 * From slurm_spank_user_init (remote): writes the step's NCCL topology file into the job's
 * temporary directory (0600, the user's) and sets NCCL_TOPO_FILE, NCCL_IB_HCA,
 * NCCL_CROSS_NIC, MORPHEUS_TOPOLOGY_ADDR where justified, never overwriting the user's.
 * Problems are reported with slurm_spank_log/slurm_error and never fail the step: returns 0.
 * args may be NULL.
 */
int morpheus_spank_node_setup(spank_t sp, const struct morpheus_spank_node_args *args);

/*
 * From slurm_spank_task_init (remote, the task's process before exec): with a cold-tier
 * request, sets the task's memory policy and MORPHEUS_HOT/COLD_NUMA_NODES. Returns 0.
 */
int morpheus_spank_node_task(spank_t sp, const struct morpheus_spank_node_args *args);

/* From slurm_spank_exit (remote): removes the file morpheus_spank_node_setup wrote. Returns 0. */
int morpheus_spank_node_cleanup(spank_t sp);

/* The value of "KEY=VALUE" among the plugin's plugstack.conf arguments (key: "node_topology="), or NULL. */
const char *morpheus_spank_arg(int ac, char **av, const char *key);

#endif /* MORPHEUS_SPANK_NODE_SETUP_H */
