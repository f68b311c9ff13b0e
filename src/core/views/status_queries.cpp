// One dispatcher for every status view, so live and offline answers cannot drift apart.
#include "status_queries.hpp"

#include <jansson.h>

#include "cluster_model.hpp"
#include "decision_log.hpp"
#include "explain.hpp"
#include "json_document.hpp"
#include "ledger.hpp"
#include "metrics.hpp"
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
    return error_document("unknown op \"" + op + "\" (status, jobs, fabric, explain, metrics)");
}

}  // namespace morpheus
