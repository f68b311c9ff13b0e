// A job's checkpoint region: persistent memory on blades, `replicas` copies, each copy on
// failure domains no other copy uses (morpheus-fabric(5) "failure_domain"), so one failure
// never takes every copy. Blades are taken in the order that makes the flush fastest and
// nearest: the narrowest checkpoint rate of the paths from the job's pods first, then latency.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "cluster_model.hpp"
#include "ledger.hpp"

namespace morpheus {

// Appends the region's stripes (Tier::Pmem, Use::Checkpoint) to `out`; false with `why` when
// the free persistent memory in separate domains does not hold every copy (nothing appended).
// Blades in `avoid` are not used.
bool choose_region(const ClusterModel &m, const Ledger &ledger, const std::vector<PodShare> &pods, uint64_t bytes,
                   uint32_t replicas, std::vector<Segment> &out, std::string *why,
                   const std::unordered_set<uint32_t> *avoid = nullptr);

// Persistent memory per failure domain over the blades in service (what the submit-time
// check weighs a request against).
std::vector<uint64_t> pmem_by_domain(const ClusterModel &m);

}  // namespace morpheus
