// morpheus simulate: replay a workload trace (SWF, or generated) on a fabric and inventory with
// each placement policy, through the same decide()/assign_blades()/Ledger as select/morpheus,
// and compare what they achieve. See morpheus(1), SIMULATE.
#include <jansson.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

#include "input_error.hpp"
#include "run_summary.hpp"
#include "options.hpp"
#include "sim_plot.hpp"
#include "simulator.hpp"
#include "table.hpp"
#include "units.hpp"

namespace morpheus::cli {

using namespace morpheus::sim;

namespace {

void usage(FILE *out) {
    std::fprintf(out,
        "usage: morpheus simulate [FABRIC INVENTORY] [--conf FILE] (--trace FILE | --synthetic N) [options]\n"
        "workload:\n"
        "      --trace FILE          SWF log (FILE.gz is read through gzip)\n"
        "      --synthetic N         generate N jobs instead: Poisson arrivals, 2^k processors,\n"
        "                            log-uniform run times 1m..36h (see --load, --max-job-procs, --seed)\n"
        "      --load F              offered load of the synthetic trace (default 0.6)\n"
        "      --max-job-procs N     largest synthetic job, in processors (default: two pods' nodes)\n"
        "      --limit N             replay only the first N jobs\n"
        "job model (the traces carry no memory tiers):\n"
        "      --gpus-per-proc G     GPUs per trace processor (default: GPUs per node, 1 processor = 1 node)\n"
        "      --mem-min SIZE        memory per node when the record has none: log-uniform between\n"
        "      --mem-max SIZE          --mem-min and --mem-max (default 32G, 512G)\n"
        "      --mem-scale F         multiplies memory taken from the record (default 1)\n"
        "      --hot-fraction F      share of a job's memory that is hot (default 0.5)\n"
        "      --default-bound T     hot bound of most jobs (default: DefaultHotLatency, 500ns)\n"
        "      --tight-share F       share of jobs asking for --tight-bound (default 0.25)\n"
        "      --tight-bound T       (default 250ns)\n"
        "      --seed S              seed of every draw (default 1)\n"
        "slowdown model: run time x (1 + alpha x max(0, L - local) / local), L the hot memory's latency\n"
        "      --alpha F             (default 0.2)\n"
        "      --local-latency T     latency the trace's runs had (default 100ns)\n"
        "scheduling:\n"
        "      --policy LIST         comma-separated, of morpheus, first-fit, tree-best-fit (default all)\n"
        "      --backfill            EASY backfill (default: strict FCFS)\n"
        "      --check               audit ledger and node books at every event (slow at scale)\n"
        "output:\n"
        "      --json                JSON for programs\n"
        "      --plot FILE           utilisation over time per policy, FILE.svg or FILE.png (gnuplot)\n"
        "      --no-progress         no progress bar (shown only when stderr is a terminal)\n");
}

double parse_number(const char *text, const char *flag, double lo, double hi) {
    char *end = nullptr;
    double v = std::strtod(text, &end);
    if (!*text || *end || !(v >= lo && v <= hi))
        throw InputError("", flag, std::string("'") + text + "' is not a number in [" + std::to_string(lo) + ", " +
                                       std::to_string(hi) + "]");
    return v;
}

std::string duration(double s) {
    if (s < 120) return std::to_string(static_cast<long>(std::lround(s))) + "s";
    char buf[32];
    if (s < 7200)
        std::snprintf(buf, sizeof buf, "%.1fm", s / 60);
    else
        std::snprintf(buf, sizeof buf, "%.1fh", s / 3600);
    return buf;
}

std::string percent(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100 * x);
    return buf;
}

std::string fixed(double x, int digits) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", digits, x);
    return buf;
}

// A bar on stderr, redrawn when the percentage changes; only on a terminal.
class ProgressBar {
public:
    explicit ProgressBar(bool enabled) : enabled_(enabled && ::isatty(STDERR_FILENO)) {}
    void start(const std::string &label) {
        label_ = label;
        last_ = -1;
    }
    void update(size_t done, size_t total) {
        if (!enabled_ || !total) return;
        int pct = static_cast<int>(100 * done / total);
        if (pct == last_) return;
        last_ = pct;
        int filled = pct * 30 / 100;
        std::fprintf(stderr, "\r%-14s [%s%s] %3d%% %zu/%zu jobs", label_.c_str(), std::string(filled, '#').c_str(),
                     std::string(30 - filled, '.').c_str(), pct, done, total);
        if (done == total) std::fputc('\n', stderr);
        std::fflush(stderr);
    }
    void finish() {
        if (enabled_ && last_ >= 0 && last_ < 100) std::fputc('\n', stderr);
    }

private:
    bool enabled_;
    std::string label_;
    int last_ = -1;
};

json_t *summary_json(const Summary &s) {
    json_t *o = json_object();
    auto num = [&](const char *k, double v) { json_object_set_new(o, k, json_real(v)); };
    auto count = [&](const char *k, size_t v) { json_object_set_new(o, k, json_integer(static_cast<json_int_t>(v))); };
    json_object_set_new(o, "policy", json_string(s.policy.c_str()));
    count("jobs", s.jobs);
    count("ran", s.ran);
    count("rejected", s.rejected);
    count("spread_over_pods", s.spread);
    num("makespan_s", s.makespan_s);
    num("gpu_utilisation", s.gpu_util);
    num("gpu_useful_utilisation", s.gpu_useful);
    num("hot_utilisation", s.hot_util);
    num("cold_utilisation", s.cold_util);
    num("stranded_dram", s.stranded);
    num("wait_mean_s", s.wait_mean_s);
    num("wait_p95_s", s.wait_p95_s);
    num("bounded_slowdown_mean", s.bounded_slowdown);
    num("stretch_mean", s.stretch_mean);
    count("hot_jobs", s.hot_jobs);
    num("hot_latency_mean_ns", s.hot_latency_mean_ns);
    num("hot_latency_p95_ns", s.hot_latency_p95_ns);
    num("hot_within_bound", s.within_bound);
    count("violations", s.violations);
    return o;
}

}  // namespace

int cmd_simulate(int argc, char **argv) {
    Sources s;
    JobModel model;
    SimOptions opt;
    SyntheticParams synth;
    std::string trace_path, plot_path, policies = "morpheus,first-fit,tree-best-fit";
    size_t synthetic = 0, limit = 0;
    uint64_t max_job_procs = 0;
    bool json = false, progress = true;
    enum { kTrace = 1000, kSynthetic, kLoad, kMaxJob, kLimit, kGpusPerProc, kMemMin, kMemMax, kMemScale, kHot,
           kBound, kTightShare, kTightBound, kSeed, kAlpha, kLocal, kPolicy, kBackfill, kCheck, kJson, kPlot,
           kNoProgress };
    static const option longopts[] = {
        {"conf", required_argument, nullptr, 'c'},      {"trace", required_argument, nullptr, kTrace},
        {"synthetic", required_argument, nullptr, kSynthetic}, {"load", required_argument, nullptr, kLoad},
        {"max-job-procs", required_argument, nullptr, kMaxJob}, {"limit", required_argument, nullptr, kLimit},
        {"gpus-per-proc", required_argument, nullptr, kGpusPerProc}, {"mem-min", required_argument, nullptr, kMemMin},
        {"mem-max", required_argument, nullptr, kMemMax}, {"mem-scale", required_argument, nullptr, kMemScale},
        {"hot-fraction", required_argument, nullptr, kHot}, {"default-bound", required_argument, nullptr, kBound},
        {"tight-share", required_argument, nullptr, kTightShare},
        {"tight-bound", required_argument, nullptr, kTightBound}, {"seed", required_argument, nullptr, kSeed},
        {"alpha", required_argument, nullptr, kAlpha},  {"local-latency", required_argument, nullptr, kLocal},
        {"policy", required_argument, nullptr, kPolicy}, {"backfill", no_argument, nullptr, kBackfill},
        {"check", no_argument, nullptr, kCheck},        {"json", no_argument, nullptr, kJson},
        {"plot", required_argument, nullptr, kPlot},    {"no-progress", no_argument, nullptr, kNoProgress},
        {"help", no_argument, nullptr, 'h'},            {nullptr, 0, nullptr, 0}};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "c:h", longopts, nullptr)) != -1) {
        switch (c) {
        case 'c': s.conf = optarg; break;
        case kTrace: trace_path = optarg; break;
        case kSynthetic: synthetic = static_cast<size_t>(parse_number(optarg, "--synthetic", 1, 1e8)); break;
        case kLoad: synth.load = parse_number(optarg, "--load", 0.01, 10); break;
        case kMaxJob: max_job_procs = static_cast<uint64_t>(parse_number(optarg, "--max-job-procs", 1, 1e7)); break;
        case kLimit: limit = static_cast<size_t>(parse_number(optarg, "--limit", 1, 1e9)); break;
        case kGpusPerProc: model.gpus_per_proc = static_cast<uint32_t>(parse_number(optarg, "--gpus-per-proc", 1, 1024)); break;
        case kMemMin: model.mem_min = parse_size(optarg, "--mem-min"); break;
        case kMemMax: model.mem_max = parse_size(optarg, "--mem-max"); break;
        case kMemScale: model.mem_scale = parse_number(optarg, "--mem-scale", 0, 1e9); break;
        case kHot: model.hot_fraction = parse_number(optarg, "--hot-fraction", 0, 1); break;
        case kBound: model.default_bound_ns = parse_latency(optarg, "--default-bound"); break;
        case kTightShare: model.tight_share = parse_number(optarg, "--tight-share", 0, 1); break;
        case kTightBound: model.tight_bound_ns = parse_latency(optarg, "--tight-bound"); break;
        case kSeed: model.seed = synth.seed = static_cast<uint64_t>(parse_number(optarg, "--seed", 0, 1e18)); break;
        case kAlpha: opt.slowdown.alpha = parse_number(optarg, "--alpha", 0, 100); break;
        case kLocal: opt.slowdown.local_ns = static_cast<double>(parse_latency(optarg, "--local-latency")); break;
        case kPolicy: policies = optarg; break;
        case kBackfill: opt.backfill = true; break;
        case kCheck: opt.check_invariants = true; break;
        case kJson: json = true; break;
        case kPlot: plot_path = optarg; break;
        case kNoProgress: progress = false; break;
        case 'h': usage(stdout); return kOk;
        default: usage(stderr); return kUsage;
        }
    }
    if (trace_path.empty() == (synthetic == 0)) {
        std::fprintf(stderr, "morpheus simulate: give one of --trace FILE or --synthetic N\n");
        return kUsage;
    }
    if (model.mem_min == 0 || model.mem_min > model.mem_max)
        throw InputError("", "--mem-min", "must be positive and at most --mem-max");
    if (!plot_path.empty()) check_plot_path(plot_path);
    if (opt.slowdown.local_ns <= 0) throw InputError("", "--local-latency", "must be positive", "e.g. 100ns");
    take_positional_sources(s, std::vector<std::string>(argv + optind, argv + argc));

    // Every policy is made before the replay starts, so a typo fails at once.
    std::vector<std::unique_ptr<PlacementPolicy>> chosen;
    for (size_t from = 0; from <= policies.size();) {
        size_t comma = policies.find(',', from);
        if (comma == std::string::npos) comma = policies.size();
        chosen.push_back(make_policy(policies.substr(from, comma - from)));
        from = comma + 1;
    }

    ClusterModel cluster = load_model(s);
    const Fabric &f = cluster.fabric();
    Trace trace;
    if (synthetic) {
        const uint32_t per_node = f.pods.empty() ? 1 : std::max<uint32_t>(1, f.pods[0].gpus_per_node);
        const uint32_t per_proc = model.gpus_per_proc ? model.gpus_per_proc : per_node;
        synth.jobs = synthetic;
        synth.processors = std::max<uint64_t>(1, uint64_t{f.gpu_count()} / per_proc);
        synth.max_job_processors =
            max_job_procs ? max_job_procs
                          : std::max<uint64_t>(1, 2ull * f.pods[0].node_count * per_node / per_proc);
        trace = synthetic_trace(synth);
    } else {
        trace = read_swf(trace_path);
    }
    if (limit && trace.jobs.size() > limit) trace.jobs.resize(limit);
    std::vector<SimJob> all_jobs = model_jobs(trace, model, cluster);
    std::vector<PlacementPolicy *> raw;
    for (auto &p : chosen) raw.push_back(p.get());
    std::vector<size_t> never;
    std::vector<SimJob> jobs = placeable_by_all(cluster, raw, all_jobs, &never);
    std::string left_out;
    for (size_t i = 0; i < chosen.size(); ++i)
        if (never[i]) left_out += (left_out.empty() ? "" : ", ") + std::to_string(never[i]) + " by " + chosen[i]->name();

    ProgressBar bar(progress);
    std::vector<SimResult> runs;
    std::vector<Summary> summaries;
    for (auto &policy : chosen) {
        bar.start(policy->name());
        opt.progress = [&](size_t done, size_t total) { bar.update(done, total); };
        runs.push_back(simulate(cluster, *policy, jobs, opt));
        bar.finish();
        summaries.push_back(summarize(runs.back()));
        for (const std::string &v : runs.back().violations)
            std::fprintf(stderr, "morpheus simulate: %s: conservation broken: %s\n", policy->name(), v.c_str());
    }

    const std::string what = trace.source + " (" + std::to_string(jobs.size()) + " jobs replayed; " +
                             std::to_string(trace.skipped) + " records without run time or size skipped; " +
                             std::to_string(all_jobs.size() - jobs.size()) + " left out as never placeable" +
                             (left_out.empty() ? "" : " (" + left_out + ")") + ")";
    if (json) {
        json_t *root = json_object();
        json_object_set_new(root, "trace", json_string(trace.source.c_str()));
        json_object_set_new(root, "jobs", json_integer(static_cast<json_int_t>(jobs.size())));
        json_object_set_new(root, "skipped_records", json_integer(static_cast<json_int_t>(trace.skipped)));
        json_object_set_new(root, "never_placeable", json_integer(static_cast<json_int_t>(all_jobs.size() - jobs.size())));
        json_t *by = json_object();
        for (size_t i = 0; i < chosen.size(); ++i)
            json_object_set_new(by, chosen[i]->name(), json_integer(static_cast<json_int_t>(never[i])));
        json_object_set_new(root, "never_placeable_by", by);
        json_object_set_new(root, "fabric", json_string(f.source.c_str()));
        json_object_set_new(root, "job_model", json_string(describe(model, cluster).c_str()));
        json_object_set_new(root, "alpha", json_real(opt.slowdown.alpha));
        json_object_set_new(root, "local_latency_ns", json_real(opt.slowdown.local_ns));
        json_object_set_new(root, "scheduler", json_string(opt.backfill ? "fcfs+easy" : "fcfs"));
        json_t *arr = json_array();
        for (const Summary &x : summaries) json_array_append_new(arr, summary_json(x));
        json_object_set_new(root, "policies", arr);
        char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
        std::printf("%s\n", text);
        std::free(text);
        json_decref(root);
    } else {
        std::printf("trace: %s\n", what.c_str());
        std::printf("fabric: %s: %zu pods, %zu nodes, %u GPUs, %zu blades\n", f.source.c_str(), f.pods.size(),
                    f.node_names.size(), f.gpu_count(), f.blades.size());
        std::printf("model: %s\n", describe(model, cluster).c_str());
        std::printf("slowdown: alpha %.2f over %s local; scheduler: %s\n\n", opt.slowdown.alpha,
                    format_latency(static_cast<uint64_t>(opt.slowdown.local_ns)).c_str(),
                    opt.backfill ? "FCFS + EASY backfill" : "FCFS");
        Table t({"POLICY", "RAN", "GPU", "GPU_USEFUL", "HOT", "COLD", "STRANDED", "WAIT", "WAIT_P95", "BSLD", "STRETCH", "HOT_LAT",
                 "LAT_P95", "IN_BOUND", "MAKESPAN"});
        for (const Summary &x : summaries)
            t.add({x.policy, std::to_string(x.ran), percent(x.gpu_util), percent(x.gpu_useful), percent(x.hot_util), percent(x.cold_util),
                   percent(x.stranded), duration(x.wait_mean_s), duration(x.wait_p95_s), fixed(x.bounded_slowdown, 2),
                   fixed(x.stretch_mean, 3), format_latency(static_cast<uint64_t>(std::lround(x.hot_latency_mean_ns))),
                   format_latency(static_cast<uint64_t>(std::lround(x.hot_latency_p95_ns))), percent(x.within_bound),
                   duration(x.makespan_s)});
        std::fputs(t.render().c_str(), stdout);
        std::printf("\nGPU: GPUs allocated, time-averaged; GPU_USEFUL: the same for the runs as logged (stretch removed);\n"
                    "HOT/COLD: hot memory over DRAM, cold over PMEM capacity; STRANDED: free DRAM no free node reaches\n"
                    "within the default bound; BSLD: bounded slowdown (10 s); STRETCH: run time as run / as logged;\n"
                    "HOT_LAT: bytes-weighted per job. Jobs some policy could never place, even on an empty cluster\n"
                    "(morpheus: no pod has that much hot memory inside the bound), are left out for all of them.\n");
    }
    if (!plot_path.empty()) plot_utilisation(plot_path, "morpheus simulate: " + trace.source, runs);
    for (const Summary &x : summaries)
        if (x.violations) return kInputError;
    return kOk;
}

}  // namespace morpheus::cli
