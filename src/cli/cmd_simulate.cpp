// morpheus simulate: replay a workload trace (SWF, or generated) on a fabric and inventory with
// each placement policy, through the same decide()/assign_blades()/Ledger as select/morpheus,
// and compare what they achieve. See morpheus(1), SIMULATE.
#include <jansson.h>
#include <unistd.h>

#include <cerrno>
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
    std::fprintf(
        out,
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
        "      --limit-factor F      time limit of a record without a requested time: run time x F\n"
        "                            (default 2); a job that runs (stretched) past its limit is killed\n"
        "      --seeds N             replay with N seeds (--seed, --seed+1, ...: memory, bounds and\n"
        "                            sensitivity drawn anew); figures are means with 95%% t-intervals\n"
        "      --pool-sizes LIST     comma-separated factors on every blade's capacity (e.g. 0.5,1,2);\n"
        "                            the same jobs for every size (default 1)\n"
        "slowdown model: run time x (1 + alpha_j x max(0, L - local) / local), L the job's hot memory\n"
        "latency (bytes-weighted), alpha_j its latency sensitivity, drawn per job from a mixture fitted\n"
        "to Pond (Li et al., ASPLOS'23: with all memory at CXL latency, local + 70-90ns, 20-40%% of 158\n"
        "workloads slow by under 5%%, about a quarter by over 25%%): alpha 0, 0.05, 0.15, 0.35 with\n"
        "weights 30%%, 25%%, 20%%, 25%%. Melody (Liu et al., ASPLOS'25: 265 workloads, 4 CXL devices,\n"
        "140-410ns) finds the same spread, growing with latency.\n"
        "      --alpha F             one sensitivity for every job instead (0: latency does not matter)\n"
        "      --local-latency T     latency the trace's runs had (default 100ns)\n"
        "scheduling:\n"
        "      --policy LIST         comma-separated, of morpheus, first-fit, tree-best-fit, tree-nearest,\n"
        "                            tree-nearest-strict (default all)\n"
        "      --scheduler S         easy (default, as Slurm's sched/backfill: EASY backfill whose head\n"
        "                            reservation waits for its nodes and its memory; for morpheus the\n"
        "                            head's memory is planned by the core's planner, as the plugin's\n"
        "                            will-run plans it) or fcfs\n"
        "      --backfill            the same as --scheduler easy\n"
        "      --check               audit ledger and node books at every event (slow at scale)\n"
        "output:\n"
        "      --json                JSON for programs\n"
        "      --plot FILE           utilisation over time per policy, FILE.svg or FILE.png (gnuplot)\n"
        "      --jobs DIR            one CSV per policy, seed and pool size, one row per job (wait, run\n"
        "                            time as logged and as run, hot latency, bound): DIR/POLICY-sSEED-xPOOL.csv\n"
        "      --no-progress         no progress bar (shown only when stderr is a terminal)\n");
}

// Per-job outcomes, for finding out why a policy wins or loses (which jobs wait, which stretch).
void write_jobs_csv(const std::string &path, const SimResult &r, const std::vector<SimJob> &jobs) {
    FILE *fp = std::fopen(path.c_str(), "w");
    if (!fp)
        throw InputError(path, "", std::string("cannot write: ") + std::strerror(errno),
                         "give --jobs a writable directory");
    std::fprintf(fp,
                 "id,submit,start,end,wait_s,logged_s,ran_s,failed,killed,nodes,pods,hot_per_node_bytes,bound_ns,"
                 "hot_latency_ns,max_hot_latency_ns,within_bound,sensitivity,bounded_slowdown\n");
    for (size_t i = 0; i < r.jobs.size(); ++i) {
        const JobOutcome &o = r.jobs[i];
        const int64_t wait = o.rejected ? 0 : o.start - o.submit;
        const double bsld = o.rejected ? 0
                                       : std::max(1.0, static_cast<double>(wait + o.runtime) /
                                                           std::max(static_cast<double>(o.base_runtime), 10.0));
        std::fprintf(fp, "%llu,%lld,%lld,%lld,%lld,%lld,%lld,%d,%d,%u,%u,%llu,%llu,%.1f,%.1f,%d,%.3f,%.4f\n",
                     static_cast<unsigned long long>(o.id), static_cast<long long>(o.submit),
                     static_cast<long long>(o.start), static_cast<long long>(o.end), static_cast<long long>(wait),
                     static_cast<long long>(o.base_runtime), static_cast<long long>(o.runtime), o.rejected ? 1 : 0,
                     o.killed ? 1 : 0, o.nodes, o.pods, static_cast<unsigned long long>(jobs[i].request.hot_per_node),
                     static_cast<unsigned long long>(o.bound_ns), o.hot_latency_ns, o.max_hot_latency_ns,
                     o.within_bound ? 1 : 0, jobs[i].sensitivity, bsld);
    }
    if (std::fclose(fp) != 0)
        throw InputError(path, "", std::string("cannot write: ") + std::strerror(errno),
                         "give --jobs a writable directory");
}

double parse_number(const char *text, const char *flag, double lo, double hi) {
    char *end = nullptr;
    double v = std::strtod(text, &end);
    if (!*text || *end || !(v >= lo && v <= hi))
        throw InputError(
            "", flag,
            std::string("'") + text + "' is not a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
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

// Every figure of a Summary by name, for the JSON and the intervals over seeds.
struct Metric {
    const char *name;
    double (*get)(const Summary &);
};
const std::vector<Metric> &metrics() {
    static const std::vector<Metric> m{
        {"ran", [](const Summary &s) { return double(s.ran); }},
        {"failed", [](const Summary &s) { return double(s.rejected); }},
        {"killed", [](const Summary &s) { return double(s.killed); }},
        {"spread_over_pods", [](const Summary &s) { return double(s.spread); }},
        {"makespan_s", [](const Summary &s) { return s.makespan_s; }},
        {"gpu_utilisation", [](const Summary &s) { return s.gpu_util; }},
        {"gpu_useful_utilisation", [](const Summary &s) { return s.gpu_useful; }},
        {"hot_utilisation", [](const Summary &s) { return s.hot_util; }},
        {"cold_utilisation", [](const Summary &s) { return s.cold_util; }},
        {"stranded_dram", [](const Summary &s) { return s.stranded; }},
        {"wait_mean_s", [](const Summary &s) { return s.wait_mean_s; }},
        {"wait_p95_s", [](const Summary &s) { return s.wait_p95_s; }},
        {"wait_max_s", [](const Summary &s) { return s.wait_max_s; }},
        {"largest_tenth_wait_max_s", [](const Summary &s) { return s.large_wait_max_s; }},
        {"bounded_slowdown_mean", [](const Summary &s) { return s.bounded_slowdown; }},
        {"stretch_mean", [](const Summary &s) { return s.stretch_mean; }},
        {"hot_jobs", [](const Summary &s) { return double(s.hot_jobs); }},
        {"hot_latency_mean_ns", [](const Summary &s) { return s.hot_latency_mean_ns; }},
        {"hot_latency_p95_ns", [](const Summary &s) { return s.hot_latency_p95_ns; }},
        {"hot_within_bound", [](const Summary &s) { return s.within_bound; }},
        {"violations", [](const Summary &s) { return double(s.violations); }},
        {"common_jobs", [](const Summary &s) { return double(s.common_jobs); }},
        {"common_wait_mean_s", [](const Summary &s) { return s.common_wait_mean_s; }},
        {"common_bounded_slowdown_mean", [](const Summary &s) { return s.common_bounded_slowdown; }},
    };
    return m;
}

Interval over_seeds(const std::vector<Summary> &runs, double (*get)(const Summary &)) {
    std::vector<double> v;
    for (const Summary &s : runs) v.push_back(get(s));
    return t_interval(v);
}

// One policy at one pool size over every seed: the mean and 95% interval of each figure.
json_t *policy_json(const std::vector<Summary> &runs) {
    json_t *o = json_object();
    json_object_set_new(o, "policy", json_string(runs.front().policy.c_str()));
    json_object_set_new(o, "seeds", json_integer(static_cast<json_int_t>(runs.size())));
    for (const Metric &m : metrics()) {
        Interval i = over_seeds(runs, m.get);
        json_object_set_new(o, m.name, json_real(i.mean));
        json_object_set_new(o, (std::string(m.name) + "_ci95").c_str(), json_real(i.half));
    }
    json_t *classes = json_array();
    for (size_t k = 0; k < kSizeClassMin.size(); ++k) {
        std::vector<double> mean, max, jobs;
        for (const Summary &s : runs) {
            mean.push_back(s.size_classes[k].wait_mean_s);
            max.push_back(s.size_classes[k].wait_max_s);
            jobs.push_back(static_cast<double>(s.size_classes[k].jobs));
        }
        json_t *c = json_object();
        json_object_set_new(c, "nodes", json_string(kSizeClassName[k]));
        json_object_set_new(c, "jobs", json_real(t_interval(jobs).mean));
        json_object_set_new(c, "wait_mean_s", json_real(t_interval(mean).mean));
        json_object_set_new(c, "wait_max_s", json_real(t_interval(max).mean));
        json_array_append_new(classes, c);
    }
    json_object_set_new(o, "size_classes", classes);
    return o;
}

// "12.34 ±0.56" (the interval only with several seeds).
std::string with_interval(const Interval &i, int digits) {
    std::string s = fixed(i.mean, digits);
    if (i.n > 1) s += " ±" + fixed(i.half, digits);
    return s;
}
std::string duration_interval(const Interval &i) {
    std::string s = duration(i.mean);
    if (i.n > 1) s += " ±" + duration(i.half);
    return s;
}

// Breaks a long line after "; " so a plot title stays inside the picture.
std::string wrap(const std::string &text, size_t width) {
    std::string out, line;
    for (size_t from = 0; from < text.size();) {
        size_t semi = text.find("; ", from);
        std::string part = text.substr(from, semi == std::string::npos ? std::string::npos : semi + 2 - from);
        if (!line.empty() && line.size() + part.size() > width) {
            out += line + "\n";
            line.clear();
        }
        line += part;
        from = semi == std::string::npos ? text.size() : semi + 2;
    }
    return out + line;
}

std::vector<std::string> split_list(const std::string &list) {
    std::vector<std::string> out;
    for (size_t from = 0; from <= list.size();) {
        size_t comma = list.find(',', from);
        if (comma == std::string::npos) comma = list.size();
        out.push_back(list.substr(from, comma - from));
        from = comma + 1;
    }
    return out;
}

}  // namespace

int cmd_simulate(int argc, char **argv) {
    Sources s;
    JobModel model;
    SimOptions opt;
    SyntheticParams synth;
    std::string trace_path, plot_path, jobs_dir,
        pool_list = "1", policies = "morpheus,first-fit,tree-best-fit,tree-nearest,tree-nearest-strict";
    size_t synthetic = 0, limit = 0, seeds = 1;
    uint64_t max_job_procs = 0;
    bool json = false, progress = true;
    enum {
        kTrace = 1000,
        kSynthetic,
        kLoad,
        kMaxJob,
        kLimit,
        kGpusPerProc,
        kMemMin,
        kMemMax,
        kMemScale,
        kHot,
        kBound,
        kTightShare,
        kTightBound,
        kSeed,
        kAlpha,
        kLocal,
        kPolicy,
        kBackfill,
        kCheck,
        kJson,
        kPlot,
        kNoProgress,
        kScheduler,
        kSeeds,
        kPoolSizes,
        kLimitFactor,
        kJobs
    };
    static const option longopts[] = {{"conf", required_argument, nullptr, 'c'},
                                      {"trace", required_argument, nullptr, kTrace},
                                      {"synthetic", required_argument, nullptr, kSynthetic},
                                      {"load", required_argument, nullptr, kLoad},
                                      {"max-job-procs", required_argument, nullptr, kMaxJob},
                                      {"limit", required_argument, nullptr, kLimit},
                                      {"gpus-per-proc", required_argument, nullptr, kGpusPerProc},
                                      {"mem-min", required_argument, nullptr, kMemMin},
                                      {"mem-max", required_argument, nullptr, kMemMax},
                                      {"mem-scale", required_argument, nullptr, kMemScale},
                                      {"hot-fraction", required_argument, nullptr, kHot},
                                      {"default-bound", required_argument, nullptr, kBound},
                                      {"tight-share", required_argument, nullptr, kTightShare},
                                      {"tight-bound", required_argument, nullptr, kTightBound},
                                      {"seed", required_argument, nullptr, kSeed},
                                      {"alpha", required_argument, nullptr, kAlpha},
                                      {"local-latency", required_argument, nullptr, kLocal},
                                      {"policy", required_argument, nullptr, kPolicy},
                                      {"backfill", no_argument, nullptr, kBackfill},
                                      {"check", no_argument, nullptr, kCheck},
                                      {"json", no_argument, nullptr, kJson},
                                      {"plot", required_argument, nullptr, kPlot},
                                      {"no-progress", no_argument, nullptr, kNoProgress},
                                      {"scheduler", required_argument, nullptr, kScheduler},
                                      {"seeds", required_argument, nullptr, kSeeds},
                                      {"pool-sizes", required_argument, nullptr, kPoolSizes},
                                      {"limit-factor", required_argument, nullptr, kLimitFactor},
                                      {"jobs", required_argument, nullptr, kJobs},
                                      {"help", no_argument, nullptr, 'h'},
                                      {nullptr, 0, nullptr, 0}};
    if (int rc = parse_options(
            argc, argv, "c:h", longopts,
            [&](int c, const char *arg) -> int {
                switch (c) {
                case 'c': s.conf = arg; return kGoOn;
                case kTrace: trace_path = arg; return kGoOn;
                case kSynthetic:
                    synthetic = static_cast<size_t>(parse_number(arg, "--synthetic", 1, 1e8));
                    return kGoOn;
                case kLoad: synth.load = parse_number(arg, "--load", 0.01, 10); return kGoOn;
                case kMaxJob:
                    max_job_procs = static_cast<uint64_t>(parse_number(arg, "--max-job-procs", 1, 1e7));
                    return kGoOn;
                case kLimit: limit = static_cast<size_t>(parse_number(arg, "--limit", 1, 1e9)); return kGoOn;
                case kGpusPerProc:
                    model.gpus_per_proc = static_cast<uint32_t>(parse_number(arg, "--gpus-per-proc", 1, 1024));
                    return kGoOn;
                case kMemMin: model.mem_min = parse_size(arg, "--mem-min"); return kGoOn;
                case kMemMax: model.mem_max = parse_size(arg, "--mem-max"); return kGoOn;
                case kMemScale: model.mem_scale = parse_number(arg, "--mem-scale", 0, 1e9); return kGoOn;
                case kHot: model.hot_fraction = parse_number(arg, "--hot-fraction", 0, 1); return kGoOn;
                case kBound: model.default_bound_ns = parse_latency(arg, "--default-bound"); return kGoOn;
                case kTightShare: model.tight_share = parse_number(arg, "--tight-share", 0, 1); return kGoOn;
                case kTightBound: model.tight_bound_ns = parse_latency(arg, "--tight-bound"); return kGoOn;
                case kSeed:
                    model.seed = synth.seed = static_cast<uint64_t>(parse_number(arg, "--seed", 0, 1e18));
                    return kGoOn;
                case kSeeds: seeds = static_cast<size_t>(parse_number(arg, "--seeds", 1, 1000)); return kGoOn;
                case kAlpha: opt.slowdown.alpha = parse_number(arg, "--alpha", 0, 100); return kGoOn;
                case kLocal:
                    opt.slowdown.local_ns = static_cast<double>(parse_latency(arg, "--local-latency"));
                    return kGoOn;
                case kLimitFactor: model.limit_factor = parse_number(arg, "--limit-factor", 1, 1000); return kGoOn;
                case kPoolSizes: pool_list = arg; return kGoOn;
                case kPolicy: policies = arg; return kGoOn;
                case kBackfill: opt.backfill = true; return kGoOn;
                case kScheduler:
                    if (std::strcmp(arg, "easy") == 0)
                        opt.backfill = true;
                    else if (std::strcmp(arg, "fcfs") == 0)
                        opt.backfill = false;
                    else
                        throw InputError("", "--scheduler", std::string("unknown scheduler \"") + arg + "\"",
                                         "use easy (EASY backfill, as Slurm) or fcfs");
                    return kGoOn;
                case kCheck: opt.check_invariants = true; return kGoOn;
                case kJson: json = true; return kGoOn;
                case kPlot: plot_path = arg; return kGoOn;
                case kJobs: jobs_dir = arg; return kGoOn;
                case kNoProgress: progress = false; return kGoOn;
                case 'h': usage(stdout); return kOk;
                default: usage(stderr); return kUsage;
                }
            });
        rc != kGoOn)
        return rc;
    if (trace_path.empty() == (synthetic == 0)) {
        std::fprintf(stderr, "morpheus simulate: give one of --trace FILE or --synthetic N\n");
        return kUsage;
    }
    if (model.mem_min == 0 || model.mem_min > model.mem_max)
        throw InputError("", "--mem-min", "must be positive and at most --mem-max");
    if (!plot_path.empty()) check_plot_path(plot_path);
    if (opt.slowdown.local_ns <= 0) throw InputError("", "--local-latency", "must be positive", "e.g. 100ns");
    std::vector<double> pool_sizes;
    for (const std::string &p : split_list(pool_list))
        pool_sizes.push_back(parse_number(p.c_str(), "--pool-sizes", 0.01, 1000));
    take_positional_sources(s, std::vector<std::string>(argv + optind, argv + argc));

    // Every policy is made before the replay starts, so a typo fails at once.
    std::vector<std::unique_ptr<PlacementPolicy>> chosen;
    for (const std::string &name : split_list(policies)) chosen.push_back(make_policy(name));

    ClusterModel cluster = load_model(s);
    const Fabric &f = cluster.fabric();
    Trace trace;
    if (synthetic) {
        const uint32_t per_node = f.pods.empty() ? 1 : std::max<uint32_t>(1, f.pods[0].gpus_per_node);
        const uint32_t per_proc = model.gpus_per_proc ? model.gpus_per_proc : per_node;
        synth.jobs = synthetic;
        synth.processors = std::max<uint64_t>(1, uint64_t{f.gpu_count()} / per_proc);
        synth.max_job_processors =
            max_job_procs ? max_job_procs : std::max<uint64_t>(1, 2ull * f.pods[0].node_count * per_node / per_proc);
        trace = synthetic_trace(synth);
    } else {
        trace = read_swf(trace_path);
    }
    if (limit && trace.jobs.size() > limit) trace.jobs.resize(limit);

    // summaries[pool][policy][seed]; the plot shows the first pool size and seed.
    ProgressBar bar(progress);
    std::vector<std::vector<std::vector<Summary>>> summaries(pool_sizes.size(),
                                                             std::vector<std::vector<Summary>>(chosen.size()));
    std::vector<SimResult> plotted;
    const uint64_t first_seed = model.seed;
    bool broken = false;
    for (size_t ps = 0; ps < pool_sizes.size(); ++ps) {
        Inventory inv = cluster.inventory();
        for (BladeStock &b : inv.blades)
            for (uint64_t &cap : b.capacity)
                cap = static_cast<uint64_t>(std::llround(static_cast<double>(cap) * pool_sizes[ps]));
        const ClusterModel sized = cluster.with_inventory(std::move(inv));
        for (size_t k = 0; k < seeds; ++k) {
            JobModel jm = model;
            jm.seed = first_seed + k;
            const std::vector<SimJob> jobs = model_jobs(trace, jm, sized);
            std::vector<SimResult> results;
            for (size_t p = 0; p < chosen.size(); ++p) {
                bar.start(chosen[p]->name());
                opt.progress = [&](size_t done, size_t total) { bar.update(done, total); };
                SimResult r = simulate(sized, *chosen[p], jobs, opt);
                bar.finish();
                for (const std::string &v : r.violations) {
                    std::fprintf(stderr, "morpheus simulate: %s: conservation broken: %s\n", chosen[p]->name(),
                                 v.c_str());
                    broken = true;
                }
                summaries[ps][p].push_back(summarize(r));
                if (!jobs_dir.empty())
                    write_jobs_csv(jobs_dir + "/" + chosen[p]->name() + "-s" + std::to_string(jm.seed) + "-x" +
                                       fixed(pool_sizes[ps], 2) + ".csv",
                                   r, jobs);
                results.push_back(std::move(r));
            }
            std::vector<const SimResult *> rs;
            std::vector<Summary *> ss;
            for (size_t p = 0; p < chosen.size(); ++p) {
                rs.push_back(&results[p]);
                ss.push_back(&summaries[ps][p].back());
            }
            common_jobs(rs, ss);
            if (ps == 0 && k == 0 && !plot_path.empty()) plotted = std::move(results);
        }
    }

    const std::string scheduler = opt.backfill ? "EASY backfill (memory-aware head reservation)" : "FCFS";
    const std::string sensitivity = opt.slowdown.alpha >= 0
                                        ? "alpha " + fixed(opt.slowdown.alpha, 2) + " for every job"
                                        : "alpha per job from Pond's mix (0/0.05/0.15/0.35 at 30/25/20/25%)";
    const size_t total_jobs = summaries[0][0][0].jobs;
    if (json) {
        json_t *root = json_object();
        json_object_set_new(root, "trace", json_string(trace.source.c_str()));
        json_object_set_new(root, "jobs", json_integer(static_cast<json_int_t>(total_jobs)));
        json_object_set_new(root, "skipped_records", json_integer(static_cast<json_int_t>(trace.skipped)));
        json_object_set_new(root, "fabric", json_string(f.source.c_str()));
        json_object_set_new(root, "job_model", json_string(describe(model, cluster).c_str()));
        json_object_set_new(root, "sensitivity", json_string(sensitivity.c_str()));
        json_object_set_new(root, "alpha", opt.slowdown.alpha >= 0 ? json_real(opt.slowdown.alpha) : json_null());
        json_object_set_new(root, "local_latency_ns", json_real(opt.slowdown.local_ns));
        json_object_set_new(root, "scheduler", json_string(opt.backfill ? "easy" : "fcfs"));
        json_object_set_new(root, "seeds", json_integer(static_cast<json_int_t>(seeds)));
        json_t *sizes = json_array();
        for (size_t ps = 0; ps < pool_sizes.size(); ++ps) {
            json_t *one = json_object();
            json_object_set_new(one, "pool_scale", json_real(pool_sizes[ps]));
            json_t *arr = json_array();
            for (const auto &runs : summaries[ps]) json_array_append_new(arr, policy_json(runs));
            json_object_set_new(one, "policies", arr);
            json_array_append_new(sizes, one);
        }
        json_object_set_new(root, "pool_sizes", sizes);
        char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
        std::printf("%s\n", text);
        std::free(text);
        json_decref(root);
    } else {
        std::printf(
            "trace: %s (%zu jobs, the same for every policy and pool size; %zu records without run time or size "
            "skipped)\n",
            trace.source.c_str(), total_jobs, trace.skipped);
        std::printf("fabric: %s: %zu pods, %zu nodes, %u GPUs, %zu blades\n", f.source.c_str(), f.pods.size(),
                    f.node_names.size(), f.gpu_count(), f.blades.size());
        std::printf("model: %s\n", describe(model, cluster).c_str());
        std::printf("slowdown: %s, over %s local; scheduler: %s; seeds: %zu%s\n", sensitivity.c_str(),
                    format_latency(static_cast<uint64_t>(opt.slowdown.local_ns)).c_str(), scheduler.c_str(), seeds,
                    seeds > 1 ? " (mean ±95% t-interval)" : "");
        for (size_t ps = 0; ps < pool_sizes.size(); ++ps) {
            std::printf("\npool size x%s:\n", fixed(pool_sizes[ps], 2).c_str());
            Table t({"POLICY", "RAN", "FAILED", "KILLED", "GPU", "HOT", "STRANDED", "WAIT", "WAIT_MAX", "BIG_WAIT_MAX",
                     "BSLD", "STRETCH", "HOT_LAT", "IN_BOUND"});
            for (const auto &runs : summaries[ps]) {
                auto iv = [&](double (*get)(const Summary &)) { return over_seeds(runs, get); };
                t.add({runs.front().policy, fixed(iv(metrics()[0].get).mean, 0), fixed(iv(metrics()[1].get).mean, 0),
                       fixed(iv(metrics()[2].get).mean, 0),
                       percent(iv([](const Summary &x) { return x.gpu_util; }).mean),
                       percent(iv([](const Summary &x) { return x.hot_util; }).mean),
                       percent(iv([](const Summary &x) { return x.stranded; }).mean),
                       duration_interval(iv([](const Summary &x) { return x.wait_mean_s; })),
                       duration(iv([](const Summary &x) { return x.wait_max_s; }).mean),
                       duration_interval(iv([](const Summary &x) { return x.large_wait_max_s; })),
                       with_interval(iv([](const Summary &x) { return x.bounded_slowdown; }), 2),
                       fixed(iv([](const Summary &x) { return x.stretch_mean; }).mean, 3),
                       format_latency(static_cast<uint64_t>(
                           std::lround(iv([](const Summary &x) { return x.hot_latency_mean_ns; }).mean))),
                       percent(iv([](const Summary &x) { return x.within_bound; }).mean)});
            }
            std::fputs(t.render().c_str(), stdout);
            Table w({"POLICY", "WAIT 1 NODE", "2-4", "5-16", "17+"});
            for (const auto &runs : summaries[ps]) {
                std::vector<std::string> row{runs.front().policy};
                for (size_t k = 0; k < kSizeClassMin.size(); ++k) {
                    std::vector<double> mean, max;
                    size_t jobs = 0;
                    for (const Summary &x : runs) {
                        mean.push_back(x.size_classes[k].wait_mean_s);
                        max.push_back(x.size_classes[k].wait_max_s);
                        jobs += x.size_classes[k].jobs;
                    }
                    row.push_back(
                        jobs ? duration(t_interval(mean).mean) + " (max " + duration(t_interval(max).mean) + ")" : "-");
                }
                w.add(row);
            }
            std::printf("\nwait by job size (nodes), mean (max):\n");
            std::fputs(w.render().c_str(), stdout);
            // The headline: morpheus against the best baseline for each figure, never one baseline.
            size_t me = chosen.size();
            for (size_t p = 0; p < chosen.size(); ++p)
                if (std::strcmp(chosen[p]->name(), "morpheus") == 0) me = p;
            if (me < chosen.size() && chosen.size() > 1) {
                std::printf("\nmorpheus against the best baseline for each figure (lower is better):\n");
                struct Figure {
                    const char *name;
                    double (*get)(const Summary &);
                    bool time;
                    int digits;
                };
                const Figure figures[] = {
                    {"BSLD", [](const Summary &x) { return x.bounded_slowdown; }, false, 2},
                    {"BSLD_COMMON", [](const Summary &x) { return x.common_bounded_slowdown; }, false, 2},
                    {"WAIT_COMMON", [](const Summary &x) { return x.common_wait_mean_s; }, true, 0},
                    {"WAIT", [](const Summary &x) { return x.wait_mean_s; }, true, 0},
                    {"BIG_WAIT_MAX", [](const Summary &x) { return x.large_wait_max_s; }, true, 0},
                    {"FAILED", [](const Summary &x) { return double(x.rejected); }, false, 1},
                    {"KILLED", [](const Summary &x) { return double(x.killed); }, false, 1}};
                for (const Figure &fig : figures) {
                    Interval mine = over_seeds(summaries[ps][me], fig.get);
                    size_t best = chosen.size();
                    Interval theirs;
                    for (size_t p = 0; p < chosen.size(); ++p) {
                        if (p == me) continue;
                        Interval x = over_seeds(summaries[ps][p], fig.get);
                        if (best == chosen.size() || x.mean < theirs.mean) {
                            best = p;
                            theirs = x;
                        }
                    }
                    auto show = [&](const Interval &x) {
                        return fig.time ? duration_interval(x) : with_interval(x, fig.digits);
                    };
                    std::string change = theirs.mean > 0 ? fixed(100 * (mine.mean - theirs.mean) / theirs.mean, 1) + "%"
                                                         : (mine.mean > 0 ? "worse" : "equal");
                    std::printf("  %-13s morpheus %s, best baseline %s (%s): %s\n", fig.name, show(mine).c_str(),
                                show(theirs).c_str(), chosen[best]->name(), change.c_str());
                }
            }
        }
        std::printf(
            "\nFAILED: never placeable by that policy, even on an empty cluster (morpheus, -strict: no pod\n"
            "has that much hot memory inside the bound); KILLED: ran past the time limit, stretched;\n"
            "GPU: GPUs allocated, time-averaged; HOT: hot memory over DRAM; STRANDED: free DRAM no free node\n"
            "reaches within the default bound; WAIT_MAX: longest wait; BIG_WAIT_MAX: longest wait of the\n"
            "largest 10%% of jobs (by nodes); BSLD: bounded slowdown (10 s); STRETCH: run time as run / as\n"
            "logged; HOT_LAT: bytes-weighted per job; *_COMMON: over the jobs every policy ran (a policy\n"
            "that fails the hardest jobs gains nothing by it there).\n");
    }
    if (!plot_path.empty())
        plot_utilisation(plot_path,
                         "morpheus simulate: " + trace.source + " on " + f.source + "\n" + scheduler + "; seed " +
                             std::to_string(first_seed) + "\n" +
                             wrap(describe(model, cluster) + "; " + sensitivity, 110),
                         plotted);
    return broken ? kInputError : kOk;
}

}  // namespace morpheus::cli
