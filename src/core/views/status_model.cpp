// The status views built from the model, the ledger and the decision log, privacy applied on
// the values themselves: a job another viewer may not see is never put in.
#include "status_model.hpp"

#include "explain.hpp"
#include "hostlist.hpp"
#include "json_document.hpp"
#include "move.hpp"

namespace morpheus {

namespace {

JobStatus running_job(const Fabric &f, uint64_t id, const Reservation &r, const Viewer &viewer) {
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

}  // namespace

SegmentStatus segment_status(const Fabric &f, const Segment &s) {
    return {f.blades[s.blade].name, use_name(s.use), tier_name(s.tier), s.bytes, s.latency_ns, f.pods[s.pod].name};
}

StatusSnapshot status_snapshot(const ClusterModel &m, const Ledger &l, const Viewer &viewer) {
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
    for (uint32_t p = 0; p < f.pods.size(); ++p) s.pods.push_back(pod_status(m, l, p));
    for (const auto &[id, r] : l.reservations())
        if (viewer.sees_job(r.uid)) s.jobs.push_back(running_job(f, id, r, viewer));
    return s;
}

JobList job_list(const ClusterModel &m, const Ledger &l, const DecisionLog &log, const Viewer &viewer) {
    JobList out;
    for (const auto &[id, r] : l.reservations()) {
        if (!viewer.sees_job(r.uid)) continue;
        JobStatus j = running_job(m.fabric(), id, r, viewer);
        // Whether a job holds memory on a failed blade is part of its detail: another user's
        // job reads "running" either way.
        j.state = j.detail && j.detail->affected ? "affected" : moving(r) ? "moving" : "running";
        // Ended, but its release could not be saved yet (retried every second): the memory is
        // still held, and the viewer who may see the job sees why.
        auto due = log.releases_due().find(id);
        if (due != log.releases_due().end()) {
            j.state = "releasing";
            if (j.detail) j.reason = "release not saved, retried every second: " + due->second;
        }
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

std::string status_json(const ClusterModel &m, const Ledger &l, long viewer) {
    return document_text(to_json(status_snapshot(m, l, Viewer{viewer < 0 ? -1 : viewer, false})));
}

}  // namespace morpheus
