// Link profiles over one cycle, in slots. A check folds each link's profile by the flush's
// period with max (O(cycle) per link), marks the phases where the flush's rate does not fit,
// and takes the first run of free phases as long as the window.
#include "link_book.hpp"

#include <algorithm>
#include <cmath>

namespace morpheus {

namespace {
int64_t mod(int64_t a, int64_t b) {
    int64_t r = a % b;
    return r < 0 ? r + b : r;
}
}  // namespace

bool FlushWindow::open_at(int64_t t) const {
    if (period_s <= 0) return false;
    int64_t r = mod(t - phase_s, period_s);
    return r < length_s;
}

int64_t FlushWindow::opens_in(int64_t t) const {
    if (period_s <= 0) return -1;
    if (open_at(t)) return 0;
    return period_s - mod(t - phase_s, period_s);
}

uint32_t kilobytes_per_s(double rate) {
    double kb = std::ceil(rate / 1000.0);
    return kb >= 4e9 ? 4000000000u : static_cast<uint32_t>(std::max(kb, 0.0));
}

LinkBook::LinkBook(std::vector<double> capacity, int64_t slot_s, int64_t cycle_s)
    : capacity_(std::move(capacity)),
      slot_(std::max<int64_t>(slot_s, 1)),
      cycle_slots_(std::max<int64_t>(cycle_s / std::max<int64_t>(slot_s, 1), 1)),
      profile_(capacity_.size()) {}

bool LinkBook::valid_period(int64_t period_s) const {
    return period_s > 0 && period_s % slot_ == 0 && cycle_slots_ % (period_s / slot_) == 0;
}

void LinkBook::add(const std::vector<LinkLoad> &loads, const FlushWindow &w, int sign) {
    const int64_t n = w.period_s / slot_, len = std::min(slots_for(w.length_s), n), first = w.phase_s / slot_;
    for (const LinkLoad &l : loads) {
        std::vector<uint32_t> &p = profile_[l.link];
        if (p.empty()) p.assign(static_cast<size_t>(cycle_slots_), 0);
        const uint32_t kb = kilobytes_per_s(l.rate);
        for (int64_t c = 0; c < cycle_slots_; c += n)
            for (int64_t s = 0; s < len; ++s) {
                uint32_t &cell = p[static_cast<size_t>(c + mod(first + s, n))];
                cell = sign > 0 ? cell + kb : cell - std::min(cell, kb);
            }
    }
}

void LinkBook::book(uint64_t job_id, const std::vector<LinkLoad> &loads, const FlushWindow &window) {
    release(job_id);
    if (!valid_period(window.period_s)) return;  // never booked: valid periods only come in
    add(loads, window, +1);
    bookings_[job_id] = Booking{loads, window};
}

bool LinkBook::release(uint64_t job_id) {
    auto it = bookings_.find(job_id);
    if (it == bookings_.end()) return false;
    add(it->second.loads, it->second.window, -1);
    bookings_.erase(it);
    return true;
}

void LinkBook::clear() {
    bookings_.clear();
    for (auto &p : profile_) p.clear();
}

const LinkBook::Booking *LinkBook::find(uint64_t job_id) const {
    auto it = bookings_.find(job_id);
    return it == bookings_.end() ? nullptr : &it->second;
}

double LinkBook::booked(uint32_t link, int64_t t) const {
    const auto &p = profile_[link];
    if (p.empty()) return 0;
    return 1000.0 * p[static_cast<size_t>(mod(t / slot_, cycle_slots_))];
}

double LinkBook::peak(uint32_t link) const {
    const auto &p = profile_[link];
    return p.empty() ? 0 : 1000.0 * *std::max_element(p.begin(), p.end());
}

std::vector<uint64_t> LinkBook::holders(uint32_t link) const {
    std::vector<uint64_t> out;
    for (const auto &[job, b] : bookings_)
        for (const LinkLoad &l : b.loads)
            if (l.link == link) {
                out.push_back(job);
                break;
            }
    return out;
}

std::optional<int64_t> LinkBook::find_phase(const std::vector<LinkLoad> &loads, int64_t period_s, int64_t length_s,
                                            int64_t from_phase_s, uint32_t *blocking) const {
    if (!valid_period(period_s)) return std::nullopt;
    const int64_t n = period_s / slot_, len = std::max<int64_t>(slots_for(length_s), 1);
    if (len > n) return std::nullopt;
    bad_.assign(static_cast<size_t>(n), 0);
    size_t worst_count = 0;
    for (const LinkLoad &l : loads) {
        const uint32_t kb = kilobytes_per_s(l.rate);
        // The capacity in the book's units: a rate that fits exactly counts as fitting.
        const double cap_kb = std::floor(capacity_[l.link] / 1000.0) + 0.5;
        if (kb > cap_kb) {
            if (blocking) *blocking = l.link;
            return std::nullopt;  // more than the link's share even alone
        }
        const auto &p = profile_[l.link];
        if (p.empty()) continue;
        fold_.assign(static_cast<size_t>(n), 0);
        for (int64_t c = 0; c < cycle_slots_; c += n)
            for (int64_t r = 0; r < n; ++r) fold_[r] = std::max(fold_[r], p[static_cast<size_t>(c + r)]);
        size_t count = 0;
        for (int64_t r = 0; r < n; ++r)
            if (double(fold_[r]) + kb > cap_kb) {
                count += !bad_[r];
                bad_[r] = 1;
            }
        if (count > worst_count && blocking) {
            worst_count = count;
            *blocking = l.link;
        }
    }
    // The first phase from `from` whose `len` slots are all free, cyclically: walk 2n slots
    // counting the free run.
    const int64_t start = mod(from_phase_s / slot_, n);
    int64_t run = 0;
    for (int64_t i = 0; i < n + len - 1; ++i) {
        int64_t r = (start + i) % n;
        run = bad_[r] ? 0 : run + 1;
        if (run >= len) return mod(start + i - len + 1, n) * slot_;
    }
    return std::nullopt;
}

}  // namespace morpheus
