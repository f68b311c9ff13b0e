// A request's way from a decision to a reservation, written once for every caller: the C ABI
// (select/morpheus), `morpheus place --reserve` and the simulator.
//   decide() -> plan_of(): the node sets to offer the node selector, best first
//            -> (the selector picks nodes; the simulator and the CLI take the first step's)
//            -> pod_shares() of those nodes -> assign_blades() -> reservation_of()
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cluster_model.hpp"
#include "ledger.hpp"
#include "placement.hpp"

namespace morpheus {

// The node sets select/morpheus offers cons_tres, one step at a time. Step 0 is the decision;
// a spread decision fixes its nodes (exact), so the selector cannot take another split than
// the one the memory was planned for. Step 1, when there is one, is every other pod that can
// take the job, any of its nodes: one more selector call widens to all of them.
struct NodePlan {
    std::vector<std::vector<PodShare>> steps;
    std::vector<std::vector<uint32_t>> exact;  // per step: the only nodes allowed, or empty
    std::vector<std::string> names;  // per step: "pod1,pod2", for the log
};
NodePlan plan_of(const ClusterModel &model, const Decision &placed, const std::vector<uint8_t> &free_nodes);

// The nodes a step allows: one flag per fabric node written to `allowed` (all 0 past the last
// step).
void step_nodes(const ClusterModel &model, const NodePlan &plan, size_t step, uint8_t *allowed);

// Nodes grouped by pod, in the order each pod first appears. Throws InputError for an index
// outside the fabric.
std::vector<PodShare> pod_shares(const ClusterModel &model, const std::vector<uint32_t> &nodes);

// The ledger record of a placement on `nodes`.
Reservation reservation_of(const ClusterModel &model, uint64_t job_id, uint32_t uid, int64_t since,
                           const Placement &placement, const std::vector<uint32_t> &nodes);

}  // namespace morpheus
