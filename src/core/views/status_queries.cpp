// One dispatcher for every status view, so live and offline answers cannot drift apart.
#include "status_queries.hpp"

#include <jansson.h>

#include <algorithm>

#include "cluster_model.hpp"
#include "decision_log.hpp"
#include "engine.hpp"
#include "explain.hpp"
#include "json_document.hpp"
#include "ledger.hpp"
#include "metrics.hpp"
#include "move.hpp"
#include "status_model.hpp"

namespace morpheus {

std::string answer_status_query(const ClusterModel &model, const Ledger &ledger, const DecisionLog &log, uint32_t uid,
                                bool privileged, const std::string &request_json, bool private_jobs) {
    json_error_t err;
    json_t *req = json_loads(request_json.c_str(), 0, &err);
    if (!json_is_object(req)) {
        json_decref(req);
        return error_document("malformed request");
    }
    std::string op = json_is_string(json_object_get(req, "op")) ? json_string_value(json_object_get(req, "op")) : "";
    json_int_t job = json_integer_value(json_object_get(req, "job"));
    json_decref(req);

    const Viewer viewer = Viewer::of(uid, privileged, private_jobs);
    if (op == "status") return document_text(to_json(status_snapshot(model, ledger, viewer)));
    if (op == "jobs") return document_text(to_json(job_list(model, ledger, log, viewer)));
    if (op == "fabric") return document_text(to_json(fabric_matrix(model, ledger)));  // no job: the same for all
    if (op == "metrics") return document_text(to_json(MetricsAnswer{metrics_text(model, ledger, log)}));
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
        if (held) answer.holding = reservation_summary(model.fabric(), *held);
        return document_text(to_json(answer));
    }
    return error_document("unknown op \"" + op + "\" (status, jobs, fabric, explain, metrics, moves, move_done)");
}

namespace {

json_t *segments_json(const Fabric &f, const Reservation &r, bool target) {
    json_t *out = json_array();
    for (const Segment &s : r.segments) {
        const bool incoming = s.use == Use::Incoming;
        const bool leaving = s.use == Use::Hot && s.latency_ns > r.hot_latency_bound_ns;
        if (target ? !incoming : !leaving) continue;
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

std::optional<std::string> answer_node_query(Engine &engine, uint32_t uid, const std::string &request_json,
                                             int64_t now) {
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
    json_decref(req);
    if (op != "moves" && op != "move_done") return std::nullopt;
    if (uid != 0)
        return error_document("op \"" + op + "\" is for the nodes only: run it as root on a node (`morpheus node " +
                              "agent`, which slurmd's HealthCheckProgram runs as root), not as uid " +
                              std::to_string(uid));
    const Fabric &f = engine.model().fabric();
    if (bad_name_byte(node) >= 0 || node.size() > 128 || f.node_index(node) < 0)
        return error_document("op \"" + op + "\": give \"node\", a node the fabric lists");
    if (op == "moves") {
        json_t *root = json_object(), *moves = json_array();
        json_object_set_new(root, "node", json_string(node.c_str()));
        for (const MoveUnderWay &w : engine.moves_under_way()) {
            const Reservation *r = engine.ledger().find(w.job_id);
            if (!r || !runs_on(*r, node) || engine.node_has_moved(w.job_id, node)) continue;
            json_t *m = json_object();
            json_object_set_new(m, "job", json_integer(static_cast<json_int_t>(w.job_id)));
            json_object_set_new(m, "bytes", json_integer(static_cast<json_int_t>(w.bytes)));
            json_object_set_new(m, "bound_ns", json_integer(static_cast<json_int_t>(r->hot_latency_bound_ns)));
            json_object_set_new(m, "from", segments_json(f, *r, false));
            json_object_set_new(m, "target", segments_json(f, *r, true));
            json_array_append_new(moves, m);
        }
        json_object_set_new(root, "moves", moves);
        return document_text(root);
    }
    const Reservation *r = engine.ledger().find(static_cast<uint64_t>(job));
    if (!r || !runs_on(*r, node) || !moving(*r))
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
