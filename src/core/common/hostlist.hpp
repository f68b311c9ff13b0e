// Slurm hostlist expressions ("gpu[0000-0511]", "n[1-3,7],login0") expanded and compressed.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace morpheus {

// What expansion may still produce. A typo like n[0-99999999], or a long prefix times a big
// range, must be refused before it eats the machine; the fabric reader shares one budget
// over all its pods.
struct HostlistLimits {
    size_t max_hosts = 1000000;
    size_t max_bytes = 64u << 20;  // bytes of names, all together
};

// Expands a hostlist expression; throws InputError naming `where` when malformed.
// Several bracket groups in one name ("r[1-2]n[1-4]") expand as a cartesian product.
std::vector<std::string> expand_hostlist(std::string_view expr, const std::string &where = "hostlist");
// The same, charged to `limits` (what is left of it on return); too large throws before expanding.
std::vector<std::string> expand_hostlist(std::string_view expr, const std::string &where, HostlistLimits &limits);

// Compresses names into the shortest expression Slurm would print for them, keeping order.
std::string compress_hostlist(const std::vector<std::string> &names);

}  // namespace morpheus
