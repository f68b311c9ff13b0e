// Moves: which running jobs' hot memory comes inside the bound, and the ledger's two steps.
#include "move.hpp"

#include <algorithm>
#include <map>

#include "placement.hpp"

namespace morpheus {

namespace {

bool beyond(const Reservation &r, const Segment &s) {
    return s.use == Use::Hot && r.hot_latency_bound_ns && s.latency_ns > r.hot_latency_bound_ns;
}

}  // namespace

uint64_t hot_beyond_bound(const Reservation &r) {
    uint64_t bytes = 0;
    for (const Segment &s : r.segments)
        if (beyond(r, s)) bytes += s.bytes;
    return bytes;
}

bool moving(const Reservation &r) {
    return std::any_of(r.segments.begin(), r.segments.end(), [](const Segment &s) { return s.use == Use::Incoming; });
}

bool moving_pod(const Reservation &r, uint32_t pod) {
    return std::any_of(r.segments.begin(), r.segments.end(),
                       [&](const Segment &s) { return s.use == Use::Incoming && s.pod == pod; });
}

bool leaving(const Reservation &r, const Segment &s) { return beyond(r, s) && moving_pod(r, s.pod); }

std::optional<LiveOverrun> hot_beyond_live_bound(const LatencyTable &table, const Reservation &r) {
    std::optional<LiveOverrun> worst;
    if (!r.hot_latency_bound_ns) return worst;
    for (const Segment &s : r.segments) {
        // Memory placed beyond its bound knowingly (a lapsed soft bound) is the moves' business.
        if (s.use != Use::Hot || s.latency_ns > r.hot_latency_bound_ns) continue;
        const uint32_t now_ns = table.latency(s.pod, s.blade);
        if (now_ns == kUnreachable || now_ns <= r.hot_latency_bound_ns) continue;
        if (!worst || now_ns > worst->live_ns)
            worst = LiveOverrun{s.blade, s.pod, now_ns, s.latency_ns, r.hot_latency_bound_ns};
    }
    return worst;
}

std::string live_overrun_words(const Fabric &f, const LiveOverrun &o) {
    return "hot on " + f.blades[o.blade].name + " now " + std::to_string(o.live_ns) + "ns from " + f.pods[o.pod].name +
           ", bound " + std::to_string(o.bound_ns) + "ns (placed at " + std::to_string(o.placed_ns) + "ns)";
}

uint64_t bytes_leaving(const Reservation &r) {
    uint64_t bytes = 0;
    for (const Segment &s : r.segments)
        if (leaving(r, s)) bytes += s.bytes;
    return bytes;
}

std::optional<MovePlan> find_move(const ClusterModel &m, const Ledger &l, const Reservation &r,
                                  const std::vector<Segment> &taken) {
    if (moving(r) || !hot_beyond_bound(r)) return std::nullopt;
    std::map<uint32_t, uint64_t> per_pod;  // bytes beyond the bound, by the pod they serve
    for (const Segment &s : r.segments)
        if (beyond(r, s)) per_pod[s.pod] += s.bytes;
    // Pod by pod, largest share first: a pod whose share fits in bound now moves now, and one
    // whose near memory is still taken waits for a later move. All or nothing would keep a
    // job of several pods far until every pod's near blade had room at the same instant.
    std::vector<std::pair<uint32_t, uint64_t>> order(per_pod.begin(), per_pod.end()), need;
    std::stable_sort(order.begin(), order.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
    MovePlan move;
    for (const auto &pod_share : order) {
        need.push_back(pod_share);
        std::vector<Segment> target;
        if (assign_hot(m, l, need, r.hot_latency_bound_ns, target, taken))
            move.target = std::move(target);
        else
            need.pop_back();
    }
    if (need.empty()) return std::nullopt;
    move.job_id = r.job_id;
    // The copy: each pod's old bytes leave their blades and land on the new ones; the slower
    // of the two sides bounds it (paths of one pod share their uplink, so their times add).
    std::map<uint32_t, double> out_s, in_s;
    auto seconds = [&](const Segment &s) {
        const double gbps = m.latency().bandwidth(s.pod, s.blade);
        return gbps > 0 ? static_cast<double>(s.bytes) * 8.0 / (gbps * 1e9) : 0.0;
    };
    for (const auto &[pod, bytes] : need) {
        move.bytes += bytes;
        for (const Segment &s : r.segments)
            if (s.pod == pod && beyond(r, s)) out_s[pod] += seconds(s);
    }
    for (Segment &s : move.target) {
        s.use = Use::Incoming;
        in_s[s.pod] += seconds(s);
    }
    for (const auto &[pod, t] : out_s) move.seconds = std::max({move.seconds, t, in_s[pod]});
    return move;
}

std::vector<MovePlan> plan_moves(const ClusterModel &m, const Ledger &l, uint32_t max_moves) {
    std::vector<MovePlan> out;
    std::vector<const Reservation *> candidates;
    uint32_t under_way = 0;
    for (const auto &[id, r] : l.reservations()) {
        if (moving(r))
            ++under_way;
        else if (!r.affected && hot_beyond_bound(r))
            candidates.push_back(&r);
    }
    if (under_way >= max_moves || candidates.empty()) return out;
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Reservation *a, const Reservation *b) { return a->since < b->since; });
    std::vector<Segment> taken;  // the targets of the moves planned so far
    for (const Reservation *r : candidates) {
        if (under_way + out.size() >= max_moves) break;
        std::optional<MovePlan> move = find_move(m, l, *r, taken);
        if (!move) continue;
        taken.insert(taken.end(), move->target.begin(), move->target.end());
        out.push_back(std::move(*move));
    }
    return out;
}

Reservation begin_move(const Reservation &r, const MovePlan &move) {
    Reservation next = r;
    next.segments.insert(next.segments.end(), move.target.begin(), move.target.end());
    return next;
}

Reservation finish_move(const Reservation &r) {
    Reservation next = r;
    next.segments.clear();
    for (const Segment &s : r.segments) {
        if (leaving(r, s)) continue;
        Segment kept = s;
        if (kept.use == Use::Incoming) kept.use = Use::Hot;
        next.segments.push_back(kept);
    }
    return next;
}

Reservation abandon_move(const Reservation &r) {
    Reservation next = r;
    next.segments.erase(std::remove_if(next.segments.begin(), next.segments.end(),
                                       [](const Segment &s) { return s.use == Use::Incoming; }),
                        next.segments.end());
    return next;
}

}  // namespace morpheus
