// The step function behind MemoryTimeline: a sorted vector of (time, level), kept minimal
// (no two neighbours with the same level, no leading zero) so queries stay short.
#include "memory_timeline.hpp"

#include <algorithm>

namespace morpheus {

namespace {

template <typename Steps>
auto first_after(Steps &steps, int64_t t) {
    return std::upper_bound(steps.begin(), steps.end(), t, [](int64_t v, const auto &s) { return v < s.time; });
}

}  // namespace

uint64_t MemoryTimeline::at(int64_t t) const {
    auto it = first_after(steps_, t);
    return it == steps_.begin() ? 0 : std::prev(it)->level;
}

uint64_t MemoryTimeline::peak(int64_t from, int64_t to) const {
    auto it = first_after(steps_, from);
    uint64_t most = it == steps_.begin() ? 0 : std::prev(it)->level;
    for (; it != steps_.end() && it->time < to; ++it) most = std::max(most, it->level);
    return most;
}

uint64_t MemoryTimeline::peak(int64_t from, int64_t to, int64_t &falls_at) const {
    auto it = first_after(steps_, from);
    uint64_t most = it == steps_.begin() ? 0 : std::prev(it)->level;
    auto after_most = it;  // the step after the last one at the peak (the window's start counts as one)
    for (; it != steps_.end() && it->time < to; ++it)
        if (it->level >= most) {
            most = it->level;
            after_most = std::next(it);
        }
    falls_at = kForever;
    if (most == 0) return 0;  // nothing held: it cannot fall
    for (it = after_most; it != steps_.end() && it->time < kForever; ++it)
        if (it->level < most) {
            falls_at = it->time;
            break;
        }
    return most;
}

void MemoryTimeline::drops_after(int64_t after, std::vector<int64_t> &out) const {
    auto it = first_after(steps_, after);
    uint64_t before = it == steps_.begin() ? 0 : std::prev(it)->level;
    for (; it != steps_.end(); ++it) {
        if (it->level < before && it->time < kForever) out.push_back(it->time);
        before = it->level;
    }
}

int64_t MemoryTimeline::next_drop(int64_t after) const {
    auto it = first_after(steps_, after);
    uint64_t before = it == steps_.begin() ? 0 : std::prev(it)->level;
    for (; it != steps_.end() && it->time < kForever; ++it) {
        if (it->level < before) return it->time;
        before = it->level;
    }
    return kForever;
}

void MemoryTimeline::below(uint64_t cap, std::vector<Stretch> &out) const {
    bool room = cap > 0;  // nothing is held before the first step
    int64_t from = -kForever;
    for (const Step &s : steps_) {
        if ((s.level < cap) == room) continue;
        if (room) out.push_back({from, s.time});
        from = s.time;
        room = !room;
    }
    if (room && from < kForever) out.push_back({from, kForever});
}

size_t MemoryTimeline::split(int64_t t) {
    auto it = std::lower_bound(steps_.begin(), steps_.end(), t, [](const Step &s, int64_t v) { return s.time < v; });
    if (it != steps_.end() && it->time == t) return static_cast<size_t>(it - steps_.begin());
    uint64_t level = it == steps_.begin() ? 0 : std::prev(it)->level;
    const auto at = it - steps_.begin();  // before insert(), which may move the storage
    steps_.insert(it, Step{t, level});
    return static_cast<size_t>(at);
}

void MemoryTimeline::apply(int64_t from, int64_t to, int64_t delta) {
    if (from >= to || delta == 0) return;
    size_t first = split(from);
    size_t last = split(to);
    for (size_t i = first; i < last; ++i) {
        // Never below zero: removing what was never added must not wrap around.
        uint64_t down = static_cast<uint64_t>(-delta);
        steps_[i].level = delta > 0 ? steps_[i].level + static_cast<uint64_t>(delta)
                                    : (steps_[i].level > down ? steps_[i].level - down : 0);
    }
    // Keep the function minimal around the changed range.
    size_t lo = first > 0 ? first - 1 : 0, hi = std::min(last + 1, steps_.size());
    size_t out = lo;
    for (size_t i = lo; i < hi; ++i) {
        uint64_t prev = out == 0 ? 0 : steps_[out - 1].level;
        if (steps_[i].level == prev) continue;
        steps_[out++] = steps_[i];
    }
    steps_.erase(steps_.begin() + static_cast<std::ptrdiff_t>(out), steps_.begin() + static_cast<std::ptrdiff_t>(hi));
}

}  // namespace morpheus
