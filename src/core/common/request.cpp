// Flag parsing for memory requests; the SPANK plugin and the CLI both come through here.
#include "request.hpp"

#include "input_error.hpp"
#include "units.hpp"

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
