// Placement: rank pods for a request, choose blades for its hot and cold memory, and say why.
// This is the one scoring path: select/morpheus, `morpheus place` and `morpheus simulate` all
// call decide() and assign_blades().
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cluster_model.hpp"
#include "ledger.hpp"
#include "link_book.hpp"
#include "request.hpp"

namespace morpheus {

enum class Verdict : uint8_t { Placed, Pending, Impossible };
const char *verdict_name(Verdict v);

// Why a pod cannot take the job (None: it can).
enum class RuleOut : uint8_t { None, NoGpus, FreeNodes, NoBladeInBound, HotCapacity, ColdCapacity };
const char *rule_out_name(RuleOut r);

struct PodAssessment {
    uint32_t pod = 0;
    RuleOut ruled_out = RuleOut::None;
    uint32_t free_nodes = 0;
    uint32_t nodes_needed = 0;
    uint64_t hot_needed = 0;  // bytes, for nodes_needed nodes
    uint64_t hot_free_in_bound = 0;  // on blades admitting reservations (capped at 4x need)
    uint64_t hot_unusable_in_bound = 0;  // capacity on failed or draining blades inside the bound
    uint32_t nearest_ns = kUnreachable;
    double mean_hot_latency_ns = 0;  // bytes-weighted, for the blades it would use
    // Score terms, each in [0,1], and the weighted total (higher is better).
    double latency_term = 0, headroom_term = 0, packing_term = 0, load_term = 0, score = 0;
};

struct Placement {
    std::vector<PodShare> pods;
    std::vector<Segment> segments;
    uint64_t hot_latency_bound_ns = 0;
    double score = 0;
    // The checkpoint window granted with the region (its stripes are in `segments`, Use::
    // Checkpoint), when the request checkpoints and decide() was given the link book.
    CheckpointHold checkpoint;
    std::string checkpoint_note;  // a period other than the one asked, and why
};

struct Decision {
    Verdict verdict = Verdict::Pending;
    std::string reason;  // one line: why placed here, or why not
    Placement placement;  // set when Placed
    std::vector<PodAssessment> pods;  // every pod, best first, ruled-out pods last
    // Pending because the checkpoint could not be granted on the chosen pods (the memory and
    // nodes fit): what is short, a link's share or persistent memory.
    std::string checkpoint_why;
};

// Ranks pods and, when one (or several, if no single pod fits) can take the job, chooses its
// blades. `free_nodes` has one flag per fabric node: nonzero if the job may use it now.
// `allowed_nodes` (nullptr: every node): the nodes Slurm lets the job use at all (its required
// node list, exclusions, partition); a pod with none of them is not a candidate, so neither
// the reason nor the explanation names it.
// `links` (nullptr: checkpoints are not checked): the booked flush windows; a request that
// checkpoints is then Placed only when its region and a window can be granted on the chosen
// pods (the grant in Placement::checkpoint), else Pending with Decision::checkpoint_why.
Decision decide(const ClusterModel &model, const Ledger &ledger, const Request &req,
                const std::vector<uint8_t> &free_nodes, const std::vector<uint8_t> *allowed_nodes = nullptr,
                const LinkBook *links = nullptr);

// Would the request fit an empty cluster with every node free and every blade in service?
// Verdict::Impossible (with the reason) when not. `allowed_nodes` (one flag per fabric node):
// the only nodes the job may ever use, e.g. a required node list; nullptr: every node.
Decision feasibility(const ClusterModel &model, const Request &req,
                     const std::vector<uint8_t> *allowed_nodes = nullptr);

// Chooses blades for a fixed split of nodes over pods (what Slurm actually allocated).
// Returns false, with `why`, when the memory does not fit. `shortlist`: when the caller knows
// that no blade outside it has room in `ledger` (the planner's view of a future window, where
// all but a few blades count as full), the blades to look at instead of every blade in the
// bound; the answer is the same, found without walking thousands of full blades.
bool assign_blades(const ClusterModel &model, const Ledger &ledger, const Request &req,
                   const std::vector<PodShare> &pods, Placement &out, std::string *why,
                   const std::vector<uint32_t> *shortlist = nullptr);

// Hot memory only, `need` bytes for each pod of `pod_bytes` (pod, bytes), inside `bound`, chosen
// as assign_blades() chooses (cheapest first, striped). What a move takes (move.hpp): the bytes
// of a running job's hot memory that lie beyond its bound. False when it does not all fit.
// `taken`: segments chosen already but not in the ledger (other moves planned in the same
// pass), counted as taken, so a pass plans several moves without copying the ledger.
bool assign_hot(const ClusterModel &model, const Ledger &ledger,
                const std::vector<std::pair<uint32_t, uint64_t>> &pod_bytes, uint64_t bound, std::vector<Segment> &out,
                const std::vector<Segment> &taken = {});

// The first free nodes of each pod share (what the simulator and `morpheus place` allocate).
std::vector<uint32_t> choose_nodes(const ClusterModel &model, const std::vector<PodShare> &pods,
                                   const std::vector<uint8_t> &free_nodes);

// Nodes needed in `pod` for the request (GPUs rounded up to whole nodes); 0 if impossible.
uint32_t nodes_needed(const ClusterModel &model, const Request &req, uint32_t pod);

uint64_t effective_bound(const ClusterModel &model, const Request &req);

}  // namespace morpheus
