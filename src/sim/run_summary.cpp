// Summary figures from the outcomes and the time integrals of one run.
#include "run_summary.hpp"

#include <algorithm>
#include <cmath>
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
    s.moves = r.moves;
    s.probe_rounds = r.probe_rounds;
    s.heat_changes = r.heat_changes;
    std::vector<double> waits, slowdowns, stretches, latencies, hot_stretches, true_latencies;
    std::vector<std::pair<uint32_t, double>> size_wait;  // nodes, wait
    size_t within = 0;
    double useful = 0, tight_run = 0, tight_in = 0;
    for (const JobOutcome &j : r.jobs) {
        if (j.apart) {
            ++s.apart;
            continue;
        }
        s.tight_jobs += j.tight && j.in_bound_possible;
        if (j.refused)
            ++s.refused;
        else if (j.start < 0)
            continue;
        else
            ++s.ran;
        // A refused job is charged: it waited to the end of the replay, then ran as logged.
        const double wait = static_cast<double>(j.refused ? r.last_end - j.submit : j.start - j.submit);
        const double runtime = static_cast<double>(j.refused ? j.base_runtime : j.runtime);
        waits.push_back(wait);
        size_wait.push_back({j.nodes, wait});
        s.killed += j.killed;
        s.wait_max_s = std::max(s.wait_max_s, wait);
        for (size_t k = kSizeClassMin.size(); k-- > 0;)
            if (j.nodes >= kSizeClassMin[k]) {
                SizeClass &c = s.size_classes[k];
                c.wait_mean_s += wait;  // a sum until the end
                c.wait_max_s = std::max(c.wait_max_s, wait);
                ++c.jobs;
                break;
            }
        slowdowns.push_back(
            std::max(1.0, (wait + runtime) / std::max(static_cast<double>(j.base_runtime), kSlowdownFloor)));
        if (j.refused) continue;
        s.spread += j.pods > 1;
        useful += static_cast<double>(j.gpus) * static_cast<double>(j.base_runtime);
        if (j.tight && j.in_bound_possible) {
            tight_run += static_cast<double>(j.runtime);
            tight_in += static_cast<double>(j.in_bound_s);
        }
        stretches.push_back(static_cast<double>(j.runtime) / static_cast<double>(std::max<int64_t>(1, j.base_runtime)));
        if (j.hot_bytes) {
            latencies.push_back(j.hot_latency_ns);
            true_latencies.push_back(j.true_hot_latency_ns);
            hot_stretches.push_back(stretches.back());
            within += j.within_bound;
            s.degraded_starts += j.degraded_start;
            if (j.tight) {
                s.tight_over_bound_s += static_cast<double>(j.over_bound_s);
                s.tight_over_bound_jobs += j.over_bound_s > 0;
                s.tight_unseen_s += static_cast<double>(j.unseen_over_bound_s);
                s.tight_unseen_jobs += j.unseen_over_bound_s > 0;
            }
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
    for (SizeClass &c : s.size_classes)
        if (c.jobs) c.wait_mean_s /= static_cast<double>(c.jobs);
    // The largest tenth (at least one job), largest first; equal sizes in job order.
    std::stable_sort(size_wait.begin(), size_wait.end(),
                     [](const auto &a, const auto &b) { return a.first > b.first; });
    for (size_t k = 0; k < (size_wait.size() + 9) / 10; ++k)
        s.large_wait_max_s = std::max(s.large_wait_max_s, size_wait[k].second);
    s.wait_mean_s = mean(waits);
    s.wait_p95_s = p95(waits);
    s.bounded_slowdown = mean(slowdowns);
    s.stretch_mean = mean(stretches);
    s.hot_jobs = latencies.size();
    s.hot_latency_mean_ns = mean(latencies);
    s.hot_latency_p95_ns = p95(latencies);
    s.hot_stretch_mean = mean(hot_stretches);
    s.true_hot_latency_mean_ns = mean(true_latencies);
    s.tight_in_bound = tight_run > 0 ? tight_in / tight_run : 0;
    s.within_bound = latencies.empty() ? 0 : static_cast<double>(within) / static_cast<double>(latencies.size());
    return s;
}

void common_jobs(const std::vector<const SimResult *> &runs, std::vector<Summary *> summaries) {
    if (runs.empty()) return;
    const size_t n = runs.front()->jobs.size();
    std::vector<uint8_t> all(n, 1);
    for (const SimResult *r : runs)
        for (size_t i = 0; i < n && i < r->jobs.size(); ++i) all[i] &= r->jobs[i].start >= 0;
    for (size_t k = 0; k < runs.size(); ++k) {
        std::vector<double> waits, slowdowns;
        for (size_t i = 0; i < n; ++i) {
            if (!all[i]) continue;
            const JobOutcome &j = runs[k]->jobs[i];
            const double wait = static_cast<double>(j.start - j.submit);
            waits.push_back(wait);
            slowdowns.push_back(std::max(1.0, (wait + static_cast<double>(j.runtime)) /
                                                  std::max(static_cast<double>(j.base_runtime), kSlowdownFloor)));
        }
        summaries[k]->common_jobs = waits.size();
        summaries[k]->common_wait_mean_s = mean(waits);
        summaries[k]->common_bounded_slowdown = mean(slowdowns);
    }
}

double t_quantile_975(size_t df) {
    // Two-sided 95%: t(0.975, df), from the standard tables; 1.96 in the limit.
    static const double table[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                   2.201, 2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080,
                                   2.074, 2.069,  2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (df == 0) return 0;
    if (df < sizeof table / sizeof table[0]) return table[df];
    if (df <= 40) return 2.021;
    if (df <= 60) return 2.000;
    if (df <= 120) return 1.980;
    return 1.960;
}

Interval t_interval(const std::vector<double> &runs) {
    Interval i;
    i.n = runs.size();
    i.mean = mean(runs);
    if (i.n < 2) return i;
    double ss = 0;
    for (double x : runs) ss += (x - i.mean) * (x - i.mean);
    const double sd = std::sqrt(ss / static_cast<double>(i.n - 1));
    i.half = t_quantile_975(i.n - 1) * sd / std::sqrt(static_cast<double>(i.n));
    return i;
}

}  // namespace morpheus::sim
