// Soft bounds: the wait a job has and when it is over.
#include "soft_bound.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace morpheus {

int64_t hot_wait(const ClusterModel &model, const Request &req) {
    return req.hot_wait_s == kHotWaitDefault ? model.settings().default_hot_wait_s : req.hot_wait_s;
}

std::string wait_refusal(const ClusterModel &model, const Request &req) {
    const int64_t wait = hot_wait(model, req), most = model.settings().max_hot_wait_s;
    if (req.hot_wait_s == kHotWaitDefault || wait == kHotWaitHard || wait == kHotWaitNone || wait <= most) return "";
    return "--mem-hot-wait=" + format_hot_wait(wait) +
           " is longer than this site allows (MaxHotWait=" + format_hot_wait(most) +
           ") (fix: give --mem-hot-wait=" + format_hot_wait(most) +
           " or less, or --mem-hot-wait=hard to wait for memory inside the bound however long it takes)";
}

int64_t wait_ends(const ClusterModel &model, const Request &req, int64_t since) {
    const int64_t wait = hot_wait(model, req);
    if (wait == kHotWaitHard || !req.hot_per_node) return INT64_MAX;
    int64_t seconds = wait == kHotWaitNone ? 0 : wait;
    // Expected completion: never wait longer than running beyond the bound could cost.
    const double share = model.settings().hot_wait_share;
    if (share > 0 && req.time_limit_s > 0)
        seconds = std::min<int64_t>(seconds, std::llround(share * static_cast<double>(req.time_limit_s)));
    return since + seconds;
}

bool bound_lapsed(const ClusterModel &model, const Request &req, int64_t since, int64_t now, int64_t in_bound_start) {
    const int64_t ends = wait_ends(model, req, since);
    if (ends == INT64_MAX) return false;
    return now >= ends || in_bound_start > ends;
}

}  // namespace morpheus
