// Hot memory that moves closer (issue 27). A running job whose hot memory lies beyond its
// bound (its soft bound lapsed, or it was placed before a blade came back) is moved inside the
// bound when memory there frees. A move is two steps in the ledger, so no byte is ever free
// twice: begin_move() reserves the target beside the old region (Use::Incoming); the node
// side copies the pages (migrate_pages(2) between the blades' NUMA nodes); finish_move()
// then makes the target the job's hot memory and frees the old region. plan_moves() is the
// one place that picks moves, for select/morpheus and the simulator alike.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "cluster_model.hpp"
#include "ledger.hpp"

namespace morpheus {

// Hot bytes of the reservation beyond its bound (0: all inside, or nothing hot).
uint64_t hot_beyond_bound(const Reservation &r);
// A move is under way (the reservation holds Incoming segments).
bool moving(const Reservation &r);

struct MovePlan {
    uint64_t job_id = 0;
    std::vector<Segment> target;  // Use::Incoming, inside the bound
    uint64_t bytes = 0;  // to copy
    double seconds = 0;  // the copy over the paths' bottleneck bandwidth, old blade to new
};

// In-bound hot memory now for everything of `r` beyond its bound, beside what the ledger holds
// (the job's own old region included): nullopt when it does not all fit yet.
std::optional<MovePlan> find_move(const ClusterModel &model, const Ledger &ledger, const Reservation &r);

// Moves to begin now, oldest reservation first, so that at most `max_moves` are under way
// (those already moving count); each one's target is reserved in a copy of the ledger before
// the next is looked for, so two moves never take the same bytes.
std::vector<MovePlan> plan_moves(const ClusterModel &model, const Ledger &ledger, uint32_t max_moves);

// The reservation with the move begun (the target added as Incoming), done (the target is the
// job's hot memory, the old hot memory beyond the bound gone), or given up (the target gone).
Reservation begin_move(const Reservation &r, const MovePlan &move);
Reservation finish_move(const Reservation &r);
Reservation abandon_move(const Reservation &r);

}  // namespace morpheus
