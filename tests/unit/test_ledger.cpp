// Ledger: never over capacity, idempotent release, atomic save and faithful reload.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "fabric.hpp"
#include "inventory.hpp"
#include "ledger.hpp"
#include "test_support.hpp"

using namespace morpheus;

struct Fixture {
    Fabric fabric = read_fabric(top_srcdir("etc/fabric.json"));
    Inventory inv = read_inventory(top_srcdir("etc/inventory.json"), fabric);
    uint32_t b1 = static_cast<uint32_t>(fabric.blade_index("blade1"));
};

static Reservation job(uint64_t id, uint32_t blade, uint64_t bytes, Tier tier = Tier::Dram) {
    Reservation r;
    r.job_id = id;
    r.uid = 1000 + static_cast<uint32_t>(id);
    r.pods = {{0, 1}};
    r.nodes = {"gpu101"};
    r.segments = {{blade, tier, Use::Hot, bytes, 200, 0}};
    return r;
}

static std::string temp_path(const char *name) {
    char dir[] = "/tmp/morpheus-ledger-XXXXXX";
    assert_non_null(mkdtemp(dir));
    return std::string(dir) + "/" + name;
}

static void refuses_over_capacity(void **) {
    Fixture f;
    Ledger l(f.fabric.blades.size());
    std::string why;
    assert_true(l.reserve(job(1, f.b1, 600ULL << 30), f.inv, &why));
    assert_false(l.reserve(job(2, f.b1, 600ULL << 30), f.inv, &why));
    assert_non_null(std::strstr(why.c_str(), "free"));
    assert_int_equal(l.reserved(f.b1, Tier::Dram), 600ULL << 30);
    assert_int_equal(l.reservations().size(), 1);
    // Two segments on one blade count together.
    Reservation two = job(3, f.b1, 300ULL << 30);
    two.segments.push_back(two.segments[0]);
    assert_false(l.reserve(two, f.inv, &why));
    assert_int_equal(l.free(f.b1, Tier::Dram, f.inv), 424ULL << 30);
}

static void replace_and_release_idempotently(void **) {
    Fixture f;
    Ledger l(f.fabric.blades.size());
    assert_true(l.reserve(job(1, f.b1, 600ULL << 30), f.inv));
    assert_true(l.reserve(job(1, f.b1, 900ULL << 30), f.inv));  // replaces its own, fits
    assert_int_equal(l.reserved(f.b1, Tier::Dram), 900ULL << 30);
    assert_true(l.release(1));
    assert_false(l.release(1));
    assert_int_equal(l.reserved(f.b1, Tier::Dram), 0);
}

static void save_and_load_round_trip(void **) {
    Fixture f;
    Ledger l(f.fabric.blades.size());
    assert_true(l.reserve(job(7, f.b1, 64ULL << 30), f.inv));
    assert_true(l.reserve(job(8, f.b1 + 4, 1ULL << 40, Tier::Pmem), f.inv));
    std::string path = temp_path("ledger.json");
    l.save(path, f.fabric);
    assert_int_equal(access((path + ".new").c_str(), F_OK), -1);  // the temporary was renamed
    struct stat st;
    assert_int_equal(stat(path.c_str(), &st), 0);
    assert_int_equal(st.st_mode & 077, 0);  // not readable by others
    std::vector<std::string> warnings;
    Ledger back = Ledger::load(path, f.fabric, &warnings);
    assert_true(warnings.empty());
    assert_int_equal(back.reservations().size(), 2);
    assert_int_equal(back.reserved(f.b1, Tier::Dram), 64ULL << 30);
    assert_int_equal(back.reserved(f.b1 + 4, Tier::Pmem), 1ULL << 40);
    assert_int_equal(back.find(7)->uid, 1007);
    assert_string_equal(back.find(7)->nodes[0].c_str(), "gpu101");
}

static void missing_file_is_empty_and_vanished_blade_warns(void **) {
    Fixture f;
    std::vector<std::string> warnings;
    Ledger none = Ledger::load("/nonexistent/ledger.json", f.fabric, &warnings);
    assert_int_equal(none.reservations().size(), 0);
    std::string path = temp_path("ledger.json");
    std::ofstream(path) << R"({"version":1,"jobs":[{"job_id":5,"uid":0,"since":0,"pods":[{"pod":"pod1","nodes":1}],
      "nodes":["gpu101"],"segments":[{"blade":"gone","tier":"dram","use":"hot","bytes":10,"latency_ns":1,"pod":"pod1"},
      {"blade":"blade1","tier":"dram","use":"hot","bytes":20,"latency_ns":1,"pod":"pod1"}]}]})";
    Ledger l = Ledger::load(path, f.fabric, &warnings);
    assert_int_equal(warnings.size(), 1);
    assert_non_null(std::strstr(warnings[0].c_str(), "gone"));
    assert_int_equal(l.reserved(f.b1, Tier::Dram), 20);
}

static void corrupt_file_is_an_error(void **) {
    Fixture f;
    std::string path = temp_path("ledger.json");
    std::ofstream(path) << "{\"version\":1,\"jobs\":[{\"job_id\":";
    expect_input_error([&] { Ledger::load(path, f.fabric, nullptr); }, {"ledger.json", "invalid JSON"});
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refuses_over_capacity),
        cmocka_unit_test(replace_and_release_idempotently),
        cmocka_unit_test(save_and_load_round_trip),
        cmocka_unit_test(missing_file_is_empty_and_vanished_blade_warns),
        cmocka_unit_test(corrupt_file_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
