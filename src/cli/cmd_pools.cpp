// morpheus pools: the sinfo of memory pools. Renders the status snapshot (the document the
// plugin serves, read into status_model.hpp's values) as summary, per-pod and per-blade tables,
// or as the document again with --json/--yaml.
#include <cstdio>
#include <ctime>

#include "input_error.hpp"
#include "status_source.hpp"
#include "table.hpp"
#include "units.hpp"
#include "view.hpp"

namespace morpheus::cli {

namespace {

std::string or_dash(const std::string &s) { return s.empty() ? "-" : s; }

// Pod rows and blade rows have their own fields; one -o/-O names fields of one kind.
const std::vector<Field> kPodFields = {{"pod", 'P', "POD"},
                                       {"nodes", 'N', "NODES"},
                                       {"node_count", 'D', "NODE_COUNT"},
                                       {"hot_bound", 'l', "HOT_BOUND"},
                                       {"hot_blades", 'B', "HOT_BLADES"},
                                       {"hot_capacity", 'c', "HOT_CAPACITY"},
                                       {"hot_reserved", 'r', "HOT_RESERVED"},
                                       {"hot_free", 'f', "HOT_FREE"},
                                       {"nearest", 'n', "NEAREST"}};
const std::vector<Field> kBladeFields = {{"blade", 'b', "BLADE"},
                                         {"state", 't', "STATE"},
                                         {"load", 'L', "LOAD"},
                                         {"dram", 'm', "DRAM"},
                                         {"dram_reserved", 'r', "DRAM_RESV"},
                                         {"dram_free", 'f', "DRAM_FREE"},
                                         {"pmem", 'M', "PMEM"},
                                         {"pmem_reserved", 's', "PMEM_RESV"},
                                         {"pmem_free", 'F', "PMEM_FREE"},
                                         {"reason", 'E', "REASON"},
                                         {"since", 'H', "SINCE"},
                                         {"latency", 'A', "LATENCY"},
                                         {"measured", 'V', "MEASURED"},
                                         {"fresh", 'K', "FRESH"},
                                         {"live", 'J', "LIVE"}};

std::vector<std::string> pod_row(const PodStatus &p) {
    return {or_dash(p.pod),
            or_dash(p.nodes),
            std::to_string(p.node_count),
            format_latency(p.hot_bound_ns),
            std::to_string(p.hot_blades),
            format_size(p.hot_capacity),
            format_size(p.hot_reserved),
            format_size(p.hot_free),
            p.nearest_blade_ns ? format_latency(*p.nearest_blade_ns) : "-"};
}

// sinfo -R's TIMESTAMP: local time, ISO 8601.
std::string timestamp(int64_t since) {
    if (!since) return "-";
    std::time_t t = static_cast<std::time_t>(since);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", std::localtime(&t));
    return buf;
}

// "200ns..500ns" over the pods; one value when they agree.
std::string band(const std::optional<uint32_t> &lo, const std::optional<uint32_t> &hi) {
    if (!lo || !hi) return "-";
    return *lo == *hi ? format_latency(*lo) : format_latency(*lo) + ".." + format_latency(*hi);
}

std::vector<std::string> blade_row(const BladeStatus &b) {
    char load[16];
    std::snprintf(load, sizeof load, "%.2f", b.load);
    // Live only (the controller's heat map): the measured band, fresh and live cells.
    const bool heat = b.heat.has_value();
    return {or_dash(b.blade),
            or_dash(b.state),
            load,
            format_size(b.dram.capacity),
            format_size(b.dram.reserved),
            format_size(b.dram.free),
            format_size(b.pmem.capacity),
            format_size(b.pmem.reserved),
            format_size(b.pmem.free),
            or_dash(b.reason),
            timestamp(b.since),
            band(b.static_min_ns, b.static_max_ns),
            heat ? band(b.heat->min_ns, b.heat->max_ns) : "-",
            heat ? std::to_string(b.heat->fresh_cells) : "-",
            heat ? std::to_string(b.heat->live_cells) : "-"};
}

// Keeps the pods and blades the filters name, in the snapshot itself, so the tables, --json
// and --yaml show the same rows.
void filter(StatusSnapshot &s, const ViewOptions &v) {
    std::vector<std::string> pods;
    for (const PodStatus &p : s.pods) pods.push_back(or_dash(p.pod));
    require_known(v.pods, pods, "-p", "pod", "see the POD column of morpheus pools");
    std::vector<std::string> states = blade_states(v);
    std::vector<PodStatus> kept_pods;
    for (PodStatus &p : s.pods)
        if (v.pods.empty() || listed(v.pods, or_dash(p.pod))) kept_pods.push_back(std::move(p));
    s.pods = std::move(kept_pods);
    std::vector<BladeStatus> kept_blades;
    for (BladeStatus &b : s.blades)
        if (states.empty() || listed(states, or_dash(b.state))) kept_blades.push_back(std::move(b));
    s.blades = std::move(kept_blades);
}

// -o/-O: one table of pod rows or of blade rows, whichever kind the fields name.
std::string render_fields(const StatusSnapshot &s, const ViewOptions &v) {
    auto parse = [&](const std::vector<Field> &fields) {
        return v.format.empty() ? parse_Format(v.Format, fields) : parse_format(v.format, fields);
    };
    Layout layout;
    bool pods = true;
    try {
        layout = parse(kPodFields);
    } catch (const InputError &) {
        try {
            layout = parse(kBladeFields);
            pods = false;
        } catch (const InputError &e) {
            throw InputError("", e.where(), e.problem() + " (fields name pod rows or blade rows, not both)",
                             "pod fields: -O pod,nodes,node_count,hot_bound,hot_blades,hot_capacity,hot_reserved,"
                             "hot_free,nearest; blade fields: -O blade,state,load,dram,dram_reserved,dram_free,pmem,"
                             "pmem_reserved,pmem_free,reason,since,latency,measured,fresh,live; see morpheus(1) "
                             "for the -o letters");
        }
    }
    std::vector<std::vector<std::string>> rows;
    if (pods)
        for (const PodStatus &p : s.pods) rows.push_back(pod_row(p));
    else
        for (const BladeStatus &b : s.blades) rows.push_back(blade_row(b));
    return render_layout(layout, pods ? kPodFields : kBladeFields, rows, v.header);
}

// The summary line, then the pods with their free hot memory by bound, then the blades.
std::string render_pools(const StatusSnapshot &s, bool header) {
    uint64_t dc = 0, dr = 0, df = 0, pc = 0, pr = 0, pf = 0;
    int up = 0, draining = 0, failed = 0;
    for (const BladeStatus &b : s.blades) {
        dc += b.dram.capacity;
        dr += b.dram.reserved;
        df += b.dram.free;
        pc += b.pmem.capacity;
        pr += b.pmem.reserved;
        pf += b.pmem.free;
        up += b.state == "up";
        draining += b.state == "draining";
        failed += b.state == "failed";
    }
    std::string out;
    char line[512];
    std::snprintf(line, sizeof line,
                  "BLADES %zu (%d up, %d draining, %d failed)  DRAM %s reserved %s free %s  PMEM %s reserved %s free "
                  "%s  JOBS %zu\n\n",
                  s.blades.size(), up, draining, failed, format_size(dc).c_str(), format_size(dr).c_str(),
                  format_size(df).c_str(), format_size(pc).c_str(), format_size(pr).c_str(), format_size(pf).c_str(),
                  s.jobs.size());
    if (header) out += line;
    std::vector<std::string> headers = {"POD",          "NODES",        "HOT_BOUND", "HOT_BLADES",
                                        "HOT_CAPACITY", "HOT_RESERVED", "HOT_FREE",  "NEAREST"};
    if (!s.pods.empty())
        for (const HotClass &c : s.pods[0].hot_free_by_class) headers.push_back("FREE@" + format_latency(c.bound_ns));
    Table pt(headers);
    for (const PodStatus &p : s.pods) {
        std::vector<std::string> row = pod_row(p);
        row.erase(row.begin() + 2);  // node_count: NODES says it
        for (const HotClass &c : p.hot_free_by_class) row.push_back(format_size(c.free));
        pt.add(row);
    }
    out += pt.render(header) + "\n";
    // The reason and its time only when a blade has one, as sinfo -R lists only such nodes.
    // LATENCY is the fabric file's band over the pods; with the controller's heat map (live)
    // MEASURED is the band its fresh cells measure, FRESH and LIVE how many cells are fresh and
    // how many placement reads as measured.
    bool reasons = false, heat = false;
    for (const BladeStatus &b : s.blades) {
        reasons = reasons || !b.reason.empty();
        heat = heat || b.heat.has_value();
    }
    std::vector<std::string> headers_b = {"BLADE",     "STATE", "LOAD",      "DRAM",      "DRAM_RESV",
                                          "DRAM_FREE", "PMEM",  "PMEM_RESV", "PMEM_FREE", "LATENCY"};
    if (heat) headers_b.insert(headers_b.end(), {"MEASURED", "FRESH", "LIVE"});
    if (reasons) headers_b.insert(headers_b.end(), {"SINCE", "REASON"});
    Table bt(headers_b);
    for (const BladeStatus &b : s.blades) {
        const std::vector<std::string> all = blade_row(b);
        std::vector<std::string> row(all.begin(), all.begin() + 9);
        row.push_back(all[11]);
        if (heat) row.insert(row.end(), all.begin() + 12, all.end());
        if (reasons) row.insert(row.end(), {all[10], all[9]});
        bt.add(row);
    }
    out += bt.render(header);
    return out;
}

}  // namespace

int cmd_pools(int argc, char **argv) {
    StatusSource src;
    ViewOptions v;
    if (int rc = parse_view_command(
            argc, argv,
            "usage: morpheus pools [FABRIC INVENTORY | --conf FILE] [--state LEDGER] [--server HOST:PORT]\n"
            "                      [-p POD,...] [-t STATE,...] [-o FORMAT | -O FIELD[:[.]WIDTH],...]\n"
            "                      [-h|--noheader] [-i SECONDS] [--json|--yaml]\n"
            "pod fields:   pod nodes node_count hot_bound hot_blades hot_capacity hot_reserved hot_free nearest\n"
            "blade fields: blade state load dram dram_reserved dram_free pmem pmem_reserved pmem_free reason since\n"
            "              latency measured fresh live (measured, fresh, live: from the controller's heat map)\n",
            src, v);
        rc != kGoOn)
        return rc;
    return run_view(v, [&] {
        StatusSnapshot s = fetch<StatusSnapshot>(src, "status");
        filter(s, v);
        if (v.output != ViewOptions::Text) return dump_value(s, v.output);
        if (!v.format.empty() || !v.Format.empty()) return render_fields(s, v);
        return render_pools(s, v.header);
    });
}

}  // namespace morpheus::cli
