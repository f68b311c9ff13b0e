// A checkpoint flush on the fabric: the flows from a job's pods to its region's blades (each
// pod sends its nodes' share of every stripe), the bytes each link carries, and how long the
// flush takes alone at the links' checkpoint share: what a window must last.
#pragma once
#include <cstdint>
#include <vector>

#include "cluster_model.hpp"
#include "ledger.hpp"
#include "link_book.hpp"

namespace morpheus {

struct FlushFlow {
    uint32_t pod = 0;
    uint32_t blade = 0;
    double bytes = 0;
};

struct Flush {
    std::vector<FlushFlow> flows;
    std::vector<LinkLoad> loads;  // per link crossed: the rate it holds over `seconds`
    double seconds = 0;  // alone on its paths at the checkpoint share; 0: nothing to move
    bool reachable = true;  // false: some stripe has no path from some pod
};

// `stripes`: the region's segments (Use::Checkpoint); `pods`: the job's pod shares.
Flush flush_of(const ClusterModel &m, const std::vector<PodShare> &pods, const std::vector<Segment> &stripes);

// The window length granted for a flush: whole seconds, at least 1.
int64_t window_length(const Flush &f);

}  // namespace morpheus
