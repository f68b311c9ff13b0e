// Replays every input the fuzzers ever found (tests/fuzz/regressions/<target>/) and the
// bad-input fixtures through the fuzz entry points, under the normal build.
#include <dirent.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "../fuzz/fuzz_targets.hpp"
#include "test_support.hpp"

static std::vector<std::string> files_in(const std::string &dir) {
    std::vector<std::string> out;
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d))
            if (e->d_name[0] != '.' && std::string(e->d_name) != "README") out.push_back(dir + "/" + e->d_name);
        closedir(d);
    }
    return out;
}

static void replay(const char *target, void (*fn)(const uint8_t *, size_t), const std::vector<std::string> &extra) {
    std::vector<std::string> inputs = files_in(top_srcdir(std::string("tests/fuzz/regressions/") + target));
    inputs.insert(inputs.end(), extra.begin(), extra.end());
    for (const std::string &path : inputs) {
        std::ifstream in(path, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        std::string data = ss.str();
        fn(reinterpret_cast<const uint8_t *>(data.data()), data.size());
    }
}

static void fabric_inputs(void **) {
    replay("fabric", morpheus::fuzz::fabric, {top_srcdir("etc/fabric.json"), test_data("bad/fabric-truncated.json")});
}
static void inventory_inputs(void **) {
    replay("inventory", morpheus::fuzz::inventory, {top_srcdir("etc/inventory.json")});
}
static void units_inputs(void **) { replay("units", morpheus::fuzz::units, {}); }
static void config_inputs(void **) { replay("config", morpheus::fuzz::config, {top_srcdir("etc/morpheus.conf")}); }
static std::vector<std::string> seeds(const char *target) {
    return files_in(top_srcdir(std::string("tests/fuzz/seeds/") + target));
}
static void ledger_inputs(void **) { replay("ledger", morpheus::fuzz::ledger, seeds("ledger")); }
static void placement_inputs(void **) { replay("placement", morpheus::fuzz::placement, seeds("placement")); }
static void status_inputs(void **) { replay("status", morpheus::fuzz::status, seeds("status")); }

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fabric_inputs), cmocka_unit_test(inventory_inputs), cmocka_unit_test(units_inputs),
        cmocka_unit_test(config_inputs), cmocka_unit_test(ledger_inputs),    cmocka_unit_test(placement_inputs),
        cmocka_unit_test(status_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
