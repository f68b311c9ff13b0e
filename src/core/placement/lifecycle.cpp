#include "lifecycle.hpp"

#include <algorithm>

#include "input_error.hpp"

namespace morpheus {

NodePlan plan_of(const ClusterModel &m, const Decision &d, const std::vector<uint8_t> &free_nodes) {
    NodePlan p;
    p.steps.push_back(d.placement.pods);
    p.exact.push_back(d.placement.pods.size() > 1 ? choose_nodes(m, d.placement.pods, free_nodes)
                                                  : std::vector<uint32_t>());
    // Pods are ranked best first and ruled-out pods come last: the eligible ones lead.
    std::vector<PodShare> others;
    for (const PodAssessment &a : d.pods) {
        if (a.ruled_out != RuleOut::None) break;
        bool chosen = false;
        for (const PodShare &s : d.placement.pods) chosen = chosen || s.pod == a.pod;
        if (!chosen) others.push_back({a.pod, a.nodes_needed});
    }
    if (!others.empty()) {
        p.steps.push_back(others);
        p.exact.emplace_back();
    }
    for (const auto &step : p.steps) {
        std::string names;
        for (const PodShare &s : step) names += (names.empty() ? "" : ",") + m.fabric().pods[s.pod].name;
        p.names.push_back(names);
    }
    return p;
}

void step_nodes(const ClusterModel &m, const NodePlan &plan, size_t k, uint8_t *allowed) {
    const Fabric &f = m.fabric();
    std::fill(allowed, allowed + f.node_names.size(), uint8_t{0});
    if (k >= plan.steps.size()) return;
    if (!plan.exact[k].empty()) {
        for (uint32_t n : plan.exact[k]) allowed[n] = 1;
        return;
    }
    for (const PodShare &s : plan.steps[k]) {
        const Pod &pod = f.pods[s.pod];
        std::fill(allowed + pod.first_node, allowed + pod.first_node + pod.node_count, uint8_t{1});
    }
}

std::vector<PodShare> pod_shares(const ClusterModel &m, const std::vector<uint32_t> &nodes) {
    std::vector<PodShare> shares;
    for (uint32_t n : nodes) {
        if (n >= m.fabric().node_names.size()) throw InputError("", "nodes", "node index outside the fabric");
        uint32_t pod = m.fabric().node_pod[n];
        PodShare *found = nullptr;
        for (PodShare &s : shares)
            if (s.pod == pod) found = &s;
        if (found)
            ++found->nodes;
        else
            shares.push_back({pod, 1});
    }
    return shares;
}

Reservation reservation_of(const ClusterModel &m, uint64_t job_id, uint32_t uid, int64_t since,
                           const Placement &placement, const std::vector<uint32_t> &nodes) {
    Reservation r;
    r.job_id = job_id;
    r.uid = uid;
    r.since = since;
    r.pods = placement.pods;
    r.segments = placement.segments;
    r.hot_latency_bound_ns = placement.hot_latency_bound_ns;
    r.checkpoint = placement.checkpoint;
    r.nodes.reserve(nodes.size());
    for (uint32_t n : nodes) r.nodes.push_back(m.fabric().node_names[n]);
    return r;
}

}  // namespace morpheus
