// The request's way from a decision to a reservation (lifecycle.hpp), shared by the C ABI, the
// CLI and the simulator: the plan's steps, the nodes each allows, pod grouping, the record.
#include "cluster_model.hpp"
#include "lifecycle.hpp"
#include "example_cluster.hpp"
#include "test_support.hpp"

using namespace morpheus;

// Job 7 of uid 1000: the reservation must carry both.
static Request hot7(uint32_t nodes, uint64_t per_node, uint64_t bound) {
    Request r = hot(nodes, per_node, bound);
    r.job_id = 7;
    r.uid = 1000;
    return r;
}

static std::vector<uint8_t> allowed_by(const ClusterModel &m, const NodePlan &p, size_t k) {
    std::vector<uint8_t> a(m.fabric().node_names.size(), 7);  // garbage: every flag must be written
    step_nodes(m, p, k, a.data());
    return a;
}

// One pod: step 0 allows all of it, step 1 every other pod that can take the job; nothing after.
static void single_pod_plan_then_the_others(void **) {
    ClusterModel m = example();
    Ledger l(m.fabric().blades.size());
    Decision d = decide(m, l, hot7(1, 16ULL << 30, 1000), all_free(m));
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Placed));
    NodePlan p = plan_of(m, d, all_free(m));
    assert_int_equal(p.steps.size(), 2);
    assert_true(p.exact[0].empty());
    uint32_t chosen = d.placement.pods[0].pod;
    std::vector<uint8_t> a0 = allowed_by(m, p, 0), a1 = allowed_by(m, p, 1), a2 = allowed_by(m, p, 2);
    for (uint32_t n = 0; n < a0.size(); ++n) {
        bool in_chosen = m.fabric().node_pod[n] == chosen;
        assert_int_equal(a0[n], in_chosen ? 1 : 0);
        assert_int_equal(a1[n], in_chosen ? 0 : 1);
        assert_int_equal(a2[n], 0);
    }
    assert_string_equal(p.names[0].c_str(), m.fabric().pods[chosen].name.c_str());
}

// A spread fixes its nodes: the selector may not take another split than the memory's.
static void a_spread_plan_allows_exactly_its_nodes(void **) {
    ClusterModel m = example();
    Ledger l(m.fabric().blades.size());
    Decision d = decide(m, l, hot7(8, 600ULL << 30, 400), all_free(m));
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Placed));
    assert_true(d.placement.pods.size() >= 2);
    NodePlan p = plan_of(m, d, all_free(m));
    assert_int_equal(p.exact[0].size(), 8);
    std::vector<uint8_t> a0 = allowed_by(m, p, 0);
    uint32_t count = 0;
    for (uint8_t f : a0) count += f;
    assert_int_equal(count, 8);
    // Those nodes group into exactly the decision's shares.
    std::vector<PodShare> shares = pod_shares(m, p.exact[0]);
    assert_int_equal(shares.size(), d.placement.pods.size());
    for (size_t i = 0; i < shares.size(); ++i) {
        assert_int_equal(shares[i].pod, d.placement.pods[i].pod);
        assert_int_equal(shares[i].nodes, d.placement.pods[i].nodes);
    }
}

// Nodes of one pod that are not next to each other are still one share (the simulator's old
// grouping made two); an index outside the fabric is an error, not a crash.
static void pod_shares_group_by_pod(void **) {
    ClusterModel m = example();
    const Fabric &f = m.fabric();
    uint32_t a = f.pods[0].first_node, b = f.pods[1].first_node;
    std::vector<PodShare> s = pod_shares(m, {a, b, a + 1, a + 2});
    assert_int_equal(s.size(), 2);
    assert_int_equal(s[0].pod, 0);
    assert_int_equal(s[0].nodes, 3);
    assert_int_equal(s[1].pod, 1);
    assert_int_equal(s[1].nodes, 1);
    expect_input_error([&] { pod_shares(m, {static_cast<uint32_t>(f.node_names.size())}); }, {"outside the fabric"});
}

static void the_reservation_records_the_placement(void **) {
    ClusterModel m = example();
    Ledger l(m.fabric().blades.size());
    Request q = hot7(2, 64ULL << 30, 300);
    Decision d = decide(m, l, q, all_free(m));
    std::vector<uint32_t> nodes = choose_nodes(m, d.placement.pods, all_free(m));
    Reservation r = reservation_of(m, q.job_id, q.uid, 1234, d.placement, nodes);
    assert_int_equal(r.job_id, 7);
    assert_int_equal(r.uid, 1000);
    assert_int_equal(r.since, 1234);
    assert_int_equal(r.segments.size(), d.placement.segments.size());
    assert_int_equal(r.hot_latency_bound_ns, d.placement.hot_latency_bound_ns);
    assert_int_equal(r.nodes.size(), 2);
    assert_string_equal(r.nodes[0].c_str(), m.fabric().node_names[nodes[0]].c_str());
    std::string why;
    assert_true(l.reserve(r, m.inventory(), &why));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(single_pod_plan_then_the_others),
        cmocka_unit_test(a_spread_plan_allows_exactly_its_nodes),
        cmocka_unit_test(pod_shares_group_by_pod),
        cmocka_unit_test(the_reservation_records_the_placement),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
