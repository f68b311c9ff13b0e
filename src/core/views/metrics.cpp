// Metric names follow Prometheus conventions: base units (bytes, seconds), _total counters.
#include "metrics.hpp"

#include <cstdio>

namespace morpheus {

namespace {
void line(std::string &out, const std::string &name, const std::string &labels, double value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", value);
    out += name + (labels.empty() ? "" : "{" + labels + "}") + " " + buf + "\n";
}
void head(std::string &out, const char *name, const char *type, const char *help) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}
}  // namespace

std::string metrics_text(const ClusterModel &m, const Ledger &l, const DecisionLog &log) {
    const Fabric &f = m.fabric();
    const Inventory &inv = m.inventory();
    std::string out;
    struct Gauge {
        const char *name, *help;
        int which;  // 0 capacity, 1 reserved, 2 free
    } gauges[] = {{"morpheus_blade_capacity_bytes", "Capacity of a blade's memory tier.", 0},
                  {"morpheus_blade_reserved_bytes", "Bytes of a blade's tier reserved by jobs.", 1},
                  {"morpheus_blade_free_bytes", "Bytes of a blade's tier free for new reservations.", 2}};
    for (const Gauge &g : gauges) {
        head(out, g.name, "gauge", g.help);
        for (uint32_t b = 0; b < f.blades.size(); ++b)
            for (Tier t : {Tier::Dram, Tier::Pmem}) {
                double v = g.which == 0   ? inv.blades[b].capacity[static_cast<size_t>(t)]
                           : g.which == 1 ? l.reserved(b, t)
                                          : (inv.admits(b) ? l.free(b, t, inv) : 0);
                line(out, g.name, "blade=\"" + f.blades[b].name + "\",tier=\"" + tier_name(t) + "\"", v);
            }
    }
    // Per pod, the DRAM free inside half, once and twice DefaultHotLatency (the classes of
    // morpheus pools): what a tight, a default and a loose --mem-hot-latency would find.
    head(out, "morpheus_pod_hot_free_bytes", "gauge",
         "DRAM free for hot reservations on blades within a latency bound of a pod.");
    const uint64_t bound = m.settings().default_hot_latency_ns;
    for (uint32_t p = 0; p < f.pods.size(); ++p)
        for (uint64_t cls : {bound / 2, bound, bound * 2}) {
            double free_in = 0;
            for (uint32_t b : m.latency().blades_by_latency(p)) {
                if (m.latency().latency(p, b) > cls) break;
                if (inv.admits(b)) free_in += static_cast<double>(l.free(b, Tier::Dram, inv));
            }
            line(out, "morpheus_pod_hot_free_bytes",
                 "pod=\"" + f.pods[p].name + "\",within_ns=\"" + std::to_string(cls) + "\"", free_in);
        }
    head(out, "morpheus_blade_state", "gauge", "1 for the state a blade is in.");
    for (uint32_t b = 0; b < f.blades.size(); ++b)
        line(out, "morpheus_blade_state",
             "blade=\"" + f.blades[b].name + "\",state=\"" + blade_state_name(inv.blades[b].state) + "\"", 1);
    head(out, "morpheus_jobs_placed", "gauge", "Jobs holding blade memory now.");
    line(out, "morpheus_jobs_placed", "", static_cast<double>(l.reservations().size()));
    head(out, "morpheus_releases_due", "gauge", "Ended jobs whose release is not saved yet (retried every second).");
    line(out, "morpheus_releases_due", "", static_cast<double>(log.releases_due().size()));
    head(out, "morpheus_release_failures_total", "counter",
         "Releases whose save failed (each retry that fails counts).");
    line(out, "morpheus_release_failures_total", "", static_cast<double>(log.release_failures()));
    head(out, "morpheus_decisions_total", "counter", "Placement decisions by verdict.");
    for (const char *v : {"placed", "pending", "impossible"}) {
        auto it = log.decisions().find(v);
        line(out, "morpheus_decisions_total", std::string("verdict=\"") + v + "\"",
             it == log.decisions().end() ? 0 : static_cast<double>(it->second));
    }
    head(out, "morpheus_rejections_total", "counter", "Requests refused, by the reason of the best pod.");
    for (const auto &[reason, n] : log.rejections())
        line(out, "morpheus_rejections_total", "reason=\"" + reason + "\"", static_cast<double>(n));
    head(out, "morpheus_decision_seconds", "histogram", "Time the core spent per placement decision.");
    const size_t nb = sizeof(DecisionLog::kBuckets) / sizeof(DecisionLog::kBuckets[0]);
    for (size_t i = 0; i < nb; ++i) {
        char le[32];
        std::snprintf(le, sizeof le, "%g", DecisionLog::kBuckets[i]);
        line(out, "morpheus_decision_seconds_bucket", std::string("le=\"") + le + "\"",
             static_cast<double>(log.bucket_counts()[i]));
    }
    line(out, "morpheus_decision_seconds_bucket", "le=\"+Inf\"", static_cast<double>(log.decision_count()));
    line(out, "morpheus_decision_seconds_sum", "", log.decision_seconds_sum());
    line(out, "morpheus_decision_seconds_count", "", static_cast<double>(log.decision_count()));
    return out;
}

}  // namespace morpheus
