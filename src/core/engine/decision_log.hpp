// DecisionLog: the latest decision per job (placed or pending, and why), kept so that
// `morpheus explain JOBID` can answer from inside slurmctld; plus the counters behind
// `morpheus metrics`.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <string>

#include "ledger.hpp"

namespace morpheus {

struct DecisionRecord {
    uint64_t job_id = 0;
    uint32_t uid = 0;
    int64_t when = 0;  // unix seconds
    std::string verdict;  // placed | pending | impossible
    std::string reason;
    std::string explanation;  // explain_text()
    std::string json;  // decision_json()
};

class DecisionLog {
public:
    explicit DecisionLog(size_t capacity = 20000) : capacity_(capacity) {}

    void record(DecisionRecord r);
    const DecisionRecord *find(uint64_t job_id) const;
    const std::map<uint64_t, DecisionRecord> &records() const { return by_job_; }
    // A job that ended: it is no longer pending anywhere.
    void forget(uint64_t job_id) { by_job_.erase(job_id); }

    // Counters for metrics.
    void count_decision(const std::string &verdict, double seconds);
    void count_rejection(const std::string &reason_kind);
    const std::map<std::string, uint64_t> &decisions() const { return decisions_; }
    const std::map<std::string, uint64_t> &rejections() const { return rejections_; }
    double decision_seconds_sum() const { return seconds_sum_; }
    uint64_t decision_count() const { return decision_count_; }
    // Cumulative histogram buckets (upper bounds in seconds) of decision time.
    static constexpr double kBuckets[] = {1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 1e-2, 1e-1};
    const uint64_t *bucket_counts() const { return buckets_; }

    // Releases that could not be saved (disk full, I/O error): the job ended but its memory
    // is still held until a retry succeeds (Engine::retry_releases). job -> the last error.
    void release_failed(uint64_t job_id, const std::string &error);
    // With background saves a release frees the memory at once and the file follows; while the
    // file cannot be written, the job's reservation as it was is kept here so the views show
    // it "releasing" (the saver retries every second). No memory is held for it.
    void release_unsaved(uint64_t job_id, const std::string &error, const Reservation &r) {
        releases_due_[job_id] = error;
        releasing_[job_id] = r;
    }
    const std::map<uint64_t, Reservation> &releasing() const { return releasing_; }
    void release_done(uint64_t job_id) {
        releases_due_.erase(job_id);
        releasing_.erase(job_id);
    }
    const std::map<uint64_t, std::string> &releases_due() const { return releases_due_; }
    uint64_t release_failures() const { return release_failures_; }

    // A shim's decision cache (select/morpheus: plugins/common/morpheus_decision_cache.c):
    // job tests answered from a kept decision (hits) and decided afresh (misses), as totals.
    void set_cache_counts(uint64_t hits, uint64_t misses) {
        cache_hits_ = hits;
        cache_misses_ = misses;
    }
    uint64_t cache_hits() const { return cache_hits_; }
    uint64_t cache_misses() const { return cache_misses_; }

    // Where the shim's scheduler time goes (morpheus_test_timing_t), as totals.
    struct ModeTiming {
        uint64_t tests = 0, cons_tres_runs = 0;
        double seconds = 0, cons_tres_seconds = 0, lock_wait_seconds = 0;
        uint64_t cons_tres_remembered = 0;
    };
    struct TestTiming {
        ModeTiming run_now, will_run;
        uint64_t begins = 0;
        double begin_seconds = 0;
    };
    void set_test_timing(const TestTiming &t) { test_timing_ = t; }
    const TestTiming &test_timing() const { return test_timing_; }

private:
    size_t capacity_;
    std::map<uint64_t, DecisionRecord> by_job_;
    std::deque<uint64_t> order_;
    std::map<std::string, uint64_t> decisions_, rejections_;
    double seconds_sum_ = 0;
    uint64_t decision_count_ = 0;
    uint64_t buckets_[sizeof(kBuckets) / sizeof(kBuckets[0])] = {};
    std::map<uint64_t, std::string> releases_due_;
    std::map<uint64_t, Reservation> releasing_;
    uint64_t release_failures_ = 0;
    uint64_t cache_hits_ = 0, cache_misses_ = 0;
    TestTiming test_timing_;
};

}  // namespace morpheus
