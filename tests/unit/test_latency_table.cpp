// Best-path latency and its bottleneck bandwidth; pods and blades never carry transit.
#include "fabric.hpp"
#include "latency_table.hpp"
#include "test_support.hpp"

using namespace morpheus;

static void example_latencies(void **) {
    Fabric f = read_fabric(top_srcdir("etc/fabric.json"));
    LatencyTable t(f);
    uint32_t p1 = f.pod_index("pod1"), p2 = f.pod_index("pod2");
    // node 20 + pod->leaf 100 + leaf->blade 80
    assert_int_equal(t.latency(p1, f.blade_index("blade1")), 200);
    assert_int_equal(t.latency(p2, f.blade_index("blade2")), 280);
    // pod1 -> leaf1 -> spine -> leaf2 -> blade2: 20 + 100 + 150 + 150 + 160
    assert_int_equal(t.latency(p1, f.blade_index("blade2")), 580);
    // pod -> leaf -> spine1 -> blade5: 20 + 100 + 150 + 100; bottleneck is the 200 Gb/s blade link
    assert_int_equal(t.latency(p1, f.blade_index("blade5")), 370);
    assert_true(t.bandwidth(p1, f.blade_index("blade5")) == 200.0f);
    assert_true(t.bandwidth(p1, f.blade_index("blade1")) == 400.0f);
    assert_int_equal(t.blades_by_latency(p1).front(), f.blade_index("blade1"));
    assert_int_equal(t.nearest(p1), 200);
}

static void no_transit_through_blades_or_pods(void **) {
    // b1 touches both switches; a path s1 -> b1 -> s2 would be 20ns, but blades are endpoints.
    const char *json = R"({
      "pods": [{"name":"p1","nodes":"a1"}, {"name":"p2","nodes":"a2"}],
      "switches": [{"name":"s1"}, {"name":"s2"}],
      "blades": [{"name":"b1"}, {"name":"b2"}],
      "links": [
        {"from":"p1","to":"s1","latency":10,"bandwidth":100},
        {"from":"b1","to":"s1","latency":10,"bandwidth":100},
        {"from":"b1","to":"s2","latency":10,"bandwidth":100},
        {"from":"b2","to":"s2","latency":10,"bandwidth":100},
        {"from":"p2","to":"s1","latency":1,"bandwidth":100},
        {"from":"p2","to":"s2","latency":1,"bandwidth":100}
      ]})";
    Fabric f = parse_fabric(json, "t.json");
    LatencyTable t(f);
    assert_int_equal(t.latency(0, 0), 20);
    assert_int_equal(t.latency(0, 1), kUnreachable);  // only via b1 or p2: neither is transit
    assert_int_equal(t.blades_by_latency(0).size(), 1);
    assert_int_equal(t.latency(1, 1), 11);
}

static void widest_of_parallel_links(void **) {
    const char *json = R"({
      "pods": [{"name":"p1","nodes":"a1","node_latency":"5ns"}],
      "switches": [{"name":"s1"}],
      "blades": [{"name":"b1"}],
      "links": [
        {"from":"p1","to":"s1","latency":10,"bandwidth":100},
        {"from":"p1","to":"s1","latency":10,"bandwidth":800},
        {"from":"s1","to":"b1","latency":10,"bandwidth":400}
      ]})";
    Fabric f = parse_fabric(json, "t.json");
    LatencyTable t(f);
    assert_int_equal(t.latency(0, 0), 25);
    assert_true(t.bandwidth(0, 0) == 400.0f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(example_latencies), cmocka_unit_test(no_transit_through_blades_or_pods),
        cmocka_unit_test(widest_of_parallel_links),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
