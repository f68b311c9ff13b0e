// FreeIndex: the stretches of time over which blades have room (hold less than their capacity),
// indexed by start, so the planner finds the few blades with room over a window without
// looking at the thousands that are full then. A static index: the planner rebuilds it after
// enough blades changed and looks at the changed ones directly meanwhile.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "memory_timeline.hpp"

namespace morpheus {

class FreeIndex {
public:
    struct Entry {
        int64_t from;  // the blade has room over [from, to)
        int64_t to;
        uint32_t blade;
    };

    // How long a stretch lasts; one that never ends lasts kForever, longer than any other.
    static int64_t length(int64_t from, int64_t to) {
        return to >= kForever ? kForever : std::min(to - from, kForever - 1);
    }

    void build(std::vector<Entry> entries);
    // The entries of the blades flagged in `changed` replaced by `fresh`: a merge, no sort of
    // the unchanged ones.
    void replace(const std::vector<uint8_t> &changed, std::vector<Entry> fresh);
    size_t size() const { return entries_.size(); }

    // Calls visit(blade) for each entry with from <= t and to >= until: blades with room over
    // all of [t, until). Stops early, returning false, once visit() returns false.
    template <typename Visit>
    bool each_covering(int64_t t, int64_t until, Visit &&visit) const {
        const size_t prefix = upper_bound(t);
        return prefix == 0 || covering(1, 0, leaves_, prefix, until, visit);
    }

    // The first `from` after t of an entry at least `length` long (kForever: an entry that
    // never ends) whose blade `keep()` accepts: no blade of those has room over a window of that
    // length starting after t and before it. After `max_skips` refused entries it returns the
    // start of the last one, an earlier bound. kForever when there is none.
    template <typename Keep>
    int64_t first_start_after(int64_t t, int64_t at_least, Keep &&keep, int max_skips = 64) const {
        size_t i = upper_bound(t);
        for (int skips = 0;; ++skips) {
            i = first_long(i, at_least);
            if (i >= entries_.size()) return kForever;
            if (keep(entries_[i].blade) || skips == max_skips) return entries_[i].from;
            ++i;
        }
    }

private:
    void grow_trees();  // the segment trees over entries_
    size_t upper_bound(int64_t t) const;  // entries with from <= t
    size_t first_long(size_t i, int64_t at_least) const;  // first entry at or after i that long

    template <typename Visit>
    bool covering(size_t node, size_t lo, size_t hi, size_t prefix, int64_t until, Visit &visit) const {
        if (lo >= prefix || max_to_[node] < until) return true;
        if (hi - lo == 1) return visit(entries_[lo].blade);
        size_t mid = lo + (hi - lo) / 2;
        return covering(2 * node, lo, mid, prefix, until, visit) &&
               covering(2 * node + 1, mid, hi, prefix, until, visit);
    }

    std::vector<Entry> entries_;  // by from
    size_t leaves_ = 0;  // a power of two >= entries_.size()
    // Segment trees over entries_ (node 1 the root, children 2n and 2n+1): the latest end and
    // the longest stretch below each node.
    std::vector<int64_t> max_to_, max_length_;
};

}  // namespace morpheus
