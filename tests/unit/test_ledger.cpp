// Ledger: never over capacity, idempotent release, durable save, strict and faithful reload,
// no reservation lost to a fabric change, one writer at a time.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

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
    Ledger back = Ledger::load(path, f.fabric);
    assert_int_equal(back.reservations().size(), 2);
    assert_int_equal(back.reserved(f.b1, Tier::Dram), 64ULL << 30);
    assert_int_equal(back.reserved(f.b1 + 4, Tier::Pmem), 1ULL << 40);
    assert_int_equal(back.find(7)->uid, 1007);
    assert_string_equal(back.find(7)->nodes[0].c_str(), "gpu101");
}

static std::string slurp(const std::string &path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

static void missing_file_is_empty_and_vanished_blade_refuses(void **) {
    Fixture f;
    Ledger none = Ledger::load("/nonexistent/ledger.json", f.fabric);
    assert_int_equal(none.reservations().size(), 0);
    std::string path = temp_path("ledger.json");
    std::ofstream(path) << R"({"version":1,"jobs":[{"job_id":5,"uid":0,"since":0,"pods":[{"pod":"pod1","nodes":1}],
      "nodes":["gpu101"],"segments":[{"blade":"gone","tier":"dram","use":"hot","bytes":10,"latency_ns":1,"pod":"pod1"},
      {"blade":"blade1","tier":"dram","use":"hot","bytes":20,"latency_ns":1,"pod":"pod1"}]}]})";
    // Dropping job 5's segment on "gone" would give that memory to the next job: refused.
    expect_input_error([&] { Ledger::load(path, f.fabric); },
                       {"fabric.json", "blade \"gone\"", "job 5", "drain the blade", "remove"});
}

static Fabric fabric_without_blade1(const Fixture &f, std::string *file) {
    std::string text = slurp(top_srcdir("etc/fabric.json"));
    for (size_t at; (at = text.find("\"blade1\"")) != std::string::npos;) text.replace(at, 8, "\"blade1-renamed\"");
    *file = temp_path("fabric.json");
    std::ofstream(*file) << text;
    return read_fabric(*file);
}

static void rebind_refuses_to_orphan_a_reservation(void **) {
    Fixture f;
    Ledger l(f.fabric.blades.size());
    assert_true(l.reserve(job(3, f.b1, 1ULL << 30), f.inv));
    assert_true(l.reserve(job(4, f.b1, 1ULL << 30), f.inv));
    std::string file;
    Fabric renamed = fabric_without_blade1(f, &file);
    expect_input_error([&] { l.rebind(f.fabric, renamed); },
                       {file.c_str(), "blade \"blade1\"", "jobs 3,4", "wait for jobs 3,4 to end", "keep the blade"});
    // The same fabric rebinds faithfully.
    Ledger same = l.rebind(f.fabric, f.fabric);
    assert_int_equal(same.reserved(f.b1, Tier::Dram), 2ULL << 30);
}

static const char *kV1 = R"({"version":1,"jobs":[{"job_id":5,"uid":1000,"since":7,"pods":[{"pod":"pod1","nodes":1}],
  "nodes":["gpu101"],"segments":[{"blade":"blade1","tier":"dram","use":"hot","bytes":20,"latency_ns":1,"pod":"pod1"}]}]})";

static void expect_refused(const Fixture &f, std::string text, const char *from, const char *to,
                           std::initializer_list<const char *> needles) {
    size_t at = text.find(from);
    assert_true(at != std::string::npos);
    text.replace(at, std::strlen(from), to);
    std::string path = temp_path("ledger.json");
    std::ofstream(path) << text;
    expect_input_error([&] { Ledger::load(path, f.fabric); }, needles);
}

static void strict_reading(void **) {
    Fixture f;
    // Version 1 (no checksum) is read for the upgrade and written back as version 2.
    std::string path = temp_path("ledger.json");
    std::ofstream(path) << kV1;
    Ledger v1 = Ledger::load(path, f.fabric);
    assert_int_equal(v1.reserved(f.b1, Tier::Dram), 20);
    v1.save(path, f.fabric);
    assert_non_null(std::strstr(slurp(path).c_str(), "\"version\":2"));
    assert_non_null(std::strstr(slurp(path).c_str(), "\"checksum\":\"fnv1a64:"));
    assert_int_equal(Ledger::load(path, f.fabric).reserved(f.b1, Tier::Dram), 20);

    std::string dup = kV1;
    dup.insert(dup.rfind("]}"), R"(,{"job_id":5,"uid":1,"since":0,"pods":[],"nodes":[],"segments":[]})");
    std::ofstream(path) << dup;
    expect_input_error([&] { Ledger::load(path, f.fabric); }, {"ledger.json", "job 5 is listed twice"});
    expect_refused(f, kV1, "\"uid\":1000", "\"uid\":4294967296", {"uid", "32 bits", "remove"});
    expect_refused(f, kV1, "\"dram\"", "\"hbm\"", {"tier", "unknown tier \"hbm\""});
    expect_refused(f, kV1, "\"hot\"", "\"warm\"", {"use", "unknown use \"warm\""});
    expect_refused(f, kV1, "\"version\":1", "\"version\":3", {"unsupported ledger version 3"});
    expect_refused(f, kV1, "\"since\":7", "\"since\":7,\"color\":1", {"unknown field \"color\""});
    expect_refused(f, kV1, "\"version\":1", "\"version\":2", {"checksum"});
    expect_refused(f, kV1, "\"job_id\":5", "\"job_id\":0", {"job id 0"});
    // Two segments of 2^63-1 bytes and one of 2 wrap a uint64 sum to 0: refused, not counted.
    std::string big =
        R"({"blade":"blade1","tier":"dram","use":"hot","bytes":9223372036854775807,"latency_ns":1,"pod":"pod1"})";
    expect_refused(f, kV1, "\"segments\":[", ("\"segments\":[" + big + "," + big + ",").c_str(),
                   {"bytes", "more than 2^64"});
}

static void reserve_refuses_wrapping_sum(void **) {
    Fixture f;
    Ledger l(f.fabric.blades.size());
    Reservation r = job(1, f.b1, 1ULL << 63);
    r.segments.push_back(r.segments[0]);
    r.segments.push_back(r.segments[0]);
    r.segments[2].bytes = 10;  // 2^63 + 2^63 + 10 wraps to 10, which "fits"
    std::string why;
    assert_false(l.reserve(r, f.inv, &why));
    assert_int_equal(l.reserved(f.b1, Tier::Dram), 0);
}

// Flips every bit of a small ledger: each load must fail or give exactly the original.
static void every_bit_flip_is_caught(void **) {
    Fixture f;
    Ledger l(f.fabric.blades.size());
    Reservation r = job(7, f.b1, 64ULL << 30);
    r.since = 1700000000;
    r.hot_latency_bound_ns = 250;
    assert_true(l.reserve(r, f.inv));
    assert_true(l.reserve(job(8, f.b1 + 4, 1ULL << 40, Tier::Pmem), f.inv));
    std::string good = l.to_json(f.fabric);
    std::string path = temp_path("ledger.json");
    size_t silent = 0, refused = 0;
    for (size_t i = 0; i < good.size() * 8; ++i) {
        std::string bad = good;
        bad[i / 8] = static_cast<char>(bad[i / 8] ^ (1 << (i % 8)));
        std::ofstream(path, std::ios::trunc) << bad;
        try {
            if (Ledger::load(path, f.fabric).to_json(f.fabric) != good) ++silent;
        } catch (const InputError &) {
            ++refused;
        }
    }
    if (silent)
        std::fprintf(stderr, "%zu of %zu bit flips loaded silently with other content\n", silent, good.size() * 8);
    assert_int_equal(silent, 0);
    assert_true(refused > good.size() * 7);  // whitespace flips may still parse, nothing else
}

static void fifo_is_refused_without_hanging(void **) {
    Fixture f;
    std::string path = temp_path("ledger.json");
    assert_int_equal(mkfifo(path.c_str(), 0600), 0);
    alarm(10);  // the old open() blocked forever waiting for a writer
    expect_input_error([&] { Ledger::load(path, f.fabric); }, {"ledger.json", "not a regular file"});
    alarm(0);
}

// Records the order of the file operations of a save.
static std::vector<std::string> events;
static ssize_t record_write(int fd, const void *d, size_t n) {
    events.push_back("write");
    return ::write(fd, d, n);
}
static int record_fsync(int fd) {
    struct stat st;
    fstat(fd, &st);
    events.push_back(S_ISDIR(st.st_mode) ? "fsync-dir" : "fsync-file");
    return ::fsync(fd);
}
static int record_rename(const char *from, const char *to) {
    events.push_back("rename");
    return ::rename(from, to);
}
static ssize_t disk_full(int, const void *, size_t) {
    errno = ENOSPC;
    return -1;
}

static void save_is_durable_in_order_and_keeps_prev(void **) {
    Fixture f;
    Ledger l(f.fabric.blades.size());
    std::string path = temp_path("ledger.json");
    assert_true(l.reserve(job(1, f.b1, 1ULL << 30), f.inv));
    l.save(path, f.fabric);
    std::string first = slurp(path);
    events.clear();
    set_ledger_file_ops_for_tests({record_write, record_fsync, record_rename});
    assert_true(l.reserve(job(2, f.b1, 1ULL << 30), f.inv));
    l.save(path, f.fabric);
    set_ledger_file_ops_for_tests({});
    // The data reaches the disk before the rename installs it, and the rename before return.
    std::vector<std::string> want = {"write", "fsync-file", "rename", "fsync-dir"};
    assert_true(events == want);
    assert_string_equal(slurp(path + ".prev").c_str(), first.c_str());
}

static void failed_save_installs_nothing(void **) {
    Fixture f;
    Ledger l(f.fabric.blades.size());
    std::string path = temp_path("ledger.json");
    assert_true(l.reserve(job(1, f.b1, 1ULL << 30), f.inv));
    l.save(path, f.fabric);
    std::string before = slurp(path);
    assert_true(l.reserve(job(2, f.b1, 1ULL << 30), f.inv));
    set_ledger_file_ops_for_tests({disk_full, nullptr, nullptr});
    expect_input_error([&] { l.save(path, f.fabric); }, {"ledger.json.new", "No space left"});
    set_ledger_file_ops_for_tests({});
    assert_string_equal(slurp(path).c_str(), before.c_str());
    assert_int_equal(access((path + ".new").c_str(), F_OK), -1);
}

static void one_writer_at_a_time(void **) {
    std::string path = temp_path("ledger.json");
    {
        LedgerLock engine(path, LedgerLock::Writer::Engine);
        // A second writer (another open file description) is refused, naming the holder.
        expect_input_error([&] { LedgerLock tool(path, LedgerLock::Writer::Tool); },
                           {"ledger.json", "another writer", "ledger.json.lock", "engine pid"});
    }
    LedgerLock after(path, LedgerLock::Writer::Tool);  // free again
}

static void tool_refused_while_a_live_engine_owns_the_ledger(void **) {
    std::string path = temp_path("ledger.json");
    // Our parent stands in for a running slurmctld that recorded itself as owner.
    std::ifstream comm("/proc/" + std::to_string(getppid()) + "/comm");
    std::string name;
    std::getline(comm, name);
    std::ofstream(path + ".lock") << "engine pid " << getppid() << " " << name << "\n";
    expect_input_error([&] { LedgerLock tool(path, LedgerLock::Writer::Tool); },
                       {"ledger.json", "running ", std::to_string(getppid()).c_str(), "stop slurmctld"});
    // An owner that is gone does not block.
    std::ofstream(path + ".lock", std::ios::trunc) << "engine pid 2147483600 slurmctld\n";
    LedgerLock tool(path, LedgerLock::Writer::Tool);
}

static void corrupt_file_is_an_error(void **) {
    Fixture f;
    std::string path = temp_path("ledger.json");
    std::ofstream(path) << "{\"version\":1,\"jobs\":[{\"job_id\":";
    expect_input_error([&] { Ledger::load(path, f.fabric); }, {"ledger.json", "invalid JSON"});
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refuses_over_capacity),
        cmocka_unit_test(replace_and_release_idempotently),
        cmocka_unit_test(save_and_load_round_trip),
        cmocka_unit_test(missing_file_is_empty_and_vanished_blade_refuses),
        cmocka_unit_test(corrupt_file_is_an_error),
        cmocka_unit_test(rebind_refuses_to_orphan_a_reservation),
        cmocka_unit_test(strict_reading),
        cmocka_unit_test(reserve_refuses_wrapping_sum),
        cmocka_unit_test(every_bit_flip_is_caught),
        cmocka_unit_test(fifo_is_refused_without_hanging),
        cmocka_unit_test(save_is_durable_in_order_and_keeps_prev),
        cmocka_unit_test(failed_save_installs_nothing),
        cmocka_unit_test(one_writer_at_a_time),
        cmocka_unit_test(tool_refused_while_a_live_engine_owns_the_ledger),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
