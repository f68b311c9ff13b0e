// Fabric map reader: the example loads; every kind of bad input names file, path and fix.
#include "fabric.hpp"
#include "test_support.hpp"

using namespace morpheus;

static const char *kValid = R"({
  "version": 1,
  "pods": [{"name": "p1", "nodes": "n[1-2]", "gpus_per_node": 8}],
  "switches": [{"name": "s1", "tier": "leaf"}],
  "blades": [{"name": "b1"}],
  "links": [{"from": "p1", "to": "s1", "latency": "100ns", "bandwidth": 400},
            {"from": "b1", "to": "s1", "latency": 50, "bandwidth": 200}]
})";

static std::string with(const std::string &from, const std::string &to) {
    std::string s = kValid;
    size_t at = s.find(from);
    assert_true(at != std::string::npos);
    return s.replace(at, from.size(), to);
}

static void example_loads(void **) {
    Fabric f = read_fabric(top_srcdir("etc/fabric.json"));
    assert_int_equal(f.pods.size(), 4);
    assert_int_equal(f.node_names.size(), 16);
    assert_int_equal(f.gpu_count(), 128);
    assert_int_equal(f.blades.size(), 8);
    assert_int_equal(f.node_pod[f.node_index("gpu203")], f.pod_index("pod2"));
    assert_int_equal(f.node_index("gpu999"), -1);
}

static void valid_minimal(void **) {
    Fabric f = parse_fabric(kValid, "mem.json");
    assert_int_equal(f.links.size(), 2);
    assert_int_equal(f.links[1].latency_ns, 50);
    assert_int_equal(f.blade_index("b1"), 0);
    assert_int_equal(f.pod_index("b1"), -1);
}

static void broken_json_names_line(void **) {
    expect_input_error([] { parse_fabric("{\"pods\": [", "f.json"); }, {"f.json", "line 1", "invalid JSON"});
    expect_input_error([] { read_fabric("/nonexistent/fabric.json"); }, {"/nonexistent/fabric.json", "cannot read"});
}

static void link_to_undeclared_blade(void **) {
    expect_input_error([] { parse_fabric(with("\"from\": \"b1\"", "\"from\": \"b9\""), "f.json"); },
                       {"f.json", "$.links[1].from", "\"b9\"", "not a declared"});
}

static void other_bad_input(void **) {
    expect_input_error([] { parse_fabric(with("\"bandwidth\": 200", "\"bandwidth\": -1"), "f.json"); },
                       {"$.links[1].bandwidth", "positive"});
    expect_input_error([] { parse_fabric(with("\"latency\": 50", "\"latency\": \"50 parsecs\""), "f.json"); },
                       {"$.links[1].latency", "unknown time unit"});
    expect_input_error([] { parse_fabric(with("\"latency\": 50", "\"latency\": -50"), "f.json"); },
                       {"$.links[1].latency", "negative"});
    expect_input_error([] { parse_fabric(with("\"name\": \"s1\"", "\"name\": \"p1\""), "f.json"); },
                       {"already declared"});
    expect_input_error([] { parse_fabric(with("\"nodes\": \"n[1-2]\"", "\"nodes\": \"n[1-2\""), "f.json"); },
                       {"$.pods[0].nodes", "unmatched"});
    expect_input_error([] { parse_fabric(with("\"tier\": \"leaf\"", "\"teir\": \"leaf\""), "f.json"); },
                       {"$.switches[0].teir", "unknown field"});
    expect_input_error([] { parse_fabric(with("\"from\": \"b1\", \"to\": \"s1\"", "\"from\": \"s1\", \"to\": \"s1\""), "f.json"); },
                       {"to itself"});
    expect_input_error([] { parse_fabric(with("\"version\": 1", "\"version\": 7"), "f.json"); }, {"unsupported version"});
    expect_input_error([] { parse_fabric(with("\"gpus_per_node\": 8", "\"gpus_per_node\": -8"), "f.json"); },
                       {"gpus_per_node", "negative"});
    expect_input_error([] { parse_fabric(with("\"name\": \"b1\"", "\"name\": \"b 1\""), "f.json"); }, {"character"});
}

static void node_in_two_pods(void **) {
    std::string s = with("[{\"name\": \"p1\", \"nodes\": \"n[1-2]\", \"gpus_per_node\": 8}]",
                         "[{\"name\": \"p1\", \"nodes\": \"n[1-2]\"}, {\"name\": \"p2\", \"nodes\": \"n2\"}]");
    expect_input_error([&] { parse_fabric(s, "f.json"); }, {"$.pods[1].nodes", "n2", "already in pod p1"});
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(example_loads),       cmocka_unit_test(valid_minimal),
        cmocka_unit_test(broken_json_names_line), cmocka_unit_test(link_to_undeclared_blade),
        cmocka_unit_test(other_bad_input),     cmocka_unit_test(node_in_two_pods),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
