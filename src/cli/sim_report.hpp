// What morpheus simulate reports of a replay: tables for people, JSON for programs, the
// utilisation plot, and one CSV per run with a row per job.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "heat_map.hpp"
#include "job_model.hpp"
#include "run_summary.hpp"
#include "simulator.hpp"

namespace morpheus::cli {

// The name of a run whose placement read the live heat map: "morpheus+live".
constexpr const char *kLiveSuffix = "+live";

// --latency-events and --heat-map: what the fabric did and how the heat map was fed.
struct HeatReplay {
    std::string events_file;  // empty: none given (the fabric as its file says)
    size_t events = 0;
    morpheus::HeatMapSettings settings;
    int64_t probe_interval_s = 0;  // 0: no run read the heat map... nor printed
    uint32_t probe_blades = 0;
};

// A finished replay: what was replayed, on what and how, and every run's figures.
struct SimReport {
    std::string trace;  // the trace's source
    size_t skipped_records = 0;  // records without run time or size
    const morpheus::Fabric *fabric = nullptr;
    std::string job_model;  // describe(model, cluster)
    std::string bound_model;  // bound_model_name(): independent or sensitivity
    morpheus::sim::SlowdownModel slowdown;
    bool backfill = false;
    bool plan_backfill = true;  // morpheus's head from the core's planner (--scheduler easy)
    size_t seeds = 1;
    uint64_t first_seed = 0;
    std::vector<double> pool_sizes;
    std::vector<std::string> policies;  // in the order of summaries[pool]; live runs as NAME+live
    HeatReplay heat;
    // summaries[pool][policy][seed]
    std::vector<std::vector<std::vector<morpheus::sim::Summary>>> summaries;
};

// --json: the mean and 95% interval of every figure, per pool size and policy.
void print_report_json(const SimReport &report);
// The tables, and morpheus against the best baseline for each figure.
void print_report_tables(const SimReport &report);
// --plot: utilisation over time of the runs of the first pool size and seed.
void plot_report(const std::string &path, const SimReport &report, const std::vector<morpheus::sim::SimResult> &runs);
// --jobs: DIR/POLICY-sSEED-xPOOL.csv, one row per job.
void write_jobs_csv(const std::string &dir, const std::string &policy, uint64_t seed, double pool_size,
                    const morpheus::sim::SimResult &r, const std::vector<morpheus::sim::SimJob> &jobs);

}  // namespace morpheus::cli
