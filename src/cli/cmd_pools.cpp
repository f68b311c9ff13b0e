// morpheus pools: the sinfo of memory pools. Renders the status document (the same JSON the
// plugin serves) as summary, per-pod and per-blade tables, or passes it through with --json.
#include <jansson.h>

#include <cstdio>

#include "explain.hpp"
#include "input_error.hpp"
#include "options.hpp"
#include "table.hpp"
#include "units.hpp"

namespace morpheus::cli {

namespace {

uint64_t num(json_t *o, const char *key) { return static_cast<uint64_t>(json_integer_value(json_object_get(o, key))); }
std::string str(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : "-";
}
uint64_t tier(json_t *blade, const char *t, const char *key) { return num(json_object_get(blade, t), key); }

}  // namespace

std::string render_pools(const std::string &status_text) {
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
                  "BLADES %zu (%d up, %d draining, %d failed)  DRAM %s reserved %s free %s  PMEM %s reserved %s free %s  JOBS %zu\n\n",
                  json_array_size(blades), up, draining, failed, format_size(dc).c_str(), format_size(dr).c_str(),
                  format_size(df).c_str(), format_size(pc).c_str(), format_size(pr).c_str(), format_size(pf).c_str(),
                  json_array_size(jobs));
    out += line;
    Table pt({"POD", "NODES", "HOT_BOUND", "HOT_BLADES", "HOT_CAPACITY", "HOT_RESERVED", "HOT_FREE", "NEAREST"});
    json_t *p;
    json_array_foreach(pods, i, p) {
        json_t *near = json_object_get(p, "nearest_blade_ns");
        pt.add({str(p, "pod"), str(p, "nodes"), format_latency(num(p, "hot_bound_ns")), std::to_string(num(p, "hot_blades")),
                format_size(num(p, "hot_capacity")), format_size(num(p, "hot_reserved")), format_size(num(p, "hot_free")),
                json_is_integer(near) ? format_latency(json_integer_value(near)) : "-"});
    }
    out += pt.render() + "\n";
    Table bt({"BLADE", "STATE", "LOAD", "DRAM", "DRAM_RESV", "DRAM_FREE", "PMEM", "PMEM_RESV", "PMEM_FREE"});
    json_array_foreach(blades, i, b) {
        char load[16];
        std::snprintf(load, sizeof load, "%.2f", json_real_value(json_object_get(b, "load")));
        bt.add({str(b, "blade"), str(b, "state"), load, format_size(tier(b, "dram", "capacity")),
                format_size(tier(b, "dram", "reserved")), format_size(tier(b, "dram", "free")),
                format_size(tier(b, "pmem", "capacity")), format_size(tier(b, "pmem", "reserved")),
                format_size(tier(b, "pmem", "free"))});
    }
    out += bt.render();
    json_decref(root);
    return out;
}

int cmd_pools(int argc, char **argv) {
    Sources s;
    bool json = false;
    enum { kState = 1000, kJson };
    static const option longopts[] = {{"conf", required_argument, nullptr, 'c'},
                                      {"state", required_argument, nullptr, kState},
                                      {"json", no_argument, nullptr, kJson},
                                      {"help", no_argument, nullptr, 'h'},
                                      {nullptr, 0, nullptr, 0}};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "c:h", longopts, nullptr)) != -1) {
        switch (c) {
        case 'c': s.conf = optarg; break;
        case kState: s.state = optarg; break;
        case kJson: json = true; break;
        case 'h':
            std::printf("usage: morpheus pools [FABRIC INVENTORY | --conf FILE] [--state LEDGER] [--json]\n");
            return kOk;
        default: return kUsage;
        }
    }
    take_positional_sources(s, std::vector<std::string>(argv + optind, argv + argc));
    Config conf;
    ClusterModel model = load_model(s, &conf);
    if (s.state.empty()) s.state = conf.state_file;
    std::vector<std::string> warnings;
    Ledger ledger = s.state.empty() ? Ledger(model.fabric().blades.size()) : Ledger::load(s.state, model.fabric(), &warnings);
    for (const std::string &w : warnings) std::fprintf(stderr, "morpheus: warning: %s\n", w.c_str());
    std::string status = status_json(model, ledger, -1);
    std::fputs(json ? status.c_str() : render_pools(status).c_str(), stdout);
    return kOk;
}

}  // namespace morpheus::cli
