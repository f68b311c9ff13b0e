// tree-best-fit: what topology/tree does: one pod (leaf switch) if any can take the job, the one
// with the fewest free nodes that still fits (keeps big holes for big jobs); otherwise the
// fewest pods, largest first. Memory from any blade with room: tree knows switches, not blades.
#include <algorithm>

#include "policy.hpp"

namespace morpheus::sim {

std::vector<std::vector<PodShare>> tree_choices(const ClusterModel &model, const Request &req,
                                                const std::vector<uint8_t> &free_nodes) {
    const Fabric &f = model.fabric();
    std::vector<uint32_t> free(f.pods.size(), 0);
    for (uint32_t p = 0; p < f.pods.size(); ++p)
        for (uint32_t i = 0; i < f.pods[p].node_count; ++i) free[p] += free_nodes[f.pods[p].first_node + i] != 0;
    std::vector<uint32_t> fits;
    for (uint32_t p = 0; p < f.pods.size(); ++p) {
        uint32_t need = nodes_needed(model, req, p);
        if (need != 0 && free[p] >= need) fits.push_back(p);
    }
    std::stable_sort(fits.begin(), fits.end(), [&](uint32_t a, uint32_t b) { return free[a] < free[b]; });
    std::vector<std::vector<PodShare>> choices;
    for (uint32_t p : fits) choices.push_back({{p, nodes_needed(model, req, p)}});
    if (!choices.empty()) return choices;
    std::vector<uint32_t> order;
    for (uint32_t p = 0; p < f.pods.size(); ++p)
        if (free[p] && (req.nodes || f.pods[p].gpus_per_node)) order.push_back(p);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return free[a] > free[b]; });
    std::vector<PodShare> shares;
    uint64_t left = req.nodes ? req.nodes : req.gpus;
    for (uint32_t p : order) {
        if (!left) break;
        uint32_t per = req.nodes ? 1 : f.pods[p].gpus_per_node;
        uint64_t take = std::min<uint64_t>(free[p], (left + per - 1) / per);
        shares.push_back({p, static_cast<uint32_t>(take)});
        left -= std::min<uint64_t>(left, take * per);
    }
    if (!left) choices.push_back(std::move(shares));
    return choices;
}

namespace {

class TreeBestFitPolicy : public PlacementPolicy {
public:
    const char *name() const override { return "tree-best-fit"; }
    bool place(const ClusterModel &model, const Ledger &ledger, const Request &req,
               const std::vector<uint8_t> &free_nodes, Allocation &out) override {
        std::vector<std::vector<PodShare>> choices = tree_choices(model, req, free_nodes);
        if (choices.empty()) return false;
        out.nodes = choose_nodes(model, choices.front(), free_nodes);
        return memory_from_any_blade(model, ledger, req, choices.front(), out.placement);
    }
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_tree_best_fit_policy() { return std::make_unique<TreeBestFitPolicy>(); }

}  // namespace morpheus::sim
