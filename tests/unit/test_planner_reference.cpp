// The planner's earliest start against a reference that tries every time at which anything
// could change, with every blade's peak summed from the holds themselves (no timeline, no
// index): many random small clusters, holds, releases and requests, with tunings that send
// the planner down each of its paths (index lists, direct walks, stale blades, rebuilds).
// Also the room index alone against a scan of its entries.
#include <algorithm>
#include <random>
#include <set>

#include "cluster_model.hpp"
#include "free_index.hpp"
#include "placement.hpp"
#include "planner.hpp"
#include "test_support.hpp"

using namespace morpheus;

constexpr uint64_t kGiB = 1ULL << 30;

namespace {

struct RefHold {
    std::vector<Segment> segments;
    int64_t start, end;
};

// The first time a request fits, the plain way: the planner's rule for one time (blades in
// the order placement takes them, each at its peak over the window, up to 4x the hot need;
// every other blade full), tried at the first possible time and at every time a hold starts
// or ends at either end of the window.
class Reference {
public:
    Reference(const ClusterModel &m, const std::map<uint64_t, RefHold> &holds) : m_(m), holds_(holds) {}

    std::optional<Slot> earliest_start(const Request &req, const std::vector<PodShare> &pods, int64_t now,
                                       int64_t duration, int64_t nodes_free_at) const {
        if (pods.empty()) return std::nullopt;
        const int64_t first = std::max(now, nodes_free_at);
        int64_t last_end = first;
        std::set<int64_t> times{first};
        for (const auto &[id, h] : holds_) {
            if (h.end < kForever) last_end = std::max(last_end, h.end);
            for (int64_t s : {h.start, h.end}) {
                if (s >= kForever) continue;
                times.insert(s);
                if (duration > 0) {
                    times.insert(s - duration);
                    times.insert(s - duration + 1);
                }
            }
        }
        Slot slot;
        if (last_end != first && !fits_at(req, pods, last_end, duration, slot)) return std::nullopt;
        for (int64_t t : times)
            if (t >= first && fits_at(req, pods, t, duration, slot)) return slot;
        return std::nullopt;
    }

private:
    uint64_t level(uint32_t b, Tier tier, int64_t x) const {
        uint64_t sum = 0;
        for (const auto &[id, h] : holds_)
            if (h.start <= x && x < h.end)
                for (const Segment &s : h.segments)
                    if (s.blade == b && s.tier == tier) sum += s.bytes;
        return sum;
    }
    uint64_t peak(uint32_t b, Tier tier, int64_t from, int64_t to) const {
        uint64_t most = level(b, tier, from);
        for (const auto &[id, h] : holds_)
            for (int64_t s : {h.start, h.end})
                if (from < s && s < to) most = std::max(most, level(b, tier, s));
        return most;
    }

    bool fits_at(const Request &req, const std::vector<PodShare> &pods, int64_t t, int64_t duration, Slot &slot) const {
        const Inventory &inv = m_.inventory();
        const LatencyTable &lat = m_.latency();
        const int64_t to = duration <= 0 || duration >= kForever - t ? kForever : t + duration;
        const uint64_t bound = effective_bound(m_, req);
        std::map<std::pair<uint32_t, Tier>, uint64_t> view;  // blade tier -> peak
        auto refine = [&](uint32_t b, Tier tier) -> uint64_t {
            auto it = view.find({b, tier});
            if (it == view.end()) it = view.emplace(std::make_pair(b, tier), peak(b, tier, t, to)).first;
            uint64_t cap = inv.blades[b].capacity[static_cast<size_t>(tier)];
            return inv.admits(b) && it->second < cap ? cap - it->second : 0;
        };
        uint64_t hot_total = 0, cold_total = 0;
        for (const PodShare &s : pods) {
            hot_total += s.nodes * req.hot_per_node;
            cold_total += s.nodes * req.cold_per_node;
        }
        bool fits = true;
        for (const PodShare &s : pods) {
            const uint64_t need = s.nodes * req.hot_per_node;
            uint64_t have = 0;
            for (uint32_t b : lat.blades_by_latency(s.pod)) {
                if (have >= 4 * need || lat.latency(s.pod, b) > bound) break;
                have += refine(b, Tier::Dram);
            }
            fits = fits && have >= need;
        }
        if (fits && cold_total) {
            const uint64_t want = cold_total + hot_total;
            uint64_t have = 0;
            for (uint32_t b : m_.cold_order()) {
                if (have >= want) break;
                if (lat.latency(pods.front().pod, b) == kUnreachable) continue;
                have += refine(b, Tier::Pmem) + refine(b, Tier::Dram);
            }
            fits = have >= want;
        }
        if (!fits) return false;
        // The ledger at that time: each blade tier in the view at its peak, the others full.
        Ledger ledger(inv.blades.size());
        Reservation r;
        r.job_id = 1;
        for (uint32_t b = 0; b < inv.blades.size(); ++b)
            for (Tier tier : {Tier::Dram, Tier::Pmem}) {
                uint64_t cap = inv.blades[b].capacity[static_cast<size_t>(tier)];
                auto it = view.find({b, tier});
                r.segments.push_back({b, tier, Use::Hot, it == view.end() ? cap : std::min(it->second, cap), 0, 0});
            }
        assert_true(ledger.reserve(r, inv));
        slot.start = t;
        return assign_blades(m_, ledger, req, pods, slot.placement, nullptr);
    }

    const ClusterModel &m_;
    const std::map<uint64_t, RefHold> &holds_;
};

ClusterModel example() {
    Fabric f = read_fabric(top_srcdir("etc/fabric.json"));
    Inventory inv = read_inventory(top_srcdir("etc/inventory.json"), f);
    return ClusterModel(std::move(f), std::move(inv), PlacementSettings{});
}

// The example's blades with random capacities (small, so they fill) and some out of service.
ClusterModel random_model(const ClusterModel &base, std::mt19937_64 &rng) {
    Inventory inv = base.inventory();
    for (BladeStock &b : inv.blades) {
        b.capacity[0] = (64 + 64 * (rng() % 4)) * kGiB;
        b.capacity[1] = rng() % 4 ? (128 * (rng() % 4)) * kGiB : 0;
        b.state = rng() % 10 ? BladeState::Up : (rng() % 2 ? BladeState::Draining : BladeState::Failed);
    }
    return base.with_inventory(std::move(inv));
}

bool same(const std::optional<Slot> &a, const std::optional<Slot> &b) {
    if (a.has_value() != b.has_value()) return false;
    if (!a) return true;
    if (a->start != b->start || a->placement.segments.size() != b->placement.segments.size()) return false;
    for (size_t i = 0; i < a->placement.segments.size(); ++i) {
        const Segment &x = a->placement.segments[i], &y = b->placement.segments[i];
        if (x.blade != y.blade || x.tier != y.tier || x.bytes != y.bytes || x.pod != y.pod) return false;
    }
    return true;
}

}  // namespace

static void earliest_start_matches_the_reference(void **) {
    const ClusterModel base = example();
    std::mt19937_64 rng(14);
    const uint32_t blades = static_cast<uint32_t>(base.fabric().blades.size());
    const uint32_t pods = static_cast<uint32_t>(base.fabric().pods.size());
    size_t compared = 0, found = 0, later = 0;
    for (int round = 0; round < 150; ++round) {
        const ClusterModel m = random_model(base, rng);
        Planner planner(blades);
        PlannerTuning tuning;
        tuning.first_looks = rng() % 4;
        tuning.most_listed = rng() % 2 ? rng() % 4 : 256;
        tuning.most_stale = rng() % 2 ? rng() % 6 : 256;
        planner.set_tuning(tuning);
        std::map<uint64_t, RefHold> holds;
        uint64_t next_id = 1;
        for (int step = 0; step < 40; ++step) {
            // Change the holds now and then: a new one (running or planned) or a release.
            if (rng() % 3) {
                if (!holds.empty() && rng() % 4 == 0) {
                    auto it = std::next(holds.begin(), static_cast<std::ptrdiff_t>(rng() % holds.size()));
                    assert_true(planner.release(it->first));
                    holds.erase(it);
                } else {
                    RefHold h;
                    for (uint32_t n = 1 + rng() % 3; n > 0; --n) {
                        Segment s;
                        s.blade = static_cast<uint32_t>(rng() % blades);
                        s.tier = rng() % 3 ? Tier::Dram : Tier::Pmem;
                        s.bytes = (32 + 32 * (rng() % 6)) * kGiB;
                        h.segments.push_back(s);
                    }
                    h.start = static_cast<int64_t>(rng() % 200);
                    h.end = rng() % 8 ? h.start + 1 + static_cast<int64_t>(rng() % 300) : kForever;
                    const uint64_t id = next_id++;
                    if (rng() % 2)
                        planner.hold_running(id, h.segments, h.start, h.end);
                    else
                        planner.hold_planned(id, static_cast<uint32_t>(id), h.segments, h.start, h.end);
                    holds[id] = h;
                }
            }
            Request req;
            req.job_id = 1000 + static_cast<uint64_t>(step);
            req.nodes = 1 + rng() % 3;
            static const uint64_t hot_sizes[] = {0, 16, 32, 64, 128, 256};
            static const uint64_t cold_sizes[] = {0, 0, 64, 256};
            static const uint64_t bounds[] = {0, 250, 400, 1000, 100000};
            req.hot_per_node = hot_sizes[rng() % 6] * kGiB;
            req.cold_per_node = cold_sizes[rng() % 4] * kGiB;
            req.hot_latency_ns = bounds[rng() % 5];
            std::vector<PodShare> shares{{static_cast<uint32_t>(rng() % pods), req.nodes}};
            if (rng() % 5 == 0)
                shares.push_back({static_cast<uint32_t>(rng() % pods), 1 + static_cast<uint32_t>(rng() % 2)});
            const int64_t now = static_cast<int64_t>(rng() % 100);
            static const int64_t durations[] = {0, 1, 20, 50, 120, 400};
            const int64_t duration = durations[rng() % 6];
            const int64_t nodes_at = rng() % 2 ? now : now + static_cast<int64_t>(rng() % 200);

            auto got = planner.earliest_start(m, req, shares, now, duration, nodes_at);
            auto want = Reference(m, holds).earliest_start(req, shares, now, duration, nodes_at);
            if (!same(got, want)) {
                print_error("round %d step %d: planner %s at %lld, reference %s at %lld\n", round, step,
                            got ? "fits" : "never", got ? static_cast<long long>(got->start) : -1LL,
                            want ? "fits" : "never", want ? static_cast<long long>(want->start) : -1LL);
                fail();
            }
            ++compared;
            found += want.has_value();
            later += want && want->start > std::max(now, nodes_at);
        }
    }
    print_message("%zu requests compared: %zu fit, %zu of them later than their nodes\n", compared, found, later);
    // The cases must cover both answers and waiting, or the comparison says little.
    assert_true(compared == 150 * 40);
    assert_true(found > compared / 4 && found < compared);
    assert_true(later > compared / 20);
}

static void free_index_matches_a_scan(void **) {
    std::mt19937_64 rng(3);
    for (int round = 0; round < 200; ++round) {
        std::vector<FreeIndex::Entry> entries;
        for (int n = static_cast<int>(rng() % 40); n > 0; --n) {
            int64_t from = rng() % 8 ? static_cast<int64_t>(rng() % 100) : -kForever;
            int64_t to = rng() % 6 ? from + 1 + static_cast<int64_t>(rng() % 80) : kForever;
            if (from == -kForever && to < kForever) to = static_cast<int64_t>(rng() % 100);
            entries.push_back({from, to, static_cast<uint32_t>(rng() % 16)});
        }
        FreeIndex index;
        index.build(entries);
        for (int q = 0; q < 50; ++q) {
            const int64_t t = static_cast<int64_t>(rng() % 120) - 10;
            const int64_t until = rng() % 6 ? t + 1 + static_cast<int64_t>(rng() % 60) : kForever;
            std::multiset<uint32_t> got, want;
            index.each_covering(t, until, [&](uint32_t b) {
                got.insert(b);
                return true;
            });
            for (const auto &e : entries)
                if (e.from <= t && e.to >= until) want.insert(e.blade);
            assert_true(got == want);
            const int64_t length = FreeIndex::length(t, until);
            const uint32_t odd = rng() % 2;  // keep blades of one parity only
            int64_t first = index.first_start_after(
                t, length, [&](uint32_t b) { return b % 2 == odd; }, 1000);
            int64_t expect = kForever;
            for (const auto &e : entries)
                if (e.from > t && FreeIndex::length(e.from, e.to) >= length && e.blade % 2 == odd)
                    expect = std::min(expect, e.from);
            assert_int_equal(first, expect);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(free_index_matches_a_scan),
        cmocka_unit_test(earliest_start_matches_the_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
