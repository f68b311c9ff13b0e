// morpheus pools: the sinfo of memory pools. Renders the status document (the same JSON the
// plugin serves) as summary, per-pod and per-blade tables, or passes it through with --json.
#include <jansson.h>

#include <cctype>
#include <cstdio>

#include "explain.hpp"
#include "input_error.hpp"
#include "options.hpp"
#include "status_source.hpp"
#include "table.hpp"
#include "units.hpp"
#include "view.hpp"

namespace morpheus::cli {

namespace {

uint64_t num(json_t *o, const char *key) { return static_cast<uint64_t>(json_integer_value(json_object_get(o, key))); }
std::string str(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    return json_is_string(v) && *json_string_value(v) ? json_string_value(v) : "-";
}
uint64_t tier(json_t *blade, const char *t, const char *key) { return num(json_object_get(blade, t), key); }

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
                                         {"since", 'H', "SINCE"}};

std::vector<std::string> pod_row(json_t *p) {
    json_t *near = json_object_get(p, "nearest_blade_ns");
    return {str(p, "pod"),
            str(p, "nodes"),
            std::to_string(num(p, "node_count")),
            format_latency(num(p, "hot_bound_ns")),
            std::to_string(num(p, "hot_blades")),
            format_size(num(p, "hot_capacity")),
            format_size(num(p, "hot_reserved")),
            format_size(num(p, "hot_free")),
            json_is_integer(near) ? format_latency(json_integer_value(near)) : "-"};
}

// sinfo -R's TIMESTAMP: local time, ISO 8601.
std::string timestamp(json_t *v) {
    if (!json_is_integer(v)) return "-";
    std::time_t t = static_cast<std::time_t>(json_integer_value(v));
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", std::localtime(&t));
    return buf;
}

std::vector<std::string> blade_row(json_t *b) {
    char load[16];
    std::snprintf(load, sizeof load, "%.2f", json_real_value(json_object_get(b, "load")));
    return {str(b, "blade"),
            str(b, "state"),
            load,
            format_size(tier(b, "dram", "capacity")),
            format_size(tier(b, "dram", "reserved")),
            format_size(tier(b, "dram", "free")),
            format_size(tier(b, "pmem", "capacity")),
            format_size(tier(b, "pmem", "reserved")),
            format_size(tier(b, "pmem", "free")),
            str(b, "reason"),
            timestamp(json_object_get(b, "since"))};
}

// "drain" and "down" are Slurm's words for draining and failed.
std::string blade_state_word(const std::string &s) {
    if (s == "drain") return "draining";
    if (s == "down") return "failed";
    return s;
}

// Keeps the pods and blades the filters name, in the document itself, so the tables, --json
// and --yaml show the same rows.
void filter(json_t *root, const ViewOptions &v) {
    std::vector<std::string> pods, states;
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(root, "pods"), i, x) pods.push_back(str(x, "pod"));
    require_known(v.pods, pods, "-p", "pod", "see the POD column of morpheus pools");
    for (const std::string &s : v.states) states.push_back(blade_state_word(s));
    require_known(states, {"up", "draining", "failed", "absent"}, "-t", "blade state",
                  "use up, draining (drain), failed (down) or absent");
    json_t *kept = json_array();
    json_array_foreach(json_object_get(root, "pods"), i, x) if (v.pods.empty() || listed(v.pods, str(x, "pod")))
        json_array_append(kept, x);
    json_object_set_new(root, "pods", kept);
    kept = json_array();
    json_array_foreach(json_object_get(root, "blades"), i, x) if (states.empty() || listed(states, str(x, "state")))
        json_array_append(kept, x);
    json_object_set_new(root, "blades", kept);
}

// -o/-O: one table of pod rows or of blade rows, whichever kind the fields name.
std::string render_fields(json_t *root, const ViewOptions &v) {
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
                             "pmem_reserved,pmem_free,reason,since; see morpheus(1) for the -o letters");
        }
    }
    std::vector<std::vector<std::string>> rows;
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(root, pods ? "pods" : "blades"), i, x)
        rows.push_back(pods ? pod_row(x) : blade_row(x));
    return render_layout(layout, pods ? kPodFields : kBladeFields, rows, v.header);
}

}  // namespace

std::string render_pools(const std::string &status_text, bool header) {
    json_error_t err;
    json_t *root = json_loads(status_text.c_str(), 0, &err);
    if (!root) throw InputError("status", "", std::string("bad status document: ") + err.text);
    json_t *blades = json_object_get(root, "blades"), *pods = json_object_get(root, "pods"),
           *jobs = json_object_get(root, "jobs");
    uint64_t dc = 0, dr = 0, df = 0, pc = 0, pr = 0, pf = 0;
    int up = 0, draining = 0, failed = 0;
    size_t i;
    json_t *b;
    json_array_foreach(blades, i, b) {
        dc += tier(b, "dram", "capacity");
        dr += tier(b, "dram", "reserved");
        df += tier(b, "dram", "free");
        pc += tier(b, "pmem", "capacity");
        pr += tier(b, "pmem", "reserved");
        pf += tier(b, "pmem", "free");
        std::string st = str(b, "state");
        up += st == "up";
        draining += st == "draining";
        failed += st == "failed";
    }
    std::string out;
    char line[512];
    std::snprintf(line, sizeof line,
                  "BLADES %zu (%d up, %d draining, %d failed)  DRAM %s reserved %s free %s  PMEM %s reserved %s free "
                  "%s  JOBS %zu\n\n",
                  json_array_size(blades), up, draining, failed, format_size(dc).c_str(), format_size(dr).c_str(),
                  format_size(df).c_str(), format_size(pc).c_str(), format_size(pr).c_str(), format_size(pf).c_str(),
                  json_array_size(jobs));
    if (header) out += line;
    std::vector<std::string> headers = {"POD",          "NODES",        "HOT_BOUND", "HOT_BLADES",
                                        "HOT_CAPACITY", "HOT_RESERVED", "HOT_FREE",  "NEAREST"};
    json_t *p;
    json_t *first_classes = json_object_get(json_array_get(pods, 0), "hot_free_by_class");
    size_t k;
    json_t *c;
    json_array_foreach(first_classes, k, c) headers.push_back("FREE@" + format_latency(num(c, "bound_ns")));
    Table pt(headers);
    json_array_foreach(pods, i, p) {
        std::vector<std::string> row = pod_row(p);
        row.erase(row.begin() + 2);  // node_count: NODES says it
        json_array_foreach(json_object_get(p, "hot_free_by_class"), k, c) row.push_back(format_size(num(c, "free")));
        pt.add(row);
    }
    out += pt.render(header) + "\n";
    // The reason and its time only when a blade has one, as sinfo -R lists only such nodes.
    bool reasons = false;
    json_array_foreach(blades, i, b) reasons = reasons || json_is_string(json_object_get(b, "reason"));
    Table bt(reasons ? std::vector<std::string>{"BLADE", "STATE", "LOAD", "DRAM", "DRAM_RESV", "DRAM_FREE", "PMEM",
                                                "PMEM_RESV", "PMEM_FREE", "SINCE", "REASON"}
                     : std::vector<std::string>{"BLADE", "STATE", "LOAD", "DRAM", "DRAM_RESV", "DRAM_FREE", "PMEM",
                                                "PMEM_RESV", "PMEM_FREE"});
    json_array_foreach(blades, i, b) {
        std::vector<std::string> row = blade_row(b);
        std::string reason = row[9], since = row[10];
        row.resize(9);
        if (reasons) {
            row.push_back(since);
            row.push_back(reason);
        }
        bt.add(row);
    }
    out += bt.render(header);
    json_decref(root);
    return out;
}

int cmd_pools(int argc, char **argv) {
    StatusSource src;
    ViewOptions v;
    enum { kHelp = 1000 };
    static const option longopts[] = {{"conf", required_argument, nullptr, 'c'},
                                      {"server", required_argument, nullptr, kOptServer},
                                      {"state", required_argument, nullptr, kOptState},
                                      MORPHEUS_VIEW_LONG_OPTIONS,
                                      {"help", no_argument, nullptr, kHelp},
                                      {"usage", no_argument, nullptr, kHelp},
                                      {nullptr, 0, nullptr, 0}};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, (std::string("c:") + kViewShortOptions).c_str(), longopts, nullptr)) != -1) {
        if (take_status_option(c, optarg, src) || take_view_option(c, optarg, v)) continue;
        if (c == kHelp) {
            std::printf(
                "usage: morpheus pools [FABRIC INVENTORY | --conf FILE] [--state LEDGER] [--server HOST:PORT]\n"
                "                      [-p POD,...] [-t STATE,...] [-o FORMAT | -O FIELD[:[.]WIDTH],...]\n"
                "                      [-h|--noheader] [-i SECONDS] [--json|--yaml]\n"
                "pod fields:   pod nodes node_count hot_bound hot_blades hot_capacity hot_reserved hot_free nearest\n"
                "blade fields: blade state load dram dram_reserved dram_free pmem pmem_reserved pmem_free reason "
                "since\n");
            return kOk;
        }
        return kUsage;
    }
    if (!v.format.empty() && !v.Format.empty()) throw InputError("", "-o", "give -o or -O, not both");
    take_positional_sources(src.files, std::vector<std::string>(argv + optind, argv + argc));
    return run_view(v, [&] {
        json_t *root = fetch_document(src, "status");
        std::string out;
        try {
            filter(root, v);
            if (v.output != ViewOptions::Text)
                out = dump_document(root, v.output);
            else if (!v.format.empty() || !v.Format.empty())
                out = render_fields(root, v);
            else {
                char *s = json_dumps(root, 0);
                out = render_pools(s, v.header);
                std::free(s);
            }
        } catch (...) {
            json_decref(root);
            throw;
        }
        json_decref(root);
        return out;
    });
}

}  // namespace morpheus::cli
