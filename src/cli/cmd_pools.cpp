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

namespace morpheus::cli {

namespace {

uint64_t num(json_t *o, const char *key) { return static_cast<uint64_t>(json_integer_value(json_object_get(o, key))); }
std::string str(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : "-";
}
uint64_t tier(json_t *blade, const char *t, const char *key) { return num(json_object_get(blade, t), key); }

const char *kBladeFields =
    "blade,state,load,dram,dram_reserved,dram_free,pmem,pmem_reserved,pmem_free";

}  // namespace

// sinfo -O style: the blade table with the fields asked for, in that order.
std::string render_blades(const std::string &status_text, const std::string &format, bool header) {
    json_error_t err;
    json_t *root = json_loads(status_text.c_str(), 0, &err);
    if (!root) throw InputError("status", "", std::string("bad status document: ") + err.text);
    std::vector<std::string> fields;
    size_t start = 0;
    while (start <= format.size()) {
        size_t comma = format.find(',', start);
        std::string f = format.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        std::string known = std::string(",") + kBladeFields + ",";
        if (f.empty() || known.find("," + f + ",") == std::string::npos)
            throw InputError("", "--format", "unknown field '" + f + "'", std::string("use ") + kBladeFields);
        fields.push_back(f);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    std::vector<std::string> headers;
    for (std::string f : fields) {
        for (char &ch : f) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        headers.push_back(f);
    }
    Table t(headers);
    size_t i;
    json_t *b;
    json_array_foreach(json_object_get(root, "blades"), i, b) {
        std::vector<std::string> row;
        for (const std::string &f : fields) {
            if (f == "blade") row.push_back(str(b, "blade"));
            else if (f == "state") row.push_back(str(b, "state"));
            else if (f == "load") {
                char load[16];
                std::snprintf(load, sizeof load, "%.2f", json_real_value(json_object_get(b, "load")));
                row.push_back(load);
            } else {
                std::string tier_key = f.substr(0, 4);
                std::string what = f.size() > 4 ? f.substr(5) : "capacity";
                row.push_back(format_size(tier(b, tier_key.c_str(), what.c_str())));
            }
        }
        t.add(row);
    }
    json_decref(root);
    return t.render(header);
}

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
                  "BLADES %zu (%d up, %d draining, %d failed)  DRAM %s reserved %s free %s  PMEM %s reserved %s free %s  JOBS %zu\n\n",
                  json_array_size(blades), up, draining, failed, format_size(dc).c_str(), format_size(dr).c_str(),
                  format_size(df).c_str(), format_size(pc).c_str(), format_size(pr).c_str(), format_size(pf).c_str(),
                  json_array_size(jobs));
    out += line;
    std::vector<std::string> headers = {"POD", "NODES", "HOT_BOUND", "HOT_BLADES", "HOT_CAPACITY", "HOT_RESERVED", "HOT_FREE", "NEAREST"};
    json_t *p;
    json_t *first_classes = json_object_get(json_array_get(pods, 0), "hot_free_by_class");
    size_t k;
    json_t *c;
    json_array_foreach(first_classes, k, c) headers.push_back("FREE@" + format_latency(num(c, "bound_ns")));
    Table pt(headers);
    json_array_foreach(pods, i, p) {
        json_t *near = json_object_get(p, "nearest_blade_ns");
        std::vector<std::string> row = {str(p, "pod"), str(p, "nodes"), format_latency(num(p, "hot_bound_ns")),
                                        std::to_string(num(p, "hot_blades")), format_size(num(p, "hot_capacity")),
                                        format_size(num(p, "hot_reserved")), format_size(num(p, "hot_free")),
                                        json_is_integer(near) ? format_latency(json_integer_value(near)) : "-"};
        json_array_foreach(json_object_get(p, "hot_free_by_class"), k, c) row.push_back(format_size(num(c, "free")));
        pt.add(row);
    }
    out += pt.render(header) + "\n";
    Table bt({"BLADE", "STATE", "LOAD", "DRAM", "DRAM_RESV", "DRAM_FREE", "PMEM", "PMEM_RESV", "PMEM_FREE"});
    json_array_foreach(blades, i, b) {
        char load[16];
        std::snprintf(load, sizeof load, "%.2f", json_real_value(json_object_get(b, "load")));
        bt.add({str(b, "blade"), str(b, "state"), load, format_size(tier(b, "dram", "capacity")),
                format_size(tier(b, "dram", "reserved")), format_size(tier(b, "dram", "free")),
                format_size(tier(b, "pmem", "capacity")), format_size(tier(b, "pmem", "reserved")),
                format_size(tier(b, "pmem", "free"))});
    }
    out += bt.render(header);
    json_decref(root);
    return out;
}

int cmd_pools(int argc, char **argv) {
    StatusSource src;
    bool json = false, header = true;
    std::string format;
    enum { kJson = 1000, kHelp };
    static const option longopts[] = {{"conf", required_argument, nullptr, 'c'},
                                      {"server", required_argument, nullptr, kOptServer},
                                      {"state", required_argument, nullptr, kOptState},
                                      {"format", required_argument, nullptr, 'o'},
                                      {"json", no_argument, nullptr, kJson},
                                      {"noheader", no_argument, nullptr, 'h'},
                                      {"help", no_argument, nullptr, kHelp},
                                      {"usage", no_argument, nullptr, kHelp},
                                      {nullptr, 0, nullptr, 0}};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "c:o:h", longopts, nullptr)) != -1) {
        if (take_status_option(c, optarg, src)) continue;
        switch (c) {
        case 'o': format = optarg; break;
        case kJson: json = true; break;
        case 'h': header = false; break;  // as sinfo: -h is --noheader
        case kHelp:
            std::printf("usage: morpheus pools [FABRIC INVENTORY | --conf FILE] [--state LEDGER] [--server HOST:PORT]\n"
                        "                      [-o FIELD,FIELD,...] [-h|--noheader] [--json]\n"
                        "blade fields for -o: %s\n", kBladeFields);
            return kOk;
        default: return kUsage;
        }
    }
    take_positional_sources(src.files, std::vector<std::string>(argv + optind, argv + argc));
    std::string status = fetch_status(src, "status");
    if (json)
        std::fputs(status.c_str(), stdout);
    else if (!format.empty())
        std::fputs(render_blades(status, format, header).c_str(), stdout);
    else
        std::fputs(render_pools(status, header).c_str(), stdout);
    return kOk;
}

}  // namespace morpheus::cli
