// The ledger: blade memory reserved per job. It never lets a tier go over capacity, saves
// durably (write, fsync, rename, fsync the directory), reads strictly (checksum, every field
// checked) and releases idempotently. Format and recovery: morpheus.conf(5), StateFile.
#pragma once
#include <sys/types.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fabric.hpp"
#include "inventory.hpp"

namespace morpheus {

// Incoming: hot memory reserved for a move under way (move.hpp): the job's pages are being
// copied there from its hot segments beyond the bound; both count as reserved until the move
// is done, so no byte is ever free twice.
// Checkpoint: persistent memory holding the job's checkpoint region (issue 28), kept for the
// job's lifetime, requeues included.
enum class Use : uint8_t { Hot, Cold, Incoming, Checkpoint };
const char *use_name(Use u);  // "hot", "cold", "incoming", "checkpoint"

struct Segment {
    uint32_t blade = 0;
    Tier tier = Tier::Dram;
    Use use = Use::Hot;
    uint64_t bytes = 0;
    uint32_t latency_ns = 0;  // from the nodes it serves
    uint32_t pod = 0;  // the pod whose nodes it serves
};

struct PodShare {
    uint32_t pod = 0;
    uint32_t nodes = 0;
};

// A job's booked checkpoint flush: windows at every t with (t mod period) in [phase,
// phase + length) (unix seconds), the region's size and copies. period 0: no checkpoint.
constexpr uint64_t kMaxCheckpointPeriod = 366 * 86400;
struct CheckpointHold {
    int64_t period_s = 0;
    int64_t phase_s = 0;
    int64_t length_s = 0;
    uint64_t bytes = 0;  // one copy
    uint32_t replicas = 0;
    // Recovery: `waiting` while the job is requeued and holds only its region (and window) for
    // its next start; `restarts` counts the starts onto a kept region; the latest one found an
    // intact copy to read back (`restore`) or none (`lost`, every copy was on a failed blade).
    bool waiting = false;
    uint32_t restarts = 0;
    bool restore = false;
    bool lost = false;
    bool operator==(const CheckpointHold &o) const {
        return period_s == o.period_s && phase_s == o.phase_s && length_s == o.length_s && bytes == o.bytes &&
               replicas == o.replicas && waiting == o.waiting && restarts == o.restarts && restore == o.restore &&
               lost == o.lost;
    }
};

struct Reservation {
    uint64_t job_id = 0;
    uint32_t uid = 0;
    int64_t since = 0;  // unix seconds
    std::vector<PodShare> pods;
    std::vector<std::string> nodes;  // node names, when known
    std::vector<Segment> segments;
    uint64_t hot_latency_bound_ns = 0;
    bool affected = false;  // holds memory on a failed blade
    CheckpointHold checkpoint;  // the flush window, when the job checkpoints
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
    // Durable before it returns: temporary written and fsync'ed, the last file kept as
    // STATE.prev, rename, directory fsync'ed. A SIGKILL or a power cut leaves the old or the
    // new file, never an empty one. Throws InputError (nothing installed) on any failure.
    void save(const std::string &path, const Fabric &fabric) const;
    // The file's content (version 2, with the checksum of "jobs").
    std::string to_json(const Fabric &fabric) const;
    // Loads `path` against `fabric`; a missing file is an empty ledger. Strict: a bad checksum,
    // an unknown member, a bad value or a reservation on a blade or pod the fabric lacks is an
    // InputError naming the file, the job and field, and how to recover.
    static Ledger load(const std::string &path, const Fabric &fabric);
    // Rebinds to a new fabric (after reload) by names. Throws InputError if a reservation
    // holds memory on a blade (or serves a pod) that the new fabric lacks.
    Ledger rebind(const Fabric &old_fabric, const Fabric &new_fabric) const;

    // Job ids holding memory on `blade`, in order.
    std::vector<uint64_t> holders(uint32_t blade) const;

private:
    friend class Planner;  // builds views of the ledger as it will be at a future time
    void add(const Reservation &r, int sign);
    std::map<uint64_t, Reservation> jobs_;
    // Each reservation's JSON as the file holds it, made once per change of that job: a save
    // then costs a concatenation, not a serialisation of every job (which grew to tens of
    // milliseconds per reservation with a thousand jobs running).
    mutable std::map<uint64_t, std::string> job_text_;
    std::vector<std::array<uint64_t, kTierCount>> reserved_;
};

// One writer of a ledger at a time: an flock on STATE.lock, which also names its holder.
// The engine takes it for each save only (Slurm 23.11+ reconfigures by starting a second
// slurmctld beside the first, so a lifetime lock would lock out the new one) and records
// itself as the file's owner; a tool (morpheus place --reserve) takes it for its whole
// read-modify-write and is refused while a live slurmctld owns the file, whose next save
// would overwrite the tool's change.
class LedgerLock {
public:
    enum class Writer { Engine, Tool };
    LedgerLock(const std::string &state_path, Writer who);
    ~LedgerLock();
    LedgerLock(const LedgerLock &) = delete;
    LedgerLock &operator=(const LedgerLock &) = delete;

private:
    int fd_ = -1;
};

// Test seam: the system calls a save goes through, so tests can fail a write (ENOSPC) or
// record the order of write, fsync and rename. Passing nullptr members restores the real ones.
struct LedgerFileOps {
    ssize_t (*write)(int fd, const void *data, size_t size);
    int (*fsync)(int fd);
    int (*rename)(const char *from, const char *to);
};
void set_ledger_file_ops_for_tests(const LedgerFileOps &ops);

}  // namespace morpheus
