// FreeIndex: entries sorted by start, two max segment trees over them; a covering query walks
// down only into subtrees with an entry ending late enough.
#include "free_index.hpp"

#include <algorithm>
#include <iterator>

namespace morpheus {

namespace {

bool earlier(const FreeIndex::Entry &a, const FreeIndex::Entry &b) {
    return a.from != b.from ? a.from < b.from : a.blade < b.blade;
}

}  // namespace

void FreeIndex::build(std::vector<Entry> entries) {
    std::sort(entries.begin(), entries.end(), earlier);
    entries_ = std::move(entries);
    grow_trees();
}

void FreeIndex::replace(const std::vector<uint8_t> &changed, std::vector<Entry> fresh) {
    std::sort(fresh.begin(), fresh.end(), earlier);
    std::vector<Entry> kept;
    kept.reserve(entries_.size());
    for (const Entry &e : entries_)
        if (e.blade >= changed.size() || !changed[e.blade]) kept.push_back(e);
    entries_.clear();
    entries_.reserve(kept.size() + fresh.size());
    std::merge(kept.begin(), kept.end(), fresh.begin(), fresh.end(), std::back_inserter(entries_), earlier);
    grow_trees();
}

void FreeIndex::grow_trees() {
    leaves_ = 1;
    while (leaves_ < entries_.size()) leaves_ *= 2;
    max_to_.assign(2 * leaves_, INT64_MIN);
    max_length_.assign(2 * leaves_, INT64_MIN);
    for (size_t i = 0; i < entries_.size(); ++i) {
        max_to_[leaves_ + i] = entries_[i].to;
        max_length_[leaves_ + i] = length(entries_[i].from, entries_[i].to);
    }
    for (size_t n = leaves_ - 1; n >= 1; --n) {
        max_to_[n] = std::max(max_to_[2 * n], max_to_[2 * n + 1]);
        max_length_[n] = std::max(max_length_[2 * n], max_length_[2 * n + 1]);
    }
}

size_t FreeIndex::upper_bound(int64_t t) const {
    return static_cast<size_t>(
        std::upper_bound(entries_.begin(), entries_.end(), t, [](int64_t v, const Entry &e) { return v < e.from; }) -
        entries_.begin());
}

size_t FreeIndex::first_long(size_t i, int64_t at_least) const {
    if (i >= entries_.size()) return entries_.size();
    // Up from leaf i to the first node right of the path that holds a long enough entry, then
    // down to its leftmost such leaf.
    size_t n = leaves_ + i;
    if (max_length_[n] >= at_least) return i;
    for (;;) {
        while (n & 1) {  // a right child: go up until there is a right sibling
            n >>= 1;
            if (n <= 1) return entries_.size();
        }
        ++n;  // the right sibling
        if (max_length_[n] >= at_least) break;
    }
    while (n < leaves_) n = max_length_[2 * n] >= at_least ? 2 * n : 2 * n + 1;
    return std::min(n - leaves_, entries_.size());
}

}  // namespace morpheus
