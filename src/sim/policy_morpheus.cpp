// The morpheus policy: what select/morpheus does up to the node selector: decide(), then the
// first step of its plan (lifecycle.hpp), whose nodes the replay takes as cons_tres would take
// the first it offers (nothing in the replay refuses them: no CPU or GRES shortage is modelled).
#include "lifecycle.hpp"
#include "policy.hpp"

namespace morpheus::sim {

namespace {

class MorpheusPolicy : public PlacementPolicy {
public:
    const char *name() const override { return "morpheus"; }
    bool plans_memory() const override { return true; }
    bool soft_bounds_and_moves() const override { return true; }
    bool place(const ClusterModel &model, const Ledger &ledger, const Request &req,
               const std::vector<uint8_t> &free_nodes, Allocation &out) override {
        Decision d = decide(model, ledger, req, free_nodes, nullptr, links_);
        if (d.verdict != Verdict::Placed) return false;
        NodePlan plan = plan_of(model, d, free_nodes);
        std::vector<uint8_t> allowed(free_nodes.size());
        step_nodes(model, plan, 0, allowed.data());
        for (size_t i = 0; i < allowed.size(); ++i) allowed[i] = allowed[i] && free_nodes[i];
        out.nodes = choose_nodes(model, d.placement.pods, allowed);
        out.placement = std::move(d.placement);
        return true;
    }
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_morpheus_policy() { return std::make_unique<MorpheusPolicy>(); }

}  // namespace morpheus::sim
