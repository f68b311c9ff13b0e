// One dispatcher for every status view, so live and offline answers cannot drift apart.
#include "status_queries.hpp"

#include <jansson.h>

#include <cstdlib>

#include "cluster_model.hpp"
#include "decision_log.hpp"
#include "ledger.hpp"
#include "explain.hpp"
#include "fabric_view.hpp"
#include "json_document.hpp"
#include "metrics.hpp"

namespace morpheus {

namespace {
std::string error_json(const std::string &message) {
    json_t *o = json_object();
    json_object_set_new(o, "error", json_string(message.c_str()));
    return document_text(o);
}

// PrivateData=jobs: drops the entries of other users' jobs from a status document's "jobs".
json_t *own_jobs_only(json_t *jobs, long viewer) {
    json_t *kept = json_array();
    size_t i;
    json_t *j;
    json_array_foreach(jobs, i, j) {
        if (json_integer_value(json_object_get(j, "uid")) == viewer) json_array_append(kept, j);
    }
    json_decref(jobs);
    return kept;
}

std::string private_status_json(const ClusterModel &model, const Ledger &ledger, long viewer) {
    json_error_t e;
    json_t *status = json_loads(status_json(model, ledger, viewer).c_str(), 0, &e);
    json_object_set_new(status, "jobs", own_jobs_only(json_incref(json_object_get(status, "jobs")), viewer));
    return document_text(status);
}
}  // namespace

std::string answer_status_query(const ClusterModel &model, const Ledger &ledger, const DecisionLog &log, uint32_t uid,
                                bool privileged, const std::string &request_json, bool private_jobs) {
    json_error_t err;
    json_t *req = json_loads(request_json.c_str(), 0, &err);
    if (!json_is_object(req)) {
        json_decref(req);
        return error_json("malformed request");
    }
    std::string op = json_is_string(json_object_get(req, "op")) ? json_string_value(json_object_get(req, "op")) : "";
    json_int_t job = json_integer_value(json_object_get(req, "job"));
    json_decref(req);

    const long viewer = privileged ? -1 : static_cast<long>(uid);
    const bool own_only = private_jobs && viewer >= 0;
    if (op == "status")
        return own_only ? private_status_json(model, ledger, viewer) : status_json(model, ledger, viewer);
    if (op == "jobs") {
        // Running jobs from the ledger, then jobs Morpheus holds pending, with their reason.
        json_error_t e2;
        json_t *status = json_loads(status_json(model, ledger, viewer).c_str(), 0, &e2);
        json_t *jobs = json_incref(json_object_get(status, "jobs"));
        json_decref(status);
        if (own_only) jobs = own_jobs_only(jobs, viewer);
        size_t i;
        json_t *j;
        json_array_foreach(jobs, i, j) {
            json_t *affected = json_object_get(j, "affected");
            json_object_set_new(j, "state", json_string(json_is_true(affected) ? "affected" : "running"));
        }
        for (const auto &[id, r] : log.records()) {
            if (r.verdict == "placed" || ledger.find(id)) continue;
            if (viewer >= 0 && r.uid != static_cast<uint32_t>(viewer)) continue;
            json_t *o = json_object();
            json_object_set_new(o, "job_id", json_integer(static_cast<json_int_t>(id)));
            json_object_set_new(o, "uid", json_integer(r.uid));
            json_object_set_new(o, "state", json_string(r.verdict.c_str()));
            json_object_set_new(o, "reason", json_string(r.reason.c_str()));
            json_array_append_new(jobs, o);
        }
        json_t *o = json_object();
        json_object_set_new(o, "jobs", jobs);
        return document_text(o);
    }
    if (op == "fabric") return fabric_json(model, ledger);  // no job in it: the same for every viewer
    if (op == "metrics") {
        json_t *o = json_object();
        json_object_set_new(o, "metrics", json_string(metrics_text(model, ledger, log).c_str()));
        return document_text(o);
    }
    if (op == "explain") {
        const DecisionRecord *r = log.find(static_cast<uint64_t>(job));
        const Reservation *held = ledger.find(static_cast<uint64_t>(job));
        uint32_t owner = r ? r->uid : held ? held->uid : 0;
        // One answer for "none" and "not yours" to an unprivileged viewer: no probing for others' jobs.
        if ((!r && !held) || (!privileged && owner != uid))
            return error_json("job " + std::to_string(job) +
                              (privileged ? ": Morpheus has no decision for it (no Morpheus flags, or not seen yet)"
                                          : ": Morpheus has no decision for it that you may see (not your job, no "
                                            "Morpheus flags, or not seen yet)"));
        json_t *o = json_object();
        json_object_set_new(o, "job_id", json_integer(job));
        json_object_set_new(o, "uid", json_integer(owner));
        if (r) {
            json_object_set_new(o, "verdict", json_string(r->verdict.c_str()));
            json_object_set_new(o, "reason", json_string(r->reason.c_str()));
            json_object_set_new(o, "when", json_integer(r->when));
            json_object_set_new(o, "explanation", json_string(r->explanation.c_str()));
        }
        if (held) json_object_set_new(o, "holding", json_string(reservation_summary(model.fabric(), *held).c_str()));
        return document_text(o);
    }
    return error_json("unknown op \"" + op + "\" (status, jobs, fabric, explain, metrics)");
}

}  // namespace morpheus
