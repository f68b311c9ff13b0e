// Engine: what runs inside slurmctld (and the CLI's offline views): the current config,
// cluster model and ledger, reloaded as a whole and persisted on every change.
#pragma once
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cluster_model.hpp"
#include "config.hpp"
#include "decision_log.hpp"
#include "ledger.hpp"
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
    // Retries every release that failed; returns how many succeeded now. Throws the error of
    // the first that still fails (the rest stay due).
    size_t retry_releases();
    // Nothing to do: every change is written durably (fsync, rename, directory fsync) before
    // reserve()/release() return. Kept for the C ABI.
    void sync();
    size_t reconcile(const std::vector<uint64_t> &running);
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
    std::vector<MovePlan> start_moves(int64_t now);
    bool finish_move(uint64_t job_id, int64_t now);
    bool abandon_move(uint64_t job_id, int64_t now);
    std::vector<MoveUnderWay> moves_under_way() const;
    // A node of the job has migrated its share of the pages: the move finishes (finish_move)
    // once every node of the job has said so; true then. Which nodes said so is kept in
    // memory only: after a restart the nodes move again (migrating to where the pages are is
    // a no-op) and say so again.
    bool node_moved(uint64_t job_id, const std::string &node, int64_t now);
    bool node_has_moved(uint64_t job_id, const std::string &node) const;
    // Up to `max` jobs whose placement a move changed (begun, finished, given up) since the
    // last call, the rest staying for the next: a shim republishes their placement.
    std::vector<uint64_t> take_moved(size_t max);

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
    // leaves both the file and the memory as they were.
    void commit(Ledger next);

    std::string conf_path_, default_state_file_, state_file_;
    Config config_;
    std::shared_ptr<const ClusterModel> model_;
    std::shared_ptr<const ClusterModel> fabric_model_;  // model_ without the live latencies
    // Numbered like model_'s fabric; swapped with it. Reports write its windows (lock()); only
    // settle_heat_map() and reload() write what it publishes, holding reload_mutex_.
    HeatMap heat_;
    bool heat_unapplied_ = false;  // published values not yet in model_
    Ledger ledger_;
    std::vector<std::string> warnings_;
    uint64_t generation_ = 1;
    uint64_t changes_ = 0;
    std::string inventory_stamp_;
    int64_t inventory_checked_ = 0;
    std::vector<uint64_t> newly_affected_;
    std::vector<uint64_t> moved_;
    std::map<uint64_t, std::vector<std::string>> nodes_moved_;  // moves under way: nodes done
    bool unsynced_ = false;
    DecisionLog decisions_;
    PlanBook plans_;
    // mutex_ guards every member. reload_mutex_ serialises reload(), refresh_inventory() and
    // settle_heat_map(), the only writers of config_, model_, state_file_, the inventory stamps
    // and what heat_ publishes: holding it alone they may read those (no one else writes them)
    // while they parse; they write them holding both, so a reader holding either one sees a
    // consistent value.
    mutable std::mutex mutex_;
    std::mutex reload_mutex_;
};

// What identifies a version of a file: mtime, size and inode (an editor's rename gives a new
// inode even within one timestamp tick). "" if it cannot be read.
std::string file_stamp(const std::string &path);

}  // namespace morpheus
