// Pod x blade latency and bottleneck bandwidth of the best path, computed once per fabric load
// so that placement never walks the graph.
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include "fabric.hpp"

namespace morpheus {

constexpr uint32_t kUnreachable = std::numeric_limits<uint32_t>::max();

class LatencyTable {
public:
    explicit LatencyTable(const Fabric &fabric);

    // Latency in ns from a node of `pod` to `blade` (node_latency included); kUnreachable if none.
    uint32_t latency(uint32_t pod, uint32_t blade) const { return latency_[pod * blades_ + blade]; }
    // Bottleneck bandwidth (Gb/s) of that path; 0 if unreachable.
    float bandwidth(uint32_t pod, uint32_t blade) const { return bandwidth_[pod * blades_ + blade]; }
    // Reachable blades of `pod`, nearest first (ties by blade index).
    const std::vector<uint32_t> &blades_by_latency(uint32_t pod) const { return order_[pod]; }
    // Nearest reachable blade's latency, or kUnreachable.
    uint32_t nearest(uint32_t pod) const {
        return order_[pod].empty() ? kUnreachable : latency(pod, order_[pod].front());
    }

private:
    uint32_t blades_;
    std::vector<uint32_t> latency_;
    std::vector<float> bandwidth_;
    std::vector<std::vector<uint32_t>> order_;
};

}  // namespace morpheus
