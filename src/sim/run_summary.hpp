// What a run comes to, per policy: the figures of the simulate table and its JSON.
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "simulator.hpp"

namespace morpheus::sim {

// Jobs by nodes: 1, 2-4, 5-16, 17+ (kSizeClassMin[k] <= nodes < kSizeClassMin[k + 1]).
constexpr std::array<uint32_t, 4> kSizeClassMin{1, 2, 5, 17};
constexpr std::array<const char *, 4> kSizeClassName{"1", "2-4", "5-16", "17+"};

struct SizeClass {
    size_t jobs = 0;
    double wait_mean_s = 0, wait_max_s = 0;
};

struct Summary {
    std::string policy;
    // apart: jobs the cluster can never run under their own terms, the same for every policy,
    // in no other figure. refused: jobs this policy turned away though their terms allow a
    // placement: charged in every wait and slowdown figure as having waited from submission to
    // the end of the replay and run then as logged (a policy that refuses work is not better).
    size_t jobs = 0, ran = 0, apart = 0, refused = 0, spread = 0;  // spread: over several pods
    size_t killed = 0;  // ended at their time limit, stretched past it
    double wait_max_s = 0;
    double large_wait_max_s = 0;  // the largest 10% of the jobs that ran (by nodes): their longest wait
    std::array<SizeClass, 4> size_classes;
    double makespan_s = 0;
    double gpu_util = 0, hot_util = 0, cold_util = 0;  // time-averaged share of capacity
    // GPU-seconds of the runs as logged (unstretched) over capacity: the work delivered, which
    // gpu_util overstates for a policy whose far memory keeps GPUs busy for longer.
    double gpu_useful = 0;
    double stranded = 0;  // time-averaged share of DRAM stranded (see Sample)
    double wait_mean_s = 0, wait_p95_s = 0;
    double bounded_slowdown = 0;  // mean of max(1, (wait + run as stretched) / max(run as logged, 10 s))
    double stretch_mean = 0;  // mean run time as stretched / as logged
    size_t hot_jobs = 0;
    double hot_latency_mean_ns = 0, hot_latency_p95_ns = 0;  // per job, bytes-weighted
    double within_bound = 0;  // share of hot jobs with all hot memory inside their bound
    // Tight-bound jobs that can have their hot memory inside the bound (SimJob::in_bound): the
    // share of their run time (as run, over those that ran) with every hot byte inside it.
    size_t tight_jobs = 0;
    double tight_in_bound = 0;
    // Against the fabric's true latency (latency events): tight-bound jobs' run time with some
    // hot byte truly beyond the bound, and how many such jobs; the mean stretch of the jobs with
    // hot memory; hot jobs that started on a cell an event had made slower.
    double tight_over_bound_s = 0;
    size_t tight_over_bound_jobs = 0;
    // Of that, the time with some hot byte that placement believed inside the bound beyond it:
    // what no policy chose (a soft bound's lapse is chosen), the latency events' doing.
    double tight_unseen_s = 0;
    size_t tight_unseen_jobs = 0;
    double hot_stretch_mean = 0;
    double true_hot_latency_mean_ns = 0;
    size_t degraded_starts = 0;
    size_t probe_rounds = 0, heat_changes = 0;
    size_t violations = 0;
    size_t moves = 0;  // moves of hot memory inside the bound, finished
    // Over the jobs that every compared policy ran (see common_jobs): a policy that fails the
    // hardest jobs must not look better for it.
    size_t common_jobs = 0;
    double common_wait_mean_s = 0, common_bounded_slowdown = 0;
};

constexpr double kSlowdownFloor = 10.0;  // seconds: bounded slowdown ignores shorter runs' noise

Summary summarize(const SimResult &r);

// Flags the jobs (by index) that ran in every one of `runs` (the same workload), and fills each
// summary's common_* figures over those jobs. `summaries` is parallel to `runs`.
void common_jobs(const std::vector<const SimResult *> &runs, std::vector<Summary *> summaries);

// Mean of independent runs (seeds) and the half-width of its 95% confidence interval from
// Student's t distribution with n-1 degrees of freedom (0 for a single run).
struct Interval {
    double mean = 0, half = 0;
    size_t n = 0;
};
Interval t_interval(const std::vector<double> &runs);
double t_quantile_975(size_t degrees_of_freedom);

}  // namespace morpheus::sim
