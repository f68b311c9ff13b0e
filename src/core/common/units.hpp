// Sizes ("512G", "2T") and latencies ("350ns", "1.2us") as users write them, parsed strictly.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace morpheus {

// Bytes from "<number>[K|M|G|T|P][i][B]": powers of 1024 like Slurm's --mem ("64G" = 64 GiB).
// A bare number is bytes. Throws InputError naming `what` on anything else, and on a value
// beyond 64 bits.
uint64_t parse_size(std::string_view text, const std::string &what = "size");

// The longest latency any input may give (a link, a node's port, a bound): 1 s. Far beyond any
// real fabric, and small enough that path sums of a few links stay exact in 32 bits' range.
constexpr uint64_t kMaxLatencyNs = 1000000000;

// Nanoseconds from "<number>(ns|us|ms|s)"; a bare number is nanoseconds. Refuses more than
// kMaxLatencyNs.
uint64_t parse_latency(std::string_view text, const std::string &what = "latency");

// Compact forms for people: 68719476736 -> "64G", 1200 -> "1.2us".
std::string format_size(uint64_t bytes);
std::string format_latency(uint64_t ns);

}  // namespace morpheus
