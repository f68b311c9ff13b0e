// first-fit: what select/cons_tres does without morpheus: the first free nodes in node order,
// with no idea where memory is; memory then comes from any blade with room.
#include "lifecycle.hpp"
#include "policy.hpp"

namespace morpheus::sim {

namespace {

class FirstFitPolicy : public PlacementPolicy {
public:
    const char *name() const override { return "first-fit"; }
    bool place(const ClusterModel &model, const Ledger &ledger, const Request &req,
               const std::vector<uint8_t> &free_nodes, Allocation &out) override {
        const Fabric &f = model.fabric();
        out.nodes.clear();
        uint64_t nodes = 0, gpus = 0;
        for (uint32_t n = 0; n < free_nodes.size(); ++n) {
            if (req.nodes ? nodes >= req.nodes : gpus >= req.gpus) break;
            if (!free_nodes[n]) continue;
            uint32_t per = f.pods[f.node_pod[n]].gpus_per_node;
            if (!req.nodes && per == 0) continue;  // a GPU job skips GPU-less nodes
            out.nodes.push_back(n);
            ++nodes;
            gpus += per;
        }
        if (req.nodes ? nodes < req.nodes : gpus < req.gpus) return false;
        return memory_from_any_blade(model, ledger, req, pod_shares(model, out.nodes), out.placement);
    }
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_first_fit_policy() { return std::make_unique<FirstFitPolicy>(); }

}  // namespace morpheus::sim
