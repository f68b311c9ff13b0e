// PlanBook: the blade memory planned for the highest-priority pending jobs (PlanDepth of
// them), so that a lower-priority job started now cannot take what they wait for. Backfill's
// WILL_RUN makes a plan; a plan goes when its job starts, ends or is cancelled, or when
// backfill has not renewed it for kPlanLifetime seconds.
#pragma once
#include <cstdint>
#include <map>
#include <vector>

#include "inventory.hpp"
#include "ledger.hpp"
#include "planner.hpp"

namespace morpheus {

struct PendingPlan {
    uint64_t job_id = 0;
    uint32_t priority = 0;  // Slurm's job priority: higher first
    int64_t submit = 0;  // ties: the earlier submitted first
    std::vector<Segment> segments;
    int64_t start = 0;  // planned start
    int64_t end = kForever;  // start + time limit
    int64_t made_at = 0;  // when backfill last planned it
};

// Whether a job (priority, submit, id) comes before b in the plan order.
bool outranks(uint32_t priority, int64_t submit, uint64_t job_id, const PendingPlan &b);

// Running jobs hold their reservations until their ends (`ends`, by job id; a job not listed
// holds its memory for ever); a job past its end still holds it now, Slurm ends it soon.
void hold_running_jobs(Planner &planner, const Ledger &ledger, const std::map<uint64_t, int64_t> &ends, int64_t now);

class PlanBook {
public:
    static constexpr int64_t kPlanLifetime = 120;  // seconds: a few backfill cycles
    // `changes`: where the change count starts (a book that replaces another keeps counting up).
    explicit PlanBook(uint64_t changes = 0) : changes_(changes) {}

    // Replaces the job's plan and keeps the `depth` highest-priority plans; true if this one
    // is among them.
    bool keep(PendingPlan plan, uint32_t depth);
    bool drop(uint64_t job_id);
    // The job's plan, as it stands, was made again at `now` (no change); false: it has none.
    bool renew(uint64_t job_id, int64_t now);
    void expire(int64_t now);
    std::vector<uint64_t> jobs() const;
    const PendingPlan *find(uint64_t job_id) const;
    size_t size() const { return plans_.size(); }
    // Counts changes of what the book holds (a plan renewed unchanged is none).
    uint64_t changes() const { return changes_; }

    // The highest-ranked planned job, outranking the job (job_id, priority, submit), whose
    // planned start would move back if that job held `segments` over [from, to) on top of
    // the running jobs; nullptr when none. A job is never delayed by its own plan.
    const PendingPlan *delayed_by(const Inventory &inventory, const Ledger &ledger,
                                  const std::map<uint64_t, int64_t> &running_ends, uint64_t job_id, uint32_t priority,
                                  int64_t submit, const std::vector<Segment> &segments, int64_t from, int64_t to) const;

private:
    std::vector<PendingPlan> plans_;  // in plan order, highest priority first
    uint64_t changes_ = 0;
};

}  // namespace morpheus
