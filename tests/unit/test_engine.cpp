// The engine through its C ABI, as the plugins use it: open, plan, reserve, release, reload
// with bad files (last good stays), inventory refresh and blade failure, restart recovery.
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "engine.hpp"
#include "ledger.hpp"
#include "metrics.hpp"
#include "move.hpp"
#include "node_addresses.hpp"
#include "status_model.hpp"
#include "status_queries.hpp"
#include "morpheus/morpheus.h"
#include "test_support.hpp"

namespace {

struct Dir {
    std::string path;
    Dir() {
        char t[] = "/tmp/morpheus-engine-XXXXXX";
        path = mkdtemp(t);
        copy(top_srcdir("etc/fabric.json"), "fabric.json");
        copy(top_srcdir("etc/inventory.json"), "inventory.json");
        write("morpheus.conf", "FabricFile=fabric.json\nInventoryFile=inventory.json\nInventoryCheckInterval=1\n");
    }
    std::string at(const std::string &name) const { return path + "/" + name; }
    void write(const std::string &name, const std::string &text) const {
        std::string tmp = at(name) + ".tmp";
        std::ofstream(tmp) << text;
        rename(tmp.c_str(), at(name).c_str());
    }
    std::string read(const std::string &name) const {
        std::ifstream in(at(name));
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }
    void copy(const std::string &from, const std::string &name) const {
        std::ifstream in(from);
        std::stringstream ss;
        ss << in.rdbuf();
        write(name, ss.str());
    }
};

morpheus_request_t hot_request(uint64_t job, const char *size, const char *bound) {
    morpheus_request_t r{};
    r.job_id = job;
    r.uid = 1000;
    r.nodes = 1;
    morpheus_error_t err;
    assert_int_equal(morpheus_request_set_flags(&r, size, bound, nullptr, &err), 0);
    return r;
}

// Plans and reserves the first node of the first step, as select/morpheus does.
int place(morpheus_engine_t *e, const morpheus_request_t &r, morpheus_error_t *err) {
    std::vector<uint8_t> free_nodes(morpheus_node_count(e), 1), allowed(morpheus_node_count(e));
    morpheus_plan_t *plan = morpheus_plan_new(e, &r, free_nodes.data(), err);
    if (!plan) return -1;
    morpheus_plan_step_nodes(plan, 0, allowed.data());
    morpheus_plan_destroy(&plan);
    uint32_t node = 0;
    while (!allowed[node]) ++node;
    return morpheus_reserve(e, &r, &node, 1, err);
}

}  // namespace

static void open_reports_bad_files(void **) {
    Dir d;
    d.write("morpheus.conf", "FabricFile=fabric.json\nInventoryFile=missing.json\n");
    morpheus_error_t err;
    assert_null(morpheus_engine_open(d.at("morpheus.conf").c_str(), d.at("ledger.json").c_str(), &err));
    assert_non_null(std::strstr(err.message, "missing.json"));
    assert_non_null(std::strstr(err.file, "missing.json"));
}

static void plan_reserve_release_persist(void **) {
    Dir d;
    morpheus_error_t err;
    morpheus_engine_t *e = morpheus_engine_open(d.at("morpheus.conf").c_str(), d.at("ledger.json").c_str(), &err);
    assert_non_null(e);
    char *state = morpheus_engine_state_file(e);
    assert_string_equal(state, d.at("ledger.json").c_str());
    free(state);
    assert_int_equal(morpheus_node_index(e, "gpu101"), 0);
    morpheus_request_t r = hot_request(11, "600G", "250ns");
    assert_int_equal(place(e, r, &err), 0);
    char *summary = morpheus_job_summary(e, 11);
    assert_non_null(std::strstr(summary, "pod=pod1 hot=blade1:600G@200ns"));
    free(summary);
    char *env = morpheus_job_environment(e, 11);
    assert_non_null(std::strstr(env, "MORPHEUS_POD=pod1\n"));
    assert_non_null(std::strstr(env, "MORPHEUS_HOT_BYTES=644245094400\n"));
    assert_non_null(std::strstr(env, "MORPHEUS_POD_NODES=pod1=gpu101\n"));  // each node finds its pod
    free(env);
    // blade1 has 424G left: a second 600G job within 250ns must wait, naming Morpheus.
    morpheus_request_t r2 = hot_request(12, "600G", "250ns");
    assert_int_equal(place(e, r2, &err), -1);
    assert_non_null(std::strstr(err.message, "Morpheus: "));
    assert_non_null(std::strstr(err.message, "424G of 600G"));
    // Impossible at submission vs merely busy.
    assert_int_equal(morpheus_check_feasible(e, &r2, &err), 0);
    morpheus_request_t never = hot_request(13, "1G", "50ns");
    assert_int_equal(morpheus_check_feasible(e, &never, &err), -1);
    assert_non_null(std::strstr(err.message, "could never be placed"));
    // A crash now (no close): the ledger on disk already holds job 11.
    assert_non_null(std::strstr(d.read("ledger.json").c_str(), "\"job_id\":11,"));
    morpheus_engine_t *after_crash =
        morpheus_engine_open(d.at("morpheus.conf").c_str(), d.at("ledger.json").c_str(), &err);
    assert_non_null(after_crash);
    char *kept = morpheus_job_summary(after_crash, 11);
    assert_non_null(kept);
    free(kept);
    // Recovery: Slurm says job 11 is gone.
    uint64_t running[] = {99};
    assert_int_equal(morpheus_reconcile(after_crash, running, 1, nullptr, 0, &err), 1);
    assert_null(morpheus_job_summary(after_crash, 11));
    morpheus_engine_close(&after_crash);
    assert_null(after_crash);
    assert_int_equal(morpheus_release(e, 11, &err), 1);
    assert_int_equal(morpheus_release(e, 11, &err), 0);
    assert_int_equal(place(e, r2, &err), 0);
    morpheus_engine_close(&e);
}

static void bad_reload_keeps_last_good(void **) {
    Dir d;
    morpheus_error_t err;
    morpheus_engine_t *e = morpheus_engine_open(d.at("morpheus.conf").c_str(), d.at("ledger.json").c_str(), &err);
    assert_int_equal(place(e, hot_request(1, "100G", "250ns"), &err), 0);
    std::string good = d.read("fabric.json");
    d.write("fabric.json", good.substr(0, good.size() / 2));  // truncated
    uint64_t gen = morpheus_engine_generation(e);
    assert_int_equal(morpheus_engine_reload(e, &err), -1);
    assert_non_null(std::strstr(err.message, "fabric.json"));
    assert_non_null(std::strstr(err.message, "invalid JSON"));
    assert_int_equal(morpheus_engine_generation(e), gen);
    assert_int_equal(place(e, hot_request(2, "100G", "250ns"), &err), 0);  // still working
    d.write("morpheus.conf", "FabricFile=fabric.json\nInventoryFile=inventory.json\nWeightLoad=lots\n");
    assert_int_equal(morpheus_engine_reload(e, &err), -1);
    assert_non_null(std::strstr(err.message, "line 3"));
    // Good files again: reload succeeds and reservations survive it.
    d.write("fabric.json", good);
    d.write("morpheus.conf", "FabricFile=fabric.json\nInventoryFile=inventory.json\nInventoryCheckInterval=1\n");
    assert_int_equal(morpheus_engine_reload(e, &err), 0);
    assert_true(morpheus_engine_generation(e) > gen);
    char *s = morpheus_job_summary(e, 1);
    assert_non_null(s);
    free(s);
    morpheus_engine_close(&e);
}

static void blade_failure_and_return(void **) {
    Dir d;
    morpheus_error_t err;
    morpheus_engine_t *e = morpheus_engine_open(d.at("morpheus.conf").c_str(), d.at("ledger.json").c_str(), &err);
    assert_int_equal(place(e, hot_request(5, "100G", "250ns"), &err), 0);
    std::string inv = d.read("inventory.json");
    std::string failed = inv;
    size_t at = failed.find("\"state\": \"up\"");  // blade1 comes first
    failed.replace(at, 13, "\"state\": \"failed\"");
    sleep(1);  // mtime granularity and the check interval
    d.write("inventory.json", failed);
    assert_int_equal(morpheus_engine_refresh_inventory(e, time(nullptr) + 10, &err), 1);
    uint64_t ids[4];
    assert_int_equal(morpheus_jobs_newly_affected(e, ids, 4), 1);
    assert_int_equal(ids[0], 5);
    assert_int_equal(morpheus_jobs_newly_affected(e, ids, 4), 0);  // handed over once
    assert_int_equal(morpheus_jobs_on_failed_blades(e, ids, 4), 1);
    char *s = morpheus_job_summary(e, 5);
    assert_non_null(std::strstr(s, "AFFECTED-BY-FAILED-BLADE"));
    free(s);
    // No new placement uses it: only blade1 is within 250ns, so the job waits.
    assert_int_equal(place(e, hot_request(6, "1G", "250ns"), &err), -1);
    assert_non_null(std::strstr(err.message, "failed or draining"));
    // A broken inventory is refused and the last good one stays.
    d.write("inventory.json", "{\"blades\": [");
    assert_int_equal(morpheus_engine_refresh_inventory(e, time(nullptr) + 20, &err), -1);
    assert_non_null(std::strstr(err.message, "inventory.json"));
    // The blade comes back and is used again.
    sleep(1);
    d.write("inventory.json", inv);
    assert_int_equal(morpheus_engine_refresh_inventory(e, time(nullptr) + 30, &err), 1);
    assert_int_equal(place(e, hot_request(6, "1G", "250ns"), &err), 0);
    assert_int_equal(morpheus_jobs_on_failed_blades(e, ids, 4), 0);
    morpheus_engine_close(&e);
}

static void status_views_filter_by_user(void **) {
    Dir d;
    morpheus_error_t err;
    morpheus_engine_t *e = morpheus_engine_open(d.at("morpheus.conf").c_str(), d.at("ledger.json").c_str(), &err);
    morpheus_request_t mine = hot_request(1, "10G", "300ns"), theirs = hot_request(2, "10G", "300ns");
    theirs.uid = 2000;
    assert_int_equal(place(e, mine, &err), 0);
    assert_int_equal(place(e, theirs, &err), 0);
    char *all = morpheus_status_json(e, 0, 1), *own = morpheus_status_json(e, 1000, 0);
    auto count = [](const char *s, const char *needle) {
        int n = 0;
        for (const char *p = s; (p = std::strstr(p, needle)); ++p) ++n;
        return n;
    };
    assert_int_equal(count(all, "\"segments\""), 2);
    assert_int_equal(count(own, "\"segments\""), 1);
    free(all);
    free(own);
    morpheus_engine_close(&e);
}

static std::string renamed_blade1(std::string text) {
    for (size_t at; (at = text.find("\"blade1\"")) != std::string::npos;) text.replace(at, 8, "\"blade1-new\"");
    return text;
}

// Issue 12: a renamed blade made reload drop job 1's segment, and its memory went to others.
static void reload_refuses_to_orphan_a_reservation(void **) {
    Dir d;
    morpheus_error_t err;
    morpheus_engine_t *e = morpheus_engine_open(d.at("morpheus.conf").c_str(), d.at("ledger.json").c_str(), &err);
    assert_int_equal(place(e, hot_request(1, "600G", "250ns"), &err), 0);
    std::string fabric = d.read("fabric.json"), inventory = d.read("inventory.json");
    d.write("fabric.json", renamed_blade1(fabric));
    d.write("inventory.json", renamed_blade1(inventory));
    uint64_t gen = morpheus_engine_generation(e);
    assert_int_equal(morpheus_engine_reload(e, &err), -1);
    assert_non_null(std::strstr(err.message, "fabric.json"));
    assert_non_null(std::strstr(err.message, "blade \"blade1\""));
    assert_non_null(std::strstr(err.message, "wait for jobs 1 to end"));
    assert_int_equal(morpheus_engine_generation(e), gen);
    // The last good model stays, and job 1 still holds blade1: a second 600G job waits.
    assert_int_equal(place(e, hot_request(2, "600G", "250ns"), &err), -1);
    // A restart against the renamed fabric refuses too, rather than trimming the ledger.
    assert_null(morpheus_engine_open(d.at("morpheus.conf").c_str(), d.at("ledger.json").c_str(), &err));
    assert_non_null(std::strstr(err.message, "job 1"));
    morpheus_engine_close(&e);
}

static void inventory_may_not_remove_reserved_memory(void **) {
    Dir d;
    morpheus_error_t err;
    morpheus_engine_t *e = morpheus_engine_open(d.at("morpheus.conf").c_str(), d.at("ledger.json").c_str(), &err);
    assert_int_equal(place(e, hot_request(5, "600G", "250ns"), &err), 0);
    std::string inv = d.read("inventory.json");
    std::string without = inv;
    size_t from = without.find("    {\n      \"name\": \"blade1\""), to = without.find("    {", from + 4);
    without.erase(from, to - from);  // blade1's entry gone
    sleep(1);
    d.write("inventory.json", without);
    assert_int_equal(morpheus_engine_refresh_inventory(e, time(nullptr) + 10, &err), -1);
    assert_non_null(std::strstr(err.message, "inventory.json"));
    assert_non_null(std::strstr(err.message, "blade1"));
    assert_non_null(std::strstr(err.message, "jobs 5"));
    assert_int_equal(morpheus_engine_reload(e, &err), -1);  // nor through a reload
    // Shrinking below what is reserved is refused as well.
    std::string small = inv;
    small.replace(small.find("\"1T\""), 4, "\"100G\"");
    sleep(1);
    d.write("inventory.json", small);
    assert_int_equal(morpheus_engine_refresh_inventory(e, time(nullptr) + 20, &err), -1);
    assert_non_null(std::strstr(err.message, "offers"));
    morpheus_engine_close(&e);
}

static ssize_t disk_full(int, const void *, size_t) {
    errno = ENOSPC;
    return -1;
}

// Issue 12: reserve returned -1 on ENOSPC but kept the job in memory; the next save wrote it.
static void failed_save_changes_nothing(void **) {
    Dir d;
    morpheus_error_t err;
    morpheus_engine_t *e = morpheus_engine_open(d.at("morpheus.conf").c_str(), d.at("ledger.json").c_str(), &err);
    assert_int_equal(place(e, hot_request(1, "100G", "250ns"), &err), 0);
    morpheus::set_ledger_file_ops_for_tests({disk_full, nullptr, nullptr});
    assert_int_equal(place(e, hot_request(2, "100G", "250ns"), &err), -1);
    assert_non_null(std::strstr(err.message, "No space left"));
    assert_null(morpheus_job_summary(e, 2));
    assert_int_equal(morpheus_release(e, 1, &err), -1);
    uint64_t none[] = {99};
    assert_int_equal(morpheus_reconcile(e, none, 1, nullptr, 0, &err), -1);
    char *kept = morpheus_job_summary(e, 1);
    assert_non_null(kept);
    free(kept);
    // A blade failure that cannot be recorded is not applied (and is retried later).
    std::string inv = d.read("inventory.json"), failed = inv;
    failed.replace(failed.find("\"state\": \"up\""), 13, "\"state\": \"failed\"");
    sleep(1);
    d.write("inventory.json", failed);
    assert_int_equal(morpheus_engine_refresh_inventory(e, time(nullptr) + 10, &err), -1);
    uint64_t ids[4];
    assert_int_equal(morpheus_jobs_newly_affected(e, ids, 4), 0);
    morpheus::set_ledger_file_ops_for_tests({});
    assert_int_equal(morpheus_engine_refresh_inventory(e, time(nullptr) + 20, &err), 1);
    assert_int_equal(morpheus_jobs_newly_affected(e, ids, 4), 1);
    // Space again: the next save holds job 1 and never job 2.
    assert_int_equal(morpheus_release(e, 1, &err), 1);
    assert_null(std::strstr(d.read("ledger.json").c_str(), "\"job_id\":2,"));
    assert_null(std::strstr(d.read("ledger.json").c_str(), "\"job_id\":1,"));
    morpheus_engine_close(&e);
}

// Issue 24: a release that cannot be saved stays due and is retried until it succeeds; the
// job reads "releasing" meanwhile and the metrics count it; nothing outlives its job.
static void failed_release_is_retried(void **) {
    Dir d;
    morpheus::Engine engine(d.at("morpheus.conf"), d.at("ledger.json"));
    morpheus::Request q;
    q.job_id = 7;
    q.uid = 1000;
    q.nodes = 1;
    q.hot_per_node = 100ULL << 30;
    q.hot_latency_ns = 250;
    engine.reserve(q, {0});
    auto state_of_7 = [&] {
        for (const auto &j : morpheus::job_list(engine.model(), engine.ledger(), engine.decisions(), {}).jobs)
            if (j.job_id == 7) return j.state.value_or("?");
        return std::string("gone");
    };
    auto metrics_say = [&](const char *line) {
        return morpheus::metrics_text(engine.model(), engine.ledger(), engine.decisions()).find(line) !=
               std::string::npos;
    };
    morpheus::set_ledger_file_ops_for_tests({disk_full, nullptr, nullptr});
    expect_input_error([&] { engine.release(7); }, {"No space left"});
    assert_string_equal(state_of_7().c_str(), "releasing");
    assert_true(metrics_say("morpheus_releases_due 1"));
    expect_input_error([&] { engine.retry_releases(); }, {"No space left"});  // still full: still due
    assert_true(engine.ledger().find(7) != nullptr);
    morpheus::set_ledger_file_ops_for_tests({});
    assert_int_equal(engine.retry_releases(), 1);
    assert_string_equal(state_of_7().c_str(), "gone");
    assert_null(std::strstr(d.read("ledger.json").c_str(), "\"job_id\":7,"));
    assert_true(metrics_say("morpheus_releases_due 0"));
    assert_true(metrics_say("morpheus_release_failures_total 2"));
    assert_int_equal(engine.retry_releases(), 0);  // nothing left due
}

// Issue 26: background saves (slurmctld's) return before the disk does; the saver writes the
// newest ledger right after, a failed save is reported by sync() and retried until it lands,
// and closing the engine writes what is still owed.
// Where the scheduler's time goes (issue 26): a shim's totals reach the metrics, the
// Morpheus part being what is left of the wall time after cons_tres and the lock wait.
static void test_timing_reaches_the_metrics(void **) {
    Dir d;
    morpheus::Engine engine(d.at("morpheus.conf"), d.at("ledger.json"));
    std::lock_guard<std::mutex> g(engine.lock());
    engine.decisions().set_test_timing({{10, 14, 0.5, 0.25, 0.125}, {4, 8, 1, 0.75, 0}, 3, 0.0625});
    const std::string m = morpheus::metrics_text(engine.model(), engine.ledger(), engine.decisions());
    for (const char *line :
         {"morpheus_job_tests_total{mode=\"run_now\"} 10\n", "morpheus_job_tests_total{mode=\"will_run\"} 4\n",
          "morpheus_job_test_cons_tres_runs_total{mode=\"run_now\"} 14\n",
          "morpheus_job_test_seconds_total{mode=\"run_now\",part=\"morpheus\"} 0.125\n",
          "morpheus_job_test_seconds_total{mode=\"run_now\",part=\"cons_tres\"} 0.25\n",
          "morpheus_job_test_seconds_total{mode=\"run_now\",part=\"lock_wait\"} 0.125\n",
          "morpheus_job_test_seconds_total{mode=\"will_run\",part=\"morpheus\"} 0.25\n",
          "morpheus_job_begins_total 3\n", "morpheus_job_begin_seconds_total 0.0625\n"})
        if (m.find(line) == std::string::npos) fail_msg("metrics lack %s", line);
}

static void background_saves_land(void **) {
    Dir d;
    morpheus_error_t err;
    morpheus_engine_t *e = morpheus_engine_open(d.at("morpheus.conf").c_str(), d.at("ledger.json").c_str(), &err);
    assert_non_null(e);
    morpheus_engine_set_background_saves(e, 1);
    assert_int_equal(place(e, hot_request(1, "100G", "250ns"), &err), 0);
    assert_int_equal(morpheus_engine_flush(e, 10), 0);
    assert_non_null(std::strstr(d.read("ledger.json").c_str(), "\"job_id\":1,"));
    // Disk full: the reservation holds in memory, the file keeps the last good save, sync()
    // says why, and the save lands once there is space.
    morpheus::set_ledger_file_ops_for_tests({disk_full, nullptr, nullptr});
    assert_int_equal(place(e, hot_request(2, "100G", "250ns"), &err), 0);
    char *held = morpheus_job_summary(e, 2);
    assert_non_null(held);
    free(held);
    assert_int_equal(morpheus_engine_flush(e, 1), -1);
    assert_int_equal(morpheus_engine_sync(e, &err), -1);
    assert_non_null(std::strstr(err.message, "No space left"));
    assert_null(std::strstr(d.read("ledger.json").c_str(), "\"job_id\":2,"));
    morpheus::set_ledger_file_ops_for_tests({});
    assert_int_equal(morpheus_engine_flush(e, 10), 0);
    assert_int_equal(morpheus_engine_sync(e, &err), 0);
    assert_non_null(std::strstr(d.read("ledger.json").c_str(), "\"job_id\":2,"));
    // A release, then close at once: the close writes it.
    assert_int_equal(morpheus_release(e, 1, &err), 1);
    morpheus_engine_close(&e);
    assert_null(std::strstr(d.read("ledger.json").c_str(), "\"job_id\":1,"));
    assert_non_null(std::strstr(d.read("ledger.json").c_str(), "\"job_id\":2,"));
}

// Issue 26: under a stream the saver waits 100 ms from one save's start to the next, so the
// file may lag memory; a process that ends with exit() and never closes the engine (slurmctld
// 26.05 on SIGTERM) still writes what it owes. A child makes two changes in a row (the second
// inside the spacing) and exits; both must be on disk.
morpheus_engine_t *engine_left_open;  // reachable at exit: LeakSanitizer does not count it
static void exit_writes_what_the_saver_owes(void **) {
    Dir d;
    const pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        morpheus_error_t err;
        morpheus_engine_t *e = engine_left_open =
            morpheus_engine_open(d.at("morpheus.conf").c_str(), d.at("ledger.json").c_str(), &err);
        if (!e) _exit(2);
        morpheus_engine_set_background_saves(e, 1);
        if (place(e, hot_request(1, "100G", "250ns"), &err) != 0) _exit(3);
        if (morpheus_engine_flush(e, 10) != 0) _exit(4);
        if (place(e, hot_request(2, "100G", "250ns"), &err) != 0) _exit(5);
        std::exit(0);  // no close: only the exit handler can save job 2
    }
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_non_null(std::strstr(d.read("ledger.json").c_str(), "\"job_id\":1,"));
    assert_non_null(std::strstr(d.read("ledger.json").c_str(), "\"job_id\":2,"));
}

// Background saves and a full disk at a job's end: the memory is free at once, the file still
// holds the job, and the views say "releasing" (morpheus_releases_due 1) until a save holds the
// release; the shim's retry_releases leaves it to the saver (test_charge_dodges, real Slurm).
static void background_release_on_a_full_disk(void **) {
    Dir d;
    morpheus::Engine engine(d.at("morpheus.conf"), d.at("ledger.json"));
    engine.set_background_saves(true);
    morpheus::Request q;
    q.job_id = 7;
    q.nodes = 1;
    q.hot_per_node = 100ull << 30;
    q.hot_latency_ns = 250;
    {
        std::lock_guard<std::mutex> g(engine.lock());
        engine.reserve(q, {0});
    }
    assert_true(engine.flush(10));
    assert_non_null(std::strstr(d.read("ledger.json").c_str(), "\"job_id\":7,"));
    auto state_of_7 = [&] {
        std::lock_guard<std::mutex> g(engine.lock());
        for (const auto &j : morpheus::job_list(engine.model(), engine.ledger(), engine.decisions(), {}).jobs)
            if (j.job_id == 7) return j.state.value_or("?");
        return std::string("gone");
    };
    auto metrics_say = [&](const char *line) {
        std::lock_guard<std::mutex> g(engine.lock());
        return morpheus::metrics_text(engine.model(), engine.ledger(), engine.decisions()).find(line) !=
               std::string::npos;
    };
    morpheus::set_ledger_file_ops_for_tests({disk_full, nullptr, nullptr});
    {
        std::lock_guard<std::mutex> g(engine.lock());
        assert_true(engine.release(7));
        assert_null(engine.ledger().find(7));  // no memory held for it
    }
    assert_false(engine.flush(1));
    assert_string_equal(state_of_7().c_str(), "releasing");
    assert_true(metrics_say("morpheus_releases_due 1"));
    {
        std::lock_guard<std::mutex> g(engine.lock());
        assert_int_equal(engine.retry_releases(), 0);
    }
    assert_string_equal(state_of_7().c_str(), "releasing");
    assert_non_null(std::strstr(d.read("ledger.json").c_str(), "\"job_id\":7,"));
    morpheus::set_ledger_file_ops_for_tests({});
    assert_true(engine.flush(10));
    assert_string_equal(state_of_7().c_str(), "gone");
    assert_true(metrics_say("morpheus_releases_due 0"));
    assert_null(std::strstr(d.read("ledger.json").c_str(), "\"job_id\":7,"));
}

// The seam's contract with select/morpheus: a spread step allows exactly the planned split, the
// submission check honours --gpus and a required node list, job 0 and gone jobs leave no row.
static void seam_spread_feasible_decisions(void **) {
    Dir d;
    morpheus_error_t err;
    morpheus_engine_t *e = morpheus_engine_open(d.at("morpheus.conf").c_str(), d.at("ledger.json").c_str(), &err);
    assert_non_null(e);
    const size_t n = morpheus_node_count(e);
    // 3 x 400G within 300ns: each pod has one 1T blade in bound, so 2 + 1 over two pods.
    morpheus_request_t spread = hot_request(21, "400G", "300ns");
    spread.nodes = 3;
    std::vector<uint8_t> free_nodes(n, 1), allowed(n);
    morpheus_plan_t *plan = morpheus_plan_new(e, &spread, free_nodes.data(), &err);
    assert_non_null(plan);
    morpheus_plan_step_nodes(plan, 0, allowed.data());
    std::vector<uint32_t> nodes;
    for (uint32_t i = 0; i < n; ++i)
        if (allowed[i]) nodes.push_back(i);
    assert_int_equal(nodes.size(), 3);  // not both pods whole (8 nodes)
    morpheus_plan_destroy(&plan);
    assert_int_equal(morpheus_reserve(e, &spread, nodes.data(), nodes.size(), &err), 0);

    // --gpus=16: 2 nodes of 8 GPUs, 1.8T within 250ns is more than blade1's 1T.
    morpheus_request_t gpus = hot_request(0, "900G", "250ns");
    gpus.nodes = 0;
    gpus.gpus = 16;
    assert_int_equal(morpheus_check_feasible(e, &gpus, &err), -1);
    gpus.gpus = 8;
    assert_int_equal(morpheus_check_feasible(e, &gpus, &err), 0);
    // Confined to gpu401 (nearest blade 280ns): never within 250ns; gpu101 is.
    morpheus_request_t pinned = hot_request(0, "64G", "250ns");
    std::vector<uint8_t> only(n, 0);
    only[morpheus_node_index(e, "gpu401")] = 1;
    pinned.allowed_nodes = only.data();
    assert_int_equal(morpheus_check_feasible(e, &pinned, &err), -1);
    only.assign(n, 0);
    only[morpheus_node_index(e, "gpu101")] = 1;
    assert_int_equal(morpheus_check_feasible(e, &pinned, &err), 0);

    // Rows: none for job 0 (refused submissions); a pending row until forgotten.
    uint64_t ids[8];
    assert_int_equal(morpheus_pending_decisions(e, ids, 8), 0);
    morpheus_request_t waiting = hot_request(22, "900G", "250ns");
    std::vector<uint8_t> none(n, 0);
    assert_null(morpheus_plan_new(e, &waiting, none.data(), &err));
    assert_int_equal(morpheus_pending_decisions(e, ids, 8), 1);
    assert_int_equal(ids[0], 22);
    morpheus_forget_decision(e, 22);
    assert_int_equal(morpheus_pending_decisions(e, ids, 8), 0);
    morpheus_engine_close(&e);
}

// SELECT_MODE_WILL_RUN's answer: a job that only waits for blade memory starts when the job
// holding it ends; held for ever (unlimited, or not listed as running): never.
static void earliest_start_waits_for_memory(void **) {
    Dir d;
    morpheus_error_t err;
    morpheus_engine_t *e = morpheus_engine_open(d.at("morpheus.conf").c_str(), d.at("ledger.json").c_str(), &err);
    assert_non_null(e);
    const size_t n = morpheus_node_count(e);
    const int64_t now = 1700000000;
    std::vector<uint8_t> all(n, 1), pod(n, 0);
    int64_t start = -1;
    // Nothing running: it fits now, on pod1 (the only pod with 600G within 250ns).
    morpheus_request_t waiting = hot_request(32, "600G", "250ns");
    assert_int_equal(
        morpheus_earliest_start(e, &waiting, all.data(), now, 60, nullptr, nullptr, 0, &start, pod.data(), &err), 0);
    assert_int_equal(start, now);

    morpheus_request_t running = hot_request(31, "600G", "250ns");
    assert_int_equal(place(e, running, &err), 0);
    assert_null(morpheus_plan_new(e, &waiting, all.data(), &err));  // today's answer: pending
    uint64_t ids[] = {31};
    int64_t ends[] = {now + 100};
    assert_int_equal(morpheus_earliest_start(e, &waiting, all.data(), now, 60, ids, ends, 1, &start, pod.data(), &err),
                     0);
    assert_int_equal(start, now + 100);
    assert_true(pod[morpheus_node_index(e, "gpu101")]);
    assert_false(pod[morpheus_node_index(e, "gpu401")]);
    // A small job fits beside it now, whatever its duration.
    morpheus_request_t small = hot_request(33, "100G", "250ns");
    assert_int_equal(morpheus_earliest_start(e, &small, all.data(), now, 0, ids, ends, 1, &start, nullptr, &err), 0);
    assert_int_equal(start, now);
    // A job past its end still holds the memory now: the next second at the earliest.
    ends[0] = now - 5;
    assert_int_equal(morpheus_earliest_start(e, &waiting, all.data(), now, 60, ids, ends, 1, &start, nullptr, &err), 0);
    assert_int_equal(start, now + 1);

    // Unlimited, or not listed: held for ever.
    ends[0] = INT64_MAX;
    start = -1;
    assert_int_equal(morpheus_earliest_start(e, &waiting, all.data(), now, 60, ids, ends, 1, &start, nullptr, &err),
                     -1);
    assert_int_equal(start, -1);
    assert_non_null(std::strstr(err.message, "Morpheus: never fits"));
    assert_int_equal(
        morpheus_earliest_start(e, &waiting, all.data(), now, 60, nullptr, nullptr, 0, &start, nullptr, &err), -1);
    // Without pod1's nodes it never fits within 250ns, however long it waits.
    ends[0] = now + 100;
    std::vector<uint8_t> no_pod1(n, 1);
    for (size_t i = 0; i < n; ++i) no_pod1[i] = !pod[i];
    assert_int_equal(morpheus_earliest_start(e, &waiting, no_pod1.data(), now, 60, ids, ends, 1, &start, nullptr, &err),
                     -1);
    morpheus_engine_close(&e);
}

// Issue 29 in slurmctld: the node-only ops probe_blades and report_latency as the status
// service answers them. Only root; a malformed, oversized or partly bad report changes
// nothing; a report must come from the named node's host (a node at a loopback address lives
// on the controller's host); one report per node per HeatMapReportInterval. Settled every
// HeatMapSettleInterval, the live map flags the running job whose hot memory it puts beyond
// the bound (jobs state, metric, decision log, taken once), and unflags it when the cell
// goes stale.
static void latency_reports_from_the_nodes(void **) {
    Dir d;
    d.write("morpheus.conf",
            "FabricFile=fabric.json\nInventoryFile=inventory.json\nHeatMapRounds=1\nHeatMapStale=600\n"
            "HeatMapReportInterval=60\nHeatMapSettleInterval=5\nHeatMapProbeBlades=3\nHeatMapBeyondBound=notify\n");
    morpheus::Engine engine(d.at("morpheus.conf"), d.at("ledger.json"));
    morpheus::NodeAddresses addresses;
    addresses.set_local_addresses({"192.0.2.2"});
    addresses.update({{"gpu101", "127.0.0.1", "gpu101"},
                      {"gpu102", "127.0.0.1", ""},
                      {"gpu103", "192.0.2.2", ""},
                      {"gpu104", "127.0.0.1", ""},
                      {"gpu201", "198.51.100.7", "198.51.100.7"}});
    const int64_t now = 1700000000;
    morpheus::Request job;
    job.job_id = 7;
    job.uid = 1000;
    job.nodes = 1;
    job.hot_per_node = 100ull << 30;
    job.hot_latency_ns = 250;
    morpheus::Reservation held = engine.reserve(job, {0});  // gpu101, pod1: blade1 at 200ns
    assert_int_equal(held.segments.at(0).blade, 0);
    auto ask = [&](uint32_t uid, const std::string &q, const std::string &origin) {
        std::optional<std::string> a = morpheus::answer_node_query(engine, uid, q, now, &addresses, origin);
        assert_true(a.has_value());
        return *a;
    };
    auto report = [](const char *node, const std::string &entries) {
        return std::string("{\"op\":\"report_latency\",\"node\":\"") + node + "\",\"reports\":[" + entries + "]}";
    };
    const std::string slow = "{\"blade\":\"blade1\",\"latency_ns\":450}";
    auto samples = [&]() { return engine.heat_map().cell(0, 0, now).count; };

    assert_non_null(std::strstr(ask(1000, report("gpu101", slow), "127.0.0.1").c_str(), "for the nodes only"));
    assert_non_null(
        std::strstr(ask(0, "{\"op\":\"report_latency\",\"node\":\"gpu101\",\"reports\":7}", "127.0.0.1").c_str(),
                    "refused: give "));
    assert_non_null(
        std::strstr(ask(0, report("gpu101", "{\"blade\":\"blade1\",\"latency_ns\":\"fast\"}"), "127.0.0.1").c_str(),
                    "entry 0 is not"));
    std::string many;
    for (int i = 0; i < 257; ++i) many += (i ? "," : "") + slow;
    assert_non_null(std::strstr(ask(0, report("gpu101", many), "127.0.0.1").c_str(), "257 entries"));
    // One bad entry (an unknown blade) refuses the whole report.
    assert_non_null(
        std::strstr(ask(0, report("gpu101", slow + ",{\"blade\":\"blade42\",\"latency_ns\":300}"), "127.0.0.1").c_str(),
                    "blade42"));
    // Another host for a node of the controller's host, a local host for a remote node, no address.
    assert_non_null(std::strstr(ask(0, report("gpu101", slow), "198.51.100.7").c_str(), "reports only for itself"));
    assert_non_null(std::strstr(ask(0, report("gpu201", slow), "127.0.0.1").c_str(), "not on node gpu201"));
    assert_non_null(std::strstr(ask(0, report("gpu201", slow), "").c_str(), "no IPv4 address"));
    assert_non_null(std::strstr(ask(0, report("gpu202", slow), "127.0.0.1").c_str(), "does not know node gpu202"));
    assert_non_null(
        std::strstr(morpheus::answer_node_query(engine, 0, report("gpu101", slow), now, nullptr, "127.0.0.1")->c_str(),
                    "checks no node addresses"));
    assert_int_equal(samples(), 0);  // nothing above reached the map

    std::string probe = ask(0, "{\"op\":\"probe_blades\",\"node\":\"gpu101\"}", "127.0.0.1");
    assert_non_null(std::strstr(probe.c_str(), "\"blade1\""));
    assert_non_null(std::strstr(probe.c_str(), "\"report_in\": 0"));
    assert_non_null(std::strstr(ask(0, report("gpu101", slow), "127.0.0.1").c_str(), "\"accepted\": 1"));
    assert_non_null(std::strstr(ask(0, report("gpu101", slow), "127.0.0.1").c_str(), "too soon"));  // rate
    assert_non_null(
        std::strstr(ask(0, "{\"op\":\"probe_blades\",\"node\":\"gpu101\"}", "127.0.0.1").c_str(), "\"report_in\": 60"));
    assert_non_null(std::strstr(ask(0, report("gpu102", slow), "192.0.2.2").c_str(), "\"accepted\": 1"));
    assert_non_null(std::strstr(ask(0, report("gpu103", slow), "127.0.0.1").c_str(), "\"accepted\": 1"));
    assert_non_null(std::strstr(ask(0, report("gpu201", slow), "198.51.100.7").c_str(), "\"accepted\": 1"));
    assert_int_equal(samples(), 3);

    const uint64_t epoch = engine.epoch();
    assert_true(engine.settle_heat_map_if_due(now));
    assert_true(engine.epoch() > epoch);
    assert_false(engine.settle_heat_map_if_due(now + 1));  // not due: HeatMapSettleInterval=5
    auto state = [&]() {
        std::lock_guard<std::mutex> g(engine.lock());
        morpheus::JobList jobs = morpheus::job_list(engine.model(), engine.ledger(), engine.decisions(),
                                                    morpheus::Viewer::of(0, true, false));
        return jobs.jobs.at(0).state.value_or("") + " " + jobs.jobs.at(0).reason.value_or("");
    };
    assert_string_equal(state().c_str(),
                        "beyond-bound hot on blade1 now 450ns from pod1, bound 250ns (placed at 200ns)");
    assert_non_null(std::strstr(morpheus::metrics_text(engine.model(), engine.ledger(), engine.decisions()).c_str(),
                                "morpheus_jobs_beyond_bound 1\n"));
    assert_string_equal(engine.decisions().find(7)->verdict.c_str(), "beyond-bound");
    assert_non_null(std::strstr(engine.decisions().find(7)->explanation.c_str(), "beyond-bound: hot on blade1"));
    std::vector<uint64_t> flagged = engine.take_newly_beyond_bound(16);
    assert_int_equal(flagged.size(), 1);
    assert_int_equal(flagged[0], 7);
    assert_true(engine.take_newly_beyond_bound(16).empty());  // once

    // The probes stop: stale, back to the fabric's 200ns, the job inside its bound again.
    assert_true(engine.settle_heat_map_if_due(now + 601));
    assert_string_equal(state().c_str(), "running ");
    assert_string_equal(engine.decisions().find(7)->verdict.c_str(), "in-bound");
    assert_true(engine.take_newly_beyond_bound(16).empty());
}

// Issue 29: pod1's nodes measure blade1 at 450ns. After HeatMapRounds settle rounds, a job
// whose 400ns bound blade1 met by the fabric's figure (200ns) takes other memory; the epoch
// moves; a reload keeps the live value; once the probes stop, the cell goes stale and blade1 is
// chosen again. Refused reports change nothing; feasibility keeps the fabric's figures.
static void heat_map_moves_placement(void **) {
    Dir d;
    d.write("morpheus.conf",
            "FabricFile=fabric.json\nInventoryFile=inventory.json\nInventoryCheckInterval=1\n"
            "HeatMapRounds=2\nHeatMapStale=600\n");
    morpheus_error_t err;
    morpheus_engine_t *e = morpheus_engine_open(d.at("morpheus.conf").c_str(), d.at("ledger.json").c_str(), &err);
    assert_non_null(e);
    const int64_t now = 1700000000;
    auto summary = [&](uint64_t job) {
        char *s = morpheus_job_summary(e, job);
        std::string out = s ? s : "";
        free(s);
        return out;
    };
    assert_int_equal(place(e, hot_request(41, "100G", "400ns"), &err), 0);
    assert_non_null(std::strstr(summary(41).c_str(), "hot=blade1:100G@200ns"));
    assert_int_equal(morpheus_release(e, 41, &err), 1);

    const uint64_t epoch = morpheus_engine_epoch(e);
    assert_int_equal(morpheus_report_latency(e, "gpu999", "blade1", 450, now, &err), -1);
    assert_non_null(std::strstr(err.message, "node \"gpu999\" is not in the fabric"));
    assert_int_equal(morpheus_report_latency(e, "gpu101", "blade42", 450, now, &err), -1);
    assert_non_null(std::strstr(err.message, "blade \"blade42\" is not in the fabric"));
    assert_int_equal(morpheus_report_latency(e, "gpu101\n;x", "blade1", 450, now, &err), -1);
    assert_non_null(std::strstr(err.message, "(malformed name)"));
    assert_null(std::strstr(err.message, ";x"));
    assert_int_equal(morpheus_report_latency(e, "gpu101", "blade1", 0, now, &err), -1);
    assert_non_null(std::strstr(err.message, "latency is 0"));
    assert_int_equal(err.code, MORPHEUS_E_INPUT);
    assert_int_equal(morpheus_report_latency(e, "gpu101", "blade1", 20000000, now, &err), -1);
    assert_int_equal(morpheus_report_latency(e, nullptr, "blade1", 450, now, &err), -1);
    assert_int_equal(morpheus_heat_map_settle(e, now, &err), 0);  // nothing was accepted
    for (const char *node : {"gpu101", "gpu102", "gpu103", "gpu104"})
        assert_int_equal(morpheus_report_latency(e, node, "blade1", 450, now, &err), 0);
    assert_int_equal(morpheus_engine_epoch(e), epoch);  // reports alone change no decision

    assert_int_equal(morpheus_heat_map_settle(e, now, &err), 0);  // round 1 of 2
    assert_int_equal(morpheus_engine_epoch(e), epoch);
    assert_int_equal(morpheus_heat_map_settle(e, now + 1, &err), 1);
    assert_true(morpheus_engine_epoch(e) > epoch);
    assert_int_equal(morpheus_heat_map_settle(e, now + 2, &err), 0);  // published: nothing new

    assert_int_equal(place(e, hot_request(42, "100G", "400ns"), &err), 0);
    assert_non_null(std::strstr(summary(42).c_str(), "hot="));
    assert_null(std::strstr(summary(42).c_str(), "blade1"));
    // Within 250ns nothing is left now, but the fabric could: the job waits, it is not refused.
    morpheus_request_t tight = hot_request(45, "100G", "250ns");
    assert_int_equal(morpheus_check_feasible(e, &tight, &err), 0);
    std::vector<uint8_t> all(morpheus_node_count(e), 1);
    assert_null(morpheus_plan_new(e, &tight, all.data(), &err));
    assert_int_equal(err.code, MORPHEUS_E_PENDING);

    // A reload with the same fabric keeps the measured value.
    assert_int_equal(morpheus_engine_reload(e, &err), 0);
    assert_int_equal(place(e, hot_request(43, "100G", "400ns"), &err), 0);
    assert_null(std::strstr(summary(43).c_str(), "blade1"));
    // So does an inventory refresh (the same content, a new file).
    d.copy(top_srcdir("etc/inventory.json"), "inventory.json");
    assert_int_equal(morpheus_engine_refresh_inventory(e, now + 100, &err), 1);
    assert_int_equal(place(e, hot_request(46, "100G", "400ns"), &err), 0);
    assert_null(std::strstr(summary(46).c_str(), "blade1"));

    // The probes stop: stale after HeatMapStale, back to the fabric's 200ns at once.
    const uint64_t live_epoch = morpheus_engine_epoch(e);
    assert_int_equal(morpheus_heat_map_settle(e, now + 600, &err), 0);
    assert_int_equal(morpheus_heat_map_settle(e, now + 601, &err), 1);
    assert_true(morpheus_engine_epoch(e) > live_epoch);
    assert_int_equal(place(e, hot_request(44, "100G", "400ns"), &err), 0);
    assert_non_null(std::strstr(summary(44).c_str(), "hot=blade1:100G@200ns"));
    assert_int_equal(place(e, tight, &err), 0);
    morpheus_engine_close(&e);
}

// Issue 27: hot memory that moves closer. A soft-bound job placed beyond its bound while a
// holder fills blade1 moves there when the holder ends: the target is reserved beside the old
// region (no byte booked twice, at every step and in the file), the move survives a restart,
// finish frees the old region, abandon frees the target.
static void move_brings_hot_memory_inside_bound(void **) {
    Dir d;
    morpheus_error_t err;
    morpheus_engine_t *e = morpheus_engine_open(d.at("morpheus.conf").c_str(), d.at("ledger.json").c_str(), &err);
    assert_non_null(e);
    const int64_t now = static_cast<int64_t>(std::time(nullptr));
    auto summary = [&](uint64_t job) {
        char *s = morpheus_job_summary(e, job);
        std::string out = s ? s : "";
        free(s);
        return out;
    };
    // What the file holds, read as a restarted controller would: never more than capacity.
    auto on_disk = [&]() {
        morpheus::Engine fresh(d.at("morpheus.conf"), d.at("ledger.json"));
        const morpheus::Inventory &inv = fresh.model().inventory();
        for (uint32_t b = 0; b < fresh.ledger().blade_count(); ++b)
            for (size_t t = 0; t < morpheus::kTierCount; ++t)
                assert_true(fresh.ledger().reserved(b, static_cast<morpheus::Tier>(t)) <= inv.blades[b].capacity[t]);
        return fresh.ledger();
    };
    assert_int_equal(place(e, hot_request(21, "1T", "250ns"), &err), 0);
    morpheus_request_t soft = hot_request(22, "600G", "250ns");
    assert_int_equal(morpheus_request_set_wait(&soft, "1", &err), 0);
    soft.waiting_since = now - 100;  // its wait is over: it runs beyond its bound
    std::vector<uint8_t> pod1(morpheus_node_count(e));
    pod1[morpheus_node_index(e, "gpu101")] = 1;  // on pod1, where blade1 is the near blade
    soft.allowed_nodes = pod1.data();
    assert_int_equal(place(e, soft, &err), 0);
    assert_null(std::strstr(summary(22).c_str(), "blade1"));
    assert_int_equal(morpheus_engine_start_moves(e, now, &err), 0);  // blade1 is full

    assert_int_equal(morpheus_release(e, 21, &err), 1);
    const uint64_t epoch = morpheus_engine_epoch(e);
    assert_int_equal(morpheus_engine_start_moves(e, now + 1, &err), 1);
    assert_true(morpheus_engine_epoch(e) > epoch);
    assert_non_null(std::strstr(summary(22).c_str(), "moving-to=blade1:600G@200ns"));
    assert_int_equal(morpheus_engine_start_moves(e, now + 2, &err), 0);  // under way: not twice
    {
        morpheus::Ledger l = on_disk();  // the old region and the target, both held
        const morpheus::Reservation *r = l.find(22);
        assert_non_null(r);
        assert_true(morpheus::moving(*r));
        assert_int_equal(morpheus::hot_beyond_bound(*r), 600ull << 30);
        assert_int_equal(l.reserved(0, morpheus::Tier::Dram), 600ull << 30);
    }
    // While it moves, blade1 is not offered to another job: 424G left, not 1T.
    assert_int_equal(place(e, hot_request(23, "500G", "250ns"), &err), -1);
    {
        morpheus::Engine restarted(d.at("morpheus.conf"), d.at("ledger.json"));
        morpheus::JobList jobs = morpheus::job_list(restarted.model(), restarted.ledger(), restarted.decisions(),
                                                    morpheus::Viewer::of(0, true, false));
        assert_string_equal(jobs.jobs.at(0).state.value_or("").c_str(), "moving");
        assert_int_equal(restarted.moves_under_way().size(), 1);
        assert_int_equal(restarted.moves_under_way()[0].job_id, 22);
        assert_int_equal(restarted.moves_under_way()[0].bytes, 600ull << 30);
    }
    {
        // The node side's ops, on a copy of the ledger: root only, the job's own node only.
        d.copy(d.at("ledger.json"), "ledger2.json");
        morpheus::Engine node_side(d.at("morpheus.conf"), d.at("ledger2.json"));
        morpheus::NodeAddresses addresses;
        addresses.set_local_addresses({"192.0.2.2"});
        addresses.update({{"gpu101", "127.0.0.1", ""}, {"gpu102", "127.0.0.1", ""}, {"gpu103", "198.51.100.7", ""}});
        std::string origin = "127.0.0.1";
        auto ask = [&](uint32_t uid, const std::string &q) {
            std::optional<std::string> a = morpheus::answer_node_query(node_side, uid, q, now + 2, &addresses, origin);
            assert_true(a.has_value());
            return *a;
        };
        assert_false(morpheus::answer_node_query(node_side, 0, "{\"op\":\"jobs\"}", now).has_value());
        std::string a = ask(1000, "{\"op\":\"moves\",\"node\":\"gpu101\"}");
        assert_non_null(std::strstr(a.c_str(), "for the nodes only"));
        a = ask(0, "{\"op\":\"moves\",\"node\":\"gpu101\"}");
        assert_non_null(std::strstr(a.c_str(), "\"job\": 22"));
        assert_non_null(std::strstr(a.c_str(), "\"blade\": \"blade1\""));
        a = ask(0, "{\"op\":\"moves\",\"node\":\"gpu102\"}");
        assert_null(std::strstr(a.c_str(), "\"job\""));
        a = ask(0, "{\"op\":\"moves\",\"node\":\"nosuch\"}");
        assert_non_null(std::strstr(a.c_str(), "\"error\""));
        a = ask(1000, "{\"op\":\"move_done\",\"job\":22,\"node\":\"gpu101\"}");
        assert_non_null(std::strstr(a.c_str(), "for the nodes only"));
        a = ask(0, "{\"op\":\"move_done\",\"job\":22,\"node\":\"gpu102\"}");
        assert_non_null(std::strstr(a.c_str(), "no move under way on node gpu102"));
        assert_true(morpheus::moving(*node_side.ledger().find(22)));
        // Root on another host may not end gpu101's move (it would free the old region while
        // the pages are still there); nor may a controller that checks no addresses.
        origin = "198.51.100.7";
        a = ask(0, "{\"op\":\"move_done\",\"job\":22,\"node\":\"gpu101\",\"emulated\":true}");
        assert_non_null(std::strstr(a.c_str(), "move_done for gpu101 refused: made on 198.51.100.7"));
        assert_true(morpheus::moving(*node_side.ledger().find(22)));
        std::optional<std::string> unchecked =
            morpheus::answer_node_query(node_side, 0, "{\"op\":\"move_done\",\"job\":22,\"node\":\"gpu101\"}", now + 2);
        assert_non_null(std::strstr(unchecked.value_or("").c_str(), "checks no node addresses"));
        assert_true(morpheus::moving(*node_side.ledger().find(22)));
        origin = "127.0.0.1";
        a = ask(0, "{\"op\":\"move_done\",\"job\":22,\"node\":\"gpu101\",\"emulated\":true}");
        assert_non_null(std::strstr(a.c_str(), "\"finished\": true"));
        assert_false(morpheus::moving(*node_side.ledger().find(22)));
        a = ask(0, "{\"op\":\"moves\",\"node\":\"gpu101\"}");
        assert_null(std::strstr(a.c_str(), "\"job\""));
    }

    assert_int_equal(morpheus_engine_finish_move(e, 22, now + 3, &err), 1);
    assert_non_null(std::strstr(summary(22).c_str(), "hot=blade1:600G@200ns"));
    assert_null(std::strstr(summary(22).c_str(), "moving-to"));
    {
        morpheus::Ledger l = on_disk();
        assert_false(morpheus::moving(*l.find(22)));
        assert_int_equal(morpheus::hot_beyond_bound(*l.find(22)), 0);
        uint64_t held = 0;
        for (uint32_t b = 1; b < l.blade_count(); ++b) held += l.reserved(b, morpheus::Tier::Dram);
        assert_int_equal(held, 0);  // the old region is free
    }
    uint64_t moved[4];
    assert_int_equal(morpheus_engine_take_moved(e, moved, 1), 1);  // begun
    assert_int_equal(morpheus_engine_take_moved(e, moved, 4), 1);  // finished
    assert_int_equal(moved[0], 22);
    assert_int_equal(morpheus_engine_take_moved(e, moved, 4), 0);
    assert_int_equal(morpheus_engine_finish_move(e, 22, now + 4, &err), 0);
    assert_int_equal(morpheus_engine_start_moves(e, now + 4, &err), 0);  // inside its bound now

    // Abandon: the target goes, the job keeps its far memory.
    assert_int_equal(morpheus_release(e, 22, &err), 1);
    assert_int_equal(place(e, hot_request(24, "1T", "250ns"), &err), 0);
    morpheus_request_t soft2 = hot_request(25, "600G", "250ns");
    assert_int_equal(morpheus_request_set_wait(&soft2, "1", &err), 0);
    soft2.waiting_since = now - 100;
    soft2.allowed_nodes = pod1.data();
    assert_int_equal(place(e, soft2, &err), 0);
    assert_int_equal(morpheus_release(e, 24, &err), 1);
    assert_int_equal(morpheus_engine_start_moves(e, now + 5, &err), 1);
    assert_int_equal(morpheus_engine_abandon_move(e, 25, now + 6, &err), 1);
    assert_null(std::strstr(summary(25).c_str(), "moving-to"));
    assert_int_equal(on_disk().reserved(0, morpheus::Tier::Dram), 0);

    // MoveTimeout (900 s by default): a move whose nodes never report is given up by a later
    // start_moves, then tried again on the call after.
    assert_int_equal(morpheus_engine_start_moves(e, now + 10, &err), 1);
    assert_true(morpheus::moving(*on_disk().find(25)));
    assert_int_equal(morpheus_engine_start_moves(e, now + 10 + 899, &err), 0);
    assert_true(morpheus::moving(*on_disk().find(25)));  // not yet
    assert_int_equal(morpheus_engine_start_moves(e, now + 10 + 900, &err), 0);
    assert_false(morpheus::moving(*on_disk().find(25)));  // given up, the target freed
    assert_int_equal(on_disk().reserved(0, morpheus::Tier::Dram), 0);
    assert_int_equal(morpheus_engine_start_moves(e, now + 911, &err), 1);  // and tried again
    morpheus_engine_close(&e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(open_reports_bad_files),
        cmocka_unit_test(plan_reserve_release_persist),
        cmocka_unit_test(bad_reload_keeps_last_good),
        cmocka_unit_test(blade_failure_and_return),
        cmocka_unit_test(status_views_filter_by_user),
        cmocka_unit_test(reload_refuses_to_orphan_a_reservation),
        cmocka_unit_test(inventory_may_not_remove_reserved_memory),
        cmocka_unit_test(failed_save_changes_nothing),
        cmocka_unit_test(failed_release_is_retried),
        cmocka_unit_test(background_saves_land),
        cmocka_unit_test(exit_writes_what_the_saver_owes),
        cmocka_unit_test(test_timing_reaches_the_metrics),
        cmocka_unit_test(background_release_on_a_full_disk),
        cmocka_unit_test(seam_spread_feasible_decisions),
        cmocka_unit_test(earliest_start_waits_for_memory),
        cmocka_unit_test(heat_map_moves_placement),
        cmocka_unit_test(latency_reports_from_the_nodes),
        cmocka_unit_test(move_brings_hot_memory_inside_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
