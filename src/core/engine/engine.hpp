// Engine: what runs inside slurmctld (and the CLI's offline views): the current config,
// cluster model and ledger, reloaded as a whole and persisted on every change.
#pragma once
#include <atomic>
#include <condition_variable>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cluster_model.hpp"
#include "config.hpp"
#include "decision_log.hpp"
#include "ledger.hpp"
#include "link_book.hpp"
#include "move.hpp"
#include "placement.hpp"
#include "plan_book.hpp"

namespace morpheus {

// An inventory that removes a blade holding reserved memory, or offers less than is reserved
// on it, is refused (InputError naming the blade, the jobs and the fix): reload() and the
// inventory watcher refuse it, and `morpheus check` reports it before an admin installs it.
void refuse_stranding(const Ledger &ledger, const Inventory &inv, const Fabric &fabric);

// A move of a job's hot memory under way (the ledger holds its target as Use::Incoming): what
// the job's nodes need to migrate the pages.
struct MoveUnderWay {
    uint64_t job_id = 0;
    std::vector<Segment> target;  // Use::Incoming
    uint64_t bytes = 0;  // hot bytes beyond the bound, leaving
    std::vector<std::string> nodes;  // the job's nodes, as the ledger knows them
};

class Engine {
public:
    // Reads config, fabric, inventory and ledger; throws InputError on any problem.
    Engine(const std::string &conf_path, const std::string &default_state_file);
    // Writes what background saves still owe, then stops their thread.
    ~Engine();
    Engine(const Engine &) = delete;
    Engine &operator=(const Engine &) = delete;

    // Validates the new files fully, then swaps them in; on error throws and keeps the old.
    // Takes lock() itself, only for the swap: reading and parsing the files (and building the
    // model's latency table) runs outside it, so a huge or slow file never stalls the
    // callers that plan and reserve. Call it WITHOUT holding lock().
    void reload();
    // Re-reads the inventory when its mtime changed (rate-limited); true if it changed.
    // Like reload(): parses outside lock() and takes it for the swap; call it without lock().
    bool refresh_inventory(int64_t now);

    // The live fabric heat map (issue 29). report_latency: one measurement by `node` of its
    // load-to-use latency to `blade`'s memory, at `now` (the controller's unix seconds). The
    // caller passes the node it authenticated: a node reports only for itself. Throws
    // InputError for an unknown node or blade, a pair the fabric has no path for, or an absurd
    // latency (0, over 10ms), leaving the map as it was. Hold lock() while calling it.
    void report_latency(const std::string &node, const std::string &blade, uint64_t latency_ns, int64_t now);
    // One settle round at `now`: when a published cell changed, swaps in a model with the live
    // latencies and moves the epoch, so pending jobs are decided again; true then. Like
    // refresh_inventory(), it takes lock() itself and builds the new model outside it: call it
    // without lock().
    bool settle_heat_map(int64_t now);
    // Hold lock() while using it.
    const HeatMap &heat_map() const { return heat_; }
    // A node's report as the status service takes it (op report_latency): all of it or none.
    // Refused (InputError, the map unchanged) when it is empty or longer than
    // kMaxLatencyReportEntries, when any entry would be (as report_latency), or when the node's
    // last accepted report is less than HeatMapReportInterval seconds old. Returns the entries
    // taken. Hold lock().
    struct LatencySample {
        std::string blade;
        uint64_t latency_ns = 0;
    };
    size_t report_latencies(const std::string &node, const std::vector<LatencySample> &batch, int64_t now);
    // Seconds until the node's next report is accepted; 0: now. Hold lock().
    int64_t heat_report_due_in(const std::string &node, int64_t now) const;
    // The blades a node probes: its pod's HeatMapProbeBlades nearest by the fabric's latency.
    // Hold lock().
    std::vector<uint32_t> probe_blades(uint32_t node) const;
    // settle_heat_map() when HeatMapSettleInterval seconds passed since the last round (what
    // slurmctld's watcher calls every second). Call it without lock().
    bool settle_heat_map_if_due(int64_t now);
    // Running jobs whose hot memory, placed inside the bound, the live map put beyond it since
    // the last call (each once per time it goes beyond; logged in the decision log as
    // "beyond-bound"): a shim applies HeatMapBeyondBound to them. At most `max`, the rest
    // wait. Hold lock().
    std::vector<uint64_t> take_newly_beyond_bound(size_t max);

    // The accessors below read what reload() swaps: hold lock() while calling them and while
    // using what they return (model_ptr() excepted: the model it shares is immutable).
    const Config &config() const { return config_; }
    const ClusterModel &model() const { return *model_; }
    std::shared_ptr<const ClusterModel> model_ptr() const { return model_; }
    // The same model with the fabric file's latencies only, no live cell: what a job's
    // feasibility is judged on, so a link degraded now makes a job wait, never impossible.
    std::shared_ptr<const ClusterModel> fabric_model_ptr() const { return fabric_model_; }
    const Ledger &ledger() const { return ledger_; }
    const std::string &state_file() const { return state_file_; }
    uint64_t generation() const { return generation_; }
    // Moves whenever anything a placement decision reads may have changed: the ledger, the
    // model (reload, inventory), the plans. A shim keeps what a pending job was told until it
    // moves (decide once per change, not once per scheduling pass).
    uint64_t epoch() const { return changes_ + plans_.changes(); }
    // Something outside the engine that decisions read changed (a running job's end).
    void touch() { ++changes_; }
    const std::vector<std::string> &warnings() const { return warnings_; }

    // Reserves blades for the nodes Slurm allocated; persists before returning.
    Reservation reserve(const Request &req, const std::vector<uint32_t> &nodes);
    // The blades reserve() would choose for those nodes now, reserving nothing; throws
    // InputError when the memory does not fit. Memory planned for other pending jobs is
    // avoided when other memory in the job's bound fits.
    Placement place_on(const Request &req, const std::vector<uint32_t> &nodes) const;
    // Releases the job's memory; a failed save (disk full) throws, and the release stays due:
    // retry_releases() tries it again, so nothing reserved outlives its job.
    bool release(uint64_t job_id);
    // A requeued job: a checkpointing one keeps its region and window (`waiting`, told to
    // restore at its next start) and frees the rest: 2; others are released: 1, or 0 (none).
    int release_for_requeue(uint64_t job_id);
    // Jobs whose checkpoint region has a blade failed now (region_health).
    std::vector<uint64_t> jobs_checkpoint_degraded() const;
    // Retries every release that failed; returns how many succeeded now. Throws the error of
    // the first that still fails (the rest stay due).
    size_t retry_releases();
    // Background saves (what slurmctld asks for, issue 26): reserve(), release() and every
    // other ledger change take effect in memory and return; a saver thread writes the ledger
    // durably (fsync, rename, directory fsync) right after, one save for all the changes made
    // while the last was under way. The scheduler then never waits for the disk (two fsyncs
    // per job start and per job end, milliseconds each, were most of a scheduling cycle). A
    // crash can lose the changes of the last save's duration: recovery reconciles the ledger
    // with the jobs Slurm recovered (releases what no running job holds, reserves again for a
    // running job without a reservation). A save that fails is retried every second;
    // sync() reports it. Off (the default, the CLI's tools): every change is durable before
    // it returns, and a failed save throws and changes nothing. Hold lock() while calling it.
    void set_background_saves(bool on);
    bool background_saves() const { return background_saves_; }
    // Without background saves, nothing to do. With them: throws the error of the newest
    // save if it failed (it is being retried); waits for nothing. Hold lock().
    void sync();
    // With background saves: waits (at most `seconds`) until every change made so far is on
    // disk; true then. Call it WITHOUT lock().
    bool flush(int seconds);
    uint64_t save_failures() const { return save_failures_; }
    // After a restart: releases every reservation whose job is not running, but keeps the
    // checkpoint regions of requeued jobs that are pending. The number released.
    size_t reconcile(const std::vector<uint64_t> &running, const std::vector<uint64_t> &pending);
    std::vector<uint64_t> jobs_on_failed_blades() const;
    // Jobs that came to hold memory on a failed blade since the last call: each is handed to
    // the blade-failure policy (and logged) once.
    std::vector<uint64_t> take_newly_affected();

    // Hot memory that moves closer (issue 27, move.hpp). start_moves: the moves plan_moves()
    // picks now (at most the config's MaxMoves under way), their targets reserved beside the
    // old regions in one durable save, each logged as the job's decision ("moving"); the
    // epoch moves when any began. finish_move: the target becomes the job's hot memory and the
    // old region is freed (persisted); abandon_move: the target is freed. Both return false
    // when the job has no move under way. Hold lock() while calling them.
    // start_moves also gives up the moves under way for MoveTimeout or longer (after the
    // new ones are planned, so a job given up is tried again on a later call, not at once).
    std::vector<MovePlan> start_moves(int64_t now);
    bool finish_move(uint64_t job_id, int64_t now);
    bool abandon_move(uint64_t job_id, int64_t now, const std::string &reason = "");
    std::vector<MoveUnderWay> moves_under_way() const;
    // A node of the job has migrated its share of the pages: the move finishes (finish_move)
    // once every node of a moving pod has said so (a partial move leaves other pods' nodes
    // out); true then. Which nodes said so is kept in
    // memory only: after a restart the nodes move again (migrating to where the pages are is
    // a no-op) and say so again.
    bool node_moved(uint64_t job_id, const std::string &node, int64_t now);
    bool node_has_moved(uint64_t job_id, const std::string &node) const;
    // The node serves a pod whose share of the job's hot memory is moving.
    bool node_takes_part(const Reservation &r, const std::string &node) const;
    // Up to `max` jobs whose placement a move changed (begun, finished, given up) since the
    // last call, the rest staying for the next: a shim republishes their placement.
    std::vector<uint64_t> take_moved(size_t max);

    // Every running job's booked checkpoint flush window on the fabric's links (issue 28):
    // kept with the ledger (rebuilt from it on load and reload, changed with each reserve and
    // release). Hold lock() while using it.
    const LinkBook &links() const { return links_; }

    DecisionLog &decisions() { return decisions_; }
    // Blade memory planned for the highest-priority pending jobs (PlanDepth).
    PlanBook &plans() { return plans_; }
    const DecisionLog &decisions() const { return decisions_; }

    // Guards everything the engine holds (const: the C ABI's read-only calls lock too).
    std::mutex &lock() const { return mutex_; }

private:
    struct Loaded {
        Config config;
        std::shared_ptr<const ClusterModel> model;
        std::vector<std::string> warnings;
    };
    static Loaded load_all(const std::string &conf_path);
    void mark_affected();
    void save();
    // Saves `next` and only then makes it the ledger: a failed save (disk full) throws and
    // leaves both the file and the memory as they were. With background saves: makes it the
    // ledger and wakes the saver.
    void commit(Ledger next);
    // Writes `l` to `path` durably now (the caller holds mutex_), as the newest change.
    void write_now(const Ledger &l, const std::string &path, const Fabric &fabric);
    void saver_loop();

    std::string conf_path_, default_state_file_, state_file_;
    Config config_;
    std::shared_ptr<const ClusterModel> model_;
    std::shared_ptr<const ClusterModel> fabric_model_;  // model_ without the live latencies
    // Numbered like model_'s fabric; swapped with it. Reports write its windows (lock()); only
    // settle_heat_map() and reload() write what it publishes, holding reload_mutex_.
    HeatMap heat_;
    bool heat_unapplied_ = false;  // published values not yet in model_
    int64_t heat_settled_at_ = 0;  // settle_heat_map_if_due(): the last round (reload_mutex_)
    std::map<std::string, int64_t> heat_reported_at_;  // node -> its last accepted report
    std::vector<uint64_t> beyond_bound_;  // running jobs flagged beyond their bound, sorted
    std::vector<uint64_t> newly_beyond_;  // ... not yet taken by the shim
    // After the live latencies changed: flags the jobs now beyond their bound (and logs it),
    // unflags those back inside. Holds mutex_.
    void note_beyond_bound(int64_t now);
    Ledger ledger_;
    std::vector<std::string> warnings_;
    uint64_t generation_ = 1;
    uint64_t changes_ = 0;
    std::string inventory_stamp_;
    int64_t inventory_checked_ = 0;
    std::vector<uint64_t> newly_affected_;
    std::vector<uint64_t> moved_;
    void give_up_stale_moves(int64_t now);
    uint64_t no_moves_at_epoch_ = UINT64_MAX;  // start_moves found none then
    std::map<uint64_t, int64_t> move_began_;  // moves under way: when (or when this engine first saw it)
    std::map<uint64_t, std::vector<std::string>> nodes_moved_;  // moves under way: nodes done
    bool unsynced_ = false;
    DecisionLog decisions_;
    PlanBook plans_;
    LinkBook links_;
    // mutex_ guards every member. reload_mutex_ serialises reload(), refresh_inventory() and
    // settle_heat_map(), the only writers of config_, model_, state_file_, the inventory stamps
    // and what heat_ publishes: holding it alone they may read those (no one else writes them)
    // while they parse; they write them holding both, so a reader holding either one sees a
    // consistent value.
    mutable std::mutex mutex_;
    std::mutex reload_mutex_;
    // Background saves. change_seq_ counts ledger changes in memory (mutex_); written_seq_ is
    // the newest of them on disk, written holding file_mutex_ (taken after mutex_, never
    // before), which serialises every write of the file so an older snapshot never
    // overwrites a newer one.
    bool background_saves_ = false;
    bool saver_stop_ = false;
    int saver_hurry_ = 0;  // callers of flush() waiting: save without the spacing
    bool saver_idle_ = false;  // waiting for a change: only then does a change wake it
    uint64_t change_seq_ = 0;
    std::atomic<uint64_t> written_seq_{0};
    uint64_t save_failures_ = 0;
    std::string save_error_;  // the newest save's error, "" when it succeeded
    // Background saves: releases in memory not yet on disk, job -> (change_seq_, reservation).
    std::map<uint64_t, std::pair<uint64_t, Reservation>> unsaved_releases_;
    std::mutex file_mutex_;
    std::condition_variable saver_cv_, saved_cv_;
    std::thread saver_;
};

// What identifies a version of a file: mtime, size and inode (an editor's rename gives a new
// inode even within one timestamp tick). "" if it cannot be read.
std::string file_stamp(const std::string &path);

}  // namespace morpheus
