// Summary figures from the outcomes and the time integrals of one run.
#include "run_summary.hpp"

#include <algorithm>
#include <vector>

namespace morpheus::sim {

namespace {

double mean(const std::vector<double> &v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// Nearest rank.
double p95(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    size_t rank = static_cast<size_t>(0.95 * static_cast<double>(v.size()) + 0.999999);
    return v[std::min(v.size(), std::max<size_t>(rank, 1)) - 1];
}

}  // namespace

Summary summarize(const SimResult &r) {
    Summary s;
    s.policy = r.policy;
    s.jobs = r.jobs.size();
    s.violations = r.violations.size();
    std::vector<double> waits, slowdowns, stretches, latencies;
    size_t within = 0;
    double useful = 0;
    for (const JobOutcome &j : r.jobs) {
        if (j.rejected) {
            ++s.rejected;
            continue;
        }
        if (j.start < 0) continue;
        ++s.ran;
        s.spread += j.pods > 1;
        useful += static_cast<double>(j.gpus) * static_cast<double>(j.base_runtime);
        double wait = static_cast<double>(j.start - j.submit);
        waits.push_back(wait);
        slowdowns.push_back(std::max(1.0, (wait + static_cast<double>(j.runtime)) /
                                              std::max(static_cast<double>(j.base_runtime), kSlowdownFloor)));
        stretches.push_back(static_cast<double>(j.runtime) / static_cast<double>(std::max<int64_t>(1, j.base_runtime)));
        if (j.hot_bytes) {
            latencies.push_back(j.hot_latency_ns);
            within += j.within_bound;
        }
    }
    s.makespan_s = static_cast<double>(r.last_end - r.first_submit);
    if (s.makespan_s > 0) {
        if (r.total_gpus) {
            s.gpu_util = r.gpu_seconds / (static_cast<double>(r.total_gpus) * s.makespan_s);
            s.gpu_useful = useful / (static_cast<double>(r.total_gpus) * s.makespan_s);
        }
        if (r.total_dram) s.hot_util = r.hot_seconds / (static_cast<double>(r.total_dram) * s.makespan_s);
        if (r.total_pmem) s.cold_util = r.cold_seconds / (static_cast<double>(r.total_pmem) * s.makespan_s);
    }
    std::vector<double> stranded;
    for (const Sample &x : r.timeline) stranded.push_back(x.stranded);
    s.stranded = mean(stranded);
    s.wait_mean_s = mean(waits);
    s.wait_p95_s = p95(waits);
    s.bounded_slowdown = mean(slowdowns);
    s.stretch_mean = mean(stretches);
    s.hot_jobs = latencies.size();
    s.hot_latency_mean_ns = mean(latencies);
    s.hot_latency_p95_ns = p95(latencies);
    s.within_bound = latencies.empty() ? 0 : static_cast<double>(within) / static_cast<double>(latencies.size());
    return s;
}

}  // namespace morpheus::sim
