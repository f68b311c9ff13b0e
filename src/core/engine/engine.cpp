// Engine: load, reload (validate-then-swap), reserve/release with a durable ledger.
#include "engine.hpp"

#include "checkpoint.hpp"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <unordered_set>

#include "input_error.hpp"
#include "lifecycle.hpp"
#include "units.hpp"

namespace morpheus {

std::string file_stamp(const std::string &path) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return "";
    return std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + ":" +
           std::to_string(st.st_size) + ":" + std::to_string(st.st_ino);
}

Engine::Loaded Engine::load_all(const std::string &conf_path) {
    Loaded l;
    l.config = read_config(conf_path);
    Fabric fabric = read_fabric(l.config.fabric_file);
    Inventory inventory = read_inventory(l.config.inventory_file, fabric);
    l.warnings = inventory.warnings;
    l.model = std::make_shared<const ClusterModel>(std::move(fabric), std::move(inventory), l.config.placement);
    return l;
}

namespace {

// The fabric's model with the heat map's published latencies; itself when none is published.
std::shared_ptr<const ClusterModel> with_live(const std::shared_ptr<const ClusterModel> &fabric_model,
                                              const std::vector<uint32_t> &live) {
    if (std::all_of(live.begin(), live.end(), [](uint32_t v) { return v == 0; })) return fabric_model;
    return std::make_shared<const ClusterModel>(fabric_model->with_live_latency(live));
}

// Sets `affected` on the reservations holding memory on a failed blade; returns the jobs
// that became affected, and whether anything changed.
bool flag_affected(Ledger &ledger, const Inventory &inv, std::vector<uint64_t> *newly) {
    bool changed = false;
    for (const auto &[id, r] : ledger.reservations()) {
        bool affected = false;
        // A checkpoint region on a failed blade hurts no running process: the job keeps
        // running and is told at its next start (region_health, MORPHEUS_CKPT_RESTORE).
        for (const Segment &s : r.segments)
            if (s.use != Use::Checkpoint && inv.blades[s.blade].state == BladeState::Failed) affected = true;
        if (affected == r.affected) continue;
        if (affected) newly->push_back(id);
        ledger.find_mutable(id)->affected = affected;
        changed = true;
    }
    return changed;
}

std::string job_list(const std::vector<uint64_t> &ids) {
    std::string s;
    for (uint64_t id : ids) s += (s.empty() ? "" : ",") + std::to_string(id);
    return s;
}

}  // namespace

// An inventory that removes a blade holding reserved memory, or offers less than is reserved
// on it, is refused: the memory is in use by running jobs. A failed blade may shrink (its
// holders are handled by the blade-failure policy).
void refuse_stranding(const Ledger &ledger, const Inventory &inv, const Fabric &fabric) {
    for (uint32_t b = 0; b < inv.blades.size() && b < ledger.blade_count(); ++b) {
        const BladeStock &stock = inv.blades[b];
        for (size_t t = 0; t < kTierCount; ++t) {
            uint64_t held = ledger.reserved(b, static_cast<Tier>(t));
            if (held == 0) continue;
            std::string ids = job_list(ledger.holders(b));
            std::string fix =
                "drain the blade and wait for jobs " + ids + " to end, or keep the blade in the inventory";
            if (stock.state == BladeState::Absent)
                throw InputError(inv.source, "",
                                 "blade \"" + fabric.blades[b].name + "\" is missing, but jobs " + ids + " hold " +
                                     std::to_string(held) + " bytes of its " + tier_name(static_cast<Tier>(t)),
                                 fix);
            if (stock.state != BladeState::Failed && stock.capacity[t] < held)
                throw InputError(inv.source, "",
                                 "blade \"" + fabric.blades[b].name + "\" offers " + std::to_string(stock.capacity[t]) +
                                     " bytes of " + tier_name(static_cast<Tier>(t)) + ", but jobs " + ids + " hold " +
                                     std::to_string(held),
                                 fix + " with at least that capacity (or mark it failed)");
        }
    }
}

namespace {
constexpr int kSaverNice = 10;  // the ledger saver's nice value, relative to slurmctld's 0
// The least time from one save's start to the next's while changes keep coming (issue 26: at
// 60 starts and ends a second, a save per change took a seventh of the controller's CPU in
// fsync and file creation). A change after a quiet spell is saved at once; under a stream the
// file lags memory by this much more, far less than slurmctld's own job state (saved every few
// seconds) lags its memory, and restart reconciles the two.
constexpr std::chrono::milliseconds kSaveSpacing{100};

// slurmctld 26.05 ends on SIGTERM with exit() and no plugin fini: the engines still open save
// what they owe from an exit handler, so the newest starts reach the file. Engines join the set
// when built and leave it first thing when destroyed, never holding their own mutex_: the
// handler takes open_engines_mutex, then each engine's mutex_ (flush), and only in that order.
std::mutex open_engines_mutex;
std::unordered_set<Engine *> *open_engines = new std::unordered_set<Engine *>;  // never freed: exit handlers use it
void flush_open_engines_at_exit() {
    std::lock_guard<std::mutex> g(open_engines_mutex);
    for (Engine *e : *open_engines) e->flush(5);
}
}  // namespace

Engine::Engine(const std::string &conf_path, const std::string &default_state_file)
    : conf_path_(conf_path), default_state_file_(default_state_file) {
    Loaded l = load_all(conf_path);
    config_ = std::move(l.config);
    model_ = std::move(l.model);
    fabric_model_ = model_;
    warnings_ = std::move(l.warnings);
    state_file_ = config_.state_file.empty() ? default_state_file_ : config_.state_file;
    if (state_file_.empty())
        throw InputError(conf_path, "", "no StateFile set and no default given",
                         "add StateFile=/var/spool/slurmctld/morpheus_ledger.json");
    ledger_ = Ledger::load(state_file_, model_->fabric());
    links_ = link_book_of(*model_, ledger_);
    inventory_stamp_ = file_stamp(config_.inventory_file);
    heat_ = HeatMap(model_->fabric(), model_->latency(), config_.heat_map);
    mark_affected();
    static const int registered = std::atexit(flush_open_engines_at_exit);
    (void)registered;
    std::lock_guard<std::mutex> g(open_engines_mutex);
    open_engines->insert(this);
}

// Every change below is built on a copy and saved before it replaces the ledger in memory:
// a failed save (disk full) leaves both the file and the memory as they were.
void Engine::reload() {
    std::lock_guard<std::mutex> serial(reload_mutex_);
    Loaded l = load_all(conf_path_);  // unlocked: throws before anything changes
    std::string state = l.config.state_file.empty() ? default_state_file_ : l.config.state_file;
    std::string stamp = file_stamp(l.config.inventory_file);
    // The heat map's measurements survive a reload that numbers pods, nodes and blades as
    // before and keeps the windows' shape: the new model takes the published latencies at once
    // rather than the fabric's until the next settle rounds. Read unlocked: only the holders of
    // reload_mutex_ write the layout and the published values.
    const HeatMapSettings &heat_settings = l.config.heat_map;
    const bool keep_heat = heat_.same_layout(l.model->fabric()) && heat_.settings().samples == heat_settings.samples &&
                           heat_.settings().window_s == heat_settings.window_s;
    HeatMap fresh_heat;
    std::shared_ptr<const ClusterModel> fabric_model = l.model;
    if (keep_heat)
        l.model = with_live(fabric_model, heat_.published_values());
    else
        fresh_heat = HeatMap(l.model->fabric(), l.model->latency(), heat_settings);
    std::lock_guard<std::mutex> g(mutex_);
    Ledger next = ledger_.rebind(model_->fabric(), l.model->fabric());  // refuses to orphan a reservation
    refuse_stranding(next, l.model->inventory(), l.model->fabric());
    std::vector<uint64_t> newly;
    bool changed = flag_affected(next, l.model->inventory(), &newly);
    if (changed || state != state_file_) {
        write_now(next, state, l.model->fabric());
    }
    if (keep_heat)
        heat_.rebase(l.model->latency(), heat_settings);
    else
        heat_ = std::move(fresh_heat);
    config_ = std::move(l.config);
    model_ = std::move(l.model);
    fabric_model_ = std::move(fabric_model);
    ledger_ = std::move(next);
    links_ = link_book_of(*model_, ledger_);  // the links may be others now
    warnings_ = std::move(l.warnings);
    state_file_ = state;
    inventory_stamp_ = stamp;
    ++generation_;
    ++changes_;
    plans_ = PlanBook(plans_.changes() + 1);  // blade numbers may have changed: backfill plans again
    newly_affected_.insert(newly_affected_.end(), newly.begin(), newly.end());
}

bool Engine::refresh_inventory(int64_t now) {
    std::lock_guard<std::mutex> serial(reload_mutex_);
    if (now - inventory_checked_ < static_cast<int64_t>(config_.inventory_check_interval_s)) return false;
    inventory_checked_ = now;
    std::string stamp = file_stamp(config_.inventory_file);
    if (stamp == inventory_stamp_) return false;
    // Unlocked, like reload(): the models and what the heat map publishes cannot change while
    // reload_mutex_ is held.
    Inventory inv = read_inventory(config_.inventory_file, model_->fabric());  // throws: keep old
    auto fabric_model = std::make_shared<const ClusterModel>(fabric_model_->with_inventory(std::move(inv)));
    auto model = with_live(fabric_model, heat_.published_values());
    std::lock_guard<std::mutex> g(mutex_);
    refuse_stranding(ledger_, model->inventory(), model->fabric());
    Ledger next = ledger_;
    std::vector<uint64_t> newly;
    if (flag_affected(next, model->inventory(), &newly)) write_now(next, state_file_, model->fabric());
    inventory_stamp_ = stamp;
    warnings_ = model->inventory().warnings;
    model_ = std::move(model);
    fabric_model_ = std::move(fabric_model);
    ledger_ = std::move(next);
    ++changes_;
    newly_affected_.insert(newly_affected_.end(), newly.begin(), newly.end());
    return true;
}

void Engine::report_latency(const std::string &node, const std::string &blade, uint64_t latency_ns, int64_t now) {
    const Fabric &f = model_->fabric();
    // The names come off the network: odd bytes never reach a message (nor slurmctld's log).
    auto shown = [](const std::string &name) {
        return bad_name_byte(name) < 0 && name.size() <= 128 ? "\"" + name + "\"" : std::string("(malformed name)");
    };
    const std::string where = "latency report of node " + shown(node) + " for blade " + shown(blade);
    int n = bad_name_byte(node) < 0 ? f.node_index(node) : -1;
    if (n < 0)
        throw InputError("", where, "node " + shown(node) + " is not in the fabric",
                         "report from a node that " + f.source + " lists");
    int b = bad_name_byte(blade) < 0 ? f.blade_index(blade) : -1;
    if (b < 0)
        throw InputError("", where, "blade " + shown(blade) + " is not in the fabric",
                         "report only blades that " + f.source + " lists");
    HeatReport r = heat_.report(static_cast<uint32_t>(n), static_cast<uint32_t>(b), latency_ns, now);
    std::string fix;
    switch (r) {
    case HeatReport::Accepted: return;
    case HeatReport::NoPath: fix = "add the path to the fabric file, or stop probing this blade from this node"; break;
    case HeatReport::BadLatency: fix = "report a load-to-use latency from 1ns to 10ms"; break;
    case HeatReport::TooOld: fix = "report measurements when they are taken"; break;
    default: fix = "report with the controller's time in unix seconds"; break;
    }
    throw InputError("", where, std::string(heat_report_problem(r)) + " (" + std::to_string(latency_ns) + "ns)", fix);
}

// The new model is built outside lock(), like refresh_inventory()'s: at 12,500 nodes a model
// copy takes milliseconds that planning and reserving should not wait for. It is built from
// the fabric's model, so a cell published as static again gets the fabric's value back.
bool Engine::settle_heat_map(int64_t now) {
    std::lock_guard<std::mutex> serial(reload_mutex_);
    std::vector<uint32_t> live;
    std::shared_ptr<const ClusterModel> base;
    {
        std::lock_guard<std::mutex> g(mutex_);
        // A round whose model could not be built (out of memory) is applied by the next one.
        if (!heat_.settle(now) && !heat_unapplied_) return false;
        heat_unapplied_ = true;
        live = heat_.published_values();
        base = fabric_model_;
    }
    auto model = with_live(base, live);
    std::lock_guard<std::mutex> g(mutex_);
    model_ = std::move(model);
    heat_unapplied_ = false;
    ++changes_;
    note_beyond_bound(now);
    return true;
}

bool Engine::settle_heat_map_if_due(int64_t now) {
    {
        std::lock_guard<std::mutex> serial(reload_mutex_);
        if (heat_settled_at_ && now - heat_settled_at_ < static_cast<int64_t>(config_.heat_settle_interval_s) &&
            now >= heat_settled_at_)
            return false;
        heat_settled_at_ = now;
    }
    return settle_heat_map(now);
}

int64_t Engine::heat_report_due_in(const std::string &node, int64_t now) const {
    auto it = heat_reported_at_.find(node);
    if (it == heat_reported_at_.end() || now < it->second) return 0;
    return std::max<int64_t>(0, it->second + config_.heat_report_interval_s - now);
}

size_t Engine::report_latencies(const std::string &node, const std::vector<LatencySample> &batch, int64_t now) {
    const Fabric &f = model_->fabric();
    const std::string where = "latency report of node " + node;  // checked by the caller: a fabric node
    if (batch.empty() || batch.size() > kMaxLatencyReportEntries)
        throw InputError("", where, std::to_string(batch.size()) + " entries",
                         "report 1 to " + std::to_string(kMaxLatencyReportEntries) + " {blade, latency_ns} entries");
    const int n = f.node_index(node);
    if (n < 0) throw InputError("", where, "the node is not in the fabric", "report from a node the fabric lists");
    if (int64_t wait = heat_report_due_in(node, now))
        throw InputError(
            "", where,
            "too soon: one report per " + std::to_string(config_.heat_report_interval_s) + "s (HeatMapReportInterval)",
            "report again in " + std::to_string(wait) + "s");
    // Checked whole first: a batch with one bad entry changes nothing.
    for (const LatencySample &s : batch) {
        const int b = bad_name_byte(s.blade) < 0 && s.blade.size() <= 128 ? f.blade_index(s.blade) : -1;
        HeatReport r = b < 0 ? HeatReport::UnknownBlade
                             : heat_.check(static_cast<uint32_t>(n), static_cast<uint32_t>(b), s.latency_ns, now);
        if (r != HeatReport::Accepted) report_latency(node, s.blade, s.latency_ns, now);  // throws, naming it
    }
    for (const LatencySample &s : batch) report_latency(node, s.blade, s.latency_ns, now);
    heat_reported_at_[node] = now;
    return batch.size();
}

std::vector<uint32_t> Engine::probe_blades(uint32_t node) const {
    const Fabric &f = model_->fabric();
    std::vector<uint32_t> out;
    if (node >= f.node_pod.size()) return out;
    const uint32_t pod = f.node_pod[node];
    // Ordered by the fabric's latency, not the live one: a slow blade stays probed, so the
    // map sees it recover.
    const LatencyTable &t = fabric_model_->latency();
    for (uint32_t b : t.blades_by_latency(pod)) {
        if (out.size() >= config_.heat_probe_blades) break;
        if (t.static_latency(pod, b) != kUnreachable) out.push_back(b);
    }
    return out;
}

std::vector<uint64_t> Engine::take_newly_beyond_bound(size_t max) {
    const size_t n = std::min(max, newly_beyond_.size());
    std::vector<uint64_t> out(newly_beyond_.begin(), newly_beyond_.begin() + static_cast<std::ptrdiff_t>(n));
    newly_beyond_.erase(newly_beyond_.begin(), newly_beyond_.begin() + static_cast<std::ptrdiff_t>(n));
    return out;
}

void Engine::mark_affected() {
    Ledger next = ledger_;
    std::vector<uint64_t> newly;
    if (!flag_affected(next, model_->inventory(), &newly)) return;
    write_now(next, state_file_, model_->fabric());
    ledger_ = std::move(next);
    ++changes_;
    newly_affected_.insert(newly_affected_.end(), newly.begin(), newly.end());
}

void Engine::save() { write_now(ledger_, state_file_, model_->fabric()); }

void Engine::write_now(const Ledger &l, const std::string &path, const Fabric &fabric) {
    std::lock_guard<std::mutex> f(file_mutex_);
    LedgerLock lock(path, LedgerLock::Writer::Engine);
    l.save(path, fabric);
    written_seq_ = ++change_seq_;
}

void Engine::commit(Ledger next) {
    if (background_saves_) {
        ledger_ = std::move(next);
        ++change_seq_;
        if (saver_idle_) saver_cv_.notify_one();  // a gathering or busy saver takes it anyway
    } else {
        std::swap(ledger_, next);
        try {
            save();
        } catch (...) {
            std::swap(ledger_, next);  // not on disk: not in memory either
            throw;
        }
    }
    // A window goes with its reservation's checkpoint (released, reconciled away, replaced).
    std::vector<uint64_t> gone;
    for (const auto &[id, b] : links_.bookings()) {
        const Reservation *r = ledger_.find(id);
        if (!r || !r->checkpoint.period_s) gone.push_back(id);
    }
    for (uint64_t id : gone) links_.release(id);
    ++changes_;
}

Engine::~Engine() {
    {
        std::lock_guard<std::mutex> g(open_engines_mutex);
        open_engines->erase(this);
    }
    {
        std::lock_guard<std::mutex> g(mutex_);
        saver_stop_ = true;
    }
    saver_cv_.notify_all();
    if (saver_.joinable()) saver_.join();  // it writes what is still owed first
}

void Engine::set_background_saves(bool on) {
    background_saves_ = on;
    if (on && !saver_.joinable()) saver_ = std::thread(&Engine::saver_loop, this);
    if (!on && change_seq_ > written_seq_) save();  // synchronous from here on: owe nothing
}

// One save of the newest ledger at a time, outside mutex_: reserve() and release() go on
// while the disk works, and what they change meanwhile goes into the next save.
void Engine::saver_loop() {
    // Below the scheduler (issue 26): woken at every start and end, a saver of equal weight
    // preempted the thread that woke it (slurmctld's scheduler: perf showed its switches at
    // the wake-up and the saver's fsyncs taking a quarter of the controller's CPU mid-pass).
    // At nice 10 it runs when the CPU has a moment, which on an idle controller is at once.
    // Linux: a thread's own nice value (setpriority on its thread id); where that fails the
    // saver keeps the process's priority.
    (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), kSaverNice);
    std::unique_lock<std::mutex> g(mutex_);
    std::chrono::steady_clock::time_point last_start{};
    for (;;) {
        saver_idle_ = true;
        saver_cv_.wait(g, [&] { return saver_stop_ || change_seq_ > written_seq_; });
        saver_idle_ = false;
        if (change_seq_ <= written_seq_) return;  // stopping, nothing owed
        // mutex_ is free while it waits: reserve() and release() go on and join this save.
        saver_cv_.wait_until(g, last_start + kSaveSpacing, [&] { return saver_stop_ || saver_hurry_ > 0; });
        last_start = std::chrono::steady_clock::now();
        Ledger snapshot = ledger_;
        const uint64_t seq = change_seq_;
        const std::string path = state_file_;
        const std::shared_ptr<const ClusterModel> model = model_;  // the fabric the ledger is numbered by
        g.unlock();
        std::string error;
        {
            std::lock_guard<std::mutex> f(file_mutex_);
            if (seq > written_seq_) {  // else a synchronous write (reload) saved newer already
                try {
                    LedgerLock lock(path, LedgerLock::Writer::Engine);
                    snapshot.save(path, model->fabric());
                    written_seq_ = seq;
                } catch (const std::exception &e) {
                    error = e.what();
                }
            }
        }
        g.lock();
        save_error_ = error;
        // Releases on disk now are done; while saves fail, the views say which are not.
        for (auto it = unsaved_releases_.begin(); it != unsaved_releases_.end();) {
            if (error.empty() && it->second.first <= seq) {
                decisions_.release_done(it->first);
                it = unsaved_releases_.erase(it);
                continue;
            }
            if (!error.empty()) decisions_.release_unsaved(it->first, error, it->second.second);
            ++it;
        }
        saved_cv_.notify_all();
        if (error.empty()) continue;
        ++save_failures_;
        if (saver_stop_) return;  // closing: the file keeps the last good save
        saver_cv_.wait_for(g, std::chrono::seconds(1), [&] { return saver_stop_; });
    }
}

void Engine::sync() {
    if (background_saves_ && !save_error_.empty() && change_seq_ > written_seq_)
        throw InputError(state_file_, "", "ledger not saved, retried every second: " + save_error_,
                         "free space on the state file's file system");
}

bool Engine::flush(int seconds) {
    std::unique_lock<std::mutex> g(mutex_);
    ++saver_hurry_;  // no spacing: the caller waits
    saver_cv_.notify_all();
    const bool saved =
        saved_cv_.wait_for(g, std::chrono::seconds(seconds), [&] { return change_seq_ <= written_seq_; });
    --saver_hurry_;
    return saved;
}

Placement Engine::place_on(const Request &req, const std::vector<uint32_t> &nodes) const {
    const ClusterModel &m = *model_;
    std::vector<PodShare> shares = pod_shares(m, nodes);
    // Blades are chosen against the ledger without this job's old reservation, if any.
    const Ledger *base = &ledger_;
    Ledger without;
    if (ledger_.find(req.job_id)) {
        without = ledger_;
        without.release(req.job_id);
        base = &without;
    }
    Placement p;
    std::string why;
    // Memory planned for other pending jobs (PlanDepth) is left to them when the job's bound
    // lets it take other memory: a pinned job that could use the spine pool must not sit on
    // the blade a higher-priority job on its pod waits for (issue 25). Only when nothing else
    // fits does it fall back to that memory (the PlanDepth check then judges the delay).
    if (plans_.size() > 0) {
        Ledger around = *base;
        for (uint64_t id : plans_.jobs()) {
            const PendingPlan *plan = plans_.find(id);
            if (!plan || id == req.job_id) continue;
            Reservation held;
            held.job_id = id;
            for (Segment seg : plan->segments) {
                seg.bytes = std::min(seg.bytes, around.free(seg.blade, seg.tier, m.inventory()));
                if (seg.bytes) held.segments.push_back(seg);
            }
            if (!around.find(id)) around.reserve(held, m.inventory(), nullptr);
        }
        if (assign_blades(m, around, req, shares, p, &why)) return p;
        p = Placement{};
        why.clear();
    }
    if (!assign_blades(m, *base, req, shares, p, &why)) throw InputError("", "job " + std::to_string(req.job_id), why);
    return p;
}

Reservation Engine::reserve(const Request &req, const std::vector<uint32_t> &nodes) {
    const ClusterModel &m = *model_;
    Placement p = place_on(req, nodes);
    std::string why;
    // A job that holds memory already (a resize replaces its reservation) keeps its start, so
    // `morpheus jobs` counts its time from when it began, not from the shrink.
    const Reservation *held = ledger_.find(req.job_id);
    int64_t since = held ? held->since : static_cast<int64_t>(std::time(nullptr));
    Reservation r = reservation_of(m, req.job_id, req.uid, since, p, nodes);
    Ledger next = ledger_;
    if (!next.reserve(r, m.inventory(), &why)) throw InputError("", "job " + std::to_string(req.job_id), why);
    if (req.wants_checkpoint()) {
        // The region the job holds already (a requeued job keeps it), and its window's phase,
        // are kept when they still fit its nodes; its own window is not in the way meanwhile.
        // A requeued job (its region kept, `waiting`) keeps the copies still intact and is
        // told to restore from them; with none left it gets a fresh region and is told so.
        std::vector<Segment> kept;
        int64_t phase = 0;
        bool restarting = false, restorable = false;
        if (held && held->checkpoint.period_s) {
            restarting = held->checkpoint.waiting;
            if (restarting) {
                kept = region_health(m, *held).intact_stripes;
                restorable = !kept.empty();
            } else {
                for (const Segment &s : held->segments)
                    if (s.use == Use::Checkpoint) kept.push_back(s);
            }
            phase = held->checkpoint.phase_s;
        }
        const LinkBook::Booking *old = links_.find(req.job_id);
        std::optional<LinkBook::Booking> restore;
        if (old) restore = *old;
        links_.release(req.job_id);
        CheckpointGrant grant;
        if (!plan_checkpoint(m, next, links_, req, r.pods, grant, &why, kept.empty() ? nullptr : &kept, phase)) {
            if (restore) links_.book(req.job_id, restore->loads, restore->window);
            throw InputError("", "job " + std::to_string(req.job_id), "checkpoint: " + why);
        }
        r.segments.insert(r.segments.end(), grant.stripes.begin(), grant.stripes.end());
        r.checkpoint = grant.hold;
        if (held && held->checkpoint.period_s) {
            r.checkpoint.restarts = held->checkpoint.restarts + (restarting ? 1 : 0);
            r.checkpoint.restore = restarting ? restorable : held->checkpoint.restore;
            r.checkpoint.lost = restarting ? !restorable : held->checkpoint.lost;
        }
        if (!next.reserve(r, m.inventory(), &why)) {
            if (restore) links_.book(req.job_id, restore->loads, restore->window);
            throw InputError("", "job " + std::to_string(req.job_id), why);
        }
        try {
            commit(std::move(next));
        } catch (...) {
            if (restore) links_.book(req.job_id, restore->loads, restore->window);
            throw;
        }
        book_reservation(m, links_, r);
    } else {
        commit(std::move(next));
        links_.release(req.job_id);
    }
    decisions_.release_done(req.job_id);  // begun again (requeue): an old due release is moot
    unsaved_releases_.erase(req.job_id);
    return r;
}

int Engine::release_for_requeue(uint64_t job_id) {
    const Reservation *held = ledger_.find(job_id);
    if (!held || !held->checkpoint.period_s) return release(job_id) ? 1 : 0;
    // The region and the window stay (the phase is the job's again when it restarts); the
    // nodes and the rest of the memory go, for others to use while the job waits.
    Reservation kept = *held;
    kept.segments.clear();
    for (const Segment &seg : held->segments)
        if (seg.use == Use::Checkpoint) kept.segments.push_back(seg);
    kept.nodes.clear();
    kept.affected = false;
    kept.checkpoint.waiting = true;
    Ledger next = ledger_;
    std::string why;
    if (!next.reserve(kept, model_->inventory(), &why))
        throw InputError("", "job " + std::to_string(job_id), "keeping the checkpoint region: " + why);
    commit(std::move(next));
    decisions_.release_done(job_id);
    return 2;
}

std::vector<uint64_t> Engine::jobs_checkpoint_degraded() const {
    std::vector<uint64_t> out;
    for (const auto &[id, r] : ledger_.reservations()) {
        if (!r.checkpoint.period_s) continue;
        RegionHealth h = region_health(*model_, r);
        if (!h.failed_blades.empty()) out.push_back(id);
    }
    return out;
}

bool Engine::release(uint64_t job_id) {
    Ledger next = ledger_;
    const Reservation *held = ledger_.find(job_id);
    if (!held || !next.release(job_id)) {
        decisions_.release_done(job_id);
        return false;
    }
    const Reservation was = *held;
    try {
        commit(std::move(next));
    } catch (const std::exception &e) {
        decisions_.release_failed(job_id, e.what());
        throw;
    }
    links_.release(job_id);
    decisions_.release_done(job_id);
    if (background_saves_) {
        unsaved_releases_[job_id] = {change_seq_, was};
        if (!save_error_.empty()) decisions_.release_unsaved(job_id, save_error_, was);  // the disk is failing
    }
    return true;
}

size_t Engine::retry_releases() {
    size_t released = 0;
    std::vector<uint64_t> due;
    for (const auto &[id, error] : decisions_.releases_due()) due.push_back(id);
    for (uint64_t id : due)
        if (!unsaved_releases_.count(id) && release(id)) ++released;  // those: the saver retries
    return released;
}

size_t Engine::reconcile(const std::vector<uint64_t> &running, const std::vector<uint64_t> &pending) {
    // Sets: at startup the lists are slurmctld's whole job table.
    const std::unordered_set<uint64_t> running_set(running.begin(), running.end());
    const std::unordered_set<uint64_t> pending_set(pending.begin(), pending.end());
    // A pending job holds nothing, unless it is a requeued job's checkpoint region kept for
    // its restart: Slurm recovers jobs it relaunched or requeued after a SIGKILL as pending,
    // and their memory must go back (test_n found four such jobs held for good).
    std::vector<uint64_t> gone;
    for (const auto &[id, r] : ledger_.reservations())
        if (!running_set.count(id) && !(r.checkpoint.waiting && pending_set.count(id))) gone.push_back(id);
    if (gone.empty()) return 0;
    Ledger next = ledger_;
    for (uint64_t id : gone) next.release(id);
    commit(std::move(next));
    for (uint64_t id : gone) decisions_.release_done(id);
    return gone.size();
}

namespace {

// "600G on blade1@200ns,blade2@220ns": where a move's bytes go.
std::string move_words(const Fabric &f, const std::vector<Segment> &target) {
    uint64_t bytes = 0;
    std::string where;
    for (const Segment &s : target) {
        bytes += s.bytes;
        where += (where.empty() ? "" : ",") + f.blades[s.blade].name + "@" + std::to_string(s.latency_ns) + "ns";
    }
    return format_size(bytes) + " on " + where;
}

// The job's decision as the log shows it, changed by a move (kept when there was one).
void log_move(DecisionLog &log, const Reservation &r, int64_t now, const std::string &verdict,
              const std::string &reason) {
    const DecisionRecord *old = log.find(r.job_id);
    DecisionRecord d = old ? *old : DecisionRecord{};
    d.job_id = r.job_id;
    d.uid = r.uid;
    d.when = now;
    d.verdict = verdict;
    d.reason = reason;
    d.explanation +=
        (d.explanation.empty() || d.explanation.back() == '\n' ? "" : "\n") + verdict + ": " + reason + "\n";
    log.record(std::move(d));
}

}  // namespace

void Engine::note_beyond_bound(int64_t now) {
    std::vector<uint64_t> flagged;
    for (const auto &[id, r] : ledger_.reservations()) {
        std::optional<LiveOverrun> o = hot_beyond_live_bound(model_->latency(), r);
        const bool was = std::binary_search(beyond_bound_.begin(), beyond_bound_.end(), id);
        if (o) {
            flagged.push_back(id);
            if (was) continue;
            newly_beyond_.push_back(id);
            log_move(decisions_, r, now, "beyond-bound", live_overrun_words(model_->fabric(), *o));
        } else if (was) {
            log_move(decisions_, r, now, "in-bound", "hot memory inside its bound again (live heat map)");
        }
    }
    beyond_bound_ = std::move(flagged);  // ids in ledger order: sorted
}

std::vector<MovePlan> Engine::start_moves(int64_t now) {
    const ClusterModel &m = *model_;
    // Planning copies the ledger: not again while nothing changed since it found no move.
    std::vector<MovePlan> plans;
    if (epoch() != no_moves_at_epoch_) plans = plan_moves(m, ledger_, m.settings().max_moves);
    if (plans.empty()) no_moves_at_epoch_ = epoch();
    give_up_stale_moves(now);  // moves the epoch when it gives one up: planned again next time
    if (plans.empty()) return plans;
    Ledger next = ledger_;
    std::vector<MovePlan> begun;
    for (MovePlan &p : plans) {
        const Reservation *r = next.find(p.job_id);
        if (!r || !next.reserve(begin_move(*r, p), m.inventory())) continue;  // plan_moves checked it: never
        begun.push_back(std::move(p));
    }
    if (begun.empty()) return begun;
    commit(std::move(next));
    for (const MovePlan &p : begun) {
        const Reservation &r = *ledger_.find(p.job_id);
        moved_.push_back(p.job_id);
        move_began_[p.job_id] = now;
        log_move(decisions_, r, now, "moving",
                 "hot memory moving inside its " + std::to_string(r.hot_latency_bound_ns) +
                     "ns bound: " + format_size(p.bytes) + " beyond it, to " + move_words(m.fabric(), p.target));
    }
    return begun;
}

bool Engine::finish_move(uint64_t job_id, int64_t now) {
    const Reservation *r = ledger_.find(job_id);
    if (!r || !moving(*r)) return false;
    std::vector<Segment> target;
    for (const Segment &s : r->segments)
        if (s.use == Use::Incoming) target.push_back(s);
    Reservation done = morpheus::finish_move(*r);
    Ledger next = ledger_;
    std::string why;
    if (!next.reserve(done, model_->inventory(), &why))  // frees only: cannot overflow
        throw InputError("", "job " + std::to_string(job_id), why);
    commit(std::move(next));
    nodes_moved_.erase(job_id);
    move_began_.erase(job_id);
    log_move(decisions_, done, now, "placed",
             "hot memory moved inside its " + std::to_string(done.hot_latency_bound_ns) +
                 "ns bound: " + move_words(model_->fabric(), target));
    moved_.push_back(job_id);
    return true;
}

void Engine::give_up_stale_moves(int64_t now) {
    const int64_t timeout = model_->settings().move_timeout_s;
    std::vector<uint64_t> stale;
    for (const auto &[id, r] : ledger_.reservations()) {
        if (!moving(r)) continue;
        // A move this engine did not begin (loaded from the ledger after a restart): its clock
        // starts now, so a restart never gives up a move the nodes are still making.
        auto began = move_began_.try_emplace(id, now).first;
        if (now - began->second >= timeout) stale.push_back(id);
    }
    for (auto it = move_began_.begin(); it != move_began_.end();) {  // jobs that ended while moving
        const Reservation *r = ledger_.find(it->first);
        if (r && moving(*r)) {
            ++it;
            continue;
        }
        nodes_moved_.erase(it->first);
        it = move_began_.erase(it);
    }
    for (uint64_t id : stale)
        abandon_move(id, now,
                     "move given up: its nodes did not report their pages moved within MoveTimeout (" +
                         std::to_string(timeout) + "s); hot memory stays beyond its bound");
}

bool Engine::abandon_move(uint64_t job_id, int64_t now, const std::string &reason) {
    const Reservation *r = ledger_.find(job_id);
    if (!r || !moving(*r)) return false;
    Reservation kept = morpheus::abandon_move(*r);
    Ledger next = ledger_;
    std::string why;
    if (!next.reserve(kept, model_->inventory(), &why)) throw InputError("", "job " + std::to_string(job_id), why);
    commit(std::move(next));
    nodes_moved_.erase(job_id);
    move_began_.erase(job_id);
    log_move(decisions_, kept, now, "placed",
             reason.empty() ? "move given up: hot memory stays beyond its bound" : reason);
    moved_.push_back(job_id);
    return true;
}

bool Engine::node_moved(uint64_t job_id, const std::string &node, int64_t now) {
    const Reservation *r = ledger_.find(job_id);
    if (!r || !moving(*r)) return false;
    std::vector<std::string> &done = nodes_moved_[job_id];
    if (std::find(done.begin(), done.end(), node) == done.end()) done.push_back(node);
    for (const std::string &n : r->nodes)
        if (node_takes_part(*r, n) && std::find(done.begin(), done.end(), n) == done.end()) return false;
    return finish_move(job_id, now);
}

bool Engine::node_takes_part(const Reservation &r, const std::string &node) const {
    const int n = model_->fabric().node_index(node);
    return n >= 0 && moving_pod(r, model_->fabric().node_pod[static_cast<size_t>(n)]);
}

bool Engine::node_has_moved(uint64_t job_id, const std::string &node) const {
    auto it = nodes_moved_.find(job_id);
    return it != nodes_moved_.end() && std::find(it->second.begin(), it->second.end(), node) != it->second.end();
}

std::vector<MoveUnderWay> Engine::moves_under_way() const {
    std::vector<MoveUnderWay> out;
    for (const auto &[id, r] : ledger_.reservations()) {
        if (!moving(r)) continue;
        MoveUnderWay w;
        w.job_id = id;
        for (const Segment &s : r.segments)
            if (s.use == Use::Incoming) w.target.push_back(s);
        w.bytes = bytes_leaving(r);
        w.nodes = r.nodes;
        out.push_back(std::move(w));
    }
    return out;
}

std::vector<uint64_t> Engine::take_moved(size_t max) {
    const size_t n = std::min(max, moved_.size());
    std::vector<uint64_t> out(moved_.begin(), moved_.begin() + static_cast<std::ptrdiff_t>(n));
    moved_.erase(moved_.begin(), moved_.begin() + static_cast<std::ptrdiff_t>(n));
    return out;
}

std::vector<uint64_t> Engine::take_newly_affected() {
    std::vector<uint64_t> out;
    out.swap(newly_affected_);
    return out;
}

std::vector<uint64_t> Engine::jobs_on_failed_blades() const {
    std::vector<uint64_t> out;
    for (const auto &[id, r] : ledger_.reservations())
        if (r.affected) out.push_back(id);
    return out;
}

}  // namespace morpheus
