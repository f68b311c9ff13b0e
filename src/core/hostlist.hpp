// Slurm hostlist expressions ("gpu[0000-0511]", "n[1-3,7],login0") expanded and compressed.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace morpheus {

// Expands a hostlist expression; throws InputError naming `where` when malformed.
// Several bracket groups in one name ("r[1-2]n[1-4]") expand as a cartesian product.
std::vector<std::string> expand_hostlist(std::string_view expr, const std::string &where = "hostlist");

// Compresses names into the shortest expression Slurm would print for them, keeping order.
std::string compress_hostlist(const std::vector<std::string> &names);

}  // namespace morpheus
