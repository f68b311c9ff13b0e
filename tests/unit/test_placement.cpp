// Placement on the example cluster: the bound decides the pod, hot memory stripes and never
// over-commits, cold memory avoids blades pods need, failed blades are never used, and the
// same input always gives the same answer.
#include "cluster_model.hpp"
#include "ledger.hpp"
#include "placement.hpp"
#include "example_cluster.hpp"
#include "test_support.hpp"

using namespace morpheus;

static uint64_t hot_bytes(const Placement &p) {
    uint64_t s = 0;
    for (const Segment &g : p.segments)
        if (g.use == Use::Hot) s += g.bytes;
    return s;
}

static void tight_bound_picks_the_only_pod(void **) {
    ClusterModel m = example();
    Ledger l(m.fabric().blades.size());
    Decision d = decide(m, l, hot(2, 256ULL << 30, 250), all_free(m));
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Placed));
    assert_int_equal(d.placement.pods.size(), 1);
    assert_string_equal(m.fabric().pods[d.placement.pods[0].pod].name.c_str(), "pod1");
    for (const Segment &g : d.placement.segments) assert_true(g.latency_ns <= 250);
    assert_int_equal(hot_bytes(d.placement), 512ULL << 30);
    // The others are ruled out for latency, and say so.
    for (size_t i = 1; i < d.pods.size(); ++i)
        assert_int_equal(static_cast<int>(d.pods[i].ruled_out), static_cast<int>(RuleOut::NoBladeInBound));
}

static void bound_nobody_meets_is_impossible(void **) {
    ClusterModel m = example();
    Decision d = feasibility(m, hot(1, 1ULL << 30, 100));
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Impossible));
    assert_non_null(std::strstr(d.reason.c_str(), "no blade within 100ns"));
    assert_non_null(std::strstr(d.reason.c_str(), "nearest: 200ns"));
    Decision ok = feasibility(m, hot(1, 1ULL << 30, 250));
    assert_int_equal(static_cast<int>(ok.verdict), static_cast<int>(Verdict::Placed));
}

static void too_big_for_any_blade_set(void **) {
    ClusterModel m = example();
    Decision d = feasibility(m, hot(2, 2ULL << 40, 300));  // 2T per node; a pod reaches 1T in 300ns
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Impossible));
    assert_non_null(std::strstr(d.reason.c_str(), "lack hot memory"));
}

static void hot_memory_stripes_when_one_blade_is_not_enough(void **) {
    ClusterModel m = example();
    Ledger l(m.fabric().blades.size());
    // 4 x 400G = 1.6T within 400ns: pod1 reaches blade1 (1T, 200ns) and the spine blades (370ns).
    Decision d = decide(m, l, hot(4, 400ULL << 30, 400), all_free(m));
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Placed));
    assert_true(d.placement.segments.size() >= 2);
    assert_int_equal(hot_bytes(d.placement), 1600ULL << 30);
    // Nearest first: the first segment is the pod's local blade.
    const Segment &first = d.placement.segments.front();
    assert_int_equal(first.latency_ns, m.latency().nearest(first.pod));
}

static void competing_jobs_never_overcommit(void **) {
    ClusterModel m = example();
    Ledger l(m.fabric().blades.size());
    std::vector<uint8_t> free_nodes = all_free(m);
    int placed = 0;
    for (uint64_t job = 1; job <= 8; ++job) {
        Request r = hot(1, 384ULL << 30, 250);  // only blade1 (1T) qualifies: two fit, not three
        r.job_id = job;
        Decision d = decide(m, l, r, free_nodes);
        if (d.verdict != Verdict::Placed) {
            assert_non_null(std::strstr(d.reason.c_str(), "hot memory"));
            continue;
        }
        Reservation res;
        res.job_id = job;
        res.pods = d.placement.pods;
        res.segments = d.placement.segments;
        std::string why;
        assert_true(l.reserve(res, m.inventory(), &why));
        for (uint32_t n : choose_nodes(m, d.placement.pods, free_nodes)) free_nodes[n] = 0;
        ++placed;
    }
    assert_int_equal(placed, 2);
    uint32_t b1 = m.fabric().blade_index("blade1");
    assert_true(l.reserved(b1, Tier::Dram) <= m.inventory().blades[b1].capacity[0]);
    assert_int_equal(l.reserved(b1, Tier::Dram), 768ULL << 30);
}

static void cold_prefers_pmem_on_blades_pods_need_least(void **) {
    ClusterModel m = example();
    Ledger l(m.fabric().blades.size());
    Request r = hot(1, 0, 0);
    r.cold_per_node = 1ULL << 40;
    Decision d = decide(m, l, r, all_free(m));
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Placed));
    assert_int_equal(d.placement.segments.size(), 1);
    const Segment &g = d.placement.segments[0];
    assert_int_equal(static_cast<int>(g.tier), static_cast<int>(Tier::Pmem));
    assert_int_equal(static_cast<int>(g.use), static_cast<int>(Use::Cold));
    // Spine blades are inside every pod's default bound: cold memory keeps off them.
    assert_true(m.hot_pressure(g.blade) < 1.0);
}

static void failed_and_draining_blades_take_nothing(void **) {
    std::string inv = R"({"blades":[
      {"name":"blade1","dram":"1T","state":"failed"},
      {"name":"blade2","dram":"1T","state":"draining"},
      {"name":"blade3","dram":"1T"},{"name":"blade4","dram":"1T"},
      {"name":"blade5","dram":"512G"},{"name":"blade6","dram":"512G"},
      {"name":"blade7","dram":"512G"},{"name":"blade8","dram":"512G"}]})";
    ClusterModel m = example(inv);
    Ledger l(m.fabric().blades.size());
    Decision d = decide(m, l, hot(1, 64ULL << 30, 250), all_free(m));
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Pending));
    assert_non_null(std::strstr(d.reason.c_str(), "failed or draining"));
    // Not impossible: the blade may come back.
    assert_int_equal(static_cast<int>(feasibility(m, hot(1, 64ULL << 30, 250)).verdict),
                     static_cast<int>(Verdict::Placed));
    Decision wide = decide(m, l, hot(4, 64ULL << 30, 300), all_free(m));
    assert_int_equal(static_cast<int>(wide.verdict), static_cast<int>(Verdict::Placed));
    for (const Segment &g : wide.placement.segments) {
        assert_int_not_equal(g.blade, m.fabric().blade_index("blade1"));
        assert_int_not_equal(g.blade, m.fabric().blade_index("blade2"));
    }
}

static void busy_nodes_push_to_another_pod_or_pending(void **) {
    ClusterModel m = example();
    Ledger l(m.fabric().blades.size());
    std::vector<uint8_t> free_nodes = all_free(m);
    for (int n = 0; n < 3; ++n) free_nodes[m.fabric().node_index("gpu10" + std::to_string(n + 1))] = 0;
    Decision d = decide(m, l, hot(2, 64ULL << 30, 250), free_nodes);
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Pending));
    assert_non_null(std::strstr(d.reason.c_str(), "free nodes"));
    Decision any = decide(m, l, hot(2, 64ULL << 30, 300), free_nodes);
    assert_int_equal(static_cast<int>(any.verdict), static_cast<int>(Verdict::Placed));
    assert_string_not_equal(m.fabric().pods[any.placement.pods[0].pod].name.c_str(), "pod1");
}

static void spans_pods_when_no_pod_is_big_enough(void **) {
    ClusterModel m = example();
    Ledger l(m.fabric().blades.size());
    Decision d = decide(m, l, hot(6, 32ULL << 30, 300), all_free(m));
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Placed));
    assert_int_equal(d.placement.pods.size(), 2);
    uint32_t nodes = 0;
    for (const PodShare &s : d.placement.pods) nodes += s.nodes;
    assert_int_equal(nodes, 6);
    for (const Segment &g : d.placement.segments) assert_true(g.latency_ns <= 300);
}

static void gpus_round_up_to_nodes(void **) {
    ClusterModel m = example();
    Request r;
    r.gpus = 12;
    assert_int_equal(nodes_needed(m, r, 0), 2);
}

static void decisions_are_deterministic(void **) {
    ClusterModel m = example();
    Ledger l(m.fabric().blades.size());
    Request r = hot(1, 64ULL << 30, 600);
    r.cold_per_node = 256ULL << 30;
    Decision a = decide(m, l, r, all_free(m)), b = decide(m, l, r, all_free(m));
    assert_int_equal(a.placement.pods[0].pod, b.placement.pods[0].pod);
    assert_int_equal(a.placement.segments.size(), b.placement.segments.size());
    for (size_t i = 0; i < a.placement.segments.size(); ++i) {
        assert_int_equal(a.placement.segments[i].blade, b.placement.segments[i].blade);
        assert_int_equal(a.placement.segments[i].bytes, b.placement.segments[i].bytes);
    }
    for (size_t i = 0; i < a.pods.size(); ++i) assert_int_equal(a.pods[i].pod, b.pods[i].pod);
}

static void load_steers_hot_memory(void **) {
    // Two equal blades on one leaf; the busy one is used only when the idle one is full.
    const char *fabric = R"({"pods":[{"name":"p","nodes":"n[1-2]"}],"switches":[{"name":"s"}],
      "blades":[{"name":"busy"},{"name":"idle"}],
      "links":[{"from":"p","to":"s","latency":10,"bandwidth":100},
               {"from":"busy","to":"s","latency":10,"bandwidth":100},
               {"from":"idle","to":"s","latency":10,"bandwidth":100}]})";
    Fabric f = parse_fabric(fabric, "f.json");
    Inventory inv = parse_inventory(
        R"({"blades":[{"name":"busy","dram":"100G","load":0.9},{"name":"idle","dram":"100G","load":0.0}]})", "i.json",
        f);
    ClusterModel m(std::move(f), std::move(inv), PlacementSettings{});
    Ledger l(2);
    Decision d = decide(m, l, hot(1, 50ULL << 30, 100), std::vector<uint8_t>(2, 1));
    assert_int_equal(d.placement.segments.size(), 1);
    assert_string_equal(m.fabric().blades[d.placement.segments[0].blade].name.c_str(), "idle");
}

// 4 x 4096P is 2^64 bytes: it wrapped to 0 and was placed with no memory at all. Totals are
// checked, and a request beyond every blade together is refused naming the flag.
static void totals_never_wrap(void **) {
    ClusterModel m = example();
    Ledger l(m.fabric().blades.size());
    Decision d = decide(m, l, hot(4, 4096ULL << 50, 0), all_free(m));
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Impossible));
    assert_non_null(std::strstr(d.reason.c_str(), "--mem-hot"));
    assert_non_null(std::strstr(d.reason.c_str(), "2^64"));
    assert_int_equal(d.pods.size(), m.fabric().pods.size());
    Request cold = hot(4, 0, 0);
    cold.cold_per_node = 8192ULL << 50;
    Decision c = feasibility(m, cold);
    assert_int_equal(static_cast<int>(c.verdict), static_cast<int>(Verdict::Impossible));
    assert_non_null(std::strstr(c.reason.c_str(), "--mem-cold"));
    // Fits 64 bits but not all blades together.
    Decision big = feasibility(m, hot(4, 4ULL << 40, 0));
    assert_int_equal(static_cast<int>(big.verdict), static_cast<int>(Verdict::Impossible));
    assert_non_null(std::strstr(big.reason.c_str(), "on all blades together"));
    // Near 2^32 GPUs must not wrap to a few nodes either.
    Request gpus;
    gpus.gpus = UINT32_MAX;
    gpus.hot_per_node = 1ULL << 30;
    assert_int_equal(nodes_needed(m, gpus, 0), (uint64_t{UINT32_MAX} + 7) / 8);
    assert_int_equal(static_cast<int>(feasibility(m, gpus).verdict), static_cast<int>(Verdict::Impossible));
}

// A zero bound (only reachable through settings) must not turn scores into NaN.
static void zero_bound_scores_are_numbers(void **) {
    Fabric f = read_fabric(top_srcdir("etc/fabric.json"));
    Inventory inv = read_inventory(top_srcdir("etc/inventory.json"), f);
    PlacementSettings s;
    s.default_hot_latency_ns = 0;
    ClusterModel m(std::move(f), std::move(inv), s);
    Ledger l(m.fabric().blades.size());
    Decision d = decide(m, l, hot(1, 1ULL << 30, 0), all_free(m));
    for (const PodAssessment &a : d.pods) assert_true(a.score == a.score);
}

// Within 400ns every pod sees its own 1T blade and the 2T spine pool. 8 nodes x 600G (4.8T)
// fit over pods 4+2+1+1, but a split taken from each pod's own free figure (3T each: the spine
// counted once per pod) was 4+4, which cannot be assigned: the job stayed pending for ever.
static void a_spread_counts_shared_blades_once(void **) {
    ClusterModel m = example();
    Ledger l(m.fabric().blades.size());
    Decision d = decide(m, l, hot(8, 600ULL << 30, 400), all_free(m));
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Placed));
    assert_true(d.placement.pods.size() >= 3);
    uint32_t nodes = 0;
    for (const PodShare &s : d.placement.pods) nodes += s.nodes;
    assert_int_equal(nodes, 8);
    assert_true(hot_bytes(d.placement) == 8 * (600ULL << 30));
    Reservation r;
    r.job_id = 1;
    r.pods = d.placement.pods;
    r.segments = d.placement.segments;
    std::string why;
    assert_true(l.reserve(r, m.inventory(), &why));  // the ledger agrees: nothing over-committed
    for (const Segment &g : d.placement.segments) assert_true(g.latency_ns <= 400);
}

// Issue 25: a job Slurm confines to some nodes (-w) is decided on those alone: a pod it may
// not use is neither chosen nor named, so the reason is about the job's own pod.
static void allowed_nodes_confine_the_decision(void **) {
    ClusterModel m = example();
    Ledger l(m.fabric().blades.size());
    const Fabric &f = m.fabric();
    std::vector<uint8_t> allowed(f.node_names.size(), 0);
    const Pod &pod2 = f.pods[f.pod_index("pod2")];
    allowed[pod2.first_node + 1] = 1;  // -w the second node of pod2
    // 300ns admits every pod; unconfined, the best pod is another one.
    Request r = hot(1, 64ULL << 30, 300);
    Decision free_choice = decide(m, l, r, all_free(m));
    assert_int_equal(static_cast<int>(free_choice.verdict), static_cast<int>(Verdict::Placed));
    Decision d = decide(m, l, r, all_free(m), &allowed);
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Placed));
    assert_int_equal(d.pods.size(), 1);  // only the job's pod is a candidate
    assert_string_equal(f.pods[d.placement.pods[0].pod].name.c_str(), "pod2");
    // 250ns: only pod1 has a blade that near, and the job may not go there: pending on its own
    // pod's reason, never "placed on pod1".
    Decision pinned = decide(m, l, hot(1, 64ULL << 30, 250), all_free(m), &allowed);
    assert_int_equal(static_cast<int>(pinned.verdict), static_cast<int>(Verdict::Pending));
    assert_null(std::strstr(pinned.reason.c_str(), "pod1"));
    assert_int_equal(pinned.pods.size(), 1);
    // Its node busy: pending, even though pod2's other nodes are free.
    std::vector<uint8_t> busy = all_free(m);
    busy[pod2.first_node + 1] = 0;
    Decision waits = decide(m, l, r, busy, &allowed);
    assert_int_equal(static_cast<int>(waits.verdict), static_cast<int>(Verdict::Pending));
    // Feasibility names only the allowed pods too.
    Decision never = feasibility(m, hot(1, 64ULL << 30, 250), &allowed);
    assert_int_equal(static_cast<int>(never.verdict), static_cast<int>(Verdict::Impossible));
    assert_null(std::strstr(never.reason.c_str(), "pod1"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(allowed_nodes_confine_the_decision),
        cmocka_unit_test(a_spread_counts_shared_blades_once),
        cmocka_unit_test(tight_bound_picks_the_only_pod),
        cmocka_unit_test(bound_nobody_meets_is_impossible),
        cmocka_unit_test(too_big_for_any_blade_set),
        cmocka_unit_test(hot_memory_stripes_when_one_blade_is_not_enough),
        cmocka_unit_test(competing_jobs_never_overcommit),
        cmocka_unit_test(cold_prefers_pmem_on_blades_pods_need_least),
        cmocka_unit_test(failed_and_draining_blades_take_nothing),
        cmocka_unit_test(busy_nodes_push_to_another_pod_or_pending),
        cmocka_unit_test(spans_pods_when_no_pod_is_big_enough),
        cmocka_unit_test(gpus_round_up_to_nodes),
        cmocka_unit_test(decisions_are_deterministic),
        cmocka_unit_test(load_steers_hot_memory),
        cmocka_unit_test(totals_never_wrap),
        cmocka_unit_test(zero_bound_scores_are_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
