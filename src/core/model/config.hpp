// morpheus.conf: Slurm-style "Key=Value" lines beside slurm.conf (see morpheus.conf(5)).
#pragma once
#include <cstdint>
#include <string>

#include "cluster_model.hpp"

namespace morpheus {

enum class BladeFailurePolicy : uint8_t { Requeue, Signal, None };
const char *policy_name(BladeFailurePolicy p);

// What slurmctld does with a running job whose hot memory the live heat map now measures
// beyond its bound (HeatMapBeyondBound=): flag it only, also signal it (SIGUSR1), or requeue
// it where the job allows (else signal it).
enum class BeyondBoundPolicy : uint8_t { None, Notify, Requeue };
const char *beyond_bound_policy_name(BeyondBoundPolicy p);

struct Config {
    std::string source;  // the file read ("" for defaults)
    std::string fabric_file;  // absolute, or relative to the config file's directory
    std::string inventory_file;
    std::string state_file;  // "" : the plugin's default under StateSaveLocation
    PlacementSettings placement;
    BladeFailurePolicy failure_policy = BladeFailurePolicy::Requeue;
    uint32_t inventory_check_interval_s = 5;  // how often the inventory file's mtime is looked at
    // Pending jobs (highest priority first) whose planned blade memory a lower-priority job
    // may not take; 0: none.
    uint32_t plan_depth = 8;
    uint16_t status_port = 0;  // 0: no status server
    std::string status_address;  // "" : the plugin's default (slurmctld's address)
    // Slurm licenses (slurm.conf Licenses=) that mirror a job's blade memory in GiB, so that
    // sacct, sreport, billing and QOS limits see it; "" : none (LicenseHot=, LicenseCold=).
    std::string license_hot;
    std::string license_cold;
    // Prometheus's GET /metrics over HTTP on StatusAddress, started and stopped with the status
    // service; 0: off. Unauthenticated, so it serves aggregate figures only.
    uint16_t metrics_port = 0;
    // The live fabric heat map (HeatMapFigure, HeatMapSamples, HeatMapWindow, HeatMapStale,
    // HeatMapHysteresis, HeatMapRounds).
    HeatMapSettings heat_map;
    // How slurmctld runs the heat map (issue 29): a settle round every HeatMapSettleInterval
    // seconds; a node's report accepted at most once per HeatMapReportInterval seconds (0: no
    // limit); each node probes its pod's HeatMapProbeBlades nearest blades.
    uint32_t heat_settle_interval_s = 30;
    uint32_t heat_report_interval_s = 10;
    uint32_t heat_probe_blades = 8;
    BeyondBoundPolicy beyond_bound_policy = BeyondBoundPolicy::None;
    // /metrics exports per-cell series for at most this many cells of the heat map, those
    // measured farthest off their static latency (HeatMapMetricCells; 0: none).
    uint32_t heat_metric_cells = 256;
};
constexpr uint32_t kMaxHeatMetricCells = 100000;

// Reads the whole file, validating every key; throws InputError naming the file, the line and
// the fix. Unknown keys are errors. Relative file paths resolve against the file's directory.
Config read_config(const std::string &path);
Config parse_config(const std::string &text, const std::string &name);

}  // namespace morpheus
