// Flag parsing for memory requests; the SPANK plugin and the CLI both come through here.
#include "request.hpp"

#include "input_error.hpp"
#include "units.hpp"

#include <cctype>
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
