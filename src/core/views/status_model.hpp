// The status views as plain values: pools (blades and pods), jobs, the fabric matrix and the
// explain answer, built once from the model, the ledger and the decision log for one viewer.
// status_json.cpp renders each to its JSON document and reads it back (the CLI), the two side
// by side, so each field name is written in one place.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster_model.hpp"
#include "decision_log.hpp"
#include "heat_map.hpp"
#include "ledger.hpp"

typedef struct json_t json_t;

namespace morpheus {

// Who asks, and so what they may see of other users' jobs.
struct Viewer {
    long uid = -1;  // < 0: root or SlurmUser, every job's detail
    bool own_jobs_only = false;  // Slurm's PrivateData=jobs: no other user's job at all, not even its id

    static Viewer of(uint32_t uid, bool privileged, bool private_jobs) {
        return {privileged ? -1 : static_cast<long>(uid), private_jobs && !privileged};
    }
    bool sees_detail(uint32_t owner) const { return uid < 0 || static_cast<long>(owner) == uid; }
    bool sees_job(uint32_t owner) const { return !own_jobs_only || sees_detail(owner); }
};

struct TierStatus {
    uint64_t capacity = 0, reserved = 0, free = 0;
};

// A blade's measured latency band (issue 29): over the pods whose nodes measured the blade.
struct HeatBand {
    std::optional<uint32_t> min_ns, max_ns;  // HeatMapFigure over the fresh cells; none when none is fresh
    uint32_t fresh_cells = 0;  // pods with fresh data for the blade
    uint32_t stale_cells = 0;  // pods measured once, whose data went stale
    uint32_t live_cells = 0;  // pods whose placement uses the measured value (published)
};

struct BladeStatus {
    std::string blade;
    std::string state;  // blade_state_name(): up, draining, failed, absent
    double load = 0;
    std::string reason;  // "" when the blade has none
    int64_t since = 0;  // unix seconds of the last state change; 0 when unknown
    TierStatus dram, pmem;
    // The fabric file's latency band: min..max over the pods that reach the blade; none when none does.
    std::optional<uint32_t> static_min_ns, static_max_ns;
    std::optional<HeatBand> heat;  // live answers only: the controller's heat map
};

// Free hot memory within a bound: the pools view's FREE@ columns.
struct HotClass {
    uint64_t bound_ns = 0, free = 0;
};

struct PodStatus {
    std::string pod;
    std::string nodes;  // the fabric's hostlist expression
    uint32_t node_count = 0;
    uint64_t hot_bound_ns = 0;  // DefaultHotLatency: the hot_* figures count blades inside it
    uint32_t hot_blades = 0;
    uint64_t hot_capacity = 0, hot_reserved = 0, hot_free = 0;
    std::optional<uint32_t> nearest_blade_ns;  // none: no blade reachable
    std::vector<HotClass> hot_free_by_class;  // half, once and twice the bound
};

struct SegmentStatus {
    std::string blade;
    std::string use;  // hot | cold
    std::string tier;  // dram | pmem
    uint64_t bytes = 0;
    uint32_t latency_ns = 0;
    std::string pod;
};

// A job's checkpoint region and booked flush window (issue 28).
struct CheckpointStatus {
    std::string region;  // "blade1:600G@80ns,blade2:600G@240ns", copies in order
    int64_t period_s = 0, phase_s = 0, window_s = 0;
    uint64_t bytes = 0;  // one copy
    uint32_t copies = 0;  // asked
    uint32_t intact = 0;  // copies with no blade failed now
    bool waiting = false;  // requeued: the region is kept for its restart
    uint32_t restarts = 0;
    bool restore = false;  // the latest start was told to restore
};

// What a job holds: shown for the viewer's own jobs (every job to the privileged).
struct JobDetail {
    std::string pods;  // "pod1,pod2"
    int64_t since = 0;
    std::string nodes;  // hostlist
    uint64_t hot_latency_bound_ns = 0;
    bool affected = false;  // holds memory on a failed blade
    std::vector<SegmentStatus> segments;
    std::optional<CheckpointStatus> checkpoint;
};

struct JobStatus {
    uint64_t job_id = 0;
    uint32_t uid = 0;
    std::optional<JobDetail> detail;
    std::optional<std::string> state;  // the jobs op: running, affected, pending, impossible
    std::optional<std::string> reason;  // the jobs op, jobs Morpheus holds pending: why
    std::optional<std::string> user;  // morpheus jobs: the uid's name, added by the CLI
};

// The status op: pools and the jobs holding blade memory.
struct StatusSnapshot {
    std::string fabric, inventory;  // the files the model was read from
    uint64_t default_hot_latency_ns = 0;
    std::vector<BladeStatus> blades;
    std::vector<PodStatus> pods;
    std::vector<JobStatus> jobs;
};

// The jobs op: running jobs from the ledger, then those Morpheus holds pending.
struct JobList {
    std::vector<JobStatus> jobs;
};

// The fabric op: the pod x blade latency matrix (no job in it: the same for every viewer).
struct FabricPod {
    std::string pod, nodes;
};
struct FabricBlade {
    std::string blade, state;
    uint64_t dram_free = 0;  // 0 on a blade that admits nothing
};
struct FabricMatrix {
    uint64_t hot_bound_ns = 0;
    std::vector<FabricPod> pods;
    std::vector<FabricBlade> blades;
    std::vector<std::vector<std::optional<uint32_t>>> latency_ns;  // [pod][blade]; none: unreachable
};

// The fabric op with "live": true (issue 29): the heat map's cells, one per pod x blade, with
// the measured figure beside the fabric file's and the value placement uses.
struct HeatCellStatus {
    std::string pod, blade;
    uint32_t static_ns = 0;  // the fabric file's latency: the prior
    std::optional<uint32_t> p50_ns, p99_ns;  // median over the pod's fresh nodes; none when not fresh
    std::optional<uint32_t> measured_ns;  // the HeatMapFigure of those
    uint32_t used_ns = 0;  // what placement uses: the published measured value, else static_ns
    bool live = false;  // used_ns is a measured value
    uint32_t samples = 0, nodes = 0;  // in the fresh nodes' windows
    std::optional<int64_t> age_s;  // since the cell's newest sample; none: never measured
    std::string state;  // fresh | stale | unmeasured
};
struct HeatMapView {
    std::string figure;  // HeatMapFigure: p50 | p99
    int64_t now = 0;  // the controller's unix seconds the cells are judged at
    int64_t stale_s = 0, window_s = 0;
    double hysteresis = 0;
    uint32_t rounds = 0;
    // In the whole map, whatever the filter: reachable, measured (fresh or stale), fresh and
    // live (published) cells.
    uint64_t cells_reachable = 0, cells_measured = 0, cells_fresh = 0, cells_live = 0;
    uint64_t cells_matched = 0;  // the filter's cells; more than cells.size() when cut at the limit
    std::vector<HeatCellStatus> cells;  // pod-major, blades in fabric order
};
// What the live fabric op selects; names are checked against the fabric.
struct HeatQuery {
    std::vector<std::string> pods, blades;  // empty: all
    bool all = false;  // also the reachable cells no node measured (static only)
    uint32_t limit = 4096;  // cells in the answer at most (kMaxHeatCells)
};
// About 280 bytes of JSON a cell: the default 4096 are 1.1 MiB, the most 4.5 MiB, so one
// answer never grows with the fabric.
constexpr uint32_t kMaxHeatCells = 16384;

// What only the controller has: the heat map, and the time its staleness is judged at. A view
// given none (the CLI offline) shows static latencies only.
struct LiveState {
    const HeatMap *heat = nullptr;
    int64_t now = 0;
    uint32_t metric_cells = 256;  // HeatMapMetricCells: per-cell series at most
};

// The links op (issue 28): the fabric's link time as checkpoint windows book it, which jobs
// hold which link when. Rates are bytes per second; times unix seconds.
struct LinkHolder {
    uint64_t job_id = 0;
    uint32_t uid = 0;
    double rate = 0;  // what the job's flush holds on this link while its window is open
    int64_t period_s = 0, phase_s = 0, window_s = 0;
};
// The load booked on a link over [start, end): one span per change inside the horizon.
struct LinkSpan {
    int64_t start = 0, end = 0;
    double booked = 0;
};
struct LinkBookingStatus {
    uint32_t index = 0;  // the link's place in the fabric file's "links"
    std::string from, to, tier;
    double bandwidth = 0, share = 0;  // share: CheckpointShare of the link's tier
    double capacity = 0;  // share x bandwidth: the most windows may hold at any instant
    double peak = 0;  // the most booked at any instant of the cycle
    uint32_t others = 0;  // windows of jobs the viewer may not see (counted in the load)
    std::vector<LinkHolder> holders;  // the viewer's jobs (every job to the privileged)
    std::vector<LinkSpan> load;  // [from, from + horizon), spans with nothing booked left out
};
struct LinkBookView {
    int64_t now = 0, from = 0, horizon_s = 0;  // from: now, down to a slot's start
    int64_t slot_s = 0, cycle_s = 0;  // CheckpointSlot, CheckpointCycle
    uint64_t windows = 0;  // jobs holding a window, all users
    uint64_t links_matched = 0;  // booked links the query matched; more than links.size() when cut
    std::vector<LinkBookingStatus> links;  // the fullest (peak / capacity) first
};
// What the links op selects.
struct LinkQuery {
    std::vector<std::string> ends;  // links with an end of these names (pod, switch, blade); empty: all
    std::vector<uint64_t> jobs;  // links these jobs' windows use; empty: all
    int64_t horizon_s = 0;  // 0: the longest booked period (one slot at least, the cycle at most)
    uint32_t limit = 64;  // links in the answer at most (kMaxLinkRows)
};
// A link's load is at most one span per slot of the horizon (CheckpointCycle / CheckpointSlot,
// 1440 by default): the row cap keeps one answer to a few MiB at worst.
constexpr uint32_t kMaxLinkRows = 1024;

// The explain op: the latest decision on a job, and what it holds.
struct ExplainDecision {
    std::string verdict, reason;
    int64_t when = 0;
    std::string explanation;  // explain_text(): several lines
};
struct ExplainAnswer {
    uint64_t job_id = 0;
    uint32_t uid = 0;
    std::optional<ExplainDecision> decision;
    std::optional<std::string> holding;  // reservation_summary()
};

// The metrics op: Prometheus text exposition.
struct MetricsAnswer {
    std::string text;
};

// Builders. The caller holds whatever lock guards the model, ledger and log.
StatusSnapshot status_snapshot(const ClusterModel &m, const Ledger &l, const Viewer &viewer,
                               const LiveState &live = {});
// Throws InputError naming a pod or blade of the query the fabric lacks.
HeatMapView heat_map_view(const ClusterModel &m, const HeatMap &heat, int64_t now, const HeatQuery &q);
JobList job_list(const ClusterModel &m, const Ledger &l, const DecisionLog &log, const Viewer &viewer);
FabricMatrix fabric_matrix(const ClusterModel &m, const Ledger &l);
// Throws InputError naming an end of the query the fabric lacks. `now`: unix seconds.
LinkBookView link_book_view(const ClusterModel &m, const Ledger &l, const Viewer &viewer, int64_t now,
                            const LinkQuery &q);
SegmentStatus segment_status(const Fabric &f, const Segment &s);

// To JSON: a new reference, keys in the order of the wire format. Every view's document, live
// or offline, CLI --json or C ABI, is made here.
json_t *to_json(const SegmentStatus &s);
json_t *to_json(const StatusSnapshot &s);
json_t *to_json(const JobList &j);
json_t *to_json(const FabricMatrix &f);
json_t *to_json(const HeatMapView &h);
json_t *to_json(const LinkBookView &v);
json_t *to_json(const ExplainAnswer &e);
json_t *to_json(const MetricsAnswer &m);
// {"error": message}: the answer to a query that cannot be answered.
std::string error_document(const std::string &message);

// From JSON: a document as to_json() writes it. An {"error": ...} document throws InputError
// with its message; a malformed one throws InputError naming `source` (the server, or "status")
// and the JSON path of what is wrong. Members it does not know are ignored, so an older CLI
// reads a newer server's answer.
template <class T>
T from_json(const std::string &text, const std::string &source);

// The status op's document for a viewer with or without every job's detail (the C ABI's
// morpheus_status_json); viewer < 0 sees every job's detail.
std::string status_json(const ClusterModel &m, const Ledger &l, long viewer);

}  // namespace morpheus
