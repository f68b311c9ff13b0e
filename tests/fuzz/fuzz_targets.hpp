// Fuzz entry points shared by the libFuzzer harnesses and the regression replay in make check:
// each feeds arbitrary bytes to one reader; an InputError is the expected answer to garbage,
// anything else (a crash, a sanitizer report, another exception) is a bug.
#pragma once
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>

#include "config.hpp"
#include "fabric.hpp"
#include "hostlist.hpp"
#include "input_error.hpp"
#include "inventory.hpp"
#include "latency_table.hpp"
#include "request.hpp"
#include "units.hpp"

namespace morpheus::fuzz {

inline void fabric(const uint8_t *data, size_t size) {
    try {
        Fabric f = parse_fabric(std::string(reinterpret_cast<const char *>(data), size), "fuzz.json");
        if (f.node_names.size() < 100000) LatencyTable t(f);
    } catch (const InputError &) {
    }
}

inline const Fabric &example_fabric() {
    static const Fabric f = parse_fabric(R"({"pods":[{"name":"p","nodes":"n[1-4]","gpus_per_node":8}],
        "switches":[{"name":"s"}],"blades":[{"name":"blade1"},{"name":"blade2"}],
        "links":[{"from":"p","to":"s","latency":10,"bandwidth":1},{"from":"blade1","to":"s","latency":10,"bandwidth":1},
                 {"from":"blade2","to":"s","latency":10,"bandwidth":1}]})",
                                         "example");
    return f;
}

inline void inventory(const uint8_t *data, size_t size) {
    try {
        parse_inventory(std::string(reinterpret_cast<const char *>(data), size), "fuzz.json", example_fabric());
    } catch (const InputError &) {
    }
}

// Lines: --mem-hot, --mem-hot-latency, --mem-cold, a hostlist.
inline void units(const uint8_t *data, size_t size) {
    std::string s(reinterpret_cast<const char *>(data), size), part[4];
    for (int i = 0, at = 0; i < 4; ++i) {
        size_t nl = s.find('\n', at);
        part[i] = s.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
        if (nl == std::string::npos) break;
        at = static_cast<int>(nl + 1);
    }
    try {
        Request r;
        parse_memory_flags(r, part[0].c_str(), part[1].c_str(), part[2].c_str());
    } catch (const InputError &) {
    }
    try {
        parse_size(s);
    } catch (const InputError &) {
    }
    try {
        parse_latency(s);
    } catch (const InputError &) {
    }
    // Ranges of more than 4 digits expand to up to a million names: valid, but slow to fuzz.
    size_t digits = 0, longest = 0;
    for (char c : part[3]) longest = std::max(longest, digits = std::isdigit(static_cast<unsigned char>(c)) ? digits + 1 : 0);
    try {
        if (part[3].size() < 64 && longest <= 4) expand_hostlist(part[3]);
    } catch (const InputError &) {
    }
}

inline void config(const uint8_t *data, size_t size) {
    try {
        parse_config(std::string(reinterpret_cast<const char *>(data), size), "/etc/slurm/morpheus.conf");
    } catch (const InputError &) {
    }
}

}  // namespace morpheus::fuzz
