// Memory tiers on a compute node: which NUMA nodes serve a task's hot (local DRAM) and cold
// (CPU-less: CXL) memory, the memory policy that places them, and applying it through hwloc.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "node_topology.hpp"

namespace morpheus {

struct TierChoice {
    std::vector<unsigned> hot;  // DRAM nodes local to the CPUs
    std::vector<unsigned> cold;  // CPU-less nodes near those CPUs, nearest first; empty: none here
    std::vector<std::string> warnings;
};

// For the CPUs `cpus` (os indexes; empty: the whole node): hot = the DRAM nodes holding them,
// cold = the far nodes whose locality includes any of them (a socket's expander before a pool
// shared by the sockets); when none is local to them, every far node of the node.
TierChoice choose_tiers(const NodeTopology &t, const std::vector<unsigned> &cpus);

enum class ColdPolicy {
    // MPOL_BIND to hot + cold: pages come from the nearest allowed node first (local DRAM),
    // overflow to the chosen CXL nodes and never to another socket's DRAM; with the kernel's
    // memory tiering, cold pages are demoted to those CXL nodes.
    Bind,
    // MPOL_INTERLEAVE over hot + cold: bandwidth expansion, pages spread round-robin.
    Interleave,
};
ColdPolicy parse_cold_policy(const std::string &text);  // "bind" | "interleave"; InputError otherwise
const char *cold_policy_name(ColdPolicy p);

struct MembindPlan {
    ColdPolicy policy = ColdPolicy::Bind;
    std::vector<unsigned> nodes;  // NUMA os indexes; empty: nothing to do
};
MembindPlan membind_plan(const TierChoice &c, ColdPolicy policy);

// Sets the plan as the calling process's memory policy (hwloc_set_membind by nodeset; the
// process must still be single-threaded, as a task is in SPANK's task_init). Nodes outside
// the process's allowed set (cgroup cpuset.mems) are dropped; throws std::runtime_error when
// none is left or the kernel refuses. The policy is inherited across fork and execve.
void apply_membind(const MembindPlan &plan);

// The CPUs the calling process is bound to (os indexes), read through hwloc.
std::vector<unsigned> current_cpubind();

// MORPHEUS_HOT_NUMA_NODES / MORPHEUS_COLD_NUMA_NODES ("0", "2,4") for the job's environment.
std::vector<std::pair<std::string, std::string>> tier_env(const TierChoice &c);

// "2,4" -> {2,4}; "0-2" -> {0,1,2}. InputError naming `what` on anything else.
std::vector<unsigned> parse_node_list(const std::string &text, const std::string &what);

}  // namespace morpheus
