// One Dijkstra (Boost.Graph) per pod over switches only: pods and blades are endpoints,
// never transit, so a path never runs through another pod's nodes or a memory blade.
#include "latency_table.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/filtered_graph.hpp>

namespace morpheus {
namespace {

struct EdgeProps {
    uint64_t latency_ns;
    double bandwidth_gbps;
};
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property, EdgeProps>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
using Edge = boost::graph_traits<Graph>::edge_descriptor;

// Keeps an edge only if it leaves a switch or the pod we are measuring from.
struct TransitThroughSwitches {
    const Graph *graph = nullptr;
    const Fabric *fabric = nullptr;
    Vertex source = 0;
    bool operator()(const Edge &e) const {
        Vertex u = boost::source(e, *graph);
        return u == source || fabric->kind_of(static_cast<uint32_t>(u)) == VertexKind::Switch;
    }
};

// Records, as Dijkstra relaxes an edge, the narrowest bandwidth on the way to its target. The
// source of a relaxed edge is settled, so its own bottleneck is final: the table costs one
// Dijkstra per pod and nothing per pair, even when a hub switch has thousands of links.
struct BottleneckRecorder : boost::default_dijkstra_visitor {
    const Graph *graph;
    double *bottleneck;
    template <class E, class G>
    void edge_relaxed(const E &e, const G &) const {
        Vertex u = boost::source(e, *graph), v = boost::target(e, *graph);
        bottleneck[v] = std::min(bottleneck[u], (*graph)[e].bandwidth_gbps);
    }
};

// Parallel links between two vertices become one: the lowest latency and, among links with
// that latency, the widest, which is the link a shortest path would take.
std::vector<const Link *> best_parallel_links(const Fabric &fabric) {
    std::vector<const Link *> links;
    links.reserve(fabric.links.size());
    for (const Link &l : fabric.links) links.push_back(&l);
    auto ends = [](const Link *l) { return std::make_pair(std::min(l->from, l->to), std::max(l->from, l->to)); };
    std::sort(links.begin(), links.end(), [&](const Link *a, const Link *b) {
        if (ends(a) != ends(b)) return ends(a) < ends(b);
        if (a->latency_ns != b->latency_ns) return a->latency_ns < b->latency_ns;
        return a->bandwidth_gbps > b->bandwidth_gbps;
    });
    links.erase(
        std::unique(links.begin(), links.end(), [&](const Link *a, const Link *b) { return ends(a) == ends(b); }),
        links.end());
    return links;
}

}  // namespace

LatencyTable::LatencyTable(const Fabric &fabric)
    : blades_(static_cast<uint32_t>(fabric.blades.size())),
      latency_(fabric.pods.size() * fabric.blades.size(), kUnreachable),
      bandwidth_(fabric.pods.size() * fabric.blades.size(), 0.0f),
      order_(fabric.pods.size()) {
    Graph g(fabric.vertex_count());
    for (const Link *l : best_parallel_links(fabric)) {
        boost::add_edge(l->from, l->to, EdgeProps{l->latency_ns, l->bandwidth_gbps}, g);
        boost::add_edge(l->to, l->from, EdgeProps{l->latency_ns, l->bandwidth_gbps}, g);
    }
    const size_t n = boost::num_vertices(g);
    constexpr uint64_t kInf = std::numeric_limits<uint64_t>::max();
    std::vector<uint64_t> dist(n);
    std::vector<Vertex> pred(n);
    std::vector<double> bottleneck(n);
    const uint32_t first_blade = fabric.blade_vertex(0);

    for (uint32_t pod = 0; pod < fabric.pods.size(); ++pod) {
        TransitThroughSwitches keep{&g, &fabric, pod};
        boost::filtered_graph<Graph, TransitThroughSwitches> view(g, keep);
        std::fill(bottleneck.begin(), bottleneck.end(), 0.0);
        bottleneck[pod] = std::numeric_limits<double>::infinity();
        BottleneckRecorder recorder;
        recorder.graph = &g;
        recorder.bottleneck = bottleneck.data();
        // Inputs cap each link at kMaxLatencyNs, so sums stay far below kInf; closed_plus
        // saturates at kInf all the same.
        boost::dijkstra_shortest_paths(view, static_cast<Vertex>(pod),
                                       boost::predecessor_map(pred.data())
                                           .distance_map(dist.data())
                                           .weight_map(boost::get(&EdgeProps::latency_ns, g))
                                           .distance_inf(kInf)
                                           .distance_combine(boost::closed_plus<uint64_t>(kInf))
                                           .visitor(recorder));

        const uint64_t extra = fabric.pods[pod].node_latency_ns;
        std::vector<uint32_t> &order = order_[pod];
        for (uint32_t b = 0; b < blades_; ++b) {
            uint64_t d = dist[first_blade + b];
            if (d == kInf) continue;
            uint64_t total;
            if (__builtin_add_overflow(d, extra, &total)) total = kInf;
            // Beyond 4.29 s the table says 4.29 s: still farther than any bound (kMaxLatencyNs).
            total = std::min<uint64_t>(total, kUnreachable - 1);
            latency_[pod * blades_ + b] = static_cast<uint32_t>(total);
            bandwidth_[pod * blades_ + b] = static_cast<float>(bottleneck[first_blade + b]);
            order.push_back(b);
        }
        sort_order(pod);
    }
    static_ = latency_;
}

void LatencyTable::sort_order(uint32_t pod) {
    std::vector<uint32_t> &order = order_[pod];
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        uint32_t la = latency_[pod * blades_ + a], lb = latency_[pod * blades_ + b];
        return la != lb ? la < lb : a < b;
    });
}

// One blade's latency changed: move it to its place, O(blades) rather than a sort.
void LatencyTable::reposition(uint32_t pod, uint32_t blade) {
    std::vector<uint32_t> &order = order_[pod];
    order.erase(std::find(order.begin(), order.end(), blade));
    const uint32_t l = latency_[pod * blades_ + blade];
    auto at = std::lower_bound(order.begin(), order.end(), blade, [&](uint32_t a, uint32_t b) {
        uint32_t la = latency_[pod * blades_ + a];
        return la != l ? la < l : a < b;
    });
    order.insert(at, blade);
}

void LatencyTable::set_live(uint32_t pod, uint32_t blade, uint32_t ns) {
    const size_t i = size_t(pod) * blades_ + blade;
    if (i >= static_.size() || static_[i] == kUnreachable)
        throw std::invalid_argument("set_live: the fabric has no path from this pod to this blade");
    if (ns == 0 || ns >= kUnreachable) throw std::invalid_argument("set_live: latency out of range");
    if (latency_[i] == ns) return;
    latency_[i] = ns;
    reposition(pod, blade);
}

void LatencyTable::clear_live(uint32_t pod, uint32_t blade) {
    const size_t i = size_t(pod) * blades_ + blade;
    if (latency_[i] == static_[i]) return;
    latency_[i] = static_[i];
    reposition(pod, blade);
}

void LatencyTable::clear_live() {
    for (uint32_t pod = 0; pod < order_.size(); ++pod) {
        const uint32_t *row = &static_[size_t(pod) * blades_];
        if (std::equal(row, row + blades_, &latency_[size_t(pod) * blades_])) continue;
        std::copy(row, row + blades_, &latency_[size_t(pod) * blades_]);
        sort_order(pod);
    }
}

bool LatencyTable::set_live_row(uint32_t pod, const uint32_t *live) {
    bool changed = false;
    for (uint32_t b = 0; b < blades_; ++b) {
        const size_t i = size_t(pod) * blades_ + b;
        uint32_t want = static_[i] == kUnreachable || live[b] == 0 || live[b] >= kUnreachable ? static_[i] : live[b];
        if (latency_[i] == want) continue;
        latency_[i] = want;
        changed = true;
    }
    if (changed) sort_order(pod);
    return changed;
}

size_t LatencyTable::live_count() const {
    size_t n = 0;
    for (size_t i = 0; i < latency_.size(); ++i) n += latency_[i] != static_[i];
    return n;
}

}  // namespace morpheus
