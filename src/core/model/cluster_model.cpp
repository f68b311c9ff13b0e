// Precomputation done once per load, never per job.
#include "cluster_model.hpp"

#include <algorithm>
#include <stdexcept>

namespace morpheus {

const char *hot_blade_order_name(HotBladeOrder o) { return o == HotBladeOrder::Slack ? "slack" : "nearest"; }

ClusterModel::ClusterModel(Fabric fabric, Inventory inventory, PlacementSettings settings)
    : fabric_(std::move(fabric)),
      inventory_(std::move(inventory)),
      settings_(settings),
      table_(fabric_),
      paths_(std::make_shared<const LinkPaths>(fabric_, settings_.checkpoint)) {
    fabric_.build_indexes();  // the move left the name maps pointing nowhere useful
    rank_cold_blades();
}

void ClusterModel::rank_cold_blades() {
    const size_t blades = fabric_.blades.size();
    pressure_.assign(blades, 0.0);
    for (uint32_t p = 0; p < fabric_.pods.size(); ++p)
        for (uint32_t b : table_.blades_by_latency(p)) {
            if (table_.latency(p, b) > settings_.default_hot_latency_ns) break;
            pressure_[b] += 1.0;
        }
    for (double &x : pressure_) x /= std::max<size_t>(1, fabric_.pods.size());
    cold_order_.resize(blades);
    for (uint32_t b = 0; b < blades; ++b) cold_order_[b] = b;
    const double w = settings_.weights.cold_pressure;
    std::sort(cold_order_.begin(), cold_order_.end(), [&](uint32_t a, uint32_t b) {
        double ca = w * pressure_[a] + settings_.weights.load * inventory_.blades[a].load;
        double cb = w * pressure_[b] + settings_.weights.load * inventory_.blades[b].load;
        return ca != cb ? ca < cb : a < b;
    });
    cold_rank_.resize(blades);
    for (uint32_t r = 0; r < blades; ++r) cold_rank_[cold_order_[r]] = r;
}

ClusterModel ClusterModel::with_inventory(Inventory inventory) const {
    ClusterModel copy(*this);
    copy.inventory_ = std::move(inventory);
    copy.fabric_.build_indexes();
    copy.rank_cold_blades();
    return copy;
}

ClusterModel ClusterModel::with_live_latency(const std::vector<uint32_t> &live) const {
    ClusterModel copy(*this);
    const size_t blades = fabric_.blades.size();
    if (live.size() != fabric_.pods.size() * blades)
        throw std::invalid_argument("with_live_latency: the heat map is not of this fabric");
    for (uint32_t p = 0; p < fabric_.pods.size(); ++p) copy.table_.set_live_row(p, &live[p * blades]);
    copy.rank_cold_blades();
    return copy;
}

}  // namespace morpheus
