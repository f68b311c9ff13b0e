// The replay loop. The books kept here (free nodes, per-pod free counts, the Ledger) are the
// only state; every start and end goes through them, and check_invariants audits them.
#include "simulator.hpp"

#include "checkpoint.hpp"
#include "lifecycle.hpp"
#include "move.hpp"
#include "plan_book.hpp"
#include "planner.hpp"
#include "soft_bound.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <queue>
#include <unordered_map>
#include <cmath>
#include <memory>

namespace morpheus::sim {

const char *checkpoint_mode_name(CheckpointMode m) {
    switch (m) {
    case CheckpointMode::None: return "none";
    case CheckpointMode::Uncoordinated: return "uncoordinated";
    case CheckpointMode::Booked: return "booked";
    }
    return "?";
}

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
    // Its pace, for a move that changes it: work done (in seconds of the logged run) by
    // `since`, and the slowdown factor of its hot memory since then.
    double work_done = 0;
    int64_t since = 0;
    double factor = 1;
    double in_bound_share = 0;  // of its hot bytes inside the bound, since `since`
    double in_bound_s = 0;  // byte-weighted seconds in bound before `since`
    double true_ns = 0;  // its hot memory's true latency, bytes-weighted (the factor's)
    int64_t over_since = -1;  // since when some hot byte is truly beyond the bound; -1: none is
    int64_t unseen_since = -1;  // ... a byte placement believed inside it
};

// The share of the reservation's hot bytes inside its bound (1 without hot memory).
double in_bound_share(const Reservation &r) {
    double in = 0, all = 0;
    for (const Segment &s : r.segments)
        if (s.use == Use::Hot) {
            all += static_cast<double>(s.bytes);
            if (s.latency_ns <= r.hot_latency_bound_ns) in += static_cast<double>(s.bytes);
        }
    return all > 0 ? in / all : 1.0;
}

// What the plugin records (lifecycle.hpp), without node names: the replay never shows them and
// a million reservations need not carry them.
Reservation reservation_of(const ClusterModel &m, const SimJob &job, const Allocation &a, int64_t since) {
    return morpheus::reservation_of(m, job.id, job.request.uid, since, a.placement, {});
}

// Uncoordinated checkpoints still get a region (chosen as decide() chooses it), but no link
// is ever full: a book whose every link holds all the bandwidth there is.
LinkBook book_for(const ClusterModel &m, CheckpointMode mode) {
    if (mode != CheckpointMode::Uncoordinated) return empty_link_book(m);
    const CheckpointSettings &s = m.settings().checkpoint;
    return LinkBook(std::vector<double>(m.paths().link_count(), 1e300), s.slot_s, s.cycle_s);
}

class Replay {
public:
    Replay(const ClusterModel &m, PlacementPolicy &p, const std::vector<SimJob> &jobs, const SimOptions &o)
        : base_(m),
          placing_(&m),
          policy_(p),
          jobs_(jobs),
          opt_(o),
          ledger_(m.fabric().blades.size()),
          free_nodes_(m.fabric().node_names.size(), 1),
          pod_free_(m.fabric().pods.size()),
          book_(book_for(m, o.checkpoints)) {
        policy_.set_links(o.checkpoints == CheckpointMode::None ? nullptr : &book_);
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
        if (o.latency_events) truth_.emplace(f, m.latency(), *o.latency_events);
        if (o.live_heat_map) {
            heat_ = HeatMap(f, m.latency(), o.heat_map);
            probed_.resize(f.pods.size());
            for (uint32_t pod = 0; pod < f.pods.size(); ++pod) {
                const std::vector<uint32_t> &near = m.latency().blades_by_latency(pod);
                probed_[pod].assign(near.begin(), near.begin() + std::min<size_t>(near.size(), o.probe_blades));
            }
        }
    }

    SimResult run() {
        uint64_t seq = 0;
        end_generation_.assign(jobs_.size(), 0);
        lapsed_early_.assign(jobs_.size(), 0);
        move_began_.assign(jobs_.size(), -1);
        for (size_t i = 0; i < jobs_.size(); ++i) index_of_[jobs_[i].id] = i;
        for (size_t i = 0; i < jobs_.size(); ++i) {
            push({jobs_[i].submit, EventKind::Arrival, seq++, i});
            r_.jobs[i].id = jobs_[i].id;
            r_.jobs[i].submit = jobs_[i].submit;
            r_.jobs[i].base_runtime = jobs_[i].runtime;
            r_.jobs[i].tight = jobs_[i].tight && jobs_[i].request.hot_per_node;
            r_.jobs[i].in_bound_possible = jobs_[i].in_bound;
        }
        seq_ = seq;
        if (truth_)
            for (int64_t t : truth_->change_times()) push({t, EventKind::Latency, seq_++, 0});
        plan_probe_rounds();
        if (!jobs_.empty()) {
            r_.first_submit = jobs_.front().submit;
            int64_t span = jobs_.back().submit - jobs_.front().submit;
            interval_ = opt_.sample_interval > 0 ? opt_.sample_interval : std::max<int64_t>(1, span / 500);
            now_ = next_sample_ = r_.first_submit;
        }
        Ledger empty(model().fabric().blades.size());
        std::vector<uint8_t> all_free(free_nodes_.size(), 1);
        while (!events_.empty()) {
            // The fabric's events do not outlast the workload: once no job is to come, waits or
            // runs, they end without moving the replay's clock.
            if (fabric_event(events_.top()) && !jobs_pending_ && queue_.empty() && running_.empty()) {
                events_.pop();
                continue;
            }
            const int64_t t = events_.top().time;
            advance(t);
            while (!events_.empty() && events_.top().time == t) {
                SimEvent e = events_.top();
                events_.pop();
                if (opt_.on_event) opt_.on_event(e);
                if (fabric_event(e)) {
                    if (e.kind == EventKind::Latency) latency_changes(t);
                    if (e.kind == EventKind::Probe) probe_round(t);
                    continue;
                }
                --jobs_pending_;
                ++r_.events;
                if (e.kind == EventKind::End) {
                    if (e.generation == end_generation_[e.job]) finish(e.job, t);
                } else if (e.kind == EventKind::MoveDone) {
                    finish_move_of(e.job, t);
                } else if (e.kind == EventKind::Arrival) {
                    if (jobs_[e.job].apart) {
                        r_.jobs[e.job].apart = true;
                        continue;
                    }
                    Allocation probe;
                    // Under a soft bound the job runs beyond it one day: judged as lapsed. On
                    // the fabric file's latencies, as select/morpheus judges a submission: a
                    // link degraded now makes a job wait, never impossible.
                    Request ever = jobs_[e.job].request;
                    ever.bound_lapsed =
                        policy_.soft_bounds_and_moves() && wait_ends(base_, ever, jobs_[e.job].submit) != INT64_MAX;
                    if (!policy_.place(base_, empty, ever, all_free, probe)) {
                        JobOutcome &o = r_.jobs[e.job];
                        o.refused = true;  // would wait forever: charged (run_summary.hpp)
                        o.nodes = nodes_needed(base_, ever, 0);  // its size class
                    } else {
                        queue_.push_back(e.job);
                        const int64_t wake = policy_.soft_bounds_and_moves()
                                                 ? wait_ends(base_, jobs_[e.job].request, jobs_[e.job].submit)
                                                 : INT64_MAX;
                        if (wake != INT64_MAX && wake > t) push({wake, EventKind::Wake, seq_++, e.job});
                    }
                }  // Wake: the schedule below looks at the job again
            }
            // Moves first: memory freed inside a bound goes to the running jobs beyond it
            // before it goes to a new start (the engine does the same on a release).
            start_moves(t);
            schedule(t);
            if (opt_.check_invariants) audit(t);
        }
        policy_.set_links(nullptr);
        r_.last_end = now_;
        sample_at(now_);
        for (const JobOutcome &j : r_.jobs)
            if (!j.apart && !j.refused && (j.starts != 1 || j.ends != 1))
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
            if (!model().inventory().admits(b)) continue;
            bool reachable = false;
            for (uint32_t p : pods_in_bound_[b])
                if (pod_free_[p]) {
                    reachable = true;
                    break;
                }
            if (!reachable) stranded += ledger_.free(b, Tier::Dram, model().inventory());
        }
        s.stranded = r_.total_dram ? static_cast<double>(stranded) / static_cast<double>(r_.total_dram) : 0;
        s.queued = queue_.size();
        s.running = running_.size();
        r_.timeline.push_back(s);
    }

    // The job's request as its policy sees it at t: under a soft bound, lapsed once its wait
    // is over (or once the planner found in-bound memory only after that, lapsed_early_).
    Request request_at(size_t i, int64_t t) const {
        Request req = jobs_[i].request;
        if (policy_.soft_bounds_and_moves())
            req.bound_lapsed = lapsed_early_[i] || bound_lapsed(model(), req, jobs_[i].submit, t);
        return req;
    }

    bool try_start(size_t i, int64_t t) {
        Allocation a;
        return policy_.place(model(), ledger_, request_at(i, t), free_nodes_, a) && start(i, t, a);
    }

    bool start(size_t i, int64_t t, Allocation &a) {
        const SimJob &job = jobs_[i];
        Reservation res = reservation_of(model(), job, a, t);
        std::string why;
        if (!ledger_.reserve(res, model().inventory(), &why)) {
            violation("job " + std::to_string(job.id) + ": " + policy_.name() +
                      " chose memory the ledger refuses: " + why);
            return false;
        }
        if (opt_.checkpoints != CheckpointMode::None && res.checkpoint.period_s) {
            book_reservation(base_, book_, res);
            CheckpointRun run;
            run.job = i;
            run.pods = res.pods;
            for (const Segment &s : res.segments)
                if (s.use == Use::Checkpoint) run.stripes.push_back(s);
            run.window = res.checkpoint;
            run.asked_period_s = job.request.ckpt_period_s;
            r_.checkpoints.push_back(std::move(run));
        }
        JobOutcome &o = r_.jobs[i];
        const Fabric &f = model().fabric();
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
            } else if (s.use != Use::Checkpoint) {
                o.cold_bytes += s.bytes;
            }
        }
        o.hot_latency_ns = o.hot_bytes ? weighted / static_cast<double>(o.hot_bytes) : 0;
        o.bound_ns = req.hot_per_node ? effective_bound(model(), req) : 0;
        o.within_bound = o.hot_bytes && o.max_hot_latency_ns <= static_cast<double>(o.bound_ns);
        o.bound_lapsed = !o.within_bound && o.hot_bytes && request_at(i, t).bound_lapsed;
        o.nodes = static_cast<uint32_t>(a.nodes.size());
        o.gpus = gpus;
        o.pods = static_cast<uint32_t>(res.pods.size());
        o.start = t;
        // What the job really gets: the fabric's latency as the events make it, which
        // placement may not know (the fabric file's), or know late (the heat map's).
        const TrueLatency now = true_latency(res.segments, a.nodes, o.bound_ns);
        o.true_hot_latency_ns = now.mean;
        o.degraded_start = now.degraded;
        const int64_t limit = std::max(job.estimate, int64_t{1});
        o.runtime = opt_.slowdown.stretch(job.runtime, now.mean, job.sensitivity);
        if (o.runtime > limit) {  // Slurm ends it at its time limit: the work is lost
            o.runtime = limit;
            o.killed = true;
        }
        ++o.starts;
        busy_gpus_ += gpus;
        hot_bytes_ += o.hot_bytes;
        cold_bytes_ += o.cold_bytes;
        running_.push_back({i, t + limit, std::move(a.nodes), 0.0, t, opt_.slowdown.factor(now.mean, job.sensitivity),
                            in_bound_share(res), 0.0, now.mean});
        charge_over_bound(running_.back(), t, &now);
        push({t + o.runtime, EventKind::End, seq_++, i, end_generation_[i]});
        return true;
    }

    // The true latency of a job's hot memory: each segment as the slowest of the job's nodes
    // in its pod has it (a job waits on its slowest rank). Without latency events, what the
    // segments say: the fabric file's, which placement knew.
    struct TrueLatency {
        double mean = 0, max = 0;
        double unseen_max = 0;  // over the segments placement believed inside `bound`
        bool degraded = false;
    };
    TrueLatency true_latency(const std::vector<Segment> &segments, const std::vector<uint32_t> &nodes,
                             uint64_t bound) const {
        TrueLatency l;
        double weighted = 0, bytes = 0;
        for (const Segment &s : segments) {
            if (s.use != Use::Hot) continue;
            double ns = s.latency_ns;
            if (truth_) {
                uint32_t worst = 0;
                for (uint32_t n : nodes)
                    if (base_.fabric().node_pod[n] == s.pod) {
                        worst = std::max(worst, truth_->latency(n, s.blade));
                        l.degraded = l.degraded || truth_->degraded(n, s.blade);
                    }
                if (worst) ns = worst;
            }
            weighted += static_cast<double>(s.bytes) * ns;
            bytes += static_cast<double>(s.bytes);
            l.max = std::max(l.max, ns);
            if (s.latency_ns <= bound) l.unseen_max = std::max(l.unseen_max, ns);
        }
        l.mean = bytes ? weighted / bytes : 0;
        return l;
    }
    static bool over_bound(const JobOutcome &o, const TrueLatency &l) {
        return o.bound_ns && l.max > static_cast<double>(o.bound_ns);
    }
    static bool unseen_over_bound(const JobOutcome &o, const TrueLatency &l) {
        return o.bound_ns && l.unseen_max > static_cast<double>(o.bound_ns);
    }

    // The time a job's hot memory spent truly beyond its bound up to t, and then from t as `l`.
    void charge_over_bound(RunningJob &r, int64_t t, const TrueLatency *l = nullptr) {
        JobOutcome &o = r_.jobs[r.job];
        if (r.over_since >= 0) o.over_bound_s += t - r.over_since;
        if (r.unseen_since >= 0) o.unseen_over_bound_s += t - r.unseen_since;
        r.over_since = l && over_bound(o, *l) ? t : -1;
        r.unseen_since = l && unseen_over_bound(o, *l) ? t : -1;
    }

    // The job's hot memory's true latency is now `l` (an event began or ended, or its move
    // finished after `stall_s` of copying, which stalls it): its work so far went at the old
    // pace, the rest goes at the new one; a job that now ends past its time limit is killed
    // there, as Slurm would.
    void repace(RunningJob &r, int64_t t, const TrueLatency &l, int64_t stall_s) {
        const size_t i = r.job;
        JobOutcome &o = r_.jobs[i];
        const SimJob &job = jobs_[i];
        charge_over_bound(r, t, &l);
        r.work_done += static_cast<double>(t - r.since) / r.factor;
        r.in_bound_s += r.in_bound_share * static_cast<double>(t - r.since);
        r.since = t;
        r.true_ns = l.mean;
        r.factor = opt_.slowdown.factor(l.mean, job.sensitivity);
        const double left = std::max(0.0, static_cast<double>(job.runtime) - r.work_done);
        int64_t end = t + stall_s + static_cast<int64_t>(std::llround(left * r.factor));
        const int64_t limit_end = o.start + std::max(job.estimate, int64_t{1});
        o.killed = end > limit_end;
        end = std::min(end, limit_end);
        end = std::max(end, t + 1);
        o.runtime = end - o.start;
        ++end_generation_[i];
        push({end, EventKind::End, seq_++, i, end_generation_[i]});
    }

    // A latency event began or ended: every running job with hot memory on a cell it touches
    // goes on at its new pace.
    void latency_changes(int64_t t) {
        if (!truth_->at(t)) return;
        for (RunningJob &r : running_) {
            const Reservation *held = ledger_.find(r_.jobs[r.job].id);
            if (!held) continue;
            const JobOutcome &o = r_.jobs[r.job];
            const TrueLatency l = true_latency(held->segments, r.nodes, o.bound_ns);
            if (l.mean != r.true_ns || over_bound(o, l) != (r.over_since >= 0) ||
                unseen_over_bound(o, l) != (r.unseen_since >= 0))
                repace(r, t, l, 0);
        }
    }

    // The heat map's rounds (SimOptions::live_heat_map): on the probe interval's grid, from a
    // window before each latency event (the windows fill with the fabric's values, as constant
    // probing would have them) until its measurements have left the windows and the cells are
    // settled back, a few rounds more.
    void plan_probe_rounds() {
        if (!opt_.live_heat_map || !truth_) return;
        const HeatMapSettings &h = heat_.settings();
        const int64_t every = std::max<int64_t>(1, opt_.probe_interval_s);
        for (const LatencyEvent &e : truth_->events())
            probe_periods_.emplace_back(std::max<int64_t>(0, e.start - h.window_s - every),
                                        e.end + h.window_s + (int64_t(h.rounds) + 2) * every);
        std::sort(probe_periods_.begin(), probe_periods_.end());
        std::vector<std::pair<int64_t, int64_t>> merged;
        for (const auto &p : probe_periods_)
            if (!merged.empty() && p.first <= merged.back().second)
                merged.back().second = std::max(merged.back().second, p.second);
            else
                merged.push_back(p);
        probe_periods_ = std::move(merged);
        push_probe_after(-1);
    }
    // The first round of the grid after `t` inside a probe period.
    void push_probe_after(int64_t t) {
        const int64_t every = std::max<int64_t>(1, opt_.probe_interval_s);
        int64_t next = t < 0 ? 0 : (t / every + 1) * every;
        for (const auto &[from, to] : probe_periods_) {
            if (next >= to) continue;
            next = std::max(next, (from + every - 1) / every * every);
            if (next < to) {
                push({next, EventKind::Probe, seq_++, 0});
                return;
            }
        }
    }
    // Every node reports its true latency to its pod's probed blades, then one settle round;
    // when it moved a published cell, placement's model takes the live latencies.
    void probe_round(int64_t t) {
        const Fabric &f = base_.fabric();
        for (uint32_t n = 0; n < f.node_names.size(); ++n)
            for (uint32_t b : probed_[f.node_pod[n]]) heat_.report(n, b, truth_->latency(n, b), t);
        ++r_.probe_rounds;
        if (heat_.settle(t)) {
            ++r_.heat_changes;
            const std::vector<uint32_t> &live = heat_.published_values();
            if (std::all_of(live.begin(), live.end(), [](uint32_t v) { return v == 0; })) {
                live_.reset();
                placing_ = &base_;
            } else {
                live_ = std::make_shared<const ClusterModel>(base_.with_live_latency(live));
                placing_ = live_.get();
            }
        }
        push_probe_after(t);
    }

    void finish(size_t i, int64_t t) {
        auto it = std::find_if(running_.begin(), running_.end(), [&](const RunningJob &r) { return r.job == i; });
        JobOutcome &o = r_.jobs[i];
        ++o.ends;
        if (it == running_.end()) {
            violation("job " + std::to_string(o.id) + " ended without running");
            return;
        }
        const Fabric &f = model().fabric();
        for (uint32_t n : it->nodes) {
            free_nodes_[n] = 1;
            ++pod_free_[f.node_pod[n]];
        }
        free_count_ += it->nodes.size();
        ledger_.release(o.id);
        book_.release(o.id);
        o.in_bound_s =
            std::llround(it->in_bound_s + it->in_bound_share * static_cast<double>(t - std::max(it->since, o.start)));
        charge_over_bound(*it, t);
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
        if (opt_.plan_backfill && policy_.plans_memory()) {
            const Backfilled b = backfill_with_planner(t);
            if (b == Backfilled::LookAgain) return schedule(t);
            if (b == Backfilled::Done) return;
        }
        const Request head = request_at(queue_.front(), t);
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
            if (policy_.place(model(), future, head, future_free, probe)) {
                shadow = std::max(by_end[k]->expected_end, t);
                break;
            }
        }
        // As sched/backfill does, the head's start holds the nodes it was planned on (those of
        // the probe at the shadow time): a later job that runs past that time may not take
        // them, even where the head could have started elsewhere. The planner's path holds
        // the head's pods the same way.
        std::vector<uint8_t> held_for_head(free_nodes_.size(), 0);
        if (shadow != INT64_MAX)
            for (uint32_t n : probe.nodes) held_for_head[n] = 1;
        // A job still running at the shadow time is offered only the nodes the head's start
        // leaves, as sched/backfill offers a job the nodes free for its whole run: the policy
        // then chooses among those rather than choosing a held node and being turned away.
        std::vector<uint8_t> past_shadow = free_nodes_;
        for (size_t n = 0; n < past_shadow.size(); ++n) past_shadow[n] = past_shadow[n] && !held_for_head[n];
        for (size_t k = 1; k < queue_.size() && k <= opt_.backfill_depth;) {
            const size_t i = queue_[k];
            Allocation a;
            const bool runs_past = t + jobs_[i].estimate > shadow;
            bool go = policy_.place(model(), ledger_, request_at(i, t), runs_past ? past_shadow : free_nodes_, a);
            if (go && runs_past) {
                // Still running at the shadow time: off the head's nodes, and the head must
                // still fit beside it then.
                for (uint32_t n : a.nodes) go = go && !held_for_head[n];
                Ledger trial = future;
                std::vector<uint8_t> trial_free = future_free;
                for (uint32_t n : a.nodes) trial_free[n] = 0;
                Allocation head_then;
                go = go && trial.reserve(reservation_of(model(), jobs_[i], a, t), model().inventory()) &&
                     policy_.place(model(), trial, head, trial_free, head_then);
                if (go) {
                    future = std::move(trial);
                    future_free = std::move(trial_free);
                }
            }
            const std::vector<uint32_t> nodes = a.nodes;  // start() takes them
            if (go && start(i, t, a)) {
                for (uint32_t n : nodes) past_shadow[n] = 0;
                queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(k));
            } else {
                ++k;
            }
        }
    }

    // EASY backfill as select/morpheus runs under sched/backfill: the head's start from the
    // core's planner (its nodes from the running jobs' time limits, in one pod or spread as
    // will-run offers them; its memory planned over time), its memory then held as a plan; a
    // later job starts now if its memory delays no plan (Planner::delayed_by) and, when it runs
    // past the head's start, leaves each of the head's pods the nodes it needs there. False when
    // the planner finds no start for the head (it never fits): the generic walk decides.
    enum class Backfilled { NoStartForHead, Done, LookAgain };
    Backfilled backfill_with_planner(int64_t t) {
        const SimJob &head = jobs_[queue_.front()];
        const Request head_req = request_at(queue_.front(), t);
        const Fabric &f = model().fabric();
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
            planner, model(), head_req,
            [&](uint32_t p, uint32_t need) {
                if (pod_free_[p] >= need) return t;
                uint32_t n = pod_free_[p];
                for (const auto &[end, count] : freed[p])
                    if ((n += count) >= need) return std::max(end, t);
                return kForever;
            },
            t, head.estimate);
        // A soft bound whose in-bound memory comes only after the wait is over lapses now:
        // waiting on would only delay the same start beyond the bound (soft_bound.hpp).
        if (policy_.soft_bounds_and_moves() && !head_req.bound_lapsed &&
            bound_lapsed(model(), head_req, head.submit, t, head_start ? head_start->slot.start : kForever)) {
            lapsed_early_[queue_.front()] = 1;
            return Backfilled::LookAgain;
        }
        if (!head_start) return Backfilled::NoStartForHead;
        const int64_t shadow = head_start->slot.start;
        planner.hold_planned(head.id, 0, head_start->slot.placement.segments, shadow,
                             shadow + std::max<int64_t>(head.estimate, 1));
        // Per pod of the head: the nodes free at its start beyond those it needs there.
        std::vector<uint32_t> spare(f.pods.size(), UINT32_MAX);
        for (const PodShare &s : head_start->shares)
            spare[s.pod] = free_at(s.pod, shadow) - std::min(free_at(s.pod, shadow), s.nodes);
        std::vector<uint32_t> in_pod(f.pods.size());
        // A job still running at the head's start is offered, in each of the head's pods, only
        // the pod's spare nodes (as sched/backfill offers a job the nodes free for its whole run).
        auto leaving_spare = [&] {
            std::vector<uint8_t> offered = free_nodes_;
            for (const PodShare &s : head_start->shares) {
                const Pod &pod = f.pods[s.pod];
                uint32_t left = spare[s.pod];
                for (uint32_t n = pod.first_node; n < pod.first_node + pod.node_count; ++n)
                    if (offered[n] && (left ? (--left, false) : true)) offered[n] = 0;
            }
            return offered;
        };
        std::vector<uint8_t> past_shadow = leaving_spare();
        for (size_t k = 1; k < queue_.size() && k <= opt_.backfill_depth;) {
            const size_t i = queue_[k];
            const int64_t until = t + std::max<int64_t>(jobs_[i].estimate, 1);
            Allocation a;
            bool go = policy_.place(model(), ledger_, request_at(i, t), until > shadow ? past_shadow : free_nodes_, a);
            if (go && until > shadow) {
                std::fill(in_pod.begin(), in_pod.end(), 0);
                for (uint32_t n : a.nodes) ++in_pod[f.node_pod[n]];
                for (const PodShare &s : head_start->shares) go = go && in_pod[s.pod] <= spare[s.pod];
            }
            go = go && !planner.delayed_by(model().inventory(), a.placement.segments, t, until);
            std::vector<Segment> segments = a.placement.segments;
            if (go && start(i, t, a)) {
                if (until > shadow)
                    for (const PodShare &s : head_start->shares) spare[s.pod] -= in_pod[s.pod];
                past_shadow = leaving_spare();
                planner.hold_running(jobs_[i].id, segments, t, until);
                queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(k));
            } else {
                ++k;
            }
        }
        return Backfilled::Done;
    }

    // Moves (move.hpp), for a policy that moves memory: plan_moves() picks them, the target
    // is reserved beside the old region now, and the copy takes its bytes over the path's
    // bandwidth, after which finish_move_of() frees the old region.
    void start_moves(int64_t t) {
        const uint32_t most = model().settings().max_moves;
        if (!opt_.moves || !policy_.soft_bounds_and_moves() || most == 0 || running_.empty()) return;
        for (const MovePlan &m : plan_moves(model(), ledger_, most)) {
            const Reservation *r = ledger_.find(m.job_id);
            std::string why;
            if (!r || !ledger_.reserve(begin_move(*r, m), model().inventory(), &why)) {
                violation("move of job " + std::to_string(m.job_id) + " refused by the ledger: " + why);
                continue;
            }
            const size_t i = index_of_.at(m.job_id);
            move_began_[i] = t;
            push(
                {t + std::max<int64_t>(1, static_cast<int64_t>(std::ceil(m.seconds))), EventKind::MoveDone, seq_++, i});
        }
    }

    // The copy is done: the job's hot memory is the target now. Its run is charged for the time
    // it spent far (its work so far went at the old pace, the copy included) and for the copy
    // itself (pages being copied stall the job), then goes on at the new pace; a job that now
    // ends past its time limit is killed there, as Slurm would.
    void finish_move_of(size_t i, int64_t t) {
        JobOutcome &o = r_.jobs[i];
        auto it = std::find_if(running_.begin(), running_.end(), [&](const RunningJob &r) { return r.job == i; });
        const Reservation *held = ledger_.find(o.id);
        if (it == running_.end() || !held || !moving(*held)) return;  // ended during the copy
        Reservation done = finish_move(*held);
        std::string why;
        if (!ledger_.reserve(done, model().inventory(), &why)) {
            violation("finishing the move of job " + std::to_string(o.id) + ": " + why);
            return;
        }
        double weighted = 0, bytes = 0;
        for (const Segment &s : done.segments)
            if (s.use == Use::Hot) {
                weighted += static_cast<double>(s.bytes) * s.latency_ns;
                bytes += static_cast<double>(s.bytes);
            }
        const int64_t copy_s = t - move_began_[i];
        o.moved_hot_latency_ns = bytes ? weighted / bytes : 0;
        repace(*it, t, true_latency(done.segments, it->nodes, o.bound_ns), copy_s);
        it->in_bound_share = in_bound_share(done);
        o.moved_at = t;
        ++o.moves;
        ++r_.moves;
        r_.move_seconds += static_cast<double>(copy_s);
    }

    void audit(int64_t t) {
        const Inventory &inv = model().inventory();
        for (uint32_t b = 0; b < ledger_.blade_count(); ++b)
            for (size_t tier = 0; tier < kTierCount; ++tier)
                if (ledger_.reserved(b, static_cast<Tier>(tier)) > inv.blades[b].capacity[tier])
                    violation("t=" + std::to_string(t) + ": blade " + model().fabric().blades[b].name + " " +
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

    // Placement reads placing_: the fabric's model (base_), or with the heat map's live
    // latencies (live_). Feasibility at submission and the books read base_.
    const ClusterModel &model() const { return *placing_; }
    static bool fabric_event(const SimEvent &e) { return e.kind == EventKind::Latency || e.kind == EventKind::Probe; }
    void push(const SimEvent &e) {
        jobs_pending_ += !fabric_event(e);
        events_.push(e);
    }

    const ClusterModel &base_;
    const ClusterModel *placing_;
    std::shared_ptr<const ClusterModel> live_;
    std::optional<FabricLatency> truth_;
    HeatMap heat_;
    std::vector<std::vector<uint32_t>> probed_;  // per pod: the blades its nodes probe
    std::vector<std::pair<int64_t, int64_t>> probe_periods_;  // [from, to), sorted, apart
    size_t jobs_pending_ = 0;  // job events in events_
    PlacementPolicy &policy_;
    const std::vector<SimJob> &jobs_;
    const SimOptions &opt_;
    Ledger ledger_;
    std::vector<uint8_t> free_nodes_;
    std::vector<uint32_t> pod_free_;
    LinkBook book_;  // checkpoint windows of the running jobs (SimOptions::checkpoints)
    std::vector<std::vector<uint32_t>> pods_in_bound_;
    size_t free_count_ = 0, done_ = 0;
    uint64_t busy_gpus_ = 0, hot_bytes_ = 0, cold_bytes_ = 0;
    std::priority_queue<SimEvent, std::vector<SimEvent>, Later> events_;
    std::deque<size_t> queue_;
    std::vector<RunningJob> running_;
    uint64_t seq_ = 0;
    std::vector<uint32_t> end_generation_;  // per job: the End event that counts
    std::vector<uint8_t> lapsed_early_;  // per job: soft bound lapsed before its wait was over
    std::vector<int64_t> move_began_;  // per job: when its move's copy began
    std::unordered_map<uint64_t, size_t> index_of_;  // job id -> index
    int64_t now_ = 0, next_sample_ = 0, interval_ = 1;
    SimResult r_;
};

}  // namespace

SimResult simulate(const ClusterModel &model, PlacementPolicy &policy, const std::vector<SimJob> &jobs,
                   const SimOptions &options) {
    return Replay(model, policy, jobs, options).run();
}

}  // namespace morpheus::sim
