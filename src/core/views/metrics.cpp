// Metric names follow Prometheus conventions: base units (bytes, seconds), _total counters.
#include "metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "checkpoint.hpp"
#include "move.hpp"

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
// Checkpoint offload (issue 28): per link tier, the largest share of a link's bandwidth that
// booked windows hold at any instant of the cycle, beside the share they may hold; windows and
// regions with a failed blade. The book is rebuilt from the ledger, where every window is.
void checkpoint_metrics(std::string &out, const ClusterModel &m, const Ledger &l) {
    const Fabric &f = m.fabric();
    const LinkPaths &paths = m.paths();
    const LinkBook book = link_book_of(m, l);
    std::vector<double> booked(f.link_tiers.size(), 0), share(f.link_tiers.size(), 0);
    std::vector<bool> present(f.link_tiers.size(), false);
    for (uint32_t k = 0; k < f.links.size() && k < book.link_count(); ++k) {
        const uint32_t t = f.links[k].tier;
        if (t >= present.size()) continue;
        const double bandwidth = f.links[k].bandwidth_gbps * 1e9 / 8;
        present[t] = true;
        share[t] = std::max(share[t], paths.share(k));
        if (bandwidth > 0) booked[t] = std::max(booked[t], book.peak(k) / bandwidth);
    }
    head(out, "morpheus_checkpoint_booked_share", "gauge",
         "Largest share of a link's bandwidth booked by checkpoint windows at any instant, over the links of a tier.");
    for (uint32_t t = 0; t < present.size(); ++t)
        if (present[t])
            line(out, "morpheus_checkpoint_booked_share", "tier=\"" + f.link_tiers[t].name + "\"", booked[t]);
    head(out, "morpheus_checkpoint_share", "gauge",
         "CheckpointShare of a tier's links: the most booked_share may reach (morpheus.conf).");
    for (uint32_t t = 0; t < present.size(); ++t)
        if (present[t]) line(out, "morpheus_checkpoint_share", "tier=\"" + f.link_tiers[t].name + "\"", share[t]);
    size_t kept = 0, degraded = 0;
    for (const auto &[id, r] : l.reservations()) {
        if (!r.checkpoint.period_s) continue;
        if (r.checkpoint.waiting) ++kept;
        RegionHealth h = region_health(m, r);
        if (h.intact < h.copies) ++degraded;
    }
    head(out, "morpheus_checkpoint_windows", "gauge", "Jobs holding a booked checkpoint window.");
    line(out, "morpheus_checkpoint_windows", "", static_cast<double>(book.bookings().size()));
    head(out, "morpheus_checkpoint_regions_kept", "gauge", "Checkpoint regions kept for requeued jobs' restarts.");
    line(out, "morpheus_checkpoint_regions_kept", "", static_cast<double>(kept));
    head(out, "morpheus_checkpoint_regions_degraded", "gauge",
         "Checkpoint regions with a copy on a failed blade (restorable from a replica, or lost).");
    line(out, "morpheus_checkpoint_regions_degraded", "", static_cast<double>(degraded));
}

// The heat map's series (issue 29). A 100k-GPU fabric has 200 pods x 4,096 blades: 819,200
// cells, too many series for any Prometheus. So per blade (those some pod measured) a handful
// of aggregates, and per cell only the ones that matter: measured off the static value by more
// than the hysteresis, the farthest first, at most metric_cells, the rest counted.
void heat_metrics(std::string &out, const ClusterModel &m, const LiveState &live) {
    const HeatMap &h = *live.heat;
    const Fabric &f = m.fabric();
    struct BladeHeat {
        uint32_t fresh = 0, stale = 0, live = 0;
        double worst = 0;  // measured / static over the fresh cells
    };
    struct Deviation {
        double off;  // |measured / static - 1|
        uint32_t pod, blade, measured;
    };
    std::vector<BladeHeat> blades(h.blades());
    std::vector<uint8_t> seen(h.blades());
    std::vector<Deviation> deviating;
    uint64_t fresh = 0, stale = 0, live_cells = 0;
    const double hysteresis = h.settings().hysteresis;
    for (uint32_t p = 0; p < h.pods(); ++p) {
        for (const auto &[b, c] : h.measured_cells(p, live.now)) {
            seen[b] = 1;
            if (!c.fresh) {
                ++blades[b].stale;
                ++stale;
                continue;
            }
            ++blades[b].fresh;
            ++fresh;
            const uint32_t prior = h.static_latency(p, b), measured = h.figure(c);
            const double ratio = double(measured) / double(prior);
            blades[b].worst = std::max(blades[b].worst, ratio);
            // The rule settle() moves placement by: off by more than the hysteresis.
            if (std::fabs(double(measured) - double(prior)) > hysteresis * double(prior))
                deviating.push_back({std::fabs(ratio - 1), p, b, measured});
        }
        for (uint32_t b = 0; b < h.blades(); ++b)
            if (h.published(p, b)) {
                seen[b] = 1;
                ++blades[b].live;
                ++live_cells;
            }
    }
    head(out, "morpheus_heat_cells", "gauge",
         "Pod x blade cells of the heat map: with fresh measurements, measured but stale, and live (placement uses "
         "the measured value).");
    line(out, "morpheus_heat_cells", "state=\"fresh\"", double(fresh));
    line(out, "morpheus_heat_cells", "state=\"stale\"", double(stale));
    line(out, "morpheus_heat_cells", "state=\"live\"", double(live_cells));
    head(out, "morpheus_heat_blade_cells", "gauge",
         "Per measured blade, its pods' cells: fresh, stale, and live (placement uses the measured value).");
    for (uint32_t b = 0; b < h.blades(); ++b) {
        if (!seen[b]) continue;
        const std::string blade = "blade=\"" + f.blades[b].name + "\",state=";
        line(out, "morpheus_heat_blade_cells", blade + "\"fresh\"", blades[b].fresh);
        line(out, "morpheus_heat_blade_cells", blade + "\"stale\"", blades[b].stale);
        line(out, "morpheus_heat_blade_cells", blade + "\"live\"", blades[b].live);
    }
    head(out, "morpheus_heat_blade_worst_ratio", "gauge",
         "Per blade with fresh measurements, the highest measured / static latency over its pods' cells.");
    for (uint32_t b = 0; b < h.blades(); ++b)
        if (blades[b].fresh)
            line(out, "morpheus_heat_blade_worst_ratio", "blade=\"" + f.blades[b].name + "\"", blades[b].worst);
    const size_t shown = std::min<size_t>(deviating.size(), live.metric_cells);
    std::partial_sort(deviating.begin(), deviating.begin() + std::ptrdiff_t(shown), deviating.end(),
                      [](const Deviation &a, const Deviation &b) {
                          return a.off != b.off ? a.off > b.off : a.pod != b.pod ? a.pod < b.pod : a.blade < b.blade;
                      });
    head(out, "morpheus_heat_cell_latency_seconds", "gauge",
         "Cells measured off their static latency by more than HeatMapHysteresis (the farthest, at most "
         "HeatMapMetricCells): measured, static, and used (what placement uses).");
    for (size_t i = 0; i < shown; ++i) {
        const Deviation &d = deviating[i];
        const std::string cell = "pod=\"" + f.pods[d.pod].name + "\",blade=\"" + f.blades[d.blade].name + "\",value=";
        const uint32_t prior = h.static_latency(d.pod, d.blade), published = h.published(d.pod, d.blade);
        line(out, "morpheus_heat_cell_latency_seconds", cell + "\"measured\"", d.measured * 1e-9);
        line(out, "morpheus_heat_cell_latency_seconds", cell + "\"static\"", prior * 1e-9);
        line(out, "morpheus_heat_cell_latency_seconds", cell + "\"used\"", (published ? published : prior) * 1e-9);
    }
    head(out, "morpheus_heat_cells_deviating", "gauge",
         "Fresh cells measured off their static latency by more than HeatMapHysteresis.");
    line(out, "morpheus_heat_cells_deviating", "", double(deviating.size()));
    // A gauge, not a counter: how many deviating cells this scrape left out.
    head(out, "morpheus_heat_cells_unexported", "gauge",
         "Deviating cells left out of morpheus_heat_cell_latency_seconds by HeatMapMetricCells.");
    line(out, "morpheus_heat_cells_unexported", "", double(deviating.size() - shown));
}

}  // namespace

std::string metrics_text(const ClusterModel &m, const Ledger &l, const DecisionLog &log, const LiveState &live) {
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
    // Placed inside their bound, beyond it by the live heat map now (HeatMapBeyondBound).
    size_t beyond = 0;
    for (const auto &[id, r] : l.reservations()) beyond += hot_beyond_live_bound(m.latency(), r).has_value();
    head(out, "morpheus_jobs_beyond_bound", "gauge",
         "Jobs holding hot memory placed inside their bound that the live heat map now measures beyond it.");
    line(out, "morpheus_jobs_beyond_bound", "", static_cast<double>(beyond));
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
    head(out, "morpheus_decision_cache_total", "counter",
         "Scheduler job tests answered from a kept decision (hit) or decided afresh (miss).");
    line(out, "morpheus_decision_cache_total", "result=\"hit\"", static_cast<double>(log.cache_hits()));
    line(out, "morpheus_decision_cache_total", "result=\"miss\"", static_cast<double>(log.cache_misses()));
    // Where the scheduler's time goes in select/morpheus (issue 26): a shim's totals, by mode
    // (run_now: the main scheduler; will_run: backfill).
    const DecisionLog::TestTiming &t = log.test_timing();
    const std::pair<const char *, const DecisionLog::ModeTiming *> modes[] = {{"run_now", &t.run_now},
                                                                              {"will_run", &t.will_run}};
    head(out, "morpheus_job_tests_total", "counter",
         "Scheduler job tests of jobs with Morpheus flags, by mode (run_now: main, will_run: backfill).");
    for (const auto &[name, mt] : modes)
        line(out, "morpheus_job_tests_total", std::string("mode=\"") + name + "\"", static_cast<double>(mt->tests));
    head(out, "morpheus_job_test_cons_tres_runs_total", "counter",
         "cons_tres job tests those made, one per node set offered.");
    for (const auto &[name, mt] : modes)
        line(out, "morpheus_job_test_cons_tres_runs_total", std::string("mode=\"") + name + "\"",
             static_cast<double>(mt->cons_tres_runs));
    head(out, "morpheus_job_test_cons_tres_remembered_total", "counter",
         "cons_tres job tests not made: it had refused the same nodes to the same request since the last release.");
    for (const auto &[name, mt] : modes)
        line(out, "morpheus_job_test_cons_tres_remembered_total", std::string("mode=\"") + name + "\"",
             static_cast<double>(mt->cons_tres_remembered));
    head(out, "morpheus_job_test_seconds_total", "counter",
         "Wall time of those tests: in Morpheus, in cons_tres, waiting for the shim's lock.");
    for (const auto &[name, mt] : modes) {
        const std::string mode = std::string("mode=\"") + name + "\",part=";
        line(out, "morpheus_job_test_seconds_total", mode + "\"morpheus\"",
             std::max(0.0, mt->seconds - mt->cons_tres_seconds - mt->lock_wait_seconds));
        line(out, "morpheus_job_test_seconds_total", mode + "\"cons_tres\"", mt->cons_tres_seconds);
        line(out, "morpheus_job_test_seconds_total", mode + "\"lock_wait\"", mt->lock_wait_seconds);
    }
    head(out, "morpheus_job_begins_total", "counter", "Starts (job_begin) of jobs with Morpheus flags.");
    line(out, "morpheus_job_begins_total", "", static_cast<double>(t.begins));
    head(out, "morpheus_job_begin_seconds_total", "counter",
         "Wall time of those starts: reservation, publishing, cons_tres's job_begin.");
    line(out, "morpheus_job_begin_seconds_total", "", t.begin_seconds);
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
    checkpoint_metrics(out, m, l);
    if (live.heat) heat_metrics(out, m, live);
    return out;
}

}  // namespace morpheus
