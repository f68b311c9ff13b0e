// Pod x blade latency and bottleneck bandwidth of the best path, computed once per fabric load
// so that placement never walks the graph. A cell may carry a live (measured) latency from the
// heat map instead of the fabric's; every reader of latency() then sees the live one.
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

    // Latency in ns from a node of `pod` to `blade` (node_latency included): the live value when
    // one is set, else the fabric's; kUnreachable if the fabric has no path.
    uint32_t latency(uint32_t pod, uint32_t blade) const { return latency_[pod * blades_ + blade]; }
    // The fabric file's value (the heat map's prior), live or not.
    uint32_t static_latency(uint32_t pod, uint32_t blade) const { return static_[pod * blades_ + blade]; }
    bool is_live(uint32_t pod, uint32_t blade) const {
        return latency_[pod * blades_ + blade] != static_[pod * blades_ + blade];
    }
    // A measured latency for a reachable cell (0 < ns < kUnreachable; throws std::invalid_argument
    // otherwise: no measurement creates a path the fabric lacks). The pod's blades_by_latency()
    // order follows at once.
    void set_live(uint32_t pod, uint32_t blade, uint32_t ns);
    // Back to the fabric's value.
    void clear_live(uint32_t pod, uint32_t blade);
    void clear_live();
    // A whole pod's row at once (`live` has a value per blade, 0: the fabric's; unreachable
    // cells keep no live value), sorting the pod's order once; true if anything changed.
    bool set_live_row(uint32_t pod, const uint32_t *live);
    size_t live_count() const;
    // Bottleneck bandwidth (Gb/s) of that path; 0 if unreachable.
    float bandwidth(uint32_t pod, uint32_t blade) const { return bandwidth_[pod * blades_ + blade]; }
    // Reachable blades of `pod`, nearest first (ties by blade index).
    const std::vector<uint32_t> &blades_by_latency(uint32_t pod) const { return order_[pod]; }
    // Nearest reachable blade's latency, or kUnreachable.
    uint32_t nearest(uint32_t pod) const {
        return order_[pod].empty() ? kUnreachable : latency(pod, order_[pod].front());
    }

private:
    void reposition(uint32_t pod, uint32_t blade);
    void sort_order(uint32_t pod);
    uint32_t blades_;
    std::vector<uint32_t> latency_;
    std::vector<uint32_t> static_;
    std::vector<float> bandwidth_;
    std::vector<std::vector<uint32_t>> order_;
};

}  // namespace morpheus
