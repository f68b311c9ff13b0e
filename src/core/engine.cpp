// Engine: load, reload (validate-then-swap), reserve/release with a durable ledger.
#include "engine.hpp"

#include <sys/stat.h>

#include <algorithm>

#include "input_error.hpp"

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

Engine::Engine(const std::string &conf_path, const std::string &default_state_file)
    : conf_path_(conf_path), default_state_file_(default_state_file) {
    Loaded l = load_all(conf_path);
    config_ = std::move(l.config);
    model_ = std::move(l.model);
    warnings_ = std::move(l.warnings);
    state_file_ = config_.state_file.empty() ? default_state_file_ : config_.state_file;
    if (state_file_.empty())
        throw InputError(conf_path, "", "no StateFile set and no default given", "add StateFile=/var/spool/slurmctld/morpheus_ledger.json");
    ledger_ = Ledger::load(state_file_, model_->fabric(), &warnings_);
    inventory_stamp_ = file_stamp(config_.inventory_file);
    mark_affected();
}

void Engine::reload() {
    std::lock_guard<std::mutex> serial(reload_mutex_);
    Loaded l = load_all(conf_path_);  // unlocked: throws before anything changes
    std::string state = l.config.state_file.empty() ? default_state_file_ : l.config.state_file;
    std::string stamp = file_stamp(l.config.inventory_file);
    std::lock_guard<std::mutex> g(mutex_);
    std::vector<std::string> warnings = l.warnings;
    Ledger rebound = ledger_.rebind(model_->fabric(), l.model->fabric(), &warnings);
    config_ = std::move(l.config);
    model_ = std::move(l.model);
    ledger_ = std::move(rebound);
    warnings_ = std::move(warnings);
    bool moved = state != state_file_;
    state_file_ = state;
    inventory_stamp_ = stamp;
    ++generation_;
    mark_affected();
    if (moved) save();
}

bool Engine::refresh_inventory(int64_t now) {
    std::lock_guard<std::mutex> serial(reload_mutex_);
    if (now - inventory_checked_ < static_cast<int64_t>(config_.inventory_check_interval_s)) return false;
    inventory_checked_ = now;
    std::string stamp = file_stamp(config_.inventory_file);
    if (stamp == inventory_stamp_) return false;
    // Unlocked, like reload(): model_ cannot change while reload_mutex_ is held.
    Inventory inv = read_inventory(config_.inventory_file, model_->fabric());  // throws: keep old
    std::vector<std::string> warnings = inv.warnings;
    auto model = std::make_shared<const ClusterModel>(model_->with_inventory(std::move(inv)));
    std::lock_guard<std::mutex> g(mutex_);
    inventory_stamp_ = stamp;
    warnings_ = std::move(warnings);
    model_ = std::move(model);
    mark_affected();
    return true;
}

void Engine::mark_affected() {
    const Inventory &inv = model_->inventory();
    bool changed = false;
    for (const auto &[id, r] : ledger_.reservations()) {
        bool affected = false;
        for (const Segment &s : r.segments)
            if (inv.blades[s.blade].state == BladeState::Failed) affected = true;
        if (affected == r.affected) continue;
        if (affected) newly_affected_.push_back(id);
        ledger_.find_mutable(id)->affected = affected;
        changed = true;
    }
    if (changed) save();
}

void Engine::save() {
    ledger_.save(state_file_, model_->fabric(), false);
    unsynced_ = true;
}

void Engine::sync() {
    if (!unsynced_) return;
    Ledger::sync_file(state_file_);
    unsynced_ = false;
}

Reservation Engine::reserve(const Request &req, const std::vector<uint32_t> &nodes) {
    const ClusterModel &m = *model_;
    std::vector<PodShare> shares;
    for (uint32_t n : nodes) {
        if (n >= m.fabric().node_names.size()) throw InputError("", "nodes", "node index outside the fabric");
        uint32_t pod = m.fabric().node_pod[n];
        if (shares.empty() || shares.back().pod != pod) {
            bool found = false;
            for (PodShare &s : shares)
                if (s.pod == pod) {
                    ++s.nodes;
                    found = true;
                }
            if (!found) shares.push_back({pod, 1});
        } else {
            ++shares.back().nodes;
        }
    }
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
    if (!assign_blades(m, *base, req, shares, p, &why)) throw InputError("", "job " + std::to_string(req.job_id), why);
    Reservation r;
    r.job_id = req.job_id;
    r.uid = req.uid;
    r.since = static_cast<int64_t>(std::time(nullptr));
    r.pods = p.pods;
    for (uint32_t n : nodes) r.nodes.push_back(m.fabric().node_names[n]);
    r.segments = p.segments;
    r.hot_latency_bound_ns = p.hot_latency_bound_ns;
    if (!ledger_.reserve(r, m.inventory(), &why)) throw InputError("", "job " + std::to_string(req.job_id), why);
    save();
    return r;
}

bool Engine::release(uint64_t job_id) {
    if (!ledger_.release(job_id)) return false;
    save();
    return true;
}

size_t Engine::reconcile(const std::vector<uint64_t> &running) {
    std::vector<uint64_t> gone;
    for (const auto &[id, r] : ledger_.reservations())
        if (std::find(running.begin(), running.end(), id) == running.end()) gone.push_back(id);
    for (uint64_t id : gone) ledger_.release(id);
    if (!gone.empty()) save();
    return gone.size();
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
