// Sizes and latencies: accepted forms and every kind of typo.
#include "test_support.hpp"
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes_use_powers_of_1024), cmocka_unit_test(size_typos_are_errors),
        cmocka_unit_test(latencies_parse_with_units), cmocka_unit_test(latency_typos_are_errors),
        cmocka_unit_test(formats_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
