// The links each pod-to-blade path crosses and what checkpoint traffic may use of each: the
// fabric's links as a scheduled resource (issue 28). Computed once per fabric load, shared by
// every copy of the model (live latencies do not change which links a path crosses).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fabric.hpp"

namespace morpheus {

// morpheus.conf's checkpoint keys (morpheus.conf(5)).
struct CheckpointSettings {
    // CheckpointShare: the share of a link's bandwidth that booked checkpoint flushes may hold
    // at any instant; per link tier (`by_tier`, names of the fabric's link tiers), else `share`.
    double share = 0.5;
    std::vector<std::pair<std::string, double>> by_tier;
    // CheckpointSlot: windows start and last whole slots; CheckpointCycle: every granted period
    // divides it (periods are rounded down to one), so the bookings repeat every cycle.
    int64_t slot_s = 10;
    int64_t cycle_s = 4 * 3600;
};

class LinkPaths {
public:
    // Throws InputError when `settings` names a tier no link of `fabric` has.
    LinkPaths(const Fabric &fabric, const CheckpointSettings &settings);

    // The links (indexes into Fabric::links) of the path from a node of `pod` to `blade`: the
    // lowest-latency path, through switches only, as the latency table measures it; parallel
    // links count as the one such a path takes. Empty when unreachable.
    const uint32_t *path_begin(uint32_t pod, uint32_t blade) const;
    const uint32_t *path_end(uint32_t pod, uint32_t blade) const;
    bool reachable(uint32_t pod, uint32_t blade) const { return path_begin(pod, blade) != path_end(pod, blade); }

    size_t link_count() const { return share_capacity_.size(); }
    // Bytes per second checkpoint flushes may hold on the link: CheckpointShare x bandwidth.
    double share_capacity(uint32_t link) const { return share_capacity_[link]; }
    double share(uint32_t link) const { return share_[link]; }
    // The narrowest share_capacity on the path (bytes/s), 0 when unreachable.
    double path_rate(uint32_t pod, uint32_t blade) const { return rate_[pod * blades_ + blade]; }
    // The most a flush can move per second from all pods together or into all blades together:
    // an upper bound on any flush's rate, for the submit-time check.
    double best_rate() const { return best_rate_; }
    // Blades reachable from `pod`, best for a flush first: widest path_rate, then lowest
    // latency, then blade index (what a checkpoint region walks).
    const std::vector<uint32_t> &blades_for_flush(uint32_t pod) const { return order_[pod]; }

private:
    uint32_t blades_ = 0;
    std::vector<uint32_t> offset_;  // pod x blade -> start in links_; offset_[i + 1] its end
    std::vector<uint32_t> links_;
    std::vector<double> rate_;
    std::vector<std::vector<uint32_t>> order_;
    std::vector<double> share_capacity_, share_;
    double best_rate_ = 0;
};

}  // namespace morpheus
