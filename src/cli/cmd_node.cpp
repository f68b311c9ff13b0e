// morpheus node: what this compute node offers Morpheus (GPUs, NICs and their pairing, NUMA
// nodes by memory tier, the NCCL topology file a job would get), for an admin checking a node;
// the same core calls the SPANK plugin makes in slurmstepd.
#include <getopt.h>
#include <jansson.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "commands.hpp"
#include "json_document.hpp"
#include "nccl_topology.hpp"
#include "node_tiers.hpp"
#include "node_topology.hpp"
#include "options.hpp"
#include "table.hpp"
#include "units.hpp"

namespace morpheus::cli {

namespace {

std::string or_dash(const std::string &s) { return s.empty() ? "-" : s; }

std::string join(const std::vector<std::string> &v, const char *sep) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
    return out;
}

std::string pci_root(const NodeTopology &t, int pci) {
    std::vector<int> path = t.pci_path(pci);
    return path.size() > 1 ? t.pci[path.back()].busid : "-";
}

const GpuNic *nic_of(const std::vector<GpuNic> &near, unsigned gpu) {
    for (const GpuNic &n : near)
        if (n.gpu == gpu) return &n;
    return nullptr;
}

std::string render_text(const NodeTopology &t) {
    std::string out;
    char line[512];
    std::snprintf(line, sizeof line, "NODE %s (%s)  CPU %s %s family %s model %s  PUS %u\n\n",
                  or_dash(t.hostname).c_str(), t.source.c_str(), or_dash(t.arch).c_str(), or_dash(t.cpu_vendor).c_str(),
                  t.cpu_family < 0 ? "-" : std::to_string(t.cpu_family).c_str(),
                  t.cpu_model < 0 ? "-" : std::to_string(t.cpu_model).c_str(), t.pu_count);
    out += line;

    Table numa({"NUMA", "TIER", "SIZE", "SUBTYPE", "PACKAGE", "CPUS", "WHY"});
    for (const NumaNode &n : t.numa)
        numa.add({std::to_string(n.os_index), tier_name(n.tier), format_size(n.bytes), or_dash(n.subtype),
                  n.package < 0 ? "-" : std::to_string(n.package), or_dash(cpu_list_string(n.cpus)), n.tier_reason});
    out += numa.render() + "\n";

    std::vector<GpuNic> near = nearest_nics(t);
    if (t.gpus.empty()) {
        out += "GPUS none (no NVIDIA PCI device)\n\n";
    } else {
        Table gpus({"GPU", "BUSID", "NUMA", "PCI_ROOT", "NIC", "PATH", "NAME"});
        for (const Gpu &g : t.gpus) {
            const PciDevice &d = t.pci[g.pci];
            const GpuNic *n = nic_of(near, g.index);
            bool has = n && n->nic >= 0;
            gpus.add({std::to_string(g.index), d.busid, std::to_string(d.numa), pci_root(t, g.pci),
                      has ? t.nics[n->nic].hca : "-", has ? pci_path_name(n->path) : "-", or_dash(d.name)});
        }
        out += gpus.render() + "\n";
    }
    if (t.nics.empty()) {
        out += "NICS none\n\n";
    } else {
        Table nics({"NIC", "BUSID", "NUMA", "CLASS", "HCA", "NETDEVS", "PCI_ROOT"});
        for (size_t k = 0; k < t.nics.size(); ++k) {
            const Nic &n = t.nics[k];
            const PciDevice &d = t.pci[n.pci];
            nics.add({std::to_string(k), d.busid, std::to_string(d.numa), n.infiniband ? "infiniband" : "ethernet",
                      or_dash(n.hca), or_dash(join(n.netdevs, ",")), pci_root(t, n.pci)});
        }
        out += nics.render() + "\n";
    }
    TierChoice c = choose_tiers(t, {});
    std::vector<unsigned> hot = c.hot;
    out += "TIERS hot (local DRAM) " + or_dash(cpu_list_string(hot)) + "  cold (CPU-less) " +
           or_dash(cpu_list_string(c.cold)) + "\n";
    for (const std::string &w : c.warnings) out += "  note: " + w + "\n";
    for (const std::string &w : t.warnings) out += "  note: " + w + "\n";
    out += "\n";
    if (t.gpus.empty()) {
        out += "NCCL_TOPO_FILE not written on this node (no GPU)\n";
    } else {
        out += "NCCL_TOPO_FILE a job would get:\n" + nccl_topology_xml(t);
    }
    return out;
}

json_t *strings(const std::vector<std::string> &v) {
    json_t *a = json_array();
    for (const std::string &s : v) json_array_append_new(a, json_string(s.c_str()));
    return a;
}

std::string render_json(const NodeTopology &t) {
    json_t *root = json_object();
    json_object_set_new(root, "hostname", json_string(t.hostname.c_str()));
    json_object_set_new(root, "source", json_string(t.source.c_str()));
    json_object_set_new(
        root, "cpu",
        json_pack("{s:s, s:s, s:I, s:I, s:I}", "arch", t.arch.c_str(), "vendor", t.cpu_vendor.c_str(), "family",
                  (json_int_t)t.cpu_family, "model", (json_int_t)t.cpu_model, "pus", (json_int_t)t.pu_count));
    json_t *numa = json_array();
    for (const NumaNode &n : t.numa)
        json_array_append_new(numa, json_pack("{s:I, s:s, s:I, s:s, s:I, s:s, s:s}", "os_index", (json_int_t)n.os_index,
                                              "tier", tier_name(n.tier), "bytes", (json_int_t)n.bytes, "subtype",
                                              n.subtype.c_str(), "package", (json_int_t)n.package, "cpus",
                                              cpu_list_string(n.cpus).c_str(), "reason", n.tier_reason.c_str()));
    json_object_set_new(root, "numa", numa);
    std::vector<GpuNic> near = nearest_nics(t);
    json_t *gpus = json_array();
    for (const Gpu &g : t.gpus) {
        const PciDevice &d = t.pci[g.pci];
        const GpuNic *n = nic_of(near, g.index);
        bool has = n && n->nic >= 0;
        json_array_append_new(
            gpus, json_pack("{s:I, s:s, s:I, s:s, s:o, s:o}", "index", (json_int_t)g.index, "busid", d.busid.c_str(),
                            "numa", (json_int_t)d.numa, "pci_root", pci_root(t, g.pci).c_str(), "nic",
                            has ? json_string(t.nics[n->nic].hca.c_str()) : json_null(), "path",
                            has ? json_string(pci_path_name(n->path)) : json_null()));
    }
    json_object_set_new(root, "gpus", gpus);
    json_t *nics = json_array();
    for (const Nic &n : t.nics) {
        const PciDevice &d = t.pci[n.pci];
        json_array_append_new(
            nics, json_pack("{s:s, s:I, s:b, s:s, s:o}", "busid", d.busid.c_str(), "numa", (json_int_t)d.numa,
                            "infiniband", n.infiniband, "hca", n.hca.c_str(), "netdevs", strings(n.netdevs)));
    }
    json_object_set_new(root, "nics", nics);
    TierChoice c = choose_tiers(t, {});
    json_t *tiers = json_object();
    json_t *hot = json_array(), *cold = json_array();
    for (unsigned n : c.hot) json_array_append_new(hot, json_integer(n));
    for (unsigned n : c.cold) json_array_append_new(cold, json_integer(n));
    json_object_set_new(tiers, "hot", hot);
    json_object_set_new(tiers, "cold", cold);
    json_object_set_new(root, "tiers", tiers);
    json_object_set_new(root, "nccl_topology",
                        t.gpus.empty() ? json_null() : json_string(nccl_topology_xml(t).c_str()));
    std::vector<std::string> warnings = t.warnings;
    warnings.insert(warnings.end(), c.warnings.begin(), c.warnings.end());
    json_object_set_new(root, "warnings", strings(warnings));
    return document_text(root);
}

}  // namespace

int cmd_node(int argc, char **argv) {
    if (argc > 1 && !std::strcmp(argv[1], "agent")) return cmd_node_agent(argc - 1, argv + 1);
    std::string topology;
    bool json = false, nccl_only = false;
    enum { kTopology = 1000, kJson, kNccl };
    static const option longopts[] = {{"topology", required_argument, nullptr, kTopology},
                                      {"json", no_argument, nullptr, kJson},
                                      {"nccl-file", no_argument, nullptr, kNccl},
                                      {"help", no_argument, nullptr, 'h'},
                                      {nullptr, 0, nullptr, 0}};
    if (int rc = parse_options(argc, argv, "h", longopts,
                               [&](int c, const char *arg) -> int {
                                   switch (c) {
                                   case kTopology: topology = arg; return kGoOn;
                                   case kJson: json = true; return kGoOn;
                                   case kNccl: nccl_only = true; return kGoOn;
                                   case 'h':
                                       std::printf(
                                           "usage: morpheus node [--topology FILE.xml] [--json | --nccl-file]\n"
                                           "  GPUs, NICs, NUMA nodes by tier and the NCCL topology file of this node\n"
                                           "  (or of the hwloc XML FILE, e.g. from lstopo --of xml on another node)\n"
                                           "       morpheus node agent ...  this node's periodic work (--help)\n");
                                       return kOk;
                                   default: return kUsage;
                                   }
                               });
        rc != kGoOn)
        return rc;
    if (optind < argc) {
        std::fprintf(stderr, "morpheus node: unexpected argument '%s' (give the XML with --topology)\n", argv[optind]);
        return kUsage;
    }
    NodeTopology t = load_node_topology(topology);
    if (nccl_only) {
        if (t.gpus.empty()) {
            std::fprintf(stderr, "morpheus node: %s has no NVIDIA GPU; no NCCL topology file would be written\n",
                         t.source.c_str());
            return kInputError;
        }
        std::fputs(nccl_topology_xml(t).c_str(), stdout);
        return kOk;
    }
    std::fputs(json ? render_json(t).c_str() : render_text(t).c_str(), stdout);
    return kOk;
}

}  // namespace morpheus::cli
