// morpheus.conf reader: defaults first, then each line validated; nothing is half-applied.
#include "config.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <fstream>
#include <sstream>

#include "input_error.hpp"
#include "json_document.hpp"
#include "request.hpp"
#include "units.hpp"

namespace morpheus {

const char *policy_name(BladeFailurePolicy p) {
    switch (p) {
    case BladeFailurePolicy::Requeue: return "requeue";
    case BladeFailurePolicy::Signal: return "signal";
    case BladeFailurePolicy::None: return "none";
    }
    return "?";
}

const char *beyond_bound_policy_name(BeyondBoundPolicy p) {
    switch (p) {
    case BeyondBoundPolicy::None: return "none";
    case BeyondBoundPolicy::Notify: return "notify";
    case BeyondBoundPolicy::Requeue: return "requeue";
    }
    return "?";
}

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

std::string trim(const std::string &s) {
    size_t a = s.find_first_not_of(" \t\r");
    if (a == std::string::npos) return "";
    size_t b = s.find_last_not_of(" \t\r");
    return s.substr(a, b - a + 1);
}

std::string resolve(const std::string &dir, const std::string &file) {
    if (file.empty() || file[0] == '/' || dir.empty()) return file;
    return dir + "/" + file;
}

double parse_weight(const std::string &value, const std::string &name, const std::string &where,
                    const std::string &key) {
    char *end = nullptr;
    double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !(v >= 0) || v > 1000)
        throw InputError(name, where, key + "=" + value + " is not a weight",
                         "give a number from 0 to 1000, e.g. " + key + "=1.0");
    return v;
}

// A whole number from `min` to `max`; the fix names the key and an example.
long parse_count(const std::string &value, const std::string &key, const std::string &what, long min, long max,
                 const std::string &example) {
    char *end = nullptr;
    errno = 0;
    long v = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end || errno || v < min || v > max)
        throw InputError(
            "", "", key + "=" + value + " is not " + what,
            "give " + std::to_string(min) + " to " + std::to_string(max) + ", e.g. " + key + "=" + example);
    return v;
}

}  // namespace

Config parse_config(const std::string &text, const std::string &name) {
    Config c;
    c.source = name;
    std::string dir = name.find('/') == std::string::npos ? "" : name.substr(0, name.rfind('/'));
    std::istringstream in(text);
    std::string raw;
    int line_no = 0;
    while (std::getline(in, raw)) {
        ++line_no;
        std::string where = "line " + std::to_string(line_no);
        size_t hash = raw.find('#');
        std::string line = trim(hash == std::string::npos ? raw : raw.substr(0, hash));
        if (line.empty()) continue;
        size_t eq = line.find('=');
        if (eq == std::string::npos)
            throw InputError(name, where, "\"" + line + "\" is not Key=Value",
                             "write it as Key=Value, e.g. FabricFile=fabric.json");
        std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
        std::string k = lower(key);
        if (value.empty()) throw InputError(name, where, key + " has no value", "give a value after '='");
        try {
            if (k == "fabricfile")
                c.fabric_file = resolve(dir, value);
            else if (k == "inventoryfile")
                c.inventory_file = resolve(dir, value);
            else if (k == "statefile")
                c.state_file = resolve(dir, value);
            else if (k == "defaulthotlatency") {
                c.placement.default_hot_latency_ns = parse_latency(value, key);
                if (c.placement.default_hot_latency_ns == 0)  // every score divides by the bound
                    throw InputError(name, where, "DefaultHotLatency=" + value + " is a bound no blade can meet",
                                     "give a positive time, e.g. DefaultHotLatency=500ns");
            } else if (k == "defaulthotwait" || k == "maxhotwait") {
                int64_t wait = parse_hot_wait(value, key);
                if (k == "defaulthotwait")
                    c.placement.default_hot_wait_s = wait;
                else if (wait == kHotWaitHard)
                    c.placement.max_hot_wait_s = kMaxHotWaitS;
                else
                    c.placement.max_hot_wait_s = wait == kHotWaitNone ? 0 : wait;
            } else if (k == "hotwaitshare") {
                char *end = nullptr;
                double v = std::strtod(value.c_str(), &end);
                if (*end || !(v >= 0 && v <= 10))
                    throw InputError(name, where, key + "=" + value + " is not a share of the time limit",
                                     "give a number from 0 to 10, e.g. HotWaitShare=0.1 (0: the declared wait only)");
                c.placement.hot_wait_share = v;
            } else if (k == "maxmoves") {
                char *end = nullptr;
                long v = std::strtol(value.c_str(), &end, 10);
                if (*end || v < 0 || v > 4096)
                    throw InputError(name, where, key + "=" + value + " is not a number of moves",
                                     "give 0 to 4096, e.g. MaxMoves=2 (0: hot memory never moves)");
                c.placement.max_moves = static_cast<uint32_t>(v);
            } else if (k == "movetimeout") {
                c.placement.move_timeout_s = parse_count(value, key, "a number of seconds", 10, 7 * 86400, "900");
            } else if (k == "weightlatency")
                c.placement.weights.latency = parse_weight(value, name, where, key);
            else if (k == "weightheadroom")
                c.placement.weights.headroom = parse_weight(value, name, where, key);
            else if (k == "weightpacking")
                c.placement.weights.packing = parse_weight(value, name, where, key);
            else if (k == "weightload")
                c.placement.weights.load = parse_weight(value, name, where, key);
            else if (k == "weightcoldpressure")
                c.placement.weights.cold_pressure = parse_weight(value, name, where, key);
            else if (k == "hotbladeorder") {
                std::string v = lower(value);
                if (v == "nearest")
                    c.placement.hot_blade_order = HotBladeOrder::Nearest;
                else if (v == "slack")
                    c.placement.hot_blade_order = HotBladeOrder::Slack;
                else
                    throw InputError(name, where, "HotBladeOrder=" + value + " is unknown", "use nearest or slack");
            } else if (k == "bladefailurepolicy") {
                std::string v = lower(value);
                if (v == "requeue")
                    c.failure_policy = BladeFailurePolicy::Requeue;
                else if (v == "signal")
                    c.failure_policy = BladeFailurePolicy::Signal;
                else if (v == "none")
                    c.failure_policy = BladeFailurePolicy::None;
                else
                    throw InputError(name, where, "BladeFailurePolicy=" + value + " is unknown",
                                     "use requeue, signal or none");
            } else if (k == "inventorycheckinterval") {
                char *end = nullptr;
                long v = std::strtol(value.c_str(), &end, 10);
                if (*end || v < 1 || v > 3600)
                    throw InputError(name, where, key + "=" + value + " is not a number of seconds",
                                     "give 1 to 3600, e.g. InventoryCheckInterval=5");
                c.inventory_check_interval_s = static_cast<uint32_t>(v);
            } else if (k == "plandepth") {
                char *end = nullptr;
                long v = std::strtol(value.c_str(), &end, 10);
                if (value.empty() || *end || v < 0 || v > 1024)
                    throw InputError(name, where, key + "=" + value + " is not a number of jobs",
                                     "give 0 to 1024, e.g. PlanDepth=8 (0: keep no blade memory for pending jobs)");
                c.plan_depth = static_cast<uint32_t>(v);
            } else if (k == "statusport") {
                char *end = nullptr;
                long v = std::strtol(value.c_str(), &end, 10);
                if (*end || v < 0 || v > 65535)
                    throw InputError(name, where, key + "=" + value + " is not a TCP port",
                                     "give 1 to 65535, or 0 for none");
                c.status_port = static_cast<uint16_t>(v);
            } else if (k == "metricsport") {
                char *end = nullptr;
                long v = std::strtol(value.c_str(), &end, 10);
                if (value.empty() || *end || v < 0 || v > 65535)
                    throw InputError(name, where, key + "=" + value + " is not a TCP port",
                                     "give 1 to 65535 (e.g. MetricsPort=9820), or 0 for none");
                c.metrics_port = static_cast<uint16_t>(v);
            } else if (k == "statusaddress") {
                // An IP literal or a host name: checked here for shape, resolved when bound.
                bool shape = value.size() < 256 && std::all_of(value.begin(), value.end(), [](unsigned char ch) {
                                 return std::isalnum(ch) || ch == '.' || ch == '-' || ch == ':' || ch == '_';
                             });
                if (!shape)
                    throw InputError(
                        name, where, key + "=" + value + " is not an address",
                        "give an IP address or host name of the slurmctld host, e.g. StatusAddress=10.0.0.1 "
                        "(0.0.0.0 for all addresses)");
                c.status_address = value;
            } else if (k == "heatmapfigure") {
                std::string v = lower(value);
                if (v == "p50")
                    c.heat_map.figure = HeatFigure::P50;
                else if (v == "p99")
                    c.heat_map.figure = HeatFigure::P99;
                else
                    throw InputError(name, where, "HeatMapFigure=" + value + " is unknown",
                                     "use p50 or p99 (the default), e.g. HeatMapFigure=p99");
            } else if (k == "heatmapsamples") {
                c.heat_map.samples =
                    static_cast<uint32_t>(parse_count(value, key, "a number of samples", 1, kMaxHeatSamples, "32"));
            } else if (k == "heatmapwindow") {
                c.heat_map.window_s = parse_count(value, key, "a number of seconds", 1, 86400, "300");
            } else if (k == "heatmapstale") {
                c.heat_map.stale_s = parse_count(value, key, "a number of seconds", 1, 7 * 86400, "600");
            } else if (k == "heatmaphysteresis") {
                char *end = nullptr;
                double v = std::strtod(value.c_str(), &end);
                if (*end || !(v >= 0) || v > 10)
                    throw InputError(name, where, key + "=" + value + " is not a fraction",
                                     "give a number from 0 to 10, e.g. HeatMapHysteresis=0.10 (10%)");
                c.heat_map.hysteresis = v;
            } else if (k == "heatmaprounds") {
                c.heat_map.rounds =
                    static_cast<uint32_t>(parse_count(value, key, "a number of settle rounds", 1, kMaxHeatRounds, "2"));
            } else if (k == "heatmapsettleinterval") {
                c.heat_settle_interval_s =
                    static_cast<uint32_t>(parse_count(value, key, "a number of seconds", 1, 3600, "30"));
            } else if (k == "heatmapreportinterval") {
                c.heat_report_interval_s =
                    static_cast<uint32_t>(parse_count(value, key, "a number of seconds", 0, 3600, "10"));
            } else if (k == "heatmapprobeblades") {
                c.heat_probe_blades = static_cast<uint32_t>(
                    parse_count(value, key, "a number of blades", 1, kMaxLatencyReportEntries, "8"));
            } else if (k == "heatmapbeyondbound") {
                std::string v = lower(value);
                if (v == "none")
                    c.beyond_bound_policy = BeyondBoundPolicy::None;
                else if (v == "notify")
                    c.beyond_bound_policy = BeyondBoundPolicy::Notify;
                else if (v == "requeue")
                    c.beyond_bound_policy = BeyondBoundPolicy::Requeue;
                else
                    throw InputError(name, where, "HeatMapBeyondBound=" + value + " is unknown",
                                     "use none (the default), notify or requeue");
            } else if (k == "heatmapmetriccells") {
                // Per-cell series of /metrics at most: Prometheus's label count stays bounded.
                c.heat_metric_cells =
                    static_cast<uint32_t>(parse_count(value, key, "a number of cells", 0, kMaxHeatMetricCells, "256"));
            } else if (k == "checkpointshare") {
                // "0.5", or "spine:0.25,leaf:0.5" (tiers of the fabric's links), or both mixed:
                // a bare number is the share of every tier not named.
                auto share_of = [&](const std::string &t) {
                    char *end = nullptr;
                    double v = std::strtod(t.c_str(), &end);
                    if (t.empty() || *end || !(v > 0 && v <= 1))
                        throw InputError(name, where, key + "=" + value + ": \"" + t + "\" is not a share",
                                         "give a number above 0 and at most 1 per link tier, e.g. "
                                         "CheckpointShare=0.5 or CheckpointShare=spine:0.25,leaf:0.5");
                    return v;
                };
                c.placement.checkpoint.by_tier.clear();
                std::stringstream items(value);
                std::string item;
                while (std::getline(items, item, ',')) {
                    item = trim(item);
                    size_t colon = item.find(':');
                    if (colon == std::string::npos) {
                        c.placement.checkpoint.share = share_of(item);
                        continue;
                    }
                    std::string tier = trim(item.substr(0, colon));
                    if (tier.empty())
                        throw InputError(name, where, key + "=" + value + " names an empty tier",
                                         "write tier:share, e.g. spine:0.25");
                    c.placement.checkpoint.by_tier.push_back({tier, share_of(trim(item.substr(colon + 1)))});
                }
            } else if (k == "checkpointslot") {
                c.placement.checkpoint.slot_s = parse_count(value, key, "a number of seconds", 1, 3600, "10");
            } else if (k == "checkpointcycle") {
                int64_t cycle = parse_hot_wait(value, key);
                if (cycle <= 0 || cycle > 7 * 86400)
                    throw InputError(name, where, key + "=" + value + " is not a cycle",
                                     "give a time up to 7 days, e.g. CheckpointCycle=4h (the longest period granted)");
                c.placement.checkpoint.cycle_s = cycle;
            } else if (k == "licensehot" || k == "licensecold") {
                // Slurm's license names: letters, digits, '_' and '-' (no ':' or ',').
                bool shape = value.size() < 64 && std::all_of(value.begin(), value.end(), [](unsigned char ch) {
                                 return std::isalnum(ch) || ch == '_' || ch == '-';
                             });
                if (!shape)
                    throw InputError(name, where, key + "=" + value + " is not a license name",
                                     "give a name of slurm.conf's Licenses=, e.g. " + key + "=blade_" +
                                         (k == "licensehot" ? "hot" : "cold") + "_gb");
                (k == "licensehot" ? c.license_hot : c.license_cold) = value;
            } else {
                throw InputError(
                    name, where, "unknown key \"" + key + "\"",
                    "known keys: FabricFile, InventoryFile, StateFile, DefaultHotLatency, DefaultHotWait, MaxHotWait, "
                    "MaxMoves, "
                    "WeightLatency, WeightHeadroom, WeightPacking, WeightLoad, WeightColdPressure, "
                    "HotBladeOrder, BladeFailurePolicy, InventoryCheckInterval, PlanDepth, StatusPort, StatusAddress, "
                    "LicenseHot, LicenseCold, MetricsPort, HeatMapFigure, HeatMapSamples, HeatMapWindow, "
                    "HeatMapStale, HeatMapHysteresis, HeatMapRounds, HeatMapSettleInterval, HeatMapReportInterval, "
                    "HeatMapProbeBlades, HeatMapBeyondBound, HeatMapMetricCells, CheckpointShare, CheckpointSlot, "
                    "CheckpointCycle");
            }
        } catch (const InputError &e) {
            if (!e.file().empty()) throw;
            throw InputError(name, where, e.problem(), e.fix());
        }
    }
    if (c.placement.default_hot_wait_s > c.placement.max_hot_wait_s)
        throw InputError(name, "DefaultHotWait",
                         "DefaultHotWait=" + format_hot_wait(c.placement.default_hot_wait_s) +
                             " is longer than MaxHotWait=" + format_hot_wait(c.placement.max_hot_wait_s),
                         "give a DefaultHotWait no longer than MaxHotWait, or hard");
    const CheckpointSettings &ck = c.placement.checkpoint;
    if (ck.cycle_s % ck.slot_s != 0 || ck.cycle_s / ck.slot_s > 100000)
        throw InputError(name, "CheckpointCycle",
                         "CheckpointCycle=" + format_hot_wait(ck.cycle_s) +
                             " is not a whole number of CheckpointSlot=" + std::to_string(ck.slot_s) +
                             "s slots, at most 100000",
                         "give a cycle that is a multiple of the slot, e.g. CheckpointSlot=10 and CheckpointCycle=4h");
    if (c.fabric_file.empty())
        throw InputError(name, "", "FabricFile is not set", "add FabricFile=/etc/slurm/fabric.json");
    if (c.inventory_file.empty())
        throw InputError(name, "", "InventoryFile is not set", "add InventoryFile=/etc/slurm/inventory.json");
    return c;
}

Config read_config(const std::string &path) { return parse_config(read_regular_file(path, kMaxInputFileBytes), path); }

}  // namespace morpheus
