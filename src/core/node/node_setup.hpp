// A job's setup on one compute node: the NCCL topology file and the fabric-derived NCCL
// settings its placement justifies, the cold-tier memory policy of each task, and the
// environment and warnings that go back to the job. What the SPANK shim's C calls run.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "node_tiers.hpp"
#include "node_topology.hpp"
#include "morpheus/morpheus_env.h"

namespace morpheus {

// The job as the node sees it; every field comes from Slurm through the shim.
struct NodeJob {
    uint64_t job_id = 0;
    uint32_t step_id = 0;
    long uid = -1, gid = -1;  // the job's user (-1: leave files to the caller's identity)
    std::string tmpdir;  // the site's node-local directory, "%n" = node_name ("": $TMPDIR, else /tmp)
    std::string node_name;  // this node's Slurm name ("": hwloc's host name)
    int step_node_index = -1;  // this node's index in SLURM_STEP_NODELIST (wins over node_name); -1: unknown
    std::string topology_xml;  // read this hwloc XML instead of the machine ("": live)
    int nccl_hints = -1;  // 1 on, 0 off (--nccl-hints=off), -1: MORPHEUS_NCCL_HINTS, default on
    std::optional<std::string> mem_cold;  // --mem-cold as given; nullopt: from the environment
    // The job's environment as the user and Slurm set it (nullopt: unset).
    std::function<std::optional<std::string>(const std::string &)> getenv;
};

using EnvList = std::vector<std::pair<std::string, std::string>>;

struct NodeSetup {
    std::string nccl_xml;  // the NCCL topology to write ("": none justified)
    std::string nccl_topo_file;  // where it was written (prepare_node only)
    EnvList env;  // to set without overwriting the user's values
    std::vector<std::string> warnings;  // for the job's stderr
};

// What the job gets on this node, decided from a topology already read; nothing is written.
// Each NCCL setting appears only when the placement justifies it and the user has not set it:
//  NCCL_TOPO_FILE   the node has NVIDIA GPUs (file text in nccl_xml; the path is added by
//                   prepare_node)
//  NCCL_IB_HCA      "=mlx5_0,mlx5_1": the NICs nearest the job's GPUs (SLURM_STEP_GPUS or
//                   SLURM_JOB_GPUS), when every one of them has an RDMA NIC behind its PCIe switch
//  NCCL_CROSS_NIC   0 (rail-aligned) when, besides, the GPUs have one NIC each and the job
//                   spans several nodes of one pod
//  MORPHEUS_NODE_POD this node's pod: the user's MORPHEUS_NODE_POD, this node's entry in
//                   MORPHEUS_POD_NODES (set by select/morpheus), or MORPHEUS_POD when it names one
//  MORPHEUS_TOPOLOGY_ADDR (+ _PATTERN)  "pod.switch.node" for rank ordering, from that pod
//                   and the leaf switch of SLURM_TOPOLOGY_ADDR
// A value counts as the user's unless an earlier step of ours set it (MORPHEUS_SET_ENV): srun
// hands the batch host's values to every node, and those are recomputed here.
// and, with a cold-tier request (--mem-cold / MORPHEUS_MEM_COLD / MORPHEUS_COLD_BYTES), a
// warning when the node has no CPU-less NUMA node.
NodeSetup plan_node(const NodeJob &job, const NodeTopology &t);

// plan_node on the job's topology, then writes the NCCL file (mode 0600, the job's user's)
// into the job's temporary directory and adds NCCL_TOPO_FILE and MORPHEUS_NCCL_TOPO_FILE.
NodeSetup prepare_node(const NodeJob &job);

// For one task, in the task's process before exec: with a cold-tier request, chooses the
// tiers for the task's CPUs (task_cpus; empty: read its binding) and, when `apply`, sets the
// memory policy (MORPHEUS_COLD_POLICY=bind|interleave, default bind). A user's
// MORPHEUS_COLD_NUMA_NODES chooses the cold nodes instead. Returns the MORPHEUS_*_NUMA_NODES
// env and warnings; failures to bind are warnings, not errors: the job runs unbound.
NodeSetup bind_task(const NodeJob &job, const NodeTopology &t, const std::vector<unsigned> &task_cpus, bool apply);

// bind_task for the calling task: nothing (and no hwloc) without a cold-tier request; else
// reads the CPUs and NUMA nodes (no PCI) and applies the policy, unless the job names an XML
// topology, which describes another machine and is only planned for.
NodeSetup bind_this_task(const NodeJob &job);

// Whether the job asks for cold memory: --mem-cold as given, the MORPHEUS_MEM_COLD request,
// or the placement's MORPHEUS_COLD_BYTES. A malformed value adds a warning and counts as no.
bool wants_cold_memory(const NodeJob &job, std::vector<std::string> *warnings = nullptr);

// Removes a file prepare_node wrote: only a regular file named like ours and, when uid >= 0,
// owned by uid. Returns true when removed, false when absent; throws InputError otherwise.
bool cleanup_node_file(const std::string &path, long uid);

// What prepare_node set for this step, NAME=VALUE entries joined by kSetEnvSeparator: a later
// step treats a variable whose value still matches as ours to recompute, not as the user's.
constexpr const char *kSetEnvName = MORPHEUS_ENV_SET_ENV;
constexpr char kSetEnvSeparator = '|';

// Slurm's step ids for the batch script and the first of its other special steps (slurm.h).
constexpr uint32_t kBatchStepId = 0xfffffffb;
constexpr uint32_t kFirstSpecialStepId = 0xfffffff0;

// The name every NCCL topology file of ours starts with.
constexpr const char *kNcclFileStem = "morpheus-nccl-topo";

}  // namespace morpheus
