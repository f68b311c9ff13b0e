// The slowdown model: how much longer a job runs for the hot-memory latency it was given.
//   runtime' = runtime * (1 + alpha_j * max(0, L - local_ns) / local_ns)
// L is the bytes-weighted mean latency of the job's hot memory; local_ns is what the trace's
// machine had (local DRAM), so a job whose hot memory is as near as local memory runs as logged,
// and one at twice local latency runs alpha_j longer. alpha_j is the job's own latency
// sensitivity, drawn by the job model (see SensitivityMix), or one `alpha` for every job when
// that is set (>= 0). Cold memory is by definition latency-tolerant and stretches nothing; a
// job without hot memory runs as logged.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace morpheus::sim {

struct SlowdownModel {
    double alpha = -1;  // >= 0: the same sensitivity for every job; < 0: each job's own
    double local_ns = 100.0;  // latency at which a job runs as in the trace

    double sensitivity(double job_alpha) const { return alpha >= 0 ? alpha : job_alpha; }
    double factor(double hot_latency_ns, double job_alpha) const {
        if (hot_latency_ns <= 0) return 1.0;
        return 1.0 + sensitivity(job_alpha) * std::max(0.0, hot_latency_ns - local_ns) / local_ns;
    }
    int64_t stretch(int64_t runtime, double hot_latency_ns, double job_alpha) const {
        return std::max<int64_t>(
            1, static_cast<int64_t>(std::llround(static_cast<double>(runtime) * factor(hot_latency_ns, job_alpha))));
    }
};

}  // namespace morpheus::sim
