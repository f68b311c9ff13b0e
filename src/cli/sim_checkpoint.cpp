// The checkpoint study: three replays per seed, then the figures as means with 95% intervals.
#include "sim_checkpoint.hpp"

#include <jansson.h>

#include <cstdio>
#include <string>

#include "flush_replay.hpp"
#include "json_document.hpp"
#include "placement.hpp"
#include "policy.hpp"
#include "run_summary.hpp"
#include "units.hpp"

namespace morpheus::cli {

using namespace morpheus::sim;

namespace {

// The stated model applied to the jobs: who checkpoints, how much, how often.
std::vector<SimJob> with_checkpoints(std::vector<SimJob> jobs, const ClusterModel &m, const CheckpointStudy &s) {
    for (SimJob &j : jobs) {
        if (j.estimate < s.period_s || !j.request.hot_per_node) continue;
        const uint32_t nodes = std::max<uint32_t>(1, nodes_needed(m, j.request, 0));
        j.request.ckpt_bytes = bytes_for_nodes(j.request.hot_per_node, nodes);
        j.request.ckpt_period_s = s.period_s;
        j.request.ckpt_period_max_s = static_cast<int64_t>(double(s.period_s) * s.stretch);
        j.request.ckpt_replicas = s.replicas;
    }
    return jobs;
}

struct Row {
    const char *key, *label;
    std::vector<double> none, unc, booked;  // per seed; `none` empty for flush figures
};

std::string cell(const std::vector<double> &v, const char *fmt) {
    if (v.empty()) return "-";
    Interval i = t_interval(v);
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, i.mean);
    std::string out = buf;
    if (v.size() > 1) {
        std::snprintf(buf, sizeof buf, fmt, i.half);
        out += std::string(" ±") + buf;
    }
    return out;
}

}  // namespace

int run_checkpoint_study(const ClusterModel &cluster, const Trace &trace, const JobModel &model, SimOptions opt,
                         size_t seeds, const CheckpointStudy &study, bool json, const std::string &trace_name) {
    std::vector<Row> rows = {
        {"ckpt_jobs", "jobs that checkpoint", {}, {}, {}},
        {"flushes", "flushes", {}, {}, {}},
        {"flush_ratio_p50", "flush time / alone, p50", {}, {}, {}},
        {"flush_ratio_p99", "flush time / alone, p99", {}, {}, {}},
        {"flush_ratio_max", "flush time / alone, max", {}, {}, {}},
        {"flush_s_p50", "flush time p50 (s)", {}, {}, {}},
        {"flush_s_p99", "flush time p99 (s)", {}, {}, {}},
        {"share_of_run", "run time checkpointing (%)", {}, {}, {}},
        {"peak_load", "peak link load (% of bw)", {}, {}, {}},
        {"peak_over_share", "peak link load / share", {}, {}, {}},
        {"time_over_share", "link time above share (%)", {}, {}, {}},
        {"longer_period", "jobs given a longer period", {}, {}, {}},
        {"wait_mean_s", "wait mean (s)", {}, {}, {}},
        {"wait_vs_none", "wait mean vs none (%)", {}, {}, {}},
        {"bsld", "bounded slowdown", {}, {}, {}},
    };
    auto row = [&](const char *key) -> Row & {
        for (Row &r : rows)
            if (std::string(r.key) == key) return r;
        return rows.front();
    };
    bool broken = false;
    auto policy = make_policy("morpheus");
    for (size_t k = 0; k < seeds; ++k) {
        JobModel jm = model;
        jm.seed = model.seed + k;
        const std::vector<SimJob> plain = model_jobs(trace, jm, cluster);
        const std::vector<SimJob> ckpt = with_checkpoints(plain, cluster, study);
        Summary base;
        for (CheckpointMode mode : {CheckpointMode::None, CheckpointMode::Uncoordinated, CheckpointMode::Booked}) {
            opt.checkpoints = mode;
            SimResult r = simulate(cluster, *policy, mode == CheckpointMode::None ? plain : ckpt, opt);
            for (const std::string &v : r.violations) {
                std::fprintf(stderr, "morpheus simulate: %s checkpoints: conservation broken: %s\n",
                             checkpoint_mode_name(mode), v.c_str());
                broken = true;
            }
            Summary s = summarize(r);
            auto put = [&](const char *key, double v) {
                Row &x = row(key);
                (mode == CheckpointMode::None            ? x.none
                 : mode == CheckpointMode::Uncoordinated ? x.unc
                                                         : x.booked)
                    .push_back(v);
            };
            put("wait_mean_s", s.wait_mean_s);
            put("bsld", s.bounded_slowdown);
            if (mode == CheckpointMode::None) {
                base = s;
                put("wait_vs_none", 0);
                continue;
            }
            put("wait_vs_none", base.wait_mean_s > 0 ? 100 * (s.wait_mean_s / base.wait_mean_s - 1) : 0);
            FlushFigures f = replay_flushes(cluster, r, mode);
            put("ckpt_jobs", double(f.jobs));
            put("flushes", double(f.flushes));
            put("flush_ratio_p50", f.ratio_p50);
            put("flush_ratio_p99", f.ratio_p99);
            put("flush_ratio_max", f.ratio_max);
            put("flush_s_p50", f.seconds_p50);
            put("flush_s_p99", f.seconds_p99);
            put("share_of_run", 100 * f.share_of_run);
            put("peak_load", 100 * f.peak_load);
            put("peak_over_share", f.peak_over_share);
            put("time_over_share", 100 * f.time_over_share);
            put("longer_period", double(f.longer_period));
        }
    }
    const CheckpointSettings &cs = cluster.settings().checkpoint;
    if (json) {
        json_t *root = json_object();
        json_object_set_new(root, "trace", json_string(trace_name.c_str()));
        json_object_set_new(root, "seeds", json_integer(static_cast<json_int_t>(seeds)));
        json_object_set_new(root, "period_s", json_integer(study.period_s));
        json_object_set_new(root, "stretch", json_real(study.stretch));
        json_object_set_new(root, "checkpoint_share", json_real(cs.share));
        for (const Row &r : rows) {
            json_t *o = json_object();
            for (auto [name, v] : {std::make_pair("none", &r.none), std::make_pair("uncoordinated", &r.unc),
                                   std::make_pair("booked", &r.booked)}) {
                if (v->empty()) continue;
                Interval i = t_interval(*v);
                json_t *c = json_object();
                json_object_set_new(c, "mean", json_real(i.mean));
                json_object_set_new(c, "ci95", json_real(i.half));
                json_object_set_new(o, name, c);
            }
            json_object_set_new(root, r.key, o);
        }
        std::fputs(document_text(root).c_str(), stdout);
        return broken ? 1 : 0;
    }
    std::printf(
        "checkpoints: %s, %zu seed%s, morpheus policy; a job with a time limit of at least %s checkpoints its\n"
        "hot memory every %s (booked: up to %s when no window is free), 1 copy; CheckpointShare %.2g%s\n",
        trace_name.c_str(), seeds, seeds == 1 ? "" : "s", format_hot_wait(study.period_s).c_str(),
        format_hot_wait(study.period_s).c_str(),
        format_hot_wait(static_cast<int64_t>(double(study.period_s) * study.stretch)).c_str(), cs.share,
        cs.by_tier.empty() ? "" : " (per tier as configured)");
    std::printf("  %-28s %18s %18s %18s\n", "figure", "no checkpoints", "uncoordinated", "booked windows");
    for (const Row &r : rows) {
        const char *fmt = std::string(r.key).find("ratio") != std::string::npos ||
                                  std::string(r.key) == "peak_over_share" || std::string(r.key) == "bsld"
                              ? "%.3g"
                              : "%.4g";
        std::printf("  %-28s %18s %18s %18s\n", r.label, cell(r.none, fmt).c_str(), cell(r.unc, fmt).c_str(),
                    cell(r.booked, fmt).c_str());
    }
    return broken ? 1 : 0;
}

}  // namespace morpheus::cli
