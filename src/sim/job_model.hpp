// The job model: how a trace record (processors, memory, run time) becomes a Request for GPUs,
// hot and cold memory. None of the traces carries memory tiers, so this is stated, not found.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cluster_model.hpp"
#include "request.hpp"
#include "trace.hpp"

namespace morpheus::sim {

// Per-job latency sensitivity (alpha of the slowdown model), a mixture fitted to Pond's CDF
// (Li et al., ASPLOS'23, 158 workloads with all memory at emulated CXL latency, local + 70-90ns,
// about twice local): 20-40% of workloads slow by under 5%, about a quarter by over 25%. At
// twice local latency these alphas are 0%, 5%, 15% and 35% slowdowns; Melody (Liu et al.,
// ASPLOS'25: 265 workloads, 4 CXL devices at 140-410ns) finds the same spread, growing with
// latency, which the linear term keeps.
struct SensitivityClass {
    double alpha, weight;
};
inline const std::vector<SensitivityClass> kPondMix{{0.0, 0.30}, {0.05, 0.25}, {0.15, 0.20}, {0.35, 0.25}};

struct JobModel {
    // GPUs per trace processor; 0: the fabric's GPUs per node, i.e. one processor is one node,
    // which keeps the trace's offered load (the logs are from machines of single-CPU nodes).
    uint32_t gpus_per_proc = 0;
    // Memory per node when the record has none (-1): log-uniform in [mem_min, mem_max], drawn
    // per job from `seed`, so every policy sees the same jobs.
    uint64_t mem_min = 32ull << 30, mem_max = 512ull << 30;
    double mem_scale = 1.0;  // multiplies memory from the record (KB per processor)
    double hot_fraction = 0.5;  // share of a job's memory that is hot; the rest is cold
    uint64_t default_bound_ns = 0;  // hot bound of most jobs; 0: the model's DefaultHotLatency
    double tight_share = 0.25;  // share of jobs that ask for tight_bound_ns instead
    // Who asks for the tight bound. Independent: tight_share of the jobs drawn at random,
    // whatever their sensitivity (honouring a bound can then only cost). Sensitivity: the most
    // latency-sensitive jobs (the highest alpha classes, tight_share of them in all), as users
    // who ask for a tight bound because their job needs it. The scheduler never sees the alpha.
    enum class BoundModel { Independent, Sensitivity } bound_model = BoundModel::Independent;
    uint64_t tight_bound_ns = 250;
    uint64_t seed = 1;
    std::vector<SensitivityClass> sensitivity = kPondMix;  // drawn per job and seed
    // Time limit when the record has no requested time (SWF column 9): run time x this, as
    // users over-estimate; with a requested time, that (at least the run time) is the limit.
    double limit_factor = 2.0;
    // The --mem-hot-wait every job declares (request.hpp's kHotWait* or seconds); default: none
    // declared, so morpheus.conf's DefaultHotWait (hard unless set) applies.
    int64_t hot_wait_s = 0;
};

struct SimJob {
    uint64_t id = 0;
    int64_t submit = 0;
    int64_t runtime = 0;  // as in the trace, on local memory
    int64_t estimate = 0;  // the time limit: backfill plans with it, and a job still running then is killed
    double sensitivity = 0;  // alpha of the slowdown model for this job
    bool tight = false;  // asked for the tight bound
    Request request;
    // On an empty cluster, under the job's own terms (its bound hard or soft as declared), as
    // the core decides (decide(): the most any policy could do while honouring the terms):
    // apart: no placement at all: listed apart, the same for every policy, in no figure.
    // in_bound: hot memory inside the bound fits (the tight jobs counted by TIGHT_IN).
    bool apart = false, in_bound = false;
};

// One SimJob per trace job, in submit order, submit times shifted so the first is 0; apart and
// in_bound judged on `cluster` (judge_on_empty_cluster).
std::vector<SimJob> model_jobs(const Trace &trace, const JobModel &model, const ClusterModel &cluster);

// Sets each job's apart and in_bound on an empty `cluster` (a pool size changes them).
void judge_on_empty_cluster(std::vector<SimJob> &jobs, const ClusterModel &cluster);

const char *bound_model_name(JobModel::BoundModel m);

// For people: "1 processor = 8 GPUs (1 node); memory 32G..512G/node log-uniform, 50% hot; ..."
std::string describe(const JobModel &model, const ClusterModel &cluster);

}  // namespace morpheus::sim
