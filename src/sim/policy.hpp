// Placement policies the simulator compares, behind one interface and chosen by name:
//   morpheus       decide() and choose_nodes(), the plugin's own scoring path
//   first-fit      free nodes in node order, memory from any blade with room (what
//                  select/cons_tres does alone: it knows nodes, not blades)
//   tree-best-fit  the fewest pods, best fit by free nodes (what topology/tree does), memory
//                  from any blade with room
//   tree-nearest   tree's nodes, hot memory from the nearest blades with room, inside the bound
//                  when some choice of tree's allows it, else out of bound (best effort)
//   tree-nearest-strict  the same, but waits until the bound can be met
//   spread-strict  tree-nearest-strict, and when no choice of tree's has hot memory inside the
//                  bound, spread over the pods with the most room inside it (morpheus without
//                  its scoring, so that the scoring's own value shows)
// Every policy's memory goes through the same Ledger, so conservation is checked the same way.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "cluster_model.hpp"
#include "ledger.hpp"
#include "link_book.hpp"
#include "placement.hpp"
#include "request.hpp"

namespace morpheus::sim {

struct Allocation {
    std::vector<uint32_t> nodes;  // fabric node indices
    Placement placement;  // pod shares and memory segments, as decide() gives them
};

class PlacementPolicy {
public:
    virtual ~PlacementPolicy() = default;
    virtual const char *name() const = 0;
    // Nodes and memory for the request now, or false: the job waits. Must not touch `ledger`;
    // the simulator reserves what it returns.
    virtual bool place(const ClusterModel &model, const Ledger &ledger, const Request &req,
                       const std::vector<uint8_t> &free_nodes, Allocation &out) = 0;
    // True for select/morpheus, whose backfill plans blade memory over time with the core's
    // planner (earliest_pod_start, Planner::delayed_by) as the plugin's will-run does; the
    // baselines' backfill finds memory by trying the cluster as each running job ends.
    virtual bool plans_memory() const { return false; }
    // True for select/morpheus: soft bounds lapse after a job's --mem-hot-wait (soft_bound.hpp)
    // and hot memory beyond a bound moves inside it when memory there frees (move.hpp). The
    // baselines keep their own bound rules and never move memory.
    virtual bool soft_bounds_and_moves() const { return false; }
    // The booked checkpoint windows (issue 28) the replay keeps, or nullptr: a policy that
    // grants checkpoints (morpheus) gives decide() the book, so a job checkpoints only with a
    // region and a window; the baselines ignore it.
    void set_links(const LinkBook *links) { links_ = links; }

protected:
    const LinkBook *links_ = nullptr;
};

// Throws InputError listing the known names when `name` is not one of them.
std::unique_ptr<PlacementPolicy> make_policy(const std::string &name);
const std::vector<std::string> &policy_names();

// The baselines' memory: per pod share, hot memory (DRAM) from the first blades in fabric order
// that have room and are reachable, whatever their latency; cold memory likewise, persistent
// memory before DRAM. False when the cluster has not that much memory free.
bool memory_from_any_blade(const ClusterModel &model, const Ledger &ledger, const Request &req,
                           const std::vector<PodShare> &pods, Placement &out);

// The same, with hot memory from the blades nearest each pod share: inside the bound only, or,
// with `out_of_bound`, the nearest blades beyond it once those inside are full.
bool memory_from_nearest_blade(const ClusterModel &model, const Ledger &ledger, const Request &req,
                               const std::vector<PodShare> &pods, bool out_of_bound, Placement &out);

// topology/tree's node choices, in its order of preference: every single pod that can take the
// job, fewest free nodes first (best fit); when there is none, one spread over the fewest pods,
// largest first. Empty when there are not enough free nodes.
std::vector<std::vector<PodShare>> tree_choices(const ClusterModel &model, const Request &req,
                                                const std::vector<uint8_t> &free_nodes);

}  // namespace morpheus::sim
