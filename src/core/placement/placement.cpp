// Pod ranking and blade choice. Hot memory: nearest first inside the bound (or, with
// HotBladeOrder=slack, farthest first inside it), striped over blades when one is not enough,
// busy blades avoided. Cold memory: blades fewest pods need for
// hot first, persistent memory before DRAM. Ties always break by index, so runs repeat exactly.
#include "placement.hpp"

#include "checkpoint.hpp"

#include <algorithm>
#include <map>

#include "request.hpp"
#include "soft_bound.hpp"
#include "units.hpp"

namespace morpheus {

const char *verdict_name(Verdict v) {
    switch (v) {
    case Verdict::Placed: return "placed";
    case Verdict::Pending: return "pending";
    case Verdict::Impossible: return "impossible";
    }
    return "?";
}

const char *rule_out_name(RuleOut r) {
    switch (r) {
    case RuleOut::None: return "eligible";
    case RuleOut::NoGpus: return "no-gpus";
    case RuleOut::FreeNodes: return "free-nodes";
    case RuleOut::NoBladeInBound: return "latency";
    case RuleOut::HotCapacity: return "hot-capacity";
    case RuleOut::ColdCapacity: return "cold-capacity";
    }
    return "?";
}

uint64_t effective_bound(const ClusterModel &model, const Request &req) {
    return req.hot_latency_ns ? req.hot_latency_ns : model.settings().default_hot_latency_ns;
}

uint32_t nodes_needed(const ClusterModel &model, const Request &req, uint32_t pod) {
    if (req.nodes) return req.nodes;
    uint32_t per = model.fabric().pods[pod].gpus_per_node;
    if (per == 0) return 0;
    // In 64 bits: gpus near 2^32 must not wrap to a handful of nodes.
    return static_cast<uint32_t>(std::max<uint64_t>(1, (uint64_t{req.gpus} + per - 1) / per));
}

namespace {

constexpr double kHeadroomCap = 4.0;  // spare capacity beyond 4x the need scores no higher
constexpr uint64_t kHeadroomFactor = 4;  // the same, for byte counts

uint64_t saturating_add(uint64_t a, uint64_t b) {
    uint64_t s;
    return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

// Memory taken so far by the placement being built, so blades shared by several pod shares
// are never counted twice.
class Overlay {
public:
    explicit Overlay(bool ideal = false) : ideal(ideal) {}
    const bool ideal;  // feasibility: every blade counts as in service

    uint64_t taken(uint32_t blade, Tier t) const {
        auto it = taken_.find({blade, t});
        return it == taken_.end() ? 0 : it->second;
    }
    void take(uint32_t blade, Tier t, uint64_t bytes) { taken_[{blade, t}] += bytes; }

private:
    std::map<std::pair<uint32_t, Tier>, uint64_t> taken_;
};

bool usable(const ClusterModel &m, uint32_t blade, bool ideal) {
    return ideal ? m.inventory().blades[blade].state != BladeState::Absent : m.inventory().admits(blade);
}

uint64_t available(const ClusterModel &m, const Ledger &l, const Overlay &o, uint32_t blade, Tier t) {
    if (!usable(m, blade, o.ideal)) return 0;
    uint64_t f = l.free(blade, t, m.inventory());
    uint64_t used = o.taken(blade, t);
    return f > used ? f - used : 0;
}

PodAssessment assess(const ClusterModel &m, const Ledger &l, const Request &req, uint32_t pod, uint32_t free_nodes,
                     uint64_t bound, bool ideal) {
    const Weights &w = m.settings().weights;
    const LatencyTable &t = m.latency();
    PodAssessment a;
    a.pod = pod;
    a.free_nodes = free_nodes;
    a.nearest_ns = t.nearest(pod);
    a.nodes_needed = nodes_needed(m, req, pod);
    if (a.nodes_needed == 0) {
        a.ruled_out = RuleOut::NoGpus;
        return a;
    }
    a.hot_needed = bytes_for_nodes(req.hot_per_node, a.nodes_needed);
    double weighted_latency = 0, weighted_load = 0;
    if (a.hot_needed) {
        uint64_t filled = 0;
        // In integers: a double product near 2^64 does not convert back to uint64_t.
        const uint64_t enough = bytes_for_nodes(a.hot_needed, kHeadroomFactor);
        for (uint32_t b : t.blades_by_latency(pod)) {
            uint32_t lat = t.latency(pod, b);
            if (lat > bound) break;
            const BladeStock &stock = m.inventory().blades[b];
            if (!usable(m, b, ideal)) {
                a.hot_unusable_in_bound = saturating_add(a.hot_unusable_in_bound, stock.capacity[0]);
                continue;
            }
            uint64_t f = l.free(b, Tier::Dram, m.inventory());
            if (f == 0) continue;
            if (filled < a.hot_needed) {
                uint64_t take = std::min(f, a.hot_needed - filled);
                weighted_latency += static_cast<double>(take) * lat;
                weighted_load += static_cast<double>(take) * stock.load;
                filled += take;
            }
            a.hot_free_in_bound = saturating_add(a.hot_free_in_bound, f);
            if (a.hot_free_in_bound >= enough) break;
        }
        if (filled) {
            a.mean_hot_latency_ns = weighted_latency / static_cast<double>(filled);
            a.load_term = weighted_load / static_cast<double>(filled);
        }
        a.latency_term = bound ? 1.0 - a.mean_hot_latency_ns / static_cast<double>(bound) : 0.0;
        a.headroom_term =
            std::min(kHeadroomCap, static_cast<double>(a.hot_free_in_bound) / static_cast<double>(a.hot_needed)) /
            kHeadroomCap;
    } else {
        a.latency_term = 1.0;
        a.headroom_term = 1.0;
    }
    a.packing_term = free_nodes ? std::min(1.0, static_cast<double>(a.nodes_needed) / free_nodes) : 0.0;
    a.score =
        w.latency * a.latency_term + w.headroom * a.headroom_term + w.packing * a.packing_term - w.load * a.load_term;
    if (a.hot_needed && a.nearest_ns > bound && a.hot_free_in_bound == 0 && a.hot_unusable_in_bound == 0)
        a.ruled_out = RuleOut::NoBladeInBound;
    else if (a.hot_free_in_bound < a.hot_needed)
        a.ruled_out = RuleOut::HotCapacity;
    else if (free_nodes < a.nodes_needed)
        a.ruled_out = RuleOut::FreeNodes;
    return a;
}

bool better(const PodAssessment &x, const PodAssessment &y) {
    bool ex = x.ruled_out == RuleOut::None, ey = y.ruled_out == RuleOut::None;
    if (ex != ey) return ex;
    if (x.score != y.score) return x.score > y.score;
    return x.pod < y.pod;
}

// Hot memory for one pod share: candidates inside the bound, cheapest first (latency relative
// to the bound, or with HotBladeOrder=slack the slack left under it, plus load), striped until
// the need is met.
double hot_blade_cost(const ClusterModel &m, uint32_t blade, uint32_t lat, uint64_t bound) {
    // In [0,1] inside the bound; a zero bound (refused in config, possible in a request built by
    // hand) must not make a NaN cost.
    const double near = bound ? static_cast<double>(lat) / static_cast<double>(bound) : 0.0;
    const double order = m.settings().hot_blade_order == HotBladeOrder::Slack ? 1.0 - near : near;
    return order + m.settings().weights.load * m.inventory().blades[blade].load;
}

// The blades of `shortlist` in the order of a walk, `rank` giving a blade's position in it.
template <typename Rank>
std::vector<uint32_t> in_order_of(const std::vector<uint32_t> &shortlist, Rank &&rank) {
    std::vector<uint32_t> v(shortlist);
    std::sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) { return rank(a) < rank(b); });
    return v;
}

// DRAM free for hot use within `bound` of `pod` beside what `o` took, counted until `enough`:
// the same walk and figures as take_hot(), so "free >= need" is exactly "take_hot() succeeds".
uint64_t hot_available_within(const ClusterModel &m, const Ledger &l, const Overlay &o, uint32_t pod, uint64_t bound,
                              uint64_t enough) {
    const LatencyTable &t = m.latency();
    uint64_t total = 0;
    for (uint32_t b : t.blades_by_latency(pod)) {
        if (t.latency(pod, b) > bound || total >= enough) break;
        total = saturating_add(total, available(m, l, o, b, Tier::Dram));
    }
    return total;
}

bool take_hot(const ClusterModel &m, const Ledger &l, Overlay &o, const PodShare &share, uint64_t need, uint64_t bound,
              std::vector<Segment> &out, const std::vector<uint32_t> *shortlist = nullptr) {
    if (need == 0) return true;
    const LatencyTable &t = m.latency();
    struct Candidate {
        uint32_t blade;
        uint32_t latency;
        double cost;
        uint32_t seq;  // position in nearest-first order: equal costs keep that order
    };
    std::vector<Candidate> cands;
    uint64_t total = 0;
    auto consider = [&](uint32_t b) {
        uint32_t lat = t.latency(share.pod, b);
        if (lat > bound) return false;
        uint64_t f = available(m, l, o, b, Tier::Dram);
        if (f == 0) return true;
        cands.push_back({b, lat, hot_blade_cost(m, b, lat, bound), static_cast<uint32_t>(cands.size())});
        total = saturating_add(total, f);
        return true;
    };
    if (shortlist) {  // nearest first, as blades_by_latency() lists them: by latency, then index
        auto key = [&](uint32_t b) { return uint64_t{t.latency(share.pod, b)} << 32 | b; };
        for (uint32_t b : in_order_of(*shortlist, key))
            if (!consider(b)) break;
    } else {
        for (uint32_t b : t.blades_by_latency(share.pod))
            if (!consider(b)) break;
    }
    if (total < need) return false;
    // Cheapest first, as a stable sort by cost would give; but a heap, because a large fabric
    // has thousands of blades inside a loose bound and the need is usually met by the first few.
    auto dearer = [](const Candidate &a, const Candidate &b) {
        return a.cost != b.cost ? a.cost > b.cost : a.seq > b.seq;
    };
    std::make_heap(cands.begin(), cands.end(), dearer);
    uint64_t left = need;
    for (auto end = cands.end(); end != cands.begin(); --end) {
        std::pop_heap(cands.begin(), end, dearer);
        const Candidate &c = *(end - 1);
        uint64_t take = std::min(left, available(m, l, o, c.blade, Tier::Dram));
        if (take == 0) continue;
        o.take(c.blade, Tier::Dram, take);
        out.push_back({c.blade, Tier::Dram, Use::Hot, take, c.latency, share.pod});
        left -= take;
        if (left == 0) break;
    }
    return left == 0;
}

bool take_cold(const ClusterModel &m, const Ledger &l, Overlay &o, uint32_t pod, uint64_t need,
               std::vector<Segment> &out, const std::vector<uint32_t> *shortlist) {
    uint64_t left = need;
    std::vector<uint32_t> listed;
    if (shortlist) listed = in_order_of(*shortlist, [&](uint32_t b) { return m.cold_rank(b); });
    for (Tier tier : {Tier::Pmem, Tier::Dram}) {
        for (uint32_t b : shortlist ? listed : m.cold_order()) {
            if (left == 0) return true;
            uint32_t lat = m.latency().latency(pod, b);
            if (lat == kUnreachable) continue;
            uint64_t take = std::min(left, available(m, l, o, b, tier));
            if (take == 0) continue;
            o.take(b, tier, take);
            out.push_back({b, tier, Use::Cold, take, lat, pod});
            left -= take;
        }
    }
    return left == 0;
}

bool assign_with(const ClusterModel &m, const Ledger &l, const Request &req, const std::vector<PodShare> &pods,
                 Overlay &o, Placement &out, std::string *why, const std::vector<uint32_t> *shortlist = nullptr) {
    const uint64_t bound = effective_bound(m, req);
    out.pods = pods;
    out.hot_latency_bound_ns = req.hot_per_node ? bound : 0;
    out.segments.clear();
    uint64_t cold_need = 0;
    for (const PodShare &s : pods) {
        uint64_t need = bytes_for_nodes(req.hot_per_node, s.nodes);
        if (!take_hot(m, l, o, s, need, bound, out.segments, shortlist)) {
            if (why)
                *why = "pod " + m.fabric().pods[s.pod].name + ": not " + format_size(need) +
                       " of hot memory free within " + format_latency(bound);
            return false;
        }
        cold_need = saturating_add(cold_need, bytes_for_nodes(req.cold_per_node, s.nodes));
    }
    if (cold_need && !take_cold(m, l, o, pods.front().pod, cold_need, out.segments, shortlist)) {
        if (why) *why = "not " + format_size(cold_need) + " of cold memory free on any reachable blade";
        return false;
    }
    return true;
}

std::string summarize_refusal(const ClusterModel &m, const std::vector<PodAssessment> &pods, uint64_t bound,
                              const std::string &extra) {
    std::map<RuleOut, int> counts;
    const PodAssessment *closest_hot = nullptr, *closest_nodes = nullptr, *nearest = nullptr;
    for (const PodAssessment &a : pods) {
        counts[a.ruled_out]++;
        if (a.ruled_out == RuleOut::HotCapacity &&
            (!closest_hot || a.hot_free_in_bound > closest_hot->hot_free_in_bound))
            closest_hot = &a;
        if (a.ruled_out == RuleOut::FreeNodes && (!closest_nodes || a.free_nodes > closest_nodes->free_nodes))
            closest_nodes = &a;
        if (a.ruled_out == RuleOut::NoBladeInBound && (!nearest || a.nearest_ns < nearest->nearest_ns)) nearest = &a;
    }
    std::string s;
    auto add = [&](const std::string &part) { s += (s.empty() ? "" : "; ") + part; };
    auto pods_word = [](int n) { return std::to_string(n) + (n == 1 ? " pod" : " pods"); };
    auto verb = [](int n, const char *one, const char *many) { return std::string(n == 1 ? one : many); };
    if (counts[RuleOut::NoBladeInBound])
        add(pods_word(counts[RuleOut::NoBladeInBound]) + verb(counts[RuleOut::NoBladeInBound], " has", " have") +
            " no blade within " + format_latency(bound) + " (nearest: " + format_latency(nearest->nearest_ns) +
            " from " + m.fabric().pods[nearest->pod].name + ")");
    if (counts[RuleOut::HotCapacity])
        add(pods_word(counts[RuleOut::HotCapacity]) + verb(counts[RuleOut::HotCapacity], " lacks", " lack") +
            " hot memory within " + format_latency(bound) + " (best: " + m.fabric().pods[closest_hot->pod].name +
            " has " + format_size(closest_hot->hot_free_in_bound) + " of " + format_size(closest_hot->hot_needed) +
            (closest_hot->hot_unusable_in_bound
                 ? ", " + format_size(closest_hot->hot_unusable_in_bound) + " more on failed or draining blades"
                 : std::string()) +
            ")");
    if (counts[RuleOut::FreeNodes])
        add(pods_word(counts[RuleOut::FreeNodes]) + verb(counts[RuleOut::FreeNodes], " lacks", " lack") +
            " free nodes (best: " + m.fabric().pods[closest_nodes->pod].name + " has " +
            std::to_string(closest_nodes->free_nodes) + " of " + std::to_string(closest_nodes->nodes_needed) + ")");
    if (counts[RuleOut::NoGpus])
        add(pods_word(counts[RuleOut::NoGpus]) + verb(counts[RuleOut::NoGpus], " has", " have") + " no GPUs");
    if (!extra.empty()) add(extra);
    return s;
}

// The most nodes of the request each pod may take; with `overflow`, the nodes the caps leave
// over go beyond them, piled on the pods with the most free nodes, rather than fail.
struct ShareCaps {
    std::vector<uint32_t> most;
    bool overflow = false;
};

// No single pod fits: spread over pods, most capable first, each share's hot memory inside
// the bound of its own pod, and no share above its pod's cap (unless the caps overflow).
bool span_pods(const ClusterModel &m, const Ledger &l, const Request &req, const std::vector<PodAssessment> &ranked,
               bool ideal, const ShareCaps *caps, Placement &out, std::string *why) {
    std::vector<const PodAssessment *> order;
    for (const PodAssessment &a : ranked)
        if (a.free_nodes > 0 && a.ruled_out != RuleOut::NoGpus && a.ruled_out != RuleOut::NoBladeInBound)
            order.push_back(&a);
    std::stable_sort(order.begin(), order.end(), [](const PodAssessment *x, const PodAssessment *y) {
        return x->free_nodes != y->free_nodes ? x->free_nodes > y->free_nodes : x->pod < y->pod;
    });
    const bool by_gpus = req.nodes == 0;
    const uint64_t bound = effective_bound(m, req);
    uint64_t left = by_gpus ? req.gpus : req.nodes;
    // Hot memory the shares so far took: pods share blades (a spine pool is inside several
    // pods' bounds), so each pod's own free figure would count such a blade once per pod, and
    // a split built from those figures fails when its memory is assigned.
    Overlay given(ideal);
    // Nodes of each pod's share, as `order` lists the pods; the hot memory of a share is taken
    // in `given` as it grows.
    std::vector<uint64_t> share_nodes(order.size(), 0);
    auto grow = [&](size_t i, uint64_t cap) {
        const PodAssessment *a = order[i];
        uint32_t per = by_gpus ? m.fabric().pods[a->pod].gpus_per_node : 1;
        uint64_t want_nodes = (left + per - 1) / per;
        uint64_t has = share_nodes[i];
        uint64_t nodes = std::min<uint64_t>(a->free_nodes - has, want_nodes);
        nodes = std::min<uint64_t>(nodes, cap > has ? cap - has : 0);
        if (req.hot_per_node) {
            nodes = std::min<uint64_t>(nodes, a->hot_free_in_bound / req.hot_per_node);
            // The most nodes this pod can still serve beside the earlier shares: take_hot()
            // succeeds exactly when the memory free in the bound covers the need.
            const uint64_t free_now =
                hot_available_within(m, l, given, a->pod, bound, bytes_for_nodes(req.hot_per_node, nodes));
            nodes = std::min<uint64_t>(nodes, free_now / req.hot_per_node);
            if (nodes) {
                std::vector<Segment> taken;
                PodShare s{a->pod, static_cast<uint32_t>(nodes)};
                take_hot(m, l, given, s, bytes_for_nodes(req.hot_per_node, s.nodes), bound, taken);
            }
        }
        share_nodes[i] += nodes;
        left -= std::min<uint64_t>(left, nodes * per);
    };
    for (size_t i = 0; i < order.size() && left > 0; ++i) grow(i, caps ? caps->most[order[i]->pod] : UINT64_MAX);
    // What the caps leave over goes to the pods with the most free nodes: the fewest shares
    // that cannot move inside the bound later.
    if (caps && caps->overflow)
        for (size_t i = 0; i < order.size() && left > 0; ++i) grow(i, UINT64_MAX);
    std::vector<PodShare> shares;
    for (size_t i = 0; i < order.size(); ++i)
        if (share_nodes[i]) shares.push_back({order[i]->pod, static_cast<uint32_t>(share_nodes[i])});
    if (left > 0 || shares.size() < 2) {
        if (why) *why = "";
        return false;
    }
    Overlay o(ideal);
    return assign_with(m, l, req, shares, o, out, why);
}

}  // namespace

bool assign_hot(const ClusterModel &m, const Ledger &l, const std::vector<std::pair<uint32_t, uint64_t>> &pod_bytes,
                uint64_t bound, std::vector<Segment> &out, const std::vector<Segment> &taken) {
    Overlay o;
    for (const Segment &s : taken) o.take(s.blade, s.tier, s.bytes);
    out.clear();
    for (const auto &[pod, bytes] : pod_bytes)
        if (!take_hot(m, l, o, PodShare{pod, 0}, bytes, bound, out)) return false;
    return true;
}

namespace {

// The request with its bound opened to `bound`: what a job whose soft bound lapsed may take.
// The bound it declared stays on the placement (Placement::hot_latency_bound_ns), so the memory
// beyond it shows, and a move can bring it back.
Request beyond_bound(const Request &req, uint64_t bound = kMaxLatencyNs) {
    Request far = req;
    far.hot_latency_ns = bound;
    far.bound_lapsed = false;
    return far;
}

// The bounds a lapsed soft bound is opened to, nearest first, so the job takes the nearest
// memory there is rather than any: 1.25x, 1.5x, 2x, 3x the bound, then any reachable blade.
std::vector<uint64_t> widening_bounds(uint64_t bound) {
    std::vector<uint64_t> out;
    for (uint64_t per4 : {5, 6, 8, 12})
        if (bound * per4 / 4 < kMaxLatencyNs) out.push_back(bound * per4 / 4);
    out.push_back(kMaxLatencyNs);
    return out;
}

// Per pod, the most nodes of the request whose hot memory the pod's blades inside the bound
// hold when empty (blades in service): a share no larger can be moved inside the bound once
// that memory frees; a larger one stays beyond it for the whole run.
ShareCaps movable_share_caps(const ClusterModel &m, const Request &req) {
    const uint64_t bound = effective_bound(m, req);
    ShareCaps out;
    std::vector<uint32_t> &caps = out.most;
    caps.resize(m.fabric().pods.size(), 0);
    for (uint32_t pod = 0; pod < caps.size(); ++pod) {
        uint64_t capacity = 0;
        for (uint32_t b : m.latency().blades_by_latency(pod)) {
            if (m.latency().latency(pod, b) > bound) break;
            if (m.inventory().admits(b))
                capacity = saturating_add(capacity, m.inventory().blades[b].capacity[static_cast<size_t>(Tier::Dram)]);
        }
        caps[pod] = static_cast<uint32_t>(std::min<uint64_t>(capacity / req.hot_per_node, UINT32_MAX));
    }
    return out;
}

}  // namespace

bool assign_blades(const ClusterModel &m, const Ledger &l, const Request &req, const std::vector<PodShare> &pods,
                   Placement &out, std::string *why, const std::vector<uint32_t> *shortlist) {
    if (pods.empty()) {
        if (why) *why = "no nodes";
        return false;
    }
    Overlay o;
    if (assign_with(m, l, req, pods, o, out, why, shortlist)) return true;
    if (!req.bound_lapsed || !req.hot_per_node) return false;
    for (uint64_t wider : widening_bounds(effective_bound(m, req))) {
        Overlay far_overlay;
        if (!assign_with(m, l, beyond_bound(req, wider), pods, far_overlay, out, why, shortlist)) continue;
        out.hot_latency_bound_ns = effective_bound(m, req);
        return true;
    }
    return false;
}

namespace {

// A request whose total cannot fit all blades together (or 64 bits) is refused outright,
// naming the flag, rather than ranked as if it might fit one day.
std::string oversized(const ClusterModel &m, const Request &req) {
    if (!req.wants_memory()) return "";
    uint64_t fewest = UINT64_MAX;  // the smallest share any pod would need
    for (uint32_t p = 0; p < m.fabric().pods.size(); ++p)
        if (uint32_t n = nodes_needed(m, req, p)) fewest = std::min<uint64_t>(fewest, n);
    if (fewest == UINT64_MAX) return "";  // no pod has GPUs: assess() says so
    uint64_t hot = 0, cold = 0;
    for (uint32_t b = 0; b < m.inventory().blades.size(); ++b) {
        if (!usable(m, b, true)) continue;  // failed blades may come back; absent ones never hold memory
        const BladeStock &stock = m.inventory().blades[b];
        hot = saturating_add(hot, stock.capacity[static_cast<size_t>(Tier::Dram)]);
        cold = saturating_add(cold, saturating_add(stock.capacity[0], stock.capacity[1]));
    }
    std::string memory = oversized_request(req, fewest, hot, cold);
    return memory.empty() ? checkpoint_problem(m, req) : memory;
}

Decision decide_with(const ClusterModel &m, const Ledger &l, const Request &req, const std::vector<uint8_t> *free_nodes,
                     const std::vector<uint8_t> *allowed, bool ideal, const ShareCaps *caps = nullptr) {
    const Fabric &f = m.fabric();
    const uint64_t bound = effective_bound(m, req);
    Decision d;
    d.pods.reserve(f.pods.size());
    for (uint32_t p = 0; p < f.pods.size(); ++p) {
        const Pod &pod = f.pods[p];
        // A pod the job may not use at all (-w, -x, partition) is no candidate: it is neither
        // ranked nor named in the reason or the explanation.
        if (allowed &&
            std::none_of(allowed->begin() + pod.first_node, allowed->begin() + pod.first_node + pod.node_count,
                         [](uint8_t a) { return a != 0; }))
            continue;
        uint32_t free = 0;
        if (free_nodes) {
            const uint8_t *flags = free_nodes->data() + pod.first_node;
            for (uint32_t i = 0; i < pod.node_count; ++i) free += flags[i] != 0;
        } else {
            free = pod.node_count;
        }
        d.pods.push_back(assess(m, l, req, p, free, bound, ideal));
    }
    std::sort(d.pods.begin(), d.pods.end(), better);
    std::string too_big = oversized(m, req);
    if (!too_big.empty()) {
        d.verdict = Verdict::Impossible;
        d.reason = too_big;
        return d;
    }

    std::string why;
    // Best pod first; the next ones only if cold memory or striping fails on the best.
    for (const PodAssessment &a : d.pods) {
        if (a.ruled_out != RuleOut::None) break;
        if (caps && a.nodes_needed > caps->most[a.pod]) continue;
        Placement p;
        Overlay o(ideal);
        if (assign_with(m, l, req, {{a.pod, a.nodes_needed}}, o, p, &why)) {
            p.score = a.score;
            d.placement = std::move(p);
            d.verdict = Verdict::Placed;
            d.reason = "pod " + f.pods[a.pod].name + " ranks first of " + std::to_string(d.pods.size()) + " (score " +
                       std::to_string(a.score).substr(0, 5) + ")";
            return d;
        }
    }
    Placement spread;
    std::string span_why;
    if (span_pods(m, l, req, d.pods, ideal, caps, spread, &span_why)) {
        d.placement = std::move(spread);
        d.verdict = Verdict::Placed;
        d.reason = "no single pod can take it; spread over " + std::to_string(d.placement.pods.size()) + " pods";
        return d;
    }
    d.verdict = Verdict::Pending;
    d.reason = summarize_refusal(m, d.pods, bound, why.empty() ? span_why : why);
    if (d.reason.empty()) d.reason = "no pod can take it now";
    return d;
}

}  // namespace

namespace {
Decision decide_memory(const ClusterModel &m, const Ledger &l, const Request &req,
                       const std::vector<uint8_t> &free_nodes, const std::vector<uint8_t> *allowed_nodes);
}

Decision decide(const ClusterModel &m, const Ledger &l, const Request &req, const std::vector<uint8_t> &free_nodes,
                const std::vector<uint8_t> *allowed_nodes, const LinkBook *links) {
    Decision d = decide_memory(m, l, req, free_nodes, allowed_nodes);
    if (d.verdict != Verdict::Placed || !req.wants_checkpoint() || !links) return d;
    // The region beside the memory just chosen: pmem the placement takes counts as taken.
    Ledger with = l;
    Reservation mine;
    mine.job_id = req.job_id ? req.job_id : UINT64_MAX;
    mine.pods = d.placement.pods;
    mine.segments = d.placement.segments;
    const Ledger *against = &l;
    if (!mine.segments.empty()) {
        with.release(mine.job_id);
        if (with.reserve(mine, m.inventory())) against = &with;
    }
    CheckpointGrant g;
    std::string why;
    if (!plan_checkpoint(m, *against, *links, req, d.placement.pods, g, &why)) {
        d.verdict = Verdict::Pending;
        d.checkpoint_why = why;
        d.reason = "checkpoint: " + why + " (memory and nodes fit: " + d.reason + ")";
        return d;
    }
    d.placement.segments.insert(d.placement.segments.end(), g.stripes.begin(), g.stripes.end());
    d.placement.checkpoint = g.hold;
    d.placement.checkpoint_note = g.note;
    d.reason += "; checkpoint " + format_size(req.ckpt_bytes) + " every " + format_hot_wait(g.hold.period_s) +
                ", window at +" + format_hot_wait(g.hold.phase_s) + " for " + format_hot_wait(g.hold.length_s);
    return d;
}

namespace {
Decision decide_memory(const ClusterModel &m, const Ledger &l, const Request &req,
                       const std::vector<uint8_t> &free_nodes, const std::vector<uint8_t> *allowed_nodes) {
    const std::vector<uint8_t> *offered = &free_nodes;
    std::vector<uint8_t> usable;
    if (allowed_nodes) {
        usable.resize(free_nodes.size());
        for (size_t i = 0; i < usable.size(); ++i) usable[i] = free_nodes[i] && (*allowed_nodes)[i];
        offered = &usable;
    }
    Decision d = decide_with(m, l, req, offered, allowed_nodes, false);
    if (d.verdict != Verdict::Pending || !req.bound_lapsed || !req.hot_per_node) return d;
    // A soft bound whose wait is over: the nearest memory there is, beyond the bound. First
    // split so that every pod's share could come inside the bound by a move later (move.hpp
    // moves a pod's share whole, and only into that pod's in-bound blades); if no such split
    // fits now, as many shares as the free nodes allow at that size, the rest piled on the
    // fewest pods (a 32-node job spread 8+8+8+8 keeps four movable shares where 16+16 had
    // none: measured on NASA, sensitivity model, 5 seeds, 4.26 -> 4.04 mean BSLD); else any.
    const ShareCaps movable = movable_share_caps(m, req);
    ShareCaps mostly_movable = movable;
    mostly_movable.overflow = true;
    Decision far;
    const ShareCaps *split = nullptr;  // the caps of the split that fit
    const ShareCaps *const tries[] = {&movable, &mostly_movable, nullptr};  // nullptr: any split
    for (const ShareCaps *caps : tries) {
        for (uint64_t wider : widening_bounds(effective_bound(m, req))) {
            far = decide_with(m, l, beyond_bound(req, wider), offered, allowed_nodes, false, caps);
            if (far.verdict == Verdict::Placed) break;
        }
        split = caps;
        if (far.verdict == Verdict::Placed) break;
    }
    if (far.verdict != Verdict::Placed) return d;
    if (split && far.placement.pods.size() > 1) {
        size_t small = 0;
        for (const PodShare &share : far.placement.pods) small += share.nodes <= split->most[share.pod];
        far.reason += small == far.placement.pods.size()
                          ? ", each share small enough to move inside the bound later"
                          : ", " + std::to_string(small) + " of " + std::to_string(far.placement.pods.size()) +
                                " shares small enough to move inside the bound later";
    }
    far.placement.hot_latency_bound_ns = effective_bound(m, req);
    uint32_t farthest = 0;
    for (const Segment &s : far.placement.segments)
        if (s.use == Use::Hot) farthest = std::max(farthest, s.latency_ns);
    far.reason = "soft bound: " + d.reason + "; its wait is over, so hot memory beyond " +
                 format_latency(effective_bound(m, req)) + " (up to " + format_latency(farthest) + "): " + far.reason;
    return far;
}
}  // namespace

Decision feasibility(const ClusterModel &m, const Request &req, const std::vector<uint8_t> *allowed_nodes) {
    Ledger empty(m.fabric().blades.size());
    // Nodes the job is confined to (a required node list) count as free, the others do not.
    Decision d = decide_with(m, empty, req, allowed_nodes, allowed_nodes, true);
    // A soft bound that no blade can ever meet still runs: beyond it, once its wait is over.
    if (d.verdict != Verdict::Placed && req.hot_per_node && hot_wait(m, req) != kHotWaitHard) {
        Decision far = decide_with(m, empty, beyond_bound(req), allowed_nodes, allowed_nodes, true);
        if (far.verdict == Verdict::Placed) {
            far.placement.hot_latency_bound_ns = effective_bound(m, req);
            far.reason = "soft bound never met (" + d.reason + "): runs beyond it once its wait is over";
            return far;
        }
    }
    if (d.verdict != Verdict::Placed) {
        d.verdict = Verdict::Impossible;
        d.reason = "could never be placed, even on an empty cluster: " + d.reason;
    }
    return d;
}

std::vector<uint32_t> choose_nodes(const ClusterModel &m, const std::vector<PodShare> &pods,
                                   const std::vector<uint8_t> &free_nodes) {
    std::vector<uint32_t> out;
    for (const PodShare &s : pods) {
        const Pod &pod = m.fabric().pods[s.pod];
        uint32_t taken = 0;
        for (uint32_t i = pod.first_node; i < pod.first_node + pod.node_count && taken < s.nodes; ++i)
            if (free_nodes[i]) {
                out.push_back(i);
                ++taken;
            }
    }
    return out;
}

}  // namespace morpheus
