// The C ABI of include/morpheus/morpheus.h over Engine. Every entry point catches everything:
// no C++ exception may unwind into slurmctld.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <optional>
#include <string>

#include "engine.hpp"
#include "explain.hpp"
#include "metrics.hpp"
#include "pending_reason.hpp"
#include "capi_guard.hpp"
#include "capi_request.hpp"
#include "charge.hpp"
#include "checkpoint.hpp"
#include "config.hpp"
#include "input_error.hpp"
#include "lifecycle.hpp"
#include "planner.hpp"
#include "soft_bound.hpp"
#include "morpheus/morpheus.h"
#include "node_addresses.hpp"
#include "status_model.hpp"
#include "status_queries.hpp"
#include "status_service.hpp"

using namespace morpheus;
using morpheus::capi::guarded;
using morpheus::capi::set_error;
using morpheus::capi::to_request;

namespace {

// The request as the engine decides it now: a soft bound whose wait is over lapses.
Request request_now(const ClusterModel &m, const morpheus_request_t *r, int64_t now = std::time(nullptr)) {
    Request q = to_request(r);
    q.bound_lapsed = r->waiting_since > 0 && bound_lapsed(m, q, r->waiting_since, now);
    return q;
}

}  // namespace

namespace {

// When a checkpointing job's flush window can be booked, from `from` on (the time its memory and
// nodes are free): windows free as the running jobs holding them end, soonest first. The
// region is judged against today's persistent memory. Throws the link that stays full when no
// end frees it (a holder without a time limit).
int64_t checkpoint_start(const Engine &engine, const ClusterModel &m, const Request &q,
                         const std::vector<PodShare> &shares, int64_t from, const std::map<uint64_t, int64_t> &ends) {
    LinkBook book = engine.links();
    Ledger ledger = engine.ledger();
    book.release(q.job_id);  // a requeued job's own window and region are its to keep
    ledger.release(q.job_id);
    std::vector<std::pair<int64_t, uint64_t>> holders;
    for (const auto &[id, b] : book.bookings()) {
        auto it = ends.find(id);
        holders.emplace_back(it == ends.end() ? kForever : it->second, id);
    }
    std::sort(holders.begin(), holders.end());
    int64_t at = from;
    std::string why;
    for (size_t k = 0;;) {
        while (k < holders.size() && holders[k].first <= at) book.release(holders[k++].second);
        CheckpointGrant grant;
        if (plan_checkpoint(m, ledger, book, q, shares, grant, &why)) return at;
        if (k >= holders.size() || holders[k].first >= kForever) break;
        at = holders[k].first;
    }
    throw Refusal("Morpheus: checkpoint: " + why, false);
}

}  // namespace

struct morpheus_engine {
    Engine engine;
    PendingPlan last_plan;  // what the last morpheus_earliest_start() found, for morpheus_keep_plan()
    NodeAddresses addresses;  // Slurm's node addresses: who may report latencies for a node
    std::unique_ptr<StatusService> status;  // declared last: stopped before the engine goes
    std::unique_ptr<StatusService> metrics;  // MetricsPort: HTTP, with the status service
    morpheus_engine(const char *conf, const char *state) : engine(conf, state ? state : "") {}
};

struct morpheus_plan {
    NodePlan plan;
    std::shared_ptr<const ClusterModel> model;
};

namespace {

char *dup_or_null(const std::string &s) {
    char *p = static_cast<char *>(std::malloc(s.size() + 1));
    if (p) std::memcpy(p, s.c_str(), s.size() + 1);
    return p;
}

constexpr size_t kExplainedPods = 8;

// Keeps the decision for `morpheus explain` and counts it for `morpheus metrics`.
void remember(Engine &engine, const Request &q, const Decision &d, double seconds) {
    DecisionLog &log = engine.decisions();
    const DecisionRecord *previous = log.find(q.job_id);
    // Pending: the short reason Slurm shows; the whole one is in the explanation.
    const std::string reason = d.verdict == Verdict::Pending ? pending_reason(engine.model(), q, d) : d.reason;
    bool same = previous && previous->verdict == verdict_name(d.verdict) && previous->reason == reason;
    if (seconds > 0 || d.verdict == Verdict::Impossible) log.count_decision(verdict_name(d.verdict), seconds);
    if (d.verdict != Verdict::Placed && !same && !d.pods.empty())
        log.count_rejection(d.verdict == Verdict::Impossible
                                ? std::string("impossible-") + rule_out_name(d.pods.front().ruled_out)
                                : rule_out_name(d.pods.front().ruled_out));
    // Job id 0 is a submission not yet accepted (job_submit): nothing to explain later.
    if (same || q.job_id == 0) return;  // a pending job re-tested each cycle: keep the first explanation's time
    DecisionRecord r;
    r.job_id = q.job_id;
    r.uid = q.uid;
    r.when = static_cast<int64_t>(std::time(nullptr));
    r.verdict = verdict_name(d.verdict);
    r.reason = reason;
    // Kept for every pending and running job: the eight best pods and a count of the rest (a
    // 16-pod table was 1.9 KiB a job, most of slurmctld's extra memory at 128 nodes with a
    // queue of thousands; issue 26), no spare capacity.
    r.explanation = explain_text(engine.model(), q, d, kExplainedPods);
    r.explanation.shrink_to_fit();
    log.record(std::move(r));
}

}  // namespace

MORPHEUS_API morpheus_engine_t *morpheus_engine_open(const char *conf_path, const char *default_state_file,
                                                     morpheus_error_t *err) {
    morpheus_engine_t *e = nullptr;
    guarded(err, [&] {
        if (!conf_path) throw InputError("", "", "no morpheus.conf path given");
        e = new morpheus_engine(conf_path, default_state_file);
        return 0;
    });
    return e;
}

MORPHEUS_API int morpheus_engine_sync(morpheus_engine_t *e, morpheus_error_t *err) {
    return guarded(err, [&] {
        std::lock_guard<std::mutex> g(e->engine.lock());
        e->engine.sync();
        return 0;
    });
}

MORPHEUS_API void morpheus_engine_close(morpheus_engine_t **engine) {
    if (!engine || !*engine) return;
    try {
        std::lock_guard<std::mutex> g((*engine)->engine.lock());
        (*engine)->engine.sync();
    } catch (...) {}
    delete *engine;
    *engine = nullptr;
}

// Not under lock(): Engine::reload() and refresh_inventory() parse unlocked and take it only to
// swap, so planning and reserving go on while a big fabric is read.
MORPHEUS_API int morpheus_engine_reload(morpheus_engine_t *e, morpheus_error_t *err) {
    return guarded(err, [&] {
        e->engine.reload();
        return 0;
    });
}

MORPHEUS_API int morpheus_engine_refresh_inventory(morpheus_engine_t *e, int64_t now, morpheus_error_t *err) {
    return guarded(err, [&] { return e->engine.refresh_inventory(now) ? 1 : 0; });
}

MORPHEUS_API int morpheus_report_latency(morpheus_engine_t *e, const char *node_name, const char *blade_name,
                                         uint64_t latency_ns, int64_t now, morpheus_error_t *err) {
    return guarded(err, [&] {
        if (!node_name || !blade_name) throw InputError("", "latency report", "no node or blade name given");
        std::lock_guard<std::mutex> g(e->engine.lock());
        e->engine.report_latency(node_name, blade_name, latency_ns, now);
        return 0;
    });
}

// Not under lock(), like the refresh: the engine takes it to settle and to swap the model.
MORPHEUS_API int morpheus_heat_map_settle(morpheus_engine_t *e, int64_t now, morpheus_error_t *err) {
    return guarded(err, [&] { return e->engine.settle_heat_map(now) ? 1 : 0; });
}

MORPHEUS_API int morpheus_heat_map_settle_due(morpheus_engine_t *e, int64_t now, morpheus_error_t *err) {
    return guarded(err, [&] { return e->engine.settle_heat_map_if_due(now) ? 1 : 0; });
}

MORPHEUS_API size_t morpheus_jobs_newly_beyond_bound(morpheus_engine_t *e, uint64_t *ids, size_t max) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        std::vector<uint64_t> jobs = e->engine.take_newly_beyond_bound(max);
        std::copy(jobs.begin(), jobs.end(), ids);
        return jobs.size();
    } catch (...) {
        return 0;
    }
}

MORPHEUS_API const char *morpheus_engine_beyond_bound_policy(const morpheus_engine_t *e) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        return beyond_bound_policy_name(e->engine.config().beyond_bound_policy);  // a literal: static
    } catch (...) {
        return "none";
    }
}

// Not under lock(): resolving a changed NodeAddr may wait for DNS; the table has its own lock.
MORPHEUS_API int morpheus_set_node_addresses(morpheus_engine_t *e, const char *const *names, const char *const *addrs,
                                             const char *const *hostnames, size_t count, morpheus_error_t *err) {
    return guarded(err, [&] {
        std::vector<NodeAddresses::Entry> table;
        for (size_t i = 0; i < count; ++i)
            if (names[i])
                table.push_back(
                    {names[i], addrs && addrs[i] ? addrs[i] : "", hostnames && hostnames[i] ? hostnames[i] : ""});
        e->addresses.update(table);
        return 0;
    });
}

// The accessors lock like every other call: a reload swaps the config and the model they read.
// None may throw out (std::mutex::lock can, in theory): each answers "nothing" instead.
MORPHEUS_API char *morpheus_engine_state_file(const morpheus_engine_t *e) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        return dup_or_null(e->engine.state_file());  // a copy: a reload may replace the string
    } catch (...) {
        return nullptr;
    }
}

MORPHEUS_API const char *morpheus_engine_failure_policy(const morpheus_engine_t *e) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        return policy_name(e->engine.config().failure_policy);  // a string literal: static
    } catch (...) {
        return "none";
    }
}

MORPHEUS_API int morpheus_engine_status_port(const morpheus_engine_t *e) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        return e->engine.config().status_port;
    } catch (...) {
        return 0;
    }
}

MORPHEUS_API char *morpheus_engine_status_address(const morpheus_engine_t *e) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        return dup_or_null(e->engine.config().status_address);  // a copy: a reload may replace it
    } catch (...) {
        return nullptr;
    }
}

MORPHEUS_API size_t morpheus_node_count(const morpheus_engine_t *e) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        return e->engine.model().fabric().node_names.size();
    } catch (...) {
        return 0;
    }
}

MORPHEUS_API int morpheus_node_index(const morpheus_engine_t *e, const char *node_name) {
    if (!node_name) return -1;
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        return e->engine.model().fabric().node_index(node_name);
    } catch (...) {
        return -1;
    }
}

MORPHEUS_API uint64_t morpheus_engine_generation(const morpheus_engine_t *e) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        return e->engine.generation();
    } catch (...) {
        return 0;
    }
}

MORPHEUS_API uint64_t morpheus_engine_epoch(const morpheus_engine_t *e) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        return e->engine.epoch();
    } catch (...) {
        return UINT64_MAX;  // never equal to a kept epoch for long: decide afresh
    }
}

MORPHEUS_API void morpheus_decision_cache_counts(morpheus_engine_t *e, uint64_t hits, uint64_t misses) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        e->engine.decisions().set_cache_counts(hits, misses);
    } catch (...) {}
}

MORPHEUS_API void morpheus_test_timing(morpheus_engine_t *e, const morpheus_test_timing_t *t) {
    if (!t) return;
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        auto mode = [](const morpheus_mode_timing_t &m) {
            return morpheus::DecisionLog::ModeTiming{
                m.tests, m.cons_tres_runs, m.seconds, m.cons_tres_seconds, m.lock_wait_seconds, m.cons_tres_remembered};
        };
        e->engine.decisions().set_test_timing({mode(t->run_now), mode(t->will_run), t->begins, t->begin_seconds});
    } catch (...) {}
}

MORPHEUS_API void morpheus_engine_set_background_saves(morpheus_engine_t *e, int on) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        e->engine.set_background_saves(on != 0);
    } catch (...) {}
}

MORPHEUS_API int morpheus_engine_flush(morpheus_engine_t *e, int seconds) {
    try {
        return e->engine.flush(seconds) ? 0 : -1;
    } catch (...) {
        return -1;
    }
}

MORPHEUS_API void morpheus_engine_touch(morpheus_engine_t *e) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        e->engine.touch();
    } catch (...) {}
}

MORPHEUS_API int morpheus_bound_lapsed(morpheus_engine_t *e, const morpheus_request_t *req, int64_t now) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        return req->waiting_since > 0 && bound_lapsed(e->engine.model(), to_request(req), req->waiting_since, now);
    } catch (...) {
        return 0;
    }
}

MORPHEUS_API int morpheus_check_feasible(morpheus_engine_t *e, const morpheus_request_t *req, morpheus_error_t *err) {
    return guarded(err, [&] {
        // The fabric's latencies, not the live ones: a blade degraded now may recover.
        std::shared_ptr<const ClusterModel> model;
        {
            std::lock_guard<std::mutex> g(e->engine.lock());
            model = e->engine.fabric_model_ptr();
        }
        Request q = to_request(req);
        std::string too_long = wait_refusal(*model, q);
        if (!too_long.empty()) throw Refusal("Morpheus: " + too_long, true);
        std::vector<uint8_t> allowed;
        if (req->allowed_nodes)
            allowed.assign(req->allowed_nodes, req->allowed_nodes + model->fabric().node_names.size());
        Decision d = feasibility(*model, q, req->allowed_nodes ? &allowed : nullptr);
        if (d.verdict == Verdict::Impossible) {
            std::lock_guard<std::mutex> g(e->engine.lock());
            remember(e->engine, q, d, 0);
            throw Refusal("Morpheus: " + d.reason, true);
        }
        return 0;
    });
}

MORPHEUS_API uint32_t morpheus_most_nodes(const morpheus_job_size_t *size) {
    JobSize s;
    s.min_nodes = size->min_nodes;
    s.max_nodes = size->max_nodes;
    s.tasks = size->tasks;
    s.gpus = size->gpus;
    s.cluster_nodes = size->cluster_nodes;
    return most_nodes(s);
}

namespace {

// LicenseHot=/LicenseCold= of the engine's morpheus.conf, or of conf_path's alone.
std::pair<std::string, std::string> license_names(morpheus_engine_t *e, const char *conf_path) {
    if (e) {
        std::lock_guard<std::mutex> g(e->engine.lock());
        return {e->engine.config().license_hot, e->engine.config().license_cold};
    }
    if (!conf_path) throw InputError("", "", "no morpheus.conf to read the charge's licence names from");
    Config c = read_config(conf_path);
    return {c.license_hot, c.license_cold};
}

}  // namespace

MORPHEUS_API int morpheus_charge_licenses(morpheus_engine_t *e, const char *conf_path, const morpheus_request_t *req,
                                          uint32_t nodes, const char *named, char **licenses, morpheus_error_t *err) {
    *licenses = nullptr;
    return guarded(err, [&] {
        auto [hot, cold] = license_names(e, conf_path);
        std::string charge = license_request(to_request(req), nodes ? nodes : 1, hot, cold);
        std::string merged = merge_charge(named ? named : "", charge, "--licenses");
        if (!merged.empty() && !(*licenses = dup_or_null(merged))) throw std::bad_alloc();
        return 0;
    });
}

MORPHEUS_API int morpheus_charge_covers(morpheus_engine_t *e, const morpheus_request_t *req, uint32_t nodes,
                                        const char *licenses, morpheus_error_t *err) {
    return guarded(err, [&] {
        auto [hot, cold] = license_names(e, nullptr);
        std::string charge = license_request(to_request(req), nodes ? nodes : 1, hot, cold);
        std::string carried = licenses ? licenses : "";
        for (const std::string &name : {hot, cold}) {
            if (name.empty()) continue;
            uint64_t need = license_count(charge, name), have = license_count(carried, name);
            if (need > have)
                throw Refusal("Morpheus: " + std::to_string(nodes) + " nodes hold " + std::to_string(need) +
                                  " GiB of blade memory, the job is charged " + std::to_string(have) + " (" + name +
                                  "); it may not run on more nodes than it was charged for",
                              false);
        }
        return 0;
    });
}

MORPHEUS_API morpheus_plan_t *morpheus_plan_new(morpheus_engine_t *e, const morpheus_request_t *req,
                                                const uint8_t *free_nodes, morpheus_error_t *err) {
    morpheus_plan_t *plan = nullptr;
    guarded(err, [&] {
        std::lock_guard<std::mutex> g(e->engine.lock());
        const ClusterModel &m = e->engine.model();
        std::vector<uint8_t> flags(free_nodes, free_nodes + m.fabric().node_names.size());
        Request q = request_now(m, req);
        auto t0 = std::chrono::steady_clock::now();
        std::vector<uint8_t> allowed;
        if (req->allowed_nodes) {
            allowed.assign(req->allowed_nodes, req->allowed_nodes + m.fabric().node_names.size());
            for (size_t i = 0; i < flags.size(); ++i) flags[i] = flags[i] && allowed[i];  // steps offer these only
        }
        // The job's own kept checkpoint region and window (a requeued job) are not in its way:
        // it is decided against the ledger and book without them (reserve keeps them).
        const Ledger *ledger = &e->engine.ledger();
        const LinkBook *links = &e->engine.links();
        std::optional<Ledger> without_own;
        std::optional<LinkBook> book_without_own;
        if (const Reservation *own = ledger->find(q.job_id); own && own->checkpoint.waiting) {
            without_own.emplace(*ledger);
            without_own->release(q.job_id);
            book_without_own.emplace(*links);
            book_without_own->release(q.job_id);
            ledger = &*without_own;
            links = &*book_without_own;
            // A copy lost with a failed blade is not asked of the restart: the job restores
            // from the copies left (reserve keeps them), as many as there are.
            const uint32_t intact = region_health(m, *own).intact;
            if (intact && intact < q.replicas()) q.ckpt_replicas = intact;
        }
        Decision d = decide(m, *ledger, q, flags, req->allowed_nodes ? &allowed : nullptr, links);
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        remember(e->engine, q, d, seconds);
        if (d.verdict != Verdict::Placed)
            throw Refusal("Morpheus: " + pending_reason(m, q, d), d.verdict == Verdict::Impossible);
        auto p = std::make_unique<morpheus_plan>();
        p->model = e->engine.model_ptr();
        p->plan = plan_of(m, d, flags);
        plan = p.release();
        return 0;
    });
    return plan;
}

MORPHEUS_API size_t morpheus_plan_steps(const morpheus_plan_t *plan) { return plan ? plan->plan.steps.size() : 0; }

MORPHEUS_API void morpheus_plan_step_nodes(const morpheus_plan_t *plan, size_t k, uint8_t *allowed) {
    step_nodes(*plan->model, plan->plan, k, allowed);
}

MORPHEUS_API const char *morpheus_plan_step_pods(const morpheus_plan_t *plan, size_t k) {
    return k < plan->plan.names.size() ? plan->plan.names[k].c_str() : "";
}

MORPHEUS_API void morpheus_plan_destroy(morpheus_plan_t **plan) {
    if (!plan || !*plan) return;
    delete *plan;
    *plan = nullptr;
}

MORPHEUS_API int morpheus_reserve(morpheus_engine_t *e, const morpheus_request_t *req, const uint32_t *nodes,
                                  size_t node_count, morpheus_error_t *err) {
    return guarded(err, [&] {
        std::lock_guard<std::mutex> g(e->engine.lock());
        e->engine.reserve(request_now(e->engine.model(), req), std::vector<uint32_t>(nodes, nodes + node_count));
        return 0;
    });
}

MORPHEUS_API int morpheus_release(morpheus_engine_t *e, uint64_t job_id, morpheus_error_t *err) {
    return guarded(err, [&] {
        std::lock_guard<std::mutex> g(e->engine.lock());
        // The job ended (or was requeued, and will be decided afresh): its decision goes, so
        // the log holds live jobs only and slurmctld's memory does not grow with the stream.
        e->engine.decisions().forget(job_id);
        return e->engine.release(job_id) ? 1 : 0;
    });
}

MORPHEUS_API int morpheus_release_for_requeue(morpheus_engine_t *e, uint64_t job_id, morpheus_error_t *err) {
    return guarded(err, [&] {
        std::lock_guard<std::mutex> g(e->engine.lock());
        e->engine.decisions().forget(job_id);
        return e->engine.release_for_requeue(job_id);
    });
}

MORPHEUS_API size_t morpheus_jobs_checkpoint_degraded(morpheus_engine_t *e, uint64_t *ids, size_t max) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        std::vector<uint64_t> jobs = e->engine.jobs_checkpoint_degraded();
        for (size_t i = 0; i < std::min(max, jobs.size()); ++i) ids[i] = jobs[i];
        return jobs.size();
    } catch (...) {
        return 0;
    }
}

MORPHEUS_API int morpheus_retry_releases(morpheus_engine_t *e, morpheus_error_t *err) {
    return guarded(err, [&] {
        std::lock_guard<std::mutex> g(e->engine.lock());
        return static_cast<int>(e->engine.retry_releases());
    });
}

MORPHEUS_API int morpheus_reconcile(morpheus_engine_t *e, const uint64_t *running_ids, size_t running_count,
                                    const uint64_t *pending_ids, size_t pending_count, morpheus_error_t *err) {
    return guarded(err, [&] {
        std::lock_guard<std::mutex> g(e->engine.lock());
        return static_cast<int>(e->engine.reconcile(std::vector<uint64_t>(running_ids, running_ids + running_count),
                                                    std::vector<uint64_t>(pending_ids, pending_ids + pending_count)));
    });
}

MORPHEUS_API char *morpheus_job_summary(morpheus_engine_t *e, uint64_t job_id) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        const Reservation *r = e->engine.ledger().find(job_id);
        return r ? dup_or_null(reservation_summary(e->engine.model(), *r)) : nullptr;
    } catch (...) {
        return nullptr;
    }
}

MORPHEUS_API char *morpheus_job_environment(morpheus_engine_t *e, uint64_t job_id) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        const Reservation *r = e->engine.ledger().find(job_id);
        return r ? dup_or_null(reservation_environment(e->engine.model(), *r)) : nullptr;
    } catch (...) {
        return nullptr;
    }
}

MORPHEUS_API size_t morpheus_jobs_on_failed_blades(morpheus_engine_t *e, uint64_t *ids, size_t max) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        std::vector<uint64_t> jobs = e->engine.jobs_on_failed_blades();
        size_t n = std::min(max, jobs.size());
        for (size_t i = 0; i < n; ++i) ids[i] = jobs[i];
        return n;
    } catch (...) {
        return 0;
    }
}

MORPHEUS_API size_t morpheus_jobs_newly_affected(morpheus_engine_t *e, uint64_t *ids, size_t max) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        std::vector<uint64_t> jobs = e->engine.take_newly_affected();
        size_t n = std::min(max, jobs.size());
        for (size_t i = 0; i < n; ++i) ids[i] = jobs[i];
        return n;
    } catch (...) {
        return 0;
    }
}

MORPHEUS_API int morpheus_engine_start_moves(morpheus_engine_t *e, int64_t now, morpheus_error_t *err) {
    return guarded(err, [&] {
        std::lock_guard<std::mutex> g(e->engine.lock());
        return static_cast<int>(e->engine.start_moves(now).size());
    });
}

MORPHEUS_API int morpheus_engine_finish_move(morpheus_engine_t *e, uint64_t job_id, int64_t now,
                                             morpheus_error_t *err) {
    return guarded(err, [&] {
        std::lock_guard<std::mutex> g(e->engine.lock());
        return e->engine.finish_move(job_id, now) ? 1 : 0;
    });
}

MORPHEUS_API int morpheus_engine_abandon_move(morpheus_engine_t *e, uint64_t job_id, int64_t now,
                                              morpheus_error_t *err) {
    return guarded(err, [&] {
        std::lock_guard<std::mutex> g(e->engine.lock());
        return e->engine.abandon_move(job_id, now) ? 1 : 0;
    });
}

MORPHEUS_API size_t morpheus_engine_take_moved(morpheus_engine_t *e, uint64_t *ids, size_t max) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        std::vector<uint64_t> jobs = e->engine.take_moved(max);
        for (size_t i = 0; i < jobs.size(); ++i) ids[i] = jobs[i];
        return jobs.size();
    } catch (...) {
        return 0;
    }
}

MORPHEUS_API char *morpheus_status_json(morpheus_engine_t *e, uint32_t viewer_uid, int privileged) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        return dup_or_null(
            status_json(e->engine.model(), e->engine.ledger(), privileged ? -1 : static_cast<long>(viewer_uid)));
    } catch (...) {
        return nullptr;
    }
}

// The heat map as the views see it now (hold the engine's lock while using it).
static LiveState live_state(const Engine &engine) {
    return {&engine.heat_map(), static_cast<int64_t>(std::time(nullptr)), engine.config().heat_metric_cells};
}

struct morpheus_status_service {
    std::unique_ptr<StatusService> service, metrics;
};

MORPHEUS_API int morpheus_status_service_start_ex(morpheus_engine_t *e, int port, const char *default_address,
                                                  const uint32_t *privileged_uids, size_t count, unsigned flags,
                                                  morpheus_error_t *err) {
    return guarded(err, [&] {
        if (port <= 0 || port > 65535) throw InputError("", "StatusPort", "not a TCP port: " + std::to_string(port));
        e->metrics.reset();
        e->status.reset();
        StatusServiceOptions o;
        o.port = static_cast<uint16_t>(port);
        o.address = e->engine.config().status_address;
        if (o.address.empty()) o.address = default_address && *default_address ? default_address : "127.0.0.1";
        o.privileged_uids.assign(privileged_uids, privileged_uids + count);
        o.private_jobs = flags & MORPHEUS_STATUS_PRIVATE_JOBS;
        Engine *engine = &e->engine;
        const NodeAddresses *addresses = &e->addresses;
        const bool private_jobs = o.private_jobs;
        e->status = std::make_unique<StatusService>(
            std::move(o), [engine, addresses, private_jobs](const Credential &caller, bool privileged) {
                // Only the answer holds the engine lock: decoding and sending happen outside it.
                std::lock_guard<std::mutex> g(engine->lock());
                if (auto node_answer = answer_node_query(*engine, caller.uid, caller.payload, std::time(nullptr),
                                                         addresses, caller.origin))
                    return *node_answer;
                return answer_status_query(engine->model(), engine->ledger(), engine->decisions(), caller.uid,
                                           privileged, caller.payload, private_jobs, live_state(*engine));
            });
        if (uint16_t metrics_port = e->engine.config().metrics_port) {
            StatusServiceOptions m;
            m.http = true;
            m.port = metrics_port;
            m.address = e->status->options().address;
            m.max_connections = 16;  // a scraper or two, not a crowd
            try {
                e->metrics = std::make_unique<StatusService>(std::move(m), [engine](const Credential &, bool) {
                    std::lock_guard<std::mutex> g(engine->lock());
                    return metrics_text(engine->model(), engine->ledger(), engine->decisions(), live_state(*engine));
                });
            } catch (const InputError &) {
                e->status.reset();  // both or neither: the watcher retries them together
                throw;
            }
        }
        return 0;
    });
}

MORPHEUS_API int morpheus_status_service_start(morpheus_engine_t *e, int port, const uint32_t *privileged_uids,
                                               size_t count, morpheus_error_t *err) {
    return morpheus_status_service_start_ex(e, port, nullptr, privileged_uids, count, 0, err);
}

MORPHEUS_API const char *morpheus_status_service_address(const morpheus_engine_t *e) {
    return e && e->status ? e->status->options().address.c_str() : "";
}

MORPHEUS_API morpheus_status_service_t *morpheus_status_service_detach(morpheus_engine_t *e) {
    if (!e || !e->status) return nullptr;
    try {
        auto *s = new morpheus_status_service;
        s->service = std::move(e->status);
        s->metrics = std::move(e->metrics);
        return s;
    } catch (...) {
        e->status.reset();  // out of memory: stop it here rather than leak a running thread
        e->metrics.reset();
        return nullptr;
    }
}

MORPHEUS_API void morpheus_status_service_destroy(morpheus_status_service_t **service) {
    if (!service || !*service) return;
    delete *service;
    *service = nullptr;
}

MORPHEUS_API void morpheus_status_service_stop(morpheus_engine_t *e) {
    if (e) {
        e->metrics.reset();
        e->status.reset();
    }
}

MORPHEUS_API size_t morpheus_pending_decisions(morpheus_engine_t *e, uint64_t *ids, size_t max) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        size_t n = 0;
        for (const auto &[id, r] : e->engine.decisions().records()) {
            if (n == max) break;
            if (!e->engine.ledger().find(id)) ids[n++] = id;
        }
        return n;
    } catch (...) {
        return 0;
    }
}

MORPHEUS_API size_t morpheus_reserved_jobs(morpheus_engine_t *e, uint64_t *ids, size_t max) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        size_t n = 0;
        for (const auto &[id, r] : e->engine.ledger().reservations()) {
            if (n < max) ids[n] = id;
            ++n;
        }
        return n;
    } catch (...) {
        return 0;
    }
}

MORPHEUS_API void morpheus_forget_decision(morpheus_engine_t *e, uint64_t job_id) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        e->engine.decisions().forget(job_id);
    } catch (...) {}
}

// The ledger as time goes on: each reservation held until its job's end, the request tried on
// every pod with enough candidate nodes, the soonest kept. assign_blades() judges each time
// (inside Planner::earliest_start): the placement it would get then is the one decide() gives.
MORPHEUS_API int morpheus_earliest_start(morpheus_engine_t *e, const morpheus_request_t *req,
                                         const uint8_t *candidate_nodes, int64_t now, int64_t duration,
                                         const uint64_t *running_ids, const int64_t *running_ends, size_t running_count,
                                         int64_t *start, uint8_t *pod_nodes, morpheus_error_t *err) {
    return guarded(err, [&] {
        std::lock_guard<std::mutex> g(e->engine.lock());
        const ClusterModel &m = e->engine.model();
        const Fabric &f = m.fabric();
        std::map<uint64_t, int64_t> ends;
        for (size_t i = 0; i < running_count; ++i) ends[running_ids[i]] = running_ends[i];
        Planner planner(f.blades.size());
        hold_running_jobs(planner, e->engine.ledger(), ends, now);
        // A soft bound whose wait is over is planned beyond it too, as the simulator plans it.
        Request q = request_now(m, req, now);
        std::string why;
        std::optional<PodStart> best = earliest_pod_start(
            planner, m, q,
            [&](uint32_t p, uint32_t need) {
                uint32_t have = 0;
                for (uint32_t i = 0; i < f.pods[p].node_count; ++i)
                    have += candidate_nodes[f.pods[p].first_node + i] != 0;
                return have >= need ? now : kForever;
            },
            now, duration, &why);
        if (!best) throw Refusal("Morpheus: " + why, false);  // no start within the plan's horizon
        Slot slot = best->slot;
        if (q.wants_checkpoint()) slot.start = checkpoint_start(e->engine, m, q, best->shares, slot.start, ends);
        *start = slot.start;
        e->last_plan = PendingPlan{};
        e->last_plan.job_id = req->job_id;
        e->last_plan.segments = slot.placement.segments;
        e->last_plan.start = slot.start;
        e->last_plan.end = duration <= 0 || duration >= kForever - slot.start ? kForever : slot.start + duration;
        if (pod_nodes) {
            std::memset(pod_nodes, 0, f.node_names.size());
            for (const PodShare &s : best->shares)
                std::memset(pod_nodes + f.pods[s.pod].first_node, 1, f.pods[s.pod].node_count);
        }
        return 0;
    });
}

MORPHEUS_API int morpheus_keep_plan(morpheus_engine_t *e, uint64_t job_id, uint32_t priority, int64_t submit_time,
                                    int64_t start, int64_t now) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        PendingPlan p = e->last_plan;
        if (p.job_id != job_id || job_id == 0) return 0;
        // Nodes may come later than the memory: the plan holds the memory from the later start.
        if (start > p.start) {
            if (p.end < kForever) p.end += start - p.start;
            p.start = start;
        }
        p.priority = priority;
        p.submit = submit_time;
        p.made_at = now;
        e->engine.plans().expire(now);
        return e->engine.plans().keep(std::move(p), e->engine.config().plan_depth) ? 1 : 0;
    } catch (...) {
        return 0;
    }
}

MORPHEUS_API int morpheus_renew_plan(morpheus_engine_t *e, uint64_t job_id, int64_t now) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        return e->engine.plans().renew(job_id, now) ? 1 : 0;
    } catch (...) {
        return 0;
    }
}

MORPHEUS_API void morpheus_drop_plan(morpheus_engine_t *e, uint64_t job_id) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        e->engine.plans().drop(job_id);
    } catch (...) {}
}

MORPHEUS_API size_t morpheus_planned_jobs(morpheus_engine_t *e, int64_t now, uint64_t *ids, size_t max) {
    try {
        std::lock_guard<std::mutex> g(e->engine.lock());
        e->engine.plans().expire(now);
        std::vector<uint64_t> jobs = e->engine.plans().jobs();
        size_t n = std::min(max, jobs.size());
        for (size_t i = 0; i < n; ++i) ids[i] = jobs[i];
        return n;
    } catch (...) {
        return 0;
    }
}

// The blades the job would get on `nodes` now (as morpheus_reserve would choose them), held
// until now + duration over the running jobs' reservations (until their ends) and the plans
// of the jobs that outrank it: does any planned start move back?
MORPHEUS_API int morpheus_delays_planned(morpheus_engine_t *e, const morpheus_request_t *req, const uint32_t *nodes,
                                         size_t node_count, int64_t now, int64_t duration, uint32_t priority,
                                         int64_t submit_time, const uint64_t *running_ids, const int64_t *running_ends,
                                         size_t running_count, uint64_t *victim, int64_t *victim_start,
                                         morpheus_error_t *err) {
    return guarded(err, [&] {
        std::lock_guard<std::mutex> g(e->engine.lock());
        PlanBook &plans = e->engine.plans();
        plans.expire(now);
        if (plans.size() == 0) return 0;
        Request q = request_now(e->engine.model(), req);
        Placement p = e->engine.place_on(q, std::vector<uint32_t>(nodes, nodes + node_count));
        std::map<uint64_t, int64_t> ends;
        for (size_t i = 0; i < running_count; ++i) ends[running_ids[i]] = running_ends[i];
        const int64_t to = duration <= 0 || duration >= kForever - now ? kForever : now + duration;
        const PendingPlan *hit = plans.delayed_by(e->engine.model().inventory(), e->engine.ledger(), ends, q.job_id,
                                                  priority, submit_time, p.segments, now, to);
        if (!hit) return 0;
        if (victim) *victim = hit->job_id;
        if (victim_start) *victim_start = hit->start;
        return 1;
    });
}
