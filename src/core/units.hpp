// Sizes ("512G", "2T") and latencies ("350ns", "1.2us") as users write them, parsed strictly.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace morpheus {

// Bytes from "<number>[K|M|G|T|P][i][B]": powers of 1024 like Slurm's --mem ("64G" = 64 GiB).
// A bare number is bytes. Throws InputError naming `what` on anything else.
uint64_t parse_size(std::string_view text, const std::string &what = "size");

// Nanoseconds from "<number>(ns|us|ms|s)"; a bare number is nanoseconds.
uint64_t parse_latency(std::string_view text, const std::string &what = "latency");

// Compact forms for people: 68719476736 -> "64G", 1200 -> "1.2us".
std::string format_size(uint64_t bytes);
std::string format_latency(uint64_t ns);

}  // namespace morpheus
