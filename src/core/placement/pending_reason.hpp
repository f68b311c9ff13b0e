// The pending reason Slurm shows (squeue, scontrol show job, squeue --json): one short
// clause, the most actionable of the decision's refusals. The whole story stays in the
// decision's reason and in `morpheus explain`.
#pragma once
#include <string>

#include "cluster_model.hpp"
#include "placement.hpp"
#include "request.hpp"

namespace morpheus {

// At most kPendingReasonMax characters, without the "Morpheus:" prefix.
constexpr size_t kPendingReasonMax = 72;
std::string pending_reason(const ClusterModel &m, const Request &req, const Decision &d);

}  // namespace morpheus
