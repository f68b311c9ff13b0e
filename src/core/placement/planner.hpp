// Planner: blade memory reserved over time, in the role of Fluxion's planner. Running jobs hold
// their memory until their expected end (start + time limit), planned (pending) jobs from their
// planned start for their duration. It answers when a request would first fit, and whether a job
// started now would push back a planned one. Placements are chosen by assign_blades() against
// the ledger as it will be over the job's window: one scoring path, now or later.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster_model.hpp"
#include "free_index.hpp"
#include "ledger.hpp"
#include "memory_timeline.hpp"
#include "placement.hpp"
#include "request.hpp"

namespace morpheus {

struct Hold {
    uint64_t job_id = 0;
    std::vector<Segment> segments;
    int64_t start = 0;
    int64_t end = kForever;
    bool planned = false;  // a pending job's plan, dropped by clear_planned()
    uint32_t order = 0;  // planned jobs: position in priority order, 0 first
};

// How the earliest-start search trades the room index against walking blades directly. The
// answers are the same with any values; tests set small ones to take every path on a small
// fabric.
struct PlannerTuning {
    // Blades a walk looks at directly before it may ask the index for the rest (it does
    // once that looks cheaper than going on, judged by the room it found so far).
    size_t first_looks = 8;
    // Blades with room the index lists per walk before the walk goes on directly instead (a
    // quiet cluster has room nearly everywhere, and the walk stops after a few blades).
    size_t most_listed = 1024;
    // Blade tiers changed since the index was built, looked at one by one, before it is
    // rebuilt (merging theirs into the rest; about a millisecond on 4,096 blades): a changed
    // blade tier costs a lookup per walk. A query with no change since the last one rebuilds.
    size_t most_stale = 256;
};

struct Slot {
    int64_t start = 0;
    Placement placement;
};

class Planner {
public:
    explicit Planner(size_t blade_count);

    // A running job holds `segments` over [start, end) (end: start + time limit, kForever when
    // unlimited). Replaces any earlier hold of the same job.
    void hold_running(uint64_t job_id, const std::vector<Segment> &segments, int64_t start, int64_t end);
    // A pending job's plan: it will hold `segments` over [start, end).
    void hold_planned(uint64_t job_id, uint32_t order, const std::vector<Segment> &segments, int64_t start,
                      int64_t end);
    // Running or planned; true if the job held something. Releasing twice is harmless.
    bool release(uint64_t job_id);
    // Drops every plan (each scheduling cycle plans again from the top).
    void clear_planned();

    // The earliest time >= max(now, nodes_free_at) at which `req`, on the nodes `pods` (from
    // Slurm's node choice), fits blade memory for `duration` seconds, with the placement it
    // would get then. Empty when it never fits; `why` then says what is missing at the last
    // time tried. The capacities come from `model`'s inventory, read again when that is another
    // object (a model never changes its inventory in place).
    std::optional<Slot> earliest_start(const ClusterModel &model, const Request &req, const std::vector<PodShare> &pods,
                                       int64_t now, int64_t duration, int64_t nodes_free_at,
                                       std::string *why = nullptr) const;

    // The highest-priority planned job whose memory a job holding `segments` over [from, to)
    // would take (so its planned start would move back); nullptr when none.
    const Hold *delayed_by(const Inventory &inventory, const std::vector<Segment> &segments, int64_t from,
                           int64_t to) const;

    uint64_t reserved_at(uint32_t blade, Tier tier, int64_t t) const;
    const Hold *find(uint64_t job_id) const;
    size_t running_count() const { return holds_.size() - planned_count_; }
    size_t planned_count() const { return planned_count_; }
    size_t blade_count() const { return timelines_.size(); }
    void set_tuning(const PlannerTuning &tuning) { tuning_ = tuning; }

private:
    // One time tried: the request fits over [t, to) with every blade held at its peak then.
    enum class Outcome { Fits, Short, Unplaced };
    struct Try {
        Outcome outcome = Outcome::Short;
        int64_t next = kForever;  // Short: nothing fits at any time after t and before this
    };
    // `place`: also choose the blades (in `slot`); without, Fits means the memory fits.
    Try try_at(const ClusterModel &m, const Request &req, const std::vector<PodShare> &pods, int64_t t,
               int64_t duration, bool place, Slot &slot, std::string &why) const;

    // A failing try's reason, put in words only when the request never fits (a try that
    // lacks hot memory leaves "\0" and the pod in why_pod_: most tries fail, few answers do).
    std::string say_why(const ClusterModel &m, const Request &req, const std::string &why) const;
    mutable uint32_t why_pod_ = 0;

    void hold(Hold h);
    MemoryTimeline &timeline(uint32_t blade, Tier tier) { return timelines_[blade][static_cast<size_t>(tier)]; }
    const MemoryTimeline &timeline(uint32_t blade, Tier tier) const {
        return timelines_[blade][static_cast<size_t>(tier)];
    }
    void changed(uint32_t blade, Tier tier) const;  // its room must be worked out again
    // Brings the room index up to date with the holds and the capacities of `inv`.
    void refresh_index(const Inventory &inv) const;
    bool room_over(uint32_t blade, Tier tier, int64_t t, int64_t to) const;  // below capacity all the time
    // Blades of `tier` with room over [t, to) that `keep` accepts, appended to `out`; false
    // when there are more than `most` (then `out` is of no use).
    template <typename Keep>
    bool blades_with_room(Tier tier, int64_t t, int64_t to, size_t most, Keep &&keep, std::vector<uint32_t> &out) const;
    // No blade of `tier` that `keep` accepts and that has no room over [t, to) has room over a
    // window as long starting after t and before this time.
    template <typename Keep>
    int64_t room_returns(Tier tier, int64_t t, int64_t to, Keep &&keep) const;

    PlannerTuning tuning_;
    std::vector<std::array<MemoryTimeline, kTierCount>> timelines_;
    std::map<uint64_t, Hold> holds_;
    std::map<int64_t, uint32_t> ends_;  // end time -> holds ending then: when memory comes back
    size_t planned_count_ = 0;

    // The stretches each blade tier has room in (at the capacities last seen), indexed per tier.
    // Blade tiers whose holds changed since the index was built are `stale_` and looked at
    // directly until the next rebuild.
    mutable std::vector<std::array<uint64_t, kTierCount>> capacity_;
    mutable const void *capacity_source_ = nullptr;  // the inventory's blades they were read from
    mutable size_t capacity_count_ = 0;
    mutable std::vector<std::array<std::vector<MemoryTimeline::Stretch>, kTierCount>> room_;
    mutable std::vector<std::array<uint8_t, kTierCount>> dirty_, stale_;
    mutable std::vector<std::pair<uint32_t, Tier>> dirty_list_, stale_list_;
    mutable std::array<FreeIndex, kTierCount> index_;
    mutable bool index_built_ = false;
    mutable std::vector<std::array<int64_t, kTierCount>> falls_;  // per blade tier in the view: peak.falls_at
    mutable std::vector<uint32_t> found_, walk_;  // scratch: blades with room
    mutable std::vector<uint32_t> shortlist_;  // scratch: the blades in the view
    mutable std::vector<std::pair<uint64_t, uint32_t>> ranked_;  // scratch: (walk position, blade)

    // The ledger a placement is evaluated against at a future time: blades the request may
    // use carry their peak over the window, every other blade counts as full. Kept between
    // queries (restored after each) so a query touches only the blades it needs.
    mutable Ledger view_;
    mutable std::vector<std::pair<uint32_t, Tier>> touched_;
};

// The soonest start of `req`. `nodes_free_at(pod, need)` says from when that pod has `need` of
// the job's nodes free (kForever: not within the plan); memory comes from the planner. Inside
// one pod when any can take the job: the earliest start over all pods wins (ties: the first
// pod). Otherwise (too many nodes for one pod, or more hot memory than one pod's bound holds)
// spread as decide() would spread it over an empty cluster on the nodes the pods can give,
// starting once every share's nodes are free. A soft bound whose wait is over (bound_lapsed) is
// also planned as decide() places it then, beyond the bound, and the earlier start wins.
// select/morpheus's will-run (the C ABI) and the simulator's backfill both plan through here,
// so a large job is planned, not starved.
struct PodStart {
    std::vector<PodShare> shares;  // one pod, or the pods of a spread job
    Slot slot;
};
std::optional<PodStart> earliest_pod_start(const Planner &planner, const ClusterModel &m, const Request &req,
                                           const std::function<int64_t(uint32_t pod, uint32_t need)> &nodes_free_at,
                                           int64_t now, int64_t duration, std::string *why = nullptr);

}  // namespace morpheus
