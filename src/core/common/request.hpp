// What a job asks of the fabric: compute (nodes or GPUs) and memory by tier.
#pragma once
#include <cstdint>
#include <string>

namespace morpheus {

struct Request {
    uint64_t job_id = 0;
    uint32_t uid = 0;
    uint32_t nodes = 0;  // 0: derive from gpus
    uint32_t gpus = 0;  // total GPUs; used when nodes is 0
    uint64_t hot_per_node = 0;  // bytes of hot memory per allocated node (like --mem)
    uint64_t hot_latency_ns = 0;  // bound for hot memory; 0: the configured default
    uint64_t cold_per_node = 0;  // bytes of cold memory per allocated node, any latency

    bool wants_memory() const { return hot_per_node > 0 || cold_per_node > 0; }
};

// per_node x nodes, saturating at UINT64_MAX instead of wrapping (4 x 4096P is not 0 bytes).
inline uint64_t bytes_for_nodes(uint64_t per_node, uint64_t nodes) {
    uint64_t total;
    return __builtin_mul_overflow(per_node, nodes, &total) ? UINT64_MAX : total;
}

// "" when `nodes` nodes of the request fit in 64 bits and in the capacity of every blade
// together (hot: DRAM; cold: any tier); otherwise why not, naming the flag (--mem-hot,
// --mem-cold) and the fix.
std::string oversized_request(const Request &req, uint64_t nodes, uint64_t hot_capacity, uint64_t cold_capacity);

// Fills the memory fields from the flag texts (nullptr or "" leaves a field unset). Throws
// InputError naming the flag (--mem-hot, --mem-hot-latency, --mem-cold) and the expected form.
void parse_memory_flags(Request &req, const char *hot, const char *hot_latency, const char *cold);

// The Slurm licenses that mirror the request's blade memory for accounting: "HOT:g,COLD:g"
// in GiB rounded up, for `nodes` nodes; a tier with no name or no memory is left out; "" when
// nothing is left (morpheus.conf LicenseHot=, LicenseCold=).
std::string license_request(const Request &req, uint64_t nodes, const std::string &hot_name,
                            const std::string &cold_name);

// One line for people: "4 nodes, hot 64G/node <= 300ns, cold 1T/node".
std::string describe(const Request &req);

}  // namespace morpheus
