// The ledger: blade memory reserved per job. It never lets a tier go over capacity, saves
// atomically (write, fsync, rename) and releases idempotently.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fabric.hpp"
#include "inventory.hpp"

namespace morpheus {

enum class Use : uint8_t { Hot, Cold };

struct Segment {
    uint32_t blade = 0;
    Tier tier = Tier::Dram;
    Use use = Use::Hot;
    uint64_t bytes = 0;
    uint32_t latency_ns = 0;   // from the nodes it serves
    uint32_t pod = 0;          // the pod whose nodes it serves
};

struct PodShare {
    uint32_t pod = 0;
    uint32_t nodes = 0;
};

struct Reservation {
    uint64_t job_id = 0;
    uint32_t uid = 0;
    int64_t since = 0;                  // unix seconds
    std::vector<PodShare> pods;
    std::vector<std::string> nodes;     // node names, when known
    std::vector<Segment> segments;
    uint64_t hot_latency_bound_ns = 0;
    bool affected = false;              // holds memory on a failed blade
};

class Ledger {
public:
    Ledger() = default;
    explicit Ledger(size_t blade_count) : reserved_(blade_count) {}

    // Adds (or replaces, for the same job) a reservation. Returns false and says why in `why`
    // when any tier of any blade would go over `inventory` capacity; then nothing changes.
    bool reserve(const Reservation &r, const Inventory &inventory, std::string *why = nullptr);
    // True if the job held something. Releasing twice is harmless.
    bool release(uint64_t job_id);

    uint64_t reserved(uint32_t blade, Tier tier) const { return reserved_[blade][static_cast<size_t>(tier)]; }
    uint64_t free(uint32_t blade, Tier tier, const Inventory &inventory) const;
    const std::map<uint64_t, Reservation> &reservations() const { return jobs_; }
    const Reservation *find(uint64_t job_id) const;
    Reservation *find_mutable(uint64_t job_id);
    size_t blade_count() const { return reserved_.size(); }

    // Persistent form keeps blade and pod names, so a changed fabric can be re-bound.
    // Always atomic (temporary file, rename): a SIGKILL never leaves a torn file. `durable`
    // also fsyncs before returning; otherwise call sync_file() later (power-loss safety).
    void save(const std::string &path, const Fabric &fabric, bool durable = true) const;
    static void sync_file(const std::string &path);
    // Loads `path` against `fabric`; a missing file is an empty ledger. Segments on blades no
    // longer in the fabric are dropped with a warning in `warnings`.
    static Ledger load(const std::string &path, const Fabric &fabric, std::vector<std::string> *warnings);
    // Rebinds to a new fabric (after reload) by names.
    Ledger rebind(const Fabric &old_fabric, const Fabric &new_fabric, std::vector<std::string> *warnings) const;

private:
    friend class Planner;  // builds views of the ledger as it will be at a future time
    void add(const Reservation &r, int sign);
    std::map<uint64_t, Reservation> jobs_;
    std::vector<std::array<uint64_t, kTierCount>> reserved_;
};

}  // namespace morpheus
