// Fluid model: every flow of a flush runs at once, each link's bytes over the flush's time;
// the flush lasts as long as its most loaded link (relative to that link's share) needs.
#include "flush.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace morpheus {

Flush flush_of(const ClusterModel &m, const std::vector<PodShare> &pods, const std::vector<Segment> &stripes) {
    Flush f;
    uint64_t nodes = 0;
    for (const PodShare &p : pods) nodes += p.nodes;
    if (!nodes) return f;
    const LinkPaths &paths = m.paths();
    std::unordered_map<uint32_t, double> bytes;  // link -> bytes
    for (const Segment &s : stripes) {
        if (s.use != Use::Checkpoint) continue;
        for (const PodShare &p : pods) {
            FlushFlow flow{p.pod, s.blade, double(s.bytes) * p.nodes / double(nodes)};
            if (flow.bytes <= 0) continue;
            if (!paths.reachable(p.pod, s.blade)) {
                f.reachable = false;
                continue;
            }
            for (const uint32_t *l = paths.path_begin(p.pod, s.blade); l != paths.path_end(p.pod, s.blade); ++l)
                bytes[*l] += flow.bytes;
            f.flows.push_back(flow);
        }
    }
    for (const auto &[link, b] : bytes) {
        double cap = paths.share_capacity(link);
        f.seconds = std::max(f.seconds, cap > 0 ? b / cap : 1e300);
    }
    if (f.seconds > 0)
        for (const auto &[link, b] : bytes) f.loads.push_back({link, b / f.seconds});
    std::sort(f.loads.begin(), f.loads.end(), [](const LinkLoad &a, const LinkLoad &b) { return a.link < b.link; });
    return f;
}

int64_t window_length(const Flush &f) {
    if (!(f.seconds > 0)) return 0;
    if (f.seconds > 1e15) return INT64_MAX / 4;
    return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(f.seconds)));
}

}  // namespace morpheus
