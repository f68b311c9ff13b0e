// Answers to status queries (pools, jobs, explain, metrics) for a viewer, as one JSON document.
// The status service inside slurmctld and the CLI's offline mode both answer through here.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace morpheus {

class ClusterModel;
class Ledger;
class DecisionLog;
class Engine;

// request_json: {"op": "status" | "jobs" | "explain" | "metrics", "job": N}. A privileged
// viewer (root, SlurmUser) sees every job's detail; others see pool totals and their own jobs
// only, and with private_jobs (Slurm's PrivateData=jobs) no other user's job at all. To such a
// viewer, explain answers alike for another user's job and for no job, so it tells nothing of
// others' jobs. The caller holds whatever lock guards the three.
std::string answer_status_query(const ClusterModel &model, const Ledger &ledger, const DecisionLog &log, uint32_t uid,
                                bool privileged, const std::string &request_json, bool private_jobs = false);

// The node side's ops (issue 27), answered inside slurmctld with the engine's lock held;
// nullopt when request_json's op is none of them (answer_status_query then). Only root may
// call them (slurmd runs HealthCheckProgram as root, `morpheus node agent`); others get an
// error saying so.
//   {"op": "moves", "node": NAME}: the moves under way of jobs that run on NAME, each with the
//     job id, the bytes to move, where they are (from) and where they go (target).
//   {"op": "move_done", "job": N, "node": NAME, "emulated": bool}: the node finished moving
//     its share of the job's pages; once every node of the job has, the engine makes the
//     target the job's hot memory and frees the old region ("finished": true). Refused unless
//     the job runs on NAME and has a move under way.
// The node name is what the caller says; root on any host the munge key reaches may speak
// for any node.
std::optional<std::string> answer_node_query(Engine &engine, uint32_t uid, const std::string &request_json,
                                             int64_t now);

}  // namespace morpheus
