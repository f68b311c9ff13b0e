// The C ABI of include/morpheus/morpheus_node.h over node_setup. Every entry point catches
// everything: no C++ exception may unwind into slurmstepd.
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "capi_guard.hpp"
#include "input_error.hpp"
#include "morpheus/morpheus_node.h"
#include "node_setup.hpp"

using namespace morpheus;
using morpheus::capi::guarded;
using morpheus::capi::set_error;

namespace {

std::string str(const char *s) { return s ? s : ""; }

NodeJob to_job(const morpheus_node_job_t *j) {
    if (!j) throw InputError("", "", "no job given");
    NodeJob job;
    job.job_id = j->job_id;
    job.step_id = j->step_id;
    job.uid = static_cast<long>(j->uid);
    job.gid = static_cast<long>(j->gid);
    job.tmpdir = str(j->tmpdir);
    job.node_name = str(j->node_name);
    job.step_node_index = j->step_node_index;
    job.topology_xml = str(j->topology_xml);
    job.nccl_hints = j->nccl_hints;
    if (j->mem_cold) job.mem_cold = std::string(j->mem_cold);
    if (j->lookup) {
        morpheus_env_lookup_fn fn = j->lookup;
        void *ctx = j->lookup_ctx;
        job.getenv = [fn, ctx](const std::string &name) -> std::optional<std::string> {
            // Environment values are short; grow once or twice for the odd long one.
            for (size_t len = 1024; len <= (1u << 20); len *= 16) {
                std::string buf(len, '\0');
                int rc = fn(ctx, name.c_str(), &buf[0], len);
                if (rc == 0) return std::nullopt;
                if (rc > 0) return std::string(buf.c_str());
            }
            return std::nullopt;
        };
    }
    return job;
}

char *dup(const std::string &s) {
    char *p = static_cast<char *>(std::malloc(s.size() + 1));
    if (!p) throw std::bad_alloc();
    std::memcpy(p, s.c_str(), s.size() + 1);
    return p;
}

char **dup_list(const std::vector<std::string> &v) {
    char **list = static_cast<char **>(std::calloc(v.size() + 1, sizeof(char *)));
    if (!list) throw std::bad_alloc();
    for (size_t i = 0; i < v.size(); ++i) {
        list[i] = static_cast<char *>(std::malloc(v[i].size() + 1));
        if (!list[i]) {
            for (size_t k = 0; k < i; ++k) std::free(list[k]);
            std::free(list);
            throw std::bad_alloc();
        }
        std::memcpy(list[i], v[i].c_str(), v[i].size() + 1);
    }
    return list;
}

void free_list(char **list, size_t n) {
    if (!list) return;
    for (size_t i = 0; i < n; ++i) std::free(list[i]);
    std::free(list);
}

morpheus_node_result_t *to_result(const NodeSetup &s) {
    auto *r = static_cast<morpheus_node_result_t *>(std::calloc(1, sizeof(morpheus_node_result_t)));
    if (!r) throw std::bad_alloc();
    try {
        std::vector<std::string> env;
        for (const auto &[k, v] : s.env) env.push_back(k + "=" + v);
        r->env = dup_list(env);
        r->env_count = env.size();
        r->warnings = dup_list(s.warnings);
        r->warning_count = s.warnings.size();
        if (!s.nccl_topo_file.empty()) r->nccl_topo_file = dup(s.nccl_topo_file);
    } catch (...) {
        morpheus_node_result_free(&r);
        throw;
    }
    return r;
}

}  // namespace

MORPHEUS_API int morpheus_node_prepare(const morpheus_node_job_t *job, morpheus_node_result_t **out,
                                       morpheus_error_t *err) {
    if (out) *out = nullptr;
    return guarded(err, [&] {
        if (!out) throw InputError("", "", "no result pointer given");
        NodeSetup s = prepare_node(to_job(job));
        try {
            *out = to_result(s);
        } catch (...) {
            if (!s.nccl_topo_file.empty()) std::remove(s.nccl_topo_file.c_str());
            throw;
        }
        return 0;
    });
}

MORPHEUS_API int morpheus_node_bind_task(const morpheus_node_job_t *job, morpheus_node_result_t **out,
                                         morpheus_error_t *err) {
    if (out) *out = nullptr;
    return guarded(err, [&] {
        if (!out) throw InputError("", "", "no result pointer given");
        NodeSetup s = bind_this_task(to_job(job));
        *out = to_result(s);
        return 0;
    });
}

MORPHEUS_API int morpheus_node_cleanup(const char *path, int64_t uid, morpheus_error_t *err) {
    return guarded(err, [&] {
        if (!path || !*path) return 0;
        return cleanup_node_file(path, static_cast<long>(uid)) ? 1 : 0;
    });
}

MORPHEUS_API void morpheus_node_result_free(morpheus_node_result_t **res) {
    if (!res || !*res) return;
    morpheus_node_result_t *r = *res;
    free_list(r->env, r->env_count);
    free_list(r->warnings, r->warning_count);
    std::free(r->nccl_topo_file);
    std::free(r);
    *res = nullptr;
}
