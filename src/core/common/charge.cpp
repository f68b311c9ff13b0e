// The blade-memory charge (see charge.hpp).
#include "charge.hpp"

#include <algorithm>
#include <vector>

#include "input_error.hpp"

namespace morpheus {

uint32_t most_nodes(const JobSize &s) {
    uint32_t n;
    if (s.max_nodes) {
        n = s.max_nodes;
    } else if (s.tasks || s.gpus) {
        n = UINT32_MAX;
        if (s.tasks) n = std::min(n, s.tasks);
        if (s.gpus) n = std::min(n, s.gpus);
    } else {
        n = s.min_nodes ? s.min_nodes : 1;
    }
    if (s.cluster_nodes) n = std::min(n, s.cluster_nodes);
    return std::max(n, std::max(s.min_nodes, uint32_t(1)));
}

namespace {

std::vector<std::string> split(const std::string &s, char sep) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        size_t end = s.find(sep, start);
        if (end == std::string::npos) end = s.size();
        if (end > start) out.push_back(s.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

// "name@server:count" -> name (with its @server), count (1 when not given).
std::pair<std::string, uint64_t> item_of(const std::string &item) {
    size_t colon = item.find(':');
    if (colon == std::string::npos) return {item, 1};
    uint64_t count = 0;
    for (size_t i = colon + 1; i < item.size() && item[i] >= '0' && item[i] <= '9'; ++i)
        count = count * 10 + uint64_t(item[i] - '0');
    return {item.substr(0, colon), count};
}

}  // namespace

uint64_t license_count(const std::string &licenses, const std::string &name) {
    uint64_t total = 0;
    for (const std::string &item : split(licenses, ',')) {
        auto [n, count] = item_of(item);
        if (n == name) total += count;
    }
    return total;
}

std::string merge_charge(const std::string &named, const std::string &charge, const std::string &flag) {
    std::vector<std::pair<std::string, uint64_t>> ours;
    for (const std::string &item : split(charge, ',')) ours.push_back(item_of(item));
    std::string out;
    std::vector<bool> placed(ours.size(), false);
    for (const std::string &item : split(named, ',')) {
        if (item.find('|') != std::string::npos) {
            for (const auto &[name, count] : ours)
                for (const std::string &alt : split(item, '|'))
                    if (item_of(alt).first == name)
                        throw InputError(
                            "", flag,
                            "licence " + name +
                                " is Morpheus's charge for blade memory and cannot be one of alternatives ('" + item +
                                "')",
                            "leave " + name + " out of -L: Morpheus adds it from --mem-hot/--mem-cold");
            out += (out.empty() ? "" : ",") + item;
            continue;
        }
        auto [name, count] = item_of(item);
        bool charged = false;
        for (size_t i = 0; i < ours.size(); ++i) {
            if (ours[i].first != name) continue;
            charged = true;
            if (!placed[i]) {
                out += (out.empty() ? "" : ",") + name + ":" + std::to_string(std::max(count, ours[i].second));
                placed[i] = true;
            }
        }
        if (!charged) out += (out.empty() ? "" : ",") + item;
    }
    for (size_t i = 0; i < ours.size(); ++i)
        if (!placed[i]) out += (out.empty() ? "" : ",") + ours[i].first + ":" + std::to_string(ours[i].second);
    return out;
}

}  // namespace morpheus
