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
#include <string>
#include <vector>

#include "cluster_model.hpp"
#include "ledger.hpp"

namespace morpheus {

// Hot bytes of the reservation beyond its bound (0: all inside, or nothing hot).
uint64_t hot_beyond_bound(const Reservation &r);
// A move is under way (the reservation holds Incoming segments); for the pod's share of it.
bool moving(const Reservation &r);
bool moving_pod(const Reservation &r, uint32_t pod);
// A hot segment beyond the bound whose pod's share is moving: it is freed when the move ends.
bool leaving(const Reservation &r, const Segment &s);
uint64_t bytes_leaving(const Reservation &r);

// Hot memory placed inside the job's bound that the live heat map now measures beyond it
// (issue 29): the segment whose blade is furthest past the bound by `table`'s latency now.
struct LiveOverrun {
    uint32_t blade = 0, pod = 0;
    uint32_t live_ns = 0;  // the pod x blade latency placement uses now
    uint32_t placed_ns = 0;  // the segment's latency when it was placed
    uint64_t bound_ns = 0;
};
std::optional<LiveOverrun> hot_beyond_live_bound(const LatencyTable &table, const Reservation &r);
// "hot on blade3 now 450ns from pod1, bound 300ns (placed at 280ns)": fits morpheus jobs' reason column.
std::string live_overrun_words(const Fabric &f, const LiveOverrun &o);

struct MovePlan {
    uint64_t job_id = 0;
    std::vector<Segment> target;  // Use::Incoming, inside the bound
    uint64_t bytes = 0;  // to copy
    double seconds = 0;  // the copy over the paths' bottleneck bandwidth, old blade to new
};

// In-bound hot memory now for what of `r` lies beyond its bound, beside what the ledger holds
// (the job's own old region included), pod by pod: every pod whose share fits now moves (a
// partial move; the others wait for a later one); nullopt when no pod's share fits yet.
// `taken`: targets of other moves planned beside it, not yet in the ledger.
std::optional<MovePlan> find_move(const ClusterModel &model, const Ledger &ledger, const Reservation &r,
                                  const std::vector<Segment> &taken = {});

// Moves to begin now, oldest reservation first, so that at most `max_moves` are under way
// (those already moving count); each one's target counts as taken when the next is looked for,
// so two moves never take the same bytes (and the ledger is never copied).
std::vector<MovePlan> plan_moves(const ClusterModel &model, const Ledger &ledger, uint32_t max_moves);

// The reservation with the move begun (the target added as Incoming), done (the target is the
// job's hot memory, the moving pods' old hot memory beyond the bound gone; other pods' stays
// for a later move), or given up (the target gone).
Reservation begin_move(const Reservation &r, const MovePlan &move);
Reservation finish_move(const Reservation &r);
Reservation abandon_move(const Reservation &r);

}  // namespace morpheus
