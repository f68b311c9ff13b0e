// HeatMap: the measured pod x blade latency (issue 29). Compute nodes report their load-to-use
// latency to each blade's memory; each node x blade keeps a short window of samples, a pod x
// blade cell is the median over the pod's nodes of each node's own figure, and the value
// placement uses moves only after the cell has differed from it for several settle rounds.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fabric.hpp"
#include "latency_table.hpp"

namespace morpheus {

// Which figure of a node's window a cell is built from (morpheus.conf HeatMapFigure=).
enum class HeatFigure : uint8_t { P50, P99 };
const char *heat_figure_name(HeatFigure f);

// morpheus.conf HeatMap* keys; see morpheus.conf(5).
struct HeatMapSettings {
    HeatFigure figure = HeatFigure::P99;
    uint32_t samples = 32;  // per node x blade window (HeatMapSamples)
    int64_t window_s = 300;  // a window spans at most this long before its newest sample (HeatMapWindow)
    int64_t stale_s = 600;  // a node's window counts while its newest sample is this recent (HeatMapStale)
    double hysteresis = 0.10;  // the live value moves only past this fraction of itself (HeatMapHysteresis)
    uint32_t rounds = 2;  // ... for this many settle rounds in a row (HeatMapRounds)
};
bool operator==(const HeatMapSettings &a, const HeatMapSettings &b);
inline bool operator!=(const HeatMapSettings &a, const HeatMapSettings &b) { return !(a == b); }

constexpr uint32_t kMaxHeatSamples = 1024;
constexpr uint32_t kMaxHeatRounds = 100;
// A load-to-use latency past 10 ms is a broken probe, not memory: refused, like 0.
constexpr uint64_t kMaxMeasuredLatencyNs = 10000000;
// Entries in one node's report (status op report_latency): more is refused whole.
constexpr uint32_t kMaxLatencyReportEntries = 256;

// What became of one report; anything but Accepted left the map unchanged.
enum class HeatReport : uint8_t { Accepted, UnknownNode, UnknownBlade, NoPath, BadLatency, BadTime, TooOld };
const char *heat_report_problem(HeatReport r);

// A pod x blade cell as measured now. p50 and p99 are each the median, over the pod's nodes
// with fresh data, of that node's own p50 or p99 (the lower median for an even count), so one
// node's outliers never move the cell.
struct HeatCell {
    uint32_t p50 = 0;
    uint32_t p99 = 0;
    uint32_t count = 0;  // samples in those nodes' windows
    uint32_t nodes = 0;  // nodes with fresh data
    int64_t age_s = -1;  // since the cell's newest sample, fresh or not; -1: never measured
    bool fresh = false;  // some node's newest sample is within HeatMapStale of now
};

class HeatMap {
public:
    HeatMap() = default;
    // The static table is the prior: a cell without fresh data is worth its static latency.
    HeatMap(const Fabric &fabric, const LatencyTable &table, HeatMapSettings settings);

    // One measurement of `node` to `blade` at `now` (unix seconds). Bounded work and memory: a
    // window keeps at most HeatMapSamples samples (the oldest goes), and a node x blade window
    // exists only once that node has reported that blade.
    HeatReport report(uint32_t node, uint32_t blade, uint64_t latency_ns, int64_t now);
    // What report() would answer, changing nothing: a batch is checked whole before any of it
    // is taken.
    HeatReport check(uint32_t node, uint32_t blade, uint64_t latency_ns, int64_t now) const;
    HeatCell cell(uint32_t pod, uint32_t blade, int64_t now) const;
    // Every cell of `pod` that some node has measured, fresh or not, by blade (ascending), each
    // as cell() gives it: one pass over the pod's windows, so a view of the whole map costs
    // what a settle round does, not pods x blades x nodes.
    std::vector<std::pair<uint32_t, HeatCell>> measured_cells(uint32_t pod, int64_t now) const;
    // The fabric file's latency of the cell (the prior), kUnreachable without a path.
    uint32_t static_latency(uint32_t pod, uint32_t blade) const { return static_[size_t(pod) * blades_ + blade]; }
    uint32_t figure(const HeatCell &c) const { return settings_.figure == HeatFigure::P50 ? c.p50 : c.p99; }

    // One settle round: a cell's published value becomes its measured figure once the two have
    // differed by more than HeatMapHysteresis for HeatMapRounds rounds in a row, and falls back
    // to static at once when the cell has no fresh data. True when a published value changed.
    bool settle(int64_t now);
    // What placement should use: the published live latency, or 0 for the static one.
    uint32_t published(uint32_t pod, uint32_t blade) const { return published_[pod * blades_ + blade]; }
    // All of them, pod-major (pods x blades), 0 for static: what ClusterModel::with_live_latency takes.
    const std::vector<uint32_t> &published_values() const { return published_; }

    // Whether `fabric` numbers pods, nodes and blades as this map does, so its measurements
    // still mean the same after a reload.
    bool same_layout(const Fabric &fabric) const;
    // A reload with the same layout: new static priors (a cell with no path drops its live
    // value) and settings, keeping the windows; the caller checks that samples and window_s
    // did not change (they shape the windows).
    void rebase(const LatencyTable &table, const HeatMapSettings &settings);

    const HeatMapSettings &settings() const { return settings_; }
    uint32_t pods() const { return static_cast<uint32_t>(pod_first_.size()); }
    uint32_t blades() const { return blades_; }
    // Bytes held by the windows (the benchmark prints it).
    size_t window_bytes() const;

private:
    struct Sample {
        uint32_t ns;
        uint32_t at;  // unix seconds
    };
    struct Window {
        uint32_t p50 = 0, p99 = 0;  // of the samples within window_s of `newest`
        uint32_t newest = 0;
        uint16_t head = 0;  // oldest sample of the ring
        uint16_t stored = 0;  // samples in the ring
        uint16_t counted = 0;  // of those, within window_s of `newest`
    };
    // Only the blades a node reports have a window: a node probes the few dozen blades near
    // it, not the thousands of a 100k-GPU fabric.
    struct NodeWindows {
        std::vector<uint32_t> blades;  // sorted
        std::vector<Window> windows;  // one per entry of blades
        std::vector<Sample> samples;  // settings_.samples per entry of blades
    };
    // The window of `blade` in `nw`, or -1.
    static int slot(const NodeWindows &nw, uint32_t blade);
    void refigure(Window &w, const Sample *ring) const;
    // One settle round's step for cell i, whose fresh figure is `measured`; true if published.
    bool step(size_t i, uint32_t measured);
    bool fresh(const Window &w, int64_t now) const;
    // One node's window of a cell, as cell() and measured_cells() combine them.
    struct NodeFigure {
        uint32_t blade, p50, p99, counted;
        int64_t age_s;
        bool fresh;
    };
    NodeFigure node_figure(uint32_t blade, const Window &w, int64_t now) const;
    static HeatCell combine(const NodeFigure *first, const NodeFigure *last);

    HeatMapSettings settings_;
    uint32_t blades_ = 0;
    std::vector<uint32_t> pod_first_, pod_nodes_;  // the nodes of each pod
    std::vector<uint32_t> node_pod_;
    std::vector<std::string> node_names_, blade_names_;  // for same_layout
    std::vector<uint32_t> static_;  // pods x blades, the prior
    std::vector<uint32_t> published_;  // pods x blades, 0: static
    std::vector<uint8_t> streak_;  // rounds in a row the cell differed from published
    std::vector<NodeWindows> nodes_;
};

}  // namespace morpheus
