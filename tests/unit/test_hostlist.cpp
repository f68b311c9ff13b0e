// Hostlist expressions as Slurm writes them.
#include "hostlist.hpp"
#include "test_support.hpp"

using namespace morpheus;

static void expands_padded_ranges(void **) {
    auto v = expand_hostlist("gpu[0000-0511]");
    assert_int_equal(v.size(), 512);
    assert_string_equal(v.front().c_str(), "gpu0000");
    assert_string_equal(v.back().c_str(), "gpu0511");
}

static void expands_lists_and_products(void **) {
    auto v = expand_hostlist("n[1-3,7],login0");
    assert_int_equal(v.size(), 5);
    assert_string_equal(v[3].c_str(), "n7");
    assert_string_equal(v[4].c_str(), "login0");
    auto w = expand_hostlist("r[1-2]n[01-02]");
    assert_int_equal(w.size(), 4);
    assert_string_equal(w[1].c_str(), "r1n02");
    assert_string_equal(w[2].c_str(), "r2n01");
}

static void malformed_lists_are_errors(void **) {
    expect_input_error([] { expand_hostlist("gpu[01-04", "$.pods[0].nodes"); }, {"$.pods[0].nodes", "unmatched '['"});
    expect_input_error([] { expand_hostlist("gpu[04-01]"); }, {"backwards"});
    expect_input_error([] { expand_hostlist("gpu[a-b]"); }, {"bad range"});
    expect_input_error([] { expand_hostlist("gpu1,,gpu2"); }, {"empty host name"});
    expect_input_error([] { expand_hostlist("gpu[0-99999999]"); }, {"too many"});
    expect_input_error([] { expand_hostlist("gpu1 gpu2"); }, {"space"});
    // Found by the fuzzer: products of ranges were built before their size was checked.
    expect_input_error([] { expand_hostlist("A[0003-5001][1,7]b[0003-5001][1,7]"); }, {"too many"});
}

static void compresses_back(void **) {
    assert_string_equal(compress_hostlist(expand_hostlist("gpu[0000-0511]")).c_str(), "gpu[0000-0511]");
    assert_string_equal(compress_hostlist({"n1", "n2", "n3", "n7"}).c_str(), "n[1-3,7]");
    assert_string_equal(compress_hostlist({"n9", "n10"}).c_str(), "n[9-10]");
    assert_string_equal(compress_hostlist({"login"}).c_str(), "login");
}

// Counted before expansion: a long prefix times a big range, or many repeated ranges, is refused
// without building the names (this took 16 GB and 83 s before).
static void size_is_counted_before_expansion(void **) {
    std::string prefix(4000, 'x');
    expect_input_error([&] { expand_hostlist(prefix + "[0-999999]"); }, {"too many"});
    std::string repeated = "n[";
    for (int i = 0; i < 200; ++i) repeated += (i ? "," : "") + std::string("0-99999");
    expect_input_error([&] { expand_hostlist(repeated + "]"); }, {"too many"});
    // A shared budget: the second list is charged for what the first used.
    HostlistLimits budget{10, 1000};
    assert_int_equal(expand_hostlist("a[1-6]", "pods[0].nodes", budget).size(), 6);
    expect_input_error([&] { expand_hostlist("b[1-6]", "pods[1].nodes", budget); }, {"pods[1].nodes", "too many"});
    assert_int_equal(expand_hostlist("b[1-4]", "pods[1].nodes", budget).size(), 4);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expands_padded_ranges),
        cmocka_unit_test(expands_lists_and_products),
        cmocka_unit_test(malformed_lists_are_errors),
        cmocka_unit_test(compresses_back),
        cmocka_unit_test(size_is_counted_before_expansion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
