// The simulator: events in order, every job started and ended once with nothing over capacity
// at any event, the SWF reader and job model, and a tiny fabric where each policy's outcome is
// known by hand (first-fit puts hot memory on a far blade, morpheus does not).
#include <cmath>
#include <map>
#include <set>

#include "flush_replay.hpp"
#include "job_model.hpp"
#include "latency_events.hpp"
#include "policy.hpp"
#include "run_summary.hpp"
#include "simulator.hpp"
#include "test_support.hpp"
#include "trace.hpp"

using namespace morpheus;
using namespace morpheus::sim;

namespace {

constexpr uint64_t kGiB = 1ull << 30;

// Two pods of 2 nodes x 8 GPUs, each under its own leaf; two blades, one per leaf. The blade
// listed first (index 0, "far") hangs off pod b's leaf, so from pod a it is three hops away:
//   pod a -> near: 10 + 50 + 40 = 100ns    pod a -> far: 10 + 50 + 100 + 100 + 40 = 300ns
const char *kTinyFabric = R"({"version": 1, "name": "tiny",
  "pods": [{"name": "a", "nodes": "n[1-2]", "gpus_per_node": 8, "node_latency": "10ns"},
           {"name": "b", "nodes": "n[3-4]", "gpus_per_node": 8, "node_latency": "10ns"}],
  "switches": [{"name": "leafa"}, {"name": "leafb"}, {"name": "spine"}],
  "blades": [{"name": "far"}, {"name": "near"}],
  "links": [{"from": "a", "to": "leafa", "latency": "50ns", "bandwidth": 400},
            {"from": "b", "to": "leafb", "latency": "50ns", "bandwidth": 400},
            {"from": "leafa", "to": "spine", "latency": "100ns", "bandwidth": 400},
            {"from": "leafb", "to": "spine", "latency": "100ns", "bandwidth": 400},
            {"from": "far", "to": "leafb", "latency": "40ns", "bandwidth": 400},
            {"from": "near", "to": "leafa", "latency": "40ns", "bandwidth": 400}]})";
const char *kTinyInventory = R"({"version": 1, "blades": [
  {"name": "far", "dram": "256G", "pmem": "1T"}, {"name": "near", "dram": "256G", "pmem": "1T"}]})";

ClusterModel tiny() {
    Fabric f = parse_fabric(kTinyFabric, "tiny-fabric.json");
    Inventory inv = parse_inventory(kTinyInventory, "tiny-inventory.json", f);
    return ClusterModel(std::move(f), std::move(inv), PlacementSettings{});
}

ClusterModel tiny_with(HotBladeOrder order) {
    Fabric f = parse_fabric(kTinyFabric, "tiny-fabric.json");
    Inventory inv = parse_inventory(kTinyInventory, "tiny-inventory.json", f);
    PlacementSettings s;
    s.hot_blade_order = order;
    return ClusterModel(std::move(f), std::move(inv), s);
}

ClusterModel example() {
    Fabric f = read_fabric(top_srcdir("etc/fabric.json"));
    Inventory inv = read_inventory(top_srcdir("etc/inventory.json"), f);
    return ClusterModel(std::move(f), std::move(inv), PlacementSettings{});
}

SimJob job(uint64_t id, int64_t submit, int64_t runtime, uint32_t nodes, uint64_t hot = 0, uint64_t bound = 0) {
    SimJob j;
    j.id = id;
    j.submit = submit;
    j.runtime = runtime;
    j.estimate = 2 * runtime;  // the time limit, as the job model sets it without a requested time
    j.sensitivity = 0.2;
    j.request.job_id = id;
    j.request.nodes = nodes;
    j.request.hot_per_node = hot;
    j.request.hot_latency_ns = bound;
    return j;
}

SimResult run(const ClusterModel &m, const std::string &policy, const std::vector<SimJob> &jobs,
              SimOptions opt = SimOptions{}) {
    auto p = make_policy(policy);
    opt.check_invariants = true;
    return simulate(m, *p, jobs, opt);
}

void ends_come_before_arrivals_at_the_same_time(void **) {
    ClusterModel m = tiny();
    // Both jobs want the whole cluster; job 2 arrives as job 1 ends and must start at once.
    std::vector<SimJob> jobs{job(1, 0, 100, 4), job(2, 100, 50, 4), job(3, 100, 10, 1)};
    std::vector<SimEvent> seen;
    SimOptions opt;
    opt.backfill = false;
    opt.on_event = [&](const SimEvent &e) { seen.push_back(e); };
    SimResult r = run(m, "first-fit", jobs, opt);
    assert_int_equal(seen.size(), 6);  // three arrivals, three ends
    for (size_t i = 1; i < seen.size(); ++i) {
        assert_true(seen[i - 1].time <= seen[i].time);
        if (seen[i - 1].time == seen[i].time) assert_true(seen[i - 1].kind <= seen[i].kind);
    }
    assert_int_equal(static_cast<int>(seen[1].kind), static_cast<int>(EventKind::End));  // t=100: job 1 ends first
    assert_int_equal(seen[1].time, 100);
    assert_int_equal(r.jobs[1].start, 100);
    assert_int_equal(r.jobs[2].start, 150);  // FCFS: job 3 waits behind job 2
    assert_true(r.violations.empty());
}

void every_job_starts_once_and_nothing_goes_over_capacity(void **) {
    ClusterModel m = example();
    SyntheticParams sp;
    sp.jobs = 400;
    sp.processors = 16;
    sp.max_job_processors = 8;
    sp.load = 0.9;
    sp.max_runtime = 4 * 3600;
    Trace t = synthetic_trace(sp);
    JobModel jm;
    jm.mem_max = 256ull << 30;
    std::vector<SimJob> jobs = model_jobs(t, jm, m);
    for (const std::string &policy : policy_names())
        for (bool backfill : {false, true}) {
            SimOptions opt;
            opt.backfill = backfill;
            size_t arrivals = 0, ends = 0;
            opt.on_event = [&](const SimEvent &e) { (e.kind == EventKind::Arrival ? arrivals : ends)++; };
            SimResult r = run(m, policy, jobs, opt);
            for (const std::string &v : r.violations) std::fprintf(stderr, "%s: %s\n", policy.c_str(), v.c_str());
            assert_true(r.violations.empty());
            assert_int_equal(arrivals, jobs.size());
            size_t ran = 0;
            for (size_t i = 0; i < jobs.size(); ++i) {
                const JobOutcome &o = r.jobs[i];
                if (o.apart || o.refused) continue;
                ++ran;
                assert_int_equal(o.starts, 1);
                assert_int_equal(o.ends, 1);
                assert_true(o.start >= o.submit);
                assert_int_equal(o.end - o.start, o.runtime);
                if (o.killed)
                    assert_int_equal(o.runtime, jobs[i].estimate);
                else
                    assert_true(o.runtime >= o.base_runtime);
            }
            assert_int_equal(ends, ran);
            assert_true(ran > jobs.size() / 2);
            Summary s = summarize(r);
            assert_true(s.gpu_util > 0 && s.gpu_util <= 1.0);
            assert_true(s.hot_util >= 0 && s.hot_util <= 1.0);
        }
}

// The hand-checked scenario: one job, 2 nodes, 64G hot per node within 200ns, 1000 s.
void first_fit_goes_far_and_morpheus_stays_near(void **) {
    ClusterModel m = tiny();
    std::vector<SimJob> jobs{job(1, 0, 1000, 2, 64 * kGiB, 200)};
    SimOptions opt;  // alpha 0.2 over 100ns local
    // morpheus: pod a (tie with b, broken by index), hot memory on "near" at 100ns: no stretch.
    SimResult mo = run(m, "morpheus", jobs, opt);
    assert_int_equal(mo.jobs[0].pods, 1);
    assert_true(mo.jobs[0].hot_latency_ns == 100.0);
    assert_true(mo.jobs[0].within_bound);
    assert_int_equal(mo.jobs[0].end, 1000);
    // first-fit: nodes n1, n2 (pod a), hot memory on blade 0 = "far" at 300ns: 1000 x (1 + 0.2 x 2).
    SimResult ff = run(m, "first-fit", jobs, opt);
    assert_true(ff.jobs[0].hot_latency_ns == 300.0);
    assert_false(ff.jobs[0].within_bound);
    assert_int_equal(ff.jobs[0].end, 1400);
    // tree-best-fit: also pod a (both pods fit equally), memory also from blade 0.
    SimResult tb = run(m, "tree-best-fit", jobs, opt);
    assert_true(tb.jobs[0].hot_latency_ns == 300.0);
    assert_int_equal(tb.jobs[0].end, 1400);
    assert_true(summarize(mo).within_bound == 1.0);
    assert_true(summarize(ff).within_bound == 0.0);
}

// The fair baselines: tree's nodes, the nearest memory. Job 1 (pod a) fills most of "near";
// job 2 cannot keep its bound in pod a (tree's best fit) but can in pod b, whose nearest blade
// is "far"; job 3 fits inside the bound nowhere: tree-nearest places it now, partly 300ns away,
// tree-nearest-strict waits until job 1 ends.
void tree_nearest_takes_the_nearest_blade_and_strict_waits_for_the_bound(void **) {
    ClusterModel m = tiny();
    std::vector<SimJob> one{job(1, 0, 1000, 2, 64 * kGiB, 200)};
    SimResult tn = run(m, "tree-nearest", one);
    assert_true(tn.jobs[0].hot_latency_ns == 100.0);  // "near", where tree-best-fit took "far"
    assert_int_equal(tn.jobs[0].end, 1000);
    std::vector<SimJob> jobs{job(1, 0, 1000, 1, 200 * kGiB, 200), job(2, 1, 1000, 1, 200 * kGiB, 200),
                             job(3, 2, 100, 1, 100 * kGiB, 200)};
    for (const char *policy : {"tree-nearest", "tree-nearest-strict"}) {
        SimResult r = run(m, policy, jobs);
        assert_true(r.violations.empty());
        assert_true(r.jobs[0].within_bound && r.jobs[1].within_bound);
        assert_int_equal(r.jobs[1].start, 1);
        assert_true(r.jobs[1].hot_latency_ns == 100.0);  // pod b's nearest blade
    }
    SimResult best_effort = run(m, "tree-nearest", jobs), strict = run(m, "tree-nearest-strict", jobs);
    assert_int_equal(best_effort.jobs[2].start, 2);
    assert_false(best_effort.jobs[2].within_bound);
    assert_true(best_effort.jobs[2].max_hot_latency_ns == 300.0);
    assert_int_equal(strict.jobs[2].start, 1000);
    assert_true(strict.jobs[2].within_bound);
}

// HotBladeOrder=slack, in the core's decide() the simulator shares with the plugin: a job whose
// bound (500ns) reaches both blades from pod a takes "far" (300ns), leaving "near" (100ns) to
// tighter jobs; a 200ns job still gets "near", the only blade inside its bound. nearest: "near".
void slack_order_leaves_near_memory_to_tight_jobs(void **) {
    std::vector<SimJob> loose{job(1, 0, 1000, 1, 64 * kGiB, 500)}, tight{job(1, 0, 1000, 1, 64 * kGiB, 200)};
    ClusterModel nearest = tiny_with(HotBladeOrder::Nearest), slack = tiny_with(HotBladeOrder::Slack);
    assert_true(run(nearest, "morpheus", loose).jobs[0].hot_latency_ns == 100.0);
    assert_true(run(slack, "morpheus", loose).jobs[0].hot_latency_ns == 300.0);
    assert_true(run(slack, "morpheus", tight).jobs[0].hot_latency_ns == 100.0);
    // The same through decide(), as select/morpheus calls it.
    Ledger empty(slack.fabric().blades.size());
    std::vector<uint8_t> all(slack.fabric().node_names.size(), 1);
    Decision d = decide(slack, empty, loose[0].request, all);
    assert_int_equal(static_cast<int>(d.verdict), static_cast<int>(Verdict::Placed));
    assert_string_equal(slack.fabric().blades[d.placement.segments[0].blade].name.c_str(), "far");
}

// A 1-node job holds n1; a 2-node job follows. first-fit takes n2 and n3 across both pods;
// tree-best-fit keeps it in pod b (the only pod with 2 free); morpheus too.
void tree_best_fit_keeps_a_job_in_one_pod(void **) {
    ClusterModel m = tiny();
    std::vector<SimJob> jobs{job(1, 0, 10000, 1), job(2, 1, 100, 2)};
    assert_int_equal(run(m, "first-fit", jobs).jobs[1].pods, 2);
    assert_int_equal(run(m, "tree-best-fit", jobs).jobs[1].pods, 1);
    assert_int_equal(run(m, "morpheus", jobs).jobs[1].pods, 1);
}

// 2 x 300G hot within 200ns under a hard bound: no pod has that much near memory, and 600G is
// more than both blades' DRAM (512G) anyway. The cluster can never run it under its terms: it
// is listed apart, the same for every policy, and counts in no figure.
void a_job_the_cluster_can_never_run_is_apart_for_all(void **) {
    ClusterModel m = tiny();
    std::vector<SimJob> jobs{job(1, 0, 100, 2, 300 * kGiB, 200), job(2, 0, 100, 1)};
    judge_on_empty_cluster(jobs, m);
    assert_true(jobs[0].apart && !jobs[1].apart);
    for (const std::string &policy : policy_names()) {
        SimResult r = run(m, policy, jobs);
        Summary s = summarize(r);
        assert_true(r.jobs[0].apart && !r.jobs[0].refused);
        assert_int_equal(r.jobs[1].start, 0);
        assert_int_equal(s.apart, 1);
        assert_int_equal(s.refused, 0);
        assert_int_equal(s.ran, 1);
        assert_true(s.bounded_slowdown == 1.0);  // job 2 alone: no wait, run as logged
    }
}

// 300G hot on one node within 200ns, with a soft bound (no wait): no blade near either pod has
// 300G, but the job's terms allow memory beyond the bound, so it is not apart. morpheus runs it
// beyond once the wait is over; the strict baselines can never place it: refused, and charged
// as having waited to the end of the replay (t=100, when job 2 ends) and then run as logged:
// BSLD (100 + 100) / 100 = 2 for it, 1 for job 2. Refusing is never free.
void a_refused_job_is_charged_to_the_end_of_the_replay(void **) {
    ClusterModel m = tiny();
    std::vector<SimJob> jobs{job(1, 0, 100, 1, 300 * kGiB, 200), job(2, 0, 100, 1, 64 * kGiB)};
    jobs[0].request.hot_wait_s = kHotWaitNone;
    judge_on_empty_cluster(jobs, m);
    assert_true(!jobs[0].apart && !jobs[0].in_bound);
    for (const std::string &policy : policy_names()) {
        SimResult r = run(m, policy, jobs);
        Summary s = summarize(r);
        assert_int_equal(s.jobs, 2);
        assert_int_equal(s.apart, 0);
        assert_int_equal(r.jobs[1].start, 0);
        const bool strict = policy == "tree-nearest-strict" || policy == "spread-strict";
        assert_int_equal(s.refused, strict ? 1 : 0);
        assert_int_equal(s.ran, strict ? 1 : 2);
        if (strict) {
            assert_true(r.jobs[0].refused);
            assert_true(std::fabs(s.bounded_slowdown - 1.5) < 1e-9);
            assert_true(s.wait_max_s == 100.0);
        }
    }
    // Over the jobs every policy ran: job 2 only (under morpheus its memory may lie beyond
    // the near blade job 1 filled, so only the strict run's figure is known exactly).
    SimResult mo = run(m, "morpheus", jobs), st = run(m, "tree-nearest-strict", jobs);
    Summary sm = summarize(mo), ss = summarize(st);
    common_jobs({&mo, &st}, {&sm, &ss});
    assert_int_equal(sm.common_jobs, 1);
    assert_int_equal(ss.common_jobs, 1);
    assert_true(ss.common_bounded_slowdown == 1.0 && sm.common_bounded_slowdown >= 1.0);
}

// Two nodes with 200G hot each within 200ns: each pod's near blade holds 256G, so no single pod
// can take the job in bound. tree-nearest-strict only spreads when no single pod has the nodes,
// so it refuses it; spread-strict spreads it, one node per pod, each on its own near blade.
void spread_strict_spreads_where_one_pod_lacks_near_memory(void **) {
    ClusterModel m = tiny();
    std::vector<SimJob> jobs{job(1, 0, 100, 2, 200 * kGiB, 200)};
    judge_on_empty_cluster(jobs, m);
    assert_true(jobs[0].in_bound && !jobs[0].apart);
    SimResult sp = run(m, "spread-strict", jobs), tr = run(m, "tree-nearest-strict", jobs);
    assert_int_equal(sp.jobs[0].start, 0);
    assert_int_equal(sp.jobs[0].pods, 2);
    assert_true(sp.jobs[0].within_bound);
    assert_true(tr.jobs[0].refused);
}

// The bound following sensitivity: tight_share 0.25 is exactly the weight of the most sensitive
// class (alpha 0.35), so the tight jobs are those and only those; independent: any class.
void the_bound_model_decides_who_asks_for_the_tight_bound(void **) {
    ClusterModel m = tiny();
    Trace t;
    for (uint64_t i = 1; i <= 400; ++i) t.jobs.push_back({i, static_cast<int64_t>(i), 100, 1, -1, 0});
    JobModel follows;
    follows.bound_model = JobModel::BoundModel::Sensitivity;
    size_t tight = 0, tight_insensitive = 0;
    for (const SimJob &j : model_jobs(t, follows, m)) {
        assert_true(j.tight == (j.sensitivity == 0.35));
        assert_true(j.request.hot_latency_ns == (j.tight ? follows.tight_bound_ns : follows.default_bound_ns));
        tight += j.tight;
    }
    assert_true(tight > 60 && tight < 140);  // about a quarter of 400
    tight = 0;
    for (const SimJob &j : model_jobs(t, JobModel{}, m)) {
        tight += j.tight;
        tight_insensitive += j.tight && j.sensitivity < 0.35;
    }
    assert_true(tight > 60 && tight < 140);
    assert_true(tight_insensitive > 20);  // at random: most tight jobs are not the most sensitive
}

// Slurm ends a job at its time limit: first-fit's far memory stretches 1000 s to 1400 s, past a
// 1200 s limit; the job ends at 1200, killed. morpheus's near memory keeps it inside.
void a_job_is_killed_at_its_time_limit(void **) {
    ClusterModel m = tiny();
    std::vector<SimJob> jobs{job(1, 0, 1000, 2, 64 * kGiB, 200)};
    jobs[0].estimate = 1200;
    SimResult ff = run(m, "first-fit", jobs);
    assert_true(ff.jobs[0].killed);
    assert_int_equal(ff.jobs[0].end, 1200);
    assert_int_equal(summarize(ff).killed, 1);
    SimResult mo = run(m, "morpheus", jobs);
    assert_false(mo.jobs[0].killed);
    assert_int_equal(mo.jobs[0].end, 1000);
    assert_int_equal(summarize(mo).killed, 0);
}

// EASY's head reservation counts memory, not only nodes. Job 1 holds pod a and most of "near"
// until 1000 (its limit: 2000, the shadow time); job 2 holds one node of pod b and most of "far". The head H (2 nodes, 240G within
// 200ns) can start at 1000 in pod a. C, a long 1-node job, fits now on pod b's free node, and
// a nodes-only EASY lets it (one node to spare at 1000), but its 200G takes 44G of "near", which
// H then lacks: H would wait until C ends. Memory-aware, C waits and H starts at 1000, when job
// 1 ends.
void backfill_reserves_the_heads_memory(void **) {
    ClusterModel m = tiny();
    std::vector<SimJob> jobs{job(1, 0, 1000, 2, 100 * kGiB, 200), job(2, 0, 5000, 1, 100 * kGiB, 200),
                             job(3, 1, 100, 2, 120 * kGiB, 200), job(4, 2, 5000, 1, 200 * kGiB, 500)};
    for (const char *policy : {"morpheus", "tree-nearest-strict"}) {
        SimResult r = run(m, policy, jobs);
        assert_true(r.violations.empty());
        assert_int_equal(r.jobs[2].start, 1000);
        assert_true(r.jobs[3].start > 2);
    }
    // A short job that ends before the shadow time still backfills.
    jobs[3].runtime = 500;
    jobs[3].estimate = 1000;
    SimResult r = run(m, "morpheus", jobs);
    assert_int_equal(r.jobs[3].start, 2);
    assert_int_equal(r.jobs[2].start, 1000);
}

void intervals_use_the_t_distribution(void **) {
    Interval i = t_interval({1, 2, 3, 4, 5});
    assert_int_equal(i.n, 5);
    assert_true(std::fabs(i.mean - 3.0) < 1e-12);
    // sd = sqrt(2.5), t(0.975, 4) = 2.776: 2.776 x 1.5811 / sqrt(5) = 1.9630
    assert_true(std::fabs(i.half - 1.9630) < 1e-3);
    assert_true(t_interval({7}).half == 0);
    assert_true(std::fabs(t_interval({2, 4}).half - 12.706) < 1e-9);  // t(1) = 12.706, sd/sqrt(2) = 1
    assert_true(t_quantile_975(1000) == 1.96);
}

void swf_records_are_read_and_bad_ones_named(void **) {
    Trace t = parse_swf(
        "; Version: 2.2\n"
        "; MaxNodes: 128\n"
        "  2   50  -1  300  8  -1  -1  16  600  -1 1 1 1 -1 -1 -1 -1 -1\n"
        "  1   10  -1  100  4  -1 2048 -1   -1  -1 1 1 1 -1 -1 -1 -1 -1\n"
        "  3   60  -1   -1  4  -1  -1   4   -1  -1 5 1 1 -1 -1 -1 -1 -1\n",
        "t.swf");
    assert_int_equal(t.jobs.size(), 2);
    assert_int_equal(t.skipped, 1);  // job 3 never ran
    assert_int_equal(t.jobs[0].id, 1);  // sorted by submit
    assert_int_equal(t.jobs[0].processors, 4);  // allocated, as requested is unknown
    assert_int_equal(t.jobs[0].memory_kb, 2048);  // used memory, as requested is unknown
    assert_int_equal(t.jobs[1].processors, 16);
    assert_int_equal(t.jobs[1].requested_time, 600);
    expect_input_error([] { parse_swf("1 2 3\n", "bad.swf"); }, {"bad.swf", "line 1", "3 columns"});
    expect_input_error([] { parse_swf("1 2 3 x 5 6 7 8 9 10 11 12 13 14 15 16 17 18\n", "bad.swf"); },
                       {"line 1", "column 4"});
}

void the_job_model_maps_processors_and_memory(void **) {
    ClusterModel m = tiny();
    Trace t = parse_swf(
        "1 0 -1 100 2 -1 -1 2 -1 4194304 1 1 1 -1 -1 -1 -1 -1\n"  // 4G per processor
        "2 5 -1 100 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
        "t.swf");
    JobModel jm;
    jm.hot_fraction = 0.5;
    jm.tight_share = 0;
    std::vector<SimJob> jobs = model_jobs(t, jm, m);
    assert_int_equal(jobs.size(), 2);
    assert_int_equal(jobs[0].request.gpus, 16);  // a processor is a node (8 GPUs) by default
    assert_int_equal(jobs[0].request.hot_per_node, 2 * kGiB);  // 2 x 4G over 2 nodes, half hot
    assert_int_equal(jobs[0].request.cold_per_node, 2 * kGiB);
    assert_true(jobs[1].request.hot_per_node >= 16 * kGiB && jobs[1].request.hot_per_node <= 256 * kGiB);
    // Draws depend on the job id only: the same job gets the same memory in a filtered trace.
    Trace only2;
    only2.jobs.push_back(t.jobs[1]);
    assert_int_equal(model_jobs(only2, jm, m)[0].request.hot_per_node, jobs[1].request.hot_per_node);
    jm.gpus_per_proc = 1;
    assert_int_equal(model_jobs(t, jm, m)[0].request.gpus, 2);
}

void the_slowdown_model_is_as_stated(void **) {
    SlowdownModel s;
    s.local_ns = 100;
    assert_int_equal(s.stretch(1000, 0, 0.5), 1000);  // no hot memory
    assert_int_equal(s.stretch(1000, 80, 0.5), 1000);  // nearer than local: no speed-up
    assert_int_equal(s.stretch(1000, 300, 0.5), 2000);  // 1 + 0.5 x 2: the job's own alpha
    s.alpha = 0;  // one alpha for all overrides it
    assert_int_equal(s.stretch(1000, 300, 0.5), 1000);
}

// Sensitivity is drawn per job from the stated mixture; each class gets about its weight.
void the_job_model_draws_sensitivity_from_the_mix(void **) {
    ClusterModel m = tiny();
    Trace t;
    for (uint64_t id = 1; id <= 4000; ++id) t.jobs.push_back({id, 0, 100, 1, -1, -1, 1});
    JobModel jm;
    std::map<double, int> seen;
    for (const SimJob &j : model_jobs(t, jm, m)) {
        seen[j.sensitivity]++;
        assert_int_equal(j.estimate, 200);  // no requested time: run time x limit_factor 2
    }
    assert_int_equal(seen.size(), kPondMix.size());
    for (const SensitivityClass &c : kPondMix) assert_true(std::fabs(seen[c.alpha] / 4000.0 - c.weight) < 0.03);
    jm.seed = 2;  // another seed draws anew
    assert_true(model_jobs(t, jm, m)[0].sensitivity != model_jobs(t, JobModel{}, m)[0].sensitivity ||
                model_jobs(t, jm, m)[1].sensitivity != model_jobs(t, JobModel{}, m)[1].sensitivity ||
                model_jobs(t, jm, m)[2].sensitivity != model_jobs(t, JobModel{}, m)[2].sensitivity);
}

// Issue 29: "near" slows from 100 to 400ns for pod a's nodes over [1000, 11000). Tight (250ns)
// one-node jobs, one at a time every 400 s. On the fabric file's latencies morpheus keeps
// sending them to pod a and "near" (the tie with pod b broken by index): beyond their bound in
// truth, and 1 + 0.2 x 3 = 1.6 times slower. With the live heat map it sees the cell at 400ns
// two settle rounds after the event begins and sends them to pod b and "far" (100ns), and
// goes back when the event is over. A job running when the event begins slows from then on,
// in both modes: the map moves placement, not running jobs.
void a_degraded_blade_gets_fewer_hot_jobs_with_the_live_map(void **) {
    ClusterModel m = tiny();
    const std::vector<LatencyEvent> events = parse_latency_events("1000 10000 pods=a near 400ns\n", "ev", m.fabric());
    std::vector<SimJob> jobs{job(100, 500, 1000, 1, 16 * kGiB, 250)};
    for (uint64_t k = 0; k < 40; ++k) jobs.push_back(job(k + 1, 2000 + 400 * int64_t(k), 300, 1, 16 * kGiB, 250));
    for (SimJob &j : jobs) j.tight = true;
    SimOptions opt;
    opt.latency_events = &events;
    SimResult fixed = run(m, "morpheus", jobs, opt);
    opt.live_heat_map = true;
    opt.probe_interval_s = 60;
    SimResult live = run(m, "morpheus", jobs, opt);
    assert_true(fixed.violations.empty() && live.violations.empty());
    for (const SimResult *r : {&fixed, &live}) {
        // 500 s at 100ns, then the other 500 s of work at 1.6 x: ends at 1800, 800 s beyond.
        assert_int_equal(r->jobs[0].end, 1800);
        assert_int_equal(r->jobs[0].over_bound_s, 800);
        assert_int_equal(r->jobs[0].unseen_over_bound_s, 800);
        assert_false(r->jobs[0].degraded_start);
    }
    // Jobs 1..23 start during the event (2000..10800).
    for (size_t i = 1; i <= 23; ++i) {
        assert_true(fixed.jobs[i].degraded_start);
        assert_true(fixed.jobs[i].true_hot_latency_ns == 400.0);
        // Job 23 starts at 10800: 200 s at 1.6 x (125 s of work), the rest at 100ns again.
        assert_int_equal(fixed.jobs[i].runtime, i < 23 ? 480 : 375);
        assert_int_equal(fixed.jobs[i].unseen_over_bound_s, i < 23 ? 480 : 200);
        assert_false(live.jobs[i].degraded_start);
        assert_true(live.jobs[i].true_hot_latency_ns == 100.0);
        assert_int_equal(live.jobs[i].runtime, 300);
        assert_int_equal(live.jobs[i].over_bound_s, 0);
    }
    const Summary sf = summarize(fixed), sl = summarize(live);
    assert_int_equal(sf.degraded_starts, 23);
    assert_int_equal(sl.degraded_starts, 0);
    assert_int_equal(sf.tight_unseen_jobs, 24);
    assert_int_equal(sl.tight_unseen_jobs, 1);  // the job running when the event began
    assert_true(sl.hot_stretch_mean < sf.hot_stretch_mean);
    // The map published the cell once, and the fabric's value once again after the event.
    assert_int_equal(fixed.probe_rounds, 0);
    assert_true(live.probe_rounds > 0);
    assert_int_equal(live.heat_changes, 2);
    // Probes do not outlast the workload: the replay ends with the last job.
    assert_int_equal(live.last_end, fixed.last_end);
}

// Without latency events, the live heat map has nothing to learn: the same replay.
void the_live_map_changes_nothing_on_a_fabric_as_its_file_says(void **) {
    ClusterModel m = example();
    const std::vector<LatencyEvent> none;
    std::vector<SimJob> jobs;
    for (uint64_t k = 0; k < 30; ++k)
        jobs.push_back(
            job(k + 1, 100 * int64_t(k), 500 + 37 * int64_t(k % 7), 1 + k % 3, (8 + k % 5) * kGiB, k % 4 ? 0 : 250));
    SimOptions opt;
    SimResult plain = run(m, "morpheus", jobs, opt);
    opt.latency_events = &none;
    opt.live_heat_map = true;
    SimResult live = run(m, "morpheus", jobs, opt);
    for (size_t i = 0; i < jobs.size(); ++i) {
        assert_int_equal(plain.jobs[i].start, live.jobs[i].start);
        assert_int_equal(plain.jobs[i].end, live.jobs[i].end);
        assert_true(plain.jobs[i].hot_latency_ns == live.jobs[i].hot_latency_ns);
    }
    assert_int_equal(live.probe_rounds, 0);
}

void latency_events_are_read_and_bad_ones_named(void **) {
    ClusterModel m = tiny();
    const Fabric &f = m.fabric();
    std::vector<LatencyEvent> e = parse_latency_events(
        "# start duration where blades latency\n"
        "2d 1.5h nodes=n[1-2] * +50ns  # a's uplink\n"
        "\n"
        "90m 600 pods=b far x3\n"
        "0 1d * near 120ns\n",
        "ev", f);
    assert_int_equal(e.size(), 3);
    assert_int_equal(e[0].start, 2 * 86400);
    assert_int_equal(e[0].end, 2 * 86400 + 5400);
    assert_int_equal(e[0].line, 2);
    assert_true(e[0].nodes == std::vector<uint8_t>({1, 1, 0, 0}) && e[0].blades == std::vector<uint8_t>({1, 1}));
    assert_int_equal(e[1].start, 5400);
    assert_true(e[1].nodes == std::vector<uint8_t>({0, 0, 1, 1}) && e[1].blades == std::vector<uint8_t>({1, 0}));
    // The fabric's latency, or the highest of the active events'.
    FabricLatency truth(f, m.latency(), e);
    assert_int_equal(truth.latency(0, 1), 100);  // before at(): nothing active
    assert_false(truth.at(-1));
    assert_true(truth.at(0));
    assert_int_equal(truth.latency(0, 1), 120);
    assert_int_equal(truth.latency(2, 1), 120);  // an event sets the latency, below the fabric's too
    assert_true(truth.at(2 * 86400));
    assert_int_equal(truth.latency(0, 1), 150);  // +50 over 100 beats nothing (the 1d event is over)
    assert_int_equal(truth.latency(0, 0), 350);
    assert_true(truth.degraded(0, 0));
    assert_false(truth.degraded(2, 0));
    assert_true(truth.at(5400));
    assert_int_equal(truth.latency(2, 0), 300);  // x3 of b's 100ns
    assert_int_equal(truth.latency(2, 1), 120);
    assert_true((truth.change_times() == std::vector<int64_t>{0, 5400, 6000, 86400, 172800, 178200}));
    expect_input_error([&] { parse_latency_events("1 2 *\n", "ev", f); }, {"ev", "line 1", "expected 5 fields"});
    expect_input_error([&] { parse_latency_events("\n1 0 * near 1us\n", "ev", f); },
                       {"line 2", "DURATION must be positive"});
    expect_input_error([&] { parse_latency_events("1 1 pods=c near 1us\n", "ev", f); },
                       {"line 1", "pod \"c\" is not in the fabric"});
    expect_input_error([&] { parse_latency_events("1 1 nodes=n9 near 1us\n", "ev", f); },
                       {"node \"n9\" is not in the fabric"});
    expect_input_error([&] { parse_latency_events("1 1 * nowhere 1us\n", "ev", f); },
                       {"blade \"nowhere\" is not in the fabric"});
    expect_input_error([&] { parse_latency_events("1 1 racks=1 near 1us\n", "ev", f); }, {"names no nodes"});
    expect_input_error([&] { parse_latency_events("soon 1 * near 1us\n", "ev", f); }, {"START \"soon\" is not a time"});
    expect_input_error([&] { parse_latency_events("1 1w * near 1us\n", "ev", f); }, {"DURATION \"1w\""});
    expect_input_error([&] { parse_latency_events("1 1 * near fast\n", "ev", f); }, {"line 1", "LATENCY"});
    expect_input_error([&] { parse_latency_events("1 1 * near 20ms\n", "ev", f); }, {"out of range"});
    expect_input_error([&] { parse_latency_events("1 1 * near x0\n", "ev", f); }, {"factor \"x0\""});
    expect_input_error([&] { read_latency_events("/no/such/events", f); }, {"/no/such/events", "cannot read"});
}

void unknown_policies_are_named(void **) {
    expect_input_error([] { make_policy("best"); }, {"best", "morpheus", "first-fit", "tree-best-fit"});
    for (const std::string &n : policy_names()) assert_string_equal(make_policy(n)->name(), n.c_str());
}

}  // namespace

// The link-bandwidth model: flows on a shared link share it; a paced flow keeps to its pace.
void flows_on_a_shared_link_share_it(void **) {
    std::vector<double> cap{100};
    std::vector<FluidFlow> two{{0, 100, {0}, 0}, {0, 100, {0}, 0}};
    std::vector<double> done = fluid_completions(two, cap);
    assert_true(std::fabs(done[0] - 2) < 1e-6 && std::fabs(done[1] - 2) < 1e-6);
    // A alone for 1 s (100 of its 150 bytes), then both at 50/s: A ends at 2, B then alone.
    std::vector<FluidFlow> staggered{{0, 150, {0}, 0}, {1, 100, {0}, 0}};
    done = fluid_completions(staggered, cap);
    assert_true(std::fabs(done[0] - 2) < 1e-6);
    assert_true(std::fabs(done[1] - 2.5) < 1e-6);
    std::vector<double> seen(1, 0);
    done = fluid_completions({{0, 100, {0}, 10}}, cap, &seen);
    assert_true(std::fabs(done[0] - 10) < 1e-6);
    assert_true(std::fabs(seen[0] - 10) < 1e-6);
}

// Four jobs start together and checkpoint 200G every 10 minutes to the same blades:
// uncoordinated, their flushes collide on the links; booked, each has its own window, no
// flush is slower than alone and no link goes over its checkpoint share.
void booked_windows_keep_flushes_apart(void **) {
    ClusterModel m = tiny();
    std::vector<SimJob> jobs;
    for (uint64_t id = 1; id <= 4; ++id) {
        SimJob j = job(id, 0, 3 * 3600, 1, 64 * kGiB, 1000);
        j.request.ckpt_bytes = 200 * kGiB;
        j.request.ckpt_period_s = 600;
        jobs.push_back(j);
    }
    SimOptions opt;
    opt.checkpoints = CheckpointMode::Uncoordinated;
    SimResult unc = run(m, "morpheus", jobs, opt);
    assert_int_equal(unc.checkpoints.size(), 4);
    FlushFigures fu = replay_flushes(m, unc, CheckpointMode::Uncoordinated);
    assert_true(fu.flushes > 4 * 10);
    assert_true(fu.ratio_p99 > 1.5);  // four at once on shared links
    assert_true(fu.peak_over_share > 1);
    opt.checkpoints = CheckpointMode::Booked;
    SimResult booked = run(m, "morpheus", jobs, opt);
    assert_int_equal(booked.checkpoints.size(), 4);
    std::set<int64_t> phases;
    for (const CheckpointRun &c : booked.checkpoints) phases.insert(c.window.phase_s);
    FlushFigures fb = replay_flushes(m, booked, CheckpointMode::Booked);
    assert_true(fb.flushes > 4 * 10);
    assert_true(fb.ratio_max < 1 + 1e-6);
    assert_true(fb.peak_over_share <= 1 + 1e-6);
    assert_true(fb.time_over_share == 0);
    // Without checkpoints nothing is recorded.
    assert_true(run(m, "morpheus", jobs).checkpoints.empty());
}

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ends_come_before_arrivals_at_the_same_time),
        cmocka_unit_test(every_job_starts_once_and_nothing_goes_over_capacity),
        cmocka_unit_test(first_fit_goes_far_and_morpheus_stays_near),
        cmocka_unit_test(tree_best_fit_keeps_a_job_in_one_pod),
        cmocka_unit_test(slack_order_leaves_near_memory_to_tight_jobs),
        cmocka_unit_test(tree_nearest_takes_the_nearest_blade_and_strict_waits_for_the_bound),
        cmocka_unit_test(a_job_the_cluster_can_never_run_is_apart_for_all),
        cmocka_unit_test(a_refused_job_is_charged_to_the_end_of_the_replay),
        cmocka_unit_test(spread_strict_spreads_where_one_pod_lacks_near_memory),
        cmocka_unit_test(the_bound_model_decides_who_asks_for_the_tight_bound),
        cmocka_unit_test(a_job_is_killed_at_its_time_limit),
        cmocka_unit_test(backfill_reserves_the_heads_memory),
        cmocka_unit_test(intervals_use_the_t_distribution),
        cmocka_unit_test(the_job_model_draws_sensitivity_from_the_mix),
        cmocka_unit_test(swf_records_are_read_and_bad_ones_named),
        cmocka_unit_test(the_job_model_maps_processors_and_memory),
        cmocka_unit_test(the_slowdown_model_is_as_stated),
        cmocka_unit_test(unknown_policies_are_named),
        cmocka_unit_test(a_degraded_blade_gets_fewer_hot_jobs_with_the_live_map),
        cmocka_unit_test(the_live_map_changes_nothing_on_a_fabric_as_its_file_says),
        cmocka_unit_test(latency_events_are_read_and_bad_ones_named),
        cmocka_unit_test(flows_on_a_shared_link_share_it),
        cmocka_unit_test(booked_windows_keep_flushes_apart),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
