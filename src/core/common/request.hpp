// What a job asks of the fabric: compute (nodes or GPUs) and memory by tier.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace morpheus {

struct Request {
    uint64_t job_id = 0;
    uint32_t uid = 0;
    uint32_t nodes = 0;  // 0: derive from gpus
    uint32_t gpus = 0;  // total GPUs; used when nodes is 0
    uint64_t hot_per_node = 0;  // bytes of hot memory per allocated node (like --mem)
    uint64_t hot_latency_ns = 0;  // bound for hot memory; 0: the configured default
    uint64_t cold_per_node = 0;  // bytes of cold memory per allocated node, any latency
    // How long the job waits for hot memory inside its bound before it takes the nearest
    // memory there is (a soft bound, like --switches=N@TIME): kHotWaitDefault (morpheus.conf
    // DefaultHotWait), kHotWaitHard (never leaves the bound), kHotWaitNone (does not wait),
    // else seconds.
    int64_t hot_wait_s = 0;
    // Set by the caller (soft_bound.hpp) when the wait is over: decide() and reserve then take
    // hot memory beyond the bound when none is free inside it. What the job declared stays.
    bool bound_lapsed = false;
    // The job's time limit in seconds (0: none known): what the expected-completion rule of a
    // soft bound weighs the wait against (soft_bound.hpp, morpheus.conf HotWaitShare).
    int64_t time_limit_s = 0;
    // Checkpoint offload (--ckpt-size, --ckpt-period, --ckpt-period-max, --ckpt-replicas): the
    // whole job's state flushed to persistent memory once per period, `replicas` copies in
    // separate failure domains. period_max (0: the period exactly) lets the controller grant a
    // longer period when no window can be booked at the asked one.
    uint64_t ckpt_bytes = 0;
    int64_t ckpt_period_s = 0;
    int64_t ckpt_period_max_s = 0;
    uint32_t ckpt_replicas = 0;  // 0: 1

    bool wants_memory() const { return hot_per_node > 0 || cold_per_node > 0 || ckpt_bytes > 0; }
    bool wants_checkpoint() const { return ckpt_bytes > 0; }
    uint32_t replicas() const { return ckpt_replicas ? ckpt_replicas : 1; }
};

constexpr uint32_t kMaxCkptReplicas = 4;

constexpr int64_t kHotWaitDefault = 0;
constexpr int64_t kHotWaitHard = -1;
constexpr int64_t kHotWaitNone = -2;
// The longest wait a flag or morpheus.conf may give: a year, far beyond any queue.
constexpr int64_t kMaxHotWaitS = 365 * 86400;

// Seconds, or kHotWaitHard, from "hard" / "UNLIMITED" / "infinite", or Slurm's time forms
// ("minutes", "MM:SS", "HH:MM:SS", "D-HH[:MM[:SS]]") or "<n>s|m|h|d"; 0 gives kHotWaitNone.
// Throws InputError naming `what` and the expected forms.
int64_t parse_hot_wait(std::string_view text, const std::string &what);
// "hard", "0s", "90s", "10m", "1h30m", "2d": what a view prints for a wait.
std::string format_hot_wait(int64_t wait);

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
// The same for --mem-hot-wait (nullptr or "" leaves it unset).
void parse_wait_flag(Request &req, const char *hot_wait);

// The checkpoint flags (nullptr or "" leaves a field unset): --ckpt-size (a size, plain
// numbers are megabytes), --ckpt-period and --ckpt-period-max (Slurm times or 90s/15m/2h),
// --ckpt-replicas (1 to kMaxCkptReplicas). Throws InputError naming the flag and the fix, also
// when the flags do not go together (a size without a period, a maximum below the period).
void parse_checkpoint_flags(Request &req, const char *size, const char *period, const char *period_max,
                            const char *replicas);

// "" when a checkpoint of the request can ever fit; else why not, naming the flag and the fix.
// `domain_pmem`: persistent memory per failure domain of the blades in service (replicas take
// separate domains, each a whole copy); `best_rate`: the most bytes per second any flush could
// move alone on the fabric at the checkpoint share; `cycle_s`: the longest period granted.
std::string checkpoint_never_fits(const Request &req, std::vector<uint64_t> domain_pmem, double best_rate,
                                  int64_t cycle_s);

// The Slurm licenses that mirror the request's blade memory for accounting: "HOT:g,COLD:g"
// in GiB rounded up, for `nodes` nodes; a tier with no name or no memory is left out; "" when
// nothing is left (morpheus.conf LicenseHot=, LicenseCold=).
std::string license_request(const Request &req, uint64_t nodes, const std::string &hot_name,
                            const std::string &cold_name);

// One line for people: "4 nodes, hot 64G/node <= 300ns, cold 1T/node".
std::string describe(const Request &req);

}  // namespace morpheus
