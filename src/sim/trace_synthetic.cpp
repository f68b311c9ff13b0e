// Generated SWF-like traces (see SyntheticParams for the model).
#include <algorithm>
#include <cmath>
#include <random>

#include "trace.hpp"

namespace morpheus::sim {

Trace synthetic_trace(const SyntheticParams &p) {
    Trace t;
    t.source = "synthetic:" + std::to_string(p.jobs) + " jobs, seed " + std::to_string(p.seed);
    std::mt19937_64 rng(p.seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const int max_k =
        static_cast<int>(std::floor(std::log2(static_cast<double>(std::max<uint64_t>(1, p.max_job_processors)))));
    const double lo = std::log(static_cast<double>(p.min_runtime)), hi = std::log(static_cast<double>(p.max_runtime));
    // Mean processor-seconds of one job, from the size and runtime distributions above, so the
    // arrival rate gives the asked load: E[2^k] * E[runtime].
    double mean_procs = 0;
    for (int k = 0; k <= max_k; ++k) mean_procs += std::ldexp(1.0, k) / (max_k + 1);
    const double mean_runtime = (std::exp(hi) - std::exp(lo)) / (hi - lo);
    const double rate = p.load * static_cast<double>(p.processors) / (mean_procs * mean_runtime);
    std::exponential_distribution<double> gap(rate);
    double now = 0;
    for (size_t i = 0; i < p.jobs; ++i) {
        TraceJob j;
        j.id = i + 1;
        now += gap(rng);
        j.submit = static_cast<int64_t>(now);
        int k = static_cast<int>(u(rng) * (max_k + 1));
        j.processors = int64_t{1} << std::min(k, max_k);
        j.runtime = std::max<int64_t>(1, static_cast<int64_t>(std::exp(lo + u(rng) * (hi - lo))));
        j.requested_time = static_cast<int64_t>(static_cast<double>(j.runtime) * (1.0 + 2.0 * u(rng)));
        j.status = 1;
        t.jobs.push_back(j);
    }
    return t;
}

}  // namespace morpheus::sim
