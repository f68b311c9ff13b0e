// Checkpoint offload for one job (issue 28): its persistent-memory region and its booked
// flush window, chosen together on the pods Slurm gives it. select/morpheus (through the
// engine), decide(), `morpheus place` and the simulator all come through plan_checkpoint().
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cluster_model.hpp"
#include "flush.hpp"
#include "ledger.hpp"
#include "link_book.hpp"
#include "request.hpp"

namespace morpheus {

struct CheckpointGrant {
    std::vector<Segment> stripes;  // the region
    Flush flush;
    CheckpointHold hold;  // the window granted
    std::string note;  // "" or why the period differs from the one asked
};

// The book for `m`'s links at its CheckpointShare, slot and cycle, empty.
LinkBook empty_link_book(const ClusterModel &m);
// The book of every checkpoint window the ledger holds (after a restart or a reload).
LinkBook link_book_of(const ClusterModel &m, const Ledger &ledger);
// Books a reservation's window in `book` (no capacity check: it was granted); nothing when the
// reservation has no checkpoint.
void book_reservation(const ClusterModel &m, LinkBook &book, const Reservation &r);

// The periods tried for `req`, in order: the asked period rounded down to one that divides
// CheckpointCycle in whole slots, then longer such periods up to --ckpt-period-max.
std::vector<int64_t> period_candidates(const LinkBook &book, const Request &req);

// Region and window for `req` on `pods`, against `ledger` (which holds the job's own memory
// already, and not an old checkpoint region of it) and the book (without the job's own
// window). `keep` (optional): a region the job holds already (a requeued job), kept when its
// flush still fits a window. False with `why` (one line naming what is short: persistent
// memory, or the link whose share is booked full) when nothing can be granted now.
bool plan_checkpoint(const ClusterModel &m, const Ledger &ledger, const LinkBook &book, const Request &req,
                     const std::vector<PodShare> &pods, CheckpointGrant &out, std::string *why,
                     const std::vector<Segment> *keep = nullptr, int64_t prefer_phase_s = 0);

// A region's copies (its checkpoint stripes in order, one copy's bytes each, as choose_region
// lays them out) against the blades failed now: what a requeued job can restore from.
struct RegionHealth {
    uint32_t copies = 0;  // copies the stripes hold
    uint32_t intact = 0;  // copies with no stripe on a failed or absent blade
    std::vector<Segment> intact_stripes;  // every intact copy's stripes, in order
    std::vector<uint32_t> failed_blades;  // region blades failed now
};
RegionHealth region_health(const ClusterModel &m, const Reservation &r);

// "" when the request's checkpoint can fit an empty cluster; else why not (submit time).
std::string checkpoint_problem(const ClusterModel &m, const Request &req);

// "leaf1->spine1 (spine)": a link for people.
std::string link_name(const Fabric &f, uint32_t link);

}  // namespace morpheus
