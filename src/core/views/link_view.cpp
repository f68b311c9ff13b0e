// The links op (issue 28): which jobs' checkpoint windows hold which link when, and the load
// they book on it over a horizon. The book is rebuilt from the ledger, where every granted
// window is, so the controller and the CLI offline answer alike.
#include <algorithm>
#include <map>
#include <unordered_set>

#include "checkpoint.hpp"
#include "cluster_model.hpp"
#include "input_error.hpp"
#include "ledger.hpp"
#include "link_book.hpp"
#include "status_model.hpp"

namespace morpheus {

namespace {

struct LinkUse {
    uint64_t job_id;
    double rate;
    const FlushWindow *window;
};

int64_t floor_to(int64_t t, int64_t step) { return t - ((t % step) + step) % step; }

// The link's load over [from, from + horizon) as spans of equal load, the empty ones left out.
std::vector<LinkSpan> load_spans(const LinkBook &book, uint32_t link, int64_t from, int64_t horizon) {
    std::vector<LinkSpan> out;
    const int64_t slot = book.slot_s();
    for (int64_t t = from; t < from + horizon; t += slot) {
        const double booked = book.booked(link, t);
        if (!out.empty() && out.back().end == t && out.back().booked == booked)
            out.back().end = t + slot;
        else if (booked > 0)
            out.push_back({t, t + slot, booked});
    }
    return out;
}

}  // namespace

LinkBookView link_book_view(const ClusterModel &m, const Ledger &l, const Viewer &viewer, int64_t now,
                            const LinkQuery &q) {
    const Fabric &f = m.fabric();
    const LinkPaths &paths = m.paths();
    std::vector<uint8_t> end_wanted(q.ends.empty() ? 0 : f.vertex_count(), 0);
    for (const std::string &name : q.ends) {
        int v = f.vertex_index(name);
        if (v < 0)
            throw InputError("", "--link", "no pod, switch or blade named '" + name + "' in the fabric",
                             "name an end of a link: a pod, switch or blade of morpheus fabric");
        end_wanted[static_cast<size_t>(v)] = 1;
    }
    const std::unordered_set<uint64_t> jobs(q.jobs.begin(), q.jobs.end());
    const LinkBook book = link_book_of(m, l);
    auto owner = [&](uint64_t job) {
        const Reservation *r = l.find(job);
        return r ? r->uid : 0u;
    };

    std::map<uint32_t, std::vector<LinkUse>> by_link;
    for (const auto &[job, b] : book.bookings())
        for (const LinkLoad &ld : b.loads) by_link[ld.link].push_back({job, ld.rate, &b.window});

    LinkBookView v;
    v.now = now;
    v.slot_s = book.slot_s();
    v.cycle_s = book.cycle_s();
    v.from = floor_to(now, v.slot_s);
    v.windows = book.bookings().size();
    std::vector<uint32_t> matched;
    int64_t longest = 0;
    for (const auto &[link, uses] : by_link) {
        if (link >= f.links.size()) continue;
        const Link &k = f.links[link];
        if (!end_wanted.empty() && !end_wanted[k.from] && !end_wanted[k.to]) continue;
        // Only the viewer's own jobs pick links: another user's job must not be traced by id.
        bool picked = jobs.empty();
        for (const LinkUse &u : uses) {
            if (!picked && jobs.count(u.job_id) && viewer.sees_detail(owner(u.job_id))) picked = true;
            longest = std::max(longest, u.window->period_s);
        }
        if (picked) matched.push_back(link);
    }
    v.horizon_s = q.horizon_s > 0 ? q.horizon_s : longest;
    v.horizon_s = std::clamp<int64_t>(v.horizon_s, v.slot_s, v.cycle_s);
    v.horizon_s = (v.horizon_s + v.slot_s - 1) / v.slot_s * v.slot_s;  // whole slots
    auto fullness = [&](uint32_t link) {
        double cap = book.capacity(link);
        return cap > 0 ? book.peak(link) / cap : 0.0;
    };
    std::sort(matched.begin(), matched.end(), [&](uint32_t a, uint32_t b) {
        double fa = fullness(a), fb = fullness(b);
        return fa != fb ? fa > fb : a < b;
    });
    v.links_matched = matched.size();
    if (matched.size() > q.limit) matched.resize(q.limit);

    for (uint32_t link : matched) {
        const Link &k = f.links[link];
        LinkBookingStatus s;
        s.index = link;
        s.from = f.vertex_name(k.from);
        s.to = f.vertex_name(k.to);
        s.tier = k.tier < f.link_tiers.size() ? f.link_tiers[k.tier].name : "";
        s.bandwidth = k.bandwidth_gbps * 1e9 / 8;
        s.share = paths.share(link);
        s.capacity = book.capacity(link);
        s.peak = book.peak(link);
        for (const LinkUse &u : by_link[link]) {
            const uint32_t uid = owner(u.job_id);
            if (!viewer.sees_detail(uid)) {
                ++s.others;
                continue;
            }
            s.holders.push_back({u.job_id, uid, u.rate, u.window->period_s, u.window->phase_s, u.window->length_s});
        }
        s.load = load_spans(book, link, v.from, v.horizon_s);
        v.links.push_back(std::move(s));
    }
    return v;
}

}  // namespace morpheus
