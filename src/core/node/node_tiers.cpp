// Choosing and binding a task's memory tiers with hwloc's binding API.
#include "node_tiers.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <set>
#include <stdexcept>

#include "input_error.hpp"
#include "morpheus/morpheus_env.h"

namespace morpheus {

namespace {

bool intersects(const std::vector<unsigned> &a, const std::vector<unsigned> &b) {
    std::set<unsigned> s(b.begin(), b.end());
    for (unsigned x : a)
        if (s.count(x)) return true;
    return false;
}

struct Topology {
    hwloc_topology_t t = nullptr;
    Topology() {
        // CPUs and NUMA nodes only: binding needs no PCI walk, and a task start should not
        // pay for one.
        if (hwloc_topology_init(&t) < 0) throw std::runtime_error("hwloc_topology_init failed");
        if (hwloc_topology_load(t) < 0) {
            hwloc_topology_destroy(t);
            throw std::runtime_error(std::string("hwloc cannot read this machine: ") + std::strerror(errno));
        }
    }
    ~Topology() { hwloc_topology_destroy(t); }
    Topology(const Topology &) = delete;
    Topology &operator=(const Topology &) = delete;
};

struct Bitmap {
    hwloc_bitmap_t b = hwloc_bitmap_alloc();
    ~Bitmap() { hwloc_bitmap_free(b); }
    Bitmap() = default;
    Bitmap(const Bitmap &) = delete;
    Bitmap &operator=(const Bitmap &) = delete;
};

}  // namespace

TierChoice choose_tiers(const NodeTopology &t, const std::vector<unsigned> &cpus) {
    TierChoice c;
    bool all = cpus.empty();
    for (const NumaNode &n : t.numa)
        if (n.tier == MemoryTier::Local && (all || intersects(n.cpus, cpus))) c.hot.push_back(n.os_index);
    std::vector<const NumaNode *> far = t.numa_of_tier(MemoryTier::Far), near;
    for (const NumaNode *n : far)
        if (all || intersects(n->cpus, cpus)) near.push_back(n);
    if (near.empty()) near = far;
    // Nearest first: the node whose locality is tightest around the CPUs (a socket's own
    // expander) before a pool every socket shares.
    std::stable_sort(near.begin(), near.end(),
                     [](const NumaNode *a, const NumaNode *b) { return a->cpus.size() < b->cpus.size(); });
    for (const NumaNode *n : near) c.cold.push_back(n->os_index);
    std::string host = t.hostname.empty() ? "this node" : "node " + t.hostname;
    if (c.cold.empty())
        c.warnings.push_back(host +
                             " has no CPU-less (CXL) NUMA node: cold memory (--mem-cold) comes from local DRAM "
                             "here, and no cold-tier memory policy was set");
    return c;
}

ColdPolicy parse_cold_policy(const std::string &text) {
    if (text == "bind") return ColdPolicy::Bind;
    if (text == "interleave") return ColdPolicy::Interleave;
    throw InputError("", MORPHEUS_ENV_COLD_POLICY, "unknown cold-tier policy '" + text + "'", "use bind or interleave");
}

const char *cold_policy_name(ColdPolicy p) { return p == ColdPolicy::Bind ? "bind" : "interleave"; }

MembindPlan membind_plan(const TierChoice &c, ColdPolicy policy) {
    MembindPlan p;
    p.policy = policy;
    if (c.cold.empty()) return p;  // nothing to place: leave the kernel's default (local) policy
    p.nodes = c.hot;
    for (unsigned n : c.cold)
        if (std::find(p.nodes.begin(), p.nodes.end(), n) == p.nodes.end()) p.nodes.push_back(n);
    return p;
}

void apply_membind(const MembindPlan &plan) {
    if (plan.nodes.empty()) return;
    Topology topo;
    Bitmap set;
    hwloc_const_nodeset_t allowed = hwloc_topology_get_allowed_nodeset(topo.t);
    for (unsigned n : plan.nodes)
        if (hwloc_bitmap_isset(allowed, n)) hwloc_bitmap_set(set.b, n);
    if (hwloc_bitmap_iszero(set.b))
        throw std::runtime_error("none of the NUMA nodes chosen is allowed to this task (cgroup cpuset.mems)");
    hwloc_membind_policy_t policy = plan.policy == ColdPolicy::Bind ? HWLOC_MEMBIND_BIND : HWLOC_MEMBIND_INTERLEAVE;
    // Neither PROCESS nor THREAD: the task is single-threaded here, which lets hwloc use
    // set_mempolicy(2) on Linux.
    if (hwloc_set_membind(topo.t, set.b, policy, HWLOC_MEMBIND_BYNODESET) < 0)
        throw std::runtime_error(std::string("hwloc_set_membind failed: ") + std::strerror(errno));
}

std::vector<unsigned> current_cpubind() {
    Topology topo;
    Bitmap set;
    std::vector<unsigned> out;
    if (hwloc_get_cpubind(topo.t, set.b, 0) < 0) return out;
    unsigned i;
    hwloc_bitmap_foreach_begin(i, set.b) { out.push_back(i); }
    hwloc_bitmap_foreach_end();
    return out;
}

std::vector<std::pair<std::string, std::string>> tier_env(const TierChoice &c) {
    std::vector<std::pair<std::string, std::string>> env;
    std::vector<unsigned> hot = c.hot, cold = c.cold;
    std::sort(hot.begin(), hot.end());
    std::sort(cold.begin(), cold.end());
    if (!hot.empty()) env.emplace_back(MORPHEUS_ENV_HOT_NUMA_NODES, cpu_list_string(hot));
    if (!cold.empty()) env.emplace_back(MORPHEUS_ENV_COLD_NUMA_NODES, cpu_list_string(cold));
    return env;
}

std::vector<unsigned> parse_node_list(const std::string &text, const std::string &what) {
    std::vector<unsigned> out;
    size_t pos = 0;
    auto bad = [&]() -> std::vector<unsigned> {
        throw InputError("", what, "bad NUMA node list '" + text + "'", "write node numbers and ranges, e.g. 2,4-5");
    };
    if (text.empty()) bad();
    while (pos <= text.size()) {
        size_t comma = text.find(',', pos);
        std::string part = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        char *end = nullptr;
        unsigned long a = std::strtoul(part.c_str(), &end, 10), b = a;
        if (end == part.c_str()) bad();
        if (*end == '-') {
            const char *rest = end + 1;
            b = std::strtoul(rest, &end, 10);
            if (end == rest) bad();
        }
        if (*end || b < a || b > 4095) bad();
        for (unsigned long i = a; i <= b; ++i) out.push_back(static_cast<unsigned>(i));
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return out;
}

}  // namespace morpheus
