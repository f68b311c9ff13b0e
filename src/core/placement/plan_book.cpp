// PlanBook: a short list kept in priority order; the delay test is the planner's, over the
// running jobs and the plans that outrank the job asking.
#include "plan_book.hpp"

#include <algorithm>

namespace morpheus {

bool outranks(uint32_t priority, int64_t submit, uint64_t job_id, const PendingPlan &b) {
    if (priority != b.priority) return priority > b.priority;
    if (submit != b.submit) return submit < b.submit;
    return job_id < b.job_id;
}

void hold_running_jobs(Planner &planner, const Ledger &ledger, const std::map<uint64_t, int64_t> &ends, int64_t now) {
    for (const auto &[id, r] : ledger.reservations()) {
        auto it = ends.find(id);
        int64_t end = it == ends.end() || it->second >= kForever ? kForever : it->second;
        end = std::max(end, now + 1);
        planner.hold_running(id, r.segments, std::min(r.since, now), end);
    }
}

namespace {

bool same_segments(const std::vector<Segment> &a, const std::vector<Segment> &b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Segment &x, const Segment &y) {
        return x.blade == y.blade && x.tier == y.tier && x.use == y.use && x.bytes == y.bytes &&
               x.latency_ns == y.latency_ns && x.pod == y.pod;
    });
}

}  // namespace

bool PlanBook::keep(PendingPlan plan, uint32_t depth) {
    // Backfill renews its plans every pass: one renewed as it was is no change.
    for (PendingPlan &p : plans_)
        if (p.job_id == plan.job_id && p.priority == plan.priority && p.submit == plan.submit &&
            p.start == plan.start && p.end == plan.end && same_segments(p.segments, plan.segments)) {
            p.made_at = plan.made_at;
            return true;
        }
    ++changes_;
    drop(plan.job_id);
    auto at = std::find_if(plans_.begin(), plans_.end(),
                           [&](const PendingPlan &p) { return outranks(plan.priority, plan.submit, plan.job_id, p); });
    if (static_cast<size_t>(at - plans_.begin()) >= depth) return false;
    plans_.insert(at, std::move(plan));
    if (plans_.size() > depth) plans_.resize(depth);
    return true;
}

bool PlanBook::drop(uint64_t job_id) {
    auto it = std::find_if(plans_.begin(), plans_.end(), [&](const PendingPlan &p) { return p.job_id == job_id; });
    if (it == plans_.end()) return false;
    plans_.erase(it);
    ++changes_;
    return true;
}

bool PlanBook::renew(uint64_t job_id, int64_t now) {
    for (PendingPlan &p : plans_)
        if (p.job_id == job_id) {
            p.made_at = now;
            return true;
        }
    return false;
}

void PlanBook::expire(int64_t now) {
    auto gone = std::remove_if(plans_.begin(), plans_.end(),
                               [&](const PendingPlan &p) { return now - p.made_at > kPlanLifetime; });
    if (gone != plans_.end()) ++changes_;
    plans_.erase(gone, plans_.end());
}

std::vector<uint64_t> PlanBook::jobs() const {
    std::vector<uint64_t> ids;
    for (const PendingPlan &p : plans_) ids.push_back(p.job_id);
    return ids;
}

const PendingPlan *PlanBook::find(uint64_t job_id) const {
    for (const PendingPlan &p : plans_)
        if (p.job_id == job_id) return &p;
    return nullptr;
}

const PendingPlan *PlanBook::delayed_by(const Inventory &inv, const Ledger &ledger,
                                        const std::map<uint64_t, int64_t> &running_ends, uint64_t job_id,
                                        uint32_t priority, int64_t submit, const std::vector<Segment> &segments,
                                        int64_t from, int64_t to) const {
    Planner planner(inv.blades.size());
    hold_running_jobs(planner, ledger, running_ends, from);
    PendingPlan asking;
    asking.job_id = job_id;
    asking.priority = priority;
    asking.submit = submit;
    uint32_t order = 0;
    for (const PendingPlan &p : plans_) {
        // Plans are in order: once one does not outrank the job, none after it does.
        if (p.job_id == job_id) continue;
        if (!outranks(p.priority, p.submit, p.job_id, asking)) break;
        planner.hold_planned(p.job_id, order++, p.segments, p.start, p.end);
    }
    if (planner.planned_count() == 0) return nullptr;
    const Hold *h = planner.delayed_by(inv, segments, from, to);
    return h ? find(h->job_id) : nullptr;
}

}  // namespace morpheus
