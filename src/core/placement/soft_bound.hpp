// Soft hot-memory bounds (issue 27): a job states how long it waits for hot memory inside its
// latency bound (--mem-hot-wait, like Slurm's --switches=N@TIME); once that wait is over, or
// once the planner says in-bound memory will not be free before it is, the job takes the
// nearest memory there is (decide() and assign_blades() read Request::bound_lapsed), and a
// move brings it inside the bound later (move.hpp). A hard bound never lapses.
#pragma once
#include <cstdint>
#include <string>

#include "cluster_model.hpp"
#include "request.hpp"

namespace morpheus {

// The job's wait: its own --mem-hot-wait, else morpheus.conf's DefaultHotWait (seconds,
// kHotWaitNone for none, kHotWaitHard).
int64_t hot_wait(const ClusterModel &model, const Request &req);

// "" when the job's wait is one the site allows; otherwise why not, naming --mem-hot-wait,
// MaxHotWait and the fix (refused at submission).
std::string wait_refusal(const ClusterModel &model, const Request &req);

// May a job that has waited since `since` (unix seconds, when it became eligible) take hot
// memory beyond its bound at `now`? Yes when its bound is soft and either its wait is over or
// `in_bound_start` (when the planner expects memory inside the bound; < 0: not known) lies
// past the end of the wait: waiting on would only delay the same far start.
bool bound_lapsed(const ClusterModel &model, const Request &req, int64_t since, int64_t now,
                  int64_t in_bound_start = -1);

// When the wait of a job waiting since `since` ends (INT64_MAX for a hard bound): the time at
// which something must look at the job again even if nothing else changed. The declared wait,
// cut to HotWaitShare x the job's time limit when both are set (expected completion).
int64_t wait_ends(const ClusterModel &model, const Request &req, int64_t since);

}  // namespace morpheus
