// spread-strict: a strict baseline that spreads over pods, what select/morpheus does without
// its scoring. Nodes as topology/tree chooses them when one of its choices has hot memory
// inside the bound (as tree-nearest-strict); otherwise the job is spread over the pods with
// the most room for it: per pod, as many nodes as both its free nodes and its free DRAM inside
// the bound allow, the roomiest pods first. Hot memory from the nearest blades inside the
// bound; the job waits until that fits, and is refused when it could not fit even on an empty
// cluster (charged, as every refusal is).
#include <algorithm>

#include "policy.hpp"

namespace morpheus::sim {

namespace {

class SpreadStrictPolicy : public PlacementPolicy {
public:
    const char *name() const override { return "spread-strict"; }
    bool place(const ClusterModel &model, const Ledger &ledger, const Request &req,
               const std::vector<uint8_t> &free_nodes, Allocation &out) override {
        for (const std::vector<PodShare> &shares : tree_choices(model, req, free_nodes))
            if (memory_from_nearest_blade(model, ledger, req, shares, false, out.placement)) {
                out.nodes = choose_nodes(model, shares, free_nodes);
                return true;
            }
        std::vector<PodShare> shares = spread_by_room(model, ledger, req, free_nodes);
        if (shares.empty() || !memory_from_nearest_blade(model, ledger, req, shares, false, out.placement))
            return false;
        out.nodes = choose_nodes(model, shares, free_nodes);
        return true;
    }

private:
    // Pod shares covering the request: repeatedly the pod with room for the most nodes (free
    // nodes, and free DRAM inside the bound not yet given to an earlier share), taking from its
    // nearest blades. Empty when the pods' room together is short.
    static std::vector<PodShare> spread_by_room(const ClusterModel &model, const Ledger &ledger, const Request &req,
                                                const std::vector<uint8_t> &free_nodes) {
        const Fabric &f = model.fabric();
        const LatencyTable &lat = model.latency();
        const uint64_t bound = req.hot_per_node ? effective_bound(model, req) : 0;
        std::vector<uint64_t> dram(f.blades.size(), 0);
        for (uint32_t b = 0; b < dram.size(); ++b)
            if (model.inventory().admits(b)) dram[b] = ledger.free(b, Tier::Dram, model.inventory());
        std::vector<uint32_t> free(f.pods.size(), 0);
        for (uint32_t p = 0; p < f.pods.size(); ++p)
            if (req.nodes || f.pods[p].gpus_per_node)
                for (uint32_t i = 0; i < f.pods[p].node_count; ++i)
                    free[p] += free_nodes[f.pods[p].first_node + i] != 0;
        auto room = [&](uint32_t p) {
            uint64_t nodes = free[p];
            if (!req.hot_per_node || !nodes) return nodes;
            uint64_t near = 0;
            for (uint32_t b : lat.blades_by_latency(p)) {
                if (lat.latency(p, b) > bound) break;
                near += dram[b];
            }
            return std::min<uint64_t>(nodes, near / req.hot_per_node);
        };
        std::vector<PodShare> shares;
        uint64_t left = req.nodes ? req.nodes : req.gpus;
        while (left) {
            uint32_t best = UINT32_MAX;
            uint64_t most = 0;
            for (uint32_t p = 0; p < f.pods.size(); ++p)
                if (uint64_t r = room(p); r > most) most = r, best = p;
            if (best == UINT32_MAX) return {};
            const uint32_t per = req.nodes ? 1 : f.pods[best].gpus_per_node;
            const uint64_t take = std::min<uint64_t>(most, (left + per - 1) / per);
            shares.push_back({best, static_cast<uint32_t>(take)});
            left -= std::min<uint64_t>(left, take * per);
            free[best] = 0;  // one share per pod
            uint64_t need = take * req.hot_per_node;
            for (uint32_t b : lat.blades_by_latency(best)) {
                if (!need || lat.latency(best, b) > bound) break;
                const uint64_t n = std::min(need, dram[b]);
                dram[b] -= n;
                need -= n;
            }
        }
        return shares;
    }
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_spread_strict_policy() { return std::make_unique<SpreadStrictPolicy>(); }

}  // namespace morpheus::sim
