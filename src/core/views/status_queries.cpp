// One dispatcher for every status view, so live and offline answers cannot drift apart.
#include "status_queries.hpp"

#include <jansson.h>

#include <algorithm>
#include <ctime>

#include "cluster_model.hpp"
#include "decision_log.hpp"
#include "engine.hpp"
#include "explain.hpp"
#include "input_error.hpp"
#include "json_document.hpp"
#include "ledger.hpp"
#include "metrics.hpp"
#include "move.hpp"
#include "node_addresses.hpp"
#include "status_model.hpp"

namespace morpheus {

namespace {

// request[key], when given, as a list of names into `out`; false with `problem` set when it
// is no list of names. Bounded: no more names than a fabric could have blades.
bool name_list(json_t *req, const char *key, std::vector<std::string> &out, std::string &problem) {
    json_t *list = json_object_get(req, key);
    if (!list) return true;
    bool good = json_is_array(list) && json_array_size(list) <= 100000;
    size_t i;
    json_t *name;
    if (good) json_array_foreach(list, i, name) {
            if (!json_is_string(name)) good = false;
            if (good) out.push_back(json_string_value(name));
        }
    if (!good) problem = std::string("\"") + key + "\" is not a list of names";
    return good;
}

// request["limit"], when given, a whole number from 1 to `most` into `limit`; false with
// `problem` set when not.
bool limit_of(json_t *req, uint32_t most, const char *what, uint32_t &limit, std::string &problem) {
    json_t *l = json_object_get(req, "limit");
    if (!l) return true;
    if (!json_is_integer(l) || json_integer_value(l) < 1 || json_integer_value(l) > most) {
        problem = std::string("\"limit\" is not a number of ") + what + " from 1 to " + std::to_string(most);
        return false;
    }
    limit = static_cast<uint32_t>(json_integer_value(l));
    return true;
}

// The live fabric op's selection; nullopt with `problem` set when the request is malformed.
std::optional<HeatQuery> heat_query(json_t *req, std::string &problem) {
    HeatQuery q;
    q.all = json_is_true(json_object_get(req, "all"));
    if (!name_list(req, "pods", q.pods, problem) || !name_list(req, "blades", q.blades, problem) ||
        !limit_of(req, kMaxHeatCells, "cells", q.limit, problem))
        return std::nullopt;
    return q;
}

// The links op's selection; nullopt with `problem` set when the request is malformed.
std::optional<LinkQuery> link_query(json_t *req, std::string &problem) {
    LinkQuery q;
    if (!name_list(req, "ends", q.ends, problem) || !limit_of(req, kMaxLinkRows, "links", q.limit, problem))
        return std::nullopt;
    if (json_t *jobs = json_object_get(req, "jobs")) {
        bool good = json_is_array(jobs) && json_array_size(jobs) <= 100000;
        size_t i;
        json_t *e;
        if (good) json_array_foreach(jobs, i, e) {
                if (!json_is_integer(e) || json_integer_value(e) <= 0) good = false;
                if (good) q.jobs.push_back(static_cast<uint64_t>(json_integer_value(e)));
            }
        if (!good) {
            problem = "\"jobs\" is not a list of job ids";
            return std::nullopt;
        }
    }
    if (json_t *h = json_object_get(req, "horizon")) {
        if (!json_is_integer(h) || json_integer_value(h) < 0 || json_integer_value(h) > 366 * 86400) {
            problem = "\"horizon\" is not a number of seconds from 0 to a year";
            return std::nullopt;
        }
        q.horizon_s = json_integer_value(h);
    }
    return q;
}

}  // namespace

std::string answer_status_query(const ClusterModel &model, const Ledger &ledger, const DecisionLog &log, uint32_t uid,
                                bool privileged, const std::string &request_json, bool private_jobs,
                                const LiveState &live) {
    json_error_t err;
    json_t *req = json_loads(request_json.c_str(), 0, &err);
    if (!json_is_object(req)) {
        json_decref(req);
        return error_document("malformed request");
    }
    std::string op = json_is_string(json_object_get(req, "op")) ? json_string_value(json_object_get(req, "op")) : "";
    json_int_t job = json_integer_value(json_object_get(req, "job"));
    const bool live_fabric = op == "fabric" && json_is_true(json_object_get(req, "live"));
    std::string problem;
    std::optional<HeatQuery> heat_q = live_fabric ? heat_query(req, problem) : std::nullopt;
    std::optional<LinkQuery> link_q = op == "links" ? link_query(req, problem) : std::nullopt;
    json_decref(req);

    const Viewer viewer = Viewer::of(uid, privileged, private_jobs);
    if (op == "status") return document_text(to_json(status_snapshot(model, ledger, viewer, live)));
    if (op == "jobs") return document_text(to_json(job_list(model, ledger, log, viewer)));
    if (live_fabric) {  // no job in it either: the same for all
        if (!heat_q) return error_document("fabric live: " + problem);
        if (!live.heat)
            return error_document(
                "fabric live: no measurements here: the heat map lives in slurmctld, which the nodes' probes "
                "report to; ask the status service (--server HOST:PORT, or StatusPort= in morpheus.conf)");
        try {
            return document_text(to_json(heat_map_view(model, *live.heat, live.now, *heat_q)));
        } catch (const InputError &e) {
            return error_document("fabric live: " + e.problem());
        }
    }
    if (op == "links") {  // the load is everybody's; each holder only to who may see the job
        if (!link_q) return error_document("links: " + problem);
        try {
            return document_text(
                to_json(link_book_view(model, ledger, viewer, live.now ? live.now : std::time(nullptr), *link_q)));
        } catch (const InputError &e) {
            return error_document("links: " + e.problem());
        }
    }
    if (op == "fabric") return document_text(to_json(fabric_matrix(model, ledger)));  // no job: the same for all
    if (op == "metrics") return document_text(to_json(MetricsAnswer{metrics_text(model, ledger, log, live)}));
    if (op == "explain") {
        const DecisionRecord *r = log.find(static_cast<uint64_t>(job));
        const Reservation *held = ledger.find(static_cast<uint64_t>(job));
        uint32_t owner = r ? r->uid : held ? held->uid : 0;
        // One answer for "none" and "not yours" to an unprivileged viewer: no probing for others' jobs.
        if ((!r && !held) || (!privileged && owner != uid))
            return error_document("job " + std::to_string(job) +
                                  (privileged ? ": Morpheus has no decision for it (no Morpheus flags, or not seen yet)"
                                              : ": Morpheus has no decision for it that you may see (not your job, no "
                                                "Morpheus flags, or not seen yet)"));
        ExplainAnswer answer;
        answer.job_id = static_cast<uint64_t>(job);
        answer.uid = owner;
        if (r) answer.decision = ExplainDecision{r->verdict, r->reason, r->when, r->explanation};
        if (held) answer.holding = reservation_summary(model, *held);
        return document_text(to_json(answer));
    }
    return error_document(
        "unknown op \"" + op +
        "\" (status, jobs, fabric, links, explain, metrics, moves, move_done, probe_blades, report_latency)");
}

namespace {

// The segments of the move that concern `pod` (a node migrates its own pod's share).
json_t *segments_json(const Fabric &f, const Reservation &r, uint32_t pod, bool target) {
    json_t *out = json_array();
    for (const Segment &s : r.segments) {
        if (s.pod != pod || (target ? s.use != Use::Incoming : !leaving(r, s))) continue;
        json_t *o = json_object();
        json_object_set_new(o, "blade", json_string(f.blades[s.blade].name.c_str()));
        json_object_set_new(o, "tier", json_string(tier_name(s.tier)));
        json_object_set_new(o, "bytes", json_integer(static_cast<json_int_t>(s.bytes)));
        json_object_set_new(o, "latency_ns", json_integer(s.latency_ns));
        json_array_append_new(out, o);
    }
    return out;
}

bool runs_on(const Reservation &r, const std::string &node) {
    return std::find(r.nodes.begin(), r.nodes.end(), node) != r.nodes.end();
}

}  // namespace

namespace {

// The entries of a report_latency request, or why it is malformed ("" and filled when good).
std::string latency_entries(json_t *reports, std::vector<Engine::LatencySample> &out) {
    if (!json_is_array(reports)) return "give \"reports\", an array of {\"blade\": NAME, \"latency_ns\": N}";
    if (json_array_size(reports) == 0 || json_array_size(reports) > kMaxLatencyReportEntries)
        return std::to_string(json_array_size(reports)) + " entries: a report holds 1 to " +
               std::to_string(kMaxLatencyReportEntries);
    size_t i;
    json_t *e;
    json_array_foreach(reports, i, e) {
        json_t *blade = json_object_get(e, "blade"), *ns = json_object_get(e, "latency_ns");
        if (!json_is_object(e) || !json_is_string(blade) || !json_is_integer(ns) || json_integer_value(ns) <= 0 ||
            json_object_size(e) != 2)
            return "entry " + std::to_string(i) +
                   " is not {\"blade\": NAME, \"latency_ns\": N} with N a positive whole number";
        out.push_back({json_string_value(blade), static_cast<uint64_t>(json_integer_value(ns))});
    }
    return "";
}

std::string probe_blades_answer(Engine &engine, const std::string &node, int64_t now) {
    const Fabric &f = engine.model().fabric();
    json_t *root = json_object(), *blades = json_array();
    for (uint32_t b : engine.probe_blades(static_cast<uint32_t>(f.node_index(node))))
        json_array_append_new(blades, json_string(f.blades[b].name.c_str()));
    json_object_set_new(root, "node", json_string(node.c_str()));
    json_object_set_new(root, "blades", blades);
    json_object_set_new(root, "report_in", json_integer(engine.heat_report_due_in(node, now)));
    json_object_set_new(root, "report_interval", json_integer(engine.config().heat_report_interval_s));
    return document_text(root);
}

}  // namespace

std::optional<std::string> answer_node_query(Engine &engine, uint32_t uid, const std::string &request_json, int64_t now,
                                             const NodeAddresses *addresses, const std::string &origin) {
    json_error_t err;
    json_t *req = json_loads(request_json.c_str(), 0, &err);
    if (!json_is_object(req)) {
        json_decref(req);
        return std::nullopt;
    }
    json_t *op_j = json_object_get(req, "op"), *node_j = json_object_get(req, "node");
    const std::string op = json_is_string(op_j) ? json_string_value(op_j) : "";
    const std::string node = json_is_string(node_j) ? json_string_value(node_j) : "";
    const json_int_t job = json_integer_value(json_object_get(req, "job"));
    const bool emulated = json_is_true(json_object_get(req, "emulated"));
    std::vector<Engine::LatencySample> batch;
    const std::string malformed = op == "report_latency" ? latency_entries(json_object_get(req, "reports"), batch) : "";
    json_decref(req);
    if (op != "moves" && op != "move_done" && op != "probe_blades" && op != "report_latency") return std::nullopt;
    if (uid != 0)
        return error_document("op \"" + op + "\" is for the nodes only: run it as root on a node (`morpheus node " +
                              "agent`, which slurmd's HealthCheckProgram runs as root), not as uid " +
                              std::to_string(uid));
    const Fabric &f = engine.model().fabric();
    if (bad_name_byte(node) >= 0 || node.size() > 128 || f.node_index(node) < 0)
        return error_document("op \"" + op + "\": give \"node\", a node the fabric lists");
    if (op == "probe_blades") return probe_blades_answer(engine, node, now);
    if (op == "report_latency") {
        if (!malformed.empty()) return error_document("report_latency refused: " + malformed);
        const std::string foreign =
            addresses ? addresses->refuse(node, origin) : "this controller checks no node addresses";
        if (!foreign.empty()) return error_document("report_latency for " + node + " refused: " + foreign);
        size_t taken = 0;
        try {
            taken = engine.report_latencies(node, batch, now);
        } catch (const std::exception &e) {
            return error_document(std::string("report_latency refused: ") + e.what());
        }
        json_t *root = json_object();
        json_object_set_new(root, "node", json_string(node.c_str()));
        json_object_set_new(root, "accepted", json_integer(static_cast<json_int_t>(taken)));
        json_object_set_new(root, "report_in", json_integer(engine.heat_report_due_in(node, now)));
        return document_text(root);
    }
    if (op == "moves") {
        json_t *root = json_object(), *moves = json_array();
        json_object_set_new(root, "node", json_string(node.c_str()));
        for (const MoveUnderWay &w : engine.moves_under_way()) {
            const Reservation *r = engine.ledger().find(w.job_id);
            if (!r || !runs_on(*r, node) || !engine.node_takes_part(*r, node) || engine.node_has_moved(w.job_id, node))
                continue;
            const uint32_t pod = f.node_pod[static_cast<size_t>(f.node_index(node))];
            json_t *m = json_object();
            json_object_set_new(m, "job", json_integer(static_cast<json_int_t>(w.job_id)));
            json_object_set_new(m, "bytes", json_integer(static_cast<json_int_t>(w.bytes)));  // all pods
            json_object_set_new(m, "bound_ns", json_integer(static_cast<json_int_t>(r->hot_latency_bound_ns)));
            json_object_set_new(m, "from", segments_json(f, *r, pod, false));
            json_object_set_new(m, "target", segments_json(f, *r, pod, true));
            json_array_append_new(moves, m);
        }
        json_object_set_new(root, "moves", moves);
        return document_text(root);
    }
    // Finishing a move frees the job's old region: only the node itself may say its pages moved.
    const std::string foreign =
        addresses ? addresses->refuse(node, origin) : "this controller checks no node addresses";
    if (!foreign.empty()) return error_document("move_done for " + node + " refused: " + foreign);
    const Reservation *r = engine.ledger().find(static_cast<uint64_t>(job));
    if (!r || !runs_on(*r, node) || !engine.node_takes_part(*r, node))
        return error_document("move_done: job " + std::to_string(job) + " has no move under way on node " + node);
    bool finished = false;
    try {
        finished = engine.node_moved(static_cast<uint64_t>(job), node, now);
    } catch (const std::exception &e) {  // not saved (disk full): the move stays under way
        return error_document(std::string("move_done: job ") + std::to_string(job) + ": " + e.what());
    }
    json_t *root = json_object();
    json_object_set_new(root, "job", json_integer(job));
    json_object_set_new(root, "node", json_string(node.c_str()));
    // The ledger moves once every node of the job has moved its pages.
    json_object_set_new(root, "finished", json_boolean(finished));
    json_object_set_new(root, "emulated", json_boolean(emulated));
    return document_text(root);
}

}  // namespace morpheus
