// morpheus simulate: replay a workload trace (SWF, or generated) on a fabric and inventory with
// each placement policy, through the same decide()/assign_blades()/Ledger as select/morpheus,
// and compare what they achieve. See morpheus(1), SIMULATE. This file parses the options and
// runs the replays; sim_report.cpp reports them.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

#include "config.hpp"
#include "input_error.hpp"
#include "latency_events.hpp"
#include "run_summary.hpp"
#include "options.hpp"
#include "request.hpp"
#include "gnuplot.hpp"
#include "sim_checkpoint.hpp"
#include "sim_report.hpp"
#include "simulator.hpp"
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
        "      --bound-model M       who asks for the tight bound: independent (default: --tight-share of\n"
        "                            the jobs at random, whatever their sensitivity) or sensitivity (the\n"
        "                            most latency-sensitive jobs, --tight-share of them: users who ask for\n"
        "                            a tight bound because their job needs it). The scheduler never sees\n"
        "                            a job's sensitivity, only its bound, wait and time limit\n"
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
        "                            tree-nearest-strict, spread-strict (default all)\n"
        "fair accounting: a job the cluster can never run under its own terms (a hard bound no\n"
        "placement meets, more than the cluster holds) is listed apart, the same for every policy, and\n"
        "is in no figure; a job a policy refuses though its terms allow a placement is charged as\n"
        "having waited from submission to the end of the replay, then run as logged.\n"
        "      --scheduler S         easy (default, as Slurm's sched/backfill: EASY backfill whose head\n"
        "                            reservation waits for its nodes and its memory and holds the\n"
        "                            nodes it is planned on; for morpheus the head's pods and memory\n"
        "                            are planned by the core's planner, as the plugin's will-run\n"
        "                            plans them), easy-generic (the same, but morpheus's head through\n"
        "                            the baselines' walk: one scheduler for every policy) or fcfs\n"
        "      --backfill            the same as --scheduler easy\n"
        "      --hot-wait W          the --mem-hot-wait every job declares (e.g. 0, 10, 30:00, hard;\n"
        "                            default: none, so --conf's DefaultHotWait, hard unless set): how\n"
        "                            long it waits for hot memory inside its bound before morpheus\n"
        "                            places it beyond (sooner when the planner finds in-bound memory\n"
        "                            only after the wait); the baselines keep their own bound rules\n"
        "      --moves on|off        morpheus moves hot memory beyond a bound inside it when memory\n"
        "                            there frees (default on; at most MaxMoves at once, each copy\n"
        "                            taking its bytes over the path's bandwidth, charged to the job)\n"
        "      --check               audit ledger and node books at every event (slow at scale)\n"
        "fabric latency over time (see LATENCY EVENTS in morpheus(1)):\n"
        "      --latency-events FILE degradation events: START DURATION pods=LIST|nodes=LIST|* BLADES LATENCY\n"
        "                            per line (e.g. \"2d 12h pods=pod000 blade00000 450ns\"); jobs get the\n"
        "                            latency they make, whatever placement believes\n"
        "      --heat-map MODE       static (placement knows the fabric file only), live (it reads the\n"
        "                            heat map the nodes' probes fill, with --conf's HeatMap* settings, as\n"
        "                            select/morpheus does) or both (default with --latency-events: each\n"
        "                            policy twice, side by side; otherwise static)\n"
        "      --probe-interval T    seconds between probe rounds, each followed by one settle round\n"
        "                            (default 60)\n"
        "      --probe-blades N      blades each node probes: its pod's N nearest (default 64)\n"
        "checkpoint offload (issue 28): --checkpoint replays the morpheus policy three times per seed:\n"
        "without checkpoints, uncoordinated (each job flushes every period from its start, at line rate,\n"
        "sharing links) and booked windows (region and window granted by decide(), flushes held to the\n"
        "links' CheckpointShare); flushes go through a link-bandwidth model (max-min fair sharing).\n"
        "Model: a job whose time limit is at least one period checkpoints its hot memory (nodes x hot\n"
        "per node) every period, one copy.\n"
        "      --checkpoint          run the checkpoint study instead of the policy comparison\n"
        "      --ckpt-period T       the period (default 30m)\n"
        "      --ckpt-stretch F      booked: a period up to F times longer when no window is free (default 2)\n"
        "      --ckpt-replicas N     copies in separate failure domains (default 1)\n"
        "output:\n"
        "      --json                JSON for programs\n"
        "      --plot FILE           utilisation over time per policy, FILE.svg or FILE.png (gnuplot)\n"
        "      --jobs DIR            one CSV per policy, seed and pool size, one row per job (wait, run\n"
        "                            time as logged and as run, hot latency, bound): DIR/POLICY-sSEED-xPOOL.csv\n"
        "      --no-progress         no progress bar (shown only when stderr is a terminal)\n");
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

// A run's name in the reports: the policy's, with "+live" when placement read the heat map.
std::string run_label(const PlacementPolicy &policy, bool live) {
    return std::string(policy.name()) + (live ? kLiveSuffix : "");
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
    std::string trace_path, plot_path, jobs_dir, events_path, heat_mode,
        pool_list = "1", policies = "morpheus,first-fit,tree-best-fit,tree-nearest,tree-nearest-strict,spread-strict";
    size_t synthetic = 0, limit = 0, seeds = 1;
    uint64_t max_job_procs = 0;
    bool json = false, progress = true, checkpoint = false;
    CheckpointStudy study;
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
        kJobs,
        kHotWait,
        kMoves,
        kBoundModel,
        kLatencyEvents,
        kHeatMap,
        kProbeInterval,
        kProbeBlades,
        kCheckpoint,
        kCkptPeriod,
        kCkptStretch,
        kCkptReplicas
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
                                      {"hot-wait", required_argument, nullptr, kHotWait},
                                      {"moves", required_argument, nullptr, kMoves},
                                      {"bound-model", required_argument, nullptr, kBoundModel},
                                      {"latency-events", required_argument, nullptr, kLatencyEvents},
                                      {"heat-map", required_argument, nullptr, kHeatMap},
                                      {"probe-interval", required_argument, nullptr, kProbeInterval},
                                      {"probe-blades", required_argument, nullptr, kProbeBlades},
                                      {"checkpoint", no_argument, nullptr, kCheckpoint},
                                      {"ckpt-period", required_argument, nullptr, kCkptPeriod},
                                      {"ckpt-stretch", required_argument, nullptr, kCkptStretch},
                                      {"ckpt-replicas", required_argument, nullptr, kCkptReplicas},
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
                case kHotWait: model.hot_wait_s = parse_hot_wait(arg, "--hot-wait"); return kGoOn;
                case kMoves:
                    if (std::strcmp(arg, "on") && std::strcmp(arg, "off"))
                        throw InputError("", "--moves", std::string("\"") + arg + "\" is neither on nor off",
                                         "give --moves on (default) or --moves off");
                    opt.moves = std::strcmp(arg, "on") == 0;
                    return kGoOn;
                case kBoundModel:
                    if (std::strcmp(arg, "independent") == 0)
                        model.bound_model = JobModel::BoundModel::Independent;
                    else if (std::strcmp(arg, "sensitivity") == 0)
                        model.bound_model = JobModel::BoundModel::Sensitivity;
                    else
                        throw InputError("", "--bound-model", std::string("unknown bound model \"") + arg + "\"",
                                         "use independent or sensitivity");
                    return kGoOn;
                case kLatencyEvents: events_path = arg; return kGoOn;
                case kHeatMap:
                    if (std::strcmp(arg, "static") && std::strcmp(arg, "live") && std::strcmp(arg, "both"))
                        throw InputError("", "--heat-map", std::string("unknown mode \"") + arg + "\"",
                                         "use static, live or both");
                    heat_mode = arg;
                    return kGoOn;
                case kProbeInterval:
                    opt.probe_interval_s = static_cast<int64_t>(parse_number(arg, "--probe-interval", 1, 86400));
                    return kGoOn;
                case kProbeBlades:
                    opt.probe_blades = static_cast<uint32_t>(parse_number(arg, "--probe-blades", 1, 1e6));
                    return kGoOn;
                case kPolicy: policies = arg; return kGoOn;
                case kCheckpoint: checkpoint = true; return kGoOn;
                case kCkptPeriod: {
                    Request probe;
                    parse_checkpoint_flags(probe, "1G", arg, nullptr, nullptr);
                    study.period_s = probe.ckpt_period_s;
                    return kGoOn;
                }
                case kCkptStretch: study.stretch = parse_number(arg, "--ckpt-stretch", 1, 100); return kGoOn;
                case kCkptReplicas:
                    study.replicas = static_cast<uint32_t>(parse_number(arg, "--ckpt-replicas", 1, kMaxCkptReplicas));
                    return kGoOn;
                case kBackfill: opt.backfill = true; return kGoOn;
                case kScheduler:
                    opt.plan_backfill = std::strcmp(arg, "easy") == 0;
                    if (opt.plan_backfill || std::strcmp(arg, "easy-generic") == 0)
                        opt.backfill = true;
                    else if (std::strcmp(arg, "fcfs") == 0)
                        opt.backfill = false;
                    else
                        throw InputError("", "--scheduler", std::string("unknown scheduler \"") + arg + "\"",
                                         "use easy (EASY backfill, as Slurm), easy-generic or fcfs");
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

    Config config;
    ClusterModel cluster = load_model(s, &config);
    const Fabric &f = cluster.fabric();
    // The fabric's latency over time, and whether placement reads it live: each chosen policy
    // runs once per mode, "static" under its own name, "live" as NAME+live.
    std::vector<LatencyEvent> events;
    if (!events_path.empty()) events = read_latency_events(events_path, f);
    if (heat_mode.empty()) heat_mode = events_path.empty() ? "static" : "both";
    std::vector<bool> modes;  // live?
    if (heat_mode != "live") modes.push_back(false);
    if (heat_mode != "static") modes.push_back(true);
    opt.latency_events = events_path.empty() ? nullptr : &events;
    opt.heat_map = config.heat_map;
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
    if (checkpoint)
        return run_checkpoint_study(cluster, trace, model, opt, seeds, study, json,
                                    synthetic ? "synthetic " + std::to_string(synthetic) + " jobs" : trace.source) == 0
                   ? kOk
                   : kInputError;

    // summaries[pool][policy][seed]; the plot shows the first pool size and seed.
    ProgressBar bar(progress);
    const size_t runs_per_seed = chosen.size() * modes.size();
    std::vector<std::vector<std::vector<Summary>>> summaries(pool_sizes.size(),
                                                             std::vector<std::vector<Summary>>(runs_per_seed));
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
            for (size_t run = 0; run < runs_per_seed; ++run) {
                PlacementPolicy &policy = *chosen[run / modes.size()];
                opt.live_heat_map = modes[run % modes.size()];
                const std::string label = run_label(policy, opt.live_heat_map);
                bar.start(label);
                opt.progress = [&](size_t done, size_t total) { bar.update(done, total); };
                SimResult r = simulate(sized, policy, jobs, opt);
                r.policy = label;
                bar.finish();
                for (const std::string &v : r.violations) {
                    std::fprintf(stderr, "morpheus simulate: %s: conservation broken: %s\n", label.c_str(), v.c_str());
                    broken = true;
                }
                summaries[ps][run].push_back(summarize(r));
                if (!jobs_dir.empty()) write_jobs_csv(jobs_dir, label, jm.seed, pool_sizes[ps], r, jobs);
                results.push_back(std::move(r));
            }
            std::vector<const SimResult *> rs;
            std::vector<Summary *> ss;
            for (size_t p = 0; p < runs_per_seed; ++p) {
                rs.push_back(&results[p]);
                ss.push_back(&summaries[ps][p].back());
            }
            common_jobs(rs, ss);
            if (ps == 0 && k == 0 && !plot_path.empty()) plotted = std::move(results);
        }
    }

    SimReport report;
    report.trace = trace.source;
    report.skipped_records = trace.skipped;
    report.fabric = &f;
    report.job_model = describe(model, cluster);
    report.bound_model = bound_model_name(model.bound_model);
    report.slowdown = opt.slowdown;
    report.backfill = opt.backfill;
    report.plan_backfill = opt.plan_backfill;
    report.seeds = seeds;
    report.first_seed = first_seed;
    report.pool_sizes = pool_sizes;
    for (const auto &policy : chosen)
        for (bool live : modes) report.policies.push_back(run_label(*policy, live));
    if (!events_path.empty() || heat_mode != "static") {
        report.heat.events_file = events_path;
        report.heat.events = events.size();
        report.heat.settings = config.heat_map;
        report.heat.probe_interval_s = opt.probe_interval_s;
        report.heat.probe_blades = opt.probe_blades;
    }
    report.summaries = std::move(summaries);
    if (json)
        print_report_json(report);
    else
        print_report_tables(report);
    if (!plot_path.empty()) plot_report(plot_path, report, plotted);
    return broken ? kInputError : kOk;
}

}  // namespace morpheus::cli
