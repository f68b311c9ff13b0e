// The pod x blade latency matrix as a document (the `fabric` status op): what the placement
// sees of the fabric, for the heat map of `morpheus fabric`.
#pragma once
#include <string>

#include "cluster_model.hpp"
#include "ledger.hpp"

namespace morpheus {

// {"hot_bound_ns", "pods": [{"pod", "nodes"}], "blades": [{"blade", "state", "dram_free"}],
//  "latency_ns": [[per blade, null when unreachable] per pod]}
std::string fabric_json(const ClusterModel &m, const Ledger &l);

}  // namespace morpheus
