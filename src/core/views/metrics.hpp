// Prometheus text exposition of pools and decisions (`morpheus metrics`).
#pragma once
#include <string>

#include "cluster_model.hpp"
#include "decision_log.hpp"
#include "ledger.hpp"

namespace morpheus {

std::string metrics_text(const ClusterModel &m, const Ledger &l, const DecisionLog &log);

}  // namespace morpheus
