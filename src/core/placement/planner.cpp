// Planner bookkeeping and its two queries. The earliest start is the first time at which the
// request fits (try_at). A time it does not fit at says how long it cannot: until some blade it
// needs could hold less over the window. Blades that hold less than their capacity over the
// window are few on a busy cluster; the room index finds them (and when the full ones could
// next have room) without walking the thousands of full blades in a loose latency bound.
#include "planner.hpp"

#include <algorithm>
#include <functional>

#include "units.hpp"

namespace morpheus {

namespace {

constexpr uint64_t kViewFull = std::numeric_limits<uint64_t>::max();  // free() is 0 at any capacity

int64_t window_end(int64_t start, int64_t duration) {
    if (duration <= 0 || duration >= kForever - start) return kForever;
    return start + duration;
}

}  // namespace

Planner::Planner(size_t blade_count)
    : timelines_(blade_count),
      capacity_(blade_count),
      room_(blade_count),
      dirty_(blade_count),
      stale_(blade_count),
      falls_(blade_count),
      view_(blade_count) {
    for (auto &tiers : view_.reserved_) tiers.fill(kViewFull);
    for (auto &tiers : capacity_) tiers.fill(0);
    for (auto &tiers : dirty_) tiers.fill(0);
    for (auto &tiers : stale_) tiers.fill(0);
}

void Planner::changed(uint32_t blade, Tier tier) const {
    uint8_t &d = dirty_[blade][static_cast<size_t>(tier)];
    if (d) return;
    d = 1;
    dirty_list_.emplace_back(blade, tier);
}

void Planner::hold(Hold h) {
    release(h.job_id);
    if (h.end <= h.start) return;
    for (const Segment &s : h.segments)
        if (s.blade < timelines_.size()) {
            timeline(s.blade, s.tier).add(h.start, h.end, s.bytes);
            changed(s.blade, s.tier);
        }
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
        if (s.blade < timelines_.size()) {
            timeline(s.blade, s.tier).remove(h.start, h.end, s.bytes);
            changed(s.blade, s.tier);
        }
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

void Planner::refresh_index(const Inventory &inv) const {
    const size_t blades = timelines_.size();
    // Capacities are read again from another inventory only: a model's inventory never
    // changes (a reload builds a new model), and reading 4,096 blades costs microseconds.
    const bool same_inventory = inv.blades.data() == capacity_source_ && inv.blades.size() == capacity_count_;
    capacity_source_ = inv.blades.data();
    capacity_count_ = inv.blades.size();
    for (uint32_t b = 0; b < blades && !same_inventory; ++b)
        for (size_t k = 0; k < kTierCount; ++k) {
            uint64_t cap = b < inv.blades.size() ? inv.blades[b].capacity[k] : 0;
            if (cap == capacity_[b][k]) continue;
            capacity_[b][k] = cap;
            changed(b, static_cast<Tier>(k));
        }
    for (auto [b, tier] : dirty_list_) {
        const size_t k = static_cast<size_t>(tier);
        dirty_[b][k] = 0;
        room_[b][k].clear();
        timelines_[b][k].below(capacity_[b][k], room_[b][k]);
        if (index_built_ && !stale_[b][k]) {
            stale_[b][k] = 1;
            stale_list_.emplace_back(b, tier);
        }
    }
    // Queries with no change between them (will-run asking for one job after another) get
    // the index rebuilt; while plans change between queries, only past most_stale.
    const bool quiet = dirty_list_.empty();
    dirty_list_.clear();
    if (index_built_ && (stale_list_.empty() || (!quiet && stale_list_.size() <= tuning_.most_stale))) return;
    for (size_t k = 0; k < kTierCount; ++k) {
        std::vector<FreeIndex::Entry> entries;
        if (!index_built_) {
            for (uint32_t b = 0; b < blades; ++b)
                for (const MemoryTimeline::Stretch &s : room_[b][k]) entries.push_back({s.from, s.to, b});
            index_[k].build(std::move(entries));
            continue;
        }
        std::vector<uint8_t> changed(blades, 0);
        for (auto [b, tier] : stale_list_)
            if (static_cast<size_t>(tier) == k) {
                changed[b] = 1;
                for (const MemoryTimeline::Stretch &s : room_[b][k]) entries.push_back({s.from, s.to, b});
            }
        index_[k].replace(changed, std::move(entries));
    }
    for (auto [b, tier] : stale_list_) stale_[b][static_cast<size_t>(tier)] = 0;
    stale_list_.clear();
    index_built_ = true;
}

bool Planner::room_over(uint32_t blade, Tier tier, int64_t t, int64_t to) const {
    const auto &room = room_[blade][static_cast<size_t>(tier)];
    auto it = std::upper_bound(room.begin(), room.end(), t,
                               [](int64_t v, const MemoryTimeline::Stretch &s) { return v < s.from; });
    return it != room.begin() && std::prev(it)->to >= to;
}

template <typename Keep>
bool Planner::blades_with_room(Tier tier, int64_t t, int64_t to, size_t most, Keep &&keep,
                               std::vector<uint32_t> &out) const {
    const size_t k = static_cast<size_t>(tier);
    size_t looked = 0;
    bool all = index_[k].each_covering(t, to, [&](uint32_t b) {
        if (++looked > 4 * most) return false;  // room nearly everywhere: the walk is the faster way
        if (stale_[b][k] || !keep(b)) return true;
        out.push_back(b);
        return out.size() <= most;
    });
    if (!all) return false;
    for (auto [b, bt] : stale_list_)
        if (bt == tier && keep(b) && room_over(b, tier, t, to)) {
            out.push_back(b);
            if (out.size() > most) return false;
        }
    return true;
}

template <typename Keep>
int64_t Planner::room_returns(Tier tier, int64_t t, int64_t to, Keep &&keep) const {
    const size_t k = static_cast<size_t>(tier);
    const int64_t length = FreeIndex::length(t, to);
    int64_t next = index_[k].first_start_after(t, length, [&](uint32_t b) { return !stale_[b][k] && keep(b); });
    for (auto [b, bt] : stale_list_) {
        if (bt != tier || !keep(b)) continue;
        for (const MemoryTimeline::Stretch &s : room_[b][k])
            if (s.from > t && FreeIndex::length(s.from, s.to) >= length) {
                next = std::min(next, s.from);
                break;
            }
    }
    return next;
}

namespace {

// Whether a walk that looked at `looked` blades, found room on `hits` of them and `have` bytes,
// should ask the index for the rest instead of going on: going on costs a look per blade until
// `target` is reached (at the rate so far), at most `left` more; the index lists every blade
// with room in the tier, about `hits / looked` of `blades`.
bool list_instead(size_t looked, size_t hits, uint64_t have, uint64_t target, size_t left, size_t blades) {
    double to_go = static_cast<double>(left);
    if (have > 0 && target > have)
        to_go = std::min(to_go,
                         static_cast<double>(looked) * static_cast<double>(target - have) / static_cast<double>(have));
    const double listed = static_cast<double>(hits) * static_cast<double>(blades) / static_cast<double>(looked);
    return to_go > 2 * listed;
}

}  // namespace

Planner::Try Planner::try_at(const ClusterModel &m, const Request &req, const std::vector<PodShare> &pods, int64_t t,
                             int64_t duration, bool place, Slot &slot, std::string &why) const {
    const Inventory &inv = m.inventory();
    const LatencyTable &lat = m.latency();
    const uint64_t bound = effective_bound(m, req);
    const int64_t to = window_end(t, duration);
    const size_t blades = timelines_.size();
    uint64_t hot_total = 0, cold_total = 0;
    for (const PodShare &s : pods) {
        hot_total += s.nodes * req.hot_per_node;
        cold_total += s.nodes * req.cold_per_node;
    }

    // The view gets the peaks over the window of the blades placement may use: those with
    // room, in the order placement looks at them, as many as it could use (a loose bound
    // covers thousands of blades). Every other blade counts as full, as it is then.
    auto refine = [&](uint32_t b, Tier tier) {
        const size_t k = static_cast<size_t>(tier);
        uint64_t &level = view_.reserved_[b][k];
        if (level == kViewFull) {
            level = timeline(b, tier).peak(t, to, falls_[b][k]);
            touched_.emplace_back(b, tier);
        }
        return inv.admits(b) ? view_.free(b, tier, inv) : 0;
    };
    auto restore_view = [&] {
        for (auto [b, tier] : touched_) view_.reserved_[b][static_cast<size_t>(tier)] = kViewFull;
        touched_.clear();
    };
    auto falls = [&](uint32_t b, Tier tier) {
        refine(b, tier);
        return falls_[b][static_cast<size_t>(tier)];
    };

    Try result;
    int64_t short_until = t;  // the latest of the times the parts that do not fit say
    bool fits = true;
    // Hot memory inside each pod's bound, up to the headroom the scorer weighs (4x);
    // shares of several pods may compete for one blade: assign_blades() settles that.
    for (const PodShare &s : pods) {
        const uint64_t need = s.nodes * req.hot_per_node;
        if (need == 0) continue;
        auto in_bound = [&](uint32_t b) {
            uint32_t l = lat.latency(s.pod, b);
            return l != kUnreachable && l <= bound;
        };
        // In the bound's order: directly while that looks cheaper (room on many blades: the
        // walk stops after a few; or few blades in the bound), then the others with room as
        // the index lists them, or when it lists too many, the rest of the order directly.
        const std::vector<uint32_t> &order = lat.blades_by_latency(s.pod);
        const size_t in_order =
            static_cast<size_t>(std::upper_bound(order.begin(), order.end(), bound,
                                                 [&](uint64_t v, uint32_t b) { return v < lat.latency(s.pod, b); }) -
                                order.begin());
        auto key = [&](uint32_t b) { return uint64_t{lat.latency(s.pod, b)} << 32 | b; };
        uint64_t have = 0;
        walk_.clear();
        size_t i = 0;
        bool done = false;  // the walk stopped: enough memory, or the end of the bound
        auto walk = [&](bool while_dense) {
            for (; !done && i < order.size(); ++i) {
                if (while_dense && i >= tuning_.first_looks &&
                    list_instead(i, walk_.size(), have, 4 * need, in_order - std::min(i, in_order), blades))
                    return;
                const uint32_t b = order[i];
                if (have >= 4 * need || lat.latency(s.pod, b) > bound) {
                    done = true;
                    break;
                }
                if (!room_over(b, Tier::Dram, t, to)) continue;
                walk_.push_back(b);
                have += refine(b, Tier::Dram);
            }
            done = done || i == order.size();
        };
        walk(true);
        if (!done) {
            const uint64_t after = i ? key(order[i - 1]) : 0;
            found_.clear();
            auto rest = [&](uint32_t b) { return in_bound(b) && (i == 0 || key(b) > after); };
            if (blades_with_room(Tier::Dram, t, to, tuning_.most_listed, rest, found_)) {
                ranked_.clear();
                for (uint32_t b : found_) ranked_.emplace_back(key(b), b);
                // Nearest first, as a sort would give, but the walk often stops after a few.
                std::make_heap(ranked_.begin(), ranked_.end(), std::greater<>());
                for (auto end = ranked_.end(); end != ranked_.begin() && have < 4 * need; --end) {
                    std::pop_heap(ranked_.begin(), end, std::greater<>());
                    walk_.push_back(std::prev(end)->second);
                    have += refine(walk_.back(), Tier::Dram);
                }
                done = true;
            }
        }
        walk(false);
        if (have < need) {
            fits = false;
            why.assign(1, '\0');  // said in full only if it never fits: see say_why()
            why_pod_ = s.pod;
            // Not before a blade with room holds less, or a full one has room.
            int64_t next = room_returns(Tier::Dram, t, to, in_bound);
            if (need <= UINT64_MAX / 4) {  // the walk went through every blade with room
                for (uint32_t b : walk_) next = std::min(next, falls(b, Tier::Dram));
            } else {
                for (uint32_t b : lat.blades_by_latency(s.pod)) {
                    if (lat.latency(s.pod, b) > bound) break;
                    if (room_over(b, Tier::Dram, t, to)) next = std::min(next, falls(b, Tier::Dram));
                }
            }
            short_until = std::max(short_until, next);
        }
    }
    if (fits && cold_total) {
        // Cold memory walks the blades in cold order; hot memory may share those blades,
        // hence the margin.
        const uint64_t want = cold_total + hot_total;
        const uint32_t front = pods.front().pod;
        auto reach = [&](uint32_t b) { return lat.latency(front, b) != kUnreachable; };
        const std::vector<uint32_t> &order = m.cold_order();
        auto rank = [&](uint32_t b) { return m.cold_rank(b); };
        uint64_t have = 0;
        walk_.clear();
        size_t i = 0;
        bool done = false;
        auto walk = [&](bool while_dense) {
            for (; !done && i < order.size(); ++i) {
                if (while_dense && i >= tuning_.first_looks &&
                    list_instead(i, walk_.size(), have, want, order.size() - i, blades))
                    return;
                const uint32_t b = order[i];
                if (have >= want) {
                    done = true;
                    break;
                }
                if (!reach(b) || !(room_over(b, Tier::Pmem, t, to) || room_over(b, Tier::Dram, t, to))) continue;
                walk_.push_back(b);
                have += refine(b, Tier::Pmem) + refine(b, Tier::Dram);
            }
            done = done || i == order.size();
        };
        walk(true);
        if (!done) {
            found_.clear();
            auto rest = [&](uint32_t b) { return reach(b) && rank(b) >= i; };
            if (blades_with_room(Tier::Pmem, t, to, tuning_.most_listed, rest, found_) &&
                blades_with_room(Tier::Dram, t, to, tuning_.most_listed, rest, found_)) {
                ranked_.clear();
                for (uint32_t b : found_) ranked_.emplace_back(rank(b), b);
                std::make_heap(ranked_.begin(), ranked_.end(), std::greater<>());
                for (auto end = ranked_.end(); end != ranked_.begin() && have < want; --end) {
                    std::pop_heap(ranked_.begin(), end, std::greater<>());
                    const uint32_t b = std::prev(end)->second;
                    if (!walk_.empty() && walk_.back() == b) continue;  // room in both tiers: listed twice
                    walk_.push_back(b);
                    have += refine(b, Tier::Pmem) + refine(b, Tier::Dram);
                }
                done = true;
            }
        }
        walk(false);
        if (have < want) {
            fits = false;
            why = "not enough cold memory on any reachable blade";
            int64_t next = std::min(room_returns(Tier::Pmem, t, to, reach), room_returns(Tier::Dram, t, to, reach));
            for (uint32_t b : walk_)  // every reachable blade with room: the walk went through them all
                next = std::min({next, falls(b, Tier::Pmem), falls(b, Tier::Dram)});
            short_until = std::max(short_until, next);
        }
    }
    if (fits && !place) {
        result.outcome = Outcome::Fits;
    } else if (fits) {
        slot.start = t;
        // Only the blades the view holds figures for can have room in it.
        shortlist_.clear();
        for (auto [b, tier] : touched_) shortlist_.push_back(b);
        std::sort(shortlist_.begin(), shortlist_.end());
        shortlist_.erase(std::unique(shortlist_.begin(), shortlist_.end()), shortlist_.end());
        if (assign_blades(m, view_, req, pods, slot.placement, &why, &shortlist_)) {
            result.outcome = Outcome::Fits;
        } else {
            // The view left out blades placement might use; they come into it as soon as
            // any blade's peak over the window changes: a hold starting or ending at the
            // window's start, or starting or ending at its end.
            // (Rare: shares of several pods competing for blades. The holds are looked
            // through rather than their starts kept in order at every hold.)
            auto after = [&](int64_t x) {
                int64_t first = kForever;
                for (const auto &[id, h] : holds_)
                    for (int64_t s : {h.start, h.end})
                        if (s > x) first = std::min(first, s);
                return first;
            };
            result.outcome = Outcome::Unplaced;
            result.next = after(t);
            if (to < kForever) {
                int64_t enters = after(to);
                if (enters < kForever) result.next = std::min(result.next, enters - (to - t));
            }
        }
    } else {
        result.next = short_until;
    }
    restore_view();
    return result;
}

std::string Planner::say_why(const ClusterModel &m, const Request &req, const std::string &why) const {
    if (why.size() != 1 || why[0] != '\0') return why;
    return "pod " + m.fabric().pods[why_pod_].name + ": not enough hot memory within " +
           std::to_string(effective_bound(m, req)) + "ns";
}

std::optional<Slot> Planner::earliest_start(const ClusterModel &m, const Request &req,
                                            const std::vector<PodShare> &pods, int64_t now, int64_t duration,
                                            int64_t nodes_free_at, std::string *why) const {
    if (pods.empty()) {
        if (why) *why = "no nodes";
        return std::nullopt;
    }
    refresh_index(m.inventory());
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
    Slot slot;
    // One pod's share gets the blades whenever the memory fits (hot memory within its bound,
    // cold memory with room beside the hot), so whether it fits at all needs no placement.
    uint64_t hot = 0, cold = 0, both = 0;
    const bool simple = pods.size() == 1 && !__builtin_mul_overflow(pods[0].nodes, req.hot_per_node, &hot) &&
                        !__builtin_mul_overflow(pods[0].nodes, req.cold_per_node, &cold) &&
                        !__builtin_add_overflow(hot, cold, &both) && hot <= UINT64_MAX / 4;
    if (last_end != first &&
        try_at(m, req, pods, last_end, duration, !simple, slot, last_why).outcome != Outcome::Fits) {
        if (why) *why = "never fits, even after every running and planned job ends: " + say_why(m, req, last_why);
        return std::nullopt;
    }
    for (int64_t t = first; t < kForever;) {
        Try r = try_at(m, req, pods, t, duration, true, slot, last_why);
        if (r.outcome == Outcome::Fits) return slot;
        t = std::max(r.next, t + 1);
    }
    if (why) *why = "never fits, even after every running and planned job ends: " + say_why(m, req, last_why);
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

namespace {

// Times node counts come free at, tried by a spread search: enough to follow a queue of
// running jobs, few enough that one will-run stays cheap on a 200-pod fabric.
constexpr size_t kSpreadTimes = 64;

// At each time nodes come free (in order, until a start is found that no later time can beat),
// `shape` splits the job over the nodes free by then (decide() over an empty cluster), and the
// split's memory (as `memory` asks for it) is planned from that time; the soonest start wins.
// Splits of fewer than `min_pods` pods are skipped.
std::optional<PodStart> earliest_shaped_start(const Planner &planner, const ClusterModel &m, const Request &memory,
                                              const std::function<Decision(const std::vector<uint8_t> &allowed)> &shape,
                                              const std::function<int64_t(uint32_t pod, uint32_t need)> &nodes_free_at,
                                              int64_t now, int64_t duration, size_t min_pods, std::string &why) {
    const Fabric &f = m.fabric();
    // free_by[p][k]: from when pod p has k + 1 of the job's nodes free.
    std::vector<std::vector<int64_t>> free_by(f.pods.size());
    std::vector<int64_t> times;
    for (uint32_t p = 0; p < f.pods.size(); ++p)
        for (uint32_t k = 1; k <= f.pods[p].node_count; ++k) {
            const int64_t at = std::max(now, nodes_free_at(p, k));
            if (at >= kForever) break;
            free_by[p].push_back(at);
            times.push_back(at);
        }
    std::sort(times.begin(), times.end());
    // Before the time the cluster has as many of the job's nodes free as the job needs in all
    // (each entry is one node), no split fits: the tries start there, so a job of most of the
    // cluster is not left without a start by the kSpreadTimes earlier times of small jobs' ends.
    uint32_t fewest = UINT32_MAX;
    for (uint32_t p = 0; p < f.pods.size(); ++p)
        if (const uint32_t need = nodes_needed(m, memory, p)) fewest = std::min(fewest, need);
    if (fewest > times.size()) return std::nullopt;  // also no pod that can hold it (UINT32_MAX)
    if (fewest > 1) times.erase(times.begin(), times.begin() + (fewest - 1));
    times.erase(std::unique(times.begin(), times.end()), times.end());
    if (times.size() > kSpreadTimes) times.resize(kSpreadTimes);
    std::optional<PodStart> best;
    std::vector<uint8_t> allowed(f.node_names.size());
    for (int64_t at : times) {
        if (best && at >= best->slot.start) break;
        std::fill(allowed.begin(), allowed.end(), 0);
        for (uint32_t p = 0; p < f.pods.size(); ++p) {
            const auto n = std::upper_bound(free_by[p].begin(), free_by[p].end(), at) - free_by[p].begin();
            std::fill_n(allowed.begin() + f.pods[p].first_node, n, 1);
        }
        Decision d = shape(allowed);
        if (d.verdict != Verdict::Placed || d.placement.pods.size() < min_pods) continue;
        std::string try_why;
        std::optional<Slot> slot = planner.earliest_start(m, memory, d.placement.pods, now, duration, at, &try_why);
        if (!slot) {
            why = try_why;
            continue;
        }
        if (!best || slot->start < best->slot.start) best = PodStart{d.placement.pods, std::move(*slot)};
    }
    return best;
}

// earliest_pod_start() inside the request's bound.
std::optional<PodStart> earliest_start_within_bound(
    const Planner &planner, const ClusterModel &m, const Request &req,
    const std::function<int64_t(uint32_t pod, uint32_t need)> &nodes_free_at, int64_t now, int64_t duration,
    std::string *why) {
    std::optional<PodStart> best;
    std::string last_why = "no pod has enough nodes for the job";
    for (uint32_t p = 0; p < m.fabric().pods.size(); ++p) {
        const uint32_t need = nodes_needed(m, req, p);
        if (need == 0 || need > m.fabric().pods[p].node_count) continue;
        const int64_t nodes_at = nodes_free_at(p, need);
        if (nodes_at >= kForever || (best && nodes_at >= best->slot.start)) continue;
        std::string pod_why;
        std::optional<Slot> slot = planner.earliest_start(m, req, {{p, need}}, now, duration, nodes_at, &pod_why);
        if (!slot) {
            last_why = pod_why;
            continue;
        }
        if (!best || slot->start < best->slot.start) best = PodStart{{{p, need}}, std::move(*slot)};
    }
    // No single pod can take the job: spread as decide() spreads it over an empty cluster.
    if (!best)
        best = earliest_shaped_start(
            planner, m, req, [&](const std::vector<uint8_t> &allowed) { return feasibility(m, req, &allowed); },
            nodes_free_at, now, duration, 2, last_why);
    if (!best && why) *why = last_why;
    return best;
}

// earliest_pod_start() for a soft bound whose wait is over: split at each time as decide()
// splits such a job (inside the bound if it can, else shares small enough to move inside it
// later, else any), its memory planned on the nearest blades there are.
std::optional<PodStart> earliest_lapsed_start(const Planner &planner, const ClusterModel &m, const Request &req,
                                              const std::function<int64_t(uint32_t pod, uint32_t need)> &nodes_free_at,
                                              int64_t now, int64_t duration) {
    Request open = req;
    open.hot_latency_ns = kMaxLatencyNs;
    open.bound_lapsed = false;
    const Ledger empty(m.fabric().blades.size());
    std::string why;
    return earliest_shaped_start(
        planner, m, open,
        [&](const std::vector<uint8_t> &allowed) { return decide(m, empty, req, allowed, nullptr, nullptr); },
        nodes_free_at, now, duration, 1, why);
}

}  // namespace

std::optional<PodStart> earliest_pod_start(const Planner &planner, const ClusterModel &m, const Request &req,
                                           const std::function<int64_t(uint32_t pod, uint32_t need)> &nodes_free_at,
                                           int64_t now, int64_t duration, std::string *why) {
    Request within = req;
    within.bound_lapsed = false;
    std::optional<PodStart> inside = earliest_start_within_bound(planner, m, within, nodes_free_at, now, duration, why);
    if (!req.bound_lapsed || !req.hot_per_node) return inside;
    // A soft bound whose wait is over takes the nearest memory there is (decide()), so its start
    // is planned with the bound open as well, and the earlier start wins (a tie: inside). Planned
    // inside only, a large job spread over pods waited in the plan for near memory it no longer
    // needs, and backfill ran jobs past its real start (NASA: a 64-node job planned 18,700 s
    // after the time its nodes and far memory were free).
    std::optional<PodStart> far = earliest_lapsed_start(planner, m, req, nodes_free_at, now, duration);
    if (far && (!inside || far->slot.start < inside->slot.start)) return far;
    return inside;
}

}  // namespace morpheus
