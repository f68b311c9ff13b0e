// Soft bounds and moves (issue 27): the wait a job declares, when it lapses, what decide() and
// assign_blades() take once it has, and the ledger's two steps of a move.
#include <cstdlib>
#include <cstring>

#include "config.hpp"
#include "example_cluster.hpp"
#include "input_error.hpp"
#include "lifecycle.hpp"
#include "move.hpp"
#include "soft_bound.hpp"

using namespace morpheus;

static void waits_parse_as_slurm_times(void **) {
    assert_int_equal(parse_hot_wait("10", "--mem-hot-wait"), 600);  // minutes, as --time
    assert_int_equal(parse_hot_wait("30:00", "--mem-hot-wait"), 1800);
    assert_int_equal(parse_hot_wait("1:00:05", "--mem-hot-wait"), 3605);
    assert_int_equal(parse_hot_wait("1-00", "--mem-hot-wait"), 86400);
    assert_int_equal(parse_hot_wait("2-01:30", "--mem-hot-wait"), 2 * 86400 + 3600 + 1800);
    assert_int_equal(parse_hot_wait("90s", "--mem-hot-wait"), 90);
    assert_int_equal(parse_hot_wait("15m", "--mem-hot-wait"), 900);
    assert_int_equal(parse_hot_wait("hard", "--mem-hot-wait"), kHotWaitHard);
    assert_int_equal(parse_hot_wait("UNLIMITED", "--mem-hot-wait"), kHotWaitHard);
    assert_int_equal(parse_hot_wait("0", "--mem-hot-wait"), kHotWaitNone);
    for (const char *bad : {"", "x", "10x", "1:2:3:4", "-5", "1-", ":30", "400d"}) {
        try {
            parse_hot_wait(bad, "--mem-hot-wait");
            fail_msg("\"%s\" was accepted", bad);
        } catch (const InputError &e) {
            assert_non_null(std::strstr(e.what(), "--mem-hot-wait"));
        }
    }
    assert_string_equal(format_hot_wait(5400).c_str(), "1h30m");
    assert_string_equal(format_hot_wait(kHotWaitHard).c_str(), "hard");
}

static void a_soft_bound_lapses_after_its_wait_or_when_waiting_buys_nothing(void **) {
    ClusterModel m = example();  // DefaultHotWait: hard
    Request r = hot(1, 64ULL << 30, 250);
    assert_false(bound_lapsed(m, r, 1000, 1000 + 10 * 86400));  // hard: never
    r.hot_wait_s = 600;
    assert_false(bound_lapsed(m, r, 1000, 1599));
    assert_true(bound_lapsed(m, r, 1000, 1600));
    // In-bound memory expected only after the wait: no point waiting for it.
    assert_true(bound_lapsed(m, r, 1000, 1001, 1000 + 601));
    assert_false(bound_lapsed(m, r, 1000, 1001, 1000 + 600));
    r.hot_wait_s = kHotWaitNone;
    assert_true(bound_lapsed(m, r, 1000, 1000));
    r.hot_per_node = 0;  // nothing hot: nothing to lapse
    assert_false(bound_lapsed(m, r, 1000, 5000));
    assert_int_equal(wait_ends(m, r, 1000), INT64_MAX);
}

// Expected completion (HotWaitShare): the wait ends after the declared wait or that share of
// the job's time limit, whichever comes first; without a time limit, the declared wait only.
static void a_soft_wait_ends_by_the_share_of_the_time_limit(void **) {
    Config c = parse_config("FabricFile=f.json\nInventoryFile=i.json\nHotWaitShare=0.1\n", "morpheus.conf");
    assert_true(c.placement.hot_wait_share == 0.1);
    Fabric f = read_fabric(top_srcdir("etc/fabric.json"));
    Inventory inv = read_inventory(top_srcdir("etc/inventory.json"), f);
    ClusterModel m(std::move(f), std::move(inv), c.placement);
    Request r = hot(1, 64ULL << 30, 250);
    r.hot_wait_s = 3600;
    assert_int_equal(wait_ends(m, r, 1000), 1000 + 3600);  // no time limit known
    r.time_limit_s = 6000;  // 100 minutes: waits 10 at most
    assert_int_equal(wait_ends(m, r, 1000), 1000 + 600);
    assert_false(bound_lapsed(m, r, 1000, 1599));
    assert_true(bound_lapsed(m, r, 1000, 1600));
    r.time_limit_s = 48 * 3600;  // a long job: its declared hour is the shorter
    assert_int_equal(wait_ends(m, r, 1000), 1000 + 3600);
    r.hot_wait_s = kHotWaitHard;  // a hard bound never lapses, whatever the limit
    assert_int_equal(wait_ends(m, r, 1000), INT64_MAX);
    for (const char *bad : {"HotWaitShare=-1", "HotWaitShare=x", "HotWaitShare=11"}) {
        try {
            parse_config(std::string("FabricFile=f.json\nInventoryFile=i.json\n") + bad + "\n", "morpheus.conf");
            fail_msg("%s accepted", bad);
        } catch (const InputError &e) {
            assert_non_null(std::strstr(e.what(), "line 3"));
            assert_non_null(std::strstr(e.what(), "HotWaitShare"));
        }
    }
}

static void site_limits_and_defaults_come_from_morpheus_conf(void **) {
    Config c = parse_config(
        "FabricFile=f.json\nInventoryFile=i.json\nDefaultHotWait=5\nMaxHotWait=1:00:00\nMaxMoves=3\n", "morpheus.conf");
    assert_int_equal(c.placement.default_hot_wait_s, 300);
    assert_int_equal(c.placement.max_hot_wait_s, 3600);
    assert_int_equal(c.placement.max_moves, 3);
    Fabric f = read_fabric(top_srcdir("etc/fabric.json"));
    Inventory inv = read_inventory(top_srcdir("etc/inventory.json"), f);
    ClusterModel m(std::move(f), std::move(inv), c.placement);
    Request r = hot(1, 64ULL << 30, 250);
    assert_int_equal(hot_wait(m, r), 300);  // the site's default
    r.hot_wait_s = 7200;
    std::string why = wait_refusal(m, r);
    assert_non_null(std::strstr(why.c_str(), "MaxHotWait=1h"));
    assert_non_null(std::strstr(why.c_str(), "fix:"));
    r.hot_wait_s = kHotWaitHard;  // a hard bound stays available
    assert_string_equal(wait_refusal(m, r).c_str(), "");
    try {
        parse_config("FabricFile=f\nInventoryFile=i\nDefaultHotWait=2:00:00\nMaxHotWait=60\n", "morpheus.conf");
        fail_msg("a default longer than the maximum was accepted");
    } catch (const InputError &e) {
        assert_non_null(std::strstr(e.what(), "MaxHotWait"));
    }
    try {
        parse_config("FabricFile=f\nInventoryFile=i\nMaxMoves=lots\n", "morpheus.conf");
        fail_msg("MaxMoves=lots was accepted");
    } catch (const InputError &e) {
        assert_non_null(std::strstr(e.what(), "line 3"));
    }
}

// pod1's near blade (blade1, 200ns) is the only one inside 250ns; fill it and a 250ns job
// waits, unless its soft bound lapsed: then it takes the nearest memory beyond, and the
// placement still carries the bound it declared.
static Ledger with_blade1_full(const ClusterModel &m) {
    Ledger l(m.fabric().blades.size());
    Reservation holder;
    holder.job_id = 99;
    const uint32_t b1 = static_cast<uint32_t>(m.fabric().blade_index("blade1"));
    const uint32_t pod1 = static_cast<uint32_t>(m.fabric().pod_index("pod1"));
    holder.segments.push_back({b1, Tier::Dram, Use::Hot, m.inventory().blades[b1].capacity[0], 200, pod1});
    assert_true(l.reserve(holder, m.inventory()));
    return l;
}

static void a_lapsed_bound_takes_the_nearest_memory_beyond_it(void **) {
    ClusterModel m = example();
    Ledger l = with_blade1_full(m);
    Request r = hot(1, 64ULL << 30, 250);
    r.hot_wait_s = 60;
    Decision waits = decide(m, l, r, all_free(m));
    assert_int_equal(static_cast<int>(waits.verdict), static_cast<int>(Verdict::Pending));
    r.bound_lapsed = true;
    Decision d = decide(m, l, r, all_free(m));
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Placed));
    assert_int_equal(d.placement.hot_latency_bound_ns, 250);
    assert_non_null(std::strstr(d.reason.c_str(), "soft bound"));
    // The nearest blade with room beyond the bound, from the chosen pod: nothing nearer was free.
    const uint32_t pod = d.placement.pods[0].pod;
    uint32_t nearest_free = kUnreachable, worst = 0;
    for (uint32_t b : m.latency().blades_by_latency(pod))
        if (l.free(b, Tier::Dram, m.inventory()) >= (64ULL << 30)) {
            nearest_free = m.latency().latency(pod, b);
            break;
        }
    for (const Segment &s : d.placement.segments) worst = std::max(worst, s.latency_ns);
    assert_true(worst > 250);
    assert_int_equal(worst, nearest_free);
    // A hard bound with the same flag set by mistake still never leaves it in feasibility.
    Request never = hot(1, 64ULL << 30, 100);  // no blade is 100ns from any pod
    assert_int_equal(static_cast<int>(feasibility(m, never).verdict), static_cast<int>(Verdict::Impossible));
    never.hot_wait_s = 600;  // soft: runs beyond it one day
    assert_int_equal(static_cast<int>(feasibility(m, never).verdict), static_cast<int>(Verdict::Placed));
}

static void a_move_holds_both_regions_until_it_is_done(void **) {
    ClusterModel m = example();
    Ledger l = with_blade1_full(m);
    const uint32_t pod1 = static_cast<uint32_t>(m.fabric().pod_index("pod1"));
    const uint32_t b1 = static_cast<uint32_t>(m.fabric().blade_index("blade1"));
    // Job 1 on pod1 ran beyond its 250ns bound (its soft bound lapsed while blade1 was full).
    Request r = hot(1, 64ULL << 30, 250);
    r.bound_lapsed = true;
    std::vector<uint8_t> pod1_only(m.fabric().node_names.size(), 0);
    pod1_only[m.fabric().pods[pod1].first_node] = 1;
    Decision d = decide(m, l, r, pod1_only);
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Placed));
    Reservation far = reservation_of(m, 1, 0, 100, d.placement, {});
    assert_true(l.reserve(far, m.inventory()));
    assert_int_equal(hot_beyond_bound(*l.find(1)), 64ULL << 30);
    assert_false(find_move(m, l, *l.find(1)).has_value());  // nothing free inside the bound yet
    assert_true(plan_moves(m, l, 2).empty());
    l.release(99);  // blade1 frees
    std::vector<MovePlan> moves = plan_moves(m, l, 2);
    assert_int_equal(moves.size(), 1);
    assert_int_equal(moves[0].bytes, 64ULL << 30);
    assert_true(moves[0].seconds > 0);
    assert_int_equal(moves[0].target[0].blade, b1);
    assert_int_equal(static_cast<int>(moves[0].target[0].use), static_cast<int>(Use::Incoming));
    // Begun: both regions reserved; no second move for the job while it is under way.
    const uint32_t old_blade = l.find(1)->segments[0].blade;
    const uint64_t old_free = l.free(old_blade, Tier::Dram, m.inventory());
    assert_true(l.reserve(begin_move(*l.find(1), moves[0]), m.inventory()));
    assert_int_equal(l.reserved(b1, Tier::Dram), 64ULL << 30);
    assert_int_equal(l.free(old_blade, Tier::Dram, m.inventory()), old_free);
    assert_true(moving(*l.find(1)));
    assert_true(plan_moves(m, l, 2).empty());
    assert_true(plan_moves(m, l, 0).empty());
    // Done: only the in-bound region is left.
    assert_true(l.reserve(finish_move(*l.find(1)), m.inventory()));
    assert_int_equal(hot_beyond_bound(*l.find(1)), 0);
    assert_false(moving(*l.find(1)));
    assert_int_equal(l.free(old_blade, Tier::Dram, m.inventory()), old_free + (64ULL << 30));
    // Given up instead: the target goes, the old region stays.
    Reservation again = begin_move(far, moves[0]);
    Reservation undone = abandon_move(again);
    assert_int_equal(undone.segments.size(), far.segments.size());
}

// Two jobs beyond the bound, room inside it for one: one move, never two on the same bytes.
static void two_moves_never_take_the_same_bytes(void **) {
    ClusterModel m = example();
    const uint32_t pod1 = static_cast<uint32_t>(m.fabric().pod_index("pod1"));
    const uint32_t b1 = static_cast<uint32_t>(m.fabric().blade_index("blade1"));
    const uint64_t cap = m.inventory().blades[b1].capacity[0];
    Ledger l(m.fabric().blades.size());
    Reservation filler;  // leaves room on blade1 for one job's hot memory
    filler.job_id = 50;
    filler.segments.push_back({b1, Tier::Dram, Use::Hot, cap - (100ULL << 30), 200, pod1});
    assert_true(l.reserve(filler, m.inventory()));
    for (uint64_t id : {1, 2}) {
        Request r = hot(1, 64ULL << 30, 250);
        r.job_id = id;
        r.bound_lapsed = true;
        Placement p;
        std::string why;
        assert_true(assign_blades(m, with_blade1_full(m), r, {{pod1, 1}}, p, &why));
        Reservation res = reservation_of(m, id, 0, static_cast<int64_t>(id), p, {});
        assert_true(l.reserve(res, m.inventory(), &why));
    }
    std::vector<MovePlan> moves = plan_moves(m, l, 4);
    assert_int_equal(moves.size(), 1);
    assert_int_equal(moves[0].job_id, 1);  // the oldest first
}

// A job of two pods beyond its 300ns bound; pod1's near blade has room, pod2's is full: pod1's
// share moves now (a partial move), pod2's stays far and moves once blade2 frees. Checked to
// fail when the move is all or nothing (no move at all while blade2 is full).
static void a_pod_whose_near_memory_frees_moves_without_the_others(void **) {
    ClusterModel m = example();
    const Fabric &f = m.fabric();
    const uint32_t pod1 = static_cast<uint32_t>(f.pod_index("pod1")), pod2 = static_cast<uint32_t>(f.pod_index("pod2"));
    const uint32_t b1 = static_cast<uint32_t>(f.blade_index("blade1")),
                   b2 = static_cast<uint32_t>(f.blade_index("blade2"));
    const uint32_t b8 = static_cast<uint32_t>(f.blade_index("blade8"));
    Ledger l(f.blades.size());
    Reservation holder;  // blade2 full
    holder.job_id = 98;
    holder.segments.push_back({b2, Tier::Dram, Use::Hot, m.inventory().blades[b2].capacity[0], 280, pod2});
    assert_true(l.reserve(holder, m.inventory()));
    Reservation far;
    far.job_id = 1;
    far.hot_latency_bound_ns = 300;
    far.nodes = {f.node_names[f.pods[pod1].first_node], f.node_names[f.pods[pod2].first_node]};
    far.pods = {{pod1, 1}, {pod2, 1}};
    far.segments.push_back({b8, Tier::Dram, Use::Hot, 64ULL << 30, m.latency().latency(pod1, b8), pod1});
    far.segments.push_back({b8, Tier::Dram, Use::Hot, 32ULL << 30, m.latency().latency(pod2, b8), pod2});
    assert_true(l.reserve(far, m.inventory()));
    std::optional<MovePlan> move = find_move(m, l, *l.find(1));
    assert_true(move.has_value());
    assert_int_equal(move->bytes, 64ULL << 30);  // pod1's share only
    for (const Segment &s : move->target) {
        assert_int_equal(s.blade, b1);
        assert_int_equal(s.pod, pod1);
    }
    assert_true(l.reserve(begin_move(*l.find(1), *move), m.inventory()));
    assert_true(moving_pod(*l.find(1), pod1));
    assert_false(moving_pod(*l.find(1), pod2));
    assert_int_equal(bytes_leaving(*l.find(1)), 64ULL << 30);
    assert_true(l.reserve(finish_move(*l.find(1)), m.inventory()));
    // pod2's share is still beyond the bound, on blade8; pod1's left blade8.
    assert_int_equal(hot_beyond_bound(*l.find(1)), 32ULL << 30);
    assert_int_equal(l.reserved(b8, Tier::Dram), 32ULL << 30);
    assert_int_equal(l.reserved(b1, Tier::Dram), 64ULL << 30);
    assert_false(find_move(m, l, *l.find(1)).has_value());  // blade2 still full
    l.release(98);
    move = find_move(m, l, *l.find(1));
    assert_true(move.has_value());
    assert_int_equal(move->bytes, 32ULL << 30);
    assert_int_equal(move->target[0].blade, b2);
    assert_true(l.reserve(finish_move(begin_move(*l.find(1), *move)), m.inventory()));
    assert_int_equal(hot_beyond_bound(*l.find(1)), 0);
    assert_int_equal(l.reserved(b8, Tier::Dram), 0);
}

// Fills each pod's only blade within 300ns (blade1-4) with a holder job of id 90 + blade index;
// returns the holders' ids.
static std::vector<uint64_t> hold_near_blades(const ClusterModel &m, Ledger &l) {
    std::vector<uint64_t> holders;
    for (const char *near : {"blade1", "blade2", "blade3", "blade4"}) {
        const uint32_t b = static_cast<uint32_t>(m.fabric().blade_index(near));
        Reservation holder;
        holder.job_id = 90 + b;
        holder.segments.push_back({b, Tier::Dram, Use::Hot, m.inventory().blades[b].capacity[0], 200, 0});
        assert_true(l.reserve(holder, m.inventory()));
        holders.push_back(holder.job_id);
    }
    return holders;
}

// A lapsed bound whose job is larger than one pod's near memory: split so that each pod's share
// fits its pod's blades inside the bound, so moves can bring all of it in later; when no such
// split has the nodes, any split. Checked to fail with the split that ignores it (the whole job
// in one pod, 1.6T beyond a bound whose blade holds 1T, for the whole run).
static void a_far_start_is_split_so_that_every_share_can_move_in(void **) {
    ClusterModel m = example();
    const Fabric &f = m.fabric();
    Ledger l(f.blades.size());
    const std::vector<uint64_t> holders = hold_near_blades(m, l);
    Request r = hot(4, 400ULL << 30, 300);  // 1.6T: one pod's near blade (1T) holds 2 nodes' share
    r.bound_lapsed = true;
    Decision d = decide(m, l, r, all_free(m));
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Placed));
    assert_int_equal(d.placement.pods.size(), 2);
    for (const PodShare &s : d.placement.pods) assert_true(s.nodes <= 2);
    assert_non_null(std::strstr(d.reason.c_str(), "move inside the bound later"));
    Reservation far = reservation_of(m, 1, 0, 100, d.placement, {});
    assert_true(l.reserve(far, m.inventory()));
    assert_int_equal(hot_beyond_bound(*l.find(1)), 1600ULL << 30);
    for (uint64_t id : holders) l.release(id);  // the near blades free: every share moves in
    std::optional<MovePlan> move = find_move(m, l, *l.find(1));
    assert_true(move.has_value());
    assert_int_equal(move->bytes, 1600ULL << 30);
    assert_true(l.reserve(finish_move(begin_move(*l.find(1), *move)), m.inventory()));
    assert_int_equal(hot_beyond_bound(*l.find(1)), 0);
    // Only pod1 has free nodes: no split fits, so the job takes pod1 whole, beyond the bound.
    Ledger busy(f.blades.size());
    std::vector<uint8_t> pod1_only(f.node_names.size(), 0);
    const Pod &pod1 = f.pods[static_cast<size_t>(f.pod_index("pod1"))];
    for (uint32_t n = 0; n < pod1.node_count; ++n) pod1_only[pod1.first_node + n] = 1;
    hold_near_blades(m, busy);
    Decision whole = decide(m, busy, r, pod1_only);
    assert_int_equal(static_cast<int>(whole.verdict), static_cast<int>(Verdict::Placed));
    assert_int_equal(whole.placement.pods.size(), 1);
    assert_null(std::strstr(whole.reason.c_str(), "move inside the bound later"));
}

// When the free nodes allow no split of movable shares, as many shares as they allow are kept
// movable and the rest is piled on the pod with the most free nodes, rather than the fewest
// pods (the whole job in one pod: no share movable). Checked to fail without the overflow split.
static void a_far_start_keeps_as_many_shares_movable_as_the_free_nodes_allow(void **) {
    ClusterModel m = example();
    const Fabric &f = m.fabric();
    Ledger l(f.blades.size());
    hold_near_blades(m, l);
    Request r = hot(3, 600ULL << 30, 300);  // a pod's near blade (1T) holds one node's share
    r.bound_lapsed = true;
    std::vector<uint8_t> free(f.node_names.size(), 0);
    auto open_nodes = [&](const char *pod, uint32_t count) {
        const Pod &p = f.pods[static_cast<size_t>(f.pod_index(pod))];
        for (uint32_t n = 0; n < count; ++n) free[p.first_node + n] = 1;
    };
    open_nodes("pod1", 4);
    open_nodes("pod2", 4);
    // One-node shares need three pods with free nodes; two have them: 2 + 1, one share movable.
    Decision d = decide(m, l, r, free);
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Placed));
    assert_int_equal(d.placement.pods.size(), 2);
    std::vector<uint32_t> sizes;
    for (const PodShare &s : d.placement.pods) sizes.push_back(s.nodes);
    std::sort(sizes.begin(), sizes.end());
    assert_int_equal(sizes[0], 1);
    assert_int_equal(sizes[1], 2);
    assert_non_null(std::strstr(d.reason.c_str(), "1 of 2 shares small enough to move inside the bound later"));
    open_nodes("pod3", 1);  // now 1 + 1 + 1: every share movable
    d = decide(m, l, r, free);
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Placed));
    assert_int_equal(d.placement.pods.size(), 3);
    for (const PodShare &s : d.placement.pods) assert_int_equal(s.nodes, 1);
    assert_non_null(std::strstr(d.reason.c_str(), "each share small enough to move inside the bound later"));
}

static void the_ledger_file_keeps_a_move_under_way(void **) {
    ClusterModel m = example();
    Ledger l(m.fabric().blades.size());
    Reservation r;
    r.job_id = 7;
    r.hot_latency_bound_ns = 250;
    const uint32_t pod1 = static_cast<uint32_t>(m.fabric().pod_index("pod1"));
    r.pods.push_back({pod1, 1});
    r.segments.push_back(
        {static_cast<uint32_t>(m.fabric().blade_index("blade8")), Tier::Dram, Use::Hot, 1 << 30, 370, pod1});
    r.segments.push_back(
        {static_cast<uint32_t>(m.fabric().blade_index("blade1")), Tier::Dram, Use::Incoming, 1 << 30, 200, pod1});
    assert_true(l.reserve(r, m.inventory()));
    char dir[] = "/tmp/morpheus-move-XXXXXX";
    assert_non_null(mkdtemp(dir));
    const std::string path = std::string(dir) + "/state.json";
    l.save(path, m.fabric());
    Ledger back = Ledger::load(path, m.fabric());
    assert_true(moving(*back.find(7)));
    assert_int_equal(back.reserved(static_cast<uint32_t>(m.fabric().blade_index("blade1")), Tier::Dram), 1 << 30);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(waits_parse_as_slurm_times),
        cmocka_unit_test(a_soft_bound_lapses_after_its_wait_or_when_waiting_buys_nothing),
        cmocka_unit_test(a_soft_wait_ends_by_the_share_of_the_time_limit),
        cmocka_unit_test(site_limits_and_defaults_come_from_morpheus_conf),
        cmocka_unit_test(a_lapsed_bound_takes_the_nearest_memory_beyond_it),
        cmocka_unit_test(a_move_holds_both_regions_until_it_is_done),
        cmocka_unit_test(two_moves_never_take_the_same_bytes),
        cmocka_unit_test(a_pod_whose_near_memory_frees_moves_without_the_others),
        cmocka_unit_test(a_far_start_is_split_so_that_every_share_can_move_in),
        cmocka_unit_test(a_far_start_keeps_as_many_shares_movable_as_the_free_nodes_allow),
        cmocka_unit_test(the_ledger_file_keeps_a_move_under_way),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
