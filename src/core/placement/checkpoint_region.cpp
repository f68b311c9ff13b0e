// Greedy by copies: each copy fills from the best-ranked blades of domains no earlier copy
// took, striping when one blade is not enough.
#include "checkpoint_region.hpp"

#include <algorithm>
#include <map>

#include "units.hpp"

namespace morpheus {

bool choose_region(const ClusterModel &m, const Ledger &ledger, const std::vector<PodShare> &pods, uint64_t bytes,
                   uint32_t replicas, std::vector<Segment> &out, std::string *why,
                   const std::unordered_set<uint32_t> *avoid) {
    const Fabric &f = m.fabric();
    const LinkPaths &paths = m.paths();
    uint32_t main_pod = pods.empty() ? 0 : pods.front().pod;
    uint32_t most = 0;
    for (const PodShare &p : pods)
        if (p.nodes > most) most = p.nodes, main_pod = p.pod;
    // The main pod's blades, best path for a flush first; a blade another pod of the job
    // cannot reach is passed over. Walked once per copy, stopping when the copy is whole.
    auto usable = [&](uint32_t b, uint64_t &free) {
        if (!m.inventory().admits(b) || (avoid && avoid->count(b))) return false;
        free = ledger.free(b, Tier::Pmem, m.inventory());
        if (!free) return false;
        for (const PodShare &p : pods)
            if (p.pod != main_pod && !paths.reachable(p.pod, b)) return false;
        return true;
    };
    const std::vector<uint32_t> &order = paths.blades_for_flush(main_pod);
    std::unordered_set<std::string> taken;  // domains of earlier copies
    std::vector<Segment> stripes;
    for (uint32_t copy = 0; copy < replicas; ++copy) {
        uint64_t left = bytes;
        std::unordered_set<std::string> mine;
        for (uint32_t blade : order) {
            if (!left) break;
            const std::string &domain = f.blade_domain[blade];
            uint64_t free = 0;
            if (taken.count(domain) || !usable(blade, free)) continue;
            Segment s;
            s.blade = blade;
            s.tier = Tier::Pmem;
            s.use = Use::Checkpoint;
            s.bytes = std::min(left, free);
            s.pod = main_pod;
            s.latency_ns = m.latency().latency(main_pod, blade);
            left -= s.bytes;
            stripes.push_back(s);
            mine.insert(domain);
        }
        if (left) {
            if (why)
                *why = "persistent memory: copy " + std::to_string(copy + 1) + " of " + std::to_string(replicas) +
                       " lacks " + format_size(left) + " of " + format_size(bytes) +
                       (copy ? " in failure domains apart from the other copies" : " free on blades in service");
            return false;
        }
        taken.insert(mine.begin(), mine.end());
    }
    out.insert(out.end(), stripes.begin(), stripes.end());
    return true;
}

std::vector<uint64_t> pmem_by_domain(const ClusterModel &m) {
    std::map<std::string, uint64_t> by;
    const Fabric &f = m.fabric();
    for (uint32_t b = 0; b < f.blades.size(); ++b) {
        const BladeStock &s = m.inventory().blades[b];
        if (s.state == BladeState::Absent) continue;  // failed blades may come back
        uint64_t &sum = by[f.blade_domain[b]];
        uint64_t cap = s.capacity[static_cast<size_t>(Tier::Pmem)];
        sum = sum + cap < sum ? UINT64_MAX : sum + cap;
    }
    std::vector<uint64_t> out;
    for (const auto &[d, v] : by) out.push_back(v);
    return out;
}

}  // namespace morpheus
