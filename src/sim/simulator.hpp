// The event-driven replay: jobs arrive at their submit time, wait in one FCFS queue (with EASY
// backfill unless told otherwise, as Slurm), start when their policy places them, and end after
// their run time stretched by the slowdown model, or at their time limit, killed, as Slurm ends
// them. Memory is reserved and released through the core Ledger.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cluster_model.hpp"
#include "heat_map.hpp"
#include "job_model.hpp"
#include "latency_events.hpp"
#include "ledger.hpp"
#include "policy.hpp"
#include "slowdown.hpp"

namespace morpheus::sim {

// At one instant, ends are handled before arrivals (a job that ends frees its nodes for one
// that arrives then), each kind in the order it was scheduled. MoveDone: a job's hot memory has
// been copied inside its bound (move.hpp). Wake: a soft bound's wait is over; nothing else
// changed, but the job may now take memory beyond its bound. Then the fabric's own: Latency: a
// latency event begins or ends (--latency-events); Probe: the nodes' probes report to the heat
// map and one settle round follows (--heat-map), so the schedule that follows sees both.
enum class EventKind : uint8_t { End = 0, MoveDone = 1, Arrival = 2, Wake = 3, Latency = 4, Probe = 5 };

struct SimEvent {
    int64_t time = 0;
    EventKind kind = EventKind::Arrival;
    uint64_t seq = 0;  // order of scheduling, the last tie-break
    size_t job = 0;  // index into the job list
    uint32_t generation = 0;  // End: stale when the job's end moved since (a move changed its pace)
};

struct JobOutcome {
    uint64_t id = 0;
    int64_t submit = 0, start = -1, end = -1;
    int64_t base_runtime = 0, runtime = 0;  // as logged; as run (stretched)
    // apart: the cluster can never run it under its own terms (SimJob::apart), the same for
    // every policy: in no figure. refused: this policy could not place it even on an empty
    // cluster though the job's terms allow one: it never runs, and is charged as having waited
    // to the end of the replay (run_summary.hpp), so refusing is never free.
    bool apart = false, refused = false;
    bool tight = false, in_bound_possible = false;  // SimJob's tight (with hot memory) and in_bound
    bool killed = false;  // ran (stretched) past its time limit and was ended there
    uint32_t starts = 0, ends = 0;  // conservation: each exactly once for a job that ran
    uint32_t nodes = 0, gpus = 0, pods = 0;
    uint64_t hot_bytes = 0, cold_bytes = 0;
    uint64_t bound_ns = 0;
    double hot_latency_ns = 0;  // bytes-weighted mean over its hot segments
    double max_hot_latency_ns = 0;
    bool within_bound = false;  // every hot byte inside the bound
    // Moves (policies that move memory): when the last one finished (-1: never moved), how
    // many, and the bytes-weighted hot latency after it.
    int64_t moved_at = -1;
    uint32_t moves = 0;
    double moved_hot_latency_ns = 0;
    // Seconds of the run inside the bound, weighted by the share of the hot bytes there: the
    // whole run when every hot byte is, and a move of some pods' share counts from its end
    // for those bytes (hot-memory byte-seconds in bound / hot bytes).
    int64_t in_bound_s = 0;
    bool bound_lapsed = false;  // started under a soft bound whose wait was over
    // Against the latency the fabric really has (SimOptions::latency_events; without them the
    // fabric file's, which placement knows): each hot segment at its slowest node's latency.
    double true_hot_latency_ns = 0;  // bytes-weighted, at its start
    bool degraded_start = false;  // started with hot memory on a cell an event made slower
    int64_t over_bound_s = 0;  // seconds run with some hot byte truly beyond the bound
    int64_t unseen_over_bound_s = 0;  // ... a byte that placement believed inside it
};

// The cluster's state over one stretch of time, for utilisation over time and the plot.
struct Sample {
    int64_t time = 0;
    double gpus = 0, hot = 0, cold = 0, stranded = 0;  // shares of capacity in [0,1]
    size_t queued = 0, running = 0;
};

// Checkpoint offload in the replay (issue 28): none; uncoordinated (each job gets its region,
// and flushes on its own schedule: every period from its start, at line rate, sharing links);
// booked (region and a booked window through decide(), as select/morpheus grants them).
enum class CheckpointMode : uint8_t { None, Uncoordinated, Booked };
const char *checkpoint_mode_name(CheckpointMode m);

// One job's checkpoint as it ran: where it flushed from and to, and when (flush_replay.hpp).
struct CheckpointRun {
    size_t job = 0;  // index into the job list
    std::vector<PodShare> pods;
    std::vector<Segment> stripes;  // its region
    CheckpointHold window;  // booked: the window granted; uncoordinated: the asked period, phase 0
    int64_t asked_period_s = 0;
};

struct SimOptions {
    CheckpointMode checkpoints = CheckpointMode::None;
    SlowdownModel slowdown;
    // EASY: a later job may start if it does not delay the head; the head's reservation (the
    // shadow time) is when its nodes AND its memory are free, by running jobs' time limits.
    bool backfill = true;
    // The head's start for a policy that plans memory (morpheus): from the core's planner, as
    // select/morpheus answers sched/backfill's will-run (its pods held, its memory planned);
    // false: the same EASY walk as every other policy (--scheduler easy-generic).
    bool plan_backfill = true;
    size_t backfill_depth = 64;  // how far down the queue backfill looks
    // Hot memory moved inside the bound when memory there frees (policies that move memory;
    // at most ClusterModel settings' max_moves at once). False: never.
    bool moves = true;
    int64_t sample_interval = 0;  // seconds; 0: the trace's span / 500
    bool check_invariants = false;  // ledger and node books checked at every event (slow at scale)
    std::function<void(size_t done, size_t total)> progress;  // after each job ends
    std::function<void(const SimEvent &)> on_event;  // for tests: every event, in order
    // The fabric's latency over time: what jobs really get, and what the stretch and the
    // over-bound time are charged from. Null: the fabric file's, always.
    const std::vector<LatencyEvent> *latency_events = nullptr;
    // The live heat map as select/morpheus keeps it: every probe_interval_s each node reports
    // its latency to its pod's probe_blades nearest blades (as the events make it then) to a
    // HeatMap with these settings (morpheus.conf HeatMap*), one settle round follows, and
    // placement reads the published cells through ClusterModel::with_live_latency. Rounds run
    // from before each event until its measurements have left the windows; outside those the
    // fabric is as its file says and rounds would publish nothing. False: placement knows the
    // fabric file's latencies only.
    bool live_heat_map = false;
    HeatMapSettings heat_map;
    int64_t probe_interval_s = 60;
    uint32_t probe_blades = 64;
};

struct SimResult {
    std::string policy;
    std::vector<JobOutcome> jobs;  // like the input
    std::vector<Sample> timeline;
    int64_t first_submit = 0, last_end = 0;
    // Time integrals (share of capacity x seconds), for utilisation over the whole run.
    double gpu_seconds = 0, hot_seconds = 0, cold_seconds = 0;
    uint64_t total_gpus = 0, total_dram = 0, total_pmem = 0;
    size_t events = 0;
    size_t moves = 0;  // moves finished
    double move_seconds = 0;  // time spent copying, over all moves
    std::vector<std::string> violations;  // conservation broken: always a bug
    size_t probe_rounds = 0, heat_changes = 0;  // heat map: rounds, and rounds that moved placement's latencies
    std::vector<CheckpointRun> checkpoints;  // jobs that started with a checkpoint region
};

SimResult simulate(const ClusterModel &model, PlacementPolicy &policy, const std::vector<SimJob> &jobs,
                   const SimOptions &options);

}  // namespace morpheus::sim
