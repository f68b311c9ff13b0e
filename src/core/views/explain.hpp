// Words and JSON for decisions and reservations: why a job went where it did, what it holds.
// The CLI, the plugin's pending reasons and the status views all render through here.
#pragma once
#include <string>

#include "cluster_model.hpp"
#include "engine.hpp"
#include "ledger.hpp"
#include "placement.hpp"
#include "request.hpp"

namespace morpheus {

// Several lines for people: verdict, chosen pod(s) and blades, then each pod's assessment
// (at most `max_pods`, best first) with what ruled it out.
std::string explain_text(const ClusterModel &m, const Request &req, const Decision &d, size_t max_pods = 16);
std::string decision_json(const ClusterModel &m, const Request &req, const Decision &d);

// The pods of a placement, "pod1,pod2".
std::string pod_names(const Fabric &f, const std::vector<PodShare> &pods);
// "pod=pod1 hot=blade1:64G@200ns cold=blade5:pmem:1T" for a Slurm job field.
// With a checkpoint: " ckpt=blade1:600G@80ns window=30s+26s/60s" and the region's state.
std::string reservation_summary(const ClusterModel &m, const Reservation &r);
// MORPHEUS_* environment lines ("NAME=value\n"), values free of shell metacharacters.
// With a checkpoint, the MORPHEUS_CKPT_* lines too (morpheus_env.h).
std::string reservation_environment(const ClusterModel &m, const Reservation &r);

}  // namespace morpheus
