// The reports of morpheus simulate: figures over seeds (mean, 95% t-interval), per policy and
// pool size, as tables, JSON, a plot title and per-job CSVs.
#include "sim_report.hpp"

#include <jansson.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "input_error.hpp"
#include "sim_plot.hpp"
#include "table.hpp"
#include "units.hpp"

namespace morpheus::cli {

using namespace morpheus::sim;

namespace {

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

bool is_live(const std::string &run) {
    const std::string suffix = kLiveSuffix;
    return run.size() > suffix.size() && run.compare(run.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Every figure of a Summary by name, for the JSON and the intervals over seeds.
struct Metric {
    const char *name;
    double (*get)(const Summary &);
};
const std::vector<Metric> &metrics() {
    static const std::vector<Metric> m{
        {"ran", [](const Summary &s) { return double(s.ran); }},
        {"apart", [](const Summary &s) { return double(s.apart); }},
        {"refused", [](const Summary &s) { return double(s.refused); }},
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
        {"tight_jobs", [](const Summary &s) { return double(s.tight_jobs); }},
        {"tight_in_bound", [](const Summary &s) { return s.tight_in_bound; }},
        {"moves", [](const Summary &s) { return double(s.moves); }},
        {"tight_over_bound_s", [](const Summary &s) { return s.tight_over_bound_s; }},
        {"tight_over_bound_jobs", [](const Summary &s) { return double(s.tight_over_bound_jobs); }},
        {"tight_unseen_over_bound_s", [](const Summary &s) { return s.tight_unseen_s; }},
        {"tight_unseen_over_bound_jobs", [](const Summary &s) { return double(s.tight_unseen_jobs); }},
        {"hot_stretch_mean", [](const Summary &s) { return s.hot_stretch_mean; }},
        {"true_hot_latency_mean_ns", [](const Summary &s) { return s.true_hot_latency_mean_ns; }},
        {"degraded_starts", [](const Summary &s) { return double(s.degraded_starts); }},
        {"probe_rounds", [](const Summary &s) { return double(s.probe_rounds); }},
        {"heat_map_changes", [](const Summary &s) { return double(s.heat_changes); }},
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
    const std::string &name = runs.front().policy;
    json_object_set_new(o, "policy", json_string(name.c_str()));
    json_object_set_new(o, "heat_map", json_string(is_live(name) ? "live" : "static"));
    json_object_set_new(o, "seeds", json_integer(static_cast<json_int_t>(runs.size())));
    for (const Metric &m : metrics()) {
        Interval i = over_seeds(runs, m.get);
        json_object_set_new(o, m.name, json_real(i.mean));
        json_object_set_new(o, (std::string(m.name) + "_ci95").c_str(), json_real(i.half));
    }
    // The headline figures seed by seed, in seed order: the policies' runs are paired by seed,
    // so a reader (make bench-sim) can tell one seed's episode from a shift in every seed.
    json_t *per_seed = json_object();
    for (const Metric &m : metrics()) {
        const std::string name = m.name;
        if (name != "bounded_slowdown_mean" && name != "largest_tenth_wait_max_s" && name != "tight_in_bound") continue;
        json_t *values = json_array();
        for (const Summary &run : runs) json_array_append_new(values, json_real(m.get(run)));
        json_object_set_new(per_seed, m.name, values);
    }
    json_object_set_new(o, "per_seed", per_seed);
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

std::string heat_settings_text(const HeatReplay &h) {
    return "probes every " + std::to_string(h.probe_interval_s) + "s to each pod's " + std::to_string(h.probe_blades) +
           " nearest blades; " + heat_figure_name(h.settings.figure) + " of " + std::to_string(h.settings.samples) +
           " samples within " + std::to_string(h.settings.window_s) + "s; stale after " +
           std::to_string(h.settings.stale_s) + "s; a cell moves past " + percent(h.settings.hysteresis) + " for " +
           std::to_string(h.settings.rounds) + " settle rounds";
}

// --latency-events: what the jobs really got, each policy with and without the live heat map,
// side by side.
void print_heat_table(const SimReport &report, size_t ps) {
    const HeatReplay &h = report.heat;
    std::printf(
        "\nfabric latency: %s; heat map: %s\n",
        h.events_file.empty()
            ? "as the fabric file says (no --latency-events)"
            : (std::to_string(h.events) + (h.events == 1 ? " event from " : " events from ") + h.events_file).c_str(),
        heat_settings_text(h).c_str());
    Table t({"POLICY", "HEAT_MAP", "TIGHT_OVER (JOBS)", "UNSEEN (JOBS)", "DEGRADED_STARTS", "HOT_STRETCH",
             "TRUE_HOT_LAT", "ROUNDS", "CHANGES"});
    for (const auto &runs : report.summaries[ps]) {
        auto iv = [&](double (*get)(const Summary &)) { return over_seeds(runs, get); };
        std::string name = runs.front().policy;
        const bool live = is_live(name);
        if (live) name.resize(name.size() - std::strlen(kLiveSuffix));
        t.add({name, live ? "live" : "static",
               duration_interval(iv([](const Summary &x) { return x.tight_over_bound_s; })) + " (" +
                   with_interval(iv([](const Summary &x) { return double(x.tight_over_bound_jobs); }), 0) + ")",
               duration_interval(iv([](const Summary &x) { return x.tight_unseen_s; })) + " (" +
                   with_interval(iv([](const Summary &x) { return double(x.tight_unseen_jobs); }), 0) + ")",
               with_interval(iv([](const Summary &x) { return double(x.degraded_starts); }), 1),
               with_interval(iv([](const Summary &x) { return x.hot_stretch_mean; }), 4),
               format_latency(static_cast<uint64_t>(
                   std::lround(iv([](const Summary &x) { return x.true_hot_latency_mean_ns; }).mean))),
               fixed(iv([](const Summary &x) { return double(x.probe_rounds); }).mean, 0),
               fixed(iv([](const Summary &x) { return double(x.heat_changes); }).mean, 0)});
    }
    std::fputs(t.render().c_str(), stdout);
}

std::string scheduler_name(const SimReport &r) {
    if (!r.backfill) return "FCFS";
    return r.plan_backfill ? "EASY backfill (memory-aware head reservation)"
                           : "EASY backfill (memory-aware head reservation; one walk for every policy)";
}

std::string sensitivity_name(const SimReport &r) {
    return r.slowdown.alpha >= 0 ? "alpha " + fixed(r.slowdown.alpha, 2) + " for every job"
                                 : "alpha per job from Pond's mix (0/0.05/0.15/0.35 at 30/25/20/25%)";
}

}  // namespace

// Per-job outcomes, for finding out why a policy wins or loses (which jobs wait, which stretch).
void write_jobs_csv(const std::string &dir, const std::string &policy, uint64_t seed, double pool_size,
                    const SimResult &r, const std::vector<SimJob> &jobs) {
    const std::string path = dir + "/" + policy + "-s" + std::to_string(seed) + "-x" + fixed(pool_size, 2) + ".csv";
    FILE *fp = std::fopen(path.c_str(), "w");
    if (!fp)
        throw InputError(path, "", std::string("cannot write: ") + std::strerror(errno),
                         "give --jobs a writable directory");
    std::fprintf(
        fp,
        "id,submit,start,end,wait_s,logged_s,ran_s,apart,refused,killed,nodes,pods,hot_per_node_bytes,bound_ns,"
        "hot_latency_ns,max_hot_latency_ns,within_bound,tight,bound_possible,in_bound_s,moves,sensitivity,bounded_"
        "slowdown,true_hot_latency_ns,degraded_start,over_bound_s,unseen_over_bound_s\n");
    for (size_t i = 0; i < r.jobs.size(); ++i) {
        const JobOutcome &o = r.jobs[i];
        // As run_summary.cpp charges it: a refused job waited to the end of the replay.
        const int64_t wait = o.apart ? 0 : (o.refused ? r.last_end : o.start) - o.submit;
        const int64_t ran = o.refused ? o.base_runtime : o.runtime;
        const double bsld = o.apart ? 0
                                    : std::max(1.0, static_cast<double>(wait + ran) /
                                                        std::max(static_cast<double>(o.base_runtime), kSlowdownFloor));
        std::fprintf(
            fp,
            "%llu,%lld,%lld,%lld,%lld,%lld,%lld,%d,%d,%d,%u,%u,%llu,%llu,%.1f,%.1f,%d,%d,%d,%lld,%u,%.3f,%.4f,%.1f,%d,%"
            "lld,"
            "%lld\n",
            static_cast<unsigned long long>(o.id), static_cast<long long>(o.submit), static_cast<long long>(o.start),
            static_cast<long long>(o.end), static_cast<long long>(wait), static_cast<long long>(o.base_runtime),
            static_cast<long long>(o.runtime), o.apart ? 1 : 0, o.refused ? 1 : 0, o.killed ? 1 : 0, o.nodes, o.pods,
            static_cast<unsigned long long>(jobs[i].request.hot_per_node), static_cast<unsigned long long>(o.bound_ns),
            o.hot_latency_ns, o.max_hot_latency_ns, o.within_bound ? 1 : 0, o.tight ? 1 : 0,
            o.in_bound_possible ? 1 : 0, static_cast<long long>(o.in_bound_s), o.moves, jobs[i].sensitivity, bsld,
            o.true_hot_latency_ns, o.degraded_start ? 1 : 0, static_cast<long long>(o.over_bound_s),
            static_cast<long long>(o.unseen_over_bound_s));
    }
    if (std::fclose(fp) != 0)
        throw InputError(path, "", std::string("cannot write: ") + std::strerror(errno),
                         "give --jobs a writable directory");
}

void print_report_json(const SimReport &report) {
    const Fabric &f = *report.fabric;
    const auto &summaries = report.summaries;
    const auto &pool_sizes = report.pool_sizes;
    const size_t seeds = report.seeds;
    const std::string sensitivity = sensitivity_name(report);
    const size_t total_jobs = summaries[0][0][0].jobs;
    json_t *root = json_object();
    json_object_set_new(root, "trace", json_string(report.trace.c_str()));
    json_object_set_new(root, "jobs", json_integer(static_cast<json_int_t>(total_jobs)));
    json_object_set_new(root, "skipped_records", json_integer(static_cast<json_int_t>(report.skipped_records)));
    json_object_set_new(root, "fabric", json_string(f.source.c_str()));
    json_object_set_new(root, "job_model", json_string(report.job_model.c_str()));
    json_object_set_new(root, "bound_model", json_string(report.bound_model.c_str()));
    json_object_set_new(root, "sensitivity", json_string(sensitivity.c_str()));
    json_object_set_new(root, "alpha", report.slowdown.alpha >= 0 ? json_real(report.slowdown.alpha) : json_null());
    json_object_set_new(root, "local_latency_ns", json_real(report.slowdown.local_ns));
    json_object_set_new(root, "scheduler",
                        json_string(!report.backfill       ? "fcfs"
                                    : report.plan_backfill ? "easy"
                                                           : "easy-generic"));
    json_object_set_new(root, "seeds", json_integer(static_cast<json_int_t>(seeds)));
    if (report.heat.probe_interval_s) {
        const HeatReplay &h = report.heat;
        json_t *heat = json_object();
        json_object_set_new(heat, "latency_events_file",
                            h.events_file.empty() ? json_null() : json_string(h.events_file.c_str()));
        json_object_set_new(heat, "latency_events", json_integer(static_cast<json_int_t>(h.events)));
        json_object_set_new(heat, "probe_interval_s", json_integer(h.probe_interval_s));
        json_object_set_new(heat, "probe_blades", json_integer(h.probe_blades));
        json_object_set_new(heat, "figure", json_string(heat_figure_name(h.settings.figure)));
        json_object_set_new(heat, "samples", json_integer(h.settings.samples));
        json_object_set_new(heat, "window_s", json_integer(h.settings.window_s));
        json_object_set_new(heat, "stale_s", json_integer(h.settings.stale_s));
        json_object_set_new(heat, "hysteresis", json_real(h.settings.hysteresis));
        json_object_set_new(heat, "rounds", json_integer(h.settings.rounds));
        json_object_set_new(root, "heat_map", heat);
    }
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
}

void print_report_tables(const SimReport &report) {
    const Fabric &f = *report.fabric;
    const auto &summaries = report.summaries;
    const auto &pool_sizes = report.pool_sizes;
    const auto &policies = report.policies;
    const size_t seeds = report.seeds;
    const std::string scheduler = scheduler_name(report), sensitivity = sensitivity_name(report);
    const size_t total_jobs = summaries[0][0][0].jobs;
    std::printf(
        "trace: %s (%zu jobs, the same for every policy and pool size; %zu records without run time or size "
        "skipped)\n",
        report.trace.c_str(), total_jobs, report.skipped_records);
    std::printf("fabric: %s: %zu pods, %zu nodes, %u GPUs, %zu blades\n", f.source.c_str(), f.pods.size(),
                f.node_names.size(), f.gpu_count(), f.blades.size());
    std::printf("model: %s\n", report.job_model.c_str());
    std::printf("slowdown: %s, over %s local; scheduler: %s; seeds: %zu%s\n", sensitivity.c_str(),
                format_latency(static_cast<uint64_t>(report.slowdown.local_ns)).c_str(), scheduler.c_str(), seeds,
                seeds > 1 ? " (mean ±95% t-interval)" : "");
    for (size_t ps = 0; ps < pool_sizes.size(); ++ps) {
        std::printf("\npool size x%s:\n", fixed(pool_sizes[ps], 2).c_str());
        std::printf(
            "apart: %s jobs the cluster can never run under their own terms (in no figure)\n",
            fixed(over_seeds(summaries[ps][0], [](const Summary &x) { return double(x.apart); }).mean, 0).c_str());
        Table t({"POLICY", "RAN", "REFUSED", "KILLED", "GPU", "HOT", "STRANDED", "WAIT", "WAIT_MAX", "BIG_WAIT_MAX",
                 "BSLD", "STRETCH", "HOT_LAT", "IN_BOUND", "TIGHT_IN", "MOVES"});
        for (const auto &runs : summaries[ps]) {
            auto iv = [&](double (*get)(const Summary &)) { return over_seeds(runs, get); };
            t.add({runs.front().policy, fixed(iv([](const Summary &x) { return double(x.ran); }).mean, 0),
                   fixed(iv([](const Summary &x) { return double(x.refused); }).mean, 0),
                   fixed(iv([](const Summary &x) { return double(x.killed); }).mean, 0),
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
                   percent(iv([](const Summary &x) { return x.within_bound; }).mean),
                   percent(iv([](const Summary &x) { return x.tight_in_bound; }).mean),
                   fixed(iv([](const Summary &x) { return double(x.moves); }).mean, 0)});
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
                row.push_back(jobs ? duration(t_interval(mean).mean) + " (max " + duration(t_interval(max).mean) + ")"
                                   : "-");
            }
            w.add(row);
        }
        std::printf("\nwait by job size (nodes), mean (max):\n");
        std::fputs(w.render().c_str(), stdout);
        if (report.heat.probe_interval_s) print_heat_table(report, ps);
        // The headline: morpheus against the best baseline for each figure, never one baseline.
        size_t me = policies.size();
        for (size_t p = 0; p < policies.size(); ++p)
            if (policies[p] == "morpheus") me = p;
        size_t baselines = 0;
        for (const std::string &p : policies) baselines += p != "morpheus" && !is_live(p);
        if (me < policies.size() && baselines) {
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
                {"REFUSED", [](const Summary &x) { return double(x.refused); }, false, 1},
                {"1-TIGHT_IN", [](const Summary &x) { return 1 - x.tight_in_bound; }, false, 3},
                {"KILLED", [](const Summary &x) { return double(x.killed); }, false, 1}};
            for (const Figure &fig : figures) {
                Interval mine = over_seeds(summaries[ps][me], fig.get);
                size_t best = policies.size();
                Interval theirs;
                for (size_t p = 0; p < policies.size(); ++p) {
                    if (p == me || is_live(policies[p])) continue;
                    Interval x = over_seeds(summaries[ps][p], fig.get);
                    if (best == policies.size() || x.mean < theirs.mean) {
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
                            show(theirs).c_str(), policies[best].c_str(), change.c_str());
            }
        }
    }
    std::printf(
        "\nREFUSED: never placeable by that policy, even on an empty cluster, though the job's terms allow\n"
        "a placement; charged in WAIT, BSLD and BIG_WAIT_MAX as waiting to the end of the replay, then\n"
        "running as logged; KILLED: ran past the time limit, stretched;\n"
        "GPU: GPUs allocated, time-averaged; HOT: hot memory over DRAM; STRANDED: free DRAM no free node\n"
        "reaches within the default bound; WAIT_MAX: longest wait; BIG_WAIT_MAX: longest wait of the\n"
        "largest 10%% of jobs (by nodes); BSLD: bounded slowdown (10 s); STRETCH: run time as run / as\n"
        "logged; HOT_LAT: bytes-weighted per job; TIGHT_IN: share of the hot-memory run time (bytes x\n"
        "seconds) of tight-bound jobs (those that can be placed in bound) inside the bound; MOVES: moves\n"
        "of hot memory inside the bound (a job's pods may move apart); *_COMMON: over the jobs every\n"
        "policy ran.\n");
    if (report.heat.probe_interval_s)
        std::printf(
            "fabric latency: TIGHT_OVER: run time of tight-bound jobs with some hot byte truly beyond the\n"
            "bound (the latency events' latency, each segment at its slowest node), and how many such jobs;\n"
            "UNSEEN: of that, the time with a byte placement believed inside the bound (no soft bound's\n"
            "lapse chose it), and how many jobs; DEGRADED_STARTS: hot jobs started on a cell an event had\n"
            "slowed; HOT_STRETCH: run time as run / as logged of jobs with hot memory; TRUE_HOT_LAT: their\n"
            "hot memory's true latency at start; ROUNDS: probe rounds; CHANGES: settle rounds that moved\n"
            "placement's latencies.\n");
}

void plot_report(const std::string &path, const SimReport &report, const std::vector<SimResult> &runs) {
    plot_utilisation(path,
                     "morpheus simulate: " + report.trace + " on " + report.fabric->source + "\n" +
                         scheduler_name(report) + "; seed " + std::to_string(report.first_seed) + "\n" +
                         wrap(report.job_model + "; " + sensitivity_name(report), 110),
                     runs);
}

}  // namespace morpheus::cli
