// The pending reason Slurm shows stays one short clause for typical refusals, while the
// decision keeps the whole story for morpheus explain.
#include <cstring>

#include "cluster_model.hpp"
#include "ledger.hpp"
#include "pending_reason.hpp"
#include "placement.hpp"
#include "example_cluster.hpp"
#include "test_support.hpp"

using namespace morpheus;

static void short_and_whole(const Decision &d, const std::string &brief) {
    assert_true(brief.size() <= kPendingReasonMax);
    assert_true(d.reason.size() > brief.size());  // the whole text is kept for explain
}

static void hot_memory_short_of_need(void **) {
    ClusterModel m = example();
    Ledger l(m.fabric().blades.size());
    Request q = hot(2, 600ULL << 30, 250);
    Decision d = decide(m, l, q, all_free(m));
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Pending));
    std::string r = pending_reason(m, q, d);
    assert_string_equal(r.c_str(), "hot memory in 250ns: pod1 has 1T of 1.2T");
    short_and_whole(d, r);
}

static void nodes_busy(void **) {
    ClusterModel m = example();
    Ledger l(m.fabric().blades.size());
    std::vector<uint8_t> free = all_free(m);
    for (size_t i = 1; i < free.size(); ++i) free[i] = 0;  // one node left in the cluster
    Request q = hot(2, 1ULL << 30, 300);
    Decision d = decide(m, l, q, free);
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Pending));
    std::string r = pending_reason(m, q, d);
    assert_string_equal(r.c_str(), "free nodes: pod1 has 1 of 2");
}

static void failed_blade_is_named(void **) {
    ClusterModel m = example(R"({"blades": [{"name": "blade1", "dram": "1T", "state": "failed"},
                                            {"name": "blade2", "dram": "1T"}]})");
    Ledger l(m.fabric().blades.size());
    Request q = hot(1, 100ULL << 30, 250);
    Decision d = decide(m, l, q, all_free(m));
    std::string r = pending_reason(m, q, d);
    assert_non_null(std::strstr(r.c_str(), "failed or draining"));
    assert_true(r.size() <= kPendingReasonMax);
}

static void never_fits_says_so(void **) {
    ClusterModel m = example();
    Request q = hot(1, 1ULL << 30, 100);
    Decision d = feasibility(m, q);
    std::string r = pending_reason(m, q, d);
    assert_string_equal(r.c_str(), "never fits: no blade within 100ns (nearest 200ns)");
    short_and_whole(d, r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hot_memory_short_of_need),
        cmocka_unit_test(nodes_busy),
        cmocka_unit_test(failed_blade_is_named),
        cmocka_unit_test(never_fits_says_so),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
