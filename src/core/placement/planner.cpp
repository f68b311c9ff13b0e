// Planner bookkeeping and its two queries. The earliest start only needs to be tried at the
// first possible time and at times some blade it looked at holds less over the window: each
// blade's peak over a sliding window lasts until its last stretch at the peak ends, so a
// request that does not fit at one such time cannot fit until the next.
#include "planner.hpp"

#include <algorithm>

namespace morpheus {

namespace {

constexpr uint64_t kViewFull = std::numeric_limits<uint64_t>::max();  // free() is 0 at any capacity

int64_t window_end(int64_t start, int64_t duration) {
    if (duration <= 0 || duration >= kForever - start) return kForever;
    return start + duration;
}

}  // namespace

Planner::Planner(size_t blade_count) : timelines_(blade_count), view_(blade_count) {
    for (auto &tiers : view_.reserved_) tiers.fill(kViewFull);
}

void Planner::hold(Hold h) {
    release(h.job_id);
    if (h.end <= h.start) return;
    for (const Segment &s : h.segments)
        if (s.blade < timelines_.size()) timeline(s.blade, s.tier).add(h.start, h.end, s.bytes);
    ++ends_[h.end];
    planned_count_ += h.planned;
    holds_.emplace(h.job_id, std::move(h));
}

void Planner::hold_running(uint64_t job_id, const std::vector<Segment> &segments, int64_t start, int64_t end) {
    hold(Hold{job_id, segments, start, end, false, 0});
}

void Planner::hold_planned(uint64_t job_id, uint32_t order, const std::vector<Segment> &segments, int64_t start,
                           int64_t end) {
    hold(Hold{job_id, segments, start, end, true, order});
}

bool Planner::release(uint64_t job_id) {
    auto it = holds_.find(job_id);
    if (it == holds_.end()) return false;
    const Hold &h = it->second;
    for (const Segment &s : h.segments)
        if (s.blade < timelines_.size()) timeline(s.blade, s.tier).remove(h.start, h.end, s.bytes);
    auto e = ends_.find(h.end);
    if (e != ends_.end() && --e->second == 0) ends_.erase(e);
    planned_count_ -= h.planned;
    holds_.erase(it);
    return true;
}

void Planner::clear_planned() {
    std::vector<uint64_t> plans;
    for (const auto &[id, h] : holds_)
        if (h.planned) plans.push_back(id);
    for (uint64_t id : plans) release(id);
}

const Hold *Planner::find(uint64_t job_id) const {
    auto it = holds_.find(job_id);
    return it == holds_.end() ? nullptr : &it->second;
}

uint64_t Planner::reserved_at(uint32_t blade, Tier tier, int64_t t) const { return timeline(blade, tier).at(t); }

std::optional<Slot> Planner::earliest_start(const ClusterModel &m, const Request &req, const std::vector<PodShare> &pods,
                                            int64_t now, int64_t duration, int64_t nodes_free_at,
                                            std::string *why) const {
    if (pods.empty()) {
        if (why) *why = "no nodes";
        return std::nullopt;
    }
    const Inventory &inv = m.inventory();
    const LatencyTable &lat = m.latency();
    const uint64_t bound = effective_bound(m, req);
    uint64_t hot_total = 0, cold_total = 0;
    for (const PodShare &s : pods) {
        hot_total += s.nodes * req.hot_per_node;
        cold_total += s.nodes * req.cold_per_node;
    }

    // The view gets the blades' peaks over the window lazily, in the order placement looks
    // at them, and only as many as it could use: a loose bound covers thousands of blades.
    int64_t t = 0, to = 0, next = kForever;
    auto refine = [&](uint32_t b, Tier tier) {
        uint64_t &slot = view_.reserved_[b][static_cast<size_t>(tier)];
        if (slot == kViewFull) {
            const MemoryTimeline &line = timeline(b, tier);
            int64_t falls_at;
            slot = line.peak(t, to, falls_at);
            next = std::min(next, falls_at);
            touched_.emplace_back(b, tier);
        }
        return inv.admits(b) ? view_.free(b, tier, inv) : 0;
    };
    auto restore_view = [&] {
        for (auto [b, tier] : touched_) view_.reserved_[b][static_cast<size_t>(tier)] = kViewFull;
        touched_.clear();
    };

    // Once every hold with an end has ended, only unlimited ones remain: the least memory
    // ever held. A request that does not fit then never will; say so before walking time.
    const int64_t first = std::max(now, nodes_free_at);
    int64_t last_end = first;
    for (auto e = ends_.rbegin(); e != ends_.rend(); ++e)
        if (e->first < kForever) {
            last_end = std::max(first, e->first);
            break;
        }
    std::string last_why;
    bool final_checked = last_end == first;
    for (t = final_checked ? first : last_end; t < kForever; t = next) {
        to = window_end(t, duration);
        next = kForever;
        // Hot memory inside each pod's bound, up to the headroom the scorer weighs (4x);
        // shares of several pods may compete for one blade: assign_blades() settles that.
        bool fits = true;
        for (const PodShare &s : pods) {
            const uint64_t need = s.nodes * req.hot_per_node;
            uint64_t have = 0;
            for (uint32_t b : lat.blades_by_latency(s.pod)) {
                if (have >= 4 * need || lat.latency(s.pod, b) > bound) break;
                have += refine(b, Tier::Dram);
            }
            if (have < need) {
                fits = false;
                last_why = "pod " + m.fabric().pods[s.pod].name + ": not enough hot memory within " +
                           std::to_string(bound) + "ns";
            }
        }
        if (fits && cold_total) {
            // Cold memory walks the blades in cold order; hot memory may share those blades,
            // hence the margin.
            const uint64_t want = cold_total + hot_total;
            uint64_t have = 0;
            for (uint32_t b : m.cold_order()) {
                if (have >= want) break;
                if (lat.latency(pods.front().pod, b) == kUnreachable) continue;
                have += refine(b, Tier::Pmem) + refine(b, Tier::Dram);
            }
            if (have < want) {
                fits = false;
                last_why = "not enough cold memory on any reachable blade";
            }
        }
        if (fits) {
            Slot slot;
            slot.start = t;
            if (assign_blades(m, view_, req, pods, slot.placement, &last_why)) {
                restore_view();
                if (final_checked) return slot;
                final_checked = true;  // it will fit at the latest then; now look for the earliest
                next = first;
                continue;
            }
            // Blades the view left out may be what it lacks: try the next time anything ends.
            auto e = ends_.upper_bound(t);
            next = std::min(next, e == ends_.end() ? kForever : e->first);
        }
        restore_view();
        if (!final_checked) break;
        // No blade it looked at holds less over a window starting before `next` (each blade's
        // peak lasts until its last stretch at the peak ends), so nothing fits before then.
    }
    if (why) *why = "never fits, even after every running and planned job ends: " + last_why;
    return std::nullopt;
}

const Hold *Planner::delayed_by(const Inventory &inv, const std::vector<Segment> &segments, int64_t from,
                                int64_t to) const {
    std::map<std::pair<uint32_t, Tier>, uint64_t> wanted;
    for (const Segment &s : segments)
        if (s.blade < timelines_.size()) wanted[{s.blade, s.tier}] += s.bytes;
    const Hold *first = nullptr;
    for (const auto &[key, bytes] : wanted) {
        uint64_t cap = inv.blades[key.first].capacity[static_cast<size_t>(key.second)];
        if (timeline(key.first, key.second).peak(from, to) + bytes <= cap) continue;
        for (const auto &[id, h] : holds_) {
            if (!h.planned || h.start >= to || h.end <= from || (first && first->order <= h.order)) continue;
            for (const Segment &s : h.segments)
                if (s.blade == key.first && s.tier == key.second) {
                    first = &h;
                    break;
                }
        }
    }
    return first;
}

}  // namespace morpheus
