// LinkBook: the fabric's link time as a scheduled resource (issue 28). Each job's checkpoint
// flush holds a rate on every link of its paths during its window, once per period; the book
// keeps, per link, the checkpoint bandwidth booked at every slot of the cycle, and finds the
// first phase at which a new flush keeps every link at or below its CheckpointShare. Periods
// divide the cycle, so a link's profile over one cycle is exact for all time: a flush of period
// P is checked at each of its cycle/P windows (the profile folded by P with max).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace morpheus {

// The rate (bytes/s) a flush holds on one link.
struct LinkLoad {
    uint32_t link = 0;
    double rate = 0;
};

// Windows at every time t (unix seconds) with (t mod period) in [phase, phase + length).
struct FlushWindow {
    int64_t period_s = 0;
    int64_t phase_s = 0;
    int64_t length_s = 0;
    bool open_at(int64_t t) const;
    // Seconds from t until the next window opens (0 while one is open).
    int64_t opens_in(int64_t t) const;
};

class LinkBook {
public:
    LinkBook() = default;
    // `capacity`: per link, the bytes per second checkpoints may hold (CheckpointShare x bandwidth).
    LinkBook(std::vector<double> capacity, int64_t slot_s, int64_t cycle_s);

    int64_t slot_s() const { return slot_; }
    int64_t cycle_s() const { return slot_ * cycle_slots_; }
    // Whole slots a window of `length_s` seconds takes.
    int64_t slots_for(int64_t length_s) const { return (length_s + slot_ - 1) / slot_; }
    // Whether `period_s` divides the cycle in whole slots (what a granted period must do).
    bool valid_period(int64_t period_s) const;

    // The first phase (a whole slot, searched from `from_phase_s` on, cyclically) at which a
    // flush holding `loads` for `length_s` seconds every `period_s` keeps every link within its
    // capacity at every instant; empty when none. `blocking` (when given): the link that ruled
    // out the most phases.
    std::optional<int64_t> find_phase(const std::vector<LinkLoad> &loads, int64_t period_s, int64_t length_s,
                                      int64_t from_phase_s = 0, uint32_t *blocking = nullptr) const;
    // Books the job's flush (replacing any booking it had). Does not check capacity: the
    // caller found the phase, or is restoring what was granted before a restart.
    void book(uint64_t job_id, const std::vector<LinkLoad> &loads, const FlushWindow &window);
    bool release(uint64_t job_id);  // releasing twice is harmless
    void clear();

    struct Booking {
        std::vector<LinkLoad> loads;
        FlushWindow window;
    };
    const Booking *find(uint64_t job_id) const;
    const std::map<uint64_t, Booking> &bookings() const { return bookings_; }
    // Bytes/s booked on the link at unix time t, and its largest value over the cycle.
    double booked(uint32_t link, int64_t t) const;
    double peak(uint32_t link) const;
    double capacity(uint32_t link) const { return capacity_[link]; }
    size_t link_count() const { return capacity_.size(); }
    // Jobs whose window uses the link.
    std::vector<uint64_t> holders(uint32_t link) const;

private:
    void add(const std::vector<LinkLoad> &loads, const FlushWindow &w, int sign);
    std::vector<double> capacity_;
    int64_t slot_ = 10;
    int64_t cycle_slots_ = 1440;
    // Per link, kB/s booked per slot of the cycle (empty until something is booked on it):
    // integers, so booking and releasing in any order leave exactly zero.
    std::vector<std::vector<uint32_t>> profile_;
    std::map<uint64_t, Booking> bookings_;
    mutable std::vector<uint8_t> bad_;  // scratch: phases ruled out
    mutable std::vector<uint32_t> fold_;  // scratch
};

// kB/s, rounded up, as the book counts a rate.
uint32_t kilobytes_per_s(double rate);

}  // namespace morpheus
