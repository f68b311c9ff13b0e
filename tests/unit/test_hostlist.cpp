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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expands_padded_ranges), cmocka_unit_test(expands_lists_and_products),
        cmocka_unit_test(malformed_lists_are_errors), cmocka_unit_test(compresses_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
