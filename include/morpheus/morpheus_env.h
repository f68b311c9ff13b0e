/*
 * morpheus_env.h - every MORPHEUS_* environment variable, for C and C++: who sets it, who
 * reads it. One list, so producer and consumer can never spell a name two ways.
 */
#ifndef MORPHEUS_ENV_H
#define MORPHEUS_ENV_H

/* The request: set by the SPANK plugin (spank_job_control_setenv) from the job's flags, read
 * by select/morpheus and job_submit/morpheus from the job's spank_job_env. */
#define MORPHEUS_ENV_MEM_HOT "MORPHEUS_MEM_HOT"
#define MORPHEUS_ENV_MEM_HOT_LATENCY "MORPHEUS_MEM_HOT_LATENCY"
#define MORPHEUS_ENV_MEM_COLD "MORPHEUS_MEM_COLD"
#define MORPHEUS_ENV_MEM_HOT_WAIT "MORPHEUS_MEM_HOT_WAIT"
#define MORPHEUS_ENV_NCCL_HINTS "MORPHEUS_NCCL_HINTS"
#define MORPHEUS_ENV_CKPT_SIZE "MORPHEUS_CKPT_SIZE"             /* --ckpt-size */
#define MORPHEUS_ENV_CKPT_PERIOD_ASKED "MORPHEUS_CKPT_PERIOD_ASKED" /* --ckpt-period */
#define MORPHEUS_ENV_CKPT_PERIOD_MAX "MORPHEUS_CKPT_PERIOD_MAX" /* --ckpt-period-max */
#define MORPHEUS_ENV_CKPT_REPLICAS "MORPHEUS_CKPT_REPLICAS"     /* --ckpt-replicas */

/* The placement: set by select/morpheus in the batch environment (env_sup), read by the job
 * and by the node side. A heterogeneous job also carries each component's as
 * NAME_HET_GROUP_<offset> (MORPHEUS_ENV_HET_SUFFIX). */
#define MORPHEUS_ENV_POD "MORPHEUS_POD"                     /* pod1 or pod1,pod2 */
#define MORPHEUS_ENV_POD_NODES "MORPHEUS_POD_NODES"         /* pod1=gpu[101-102];pod2=gpu201 */
#define MORPHEUS_ENV_HOT_BLADES "MORPHEUS_HOT_BLADES"       /* blade:size@latency,... */
#define MORPHEUS_ENV_HOT_BYTES "MORPHEUS_HOT_BYTES"
#define MORPHEUS_ENV_HOT_LATENCY_NS "MORPHEUS_HOT_LATENCY_NS"
#define MORPHEUS_ENV_HOT_BOUND_NS "MORPHEUS_HOT_BOUND_NS"
#define MORPHEUS_ENV_COLD_BLADES "MORPHEUS_COLD_BLADES"     /* blade:tier:size,... */
#define MORPHEUS_ENV_COLD_BYTES "MORPHEUS_COLD_BYTES"
#define MORPHEUS_ENV_HET_SUFFIX "_HET_GROUP_"

/* The checkpoint (issue 28), set by select/morpheus like the placement, read by the job, by
 * morpheus_ckpt_window() (morpheus_ckpt.h) and `morpheus ckpt`. The window is open at every
 * unix time t with (t mod PERIOD) in [PHASE, PHASE + WINDOW). */
#define MORPHEUS_ENV_CKPT_REGION "MORPHEUS_CKPT_REGION"   /* blade:size,... (copies in order) */
#define MORPHEUS_ENV_CKPT_BYTES "MORPHEUS_CKPT_BYTES"     /* one copy */
#define MORPHEUS_ENV_CKPT_COPIES "MORPHEUS_CKPT_COPIES"   /* intact/asked, e.g. 2/2 or 1/2 */
#define MORPHEUS_ENV_CKPT_PERIOD "MORPHEUS_CKPT_PERIOD"   /* seconds, as granted */
#define MORPHEUS_ENV_CKPT_PHASE "MORPHEUS_CKPT_PHASE"     /* seconds into the period */
#define MORPHEUS_ENV_CKPT_WINDOW "MORPHEUS_CKPT_WINDOW"   /* seconds the window lasts */
/* 1: the job restarts on the region it held (requeued) and an intact copy is there to read
 * back; 0: a first start, or nothing is left to restore (then MORPHEUS_CKPT_LOST=1). */
#define MORPHEUS_ENV_CKPT_RESTORE "MORPHEUS_CKPT_RESTORE"
#define MORPHEUS_ENV_CKPT_RESTORE_FROM "MORPHEUS_CKPT_RESTORE_FROM" /* blades of an intact copy */
#define MORPHEUS_ENV_CKPT_LOST "MORPHEUS_CKPT_LOST"       /* 1: every copy was on a failed blade */
/* The fabric's class for bulk traffic (morpheus-fabric(5) bulk_traffic), when it names one:
 * for the process that writes the checkpoint (`morpheus ckpt --env`), not for the training's
 * collectives. */
#define MORPHEUS_ENV_CKPT_IB_SL "MORPHEUS_CKPT_IB_SL"
#define MORPHEUS_ENV_CKPT_TRAFFIC_CLASS "MORPHEUS_CKPT_TRAFFIC_CLASS"

/* The node: set by the SPANK plugin per step and node (user_init), read by the tasks. */
#define MORPHEUS_ENV_NODE_POD "MORPHEUS_NODE_POD"
#define MORPHEUS_ENV_TOPOLOGY_ADDR "MORPHEUS_TOPOLOGY_ADDR"
#define MORPHEUS_ENV_TOPOLOGY_ADDR_PATTERN "MORPHEUS_TOPOLOGY_ADDR_PATTERN"
#define MORPHEUS_ENV_NCCL_TOPO_FILE "MORPHEUS_NCCL_TOPO_FILE"
#define MORPHEUS_ENV_SET_ENV "MORPHEUS_SET_ENV"             /* NAME=VALUE|... set by an earlier step */

/* The task: set per task (task_init) from the cold-tier choice; the user may set the policy
 * and the cold nodes. */
#define MORPHEUS_ENV_HOT_NUMA_NODES "MORPHEUS_HOT_NUMA_NODES"
#define MORPHEUS_ENV_COLD_NUMA_NODES "MORPHEUS_COLD_NUMA_NODES"
#define MORPHEUS_ENV_COLD_POLICY "MORPHEUS_COLD_POLICY"     /* bind (default) | interleave */

/* The morpheus command: where morpheus.conf and the status service are. */
#define MORPHEUS_ENV_CONF "MORPHEUS_CONF"
#define MORPHEUS_ENV_SERVER "MORPHEUS_SERVER"

#endif /* MORPHEUS_ENV_H */
