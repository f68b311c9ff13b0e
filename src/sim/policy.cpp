// The policy factory and what the baselines share: memory from any blade with room.
#include "policy.hpp"

#include <map>

#include "input_error.hpp"

namespace morpheus::sim {

std::unique_ptr<PlacementPolicy> make_morpheus_policy();
std::unique_ptr<PlacementPolicy> make_first_fit_policy();
std::unique_ptr<PlacementPolicy> make_tree_best_fit_policy();

const std::vector<std::string> &policy_names() {
    static const std::vector<std::string> names{"morpheus", "first-fit", "tree-best-fit"};
    return names;
}

std::unique_ptr<PlacementPolicy> make_policy(const std::string &name) {
    if (name == "morpheus") return make_morpheus_policy();
    if (name == "first-fit") return make_first_fit_policy();
    if (name == "tree-best-fit") return make_tree_best_fit_policy();
    std::string known;
    for (const std::string &n : policy_names()) known += (known.empty() ? "" : ", ") + n;
    throw InputError("", "--policy", "unknown policy \"" + name + "\"", "use one of " + known);
}

std::vector<PodShare> shares_of(const ClusterModel &model, const std::vector<uint32_t> &nodes) {
    std::vector<PodShare> shares;
    for (uint32_t n : nodes) {
        uint32_t pod = model.fabric().node_pod[n];
        if (!shares.empty() && shares.back().pod == pod)
            ++shares.back().nodes;
        else
            shares.push_back({pod, 1});
    }
    return shares;
}

bool memory_from_any_blade(const ClusterModel &model, const Ledger &ledger, const Request &req,
                           const std::vector<PodShare> &pods, Placement &out) {
    const Inventory &inv = model.inventory();
    const LatencyTable &lat = model.latency();
    const uint32_t blades = static_cast<uint32_t>(model.fabric().blades.size());
    std::map<std::pair<uint32_t, Tier>, uint64_t> taken;  // by this placement so far
    auto room = [&](uint32_t b, Tier t) {
        if (!inv.admits(b)) return uint64_t{0};
        uint64_t f = ledger.free(b, t, inv), used = taken[{b, t}];
        return f > used ? f - used : 0;
    };
    auto fill = [&](uint32_t pod, uint64_t need, Use use, std::initializer_list<Tier> tiers) {
        for (Tier tier : tiers)
            for (uint32_t b = 0; b < blades && need; ++b) {
                uint32_t l = lat.latency(pod, b);
                if (l == kUnreachable) continue;
                uint64_t take = std::min(need, room(b, tier));
                if (!take) continue;
                taken[{b, tier}] += take;
                out.segments.push_back({b, tier, use, take, l, pod});
                need -= take;
            }
        return need == 0;
    };
    out.pods = pods;
    out.segments.clear();
    out.hot_latency_bound_ns = req.hot_per_node ? effective_bound(model, req) : 0;
    uint64_t cold = 0;
    for (const PodShare &s : pods) {
        if (!fill(s.pod, s.nodes * req.hot_per_node, Use::Hot, {Tier::Dram})) return false;
        cold += s.nodes * req.cold_per_node;
    }
    return pods.empty() || fill(pods.front().pod, cold, Use::Cold, {Tier::Pmem, Tier::Dram});
}

}  // namespace morpheus::sim
