// The example cluster (etc/: 4 pods x 4 nodes, 8 blades) and requests on it, for the unit
// tests of placement, the lifecycle and pending reasons.
#pragma once
#include <string>
#include <vector>

#include "cluster_model.hpp"
#include "placement.hpp"
#include "test_support.hpp"

namespace morpheus {

// etc/fabric.json with etc/inventory.json, or with the inventory given as JSON text.
inline ClusterModel example(const std::string &inventory_json = "") {
    Fabric f = read_fabric(top_srcdir("etc/fabric.json"));
    Inventory inv = inventory_json.empty() ? read_inventory(top_srcdir("etc/inventory.json"), f)
                                           : parse_inventory(inventory_json, "inv.json", f);
    return ClusterModel(std::move(f), std::move(inv), PlacementSettings{});
}

// Job 1: `nodes` nodes with `per_node` bytes of hot memory each within `bound` ns.
inline Request hot(uint32_t nodes, uint64_t per_node, uint64_t bound) {
    Request r;
    r.job_id = 1;
    r.nodes = nodes;
    r.hot_per_node = per_node;
    r.hot_latency_ns = bound;
    return r;
}

inline std::vector<uint8_t> all_free(const ClusterModel &m) {
    return std::vector<uint8_t>(m.fabric().node_names.size(), 1);
}

}  // namespace morpheus
