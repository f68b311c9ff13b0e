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

struct JobModel {
    // GPUs per trace processor; 0: the fabric's GPUs per node, i.e. one processor is one node,
    // which keeps the trace's offered load (the logs are from machines of single-CPU nodes).
    uint32_t gpus_per_proc = 0;
    // Memory per node when the record has none (-1): log-uniform in [mem_min, mem_max], drawn
    // per job from `seed`, so every policy sees the same jobs.
    uint64_t mem_min = 32ull << 30, mem_max = 512ull << 30;
    double mem_scale = 1.0;           // multiplies memory from the record (KB per processor)
    double hot_fraction = 0.5;        // share of a job's memory that is hot; the rest is cold
    uint64_t default_bound_ns = 0;    // hot bound of most jobs; 0: the model's DefaultHotLatency
    double tight_share = 0.25;        // share of jobs that ask for tight_bound_ns instead
    uint64_t tight_bound_ns = 250;
    uint64_t seed = 1;
};

struct SimJob {
    uint64_t id = 0;
    int64_t submit = 0;
    int64_t runtime = 0;    // as in the trace, on local memory
    int64_t estimate = 0;   // what the scheduler is told (requested time, at least the runtime)
    Request request;
};

// One SimJob per trace job, in submit order, submit times shifted so the first is 0.
std::vector<SimJob> model_jobs(const Trace &trace, const JobModel &model, const ClusterModel &cluster);

// For people: "1 processor = 8 GPUs (1 node); memory 32G..512G/node log-uniform, 50% hot; ..."
std::string describe(const JobModel &model, const ClusterModel &cluster);

}  // namespace morpheus::sim
