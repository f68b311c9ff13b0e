// The memory-pool inventory: per blade, capacity per tier, state and load (morpheus-inventory(5)).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "fabric.hpp"

namespace morpheus {

enum class Tier : uint8_t { Dram = 0, Pmem = 1 };
constexpr size_t kTierCount = 2;
const char *tier_name(Tier t);

// up: usable; draining: keeps reservations, admits none; failed: unusable, holders are handled
// by the blade-failure policy; absent: in the fabric but not in the inventory (no memory).
enum class BladeState : uint8_t { Up, Draining, Failed, Absent };
const char *blade_state_name(BladeState s);

struct BladeStock {
    std::array<uint64_t, kTierCount> capacity{};  // bytes
    BladeState state = BladeState::Absent;
    double load = 0;  // 0..1: share of the blade's bandwidth already in use
    // Why the admin set the state, and when (Unix seconds; 0: not said), as Slurm keeps a
    // node's Reason and its time (morpheus update, sinfo -R).
    std::string reason;
    int64_t since = 0;
};

class Inventory {
public:
    std::string source;
    std::vector<BladeStock> blades;  // indexed like Fabric::blades
    std::vector<std::string> warnings;

    bool admits(uint32_t blade) const { return blades[blade].state == BladeState::Up; }
};

constexpr size_t kMaxBladeReason = 256;

// Reads an inventory against a fabric: every blade named must exist in the fabric.
Inventory read_inventory(const std::string &path, const Fabric &fabric);
Inventory parse_inventory(const std::string &json_text, const std::string &name, const Fabric &fabric);

}  // namespace morpheus
