// Dijkstra (Boost.Graph) from every pod over switches only: pods and blades are endpoints,
// never transit, so a path never runs through another pod's nodes or a memory blade.
#include "latency_table.hpp"

#include <algorithm>
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

}  // namespace

LatencyTable::LatencyTable(const Fabric &fabric)
    : blades_(static_cast<uint32_t>(fabric.blades.size())),
      latency_(fabric.pods.size() * fabric.blades.size(), kUnreachable),
      bandwidth_(fabric.pods.size() * fabric.blades.size(), 0.0f),
      order_(fabric.pods.size()) {
    Graph g(fabric.vertex_count());
    for (const Link &l : fabric.links) {
        boost::add_edge(l.from, l.to, EdgeProps{l.latency_ns, l.bandwidth_gbps}, g);
        boost::add_edge(l.to, l.from, EdgeProps{l.latency_ns, l.bandwidth_gbps}, g);
    }
    const size_t n = boost::num_vertices(g);
    std::vector<uint64_t> dist(n);
    std::vector<Vertex> pred(n);
    std::vector<double> bottleneck(n);
    std::vector<uint32_t> by_distance(n);
    const uint32_t first_blade = fabric.blade_vertex(0);

    for (uint32_t pod = 0; pod < fabric.pods.size(); ++pod) {
        TransitThroughSwitches keep{&g, &fabric, pod};
        boost::filtered_graph<Graph, TransitThroughSwitches> view(g, keep);
        boost::dijkstra_shortest_paths(
            view, static_cast<Vertex>(pod),
            boost::predecessor_map(pred.data())
                .distance_map(dist.data())
                .weight_map(boost::get(&EdgeProps::latency_ns, g))
                .distance_inf(std::numeric_limits<uint64_t>::max()));

        // Bottleneck bandwidth along the shortest-path tree, settled in distance order.
        for (uint32_t v = 0; v < n; ++v) by_distance[v] = v;
        std::sort(by_distance.begin(), by_distance.end(),
                  [&](uint32_t a, uint32_t b) { return dist[a] < dist[b]; });
        for (uint32_t v : by_distance) {
            if (v == pod) {
                bottleneck[v] = std::numeric_limits<double>::infinity();
                continue;
            }
            if (dist[v] == std::numeric_limits<uint64_t>::max() || pred[v] == v) {
                bottleneck[v] = 0;
                continue;
            }
            double best = 0;  // parallel links: the widest one with the path's latency
            auto [ei, ee] = boost::out_edges(pred[v], g);
            for (; ei != ee; ++ei)
                if (boost::target(*ei, g) == v && dist[pred[v]] + g[*ei].latency_ns == dist[v])
                    best = std::max(best, g[*ei].bandwidth_gbps);
            bottleneck[v] = std::min(bottleneck[pred[v]], best);
        }

        const uint64_t extra = fabric.pods[pod].node_latency_ns;
        std::vector<uint32_t> &order = order_[pod];
        for (uint32_t b = 0; b < blades_; ++b) {
            uint64_t d = dist[first_blade + b];
            if (d == std::numeric_limits<uint64_t>::max()) continue;
            uint64_t total = std::min<uint64_t>(d + extra, kUnreachable - 1);
            latency_[pod * blades_ + b] = static_cast<uint32_t>(total);
            bandwidth_[pod * blades_ + b] = static_cast<float>(bottleneck[first_blade + b]);
            order.push_back(b);
        }
        std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            uint32_t la = latency_[pod * blades_ + a], lb = latency_[pod * blades_ + b];
            return la != lb ? la < lb : a < b;
        });
    }
}

}  // namespace morpheus
