// The latency events file, read strictly (a typo is an error naming its line, never a guess),
// and the fabric's latency as the active events make it.
#include "latency_events.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "heat_map.hpp"
#include "hostlist.hpp"
#include "input_error.hpp"
#include "units.hpp"

namespace morpheus::sim {

namespace {

constexpr const char *kForm =
    "START DURATION pods=LIST|nodes=LIST|* BLADES|* LATENCY, e.g. \"2d 12h pods=pod000 "
    "blade00000 450ns\"";

// Seconds from "90", "90s", "15m", "12h", "2d" (a fraction allowed: "1.5h").
int64_t parse_seconds(const std::string &text, const std::string &source, const std::string &where, const char *field) {
    char *end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    double unit = 1;
    const std::string suffix(end ? end : "");
    if (suffix == "m")
        unit = 60;
    else if (suffix == "h")
        unit = 3600;
    else if (suffix == "d")
        unit = 86400;
    else if (!suffix.empty() && suffix != "s")
        unit = -1;
    if (text.empty() || end == text.c_str() || unit < 0 || errno || !(v >= 0) || v * unit > 1e11 ||
        !std::isdigit(static_cast<unsigned char>(text[0])))
        throw InputError(source, where, std::string(field) + " \"" + text + "\" is not a time",
                         "write seconds, or a number with s, m, h or d, e.g. 3600, 90m, 12h, 2d");
    return static_cast<int64_t>(std::llround(v * unit));
}

// Marks the names of `expr` (a hostlist, or "*" for all) in `marks`, refusing unknown ones.
void mark(const std::string &expr, const std::vector<std::string> &names, std::vector<uint8_t> &marks,
          const std::string &source, const std::string &where, const char *what, const std::string &fix) {
    marks.assign(names.size(), expr == "*" ? 1 : 0);
    if (expr == "*") return;
    std::vector<std::string> listed;
    try {
        listed = expand_hostlist(expr, where);
    } catch (const InputError &e) {
        throw InputError(source, where, e.problem(), e.fix().empty() ? fix : e.fix());
    }
    for (const std::string &name : listed) {
        auto at = std::find(names.begin(), names.end(), name);
        if (at == names.end())
            throw InputError(source, where, std::string(what) + " \"" + name + "\" is not in the fabric", fix);
        marks[static_cast<size_t>(at - names.begin())] = 1;
    }
}

}  // namespace

uint32_t LatencyEvent::apply(uint32_t fabric_ns) const {
    double ns = value;
    if (change == Change::Add) ns = fabric_ns + value;
    if (change == Change::Scale) ns = fabric_ns * value;
    return static_cast<uint32_t>(std::clamp<double>(std::llround(ns), 1, kMaxMeasuredLatencyNs));
}

std::vector<LatencyEvent> parse_latency_events(const std::string &text, const std::string &source,
                                               const Fabric &fabric) {
    std::vector<std::string> pod_names, blade_names;
    for (const Pod &p : fabric.pods) pod_names.push_back(p.name);
    for (const Blade &b : fabric.blades) blade_names.push_back(b.name);
    std::vector<LatencyEvent> events;
    std::istringstream in(text);
    std::string line;
    for (size_t number = 1; std::getline(in, line); ++number) {
        if (size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        std::istringstream words(line);
        std::vector<std::string> f;
        for (std::string w; words >> w;) f.push_back(w);
        if (f.empty()) continue;
        const std::string where = "line " + std::to_string(number);
        if (f.size() != 5)
            throw InputError(source, where, "expected 5 fields, found " + std::to_string(f.size()),
                             std::string("write ") + kForm);
        LatencyEvent e;
        e.line = number;
        e.start = parse_seconds(f[0], source, where, "START");
        const int64_t duration = parse_seconds(f[1], source, where, "DURATION");
        if (duration <= 0)
            throw InputError(source, where, "DURATION must be positive",
                             "give how long the degradation lasts, e.g. 6h; every event ends");
        e.end = e.start + duration;
        const std::string &who = f[2];
        if (who == "*") {
            e.nodes.assign(fabric.node_names.size(), 1);
        } else if (who.rfind("pods=", 0) == 0) {
            std::vector<uint8_t> pods;
            mark(who.substr(5), pod_names, pods, source, where, "pod",
                 "name pods of " + fabric.source + ", e.g. pods=pod[000-003], or * for every node");
            e.nodes.assign(fabric.node_names.size(), 0);
            for (size_t n = 0; n < fabric.node_names.size(); ++n) e.nodes[n] = pods[fabric.node_pod[n]];
        } else if (who.rfind("nodes=", 0) == 0) {
            mark(who.substr(6), fabric.node_names, e.nodes, source, where, "node",
                 "name nodes of " + fabric.source + " as a hostlist, e.g. nodes=node[0000-0003]");
        } else {
            throw InputError(source, where, "\"" + who + "\" names no nodes",
                             "write pods=HOSTLIST, nodes=HOSTLIST or * (every node)");
        }
        mark(f[3], blade_names, e.blades, source, where, "blade",
             "name blades of " + fabric.source + " as a hostlist, e.g. blade0000[0-3], or * for every blade");
        const std::string &lat = f[4];
        const std::string fix = "write a latency (450ns, 1.2us), an increase (+300ns) or a factor (x2)";
        try {
            if (lat[0] == '+') {
                e.change = LatencyEvent::Change::Add;
                e.value = static_cast<double>(parse_latency(lat.substr(1), where));
            } else if (lat[0] == 'x' || lat[0] == '*') {
                e.change = LatencyEvent::Change::Scale;
                char *end = nullptr;
                e.value = std::strtod(lat.c_str() + 1, &end);
                if (lat.size() < 2 || *end || !(e.value > 0 && e.value <= 1000))
                    throw InputError(source, where, "factor \"" + lat + "\" is not a number in (0, 1000]", fix);
            } else {
                e.value = static_cast<double>(parse_latency(lat, where));
            }
        } catch (const InputError &x) {
            if (!x.file().empty()) throw;
            throw InputError(source, where, "LATENCY " + x.problem(), fix);
        }
        if (e.change != LatencyEvent::Change::Scale && (e.value <= 0 || e.value > kMaxMeasuredLatencyNs))
            throw InputError(source, where, "LATENCY \"" + lat + "\" is out of range",
                             "a load-to-use latency is from 1ns to 10ms, as a probe may report it");
        events.push_back(std::move(e));
    }
    return events;
}

std::vector<LatencyEvent> read_latency_events(const std::string &path, const Fabric &fabric) {
    std::ifstream in(path);
    if (!in)
        throw InputError(path, "", std::string("cannot read: ") + std::strerror(errno),
                         "give --latency-events a readable file (format in morpheus(1), LATENCY EVENTS)");
    std::ostringstream text;
    text << in.rdbuf();
    return parse_latency_events(text.str(), path, fabric);
}

FabricLatency::FabricLatency(const Fabric &fabric, const LatencyTable &table, std::vector<LatencyEvent> events)
    : fabric_(&fabric), table_(&table), events_(std::move(events)) {}

bool FabricLatency::at(int64_t t) {
    std::vector<size_t> active;
    for (size_t k = 0; k < events_.size(); ++k)
        if (events_[k].start <= t && t < events_[k].end) active.push_back(k);
    if (active == active_) return false;
    active_ = std::move(active);
    return true;
}

uint32_t FabricLatency::latency(uint32_t node, uint32_t blade) const {
    const uint32_t fabric_ns = this->fabric_ns(node, blade);
    if (fabric_ns == kUnreachable) return fabric_ns;
    uint32_t worst = 0;
    for (size_t k : active_) {
        const LatencyEvent &e = events_[k];
        if (e.nodes[node] && e.blades[blade]) worst = std::max(worst, e.apply(fabric_ns));
    }
    return worst ? worst : fabric_ns;
}

std::vector<int64_t> FabricLatency::change_times() const {
    std::vector<int64_t> t;
    for (const LatencyEvent &e : events_) {
        t.push_back(e.start);
        t.push_back(e.end);
    }
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
    return t;
}

}  // namespace morpheus::sim
