// morpheus simulate --checkpoint: the checkpoint-offload study (issue 28). The same workload,
// with the morpheus policy, three times per seed: without checkpoints, with uncoordinated
// checkpoints (each job flushes on its own schedule at line rate) and with booked windows;
// then the flush figures of the link-bandwidth model (flush_replay.hpp) and the waits.
#pragma once
#include <cstdint>
#include <vector>

#include "cluster_model.hpp"
#include "job_model.hpp"
#include "simulator.hpp"
#include "trace.hpp"

namespace morpheus::cli {

// The stated checkpoint model: a job whose time limit is at least one period checkpoints its
// hot memory (its model and optimizer state: nodes x --mem-hot) every `period_s`, one copy,
// allowing a period up to `stretch` times longer when no window can be booked.
struct CheckpointStudy {
    int64_t period_s = 1800;
    double stretch = 2.0;
    uint32_t replicas = 1;
};

// Prints the table (or JSON); returns 0, or 1 when a replay broke conservation.
int run_checkpoint_study(const ClusterModel &cluster, const sim::Trace &trace, const sim::JobModel &model,
                         sim::SimOptions opt, size_t seeds, const CheckpointStudy &study, bool json,
                         const std::string &trace_name);

}  // namespace morpheus::cli
