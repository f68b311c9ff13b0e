// What a run comes to, per policy: the figures of the simulate table and its JSON.
#pragma once
#include <cstddef>
#include <string>

#include "simulator.hpp"

namespace morpheus::sim {

struct Summary {
    std::string policy;
    size_t jobs = 0, ran = 0, rejected = 0, spread = 0;   // spread: over several pods
    double makespan_s = 0;
    double gpu_util = 0, hot_util = 0, cold_util = 0;     // time-averaged share of capacity
    // GPU-seconds of the runs as logged (unstretched) over capacity: the work delivered, which
    // gpu_util overstates for a policy whose far memory keeps GPUs busy for longer.
    double gpu_useful = 0;
    double stranded = 0;         // time-averaged share of DRAM stranded (see Sample)
    double wait_mean_s = 0, wait_p95_s = 0;
    double bounded_slowdown = 0; // mean of max(1, (wait + run as stretched) / max(run as logged, 10 s))
    double stretch_mean = 0;     // mean run time as stretched / as logged
    size_t hot_jobs = 0;
    double hot_latency_mean_ns = 0, hot_latency_p95_ns = 0;  // per job, bytes-weighted
    double within_bound = 0;     // share of hot jobs with all hot memory inside their bound
    size_t violations = 0;
};

constexpr double kSlowdownFloor = 10.0;  // seconds: bounded slowdown ignores shorter runs' noise

Summary summarize(const SimResult &r);

}  // namespace morpheus::sim
