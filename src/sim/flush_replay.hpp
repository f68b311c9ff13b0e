// The link-bandwidth model for checkpoint flushes (issue 28), replayed after a run: every
// flush of every job that checkpointed, as flows from its pods to its region's blades along
// the fabric's paths, sharing each link max-min fairly with whatever else flows there (fluid,
// event by event: a flow's rate changes only when a flow starts or ends).
//   uncoordinated: a flush every asked period from the job's start (the first one period in),
//                  at line rate: links carry up to their whole bandwidth.
//   booked:        a flush at each of its booked windows from one period in, each flow paced to
//                  the rate its booking holds (bytes over the window), on links whose checkpoint
//                  traffic is held to CheckpointShare (the fabric's bulk traffic class).
// In both, a flush starts only when it can end, alone, before its job does.
// A flush's time is compared with the same flush alone on the fabric in the same mode.
#pragma once
#include <cstdint>
#include <vector>

#include "cluster_model.hpp"
#include "simulator.hpp"

namespace morpheus::sim {

struct FlushFigures {
    size_t jobs = 0, flushes = 0;
    double ratio_p50 = 0, ratio_p99 = 0, ratio_max = 0;  // flush time / alone
    double seconds_p50 = 0, seconds_p99 = 0;  // flush time
    // Time spent flushing over the checkpointing jobs' run time (flushes run beside training).
    double share_of_run = 0;
    // The busiest instant of any link: checkpoint traffic over its bandwidth, and over its
    // checkpoint share (> 1: above the share the admin allowed).
    double peak_load = 0, peak_over_share = 0;
    // Link-seconds with checkpoint traffic above the share, over link-seconds with any.
    double time_over_share = 0;
    size_t longer_period = 0;  // booked: jobs granted a longer period than they asked
};

FlushFigures replay_flushes(const ClusterModel &m, const SimResult &run, CheckpointMode mode);

// The fluid core, exposed for tests: flows (bytes over a path of links) starting at given
// times, link capacities in bytes/s; returns each flow's completion time. `load_seen`: per
// link, the highest total rate it carried.
struct FluidFlow {
    double start = 0;
    double bytes = 0;
    std::vector<uint32_t> links;
    double max_rate = 0;  // bytes/s it is paced to (booked flushes keep to their booking); 0: none
};
std::vector<double> fluid_completions(const std::vector<FluidFlow> &flows, const std::vector<double> &capacity,
                                      std::vector<double> *load_seen = nullptr,
                                      std::vector<double> *seconds_over = nullptr,
                                      const std::vector<double> *over_threshold = nullptr,
                                      std::vector<double> *seconds_busy = nullptr);

}  // namespace morpheus::sim
