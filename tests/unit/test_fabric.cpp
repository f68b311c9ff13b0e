// Fabric map reader: the example loads; every kind of bad input names file, path and fix.
#include "fabric.hpp"
#include <sys/stat.h>
#include <unistd.h>

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
    expect_input_error(
        [] { parse_fabric(with("\"from\": \"b1\", \"to\": \"s1\"", "\"from\": \"s1\", \"to\": \"s1\""), "f.json"); },
        {"to itself"});
    expect_input_error([] { parse_fabric(with("\"version\": 1", "\"version\": 7"), "f.json"); },
                       {"unsupported version"});
    expect_input_error([] { parse_fabric(with("\"gpus_per_node\": 8", "\"gpus_per_node\": -8"), "f.json"); },
                       {"gpus_per_node", "negative"});
    expect_input_error([] { parse_fabric(with("\"name\": \"b1\"", "\"name\": \"b 1\""), "f.json"); }, {"character"});
}

static void node_in_two_pods(void **) {
    std::string s = with("[{\"name\": \"p1\", \"nodes\": \"n[1-2]\", \"gpus_per_node\": 8}]",
                         "[{\"name\": \"p1\", \"nodes\": \"n[1-2]\"}, {\"name\": \"p2\", \"nodes\": \"n2\"}]");
    expect_input_error([&] { parse_fabric(s, "f.json"); }, {"$.pods[1].nodes", "n2", "already in pod p1"});
}

// Values are range-checked against what they become; names and free text are printable.
static void values_are_range_checked(void **) {
    // 2^32 GPUs per node used to become 0.
    expect_input_error([] { parse_fabric(with("\"gpus_per_node\": 8", "\"gpus_per_node\": 4294967296"), "f.json"); },
                       {"f.json", "$.pods[0].gpus_per_node", "too large"});
    // int64-max latency used to wrap path sums: a blade 18 s away was used "at 98ns".
    expect_input_error([] { parse_fabric(with("\"latency\": 50", "\"latency\": 9223372036854775807"), "f.json"); },
                       {"f.json", "$.links[1].latency", "1s maximum"});
    expect_input_error([] { parse_fabric(with("\"latency\": \"100ns\"", "\"latency\": \"5s\""), "f.json"); },
                       {"$.links[0].latency", "1s maximum"});
    expect_input_error([] { parse_fabric(with("\"tier\": \"leaf\"", "\"tier\": \"le\\u001b[2Jaf\""), "f.json"); },
                       {"$.switches[0].tier", "control character"});
    expect_input_error([] { parse_fabric(with("\"name\": \"b1\"", "\"name\": \"b\\u00851\""), "f.json"); },
                       {"$.blades[0].name", "control character"});
    expect_input_error([] { parse_fabric(with("\"name\": \"b1\"", "\"name\": \"b\\u00e91\""), "f.json"); },
                       {"$.blades[0].name", "byte"});
    expect_input_error([] { parse_fabric(with("\"n[1-2]\"", "\"n\\u00e9[1-2]\""), "f.json"); },
                       {"$.pods[0].nodes", "no node name may hold"});
}

// Counts are capped before anything is built: nodes over all pods, and the lists themselves.
static void sizes_are_capped(void **) {
    std::string two = with(
        "\"pods\": [{\"name\": \"p1\", \"nodes\": \"n[1-2]\", \"gpus_per_node\": 8}]",
        "\"pods\": [{\"name\": \"p1\", \"nodes\": \"a[0-599999]\"}, {\"name\": \"p2\", \"nodes\": \"b[0-599999]\"}]");
    expect_input_error([&] { parse_fabric(two, "f.json"); }, {"f.json", "$.pods[1].nodes", "too many"});
    std::string blades = "\"blades\": [";
    for (size_t i = 0; i <= kMaxBlades; ++i)
        blades += (i ? ",{\"name\":\"b" : "{\"name\":\"b") + std::to_string(i) + "\"}";
    expect_input_error([&] { parse_fabric(with("\"blades\": [{\"name\": \"b1\"}", blades), "f.json"); },
                       {"$.blades", "more than the 16384"});
}

// A FIFO as the fabric file used to hang the reader (and slurmctld with it).
static void special_files_are_refused(void **) {
    char dir[] = "/tmp/morpheus-fifo-XXXXXX";
    assert_non_null(mkdtemp(dir));
    std::string fifo = std::string(dir) + "/fabric.json";
    assert_int_equal(mkfifo(fifo.c_str(), 0600), 0);
    expect_input_error([&] { read_fabric(fifo); }, {fifo.c_str(), "not a regular file"});
    expect_input_error([&] { read_fabric(dir); }, {"not a regular file"});
    unlink(fifo.c_str());
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(example_loads),
        cmocka_unit_test(valid_minimal),
        cmocka_unit_test(broken_json_names_line),
        cmocka_unit_test(link_to_undeclared_blade),
        cmocka_unit_test(other_bad_input),
        cmocka_unit_test(node_in_two_pods),
        cmocka_unit_test(values_are_range_checked),
        cmocka_unit_test(sizes_are_capped),
        cmocka_unit_test(special_files_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
