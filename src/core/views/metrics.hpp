// Prometheus text exposition of pools and decisions (`morpheus metrics`).
#pragma once
#include <string>

#include "cluster_model.hpp"
#include "decision_log.hpp"
#include "ledger.hpp"
#include "status_model.hpp"

namespace morpheus {

// With live's heat map (issue 29), its series too, bounded at any scale: per blade (that some
// pod measured) the fresh, stale and live cells and the worst measured/static ratio, and per
// cell only the cells whose measured figure is off the static value by more than
// HeatMapHysteresis, the farthest first, at most live.metric_cells of them.
std::string metrics_text(const ClusterModel &m, const Ledger &l, const DecisionLog &log, const LiveState &live = {});

}  // namespace morpheus
