// Answers to status queries (pools, jobs, explain, metrics) for a viewer, as one JSON document.
// The status service inside slurmctld and the CLI's offline mode both answer through here.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "status_model.hpp"

namespace morpheus {

class ClusterModel;
class Ledger;
class DecisionLog;
class Engine;
class NodeAddresses;

// request_json: {"op": "status" | "jobs" | "fabric" | "links" | "explain" | "metrics", "job": N}. A privileged
// viewer (root, SlurmUser) sees every job's detail; others see pool totals and their own jobs
// only, and with private_jobs (Slurm's PrivateData=jobs) no other user's job at all. To such a
// viewer, explain answers alike for another user's job and for no job, so it tells nothing of
// others' jobs. The caller holds whatever lock guards the three (and live's heat map).
// `live` is what only slurmctld has (issue 29): with its heat map, status shows each blade's
// measured band, metrics the heat map's series, and
//   {"op": "fabric", "live": true, "pods": [NAME...], "blades": [NAME...], "all": bool, "limit": N}
// answers the measured cells (HeatMapView): by default those some node measured, with "all"
// every reachable cell, at most `limit` (default 4096, at most kMaxHeatCells) of them. Without
// a heat map (offline) the live fabric op is an error saying that only the controller has
// measurements.
//   {"op": "links", "ends": [NAME...], "jobs": [ID...], "horizon": SECONDS, "limit": N}
// answers the link time checkpoint windows book (LinkBookView): the links the windows use, the
// fullest first, with each link's load over the horizon (default: the longest booked period)
// and its holders; a viewer sees the holders among its own jobs only, the rest as a count.
std::string answer_status_query(const ClusterModel &model, const Ledger &ledger, const DecisionLog &log, uint32_t uid,
                                bool privileged, const std::string &request_json, bool private_jobs = false,
                                const LiveState &live = {});

// The node side's ops (issue 27), answered inside slurmctld with the engine's lock held;
// nullopt when request_json's op is none of them (answer_status_query then). Only root may
// call them (slurmd runs HealthCheckProgram as root, `morpheus node agent`); others get an
// error saying so.
//   {"op": "moves", "node": NAME}: the moves under way of jobs that run on NAME, each with the
//     job id, the bytes to move, where they are (from) and where they go (target).
//   {"op": "move_done", "job": N, "node": NAME, "emulated": bool}: the node finished moving
//     its share of the job's pages; once every node of the job has, the engine makes the
//     target the job's hot memory and frees the old region ("finished": true). Refused unless
//     the job runs on NAME and has a move under way, and unless the credential was made on
//     NAME's host (as for report_latency).
//   {"op": "probe_blades", "node": NAME}: the blades NAME probes for the heat map (its pod's
//     HeatMapProbeBlades nearest), and "report_in": seconds until its next report is taken.
//   {"op": "report_latency", "node": NAME, "reports": [{"blade": B, "latency_ns": N}, ...]}:
//     NAME's measured load-to-use latencies (issue 29), taken whole or not at all: refused
//     when malformed, empty or over 256 entries, when any entry is (unknown blade, no path,
//     0 or over 10ms), within HeatMapReportInterval of NAME's last report, or when the
//     credential was not made on NAME's host (`origin`, checked against `addresses`, see
//     node_addresses.hpp; none given: refused).
// For moves (a read) the node name is what the caller says; root on any host the munge key
// reaches may ask for any node. move_done and report_latency change state (a move's end frees
// the old region; a report moves placement for a whole pod), so they must come from the
// node's own host.
std::optional<std::string> answer_node_query(Engine &engine, uint32_t uid, const std::string &request_json, int64_t now,
                                             const NodeAddresses *addresses = nullptr, const std::string &origin = "");

}  // namespace morpheus
