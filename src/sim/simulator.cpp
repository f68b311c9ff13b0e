// The replay loop. The books kept here (free nodes, per-pod free counts, the Ledger) are the
// only state; every start and end goes through them, and check_invariants audits them.
#include "simulator.hpp"

#include "lifecycle.hpp"
#include "plan_book.hpp"
#include "planner.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <queue>

namespace morpheus::sim {

namespace {

struct Later {
    bool operator()(const SimEvent &a, const SimEvent &b) const {
        if (a.time != b.time) return a.time > b.time;
        if (a.kind != b.kind) return a.kind > b.kind;
        return a.seq > b.seq;
    }
};

struct RunningJob {
    size_t job;
    int64_t expected_end;  // start + the time limit: what backfill plans with
    std::vector<uint32_t> nodes;
};

// What the plugin records (lifecycle.hpp), without node names: the replay never shows them and
// a million reservations need not carry them.
Reservation reservation_of(const ClusterModel &m, const SimJob &job, const Allocation &a, int64_t since) {
    return morpheus::reservation_of(m, job.id, job.request.uid, since, a.placement, {});
}

class Replay {
public:
    Replay(const ClusterModel &m, PlacementPolicy &p, const std::vector<SimJob> &jobs, const SimOptions &o)
        : model_(m),
          policy_(p),
          jobs_(jobs),
          opt_(o),
          ledger_(m.fabric().blades.size()),
          free_nodes_(m.fabric().node_names.size(), 1),
          pod_free_(m.fabric().pods.size()) {
        const Fabric &f = m.fabric();
        for (uint32_t p = 0; p < f.pods.size(); ++p) pod_free_[p] = f.pods[p].node_count;
        free_count_ = free_nodes_.size();
        r_.policy = p.name();
        r_.jobs.resize(jobs.size());
        r_.total_gpus = f.gpu_count();
        for (const BladeStock &b : m.inventory().blades) {
            r_.total_dram += b.capacity[0];
            r_.total_pmem += b.capacity[1];
        }
        // Pods that can use each blade as hot memory at the default bound: what "stranded" means.
        pods_in_bound_.resize(f.blades.size());
        for (uint32_t pod = 0; pod < f.pods.size(); ++pod)
            for (uint32_t b : m.latency().blades_by_latency(pod)) {
                if (m.latency().latency(pod, b) > m.settings().default_hot_latency_ns) break;
                pods_in_bound_[b].push_back(pod);
            }
    }

    SimResult run() {
        uint64_t seq = 0;
        for (size_t i = 0; i < jobs_.size(); ++i) {
            events_.push({jobs_[i].submit, EventKind::Arrival, seq++, i});
            r_.jobs[i].id = jobs_[i].id;
            r_.jobs[i].submit = jobs_[i].submit;
            r_.jobs[i].base_runtime = jobs_[i].runtime;
        }
        seq_ = seq;
        if (!jobs_.empty()) {
            r_.first_submit = jobs_.front().submit;
            int64_t span = jobs_.back().submit - jobs_.front().submit;
            interval_ = opt_.sample_interval > 0 ? opt_.sample_interval : std::max<int64_t>(1, span / 500);
            now_ = next_sample_ = r_.first_submit;
        }
        Ledger empty(model_.fabric().blades.size());
        std::vector<uint8_t> all_free(free_nodes_.size(), 1);
        while (!events_.empty()) {
            const int64_t t = events_.top().time;
            advance(t);
            while (!events_.empty() && events_.top().time == t) {
                SimEvent e = events_.top();
                events_.pop();
                ++r_.events;
                if (opt_.on_event) opt_.on_event(e);
                if (e.kind == EventKind::End) {
                    finish(e.job, t);
                } else {
                    Allocation probe;
                    if (!policy_.place(model_, empty, jobs_[e.job].request, all_free, probe))
                        r_.jobs[e.job].rejected = true;  // would wait forever: it failed
                    else
                        queue_.push_back(e.job);
                }
            }
            schedule(t);
            if (opt_.check_invariants) audit(t);
        }
        r_.last_end = now_;
        sample_at(now_);
        for (const JobOutcome &j : r_.jobs)
            if (!j.rejected && (j.starts != 1 || j.ends != 1))
                violation("job " + std::to_string(j.id) + " started " + std::to_string(j.starts) + " and ended " +
                          std::to_string(j.ends) + " times");
        return std::move(r_);
    }

private:
    void violation(const std::string &what) {
        if (r_.violations.size() < 20) r_.violations.push_back(what);
    }

    // The state is constant between events: integrate it, and take the samples that fall here.
    void advance(int64_t t) {
        if (t <= now_) return;
        const double dt = static_cast<double>(t - now_);
        r_.gpu_seconds += dt * static_cast<double>(busy_gpus_);
        r_.hot_seconds += dt * static_cast<double>(hot_bytes_);
        r_.cold_seconds += dt * static_cast<double>(cold_bytes_);
        while (next_sample_ < t) {
            sample_at(next_sample_);
            next_sample_ += interval_;
        }
        now_ = t;
    }

    void sample_at(int64_t t) {
        Sample s;
        s.time = t;
        s.gpus = r_.total_gpus ? static_cast<double>(busy_gpus_) / static_cast<double>(r_.total_gpus) : 0;
        s.hot = r_.total_dram ? static_cast<double>(hot_bytes_) / static_cast<double>(r_.total_dram) : 0;
        s.cold = r_.total_pmem ? static_cast<double>(cold_bytes_) / static_cast<double>(r_.total_pmem) : 0;
        // Stranded: free DRAM that no free node can use as hot memory within the default bound.
        uint64_t stranded = 0;
        for (uint32_t b = 0; b < pods_in_bound_.size(); ++b) {
            if (!model_.inventory().admits(b)) continue;
            bool reachable = false;
            for (uint32_t p : pods_in_bound_[b])
                if (pod_free_[p]) {
                    reachable = true;
                    break;
                }
            if (!reachable) stranded += ledger_.free(b, Tier::Dram, model_.inventory());
        }
        s.stranded = r_.total_dram ? static_cast<double>(stranded) / static_cast<double>(r_.total_dram) : 0;
        s.queued = queue_.size();
        s.running = running_.size();
        r_.timeline.push_back(s);
    }

    bool try_start(size_t i, int64_t t) {
        Allocation a;
        return policy_.place(model_, ledger_, jobs_[i].request, free_nodes_, a) && start(i, t, a);
    }

    bool start(size_t i, int64_t t, Allocation &a) {
        const SimJob &job = jobs_[i];
        Reservation res = reservation_of(model_, job, a, t);
        std::string why;
        if (!ledger_.reserve(res, model_.inventory(), &why)) {
            violation("job " + std::to_string(job.id) + ": " + policy_.name() +
                      " chose memory the ledger refuses: " + why);
            return false;
        }
        JobOutcome &o = r_.jobs[i];
        const Fabric &f = model_.fabric();
        uint32_t gpus = 0;
        for (uint32_t n : a.nodes) {
            if (!free_nodes_[n]) violation("job " + std::to_string(job.id) + " given busy node " + f.node_names[n]);
            free_nodes_[n] = 0;
            --pod_free_[f.node_pod[n]];
            gpus += f.pods[f.node_pod[n]].gpus_per_node;
        }
        free_count_ -= a.nodes.size();
        const Request &req = job.request;
        if (req.nodes ? a.nodes.size() < req.nodes : gpus < req.gpus)
            violation("job " + std::to_string(job.id) + " given " + std::to_string(a.nodes.size()) + " nodes, too few");
        double weighted = 0;
        for (const Segment &s : res.segments) {
            if (s.use == Use::Hot) {
                o.hot_bytes += s.bytes;
                weighted += static_cast<double>(s.bytes) * s.latency_ns;
                o.max_hot_latency_ns = std::max<double>(o.max_hot_latency_ns, s.latency_ns);
            } else {
                o.cold_bytes += s.bytes;
            }
        }
        o.hot_latency_ns = o.hot_bytes ? weighted / static_cast<double>(o.hot_bytes) : 0;
        o.bound_ns = req.hot_per_node ? effective_bound(model_, req) : 0;
        o.within_bound = o.hot_bytes && o.max_hot_latency_ns <= static_cast<double>(o.bound_ns);
        o.nodes = static_cast<uint32_t>(a.nodes.size());
        o.gpus = gpus;
        o.pods = static_cast<uint32_t>(res.pods.size());
        o.start = t;
        const int64_t limit = std::max(job.estimate, int64_t{1});
        o.runtime = opt_.slowdown.stretch(job.runtime, o.hot_latency_ns, job.sensitivity);
        if (o.runtime > limit) {  // Slurm ends it at its time limit: the work is lost
            o.runtime = limit;
            o.killed = true;
        }
        ++o.starts;
        busy_gpus_ += gpus;
        hot_bytes_ += o.hot_bytes;
        cold_bytes_ += o.cold_bytes;
        running_.push_back({i, t + limit, std::move(a.nodes)});
        events_.push({t + o.runtime, EventKind::End, seq_++, i});
        return true;
    }

    void finish(size_t i, int64_t t) {
        auto it = std::find_if(running_.begin(), running_.end(), [&](const RunningJob &r) { return r.job == i; });
        JobOutcome &o = r_.jobs[i];
        ++o.ends;
        if (it == running_.end()) {
            violation("job " + std::to_string(o.id) + " ended without running");
            return;
        }
        const Fabric &f = model_.fabric();
        for (uint32_t n : it->nodes) {
            free_nodes_[n] = 1;
            ++pod_free_[f.node_pod[n]];
        }
        free_count_ += it->nodes.size();
        ledger_.release(o.id);
        busy_gpus_ -= o.gpus;
        hot_bytes_ -= o.hot_bytes;
        cold_bytes_ -= o.cold_bytes;
        o.end = t;
        *it = std::move(running_.back());
        running_.pop_back();
        if (opt_.progress) opt_.progress(++done_, jobs_.size());
    }

    // FCFS: start from the head while it fits. EASY backfill: when the head does not fit, find
    // the shadow time: the first running job's time limit after which the policy can place the
    // head on the nodes and memory then free (memory-aware, for every policy alike). A later job
    // may start now if it ends by then, or if the head still fits at the shadow time beside it.
    void schedule(int64_t t) {
        while (!queue_.empty() && try_start(queue_.front(), t)) queue_.pop_front();
        if (!opt_.backfill || queue_.size() < 2) return;
        if (policy_.plans_memory() && backfill_with_planner(t)) return;
        const Request &head = jobs_[queue_.front()].request;
        std::vector<const RunningJob *> by_end;
        for (const RunningJob &r : running_) by_end.push_back(&r);
        std::sort(by_end.begin(), by_end.end(), [](const RunningJob *a, const RunningJob *b) {
            return a->expected_end != b->expected_end ? a->expected_end < b->expected_end : a->job < b->job;
        });
        // The cluster at the shadow time: what is still running then, and what backfill adds.
        Ledger future = ledger_;
        std::vector<uint8_t> future_free = free_nodes_;
        int64_t shadow = INT64_MAX;
        Allocation probe;
        for (size_t k = 0; k < by_end.size(); ++k) {
            future.release(jobs_[by_end[k]->job].id);
            for (uint32_t n : by_end[k]->nodes) future_free[n] = 1;
            if (k + 1 < by_end.size() && by_end[k + 1]->expected_end == by_end[k]->expected_end) continue;
            if (policy_.place(model_, future, head, future_free, probe)) {
                shadow = std::max(by_end[k]->expected_end, t);
                break;
            }
        }
        for (size_t k = 1; k < queue_.size() && k <= opt_.backfill_depth;) {
            const size_t i = queue_[k];
            Allocation a;
            bool go = policy_.place(model_, ledger_, jobs_[i].request, free_nodes_, a);
            if (go && t + jobs_[i].estimate > shadow) {
                // Still running at the shadow time: the head must fit beside it then.
                Ledger trial = future;
                std::vector<uint8_t> trial_free = future_free;
                for (uint32_t n : a.nodes) trial_free[n] = 0;
                go = trial.reserve(reservation_of(model_, jobs_[i], a, t), model_.inventory()) &&
                     policy_.place(model_, trial, head, trial_free, probe);
                if (go) {
                    future = std::move(trial);
                    future_free = std::move(trial_free);
                }
            }
            if (go && start(i, t, a))
                queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(k));
            else
                ++k;
        }
    }

    // EASY backfill as select/morpheus runs under sched/backfill: the head's start from the
    // core's planner (its nodes from the running jobs' time limits, in one pod or spread as
    // will-run offers them; its memory planned over time), its memory then held as a plan; a
    // later job starts now if its memory delays no plan (Planner::delayed_by) and, when it runs
    // past the head's start, leaves each of the head's pods the nodes it needs there. False when
    // the planner finds no start for the head (it never fits): the generic walk decides.
    bool backfill_with_planner(int64_t t) {
        const SimJob &head = jobs_[queue_.front()];
        const Fabric &f = model_.fabric();
        std::map<uint64_t, int64_t> ends;
        std::vector<std::vector<std::pair<int64_t, uint32_t>>> freed(f.pods.size());  // per pod: (time limit, nodes)
        for (const RunningJob &r : running_) {
            ends[jobs_[r.job].id] = r.expected_end;
            for (uint32_t n : r.nodes) freed[f.node_pod[n]].emplace_back(r.expected_end, 1);
        }
        for (auto &v : freed) std::sort(v.begin(), v.end());
        auto free_at = [&](uint32_t p, int64_t when) {
            uint32_t n = pod_free_[p];
            for (const auto &[end, count] : freed[p]) {
                if (end > when) break;
                n += count;
            }
            return n;
        };
        Planner planner(f.blades.size());
        hold_running_jobs(planner, ledger_, ends, t);
        std::optional<PodStart> head_start = earliest_pod_start(
            planner, model_, head.request,
            [&](uint32_t p, uint32_t need) {
                if (pod_free_[p] >= need) return t;
                uint32_t n = pod_free_[p];
                for (const auto &[end, count] : freed[p])
                    if ((n += count) >= need) return std::max(end, t);
                return kForever;
            },
            t, head.estimate);
        if (!head_start) return false;
        const int64_t shadow = head_start->slot.start;
        planner.hold_planned(head.id, 0, head_start->slot.placement.segments, shadow,
                             shadow + std::max<int64_t>(head.estimate, 1));
        // Per pod of the head: the nodes free at its start beyond those it needs there.
        std::vector<uint32_t> spare(f.pods.size(), UINT32_MAX);
        for (const PodShare &s : head_start->shares)
            spare[s.pod] = free_at(s.pod, shadow) - std::min(free_at(s.pod, shadow), s.nodes);
        std::vector<uint32_t> in_pod(f.pods.size());
        for (size_t k = 1; k < queue_.size() && k <= opt_.backfill_depth;) {
            const size_t i = queue_[k];
            const int64_t until = t + std::max<int64_t>(jobs_[i].estimate, 1);
            Allocation a;
            bool go = policy_.place(model_, ledger_, jobs_[i].request, free_nodes_, a);
            if (go && until > shadow) {
                std::fill(in_pod.begin(), in_pod.end(), 0);
                for (uint32_t n : a.nodes) ++in_pod[f.node_pod[n]];
                for (const PodShare &s : head_start->shares) go = go && in_pod[s.pod] <= spare[s.pod];
            }
            go = go && !planner.delayed_by(model_.inventory(), a.placement.segments, t, until);
            std::vector<Segment> segments = a.placement.segments;
            if (go && start(i, t, a)) {
                if (until > shadow)
                    for (const PodShare &s : head_start->shares) spare[s.pod] -= in_pod[s.pod];
                planner.hold_running(jobs_[i].id, segments, t, until);
                queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(k));
            } else {
                ++k;
            }
        }
        return true;
    }

    void audit(int64_t t) {
        const Inventory &inv = model_.inventory();
        for (uint32_t b = 0; b < ledger_.blade_count(); ++b)
            for (size_t tier = 0; tier < kTierCount; ++tier)
                if (ledger_.reserved(b, static_cast<Tier>(tier)) > inv.blades[b].capacity[tier])
                    violation("t=" + std::to_string(t) + ": blade " + model_.fabric().blades[b].name + " " +
                              tier_name(static_cast<Tier>(tier)) + " over capacity");
        size_t free = 0, held = 0;
        for (uint8_t x : free_nodes_) free += x != 0;
        for (const RunningJob &r : running_) held += r.nodes.size();
        if (free != free_count_ || free + held != free_nodes_.size())
            violation("t=" + std::to_string(t) + ": node books do not balance (" + std::to_string(free) + " free + " +
                      std::to_string(held) + " held of " + std::to_string(free_nodes_.size()) + ")");
        if (busy_gpus_ > r_.total_gpus) violation("t=" + std::to_string(t) + ": more GPUs busy than exist");
        if (ledger_.reservations().size() != running_.size())
            violation("t=" + std::to_string(t) + ": " + std::to_string(ledger_.reservations().size()) +
                      " reservations for " + std::to_string(running_.size()) + " running jobs");
    }

    const ClusterModel &model_;
    PlacementPolicy &policy_;
    const std::vector<SimJob> &jobs_;
    const SimOptions &opt_;
    Ledger ledger_;
    std::vector<uint8_t> free_nodes_;
    std::vector<uint32_t> pod_free_;
    std::vector<std::vector<uint32_t>> pods_in_bound_;
    size_t free_count_ = 0, done_ = 0;
    uint64_t busy_gpus_ = 0, hot_bytes_ = 0, cold_bytes_ = 0;
    std::priority_queue<SimEvent, std::vector<SimEvent>, Later> events_;
    std::deque<size_t> queue_;
    std::vector<RunningJob> running_;
    uint64_t seq_ = 0;
    int64_t now_ = 0, next_sample_ = 0, interval_ = 1;
    SimResult r_;
};

}  // namespace

SimResult simulate(const ClusterModel &model, PlacementPolicy &policy, const std::vector<SimJob> &jobs,
                   const SimOptions &options) {
    return Replay(model, policy, jobs, options).run();
}

}  // namespace morpheus::sim
