// MemoryTimeline: the bytes reserved on one blade tier over time, as a step function, so the
// planner can ask what is held at a future time and over a future window.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace morpheus {

// Far enough in the future to stand for "no time limit", far enough from the int64 end that
// adding a duration to now never overflows.
constexpr int64_t kForever = std::numeric_limits<int64_t>::max() / 4;

class MemoryTimeline {
public:
    // Holds `bytes` over [from, to); `to` may be kForever.
    void add(int64_t from, int64_t to, uint64_t bytes) { apply(from, to, static_cast<int64_t>(bytes)); }
    // Undoes add() with the same arguments.
    void remove(int64_t from, int64_t to, uint64_t bytes) { apply(from, to, -static_cast<int64_t>(bytes)); }

    // Bytes held at time t. O(log n).
    uint64_t at(int64_t t) const;
    // Most bytes held at any time in [from, to): what a job holding memory over that window
    // must leave room for. O(log n + steps inside the window).
    uint64_t peak(int64_t from, int64_t to) const;
    // peak(), and in `falls_at` the first time after `from` at which a window of the same
    // length could start holding less: the end of the last stretch at the peak inside the
    // window (kForever when it never falls). A window starting any earlier still holds the
    // peak, so a request too big for it cannot fit before then. One search, one pass.
    uint64_t peak(int64_t from, int64_t to, int64_t &falls_at) const;
    // Appends the times after `after` at which the held bytes fall (a hold ends).
    void drops_after(int64_t after, std::vector<int64_t> &out) const;
    // The first of those times, kForever when none.
    int64_t next_drop(int64_t after) const;

    // Appends the maximal stretches [from, to) over which fewer than `cap` bytes are held: the
    // windows inside one of them are the ones a blade of that capacity has room in. A stretch
    // before the first step starts at -kForever, one after the last ends at kForever.
    struct Stretch {
        int64_t from;
        int64_t to;
    };
    void below(uint64_t cap, std::vector<Stretch> &out) const;

    bool empty() const { return steps_.empty(); }
    size_t step_count() const { return steps_.size(); }

private:
    struct Step {
        int64_t time;
        uint64_t level;  // held from `time` until the next step
    };
    void apply(int64_t from, int64_t to, int64_t delta);
    size_t split(int64_t t);  // index of a step starting exactly at t, inserted if needed
    std::vector<Step> steps_;  // sorted by time; before the first step nothing is held
};

}  // namespace morpheus
