// morpheus.conf: defaults, every key, and errors naming the line.
#include "config.hpp"
#include "test_support.hpp"

using namespace morpheus;

static void example_conf_loads(void **) {
    Config c = read_config(top_srcdir("etc/morpheus.conf"));
    assert_non_null(std::strstr(c.fabric_file.c_str(), "etc/fabric.json"));
    assert_int_equal(c.placement.default_hot_latency_ns, 500);
    assert_int_equal(static_cast<int>(c.failure_policy), static_cast<int>(BladeFailurePolicy::Requeue));
}

static void keys_are_case_insensitive_and_typed(void **) {
    Config c = parse_config(
        "fabricfile=/f.json\nINVENTORYFILE = /i.json # comment\n"
        "DefaultHotLatency=1.2us\nWeightLoad=2\nBladeFailurePolicy=signal\nStatusPort=6999\n",
        "/etc/slurm/morpheus.conf");
    assert_string_equal(c.fabric_file.c_str(), "/f.json");
    assert_int_equal(c.placement.default_hot_latency_ns, 1200);
    assert_true(c.placement.weights.load == 2.0);
    assert_int_equal(c.status_port, 6999);
    assert_int_equal(c.plan_depth, 8);  // default
    assert_int_equal(parse_config("FabricFile=f\nInventoryFile=i\nPlanDepth=0\n", "m.conf").plan_depth, 0);
    assert_string_equal(c.status_address.c_str(), "");  // unset: the plugin's default
    Config addr = parse_config("FabricFile=f\nInventoryFile=i\nStatusAddress=10.0.0.1\n", "m.conf");
    assert_string_equal(addr.status_address.c_str(), "10.0.0.1");
    assert_int_equal(static_cast<int>(c.placement.hot_blade_order), static_cast<int>(HotBladeOrder::Nearest));
    Config slack = parse_config("FabricFile=f\nInventoryFile=i\nhotbladeorder=Slack\n", "m.conf");
    assert_int_equal(static_cast<int>(slack.placement.hot_blade_order), static_cast<int>(HotBladeOrder::Slack));
    Config rel = parse_config("FabricFile=f.json\nInventoryFile=i.json\n", "/etc/slurm/morpheus.conf");
    assert_string_equal(rel.fabric_file.c_str(), "/etc/slurm/f.json");
}

static void bad_lines_name_the_line(void **) {
    expect_input_error([] { parse_config("FabricFile=f\nInventoryFile=i\nWeigthLoad=1\n", "m.conf"); },
                       {"m.conf", "line 3", "unknown key \"WeigthLoad\""});
    expect_input_error([] { parse_config("FabricFile=f\nInventoryFile=i\nDefaultHotLatency=fast\n", "m.conf"); },
                       {"m.conf", "line 3", "not a number"});
    expect_input_error([] { parse_config("FabricFile=f\nInventoryFile\n", "m.conf"); }, {"line 2", "Key=Value"});
    expect_input_error([] { parse_config("FabricFile=f\nInventoryFile=i\nPlanDepth=-1\n", "m.conf"); },
                       {"m.conf", "line 3", "PlanDepth=-1", "0 to 1024"});
    expect_input_error([] { parse_config("FabricFile=f\nInventoryFile=i\nPlanDepth=eight\n", "m.conf"); },
                       {"line 3", "0 to 1024"});
    expect_input_error([] { parse_config("FabricFile=f\nInventoryFile=i\nPlanDepth=1025\n", "m.conf"); },
                       {"line 3", "0 to 1024"});
    expect_input_error([] { parse_config("FabricFile=f\nInventoryFile=i\nWeightLoad=-1\n", "m.conf"); },
                       {"line 3", "not a weight"});
    expect_input_error([] { parse_config("FabricFile=f\nInventoryFile=i\nBladeFailurePolicy=panic\n", "m.conf"); },
                       {"line 3", "requeue, signal or none"});
    expect_input_error([] { parse_config("FabricFile=f\nInventoryFile=i\nHotBladeOrder=far\n", "m.conf"); },
                       {"line 3", "HotBladeOrder=far", "nearest or slack"});
    expect_input_error([] { parse_config("InventoryFile=i\n", "m.conf"); }, {"FabricFile is not set"});
    expect_input_error([] { parse_config("FabricFile=f\nInventoryFile=i\nStatusAddress=10.0.0.1;rm\n", "m.conf"); },
                       {"m.conf", "line 3", "StatusAddress=10.0.0.1;rm is not an address", "0.0.0.0"});
}

// DefaultHotLatency=0 divided every score by zero (NaN ranks); a FIFO as the config hung.
static void zero_bound_and_special_files_are_refused(void **) {
    expect_input_error([] { parse_config("FabricFile=/f\nInventoryFile=/i\nDefaultHotLatency=0\n", "m.conf"); },
                       {"m.conf", "line 3", "DefaultHotLatency", "positive"});
    expect_input_error([] { parse_config("FabricFile=/f\nInventoryFile=/i\nDefaultHotLatency=2s\n", "m.conf"); },
                       {"line 3", "1s maximum"});
    expect_input_error([] { read_config("/dev/null"); }, {"/dev/null", "not a regular file"});
}

static void license_names_are_slurm_names(void **) {
    Config c =
        parse_config("FabricFile=/f\nInventoryFile=/i\nLicenseHot=blade_hot_gb\nlicensecold=cold-gb\n", "m.conf");
    assert_string_equal(c.license_hot.c_str(), "blade_hot_gb");
    assert_string_equal(c.license_cold.c_str(), "cold-gb");
    assert_true(parse_config("FabricFile=/f\nInventoryFile=/i\n", "m.conf").license_hot.empty());
    expect_input_error([] { parse_config("FabricFile=/f\nInventoryFile=/i\nLicenseHot=a:5\n", "m.conf"); },
                       {"m.conf", "line 3", "not a license name", "LicenseHot=blade_hot_gb"});
}

// The heat map's keys: defaults, each key, and bad values naming the line, key and fix.
static void heat_map_keys(void **) {
    Config d = parse_config("FabricFile=/f\nInventoryFile=/i\n", "m.conf");
    assert_int_equal(static_cast<int>(d.heat_map.figure), static_cast<int>(HeatFigure::P99));
    assert_int_equal(d.heat_map.samples, 32);
    assert_int_equal(d.heat_map.window_s, 300);
    assert_int_equal(d.heat_map.stale_s, 600);
    assert_true(d.heat_map.hysteresis == 0.10);
    assert_int_equal(d.heat_map.rounds, 2);
    Config c = parse_config(
        "FabricFile=/f\nInventoryFile=/i\nHeatMapFigure=P50\nheatmapsamples=8\nHeatMapWindow=60\n"
        "HeatMapStale=120\nHeatMapHysteresis=0.25\nHeatMapRounds=3\n",
        "m.conf");
    assert_int_equal(static_cast<int>(c.heat_map.figure), static_cast<int>(HeatFigure::P50));
    assert_int_equal(c.heat_map.samples, 8);
    assert_int_equal(c.heat_map.window_s, 60);
    assert_int_equal(c.heat_map.stale_s, 120);
    assert_true(c.heat_map.hysteresis == 0.25);
    assert_int_equal(c.heat_map.rounds, 3);
    assert_true(parse_config("FabricFile=/f\nInventoryFile=/i\nHeatMapHysteresis=0\n", "m.conf").heat_map.hysteresis ==
                0.0);

    expect_input_error([] { parse_config("FabricFile=/f\nInventoryFile=/i\nHeatMapFigure=p90\n", "m.conf"); },
                       {"m.conf", "line 3", "HeatMapFigure=p90 is unknown", "p50 or p99"});
    expect_input_error([] { parse_config("FabricFile=/f\nInventoryFile=/i\nHeatMapSamples=0\n", "m.conf"); },
                       {"m.conf", "line 3", "HeatMapSamples=0 is not a number of samples", "1 to 1024"});
    expect_input_error([] { parse_config("FabricFile=/f\nInventoryFile=/i\nHeatMapSamples=5000\n", "m.conf"); },
                       {"line 3", "1 to 1024", "HeatMapSamples=32"});
    expect_input_error([] { parse_config("FabricFile=/f\nInventoryFile=/i\nHeatMapWindow=5m\n", "m.conf"); },
                       {"line 3", "HeatMapWindow=5m is not a number of seconds", "1 to 86400"});
    expect_input_error([] { parse_config("FabricFile=/f\nInventoryFile=/i\nHeatMapStale=-1\n", "m.conf"); },
                       {"line 3", "HeatMapStale=-1", "1 to 604800"});
    expect_input_error([] { parse_config("FabricFile=/f\nInventoryFile=/i\nHeatMapHysteresis=10%\n", "m.conf"); },
                       {"line 3", "HeatMapHysteresis=10% is not a fraction", "HeatMapHysteresis=0.10"});
    expect_input_error([] { parse_config("FabricFile=/f\nInventoryFile=/i\nHeatMapHysteresis=nan\n", "m.conf"); },
                       {"line 3", "not a fraction"});
    expect_input_error([] { parse_config("FabricFile=/f\nInventoryFile=/i\nHeatMapRounds=0\n", "m.conf"); },
                       {"line 3", "HeatMapRounds=0 is not a number of settle rounds", "1 to 100"});
    expect_input_error([] { parse_config("FabricFile=/f\nInventoryFile=/i\nHeatMapRound=2\n", "m.conf"); },
                       {"line 3", "unknown key \"HeatMapRound\"", "HeatMapRounds"});
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(example_conf_loads),
        cmocka_unit_test(keys_are_case_insensitive_and_typed),
        cmocka_unit_test(bad_lines_name_the_line),
        cmocka_unit_test(zero_bound_and_special_files_are_refused),
        cmocka_unit_test(license_names_are_slurm_names),
        cmocka_unit_test(heat_map_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
