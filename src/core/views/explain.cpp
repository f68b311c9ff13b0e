// Rendering of decisions, reservations and status.
#include "explain.hpp"

#include <jansson.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include "checkpoint.hpp"
#include "hostlist.hpp"
#include "json_document.hpp"
#include "status_model.hpp"
#include "units.hpp"
#include "morpheus/morpheus_env.h"

namespace morpheus {
namespace {

std::string fixed(double v, int digits = 3) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string rule_out_words(const ClusterModel &m, const PodAssessment &a, uint64_t bound) {
    switch (a.ruled_out) {
    case RuleOut::None: return "eligible";
    case RuleOut::NoGpus: return "has no GPUs";
    case RuleOut::FreeNodes:
        return "only " + std::to_string(a.free_nodes) + " free nodes of " + std::to_string(a.nodes_needed) + " needed";
    case RuleOut::NoBladeInBound:
        return "no blade within " + format_latency(bound) + " (nearest " +
               (a.nearest_ns == kUnreachable ? std::string("unreachable") : format_latency(a.nearest_ns)) + ")";
    case RuleOut::HotCapacity: {
        std::string s = "hot memory within " + format_latency(bound) + ": " + format_size(a.hot_free_in_bound) +
                        " free of " + format_size(a.hot_needed) + " needed";
        if (a.hot_unusable_in_bound) s += " (" + format_size(a.hot_unusable_in_bound) + " on failed/draining blades)";
        return s;
    }
    case RuleOut::ColdCapacity: return "not enough cold memory";
    }
    return "?";
}

// The path's narrowest link (latency table), for people: "400 Gb/s".
std::string gbps(float v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g Gb/s", static_cast<double>(v));
    return buf;
}

std::string segments_words(const Fabric &f, const std::vector<Segment> &segs, Use use) {
    std::string s;
    for (const Segment &g : segs) {
        if (g.use != use) continue;
        s += (s.empty() ? "" : ",") + f.blades[g.blade].name + ":";
        if (use == Use::Cold) s += std::string(tier_name(g.tier)) + ":";
        s += format_size(g.bytes);
        if (use != Use::Cold) s += "@" + format_latency(g.latency_ns);
    }
    return s;
}

// Why the job's checkpoint window is where it is, or why none was found (morpheus explain).
std::string checkpoint_explanation(const ClusterModel &m, const Request &req, const Decision &d) {
    if (!req.wants_checkpoint()) return "";
    const Fabric &f = m.fabric();
    const CheckpointSettings &cs = m.settings().checkpoint;
    std::string out;
    if (d.verdict == Verdict::Placed && d.placement.checkpoint.period_s) {
        const CheckpointHold &h = d.placement.checkpoint;
        for (const Segment &g : d.placement.segments)
            if (g.use == Use::Checkpoint)
                out += "  ckpt  " + f.blades[g.blade].name + " pmem " + format_size(g.bytes) + " at " +
                       format_latency(g.latency_ns) + " over " + gbps(m.latency().bandwidth(g.pod, g.blade)) + "\n";
        out += "checkpoint window: every " + format_hot_wait(h.period_s) + " from +" + format_hot_wait(h.phase_s) +
               " for " + format_hot_wait(h.length_s) + " (the flush alone on its paths at CheckpointShare)\n";
        out += "  why there: the first whole CheckpointSlot (" + std::to_string(cs.slot_s) +
               "s) of the period at which every link of the flush stays within its checkpoint share at every "
               "instant of CheckpointCycle; earlier phases are held by other jobs' windows on a shared link\n";
        if (!d.placement.checkpoint_note.empty()) out += "  " + d.placement.checkpoint_note + "\n";
    } else if (!d.checkpoint_why.empty()) {
        out += "checkpoint window: none: " + d.checkpoint_why + "\n";
        out +=
            "  every phase of the period was tried on the region's paths (and on regions routed around the "
            "full link); the job waits until a window frees";
        out += req.ckpt_period_max_s ? " (periods up to --ckpt-period-max were tried too)\n"
                                     : " (--ckpt-period-max would let it take a longer period)\n";
    }
    return out;
}

}  // namespace

std::string pod_names(const Fabric &f, const std::vector<PodShare> &pods) {
    std::string s;
    for (const PodShare &p : pods) s += (s.empty() ? "" : ",") + f.pods[p.pod].name;
    return s;
}

std::string explain_text(const ClusterModel &m, const Request &req, const Decision &d, size_t max_pods) {
    const Fabric &f = m.fabric();
    const uint64_t bound = effective_bound(m, req);
    std::string out = "request: " + describe(req);
    if (req.hot_per_node && !req.hot_latency_ns) out += " (default bound " + format_latency(bound) + ")";
    out += "\n";
    out += std::string("verdict: ") + verdict_name(d.verdict) + ": " + d.reason + "\n";
    if (d.verdict == Verdict::Placed) {
        const Placement &p = d.placement;
        if (req.hot_per_node && m.settings().hot_blade_order == HotBladeOrder::Slack)
            out +=
                "  hot blades by slack (HotBladeOrder=slack): farthest first inside the bound, leaving near\n"
                "  memory to tighter jobs\n";
        for (const PodShare &s : p.pods)
            out += "  pod " + f.pods[s.pod].name + ": " + std::to_string(s.nodes) + " nodes\n";
        for (const Segment &g : p.segments) {
            if (g.use == Use::Checkpoint) continue;  // below, with the window
            out += std::string("  ") + (g.use == Use::Hot ? "hot " : "cold") + "  " + f.blades[g.blade].name + " " +
                   tier_name(g.tier) + " " + format_size(g.bytes) + " at " + format_latency(g.latency_ns) + " over " +
                   gbps(m.latency().bandwidth(g.pod, g.blade));
            out += g.use == Use::Hot ? " (bound " + format_latency(bound) + ")\n" : "\n";
        }
    }
    out += checkpoint_explanation(m, req, d);
    out += "pods considered (best first):\n";
    size_t shown = 0;
    for (const PodAssessment &a : d.pods) {
        if (shown++ >= max_pods) {
            out += "  ... " + std::to_string(d.pods.size() - max_pods) + " more\n";
            break;
        }
        out += "  " + f.pods[a.pod].name + ": ";
        if (a.ruled_out == RuleOut::None) {
            out += "score " + fixed(a.score) + " = latency " + fixed(a.latency_term, 2) + " + headroom " +
                   fixed(a.headroom_term, 2) + " + packing " + fixed(a.packing_term, 2) + " - load " +
                   fixed(a.load_term, 2);
            if (a.hot_needed) out += "; hot " + format_size(a.hot_free_in_bound) + " free in bound";
            out += "\n";
        } else {
            out += "ruled out: " + rule_out_words(m, a, bound) + "\n";
        }
    }
    return out;
}

std::string decision_json(const ClusterModel &m, const Request &req, const Decision &d) {
    const Fabric &f = m.fabric();
    const uint64_t bound = effective_bound(m, req);
    json_t *root = json_object();
    json_t *rq = json_object();
    json_object_set_new(rq, "nodes", json_integer(req.nodes));
    json_object_set_new(rq, "gpus", json_integer(req.gpus));
    json_object_set_new(rq, "hot_per_node", json_integer(static_cast<json_int_t>(req.hot_per_node)));
    json_object_set_new(rq, "hot_latency_bound_ns", json_integer(static_cast<json_int_t>(bound)));
    json_object_set_new(rq, "cold_per_node", json_integer(static_cast<json_int_t>(req.cold_per_node)));
    json_object_set_new(root, "request", rq);
    json_object_set_new(root, "verdict", json_string(verdict_name(d.verdict)));
    json_object_set_new(root, "reason", json_string(d.reason.c_str()));
    if (d.verdict == Verdict::Placed) {
        json_t *pl = json_object();
        json_t *pods = json_array();
        for (const PodShare &s : d.placement.pods) {
            json_t *o = json_object();
            json_object_set_new(o, "pod", json_string(f.pods[s.pod].name.c_str()));
            json_object_set_new(o, "nodes", json_integer(s.nodes));
            json_array_append_new(pods, o);
        }
        json_object_set_new(pl, "pods", pods);
        json_t *segs = json_array();
        for (const Segment &g : d.placement.segments) json_array_append_new(segs, to_json(segment_status(f, g)));
        json_object_set_new(pl, "segments", segs);
        json_object_set_new(pl, "score", json_real(d.placement.score));
        json_object_set_new(root, "placement", pl);
    }
    json_t *pods = json_array();
    for (const PodAssessment &a : d.pods) {
        json_t *o = json_object();
        json_object_set_new(o, "pod", json_string(f.pods[a.pod].name.c_str()));
        json_object_set_new(o, "eligible", json_boolean(a.ruled_out == RuleOut::None));
        json_object_set_new(o, "ruled_out_by",
                            a.ruled_out == RuleOut::None ? json_null() : json_string(rule_out_name(a.ruled_out)));
        if (a.ruled_out != RuleOut::None)
            json_object_set_new(o, "why", json_string(rule_out_words(m, a, bound).c_str()));
        json_object_set_new(o, "free_nodes", json_integer(a.free_nodes));
        json_object_set_new(o, "nodes_needed", json_integer(a.nodes_needed));
        json_object_set_new(o, "hot_needed", json_integer(static_cast<json_int_t>(a.hot_needed)));
        json_object_set_new(o, "hot_free_in_bound", json_integer(static_cast<json_int_t>(a.hot_free_in_bound)));
        json_object_set_new(o, "nearest_blade_ns",
                            a.nearest_ns == kUnreachable ? json_null() : json_integer(a.nearest_ns));
        json_object_set_new(o, "score", json_real(a.score));
        json_t *terms = json_object();
        json_object_set_new(terms, "latency", json_real(a.latency_term));
        json_object_set_new(terms, "headroom", json_real(a.headroom_term));
        json_object_set_new(terms, "packing", json_real(a.packing_term));
        json_object_set_new(terms, "load", json_real(a.load_term));
        json_object_set_new(o, "terms", terms);
        json_array_append_new(pods, o);
    }
    json_object_set_new(root, "pods", pods);
    return document_text(root);
}

namespace {

// "blade1:600G,blade2:600G every 60s at +30s for 26s" and the region's state, for people.
std::string checkpoint_words(const ClusterModel &m, const Reservation &r) {
    const Fabric &f = m.fabric();
    const CheckpointHold &h = r.checkpoint;
    std::string s = " ckpt=" + segments_words(f, r.segments, Use::Checkpoint) +
                    " window=" + format_hot_wait(h.phase_s) + "+" + format_hot_wait(h.length_s) + "/" +
                    format_hot_wait(h.period_s);
    RegionHealth health = region_health(m, r);
    if (health.intact < health.copies)
        s += health.intact ? " ckpt-copies=" + std::to_string(health.intact) + "/" + std::to_string(health.copies)
                           : std::string(" CKPT-LOST");
    if (h.waiting) s += " ckpt-kept-for-restart";
    if (h.restarts) s += std::string(" restarted=") + std::to_string(h.restarts) + (h.restore ? ",restore" : ",lost");
    return s;
}

std::string checkpoint_environment(const ClusterModel &m, const Reservation &r) {
    const Fabric &f = m.fabric();
    const CheckpointHold &h = r.checkpoint;
    RegionHealth health = region_health(m, r);
    std::string e;
    e += MORPHEUS_ENV_CKPT_REGION "=" + segments_words(f, r.segments, Use::Checkpoint) + "\n";
    e += MORPHEUS_ENV_CKPT_BYTES "=" + std::to_string(h.bytes) + "\n";
    e += MORPHEUS_ENV_CKPT_COPIES "=" + std::to_string(health.intact) + "/" + std::to_string(h.replicas) + "\n";
    e += MORPHEUS_ENV_CKPT_PERIOD "=" + std::to_string(h.period_s) + "\n";
    e += MORPHEUS_ENV_CKPT_PHASE "=" + std::to_string(h.phase_s) + "\n";
    e += MORPHEUS_ENV_CKPT_WINDOW "=" + std::to_string(h.length_s) + "\n";
    // Told to restore only where a copy is there to read back, now.
    const bool restore = h.restarts && h.restore && health.intact;
    e += MORPHEUS_ENV_CKPT_RESTORE "=" + std::string(restore ? "1" : "0") + "\n";
    if (restore) {
        std::string from;
        for (const Segment &g : health.intact_stripes) {
            const std::string &name = f.blades[g.blade].name;
            if (from.find(name) == std::string::npos) from += (from.empty() ? "" : ",") + name;
        }
        e += MORPHEUS_ENV_CKPT_RESTORE_FROM "=" + from + "\n";
    }
    if (h.restarts && !restore) e += MORPHEUS_ENV_CKPT_LOST "=1\n";
    if (f.bulk_service_level >= 0) e += MORPHEUS_ENV_CKPT_IB_SL "=" + std::to_string(f.bulk_service_level) + "\n";
    if (f.bulk_traffic_class >= 0)
        e += MORPHEUS_ENV_CKPT_TRAFFIC_CLASS "=" + std::to_string(f.bulk_traffic_class) + "\n";
    return e;
}

}  // namespace

std::string reservation_summary(const ClusterModel &m, const Reservation &r) {
    const Fabric &f = m.fabric();
    std::string s = "morpheus: pod=" + pod_names(f, r.pods);
    std::string hot = segments_words(f, r.segments, Use::Hot), cold = segments_words(f, r.segments, Use::Cold);
    if (!hot.empty()) s += " hot=" + hot;
    if (!cold.empty()) s += " cold=" + cold;
    std::string incoming = segments_words(f, r.segments, Use::Incoming);
    if (!incoming.empty()) s += " moving-to=" + incoming;
    if (r.checkpoint.period_s) s += checkpoint_words(m, r);
    if (r.affected) s += " AFFECTED-BY-FAILED-BLADE";
    return s;
}

std::string reservation_environment(const ClusterModel &m, const Reservation &r) {
    const Fabric &f = m.fabric();
    // Names come from the validated fabric ([A-Za-z0-9._-]) and numbers from us, so every
    // value is shell-safe as it stands.
    uint64_t hot = 0, cold = 0;
    uint32_t worst = 0;
    for (const Segment &g : r.segments) {
        if (g.use == Use::Hot) {
            hot += g.bytes;
            worst = std::max(worst, g.latency_ns);
        } else if (g.use == Use::Cold) {
            cold += g.bytes;
        }
    }
    std::string e;
    e += MORPHEUS_ENV_POD "=" + pod_names(f, r.pods) + "\n";
    e += MORPHEUS_ENV_HOT_BLADES "=" + segments_words(f, r.segments, Use::Hot) + "\n";
    e += MORPHEUS_ENV_HOT_BYTES "=" + std::to_string(hot) + "\n";
    e += MORPHEUS_ENV_HOT_LATENCY_NS "=" + std::to_string(worst) + "\n";
    e += MORPHEUS_ENV_HOT_BOUND_NS "=" + std::to_string(r.hot_latency_bound_ns) + "\n";
    e += MORPHEUS_ENV_COLD_BLADES "=" + segments_words(f, r.segments, Use::Cold) + "\n";
    e += MORPHEUS_ENV_COLD_BYTES "=" + std::to_string(cold) + "\n";
    // Which of the job's nodes sit in which pod, so each node finds its own pod
    // (MORPHEUS_NODE_POD) when the job spans several: "pod1=gpu[101-102];pod2=gpu201".
    std::string by_pod;
    for (const PodShare &share : r.pods) {
        std::vector<std::string> names;
        for (const std::string &n : r.nodes) {
            int i = f.node_index(n);
            if (i >= 0 && f.node_pod[static_cast<size_t>(i)] == share.pod) names.push_back(n);
        }
        if (names.empty()) continue;
        by_pod += (by_pod.empty() ? "" : ";") + f.pods[share.pod].name + "=" + compress_hostlist(names);
    }
    if (!by_pod.empty()) e += MORPHEUS_ENV_POD_NODES "=" + by_pod + "\n";
    if (r.checkpoint.period_s) e += checkpoint_environment(m, r);
    return e;
}

}  // namespace morpheus
