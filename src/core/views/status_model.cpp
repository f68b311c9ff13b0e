// The status views built from the model, the ledger and the decision log, privacy applied on
// the values themselves: a job another viewer may not see is never put in.
#include "status_model.hpp"

#include <algorithm>
#include <functional>

#include "checkpoint.hpp"
#include "explain.hpp"
#include "hostlist.hpp"
#include "input_error.hpp"
#include "json_document.hpp"
#include "move.hpp"
#include "units.hpp"

namespace morpheus {

namespace {

std::optional<CheckpointStatus> checkpoint_status(const ClusterModel &m, const Reservation &r) {
    if (!r.checkpoint.period_s) return std::nullopt;
    const Fabric &f = m.fabric();
    CheckpointStatus c;
    for (const Segment &g : r.segments)
        if (g.use == Use::Checkpoint)
            c.region += (c.region.empty() ? "" : ",") + f.blades[g.blade].name + ":" + format_size(g.bytes) + "@" +
                        format_latency(g.latency_ns);
    c.period_s = r.checkpoint.period_s;
    c.phase_s = r.checkpoint.phase_s;
    c.window_s = r.checkpoint.length_s;
    c.bytes = r.checkpoint.bytes;
    c.copies = r.checkpoint.replicas;
    c.intact = region_health(m, r).intact;
    c.waiting = r.checkpoint.waiting;
    c.restarts = r.checkpoint.restarts;
    c.restore = r.checkpoint.restore;
    return c;
}

JobStatus running_job(const ClusterModel &m, uint64_t id, const Reservation &r, const Viewer &viewer) {
    const Fabric &f = m.fabric();
    JobStatus j;
    j.job_id = id;
    j.uid = r.uid;
    if (viewer.sees_detail(r.uid)) {
        JobDetail d;
        d.pods = pod_names(f, r.pods);
        d.since = r.since;
        d.nodes = compress_hostlist(r.nodes);
        d.hot_latency_bound_ns = r.hot_latency_bound_ns;
        d.affected = r.affected;
        for (const Segment &g : r.segments) d.segments.push_back(segment_status(f, g));
        d.checkpoint = checkpoint_status(m, r);
        j.detail = std::move(d);
    }
    return j;
}

// DRAM free on admitting blades within `bound` of pod p.
uint64_t hot_free_within(const ClusterModel &m, const Ledger &l, uint32_t p, uint64_t bound) {
    const Inventory &inv = m.inventory();
    uint64_t free_in = 0;
    for (uint32_t b : m.latency().blades_by_latency(p)) {
        if (m.latency().latency(p, b) > bound) break;
        if (inv.admits(b)) free_in += l.free(b, Tier::Dram, inv);
    }
    return free_in;
}

PodStatus pod_status(const ClusterModel &m, const Ledger &l, uint32_t p) {
    const Pod &pod = m.fabric().pods[p];
    const Inventory &inv = m.inventory();
    const uint64_t bound = m.settings().default_hot_latency_ns;
    PodStatus s;
    s.pod = pod.name;
    s.nodes = pod.nodes_expr;
    s.node_count = pod.node_count;
    s.hot_bound_ns = bound;
    for (uint32_t b : m.latency().blades_by_latency(p)) {
        if (m.latency().latency(p, b) > bound) break;
        ++s.hot_blades;
        s.hot_capacity += inv.blades[b].capacity[0];
        s.hot_reserved += l.reserved(b, Tier::Dram);
    }
    s.hot_free = hot_free_within(m, l, p, bound);
    if (m.latency().nearest(p) != kUnreachable) s.nearest_blade_ns = m.latency().nearest(p);
    // Half, once and twice the default bound: what a tight, a default and a loose
    // --mem-hot-latency would find.
    for (uint64_t cls : {bound / 2, bound, bound * 2})
        s.hot_free_by_class.push_back({cls, hot_free_within(m, l, p, cls)});
    return s;
}

// Each blade's band over the pods: the fabric file's latency, and with a heat map the measured
// figure of its fresh cells.
void add_latency_bands(const ClusterModel &m, const LiveState &live, std::vector<BladeStatus> &blades) {
    const LatencyTable &t = m.latency();
    for (uint32_t p = 0; p < m.fabric().pods.size(); ++p)
        for (uint32_t b = 0; b < blades.size(); ++b) {
            const uint32_t ns = t.static_latency(p, b);
            if (ns == kUnreachable) continue;
            BladeStatus &o = blades[b];
            o.static_min_ns = std::min(o.static_min_ns.value_or(ns), ns);
            o.static_max_ns = std::max(o.static_max_ns.value_or(ns), ns);
        }
    if (!live.heat) return;
    const HeatMap &h = *live.heat;
    for (BladeStatus &o : blades) o.heat.emplace();
    for (uint32_t p = 0; p < h.pods(); ++p) {
        for (const auto &[b, c] : h.measured_cells(p, live.now)) {
            HeatBand &band = *blades[b].heat;
            if (!c.fresh) {
                ++band.stale_cells;
                continue;
            }
            const uint32_t ns = h.figure(c);
            ++band.fresh_cells;
            band.min_ns = std::min(band.min_ns.value_or(ns), ns);
            band.max_ns = std::max(band.max_ns.value_or(ns), ns);
        }
        for (uint32_t b = 0; b < h.blades(); ++b) blades[b].heat->live_cells += h.published(p, b) != 0;
    }
}

// Names the query gives, as indexes; every name must be the fabric's.
std::vector<uint32_t> indexes(const std::vector<std::string> &names, size_t count, const char *what,
                              const std::function<int(const std::string &)> &index_of) {
    std::vector<uint32_t> out;
    if (names.empty()) {
        for (uint32_t i = 0; i < count; ++i) out.push_back(i);
        return out;
    }
    for (const std::string &n : names) {
        int i = bad_name_byte(n) < 0 && n.size() <= 128 ? index_of(n) : -1;
        if (i < 0)
            throw InputError("", what,
                             std::string("no ") + what + " \"" + (bad_name_byte(n) < 0 ? n : "?") + "\" in the fabric",
                             std::string("see morpheus fabric for the ") + what + "s");
        out.push_back(static_cast<uint32_t>(i));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

}  // namespace

SegmentStatus segment_status(const Fabric &f, const Segment &s) {
    return {f.blades[s.blade].name, use_name(s.use), tier_name(s.tier), s.bytes, s.latency_ns, f.pods[s.pod].name};
}

StatusSnapshot status_snapshot(const ClusterModel &m, const Ledger &l, const Viewer &viewer, const LiveState &live) {
    const Fabric &f = m.fabric();
    const Inventory &inv = m.inventory();
    StatusSnapshot s;
    s.fabric = f.source;
    s.inventory = inv.source;
    s.default_hot_latency_ns = m.settings().default_hot_latency_ns;
    for (uint32_t b = 0; b < f.blades.size(); ++b) {
        BladeStatus o;
        o.blade = f.blades[b].name;
        o.state = blade_state_name(inv.blades[b].state);
        o.load = inv.blades[b].load;
        o.reason = inv.blades[b].reason;
        o.since = inv.blades[b].since;
        TierStatus *tiers[] = {&o.dram, &o.pmem};
        for (Tier t : {Tier::Dram, Tier::Pmem})
            *tiers[static_cast<size_t>(t)] = {inv.blades[b].capacity[static_cast<size_t>(t)], l.reserved(b, t),
                                              l.free(b, t, inv)};
        s.blades.push_back(std::move(o));
    }
    add_latency_bands(m, live, s.blades);
    for (uint32_t p = 0; p < f.pods.size(); ++p) s.pods.push_back(pod_status(m, l, p));
    for (const auto &[id, r] : l.reservations())
        if (viewer.sees_job(r.uid)) s.jobs.push_back(running_job(m, id, r, viewer));
    return s;
}

JobList job_list(const ClusterModel &m, const Ledger &l, const DecisionLog &log, const Viewer &viewer) {
    JobList out;
    for (const auto &[id, r] : l.reservations()) {
        if (!viewer.sees_job(r.uid)) continue;
        JobStatus j = running_job(m, id, r, viewer);
        // Whether a job holds memory on a failed blade is part of its detail: another user's
        // job reads "running" either way.
        j.state = j.detail && j.detail->affected ? "affected" : moving(r) ? "moving" : "running";
        // Hot memory the live heat map now measures beyond the job's bound: part of the detail too.
        if (j.detail && j.state == "running")
            if (std::optional<LiveOverrun> o = hot_beyond_live_bound(m.latency(), r)) {
                j.state = "beyond-bound";
                j.reason = live_overrun_words(m.fabric(), *o);
            }
        // Requeued, holding only its checkpoint region until it starts again.
        if (r.checkpoint.waiting) j.state = "requeued";
        // Ended, but its release could not be saved yet (retried every second): the memory is
        // still held, and the viewer who may see the job sees why.
        auto due = log.releases_due().find(id);
        if (due != log.releases_due().end()) {
            j.state = "releasing";
            if (j.detail) j.reason = "release not saved, retried every second: " + due->second;
        }
        out.jobs.push_back(std::move(j));
    }
    // Released in memory, not yet on disk while saves fail (background saves): shown as the
    // reservation was, "releasing", although its memory is free again.
    for (const auto &[id, r] : log.releasing()) {
        if (l.find(id) || !viewer.sees_job(r.uid)) continue;
        JobStatus j = running_job(m, id, r, viewer);
        j.state = "releasing";
        auto due = log.releases_due().find(id);
        if (j.detail && due != log.releases_due().end())
            j.reason = "release not saved, retried every second: " + due->second;
        out.jobs.push_back(std::move(j));
    }
    // Pending and impossible jobs have no placement to hide: each viewer sees only their own.
    for (const auto &[id, r] : log.records()) {
        if (r.verdict == "placed" || l.find(id)) continue;
        if (viewer.uid >= 0 && r.uid != static_cast<uint32_t>(viewer.uid)) continue;
        JobStatus j;
        j.job_id = id;
        j.uid = r.uid;
        j.state = r.verdict;
        j.reason = r.reason;
        out.jobs.push_back(std::move(j));
    }
    return out;
}

FabricMatrix fabric_matrix(const ClusterModel &m, const Ledger &l) {
    const Fabric &f = m.fabric();
    const Inventory &inv = m.inventory();
    FabricMatrix out;
    out.hot_bound_ns = m.settings().default_hot_latency_ns;
    for (const Pod &p : f.pods) out.pods.push_back({p.name, p.nodes_expr});
    for (uint32_t b = 0; b < f.blades.size(); ++b)
        out.blades.push_back(
            {f.blades[b].name, blade_state_name(inv.blades[b].state), inv.admits(b) ? l.free(b, Tier::Dram, inv) : 0});
    for (uint32_t p = 0; p < f.pods.size(); ++p) {
        std::vector<std::optional<uint32_t>> row;
        for (uint32_t b = 0; b < f.blades.size(); ++b) {
            uint32_t ns = m.latency().latency(p, b);
            row.push_back(ns == kUnreachable ? std::nullopt : std::optional<uint32_t>(ns));
        }
        out.latency_ns.push_back(std::move(row));
    }
    return out;
}

HeatMapView heat_map_view(const ClusterModel &m, const HeatMap &heat, int64_t now, const HeatQuery &q) {
    const Fabric &f = m.fabric();
    if (heat.pods() != f.pods.size() || heat.blades() != f.blades.size())
        throw InputError("", "heat map", "the heat map is not of this fabric");
    const HeatMapSettings &hs = heat.settings();
    HeatMapView v;
    v.figure = heat_figure_name(hs.figure);
    v.now = now;
    v.stale_s = hs.stale_s;
    v.window_s = hs.window_s;
    v.hysteresis = hs.hysteresis;
    v.rounds = hs.rounds;
    const std::vector<uint32_t> pods = indexes(q.pods, f.pods.size(), "pod", [&](auto &n) { return f.pod_index(n); });
    const std::vector<uint32_t> blades =
        indexes(q.blades, f.blades.size(), "blade", [&](auto &n) { return f.blade_index(n); });
    std::vector<uint8_t> wanted(f.blades.size(), q.blades.empty());
    for (uint32_t b : blades) wanted[b] = 1;
    std::vector<uint8_t> wanted_pod(f.pods.size(), q.pods.empty());
    for (uint32_t p : pods) wanted_pod[p] = 1;
    const uint32_t limit = std::min(q.limit, kMaxHeatCells);
    std::vector<const HeatCell *> by_blade(f.blades.size(), nullptr);
    for (uint32_t p = 0; p < f.pods.size(); ++p) {
        // Every pod counts in the totals; only the filter's cells are listed.
        const auto measured = heat.measured_cells(p, now);
        std::fill(by_blade.begin(), by_blade.end(), nullptr);
        for (const auto &[b, c] : measured) {
            by_blade[b] = &c;
            ++v.cells_measured;
            v.cells_fresh += c.fresh;
        }
        for (uint32_t b = 0; b < f.blades.size(); ++b) {
            const uint32_t prior = heat.static_latency(p, b);
            if (prior == kUnreachable) continue;
            ++v.cells_reachable;
            v.cells_live += heat.published(p, b) != 0;
            if (!wanted_pod[p] || !wanted[b] || (!by_blade[b] && !q.all)) continue;
            if (v.cells_matched++ >= limit) continue;
            HeatCellStatus c;
            c.pod = f.pods[p].name;
            c.blade = f.blades[b].name;
            c.static_ns = prior;
            c.used_ns = heat.published(p, b) ? heat.published(p, b) : prior;
            c.live = heat.published(p, b) != 0;
            c.state = "unmeasured";
            if (const HeatCell *h = by_blade[b]) {
                c.age_s = h->age_s;
                c.state = h->fresh ? "fresh" : "stale";
                if (h->fresh) {
                    c.p50_ns = h->p50;
                    c.p99_ns = h->p99;
                    c.measured_ns = heat.figure(*h);
                    c.samples = h->count;
                    c.nodes = h->nodes;
                }
            }
            v.cells.push_back(std::move(c));
        }
    }
    return v;
}

std::string status_json(const ClusterModel &m, const Ledger &l, long viewer) {
    return document_text(to_json(status_snapshot(m, l, Viewer{viewer < 0 ? -1 : viewer, false})));
}

}  // namespace morpheus
