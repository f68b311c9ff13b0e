// The morpheus policy: exactly what select/morpheus does, decide() then choose_nodes().
#include "policy.hpp"

namespace morpheus::sim {

namespace {

class MorpheusPolicy : public PlacementPolicy {
public:
    const char *name() const override { return "morpheus"; }
    bool place(const ClusterModel &model, const Ledger &ledger, const Request &req,
               const std::vector<uint8_t> &free_nodes, Allocation &out) override {
        Decision d = decide(model, ledger, req, free_nodes);
        if (d.verdict != Verdict::Placed) return false;
        out.nodes = choose_nodes(model, d.placement.pods, free_nodes);
        out.placement = std::move(d.placement);
        return true;
    }
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_morpheus_policy() { return std::make_unique<MorpheusPolicy>(); }

}  // namespace morpheus::sim
