// The planner on the example cluster: a request waits for running jobs to end, planned jobs
// keep their memory from later lower-priority ones, a job that ends before a planned start may
// use that memory, releases move starts earlier, and bytes are conserved through it all.
#include <random>

#include "cluster_model.hpp"
#include "memory_timeline.hpp"
#include "plan_book.hpp"
#include "planner.hpp"
#include "test_support.hpp"

using namespace morpheus;

constexpr uint64_t kGiB = 1ULL << 30;

static ClusterModel example() {
    Fabric f = read_fabric(top_srcdir("etc/fabric.json"));
    Inventory inv = read_inventory(top_srcdir("etc/inventory.json"), f);
    return ClusterModel(std::move(f), std::move(inv), PlacementSettings{});
}

static uint32_t pod1(const ClusterModel &m) { return static_cast<uint32_t>(m.fabric().pod_index("pod1")); }

static Request hot(uint32_t nodes, uint64_t per_node, uint64_t bound) {
    Request r;
    r.job_id = 99;
    r.nodes = nodes;
    r.hot_per_node = per_node;
    r.hot_latency_ns = bound;
    return r;
}

// Segments filling every DRAM blade within `bound` of pod1: memory a tight job needs.
static std::vector<Segment> fill_in_bound(const ClusterModel &m, uint64_t bound) {
    std::vector<Segment> segs;
    uint32_t p = pod1(m);
    for (uint32_t b : m.latency().blades_by_latency(p)) {
        uint32_t lat = m.latency().latency(p, b);
        if (lat > bound) break;
        segs.push_back({b, Tier::Dram, Use::Hot, m.inventory().blades[b].capacity[0], lat, p});
    }
    assert_true(!segs.empty());
    return segs;
}

static void timeline_steps(void **) {
    MemoryTimeline t;
    t.add(10, 20, 5);
    t.add(15, 30, 3);
    assert_int_equal(t.at(9), 0);
    assert_int_equal(t.at(10), 5);
    assert_int_equal(t.at(15), 8);
    assert_int_equal(t.at(20), 3);
    assert_int_equal(t.at(30), 0);
    assert_int_equal(t.peak(0, 10), 0);
    assert_int_equal(t.peak(0, 11), 5);
    assert_int_equal(t.peak(20, 40), 3);
    assert_int_equal(t.peak(16, 17), 8);
    std::vector<int64_t> drops;
    t.drops_after(0, drops);
    assert_int_equal(drops.size(), 2);
    assert_int_equal(drops[0], 20);
    assert_int_equal(drops[1], 30);
    t.add(0, kForever, 7);
    drops.clear();
    t.drops_after(0, drops);  // the unlimited hold never drops
    assert_int_equal(drops.size(), 2);
    t.remove(10, 20, 5);
    t.remove(15, 30, 3);
    t.remove(0, kForever, 7);
    assert_true(t.empty());
}

// Random holds against a per-second array: at(), peak() and when a window's peak can first
// fall (the end of the last stretch at the peak inside it; any window starting earlier still
// holds the peak, and the level there is below it).
static void timeline_matches_a_naive_reference(void **) {
    constexpr int64_t kSpan = 400;  // finite holds and queries stay well inside
    std::mt19937_64 rng(7);
    for (int round = 0; round < 20; ++round) {
        MemoryTimeline line;
        std::vector<uint64_t> level(kSpan, 0);
        struct H {
            int64_t from, to;
            uint64_t bytes;
        };
        std::vector<H> holds;
        auto apply = [&](const H &h, bool add) {
            for (int64_t t = h.from; t < std::min(h.to, kSpan); ++t)
                level[t] = add ? level[t] + h.bytes : level[t] - h.bytes;
        };
        for (int op = 0; op < 60; ++op) {
            if (!holds.empty() && rng() % 3 == 0) {
                size_t i = rng() % holds.size();
                line.remove(holds[i].from, holds[i].to, holds[i].bytes);
                apply(holds[i], false);
                holds.erase(holds.begin() + static_cast<std::ptrdiff_t>(i));
            } else {
                H h;
                h.from = static_cast<int64_t>(rng() % 150);
                h.to = rng() % 8 ? h.from + 1 + static_cast<int64_t>(rng() % 60) : kForever;
                h.bytes = 1 + rng() % 4;  // small, so equal levels recur
                line.add(h.from, h.to, h.bytes);
                apply(h, true);
                holds.push_back(h);
            }
            auto naive_peak = [&](int64_t from, int64_t to) {
                uint64_t most = 0;
                for (int64_t t = from; t < std::min(to, kSpan); ++t) most = std::max(most, level[t]);
                return most;
            };
            for (int q = 0; q < 20; ++q) {
                int64_t from = static_cast<int64_t>(rng() % 160);
                int64_t len = 1 + static_cast<int64_t>(rng() % 80);
                int64_t to = rng() % 5 ? from + len : kForever;
                assert_int_equal(line.at(from), level[from]);
                uint64_t most = naive_peak(from, to);
                assert_int_equal(line.peak(from, to), most);
                int64_t falls = 0;
                assert_int_equal(line.peak(from, to, falls), most);
                // The reference: after the last second at the peak in the window, the first
                // second below it.
                int64_t last = -1;
                for (int64_t t = from; t < std::min(to, kSpan); ++t)
                    if (level[t] == most) last = t;
                int64_t want = kForever;
                if (most > 0)
                    for (int64_t t = last + 1; t < kSpan; ++t)
                        if (level[t] < most) {
                            want = t;
                            break;
                        }
                assert_int_equal(falls, want);
                assert_true(falls > from);
                for (int64_t t = from + 1; t < std::min(falls, kSpan - 100); ++t)
                    assert_true(naive_peak(t, to == kForever ? kForever : t + (to - from)) >= most);
            }
        }
    }
}

static void waits_for_running_jobs_to_end(void **) {
    ClusterModel m = example();
    Planner pl(m.fabric().blades.size());
    pl.hold_running(1, fill_in_bound(m, 250), 0, 1000);
    Request r = hot(1, 128 * kGiB, 250);
    std::string why;
    auto s = pl.earliest_start(m, r, {{pod1(m), 1}}, 100, 600, 0, &why);
    assert_true(s.has_value());
    assert_int_equal(s->start, 1000);
    for (const Segment &g : s->placement.segments) assert_true(g.latency_ns <= 250);
    // Nodes free later than memory: the later of the two.
    s = pl.earliest_start(m, r, {{pod1(m), 1}}, 100, 600, 1500);
    assert_int_equal(s->start, 1500);
    // An unlimited running job never gives its memory back.
    pl.hold_running(1, fill_in_bound(m, 250), 0, kForever);
    s = pl.earliest_start(m, r, {{pod1(m), 1}}, 100, 600, 0, &why);
    assert_false(s.has_value());
    assert_non_null(std::strstr(why.c_str(), "never fits"));
    assert_non_null(std::strstr(why.c_str(), "pod1"));
}

static void planned_job_blocks_later_lower_priority_ones(void **) {
    ClusterModel m = example();
    Planner pl(m.fabric().blades.size());
    pl.hold_planned(7, 0, fill_in_bound(m, 250), 1000, 5000);
    Request r = hot(1, 128 * kGiB, 250);
    // Would still run at 1000: it must wait until the planned job ends.
    auto s = pl.earliest_start(m, r, {{pod1(m), 1}}, 0, 2000, 0);
    assert_true(s.has_value());
    assert_int_equal(s->start, 5000);
    // Its own memory is what the plan needs: starting it now would delay job 7.
    Ledger now(m.fabric().blades.size());
    Placement p;
    assert_true(assign_blades(m, now, r, {{pod1(m), 1}}, p, nullptr));
    const Hold *h = pl.delayed_by(m.inventory(), p.segments, 0, 2000);
    assert_non_null(h);
    assert_int_equal(h->job_id, 7);
    // A loose bound takes memory the planned job does not need: it starts now.
    s = pl.earliest_start(m, hot(1, 128 * kGiB, 2000), {{pod1(m), 1}}, 0, 2000, 0);
    assert_int_equal(s->start, 0);
    assert_null(pl.delayed_by(m.inventory(), s->placement.segments, 0, 2000));
}

static void job_ending_before_the_planned_start_fits_in_the_gap(void **) {
    ClusterModel m = example();
    Planner pl(m.fabric().blades.size());
    pl.hold_planned(7, 0, fill_in_bound(m, 250), 1000, 5000);
    Request r = hot(1, 128 * kGiB, 250);
    auto s = pl.earliest_start(m, r, {{pod1(m), 1}}, 0, 1000, 0);  // [0, 1000) ends as 7 starts
    assert_true(s.has_value());
    assert_int_equal(s->start, 0);
    assert_null(pl.delayed_by(m.inventory(), s->placement.segments, 0, 1000));
    assert_non_null(pl.delayed_by(m.inventory(), s->placement.segments, 0, 1001));
}

static PendingPlan plan(uint64_t id, uint32_t priority, int64_t submit, std::vector<Segment> segs = {},
                        int64_t start = 1000, int64_t end = 5000) {
    PendingPlan p;
    p.job_id = id;
    p.priority = priority;
    p.submit = submit;
    p.segments = std::move(segs);
    p.start = start;
    p.end = end;
    p.made_at = 0;
    return p;
}

// PlanDepth: only the highest priorities are kept (ties: earlier submit); replans replace.
static void plan_book_keeps_the_highest_priorities(void **) {
    PlanBook book;
    assert_true(book.keep(plan(1, 10, 100), 2));
    assert_true(book.keep(plan(2, 30, 100), 2));
    assert_false(book.keep(plan(3, 5, 50), 2));  // lower than both: not kept
    assert_true(book.keep(plan(4, 10, 50), 2));  // ties with 1, submitted earlier: 1 goes
    std::vector<uint64_t> ids = book.jobs();
    assert_int_equal(ids.size(), 2);
    assert_int_equal(ids[0], 2);
    assert_int_equal(ids[1], 4);
    assert_true(book.keep(plan(4, 40, 50), 2));  // replanned with a new priority: one entry
    assert_int_equal(book.size(), 2);
    assert_int_equal(book.jobs()[0], 4);
    assert_false(book.keep(plan(5, 99, 0), 0));  // PlanDepth=0: nothing kept
    assert_true(book.drop(2));
    assert_false(book.drop(2));
    book.expire(PlanBook::kPlanLifetime);
    assert_int_equal(book.size(), 1);
    book.expire(PlanBook::kPlanLifetime + 1);
    assert_int_equal(book.size(), 0);
}

// Only plans that outrank the job asking protect memory from it, never its own plan; running
// jobs hold their memory until their ends.
static void plan_book_protects_from_lower_priorities_only(void **) {
    ClusterModel m = example();
    Ledger ledger(m.fabric().blades.size());
    PlanBook book;
    book.keep(plan(7, 100, 10, fill_in_bound(m, 250)), 8);
    Request r = hot(1, 128 * kGiB, 250);
    Placement p;
    assert_true(assign_blades(m, ledger, r, {{pod1(m), 1}}, p, nullptr));
    const std::map<uint64_t, int64_t> ends;
    const PendingPlan *v = book.delayed_by(m.inventory(), ledger, ends, 99, 50, 20, p.segments, 0, 2000);
    assert_non_null(v);
    assert_int_equal(v->job_id, 7);
    assert_int_equal(v->start, 1000);
    // Ends before the planned start: allowed.
    assert_null(book.delayed_by(m.inventory(), ledger, ends, 99, 50, 20, p.segments, 0, 1000));
    // Higher priority, or same priority submitted earlier: not held back by job 7's plan.
    assert_null(book.delayed_by(m.inventory(), ledger, ends, 99, 200, 20, p.segments, 0, 2000));
    assert_null(book.delayed_by(m.inventory(), ledger, ends, 99, 100, 5, p.segments, 0, 2000));
    // The planned job itself.
    assert_null(book.delayed_by(m.inventory(), ledger, ends, 7, 100, 10, p.segments, 0, 2000));
    // Memory job 7 does not need (a loose bound, beyond its blades): allowed.
    Placement loose;
    Ledger full = ledger;
    Reservation hold;
    hold.job_id = 1;
    hold.segments = fill_in_bound(m, 250);
    assert_true(full.reserve(hold, m.inventory(), nullptr));
    assert_true(assign_blades(m, full, hot(1, 128 * kGiB, 2000), {{pod1(m), 1}}, loose, nullptr));
    assert_null(book.delayed_by(m.inventory(), ledger, ends, 99, 50, 20, loose.segments, 0, 2000));
}

static void releases_move_starts_earlier(void **) {
    ClusterModel m = example();
    Planner pl(m.fabric().blades.size());
    pl.hold_running(1, fill_in_bound(m, 250), 0, 3000);
    pl.hold_planned(2, 0, fill_in_bound(m, 250), 3000, 6000);
    Request r = hot(1, 128 * kGiB, 250);
    std::vector<PodShare> pods{{pod1(m), 1}};
    assert_int_equal(pl.earliest_start(m, r, pods, 0, 500, 0)->start, 6000);
    pl.clear_planned();
    assert_int_equal(pl.planned_count(), 0);
    assert_int_equal(pl.earliest_start(m, r, pods, 0, 500, 0)->start, 3000);
    // The running job ends early (or its limit shrinks): the start follows.
    pl.hold_running(1, fill_in_bound(m, 250), 0, 1200);
    assert_int_equal(pl.earliest_start(m, r, pods, 0, 500, 0)->start, 1200);
    assert_true(pl.release(1));
    assert_false(pl.release(1));
    assert_int_equal(pl.earliest_start(m, r, pods, 0, 500, 0)->start, 0);
}

static void cold_memory_waits_too(void **) {
    ClusterModel m = example();
    Planner pl(m.fabric().blades.size());
    std::vector<Segment> all;
    for (uint32_t b = 0; b < m.fabric().blades.size(); ++b)
        for (Tier t : {Tier::Dram, Tier::Pmem})
            if (m.inventory().blades[b].capacity[static_cast<size_t>(t)])
                all.push_back({b, t, Use::Cold, m.inventory().blades[b].capacity[static_cast<size_t>(t)], 0, 0});
    pl.hold_running(1, all, 0, 800);
    Request r;
    r.nodes = 1;
    r.cold_per_node = 256 * kGiB;
    auto s = pl.earliest_start(m, r, {{pod1(m), 1}}, 0, 100, 0);
    assert_true(s.has_value());
    assert_int_equal(s->start, 800);
}

// assign_blades() told that only a shortlist of blades can have room (as the planner tells it
// for a future window) chooses exactly what it chooses walking every blade.
static void shortlist_changes_nothing(void **) {
    ClusterModel m = example();
    const uint32_t blades = static_cast<uint32_t>(m.fabric().blades.size());
    const uint32_t pods = static_cast<uint32_t>(m.fabric().pods.size());
    std::mt19937_64 rng(7);
    size_t placed = 0, differently_ordered = 0;
    for (int round = 0; round < 400; ++round) {
        // Some blades full in both tiers, the others partly used; the shortlist names the
        // ones with room (in a shuffled order) and a few full ones.
        Ledger ledger(blades);
        Reservation used;
        used.job_id = 1;
        std::vector<uint32_t> shortlist;
        for (uint32_t b = 0; b < blades; ++b) {
            const bool full = rng() % 3 == 0;
            for (Tier tier : {Tier::Dram, Tier::Pmem}) {
                uint64_t cap = m.inventory().blades[b].capacity[static_cast<size_t>(tier)];
                uint64_t bytes = full ? cap : cap / 4 * (rng() % 4);
                if (bytes) used.segments.push_back({b, tier, Use::Cold, bytes, 0, 0});
            }
            if (!full || rng() % 4 == 0) shortlist.push_back(b);
        }
        assert_true(ledger.reserve(used, m.inventory()));
        std::shuffle(shortlist.begin(), shortlist.end(), rng);
        Request r = hot(1 + static_cast<uint32_t>(rng() % 2), (16 + rng() % 4 * 112) * kGiB,
                        std::vector<uint64_t>{0, 250, 400, 1000}[rng() % 4]);
        r.cold_per_node = rng() % 2 ? (64 + rng() % 3 * 512) * kGiB : 0;
        std::vector<PodShare> shares{{static_cast<uint32_t>(rng() % pods), r.nodes}};
        if (rng() % 3 == 0) shares.push_back({(shares[0].pod + 1) % pods, 1});
        Placement walked, listed;
        std::string why_walked, why_listed;
        const bool a = assign_blades(m, ledger, r, shares, walked, &why_walked);
        const bool b = assign_blades(m, ledger, r, shares, listed, &why_listed, &shortlist);
        assert_int_equal(a, b);
        assert_string_equal(why_walked.c_str(), why_listed.c_str());
        if (!a) continue;
        ++placed;
        assert_int_equal(walked.segments.size(), listed.segments.size());
        for (size_t i = 0; i < walked.segments.size(); ++i) {
            assert_int_equal(walked.segments[i].blade, listed.segments[i].blade);
            assert_int_equal(static_cast<int>(walked.segments[i].tier), static_cast<int>(listed.segments[i].tier));
            assert_int_equal(walked.segments[i].bytes, listed.segments[i].bytes);
        }
        differently_ordered += walked.segments.size() > 1;
    }
    // The rounds must have placed memory, on several blades at times, or nothing was compared.
    assert_true(placed > 100);
    assert_true(differently_ordered > 20);
}

static void bytes_are_conserved(void **) {
    ClusterModel m = example();
    const size_t blades = m.fabric().blades.size();
    Planner pl(blades);
    std::mt19937_64 rng(3);
    struct Held {
        uint64_t id;
        Segment seg;
        int64_t start, end;
    };
    std::vector<Held> held;
    for (uint64_t id = 1; id <= 300; ++id) {
        Segment s{static_cast<uint32_t>(rng() % blades),
                  rng() % 2 ? Tier::Dram : Tier::Pmem,
                  Use::Hot,
                  (1 + rng() % 64) * kGiB,
                  0,
                  0};
        int64_t start = static_cast<int64_t>(rng() % 1000),
                end = rng() % 10 ? start + 1 + static_cast<int64_t>(rng() % 1000) : kForever;
        if (id % 3)
            pl.hold_running(id, {s}, start, end);
        else
            pl.hold_planned(id, static_cast<uint32_t>(id), {s}, start, end);
        held.push_back({id, s, start, end});
    }
    auto check = [&] {
        for (int64_t t : {0, 250, 999, 1500, 5000}) {
            std::vector<std::array<uint64_t, kTierCount>> sum(blades);
            for (const Held &h : held)
                if (h.start <= t && t < h.end) sum[h.seg.blade][static_cast<size_t>(h.seg.tier)] += h.seg.bytes;
            for (uint32_t b = 0; b < blades; ++b)
                for (Tier tr : {Tier::Dram, Tier::Pmem})
                    assert_int_equal(pl.reserved_at(b, tr, t), sum[b][static_cast<size_t>(tr)]);
        }
    };
    check();
    pl.clear_planned();
    held.erase(std::remove_if(held.begin(), held.end(), [](const Held &h) { return h.id % 3 == 0; }), held.end());
    check();
    std::shuffle(held.begin(), held.end(), rng);
    while (!held.empty()) {
        assert_true(pl.release(held.back().id));
        held.pop_back();
        if (held.size() % 50 == 0) check();
    }
    assert_int_equal(pl.running_count(), 0);
    for (uint32_t b = 0; b < blades; ++b)
        for (Tier tr : {Tier::Dram, Tier::Pmem}) assert_int_equal(pl.reserved_at(b, tr, 500), 0);
}

// A job no single pod can hold (6 nodes, pods of 4) is planned spread, not left without a
// start: it starts once enough pods have its nodes free, its shares cover them all.
static void spread_job_gets_a_start(void **) {
    ClusterModel m = example();
    Planner pl(m.fabric().blades.size());
    const uint32_t p1 = pod1(m), p2 = static_cast<uint32_t>(m.fabric().pod_index("pod2"));
    Request r = hot(6, 64 * kGiB, 300);
    auto nodes_free_at = [&](uint32_t pod, uint32_t need) -> int64_t {
        if (pod == p1) return 0;
        if (pod == p2 && need <= 2) return 500;
        return kForever;
    };
    auto s = earliest_pod_start(pl, m, r, nodes_free_at, 0, 100);
    assert_true(s.has_value());
    assert_int_equal(s->slot.start, 500);
    uint32_t total = 0;
    for (const PodShare &share : s->shares) {
        assert_true(share.pod == p1 || share.pod == p2);
        total += share.nodes;
    }
    assert_int_equal(s->shares.size(), 2);
    assert_int_equal(total, 6);
    // pod2's nodes never come free: no two pods can give 6 nodes, so no start at all.
    auto only_pod1 = [&](uint32_t pod, uint32_t) -> int64_t { return pod == p1 ? 0 : kForever; };
    std::string why;
    assert_false(earliest_pod_start(pl, m, r, only_pod1, 0, 100, &why).has_value());
}

// A soft bound whose wait is over takes memory beyond it (decide()), so the planner plans its
// start with the bound open too: nodes and far memory free now give a start now, not when the
// running job holding the near memory ends (backfill would otherwise run jobs past its start).
static void lapsed_soft_bound_is_planned_beyond_it(void **) {
    ClusterModel m = example();
    Planner pl(m.fabric().blades.size());
    pl.hold_running(1, fill_in_bound(m, 250), 0, 1000);
    Request r = hot(1, 128 * kGiB, 250);
    const uint32_t p1 = pod1(m);
    auto nodes_free_at = [&](uint32_t pod, uint32_t) -> int64_t { return pod == p1 ? 0 : kForever; };
    auto inside = earliest_pod_start(pl, m, r, nodes_free_at, 0, 100);
    assert_true(inside.has_value());
    assert_int_equal(inside->slot.start, 1000);
    r.bound_lapsed = true;
    auto open = earliest_pod_start(pl, m, r, nodes_free_at, 0, 100);
    assert_true(open.has_value());
    assert_int_equal(open->slot.start, 0);
    bool beyond = false;
    for (const Segment &g : open->slot.placement.segments) beyond = beyond || g.latency_ns > 250;
    assert_true(beyond);
    // When the far memory is held as long as the near, the start inside the bound is as early.
    std::vector<Segment> rest;
    for (uint32_t b : m.latency().blades_by_latency(p1))
        if (m.latency().latency(p1, b) > 250)
            rest.push_back(
                {b, Tier::Dram, Use::Hot, m.inventory().blades[b].capacity[0], m.latency().latency(p1, b), p1});
    pl.hold_running(2, rest, 0, 1000);
    open = earliest_pod_start(pl, m, r, nodes_free_at, 0, 100);
    assert_true(open.has_value());
    assert_int_equal(open->slot.start, 1000);
    for (const Segment &g : open->slot.placement.segments) assert_true(g.latency_ns <= 250);
}

// A job of every node of a 128-node fat-tree (tests/data/planner, contrib/gen-fabric.py's
// NASA-sized fabric), whose nodes come free one at a time: the spread search skips the times
// before enough nodes are free in all, so the 64 times it tries reach the start (the first 64
// times, each one node's end, left it with none, and backfill ran jobs past its start).
static void whole_cluster_job_gets_a_start(void **) {
    Fabric f = read_fabric(test_data("planner/fat-tree-128-fabric.json"));
    Inventory inv = read_inventory(test_data("planner/fat-tree-128-inventory.json"), f);
    ClusterModel m(std::move(f), std::move(inv), PlacementSettings{});
    Planner pl(m.fabric().blades.size());
    const uint32_t nodes = static_cast<uint32_t>(m.fabric().node_names.size());
    assert_int_equal(nodes, 128);
    Request r = hot(nodes, 8 * kGiB, 500);
    // Node k of pod p frees at 10 * (16p + k + 1): 128 distinct times, the last at 1280.
    auto nodes_free_at = [&](uint32_t pod, uint32_t need) -> int64_t {
        return 10 * static_cast<int64_t>(pod * m.fabric().pods[pod].node_count + need);
    };
    auto s = earliest_pod_start(pl, m, r, nodes_free_at, 0, 100);
    assert_true(s.has_value());
    assert_int_equal(s->slot.start, 1280);
    uint32_t total = 0;
    for (const PodShare &share : s->shares) total += share.nodes;
    assert_int_equal(total, nodes);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(timeline_steps),
        cmocka_unit_test(timeline_matches_a_naive_reference),
        cmocka_unit_test(waits_for_running_jobs_to_end),
        cmocka_unit_test(planned_job_blocks_later_lower_priority_ones),
        cmocka_unit_test(job_ending_before_the_planned_start_fits_in_the_gap),
        cmocka_unit_test(plan_book_keeps_the_highest_priorities),
        cmocka_unit_test(plan_book_protects_from_lower_priorities_only),
        cmocka_unit_test(releases_move_starts_earlier),
        cmocka_unit_test(cold_memory_waits_too),
        cmocka_unit_test(spread_job_gets_a_start),
        cmocka_unit_test(lapsed_soft_bound_is_planned_beyond_it),
        cmocka_unit_test(whole_cluster_job_gets_a_start),
        cmocka_unit_test(shortlist_changes_nothing),
        cmocka_unit_test(bytes_are_conserved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
