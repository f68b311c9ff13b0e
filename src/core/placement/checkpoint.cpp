// Region first (fastest paths, separate domains), then the window: the first phase that keeps
// every link of the flush within its share, at the asked period, then at longer ones when the
// job allows. When the window is what fails, the region is tried again without the blades
// whose paths cross the link that blocked it (a few times), so a busy spine is routed around.
#include "checkpoint.hpp"

#include <algorithm>
#include <unordered_set>

#include "checkpoint_region.hpp"
#include "units.hpp"

namespace morpheus {

LinkBook empty_link_book(const ClusterModel &m) {
    const LinkPaths &p = m.paths();
    std::vector<double> cap(p.link_count());
    for (uint32_t l = 0; l < cap.size(); ++l) cap[l] = p.share_capacity(l);
    const CheckpointSettings &s = m.settings().checkpoint;
    return LinkBook(std::move(cap), s.slot_s, s.cycle_s);
}

void book_reservation(const ClusterModel &m, LinkBook &book, const Reservation &r) {
    if (!r.checkpoint.period_s) return;
    Flush f = flush_of(m, r.pods, r.segments);
    // The window is as granted; the rates are the flush's over that window's length.
    std::vector<LinkLoad> loads = f.loads;
    if (r.checkpoint.length_s > 0 && f.seconds > 0)
        for (LinkLoad &l : loads) l.rate *= std::min(1.0, f.seconds / double(r.checkpoint.length_s));
    book.book(r.job_id, loads, {r.checkpoint.period_s, r.checkpoint.phase_s, r.checkpoint.length_s});
}

LinkBook link_book_of(const ClusterModel &m, const Ledger &ledger) {
    LinkBook book = empty_link_book(m);
    for (const auto &[id, r] : ledger.reservations()) book_reservation(m, book, r);
    return book;
}

std::vector<int64_t> period_candidates(const LinkBook &book, const Request &req) {
    std::vector<int64_t> out;
    const int64_t slot = book.slot_s(), cycle_slots = book.cycle_s() / slot;
    auto divisor_at_most = [&](int64_t seconds) -> int64_t {
        for (int64_t n = std::min(seconds / slot, cycle_slots); n >= 1; --n)
            if (cycle_slots % n == 0) return n * slot;
        return 0;
    };
    int64_t first = divisor_at_most(req.ckpt_period_s);
    if (!first) return out;
    out.push_back(first);
    const int64_t last = std::min(req.ckpt_period_max_s, book.cycle_s());
    for (int64_t n = first / slot + 1; n * slot <= last; ++n)
        if (cycle_slots % n == 0) out.push_back(n * slot);
    return out;
}

std::string link_name(const Fabric &f, uint32_t link) {
    const Link &l = f.links[link];
    std::string tier = l.tier < f.link_tiers.size() ? f.link_tiers[l.tier].name : "default";
    return f.vertex_name(l.from) + "->" + f.vertex_name(l.to) + " (" + tier + ")";
}

bool plan_checkpoint(const ClusterModel &m, const Ledger &ledger, const LinkBook &book, const Request &req,
                     const std::vector<PodShare> &pods, CheckpointGrant &out, std::string *why,
                     const std::vector<Segment> *keep, int64_t prefer_phase_s) {
    const std::vector<int64_t> periods = period_candidates(book, req);
    if (periods.empty()) {
        if (why)
            *why = "--ckpt-period=" + format_hot_wait(req.ckpt_period_s) +
                   " is shorter than CheckpointSlot=" + std::to_string(book.slot_s()) + "s";
        return false;
    }
    std::unordered_set<uint32_t> avoid;
    std::string last_why;
    constexpr int kTries = 4;
    for (int attempt = 0; attempt < kTries; ++attempt) {
        CheckpointGrant g;
        const bool kept = keep && attempt == 0 && !keep->empty();
        if (kept) {
            g.stripes = *keep;
        } else {
            std::string short_of;
            if (!choose_region(m, ledger, pods, req.ckpt_bytes, req.replicas(), g.stripes, &short_of, &avoid)) {
                if (last_why.empty()) last_why = short_of;  // else: the link that blocked is the news
                break;
            }
        }
        g.flush = flush_of(m, pods, g.stripes);
        if (!g.flush.reachable) {
            last_why = "no path from the job's pods to its checkpoint region";
            if (kept) continue;
            break;
        }
        const int64_t length = window_length(g.flush);
        for (LinkLoad &l : g.flush.loads) l.rate *= std::min(1.0, g.flush.seconds / double(length));
        uint32_t blocking = UINT32_MAX;
        bool too_long = true;
        for (int64_t period : periods) {
            if (length > period) continue;
            too_long = false;
            std::optional<int64_t> phase = book.find_phase(g.flush.loads, period, length, prefer_phase_s, &blocking);
            if (!phase) continue;
            g.hold = CheckpointHold{period, *phase, length, req.ckpt_bytes, req.replicas()};
            if (period != req.ckpt_period_s)
                g.note = "period " + format_hot_wait(period) + " (asked " + format_hot_wait(req.ckpt_period_s) +
                         (period < req.ckpt_period_s ? ", rounded down to divide CheckpointCycle)"
                                                     : "; no window at shorter ones)");
            out = std::move(g);
            return true;
        }
        if (too_long) {
            last_why = "one flush takes " + format_hot_wait(length) + " on its paths, longer than the period " +
                       format_hot_wait(periods.back());
        } else {
            last_why = "link " + (blocking == UINT32_MAX ? std::string("?") : link_name(m.fabric(), blocking)) +
                       " has its checkpoint share booked";
        }
        if (blocking == UINT32_MAX) {
            if (!kept) break;
            continue;
        }
        // Route around the link: the region's blades whose paths cross it are not tried again.
        const LinkPaths &paths = m.paths();
        size_t before = avoid.size();
        for (const Segment &s : g.stripes)
            for (const PodShare &p : pods)
                if (std::find(paths.path_begin(p.pod, s.blade), paths.path_end(p.pod, s.blade), blocking) !=
                    paths.path_end(p.pod, s.blade))
                    avoid.insert(s.blade);
        if (avoid.size() == before && !kept) break;
    }
    if (why) *why = last_why;
    return false;
}

RegionHealth region_health(const ClusterModel &m, const Reservation &r) {
    RegionHealth h;
    std::vector<Segment> copy;
    uint64_t filled = 0;
    bool hurt = false;
    auto close_copy = [&] {
        ++h.copies;
        if (!hurt) {
            ++h.intact;
            h.intact_stripes.insert(h.intact_stripes.end(), copy.begin(), copy.end());
        }
        copy.clear();
        filled = 0;
        hurt = false;
    };
    for (const Segment &s : r.segments) {
        if (s.use != Use::Checkpoint) continue;
        const BladeState state = m.inventory().blades[s.blade].state;
        if (state == BladeState::Failed || state == BladeState::Absent) {
            hurt = true;
            if (std::find(h.failed_blades.begin(), h.failed_blades.end(), s.blade) == h.failed_blades.end())
                h.failed_blades.push_back(s.blade);
        }
        copy.push_back(s);
        filled += s.bytes;
        if (r.checkpoint.bytes && filled >= r.checkpoint.bytes) close_copy();
    }
    if (!copy.empty()) close_copy();  // a short last copy (never laid out so): counted as one
    return h;
}

std::string checkpoint_problem(const ClusterModel &m, const Request &req) {
    if (!req.wants_checkpoint()) return "";
    const CheckpointSettings &s = m.settings().checkpoint;
    if (req.ckpt_period_s < s.slot_s && std::max(req.ckpt_period_s, req.ckpt_period_max_s) < s.slot_s)
        return "--ckpt-period=" + format_hot_wait(req.ckpt_period_s) + " is shorter than the shortest window " +
               "period, CheckpointSlot=" + std::to_string(s.slot_s) + "s (fix: a longer --ckpt-period)";
    return checkpoint_never_fits(req, pmem_by_domain(m), m.paths().best_rate(), s.cycle_s);
}

}  // namespace morpheus
