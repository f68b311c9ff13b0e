// Sizes and latencies: accepted forms and every kind of typo.
#include "test_support.hpp"
#include "charge.hpp"
#include "request.hpp"
#include "units.hpp"

using namespace morpheus;

static void sizes_use_powers_of_1024(void **) {
    assert_int_equal(parse_size("512"), 512);
    assert_int_equal(parse_size("1K"), 1024);
    assert_int_equal(parse_size("64G"), 64ULL << 30);
    assert_int_equal(parse_size("64g"), 64ULL << 30);
    assert_int_equal(parse_size("64GB"), 64ULL << 30);
    assert_int_equal(parse_size("64GiB"), 64ULL << 30);
    assert_int_equal(parse_size("2T"), 2ULL << 40);
    assert_int_equal(parse_size("1.5T"), 3ULL << 39);
}

static void size_typos_are_errors(void **) {
    expect_input_error([] { parse_size("64GG", "--mem-hot"); }, {"--mem-hot", "64GG"});
    expect_input_error([] { parse_size("12XB"); }, {"unknown size unit", "12XB"});
    expect_input_error([] { parse_size(""); }, {"not a number"});
    expect_input_error([] { parse_size("-5G"); }, {"not a number"});
    expect_input_error([] { parse_size("G"); }, {"not a number"});
    expect_input_error([] { parse_size("1e9"); }, {"unknown size unit"});
    expect_input_error([] { parse_size("99999999999P"); }, {"too large"});
    expect_input_error([] { parse_size("5 G G"); }, {"unknown size unit"});
}

static void latencies_parse_with_units(void **) {
    assert_int_equal(parse_latency("350ns"), 350);
    assert_int_equal(parse_latency("350"), 350);
    assert_int_equal(parse_latency("1.2us"), 1200);
    assert_int_equal(parse_latency("2ms"), 2000000);
    assert_int_equal(parse_latency("1s"), 1000000000);
    assert_int_equal(parse_latency("350NS"), 350);
}

static void latency_typos_are_errors(void **) {
    expect_input_error([] { parse_latency("350 nsec"); }, {"unknown time unit"});
    expect_input_error([] { parse_latency("fast"); }, {"not a number"});
    expect_input_error([] { parse_latency("1.2.3us"); }, {"unknown time unit"});
}

static void formats_round_trip(void **) {
    assert_string_equal(format_size(64ULL << 30).c_str(), "64G");
    assert_string_equal(format_size(3ULL << 39).c_str(), "1.5T");
    assert_string_equal(format_size(100).c_str(), "100");
    assert_string_equal(format_latency(350).c_str(), "350ns");
    assert_string_equal(format_latency(1200).c_str(), "1.2us");
    assert_int_equal(parse_size(format_size(512ULL << 30)), 512ULL << 30);
}

// Sizes are exact 64-bit integers: no double rounding, no wrap past 2^64.
static void sizes_are_exact_and_never_wrap(void **) {
    assert_true(parse_size("18014398509481985") == 18014398509481985ULL);  // 2^54 + 1, not rounded
    assert_true(parse_size("16383P") == 16383ULL << 50);
    expect_input_error([] { parse_size("16384P", "--mem-hot"); }, {"--mem-hot", "too large"});
    expect_input_error([] { parse_size("99999999999999999999P", "--mem-cold"); }, {"--mem-cold", "too large"});
    expect_input_error([] { parse_size("18446744073709551616"); }, {"too large"});
}

// A latency beyond 1 s is a typo, and would wrap or clamp in path sums.
static void latencies_are_capped_at_one_second(void **) {
    assert_int_equal(parse_latency("1s"), 1000000000);
    expect_input_error([] { parse_latency("18s", "links[0].latency"); }, {"links[0].latency", "1s maximum"});
    expect_input_error([] { parse_latency("9223372036854775807"); }, {"1s maximum"});
}

// Job flags read like sbatch's --mem: a plain number is megabytes (files keep bytes).
static void flag_sizes_without_unit_are_megabytes(void **) {
    Request r;
    parse_memory_flags(r, "262144", nullptr, "1024");
    assert_true(r.hot_per_node == 256ULL << 30);
    assert_true(r.cold_per_node == 1ULL << 30);
    parse_memory_flags(r, "64G", nullptr, "512M");
    assert_true(r.hot_per_node == 64ULL << 30);
    assert_true(r.cold_per_node == 512ULL << 20);
    expect_input_error(
        [] {
            Request q;
            parse_memory_flags(q, "18446744073709551615", nullptr, nullptr);
        },
        {"--mem-hot", "more than 2^64"});
}

// Blade memory as Slurm licenses (accounting): GiB rounded up, over all nodes, per tier.
static void licenses_count_gib_over_all_nodes(void **) {
    Request r;
    r.hot_per_node = 64ULL << 30;
    r.cold_per_node = (1ULL << 30) + 1;  // 4 x (1 GiB + 1 byte): 4 GiB and 4 bytes bill 5
    assert_string_equal(license_request(r, 4, "hot_gb", "cold_gb").c_str(), "hot_gb:256,cold_gb:5");
    assert_string_equal(license_request(r, 4, "hot_gb", "").c_str(), "hot_gb:256");
    assert_string_equal(license_request(r, 4, "", "").c_str(), "");
    r.cold_per_node = 0;
    assert_string_equal(license_request(r, 2, "hot_gb", "cold_gb").c_str(), "hot_gb:128");
    r.hot_per_node = UINT64_MAX;  // saturates, never wraps to a small count
    assert_string_equal(license_request(r, 4, "h", "").c_str(), "h:17179869184");
}

// The charge covers the most nodes a job can get, whichever form sizes it (issue 24).
static void charge_counts_the_most_nodes(void **) {
    auto most = [](uint32_t min, uint32_t max, uint32_t tasks, uint32_t gpus) {
        JobSize s;
        s.min_nodes = min;
        s.max_nodes = max;
        s.tasks = tasks;
        s.gpus = gpus;
        s.cluster_nodes = 16;
        return most_nodes(s);
    };
    assert_int_equal(most(1, 4, 0, 0), 4);  // -N1-4: four nodes may come
    assert_int_equal(most(2, 2, 0, 0), 2);  // -N2
    assert_int_equal(most(0, 0, 4, 4), 4);  // -n4 --gpus=4: a node each at most
    assert_int_equal(most(0, 0, 128, 0), 16);  // -n128: every node of the cluster
    assert_int_equal(most(0, 0, 0, 16), 16);  // --gpus=16: one per node at most
    assert_int_equal(most(0, 0, 0, 0), 1);  // no size: one node
    assert_int_equal(most(8, 0, 2, 0), 8);  // never fewer than MIN
    assert_int_equal(most(1, 100, 0, 0), 16);  // never more than the cluster
}

// A licence the user names never lowers the charge; other licences are kept.
static void charge_is_never_lowered(void **) {
    assert_string_equal(merge_charge("", "hot:500", "-L").c_str(), "hot:500");
    assert_string_equal(merge_charge("hot:0", "hot:500", "-L").c_str(), "hot:500");
    assert_string_equal(merge_charge("hot", "hot:500,cold:1024", "-L").c_str(), "hot:500,cold:1024");
    assert_string_equal(merge_charge("fs:2,hot:900", "hot:500", "-L").c_str(), "fs:2,hot:900");
    assert_string_equal(merge_charge("hot:1,hot:2", "hot:500", "-L").c_str(), "hot:500");
    assert_string_equal(merge_charge("a|b", "hot:5", "-L").c_str(), "a|b,hot:5");
    expect_input_error([] { merge_charge("hot:1|fs:1", "hot:5", "--licenses"); },
                       {"--licenses", "hot", "alternatives"});
    assert_int_equal(license_count("fs:2,hot:900,hot", "hot"), 901);
    assert_int_equal(license_count("hot@db:3", "hot"), 0);
    assert_int_equal(license_count("", "hot"), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes_use_powers_of_1024),
        cmocka_unit_test(size_typos_are_errors),
        cmocka_unit_test(latencies_parse_with_units),
        cmocka_unit_test(latency_typos_are_errors),
        cmocka_unit_test(formats_round_trip),
        cmocka_unit_test(sizes_are_exact_and_never_wrap),
        cmocka_unit_test(latencies_are_capped_at_one_second),
        cmocka_unit_test(flag_sizes_without_unit_are_megabytes),
        cmocka_unit_test(licenses_count_gib_over_all_nodes),
        cmocka_unit_test(charge_counts_the_most_nodes),
        cmocka_unit_test(charge_is_never_lowered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
