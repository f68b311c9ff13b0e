// tree-nearest and tree-nearest-strict: the fair baselines. Nodes as topology/tree chooses them
// (tree_choices: best-fit single pod, else the fewest pods); hot memory from the blades nearest
// each pod share that have room, which is what an admin who knows the fabric would script.
// The first of tree's choices whose hot memory fits inside the bound wins. When none does,
// tree-nearest takes tree's first choice with the nearest memory out of bound (best effort);
// tree-nearest-strict waits until the bound can be met.
#include "policy.hpp"

namespace morpheus::sim {

namespace {

class TreeNearestPolicy : public PlacementPolicy {
public:
    explicit TreeNearestPolicy(bool strict) : strict_(strict) {}
    const char *name() const override { return strict_ ? "tree-nearest-strict" : "tree-nearest"; }
    bool place(const ClusterModel &model, const Ledger &ledger, const Request &req,
               const std::vector<uint8_t> &free_nodes, Allocation &out) override {
        std::vector<std::vector<PodShare>> choices = tree_choices(model, req, free_nodes);
        for (const std::vector<PodShare> &shares : choices)
            if (memory_from_nearest_blade(model, ledger, req, shares, false, out.placement)) {
                out.nodes = choose_nodes(model, shares, free_nodes);
                return true;
            }
        if (strict_ || choices.empty() ||
            !memory_from_nearest_blade(model, ledger, req, choices.front(), true, out.placement))
            return false;
        out.nodes = choose_nodes(model, choices.front(), free_nodes);
        return true;
    }

private:
    bool strict_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_tree_nearest_policy(bool strict) {
    return std::make_unique<TreeNearestPolicy>(strict);
}

}  // namespace morpheus::sim
