// Trace record -> Request, deterministic per job (hash of seed and job id, not draw order).
#include "job_model.hpp"

#include <algorithm>
#include <cmath>

#include "placement.hpp"
#include "soft_bound.hpp"
#include "units.hpp"

namespace morpheus::sim {

namespace {

// splitmix64: a job's draws depend on its id only, so filtering a trace keeps the other jobs'.
double unit_draw(uint64_t seed, uint64_t id, uint64_t salt) {
    uint64_t z = seed * 0x9e3779b97f4a7c15ull + id * 0xbf58476d1ce4e5b9ull + salt * 0x94d049bb133111ebull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) / static_cast<double>(1ull << 53);
}

// Sensitivity-following bounds: the share of a class that asks for the tight bound, taking
// the most sensitive classes first until tight_share of all jobs is reached.
double tight_share_of(const JobModel &m, double alpha) {
    double weights = 0;
    for (const SensitivityClass &c : m.sensitivity) weights += c.weight;
    double above = 0, mine = 0;  // weight of the more sensitive classes; of this one
    for (const SensitivityClass &c : m.sensitivity) {
        if (c.alpha > alpha) above += c.weight / weights;
        if (c.alpha == alpha) mine += c.weight / weights;
    }
    if (mine <= 0) return 0;
    return std::clamp((m.tight_share - above) / mine, 0.0, 1.0);
}

uint32_t gpus_per_node(const ClusterModel &cluster) {
    return cluster.fabric().pods.empty() ? 1 : std::max<uint32_t>(1, cluster.fabric().pods[0].gpus_per_node);
}

}  // namespace

std::vector<SimJob> model_jobs(const Trace &trace, const JobModel &m, const ClusterModel &cluster) {
    std::vector<SimJob> out;
    out.reserve(trace.jobs.size());
    const uint32_t per_proc = m.gpus_per_proc ? m.gpus_per_proc : gpus_per_node(cluster);
    const uint32_t per_node = gpus_per_node(cluster);
    const int64_t t0 = trace.jobs.empty() ? 0 : trace.jobs.front().submit;
    for (const TraceJob &t : trace.jobs) {
        SimJob j;
        j.id = t.id;
        j.submit = t.submit - t0;
        j.runtime = t.runtime;
        j.estimate = t.requested_time > 0
                         ? std::max(t.runtime, t.requested_time)
                         : std::max<int64_t>(
                               1, static_cast<int64_t>(std::ceil(static_cast<double>(t.runtime) * m.limit_factor)));
        double u = unit_draw(m.seed, t.id, 3), cumulative = 0, weights = 0;
        for (const SensitivityClass &c : m.sensitivity) weights += c.weight;
        for (const SensitivityClass &c : m.sensitivity) {
            j.sensitivity = c.alpha;
            cumulative += c.weight / weights;
            if (u < cumulative) break;
        }
        Request &r = j.request;
        r.job_id = t.id;
        r.gpus = static_cast<uint32_t>(t.processors) * per_proc;
        const uint32_t nodes = (r.gpus + per_node - 1) / per_node;
        double per_node_bytes;
        if (t.memory_kb > 0) {
            per_node_bytes = static_cast<double>(t.memory_kb) * 1024.0 * m.mem_scale *
                             static_cast<double>(t.processors) / std::max<uint32_t>(1, nodes);
        } else {
            double lo = std::log(static_cast<double>(m.mem_min)), hi = std::log(static_cast<double>(m.mem_max));
            per_node_bytes = std::exp(lo + unit_draw(m.seed, t.id, 1) * (hi - lo));
        }
        const uint64_t gib = 1ull << 30;
        // Whole GiB, as users write --mem-hot; hot and cold add up to the rounded total.
        const uint64_t total = static_cast<uint64_t>(std::llround(per_node_bytes / static_cast<double>(gib)));
        const uint64_t hot =
            std::min<uint64_t>(total, static_cast<uint64_t>(std::llround(static_cast<double>(total) * m.hot_fraction)));
        r.hot_per_node = hot * gib;
        r.cold_per_node = (total - hot) * gib;
        const double tight_draw = unit_draw(m.seed, t.id, 2);
        j.tight = m.bound_model == JobModel::BoundModel::Sensitivity ? tight_draw < tight_share_of(m, j.sensitivity)
                                                                     : tight_draw < m.tight_share;
        r.hot_latency_ns = j.tight ? m.tight_bound_ns : m.default_bound_ns;
        r.hot_wait_s = m.hot_wait_s;
        r.time_limit_s = j.estimate;  // what the job declares, as Slurm's --time
        out.push_back(std::move(j));
    }
    judge_on_empty_cluster(out, cluster);
    return out;
}

void judge_on_empty_cluster(std::vector<SimJob> &jobs, const ClusterModel &cluster) {
    // decide() on an empty ledger with every node free, blades as the inventory has them (not
    // feasibility(), which counts draining blades in service: the replay's inventory is fixed).
    const Ledger empty(cluster.fabric().blades.size());
    const std::vector<uint8_t> all_free(cluster.fabric().node_names.size(), 1);
    for (SimJob &j : jobs) {
        Request terms = j.request;
        terms.bound_lapsed = false;
        j.in_bound = decide(cluster, empty, terms, all_free).verdict == Verdict::Placed;
        // A soft bound lapses one day (its wait is over): then any latency will do.
        terms.bound_lapsed = wait_ends(cluster, terms, 0) != INT64_MAX;
        j.apart =
            !j.in_bound && (!terms.bound_lapsed || decide(cluster, empty, terms, all_free).verdict != Verdict::Placed);
    }
}

const char *bound_model_name(JobModel::BoundModel m) {
    return m == JobModel::BoundModel::Sensitivity ? "sensitivity" : "independent";
}

std::string describe(const JobModel &m, const ClusterModel &cluster) {
    const uint32_t per_proc = m.gpus_per_proc ? m.gpus_per_proc : gpus_per_node(cluster);
    std::string s =
        "1 processor = " + std::to_string(per_proc) + " GPUs; memory per node from the record x" +
        std::to_string(m.mem_scale).substr(0, 4) + ", else " + format_size(m.mem_min) + ".." + format_size(m.mem_max) +
        " log-uniform; " + std::to_string(static_cast<int>(m.hot_fraction * 100 + 0.5)) + "% hot; hot bound " +
        format_latency(m.default_bound_ns ? m.default_bound_ns : cluster.settings().default_hot_latency_ns) + ", " +
        std::to_string(static_cast<int>(m.tight_share * 100 + 0.5)) + "% of jobs " + format_latency(m.tight_bound_ns) +
        (m.bound_model == JobModel::BoundModel::Sensitivity ? " (the most latency-sensitive)" : " (at random)") +
        "; time limit: requested time, else run time x " + std::to_string(m.limit_factor).substr(0, 4);
    return s;
}

}  // namespace morpheus::sim
