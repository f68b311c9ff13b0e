// Fabric latency over time for `morpheus simulate --latency-events FILE`: degradation events
// (a link slows, a switch port flaps, a blade's memory controller saturates) that change the
// latency jobs really get, whatever the fabric file says. The format is in morpheus(1),
// LATENCY EVENTS: one event a line,
//   START  DURATION  pods=HOSTLIST|nodes=HOSTLIST|*  BLADES(HOSTLIST|*)  LATENCY(900ns|+300ns|x2)
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "fabric.hpp"
#include "latency_table.hpp"

namespace morpheus::sim {

struct LatencyEvent {
    enum class Change : uint8_t { Set, Add, Scale };
    int64_t start = 0, end = 0;  // seconds on the replay's clock: the trace's first submission is 0
    std::vector<uint8_t> nodes;  // per fabric node: 1 when the event covers it
    std::vector<uint8_t> blades;  // per fabric blade
    Change change = Change::Set;
    double value = 0;  // ns for Set and Add, a factor for Scale
    size_t line = 0;
    // The latency under this event of a cell whose fabric latency is `fabric_ns`.
    uint32_t apply(uint32_t fabric_ns) const;
};

// Throws InputError naming the file, the line and the fix on any malformed line, unknown pod,
// node or blade, a non-positive duration, or a latency past what a probe may report (10 ms).
std::vector<LatencyEvent> read_latency_events(const std::string &path, const Fabric &fabric);
std::vector<LatencyEvent> parse_latency_events(const std::string &text, const std::string &source,
                                               const Fabric &fabric);

// The latency a node really has to a blade at the current time: the fabric file's, or where
// events are active, the highest of theirs. Unreachable cells stay unreachable.
class FabricLatency {
public:
    FabricLatency(const Fabric &fabric, const LatencyTable &table, std::vector<LatencyEvent> events);
    // Makes the events active at `t` current; true when that changed which are.
    bool at(int64_t t);
    uint32_t latency(uint32_t node, uint32_t blade) const;
    // True when an active event changes the fabric's value.
    bool degraded(uint32_t node, uint32_t blade) const { return latency(node, blade) != fabric_ns(node, blade); }
    uint32_t fabric_ns(uint32_t node, uint32_t blade) const {
        return table_->static_latency(fabric_->node_pod[node], blade);
    }
    // Every start and end, sorted, each once: when at() may change.
    std::vector<int64_t> change_times() const;
    const std::vector<LatencyEvent> &events() const { return events_; }

private:
    const Fabric *fabric_;
    const LatencyTable *table_;
    std::vector<LatencyEvent> events_;
    std::vector<size_t> active_;
};

}  // namespace morpheus::sim
