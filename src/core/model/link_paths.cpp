// One Dijkstra per pod (latency, transit through switches only: the latency table's rule),
// keeping the link each vertex was reached by, so a path is read back link by link.
#include "link_paths.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>

#include "input_error.hpp"

namespace morpheus {

namespace {
constexpr double kBytesPerGbit = 1e9 / 8;
}

LinkPaths::LinkPaths(const Fabric &f, const CheckpointSettings &settings)
    : blades_(static_cast<uint32_t>(f.blades.size())) {
    std::vector<double> tier_share(f.link_tiers.size(), settings.share);
    for (const auto &[tier, share] : settings.by_tier) {
        int t = f.link_tier_index(tier);
        if (t < 0) {
            std::string known;
            for (const LinkTier &lt : f.link_tiers) known += (known.empty() ? "" : ", ") + lt.name;
            throw InputError("", "CheckpointShare",
                             "link tier \"" + tier + "\" is not a tier of any link in " + f.source,
                             "use one of the fabric's link tiers (" + known + ")");
        }
        tier_share[t] = share;
    }
    const size_t n_links = f.links.size();
    share_.resize(n_links);
    share_capacity_.resize(n_links);
    for (size_t i = 0; i < n_links; ++i) {
        const Link &l = f.links[i];
        share_[i] = l.tier < tier_share.size() ? tier_share[l.tier] : settings.share;
        share_capacity_[i] = share_[i] * l.bandwidth_gbps * kBytesPerGbit;
    }

    // Adjacency over the best of parallel links (lowest latency, then widest).
    const uint32_t n = f.vertex_count();
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> adj(n);  // (neighbour, link)
    {
        std::vector<std::pair<std::pair<uint32_t, uint32_t>, uint32_t>> ends;
        for (uint32_t i = 0; i < n_links; ++i)
            ends.push_back({{std::min(f.links[i].from, f.links[i].to), std::max(f.links[i].from, f.links[i].to)}, i});
        std::sort(ends.begin(), ends.end(), [&](const auto &a, const auto &b) {
            if (a.first != b.first) return a.first < b.first;
            const Link &x = f.links[a.second], &y = f.links[b.second];
            if (x.latency_ns != y.latency_ns) return x.latency_ns < y.latency_ns;
            if (x.bandwidth_gbps != y.bandwidth_gbps) return x.bandwidth_gbps > y.bandwidth_gbps;
            return a.second < b.second;
        });
        for (size_t i = 0; i < ends.size(); ++i) {
            if (i && ends[i].first == ends[i - 1].first) continue;
            auto [u, v] = ends[i].first;
            adj[u].push_back({v, ends[i].second});
            adj[v].push_back({u, ends[i].second});
        }
    }

    const uint32_t pods = static_cast<uint32_t>(f.pods.size());
    offset_.assign(size_t(pods) * blades_ + 1, 0);
    rate_.assign(size_t(pods) * blades_, 0);
    order_.resize(pods);
    constexpr uint64_t kInf = std::numeric_limits<uint64_t>::max();
    std::vector<uint64_t> dist(n);
    std::vector<uint32_t> via(n);  // link that reached the vertex
    std::vector<uint32_t> path;
    using Item = std::pair<uint64_t, uint32_t>;
    for (uint32_t pod = 0; pod < pods; ++pod) {
        std::fill(dist.begin(), dist.end(), kInf);
        std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
        dist[pod] = 0;
        queue.push({0, pod});
        while (!queue.empty()) {
            auto [d, u] = queue.top();
            queue.pop();
            if (d != dist[u]) continue;
            if (u != pod && f.kind_of(u) != VertexKind::Switch) continue;  // pods and blades are ends only
            for (auto [v, link] : adj[u]) {
                uint64_t nd = d + f.links[link].latency_ns;
                if (nd < dist[v]) {
                    dist[v] = nd;
                    via[v] = link;
                    queue.push({nd, v});
                }
            }
        }
        for (uint32_t b = 0; b < blades_; ++b) {
            const size_t cell = size_t(pod) * blades_ + b;
            offset_[cell] = static_cast<uint32_t>(links_.size());
            uint32_t v = f.blade_vertex(b);
            if (dist[v] == kInf) continue;
            path.clear();
            double rate = std::numeric_limits<double>::infinity();
            while (v != pod) {
                uint32_t link = via[v];
                path.push_back(link);
                rate = std::min(rate, share_capacity_[link]);
                v = f.links[link].from == v ? f.links[link].to : f.links[link].from;
            }
            links_.insert(links_.end(), path.rbegin(), path.rend());
            rate_[cell] = rate;
        }
        std::vector<uint32_t> &order = order_[pod];
        for (uint32_t b = 0; b < blades_; ++b)
            if (rate_[size_t(pod) * blades_ + b] > 0) order.push_back(b);
        const double *row = &rate_[size_t(pod) * blades_];
        std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            if (row[a] != row[b]) return row[a] > row[b];
            uint64_t da = dist[f.blade_vertex(a)], db = dist[f.blade_vertex(b)];
            return da != db ? da < db : a < b;
        });
    }
    offset_.back() = static_cast<uint32_t>(links_.size());

    double from_pods = 0, into_blades = 0;
    for (size_t i = 0; i < n_links; ++i) {
        const Link &l = f.links[i];
        if (f.kind_of(l.from) == VertexKind::Pod || f.kind_of(l.to) == VertexKind::Pod) from_pods += share_capacity_[i];
        if (f.kind_of(l.from) == VertexKind::Blade || f.kind_of(l.to) == VertexKind::Blade)
            into_blades += share_capacity_[i];
    }
    best_rate_ = std::min(from_pods, into_blades);
}

const uint32_t *LinkPaths::path_begin(uint32_t pod, uint32_t blade) const {
    return links_.data() + offset_[size_t(pod) * blades_ + blade];
}

const uint32_t *LinkPaths::path_end(uint32_t pod, uint32_t blade) const {
    return links_.data() + offset_[size_t(pod) * blades_ + blade + 1];
}

}  // namespace morpheus
