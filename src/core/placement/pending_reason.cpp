#include "pending_reason.hpp"

#include "units.hpp"

namespace morpheus {

std::string pending_reason(const ClusterModel &m, const Request &req, const Decision &d) {
    const uint64_t bound = effective_bound(m, req);
    const PodAssessment *hot = nullptr, *nodes = nullptr, *near = nullptr;
    bool cold = false, gpus = false;
    for (const PodAssessment &a : d.pods) {
        switch (a.ruled_out) {
        case RuleOut::HotCapacity:
            if (!hot || a.hot_free_in_bound > hot->hot_free_in_bound) hot = &a;
            break;
        case RuleOut::FreeNodes:
            if (!nodes || a.free_nodes > nodes->free_nodes) nodes = &a;
            break;
        case RuleOut::NoBladeInBound:
            if (!near || a.nearest_ns < near->nearest_ns) near = &a;
            break;
        case RuleOut::ColdCapacity: cold = true; break;
        case RuleOut::NoGpus: gpus = true; break;
        case RuleOut::None: break;
        }
    }
    // Memory first: it is what Morpheus adds; nodes busy is what every job waits for.
    std::string s;
    const auto &pods = m.fabric().pods;
    if (!d.checkpoint_why.empty()) {
        s = "checkpoint: " + d.checkpoint_why;
    } else if (hot) {
        s = "hot memory in " + format_latency(bound) + ": " + pods[hot->pod].name + " has " +
            format_size(hot->hot_free_in_bound) + " of " + format_size(hot->hot_needed);
        if (hot->hot_unusable_in_bound) s += "; more on failed or draining";
    } else if (cold) {
        s = "cold memory busy";
    } else if (nodes) {
        s = "free nodes: " + pods[nodes->pod].name + " has " + std::to_string(nodes->free_nodes) + " of " +
            std::to_string(nodes->nodes_needed);
    } else if (near) {
        s = "no blade within " + format_latency(bound) + " (nearest " + format_latency(near->nearest_ns) + ")";
    } else if (gpus) {
        s = "no pod has GPUs";
    } else {
        s = d.reason.empty() ? "no pod can take it now" : d.reason;
    }
    if (d.verdict == Verdict::Impossible) s = "never fits: " + s;
    if (s.size() > kPendingReasonMax) s = s.substr(0, kPendingReasonMax - 3) + "...";
    return s;
}

}  // namespace morpheus
