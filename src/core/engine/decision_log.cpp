// Bounded per-job decision memory and decision counters.
#include "decision_log.hpp"

namespace morpheus {

void DecisionLog::record(DecisionRecord r) {
    uint64_t id = r.job_id;
    auto it = by_job_.find(id);
    if (it == by_job_.end()) {
        order_.push_back(id);
        while (order_.size() > capacity_) {  // forget the oldest jobs first
            by_job_.erase(order_.front());
            order_.pop_front();
        }
    }
    by_job_[id] = std::move(r);
}

const DecisionRecord *DecisionLog::find(uint64_t job_id) const {
    auto it = by_job_.find(job_id);
    return it == by_job_.end() ? nullptr : &it->second;
}

void DecisionLog::count_decision(const std::string &verdict, double seconds) {
    decisions_[verdict]++;
    seconds_sum_ += seconds;
    ++decision_count_;
    for (size_t i = 0; i < sizeof(kBuckets) / sizeof(kBuckets[0]); ++i)
        if (seconds <= kBuckets[i]) buckets_[i]++;
}

void DecisionLog::count_rejection(const std::string &reason_kind) { rejections_[reason_kind]++; }

void DecisionLog::release_failed(uint64_t job_id, const std::string &error) {
    releases_due_[job_id] = error;
    ++release_failures_;
}

}  // namespace morpheus
