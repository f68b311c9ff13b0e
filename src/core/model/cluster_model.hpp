// ClusterModel: one consistent load of fabric + inventory + settings, with everything placement
// needs precomputed (latency table, cold-blade order). Immutable once built; a reload builds a
// new one and swaps it in whole.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fabric.hpp"
#include "heat_map.hpp"
#include "inventory.hpp"
#include "latency_table.hpp"
#include "link_paths.hpp"

namespace morpheus {

// Scoring weights (morpheus.conf: Weight*=). Pod score = latency*L + headroom*H + packing*P
// - load*D, each term in [0,1]; see morpheus.conf(5).
struct Weights {
    double latency = 1.0;  // nearer hot memory inside the bound
    double headroom = 0.5;  // more spare hot capacity inside the bound
    double packing = 1.0;  // best fit of free nodes (leave big holes for big jobs)
    double load = 0.5;  // avoid busy blades
    double cold_pressure = 1.0;  // keep cold memory off blades that many pods need for hot
};

// The order of the blades inside the bound that a pod share's hot memory takes (morpheus.conf
// HotBladeOrder=): nearest first, or by slack: farthest first while still inside the job's own
// bound, so a loose-bound job leaves the near memory that tighter jobs cannot do without.
enum class HotBladeOrder : uint8_t { Nearest, Slack };
const char *hot_blade_order_name(HotBladeOrder o);

struct PlacementSettings {
    Weights weights;
    uint64_t default_hot_latency_ns = 500;
    HotBladeOrder hot_blade_order = HotBladeOrder::Nearest;
    // Soft bounds (morpheus.conf DefaultHotWait, MaxHotWait): the wait of a job that gives no
    // --mem-hot-wait (request.hpp's kHotWait* or seconds; hard keeps every bound strict), and
    // the longest soft wait a job may ask (a hard bound stays available).
    int64_t default_hot_wait_s = -1;  // kHotWaitHard
    int64_t max_hot_wait_s = 365 * 86400;
    // The expected-completion rule (HotWaitShare): a soft bound's wait ends, at the latest,
    // after this share of the job's time limit, since waiting longer for near memory would
    // cost more than running the whole job on farther memory could (a job that started far
    // is moved inside its bound once memory there frees). 0: the declared wait only.
    double hot_wait_share = 0;
    // Hot memory moved closer when memory inside a running job's bound frees (MaxMoves): at
    // most this many moves under way at once, each one holding both regions until the job's
    // node reports its pages moved; 0: never move.
    uint32_t max_moves = 2;
    // A move whose nodes have not all reported their pages moved after this long (MoveTimeout)
    // is given up: the target is freed and the job keeps its far memory (a node without its
    // agent, a node that died); it may be tried again later.
    int64_t move_timeout_s = 900;
    // Checkpoint offload (issue 28): link shares, slot and cycle of the booked flush windows.
    CheckpointSettings checkpoint;
};

class ClusterModel {
public:
    ClusterModel(Fabric fabric, Inventory inventory, PlacementSettings settings);

    const Fabric &fabric() const { return fabric_; }
    const Inventory &inventory() const { return inventory_; }
    const LatencyTable &latency() const { return table_; }
    const PlacementSettings &settings() const { return settings_; }
    // The links of each pod-to-blade path and what checkpoint flushes may use of them.
    const LinkPaths &paths() const { return *paths_; }
    // Blades in the order cold memory should use them (least needed for hot first).
    const std::vector<uint32_t> &cold_order() const { return cold_order_; }
    // A blade's position in cold_order().
    uint32_t cold_rank(uint32_t blade) const { return cold_rank_[blade]; }
    // Share of pods that have this blade inside the default hot bound.
    double hot_pressure(uint32_t blade) const { return pressure_[blade]; }
    // The same model with another inventory (blade state or capacity changed).
    ClusterModel with_inventory(Inventory inventory) const;
    // The same model with the heat map's published latencies in its table (a cell the map
    // publishes nothing for goes back to the fabric's value), blade orders and cold-blade
    // ranks redone. `live` is pods x blades, pod-major, 0 for the fabric's value.
    ClusterModel with_live_latency(const std::vector<uint32_t> &live) const;
    ClusterModel with_live_latency(const HeatMap &heat) const { return with_live_latency(heat.published_values()); }

private:
    void rank_cold_blades();
    Fabric fabric_;
    Inventory inventory_;
    PlacementSettings settings_;
    LatencyTable table_;
    std::shared_ptr<const LinkPaths> paths_;
    std::vector<double> pressure_;
    std::vector<uint32_t> cold_order_;
    std::vector<uint32_t> cold_rank_;
};

}  // namespace morpheus
