// The typed status model: each view written to JSON reads back to the same value (and the same
// document), a malformed answer is an error that says where, and privacy is applied on the values.
#include <unistd.h>

#include <fstream>

#include "engine.hpp"
#include "json_document.hpp"
#include "status_model.hpp"
#include "test_support.hpp"

using namespace morpheus;

namespace {

// An engine on the example cluster: jobs 1 and 3 of uid 1000, job 2 of uid 2000 (one with cold
// memory), job 4 of uid 2000 pending, blade2 draining with a reason.
struct World {
    std::string dir;
    std::unique_ptr<Engine> engine;

    World() {
        char t[] = "/tmp/morpheus-status-model-XXXXXX";
        dir = mkdtemp(t);
        std::ifstream in(top_srcdir("etc/inventory.json"));
        std::string inventory((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        size_t at = inventory.find("\"blade2\"");
        size_t state = inventory.find("\"up\"", at);
        inventory.replace(state, 4, "\"draining\", \"reason\": \"DIMM errors\", \"since\": 1700000000");
        std::ofstream(dir + "/inventory.json") << inventory;
        std::ofstream(dir + "/morpheus.conf")
            << "FabricFile=" << top_srcdir("etc/fabric.json") << "\nInventoryFile=" << dir << "/inventory.json\n";
        engine = std::make_unique<Engine>(dir + "/morpheus.conf", dir + "/ledger.json");
        Request r;
        r.nodes = 1;
        r.hot_per_node = 1ull << 30;
        uint32_t node = 0;
        for (uint64_t id : {1, 2, 3}) {
            r.job_id = id;
            r.uid = id == 2 ? 2000 : 1000;
            r.cold_per_node = id == 2 ? 2ull << 30 : 0;
            engine->reserve(r, {node});
            node += 5;
        }
        DecisionRecord pending;
        pending.job_id = 4;
        pending.uid = 2000;
        pending.verdict = "pending";
        pending.reason = "no blade within 250ns";
        engine->decisions().record(pending);
    }
    ~World() {
        std::remove((dir + "/ledger.json").c_str());
        std::remove((dir + "/ledger.json.prev").c_str());
        std::remove((dir + "/morpheus.conf").c_str());
        std::remove((dir + "/inventory.json").c_str());
        rmdir(dir.c_str());
    }
    StatusSnapshot snapshot(const Viewer &v) const { return status_snapshot(engine->model(), engine->ledger(), v); }
    JobList jobs(const Viewer &v) const { return job_list(engine->model(), engine->ledger(), engine->decisions(), v); }
};

// Written, read back and written again: the same document both times.
template <class T>
T round_trip(const T &value) {
    std::string text = document_text(to_json(value));
    T back = from_json<T>(text, "test");
    assert_string_equal(document_text(to_json(back)).c_str(), text.c_str());
    return back;
}

std::vector<uint64_t> ids(const std::vector<JobStatus> &jobs) {
    std::vector<uint64_t> out;
    for (const JobStatus &j : jobs) out.push_back(j.job_id);
    return out;
}

}  // namespace

static void snapshot_round_trip(void **) {
    World w;
    StatusSnapshot s = round_trip(w.snapshot(Viewer::of(0, true, false)));
    assert_int_equal(s.blades.size(), 8);
    assert_string_equal(s.blades[1].state.c_str(), "draining");
    assert_string_equal(s.blades[1].reason.c_str(), "DIMM errors");
    assert_int_equal(s.blades[1].since, 1700000000);
    assert_true(s.blades[2].reason.empty());
    assert_int_equal(s.blades[0].dram.capacity, 1ull << 40);
    assert_int_equal(s.pods.size(), 4);
    assert_string_equal(s.pods[0].pod.c_str(), "pod1");
    assert_true(s.pods[0].nearest_blade_ns.has_value());
    assert_int_equal(*s.pods[0].nearest_blade_ns, 200);
    assert_int_equal(s.pods[0].hot_free_by_class.size(), 3);
    assert_int_equal(s.jobs.size(), 3);
    assert_true(s.jobs[1].detail.has_value());
    bool cold = false;
    for (const SegmentStatus &g : s.jobs[1].detail->segments) cold = cold || g.use == "cold";
    assert_true(cold);
    assert_false(s.jobs[0].state.has_value());  // the status op gives no state
}

static void views_round_trip(void **) {
    World w;
    JobList jobs = round_trip(w.jobs(Viewer::of(0, true, false)));
    assert_int_equal(jobs.jobs.size(), 4);
    assert_string_equal(jobs.jobs[0].state->c_str(), "running");
    assert_string_equal(jobs.jobs[3].state->c_str(), "pending");
    assert_string_equal(jobs.jobs[3].reason->c_str(), "no blade within 250ns");
    assert_false(jobs.jobs[3].detail.has_value());
    FabricMatrix f = round_trip(fabric_matrix(w.engine->model(), w.engine->ledger()));
    assert_int_equal(f.latency_ns.size(), 4);
    assert_int_equal(f.latency_ns[0].size(), 8);
    assert_int_equal(*f.latency_ns[0][0], 200);
    assert_int_equal(f.blades[1].dram_free, 0);  // draining: admits nothing
    ExplainAnswer e;
    e.job_id = 7;
    e.uid = 1000;
    e.decision = ExplainDecision{"pending", "why", 1700000000, "line one\nline two\n"};
    e.holding = "morpheus: pod=pod1";
    ExplainAnswer back = round_trip(e);
    assert_string_equal(back.decision->explanation.c_str(), "line one\nline two\n");
    assert_string_equal(round_trip(MetricsAnswer{"# HELP x\nx 1\n"}).text.c_str(), "# HELP x\nx 1\n");
}

static void malformed_answers_say_where(void **) {
    expect_input_error([] { from_json<StatusSnapshot>("{\"error\": \"job 9: no decision\"}", "ctl1:7820"); },
                       {"ctl1:7820", "job 9: no decision"});
    expect_input_error([] { from_json<JobList>("{\"jobs\": [", "ctl1:7820"); }, {"ctl1:7820", "unreadable answer"});
    expect_input_error([] { from_json<JobList>("[1, 2]", "status"); }, {"not a JSON object"});
    expect_input_error([] { from_json<JobList>("{\"jobs\": [{\"job_id\": \"x\", \"uid\": 1}]}", "status"); },
                       {"$.jobs[0].job_id", "expected a whole number"});
    expect_input_error([] { from_json<StatusSnapshot>("{\"fabric\": \"f\", \"inventory\": \"i\"}", "status"); },
                       {"default_hot_latency_ns", "missing"});
    expect_input_error(
        [] {
            from_json<FabricMatrix>("{\"hot_bound_ns\": 1, \"pods\": [], \"blades\": [], \"latency_ns\": [[1]]}",
                                    "status");
        },
        {"$.latency_ns", "one row per pod"});
    // Members it does not know are skipped: an older CLI reads a newer server.
    JobList j = from_json<JobList>("{\"jobs\": [{\"job_id\": 5, \"uid\": 1, \"colour\": \"red\"}], \"more\": 1}", "s");
    assert_int_equal(j.jobs.size(), 1);
}

static void privacy_on_the_values(void **) {
    World w;
    // PrivateData=jobs: an unprivileged viewer sees only their own jobs, running or pending.
    Viewer own = Viewer::of(1000, false, true);
    std::vector<uint64_t> mine = {1, 3};
    assert_true(ids(w.snapshot(own).jobs) == mine);
    assert_true(ids(w.jobs(own).jobs) == mine);
    for (const JobStatus &j : w.snapshot(own).jobs) assert_true(j.detail.has_value());
    // Without it: every running job's id and owner, the detail of their own only, and their own
    // pending jobs.
    Viewer open = Viewer::of(1000, false, false);
    StatusSnapshot s = w.snapshot(open);
    assert_true(ids(s.jobs) == (std::vector<uint64_t>{1, 2, 3}));
    assert_true(s.jobs[0].detail.has_value());
    assert_false(s.jobs[1].detail.has_value());
    assert_true(ids(w.jobs(open).jobs) == (std::vector<uint64_t>{1, 2, 3}));
    std::string text = document_text(to_json(s));
    assert_null(std::strstr(text.c_str(), "\"cold\""));  // job 2's cold segment is its owner's to see
    // root and SlurmUser see all, PrivateData or not.
    Viewer root = Viewer::of(0, true, true);
    assert_true(ids(w.jobs(root).jobs) == (std::vector<uint64_t>{1, 2, 3, 4}));
    for (const JobStatus &j : w.snapshot(root).jobs) assert_true(j.detail.has_value());
    // The owner of job 4 sees it pending.
    assert_true(ids(w.jobs(Viewer::of(2000, false, true)).jobs) == (std::vector<uint64_t>{2, 4}));
}

int main(int argc, char **argv) {
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(snapshot_round_trip),
        cmocka_unit_test(views_round_trip),
        cmocka_unit_test(malformed_answers_say_where),
        cmocka_unit_test(privacy_on_the_values),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
