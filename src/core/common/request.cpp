// Flag parsing for memory requests; the SPANK plugin and the CLI both come through here.
#include "request.hpp"

#include "input_error.hpp"
#include "units.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace morpheus {

namespace {
// As sbatch's --mem: a number without a unit is megabytes (--mem-hot=262144 is 256G), so the
// flags beside it read alike. Files (inventory) keep plain numbers as bytes.
uint64_t parse_flag_size(const char *text, const char *flag) {
    try {
        std::string_view t(text);
        if (!t.empty() && t.find_first_not_of("0123456789") == std::string_view::npos) {
            uint64_t mb = parse_size(t, flag), bytes;
            if (__builtin_mul_overflow(mb, uint64_t{1} << 20, &bytes))
                throw InputError("", flag, std::string(text) + " megabytes is more than 2^64 bytes");
            return bytes;
        }
        return parse_size(text, flag);
    } catch (const InputError &e) {
        throw InputError("", flag, e.problem(), "give a size such as " + std::string(flag) + "=64G");
    }
}
}  // namespace

void parse_memory_flags(Request &req, const char *hot, const char *hot_latency, const char *cold) {
    if (hot && *hot) req.hot_per_node = parse_flag_size(hot, "--mem-hot");
    if (cold && *cold) req.cold_per_node = parse_flag_size(cold, "--mem-cold");
    if (hot_latency && *hot_latency) {
        try {
            req.hot_latency_ns = parse_latency(hot_latency, "--mem-hot-latency");
        } catch (const InputError &e) {
            throw InputError("", "--mem-hot-latency", e.problem(),
                             "give a time such as --mem-hot-latency=350ns or 1.2us");
        }
        if (req.hot_latency_ns == 0)
            throw InputError("", "--mem-hot-latency", "a bound of 0 can never be met",
                             "give a positive time such as 350ns");
    }
}

namespace {

// Digits only, into `out`; false on anything else or overflow past kMaxHotWaitS.
bool whole_number(std::string_view t, int64_t &out) {
    if (t.empty() || t.size() > 12 || t.find_first_not_of("0123456789") != std::string_view::npos) return false;
    out = 0;
    for (char c : t) out = out * 10 + (c - '0');
    return true;
}

// Slurm's time forms, as --time and --switches=N@TIME take them: "minutes", "MM:SS",
// "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS"; -1 when the text is none of them.
int64_t slurm_time_seconds(std::string_view t) {
    int64_t days = 0;
    size_t dash = t.find('-');
    if (dash != std::string_view::npos) {
        if (!whole_number(t.substr(0, dash), days)) return -1;
        t = t.substr(dash + 1);
    }
    std::vector<int64_t> parts;
    while (true) {
        size_t colon = t.find(':');
        int64_t v;
        if (!whole_number(t.substr(0, colon), v)) return -1;
        parts.push_back(v);
        if (colon == std::string_view::npos) break;
        t = t.substr(colon + 1);
    }
    if (parts.size() > 3) return -1;
    if (dash != std::string_view::npos) {  // D-HH, D-HH:MM, D-HH:MM:SS
        int64_t s = days * 86400 + parts[0] * 3600;
        if (parts.size() > 1) s += parts[1] * 60;
        if (parts.size() > 2) s += parts[2];
        return s;
    }
    if (parts.size() == 1) return parts[0] * 60;  // minutes
    if (parts.size() == 2) return parts[0] * 60 + parts[1];  // MM:SS
    return parts[0] * 3600 + parts[1] * 60 + parts[2];  // HH:MM:SS
}

}  // namespace

int64_t parse_hot_wait(std::string_view text, const std::string &what) {
    std::string lowered(text);
    for (char &c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lowered == "hard" || lowered == "unlimited" || lowered == "infinite") return kHotWaitHard;
    int64_t seconds = -1, n;
    if (lowered.size() > 1 && std::string_view("smhd").find(lowered.back()) != std::string_view::npos &&
        whole_number(std::string_view(lowered).substr(0, lowered.size() - 1), n)) {
        static const int64_t unit[] = {1, 60, 3600, 86400};
        seconds = n * unit[std::string_view("smhd").find(lowered.back())];
    } else {
        seconds = slurm_time_seconds(lowered);
    }
    if (seconds < 0)
        throw InputError("", what, "\"" + std::string(text) + "\" is not a wait",
                         "give minutes or a Slurm time (e.g. " + what + "=10, 30:00, 2-00:00:00, 90s, 15m), or hard");
    if (seconds > kMaxHotWaitS)
        throw InputError("", what, "\"" + std::string(text) + "\" is longer than a year",
                         "give a shorter wait, or hard to never leave the bound");
    return seconds == 0 ? kHotWaitNone : seconds;
}

std::string format_hot_wait(int64_t wait) {
    if (wait == kHotWaitHard) return "hard";
    if (wait == kHotWaitNone || wait <= 0) return "0s";
    std::string s;
    int64_t left = wait;
    for (auto [unit, name] : {std::pair<int64_t, const char *>{86400, "d"}, {3600, "h"}, {60, "m"}, {1, "s"}})
        if (left >= unit) {
            s += std::to_string(left / unit) + name;
            left %= unit;
        }
    return s;
}

void parse_wait_flag(Request &req, const char *hot_wait) {
    if (hot_wait && *hot_wait) req.hot_wait_s = parse_hot_wait(hot_wait, "--mem-hot-wait");
}

void parse_checkpoint_flags(Request &req, const char *size, const char *period, const char *period_max,
                            const char *replicas) {
    auto given = [](const char *t) { return t && *t; };
    auto period_of = [](const char *text, const char *flag) {
        int64_t s = parse_hot_wait(text, flag);
        if (s == kHotWaitHard || s == kHotWaitNone)
            throw InputError("", flag, "\"" + std::string(text) + "\" is not a checkpoint period",
                             "give a positive time such as " + std::string(flag) + "=30m or 2h");
        return s;
    };
    if (given(size)) {
        req.ckpt_bytes = parse_flag_size(size, "--ckpt-size");
        if (!req.ckpt_bytes)
            throw InputError("", "--ckpt-size", "a checkpoint of 0 bytes", "give a size such as --ckpt-size=2T");
    }
    if (given(period)) req.ckpt_period_s = period_of(period, "--ckpt-period");
    if (given(period_max)) req.ckpt_period_max_s = period_of(period_max, "--ckpt-period-max");
    if (given(replicas)) {
        std::string_view t(replicas);
        if (t.size() > 2 || t.find_first_not_of("0123456789") != std::string_view::npos || std::stoul(replicas) < 1 ||
            std::stoul(replicas) > kMaxCkptReplicas)
            throw InputError("", "--ckpt-replicas", "\"" + std::string(replicas) + "\" is not a number of replicas",
                             "give 1 to " + std::to_string(kMaxCkptReplicas) +
                                 " (2 keeps a copy in a second failure domain), e.g. --ckpt-replicas=2");
        req.ckpt_replicas = static_cast<uint32_t>(std::stoul(replicas));
    }
    if (req.ckpt_bytes && !req.ckpt_period_s)
        throw InputError("", "--ckpt-period", "--ckpt-size without a period",
                         "say how often the job checkpoints, e.g. --ckpt-period=30m");
    if (!req.ckpt_bytes && (req.ckpt_period_s || req.ckpt_period_max_s || req.ckpt_replicas))
        throw InputError("", "--ckpt-size", "checkpoint flags without --ckpt-size",
                         "give the size of the job's whole checkpoint, e.g. --ckpt-size=2T");
    if (req.ckpt_period_max_s && req.ckpt_period_max_s < req.ckpt_period_s)
        throw InputError("", "--ckpt-period-max",
                         "--ckpt-period-max=" + format_hot_wait(req.ckpt_period_max_s) +
                             " is shorter than --ckpt-period=" + format_hot_wait(req.ckpt_period_s),
                         "give a maximum at least as long as the period, or leave it out");
}

std::string checkpoint_never_fits(const Request &req, std::vector<uint64_t> domain_pmem, double best_rate,
                                  int64_t cycle_s) {
    if (!req.ckpt_bytes) return "";
    const uint32_t replicas = req.replicas();
    const std::string asked = "--ckpt-size=" + format_size(req.ckpt_bytes) +
                              (replicas > 1 ? " x " + std::to_string(replicas) + " replicas" : "");
    // Replicas in separate domains, each a whole copy: fill one copy at a time from the largest
    // domains (a copy may stripe over several domains that no other copy uses).
    std::sort(domain_pmem.begin(), domain_pmem.end(), std::greater<uint64_t>());
    size_t next = 0;
    uint64_t largest_copy = 0;
    for (uint32_t r = 0; r < replicas; ++r) {
        uint64_t got = 0;
        while (got < req.ckpt_bytes && next < domain_pmem.size()) got += domain_pmem[next++];
        if (r == 0) largest_copy = got;
        if (got < req.ckpt_bytes) {
            if (replicas == 1)
                return asked + " is more than the " + format_size(got) +
                       " of persistent memory on all blades in service (fix: a smaller --ckpt-size)";
            return asked + " never fits: the persistent memory holds " + std::to_string(r) + " whole " +
                   (r == 1 ? "copy" : "copies") + " in separate failure domains (fix: fewer --ckpt-replicas or a " +
                   "smaller --ckpt-size" + (r == 0 ? ", at most " + format_size(largest_copy) : "") + ")";
        }
    }
    const int64_t longest = std::min<int64_t>(std::max(req.ckpt_period_s, req.ckpt_period_max_s), cycle_s);
    const double alone = best_rate > 0 ? double(req.ckpt_bytes) * replicas / best_rate : 1e300;
    if (alone > double(longest)) {
        const bool capped = std::max(req.ckpt_period_s, req.ckpt_period_max_s) > cycle_s;
        return asked + ": one flush takes at least " + format_hot_wait(int64_t(alone) + 1) +
               " alone on the fabric, longer than " +
               (capped ? "the longest period granted (CheckpointCycle=" + format_hot_wait(cycle_s) + ")"
                       : "--ckpt-period" + std::string(req.ckpt_period_max_s ? "-max" : "") + "=" +
                             format_hot_wait(longest)) +
               " (fix: a smaller --ckpt-size or " +
               (capped ? "fewer replicas)"
                       : "a --ckpt-period of at least " + format_hot_wait(int64_t(alone) + 1) + ")");
    }
    return "";
}

std::string oversized_request(const Request &req, uint64_t nodes, uint64_t hot_capacity, uint64_t cold_capacity) {
    auto check = [&](uint64_t per_node, uint64_t capacity, const char *flag, const char *kind) -> std::string {
        if (!per_node) return "";
        uint64_t total;
        std::string what = std::string(flag) + ": " + std::to_string(nodes) + (nodes == 1 ? " node" : " nodes") +
                           " x " + format_size(per_node) + " per node";
        if (__builtin_mul_overflow(per_node, nodes, &total))
            return what + " is more than 2^64 bytes (fix: ask for less memory per node)";
        if (total > capacity)
            return what + " = " + format_size(total) + " is more than the " + format_size(capacity) + " of " + kind +
                   " memory on all blades together (fix: ask for at most " +
                   format_size(nodes ? capacity / nodes : capacity) + " per node)";
        return "";
    };
    std::string hot = check(req.hot_per_node, hot_capacity, "--mem-hot", "hot");
    return hot.empty() ? check(req.cold_per_node, cold_capacity, "--mem-cold", "cold") : hot;
}

std::string describe(const Request &req) {
    std::string s = req.nodes ? std::to_string(req.nodes) + (req.nodes == 1 ? " node" : " nodes")
                              : std::to_string(req.gpus) + " GPUs";
    if (req.hot_per_node) {
        s += ", hot " + format_size(req.hot_per_node) + "/node";
        if (req.hot_latency_ns) s += " <= " + format_latency(req.hot_latency_ns);
        if (req.hot_wait_s == kHotWaitHard)
            s += " (hard)";
        else if (req.hot_wait_s != kHotWaitDefault)
            s += " (waits " + format_hot_wait(req.hot_wait_s) + ", then any latency)";
    }
    if (req.cold_per_node) s += ", cold " + format_size(req.cold_per_node) + "/node";
    if (req.ckpt_bytes) {
        s += ", checkpoint " + format_size(req.ckpt_bytes) + " every " + format_hot_wait(req.ckpt_period_s);
        if (req.ckpt_period_max_s) s += " (up to " + format_hot_wait(req.ckpt_period_max_s) + ")";
        if (req.replicas() > 1) s += " x " + std::to_string(req.replicas()) + " replicas";
    }
    return s;
}

std::string license_request(const Request &req, uint64_t nodes, const std::string &hot_name,
                            const std::string &cold_name) {
    constexpr uint64_t kGiB = uint64_t(1) << 30;
    std::string out;
    auto add = [&](const std::string &name, uint64_t per_node) {
        uint64_t bytes = bytes_for_nodes(per_node, nodes);
        if (name.empty() || bytes == 0) return;
        uint64_t gib = bytes / kGiB + (bytes % kGiB != 0);
        out += (out.empty() ? "" : ",") + name + ":" + std::to_string(gib);
    };
    add(hot_name, req.hot_per_node);
    add(cold_name, req.cold_per_node);
    return out;
}

}  // namespace morpheus
