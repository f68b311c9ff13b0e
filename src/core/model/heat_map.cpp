// The heat map's windows, cells and settle rounds. Reports cost O(HeatMapSamples) each (the
// node's figures are kept up to date as samples arrive), so a settle round only takes medians.
#include "heat_map.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace morpheus {

const char *heat_figure_name(HeatFigure f) { return f == HeatFigure::P50 ? "p50" : "p99"; }

bool operator==(const HeatMapSettings &a, const HeatMapSettings &b) {
    return a.figure == b.figure && a.samples == b.samples && a.window_s == b.window_s && a.stale_s == b.stale_s &&
           a.hysteresis == b.hysteresis && a.rounds == b.rounds;
}

const char *heat_report_problem(HeatReport r) {
    switch (r) {
    case HeatReport::Accepted: return "accepted";
    case HeatReport::UnknownNode: return "the node is not in the fabric";
    case HeatReport::UnknownBlade: return "the blade is not in the fabric";
    case HeatReport::NoPath: return "the fabric has no path from the node's pod to the blade";
    case HeatReport::BadLatency: return "the latency is 0 or longer than 10ms";
    case HeatReport::BadTime: return "the time is not in unix seconds";
    case HeatReport::TooOld: return "the measurement is older than the node's window (HeatMapWindow)";
    }
    return "?";
}

namespace {

// Nearest rank: the smallest sample with at least pct% of the samples at or below it.
uint32_t percentile(uint32_t *v, size_t n, unsigned pct) {
    size_t rank = (pct * n + 99) / 100;
    size_t k = rank == 0 ? 0 : rank - 1;
    std::nth_element(v, v + k, v + n);
    return v[k];
}

// The lower median: with two nodes, one node's high outlier does not move the cell.
uint32_t lower_median(std::vector<uint32_t> &v) {
    size_t k = (v.size() - 1) / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k];
}

}  // namespace

HeatMap::HeatMap(const Fabric &fabric, const LatencyTable &table, HeatMapSettings settings)
    : settings_(settings),
      blades_(static_cast<uint32_t>(fabric.blades.size())),
      node_pod_(fabric.node_pod),
      node_names_(fabric.node_names),
      static_(fabric.pods.size() * fabric.blades.size()),
      published_(fabric.pods.size() * fabric.blades.size(), 0),
      streak_(fabric.pods.size() * fabric.blades.size(), 0),
      nodes_(fabric.node_names.size()) {
    settings_.samples = std::clamp<uint32_t>(settings_.samples, 1, kMaxHeatSamples);
    settings_.rounds = std::clamp<uint32_t>(settings_.rounds, 1, kMaxHeatRounds);
    for (const Pod &p : fabric.pods) {
        pod_first_.push_back(p.first_node);
        pod_nodes_.push_back(p.node_count);
    }
    for (const Blade &b : fabric.blades) blade_names_.push_back(b.name);
    for (uint32_t p = 0; p < pod_first_.size(); ++p)
        for (uint32_t b = 0; b < blades_; ++b) static_[p * blades_ + b] = table.static_latency(p, b);
}

bool HeatMap::same_layout(const Fabric &fabric) const {
    if (fabric.pods.size() != pod_first_.size() || fabric.node_names != node_names_) return false;
    for (size_t p = 0; p < pod_first_.size(); ++p)
        if (fabric.pods[p].first_node != pod_first_[p] || fabric.pods[p].node_count != pod_nodes_[p]) return false;
    if (fabric.blades.size() != blade_names_.size()) return false;
    for (size_t b = 0; b < blade_names_.size(); ++b)
        if (fabric.blades[b].name != blade_names_[b]) return false;
    return true;
}

void HeatMap::rebase(const LatencyTable &table, const HeatMapSettings &settings) {
    const uint32_t samples = settings_.samples;
    settings_ = settings;
    settings_.samples = samples;  // the windows' shape stays (the caller checked it is unchanged)
    settings_.rounds = std::clamp<uint32_t>(settings_.rounds, 1, kMaxHeatRounds);
    for (uint32_t p = 0; p < pod_first_.size(); ++p)
        for (uint32_t b = 0; b < blades_; ++b) {
            size_t i = size_t(p) * blades_ + b;
            static_[i] = table.static_latency(p, b);
            if (static_[i] == kUnreachable) published_[i] = 0;
            streak_[i] = 0;
        }
}

HeatReport HeatMap::check(uint32_t node, uint32_t blade, uint64_t latency_ns, int64_t now) const {
    if (node >= node_pod_.size()) return HeatReport::UnknownNode;
    if (blade >= blades_) return HeatReport::UnknownBlade;
    if (latency_ns == 0 || latency_ns > kMaxMeasuredLatencyNs) return HeatReport::BadLatency;
    if (now < 0 || now > std::numeric_limits<uint32_t>::max()) return HeatReport::BadTime;
    if (static_[size_t(node_pod_[node]) * blades_ + blade] == kUnreachable) return HeatReport::NoPath;
    const int k = slot(nodes_[node], blade);
    if (k >= 0) {
        const Window &w = nodes_[node].windows[size_t(k)];
        if (w.stored && now + settings_.window_s < int64_t(w.newest)) return HeatReport::TooOld;
    }
    return HeatReport::Accepted;
}

HeatReport HeatMap::report(uint32_t node, uint32_t blade, uint64_t latency_ns, int64_t now) {
    if (HeatReport r = check(node, blade, latency_ns, now); r != HeatReport::Accepted) return r;
    const uint32_t n = settings_.samples;
    NodeWindows &nw = nodes_[node];
    int k = slot(nw, blade);
    if (k < 0) {  // the node's first report of this blade
        auto at = std::lower_bound(nw.blades.begin(), nw.blades.end(), blade);
        k = static_cast<int>(at - nw.blades.begin());
        nw.blades.insert(at, blade);
        nw.windows.insert(nw.windows.begin() + k, Window{});
        nw.samples.insert(nw.samples.begin() + std::ptrdiff_t(k) * n, n, Sample{0, 0});
    }
    Window &w = nw.windows[size_t(k)];
    const uint32_t at = static_cast<uint32_t>(now);
    Sample *ring = &nw.samples[size_t(k) * n];
    const Sample s{static_cast<uint32_t>(latency_ns), at};
    if (w.stored < n) {
        ring[(w.head + w.stored) % n] = s;
        ++w.stored;
    } else {  // full: the oldest goes
        ring[w.head] = s;
        w.head = static_cast<uint16_t>((w.head + 1) % n);
    }
    w.newest = w.stored == 1 ? at : std::max(w.newest, at);
    refigure(w, ring);
    return HeatReport::Accepted;
}

int HeatMap::slot(const NodeWindows &nw, uint32_t blade) {
    auto at = std::lower_bound(nw.blades.begin(), nw.blades.end(), blade);
    return at != nw.blades.end() && *at == blade ? static_cast<int>(at - nw.blades.begin()) : -1;
}

void HeatMap::refigure(Window &w, const Sample *ring) const {
    uint32_t v[kMaxHeatSamples];
    size_t k = 0;
    const int64_t since = int64_t(w.newest) - settings_.window_s;
    for (uint32_t i = 0; i < w.stored; ++i) {
        const Sample &s = ring[(w.head + i) % settings_.samples];
        if (int64_t(s.at) >= since) v[k++] = s.ns;
    }
    w.counted = static_cast<uint16_t>(k);  // at least the newest sample
    w.p99 = percentile(v, k, 99);
    w.p50 = percentile(v, k, 50);
}

bool HeatMap::fresh(const Window &w, int64_t now) const {
    return w.stored > 0 && now - int64_t(w.newest) <= settings_.stale_s;
}

HeatMap::NodeFigure HeatMap::node_figure(uint32_t blade, const Window &w, int64_t now) const {
    return {blade, w.p50, w.p99, w.counted, std::max<int64_t>(0, now - int64_t(w.newest)), fresh(w, now)};
}

HeatCell HeatMap::combine(const NodeFigure *first, const NodeFigure *last) {
    HeatCell c;
    std::vector<uint32_t> p50, p99;
    for (const NodeFigure *n = first; n != last; ++n) {
        c.age_s = c.age_s < 0 ? n->age_s : std::min(c.age_s, n->age_s);
        if (!n->fresh) continue;
        p50.push_back(n->p50);
        p99.push_back(n->p99);
        c.count += n->counted;
        ++c.nodes;
    }
    if (c.nodes) {
        c.fresh = true;
        c.p50 = lower_median(p50);
        c.p99 = lower_median(p99);
    }
    return c;
}

HeatCell HeatMap::cell(uint32_t pod, uint32_t blade, int64_t now) const {
    std::vector<NodeFigure> seen;
    for (uint32_t node = pod_first_[pod]; node < pod_first_[pod] + pod_nodes_[pod]; ++node) {
        const NodeWindows &nw = nodes_[node];
        const int k = slot(nw, blade);
        if (k >= 0) seen.push_back(node_figure(blade, nw.windows[size_t(k)], now));
    }
    return combine(seen.data(), seen.data() + seen.size());
}

std::vector<std::pair<uint32_t, HeatCell>> HeatMap::measured_cells(uint32_t pod, int64_t now) const {
    std::vector<NodeFigure> seen;
    for (uint32_t node = pod_first_[pod]; node < pod_first_[pod] + pod_nodes_[pod]; ++node) {
        const NodeWindows &nw = nodes_[node];
        for (size_t k = 0; k < nw.blades.size(); ++k) seen.push_back(node_figure(nw.blades[k], nw.windows[k], now));
    }
    std::stable_sort(seen.begin(), seen.end(),
                     [](const NodeFigure &a, const NodeFigure &b) { return a.blade < b.blade; });
    std::vector<std::pair<uint32_t, HeatCell>> out;
    for (size_t a = 0; a < seen.size();) {
        size_t b = a;
        while (b < seen.size() && seen[b].blade == seen[a].blade) ++b;
        out.emplace_back(seen[a].blade, combine(seen.data() + a, seen.data() + b));
        a = b;
    }
    return out;
}

// Per pod, the fresh windows of its nodes, grouped by blade: the work follows the windows
// that exist (nodes x blades they probe), not pods x blades x nodes.
bool HeatMap::settle(int64_t now) {
    bool changed = false;
    std::vector<std::pair<uint32_t, uint32_t>> figures;  // (blade, a node's figure)
    std::vector<uint8_t> measured(blades_);
    for (uint32_t p = 0; p < pod_first_.size(); ++p) {
        figures.clear();
        for (uint32_t node = pod_first_[p]; node < pod_first_[p] + pod_nodes_[p]; ++node) {
            const NodeWindows &nw = nodes_[node];
            for (size_t k = 0; k < nw.blades.size(); ++k)
                if (fresh(nw.windows[k], now))
                    figures.emplace_back(nw.blades[k],
                                         settings_.figure == HeatFigure::P50 ? nw.windows[k].p50 : nw.windows[k].p99);
        }
        std::sort(figures.begin(), figures.end());
        std::fill(measured.begin(), measured.end(), 0);
        for (size_t a = 0; a < figures.size();) {
            size_t b = a;
            while (b < figures.size() && figures[b].first == figures[a].first) ++b;
            const uint32_t blade = figures[a].first;
            const size_t i = size_t(p) * blades_ + blade;
            measured[blade] = 1;
            // Sorted by figure within the blade: the lower median is the middle one.
            if (static_[i] != kUnreachable) changed |= step(i, figures[a + (b - a - 1) / 2].second);
            a = b;
        }
        for (uint32_t blade = 0; blade < blades_; ++blade) {
            const size_t i = size_t(p) * blades_ + blade;
            if (measured[blade]) continue;
            streak_[i] = 0;  // no data to trust: the static value, at once
            if (published_[i]) {
                published_[i] = 0;
                changed = true;
            }
        }
    }
    return changed;
}

bool HeatMap::step(size_t i, uint32_t measured) {
    const uint32_t prior = static_[i];
    const uint32_t current = published_[i] ? published_[i] : prior;
    if (std::fabs(double(measured) - double(current)) <= settings_.hysteresis * double(current)) {
        streak_[i] = 0;
        return false;
    }
    if (++streak_[i] < settings_.rounds) return false;
    streak_[i] = 0;
    published_[i] = measured == prior ? 0 : measured;
    return true;
}

size_t HeatMap::window_bytes() const {
    size_t bytes = nodes_.capacity() * sizeof(NodeWindows);
    for (const NodeWindows &nw : nodes_)
        bytes += nw.blades.capacity() * sizeof(uint32_t) + nw.windows.capacity() * sizeof(Window) +
                 nw.samples.capacity() * sizeof(Sample);
    return bytes;
}

}  // namespace morpheus
