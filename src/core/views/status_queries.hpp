// Answers to status queries (pools, jobs, explain, metrics) for a viewer, as one JSON document.
// The status service inside slurmctld and the CLI's offline mode both answer through here.
#pragma once
#include <cstdint>
#include <string>

namespace morpheus {

class ClusterModel;
class Ledger;
class DecisionLog;

// request_json: {"op": "status" | "jobs" | "explain" | "metrics", "job": N}. A privileged
// viewer (root, SlurmUser) sees every job's detail; others see pool totals and their own jobs
// only, and with private_jobs (Slurm's PrivateData=jobs) no other user's job at all. To such a
// viewer, explain answers alike for another user's job and for no job, so it tells nothing of
// others' jobs. The caller holds whatever lock guards the three.
std::string answer_status_query(const ClusterModel &model, const Ledger &ledger, const DecisionLog &log, uint32_t uid,
                                bool privileged, const std::string &request_json, bool private_jobs = false);

}  // namespace morpheus
