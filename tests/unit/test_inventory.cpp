// Inventory reader against a fabric.
#include "fabric.hpp"
#include "inventory.hpp"
#include "test_support.hpp"

using namespace morpheus;

static Fabric example() { return read_fabric(top_srcdir("etc/fabric.json")); }

static void example_loads(void **) {
    Fabric f = example();
    Inventory inv = read_inventory(top_srcdir("etc/inventory.json"), f);
    assert_int_equal(inv.blades.size(), 8);
    assert_int_equal(inv.blades[f.blade_index("blade1")].capacity[0], 1ULL << 40);
    assert_int_equal(inv.blades[f.blade_index("blade5")].capacity[1], 4ULL << 40);
    assert_true(inv.warnings.empty());
}

static void bad_entries(void **) {
    Fabric f = example();
    expect_input_error([&] { parse_inventory(R"({"blades":[{"name":"blade99","dram":"1T"}]})", "i.json", f); },
                       {"i.json", "$.blades[0].name", "blade99", "not in the fabric"});
    expect_input_error([&] { parse_inventory(R"({"blades":[{"name":"blade1","dram":"-1T"}]})", "i.json", f); },
                       {"$.blades[0].dram", "negative"});
    expect_input_error([&] { parse_inventory(R"({"blades":[{"name":"blade1","dram":-4}]})", "i.json", f); },
                       {"$.blades[0].dram", "negative"});
    // Found by the fuzzer: a huge real number used to be cast to an integer (undefined behaviour).
    expect_input_error(
        [&] { parse_inventory(R"({"blades":[{"name":"blade1","dram":666666666666666666666666661.2}]})", "i.json", f); },
        {"$.blades[0].dram", "too large"});
    expect_input_error([&] { parse_inventory(R"({"blades":[{"name":"blade1","dram":"1TT"}]})", "i.json", f); },
                       {"$.blades[0].dram", "unknown size unit"});
    expect_input_error([&] { parse_inventory(R"({"blades":[{"name":"blade1","state":"broken"}]})", "i.json", f); },
                       {"$.blades[0].state", "unknown state"});
    expect_input_error([&] { parse_inventory(R"({"blades":[{"name":"blade1","load":1.5}]})", "i.json", f); },
                       {"$.blades[0].load", "between 0 and 1"});
    expect_input_error([&] { parse_inventory(R"({"blades":[{"name":"blade1"},{"name":"blade1"}]})", "i.json", f); },
                       {"$.blades[1].name", "twice"});
    expect_input_error([&] { parse_inventory(R"({"blades":[{"name":"blade1","hbm":"1T"}]})", "i.json", f); },
                       {"$.blades[0].hbm", "unknown field"});
}

static void missing_blades_warn(void **) {
    Fabric f = example();
    Inventory inv = parse_inventory(R"({"blades":[{"name":"blade1","dram":"1T","state":"draining"}]})", "i.json", f);
    assert_int_equal(inv.warnings.size(), 7);
    assert_int_equal(static_cast<int>(inv.blades[f.blade_index("blade1")].state),
                     static_cast<int>(BladeState::Draining));
    assert_int_equal(static_cast<int>(inv.blades[f.blade_index("blade2")].state), static_cast<int>(BladeState::Absent));
    assert_false(inv.admits(f.blade_index("blade1")));
}

// Names and free text reach slurmctld's log: control characters and foreign bytes are refused,
// and the name is not echoed.
static void unprintable_text_is_refused(void **) {
    Fabric f = example();
    expect_input_error([&] { parse_inventory(R"({"blades":[{"name":"blade1\u001b[31m"}]})", "i.json", f); },
                       {"i.json", "$.blades[0].name", "control character"});
    expect_input_error([&] { parse_inventory(R"({"blades":[{"name":"blade\u00ff"}]})", "i.json", f); },
                       {"$.blades[0].name", "no fabric name may hold"});
    expect_input_error([&] { parse_inventory(R"({"blades":[{"name":"blade1","state":"up\n"}]})", "i.json", f); },
                       {"$.blades[0].state", "control character"});
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(example_loads),
        cmocka_unit_test(bad_entries),
        cmocka_unit_test(missing_blades_warn),
        cmocka_unit_test(unprintable_text_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
