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

std::optional<MovePlan> find_move(const ClusterModel &m, const Ledger &l, const Reservation &r) {
    if (moving(r) || !hot_beyond_bound(r)) return std::nullopt;
    std::map<uint32_t, uint64_t> per_pod;  // bytes beyond the bound, by the pod they serve
    for (const Segment &s : r.segments)
        if (beyond(r, s)) per_pod[s.pod] += s.bytes;
    std::vector<std::pair<uint32_t, uint64_t>> need(per_pod.begin(), per_pod.end());
    MovePlan move;
    if (!assign_hot(m, l, need, r.hot_latency_bound_ns, move.target)) return std::nullopt;
    move.job_id = r.job_id;
    // The copy: each pod's old bytes leave their blades and land on the new ones; the slower
    // of the two sides bounds it (paths of one pod share their uplink, so their times add).
    std::map<uint32_t, double> out_s, in_s;
    auto seconds = [&](const Segment &s) {
        const double gbps = m.latency().bandwidth(s.pod, s.blade);
        return gbps > 0 ? static_cast<double>(s.bytes) * 8.0 / (gbps * 1e9) : 0.0;
    };
    for (const Segment &s : r.segments)
        if (beyond(r, s)) {
            out_s[s.pod] += seconds(s);
            move.bytes += s.bytes;
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
    Ledger trial = l;
    for (const Reservation *r : candidates) {
        if (under_way + out.size() >= max_moves) break;
        std::optional<MovePlan> move = find_move(m, trial, *r);
        if (!move) continue;
        if (!trial.reserve(begin_move(*r, *move), m.inventory())) continue;
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
        if (beyond(r, s)) continue;
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
