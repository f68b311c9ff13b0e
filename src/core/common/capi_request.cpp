// The request entry points of the C ABI: parsing the memory flags (sbatch/srun options, the
// job's environment) into a morpheus_request_t. Node-side code (the SPANK plugin) needs these
// and nothing of the controller, so they live apart from capi.cpp.
#include "capi_request.hpp"

#include "capi_guard.hpp"

using morpheus::capi::guarded;

namespace morpheus::capi {

Request to_request(const morpheus_request_t *r) {
    Request q;
    q.job_id = r->job_id;
    q.uid = r->uid;
    q.nodes = r->nodes;
    q.gpus = r->gpus;
    q.hot_per_node = r->hot_per_node;
    q.hot_latency_ns = r->hot_latency_ns;
    q.cold_per_node = r->cold_per_node;
    q.hot_wait_s = r->hot_wait_s;
    q.time_limit_s = r->time_limit_s;
    q.ckpt_bytes = r->ckpt_bytes;
    q.ckpt_period_s = r->ckpt_period_s;
    q.ckpt_period_max_s = r->ckpt_period_max_s;
    q.ckpt_replicas = r->ckpt_replicas;
    if (q.nodes == 0 && q.gpus == 0) q.nodes = 1;
    return q;
}

}  // namespace morpheus::capi

MORPHEUS_API int morpheus_request_set_flags(morpheus_request_t *req, const char *hot, const char *hot_latency,
                                            const char *cold, morpheus_error_t *err) {
    return guarded(err, [&] {
        morpheus::Request q = morpheus::capi::to_request(req);
        morpheus::parse_memory_flags(q, hot, hot_latency, cold);
        req->hot_per_node = q.hot_per_node;
        req->hot_latency_ns = q.hot_latency_ns;
        req->cold_per_node = q.cold_per_node;
        return 0;
    });
}

MORPHEUS_API int morpheus_request_set_wait(morpheus_request_t *req, const char *hot_wait, morpheus_error_t *err) {
    return guarded(err, [&] {
        morpheus::Request q;
        morpheus::parse_wait_flag(q, hot_wait);
        if (hot_wait && *hot_wait) req->hot_wait_s = q.hot_wait_s;
        return 0;
    });
}

MORPHEUS_API int morpheus_request_set_checkpoint(morpheus_request_t *req, const char *size, const char *period,
                                                 const char *period_max, const char *replicas, morpheus_error_t *err) {
    return guarded(err, [&] {
        morpheus::Request q;
        morpheus::parse_checkpoint_flags(q, size, period, period_max, replicas);
        req->ckpt_bytes = q.ckpt_bytes;
        req->ckpt_period_s = q.ckpt_period_s;
        req->ckpt_period_max_s = q.ckpt_period_max_s;
        req->ckpt_replicas = q.ckpt_replicas;
        return 0;
    });
}

MORPHEUS_API int morpheus_request_wants_memory(const morpheus_request_t *req) {
    return req && (req->hot_per_node || req->cold_per_node || req->ckpt_bytes);
}
