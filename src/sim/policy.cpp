// The policy factory and what the baselines share: memory from any blade with room.
#include "policy.hpp"

#include <map>

#include "input_error.hpp"

namespace morpheus::sim {

std::unique_ptr<PlacementPolicy> make_morpheus_policy();
std::unique_ptr<PlacementPolicy> make_first_fit_policy();
std::unique_ptr<PlacementPolicy> make_tree_best_fit_policy();
std::unique_ptr<PlacementPolicy> make_tree_nearest_policy(bool strict);
std::unique_ptr<PlacementPolicy> make_spread_strict_policy();

const std::vector<std::string> &policy_names() {
    static const std::vector<std::string> names{"morpheus",     "first-fit",           "tree-best-fit",
                                                "tree-nearest", "tree-nearest-strict", "spread-strict"};
    return names;
}

std::unique_ptr<PlacementPolicy> make_policy(const std::string &name) {
    if (name == "morpheus") return make_morpheus_policy();
    if (name == "first-fit") return make_first_fit_policy();
    if (name == "tree-best-fit") return make_tree_best_fit_policy();
    if (name == "tree-nearest") return make_tree_nearest_policy(false);
    if (name == "tree-nearest-strict") return make_tree_nearest_policy(true);
    if (name == "spread-strict") return make_spread_strict_policy();
    std::string known;
    for (const std::string &n : policy_names()) known += (known.empty() ? "" : ", ") + n;
    throw InputError("", "--policy", "unknown policy \"" + name + "\"", "use one of " + known);
}

namespace {

// Hot memory per pod share from the blades `hot_order` lists for its pod, in that order; cold
// memory from any reachable blade, persistent memory before DRAM, for the first pod.
template <class HotOrder>
bool memory_in_order(const ClusterModel &model, const Ledger &ledger, const Request &req,
                     const std::vector<PodShare> &pods, HotOrder hot_order, Placement &out) {
    const Inventory &inv = model.inventory();
    const LatencyTable &lat = model.latency();
    const uint32_t blades = static_cast<uint32_t>(model.fabric().blades.size());
    std::map<std::pair<uint32_t, Tier>, uint64_t> taken;  // by this placement so far
    auto room = [&](uint32_t b, Tier t) {
        if (!inv.admits(b)) return uint64_t{0};
        uint64_t f = ledger.free(b, t, inv), used = taken[{b, t}];
        return f > used ? f - used : 0;
    };
    auto take = [&](uint32_t pod, uint32_t b, Tier tier, Use use, uint64_t &need) {
        uint32_t l = lat.latency(pod, b);
        if (l == kUnreachable || !need) return;
        uint64_t n = std::min(need, room(b, tier));
        if (!n) return;
        taken[{b, tier}] += n;
        out.segments.push_back({b, tier, use, n, l, pod});
        need -= n;
    };
    out.pods = pods;
    out.segments.clear();
    const uint64_t bound = req.hot_per_node ? effective_bound(model, req) : 0;
    out.hot_latency_bound_ns = bound;
    uint64_t cold = 0;
    for (const PodShare &s : pods) {
        uint64_t need = s.nodes * req.hot_per_node;
        for (uint32_t b : hot_order(s.pod, bound)) take(s.pod, b, Tier::Dram, Use::Hot, need);
        if (need) return false;
        cold += s.nodes * req.cold_per_node;
    }
    if (pods.empty()) return true;
    for (Tier tier : {Tier::Pmem, Tier::Dram})
        for (uint32_t b = 0; b < blades && cold; ++b) take(pods.front().pod, b, tier, Use::Cold, cold);
    return cold == 0;
}

}  // namespace

bool memory_from_any_blade(const ClusterModel &model, const Ledger &ledger, const Request &req,
                           const std::vector<PodShare> &pods, Placement &out) {
    std::vector<uint32_t> fabric_order(model.fabric().blades.size());
    for (uint32_t b = 0; b < fabric_order.size(); ++b) fabric_order[b] = b;
    return memory_in_order(
        model, ledger, req, pods, [&](uint32_t, uint64_t) -> const std::vector<uint32_t> & { return fabric_order; },
        out);
}

bool memory_from_nearest_blade(const ClusterModel &model, const Ledger &ledger, const Request &req,
                               const std::vector<PodShare> &pods, bool out_of_bound, Placement &out) {
    const LatencyTable &lat = model.latency();
    std::vector<uint32_t> order;
    return memory_in_order(
        model, ledger, req, pods,
        [&](uint32_t pod, uint64_t bound) -> const std::vector<uint32_t> & {
            if (out_of_bound) return lat.blades_by_latency(pod);
            order.clear();
            for (uint32_t b : lat.blades_by_latency(pod)) {
                if (lat.latency(pod, b) > bound) break;
                order.push_back(b);
            }
            return order;
        },
        out);
}

}  // namespace morpheus::sim
